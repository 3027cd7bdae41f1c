//! The native explicit-state engine (docs/semantics.md), a back end after `behaviour` and
//! `analysis` (ARCHITECTURE.md lists every module and its invariants):
//!
//! - `state`: flat state encoding and the hash-indexed state arena;
//! - `eval`: expressions with ⊥, run-time errors and nondeterminism;
//! - `step`: the successor relation (agent steps, propagation, confirmation, round-robin);
//! - `fast`: agent steps, links and properties' predicates compiled to slot operations (the
//!   explorer's and `eval_all`'s common case);
//! - `explore`: parallel breadth-first exploration (same result for any thread count), on the
//!   threads of `par`;
//! - `check`: the property modalities on the explored graph; `on_the_fly`: the same, while
//!   exploring, to stop once every property is decided;
//! - `simulate`: seeded random runs;
//! - `symmetry`: symmetry reduction (docs/reductions.md);
//! - `path`: the traces every back end shares; `analysis_check` and `reached`: the values
//!   met, checked against the value analysis or collected.
//!
//! Library code never prints or exits: results and typed errors only.

mod accepting;
pub(crate) mod analysis_check;
pub(crate) mod bad_prefix;
pub(crate) mod check;
pub(crate) mod edges;
test_visible_mod!(estimate);
pub(crate) mod eval;
pub mod fairness;
test_visible_mod!(explore);
mod fair_report;
mod fair_search;
mod fast;
mod hugepages;
mod lasso_search;
pub(crate) mod ltl;
mod ltl_formula;
mod ltl_search;
mod node_set;
mod on_the_fly;
mod par;
pub(crate) mod path;
pub mod probability;
mod reached;
pub(crate) mod recompute;
pub(crate) mod rng;
pub(crate) mod scc;
test_visible_mod!(simulate);
mod spin;
test_visible_mod!(state);
test_visible_mod!(step);
test_visible_mod!(symmetry);
pub(crate) mod sysalloc;

use crate::behaviour::Behaviour;
use crate::engine::path::{Mark, Trace};
use crate::limits::Limits;
use crate::model::scoped::{Inner, scoped_ltl};
use crate::model::{Modality, Model, Pattern, Property, QPred};
use crate::syntax::ltl::Ltl;
use analysis_check::AnalysisCheck;
use check::{Bits, Outcome, Pat, Scope};
pub use edges::{EdgePolicy, EdgeUse};
use eval::Scratch;
use explore::Graph;
pub use explore::StopReason;
pub(crate) use explore::{ExploreOptions, Progress, ProgressFn};
pub use fairness::{Fairness, LoopAgents};
use on_the_fly::{Found, OnTheFly, Watch};
pub use par::Workers;
pub use reached::reachable_values;
use serde::Serialize;
pub use simulate::{RunCheck, SimStatus, SimulateOptions, SimulateReport, simulate};
pub(crate) use simulate::{SimRun, simulate_each, simulate_with};
use std::sync::Arc;
use step::{RuntimeError, Stepper, Work};

#[derive(Clone, Default)]
pub struct VerifyOptions {
    /// Round-robin scheduling (docs/semantics.md, D8).
    pub fair: bool,
    /// A fairness assumption on the runs of the linear-time properties (`--fairness`,
    /// docs/semantics.md, D15); not with `fair`.
    pub fairness: Option<Fairness>,
    /// Property names to check (`None`: all, in declaration order).
    pub properties: Option<Vec<String>>,
    /// Worker threads for exploration (0 or 1: single-threaded).
    pub threads: usize,
    pub max_states: Option<u64>,
    /// The run's deadline, interrupt and memory bound: polled while exploring, checking and
    /// building counterexamples; a property not decided when they stop the run is `unknown`.
    pub limits: Limits,
    pub progress: Option<Arc<ProgressFn>>,
    /// Threads started beforehand for this verification (`threads` is then theirs), e.g.
    /// while the model was loading; started here otherwise.
    pub workers: Option<Arc<Workers>>,
    /// Symmetry reduction wherever `symmetry::analyse` finds agents interchangeable (the
    /// CLI's default; `--no-reduction` turns it off).
    pub symmetry: bool,
    /// Check every stored state against the value analysis (`--check-analysis`): a value
    /// outside its analysed set is `EngineError::AnalysisMissed`.
    pub check_analysis: bool,
    /// Explore every reachable state even when the verdicts are known before (`--exhaustive`):
    /// full counts (D13) and shortest counterexamples. Otherwise the exploration stops as soon
    /// as every property is decided (`Stats::decided_early`), where no run-time error can be
    /// met beyond (D9).
    pub exhaustive: bool,
    /// Whether the exploration keeps the successor lists for the checks (`--edges`).
    pub edges: EdgePolicy,
    /// The form the state store keeps states in (`--store`).
    pub store: state::StorePolicy,
    /// Also the probability of each property under the chain `simulate` samples
    /// (`--probability`, docs/probability.md): every state is explored, and the symmetry
    /// reduction keeps only the symmetries that preserve that chain.
    pub probability: Option<probability::ProbabilityOptions>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Holds,
    Violated,
    Unknown,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::Violated => "violated",
            Verdict::Unknown => "unknown",
        }
    }
}

