//! Exhaustive breadth-first exploration of the reachable state space.
//!
//! States are expanded in id order (ids are assigned in discovery order, so this is BFS).
//! Batches of consecutive states are expanded on `threads` threads, which insert the
//! successors concurrently into the sharded state store; at the end of each batch the new
//! states are numbered in the order a sequential BFS would have discovered them (smallest
//! (parent, successor index) first), so ids, parents, counts and successor lists are
//! identical for any thread count (see docs/performance.md).

use super::edges::EdgeBudget;
use super::par::Workers;
use super::state::{BatchIds, Layout, StateStore, StorePolicy, encode_into, hash_bytes, width_needed};
use super::step::{PackedStop, RuntimeError, Stepper, Work};
use super::symmetry::Group;
use super::symmetry::canon::CanonScratch;
use super::sysalloc::SystemVec;
use crate::limits::Limits;
pub use crate::limits::StopReason;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub(crate) const NO_PARENT: u32 = u32::MAX;

/// The most states the store numbers (its ids are below 2^31); an exploration that would
/// store more stops at its state bound.
const MAX_STORED: usize = (1 << 31) - 1;

/// Progress information, given to the progress callback after each batch.
#[derive(Clone, Debug)]
pub struct Progress {
    /// The initial states are being enumerated (`states` of them stored so far): no state
    /// has been expanded yet.
    pub(crate) initial: bool,
    pub(crate) states: u64,
    pub(crate) transitions: u64,
    pub(crate) queue: u64,
    pub(crate) seconds: f64,
    pub(crate) memory_bytes: u64,
    /// A phase before the exploration, when the counts are its own (`translating P`: the
    /// automaton of property P, its states and transitions so far).
    pub(crate) phase: Option<String>,
}

pub type ProgressFn = dyn Fn(&Progress) + Sync + Send;

/// Watches the states as they are stored: called on the new ids (in id order, each id once,
/// the initial states first) after each batch; `true` ends the exploration there
/// (`Graph::decided_early`). It may mark the new states (`Graph::free`).
pub(crate) type WatchFn<'a> = dyn FnMut(&mut Graph, std::ops::Range<u32>) -> bool + 'a;

#[derive(Clone, Default)]
pub struct ExploreOptions {
    pub threads: usize,
    /// The state bound (the larger of this and the limits' one does not matter: either
    /// stops the exploration).
    pub max_states: Option<u64>,
    /// The run's deadline, interrupt and memory bound, polled for every parent expanded.
    pub limits: Limits,
    pub progress: Option<Arc<ProgressFn>>,
    /// Keep the successor lists (the checks other than `always` read successors; without the
    /// lists they recompute them).
    pub keep_edges: bool,
    /// With `keep_edges`: the memory past which the lists are dropped, and the rest of the
    /// exploration keeps none (`edges::EdgePolicy`).
    pub edge_budget: Option<EdgeBudget>,
    /// Threads started beforehand (`threads` is then theirs); started here otherwise. The
    /// time their start took counts as exploration time.
    pub workers: Option<Arc<Workers>>,
    /// Store one representative per orbit of these permutations of agents (symmetry
    /// reduction): every state, initial or successor, is canonicalised before it is looked up.
    pub symmetry: Option<Arc<Group>>,
    /// The form the store keeps states in (`--store`).
    pub store: StorePolicy,
}

impl ExploreOptions {
    fn over_states(&self, n: usize) -> bool {
        self.max_states.is_some_and(|m| n as u64 > m) || self.limits.over_states(n as u64)
    }
}

