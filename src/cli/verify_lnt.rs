//! `labs verify --backend lnt`: the files of `labs emit` written into a working directory, the
//! workflow's SVL script executed from its text by labs's SVL and LNT interpreters, the MCL
//! query of each `verify` statement evaluated by labs's MCL evaluator, and each counterexample
//! translated back from its LNT labels by the native replay, so the verdicts and traces are
//! printed as the native back end prints them.

use super::json::{LntDoc, LtsDoc, StatsDoc, VerifyDoc};
use super::load::Loaded;
use super::verify::{results_text, verify_exit_code};
use super::{Failure, exit};
use crate::analysis::values::analyse;
use crate::cadp::{WorkDir, Workflow};
use crate::diagnostics::plural;
use crate::engine::{PropertyResult, Stats, Verdict, VerifyReport, peak_rss_mib};
use crate::lnt::{self, EmitOptions, names, svl};
use crate::lntcheck::files::{self, RunError, RunOptions, ScriptRun};
use crate::stdout::out;
use crate::trace::checked::LabelReader;
use crate::trace::from_labels::CounterexampleError;
use std::fmt::Write;
use std::path::PathBuf;
use std::time::Instant;

pub struct LntVerifyArgs<'a> {
    pub properties: &'a [String],
    pub fair: bool,
    pub json: bool,
    pub max_states: Option<u64>,
    /// `--workflow`; `None`: chosen from the value analysis.
    pub workflow: Option<Workflow>,
    pub keep_files: Option<PathBuf>,
    /// `--lnt-dialect`, else the installed CADP's, else the current one.
    pub dialect: Option<String>,
    /// The run's bounds: polled while the leaves are generated and while the queries are
    /// evaluated.
    pub limits: crate::limits::Limits,
    /// `--report FILE.html`.
    pub report: Option<PathBuf>,
    /// `--jobs`: leaves generated and properties checked that many at a time.
    pub jobs: usize,
}