#[derive(Clone, Debug)]
pub struct PropertyResult {
    pub property: String,
    /// The modality keyword as written (`always`, `finally`, `eventually`, `fairly`,
    /// `fairly_inf`, `between`, `from`).
    pub(crate) modality: String,
    pub verdict: Verdict,
    /// Counterexample for `violated`.
    pub trace: Option<Trace>,
    /// Why this property alone is `unknown` (its automaton refused: docs/semantics.md, D14);
    /// `None` for the other verdicts and when the run's stop (`VerifyReport::stopped`) is why.
    pub reason: Option<String>,
    /// Under `--fairness`, the agents acting and enabled in the counterexample's loop.
    pub fair_loop: Option<LoopAgents>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Stats {
    /// Distinct reachable states (stored; all of them when `complete`).
    pub states: u64,
    /// Distinct (source, target) pairs among expanded states.
    pub transitions: u64,
    /// Expanded states without successors.
    pub deadlocks: u64,
    pub(crate) initial_states: u64,
    pub seconds: f64,
    /// Peak resident memory of the process (VmHWM), in MiB (0 where unavailable).
    pub peak_rss_mib: u64,
    /// Bytes held by the state graph at the end.
    pub graph_bytes: u64,
    /// Bytes held by the visited set (packed arena + hash index) at the end.
    pub(crate) store_bytes: u64,
    /// Slots per state.
    pub(crate) state_slots: u64,
    /// Bytes per state in the state arena (1, 2 or 4 per slot, chosen from the values met).
    pub(crate) state_bytes: u64,
    pub complete: bool,
    /// The exploration stopped as soon as every property was decided (each selected property
    /// violated, none of them `fairly` or `fairly_inf`): the counts are of the explored part
    /// (`VerifyOptions::exhaustive`); the value analysis showed that no run-time error can be
    /// met beyond it (`analysis::fallible`, docs/semantics.md, D9).
    pub decided_early: bool,
    /// The distinct states the depth-first searches for violations visited (concrete states,
    /// not stored), where they decided a property early.
    #[serde(skip)]
    pub(crate) searched_states: u64,
    /// Every property was violated within the states explored first, but the exploration went
    /// on to the end, since a run-time error may lie beyond them (docs/semantics.md, D9).
    pub went_on: Option<WentOn>,
    /// The reduction the counts are of (`symmetry (Bird: 3 interchangeable agents)`);
    /// `None`: the counts are those of docs/semantics.md, D13.
    pub reduction: Option<String>,
    /// Whether the checks read kept successor lists or recomputed successors, and why.
    pub edges: EdgeUse,
    /// Whether the store kept the states compact at the end (`--store`).
    pub compact_store: bool,
    /// The states stored when the store turned compact during the exploration.
    pub compacted_at: Option<u64>,
}

/// Why an exploration that could have stopped at the violations went on (`Stats::went_on`).
#[derive(Clone, Debug, Serialize)]
pub struct WentOn {
    /// The states stored when every property had a violation.
    pub violated_at: u64,
    /// The first place where the value analysis cannot exclude a run-time error
    /// (`analysis::fallible`).
    pub reason: String,
}

#[derive(Clone, Debug)]
pub struct VerifyReport {
    pub results: Vec<PropertyResult>,
    pub stats: Stats,
    /// Why the exploration stopped early (`None`: the whole state space was explored).
    /// Verdicts that the explored part cannot decide are then `unknown`.
    pub stopped: Option<StopReason>,
    /// With `VerifyOptions::probability`: each property's probability (`None` when the
    /// exploration did not finish).
    pub probabilities: Option<probability::ProbabilityReport>,
}

#[derive(Clone, Debug, thiserror::Error)]
pub enum EngineError {
    /// A run-time error of the model (division by zero, overflow, index or agent id out of
    /// range); `trace` reaches the state where it happens (`None`: during initialisation).
    #[error("run-time error: {message}")]
    Runtime { message: String, trace: Option<Box<Trace>> },
    /// `--property NAME` names no property of the model.
    #[error("no property named `{0}`")]
    UnknownProperty(String),
    /// The behaviours do not match the model (one per agent type is needed).
    #[error("internal error: {0}")]
    Internal(String),
    /// Run `run` (from 1) of a simulation failed `SimulateOptions::check`.
    #[error("internal error: the trace of run {run} failed its check: {reason}")]
    RunRefused { run: usize, reason: simulate::RunRefusal },
    /// `VerifyOptions::check_analysis` met a value outside the value analysis' sets (a bug of
    /// labs); `trace` reaches the state (`None` if it could not be built).
    #[error("internal error: {message}")]
    AnalysisMissed { message: String, trace: Option<Box<Trace>> },
    /// A simulation drew `draws` candidate initial states (or owners' values) and the
    /// assumptions admitted none.
    #[error(
        "no initial state found in {draws} draws: the assumptions admit none, or too few of the candidates to draw one"
    )]
    NoInitialDrawn { draws: u64 },
}

/// Peak resident set size of this process in MiB (Linux; 0 elsewhere).
pub(crate) fn peak_rss_mib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map(|kib| kib.div_ceil(1024))
        .unwrap_or(0)
}

/// The properties selected by `names` (all when `None`), in declaration order.
/// Where in the spec the agent step of `state` that meets the run-time error `error` is (the
/// action of the step), for a message that points at the source.
pub(crate) fn runtime_error_site(
    model: &Model,
    behs: &[Behaviour],
    fair: bool,
    state: &[i32],
    error: &str,
) -> Option<crate::diagnostics::span::Span> {
    Stepper::new(model, behs, fair).runtime_error_site(state, error)
}

pub(crate) fn select_properties<'m>(
    model: &'m Model,
    names: Option<&[String]>,
) -> Result<Vec<&'m Property>, EngineError> {
    match names {
        None => Ok(model.properties.iter().collect()),
        Some(ns) => {
            for n in ns {
                if !model.properties.iter().any(|p| &p.name == n) {
                    return Err(EngineError::UnknownProperty(n.clone()));
                }
            }
            Ok(model.properties.iter().filter(|p| ns.contains(&p.name)).collect())
        }
    }
}

