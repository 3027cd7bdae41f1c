//! The CADP driver (`labs verify --backend cadp`): writes the emitted LNT program, MCL queries
//! and SVL script into a working directory of its own, runs `svl` there under a time limit,
//! reads each property's verdict from the log and collects the diagnostics as label paths.
//! Turning those paths into LAbS traces (and replaying them) is the caller's job
//! (`trace::from_labels`), so nothing CADP says reaches a user unchecked.
//! Requirements: `compositional-encoding.md` §6.

pub mod install;
pub mod jobs;
pub mod log;
pub mod process;
pub mod split;
mod workdir;

use crate::analysis::values::ValueAnalysis;
use crate::behaviour::Behaviour;
use crate::engine::{StopReason, Verdict};
use crate::lnt::{self, Dialect, EmitOptions, svl};
use crate::model::Model;
use crate::trace::cadp::{LabelPath, parse_trace};
pub use log::LtsSize;
use process::{Ended, Limits, Tool};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
pub use workdir::{WorkDir, WorkDirError};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workflow {
    /// `root leaf` reduction of the composition, one LTS per property.
    Compositional,
    /// The whole LTS, then one reduction per property.
    Monolithic,
}

impl Workflow {
    pub fn as_str(self) -> &'static str {
        match self {
            Workflow::Compositional => "compositional",
            Workflow::Monolithic => "monolithic",
        }
    }
}

/// Shows one line of svl's log (progress).
pub type ProgressFn = Arc<dyn Fn(&str) + Send + Sync>;

pub struct CadpOptions {
    pub fair: bool,
    /// The properties to check (empty: all).
    pub properties: Vec<String>,
    pub workflow: Workflow,
    /// Work in this directory and keep it (`--keep-files`); otherwise a fresh temporary one.
    pub keep_files: Option<PathBuf>,
    pub timeout: Option<Duration>,
    pub cancel: Option<Arc<AtomicBool>>,
    /// The base name of the files (a valid LNT module name).
    pub base: String,
    /// The spec's name and externs, for the generated files' header comments.
    pub source: String,
    /// Called with each line of the log worth showing while svl runs.
    pub progress: Option<ProgressFn>,
    /// `--jobs N` / `--hosts FILE`: the compositional script split into jobs (`split.rs`)
    /// run by this runner (`jobs.rs`); `None`: the single script, by one svl.
    pub runner: Option<jobs::Runner>,
}

/// What CADP said about one property.
#[derive(Clone, Debug)]
pub struct CadpVerdict {
    pub property: String,
    pub verdict: Verdict,
    /// The diagnostic of a violation, as visible labels (`None`: CADP gave none).
    pub diagnostic: Option<LabelPath>,
    /// Where the diagnostic came from (`inline` in the log, or the file read).
    pub diagnostic_source: Option<String>,
}

#[derive(Debug)]
pub struct CadpRun {
    pub workflow: Workflow,
    pub dialect: Dialect,
    pub results: Vec<CadpVerdict>,
    pub lts: Vec<LtsSize>,
    pub seconds: f64,
    /// The time limit or an interrupt ended svl: undecided properties are `unknown`.
    pub stopped: Option<StopReason>,
    pub work_dir: WorkDir,
}

#[derive(Debug)]
pub enum CadpError {
    /// CADP is not installed (or not where `$CADP` says).
    NotInstalled(String),
    /// CADP refused to run for want of a valid licence.
    Licence(String),
    /// The spec uses something the LNT encoding does not support.
    Emit(String),
    /// A file could not be written or read, a command not started.
    Io(String),
    /// svl or a tool failed, or the log does not give every verdict; `work_dir` holds the log.
    Failed { message: String, work_dir: Option<PathBuf> },
}

