//! The Markov chain of `labs simulate` on the explored states (docs/probability.md): each
//! state's row lists its successors with the number of transitions the successor function
//! lists to each (so a step is drawn uniformly among the enabled transitions, counted with
//! multiplicity), and the initial distribution counts each initial state as often as the
//! enumeration of initialisers' choices meets it. Under symmetry reduction the states are
//! orbits and the counts those of the representative's transitions into each orbit: the
//! lumped chain (docs/reductions.md, "Probabilities").

use super::super::check::Space;
use super::super::explore::Graph;
use super::super::par::Workers;
use super::super::recompute::Recomputed;
use super::super::state::{encode_into, hash_bytes};
use super::super::step::{RuntimeError, Stepper};
use super::super::symmetry::Group;
use super::super::symmetry::canon::CanonScratch;
use crate::limits::Limits;

/// One entry of a row: the successor and how many of the state's transitions lead to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Edge {
    pub(crate) to: u32,
    pub(crate) count: u32,
}

/// Rows of a Markov chain: `row(s)` lists distinct successors (increasing) with their
/// counts, the probability of `s → t` being `count / sum of counts`; an empty row is a
/// deadlock, which repeats its state forever (probability 1 of `s → s`).
pub(crate) trait Rows: Sync {
    fn len(&self) -> usize;
    /// `s`'s row: the stored one, or computed into `buf`.
    fn row<'a>(&'a self, s: usize, buf: &'a mut RowBuf) -> &'a [Edge];
}

/// A thread's buffers for rows computed on demand.
#[derive(Default)]
pub(crate) struct RowBuf {
    ids: Vec<u32>,
    row: Vec<Edge>,
}

/// A chain stored whole: rows in compressed sparse form.
#[derive(Debug, Default)]
pub(crate) struct Csr {
    pub(crate) off: Vec<u64>,
    pub(crate) edges: Vec<Edge>,
}

impl Csr {
    pub(crate) fn row(&self, s: usize) -> &[Edge] {
        &self.edges[self.off[s] as usize..self.off[s + 1] as usize]
    }

    /// Bytes it holds.
    pub(crate) fn bytes(&self) -> u64 {
        (self.off.capacity() * 8 + self.edges.capacity() * 8) as u64
    }

    /// Bytes a chain of `states` rows and `entries` entries takes.
    pub(crate) fn bytes_for(states: u64, entries: u64) -> u64 {
        (states + 1) * 8 + entries * 8
    }

    /// From rows given as lists of (successor, count) (the tests' chains).
    #[cfg(test)]
    pub(crate) fn from_rows(rows: &[Vec<(u32, u32)>]) -> Csr {
        let mut c = Csr { off: vec![0], ..Csr::default() };
        let mut row = Vec::new();
        for r in rows {
            let mut ids: Vec<u32> = r.iter().flat_map(|&(t, n)| std::iter::repeat_n(t, n as usize)).collect();
            count_row(&mut ids, &mut row);
            c.edges.extend_from_slice(&row);
            c.off.push(c.edges.len() as u64);
        }
        c
    }
}

impl Rows for Csr {
    fn len(&self) -> usize {
        self.off.len() - 1
    }
    fn row<'a>(&'a self, s: usize, _: &'a mut RowBuf) -> &'a [Edge] {
        Csr::row(self, s)
    }
}

/// Sorts a state's listed successors and counts repetitions into `row`.
pub(crate) fn count_row(ids: &mut [u32], row: &mut Vec<Edge>) {
    ids.sort_unstable();
    row.clear();
    for &t in ids.iter() {
        match row.last_mut() {
            Some(e) if e.to == t => e.count += 1,
            _ => row.push(Edge { to: t, count: 1 }),
        }
    }
}

/// The rows recomputed from the store at every sweep, where the stored chain would not fit
/// the memory bound.
pub(crate) struct RecomputedRows<'a> {
    pub(crate) rec: Recomputed<'a>,
}

