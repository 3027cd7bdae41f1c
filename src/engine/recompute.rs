//! The successors of stored states recomputed instead of kept: the checks that run after the
//! exploration (`finally`, `fairly`, `fairly_inf`, scoped patterns, linear-time formulas) and
//! the search for `finally` during it read the graph through `check::Space`, and this one
//! computes a state's successors again and looks them up in the store, where the exploration
//! kept no successor lists (4 bytes per transition and 8 per state; `edges.rs` decides): memory
//! is then the store and one BFS parent per state.

use super::check::Space;
use super::explore::{Graph, sort_dedup};
use super::par::Workers;
use super::state::hash_bytes;
use super::step::{Stepper, Work};
use super::symmetry::Group;
use super::symmetry::canon::CanonScratch;
use std::cell::RefCell;

/// The explored graph `g`, its successors recomputed with `stepper` (under the reduction by
/// `symmetry`, as the exploration did).
pub(crate) struct Recomputed<'a> {
    pub(crate) g: &'a Graph,
    pub(crate) stepper: &'a Stepper<'a>,
    pub(crate) symmetry: Option<&'a Group>,
    /// The threads `succs_many` shares its states out to.
    pub(crate) workers: &'a Workers,
}

/// States per job of `succs_many`.
const MANY_CHUNK: usize = 512;

/// A thread's buffers for recomputing successors.
#[derive(Default)]
struct Scratch {
    work: Work,
    state: Vec<i32>,
    /// The state in the working form.
    parent: Vec<u8>,
    encs: Vec<u8>,
    /// A successor in the stored form.
    code: Vec<u8>,
    canon: CanonScratch,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

impl Space for Recomputed<'_> {
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
        if out.is_empty() {
            self.succs_listed(s, out);
            sort_dedup(out);
        } else {
            let mut ids = Vec::new();
            self.succs_listed(s, &mut ids);
            sort_dedup(&mut ids);
            out.extend_from_slice(&ids);
        }
    }
    fn path_to(&self, s: u32) -> Vec<u32> {
        self.g.path_to(s)
    }
    fn succs_many(&self, ids: &[u32]) -> Vec<Vec<u32>> {
        let chunks = self.workers.in_chunks(ids.len().div_ceil(MANY_CHUNK), |c| {
            let part = &ids[c * MANY_CHUNK..((c + 1) * MANY_CHUNK).min(ids.len())];
            part.iter()
                .map(|&s| {
                    let mut v = Vec::new();
                    self.succs(s, &mut v);
                    v
                })
                .collect::<Vec<_>>()
        });
        chunks.into_iter().flatten().collect()
    }
}

impl Recomputed<'_> {
    /// Every successor of the expanded state `s` as the successor function lists it, one id per
    /// transition (so with multiplicity, in the function's order), appended to `out`: the rows of
    /// the Markov chain of `probability`.
    pub(crate) fn succs_listed(&self, s: u32, out: &mut Vec<u32>) {
        debug_assert!(self.g.is_expanded(s), "only an expanded state's successors are all stored");
        let store = &self.g.store;
        let (width, wb, sb) = (store.width(), store.work_bytes(), store.state_bytes());
        SCRATCH.with_borrow_mut(|sc| {
            store.get_work(s, &mut sc.state, &mut sc.parent);
            sc.encs.clear();
            // The exploration expanded `s` without an error, and stored every successor with
            // these widths.
            let n = self
                .stepper
                .successors_packed(&sc.state, &sc.parent, width, &mut sc.work, &mut sc.encs)
                .unwrap_or_else(|_| panic!("state {s} was expanded without an error"));
            sc.code.resize(sb, 0);
            for enc in sc.encs.chunks_exact_mut(wb).take(n) {
                if let Some(g) = self.symmetry {
                    g.canonicalise(&self.stepper.lay, width, enc, &mut sc.canon);
                }
                let code: &[u8] = if store.is_compact() {
                    let fits = store.pack_from(&sc.parent, s, enc, &mut sc.code);
                    debug_assert!(fits, "an expanded state's successors are stored");
                    &sc.code
                } else {
                    enc
                };
                out.push(store.id_of(code, hash_bytes(code)).expect("an expanded state's successors are stored"));
            }
        })
    }
}

#[cfg(test)]
#[path = "recompute_tests.rs"]
pub(crate) mod tests;
