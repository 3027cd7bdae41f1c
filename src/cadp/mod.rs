//! The CADP driver (`labs verify --backend cadp`): writes the emitted LNT program, MCL queries
//! and SVL script into a working directory of its own, runs `svl` there under a time limit,
//! reads each property's verdict from the log and collects the diagnostics as label paths.
//! Turning those paths into LAbS traces (and replaying them) is the caller's job
//! (`trace::from_labels`), so nothing CADP says reaches a user unchecked.
//! What a run does and what it assumes of CADP: docs/cadp-driver.md.

mod distributor;
pub(crate) mod install;
pub(crate) mod jobs;
pub(crate) mod log;
pub(crate) mod process;
test_visible_mod!(split);
mod traces;

use crate::analysis::values::ValueAnalysis;
use crate::behaviour::Behaviour;
use crate::engine::{StopReason, Verdict};
use crate::limits::Limits;
use crate::lnt::{self, Dialect, EmitOptions, svl};
use crate::lts_backend::{LtsSize, Options, Report, Runner, WorkDir, Workflow};
use crate::model::Model;
use crate::trace::cadp::{LabelPath, parse_trace};
use process::{Ended, Tool};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What CADP said about one property.
#[derive(Clone, Debug)]
struct CadpVerdict {
    pub(crate) property: String,
    pub(crate) verdict: Verdict,
    /// The diagnostic of a violation, as visible labels (`None`: CADP gave none).
    pub(crate) diagnostic: Option<LabelPath>,
    /// Where the diagnostic came from (`inline` in the log, or the file read).
    pub(crate) diagnostic_source: Option<String>,
}

/// A check of the scripts that failed: a run-time error of the model is reachable.
#[derive(Clone, Debug)]
struct CadpRuntimeError {
    /// The check's block in the script.
    pub(crate) check: String,
    /// The property whose predicate meets the error (`None`: a step, a message, the
    /// initialisation or an assumption).
    pub(crate) property: Option<String>,
    /// The path to the error, as visible labels (`None`: CADP gave none).
    pub(crate) diagnostic: Option<LabelPath>,
}

