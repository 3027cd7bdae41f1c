//! Statistical model checking (`labs simulate --estimate`, `--sprt`): the probability that a
//! run of at most `steps` steps satisfies each property's bounded reading, under the
//! probability model of `simulate` (docs/statistical.md): an initial state drawn as
//! docs/semantics.md says, then at each step a successor drawn uniformly among the enabled
//! steps, counted with multiplicity.
//!
//! Run `i` draws from its own generator seeded with `run_seed(seed, i)`, and the outcomes are
//! consumed in run order, so the result depends on the seed only, not on the thread count.

use super::simulate::{Marks, Starts, Walk, run_seed};
use super::step::{Stepper, Work};
use super::{EngineError, SimStatus, check_behaviours, select_properties};
use crate::behaviour::Behaviour;
use crate::engine::path::{Trace, TraceStep};
use crate::engine::rng::SplitMix64;
use crate::limits::{Limits, StopReason};
use crate::model::{Modality, Model};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;

mod binomial;
pub use binomial::{clopper_pearson, okamoto_epsilon};

/// How many runs, and what is concluded from them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "method", rename_all = "lowercase")]
pub enum Method {
    /// As many runs as the Chernoff–Hoeffding (Okamoto) bound needs for every estimate to lie
    /// within `epsilon` of the probability with probability at least `confidence`, or at most
    /// `max_runs`; each property's interval is the exact one of the runs made, at
    /// `confidence`.
    Interval { epsilon: f64, confidence: f64, max_runs: Option<u64> },
    /// Wald's sequential probability ratio test of `P >= theta` against `P < theta`, with the
    /// indifference region `theta ± indifference` and error bounds `alpha` (concluding
    /// `P < theta` when `P >= theta + indifference`) and `beta` (the converse); at most
    /// `max_runs` runs (`None`: until every property is decided or a bound stops the runs).
    Sprt { theta: f64, indifference: f64, alpha: f64, beta: f64, max_runs: Option<u64> },
}

#[derive(Clone, Debug)]
pub struct EstimateOptions {
    pub fair: bool,
    /// The bound on the length of each run.
    pub steps: usize,
    pub seed: u64,
    pub properties: Option<Vec<String>>,
    pub method: Method,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Deadline, interrupt and memory bound: the runs consumed before a stop are reported.
    pub limits: Limits,
}

/// The verdict of a sequential test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// `P >= theta` accepted.
    Above,
    /// `P < theta` accepted.
    Below,
    /// A linear-time formula whose runs the step bound left undecided: the runs its prefixes
    /// guarantee test below `theta`, the runs they do not refute above it, so the runs leave
    /// open on which side the probability lies.
    Inconclusive,
    /// Stopped (by a bound or `max_runs`) before the test could decide.
    Undecided,
}

#[derive(Clone, Debug, Serialize)]
pub struct PropertyEstimate {
    pub property: String,
    pub modality: String,
    /// Whether the property has a bounded reading (not `fairly`, `fairly_inf`); the numbers
    /// below are meaningful only if it has.
    pub estimated: bool,
    /// Runs counted for this property (with `--sprt`, those up to its decision).
    pub runs: u64,
    /// Runs whose bounded reading held.
    pub successes: u64,
    /// `successes / runs` (`None` without runs, or without a bounded reading).
    pub estimate: Option<f64>,
    /// The exact (Clopper–Pearson) interval of `successes` of `runs` at the confidence asked
    /// (the interval method; `None` without runs).
    pub interval: Option<(f64, f64)>,
    pub decision: Option<Decision>,
    /// For `finally`: `reached[k]` runs first met ψ after exactly `k` steps, so that the
    /// estimated probability of reaching ψ within `k` steps is `reached[..=k].sum() / runs`.
    pub reached: Vec<u64>,
    /// For a linear-time formula: the runs whose steps do not refute it (every run that ends
    /// in a deadlock is decided). `successes / runs` (guaranteed) and `not_refuted / runs`
    /// bound, from below and above, the probability that the formula holds on a whole run.
    pub not_refuted: Option<u64>,
    /// The exact interval of `not_refuted` of `runs` (the interval method; `None` without runs).
    pub not_refuted_interval: Option<(f64, f64)>,
}