/// The explored state graph.
pub struct Graph {
    pub store: StateStore,
    /// BFS parent of each state (`NO_PARENT` for initial states).
    pub parent: SystemVec<u32>,
    pub n_initial: usize,
    /// Successors of expanded state `i`: `succ[succ_off[i]..succ_off[i+1]]` (distinct, sorted).
    pub succ_off: SystemVec<u64>,
    pub succ: SystemVec<u32>,
    pub transitions: u64,
    pub deadlocks: u64,
    /// Number of expanded states (the first `expanded` ids).
    pub(crate) expanded: usize,
    /// Whether `succ_off`/`succ` were kept.
    pub(crate) has_edges: bool,
    /// The number of stored states when the lists were dropped (`ExploreOptions::edge_budget`).
    pub(crate) edges_dropped_at: Option<u64>,
    /// The number of stored states when the store turned compact (`StorePolicy`).
    pub(crate) compacted_at: Option<u64>,
    /// `None` when every reachable state was expanded.
    pub stopped: Option<StopReason>,
    /// A run-time error met while expanding `state`.
    pub error: Option<(u32, String)>,
    /// The watch (`ExploreOptions::watch`) ended the exploration: not every reachable state
    /// is stored, although no bound was met.
    pub(crate) decided_early: bool,
    pub(crate) seconds: f64,
    /// Per stored state, bit `k` set when the ψ of the watch's `k`-th `finally` property is
    /// false there (written by the watch, for every state before it is expanded; empty
    /// without such a watch).
    pub(crate) free: Vec<u8>,
    /// Bit `k` set when an expanded state with bit `k` of `free` is a deadlock or has an edge
    /// to a state with that bit whose id is not higher. Every cycle has an edge to a state
    /// whose id is not higher, so where the bit stays clear, no ψ-free path reaches a deadlock
    /// or a cycle: `finally ψ` holds without a search (`check::finally`).
    pub(crate) lassos: u8,
}

impl Graph {
    /// Whether every reachable state is stored and expanded (no bound, no early decision).
    pub(crate) fn complete(&self) -> bool {
        self.stopped.is_none() && !self.decided_early
    }
    pub fn states(&self) -> usize {
        self.store.len()
    }
    /// Number of expanded states (all of them when the exploration completed).
    pub(crate) fn expanded(&self) -> usize {
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
    pub(crate) fn path_to(&self, mut i: u32) -> Vec<u32> {
        let mut p = vec![i];
        while self.parent[i as usize] != NO_PARENT {
            i = self.parent[i as usize];
            p.push(i);
        }
        p.reverse();
        p
    }
    /// Frees the successor lists: from now on the checks recompute successors.
    fn drop_edges(&mut self) {
        self.has_edges = false;
        self.edges_dropped_at = Some(self.store.len() as u64);
        self.succ_off = SystemVec::new();
        self.succ = SystemVec::new();
    }
    pub(crate) fn memory_bytes(&self) -> u64 {
        (self.store.bytes() + self.parent.capacity() * 4 + self.succ_off.capacity() * 8 + self.succ.capacity() * 4)
            as u64
    }
}

/// What a worker produces for a range of parents.
#[derive(Default)]
struct ChunkOut {
    /// Number of successors (with repetitions) per parent, only when the successor lists are
    /// kept.
    counts: Vec<u32>,
    /// Store references of the successors (`StateStore::insert_shared`), only when the
    /// successor lists are kept.
    refs: Vec<u64>,
    /// When the lists are not kept: distinct successors and deadlocks, counted here (two
    /// successors of one parent are the same state exactly when their encodings are equal).
    distinct: u64,
    deadlocks: u64,
    /// First error (state id, message); the chunk stops there.
    error: Option<(u32, String)>,
    /// Width needed by a successor that does not fit the store's width; the chunk stops.
    widen: usize,
    /// A successor that does not fit the store's fields (`StateStore::refit`); the chunk
    /// stops.
    refit: Option<Vec<i32>>,
    /// The batch passed `ExploreOptions::too_many` states; the chunk stops.
    too_many: bool,
    /// `Graph::lassos` of these parents.
    lassos: u8,
}

/// What every chunk of a batch is expanded with.
#[derive(Clone, Copy)]
struct Expansion<'a> {
    /// Whether the successor lists are kept (their references are recorded for
    /// `resolve_chunk`).
    keep: bool,
    limits: &'a Limits,
    /// The batch is dropped beyond this many states (`ChunkOut::too_many`).
    too_many: Option<usize>,
    symmetry: Option<&'a Group>,
    /// `Graph::free`.
    free: &'a [u8],
}

