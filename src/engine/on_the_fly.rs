//! Checking on the fly: the properties evaluated on the states as the exploration stores
//! them, so that it can stop as soon as every property is decided. Only violations decide
//! early (a property that holds needs every state), so this applies when every property
//! checked is an `always` or a `finally` property:
//!
//! - `always ψ`: the first stored state where ψ fails. Ids are numbered in BFS order whatever
//!   the number of threads, so it is the state `check::always` picks on the whole graph: the
//!   same shortest counterexample.
//! - `finally ψ`: first a depth-first search within a budget (`lasso_search`), since where a
//!   system settles or loops is often the last level the breadth-first order reaches; then,
//!   during the exploration, a ψ-free path from an initial state to a deadlock or a ψ-free
//!   cycle among the expanded states (their successors recomputed), looked for whenever the
//!   number of stored states has doubled, so that the searches cost at most about twice the
//!   last one, and only once the expansion has noted a ψ-free deadlock or an edge between
//!   ψ-free states to a lower id (`Graph::lassos`; the watch marks the ψ-free states,
//!   `Graph::free`). What either finds is a real violation; it may be longer than the shortest
//!   one the whole graph gives.
//!
//! With `--exhaustive` the watch only evaluates and marks (nothing stops the exploration), so
//! that the check afterwards has ψ and the marks.

use super::check::{self, Cex, Space, SubGraph};
use super::explore::Graph;
use super::lasso_search::{self, Lasso};
use super::par::Workers;
use super::recompute::Recomputed;
use super::step::Stepper;
use super::symmetry::Group;
use super::{EvalStop, eval_range, fast};
use crate::limits::Limits;
use crate::model::{Modality, Property, QPred};
use std::ops::Range;

pub(super) struct OnTheFly<'a> {
    stepper: &'a Stepper<'a>,
    /// The reduction the exploration applies (successors are recomputed under it).
    symmetry: Option<&'a Group>,
    /// Each property's predicate, its compiled form, and whether it is a `finally` one.
    preds: Vec<(&'a QPred, Option<fast::FastPred>, bool)>,
    /// The bit of `Graph::free` of each of the first 8 `finally` properties.
    pub(crate) bits: Vec<Option<u8>>,
    /// Whether to end the exploration once every property is violated (not with
    /// `--exhaustive`, where the watch only marks the states).
    stop: bool,
    workers: &'a Workers,
    limits: &'a Limits,
    /// ψ of each property on the ids seen so far (`0..len`), for the check afterwards.
    pub(crate) psi: Vec<Vec<bool>>,
    /// A violation found so far, per property.
    pub(crate) found: Vec<Option<Found>>,
    /// A run-time error cut `psi` short (the check meets it again).
    pub(crate) failed: bool,
    /// The next `finally` search waits for this many stored states.
    next_search: usize,
}

/// A violation found before the whole graph is known.
pub(super) enum Found {
    /// A path of the explored graph (ids).
    Graph(Cex),
    /// Concrete states (the depth-first search).
    Concrete(Lasso),
}

/// The depth-first search's budget of states per `finally` property: a fraction of a second.
const SEARCH_BUDGET: usize = 1 << 16;

impl<'a> OnTheFly<'a> {
    /// Whether checking on the fly can decide `props` before the end: each is `always` or
    /// `finally`.
    pub(crate) fn applies(props: &[&Property]) -> bool {
        !props.is_empty() && props.iter().all(|p| matches!(p.modality, Modality::Always | Modality::Finally))
    }

