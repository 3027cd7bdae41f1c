//! What CADP found, as the native engine reports it: each diagnostic turned into a LAbS trace
//! by `trace::checked` (translated, replayed, shown to violate its property), a failed error
//! check into the run-time error it reaches, and with `--cross-check` the native engine's
//! verdicts compared.

use super::{CadpError, CadpRun, CadpRuntimeError};
use crate::analysis::values::ValueAnalysis;
use crate::behaviour::Behaviour;
use crate::engine::{EngineError, PropertyResult, Stats, Verdict, VerifyReport, peak_rss_mib};
use crate::lts_backend::{Options, Report};
use crate::model::{Model, Property};
use crate::trace::cadp::LabelPath;
use crate::trace::checked::LabelReader;
use crate::trace::from_labels::CounterexampleError;

/// The report of a CADP run: verdicts with checked counterexamples.
pub(super) fn report(
    model: &Model,
    behaviours: &[Behaviour],
    analysis: &ValueAnalysis,
    opts: &Options,
    mut run: CadpRun,
) -> Result<Report, CadpError> {
    let reader = LabelReader::new(model, behaviours, analysis, opts.fair);
    if let Some(e) = run.runtime_error.take() {
        return Err(runtime_error(model, opts, &reader, &mut run, &e));
    }
    let mut results = vec![];
    let mut warnings = vec![];
    let mut diagnostic_sources = vec![];
    for r in std::mem::take(&mut run.results) {
        let prop =
            model.properties.iter().find(|p| p.name == r.property).expect("the driver's properties are the model's");
        let trace = match (r.verdict, &r.diagnostic) {
            (Verdict::Violated, Some(path)) => Some(counterexample(&reader, &mut run, prop, path)?),
            (Verdict::Violated, None) if run.stopped.is_some() => {
                warnings.push(format!(
                    "CADP found {} violated; its diagnostic file was not converted, the run being stopped",
                    r.property
                ));
                None
            }
            (Verdict::Violated, None) => {
                warnings.push(format!("CADP found {} violated but wrote no diagnostic", r.property));
                None
            }
            _ => None,
        };
        if let Some(source) = r.diagnostic_source {
            diagnostic_sources.push((r.property.clone(), source));
        }
        results.push(PropertyResult {
            property: r.property,
            modality: prop.keyword.clone(),
            verdict: r.verdict,
            trace,
            reason: None,
            fair_loop: None,
        });
    }
    if opts.cross_check {
        cross_check(model, behaviours, opts, &mut run, &results)?;
    }
    let stats = Stats { seconds: run.seconds, peak_rss_mib: peak_rss_mib(), ..Default::default() };
    Ok(Report {
        verify: VerifyReport { results, stats, stopped: run.stopped, probabilities: None },
        workflow: run.workflow,
        dialect: run.dialect,
        script: run.script,
        statements: vec![],
        lts: run.lts,
        kept_files: run.work_dir.is_kept().then(|| run.work_dir.path().to_path_buf()),
        diagnostic_sources,
        cross_checked: opts.cross_check,
        warnings,
    })
}

/// A failed error check of the scripts: the run-time error it reaches, as the native engine
/// reports it (message and trace), or why it cannot be shown.
fn runtime_error(
    model: &Model,
    opts: &Options,
    reader: &LabelReader,
    run: &mut CadpRun,
    e: &CadpRuntimeError,
) -> CadpError {
    let Some(path) = &e.diagnostic else {
        return CadpError::Failed {
            message: format!("CADP finds a run-time error of the model ({} fails) but wrote no diagnostic", e.check),
            work_dir: Some(run.work_dir.keep()),
        };
    };
    let checked = e.property.as_ref().and_then(|n| model.properties.iter().find(|p| &p.name == n));
    let first = match opts.properties.first() {
        Some(n) => model.properties.iter().find(|p| &p.name == n),
        None => model.properties.first(),
    };
    let observed = match checked.or(first) {
        Some(p) => match reader.observed(p) {
            Ok(o) => o,
            Err(m) => return CadpError::Failed { message: m.to_string(), work_dir: None },
        },
        None => Default::default(),
    };
    match reader.runtime_error(path, &observed, checked) {
        Ok((message, trace)) => EngineError::Runtime { message, trace: trace.map(Box::new) }.into(),
        Err(m) => CadpError::Failed {
            message: format!("internal error of the LNT encoding: CADP's path to a run-time error ({}) {m}", e.check),
            work_dir: Some(run.work_dir.keep()),
        },
    }
}

/// `--cross-check`: the native engine's verdicts must be CADP's (properties CADP left
/// `unknown` are not compared).
fn cross_check(
    model: &Model,
    behaviours: &[Behaviour],
    opts: &Options,
    run: &mut CadpRun,
    results: &[PropertyResult],
) -> Result<(), CadpError> {
    let native_opts = crate::engine::VerifyOptions {
        fair: opts.fair,
        properties: if opts.properties.is_empty() { None } else { Some(opts.properties.clone()) },
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        limits: opts.limits.clone(),
        // CADP generates every state: so does the comparison, to meet the same errors.
        exhaustive: true,
        ..Default::default()
    };
    let native = crate::engine::verify(model, behaviours, &native_opts)?;
    for r in results.iter().filter(|r| r.verdict != Verdict::Unknown) {
        let n = native.results.iter().find(|x| x.property == r.property).map(|x| x.verdict);
        if n.is_some_and(|n| n != Verdict::Unknown && n != r.verdict) {
            return Err(CadpError::Failed {
                message: format!(
                    "internal error: CADP finds {} {}, the native engine {}",
                    r.property,
                    r.verdict.as_str(),
                    n.map_or("nothing", |v| v.as_str()),
                ),
                work_dir: Some(run.work_dir.keep()),
            });
        }
    }
    Ok(())
}

/// The diagnostic of `prop` as a LAbS trace: translated, replayed, and showing the violation.
fn counterexample(
    reader: &LabelReader,
    run: &mut CadpRun,
    prop: &Property,
    path: &LabelPath,
) -> Result<crate::trace::Trace, CadpError> {
    let checked = reader.counterexample(path, prop).map_err(|e| match e {
        CounterexampleError::Runtime(_) | CounterexampleError::Query(_) => {
            CadpError::Failed { message: e.to_string(), work_dir: None }
        }
        _ => CadpError::Counterexample {
            message: format!("internal error of the LNT encoding: CADP's counterexample of {} {e}", prop.name),
            work_dir: run.work_dir.keep(),
        },
    })?;
    Ok(checked.into_trace())
}
