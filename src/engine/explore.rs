//! Exhaustive breadth-first exploration of the reachable state space.
//!
//! States are expanded in id order (ids are assigned in discovery order, so this is BFS).
//! Batches of consecutive states are expanded on `threads` threads, which insert the
//! successors concurrently into the sharded state store; at the end of each batch the new
//! states are numbered in the order a sequential BFS would have discovered them (smallest
//! (parent, successor index) first), so ids, parents, counts and successor lists are
//! identical for any thread count (see docs/performance.md).

use super::state::{StateStore, encode_into, hash_bytes, width_needed};
use super::step::{Stepper, Work};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub const NO_PARENT: u32 = u32::MAX;

/// Why an exploration stopped before the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    MaxStates,
    Memory,
    Timeout,
    Interrupted,
}

/// Progress information, given to the progress callback after each batch.
#[derive(Clone, Debug)]
pub struct Progress {
    pub states: u64,
    pub transitions: u64,
    pub queue: u64,
    pub seconds: f64,
    pub memory_bytes: u64,
}

pub type ProgressFn = dyn Fn(&Progress) + Sync + Send;

#[derive(Clone, Default)]
pub struct ExploreOptions {
    pub threads: usize,
    pub max_states: Option<u64>,
    pub memory_mib: Option<u64>,
    pub timeout: Option<Duration>,
    /// Set to true (e.g. by a signal handler) to stop the exploration.
    pub cancel: Option<Arc<AtomicBool>>,
    pub progress: Option<Arc<ProgressFn>>,
    /// Keep the successor lists (needed by every modality except `always`).
    pub keep_edges: bool,
}

/// The explored state graph.
pub struct Graph {
    pub store: StateStore,
    /// BFS parent of each state (`NO_PARENT` for initial states).
    pub parent: Vec<u32>,
    pub n_initial: usize,
    /// Successors of expanded state `i`: `succ[succ_off[i]..succ_off[i+1]]` (distinct, sorted).
    pub succ_off: Vec<u64>,
    pub succ: Vec<u32>,
    pub transitions: u64,
    pub deadlocks: u64,
    /// Number of expanded states (the first `expanded` ids).
    pub expanded: usize,
    /// Whether `succ_off`/`succ` were kept.
    pub has_edges: bool,
    /// `None` when every reachable state was expanded.
    pub stopped: Option<StopReason>,
    /// A run-time error met while expanding `state`.
    pub error: Option<(u32, String)>,
    pub seconds: f64,
}

impl Graph {
    pub fn states(&self) -> usize {
        self.store.len()
    }
    /// Number of expanded states (all of them when the exploration completed).
    pub fn expanded(&self) -> usize {
        self.expanded
    }
    pub fn succs(&self, i: u32) -> &[u32] {
        let i = i as usize;
        &self.succ[self.succ_off[i] as usize..self.succ_off[i + 1] as usize]
    }
    pub fn is_expanded(&self, i: u32) -> bool {
        (i as usize) < self.expanded()
    }
    /// Path of state ids from an initial state to `i`.
    pub fn path_to(&self, mut i: u32) -> Vec<u32> {
        let mut p = vec![i];
        while self.parent[i as usize] != NO_PARENT {
            i = self.parent[i as usize];
            p.push(i);
        }
        p.reverse();
        p
    }
    pub fn memory_bytes(&self) -> u64 {
        (self.store.bytes() + self.parent.capacity() * 4 + self.succ_off.capacity() * 8 + self.succ.capacity() * 4)
            as u64
    }
}

/// What a worker produces for a range of parents.
#[derive(Default)]
struct ChunkOut {
    /// Number of successors (with repetitions) per parent.
    counts: Vec<u32>,
    /// Store references of the successors (`StateStore::insert_shared`).
    refs: Vec<u64>,
    /// First error (state id, message); the chunk stops there.
    error: Option<(u32, String)>,
    /// Width needed by a successor that does not fit the store's width; the chunk stops.
    widen: usize,
}

fn expand_chunk(stepper: &Stepper, store: &StateStore, ids: std::ops::Range<u32>) -> ChunkOut {
    let mut w = Work::default();
    let mut st = Vec::new();
    let width = store.width();
    let mut enc = vec![0u8; store.state_bytes()];
    let mut out = ChunkOut::default();
    for i in ids {
        store.get_into(i, &mut st);
        let mut n = 0u32;
        let refs = &mut out.refs;
        let mut widen = 0;
        let r = stepper.successors(&st, &mut w, false, &mut |_, s| {
            if widen != 0 {
                return;
            }
            if !encode_into(s, width, &mut enc) {
                widen = width_needed(s);
                return;
            }
            let h = hash_bytes(&enc);
            refs.push(store.insert_shared(&enc, h, ((i as u64) << 32) | n as u64));
            n += 1;
        });
        if widen != 0 {
            out.widen = widen;
            return out;
        }
        if let Err(e) = r {
            out.error = Some((i, e.0));
            return out;
        }
        out.counts.push(n);
    }
    out
}