/// The successors of one parent, stored form and hash, waiting to be looked up.
#[derive(Default)]
struct Pending {
    parent: u32,
    /// The successors in the working form (`successors_packed`).
    encs: Vec<u8>,
    /// `hs.len()` states in the stored form (compact stores only).
    stored: Vec<u8>,
    hs: Vec<u64>,
}

impl Pending {
    /// The successors in the stored form: a fast store's is the working form.
    #[inline]
    fn stored(&self, compact: bool) -> &[u8] {
        if compact { &self.stored } else { &self.encs }
    }
}

/// Expands parents `ids` in a three-stage pipeline, so that the cache misses of the lookups
/// are hidden behind useful work: the successors of parent `i` are generated and hashed
/// (and their index slots prefetched), then the rows their tags point to are prefetched for
/// parent `i - 1`, then the successors of parent `i - 2` are inserted. Insertion order does
/// not matter (each new state keeps its smallest discovery key), so this gives the same
/// result as inserting parent by parent.
fn expand_chunk(stepper: &Stepper, store: &StateStore, ids: std::ops::Range<u32>, x: &Expansion) -> ChunkOut {
    let Expansion { keep, limits, too_many, symmetry, free } = *x;
    let mut w = Work::default();
    let mut canon = CanonScratch::default();
    let mut st = Vec::new();
    let mut parent = Vec::new();
    let width = store.width();
    let (wb, sb) = (store.work_bytes(), store.state_bytes());
    // A fast store keeps the working form: the successors are hashed and stored as generated.
    let compact = store.is_compact();
    let mut ring: [Pending; 3] = Default::default();
    let mut out = ChunkOut::default();
    let mut order = Vec::new();
    let insert = |p: &Pending, out: &mut ChunkOut, order: &mut Vec<u32>| {
        // Marked parents (rare on most runs: only `finally` properties mark) look at where
        // their edges go.
        let mark = free.get(p.parent as usize).copied().unwrap_or(0);
        if mark != 0 && p.hs.is_empty() {
            out.lassos |= mark;
        }
        let stored = p.stored(compact);
        for (n, &h) in p.hs.iter().enumerate() {
            let enc = &stored[n * sb..(n + 1) * sb];
            let r = store.insert_shared(enc, h, ((p.parent as u64) << 32) | n as u64);
            if mark != 0 {
                // A state new in this batch gets an id above every parent of the batch.
                if let Some(e) = StateStore::stored_id(r).filter(|&e| e <= p.parent) {
                    out.lassos |= mark & free[e as usize];
                }
            }
            if keep {
                out.refs.push(r);
            }
        }
        if keep {
            out.counts.push(p.hs.len() as u32);
        } else {
            let d = count_distinct(&p.hs, stored, sb, order);
            out.distinct += d as u64;
            out.deadlocks += (d == 0) as u64;
        }
    };
    // While the states fit in the last-level cache, the rows are found quickly enough, and
    // prefetching them costs more than it saves.
    let rows = store.len() * sb >= ROW_PREFETCH_BYTES;
    let prefetch_rows = |p: &Pending| {
        for &h in &p.hs {
            store.prefetch_state(h);
        }
    };
    let first = ids.start;
    for i in ids.clone() {
        if limits.stopped().is_some() {
            // The caller sees the stop and drops the whole batch.
            return out;
        }
        if too_many.is_some_and(|m| (i - first).is_multiple_of(PENDING_CHECK) && store.len() + store.pending() > m) {
            out.too_many = true;
            return out;
        }
        let step = (i - first) as usize;
        let parent_work: &[u8] = if compact {
            store.get_work(i, &mut st, &mut parent);
            &parent
        } else {
            store.get_into(i, &mut st);
            store.packed(i)
        };
        let cur = &mut ring[step % 3];
        cur.parent = i;
        cur.hs.clear();
        cur.encs.clear();
        match stepper.successors_packed(&st, parent_work, width, &mut w, &mut cur.encs) {
            Ok(n) => {
                if compact {
                    cur.stored.resize(n * sb, 0);
                }
                for (k, enc) in cur.encs.chunks_exact_mut(wb).take(n).enumerate() {
                    if let Some(g) = symmetry {
                        g.canonicalise(&stepper.lay, width, enc, &mut canon);
                    }
                    let h = if compact {
                        let code = &mut cur.stored[k * sb..(k + 1) * sb];
                        if !store.pack_from(parent_work, i, enc, code) {
                            out.refit = Some(store.unwork(enc));
                            return out;
                        }
                        hash_bytes(code)
                    } else {
                        hash_bytes(enc)
                    };
                    store.prefetch_slot(h);
                    cur.hs.push(h);
                }
            }
            Err(PackedStop::Widen(need)) => {
                out.widen = need;
                return out;
            }
            Err(PackedStop::Error(e)) => {
                out.error = Some((i, e.0));
                return out;
            }
        }
        if rows && step >= 1 {
            prefetch_rows(&ring[(step + 2) % 3]);
        }
        if step >= 2 {
            insert(&ring[(step + 1) % 3], &mut out, &mut order);
        }
    }
    let n = ids.len();
    if n >= 2 {
        insert(&ring[(n - 2) % 3], &mut out, &mut order);
    }
    if n >= 1 {
        insert(&ring[(n - 1) % 3], &mut out, &mut order);
    }
    out
}