/// What svl's run found, before its diagnostics become traces (`traces.rs`).
#[derive(Debug)]
struct CadpRun {
    pub(crate) workflow: Workflow,
    /// The SVL script that ran (of the split script's jobs: the script split).
    pub(crate) script: String,
    pub(crate) dialect: Dialect,
    pub(crate) results: Vec<CadpVerdict>,
    /// The first error check that failed, in script order: the verdicts then mean nothing.
    pub(crate) runtime_error: Option<CadpRuntimeError>,
    pub(crate) lts: Vec<LtsSize>,
    pub(crate) seconds: f64,
    /// The time limit or an interrupt ended svl: undecided properties are `unknown`.
    pub(crate) stopped: Option<StopReason>,
    pub(crate) work_dir: WorkDir,
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum CadpError {
    /// CADP is not installed (or not where `$CADP` says).
    #[error("{0}")]
    NotInstalled(String),
    /// CADP refused to run for want of a valid licence.
    #[error("{0}")]
    Licence(String),
    /// The spec uses something the LNT encoding does not support.
    #[error("{0}")]
    Emit(String),
    /// A file could not be written or read, a command not started.
    #[error("{0}")]
    Io(String),
    /// svl or a tool failed, or the log does not give every verdict; `work_dir` holds the log
    /// (the CLI says where).
    #[error("{message}")]
    Failed { message: String, work_dir: Option<PathBuf> },
    /// A run-time error of the model is reachable (CADP's path to it, translated), or the
    /// native engine failed in a cross-check: as the native engine reports it.
    #[error(transparent)]
    Engine(#[from] crate::engine::EngineError),
    /// A counterexample of CADP's that cannot be shown (an internal error of the encoding);
    /// `work_dir` holds the files, the log and the diagnostic (the CLI says where).
    #[error("{message}")]
    Counterexample { message: String, work_dir: PathBuf },
}

/// Files a check's outcome: a property's verdict in `results`, the first failed error check in
/// `runtime_error`.
fn record(
    id: &str,
    kind: &svl::CheckKind,
    v: CadpVerdict,
    results: &mut Vec<CadpVerdict>,
    runtime_error: &mut Option<CadpRuntimeError>,
) {
    match kind {
        svl::CheckKind::Property(_) => results.push(v),
        svl::CheckKind::Errors | svl::CheckKind::PredicateErrors(_) => {
            if v.verdict == Verdict::Violated && runtime_error.is_none() {
                let property = match kind {
                    svl::CheckKind::PredicateErrors(p) => Some(p.clone()),
                    _ => None,
                };
                *runtime_error = Some(CadpRuntimeError { check: id.to_string(), property, diagnostic: v.diagnostic });
            }
        }
    }
}

/// The property a check's messages name (its block's identifier for the run-time errors).
fn check_name(id: &str, kind: &svl::CheckKind) -> String {
    match kind {
        svl::CheckKind::Property(p) | svl::CheckKind::PredicateErrors(p) => p.clone(),
        svl::CheckKind::Errors => id.to_string(),
    }
}

/// The output file of svl (stdout and stderr), next to svl's own log.
const SVL_OUTPUT: &str = "labs-svl-output.txt";

/// The shell that runs the on-the-fly script.
const SHELL: &str = "/bin/sh";

/// The diagnostic file of check `id` in `workflow`'s script.
fn diag_file(workflow: Workflow, base: &str, id: &str) -> String {
    match workflow {
        Workflow::OnTheFly => svl::otf_diag_file(base, id),
        w => svl::diag_file(base, id, w == Workflow::Monolithic),
    }
}

/// Verifies the properties of `opts` on `model` with CADP: emits the files, runs the
/// workflow's SVL script, reads the verdicts, and turns each diagnostic into a LAbS trace
/// (translated, replayed, showing the violation); with `Options::cross_check`, the native
/// engine must give the same verdicts.
pub(crate) fn verify(
    model: &Model,
    behaviours: &[Behaviour],
    analysis: &ValueAnalysis,
    opts: &Options,
) -> Result<Report, CadpError> {
    let run = run_workflow(model, behaviours, analysis, opts)?;
    traces::report(model, behaviours, analysis, opts, run)
}

/// Emits the files, runs the workflow's SVL script (split into jobs when `opts.runner` says
/// so, after `distributor` when `opts.distributor` does) and reads the verdicts.
fn run_workflow(
    model: &Model,
    behaviours: &[Behaviour],
    analysis: &ValueAnalysis,
    opts: &Options,
) -> Result<CadpRun, CadpError> {
    let start = Instant::now();
    let tools = install::locate()?;
    let emit_opts = emit_options(&tools, opts.fair, &opts.properties, &opts.base, &opts.source);
    let files = lnt::emit(model, behaviours, analysis, &emit_opts).map_err(|e| CadpError::Emit(e.message))?;
    let dialect = emit_opts.dialect;
    let mut work_dir = match &opts.keep_files {
        Some(d) => WorkDir::kept(d),
        None => WorkDir::temporary(),
    }
    .map_err(|e| CadpError::Io(e.to_string()))?;
    write_into(&work_dir, &files)?;
    let selected = lnt::mcl::select_properties(model, &opts.properties).map_err(|e| CadpError::Emit(e.message))?;
    let names: Vec<String> = selected.iter().map(|p| p.name.clone()).collect();
    let checks = svl::checks(model, &selected, &files, &opts.base);

    let monolithic = opts.workflow == Workflow::Monolithic;
    let on_the_fly = opts.workflow == Workflow::OnTheFly;
    let script = match (&opts.distributor, opts.workflow) {
        (_, Workflow::OnTheFly) => svl::otf_script_file(&opts.base),
        (Some(_), Workflow::Monolithic) => distributor::script_file(&opts.base),
        _ => svl::script_file(&opts.base, monolithic),
    };
    if let (Some(runner), Workflow::Compositional) = (&opts.runner, opts.workflow) {
        return verify_split(&checks, &tools, &files, work_dir, runner, opts, dialect, start);
    }
    let log_file = work_dir.path().join(Path::new(&script).with_extension("log"));
    // The on-the-fly script's output is its log: each check's `property` line, then
    // evaluator4's answer.
    let output = if on_the_fly { log_file.clone() } else { work_dir.path().join(SVL_OUTPUT) };
    // A kept directory may hold the log and diagnostics of an earlier run: never read those.
    let mut stale = vec![log_file.clone(), output.clone()];
    for (id, _) in &checks {
        let diag = diag_file(opts.workflow, &opts.base, id);
        stale.push(work_dir.path().join(aut_name(&diag)));
        stale.push(work_dir.path().join(diag));
    }
    for f in stale {
        let _ = std::fs::remove_file(f);
    }
    let limits = &opts.limits;
    let mut shown = 0;
    let env = tools.child_env();
    if let (Some(gcf), true) = (&opts.distributor, monolithic) {
        let name = gcf.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        std::fs::copy(gcf, work_dir.path().join(&name))
            .map_err(|e| CadpError::Io(format!("cannot copy `{}`: {e}", gcf.display())))?;
        let mono = files_text_named(&files, &svl::script_file(&opts.base, true))?;
        let text = distributor::script(&mono, &opts.base)?;
        write_into(&work_dir, &[lnt::EmittedFile { name: script.clone(), contents: text }])?;
        let stopped = distributor::generate(work_dir.path(), &opts.base, &name, &env, limits).map_err(|e| match e {
            CadpError::Failed { message, .. } => CadpError::Failed { message, work_dir: Some(work_dir.keep()) },
            e => e,
        })?;
        if let Some(ended) = stopped {
            let results = names
                .iter()
                .map(|n| CadpVerdict {
                    property: n.clone(),
                    verdict: Verdict::Unknown,
                    diagnostic: None,
                    diagnostic_source: None,
                })
                .collect();
            let seconds = start.elapsed().as_secs_f64();
            let stopped = stop_reason(ended);
            return Ok(CadpRun {
                workflow: opts.workflow,
                script: script.clone(),
                dialect,
                results,
                runtime_error: None,
                lts: vec![],
                seconds,
                stopped,
                work_dir,
            });
        }
    }
    // The on-the-fly script runs `lnt.open … evaluator4` once per check (docs/cadp-driver.md).
    let (program, tool) = if on_the_fly { (Path::new(SHELL), "sh") } else { (tools.svl.as_path(), "svl") };
    let svl_cmd = Tool { program, args: &[&script], env: &env };
    let ended = process::run(&svl_cmd, work_dir.path(), &output, limits, || {
        if let Some(p) = &opts.progress {
            shown = show_progress(&log_file, shown, p.as_ref());
        }
    })?;
    let text = std::fs::read_to_string(&log_file).or_else(|_| std::fs::read_to_string(&output)).unwrap_or_default();
    let out_text = std::fs::read_to_string(&output).unwrap_or_default();
    let parsed = log::parse(&text);
    let stopped = stop_reason(ended);
    let fail = |message: String, work_dir: &mut WorkDir| CadpError::Failed { message, work_dir: Some(work_dir.keep()) };
    let mut results = vec![];
    let mut runtime_error = None;
    for (id, kind) in &checks {
        let name = &check_name(id, kind);
        let found = parsed.properties.iter().find(|p| p.name.eq_ignore_ascii_case(id));
        let result = found.and_then(|p| p.result);
        let Some(result) = result else {
            if stopped.is_some() {
                let v = CadpVerdict {
                    property: name.clone(),
                    verdict: Verdict::Unknown,
                    diagnostic: None,
                    diagnostic_source: None,
                };
                record(id, kind, v, &mut results, &mut runtime_error);
                continue;
            }
            let all = format!("{text}\n{out_text}");
            if let Some(e) = licence_refused(&all) {
                return Err(e);
            }
            let why = match ended {
                Ended::Exited(Some(0)) => format!("{tool} ended"),
                Ended::Exited(Some(c)) => format!("{tool} failed (exit status {c})"),
                _ => format!("{tool} was killed"),
            };
            return Err(fail(
                format!("{why} without a verdict for property {name}; the end of its output:\n{}", tail(&all, 12)),
                &mut work_dir,
            ));
        };
        if result {
            let v = CadpVerdict {
                property: name.clone(),
                verdict: Verdict::Holds,
                diagnostic: None,
                diagnostic_source: None,
            };
            record(id, kind, v, &mut results, &mut runtime_error);
            continue;
        }
        let inline = found.and_then(|p| p.inline_diagnostic.clone()).filter(|d| !d.labels.is_empty());
        let (diagnostic, source) = match inline {
            Some(d) => (Some(d), Some("inline in the log".to_string())),
            // After a stop, bcg_io would be stopped too: the verdict is kept without its trace.
            None if stopped.is_some() => (None, None),
            None => {
                let diag = diag_file(opts.workflow, &opts.base, id);
                let read = read_diagnostic(&tools, &env, work_dir.path(), &diag, limits);
                match read.map_err(|e| fail(e.to_string(), &mut work_dir))? {
                    Some((d, aut)) => (Some(d), Some(aut)),
                    None => (None, None),
                }
            }
        };
        let v =
            CadpVerdict { property: name.clone(), verdict: Verdict::Violated, diagnostic, diagnostic_source: source };
        record(id, kind, v, &mut results, &mut runtime_error);
    }
    Ok(CadpRun {
        workflow: opts.workflow,
        script: script.clone(),
        dialect,
        results,
        runtime_error,
        lts: parsed.lts,
        seconds: start.elapsed().as_secs_f64(),
        stopped,
        work_dir,
    })
}

/// `verify` with the compositional script split into jobs run by `runner`: each property's
/// verdict and diagnostic are read from its own job's log and directory.
#[allow(clippy::too_many_arguments)]
fn verify_split(
    checks: &[(String, svl::CheckKind)],
    tools: &install::Tools,
    files: &[lnt::EmittedFile],
    mut work_dir: WorkDir,
    runner: &Runner,
    opts: &Options,
    dialect: Dialect,
    start: Instant,
) -> Result<CadpRun, CadpError> {
    let root = work_dir.path().to_path_buf();
    let script = svl::script_file(&opts.base, false);
    let split = split::split(&opts.base, &script, &files_text(files, &opts.base)?)
        .map_err(|e| CadpError::Emit(e.to_string()))?;
    let job_files = split::split_files(&opts.base, files).map_err(|e| CadpError::Emit(e.to_string()))?;
    write_into(&work_dir, &job_files)?;
    let limits = &opts.limits;
    let env = tools.child_env();
    let ended = jobs::run(&root, &split, runner, &tools.svl, &env, limits).map_err(|e| match e {
        CadpError::Failed { message, .. } => CadpError::Failed { message, work_dir: Some(work_dir.keep()) },
        e => e,
    })?;
    let stopped = ended.and_then(stop_reason);
    let mut lts: Vec<LtsSize> = vec![];
    for j in &split.leaves {
        let text = std::fs::read_to_string(root.join(&j.name).join(split::Job::LOG)).unwrap_or_default();
        lts.extend(log::parse(&text).lts);
    }
    let mut results = vec![];
    let mut runtime_error = None;
    for (id, kind) in checks {
        let name = &check_name(id, kind);
        let job = split.properties.iter().find(|j| j.property.as_ref().is_some_and(|(p, _)| p == id));
        let Some(job) = job else {
            return Err(CadpError::Failed {
                message: format!("no job of the split script verifies property {name}"),
                work_dir: Some(work_dir.keep()),
            });
        };
        let dir = root.join(&job.name);
        let text = std::fs::read_to_string(dir.join(split::Job::LOG)).unwrap_or_default();
        let parsed = log::parse(&text);
        lts.extend(parsed.lts.iter().cloned());
        let found = parsed.properties.iter().find(|p| p.name.eq_ignore_ascii_case(id));
        let verdict = match found.and_then(|p| p.result) {
            Some(true) => Verdict::Holds,
            Some(false) => Verdict::Violated,
            None if stopped.is_some() => Verdict::Unknown,
            None => {
                let out = std::fs::read_to_string(dir.join(jobs::JOB_OUTPUT)).unwrap_or_default();
                if let Some(e) = licence_refused(&format!("{text}\n{out}")) {
                    return Err(e);
                }
                return Err(CadpError::Failed {
                    message: format!(
                        "the job {} ended without a verdict for property {name}; the end of its output:\n{}",
                        job.name,
                        tail(&format!("{text}\n{out}"), 12)
                    ),
                    work_dir: Some(work_dir.keep()),
                });
            }
        };
        let (mut diagnostic, mut diagnostic_source) = (None, None);
        if verdict == Verdict::Violated {
            let inline = found.and_then(|p| p.inline_diagnostic.clone()).filter(|d| !d.labels.is_empty());
            match inline {
                Some(d) => (diagnostic, diagnostic_source) = (Some(d), Some("inline in the log".to_string())),
                None if stopped.is_some() => {}
                None => {
                    let diag = &job.property.as_ref().expect("a property job").1;
                    let read = read_diagnostic(tools, &env, &dir, diag, limits);
                    let read = read
                        .map_err(|e| CadpError::Failed { message: e.to_string(), work_dir: Some(work_dir.keep()) })?;
                    if let Some((d, aut)) = read {
                        (diagnostic, diagnostic_source) = (Some(d), Some(format!("{}/{aut}", job.name)));
                    }
                }
            }
        }
        let v = CadpVerdict { property: name.clone(), verdict, diagnostic, diagnostic_source };
        record(id, kind, v, &mut results, &mut runtime_error);
    }
    Ok(CadpRun {
        workflow: opts.workflow,
        script: script.clone(),
        dialect,
        results,
        runtime_error,
        lts,
        seconds: start.elapsed().as_secs_f64(),
        stopped,
        work_dir,
    })
}

/// The text of the compositional script among the emitted files.
fn files_text(files: &[lnt::EmittedFile], base: &str) -> Result<String, CadpError> {
    files_text_named(files, &svl::script_file(base, false))
}

/// The text of the emitted file `name`.
fn files_text_named(files: &[lnt::EmittedFile], name: &str) -> Result<String, CadpError> {
    files
        .iter()
        .find(|f| f.name == name)
        .map(|f| f.contents.clone())
        .ok_or_else(|| CadpError::Emit(format!("no {name} was emitted")))
}

pub(crate) struct ExecutorOptions {
    pub(crate) fair: bool,
    pub(crate) runs: usize,
    /// LAbS steps wanted per run (Executor's depth is derived from it).
    pub(crate) steps: usize,
    /// Run `i` uses seed `seed + i`.
    pub(crate) seed: u64,
    /// The deadline and the interrupt flag end the runs (the runs done are kept).
    pub(crate) limits: Limits,
    pub(crate) base: String,
    pub(crate) source: String,
}

/// One Executor run: its seed and the labels it printed.
#[derive(Clone, Debug)]
pub(crate) struct ExecutorRun {
    pub(crate) seed: u64,
    pub(crate) path: LabelPath,
}

#[derive(Debug)]
pub(crate) struct ExecutorReport {
    pub(crate) runs: Vec<ExecutorRun>,
    /// The time limit or an interrupt ended the runs early (the runs done are kept).
    pub(crate) stopped: Option<StopReason>,
}

/// Executor's depth counts LNT transitions, hidden ones included; a LAbS step takes one
/// transition per action of the agent or per receiver of a message, plus `DONE` and the
/// observations. This many per LAbS step and agent covers the steps of the corpus; a run
/// that needs more simply has fewer LAbS steps (`--steps` is a maximum).
const TRANSITIONS_PER_STEP_AND_AGENT: usize = 8;

/// Random runs of the emitted LNT program by Executor (`lnt.open M.lnt executor DEPTH 3 SEED`,
/// strategy 3: random choices from the seed given).
pub(crate) fn executor_runs(
    model: &Model,
    behaviours: &[Behaviour],
    analysis: &ValueAnalysis,
    opts: &ExecutorOptions,
) -> Result<ExecutorReport, CadpError> {
    let tools = install::locate()?;
    let lnt_open = tools.lnt_open.clone().ok_or_else(|| {
        CadpError::NotInstalled("CADP's `lnt.open` was not found (needed to run Executor)".to_string())
    })?;
    let emit_opts = emit_options(&tools, opts.fair, &[], &opts.base, &opts.source);
    let files = lnt::emit(model, behaviours, analysis, &emit_opts).map_err(|e| CadpError::Emit(e.message))?;
    let lnt_name = format!("{}.lnt", opts.base);
    let program: Vec<_> = files.into_iter().filter(|f| f.name == lnt_name).collect();
    let mut work_dir = WorkDir::temporary().map_err(|e| CadpError::Io(e.to_string()))?;
    write_into(&work_dir, &program)?;
    let env = tools.child_env();
    let per_step = TRANSITIONS_PER_STEP_AND_AGENT * model.n_agents().max(1);
    let depth = (opts.steps + 1).saturating_mul(per_step).to_string();
    let limits = &opts.limits;
    let mut runs = vec![];
    for i in 0..opts.runs {
        let seed = crate::engine::simulate::run_seed(opts.seed, i);
        let seed_text = seed.to_string();
        let out = work_dir.path().join(format!("executor-{seed}.txt"));
        let args = [lnt_name.as_str(), "executor", depth.as_str(), "3", seed_text.as_str()];
        let ended =
            process::run(&Tool { program: &lnt_open, args: &args, env: &env }, work_dir.path(), &out, limits, || {})?;
        let stopped = stop_reason(ended);
        if stopped.is_some() {
            return Ok(ExecutorReport { runs, stopped });
        }
        let text = std::fs::read_to_string(&out).unwrap_or_default();
        if ended != Ended::Exited(Some(0)) || !text.lines().any(|l| l.trim() == "<initial state>") {
            if let Some(e) = licence_refused(&text) {
                return Err(e);
            }
            let dir = work_dir.keep();
            return Err(CadpError::Failed {
                message: format!("`lnt.open {lnt_name} executor {depth} 3 {seed}` failed:\n{}", tail(&text, 12)),
                work_dir: Some(dir),
            });
        }
        let path = parse_trace(&text).map_err(|m| CadpError::Failed {
            message: format!("cannot read Executor's output (seed {seed}): {m}"),
            work_dir: Some(work_dir.keep()),
        })?;
        runs.push(ExecutorRun { seed, path });
    }
    Ok(ExecutorReport { runs, stopped: None })
}

/// What `labs emit` would write for these options, in the LNT dialect of the installation found
/// (`install::installed_dialect`; else the fallback dialect).
fn emit_options(tools: &install::Tools, fair: bool, properties: &[String], base: &str, source: &str) -> EmitOptions {
    let root = tools.root_dir();
    let (dialect, reason) = install::installed_dialect(
        root.as_deref().map(std::path::Path::as_os_str),
        std::env::var_os("PATH").as_deref(),
    )
    .unwrap_or((Dialect::FALLBACK, lnt::FALLBACK_REASON.to_string()));
    EmitOptions {
        fair,
        properties: properties.to_vec(),
        dialect,
        dialect_reason: reason,
        base: base.to_string(),
        source: source.to_string(),
        usage: None,
    }
}

fn write_into(dir: &WorkDir, files: &[lnt::EmittedFile]) -> Result<(), CadpError> {
    lnt::write_files(dir.path(), files).map_err(|(p, e)| CadpError::Io(format!("cannot write `{}`: {e}", p.display())))
}

/// Why a tool was stopped (`None`: it ended by itself).
fn stop_reason(ended: Ended) -> Option<StopReason> {
    match ended {
        Ended::TimedOut => Some(StopReason::Timeout),
        Ended::Interrupted => Some(StopReason::Interrupted),
        Ended::Exited(_) => None,
    }
}

/// The `.aut` file `bcg_io` makes of the BCG diagnostic `diag`.
fn aut_name(diag: &str) -> String {
    format!("{}.aut", diag.strip_suffix(".bcg").unwrap_or(diag))
}

/// Converts `diag` (a BCG diagnostic written by Evaluator) to `.aut` with `bcg_io` and reads
/// the path or lasso in it, with the `.aut` file's name; `None` if there is no such file.
fn read_diagnostic(
    tools: &install::Tools,
    env: &[(&'static str, std::ffi::OsString)],
    dir: &Path,
    diag: &str,
    limits: &Limits,
) -> Result<Option<(LabelPath, String)>, CadpError> {
    if !dir.join(diag).is_file() {
        return Ok(None);
    }
    let aut = aut_name(diag);
    let out = dir.join("labs-bcg_io-output.txt");
    let bcg_io = Tool { program: &tools.bcg_io, args: &[diag, &aut], env };
    let ended = process::run(&bcg_io, dir, &out, limits, || {})?;
    let failed = |message| CadpError::Failed { message, work_dir: None };
    let text = std::fs::read_to_string(dir.join(&aut)).unwrap_or_default();
    if ended != Ended::Exited(Some(0)) || text.is_empty() {
        let msg = std::fs::read_to_string(&out).unwrap_or_default();
        return Err(failed(format!("`bcg_io {diag} {aut}` failed:\n{}", tail(&msg, 8))));
    }
    let path = parse_trace(&text).map_err(|m| failed(format!("cannot read `{aut}`: {m}")))?;
    Ok(Some((path, aut)))
}

/// Shows the log lines added since byte `from` that say where the workflow is: property
/// blocks, LTS sizes, results. Returns the new position (only whole lines are consumed).
fn show_progress(log_file: &Path, from: u64, show: &(dyn Fn(&str) + Send + Sync)) -> u64 {
    use std::io::{Read, Seek, SeekFrom};
    let mut new = vec![];
    let read = std::fs::File::open(log_file)
        .and_then(|mut f| f.seek(SeekFrom::Start(from)).and_then(|_| f.read_to_end(&mut new)));
    if read.is_err() {
        return from;
    }
    let Some(end) = new.iter().rposition(|&b| b == b'\n') else { return from };
    for line in String::from_utf8_lossy(&new[..end]).lines() {
        let t = line.trim();
        if t.starts_with("property ")
            || t.starts_with("(*")
            || matches!(t, "TRUE" | "FALSE")
            || t.starts_with("\"") && t.contains(" = ")
        {
            show(t);
        }
    }
    from + end as u64 + 1
}

/// A tool's output that mentions a licence, when the tool gave no result: CADP refused to run
/// (the exact messages are not documented; docs/cadp-driver.md, "Installation").
fn licence_refused(output: &str) -> Option<CadpError> {
    output
        .to_ascii_lowercase()
        .contains("licen")
        .then(|| CadpError::Licence(format!("CADP did not run: its licence check failed\n{}", tail(output, 12))))
}

/// The last `n` non-empty lines of `text`, indented.
fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].iter().map(|l| format!("  | {l}")).collect::<Vec<_>>().join("\n")
}
