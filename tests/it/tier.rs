//! The two tiers of the test suite. The default tier is the edit-test loop: every test runs,
//! but the long ones only on a fast instance. The slow tier (`LABS_SLOW_TESTS=1`) adds what
//! takes long or depends on the machine: the larger instances of the differential and symmetry
//! suites, the browser test, and the wall-clock bounds, which a loaded machine can break
//! without a bug. CI runs both.

use std::io::Write;
use std::time::Duration;

/// The environment variable that turns the slow tier on (`LABS_SLOW_TESTS=1`).
pub const VARIABLE: &str = "LABS_SLOW_TESTS";

/// Whether the slow tier runs, without saying anything.
fn enabled() -> bool {
    std::env::var_os(VARIABLE).is_some_and(|v| v == "1")
}

/// Whether the slow tier runs the part of a test that `why` describes (what it is and why it
/// is slow). When it does not, says so on standard error, past the test harness' capture so
/// that a default run lists what it left out.
///
/// A whole test: `if !tier::slow("…") { return; }`; part of one:
/// `if tier::slow("…") { instances.extend(…) }`.
pub fn slow(why: &str) -> bool {
    if enabled() {
        return true;
    }
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    let _ = writeln!(std::io::stderr(), "{test}: skipped {why} (slow tier: {VARIABLE}=1 runs it)");
    false
}

/// A wall-clock bound: `took` must be under `bound`. Checked in the slow tier only, since a
/// machine shared with other work can take longer without a bug.
pub fn assert_within(took: Duration, bound: Duration, what: &str) {
    if slow(&format!("the wall-clock bound of {bound:?} on {what}")) {
        assert!(took < bound, "{what}: took {took:?}, more than {bound:?}");
    }
}