/// The number of distinct states among the packed states `encs` (`sb` bytes each) whose
/// hashes are `hs`. Only states with equal hashes are compared; `order` is scratch.
fn count_distinct(hs: &[u64], encs: &[u8], sb: usize, order: &mut Vec<u32>) -> usize {
    let enc = |i: usize| &encs[i * sb..(i + 1) * sb];
    if hs.len() <= 16 {
        // Few successors (the common case): compare each with the earlier ones.
        return (0..hs.len()).filter(|&j| !(0..j).any(|k| hs[k] == hs[j] && enc(k) == enc(j))).count();
    }
    order.clear();
    order.extend(0..hs.len() as u32);
    order.sort_unstable_by_key(|&i| hs[i as usize]);
    let mut distinct = 0;
    let mut run = 0;
    while run < order.len() {
        let h = hs[order[run] as usize];
        let end = run + order[run..].iter().take_while(|&&i| hs[i as usize] == h).count();
        for j in run..end {
            if !(run..j).any(|k| enc(order[k] as usize) == enc(order[j] as usize)) {
                distinct += 1;
            }
        }
        run = end;
    }
    distinct
}

/// The arena size from which the rows of the looked-up states are prefetched: about the size
/// of a last-level cache (measured: leader n=7 and n=8, with 2 and 16 MiB of states, lose
/// 6 % and 2 % with the prefetch; n=9, 165 MiB, gains 7 %).
const ROW_PREFETCH_BYTES: usize = 32 << 20;

/// A worker's successor lists with final ids (when the lists are kept).
#[derive(Default)]
struct Resolved {
    /// Concatenated successor lists (sorted, distinct).
    succ: Vec<u32>,
    /// End of each parent's list in `succ`.
    ends: Vec<u64>,
    transitions: u64,
    deadlocks: u64,
}

