//! Running indexed work on several threads.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs `f(0..n)` on `threads` workers (the calling thread and `threads - 1` scoped
/// threads), each taking the next unstarted index, and returns the results in index order
/// (so the outcome does not depend on the schedule).
pub fn in_chunks<T: Send>(n: usize, threads: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let counter = AtomicUsize::new(0);
    let work = || {
        let mut mine = Vec::new();
        loop {
            let c = counter.fetch_add(1, Ordering::Relaxed);
            if c >= n {
                break mine;
            }
            mine.push((c, f(c)));
        }
    };
    let mut all: Vec<(usize, T)> = std::thread::scope(|s| {
        let hs: Vec<_> = (1..threads.min(n)).map(|_| s.spawn(work)).collect();
        let mut all = work();
        for h in hs {
            all.extend(h.join().expect("worker panicked"));
        }
        all
    });
    all.sort_unstable_by_key(|x| x.0);
    all.into_iter().map(|x| x.1).collect()
}