#[derive(Clone, Debug, Serialize)]
pub struct EstimateReport {
    pub method: Method,
    /// The runs the method would make unless stopped: the Okamoto bound's (or `max_runs`,
    /// when smaller) for the interval method, `max_runs` for the sequential test (`None`: no
    /// cap).
    pub runs_planned: Option<u64>,
    /// Runs made and counted.
    pub runs: u64,
    /// The interval method: the half-width the Okamoto bound guarantees for the runs made (at
    /// most `epsilon` once the bound's runs are made; `None` without runs). Every interval lies
    /// within it of its estimate.
    pub epsilon_achieved: Option<f64>,
    /// Runs that ended in a deadlock before `steps` steps.
    pub deadlocks: u64,
    pub properties: Vec<PropertyEstimate>,
    /// Why the runs stopped early (`None`: the method's own end).
    pub stopped: Option<StopReason>,
    /// No initial state exists: nothing was run.
    pub no_initial_state: bool,
}

/// The runs the Okamoto bound needs: `ceil(ln(2 / (1 - confidence)) / (2 epsilon²))`.
pub fn okamoto_runs(epsilon: f64, confidence: f64) -> u64 {
    ((2.0 / (1.0 - confidence)).ln() / (2.0 * epsilon * epsilon)).ceil() as u64
}

/// How a property's run outcome counts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// `finally ψ`: ψ met within the bound.
    Met,
    /// `always ψ`, scoped patterns: not violated within the bound.
    NotViolated,
    /// A linear-time formula: guaranteed by the run's first steps (every continuation
    /// satisfies it), with the runs that do not refute it counted beside.
    Prefix,
}

fn reading(m: &Modality) -> Option<Reading> {
    match m {
        Modality::Finally => Some(Reading::Met),
        Modality::Always | Modality::Between { .. } | Modality::FromUntil { .. } => Some(Reading::NotViolated),
        Modality::Ltl(_) => Some(Reading::Prefix),
        _ => None,
    }
}

/// One run's outcome: per property, its status and the step that decided it; and whether
/// the run deadlocked.
struct Outcome {
    marks: Vec<(SimStatus, Option<usize>)>,
    deadlock: bool,
}

/// Builds, in a worker thread, the walk that thread draws its runs from, and hands it to the
/// body (a walk need not be `Send`: the LNT interpreter's is built in each thread).
pub(crate) type WithWalk<'a> =
    dyn Fn(&mut dyn FnMut(&mut dyn Walk) -> Result<(), EngineError>) -> Result<(), EngineError> + Sync + 'a;

/// One run `i` of a worker, with the worker's marks.
type RunFn<'a> = dyn FnMut(&mut Marks<'_>, u64) -> Result<Option<Outcome>, EngineError> + 'a;

/// Estimates or tests the probability of every selected property (see the module's doc).
pub fn estimate(model: &Model, behs: &[Behaviour], opts: &EstimateOptions) -> Result<EstimateReport, EngineError> {
    estimate_runs(model, behs, opts, None)
}

/// `estimate` over the runs of another walk (`simulate --backend lnt --estimate`: the emitted
/// program's steps), drawn with the same generator: the initial state as the native draw, then
/// a step uniformly among those the walk offers.
pub(crate) fn estimate_with(
    model: &Model,
    behs: &[Behaviour],
    opts: &EstimateOptions,
    with_walk: &WithWalk<'_>,
) -> Result<EstimateReport, EngineError> {
    estimate_runs(model, behs, opts, Some(with_walk))
}