fn resolve_chunk(out: &ChunkOut, bids: &BatchIds) -> Resolved {
    let mut r = Resolved {
        succ: Vec::with_capacity(out.refs.len()),
        ends: Vec::with_capacity(out.counts.len()),
        ..Default::default()
    };
    let mut ids: Vec<u32> = Vec::new();
    let mut off = 0usize;
    for &n in &out.counts {
        ids.clear();
        ids.extend(out.refs[off..off + n as usize].iter().map(|&x| bids.resolve(x)));
        off += n as usize;
        sort_dedup(&mut ids);
        if ids.is_empty() {
            r.deadlocks += 1;
        }
        r.transitions += ids.len() as u64;
        r.succ.extend_from_slice(&ids);
        r.ends.push(r.succ.len() as u64);
    }
    r
}

/// Sorts `ids` and drops repetitions. Successor lists are short and mostly sorted already
/// (new states are numbered in successor order), where an insertion sort does a few
/// comparisons per element; the general sort costs several times more on such lists.
pub(crate) fn sort_dedup(ids: &mut Vec<u32>) {
    if ids.len() > 32 {
        ids.sort_unstable();
    } else {
        for i in 1..ids.len() {
            let x = ids[i];
            let mut j = i;
            while j > 0 && ids[j - 1] > x {
                ids[j] = ids[j - 1];
                j -= 1;
            }
            ids[j] = x;
        }
    }
    ids.dedup();
}

/// Parents expanded between two looks at the batch's size (when there is a state bound).
const PENDING_CHECK: u32 = 16;

/// Parents per chunk of a batch handed to a worker: at most (larger chunks balance worse),
/// and at least (each chunk has a start-up cost: buffers, the lookup pipeline).
const CHUNK: usize = 1024;
const MIN_CHUNK: usize = 32;

/// Batches with fewer parents are expanded on the calling thread.
const PARALLEL_MIN: usize = 128;

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
    let r = explore_with(
        stepper,
        opts,
        &mut |f| {
            for s in initial {
                if !f(s) {
                    break;
                }
            }
            Ok(())
        },
        None,
    );
    r.expect("no error from a list of initial states")
}

/// Like `explore`, from the stepper's own initial states (`Stepper::for_each_initial`),
/// which are added to the store as they are enumerated: the state and memory bounds apply
/// to them too.
pub fn explore_initial(stepper: &Stepper, opts: &ExploreOptions) -> Result<Graph, RuntimeError> {
    explore_with(stepper, opts, &mut |f| stepper.for_each_initial(f), None)
}

/// `explore_initial`, with `watch` shown the states as they are stored: the exploration ends
/// when it returns `true` (checking on the fly).
pub(crate) fn explore_watched(
    stepper: &Stepper,
    opts: &ExploreOptions,
    watch: &mut WatchFn,
) -> Result<Graph, RuntimeError> {
    explore_with(stepper, opts, &mut |f| stepper.for_each_initial(f), Some(watch))
}

/// Enumerates initial states by calling its argument on each (which returns false to stop).
type InitialFn<'a> = dyn FnMut(&mut dyn FnMut(&[i32]) -> bool) -> Result<(), RuntimeError> + 'a;

