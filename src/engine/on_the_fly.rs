//! Checking on the fly: the properties evaluated on the states as the exploration stores
//! them, so that it can stop as soon as every property is decided. Only violations decide
//! early (a property that holds needs every state), so this applies when no property checked
//! is a `fairly` or `fairly_inf` one (branching: a violation needs every state reachable from
//! it):
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
//!   `Graph::free`).
//! - linear-time formulas (D14), and the scoped patterns read as the formulas of
//!   docs/semantics.md ("Scoped patterns as linear-time formulas"): the same two searches for
//!   an accepting lasso of the product with the automaton of the formula's negation, first
//!   depth-first over concrete states within a budget (`ltl_search`), then among the expanded
//!   states whenever the stored states have doubled (`ltl::lasso_within`); both are the
//!   emptiness check of `accepting`. A scoped pattern's run is cut where its monitor reaches
//!   its bad state, the form of the exhaustive check's counterexamples.
//!
//! - under `--fairness` (weak, strong), a property on runs: only the search for a fair
//!   violation before the exploration (`fair_search`), which under weak fairness also decides
//!   that the property holds when it ends without one; the searches during the exploration
//!   would find unfair lassos.
//!
//! What any of these finds is a real violation; it may be longer than the shortest one the
//! whole graph gives. A property with no violation, or one the searches miss, is decided by
//! the whole exploration as without the watch.
//!
//! With `--exhaustive` the watch only evaluates and marks (nothing stops the exploration), so
//! that the check afterwards has the predicates' values and the marks. Where the value
//! analysis cannot exclude a run-time error (`analysis::fallible`), it looks for violations
//! among the explored states (what a run cut by a bound reports) but does not stop the
//! exploration, and makes no depth-first search: a run-time error reachable in the system is
//! reported whatever the properties (docs/semantics.md, D9).

use super::check::{self, Bits, Cex, Pat, Scope, Space, SubGraph, mon, mon_step};
use super::explore::Graph;
use super::fair_search::{self, FairFound};
use super::fairness::Fairness;
use super::lasso_search::{self, Lasso};
use super::ltl::{self, Automaton};
use super::par::Workers;
use super::path::Trace;
use super::recompute::Recomputed;
use super::step::{RuntimeError, Stepper, Work};
use super::symmetry::Group;
use super::{EvalStop, eval_range, fast, formula_over_predicates, ltl_search, predicates};
use crate::limits::Limits;
use crate::model::{Modality, Pattern, Property, QPred};
use crate::syntax::ltl::Ltl;
use std::ops::Range;

pub(super) struct OnTheFly<'a> {
    stepper: &'a Stepper<'a>,
    /// The reduction the exploration applies (successors are recomputed under it).
    symmetry: Option<&'a Group>,
    /// Each property's predicates (as `predicates` lists them), each with its compiled form.
    preds: Vec<Vec<(&'a QPred, Option<fast::FastPred>)>>,
    /// How each property is decided early.
    kinds: Vec<Kind>,
    /// The bit of `Graph::free` of each of the first 8 `finally` properties.
    pub(crate) bits: Vec<Option<u8>>,
    /// What to do with the violations.
    watch: Watch,
    /// The states stored when every property first had a violation.
    pub(crate) violated_at: Option<u64>,
    workers: &'a Workers,
    limits: &'a Limits,
    /// Each property's predicates on the ids seen so far (`0..len`), for the check afterwards.
    pub(crate) psi: Vec<Vec<Vec<bool>>>,
    /// A violation found so far, per property.
    pub(crate) found: Vec<Option<Found>>,
    /// A run-time error cut `psi` short (the check meets it again).
    pub(crate) failed: bool,
    /// The next search among the expanded states waits for this many stored states.
    next_search: usize,
}

enum Kind {
    Always,
    Finally,
    /// A linear-time formula or a scoped pattern: the automaton of its negation and, per atom
    /// of the automaton, the predicate it reads (`None`: a formula whose automaton was
    /// refused, never decided early).
    Linear(Option<(Automaton, Vec<usize>)>),
    /// A property on runs under a fairness assumption: the automaton of its negation and the
    /// predicate of each atom, for `fair_search` before the exploration (`None`: never decided
    /// early); the searches during the exploration would find unfair lassos.
    Fair(Fairness, Option<(Automaton, Vec<usize>)>),
}

/// A violation found before the whole graph is known.
pub(super) enum Found {
    /// A path of the explored graph (ids).
    Graph(Cex),
    /// Concrete states (the depth-first searches).
    Concrete(Lasso),
    /// The search for a fair violation decided, having stored this many states.
    Fair(FairFound, usize),
}