/// Parents per batch (independent of the thread count, so that `--max-states` etc. stop at
/// the same point for any thread count).
const BATCH: usize = 1 << 15;

/// Explores everything reachable from `initial`.
///
/// Batches of consecutive (in id order) unexpanded states are expanded by `threads` workers
/// that insert successors concurrently into the sharded store; at the end of the batch the
/// new states are numbered by their smallest (parent, successor index) key. That is exactly
/// the order in which a sequential BFS discovers them, so ids, BFS parents, counts and
/// successor lists are the same for any thread count.
pub fn explore(stepper: &Stepper, initial: &[Vec<i32>], opts: &ExploreOptions) -> Graph {
    let start = Instant::now();
    let stride = stepper.lay.len;
    let mut g = Graph {
        store: StateStore::new(stride),
        parent: Vec::new(),
        n_initial: 0,
        succ_off: vec![0],
        succ: Vec::new(),
        transitions: 0,
        deadlocks: 0,
        expanded: 0,
        has_edges: opts.keep_edges,
        stopped: None,
        error: None,
        seconds: 0.0,
    };
    for s in initial {
        if g.store.insert(s).1 {
            g.parent.push(NO_PARENT);
        }
    }
    g.n_initial = g.store.len();
    let threads = opts.threads.max(1);
    let mut next = 0usize;
    let mut ids: Vec<u32> = Vec::new();
    while next < g.store.len() {
        let end = (next + BATCH).min(g.store.len());
        let outs: Vec<ChunkOut> = if threads == 1 || end - next < 4 {
            vec![expand_chunk(stepper, &g.store, next as u32..end as u32)]
        } else {
            // Interleaved small chunks would balance better, but contiguous ranges keep each
            // worker's output in parent order.
            let per = (end - next).div_ceil(threads);
            let store = &g.store;
            std::thread::scope(|s| {
                let hs: Vec<_> = (0..threads)
                    .map(|t| {
                        let lo = (next + t * per).min(end);
                        let hi = (lo + per).min(end);
                        s.spawn(move || expand_chunk(stepper, store, lo as u32..hi as u32))
                    })
                    .collect();
                hs.into_iter().map(|h| h.join().expect("worker panicked")).collect()
            })
        };
        let widen = outs.iter().map(|o| o.widen).max().unwrap_or(0);
        if widen != 0 {
            // A successor needs wider slots: re-encode everything and redo the batch.
            g.store.widen(widen);
            continue;
        }
        if let Some(e) = outs.iter().filter_map(|o| o.error.clone()).min_by_key(|e| e.0) {
            g.store.abort_batch();
            g.error = Some(e);
            g.seconds = start.elapsed().as_secs_f64();
            return g;
        }
        let bids = g.store.finish_batch();
        g.parent.extend(bids.keys.iter().map(|&k| (k >> 32) as u32));
        for out in &outs {
            let mut off = 0usize;
            for &n in &out.counts {
                ids.clear();
                ids.extend(out.refs[off..off + n as usize].iter().map(|&r| bids.resolve(r)));
                off += n as usize;
                ids.sort_unstable();
                ids.dedup();
                if ids.is_empty() {
                    g.deadlocks += 1;
                }
                g.transitions += ids.len() as u64;
                if g.has_edges {
                    g.succ.extend_from_slice(&ids);
                    g.succ_off.push(g.succ.len() as u64);
                }
                g.expanded += 1;
            }
        }
        next = end;
        let elapsed = start.elapsed();
        if let Some(p) = &opts.progress {
            p(&Progress {
                states: g.store.len() as u64,
                transitions: g.transitions,
                queue: (g.store.len() - next) as u64,
                seconds: elapsed.as_secs_f64(),
                memory_bytes: g.memory_bytes(),
            });
        }
        if next < g.store.len() {
            if opts.max_states.is_some_and(|m| g.store.len() as u64 > m) {
                g.stopped = Some(StopReason::MaxStates);
                break;
            }
            if opts.memory_mib.is_some_and(|m| g.memory_bytes() > m << 20) {
                g.stopped = Some(StopReason::Memory);
                break;
            }
            if opts.timeout.is_some_and(|t| elapsed > t) {
                g.stopped = Some(StopReason::Timeout);
                break;
            }
            if opts.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed)) {
                g.stopped = Some(StopReason::Interrupted);
                break;
            }
        }
    }
    g.seconds = start.elapsed().as_secs_f64();
    g
}