pub(crate) fn check_behaviours(model: &Model, behs: &[Behaviour]) -> Result<(), EngineError> {
    if behs.len() != model.agent_types.len() {
        return Err(EngineError::Internal(format!(
            "{} behaviours for {} agent types",
            behs.len(),
            model.agent_types.len()
        )));
    }
    Ok(())
}

/// Builds the trace following `path` (state ids), recomputing each step's event.
pub(crate) fn build_trace(stepper: &Stepper, g: &Graph, path: &[u32]) -> Trace {
    let states: Vec<Vec<i32>> = path.iter().map(|&i| g.store.get(i)).collect();
    trace_of_states(stepper, &states)
}

/// The trace of a counterexample `path` (with its `loop_start`) of a graph explored under
/// `group`: the representatives' path lifted to a concrete run (`symmetry::lift`).
fn concrete_trace(
    stepper: &Stepper,
    g: &Graph,
    group: Option<&symmetry::Group>,
    path: &[u32],
    loop_start: Option<usize>,
) -> Result<Trace, EngineError> {
    let Some(group) = group else {
        let mut t = build_trace(stepper, g, path);
        t.loop_start = loop_start;
        return Ok(t);
    };
    let (states, loop_start) = symmetry::lift::lift(stepper, &g.store, group, path, loop_start)
        .map_err(|e| EngineError::Internal(format!("cannot lift a counterexample: {e}")))?;
    let mut t = trace_of_states(stepper, &states);
    t.loop_start = loop_start;
    Ok(t)
}

pub(crate) fn trace_of_states(stepper: &Stepper, states: &[Vec<i32>]) -> Trace {
    fairness::trace_with_actors(stepper, states, &[])
}

/// Evaluates a quantified predicate on a state (Pred mode: ⊥ index reads ⊥).
pub(crate) fn eval_pred(stepper: &Stepper, st: &[i32], sc: &mut Scratch, q: &QPred) -> Result<bool, RuntimeError> {
    stepper.eval_pred(st, sc, q)
}

/// States per job of `eval_all`.
const EVAL_CHUNK: usize = 1 << 14;

/// Why `eval_all` gave no values.
enum EvalStop {
    /// A run-time error at this state (the lowest id).
    Error(u32, String),
    /// The run's limits stopped it.
    Stopped,
}

/// Whether `q` has a compiled form, which `eval_all` then uses on every state (tests check
/// that every property of the benchmarks and examples has one).
#[cfg(feature = "test-support")]
pub fn predicate_compiles(stepper: &Stepper, q: &QPred) -> bool {
    fast::FastPred::compile(stepper.model, &stepper.lay, q).is_some()
}

/// ψ on every stored state, on `workers`; on an error the first failing state (lowest id).
/// The compiled predicate decides wherever it can; a state where it meets a run-time error
/// (or a predicate without a compiled form) is evaluated, which reports the error.
fn eval_all(
    stepper: &Stepper,
    g: &Graph,
    q: &QPred,
    workers: &Workers,
    limits: &Limits,
) -> Result<Vec<bool>, EvalStop> {
    let fast = fast::FastPred::compile(stepper.model, &stepper.lay, q);
    eval_range(stepper, &g.store, q, fast.as_ref(), 0..g.states() as u32, workers, limits)
}

/// `eval_all` on the stored states `ids`, with `q`'s compiled form `fast` if it has one.
fn eval_range(
    stepper: &Stepper,
    store: &state::StateStore,
    q: &QPred,
    fast: Option<&fast::FastPred>,
    ids: std::ops::Range<u32>,
    workers: &Workers,
    limits: &Limits,
) -> Result<Vec<bool>, EvalStop> {
    let (lo, n) = (ids.start as usize, ids.end as usize);
    // Each chunk stops at its first error, so the first error in chunk order has the
    // lowest id.
    let chunks: Vec<Result<Vec<bool>, EvalStop>> = workers.in_chunks((n - lo).div_ceil(EVAL_CHUNK), |c| {
        if limits.stopped().is_some() {
            return Err(EvalStop::Stopped);
        }
        let mut sc = Scratch::default();
        let mut st = Vec::new();
        (lo + c * EVAL_CHUNK..(lo + (c + 1) * EVAL_CHUNK).min(n))
            .map(|i| {
                store.get_into(i as u32, &mut st);
                if let Some(Ok(b)) = fast.map(|f| f.eval(&st)) {
                    return Ok(b);
                }
                eval_pred(stepper, &st, &mut sc, q).map_err(|e| EvalStop::Error(i as u32, e.0))
            })
            .collect()
    });
    if chunks.iter().any(|c| matches!(c, Err(EvalStop::Stopped))) {
        return Err(EvalStop::Stopped);
    }
    let mut out = Vec::with_capacity(n);
    for c in chunks {
        out.extend(c?);
    }
    Ok(out)
}

/// The run-time error met at `state`, with the trace that reaches it. Under symmetry
/// reduction the trace reaches a permutation of the stored state, where `recompute` gives
/// the error again, so that its message names the agents of the trace.
fn runtime(
    stepper: &Stepper,
    g: &Graph,
    group: Option<&symmetry::Group>,
    state: u32,
    message: String,
    recompute: impl FnOnce(&[i32]) -> Option<String>,
) -> EngineError {
    match concrete_trace(stepper, g, group, &g.path_to(state), None) {
        Ok(t) => {
            let message = if group.is_some() { recompute(t.last()).unwrap_or(message) } else { message };
            EngineError::Runtime { message, trace: Some(Box::new(t)) }
        }
        Err(e) => e,
    }
}

