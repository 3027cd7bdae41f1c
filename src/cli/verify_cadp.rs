//! `labs verify --backend cadp`: the CADP driver's verdicts, and each diagnostic turned into a
//! LAbS trace by the native replay and checked to show the violation before it is printed.

use super::bounds::{interrupt_flag, reason_text};
use super::json::{CadpDoc, LtsDoc, StatsDoc, VerifyDoc};
use super::load::Loaded;
use super::verify::{results_text, verify_exit_code};
use super::{Failure, exit};
use crate::analysis::values::analyse;
use crate::cadp::{self, CadpOptions, CadpRun, ExecutorOptions, WorkDir, Workflow};
use crate::diagnostics::plural;
use crate::engine::simulate::RecordedWalk;
use crate::engine::{PropertyResult, SimulateOptions, SimulateReport, Stats, Verdict, VerifyReport, peak_rss_mib};
use crate::lnt::names;
use crate::stdout::out;
use crate::trace::checked::LabelReader;
use crate::trace::{self, from_labels::CounterexampleError};
use std::fmt::Write;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;

pub struct CadpVerifyArgs {
    pub properties: Vec<String>,
    pub fair: bool,
    pub json: bool,
    /// `--workflow` (monolithic with `--distributor`); `None`: chosen from the value analysis.
    pub workflow: Option<Workflow>,
    pub keep_files: Option<PathBuf>,
    /// The run's bounds: CADP gets the time left and the interrupt flag.
    pub limits: crate::limits::Limits,
    pub quiet: bool,
    /// Also run the native engine and require the same verdicts.
    pub cross_check: bool,
    /// `--report FILE.html`.
    pub report: Option<PathBuf>,
    /// `--jobs N` / `--hosts FILE`.
    pub runner: Option<crate::cadp::jobs::Runner>,
    /// `--distributor FILE.gcf`.
    pub distributor: Option<PathBuf>,
}

/// `--distributor FILE.gcf` needs `--backend cadp` and a readable `.gcf` file (usage errors).
pub fn check_gcf(gcf: &std::path::Path) -> Result<(), Failure> {
    let usage = |m: String| Failure::new(super::exit::USAGE, m);
    if gcf.extension().is_none_or(|e| e != "gcf") {
        return Err(usage(format!("--distributor: `{}` is not a grid configuration file (FILE.gcf)", gcf.display())));
    }
    match std::fs::File::open(gcf).and_then(|f| f.metadata()) {
        Ok(m) if m.is_file() => Ok(()),
        Ok(_) => Err(usage(format!("--distributor: `{}` is not a file", gcf.display()))),
        Err(e) => Err(usage(format!("--distributor: cannot read `{}`: {e}", gcf.display()))),
    }
}

/// The hosts of `--hosts FILE`; an unreadable, empty or malformed file is a usage error.
pub fn read_hosts_file(f: &std::path::Path) -> Result<Vec<crate::cadp::jobs::Host>, Failure> {
    let text = std::fs::read_to_string(f)
        .map_err(|e| Failure::new(super::exit::USAGE, format!("--hosts: cannot read `{}`: {e}", f.display())))?;
    crate::cadp::jobs::read_hosts(&text)
        .map_err(|m| Failure::new(super::exit::USAGE, format!("--hosts `{}`: {m}", f.display())))
}

/// The command that runs a job on a host: `$LABS_SSH`, else `ssh`.
pub fn ssh_command() -> PathBuf {
    std::env::var_os("LABS_SSH").filter(|s| !s.is_empty()).map_or_else(|| PathBuf::from("ssh"), PathBuf::from)
}

