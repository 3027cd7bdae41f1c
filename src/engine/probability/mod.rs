//! Exact probabilities on the explored state space (`labs verify --probability`,
//! docs/probability.md): the chain `labs simulate` samples (`chain`), what the graph alone
//! decides (`graph`), guaranteed intervals by sound value iteration (`solve`), and linear-time
//! formulas through a deterministic automaton (`dfa`, `product`).

pub(crate) mod chain;
mod dfa;
mod graph;
mod product;
mod quantities;
mod solve;

use super::explore::Graph;
use super::par::Workers;
use super::recompute::Recomputed;
use super::step::Stepper;
use super::symmetry::Group;
use super::{EngineError, EvalStop, eval_all, formula_over_predicates, predicates, runtime};
use crate::limits::Limits;
use crate::model::{Modality, Property, QPred};
use chain::{ChainSpace, Csr, RecomputedRows, Rows};
use dfa::{Formula, Node};
use quantities::Ctx;
use serde::Serialize;
use std::sync::Arc;
use std::time::Instant;

/// A closed interval that contains the exact value.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Interval {
    pub lower: f64,
    pub upper: f64,
}

impl Interval {
    pub(crate) fn exact(v: f64) -> Interval {
        Interval { lower: v, upper: v }
    }
    pub fn width(&self) -> f64 {
        self.upper - self.lower
    }
    /// `1 - v` for `v` in this interval.
    fn complement(&self) -> Interval {
        Interval { lower: 1.0 - self.upper, upper: 1.0 - self.lower }
    }
}

/// An expected number of steps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Steps {
    Within(Interval),
    /// The probability of ever getting there is below 1.
    Infinite,
}

/// What `--probability` found for one property.
#[derive(Clone, Debug)]
pub struct PropertyProbability {
    pub property: String,
    /// The linear-time reading whose probability is given, where it is not the property
    /// itself (`fairly ψ`: `finally ψ`, whose probability is 1 exactly when it holds).
    pub reading: Option<&'static str>,
    /// The probability that a run satisfies the property (`None`: not computed, see `why_not`).
    pub probability: Option<Interval>,
    /// For `finally ψ`: the expected number of steps until ψ first holds.
    pub expected_steps: Option<Steps>,
    /// For `finally ψ`: the same, among the runs that reach ψ (`None` when none does).
    pub expected_steps_if_reached: Option<Steps>,
    /// Why the probability is not given.
    pub why_not: Option<String>,
    /// For `finally ψ`, with `ProbabilityOptions::curve`: the probability of reaching ψ
    /// within `k` steps, for `k = 0, 1, …`, up to where it is within 10^-4 of the probability
    /// (at most `CURVE_STEPS + 1` points).
    pub within: Vec<f64>,
    /// Sweeps of value iteration spent on the property.
    pub sweeps: u64,
    /// Whether every interval reached the precision asked (otherwise the run was stopped).
    pub converged: bool,
}

/// The most steps of the curve `PropertyProbability::within`.
pub const CURVE_STEPS: usize = 1000;

/// One sweep's news: the property, the quantity, the sweeps made, the current interval.
#[derive(Clone, Debug)]
pub struct SweepProgress {
    pub property: String,
    pub quantity: &'static str,
    pub sweeps: u64,
    pub interval: Interval,
    pub seconds: f64,
}

pub type SweepProgressFn = dyn Fn(&SweepProgress) + Sync + Send;

/// The solver's progress callback: sweeps, the interval, seconds.
pub(crate) type SweepFn = dyn Fn(u64, &Interval, f64) + Sync;

#[derive(Clone)]
pub struct ProbabilityOptions {
    /// The width the intervals are iterated down to: absolute for probabilities, relative to
    /// the value for expected steps.
    pub precision: f64,
    /// Compute `PropertyProbability::within` for `finally` properties (`--report`).
    pub curve: bool,
    pub progress: Option<Arc<SweepProgressFn>>,
}

impl Default for ProbabilityOptions {
    fn default() -> Self {
        ProbabilityOptions { precision: 1e-6, curve: false, progress: None }
    }
}

/// How the chain was read.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ChainStats {
    /// Whether the rows were stored (otherwise recomputed at every sweep, the stored chain
    /// not fitting the memory bound).
    pub stored: bool,
    /// Entries of the rows (distinct (state, successor) pairs, each with its count).
    pub entries: u64,
    /// Bytes of the stored rows.
    pub bytes: u64,
    /// Seconds to build the chain, and to compute every probability.
    pub build_seconds: f64,
    pub seconds: f64,
}

/// The probabilities of a verification (`VerifyReport::probabilities`).
#[derive(Clone, Debug, Default)]
pub struct ProbabilityReport {
    pub properties: Vec<PropertyProbability>,
    pub chain: ChainStats,
    /// With `--backend lnt`: the LNT program's chain and how its distribution compares with
    /// the native engine's.
    pub lnt: Option<LntChain>,
}