impl fmt::Display for CadpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CadpError::NotInstalled(m) | CadpError::Licence(m) | CadpError::Emit(m) | CadpError::Io(m) => {
                f.write_str(m)
            }
            CadpError::Failed { message, work_dir } => {
                f.write_str(message)?;
                if let Some(d) = work_dir {
                    write!(f, "\n  = note: the generated files and CADP's log are kept in `{}`", d.display())?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for CadpError {}

/// The output file of svl (stdout and stderr), next to svl's own log.
const SVL_OUTPUT: &str = "labs-svl-output.txt";

/// Emits the files, runs the workflow's SVL script and reads the verdicts.
pub fn verify(
    model: &Model,
    behaviours: &[Behaviour],
    analysis: &ValueAnalysis,
    opts: &CadpOptions,
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
    let names: Vec<String> = lnt::mcl::select_properties(model, &opts.properties)
        .map_err(|e| CadpError::Emit(e.message))?
        .iter()
        .map(|p| p.name.clone())
        .collect();

    let monolithic = opts.workflow == Workflow::Monolithic;
    let script = svl::script_file(&opts.base, monolithic);
    if let (Some(runner), false) = (&opts.runner, monolithic) {
        return verify_split(model, &names, &tools, &files, work_dir, runner, opts, dialect, start);
    }
    let log_file = work_dir.path().join(Path::new(&script).with_extension("log"));
    let output = work_dir.path().join(SVL_OUTPUT);
    // A kept directory may hold the log and diagnostics of an earlier run: never read those.
    let mut stale = vec![log_file.clone(), output.clone()];
    for name in &names {
        let diag = svl::diag_file(&opts.base, &lnt::names::property_id(model, name), monolithic);
        stale.push(work_dir.path().join(aut_name(&diag)));
        stale.push(work_dir.path().join(diag));
    }
    for f in stale {
        let _ = std::fs::remove_file(f);
    }
    let limits = Limits { deadline: opts.timeout.map(|t| start + t), cancel: opts.cancel.clone() };
    let mut shown = 0;
    let env = tools.child_env();
    let svl_cmd = Tool { program: &tools.svl, args: &[&script], env: &env };
    let ended = process::run(&svl_cmd, work_dir.path(), &output, &limits, || {
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
    for name in &names {
        let id = lnt::names::property_id(model, name);
        let found = parsed.properties.iter().find(|p| p.name.eq_ignore_ascii_case(&id));
        let result = found.and_then(|p| p.result);
        let Some(result) = result else {
            if stopped.is_some() {
                results.push(CadpVerdict {
                    property: name.clone(),
                    verdict: Verdict::Unknown,
                    diagnostic: None,
                    diagnostic_source: None,
                });
                continue;
            }
            let all = format!("{text}\n{out_text}");
            if let Some(e) = licence_refused(&all) {
                return Err(e);
            }
            let why = match ended {
                Ended::Exited(Some(0)) => "svl ended".to_string(),
                Ended::Exited(Some(c)) => format!("svl failed (exit status {c})"),
                _ => "svl was killed".to_string(),
            };
            return Err(fail(
                format!("{why} without a verdict for property {name}; the end of its output:\n{}", tail(&all, 12)),
                &mut work_dir,
            ));
        };
        if result {
            results.push(CadpVerdict {
                property: name.clone(),
                verdict: Verdict::Holds,
                diagnostic: None,
                diagnostic_source: None,
            });
            continue;
        }
        let inline = found.and_then(|p| p.inline_diagnostic.clone()).filter(|d| !d.labels.is_empty());
        let (diagnostic, source) = match inline {
            Some(d) => (Some(d), Some("inline in the log".to_string())),
            None => {
                let diag = svl::diag_file(&opts.base, &lnt::names::property_id(model, name), monolithic);
                let read = read_diagnostic(&tools, &env, work_dir.path(), &diag, &limits);
                match read.map_err(|m| fail(m, &mut work_dir))? {
                    Some((d, aut)) => (Some(d), Some(aut)),
                    None => (None, None),
                }
            }
        };
        results.push(CadpVerdict {
            property: name.clone(),
            verdict: Verdict::Violated,
            diagnostic,
            diagnostic_source: source,
        });
    }
    Ok(CadpRun {
        workflow: opts.workflow,
        dialect,
        results,
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
    model: &Model,
    names: &[String],
    tools: &install::Tools,
    files: &[lnt::EmittedFile],
    mut work_dir: WorkDir,
    runner: &jobs::Runner,
    opts: &CadpOptions,
    dialect: Dialect,
    start: Instant,
) -> Result<CadpRun, CadpError> {
    let root = work_dir.path().to_path_buf();
    let split = split::split(&opts.base, &svl::script_file(&opts.base, false), &files_text(files, &opts.base)?)
        .map_err(|e| CadpError::Emit(e.to_string()))?;
    let job_files = split::split_files(&opts.base, files).map_err(|e| CadpError::Emit(e.to_string()))?;
    write_into(&work_dir, &job_files)?;
    let limits = Limits { deadline: opts.timeout.map(|t| start + t), cancel: opts.cancel.clone() };
    let env = tools.child_env();
    let ended = jobs::run(&root, &split, runner, &tools.svl, &env, &limits).map_err(|e| match e {
        CadpError::Failed { message, .. } => CadpError::Failed { message, work_dir: Some(work_dir.keep()) },
        e => e,
    })?;
    let stopped = ended.and_then(stop_reason);
    let mut lts = vec![];
    for j in &split.leaves {
        let text = std::fs::read_to_string(root.join(&j.name).join(split::Job::LOG)).unwrap_or_default();
        lts.extend(log::parse(&text).lts);
    }
    let mut results = vec![];
    for name in names {
        let id = lnt::names::property_id(model, name);
        let job = split.properties.iter().find(|j| j.property.as_ref().is_some_and(|(p, _)| *p == id));
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
        let found = parsed.properties.iter().find(|p| p.name.eq_ignore_ascii_case(&id));
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
                None => {
                    let diag = &job.property.as_ref().expect("a property job").1;
                    let read = read_diagnostic(tools, &env, &dir, diag, &limits);
                    let read = read.map_err(|m| CadpError::Failed { message: m, work_dir: Some(work_dir.keep()) })?;
                    if let Some((d, aut)) = read {
                        (diagnostic, diagnostic_source) = (Some(d), Some(format!("{}/{aut}", job.name)));
                    }
                }
            }
        }
        results.push(CadpVerdict { property: name.clone(), verdict, diagnostic, diagnostic_source });
    }
    Ok(CadpRun {
        workflow: opts.workflow,
        dialect,
        results,
        lts,
        seconds: start.elapsed().as_secs_f64(),
        stopped,
        work_dir,
    })
}

/// The text of the compositional script among the emitted files.
fn files_text(files: &[lnt::EmittedFile], base: &str) -> Result<String, CadpError> {
    let name = svl::script_file(base, false);
    files
        .iter()
        .find(|f| f.name == name)
        .map(|f| f.contents.clone())
        .ok_or_else(|| CadpError::Emit(format!("no {name} was emitted")))
}

pub struct ExecutorOptions {
    pub fair: bool,
    pub runs: usize,
    /// LAbS steps wanted per run (Executor's depth is derived from it).
    pub steps: usize,
    /// Run `i` uses seed `seed + i`.
    pub seed: u64,
    pub timeout: Option<Duration>,
    pub cancel: Option<Arc<AtomicBool>>,
    pub base: String,
    pub source: String,
}

/// One Executor run: its seed and the labels it printed.
#[derive(Clone, Debug)]
pub struct ExecutorRun {
    pub seed: u64,
    pub path: LabelPath,
}

#[derive(Debug)]
pub struct ExecutorReport {
    pub runs: Vec<ExecutorRun>,
    /// The time limit or an interrupt ended the runs early (the runs done are kept).
    pub stopped: Option<StopReason>,
}

/// Executor's depth counts LNT transitions, hidden ones included; a LAbS step takes one
/// transition per action of the agent or per receiver of a message, plus `DONE` and the
/// observations. This many per LAbS step and agent covers the steps of the corpus; a run
/// that needs more simply has fewer LAbS steps (`--steps` is a maximum).
const TRANSITIONS_PER_STEP_AND_AGENT: usize = 8;

/// Random runs of the emitted LNT program by Executor (`lnt.open M.lnt executor DEPTH 3 SEED`,
/// strategy 3: random choices from the seed given).
pub fn executor_runs(
    model: &Model,
    behaviours: &[Behaviour],
    analysis: &ValueAnalysis,
    opts: &ExecutorOptions,
) -> Result<ExecutorReport, CadpError> {
    let start = Instant::now();
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
    let limits = Limits { deadline: opts.timeout.map(|t| start + t), cancel: opts.cancel.clone() };
    let mut runs = vec![];
    for i in 0..opts.runs {
        let seed = opts.seed.wrapping_add(i as u64);
        let seed_text = seed.to_string();
        let out = work_dir.path().join(format!("executor-{seed}.txt"));
        let args = [lnt_name.as_str(), "executor", depth.as_str(), "3", seed_text.as_str()];
        let ended =
            process::run(&Tool { program: &lnt_open, args: &args, env: &env }, work_dir.path(), &out, &limits, || {})?;
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
/// (its `VERSION` or `HISTORY`, whether found through `$CADP` or `PATH`; else the current one).
fn emit_options(tools: &install::Tools, fair: bool, properties: &[String], base: &str, source: &str) -> EmitOptions {
    EmitOptions {
        fair,
        properties: properties.to_vec(),
        dialect: tools.root_dir().and_then(|r| lnt::dialect_of_installation(&r)).unwrap_or(Dialect::CURRENT),
        base: base.to_string(),
        source: source.to_string(),
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
) -> Result<Option<(LabelPath, String)>, String> {
    if !dir.join(diag).is_file() {
        return Ok(None);
    }
    let aut = aut_name(diag);
    let out = dir.join("labs-bcg_io-output.txt");
    let bcg_io = Tool { program: &tools.bcg_io, args: &[diag, &aut], env };
    let ended = process::run(&bcg_io, dir, &out, limits, || {}).map_err(|e| e.to_string())?;
    let text = std::fs::read_to_string(dir.join(&aut)).unwrap_or_default();
    if ended != Ended::Exited(Some(0)) || text.is_empty() {
        let msg = std::fs::read_to_string(&out).unwrap_or_default();
        return Err(format!("`bcg_io {diag} {aut}` failed:\n{}", tail(&msg, 8)));
    }
    let path = parse_trace(&text).map_err(|m| format!("cannot read `{aut}`: {m}"))?;
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
/// (the exact messages are not documented, `reference/cadp-interfaces.md` §5.2).
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