pub fn verify_lnt(l: &Loaded, spec_name: &str, a: &LntVerifyArgs) -> Result<i32, Failure> {
    let start = Instant::now();
    let backend_err = |m: String| Failure::new(exit::BACKEND, m);
    if let Some(p) = a.properties.iter().find(|p| !l.model.properties.iter().any(|x| &x.name == *p)) {
        return Err(super::load::unknown_property(l, p));
    }
    let (dialect, _) = super::emit::choose_dialect(a.dialect.as_deref())?;
    let analysis = analyse(&l.model, &l.behaviours);
    let workflow = super::emit::choose_workflow(l, a.workflow, &analysis);
    if workflow == Workflow::Compositional {
        let unbounded = files::unbounded_inputs(&analysis);
        if !unbounded.is_empty() {
            // A leaf generated alone would enumerate these values (2^31 for an unbounded Int):
            // refused rather than left to run out of memory.
            let what: Vec<String> =
                unbounded.iter().map(|(v, range)| format!("`{}` ({range})", l.model.vars[*v].name)).collect();
            return Err(backend_err(format!(
                "the compositional script cannot be executed: the value analysis does not bound {}, so the leaves \
                 generated alone would enumerate all these values in their input offers\n  = hint: use \
                 `--workflow monolithic`",
                what.join(", ")
            )));
        }
    }
    let base = names::module_name(&l.stem());
    let opts = EmitOptions {
        fair: a.fair,
        properties: a.properties.to_vec(),
        dialect,
        dialect_reason: String::new(),
        base: base.clone(),
        source: super::emit::source_text(l),
        usage: None,
    };
    let emitted = lnt::emit(&l.model, &l.behaviours, &analysis, &opts).map_err(|e| backend_err(e.message))?;
    let mut work_dir = match &a.keep_files {
        Some(d) => WorkDir::kept(d),
        None => WorkDir::temporary(),
    }?;
    super::emit::write_all(work_dir.path(), &emitted)?;

    let script = svl::script_file(&base, workflow == Workflow::Monolithic);
    let evaluate = files::mcl_evaluator(a.limits.clone());
    let run_opts =
        RunOptions { max_states: a.max_states, write_aut: work_dir.is_kept(), limits: a.limits.clone(), jobs: a.jobs };
    // A bound reached while the script runs leaves every property `unknown`: the script's
    // statements are not kept halfway, so none is decided.
    let (run, stopped) = match files::run_script(work_dir.path(), &script, &run_opts, &evaluate) {
        Ok(r) => (r, None),
        Err(RunError::Stopped(s)) => (ScriptRun::default(), Some(s)),
        Err(RunError::Failed(_)) if a.limits.stopped().is_some() => (ScriptRun::default(), a.limits.stopped()),
        Err(RunError::Failed(m)) => {
            let dir = work_dir.keep();
            return Err(backend_err(format!(
                "{script}: {m}\n  = note: the generated files are kept in `{}`",
                dir.display()
            )));
        }
    };

    let reader = LabelReader::new(&l.model, &l.behaviours, &analysis, a.fair);
    // The checks that no run-time error is reachable come first in the script, as the native
    // engine explores (and meets the errors of steps) before it checks the properties.
    let selected = crate::lnt::mcl::select_properties(&l.model, a.properties).map_err(|e| backend_err(e.message))?;
    let checks = svl::checks(&l.model, &selected, &emitted, &base);
    let internal = |what: String, work_dir: &mut WorkDir| {
        let dir = work_dir.keep();
        backend_err(format!(
            "internal error of the LNT encoding: {what}\n  = note: the generated files are kept in `{}`",
            dir.display()
        ))
    };
    let mut results = vec![];
    // The `verify` statement of each result.
    let mut property_runs = vec![];
    for v in &run.verifies {
        let kind = checks.iter().find(|(id, _)| *id == v.property).map(|(_, k)| k.clone());
        let prop = match kind {
            Some(svl::CheckKind::Property(name)) => l.model.properties.iter().find(|p| p.name == name),
            Some(k) => {
                if v.outcome.holds == v.expected {
                    continue;
                }
                let Some(path) = v.outcome.diagnostic.as_ref() else {
                    return Err(internal(
                        format!("{} ({} on {}) failed without a diagnostic", v.property, v.mcl, v.bcg),
                        &mut work_dir,
                    ));
                };
                let checked = match &k {
                    svl::CheckKind::PredicateErrors(name) => l.model.properties.iter().find(|p| &p.name == name),
                    _ => None,
                };
                // The labels the checked LTS keeps visible: those of the property it was built for.
                let observed = match checked.or(selected.first().copied()) {
                    Some(p) => reader.observed(p).map_err(|e| backend_err(e.to_string()))?,
                    None => Default::default(),
                };
                return match reader.runtime_error(path, &observed, checked) {
                    Ok((message, trace)) => Err(super::verify::engine_failure(
                        l,
                        crate::engine::EngineError::Runtime { message, trace: trace.map(Box::new) },
                        a.json,
                    )),
                    Err(e) => Err(internal(
                        format!("the path to a run-time error of {} ({} on {}) {e}", v.property, v.mcl, v.bcg),
                        &mut work_dir,
                    )),
                };
            }
            None => None,
        };
        let prop = prop.ok_or_else(|| backend_err(format!("{script}: property {} is not in the model", v.property)))?;
        let verdict = if v.outcome.holds == v.expected { Verdict::Holds } else { Verdict::Violated };
        let trace = match (verdict, &v.outcome.diagnostic) {
            (Verdict::Violated, Some(path)) => {
                let t = reader.counterexample(path, prop).map_err(|e| match e {
                    CounterexampleError::Runtime(_) | CounterexampleError::Query(_) => backend_err(e.to_string()),
                    _ => {
                        let dir = work_dir.keep();
                        backend_err(format!(
                            "internal error of the LNT encoding: the counterexample of {} ({} on {}) {e}\n  = note: \
                             the generated files are kept in `{}`",
                            prop.name,
                            v.mcl,
                            v.bcg,
                            dir.display()
                        ))
                    }
                })?;
                Some(t.into_trace())
            }
            (Verdict::Violated, None) => {
                eprintln!("warning: the MCL evaluator found {} violated but gave no diagnostic", prop.name);
                None
            }
            _ => None,
        };
        results.push(PropertyResult { property: prop.name.clone(), modality: prop.keyword.clone(), verdict, trace });
        property_runs.push(v);
    }
    if stopped.is_some() {
        results = selected
            .iter()
            .map(|p| PropertyResult {
                property: p.name.clone(),
                modality: p.keyword.clone(),
                verdict: Verdict::Unknown,
                trace: None,
            })
            .collect();
    }
    let seconds = start.elapsed().as_secs_f64();
    let stats = Stats { seconds, peak_rss_mib: peak_rss_mib(), ..Default::default() };
    let report = VerifyReport { results, stats, stopped };
    super::bounds::reporting();
    if a.json {
        let mut doc = VerifyDoc::new(l, spec_name, a.fair, &report);
        doc.backend = "lnt";
        for (r, v) in doc.results.iter_mut().zip(&property_runs) {
            r.mcl = Some(v.mcl.clone());
            r.lts = Some(LtsDoc { file: v.bcg.clone(), states: v.states as u64, transitions: v.transitions as u64 });
        }
        doc.stats = StatsDoc::Lts {
            seconds,
            peak_rss_mib: report.stats.peak_rss_mib,
            lts: run
                .lts
                .iter()
                .map(|x| LtsDoc { file: x.file.clone(), states: x.states as u64, transitions: x.transitions as u64 })
                .collect(),
        };
        doc.lnt = Some(LntDoc {
            workflow: workflow.as_str(),
            lnt_dialect: dialect.name(),
            script: script.clone(),
            files: work_dir.is_kept().then(|| work_dir.path().display().to_string()),
        });
        super::json::print_pretty(&doc);
    } else {
        out!("{}", lnt_text(l, &report, &run, workflow, &script, &work_dir));
    }
    if let Some(r) = stopped {
        eprintln!("warning: {} while {script} ran", super::bounds::stop_text(&a.limits, r));
    }
    if let Some(p) = &a.report {
        let meta = super::report::meta(l, "verify", spec_name, "lnt", a.fair);
        let mut stats = vec![("workflow".to_string(), format!("{} ({script})", workflow.as_str()))];
        stats.extend(super::report::lts_stats(
            run.verifies.iter().map(|v| (v.property.clone(), v.mcl.clone(), v.bcg.clone(), v.states, v.transitions)),
            run.lts.iter().map(|x| (x.file.clone(), x.states, x.transitions)),
        ));
        super::report::write_verify(l, &meta, &report, stats, p)?;
    }
    Ok(verify_exit_code(&report))
}

