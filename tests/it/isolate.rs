//! Tests that measure their child processes run in a process of their own: on Linux a child's
//! peak resident memory (`ru_maxrss`) starts from its parent's at `exec`, and this program runs
//! the other tests, with their state spaces, in the same process.

use std::process::Command;

/// Set in a process that runs one test alone.
const VARIABLE: &str = "LABS_TEST_ALONE";

/// Whether the calling test runs in a process of its own. When it does not, runs it again, alone,
/// in a new process of this program, fails if that run fails, and returns false: the caller
/// then returns (`if !isolate::in_own_process() { return; }`).
pub fn in_own_process() -> bool {
    if std::env::var_os(VARIABLE).is_some() {
        return true;
    }
    let thread = std::thread::current();
    let test = thread.name().expect("the test harness names each test's thread after the test");
    let o = Command::new(std::env::current_exe().expect("this test program"))
        .args([test, "--exact", "--test-threads=1", "--nocapture"])
        .env(VARIABLE, "1")
        .output()
        .expect("run the test alone");
    let out = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{test}, run alone:\n{out}");
    // The name matched: the run did not pass by running nothing.
    assert!(out.contains("test result: ok. 1 passed"), "{test} did not run alone:\n{out}");
    false
}