/// Every stored state passes `check`; the first that does not is reported with the trace to it.
fn check_stored_states(
    stepper: &Stepper,
    g: &Graph,
    group: Option<&symmetry::Group>,
    check: &AnalysisCheck,
) -> Result<(), EngineError> {
    let mut st = Vec::new();
    for i in 0..g.states() as u32 {
        g.store.get_into(i, &mut st);
        if let Err(miss) = check.check(stepper.model, &st) {
            // Under the reduction a stored state stands for its orbit and need not be reachable
            // itself (a symmetry of values may map one type's initial values onto another's):
            // what must lie in the analysed sets is the reachable state the trace ends in.
            let trace = concrete_trace(stepper, g, group, &g.path_to(i), None).ok();
            let message = match &trace {
                Some(t) if group.is_some() => match check.check(stepper.model, t.last()) {
                    Ok(()) => continue,
                    Err(m) => m,
                },
                _ => miss,
            };
            return Err(EngineError::AnalysisMissed { message: message.0, trace: trace.map(Box::new) });
        }
    }
    Ok(())
}

/// Decides one property on an explored graph; `psi` evaluates a predicate on every state
/// (shared by the native and the LNT back ends). `Unknown` when `limits` stop the run
/// before the decision, or when a linear-time formula's automaton is refused.
pub(crate) fn check_property<E>(
    g: &dyn check::Space,
    p: &Property,
    psi: &mut dyn FnMut(&QPred) -> Result<Vec<bool>, E>,
    limits: &Limits,
) -> Result<Outcome, E> {
    check_translated(g, p, psi, limits, None)
}

/// A linear-time formula's automata, built once per property (`Translation::of`).
pub(crate) struct Translation {
    /// The automaton of the negation of `formula_over_predicates`, or why there is none.
    pub(crate) negation: Result<ltl::Automaton, ltl::Refused>,
    /// The formula's own, for its bad prefixes (`None`: it has none, or it was refused).
    pub(crate) prefixes: Option<bad_prefix::Prefixes>,
}

impl Translation {
    /// The automata of a linear-time property, or a scoped pattern's formula (whose bad
    /// prefixes its monitor finds: `prefixes` is `None`), built within the run's bounds.
    /// `None` for the other modalities.
    pub(crate) fn of(p: &Property, limits: &Limits) -> Option<Translation> {
        Translation::watched(p, limits, None)
    }

    /// [`Translation::of`], its progress shown by `progress` (as the phase `translating P`).
    fn watched(p: &Property, limits: &Limits, progress: Option<&ProgressFn>) -> Option<Translation> {
        let f = formula_over_predicates(p)?;
        let stopped = || limits.stopped().is_some();
        let started = std::time::Instant::now();
        let shown = |states: usize, transitions: usize| {
            if let Some(show) = progress {
                show(&Progress {
                    initial: false,
                    states: states as u64,
                    transitions: transitions as u64,
                    queue: 0,
                    seconds: started.elapsed().as_secs_f64(),
                    memory_bytes: 0,
                    phase: Some(format!("translating {}", p.name)),
                });
            }
        };
        let watch = ltl::Watch { stopped: &stopped, progress: &shown };
        let negation = ltl::Automaton::within(&f, true, watch);
        let prefixes = match (&p.modality, &negation) {
            (Modality::Ltl(_), Ok(_)) => bad_prefix::Prefixes::new(&f, watch),
            _ => None,
        };
        Some(Translation { negation, prefixes })
    }

    /// Why the property is `unknown` when its automaton is refused (not for a stop of the run).
    pub(crate) fn refusal(&self) -> Option<String> {
        match &self.negation {
            Err(r) if *r != ltl::Refused::Stopped => Some(format!("not checked: {r}")),
            _ => None,
        }
    }
}

/// [`check_property`] with the property's automata already built (`None`: built here).
fn check_translated<E>(
    g: &dyn check::Space,
    p: &Property,
    psi: &mut dyn FnMut(&QPred) -> Result<Vec<bool>, E>,
    limits: &Limits,
    translated: Option<&Translation>,
) -> Result<Outcome, E> {
    if limits.stopped().is_some() {
        return Ok(Outcome::Unknown);
    }
    let mut psi = |q: &QPred| psi(q).map(|v| (limits.stopped().is_none()).then_some(v));
    macro_rules! psi {
        ($q:expr) => {
            match psi($q)? {
                Some(v) => v,
                None => return Ok(Outcome::Unknown),
            }
        };
    }
    Ok(match &p.modality {
        Modality::Always => check::always(g, &psi!(&p.pred)),
        Modality::Finally => check::finally(g, &psi!(&p.pred)),
        Modality::Fairly => check::fairly(g, &psi!(&p.pred)),
        Modality::FairlyInf => check::fairly_inf(g, &psi!(&p.pred)),
        Modality::Between { open, close, pattern } | Modality::FromUntil { open, close, pattern } => {
            let scope = if matches!(p.modality, Modality::Between { .. }) { Scope::Between } else { Scope::FromUntil };
            let (pat, s) = match pattern {
                Pattern::ThereIs => (Pat::ThereIs, None),
                Pattern::Always => (Pat::Always, None),
                Pattern::Precedes(s) => (Pat::Precedes, Some(psi!(s))),
            };
            let (q, r, pp) = (psi!(open), psi!(close), psi!(&p.pred));
            let bits: Vec<Bits> = (0..g.states())
                .map(|i| Bits { q: q[i], r: r[i], p: pp[i], s: s.as_ref().is_some_and(|s| s[i]) })
                .collect();
            check::scoped(g, scope, pat, &bits)
        }
        Modality::Ltl(f) => {
            let built;
            let t = match translated {
                Some(t) => t,
                None => {
                    built = Translation::of(p, limits).expect("a linear-time property");
                    &built
                }
            };
            let Ok(aut) = &t.negation else { return Ok(Outcome::Unknown) };
            let mut bits = Vec::new();
            for q in f.atoms() {
                bits.push(psi!(q));
            }
            let bits: Vec<&[bool]> = bits.iter().map(Vec::as_slice).collect();
            let stopped = || limits.stopped().is_some();
            match ltl::check(g, aut, &bits, &stopped) {
                // A violation with a bad prefix is shown as the shortest one (within the
                // memory of the product the check has just used).
                Outcome::Violated(c) => match &t.prefixes {
                    Some(pre) => match bad_prefix::shortest(g, pre, &bits, aut.states().max(2), &stopped) {
                        Some(path) => Outcome::Violated(finite_cex(g, path)),
                        None => Outcome::Violated(c),
                    },
                    None => Outcome::Violated(c),
                },
                o => o,
            }
        }
    })
}

