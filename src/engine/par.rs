//! Running indexed work on several threads.
//!
//! An exploration hands its workers many short jobs: three per BFS batch (expanding,
//! numbering, resolving), and the batches of a small state space last tens of microseconds.
//! Starting a thread per job costs about 55 µs here, and a new thread also starts with an
//! empty allocator heap, so its buffers come from memory never touched before. `Workers`
//! therefore keeps its threads for the whole verification (`labs verify` starts them before
//! it loads the model and hands them to the engine): between jobs they spin briefly
//! (the next job usually follows within microseconds), then sleep on a condition variable.
//! A worker that finds itself on the caller's core, when it starts or wakes up, moves off
//! it (`leave_callers_cpu`).

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long an idle worker spins before it sleeps, when every thread has a core: longer
/// than the serial steps between two jobs of most batches (waking a sleeping worker takes
/// tens of microseconds on a VM). Measured on leader n=7 and n=8 with two threads: 200 µs,
/// 2 ms and 10 ms gave 26.2, 25.9, 25.5 ms and 244, 237, 231 ms (alternated minima; the
/// differences are within the machine's noise, but all in that direction).
const SPIN: Duration = Duration::from_millis(2);
/// The same with more threads than cores, where a spinning worker takes a core from one
/// with work.
const SPIN_OVERSUBSCRIBED: Duration = Duration::from_micros(50);
/// How long a new worker spins for its first job, when every thread has a core. Workers
/// are started before the model is loaded (`labs verify`), so that their start-up, which
/// can take 0.6 ms here, overlaps the loading; the first job then comes a few
/// milliseconds later, and a worker that had gone to sleep would take tens of microseconds
/// or more to wake up for it.
const FIRST_SPIN: Duration = Duration::from_millis(50);

/// A job as the workers see it: a borrowed closure whose lifetime `in_chunks` erases. It is
/// only called between the dispatch and the end of `in_chunks`, which waits for every worker
/// to be done with it.
#[derive(Clone, Copy)]
struct JobRef(*const (dyn Fn() + Sync));

// SAFETY: the closure is `Sync`, and `in_chunks` keeps it alive while workers hold it.
unsafe impl Send for JobRef {}

struct Shared {
    /// Bumped for each job (and to stop); a worker runs each generation's job once.
    generation: AtomicU64,
    job: Mutex<Option<JobRef>>,
    wake: Condvar,
    /// Workers still running the current job.
    running: AtomicUsize,
    panicked: AtomicBool,
    stop: AtomicBool,
    spin: Duration,
    /// The CPU the caller ran on when it started the workers or its latest job
    /// (`usize::MAX`: unknown).
    caller_cpu: AtomicUsize,
}

/// `threads - 1` worker threads plus the calling thread.
pub struct Workers {
    shared: Arc<Shared>,
    handles: Vec<JoinHandle<()>>,
    /// Time the calling thread spent starting the workers.
    start_cost: Duration,
    /// Held for a whole dispatch: the job slot and the `running` count serve one job at a
    /// time, so a second caller (another thread sharing these workers, or `f` itself) must
    /// not dispatch until the first job is over.
    dispatch: Mutex<()>,
}

impl Workers {
    /// Workers for `threads` threads in all (the caller counts as one; 0 is taken as 1), or
    /// as many as the system lets start.
    pub fn new(threads: usize) -> Workers {
        let started = Instant::now();
        let shared = Arc::new(Shared {
            generation: AtomicU64::new(0),
            job: Mutex::new(None),
            wake: Condvar::new(),
            running: AtomicUsize::new(0),
            panicked: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            // Only asked when there are workers (`finish_batch` makes one-thread `Workers`).
            spin: if threads > 1 && threads > usable_cores() { SPIN_OVERSUBSCRIBED } else { SPIN },
            caller_cpu: AtomicUsize::new(if threads > 1 { current_cpu().unwrap_or(usize::MAX) } else { usize::MAX }),
        });
        // If the system refuses a thread, fewer do the work: results do not depend on how
        // many threads there are.
        let handles = (1..threads.max(1))
            .map_while(|_| {
                let shared = Arc::clone(&shared);
                std::thread::Builder::new().name("labs-worker".into()).spawn(move || worker(&shared)).ok()
            })
            .collect();
        Workers { shared, handles, start_cost: started.elapsed(), dispatch: Mutex::new(()) }
    }

