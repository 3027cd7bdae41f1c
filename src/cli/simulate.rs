//! `labs simulate`: the runs of a back end (the native engine, the LNT interpreter, CADP's
//! Executor), printed as text or JSON, and the report page.

use super::json::{RunDoc, SimulateDoc};
use super::load::Loaded;
use super::verify::engine_failure;
use super::{Failure, exit};
use crate::engine::analysis_check::AnalysisCheck;
use crate::engine::simulate::{RunRefusal, run_seed};
use crate::engine::{self, RunCheck, SimRun, SimStatus, SimulateOptions, SimulateReport};
use crate::limits::Limits;
use crate::stdout::out;
use crate::trace;
use std::fmt::Write;
use std::sync::Arc;

pub(crate) struct SimulateArgs {
    pub(crate) properties: Vec<String>,
    pub(crate) fair: bool,
    pub(crate) json: bool,
    pub(crate) runs: usize,
    pub(crate) steps: usize,
    pub(crate) seed: u64,
    pub(crate) backend: SimBackend,
    /// The run's bounds (`--timeout`, Ctrl-C, memory): the runs finished before a stop are
    /// printed.
    pub(crate) limits: Limits,
    /// `--report FILE.html`.
    pub(crate) report: Option<std::path::PathBuf>,
    /// `--check-analysis`.
    pub(crate) check_analysis: bool,
}

/// Who draws the runs of `labs simulate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SimBackend {
    Native,
    /// The emitted LNT program in labs's LNT interpreter.
    Lnt,
    /// The emitted LNT program in CADP's Executor.
    Cadp,
}

impl SimBackend {
    fn name(self) -> &'static str {
        match self {
            SimBackend::Native => "native",
            SimBackend::Lnt => "lnt",
            SimBackend::Cadp => "cadp",
        }
    }
}

/// The independent replay, run on each simulation run as soon as it is finished: every run
/// shown has passed it, at no cost after a stop. With `--check-analysis`, every state of the
/// run is also checked against the value analysis.
fn replay_check(l: &Loaded, fair: bool, check_analysis: bool) -> RunCheck {
    let (model, behs) = (l.model.clone(), l.behaviours.clone());
    let analysis = check_analysis.then(|| {
        let lay = crate::engine::state::Layout::new(&model, fair);
        AnalysisCheck::new(&model, &lay, &crate::analysis::values::analyse(&model, &behs))
    });
    RunCheck(Arc::new(move |t| {
        trace::replay(&model, &behs, t).map_err(|e| Arc::new(e) as RunRefusal)?;
        if let Some(check) = &analysis {
            for st in std::iter::once(&t.initial).chain(t.steps.iter().map(|s| &s.state)) {
                check.check(&model, st).map_err(|e| Arc::new(e) as RunRefusal)?;
            }
        }
        Ok(())
    }))
}

pub(crate) fn simulate(l: &Loaded, spec_name: &str, a: &SimulateArgs) -> Result<i32, Failure> {
    let opts = SimulateOptions {
        fair: a.fair,
        runs: a.runs,
        steps: a.steps,
        seed: a.seed,
        properties: if a.properties.is_empty() { None } else { Some(a.properties.clone()) },
        limits: a.limits.clone(),
        check: Some(replay_check(l, a.fair, a.check_analysis)),
    };
    if !a.json && a.report.is_none() && a.backend == SimBackend::Native {
        return simulate_streamed(l, a, &opts);
    }
    let report = if a.backend == SimBackend::Cadp {
        Ok(super::cadp::simulate_cadp(l, a.json, &opts)?)
    } else if a.backend == SimBackend::Lnt {
        let stem = l.stem();
        let analysis = crate::analysis::values::analyse(&l.model, &l.behaviours);
        let src = crate::lntcheck::backend::emit_lnt(
            &l.model,
            &l.behaviours,
            &analysis,
            &stem,
            a.fair,
            crate::lnt::Dialect::FALLBACK,
        )
        .map_err(Failure::from)?;
        crate::lntcheck::simulate::simulate(&l.model, &l.behaviours, &src, &opts)
    } else {
        engine::simulate(&l.model, &l.behaviours, &opts)
    };
    super::bounds::reporting();
    let report = report.map_err(|e| engine_failure(l, e, a.json))?;
    if a.json {
        super::json::print_pretty(&simulate_json(l, spec_name, a, &report));
    } else {
        out!("{}", simulate_text(l, a, &report));
    }
    if let Some(p) = &a.report {
        let meta = super::report::meta(l, "simulate", spec_name, a.backend.name(), a.fair);
        super::report::write_simulate(l, &meta, &report, &|i| run_seed(a.seed, i), p)?;
    }
    Ok(finish(a, report.stopped, report.runs.len()))
}