/// A bad prefix found on the graph as a counterexample: a state that repeats at its end is a
/// deadlock's (the run stays there), which the path shows once.
fn finite_cex(g: &dyn check::Space, mut path: Vec<u32>) -> check::Cex {
    let mut succ = Vec::new();
    let mut deadlock = false;
    while let [.., a, b] = path[..]
        && a == b
    {
        succ.clear();
        g.succs(a, &mut succ);
        if !succ.is_empty() {
            break;
        }
        path.pop();
        deadlock = true;
    }
    check::Cex { path, loop_start: None, deadlock }
}

/// What the watch leaves for the checks, per property: its predicates on every state, a
/// violation found, whether a `finally` property needs no search.
type Watched = (Vec<Option<Vec<Vec<bool>>>>, Vec<Option<Found>>, Vec<bool>);

/// A property's predicates with their values on every state.
type Values<'q> = Vec<(&'q QPred, Vec<bool>)>;

/// The predicates `check_property` evaluates for `p`.
fn predicates(p: &Property) -> Vec<&QPred> {
    match &p.modality {
        Modality::Between { open, close, pattern } | Modality::FromUntil { open, close, pattern } => {
            let mut v = Vec::new();
            if let Pattern::Precedes(s) = pattern {
                v.push(s);
            }
            v.extend([open, close, &p.pred]);
            v
        }
        Modality::Ltl(f) => f.atoms(),
        _ => vec![&p.pred],
    }
}

/// A linear-time formula or a scoped pattern as a formula whose atom `i` is predicate `i` of
/// `predicates(p)` (a scoped pattern's as `model::scoped` writes it); `None` for the other
/// modalities.
fn formula_over_predicates(p: &Property) -> Option<Ltl<usize>> {
    match &p.modality {
        Modality::Ltl(f) => {
            // Equal predicates get the index of the first (the automaton then reads one
            // literal for both).
            let atoms = f.atoms();
            let mut next = 0;
            f.try_map(&mut |_| {
                next += 1;
                atoms.iter().position(|a| *a == atoms[next - 1])
            })
        }
        Modality::Between { pattern, .. } | Modality::FromUntil { pattern, .. } => {
            // `predicates`: [S,] Q, R, P.
            let (inner, q) = match pattern {
                Pattern::ThereIs => (Inner::ThereIs, 0),
                Pattern::Always => (Inner::Always, 0),
                Pattern::Precedes(_) => (Inner::Precedes(0), 1),
            };
            let closed_only = matches!(p.modality, Modality::Between { .. });
            Some(scoped_ltl(closed_only, &inner, &q, &(q + 1), &(q + 2)))
        }
        _ => None,
    }
}

/// A linear-time property's counterexample ended at its first bad prefix (`bad_prefix::cut`),
/// its atoms (the predicates `predicates` lists) evaluated on the trace's states.
fn cut_at_bad_prefix(
    stepper: &Stepper,
    p: &Property,
    translation: Option<&Translation>,
    t: &mut Trace,
) -> Result<(), RuntimeError> {
    let Some(pre) = translation.and_then(|t| t.prefixes.as_ref()) else { return Ok(()) };
    let preds = predicates(p);
    let mut sc = Scratch::default();
    bad_prefix::cut(pre, t, &mut |k, st| stepper.eval_pred(st, &mut sc, preds[k]))?;
    Ok(())
}