    pub(crate) fn new(
        stepper: &'a Stepper<'a>,
        symmetry: Option<&'a Group>,
        props: &[&'a Property],
        workers: &'a Workers,
        limits: &'a Limits,
        stop: bool,
    ) -> Self {
        let mut finals = 0u32;
        let bits = props
            .iter()
            .map(|p| {
                let bit = (matches!(p.modality, Modality::Finally) && finals < 8).then(|| 1u8 << finals);
                finals += matches!(p.modality, Modality::Finally) as u32;
                bit
            })
            .collect();
        OnTheFly {
            stepper,
            symmetry,
            bits,
            stop,
            preds: props
                .iter()
                .map(|p| {
                    let fast = fast::FastPred::compile(stepper.model, &stepper.lay, &p.pred);
                    (&p.pred, fast, matches!(p.modality, Modality::Finally))
                })
                .collect(),
            workers,
            limits,
            psi: vec![Vec::new(); props.len()],
            found: props
                .iter()
                .map(|p| match p.modality {
                    Modality::Finally if stop => {
                        lasso_search::find(stepper, &p.pred, SEARCH_BUDGET, limits).map(Found::Concrete)
                    }
                    _ => None,
                })
                .collect(),
            failed: false,
            next_search: 0,
        }
    }

    /// Takes in the newly stored `ids` of `g`; `true` once every property has a violation
    /// (or on a run-time error, which the check then reports where it would have; not when
    /// every state is to be explored).
    pub(crate) fn decided(&mut self, g: &mut Graph, ids: Range<u32>) -> bool {
        if self.failed {
            // Only while exploring every state (`stop` false): the check meets the error.
            return false;
        }
        for (k, (q, fast, _)) in self.preds.iter().enumerate() {
            match eval_range(self.stepper, &g.store, q, fast.as_ref(), ids.clone(), self.workers, self.limits) {
                Ok(v) => self.psi[k].extend(v),
                Err(EvalStop::Error(..)) => {
                    // Every state is explored all the same with `--exhaustive`, so that a
                    // run-time error of the model is found wherever it is, as without a watch.
                    self.failed = true;
                    return self.stop;
                }
                // The exploration sees the stop itself.
                Err(EvalStop::Stopped) => return false,
            }
        }
        if self.bits.iter().any(Option::is_some) {
            debug_assert_eq!(g.free.len(), ids.start as usize, "every state marked once, in id order");
            let (psi, bits) = (&self.psi, &self.bits);
            g.free
                .extend(ids.clone().map(|i| {
                    bits.iter().zip(psi).fold(0u8, |m, (b, v)| m | b.filter(|_| !v[i as usize]).unwrap_or(0))
                }));
        }
        if !self.stop {
            return false;
        }
        for k in 0..self.preds.len() {
            if self.found[k].is_none() && !self.preds[k].2 {
                let first = self.psi[k][ids.start as usize..].iter().position(|&b| !b);
                self.found[k] = first.map(|i| {
                    Found::Graph(Cex { path: g.path_to(ids.start + i as u32), loop_start: None, deadlock: false })
                });
            }
        }
        if g.states() >= self.next_search {
            self.next_search = g.states() * 2;
            for k in 0..self.preds.len() {
                // A clear bit: no ψ-free deadlock or cycle among the expanded states.
                let clear = self.bits[k].is_some_and(|b| g.lassos & b == 0);
                if self.found[k].is_none() && self.preds[k].2 && !clear {
                    let g = &*g;
                    let recomputed =
                        Recomputed { g, stepper: self.stepper, symmetry: self.symmetry, workers: self.workers };
                    let space: &dyn Space = if g.has_edges { g } else { &recomputed };
                    self.found[k] = violation_of_finally(g, space, &self.psi[k]).map(Found::Graph);
                }
            }
        }
        self.found.iter().all(Option::is_some)
    }
}

/// A ψ-free path through expanded states that ends in a deadlock or a cycle (`g`'s
/// successors recomputed by `space`).
fn violation_of_finally(g: &Graph, space: &dyn Space, psi: &[bool]) -> Option<Cex> {
    let expanded = g.expanded() as u32;
    let succ = |s: u32, out: &mut Vec<u32>| space.succs(s, out);
    let allowed = |s: u32| s < expanded && !psi[s as usize];
    let found = check::lassos(g.states(), g.n_initial, &succ, &allowed);
    if !found.dead && !found.cycle {
        return None;
    }
    let starts: Vec<u32> = (0..g.n_initial as u32).collect();
    let sub = SubGraph {
        n: g.states(),
        succ: &succ,
        allowed: &allowed,
        cycles: found.cycle,
        many: Some(&|ids: &[u32]| space.succs_many(ids)),
    };
    check::bad_path(&sub, &starts)
}
