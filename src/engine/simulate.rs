//! Seeded random runs (`labs simulate`).

use super::check::{Bits, Pat, Scope, mon_step};
use super::eval::Scratch;
use super::ltl::Automaton;
use super::step::{Drawn, Event, INITIAL_DRAWS, InitialSampler, RuntimeError, Stepper, Work};
use super::{EngineError, check_behaviours, eval_pred, select_properties};
use crate::behaviour::Behaviour;
use crate::engine::path::{Mark, Trace, TraceStep};
use crate::limits::{Limits, StopReason};
use crate::model::{Modality, Model, Pattern, Property};
use serde::Serialize;
use std::sync::Arc;

pub(crate) use super::rng::SplitMix64;

/// The seed of run `run` (0-based) of a simulation seeded with `seed`: each run draws from a
/// generator of its own, so `--seed (run_seed) --runs 1` repeats that run alone.
pub(crate) fn run_seed(seed: u64, run: usize) -> u64 {
    seed.wrapping_add(run as u64)
}

#[derive(Clone, Debug)]
pub struct SimulateOptions {
    pub fair: bool,
    pub runs: usize,
    /// Maximum steps per run.
    pub steps: usize,
    pub seed: u64,
    pub properties: Option<Vec<String>>,
    /// The run's deadline, interrupt and memory bound, polled at every step: the runs
    /// finished before a stop are kept, the one in progress is dropped.
    pub limits: Limits,
    /// Called on each run as soon as it is finished (the CLI's independent replay), so that
    /// checking every run shown costs no time after a stop; an error ends the simulation.
    pub check: Option<RunCheck>,
}

/// Why a `RunCheck` refused a run (the checker's own error type).
pub(crate) type RunRefusal = Arc<dyn std::error::Error + Send + Sync>;

/// The function of a `RunCheck`: `Err(why)` refuses the run.
pub(crate) type RunCheckFn = dyn Fn(&Trace) -> Result<(), RunRefusal> + Send + Sync;

/// A check of a finished run's trace (see `SimulateOptions::check`).
#[derive(Clone)]
pub struct RunCheck(pub Arc<RunCheckFn>);

impl std::fmt::Debug for RunCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RunCheck")
    }
}

