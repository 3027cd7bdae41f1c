//! Seeded random runs (`labs simulate`).

use super::check::{Bits, Pat, Scope, mon_step};
use super::eval::Scratch;
use super::step::{Event, Stepper, Work};
use super::{EngineError, check_behaviours, eval_pred, select_properties};
use crate::behaviour::Behaviour;
use crate::engine::path::{Mark, Trace, TraceStep};
use crate::limits::{Limits, StopReason};
use crate::model::{Modality, Model, Pattern};
use serde::Serialize;
use std::sync::Arc;

/// SplitMix64: a small, portable, seeded generator (same sequence on every machine).
#[derive(Clone, Debug)]
pub(crate) struct SplitMix64(u64);

impl SplitMix64 {
    pub(crate) fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`), without modulo bias.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next_u64();
            if x < zone {
                return x % n;
            }
        }
    }
}

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
    pub(crate) stopped: Option<StopReason>,
}

/// Where the runs of `simulate_with` come from: the initial states and, from the current
/// state, its successors with their events. `start` and `take` tell which initial state and
/// which successor the run chose (a back end that keeps its own state alongside the LAbS
/// state follows them).
pub trait Walk {
    /// Every initial state (called once, before the runs).
    fn initial(&mut self) -> Result<Vec<Vec<i32>>, EngineError>;
    /// The run starts at `initial()[i]`, which is `state`.
    fn start(&mut self, _i: usize, _state: &[i32]) -> Result<(), EngineError> {
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
    fn initial(&mut self) -> Result<Vec<Vec<i32>>, EngineError> {
        self.stepper.initial_states().map_err(|e| EngineError::Runtime { message: e.0, trace: None })
    }
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
    fn initial(&mut self) -> Result<Vec<Vec<i32>>, EngineError> {
        Ok(vec![self.trace.initial.clone()])
    }
    fn successors(&mut self, _cur: &[i32], _trace: &Trace) -> Result<Vec<(Event, Vec<i32>)>, EngineError> {
        Ok(self.trace.steps.get(self.pos).map(|s| vec![(s.event.clone(), s.state.clone())]).unwrap_or_default())
    }
    fn take(&mut self, _i: usize) {
        self.pos += 1;
    }
}

/// Random runs: a uniformly chosen initial state, then uniformly chosen steps (among all
/// enabled steps, counted with multiplicity), up to `steps` steps or a deadlock. `always`
/// properties are marked violated at their first bad state, `finally`/`eventually`
/// satisfied at their first good state (violated if the run deadlocks before), scoped
/// patterns violated when their monitor fails.
pub fn simulate(model: &Model, behs: &[Behaviour], opts: &SimulateOptions) -> Result<SimulateReport, EngineError> {
    check_behaviours(model, behs)?;
    let stepper = Stepper::new(model, behs, opts.fair);
    let mut walk = NativeWalk { stepper: &stepper, w: Work::default() };
    simulate_with(model, behs, opts, &mut walk)
}

/// The runs of `simulate` over any `Walk` (the native engine, or the LNT interpreter of
/// `simulate --backend lnt`): the same generator, choices and property marks.
pub fn simulate_with(
    model: &Model,
    behs: &[Behaviour],
    opts: &SimulateOptions,
    walk: &mut dyn Walk,
) -> Result<SimulateReport, EngineError> {
    let props = select_properties(model, opts.properties.as_deref())?;
    let stepper = Stepper::new(model, behs, opts.fair);
    let initial = walk.initial()?;
    let mut runs = Vec::new();
    if initial.is_empty() {
        return Ok(SimulateReport { runs, stopped: None });
    }
    for run in 0..opts.runs {
        if let Some(r) = opts.limits.stopped() {
            return Ok(SimulateReport { runs, stopped: Some(r) });
        }
        let mut rng = SplitMix64::new(run_seed(opts.seed, run));
        let i0 = rng.below(initial.len() as u64) as usize;
        walk.start(i0, &initial[i0])?;
        let init = initial[i0].clone();
        let mut trace = Trace {
            fair: opts.fair,
            initial: init.clone(),
            steps: Vec::new(),
            loop_start: None,
            ends_in_deadlock: false,
            marks: Vec::new(),
        };
        let mut status: Vec<SimProperty> = props
            .iter()
            .map(|p| SimProperty {
                property: p.name.clone(),
                modality: p.keyword.clone(),
                status: SimStatus::Undecided,
                at_step: None,
            })
            .collect();
        let mut mons: Vec<u8> = vec![super::check::mon::IDLE; props.len()];
        let mut cur = init;
        let mut step = 0usize;
        loop {
            // Observe the current state.
            for (i, p) in props.iter().enumerate() {
                if status[i].status != SimStatus::Undecided {
                    continue;
                }
                let ev = |q| {
                    eval_pred(&stepper, &cur, &mut Scratch::default(), q)
                        .map_err(|e| EngineError::Runtime { message: e.0, trace: Some(Box::new(trace.clone())) })
                };
                let decided = match &p.modality {
                    Modality::Always => (!ev(&p.pred)?).then_some(SimStatus::Violated),
                    Modality::Finally => ev(&p.pred)?.then_some(SimStatus::Satisfied),
                    Modality::Fairly | Modality::FairlyInf | Modality::Ltl(_) => None,
                    Modality::Between { open, close, pattern } | Modality::FromUntil { open, close, pattern } => {
                        let scope = if matches!(p.modality, Modality::Between { .. }) {
                            Scope::Between
                        } else {
                            Scope::FromUntil
                        };
                        let (pat, s) = match pattern {
                            Pattern::ThereIs => (Pat::ThereIs, false),
                            Pattern::Always => (Pat::Always, false),
                            Pattern::Precedes(s) => (Pat::Precedes, ev(s)?),
                        };
                        let b = Bits { q: ev(open)?, r: ev(close)?, p: ev(&p.pred)?, s };
                        mons[i] = mon_step(scope, pat, mons[i], b);
                        (mons[i] == super::check::mon::BAD).then_some(SimStatus::Violated)
                    }
                };
                if let Some(d) = decided {
                    status[i].status = d;
                    status[i].at_step = Some(step);
                    trace.marks.push(Mark {
                        at: step,
                        property: p.name.clone(),
                        status: if d == SimStatus::Violated { "violated" } else { "satisfied" }.into(),
                    });
                }
            }
            if step >= opts.steps {
                break;
            }
            if let Some(r) = opts.limits.stopped() {
                return Ok(SimulateReport { runs, stopped: Some(r) });
            }
            let mut succ = walk.successors(&cur, &trace)?;
            if succ.is_empty() {
                trace.ends_in_deadlock = true;
                for (i, p) in props.iter().enumerate() {
                    if matches!(p.modality, Modality::Finally) && status[i].status == SimStatus::Undecided {
                        status[i].status = SimStatus::Violated;
                        status[i].at_step = Some(step);
                        trace.marks.push(Mark { at: step, property: p.name.clone(), status: "violated".into() });
                    }
                }
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
            (check.0)(&trace).map_err(|reason| EngineError::RunRefused { run: runs.len() + 1, reason })?;
        }
        runs.push(SimRun { trace, properties: status, deadlock });
    }
    Ok(SimulateReport { runs, stopped: None })
}

#[cfg(test)]
mod tests {
    use super::SplitMix64;

    #[test]
    fn splitmix_is_stable() {
        let mut r = SplitMix64::new(0);
        // Reference values of SplitMix64 with seed 0.
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }
}
