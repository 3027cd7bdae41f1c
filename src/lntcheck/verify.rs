//! The `lnt` back end as one call (`labs verify --backend lnt`): the files of `labs emit`
//! written into a working directory, the workflow's SVL script executed from its text
//! (`files::run_script`), the MCL query of each `verify` statement evaluated by `crate::mcl`,
//! and each diagnostic turned into a LAbS trace by `trace::checked` (translated, replayed,
//! showing the violation).

use super::files::{self, RunOptions, ScriptRun};
use crate::analysis::values::ValueAnalysis;
use crate::behaviour::Behaviour;
use crate::engine::{EngineError, PropertyResult, Stats, Verdict, VerifyReport, peak_rss_mib};
use crate::lnt::{self, Dialect, EmitOptions, svl};
use crate::lts_backend::{Options, Report, Runner, Statement, WorkDir, WorkDirError, Workflow, all_unknown};
use crate::model::Model;
use crate::trace::checked::LabelReader;
use crate::trace::from_labels::CounterexampleError;
use std::path::PathBuf;
use std::time::Instant;

/// Why `verify` gave no verdicts.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// A run-time error of the model is reachable: as the native engine reports it, with the
    /// trace that reaches it.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The spec cannot be verified this way (the encoding does not support it, or the
    /// compositional script would enumerate unbounded values), or a query cannot be built.
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    WorkDir(#[from] WorkDirError),
    /// A file of the working directory cannot be written.
    #[error("{0}")]
    Io(String),
    /// The script failed, or what it found cannot be shown (an internal error); the files are
    /// kept in `work_dir` (the CLI says where).
    #[error("{message}")]
    Failed { message: String, work_dir: PathBuf },
}