pub fn verify_cadp(l: &Loaded, spec_name: &str, a: &CadpVerifyArgs) -> Result<i32, Failure> {
    if let Some(p) = a.properties.iter().find(|p| !l.model.properties.iter().any(|x| &x.name == *p)) {
        return Err(super::load::unknown_property(l, p));
    }
    let show_progress = !a.quiet && !a.json && std::io::stderr().is_terminal();
    let analysis = analyse(&l.model, &l.behaviours);
    let workflow = super::emit::choose_workflow(l, a.workflow, &analysis);
    let opts = CadpOptions {
        fair: a.fair,
        properties: a.properties.clone(),
        workflow,
        keep_files: a.keep_files.clone(),
        timeout: a.limits.remaining(),
        cancel: Some(interrupt_flag()),
        base: names::module_name(&l.stem()),
        source: super::emit::source_text(l),
        progress: if show_progress { Some(Arc::new(|line: &str| eprintln!("cadp: {line}"))) } else { None },
        runner: a.runner.clone(),
        distributor: a.distributor.clone(),
    };
    if workflow == Workflow::Compositional {
        for w in super::emit::unbounded_inputs(l, &analysis) {
            eprintln!("{}", w.replace("use the monolithic script (`*_mono.svl`)", "use `--workflow monolithic`"));
        }
    }
    let mut run = cadp::verify(&l.model, &l.behaviours, &analysis, &opts).map_err(Failure::from)?;
    let reader = LabelReader::new(&l.model, &l.behaviours, &analysis, a.fair);
    if let Some(e) = run.runtime_error.clone() {
        return Err(runtime_error(l, a, &reader, &mut run.work_dir, &e));
    }
    let mut results = vec![];
    for r in &run.results {
        let prop =
            l.model.properties.iter().find(|p| p.name == r.property).expect("the driver's properties are the model's");
        let trace = match (r.verdict, &r.diagnostic) {
            (Verdict::Violated, Some(path)) => Some(counterexample(&reader, &mut run.work_dir, prop, path)?),
            (Verdict::Violated, None) => {
                eprintln!("warning: CADP found {} violated but wrote no diagnostic", r.property);
                None
            }
            _ => None,
        };
        results.push(PropertyResult {
            property: r.property.clone(),
            modality: prop.keyword.clone(),
            verdict: r.verdict,
            trace,
        });
    }
    if a.cross_check {
        cross_check(l, a, &mut run.work_dir, &results)?;
    }
    let stats = Stats { seconds: run.seconds, peak_rss_mib: peak_rss_mib(), ..Default::default() };
    let report = VerifyReport { results, stats, stopped: run.stopped };
    if a.json {
        let mut doc = VerifyDoc::new(l, spec_name, a.fair, &report);
        doc.backend = "cadp";
        doc.stats = StatsDoc::Lts {
            seconds: run.seconds,
            peak_rss_mib: report.stats.peak_rss_mib,
            lts: run
                .lts
                .iter()
                .map(|x| LtsDoc { file: x.file.clone(), states: x.states, transitions: x.transitions })
                .collect(),
        };
        doc.cadp = Some(CadpDoc {
            workflow: run.workflow.as_str(),
            lnt_dialect: run.dialect.name(),
            cross_checked: a.cross_check,
            files: run.work_dir.is_kept().then(|| run.work_dir.path().display().to_string()),
            diagnostics: run
                .results
                .iter()
                .filter_map(|r| r.diagnostic_source.as_ref().map(|x| (r.property.clone(), x.as_str().to_string())))
                .collect(),
        });
        super::json::print_pretty(&doc);
    } else {
        out!("{}", cadp_text(l, &report, &run));
    }
    if let Some(p) = &a.report {
        let meta = super::report::meta(l, "verify", spec_name, "cadp", a.fair);
        let mut stats = vec![("workflow".to_string(), run.workflow.as_str().to_string())];
        stats.extend(super::report::lts_stats(
            std::iter::empty(),
            run.lts.iter().map(|x| (x.file.clone(), x.states as usize, x.transitions as usize)),
        ));
        super::report::write_verify(l, &meta, &report, stats, p)?;
    }
    Ok(verify_exit_code(&report))
}

/// A failed error check of the scripts: the run-time error it reaches, as the native engine
/// reports it (message and trace), or why it cannot be shown.
fn runtime_error(
    l: &Loaded,
    a: &CadpVerifyArgs,
    reader: &LabelReader,
    work_dir: &mut crate::cadp::WorkDir,
    e: &crate::cadp::CadpRuntimeError,
) -> Failure {
    let backend = |m: String| Failure::new(exit::BACKEND, m);
    let Some(path) = &e.diagnostic else {
        let dir = work_dir.keep();
        return backend(format!(
            "CADP finds a run-time error of the model ({} fails) but wrote no diagnostic\n  = note: the generated \
             files and CADP's log are kept in `{}`",
            e.check,
            dir.display()
        ));
    };
    let checked = e.property.as_ref().and_then(|n| l.model.properties.iter().find(|p| &p.name == n));
    let first = match a.properties.first() {
        Some(n) => l.model.properties.iter().find(|p| &p.name == n),
        None => l.model.properties.first(),
    };
    let observed = match checked.or(first) {
        Some(p) => match reader.observed(p) {
            Ok(o) => o,
            Err(m) => return backend(m.to_string()),
        },
        None => Default::default(),
    };
    match reader.runtime_error(path, &observed, checked) {
        Ok((message, trace)) => super::verify::engine_failure(
            l,
            crate::engine::EngineError::Runtime { message, trace: trace.map(Box::new) },
            a.json,
        ),
        Err(m) => {
            let dir = work_dir.keep();
            backend(format!(
                "internal error of the LNT encoding: CADP's path to a run-time error ({}) {m}\n  = note: the \
                 generated files and CADP's log are kept in `{}`",
                e.check,
                dir.display()
            ))
        }
    }
}