/// The chain of the emitted LNT program (`labs verify --backend lnt --probability`,
/// docs/probability.md, "The LNT program's chain").
#[derive(Clone, Debug, Default, Serialize)]
pub struct LntChain {
    /// Its LAbS states and initial states.
    pub states: u64,
    pub initial_states: u64,
    /// Whether it is the native engine's chain: the same probability of every step from every
    /// state, and the same initial distribution.
    pub same_distribution: bool,
    /// States from which the native engine draws the steps with other probabilities (two
    /// steps of one agent of the same kind reaching the same state, which the native engine
    /// counts twice and the LNT program's LTS shows once).
    pub differing_states: u64,
    /// Whether the native engine lists an initial state more often than another (an
    /// initialiser's list of choices repeating a value).
    pub initial_differs: bool,
    /// The most intermediate states of the program explored for one LAbS step.
    pub widest_step: u64,
}

/// The chain of an explored graph, before the properties are checked (the checks then read
/// its rows).
pub(crate) struct Prepared {
    pub(crate) stored: Option<Csr>,
    initial: Vec<(u32, f64)>,
    build_seconds: f64,
}

impl Prepared {
    /// The checks' view of the chain, when it is stored.
    pub(crate) fn space<'a>(&'a self, g: &'a Graph) -> Option<ChainSpace<'a>> {
        self.stored.as_ref().map(|chain| ChainSpace { chain, g })
    }
}

/// Builds the chain of the complete graph `g`: its rows stored when they fit the memory
/// bound, its initial distribution. `None` when the limits stop it.
pub(crate) fn prepare(rec: &Recomputed, limits: &Limits) -> Result<Option<Prepared>, EngineError> {
    let started = Instant::now();
    let (counts, total) = chain::initial_counts(rec.stepper, rec.g, rec.symmetry)
        .map_err(|e| EngineError::Runtime { message: e.0, trace: None })?;
    let initial = counts.into_iter().map(|(s, c)| (s, c as f64 / total as f64)).collect();
    let need = Csr::bytes_for(rec.g.states() as u64, rec.g.transitions);
    let stored = if limits.can_allocate(need + need / 4) {
        match chain::build(rec, limits) {
            Some(c) => Some(c),
            None => return Ok(None),
        }
    } else {
        None
    };
    Ok(Some(Prepared { stored, initial, build_seconds: started.elapsed().as_secs_f64() }))
}

/// The probability of every property of `props` on the chain `prep` of `g`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn compute(
    prep: &Prepared,
    stepper: &Stepper,
    g: &Graph,
    group: Option<&Group>,
    props: &[&Property],
    workers: &Workers,
    limits: &Limits,
    opts: &ProbabilityOptions,
) -> Result<ProbabilityReport, EngineError> {
    let started = Instant::now();
    let recomputed = RecomputedRows { rec: Recomputed { g, stepper, symmetry: group, workers } };
    let rows: &dyn Rows = match &prep.stored {
        Some(c) => c,
        None => &recomputed,
    };
    let mut atoms = |q: &QPred| match eval_all(stepper, g, q, workers, limits) {
        Ok(v) => Ok(Some(v)),
        Err(EvalStop::Error(s, m)) => Err(runtime(stepper, g, group, s, m, |st| {
            super::eval_pred(stepper, st, &mut super::eval::Scratch::default(), q).err().map(|e| e.0)
        })),
        Err(EvalStop::Stopped) => Ok(None),
    };
    let out = on_chain(rows, &prep.initial, props, &mut atoms, workers, limits, opts)?;
    let stats = ChainStats {
        stored: prep.stored.is_some(),
        entries: prep.stored.as_ref().map_or(g.transitions, |c| c.edges.len() as u64),
        bytes: prep.stored.as_ref().map_or(0, Csr::bytes),
        build_seconds: prep.build_seconds,
        seconds: started.elapsed().as_secs_f64(),
    };
    Ok(ProbabilityReport { properties: out, chain: stats, lnt: None })
}

/// A predicate's value on every state of a chain (`Ok(None)`: the run was stopped first).
pub(crate) type AtomsFn<'a> = dyn FnMut(&QPred) -> Result<Option<Vec<bool>>, EngineError> + 'a;