/// Verifies the properties of `opts` on `model` by its emitted files, run by labs's SVL, LNT
/// and MCL interpreters. A bound reached while the script runs leaves the properties it has
/// not decided by then `unknown` (`VerifyReport::stopped`); those decided keep their verdicts.
pub fn verify(
    model: &Model,
    behaviours: &[Behaviour],
    analysis: &ValueAnalysis,
    opts: &Options,
) -> Result<Report, VerifyError> {
    let start = Instant::now();
    let dialect = opts.dialect.unwrap_or(Dialect::FALLBACK);
    let workflow = opts.workflow;
    if workflow == Workflow::Compositional {
        let unbounded = crate::lts_backend::unbounded_inputs(analysis);
        if !unbounded.is_empty() {
            // A leaf generated alone would enumerate these values (2^31 for an unbounded Int):
            // refused rather than left to run out of memory.
            let what: Vec<String> =
                unbounded.iter().map(|(v, range)| format!("`{}` ({range})", model.vars[*v].name)).collect();
            return Err(VerifyError::Refused(format!(
                "the compositional script cannot be executed: the value analysis does not bound {}, so the leaves \
                 generated alone would enumerate all these values in their input offers\n  = hint: use \
                 `--workflow monolithic`",
                what.join(", ")
            )));
        }
    }
    let emit_opts = EmitOptions {
        fair: opts.fair,
        properties: opts.properties.clone(),
        dialect,
        dialect_reason: String::new(),
        base: opts.base.clone(),
        source: opts.source.clone(),
        usage: None,
    };
    let emitted = lnt::emit(model, behaviours, analysis, &emit_opts).map_err(|e| VerifyError::Refused(e.message))?;
    let mut work_dir = match &opts.keep_files {
        Some(d) => WorkDir::kept(d),
        None => WorkDir::temporary(),
    }?;
    lnt::write_files(work_dir.path(), &emitted)
        .map_err(|(what, e)| VerifyError::Io(format!("cannot write `{}`: {e}", what.display())))?;

    let script = match workflow {
        Workflow::OnTheFly => svl::otf_script_file(&opts.base),
        w => svl::script_file(&opts.base, w == Workflow::Monolithic),
    };
    let evaluate = files::mcl_evaluator(opts.limits.clone());
    let jobs = match &opts.runner {
        Some(Runner::Local { jobs }) => *jobs,
        _ => 1,
    };
    let run_opts = RunOptions {
        max_states: opts.limits.max_states(),
        write_aut: work_dir.is_kept(),
        limits: opts.limits.clone(),
        jobs,
        progress: opts.phase_progress.clone(),
    };
    let ran = match workflow {
        Workflow::OnTheFly => super::on_the_fly::run_script(work_dir.path(), &script, &run_opts),
        _ => files::run_script(work_dir.path(), &script, &run_opts, &evaluate),
    };
    // A bound reached while the script runs keeps the verdicts of the statements executed
    // before it.
    let run = match ran.or_else(|e| files::stop_of(e, &opts.limits).map(ScriptRun::stopped_by)) {
        Ok(r) => r,
        Err(m) => {
            return Err(VerifyError::Failed { message: format!("{script}: {m}"), work_dir: work_dir.keep() });
        }
    };
    let stopped = run.stopped;

    let reader = LabelReader::new(model, behaviours, analysis, opts.fair);
    let selected = lnt::mcl::select_properties(model, &opts.properties).map_err(|e| VerifyError::Refused(e.message))?;
    let checks = svl::checks(model, &selected, &emitted, &opts.base);
    let internal = |what: String, work_dir: &mut WorkDir| VerifyError::Failed {
        message: format!("internal error of the LNT encoding: {what}"),
        work_dir: work_dir.keep(),
    };
    let mut results = vec![];
    let mut statements = vec![];
    let mut warnings = vec![];
    // The checks that no run-time error is reachable come first in the script, as the native
    // engine explores (and meets the errors of steps) before it checks the properties.
    for v in &run.verifies {
        let kind = checks.iter().find(|(id, _)| *id == v.property).map(|(_, k)| k.clone());
        let prop = match kind {
            Some(svl::CheckKind::Property(name)) => model.properties.iter().find(|p| p.name == name),
            Some(k) => {
                statements.push(statement(v, None));
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
                    svl::CheckKind::PredicateErrors(name) => model.properties.iter().find(|p| &p.name == name),
                    _ => None,
                };
                // The labels the checked LTS keeps visible: those of the property it was built for.
                let observed = match checked.or(selected.first().copied()) {
                    Some(p) => reader.observed(p).map_err(|e| VerifyError::Refused(e.to_string()))?,
                    None => Default::default(),
                };
                return match reader.runtime_error(path, &observed, checked) {
                    Ok((message, trace)) => Err(EngineError::Runtime { message, trace: trace.map(Box::new) }.into()),
                    Err(e) => Err(internal(
                        format!("the path to a run-time error of {} ({} on {}) {e}", v.property, v.mcl, v.bcg),
                        &mut work_dir,
                    )),
                };
            }
            None => None,
        };
        let prop =
            prop.ok_or_else(|| VerifyError::Refused(format!("{script}: property {} is not in the model", v.property)))?;
        let verdict = if v.outcome.holds == v.expected { Verdict::Holds } else { Verdict::Violated };
        let trace = match (verdict, &v.outcome.diagnostic) {
            (Verdict::Violated, Some(path)) => {
                let t = reader.counterexample(path, prop).map_err(|e| match e {
                    CounterexampleError::Runtime(_) | CounterexampleError::Query(_) => {
                        VerifyError::Refused(e.to_string())
                    }
                    _ => internal(
                        format!("the counterexample of {} ({} on {}) {e}", prop.name, v.mcl, v.bcg),
                        &mut work_dir,
                    ),
                })?;
                Some(t.into_trace())
            }
            (Verdict::Violated, None) => {
                warnings.push(format!("the MCL evaluator found {} violated but gave no diagnostic", prop.name));
                None
            }
            _ => None,
        };
        statements.push(statement(v, Some(results.len())));
        results.push(PropertyResult {
            property: prop.name.clone(),
            modality: prop.keyword.clone(),
            verdict,
            trace,
            reason: None,
            fair_loop: None,
        });
    }
    if stopped.is_some() {
        // The properties the script did not decide before the stop are `unknown`, in the order
        // of the selection.
        let decided = std::mem::take(&mut results);
        results = all_unknown(&selected);
        for st in &mut statements {
            st.result = st.result.and_then(|i| results.iter().position(|r| r.property == decided[i].property));
        }
        for d in decided {
            if let Some(i) = results.iter().position(|r| r.property == d.property) {
                results[i] = d;
            }
        }
    }
    let stats = Stats { seconds: start.elapsed().as_secs_f64(), peak_rss_mib: peak_rss_mib(), ..Default::default() };
    Ok(Report {
        verify: VerifyReport { results, stats, stopped, probabilities: None },
        workflow,
        dialect,
        script,
        statements,
        lts: run.lts,
        kept_files: work_dir.is_kept().then(|| work_dir.path().to_path_buf()),
        diagnostic_sources: vec![],
        cross_checked: false,
        warnings,
    })
}

fn statement(v: &files::VerifyRun, result: Option<usize>) -> Statement {
    Statement {
        check: v.property.clone(),
        mcl: v.mcl.clone(),
        bcg: v.bcg.clone(),
        states: v.states as u64,
        transitions: v.transitions as u64,
        result,
    }
}