impl Default for SimulateOptions {
    fn default() -> Self {
        SimulateOptions {
            fair: false,
            runs: 1,
            steps: 100,
            seed: 0,
            properties: None,
            limits: Limits::none(),
            check: None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SimStatus {
    Satisfied,
    Violated,
    /// Not decided by this run (or not decidable on one run: `fairly`, `fairly_inf`).
    Undecided,
}

#[derive(Clone, Debug, Serialize)]
pub struct SimProperty {
    pub property: String,
    pub(crate) modality: String,
    pub status: SimStatus,
    /// Number of steps after which the status was decided (0 = initial state).
    pub(crate) at_step: Option<usize>,
}

#[derive(Clone, Debug)]
pub struct SimRun {
    pub trace: Trace,
    pub properties: Vec<SimProperty>,
    pub deadlock: bool,
}

#[derive(Clone, Debug)]
pub struct SimulateReport {
    pub runs: Vec<SimRun>,
    /// Why fewer than the runs asked for were made (`None`: all of them).
    pub stopped: Option<StopReason>,
}

/// Where the runs of `simulate_with` come from: from the current state, its successors with
/// their events (and, for a recorded run, its initial state). `start` and `take` tell which
/// initial state and which successor the run chose (a back end that keeps its own state
/// alongside the LAbS state follows them).
pub(crate) trait Walk {
    /// The state every run starts from when the walk has one of its own (a recorded run);
    /// `None`: each run draws its initial state from the model (docs/semantics.md,
    /// "Simulation").
    fn given_initial(&self) -> Option<Vec<i32>> {
        None
    }
    /// Run `_run` (from 0) starts at `state`.
    fn start(&mut self, _run: usize, _state: &[i32]) -> Result<(), EngineError> {
        Ok(())
    }
    /// Every successor of the current state `cur` (counted with multiplicity, in a
    /// reproducible order); `trace` is the run so far, for error reports.
    fn successors(&mut self, cur: &[i32], trace: &Trace) -> Result<Vec<(Event, Vec<i32>)>, EngineError>;
    /// The run moves to `successors(..)[i]`.
    fn take(&mut self, _i: usize) {}
}

/// The native engine as a `Walk`.
struct NativeWalk<'s, 'm> {
    stepper: &'s Stepper<'m>,
    w: Work,
}

impl Walk for NativeWalk<'_, '_> {
    fn successors(&mut self, cur: &[i32], trace: &Trace) -> Result<Vec<(Event, Vec<i32>)>, EngineError> {
        let mut succ: Vec<(Event, Vec<i32>)> = Vec::new();
        self.stepper
            .successors(cur, &mut self.w, true, &mut |e, s| succ.push((e.expect("event"), s.to_vec())))
            .map_err(|e| EngineError::Runtime { message: e.0, trace: Some(Box::new(trace.clone())) })?;
        Ok(succ)
    }
}

/// A run recorded elsewhere (an Executor run translated to LAbS), walked step by step so that
/// `simulate_with` marks its properties as it marks the runs it draws itself. The walk ends
/// with the trace: give `simulate_with` at most `trace.len()` steps unless the trace ends in a
/// deadlock.
pub(crate) struct RecordedWalk<'t> {
    pub(crate) trace: &'t Trace,
    pos: usize,
}

impl<'t> RecordedWalk<'t> {
    pub(crate) fn new(trace: &'t Trace) -> RecordedWalk<'t> {
        RecordedWalk { trace, pos: 0 }
    }
}

impl Walk for RecordedWalk<'_> {
    fn given_initial(&self) -> Option<Vec<i32>> {
        Some(self.trace.initial.clone())
    }
    fn successors(&mut self, _cur: &[i32], _trace: &Trace) -> Result<Vec<(Event, Vec<i32>)>, EngineError> {
        Ok(self.trace.steps.get(self.pos).map(|s| vec![(s.event.clone(), s.state.clone())]).unwrap_or_default())
    }
    fn take(&mut self, _i: usize) {
        self.pos += 1;
    }
}

/// The marks of the selected properties along one run (docs/semantics.md, "Simulation"):
/// `always` violated at its first bad state, `finally` satisfied at its first good state
/// (violated at a deadlock before), a scoped pattern violated when its monitor fails.
pub(crate) struct Marks<'m> {
    props: Vec<&'m Property>,
    pub(crate) status: Vec<SimProperty>,
    mons: Vec<u8>,
    /// Per linear-time property, each atom's value at every state of the run so far: the
    /// formula is decided when the run ends in a deadlock (its last state then repeats).
    atoms: Vec<Vec<Vec<bool>>>,
    /// Per linear-time property, what its prefix so far already decides (`Prefix`).
    prefixes: Vec<Option<Prefix>>,
    sc: Scratch,
}

/// A linear-time formula read along a run: the states its automaton (`of_formula`) and its
/// negation's (`of_negation`) are in after the states so far. When no state of the negation's
/// can still accept, every continuation satisfies the formula (a good prefix); when none of the
/// formula's can, every continuation violates it (a bad prefix).
struct Prefix {
    formula: Automaton,
    formula_live: Vec<bool>,
    negation: Automaton,
    negation_live: Vec<bool>,
    at_formula: Vec<u32>,
    at_negation: Vec<u32>,
    next: Vec<u32>,
}

impl Prefix {
    fn new(f: &crate::syntax::ltl::Ltl<crate::model::QPred>) -> Option<Prefix> {
        let formula = Automaton::of_formula(f).ok()?;
        let negation = Automaton::of_negation(f).ok()?;
        Some(Prefix {
            formula_live: formula.nonempty(),
            negation_live: negation.nonempty(),
            formula,
            negation,
            at_formula: vec![0],
            at_negation: vec![0],
            next: Vec::new(),
        })
    }

    fn reset(&mut self) {
        self.at_formula = vec![0];
        self.at_negation = vec![0];
    }