/// Adds the initial states to `g` in enumeration order (in batches, numbered like the
/// sequential insertion), stopping once a bound is exceeded.
fn add_initial(
    g: &mut Graph,
    lay: &Layout,
    workers: &Workers,
    opts: &ExploreOptions,
    initial: &mut InitialFn,
    seconds: &dyn Fn() -> f64,
) -> Result<(), RuntimeError> {
    let flush = |g: &mut Graph| {
        let b = g.store.finish_batch_on(workers);
        g.parent.resize(g.parent.len() + b.keys.len(), NO_PARENT);
        // Millions of initial states can take seconds: the progress line shows them too.
        if let Some(p) = &opts.progress {
            let n = g.store.len() as u64;
            let memory_bytes = g.memory_bytes();
            p(&Progress { initial: true, states: n, transitions: 0, queue: n, seconds: seconds(), memory_bytes, phase: None });
        }
    };
    let over =
        |g: &Graph| opts.limits.stopped().or_else(|| opts.over_states(g.store.len()).then_some(StopReason::MaxStates));
    let (mut enc, mut code) = (Vec::new(), Vec::new());
    let mut key = 0u64;
    let mut canon = CanonScratch::default();
    initial(&mut |s| {
        let need = width_needed(s);
        if need > g.store.width() {
            let stride = g.store.stride();
            if opts.limits.memory().is_some_and(|(b, _)| StateStore::block_bytes(stride, need) > b) {
                g.stopped = Some(StopReason::Memory);
                return false;
            }
            flush(g);
            g.store.widen(need);
        }
        enc.resize(g.store.work_bytes(), 0);
        encode_into(s, g.store.width(), &mut enc);
        if let Some(sym) = &opts.symmetry {
            sym.canonicalise(lay, g.store.width(), &mut enc, &mut canon);
        }
        code.resize(g.store.state_bytes(), 0);
        if !g.store.pack(&enc, &mut code) {
            flush(g);
            g.store.refit(&[g.store.unwork(&enc)]);
            code.resize(g.store.state_bytes(), 0);
            let fits = g.store.pack(&enc, &mut code);
            debug_assert!(fits, "a state fits the fields refitted to it");
        }
        g.store.insert_shared(&code, hash_bytes(&code), key);
        key += 1;
        if key.is_multiple_of(BATCH as u64) {
            flush(g);
            g.stopped = over(g);
        } else if let Some(r) = opts.limits.stopped() {
            g.stopped = Some(r);
        }
        g.stopped.is_none()
    })?;
    flush(g);
    if g.stopped.is_none() {
        g.stopped = over(g);
    }
    Ok(())
}