fn estimate_runs(
    model: &Model,
    behs: &[Behaviour],
    opts: &EstimateOptions,
    with_walk: Option<&WithWalk<'_>>,
) -> Result<EstimateReport, EngineError> {
    check_behaviours(model, behs)?;
    if let Method::Sprt { theta, indifference, alpha, beta, .. } = opts.method
        && !(theta - indifference > 0.0 && theta + indifference < 1.0 && alpha > 0.0 && beta > 0.0 && alpha + beta < 1.0)
    {
        // The CLI refuses these with a usage error; a library caller gets this one.
        return Err(EngineError::Internal(format!(
            "a sequential test needs 0 < {theta} ± {indifference} < 1, alpha {alpha} > 0, beta {beta} > 0 and \
             alpha + beta < 1"
        )));
    }
    let props = select_properties(model, opts.properties.as_deref())?;
    let readings: Vec<Option<Reading>> = props.iter().map(|p| reading(&p.modality)).collect();
    let stepper = Stepper::new(model, behs, opts.fair);
    let starts = Starts::new(&stepper, None)?;
    let mut report = EstimateReport {
        method: opts.method,
        runs: 0,
        deadlocks: 0,
        properties: props
            .iter()
            .zip(&readings)
            .map(|(p, r)| PropertyEstimate {
                property: p.name.clone(),
                modality: p.keyword.clone(),
                estimated: r.is_some(),
                runs: 0,
                successes: 0,
                estimate: None,
                interval: None,
                decision: None,
                reached: Vec::new(),
                not_refuted: (*r == Some(Reading::Prefix)).then_some(0),
                not_refuted_interval: None,
            })
            .collect(),
        stopped: None,
        no_initial_state: false,
        runs_planned: None,
        epsilon_achieved: None,
    };
    report.runs_planned = match opts.method {
        Method::Interval { epsilon, confidence, max_runs } => {
            let bound = okamoto_runs(epsilon, confidence);
            Some(max_runs.map_or(bound, |m| m.min(bound)))
        }
        Method::Sprt { max_runs, .. } => max_runs,
    };
    let target = report.runs_planned.unwrap_or(u64::MAX);
    let mut sprt = Sprt::new(opts.method, props.len());
    let next = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(u64, Result<Option<Outcome>, EngineError>)>();
    let result = std::thread::scope(|s| {
        for _ in 0..opts.threads.max(1) {
            let tx = tx.clone();
            let (stepper, starts, props, next, done) = (&stepper, &starts, &props, &next, &done);
            s.spawn(move || {
                let mut marks = Marks::new(props.clone());
                // Runs `next` hands out, until the target, a stop or an error.
                let mut runs = |run: &mut RunFn<'_>| {
                    while !done.load(Ordering::Relaxed) {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= target {
                            break;
                        }
                        let out = run(&mut marks, i);
                        let stop = !matches!(out, Ok(Some(_)));
                        if tx.send((i, out)).is_err() || stop {
                            break;
                        }
                    }
                };
                match with_walk {
                    None => {
                        let mut w = Work::default();
                        runs(&mut |marks, i| one_run(stepper, starts, marks, &mut w, opts, i));
                    }
                    Some(with_walk) => {
                        let built = with_walk(&mut |walk| {
                            runs(&mut |marks, i| walk_run(walk, stepper, starts, marks, opts, i));
                            Ok(())
                        });
                        // A walk that cannot be built fails the next run in order.
                        if let Err(e) = built {
                            let _ = tx.send((next.fetch_add(1, Ordering::Relaxed), Err(e)));
                        }
                    }
                }
            });
        }
        drop(tx);
        // Consume the outcomes in run order.
        let mut pending: BTreeMap<u64, Result<Option<Outcome>, EngineError>> = BTreeMap::new();
        let mut want = 0u64;
        let finish = |r| {
            done.store(true, Ordering::Relaxed);
            r
        };
        while want < target {
            if let Some(r) = opts.limits.stopped() {
                report.stopped = Some(r);
                return finish(Ok(()));
            }
            let out = match pending.remove(&want) {
                Some(o) => o,
                None => match rx.recv_timeout(std::time::Duration::from_millis(100)) {
                    Ok((i, o)) => {
                        pending.insert(i, o);
                        continue;
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => continue,
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                },
            };
            want += 1;
            let outcome = match out {
                Err(e) => return finish(Err(e)),
                Ok(None) => {
                    if let Some(r) = opts.limits.stopped() {
                        report.stopped = Some(r);
                    } else {
                        report.no_initial_state = true;
                    }
                    return finish(Ok(()));
                }
                Ok(Some(o)) => o,
            };
            report.runs += 1;
            report.deadlocks += outcome.deadlock as u64;
            for (k, ((p, &(status, at)), r)) in
                report.properties.iter_mut().zip(&outcome.marks).zip(&readings).enumerate()
            {
                let Some(r) = r else { continue };
                if sprt.decided(k) {
                    continue;
                }
                // An undecided run counts as a success only where the bounded reading says so
                // (`always`, scoped patterns: not violated within the bound); for a linear-time
                // formula it is counted apart, as neither guaranteed nor refuted.
                let held = match r {
                    Reading::Met | Reading::Prefix => status == SimStatus::Satisfied,
                    Reading::NotViolated => status != SimStatus::Violated,
                };
                let not_refuted = status != SimStatus::Violated;
                if let Some(n) = &mut p.not_refuted {
                    *n += not_refuted as u64;
                }
                p.runs += 1;
                p.successes += held as u64;
                if let (Reading::Met, true, Some(at)) = (r, held, at) {
                    if p.reached.len() <= at {
                        p.reached.resize(at + 1, 0);
                    }
                    p.reached[at] += 1;
                }
                sprt.observe(k, held, if *r == Reading::Prefix { not_refuted } else { held });
            }
            if sprt.all_decided(&readings) {
                break;
            }
        }
        finish(Ok(()))
    });
    result?;
    for (k, p) in report.properties.iter_mut().enumerate() {
        if !p.estimated {
            continue;
        }
        p.estimate = (p.runs > 0).then(|| p.successes as f64 / p.runs as f64);
        match opts.method {
            Method::Interval { confidence, .. } => {
                p.interval = clopper_pearson(p.successes, p.runs, confidence);
                p.not_refuted_interval = p.not_refuted.and_then(|n| clopper_pearson(n, p.runs, confidence));
            }
            Method::Sprt { .. } => p.decision = Some(sprt.decision(k)),
        }
    }
    if let Method::Interval { confidence, .. } = opts.method {
        report.epsilon_achieved = (report.runs > 0).then(|| okamoto_epsilon(report.runs, confidence));
    }
    Ok(report)
}