impl Rows for RecomputedRows<'_> {
    fn len(&self) -> usize {
        self.rec.g.states()
    }
    fn row<'a>(&'a self, s: usize, buf: &'a mut RowBuf) -> &'a [Edge] {
        buf.ids.clear();
        self.rec.succs_listed(s as u32, &mut buf.ids);
        count_row(&mut buf.ids, &mut buf.row);
        &buf.row
    }
}

/// States per job when the chain is built.
const BUILD_CHUNK: usize = 4096;

/// The stored chain of the explored graph `g` (complete, without error), its rows computed
/// on `workers`; `None` when `limits` stop the run first. Rows are appended a round of chunks
/// at a time, so that the memory beyond the chain is one round's rows.
pub(crate) fn build(rec: &Recomputed, limits: &Limits) -> Option<Csr> {
    let n = rec.g.states();
    let workers: &Workers = rec.workers;
    let mut c = Csr { off: Vec::with_capacity(n + 1), edges: Vec::with_capacity(rec.g.transitions as usize) };
    c.off.push(0);
    let chunks = n.div_ceil(BUILD_CHUNK);
    let per_round = 16 * workers.threads();
    let mut first = 0;
    while first < chunks {
        if limits.stopped().is_some() {
            return None;
        }
        let last = (first + per_round).min(chunks);
        let parts = workers.in_chunks(last - first, |k| {
            let lo = (first + k) * BUILD_CHUNK;
            let hi = (lo + BUILD_CHUNK).min(n);
            let (mut lens, mut edges, mut ids, mut row) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            for s in lo..hi {
                ids.clear();
                rec.succs_listed(s as u32, &mut ids);
                count_row(&mut ids, &mut row);
                lens.push(row.len() as u32);
                edges.extend_from_slice(&row);
            }
            (lens, edges)
        });
        for (lens, edges) in parts {
            for l in lens {
                let next = c.off.last().copied().unwrap_or(0) + l as u64;
                c.off.push(next);
            }
            c.edges.extend_from_slice(&edges);
        }
        first = last;
    }
    Some(c)
}

/// The initial distribution: each stored initial state (its representative under `group`)
/// with the number of times the enumeration of initial states meets it, and their total.
pub(crate) fn initial_counts(
    stepper: &Stepper,
    g: &Graph,
    group: Option<&Group>,
) -> Result<(Vec<(u32, u64)>, u64), RuntimeError> {
    let store = &g.store;
    let mut counts = vec![0u64; g.n_initial];
    let (mut enc, mut code) = (vec![0u8; store.work_bytes()], vec![0u8; store.state_bytes()]);
    let mut canon = CanonScratch::default();
    let mut total = 0u64;
    let mut missing = false;
    stepper.for_each_initial(&mut |s| {
        encode_into(s, store.width(), &mut enc);
        if let Some(gr) = group {
            gr.canonicalise(&stepper.lay, store.width(), &mut enc, &mut canon);
        }
        let found = store.pack(&enc, &mut code).then(|| store.id_of(&code, hash_bytes(&code))).flatten();
        match found {
            Some(id) if (id as usize) < counts.len() => {
                counts[id as usize] += 1;
                total += 1;
                true
            }
            _ => {
                missing = true;
                false
            }
        }
    })?;
    if missing {
        return Err(RuntimeError("internal error: an initial state is not among the stored ones".into()));
    }
    Ok((counts.into_iter().enumerate().filter(|(_, c)| *c > 0).map(|(i, c)| (i as u32, c)).collect(), total))
}

/// The stored chain read as the checks read a graph (distinct successors; a deadlock has
/// none), so that the verdicts need no recomputation once the chain is built.
pub(crate) struct ChainSpace<'a> {
    pub(crate) chain: &'a Csr,
    pub(crate) g: &'a Graph,
}

impl Space for ChainSpace<'_> {
    fn states(&self) -> usize {
        self.g.states()
    }
    fn initial(&self) -> usize {
        self.g.n_initial
    }
    fn complete(&self) -> bool {
        self.g.complete()
    }
    fn succs(&self, s: u32, out: &mut Vec<u32>) {
        out.extend(self.chain.row(s as usize).iter().map(|e| e.to));
    }
    fn path_to(&self, s: u32) -> Vec<u32> {
        self.g.path_to(s)
    }
}