/// `--cross-check`: the native engine's verdicts must be CADP's (properties CADP left
/// `unknown` are not compared).
fn cross_check(
    l: &Loaded,
    a: &CadpVerifyArgs,
    work_dir: &mut WorkDir,
    results: &[PropertyResult],
) -> Result<(), Failure> {
    let opts = crate::engine::VerifyOptions {
        fair: a.fair,
        properties: if a.properties.is_empty() { None } else { Some(a.properties.clone()) },
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        limits: a.limits.clone(),
        // CADP generates every state: so does the comparison, to meet the same errors.
        exhaustive: true,
        ..Default::default()
    };
    let native = crate::engine::verify(&l.model, &l.behaviours, &opts)
        .map_err(|e| super::verify::engine_failure(l, e, a.json))?;
    for r in results.iter().filter(|r| r.verdict != Verdict::Unknown) {
        let n = native.results.iter().find(|x| x.property == r.property).map(|x| x.verdict);
        if n.is_some_and(|n| n != Verdict::Unknown && n != r.verdict) {
            let dir = work_dir.keep();
            return Err(Failure::new(
                exit::BACKEND,
                format!(
                    "internal error: CADP finds {} {}, the native engine {}\n  = note: the generated files and \
                     CADP's log are kept in `{}`",
                    r.property,
                    r.verdict.as_str(),
                    n.map_or("nothing", |v| v.as_str()),
                    dir.display()
                ),
            ));
        }
    }
    eprintln!("cross-check: the native engine gives the same verdicts");
    Ok(())
}

/// The diagnostic of `prop` as a LAbS trace: translated, replayed, and showing the violation.
fn counterexample(
    reader: &LabelReader,
    work_dir: &mut WorkDir,
    prop: &crate::model::Property,
    path: &crate::trace::cadp::LabelPath,
) -> Result<trace::Trace, Failure> {
    let checked = reader.counterexample(path, prop).map_err(|e| match e {
        CounterexampleError::Runtime(_) | CounterexampleError::Query(_) => Failure::new(exit::BACKEND, e.to_string()),
        _ => {
            let dir = work_dir.keep();
            Failure::new(
                exit::BACKEND,
                format!(
                    "internal error of the LNT encoding: CADP's counterexample of {} {e}\n  = note: the generated \
                     files, CADP's log and its diagnostic are kept in `{}`",
                    prop.name,
                    dir.display()
                ),
            )
        }
    })?;
    Ok(checked.into_trace())
}

fn cadp_text(l: &Loaded, r: &VerifyReport, run: &CadpRun) -> String {
    // The verdicts and counterexamples as the native back end prints them; CADP's LTSs are
    // not LAbS states, so its statistics are its own.
    let mut s = results_text(l, r);
    let largest = run.lts.iter().max_by_key(|x| x.states);
    let _ = write!(s, "\nCADP, {} workflow: {}", run.workflow.as_str(), plural(run.lts.len(), "LTS", "LTSs"));
    if let Some(x) = largest {
        let _ = write!(s, ", the largest {} states and {} transitions ({})", x.states, x.transitions, x.file);
    }
    let _ = writeln!(s, "; {:.2} s, peak memory of labs {} MiB", run.seconds, r.stats.peak_rss_mib);
    if run.work_dir.is_kept() {
        let _ = writeln!(s, "files kept in {}", run.work_dir.path().display());
    }
    if let Some(stop) = r.stopped {
        let _ = writeln!(s, "CADP was stopped: {}; undecided properties are `unknown`", reason_text(stop));
    }
    s
}

/// `labs simulate --backend cadp`: Executor's runs, each translated to a LAbS trace, replayed,
/// cut to `--steps` LAbS steps and marked as the native runs are.
pub(super) fn simulate_cadp(l: &Loaded, json: bool, opts: &SimulateOptions) -> Result<SimulateReport, Failure> {
    let analysis = analyse(&l.model, &l.behaviours);
    let reader = LabelReader::new(&l.model, &l.behaviours, &analysis, opts.fair);
    let exec = ExecutorOptions {
        fair: opts.fair,
        runs: opts.runs,
        steps: opts.steps,
        seed: opts.seed,
        timeout: opts.limits.remaining(),
        cancel: Some(interrupt_flag()),
        base: names::module_name(&l.stem()),
        source: super::emit::source_text(l),
    };
    let report = cadp::executor_runs(&l.model, &l.behaviours, &analysis, &exec).map_err(Failure::from)?;
    let mut runs = vec![];
    for r in &report.runs {
        let mut trace = reader
            .check(&r.path, None, None)
            .map_err(|e| {
                Failure::new(
                    exit::BACKEND,
                    format!("internal error of the LNT encoding: Executor's run with seed {} {e}", r.seed),
                )
            })?
            .translated
            .trace;
        if trace.steps.len() > opts.steps {
            trace.steps.truncate(opts.steps);
            trace.ends_in_deadlock = false;
        }
        // Marks as for a native run: the walk offers the recorded step, and ends where the
        // trace ends (a deadlock only if Executor said so).
        let steps = if trace.ends_in_deadlock { opts.steps } else { trace.steps.len() };
        let one = SimulateOptions { runs: 1, steps, seed: 0, ..opts.clone() };
        let mut walk = RecordedWalk::new(&trace);
        let marked = crate::engine::simulate_with(&l.model, &l.behaviours, &one, &mut walk)
            .map_err(|e| super::verify::engine_failure(l, e, json))?;
        runs.extend(marked.runs);
    }
    Ok(SimulateReport { runs, stopped: report.stopped })
}