fn explore_with(
    stepper: &Stepper,
    opts: &ExploreOptions,
    initial: &mut InitialFn,
    mut watch: Option<&mut WatchFn>,
) -> Result<Graph, RuntimeError> {
    let start = Instant::now();
    // Started first, so that the workers start up while the initial states and the first
    // BFS levels (too small to share) are explored on this thread.
    let (workers, started_before) = match &opts.workers {
        Some(w) => (Arc::clone(w), w.start_cost()),
        None => (Arc::new(Workers::new(opts.threads.max(1))), Duration::ZERO),
    };
    let threads = workers.threads();
    let seconds = || (start.elapsed() + started_before).as_secs_f64();
    let stride = stepper.lay.len;
    // A state so large that one arena block would not fit in the memory bound (thousands of
    // agents: the state grows with the square of their number) stops the run before the
    // allocation is attempted.
    let block_fits =
        |width: usize| opts.limits.memory().is_none_or(|(b, _)| StateStore::block_bytes(stride, width) <= b);
    let mut g = Graph {
        store: if opts.store == StorePolicy::Compact {
            StateStore::compact_for_threads(stride, threads)
        } else {
            StateStore::for_threads(stride, threads)
        },
        parent: SystemVec::new(),
        n_initial: 0,
        succ_off: vec![0].into(),
        succ: SystemVec::new(),
        transitions: 0,
        deadlocks: 0,
        expanded: 0,
        has_edges: opts.keep_edges,
        edges_dropped_at: None,
        compacted_at: None,
        stopped: None,
        error: None,
        decided_early: false,
        seconds: 0.0,
        free: Vec::new(),
        lassos: 0,
    };
    if !block_fits(1) {
        g.stopped = Some(StopReason::Memory);
        return Ok(g);
    }
    // The watch may know its answer before any state is stored (found by other means).
    if watch.as_mut().is_some_and(|w| w(&mut g, 0..0)) {
        g.decided_early = true;
        g.seconds = seconds();
        return Ok(g);
    }
    add_initial(&mut g, &stepper.lay, &workers, opts, initial, &seconds)?;
    g.n_initial = g.store.len();
    if g.stopped.is_some() {
        g.seconds = seconds();
        return Ok(g);
    }
    let mut watched =
        |g: &mut Graph, from: usize| watch.as_mut().is_some_and(|w| w(g, from as u32..g.store.len() as u32));
    if watched(&mut g, 0) {
        g.decided_early = true;
        g.seconds = seconds();
        return Ok(g);
    }
    let mut keep = g.has_edges;
    // A batch that would take the store beyond twice the state bound is dropped, so that a
    // state space with thousands of successors per state stops near the bound.
    let too_many = opts.max_states.or(opts.limits.max_states()).map(|m| (m as usize).saturating_mul(2).max(BATCH));
    let mut next = 0usize;
    while next < g.store.len() {
        let end = (next + BATCH).min(g.store.len());
        // The first BFS levels are too small to share. Larger batches are cut into chunks
        // that the workers take in turn (so a worker that drew cheap parents does not wait
        // for the other), at least a few per thread; results are kept in chunk order, which
        // is parent order.
        let outs: Vec<ChunkOut> = if threads == 1 || end - next < PARALLEL_MIN {
            let x =
                Expansion { keep, limits: &opts.limits, too_many, symmetry: opts.symmetry.as_deref(), free: &g.free };
            vec![expand_chunk(stepper, &g.store, next as u32..end as u32, &x)]
        } else {
            let (store, free) = (&g.store, &g.free);
            let chunk = ((end - next) / (4 * threads)).clamp(MIN_CHUNK, CHUNK);
            let chunks = (end - next).div_ceil(chunk);
            workers.in_chunks(chunks, |c| {
                let lo = next + c * chunk;
                let x = Expansion { keep, limits: &opts.limits, too_many, symmetry: opts.symmetry.as_deref(), free };
                expand_chunk(stepper, store, lo as u32..(lo + chunk).min(end) as u32, &x)
            })
        };
        let widen = outs.iter().map(|o| o.widen).max().unwrap_or(0);
        if widen != 0 && !block_fits(widen) {
            g.store.discard_batch();
            g.stopped = Some(StopReason::Memory);
            break;
        }
        if widen != 0 {
            // A successor needs wider slots: redo the batch.
            g.store.widen(widen);
            continue;
        }
        // A successor needs wider fields: re-encode everything and redo the batch. Only the
        // first misfit in parent order counts (the first chunk that stopped), the one a
        // single thread meets first, so that the fields do not depend on the thread count.
        let first_stop = outs.iter().find(|o| o.widen != 0 || o.refit.is_some() || o.error.is_some());
        if let Some(misfit) = first_stop.and_then(|o| o.refit.as_ref()) {
            g.store.refit(std::slice::from_ref(misfit));
            continue;
        }
        if let Some(r) = opts.limits.stopped() {
            // A chunk left its parents unexpanded: the batch is dropped whole, so that the
            // graph stays a BFS prefix.
            g.store.discard_batch();
            g.stopped = Some(r);
            break;
        }
        let batch_end = g.store.len() + g.store.pending();
        if outs.iter().any(|o| o.too_many) || too_many.is_some_and(|m| batch_end > m) || batch_end > MAX_STORED {
            // Checked again on the whole batch, so that whether it is dropped does not depend
            // on how the chunks were shared out.
            g.store.discard_batch();
            g.stopped = Some(StopReason::MaxStates);
            break;
        }
        if let Some(e) = outs.iter().filter_map(|o| o.error.clone()).min_by_key(|e| e.0) {
            g.store.abort_batch();
            g.error = Some(e);
            g.seconds = seconds();
            return Ok(g);
        }
        g.lassos |= outs.iter().fold(0, |a, o| a | o.lassos);
        let stored = g.store.len();
        let bids = g.store.finish_batch_on(&workers);
        g.parent.extend(bids.keys.iter().map(|&k| (k >> 32) as u32));
        if keep {
            // The references are resolved on the workers too; the results are then appended
            // in chunk (that is, parent) order.
            let res: Vec<Resolved> = workers.in_chunks(outs.len(), |c| resolve_chunk(&outs[c], &bids));
            for r in &res {
                g.deadlocks += r.deadlocks;
                g.transitions += r.transitions;
                let base = g.succ.len() as u64;
                g.succ_off.extend(r.ends.iter().map(|&e| base + e));
                g.succ.extend_from_slice(&r.succ);
            }
        } else {
            // Counted during the expansion: nothing to resolve.
            for out in &outs {
                g.deadlocks += out.deadlocks;
                g.transitions += out.distinct;
            }
        }
        g.expanded += end - next;
        drop(outs);
        next = end;
        // Between batches, on this thread: no worker holds the lists. The counts go on
        // from the expansion's own (`ChunkOut::distinct`), the same as the lists give.
        let over = |b| match b {
            EdgeBudget::Resident(b) => crate::limits::resident_bytes() > b,
            EdgeBudget::Graph(b) => g.memory_bytes() > b,
        };
        if keep && opts.edge_budget.is_some_and(over) {
            g.drop_edges();
            keep = false;
        }
        // After the lists, which cost more: the store turns compact only once none are kept.
        if !g.store.is_compact() && opts.store.compact_now(g.store.len(), keep, &opts.limits) {
            g.store.compact();
            g.compacted_at = Some(g.store.len() as u64);
        }
        // Called on the last batch too, so that the watch sees every state.
        if watched(&mut g, stored) && next < g.store.len() {
            g.decided_early = true;
            break;
        }
        if let Some(p) = &opts.progress {
            p(&Progress {
                initial: false,
                states: g.store.len() as u64,
                transitions: g.transitions,
                queue: (g.store.len() - next) as u64,
                seconds: seconds(),
                memory_bytes: g.memory_bytes(),
                phase: None,
            });
        }
        if next < g.store.len() {
            if let Some(r) = opts.limits.stopped() {
                g.stopped = Some(r);
                break;
            }
            if opts.over_states(g.store.len()) {
                g.stopped = Some(StopReason::MaxStates);
                break;
            }
        }
    }
    g.store.release_spare();
    g.seconds = seconds();
    Ok(g)
}