    /// Reads one more state (atom `k` has `value(k)`); what the states so far decide.
    fn read(&mut self, value: &dyn Fn(usize) -> bool) -> Option<SimStatus> {
        self.formula.step(&self.at_formula, value, &mut self.next);
        std::mem::swap(&mut self.at_formula, &mut self.next);
        self.negation.step(&self.at_negation, value, &mut self.next);
        std::mem::swap(&mut self.at_negation, &mut self.next);
        let live = |at: &[u32], live: &[bool]| at.iter().any(|&q| live[q as usize]);
        if !live(&self.at_negation, &self.negation_live) {
            Some(SimStatus::Satisfied)
        } else if !live(&self.at_formula, &self.formula_live) {
            Some(SimStatus::Violated)
        } else {
            None
        }
    }
}

impl<'m> Marks<'m> {
    pub(crate) fn new(props: Vec<&'m Property>) -> Marks<'m> {
        let status = props
            .iter()
            .map(|p| SimProperty {
                property: p.name.clone(),
                modality: p.keyword.clone(),
                status: SimStatus::Undecided,
                at_step: None,
            })
            .collect();
        let mons = vec![super::check::mon::IDLE; props.len()];
        let atoms = props
            .iter()
            .map(|p| match &p.modality {
                Modality::Ltl(f) => vec![Vec::new(); f.atoms().len()],
                _ => Vec::new(),
            })
            .collect();
        let prefixes = props
            .iter()
            .map(|p| match &p.modality {
                Modality::Ltl(f) => Prefix::new(f),
                _ => None,
            })
            .collect();
        Marks { props, status, mons, atoms, prefixes, sc: Scratch::default() }
    }

    /// Back to the start of a run.
    pub(crate) fn reset(&mut self) {
        for s in &mut self.status {
            s.status = SimStatus::Undecided;
            s.at_step = None;
        }
        self.mons.fill(super::check::mon::IDLE);
        self.atoms.iter_mut().flatten().for_each(Vec::clear);
        self.prefixes.iter_mut().flatten().for_each(Prefix::reset);
    }

    /// Where property `i`'s check stands after the states observed so far, for a reader
    /// stepping through a run (`labs explore`): a scoped pattern's monitor state, or what a
    /// linear-time formula's prefix decides; `None` for the other modalities.
    pub(crate) fn progress(&self, i: usize) -> Option<&'static str> {
        use super::check::mon;
        match &self.props[i].modality {
            Modality::Between { .. } | Modality::FromUntil { .. } => Some(match self.mons[i] {
                mon::IDLE => "monitor: outside a scope",
                mon::OPEN => "monitor: in a scope, obligation open",
                mon::DONE => "monitor: in a scope, obligation met",
                mon::PENDING => "monitor: in a scope, violated if the scope closes",
                _ => "monitor: violated",
            }),
            Modality::Ltl(_) if self.prefixes[i].is_none() => Some("no prefix decides this formula"),
            Modality::Ltl(_) => Some(match self.status[i].status {
                SimStatus::Undecided => "no prefix decides it yet",
                SimStatus::Satisfied => "a good prefix: every continuation satisfies it",
                SimStatus::Violated => "a bad prefix: every continuation violates it",
            }),
            _ => None,
        }
    }

    /// Whether every property has its status for this run.
    pub(crate) fn all_decided(&self) -> bool {
        self.props.iter().zip(&self.status).zip(&self.prefixes).all(|((p, s), prefix)| {
            s.status != SimStatus::Undecided
                || matches!(p.modality, Modality::Fairly | Modality::FairlyInf)
                || (matches!(p.modality, Modality::Ltl(_)) && prefix.is_none())
        })
    }

    /// Observes `cur`, the state after `step` steps; `decided(i, status)` for each property
    /// it decides.
    pub(crate) fn observe(
        &mut self,
        stepper: &Stepper<'_>,
        cur: &[i32],
        step: usize,
        decided: &mut dyn FnMut(usize, SimStatus),
    ) -> Result<(), RuntimeError> {
        let sc = &mut self.sc;
        for (i, p) in self.props.iter().enumerate() {
            if self.status[i].status != SimStatus::Undecided {
                continue;
            }
            let mut ev = |q| eval_pred(stepper, cur, sc, q);
            let d = match &p.modality {
                Modality::Always => (!ev(&p.pred)?).then_some(SimStatus::Violated),
                Modality::Finally => ev(&p.pred)?.then_some(SimStatus::Satisfied),
                Modality::Fairly | Modality::FairlyInf => None,
                Modality::Ltl(f) => {
                    for (q, v) in f.atoms().into_iter().zip(&mut self.atoms[i]) {
                        v.push(ev(q)?);
                    }
                    let atoms = &self.atoms[i];
                    match &mut self.prefixes[i] {
                        Some(prefix) => prefix.read(&|k| *atoms[k].last().expect("this state's value")),
                        None => None,
                    }
                }
                Modality::Between { open, close, pattern } | Modality::FromUntil { open, close, pattern } => {
                    let scope =
                        if matches!(p.modality, Modality::Between { .. }) { Scope::Between } else { Scope::FromUntil };
                    let (pat, s) = match pattern {
                        Pattern::ThereIs => (Pat::ThereIs, false),
                        Pattern::Always => (Pat::Always, false),
                        Pattern::Precedes(s) => (Pat::Precedes, ev(s)?),
                    };
                    let b = Bits { q: ev(open)?, r: ev(close)?, p: ev(&p.pred)?, s };
                    self.mons[i] = mon_step(scope, pat, self.mons[i], b);
                    (self.mons[i] == super::check::mon::BAD).then_some(SimStatus::Violated)
                }
            };
            if let Some(d) = d {
                self.status[i].status = d;
                self.status[i].at_step = Some(step);
                decided(i, d);
            }
        }
        Ok(())
    }

