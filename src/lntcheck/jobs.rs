//! Indexed jobs on a few threads, results in index order (so that what a caller builds from
//! them does not depend on which thread finished first). Each thread builds its own state
//! first (`init`).

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The stack of a job thread: the interpreter and the reductions recurse along the program's
/// nesting, as they do on the main thread.
pub(crate) const STACK: usize = 64 << 20;

/// Runs `work(state, i)` for every `i < n` on at most `threads` threads, each with the state
/// `init()` made on that thread; the results in index order. A thread whose `init` fails
/// gives that error for each job it takes.
pub(crate) fn on_threads<S, T, E>(
    threads: usize,
    n: usize,
    init: impl Fn() -> Result<S, E> + Sync,
    work: impl Fn(&mut S, usize) -> Result<T, E> + Sync,
) -> Vec<Result<T, E>>
where
    T: Send,
    E: Send + Clone,
{
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<T, E>>>> = Mutex::new((0..n).map(|_| None).collect());
    let threads = threads.clamp(1, n.max(1));
    std::thread::scope(|scope| {
        for t in 0..threads {
            let (next, results, init, work) = (&next, &results, &init, &work);
            spawn(scope, format!("labs-job-{t}"), move || {
                let mut state = init();
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= n {
                        break;
                    }
                    let r = match &mut state {
                        Ok(s) => work(s, i),
                        Err(e) => Err(e.clone()),
                    };
                    results.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(r);
                }
            });
        }
    });
    results.into_inner().unwrap_or_else(|p| p.into_inner()).into_iter().map(|r| r.expect("every job ran")).collect()
}

/// Spawns a thread of `scope` with the stack the interpreter needs.
pub(crate) fn spawn<'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    name: String,
    f: impl FnOnce() -> T + Send + 'scope,
) -> std::thread::ScopedJoinHandle<'scope, T> {
    std::thread::Builder::new().name(name).stack_size(STACK).spawn_scoped(scope, f).expect("spawn a job thread")
}

/// `work(worker, part)` over `items` cut into one contiguous part per worker, each part on its
/// own thread with its worker, the results concatenated in item order; on this thread alone
/// (with the first worker) when there is one worker or fewer than `2 * min_share` items.
pub(crate) fn map_in_parts<W: Send, I: Sync, T: Send>(
    workers: &mut [W],
    items: &[I],
    min_share: usize,
    work: impl Fn(&mut W, &[I]) -> Vec<T> + Sync,
) -> Vec<T> {
    if workers.len() <= 1 || items.len() < 2 * min_share {
        return work(&mut workers[0], items);
    }
    let share = items.len().div_ceil(workers.len());
    let work = &work;
    std::thread::scope(|scope| {
        let handles: Vec<_> = workers
            .iter_mut()
            .zip(items.chunks(share))
            .enumerate()
            .map(|(t, (w, part))| spawn(scope, format!("labs-part-{t}"), move || work(w, part)))
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("a worker thread panicked")).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::on_threads;

    #[test]
    fn results_come_in_index_order_whatever_the_thread_count() {
        for threads in [1, 2, 5] {
            let r: Vec<Result<usize, String>> = on_threads(threads, 20, || Ok(()), |_, i| Ok(i * i));
            assert_eq!(r, (0..20).map(|i| Ok(i * i)).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_failed_init_fails_the_jobs_of_its_thread() {
        let r: Vec<Result<(), String>> = on_threads(1, 3, || Err::<(), _>("no".to_string()), |_, _| Ok(()));
        assert_eq!(r, vec![Err("no".to_string()); 3]);
    }
}