/// Explores the state space and checks the selected properties.
pub fn verify(model: &Model, behs: &[Behaviour], opts: &VerifyOptions) -> Result<VerifyReport, EngineError> {
    check_behaviours(model, behs)?;
    let props = select_properties(model, opts.properties.as_deref())?;
    let stepper = Stepper::new(model, behs, opts.fair);
    let workers = opts.workers.clone().unwrap_or_else(|| Arc::new(Workers::new(opts.threads)));
    let va = crate::analysis::values::analyse(model, behs);
    let fallibility = crate::analysis::fallible::analyse(model, behs, &va);
    let counted = opts.probability.is_some();
    if opts.fair && opts.fairness.is_some() {
        return Err(EngineError::Internal("a fairness assumption with round-robin scheduling (D15)".into()));
    }
    // Weak and strong fairness follow agents by id through the reduction's permutations
    // (docs/semantics.md, D15).
    let sym = opts.symmetry.then(|| symmetry::analyse_with(model, behs, opts.fair, &va, &fallibility, counted));
    // D9: a run-time error reachable in the system is reported whatever the properties, so
    // the exploration may stop at the violations only where none can lie beyond them.
    let fallible = fallibility.first(model, &props).cloned();
    let group = sym.as_ref().and_then(|s| s.group.clone()).map(Arc::new);
    // Only `always` is decided without successors (its counterexamples follow BFS parents).
    let needs_succs = props.iter().any(|p| !matches!(p.modality, Modality::Always));
    // With probabilities, the chain's rows serve the checks too: no list is kept meanwhile.
    let edge_policy = if counted { EdgePolicy::Recompute } else { opts.edges };
    let edge_plan = edges::plan(edge_policy, needs_succs, &opts.limits);
    let eopts = ExploreOptions {
        threads: workers.threads(),
        workers: Some(workers.clone()),
        max_states: opts.max_states,
        limits: opts.limits.clone(),
        progress: opts.progress.clone(),
        keep_edges: edge_plan.keep,
        edge_budget: edge_plan.budget,
        symmetry: group.clone(),
        store: opts.store,
    };
    let group = group.as_deref();
    // The automata of the linear-time formulas and scoped patterns, built once, before the
    // exploration, within the run's bounds; a property whose automaton is refused is `unknown`
    // and the others are checked.
    let translations: Vec<Option<Translation>> =
        props.iter().map(|p| Translation::watched(p, &opts.limits, opts.progress.as_deref())).collect();
    let negations: Vec<Option<ltl::Automaton>> =
        translations.iter().map(|t| t.as_ref().and_then(|t| t.negation.as_ref().ok().cloned())).collect();
    // The probabilities need the whole chain: no early stop.
    let watch = match (opts.exhaustive || counted, &fallible) {
        (true, _) => Watch::Evaluate,
        (false, Some(_)) => Watch::Search,
        (false, None) => Watch::Stop,
    };
    // Under a fairness assumption the properties on runs are searched for fair violations
    // only (`fair_search`, before the exploration).
    let fair_search = opts.fairness.map(|f| (f, opts.max_states.map_or(usize::MAX, |m| m as usize)));
    let mut otf = OnTheFly::applies(&props).then(|| {
        OnTheFly::new(
            &stepper,
            group,
            &props,
            &negations,
            &workers,
            &opts.limits,
            watch,
            on_the_fly::SEARCH_BUDGET,
            fair_search,
        )
    });
    let g = match &mut otf {
        Some(w) => explore::explore_watched(&stepper, &eopts, &mut |g, ids| w.decided(g, ids)),
        None => explore::explore_initial(&stepper, &eopts),
    }
    .map_err(|e| EngineError::Runtime { message: e.0, trace: None })?;
    // What the watch computed: ψ serves the check when it covers every stored state; a
    // violation found decides its property where the graph is not whole.
    // A `finally` property whose bit the exploration left clear holds (`Graph::lassos`).
    // A run-time error in a predicate ended the watch (and the exploration, but with
    // `--exhaustive`): the predicates' evaluation below meets it again, so an incomplete graph
    // does not make a verdict unknown, and no violation found before may stand for the
    // property whose predicate failed (D9).
    let watch_failed = otf.as_ref().is_some_and(|w| w.failed);
    let went_on = match (otf.as_ref().and_then(|w| w.violated_at), fallible) {
        (Some(at), Some(site)) if g.complete() => Some(WentOn { violated_at: at, reason: site.to_string() }),
        _ => None,
    };
    let (mut known, mut found, lasso_free): Watched = match otf {
        Some(w) => {
            let whole = !w.failed && w.psi.iter().all(|v| v.len() == g.states());
            let marked = whole && g.free.len() == g.states() && g.complete();
            let free = w.bits.iter().map(|b| marked && b.is_some_and(|b| g.lassos & b == 0)).collect();
            (w.psi.into_iter().map(|v| whole.then_some(v)).collect(), w.found, free)
        }
        None => (vec![None; props.len()], props.iter().map(|_| None).collect(), vec![false; props.len()]),
    };
    if opts.check_analysis {
        let check = AnalysisCheck::new(model, &stepper.lay, &va);
        check_stored_states(&stepper, &g, group, &check)?;
    }
    if let Some((s, m)) = g.error.clone() {
        return Err(runtime(&stepper, &g, group, s, m, |st| {
            stepper.successors(st, &mut Work::default(), false, &mut |_, _| {}).err().map(|e| e.0)
        }));
    }
    // First what decides each property without a search, and the predicates of the others on
    // every state (each on all the workers), property by property.
    let mut decided: Vec<Option<Result<Outcome, lasso_search::Lasso>>> = Vec::new();
    // A fair violation found by `fair_search`, per property.
    let mut fair_found: Vec<Option<fair_search::FairLasso>> = Vec::new();
    let mut searched_states = 0;
    let mut values: Vec<std::sync::Mutex<Values>> = Vec::new();
    for ((((p, known), found), lasso_free), translation) in
        props.iter().zip(&mut known).zip(&mut found).zip(lasso_free).zip(&translations)
    {
        let refused = translation.as_ref().is_some_and(|t| t.refusal().is_some());
        // Where the whole graph is known, its check gives the shortest counterexample.
        let mut fair_lasso = None;
        let direct = match found.take() {
            _ if refused && matches!(p.modality, Modality::Ltl(_)) => Some(Ok(Outcome::Unknown)),
            // The fair search decides whether or not the graph is whole: its lasso is shown.
            Some(Found::Fair(f, visited)) if !watch_failed => {
                searched_states += visited as u64;
                match f {
                    fair_search::FairFound::Holds => Some(Ok(Outcome::Holds)),
                    fair_search::FairFound::Violated(l) => {
                        fair_lasso = Some(l);
                        Some(Ok(Outcome::Unknown))
                    }
                }
            }
            Some(Found::Graph(c)) if !g.complete() && !watch_failed => Some(Ok(Outcome::Violated(c))),
            Some(Found::Concrete(l)) if !g.complete() && !watch_failed => {
                searched_states += l.visited as u64;
                Some(Err(l))
            }
            _ if lasso_free => Some(Ok(Outcome::Holds)),
            _ if !g.complete() && !watch_failed && !matches!(p.modality, Modality::Always) => {
                Some(Ok(Outcome::Unknown))
            }
            _ => None,
        };
        let mut vs = Vec::new();
        if direct.is_none() {
            let mut known = known.take().map(Vec::into_iter);
            for q in predicates(p) {
                let v = known.as_mut().and_then(Iterator::next);
                match v.map_or_else(|| eval_all(&stepper, &g, q, &workers, &opts.limits), Ok) {
                    Ok(v) => vs.push((q, v)),
                    Err(EvalStop::Error(s, m)) => {
                        return Err(runtime(&stepper, &g, group, s, m, |st| {
                            eval_pred(&stepper, st, &mut Scratch::default(), q).err().map(|e| e.0)
                        }));
                    }
                    Err(EvalStop::Stopped) => break,
                }
            }
        }
        decided.push(direct);
        fair_found.push(fair_lasso);
        values.push(std::sync::Mutex::new(vs));
    }
    // Then the searches, one property per worker (each may share its successors out to the
    // others while they are idle): they are independent, and most are one long pass.
    let recomputed = recompute::Recomputed { g: &g, stepper: &stepper, symmetry: group, workers: &workers };
    let chain = match &opts.probability {
        Some(_) if g.complete() && g.error.is_none() => probability::prepare(&recomputed, &opts.limits)?,
        _ => None,
    };
    let chain_space = chain.as_ref().and_then(|c| c.space(&g));
    let space: &dyn check::Space = match &chain_space {
        Some(c) => c,
        None if g.has_edges => &g,
        None => &recomputed,
    };
    let labelled = match opts.fairness {
        Some(f)
            if f.tracks_agents()
                && g.complete()
                && props.iter().zip(&decided).any(|(p, d)| fair_applies(p) && d.is_none()) =>
        {
            fairness::Labelled::of(&stepper, &g, group, &workers, &opts.limits)
        }
        _ => None,
    };
    let searched: Vec<Searched> = workers.in_chunks(props.len(), |k| {
        if decided[k].is_some() {
            return Searched::Plain(Outcome::Unknown);
        }
        let mut mine = std::mem::take(&mut *values[k].lock().unwrap_or_else(|e| e.into_inner()));
        // A predicate missing: the run stopped while evaluating it.
        let mut psi = |q: &QPred| match mine.iter().position(|(x, _)| std::ptr::eq(*x, q)) {
            Some(i) => Ok(mine.swap_remove(i).1),
            None => Err(()),
        };
        if let Some(notion) = opts.fairness.filter(|_| fair_applies(props[k])) {
            let agents = model.n_agents();
            let fair = match (&labelled, notion.tracks_agents()) {
                _ if notion.tracks_agents() && agents > fairness::MAX_AGENTS => {
                    fairness::FairOutcome::Unknown(Some(format!(
                        "not checked: {} fairness follows at most {} agents, the system has {agents}",
                        notion.as_str(),
                        fairness::MAX_AGENTS
                    )))
                }
                (Some(l), true) => check_fair(
                    notion,
                    space,
                    &|s, out| l.succs(s, out),
                    &|s| l.enabled(s),
                    &l.moves(group.is_some()),
                    props[k],
                    &mut psi,
                    &opts.limits,
                ),
                (None, true) => fairness::FairOutcome::Unknown(None),
                (_, false) => check_fair(
                    notion,
                    space,
                    &|s, out| {
                        let mut v = Vec::new();
                        space.succs(s, &mut v);
                        out.extend(v.into_iter().map(|t| (t, 0, 0)));
                    },
                    &|_| 0,
                    &[],
                    props[k],
                    &mut psi,
                    &opts.limits,
                ),
            };
            return Searched::Fair(notion, fair);
        }
        Searched::Plain(
            check_translated(space, props[k], &mut psi, &opts.limits, translations[k].as_ref())
                .unwrap_or(Outcome::Unknown),
        )
    });
    let probabilities = match (&chain, &opts.probability) {
        (Some(c), Some(po)) => Some(probability::compute(c, &stepper, &g, group, &props, &workers, &opts.limits, po)?),
        _ => None,
    };
    let mut results = Vec::new();
    for ((((p, direct), searched), translation), fair_lasso) in
        props.into_iter().zip(decided).zip(searched).zip(&translations).zip(fair_found)
    {
        if let (Some(l), Some(notion)) = (fair_lasso, opts.fairness) {
            results.push(fair_report::result(p, fair_report::of_lasso(&stepper, p, notion, &l)?));
            continue;
        }
        // Found on the fly (a scoped pattern's run is then cut where its monitor fails).
        let early = matches!(direct, Some(Ok(Outcome::Violated(_)) | Err(_)));
        let searched = match searched {
            Searched::Plain(o) => o,
            Searched::Fair(notion, fair) if direct.is_none() => {
                let elements = labelled.as_ref().map(|l| &l.elements[..]);
                let fair = fair_report::of_graph(&stepper, &g, group, elements, p, notion, fair)?;
                results.push(fair_report::result(p, fair));
                continue;
            }
            Searched::Fair(..) => Outcome::Unknown,
        };
        let outcome = direct.unwrap_or(Ok(searched));
        let runtime_on =
            |t: &Trace, e: RuntimeError| EngineError::Runtime { message: e.0, trace: Some(Box::new(t.clone())) };
        let violated = |mut t: Trace| {
            t.marks.push(Mark { at: t.steps.len(), property: p.name.clone(), status: "violated".into() });
            (Verdict::Violated, Some(t))
        };
        let (verdict, trace) = match outcome {
            Ok(Outcome::Holds) => (Verdict::Holds, None),
            Ok(Outcome::Unknown) => (Verdict::Unknown, None),
            Ok(Outcome::Violated(c)) => {
                let mut t = concrete_trace(&stepper, &g, group, &c.path, c.loop_start)?;
                // Whatever the modality, a path whose last state has no successor ends in a
                // deadlock (an `always` violation can be one too).
                t.ends_in_deadlock = c.deadlock
                    || (c.loop_start.is_none()
                        && stepper.is_deadlock(t.last(), &mut Work::default()).map_err(|e| runtime_on(&t, e))?);
                if early {
                    on_the_fly::cut_at_monitor(&stepper, p, &mut t).map_err(|e| runtime_on(&t, e))?;
                }
                cut_at_bad_prefix(&stepper, p, translation.as_ref(), &mut t).map_err(|e| runtime_on(&t, e))?;
                violated(t)
            }
            Err(l) => {
                let mut t = trace_of_states(&stepper, &l.states);
                t.ends_in_deadlock = l.loop_start.is_none();
                t.loop_start = l.loop_start;
                on_the_fly::cut_at_monitor(&stepper, p, &mut t).map_err(|e| runtime_on(&t, e))?;
                cut_at_bad_prefix(&stepper, p, translation.as_ref(), &mut t).map_err(|e| runtime_on(&t, e))?;
                violated(t)
            }
        };
        let reason = translation.as_ref().and_then(Translation::refusal).filter(|_| verdict == Verdict::Unknown);
        results.push(PropertyResult {
            property: p.name.clone(),
            modality: p.keyword.clone(),
            verdict,
            trace,
            reason,
            fair_loop: None,
        });
    }
    let stats = Stats {
        states: g.states() as u64,
        transitions: g.transitions,
        deadlocks: g.deadlocks,
        initial_states: g.n_initial as u64,
        seconds: g.seconds,
        peak_rss_mib: peak_rss_mib(),
        graph_bytes: g.memory_bytes(),
        store_bytes: g.store.bytes() as u64,
        state_slots: stepper.lay.len as u64,
        state_bytes: g.store.state_bytes() as u64,
        complete: g.complete(),
        decided_early: g.decided_early,
        searched_states,
        went_on,
        reduction: sym.as_ref().and_then(|s| s.describe(model)),
        edges: edges::outcome(edge_policy, edge_plan, g.edges_dropped_at),
        compact_store: g.store.is_compact(),
        compacted_at: g.compacted_at,
    };
    // A stop during the check leaves the later properties `unknown`: it is the run's reason.
    Ok(VerifyReport { results, stats, stopped: g.stopped.or(opts.limits.stopped()), probabilities })
}