    /// The run deadlocked after `step` steps. It is then a whole run, its last state repeating
    /// forever (D14), which decides every property but `fairly` and `fairly_inf`: an `always`
    /// not yet violated holds, a `finally` not yet met is violated, a linear-time formula is
    /// judged on the run, and a scoped pattern holds unless its monitor is left waiting, in an
    /// interval that never closes, for the P of `from … until …, thereIs P` (re-reading the
    /// last state opens, closes or violates nothing new).
    pub(crate) fn deadlock(&mut self, step: usize, decided: &mut dyn FnMut(usize, SimStatus)) {
        for (i, p) in self.props.iter().enumerate() {
            if self.status[i].status != SimStatus::Undecided {
                continue;
            }
            let d = match &p.modality {
                Modality::Always => SimStatus::Satisfied,
                Modality::Finally => SimStatus::Violated,
                Modality::FromUntil { pattern: Pattern::ThereIs, .. } if self.mons[i] == super::check::mon::OPEN => {
                    SimStatus::Violated
                }
                Modality::Between { .. } | Modality::FromUntil { .. } => SimStatus::Satisfied,
                Modality::Ltl(f) => {
                    let atoms = &self.atoms[i];
                    let n = atoms.first().map_or(0, Vec::len);
                    if n == 0 {
                        continue;
                    }
                    if super::ltl::holds_on_lasso(f, n, None, &|a, k| atoms[a][k]) {
                        SimStatus::Satisfied
                    } else {
                        SimStatus::Violated
                    }
                }
                _ => continue,
            };
            self.status[i].status = d;
            self.status[i].at_step = Some(step);
            decided(i, d);
        }
    }
}

/// Where each run of a simulation starts: the walk's own state, or a draw from the model.
pub(crate) enum Starts {
    Given(Vec<i32>),
    Drawn(InitialSampler),
}

impl Starts {
    pub(crate) fn new(stepper: &Stepper<'_>, given: Option<Vec<i32>>) -> Result<Starts, EngineError> {
        Ok(match given {
            Some(s) => Starts::Given(s),
            None => Starts::Drawn(
                stepper.initial_sampler().map_err(|e| EngineError::Runtime { message: e.0, trace: None })?,
            ),
        })
    }

