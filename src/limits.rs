//! The bounds of one run: a deadline, an interrupt (Ctrl-C or SIGTERM, by a flag the caller
//! sets), a state count and a bound on the process's resident memory.
//!
//! One `Limits` is shared by every phase of a command (loading, exploration, property
//! checking, counterexamples, simulation, the LNT interpreter, the CADP driver). A watchdog
//! thread turns the deadline, the interrupt flag and the resident memory (read from
//! `/proc/self/statm` every few milliseconds) into one stop reason, so that polling it in an
//! inner loop is a single atomic load. The state bound is not a stop reason of the run: it
//! bounds a graph, and the properties can still be checked on what was explored.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

/// Why a run (or an exploration) stopped before the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    MaxStates,
    Memory,
    Timeout,
    Interrupted,
}

impl StopReason {
    fn code(self) -> u8 {
        match self {
            StopReason::MaxStates => 1,
            StopReason::Memory => 2,
            StopReason::Timeout => 3,
            StopReason::Interrupted => 4,
        }
    }

    fn from_code(c: u8) -> Option<StopReason> {
        Some(match c {
            1 => StopReason::MaxStates,
            2 => StopReason::Memory,
            3 => StopReason::Timeout,
            4 => StopReason::Interrupted,
            _ => return None,
        })
    }
}

/// How often the watchdog looks at the clock, the interrupt flag and the resident memory.
const WATCH_PERIOD: Duration = Duration::from_millis(5);

/// The share of a memory bound at which a run stops: the phase that notices the stop still
/// allocates a little before it returns (its last buffers, the report).
const MEMORY_MARGIN: f64 = 0.95;

/// Where the memory bound comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemorySource {
    /// `--memory`, given by the user.
    User,
    /// The memory the machine had available when the run started (no `--memory`).
    Machine,
}

struct Inner {
    deadline: Option<Instant>,
    max_states: Option<u64>,
    memory: Option<(u64, MemorySource)>,
    interrupt: Option<Arc<AtomicBool>>,
    /// `StopReason::code` of the first stop, 0 while running.
    stop: AtomicU8,
    /// Milliseconds since `started` at which the stop was noticed.
    stopped_at_ms: AtomicU64,
    started: Instant,
}

/// The bounds of a run; cheap to clone and to poll (`stopped`).
#[derive(Clone)]
pub struct Limits {
    inner: Arc<Inner>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits::none()
    }
}

impl std::fmt::Debug for Limits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Limits")
            .field("deadline", &self.inner.deadline)
            .field("max_states", &self.inner.max_states)
            .field("memory", &self.inner.memory)
            .field("stopped", &self.stopped())
            .finish()
    }
}

impl Limits {
    /// No bound at all (library callers and tests).
    pub fn none() -> Limits {
        Limits::new(None, None, None, None)
    }

    /// Bounds starting now; starts the watchdog when there is something to watch.
    pub fn new(
        timeout: Option<Duration>,
        max_states: Option<u64>,
        memory: Option<(u64, MemorySource)>,
        interrupt: Option<Arc<AtomicBool>>,
    ) -> Limits {
        let started = Instant::now();
        let inner = Arc::new(Inner {
            deadline: timeout.map(|t| started.checked_add(t).unwrap_or(started + Duration::from_secs(1 << 40))),
            max_states,
            memory,
            interrupt,
            stop: AtomicU8::new(0),
            stopped_at_ms: AtomicU64::new(0),
            started,
        });
        if inner.deadline.is_some() || inner.memory.is_some() || inner.interrupt.is_some() {
            let weak = Arc::downgrade(&inner);
            // Without a thread (the system refusing one), only the explicit checks remain.
            let _ = std::thread::Builder::new().name("labs-limits".into()).spawn(move || watch(weak));
        }
        Limits { inner }
    }

    /// Why the run must stop now (deadline, interrupt, memory), if it must; one atomic load.
    #[inline]
    pub(crate) fn stopped(&self) -> Option<StopReason> {
        StopReason::from_code(self.inner.stop.load(Ordering::Relaxed))
    }

    /// Records a stop (the first reason wins).
    pub(crate) fn stop(&self, r: StopReason) {
        self.inner.set(r);
    }

    pub(crate) fn max_states(&self) -> Option<u64> {
        self.inner.max_states
    }

    /// Whether `n` states exceed the state bound.
    pub(crate) fn over_states(&self, n: u64) -> bool {
        self.inner.max_states.is_some_and(|m| n > m)
    }