/// Run `i`: its outcome, `None` when no initial state exists or a bound stopped it.
fn one_run(
    stepper: &Stepper<'_>,
    starts: &Starts,
    marks: &mut Marks<'_>,
    w: &mut Work,
    opts: &EstimateOptions,
    i: u64,
) -> Result<Option<Outcome>, EngineError> {
    let mut rng = SplitMix64::new(run_seed(opts.seed, i as usize));
    let Some(mut cur) = starts.draw(stepper, &mut rng)? else { return Ok(None) };
    marks.reset();
    let runtime = |e: super::step::RuntimeError| EngineError::Runtime { message: e.0, trace: None };
    let mut succ: Vec<i32> = Vec::new();
    let mut deadlock = false;
    let width = cur.len();
    for step in 0..=opts.steps {
        marks.observe(stepper, &cur, step, &mut |_, _| {}).map_err(runtime)?;
        if step == opts.steps || marks.all_decided() {
            break;
        }
        if opts.limits.stopped().is_some() {
            return Ok(None);
        }
        succ.clear();
        stepper.successors(&cur, w, false, &mut |_, s| succ.extend_from_slice(s)).map_err(runtime)?;
        let n = succ.len() / width;
        if n == 0 {
            deadlock = true;
            marks.deadlock(step, &mut |_, _| {});
            break;
        }
        let k = rng.below(n as u64) as usize;
        cur.copy_from_slice(&succ[k * width..(k + 1) * width]);
    }
    let out = Outcome { marks: marks.status.iter().map(|s| (s.status, s.at_step)).collect(), deadlock };
    Ok(Some(out))
}

