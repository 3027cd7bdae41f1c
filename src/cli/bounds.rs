//! The command line's side of a run's bounds: reading `--timeout` and `--memory`, the
//! `Limits` of a command, and the last resort when a phase does not stop in time.

use super::exit;
use crate::limits::{Limits, MemorySource, StopReason, machine_available_bytes};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// The longest `--timeout` accepted, in seconds (about 31 years).
const MAX_TIMEOUT: f64 = 1e9;

/// The largest `--memory` accepted, in MiB (1 EiB).
pub(crate) const MAX_MEMORY_MIB: u64 = 1 << 40;

/// How long after a stop the run may take to report before the process ends without a
/// report: every phase polls the limits, so this only catches one that does not.
const GRACE: Duration = Duration::from_millis(900);

/// Set once the report is being printed: the last resort must not cut it.
static REPORTING: AtomicBool = AtomicBool::new(false);

/// `--timeout SECONDS`: a positive, finite number of seconds, at most `MAX_TIMEOUT`.
pub(crate) fn parse_timeout(s: &str) -> Result<f64, String> {
    let t: f64 = s.trim().parse().map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if !t.is_finite() || t <= 0.0 {
        return Err(format!("the timeout must be a positive number of seconds, not `{s}`"));
    }
    if t > MAX_TIMEOUT {
        return Err(format!("the timeout must be at most {MAX_TIMEOUT:e} seconds, not `{s}`"));
    }
    Ok(t)
}

/// The bounds of a command, starting now: `--memory` bounds the resident memory, and without
/// it the memory the machine has available is the bound. Ctrl-C and SIGTERM interrupt.
pub(crate) fn limits(timeout: Option<f64>, max_states: Option<u64>, memory_mib: Option<u64>) -> Limits {
    let memory = match memory_mib {
        Some(m) => Some((m << 20, MemorySource::User)),
        None => machine_available_bytes().map(|b| (b, MemorySource::Machine)),
    };
    let l = Limits::new(timeout.map(Duration::from_secs_f64), max_states, memory, Some(interrupt_flag()));
    last_resort(&l);
    l
}

/// Called before the report is printed: from then on the run is not cut short.
pub(crate) fn reporting() {
    REPORTING.store(true, Ordering::SeqCst);
}

/// The exit code of a run stopped for `r`.
pub(crate) fn stop_code(r: StopReason) -> i32 {
    match r {
        StopReason::Timeout => exit::TIMEOUT,
        StopReason::Interrupted => exit::INTERRUPTED,
        StopReason::MaxStates | StopReason::Memory => exit::INCONCLUSIVE,
    }
}

/// The flag a Ctrl-C sets; installed once per process.
pub(crate) fn interrupt_flag() -> Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let f = flag.clone();
        // Without a handler, Ctrl-C still ends the process (exit 130 by the shell).
        let _ = ctrlc::set_handler(move || f.store(true, Ordering::SeqCst));
        flag
    })
    .clone()
}

pub(crate) fn reason_text(s: StopReason) -> &'static str {
    match s {
        StopReason::MaxStates => "the state bound (--max-states) was reached",
        StopReason::Memory => "the memory bound (--memory) was reached",
        StopReason::Timeout => "the time limit (--timeout) was reached",
        StopReason::Interrupted => "interrupted",
    }
}

/// What stopped the run, for a message.
pub(crate) fn stop_text(l: &Limits, r: StopReason) -> String {
    match (r, l.memory()) {
        (StopReason::Memory, Some((b, MemorySource::Machine))) => format!(
            "the memory available on the machine ({} MiB) was nearly exhausted (set a bound with --memory)",
            b >> 20
        ),
        (StopReason::Memory, Some((b, MemorySource::User))) => {
            format!("the memory bound (--memory {}) was reached", b >> 20)
        }
        _ => reason_text(r).to_string(),
    }
}

/// Ends the process with the stop's exit code if the run has not started its report
/// `GRACE` after a stop, so that a stop always takes effect within a second; the temporary
/// working directories of the back ends are removed, the kept ones named.
fn last_resort(l: &Limits) {
    let l = l.clone();
    let _ = std::thread::Builder::new().name("labs-last-resort".into()).spawn(move || {
        loop {
            std::thread::sleep(Duration::from_millis(20));
            if REPORTING.load(Ordering::SeqCst) {
                return;
            }
            if let (Some(r), Some(since)) = (l.stopped(), l.since_stop())
                && since >= GRACE
            {
                super::status::clear();
                eprintln!("error: {}; stopped before any result could be reported", stop_text(&l, r));
                for dir in crate::lts_backend::abandon_all() {
                    eprintln!("  = note: the generated files are kept in `{}`", dir.display());
                }
                std::process::exit(stop_code(r));
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::parse_timeout;

    #[test]
    fn timeouts_out_of_range_are_refused_with_a_message() {
        assert_eq!(parse_timeout("2.5"), Ok(2.5));
        for bad in ["1e20", "-1", "0", "nan", "inf", "abc", ""] {
            let e = parse_timeout(bad).expect_err(bad);
            assert!(e.contains('`'), "{bad}: {e}");
        }
    }
}