/// The verdicts and counterexamples as the native back end prints them; the statistics are
/// those of the script's LTSs (not LAbS states: the reductions merge them).
fn lnt_text(
    l: &Loaded,
    r: &VerifyReport,
    run: &ScriptRun,
    workflow: Workflow,
    script: &str,
    work_dir: &WorkDir,
) -> String {
    let mut s = results_text(l, r);
    let _ = writeln!(s, "\nLNT interpreter, {} workflow ({script}):", workflow.as_str());
    for v in &run.verifies {
        let _ = writeln!(
            s,
            "  {}: {} on {} ({}, {})",
            v.property,
            v.mcl,
            v.bcg,
            plural(v.states, "state", "states"),
            plural(v.transitions, "transition", "transitions")
        );
    }
    let largest = run.lts.iter().max_by_key(|x| x.states);
    let _ = write!(s, "{}", plural(run.lts.len(), "LTS", "LTSs"));
    if let Some(x) = largest {
        let _ = write!(s, ", the largest {} states and {} transitions ({})", x.states, x.transitions, x.file);
    }
    let _ = writeln!(s, "; {:.2} s, peak memory {} MiB", r.stats.seconds, r.stats.peak_rss_mib);
    if work_dir.is_kept() {
        let _ = writeln!(s, "files kept in {}", work_dir.path().display());
    }
    if let Some(stop) = r.stopped {
        let _ = writeln!(
            s,
            "the script was stopped: {}; undecided properties are `unknown`",
            super::bounds::reason_text(stop)
        );
    }
    s
}