/// The native runs as text, each printed as soon as it is finished and then dropped (the
/// memory of one run, whatever the number of runs).
fn simulate_streamed(l: &Loaded, a: &SimulateArgs, opts: &SimulateOptions) -> Result<i32, Failure> {
    let mut done = 0usize;
    let stopped = engine::simulate_each(&l.model, &l.behaviours, opts, &mut |run| {
        out!("{}", run_text(l, a, done, &run));
        done += 1;
        Ok(())
    });
    super::bounds::reporting();
    let stopped = stopped.map_err(|e| engine_failure(l, e, false))?;
    if done == 0 && stopped.is_none() {
        out!("{NO_INITIAL_STATE}\n");
    }
    Ok(finish(a, stopped, done))
}

/// The exit code after `done` runs, with a warning when a bound stopped them.
fn finish(a: &SimulateArgs, stopped: Option<crate::engine::StopReason>, done: usize) -> i32 {
    match stopped {
        Some(r) => {
            eprintln!(
                "warning: {} after {} of {} runs; the finished runs are shown",
                super::bounds::stop_text(&a.limits, r),
                done,
                a.runs
            );
            super::bounds::stop_code(r)
        }
        None => exit::OK,
    }
}

const NO_INITIAL_STATE: &str = "no initial state (the assumptions exclude every initial state)";

fn status_str(s: SimStatus) -> &'static str {
    match s {
        SimStatus::Satisfied => "satisfied",
        SimStatus::Violated => "violated",
        SimStatus::Undecided => "undecided",
    }
}

fn simulate_text(l: &Loaded, a: &SimulateArgs, r: &SimulateReport) -> String {
    let mut s = String::new();
    if r.runs.is_empty() {
        let _ = writeln!(s, "{NO_INITIAL_STATE}");
    }
    for (i, run) in r.runs.iter().enumerate() {
        s += &run_text(l, a, i, run);
    }
    s
}

/// Run `i` (from 0): its header, with the seed that repeats it alone, its trace and marks.
fn run_text(l: &Loaded, a: &SimulateArgs, i: usize, run: &SimRun) -> String {
    let mut s = String::new();
    let seed = run_seed(a.seed, i);
    let _ = writeln!(s, "=== run {} of {} (seed {seed}, at most {} steps)", i + 1, a.runs, a.steps);
    s += &trace::render(&l.model, &l.behaviours, &run.trace);
    for p in &run.properties {
        let at = p.at_step.map_or(String::new(), |k| format!(" at step {k}"));
        let _ = writeln!(s, "  {}: {}{at}", p.property, status_str(p.status));
    }
    s
}

fn simulate_json<'a>(l: &'a Loaded, spec_name: &'a str, a: &SimulateArgs, r: &'a SimulateReport) -> SimulateDoc<'a> {
    SimulateDoc {
        spec: spec_name,
        externs: &l.model.externs,
        backend: a.backend.name(),
        fair: a.fair,
        seed: a.seed,
        steps: a.steps,
        runs: RunDoc::runs(l, r, a.seed),
        stopped: r.stopped,
    }
}