    pub fn threads(&self) -> usize {
        self.handles.len() + 1
    }

    /// Time the calling thread spent in `new`: an exploration run on workers started
    /// beforehand counts it as its own.
    pub fn start_cost(&self) -> Duration {
        self.start_cost
    }

    /// Runs `f(0..n)`, each index once, on all the threads (each taking the next unstarted
    /// index), and returns the results in index order, so the outcome does not depend on
    /// the schedule. A panic in `f` is raised again here once every thread has stopped.
    /// While another job is being dispatched (a concurrent caller, or a call from inside `f`),
    /// the calling thread runs every index itself: same results, and the job it would lend
    /// the workers can never outlive this call.
    pub(crate) fn in_chunks<T: Send>(&self, n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
        if self.handles.is_empty() || n <= 1 {
            return (0..n).map(f).collect();
        }
        let _dispatching = match self.dispatch.try_lock() {
            Ok(g) => g,
            Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return (0..n).map(f).collect(),
        };
        let next = AtomicUsize::new(0);
        let done: Mutex<Vec<(usize, T)>> = Mutex::new(Vec::with_capacity(n));
        let job = || {
            let mut mine = Vec::new();
            loop {
                let c = next.fetch_add(1, Ordering::Relaxed);
                if c >= n {
                    break;
                }
                mine.push((c, f(c)));
            }
            done.lock().unwrap_or_else(|e| e.into_inner()).extend(mine);
        };
        let job: &(dyn Fn() + Sync) = &job;
        // SAFETY: only the lifetime is erased; the workers are done with the job before
        // this function returns or unwinds (`wait_idle` below runs in every case).
        let erased: JobRef =
            JobRef(unsafe { std::mem::transmute::<&(dyn Fn() + Sync), &'static (dyn Fn() + Sync)>(job) });
        {
            let mut slot = self.shared.job.lock().unwrap_or_else(|e| e.into_inner());
            *slot = Some(erased);
            self.shared.running.store(self.handles.len(), Ordering::Relaxed);
            self.shared.caller_cpu.store(current_cpu().unwrap_or(usize::MAX), Ordering::Relaxed);
            self.shared.generation.fetch_add(1, Ordering::Release);
        }
        self.shared.wake.notify_all();
        let mine = catch_unwind(AssertUnwindSafe(job));
        self.wait_idle();
        let worker_panicked = self.shared.panicked.swap(false, Ordering::Relaxed);
        if let Err(p) = mine {
            resume_unwind(p);
        }
        if worker_panicked {
            panic!("a worker thread panicked");
        }
        let mut all = done.into_inner().unwrap_or_else(|e| e.into_inner());
        all.sort_unstable_by_key(|x| x.0);
        all.into_iter().map(|x| x.1).collect()
    }

    /// Waits until no worker runs the current job.
    fn wait_idle(&self) {
        let mut spins = 0u32;
        while self.shared.running.load(Ordering::Acquire) != 0 {
            spins += 1;
            if spins < 1024 {
                std::hint::spin_loop();
            } else {
                // A worker may have been descheduled (more threads than free cores).
                std::thread::yield_now();
            }
        }
        *self.shared.job.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        {
            let _slot = self.shared.job.lock().unwrap_or_else(|e| e.into_inner());
            self.shared.stop.store(true, Ordering::Relaxed);
            self.shared.generation.fetch_add(1, Ordering::Release);
        }
        self.shared.wake.notify_all();
        for h in self.handles.drain(..) {
            // A worker catches the job's panics, so it only ends by returning.
            let _ = h.join();
        }
    }
}

fn worker(shared: &Shared) {
    leave_callers_cpu(shared);
    warm_up();
    let mut seen = 0u64;
    loop {
        // Spin for a while, then sleep until the generation changes.
        let started = Instant::now();
        let spin = if seen == 0 && shared.spin == SPIN { FIRST_SPIN } else { shared.spin };
        let mut spins = 0u32;
        let mut generation = shared.generation.load(Ordering::Acquire);
        while generation == seen {
            spins += 1;
            if spins.is_multiple_of(64) && started.elapsed() > spin {
                let mut slot = shared.job.lock().unwrap_or_else(|e| e.into_inner());
                while shared.generation.load(Ordering::Acquire) == seen {
                    slot = shared.wake.wait(slot).unwrap_or_else(|e| e.into_inner());
                }
                drop(slot);
                // Woken up, this thread may have been put on the caller's core.
                leave_callers_cpu(shared);
            } else {
                std::hint::spin_loop();
            }
            generation = shared.generation.load(Ordering::Acquire);
        }
        seen = generation;
        if shared.stop.load(Ordering::Relaxed) {
            return;
        }
        let job = *shared.job.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(JobRef(f)) = job {
            // SAFETY: `in_chunks` keeps the closure alive until `running` is back to 0.
            let f = unsafe { &*f };
            if catch_unwind(AssertUnwindSafe(f)).is_err() {
                shared.panicked.store(true, Ordering::Relaxed);
            }
        }
        shared.running.fetch_sub(1, Ordering::Release);
    }
}

/// How many cores this process may run on. `available_parallelism` would also read the
/// cgroup's CPU quota, from three files: 60–100 µs here, at the start of every exploration.
fn usable_cores() -> usize {
    #[cfg(target_os = "linux")]
    if let Some(allowed) = affinity() {
        // SAFETY: `CPU_COUNT` only reads the set.
        return unsafe { libc::CPU_COUNT(&allowed) }.max(1) as usize;
    }
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The set of cores the calling thread may run on.
#[cfg(target_os = "linux")]
fn affinity() -> Option<libc::cpu_set_t> {
    // SAFETY: `cpu_set_t` is plain data (all zeros is the empty set) and the call gets its
    // size.
    unsafe {
        let mut allowed: libc::cpu_set_t = std::mem::zeroed();
        (libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut allowed) == 0).then_some(allowed)
    }
}

/// The CPU the calling thread runs on (`None` where unknown).
fn current_cpu() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: no arguments; returns -1 on failure.
        let cpu = unsafe { libc::sched_getcpu() };
        usize::try_from(cpu).ok()
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// Moves this worker off the caller's core, if it is there and may run elsewhere, without
/// pinning it.
///
/// A new thread is often started on its parent's core even when another is idle, and a
/// thread that wakes up is often put on its waker's (on this VM, in about a third of the
/// runs); it then stays there for milliseconds, until the load balancer moves one of
/// them: the two threads take turns on one core, and a small exploration runs at half
/// speed or worse. Allowing every core but the caller's moves the thread at once; allowing
/// them all again does not move it back.
fn leave_callers_cpu(shared: &Shared) {
    let cpu = shared.caller_cpu.load(Ordering::Relaxed);
    if cpu == usize::MAX || current_cpu() != Some(cpu) {
        return;
    }
    #[cfg(target_os = "linux")]
    if let Some(allowed) = affinity() {
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: the calls get the set's size, and `CPU_ISSET`/`CPU_CLR` are only given
        // CPU numbers below its capacity.
        unsafe {
            if cpu >= 8 * size || !libc::CPU_ISSET(cpu, &allowed) || libc::CPU_COUNT(&allowed) < 2 {
                return;
            }
            let mut elsewhere = allowed;
            libc::CPU_CLR(cpu, &mut elsewhere);
            if libc::sched_setaffinity(0, size, &elsewhere) == 0 {
                libc::sched_setaffinity(0, size, &allowed);
            }
        }
    }
}

/// Sets up this thread's state in both allocators that the exploration uses (the global
/// one and `std::alloc::System`): their first use on a thread creates it (a mimalloc heap,
/// a glibc arena). Done when the worker starts, while the calling thread explores the first
/// levels alone, rather than in the worker's first job.
fn warm_up() {
    use std::alloc::{GlobalAlloc, Layout, System};
    std::hint::black_box(Box::new(0u64));
    let layout = Layout::new::<u64>();
    // SAFETY: a layout of non-zero size; the block is freed with the same layout.
    unsafe {
        let p = System.alloc(layout);
        if !p.is_null() {
            System.dealloc(std::hint::black_box(p), layout);
        }
    }
}

#[cfg(test)]
mod tests {
    /// Workers shared by several threads: each caller gets its own results, whoever runs
    /// the indices (the dispatch guard makes the others run theirs themselves).
    #[test]
    fn concurrent_callers_get_their_own_results() {
        let w = std::sync::Arc::new(Workers::new(3));
        let callers: Vec<_> = (0..4u64)
            .map(|c| {
                let w = std::sync::Arc::clone(&w);
                std::thread::spawn(move || {
                    for round in 0..200u64 {
                        let data: Vec<u64> = (0..64).map(|i| i * 1000 + c * 7 + round).collect();
                        let got = w.in_chunks(data.len(), |i| data[i] + 1);
                        let want: Vec<u64> = data.iter().map(|x| x + 1).collect();
                        assert_eq!(got, want, "caller {c}, round {round}");
                    }
                })
            })
            .collect();
        for c in callers {
            c.join().expect("a caller panicked");
        }
    }

    /// A job that dispatches again from inside: runs, nested indices included.
    #[test]
    fn nested_dispatch_runs_on_the_caller() {
        let w = Workers::new(2);
        let got = w.in_chunks(4, |i| w.in_chunks(3, |j| i * 10 + j).iter().sum::<usize>());
        assert_eq!(got, vec![3, 33, 63, 93]);
    }

    use super::{Workers, current_cpu, leave_callers_cpu, usable_cores};
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn every_index_once_in_order_across_many_jobs() {
        for threads in [1, 2, 3, 5] {
            let w = Workers::new(threads);
            assert_eq!(w.threads(), threads);
            for n in [0usize, 1, 2, 7, 100, 1000] {
                let calls = AtomicUsize::new(0);
                let got = w.in_chunks(n, |i| {
                    calls.fetch_add(1, Ordering::Relaxed);
                    i * i
                });
                assert_eq!(got, (0..n).map(|i| i * i).collect::<Vec<_>>(), "{threads} threads, n = {n}");
                assert_eq!(calls.load(Ordering::Relaxed), n);
            }
        }
    }

    #[test]
    fn jobs_after_the_workers_slept_still_run() {
        let w = Workers::new(2);
        std::thread::sleep(std::time::Duration::from_millis(5));
        let threads_seen = std::sync::Mutex::new(std::collections::HashSet::new());
        let got = w.in_chunks(64, |i| {
            threads_seen.lock().unwrap().insert(std::thread::current().id());
            // Long enough that the worker takes some indices.
            std::thread::sleep(std::time::Duration::from_millis(1));
            i
        });
        assert_eq!(got, (0..64).collect::<Vec<_>>());
        assert_eq!(threads_seen.into_inner().unwrap().len(), 2, "both threads took work");
    }

    #[test]
    fn a_worker_leaves_the_callers_core_and_keeps_its_affinity() {
        let Some(here) = current_cpu() else { return };
        let cores = usable_cores();
        if cores < 2 {
            return;
        }
        let w = Workers::new(1);
        w.shared.caller_cpu.store(here, Ordering::Relaxed);
        leave_callers_cpu(&w.shared);
        assert_ne!(current_cpu(), Some(here), "still on the caller's core");
        assert_eq!(usable_cores(), cores, "every core allowed again");
    }

    #[test]
    fn a_panic_in_a_job_reaches_the_caller_and_the_workers_go_on() {
        let w = Workers::new(3);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            w.in_chunks(50, |i| {
                if i == 37 {
                    panic!("job 37");
                }
                std::thread::sleep(std::time::Duration::from_micros(100));
                i
            })
        }));
        assert!(r.is_err());
        assert_eq!(w.in_chunks(10, |i| i + 1), (1..=10).collect::<Vec<_>>());
    }
}