    /// The initial state of the run drawn with `rng` (`None`: there is none).
    pub(crate) fn draw(&self, stepper: &Stepper<'_>, rng: &mut SplitMix64) -> Result<Option<Vec<i32>>, EngineError> {
        match self {
            Starts::Given(s) => Ok(Some(s.clone())),
            Starts::Drawn(sampler) => {
                match sampler.draw(stepper, rng).map_err(|e| EngineError::Runtime { message: e.0, trace: None })? {
                    Drawn::State(s) => Ok(Some(s)),
                    Drawn::NoneExists => Ok(None),
                    Drawn::GaveUp => Err(EngineError::NoInitialDrawn { draws: INITIAL_DRAWS }),
                }
            }
        }
    }
}

/// Random runs: an initial state drawn as docs/semantics.md says ("Simulation"), then
/// uniformly chosen steps (among all enabled steps, counted with multiplicity), up to `steps`
/// steps or a deadlock, with the marks of `Marks`.
pub fn simulate(model: &Model, behs: &[Behaviour], opts: &SimulateOptions) -> Result<SimulateReport, EngineError> {
    let mut runs = Vec::new();
    let stopped = simulate_each(model, behs, opts, &mut |run| {
        runs.push(run);
        Ok(())
    })?;
    Ok(SimulateReport { runs, stopped })
}

/// The runs of `simulate`, each given to `on_run` as soon as it is finished and then dropped:
/// the memory used is that of one run. Returns why fewer runs than asked were made (`None`:
/// all of them, or none when no initial state exists).
pub(crate) fn simulate_each(
    model: &Model,
    behs: &[Behaviour],
    opts: &SimulateOptions,
    on_run: &mut dyn FnMut(SimRun) -> Result<(), EngineError>,
) -> Result<Option<StopReason>, EngineError> {
    check_behaviours(model, behs)?;
    let stepper = Stepper::new(model, behs, opts.fair);
    let mut walk = NativeWalk { stepper: &stepper, w: Work::default() };
    walk_runs(model, behs, opts, &mut walk, on_run)
}

/// The runs of `simulate` over any `Walk` (the native engine, or the LNT interpreter of
/// `simulate --backend lnt`): the same generator, choices and property marks.
pub(crate) fn simulate_with(
    model: &Model,
    behs: &[Behaviour],
    opts: &SimulateOptions,
    walk: &mut dyn Walk,
) -> Result<SimulateReport, EngineError> {
    let mut runs = Vec::new();
    let stopped = walk_runs(model, behs, opts, walk, &mut |run| {
        runs.push(run);
        Ok(())
    })?;
    Ok(SimulateReport { runs, stopped })
}

fn walk_runs(
    model: &Model,
    behs: &[Behaviour],
    opts: &SimulateOptions,
    walk: &mut dyn Walk,
    on_run: &mut dyn FnMut(SimRun) -> Result<(), EngineError>,
) -> Result<Option<StopReason>, EngineError> {
    let props = select_properties(model, opts.properties.as_deref())?;
    let stepper = Stepper::new(model, behs, opts.fair);
    let starts = Starts::new(&stepper, walk.given_initial())?;
    let mut marks = Marks::new(props);
    for run in 0..opts.runs {
        if let Some(r) = opts.limits.stopped() {
            return Ok(Some(r));
        }
        let mut rng = SplitMix64::new(run_seed(opts.seed, run));
        let Some(init) = starts.draw(&stepper, &mut rng)? else { return Ok(None) };
        walk.start(run, &init)?;
        let mut trace = Trace::start(opts.fair, init.clone());
        marks.reset();
        let mut cur = init;
        let mut step = 0usize;
        loop {
            let mut decided = Vec::new();
            marks
                .observe(&stepper, &cur, step, &mut |i, d| decided.push((i, d)))
                .map_err(|e| EngineError::Runtime { message: e.0, trace: Some(Box::new(trace.clone())) })?;
            push_marks(&mut trace, &marks, step, &decided);
            if step >= opts.steps {
                break;
            }
            if let Some(r) = opts.limits.stopped() {
                return Ok(Some(r));
            }
            let mut succ = walk.successors(&cur, &trace)?;
            if succ.is_empty() {
                trace.ends_in_deadlock = true;
                let mut decided = Vec::new();
                marks.deadlock(step, &mut |i, d| decided.push((i, d)));
                push_marks(&mut trace, &marks, step, &decided);
                break;
            }
            let k = rng.below(succ.len() as u64) as usize;
            walk.take(k);
            let (ev, next) = succ.swap_remove(k);
            trace.steps.push(TraceStep { event: ev, state: next.clone() });
            cur = next;
            step += 1;
        }
        let deadlock = trace.ends_in_deadlock;
        if let Some(check) = &opts.check {
            (check.0)(&trace).map_err(|reason| EngineError::RunRefused { run: run + 1, reason })?;
        }
        on_run(SimRun { trace, properties: marks.status.clone(), deadlock })?;
    }
    Ok(None)
}

fn push_marks(trace: &mut Trace, marks: &Marks<'_>, step: usize, decided: &[(usize, SimStatus)]) {
    for &(i, d) in decided {
        trace.marks.push(Mark {
            at: step,
            property: marks.status[i].property.clone(),
            status: if d == SimStatus::Violated { "violated" } else { "satisfied" }.into(),
        });
    }
}
