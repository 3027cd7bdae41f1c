//! Indexed jobs on a few threads, results in index order (so that what a caller builds from
//! them does not depend on which thread finished first). Each thread builds its own state
//! first (`init`). Also a breadth-first search whose expansions run on several threads ahead
//! of a numbering kept in sequential order (`explore_in_order`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

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

/// A breadth-first exploration whose states are expanded on `workers.len()` threads (this one
/// included, the others alive for the whole exploration) while this thread numbers, in state
/// order, what the expansions found: `number(i, expand(w, &state_i))` for `i` = 0, 1, 2, …,
/// where `number` returns the states it numbered for the first time (they get the next
/// indices). So the numbering, the caller's results and the first error `number` returns are
/// those of a sequential search, and the numbering overlaps the expansions instead of waiting
/// for a whole chunk of them.
///
/// At most `window` states past the one being numbered are expanded ahead (their expansions
/// are held outside the caller's accounts until numbered). A state is expanded once, by the
/// first thread free to take it.
pub(crate) fn explore_in_order<W, S, T, E>(
    workers: &mut [W],
    initial: Vec<S>,
    window: usize,
    expand: impl Fn(&mut W, &S) -> T + Sync,
    mut number: impl FnMut(usize, T) -> Result<Vec<S>, E>,
) -> Result<(), E>
where
    W: Send,
    S: Send,
    T: Send,
{
    let window = window.max(1);
    if workers.len() <= 1 {
        let mut queue: std::collections::VecDeque<S> = initial.into();
        let mut i = 0;
        while let Some(s) = queue.pop_front() {
            let t = expand(&mut workers[0], &s);
            queue.extend(number(i, t)?);
            i += 1;
        }
        return Ok(());
    }
    let shared = Ahead { state: Mutex::new(AheadState::default()), work: Condvar::new(), results: Condvar::new() };
    let (first, rest) = workers.split_first_mut().expect("two workers or more");
    let helpers = rest.len();
    std::thread::scope(|scope| {
        for (t, w) in rest.iter_mut().enumerate() {
            let (shared, expand) = (&shared, &expand);
            spawn(scope, format!("labs-ahead-{t}"), move || {
                // A panic here must not leave this thread's numbering waiting for it.
                let _finish = Finish(shared);
                while let Some(batch) = shared.take(helpers + 1) {
                    // Each expansion delivered at once: the numbering may be waiting for it.
                    for (i, s) in batch {
                        let t = expand(w, &s);
                        shared.deliver(i, t);
                    }
                }
            });
        }
        let _finish = Finish(&shared);
        // States numbered but not yet handed out (beyond the window): the last `held.len()`
        // of the `total` numbered.
        let mut held: std::collections::VecDeque<S> = initial.into();
        let mut total = held.len();
        let mut next = 0;
        let mut ready: Vec<(usize, T)> = vec![];
        while next < total {
            let mut st = shared.lock();
            if st.finished {
                // A helper panicked: the scope re-raises its panic.
                return Ok(());
            }
            let mut handed = false;
            while !held.is_empty() && total - held.len() < next + window {
                let i = total - held.len();
                st.todo.push_back((i, held.pop_front().expect("not empty")));
                handed = true;
            }
            if handed {
                shared.work.notify_all();
            }
            ready.clear();
            let mut k = next;
            while let Some(t) = st.done.remove(&k) {
                ready.push((k, t));
                k += 1;
            }
            if ready.is_empty() {
                // Nothing to number: expand the oldest states waiting, or wait for a helper.
                if st.todo.is_empty() {
                    drop(shared.results.wait(st).unwrap_or_else(|p| p.into_inner()));
                    continue;
                }
                let n = st.todo.len().min(2);
                let mine: Vec<(usize, S)> = st.todo.drain(..n).collect();
                drop(st);
                for (i, s) in mine {
                    let t = expand(first, &s);
                    shared.lock().done.insert(i, t);
                }
                continue;
            }
            drop(st);
            for (i, t) in ready.drain(..) {
                let fresh = number(i, t)?;
                total += fresh.len();
                held.extend(fresh);
                next = i + 1;
            }
        }
        Ok(())
    })
}

/// What `explore_in_order`'s threads share.
struct Ahead<S, T> {
    state: Mutex<AheadState<S, T>>,
    /// Signalled when states are handed out or the exploration ends.
    work: Condvar,
    /// Signalled when expansions are delivered or a helper ends.
    results: Condvar,
}

struct AheadState<S, T> {
    /// States handed out, not yet taken, in index order.
    todo: std::collections::VecDeque<(usize, S)>,
    /// Expansions not yet numbered, by state index.
    done: HashMap<usize, T>,
    /// The exploration is over (or a thread panicked): helpers stop.
    finished: bool,
}

impl<S, T> Default for AheadState<S, T> {
    fn default() -> Self {
        AheadState { todo: Default::default(), done: HashMap::new(), finished: false }
    }
}