    /// The memory bound in bytes and where it comes from.
    pub(crate) fn memory(&self) -> Option<(u64, MemorySource)> {
        self.inner.memory
    }

    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.inner.deadline
    }

    /// The interrupt flag this run watches.
    pub(crate) fn interrupt(&self) -> Option<Arc<AtomicBool>> {
        self.inner.interrupt.clone()
    }

    /// How long ago the run was stopped (`None` while it runs).
    pub(crate) fn since_stop(&self) -> Option<Duration> {
        self.stopped()?;
        let at = Duration::from_millis(self.inner.stopped_at_ms.load(Ordering::Relaxed));
        Some(self.inner.started.elapsed().saturating_sub(at))
    }

    /// Drops `x`, on a thread of its own once the run has stopped: freeing the millions of
    /// small allocations of a large table can take longer than the report may wait after a
    /// stop (`cli/bounds.rs` ends a run that has not reported within 0.9 s), and the process
    /// ends soon after anyway.
    pub(crate) fn discard<T: Send + 'static>(&self, x: T) {
        if self.stopped().is_some() {
            let _ = std::thread::Builder::new().name("labs-discard".into()).spawn(move || drop(x));
        }
    }

    /// `can_allocate`, and when it is refused the run stops (`StopReason::Memory`): for a
    /// table or vector about to double, whose allocation would outrun the watchdog. `0`
    /// bytes is always admitted without reading the resident memory.
    pub(crate) fn admit(&self, bytes: u64) -> bool {
        if bytes == 0 || self.can_allocate(bytes) {
            return true;
        }
        self.stop(StopReason::Memory);
        false
    }

    /// Whether `bytes` more could be allocated without passing the memory bound (for a
    /// single large allocation that must be refused before it is attempted).
    pub(crate) fn can_allocate(&self, bytes: u64) -> bool {
        match self.inner.memory {
            Some((m, _)) => resident_bytes().saturating_add(bytes) as f64 <= m as f64 * MEMORY_MARGIN,
            None => true,
        }
    }
}

impl Inner {
    fn set(&self, r: StopReason) {
        if self.stop.compare_exchange(0, r.code(), Ordering::SeqCst, Ordering::SeqCst).is_ok() {
            self.stopped_at_ms.store(self.started.elapsed().as_millis() as u64, Ordering::Relaxed);
        }
    }

    fn check(&self, memory: bool) {
        if self.stop.load(Ordering::Relaxed) != 0 {
            return;
        }
        if self.interrupt.as_ref().is_some_and(|f| f.load(Ordering::Relaxed)) {
            self.set(StopReason::Interrupted);
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.set(StopReason::Timeout);
        } else if memory
            && let Some((m, _)) = self.memory
            && resident_bytes() as f64 > m as f64 * MEMORY_MARGIN
        {
            self.set(StopReason::Memory);
        }
    }
}

fn watch(inner: Weak<Inner>) {
    loop {
        std::thread::sleep(WATCH_PERIOD);
        let Some(i) = inner.upgrade() else { return };
        i.check(true);
        if i.stop.load(Ordering::Relaxed) != 0 {
            return;
        }
    }
}

/// The resident memory of the process in bytes (0 where it cannot be read).
pub(crate) fn resident_bytes() -> u64 {
    let Ok(s) = std::fs::read_to_string("/proc/self/statm") else { return 0 };
    let pages: u64 = s.split_whitespace().nth(1).and_then(|x| x.parse().ok()).unwrap_or(0);
    pages * page_size()
}

fn page_size() -> u64 {
    // SAFETY: sysconf only reads a system constant.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 { p as u64 } else { 4096 }
}

/// The memory the machine can still give this process: `MemAvailable` (free memory plus
/// what the kernel can reclaim), plus what the process already holds.
pub(crate) fn machine_available_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 = s.lines().find(|l| l.starts_with("MemAvailable:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some((kib << 10) + resident_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stop reason after looking at the clock and the interrupt flag now (not waiting for
    /// the watchdog's next look).
    fn check_now(l: &Limits) -> Option<StopReason> {
        l.inner.check(false);
        l.stopped()
    }

    #[test]
    fn deadline_stops_within_the_watch_period() {
        let l = Limits::new(Some(Duration::from_millis(50)), None, None, None);
        assert_eq!(l.stopped(), None);
        let t = Instant::now();
        while l.stopped().is_none() {
            assert!(t.elapsed() < Duration::from_secs(2), "no stop after 2 s");
            std::thread::yield_now();
        }
        assert_eq!(l.stopped(), Some(StopReason::Timeout));
        assert!(t.elapsed() >= Duration::from_millis(45));
    }

    #[test]
    fn interrupt_flag_becomes_a_stop_and_the_first_reason_wins() {
        let flag = Arc::new(AtomicBool::new(false));
        let l = Limits::new(None, None, None, Some(flag.clone()));
        assert_eq!(check_now(&l), None);
        flag.store(true, Ordering::SeqCst);
        assert_eq!(check_now(&l), Some(StopReason::Interrupted));
        l.stop(StopReason::Timeout);
        assert_eq!(l.stopped(), Some(StopReason::Interrupted));
    }

    #[test]
    fn memory_bound_below_the_resident_memory_stops() {
        // The test process holds more than one page, so a one-page bound is exceeded.
        assert!(resident_bytes() > 4096);
        let l = Limits::new(None, None, Some((4096, MemorySource::User)), None);
        let t = Instant::now();
        while l.stopped().is_none() {
            assert!(t.elapsed() < Duration::from_secs(2), "no stop after 2 s");
            std::thread::yield_now();
        }
        assert_eq!(l.stopped(), Some(StopReason::Memory));
        assert!(!l.can_allocate(1));
    }

    #[test]
    fn huge_timeout_does_not_overflow_and_state_bound_is_strict() {
        let l = Limits::new(Some(Duration::from_secs(u64::MAX / 2)), Some(10), None, None);
        assert_eq!(check_now(&l), None);
        assert!(!l.over_states(10));
        assert!(l.over_states(11));
    }
}