/// The depth-first searches' budget of states per property: a fraction of a second.
pub(super) const SEARCH_BUDGET: usize = 1 << 16;

/// What the watch does besides evaluating the predicates on the new states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Watch {
    /// Nothing more (`--exhaustive`): the checks afterwards read the values and the marks.
    Evaluate,
    /// Look for a violation of each property among the explored states, for a run that a
    /// bound may cut short, but explore every state: a run-time error may lie beyond the
    /// violations (docs/semantics.md, D9).
    Search,
    /// Also end the exploration once every property is violated, after depth-first searches
    /// before it: no run-time error can be met beyond.
    Stop,
}

impl<'a> OnTheFly<'a> {
    /// Whether checking on the fly can decide `props` before the end: none is branching.
    pub(crate) fn applies(props: &[&Property]) -> bool {
        !props.is_empty() && props.iter().all(|p| !matches!(p.modality, Modality::Fairly | Modality::FairlyInf))
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        stepper: &'a Stepper<'a>,
        symmetry: Option<&'a Group>,
        props: &[&'a Property],
        automata: &[Option<Automaton>],
        workers: &'a Workers,
        limits: &'a Limits,
        watch: Watch,
        budget: usize,
        fairness: Option<(Fairness, usize)>,
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
        let preds: Vec<Vec<_>> = props
            .iter()
            .map(|p| {
                predicates(p)
                    .into_iter()
                    .map(|q| (q, fast::FastPred::compile(stepper.model, &stepper.lay, q)))
                    .collect()
            })
            .collect();
        let kinds: Vec<Kind> = props
            .iter()
            .zip(automata)
            .map(|(p, aut)| match (&p.modality, fairness) {
                (Modality::Always, _) => Kind::Always,
                (Modality::Finally, Some((notion, _))) => Kind::Fair(
                    notion,
                    Automaton::of_negation(&Ltl::Finally(Box::new(Ltl::Atom(0usize)))).ok().map(|a| (a, vec![0])),
                ),
                (_, Some((notion, _))) => Kind::Fair(
                    notion,
                    formula_over_predicates(p)
                        .and_then(|f| Some((aut.clone()?, f.atoms().into_iter().copied().collect()))),
                ),
                (Modality::Finally, None) => Kind::Finally,
                _ => Kind::Linear(
                    formula_over_predicates(p)
                        .and_then(|f| Some((aut.clone()?, f.atoms().into_iter().copied().collect()))),
                ),
            })
            .collect();
        let found = props
            .iter()
            .zip(&kinds)
            .zip(&preds)
            .map(|((p, kind), preds)| match kind {
                _ if watch != Watch::Stop => None,
                Kind::Always => None,
                Kind::Finally => lasso_search::find(stepper, &p.pred, budget, limits).map(Found::Concrete),
                Kind::Linear(aut) => {
                    let (aut, atom_of) = aut.as_ref()?;
                    ltl_search::find(stepper, preds, aut, atom_of, budget, limits).map(Found::Concrete)
                }
                Kind::Fair(notion, aut) => {
                    let (aut, atom_of) = aut.as_ref()?;
                    // A weak-fair search that ends decides; a strong-fair one only finds. The
                    // search reads concrete states: under the symmetry reduction it only
                    // looks for a violation within the budget, and the check on the reduced
                    // graph decides the rest (a whole concrete search would cost the states
                    // the reduction saves).
                    let budget = match notion {
                        Fairness::Weak if symmetry.is_none() => fairness.map_or(usize::MAX, |f| f.1),
                        _ => budget,
                    };
                    let s = fair_search::find(stepper, *notion, preds, aut, atom_of, budget, limits);
                    s.found.map(|f| Found::Fair(f, s.visited))
                }
            })
            .collect();
        OnTheFly {
            stepper,
            symmetry,
            bits,
            watch,
            violated_at: None,
            psi: preds.iter().map(|v| vec![Vec::new(); v.len()]).collect(),
            preds,
            kinds,
            workers,
            limits,
            found,
            failed: false,
            next_search: 0,
        }
    }

    /// Takes in the newly stored `ids` of `g`; `true` once every property has a violation,
    /// when the watch may stop the exploration, or on a run-time error in a predicate (not
    /// with `--exhaustive`), which the check then meets again.
    pub(crate) fn decided(&mut self, g: &mut Graph, ids: Range<u32>) -> bool {
        if self.failed {
            // Only while exploring every state: the check meets the error.
            return false;
        }
        for (preds, psi) in self.preds.iter().zip(&mut self.psi) {
            for ((q, fast), psi) in preds.iter().zip(psi) {
                match eval_range(self.stepper, &g.store, q, fast.as_ref(), ids.clone(), self.workers, self.limits) {
                    Ok(v) => psi.extend(v),
                    Err(EvalStop::Error(..)) => {
                        // A run-time error of the model is the answer (D9): the check meets it
                        // again. With `--exhaustive` every state is explored all the same, so
                        // that the error reported is the one met without a watch.
                        self.failed = true;
                        return self.watch != Watch::Evaluate;
                    }
                    // The exploration sees the stop itself.
                    Err(EvalStop::Stopped) => return false,
                }
            }
        }
        if self.bits.iter().any(Option::is_some) {
            debug_assert_eq!(g.free.len(), ids.start as usize, "every state marked once, in id order");
            let (psi, bits) = (&self.psi, &self.bits);
            g.free.extend(
                ids.clone().map(|i| {
                    bits.iter().zip(psi).fold(0u8, |m, (b, v)| m | b.filter(|_| !v[0][i as usize]).unwrap_or(0))
                }),
            );
        }
        if self.watch == Watch::Evaluate || self.violated_at.is_some() {
            return false;
        }
        for k in 0..self.preds.len() {
            if self.found[k].is_none() && matches!(self.kinds[k], Kind::Always) {
                let first = self.psi[k][0][ids.start as usize..].iter().position(|&b| !b);
                self.found[k] = first.map(|i| {
                    Found::Graph(Cex { path: g.path_to(ids.start + i as u32), loop_start: None, deadlock: false })
                });
            }
        }
        if g.states() >= self.next_search {
            self.next_search = g.states() * 2;
            let g = &*g;
            let recomputed = Recomputed { g, stepper: self.stepper, symmetry: self.symmetry, workers: self.workers };
            let space: &dyn Space = if g.has_edges { g } else { &recomputed };
            for k in 0..self.preds.len() {
                if self.found[k].is_some() {
                    continue;
                }
                self.found[k] = match &self.kinds[k] {
                    Kind::Always | Kind::Fair(..) => None,
                    Kind::Finally => {
                        // A clear bit: no ψ-free deadlock or cycle among the expanded states.
                        let clear = self.bits[k].is_some_and(|b| g.lassos & b == 0);
                        if clear { None } else { violation_of_finally(g, space, &self.psi[k][0]) }
                    }
                    Kind::Linear(None) => None,
                    Kind::Linear(Some((aut, atom_of))) => {
                        let bits: Vec<&[bool]> = atom_of.iter().map(|&a| self.psi[k][a].as_slice()).collect();
                        let stopped = || self.limits.stopped().is_some();
                        ltl::lasso_within(space, aut, &bits, g.expanded() as u32, &stopped)
                    }
                }
                .map(Found::Graph);
            }
        }
        let all = self.found.iter().all(Option::is_some);
        if all {
            self.violated_at = Some(g.states() as u64);
        }
        all && self.watch == Watch::Stop
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

/// A run violating the scoped property `p` (found as a violation of its formula), cut at the
/// first state where the pattern's monitor reaches its bad state, where there is one: the
/// path the exhaustive check gives (`check::scoped`). Another property's run, and one whose
/// violation is an interval open forever, stay whole.
pub(super) fn cut_at_monitor(stepper: &Stepper, p: &Property, t: &mut Trace) -> Result<(), RuntimeError> {
    let (scope, open, close, pattern) = match &p.modality {
        Modality::Between { open, close, pattern } => (Scope::Between, open, close, pattern),
        Modality::FromUntil { open, close, pattern } => (Scope::FromUntil, open, close, pattern),
        _ => return Ok(()),
    };
    let (pat, s) = match pattern {
        Pattern::ThereIs => (Pat::ThereIs, None),
        Pattern::Always => (Pat::Always, None),
        Pattern::Precedes(s) => (Pat::Precedes, Some(s)),
    };
    let mut sc = Default::default();
    let mut m = mon::IDLE;
    for i in 0..=t.len() {
        let st = t.state(i);
        let mut at = |q: &QPred| stepper.eval_pred(st, &mut sc, q);
        let b = Bits { q: at(open)?, r: at(close)?, p: at(&p.pred)?, s: s.map(&mut at).transpose()?.unwrap_or(false) };
        m = mon_step(scope, pat, m, b);
        if m == mon::BAD {
            t.steps.truncate(i);
            t.loop_start = None;
            t.ends_in_deadlock = stepper.is_deadlock(t.last(), &mut Work::default())?;
            return Ok(());
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "on_the_fly_tests.rs"]
mod tests;