impl<S, T> Ahead<S, T> {
    fn lock(&self) -> std::sync::MutexGuard<'_, AheadState<S, T>> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A share of the states handed out (`threads` threads take them), waiting for some;
    /// `None` once the exploration is over.
    fn take(&self, threads: usize) -> Option<Vec<(usize, S)>> {
        let mut st = self.lock();
        loop {
            if st.finished {
                return None;
            }
            if !st.todo.is_empty() {
                // Small shares: the states a thread has taken wait for it alone.
                let n = (st.todo.len() / (4 * threads)).clamp(1, 16);
                return Some(st.todo.drain(..n).collect());
            }
            st = self.work.wait(st).unwrap_or_else(|p| p.into_inner());
        }
    }

    fn deliver(&self, i: usize, t: T) {
        self.lock().done.insert(i, t);
        self.results.notify_one();
    }
}

/// Ends an `explore_in_order` for every thread when dropped (at its end, on an error, or when
/// a thread unwinds), so that no thread waits for one that is gone.
struct Finish<'a, S, T>(&'a Ahead<S, T>);

impl<S, T> Drop for Finish<'_, S, T> {
    fn drop(&mut self) {
        self.0.lock().finished = true;
        self.0.work.notify_all();
        self.0.results.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::on_threads;

    /// A breadth-first numbering of the graph `succ` from 0, as `explore_in_order` drives
    /// it; the numbering's order of discovery and the transitions seen, in order.
    fn numbered(
        threads: usize,
        window: usize,
        succ: &[Vec<usize>],
        fail_at: Option<usize>,
    ) -> Result<Vec<(usize, usize)>, usize> {
        let mut workers = vec![(); threads];
        let mut id: std::collections::HashMap<usize, usize> = [(0, 0)].into();
        let mut order = vec![];
        super::explore_in_order(
            &mut workers,
            vec![0usize],
            window,
            |_, &v: &usize| {
                // Uneven work, so that the threads finish out of order.
                std::thread::sleep(std::time::Duration::from_micros((v % 7) as u64 * 50));
                if Some(v) == fail_at { Err(v) } else { Ok(succ[v].clone()) }
            },
            |i, t: Result<Vec<usize>, usize>| {
                let mut fresh = vec![];
                for w in t? {
                    let n = id.len();
                    let k = *id.entry(w).or_insert_with(|| {
                        fresh.push(w);
                        n
                    });
                    order.push((i, k));
                }
                Ok::<_, usize>(fresh)
            },
        )?;
        Ok(order)
    }

    fn graph(n: usize, seed: u64) -> Vec<Vec<usize>> {
        let mut x = seed;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as usize
        };
        (0..n).map(|_| (0..1 + rnd() % 3).map(|_| rnd() % n).collect()).collect()
    }

    #[test]
    fn exploring_ahead_numbers_as_a_sequential_search() {
        for seed in 1..6 {
            let g = graph(300, seed);
            let sequential = numbered(1, 1, &g, None);
            assert!(sequential.as_ref().is_ok_and(|o| !o.is_empty()));
            for (threads, window) in [(2, 1), (2, 8), (3, 128), (5, 3)] {
                assert_eq!(numbered(threads, window, &g, None), sequential, "seed {seed}, {threads} threads");
            }
        }
    }

    #[test]
    fn exploring_ahead_returns_the_error_of_the_first_failing_state() {
        let g = graph(300, 9);
        // The states the search meets, in order: the error is that of the first one failing.
        let met: Vec<usize> = {
            let mut seen = vec![0usize];
            let mut i = 0;
            while i < seen.len() {
                for &w in &g[seen[i]] {
                    if !seen.contains(&w) {
                        seen.push(w);
                    }
                }
                i += 1;
            }
            seen
        };
        assert!(met.len() > 20);
        for threads in [1, 2, 4] {
            // Two failing states: the earlier in search order is the one reported.
            let r = numbered_failing(threads, &g, &[met[15], met[5]]);
            assert_eq!(r, Err(met[5]), "{threads} threads");
        }
    }

    fn numbered_failing(threads: usize, succ: &[Vec<usize>], failing: &[usize]) -> Result<usize, usize> {
        let mut workers = vec![(); threads];
        let mut seen = vec![0usize];
        let mut count = 0;
        super::explore_in_order(
            &mut workers,
            vec![0usize],
            16,
            |_, &v: &usize| if failing.contains(&v) { Err(v) } else { Ok(succ[v].clone()) },
            |_, t: Result<Vec<usize>, usize>| {
                count += 1;
                let mut fresh = vec![];
                for w in t? {
                    if !seen.contains(&w) {
                        seen.push(w);
                        fresh.push(w);
                    }
                }
                Ok::<_, usize>(fresh)
            },
        )?;
        Ok(count)
    }

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