/// The probability of every property of `props` on the chain `rows` with the initial
/// distribution `initial` (the native engine's chain, or the LNT program's); `atoms` gives a
/// predicate's value on every state of the chain (`Ok(None)`: the run was stopped first).
pub(crate) fn on_chain(
    rows: &dyn Rows,
    initial: &[(u32, f64)],
    props: &[&Property],
    atoms: &mut AtomsFn,
    workers: &Workers,
    limits: &Limits,
    opts: &ProbabilityOptions,
) -> Result<Vec<PropertyProbability>, EngineError> {
    let mut out = Vec::new();
    for p in props {
        let mut r = PropertyProbability {
            property: p.name.clone(),
            reading: None,
            probability: None,
            expected_steps: None,
            expected_steps_if_reached: None,
            why_not: None,
            within: Vec::new(),
            sweeps: 0,
            converged: false,
        };
        if limits.stopped().is_some() {
            r.why_not = Some("the run was stopped before it".into());
            out.push(r);
            continue;
        }
        if initial.is_empty() {
            // No run to draw: a probability over no runs is not defined (the verdict holds
            // vacuously).
            r.why_not = Some("not defined: the system has no initial state, so no run to draw".into());
            r.converged = true;
            out.push(r);
            continue;
        }
        // Each predicate on every state.
        let mut values = Vec::new();
        for q in predicates(p) {
            match atoms(q)? {
                Some(v) => values.push(v),
                None => break,
            }
        }
        if values.len() < predicates(p).len() {
            r.why_not = Some("the run was stopped before it".into());
            out.push(r);
            continue;
        }
        let atoms = values;
        let progress = opts.progress.clone();
        let name = p.name.clone();
        let report = move |quantity: &'static str| -> Option<Box<SweepFn>> {
            let progress = progress.clone()?;
            let name = name.clone();
            Some(Box::new(move |sweeps, i: &Interval, seconds| {
                progress(&SweepProgress { property: name.clone(), quantity, sweeps, interval: *i, seconds })
            }))
        };
        let ctx = Ctx { rows, initial, workers, limits, precision: opts.precision, report: &report };
        match &p.modality {
            Modality::Finally => quantities::finally(&ctx, &atoms[0], opts.curve, &mut r),
            Modality::Always => {
                let not: Vec<bool> = atoms[0].iter().map(|b| !b).collect();
                quantities::always(&ctx, &not, &mut r);
            }
            Modality::Fairly => {
                r.reading = Some("finally");
                quantities::finally(&ctx, &atoms[0], opts.curve, &mut r);
            }
            Modality::FairlyInf => {
                r.reading = Some("always finally");
                quantities::bottom(&ctx, &atoms[0], false, &mut r);
            }
            Modality::Between { .. } | Modality::FromUntil { .. } | Modality::Ltl(_) => {
                let f = formula_over_predicates(p).expect("a linear-time or scoped property");
                linear_time(&ctx, &f, &atoms, opts.curve, &mut r);
            }
        }
        out.push(r);
    }
    Ok(out)
}

/// A linear-time formula (or a scoped pattern's): the shapes that need no automaton first
/// (`finally α`, `always α`, `finally always α`, `always finally α` over a state predicate
/// α), any other through the product with its deterministic automaton.
fn linear_time(
    ctx: &Ctx,
    f: &crate::syntax::ltl::Ltl<usize>,
    atoms: &[Vec<bool>],
    curve: bool,
    r: &mut PropertyProbability,
) {
    let form = Formula::of(f);
    if form.atoms > 64 {
        r.why_not = Some("the formula has more than 64 state predicates".into());
        return;
    }
    let n = ctx.rows.len();
    let letter = |s: usize| atoms.iter().enumerate().fold(0u64, |l, (k, v)| l | (v[s] as u64) << k);
    let holds = |i: u32| -> Vec<bool> { (0..n).map(|s| form.eval(i, letter(s))).collect() };
    let prop = |i: u32| form.propositional(i);
    let node = |i: u32| form.nodes[i as usize];
    match node(form.root) {
        _ if prop(form.root) => {
            let v = holds(form.root);
            let p: f64 = ctx.initial.iter().filter(|(s, _)| v[*s as usize]).map(|(_, w)| w).sum();
            r.probability = Some(Interval::exact(p.min(1.0)));
            r.converged = true;
        }
        Node::Until(t, a) if node(t) == Node::True && prop(a) => quantities::finally(ctx, &holds(a), curve, r),
        Node::Release(ff, a) if node(ff) == Node::False && prop(a) => {
            let not: Vec<bool> = holds(a).iter().map(|b| !b).collect();
            quantities::always(ctx, &not, r);
        }
        Node::Until(t, g)
            if node(t) == Node::True
                && matches!(node(g), Node::Release(ff, a) if node(ff) == Node::False && prop(a)) =>
        {
            let Node::Release(_, a) = node(g) else { unreachable!() };
            quantities::bottom(ctx, &holds(a), true, r);
        }
        Node::Release(ff, fa)
            if node(ff) == Node::False && matches!(node(fa), Node::Until(t, a) if node(t) == Node::True && prop(a)) =>
        {
            let Node::Until(_, a) = node(fa) else { unreachable!() };
            quantities::bottom(ctx, &holds(a), false, r);
        }
        _ => product::probability(ctx, &form, &(0..n).map(letter).collect::<Vec<u64>>(), r),
    }
}