/// Run `i` over `walk`, as `one_run` over the native successors; a run-time error carries the
/// run so far.
fn walk_run(
    walk: &mut dyn Walk,
    stepper: &Stepper<'_>,
    starts: &Starts,
    marks: &mut Marks<'_>,
    opts: &EstimateOptions,
    i: u64,
) -> Result<Option<Outcome>, EngineError> {
    let mut rng = SplitMix64::new(run_seed(opts.seed, i as usize));
    let Some(init) = starts.draw(stepper, &mut rng)? else { return Ok(None) };
    walk.start(i as usize, &init)?;
    marks.reset();
    let mut trace = Trace::start(opts.fair, init.clone());
    let mut cur = init;
    let mut deadlock = false;
    for step in 0..=opts.steps {
        marks
            .observe(stepper, &cur, step, &mut |_, _| {})
            .map_err(|e| EngineError::Runtime { message: e.0, trace: Some(Box::new(trace.clone())) })?;
        if step == opts.steps || marks.all_decided() {
            break;
        }
        if opts.limits.stopped().is_some() {
            return Ok(None);
        }
        let mut succ = walk.successors(&cur, &trace)?;
        if succ.is_empty() {
            deadlock = true;
            marks.deadlock(step, &mut |_, _| {});
            break;
        }
        let k = rng.below(succ.len() as u64) as usize;
        walk.take(k);
        let (event, next) = succ.swap_remove(k);
        trace.steps.push(TraceStep { event, state: next.clone() });
        cur = next;
    }
    Ok(Some(Outcome { marks: marks.status.iter().map(|s| (s.status, s.at_step)).collect(), deadlock }))
}

/// Wald's test per property (inactive under the interval method). A linear-time formula is
/// tested twice, on the runs its prefixes guarantee (`lower`, whose probability is at most the
/// formula's) and on the runs they do not refute (`upper`, at least the formula's): `P < theta`
/// is accepted only when even `upper` tests below, `P >= theta` only when even `lower` tests
/// above. For every other property both tests read the same outcomes.
struct Sprt {
    /// `ln` of the likelihood ratio per success and per failure, and the two thresholds.
    step: Option<(f64, f64, f64, f64)>,
    lower: Vec<Wald>,
    upper: Vec<Wald>,
}

/// One sequential test: the log-likelihood ratio so far, and its decision once it crossed a
/// threshold (then it reads no more runs).
#[derive(Clone, Copy)]
struct Wald {
    llr: f64,
    decision: Decision,
}

impl Sprt {
    fn new(method: Method, n: usize) -> Sprt {
        let step = match method {
            Method::Sprt { theta, indifference, alpha, beta, .. } => {
                // H0: p = p0 = theta + indifference; H1: p = p1 = theta - indifference.
                let (p0, p1) = (theta + indifference, theta - indifference);
                Some((
                    (p1 / p0).ln(),
                    ((1.0 - p1) / (1.0 - p0)).ln(),
                    (beta / (1.0 - alpha)).ln(),
                    ((1.0 - beta) / alpha).ln(),
                ))
            }
            Method::Interval { .. } => None,
        };
        let open = Wald { llr: 0.0, decision: Decision::Undecided };
        Sprt { step, lower: vec![open; n], upper: vec![open; n] }
    }

    /// Property `k`'s decision so far.
    fn decision(&self, k: usize) -> Decision {
        match (self.lower[k].decision, self.upper[k].decision) {
            (_, Decision::Below) => Decision::Below,
            (Decision::Above, _) => Decision::Above,
            (Decision::Below, Decision::Above) => Decision::Inconclusive,
            _ => Decision::Undecided,
        }
    }

    fn decided(&self, k: usize) -> bool {
        self.step.is_some() && self.decision(k) != Decision::Undecided
    }

    /// One more run of property `k`: whether it satisfied the bounded reading (`held`) and,
    /// for a linear-time formula, whether it did not refute it.
    fn observe(&mut self, k: usize, held: bool, not_refuted: bool) {
        let Some((on_success, on_failure, accept_h0, accept_h1)) = self.step else { return };
        for (test, success) in [(&mut self.lower[k], held), (&mut self.upper[k], not_refuted)] {
            if test.decision != Decision::Undecided {
                continue;
            }
            test.llr += if success { on_success } else { on_failure };
            if test.llr <= accept_h0 {
                test.decision = Decision::Above;
            } else if test.llr >= accept_h1 {
                test.decision = Decision::Below;
            }
        }
    }

    fn all_decided(&self, readings: &[Option<Reading>]) -> bool {
        self.step.is_some() && readings.iter().enumerate().all(|(k, r)| r.is_none() || self.decided(k))
    }
}
