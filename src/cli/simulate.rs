//! `labs simulate`: the runs of a back end (the native engine, the LNT interpreter, CADP's
//! Executor), printed as text or JSON, and the report page.

use super::json::{PropertyCounts, RunLine, SummaryLine};
use super::load::Loaded;
use super::verify::engine_failure;
use super::{Failure, exit};
use crate::engine::analysis_check::AnalysisCheck;
use crate::engine::simulate::{RunRefusal, run_seed};
use crate::engine::{self, RunCheck, SimRun, SimStatus, SimulateOptions};
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
    /// `--traces`.
    pub(crate) traces: Traces,
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
    let mut printer = Printer::new(l, spec_name, a);
    if a.report.is_none() && a.backend == SimBackend::Native {
        // Each run printed as soon as it is finished and then dropped: the memory of one run,
        // whatever the number of runs.
        let stopped = engine::simulate_each(&l.model, &l.behaviours, &opts, &mut |run| {
            printer.run(&run);
            Ok(())
        });
        super::bounds::reporting();
        let stopped = stopped.map_err(|e| engine_failure(l, e, a.json))?;
        printer.finish(stopped);
        return Ok(finish(a, stopped, printer.done));
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
    for run in &report.runs {
        printer.run(run);
    }
    printer.finish(report.stopped);
    if let Some(p) = &a.report {
        let meta = super::report::meta(l, "simulate", spec_name, a.backend.name(), a.fair);
        super::report::write_simulate(l, &meta, &report, &|i| run_seed(a.seed, i), p)?;
    }
    Ok(finish(a, report.stopped, report.runs.len()))
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

/// Up to this many runs, `--traces auto` prints each run's whole trace in text; beyond, one
/// outcome line per run.
pub(crate) const TRACES_AUTO_MAX: usize = 10;

/// `--traces`: whether each run is printed with its trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Traces {
    /// Text: whole traces up to 10 runs, an outcome line per run beyond; JSON: every trace.
    Auto,
    /// Every run's whole trace.
    All,
    /// No trace: an outcome line per run (in JSON, a run without `trace`).
    None,
}

fn status_str(s: SimStatus) -> &'static str {
    match s {
        SimStatus::Satisfied => "satisfied",
        SimStatus::Violated => "violated",
        SimStatus::Undecided => "undecided",
    }
}

/// Writes the runs as they come (text, or JSON Lines: docs/json.md), then the summary: only
/// the counts of the summary are kept, never a run.
struct Printer<'a> {
    l: &'a Loaded,
    spec_name: &'a str,
    a: &'a SimulateArgs,
    traces: bool,
    done: usize,
    deadlocks: usize,
    /// Per property (in the order of the runs' marks): satisfied, violated, undecided.
    counts: Vec<(String, String, [usize; 3])>,
}

impl<'a> Printer<'a> {
    fn new(l: &'a Loaded, spec_name: &'a str, a: &'a SimulateArgs) -> Self {
        let traces = match a.traces {
            Traces::All => true,
            Traces::None => false,
            Traces::Auto => a.json || a.runs <= TRACES_AUTO_MAX,
        };
        Printer { l, spec_name, a, traces, done: 0, deadlocks: 0, counts: Vec::new() }
    }

    fn run(&mut self, run: &SimRun) {
        let i = self.done;
        self.done += 1;
        self.deadlocks += usize::from(run.deadlock);
        if self.counts.is_empty() {
            self.counts = run.properties.iter().map(|p| (p.property.clone(), p.modality.clone(), [0; 3])).collect();
        }
        for (c, p) in self.counts.iter_mut().zip(&run.properties) {
            c.2[match p.status {
                SimStatus::Satisfied => 0,
                SimStatus::Violated => 1,
                SimStatus::Undecided => 2,
            }] += 1;
        }
        let seed = run_seed(self.a.seed, i);
        if self.a.json {
            let trace = self.traces.then(|| trace::to_changes_json(&self.l.model, &self.l.behaviours, &run.trace));
            super::json::print_compact(&RunLine {
                kind: "run",
                run: i + 1,
                seed,
                deadlock: run.deadlock,
                steps: run.trace.steps.len(),
                properties: &run.properties,
                trace,
            });
        } else if self.traces {
            out!("{}", run_text(self.l, self.a, i, run));
        } else {
            out!("{}", outcome_line(self.a, i, run));
        }
    }

    fn finish(&self, stopped: Option<crate::engine::StopReason>) {
        let no_initial_state = self.done == 0 && stopped.is_none();
        if self.a.json {
            super::json::print_compact(&SummaryLine {
                kind: "summary",
                spec: self.spec_name,
                externs: &self.l.model.externs,
                backend: self.a.backend.name(),
                fair: self.a.fair,
                seed: self.a.seed,
                steps: self.a.steps,
                runs_planned: self.a.runs,
                runs: self.done,
                deadlocks: self.deadlocks,
                no_initial_state,
                properties: self
                    .counts
                    .iter()
                    .map(|(property, modality, [satisfied, violated, undecided])| PropertyCounts {
                        property,
                        modality,
                        satisfied: *satisfied,
                        violated: *violated,
                        undecided: *undecided,
                    })
                    .collect(),
                stopped,
            });
            return;
        }
        if no_initial_state {
            out!("{NO_INITIAL_STATE}\n");
        }
        if self.a.runs > 1 && self.done > 0 {
            out!("{}", self.summary_text());
        }
    }

    fn summary_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{} of {} runs (at most {} steps each), {} ended in a deadlock",
            self.done, self.a.runs, self.a.steps, self.deadlocks
        );
        for (p, m, [sat, vio, und]) in &self.counts {
            let _ = writeln!(s, "  {p} ({m}): {sat} satisfied, {vio} violated, {und} undecided");
        }
        s
    }
}

/// Run `i` (from 0) in one line: its seed, its length, and each property's status.
fn outcome_line(a: &SimulateArgs, i: usize, run: &SimRun) -> String {
    let len = run.trace.steps.len();
    let end = if run.deadlock { format!("deadlock after {len} steps") } else { format!("{len} steps") };
    let props: Vec<String> = run
        .properties
        .iter()
        .map(|p| {
            let at = p.at_step.map_or(String::new(), |k| format!(" at step {k}"));
            format!("{} {}{at}", p.property, status_str(p.status))
        })
        .collect();
    let sep = if props.is_empty() { "" } else { "; " };
    format!("run {} of {} (seed {}): {end}{sep}{}\n", i + 1, a.runs, run_seed(a.seed, i), props.join(", "))
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