#[cfg(test)]
mod tests {
    use super::{count_distinct, sort_dedup};

    #[test]
    fn sort_dedup_sorts_and_drops_repetitions() {
        // Lists on both sides of the insertion-sort limit, with and without repetitions,
        // compared with the general sort (values from a fixed LCG).
        let mut x = 12345u64;
        for len in [0, 1, 2, 3, 7, 31, 32, 33, 100] {
            for range in [3u64, 1000] {
                let mut v: Vec<u32> = (0..len)
                    .map(|_| {
                        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        ((x >> 33) % range) as u32
                    })
                    .collect();
                let mut want = v.clone();
                want.sort();
                want.dedup();
                sort_dedup(&mut v);
                assert_eq!(v, want, "len {len} range {range}");
            }
        }
    }

    /// Successors `vals` (one byte each) with hashes `hs`: equal hashes must not be taken for
    /// equal states, and equal states are counted once, for short and long lists.
    fn distinct(vals: &[u8], hs: &[u64]) -> usize {
        count_distinct(hs, vals, 1, &mut Vec::new())
    }

    #[test]
    fn equal_hashes_of_different_states_count_twice() {
        assert_eq!(distinct(&[1, 2, 1, 3], &[7, 7, 7, 9]), 3);
        let vals: Vec<u8> = (0..40).map(|i| (i % 5) as u8).collect();
        // Every hash equal (worst collisions), then every hash distinct per value.
        assert_eq!(distinct(&vals, &vec![0; 40]), 5);
        let hs: Vec<u64> = vals.iter().map(|&v| v as u64 * 31).collect();
        assert_eq!(distinct(&vals, &hs), 5);
        assert_eq!(distinct(&[], &[]), 0);
    }
}