/// What the search of one property gave: a plain check's outcome, or the fair check's.
enum Searched {
    Plain(Outcome),
    Fair(Fairness, fairness::FairOutcome),
}

/// Whether `--fairness` changes the check of `p`: the properties on runs (not `always`, a
/// safety property, nor the branching `fairly` and `fairly_inf`: docs/semantics.md, D15).
fn fair_applies(p: &Property) -> bool {
    matches!(p.modality, Modality::Finally | Modality::Ltl(_) | Modality::Between { .. } | Modality::FromUntil { .. })
}

/// The fair check of `p` on the whole graph `g` (successors `succ` with the agents making
/// them, `enabled(s)` the agents enabled in `s`, `moves` where the elements of the reduction
/// send each agent).
#[allow(clippy::too_many_arguments)]
fn check_fair(
    notion: Fairness,
    g: &dyn check::Space,
    succ: &fairness::Succ,
    enabled: &(dyn Fn(u32) -> u64 + Sync),
    moves: &[Vec<u8>],
    p: &Property,
    psi: &mut dyn FnMut(&QPred) -> Result<Vec<bool>, ()>,
    limits: &Limits,
) -> fairness::FairOutcome {
    use fairness::FairOutcome::Unknown;
    if !g.complete() || limits.stopped().is_some() {
        return Unknown(None);
    }
    // `finally ψ` is the formula over its one predicate.
    let f = match &p.modality {
        Modality::Finally => Ltl::Finally(Box::new(Ltl::Atom(0usize))),
        _ => match formula_over_predicates(p) {
            Some(f) => f,
            None => return Unknown(None),
        },
    };
    let stopped = || limits.stopped().is_some();
    let watch = ltl::Watch { stopped: &stopped, progress: &|_, _| {} };
    let automaton = |negate| match ltl::Automaton::within(&f, negate, watch) {
        Ok(a) => Ok(a),
        Err(ltl::Refused::Stopped) => Err(Unknown(None)),
        Err(r) => Err(Unknown(Some(format!("not checked: {r}")))),
    };
    let mut aut = match automaton(true) {
        Ok(a) => a,
        Err(u) => return u,
    };
    // Almost-sure reads a deterministic automaton: of the negation, else of the formula.
    let mut accepts_formula = false;
    if notion == Fairness::AlmostSure && !aut.deterministic() {
        let pos = || automaton(false).ok().and_then(|a| if a.deterministic() { Some(a) } else { a.determinised() });
        match (aut.determinised(), pos) {
            (Some(d), _) => aut = d,
            (None, pos) => match pos() {
                Some(d) => {
                    aut = d;
                    accepts_formula = true;
                }
                None => {
                    return Unknown(Some(
                        "not checked: almost-sure needs a deterministic automaton of the formula or of its \
                         negation, and neither could be made one (docs/semantics.md, D15)"
                            .into(),
                    ));
                }
            },
        }
    }
    let mut values = Vec::new();
    for q in predicates(p) {
        match psi(q) {
            Ok(v) => values.push(v),
            Err(()) => return Unknown(None),
        }
    }
    let bits: Vec<&[bool]> = f.atoms().iter().map(|&&i| values[i].as_slice()).collect();
    fairness::check(notion, g.states(), g.initial(), succ, enabled, &aut, accepts_formula, &bits, moves, &stopped)
}
