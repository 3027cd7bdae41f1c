//! `labs simulate --estimate` and `--sprt`: statistical model checking with the native engine,
//! printed as text or JSON (docs/statistical.md).

use super::Backend;
use super::load::Loaded;
use super::verify::engine_failure;
use super::{Failure, exit};
use crate::engine::estimate::{Decision, EstimateOptions, EstimateReport, Method, PropertyEstimate, okamoto_runs};
use crate::limits::Limits;
use crate::stdout::out;
use serde::Serialize;
use std::fmt::Write;

pub(crate) struct EstimateArgs {
    pub(crate) properties: Vec<String>,
    pub(crate) fair: bool,
    pub(crate) json: bool,
    pub(crate) steps: usize,
    pub(crate) seed: u64,
    pub(crate) method: Method,
    pub(crate) threads: usize,
    pub(crate) limits: Limits,
    pub(crate) backend: Backend,
    /// `--report FILE.html`: the figures and the plot of each `finally` property's curve.
    pub(crate) report: Option<std::path::PathBuf>,
}

/// A probability strictly between 0 and 1 (`--epsilon`, `--confidence`, `--sprt`, …).
pub(crate) fn parse_open_unit(s: &str) -> Result<f64, String> {
    let x: f64 = s.trim().parse().map_err(|_| format!("`{s}` is not a number"))?;
    if !(x > 0.0 && x < 1.0) {
        return Err(format!("must lie strictly between 0 and 1, not `{s}`"));
    }
    Ok(x)
}

pub(crate) fn estimate(l: &Loaded, spec_name: &str, a: &EstimateArgs) -> Result<i32, Failure> {
    if a.backend == Backend::Cadp {
        return Err(Failure::new(
            exit::USAGE,
            "--estimate and --sprt run the native engine or labs's LNT interpreter (--backend lnt), not CADP's \
             Executor: its runs follow the same probability model, and `labs simulate --backend cadp` shows them",
        ));
    }
    if let Method::Sprt { theta, indifference, .. } = a.method
        && !(theta - indifference > 0.0 && theta + indifference < 1.0)
    {
        return Err(Failure::new(
            exit::USAGE,
            format!("the indifference region {theta} ± {indifference} must lie strictly inside (0, 1)"),
        ));
    }
    let opts = EstimateOptions {
        fair: a.fair,
        steps: a.steps,
        seed: a.seed,
        properties: if a.properties.is_empty() { None } else { Some(a.properties.clone()) },
        method: a.method,
        threads: a.threads,
        limits: a.limits.clone(),
    };
    let report = if a.backend == Backend::Lnt {
        let analysis = crate::analysis::values::analyse(&l.model, &l.behaviours);
        let src = crate::lntcheck::backend::emit_lnt(
            &l.model,
            &l.behaviours,
            &analysis,
            &l.stem(),
            a.fair,
            crate::lnt::Dialect::FALLBACK,
        )
        .map_err(Failure::from)?;
        crate::lntcheck::simulate::estimate(&l.model, &l.behaviours, &src, &opts)
    } else {
        crate::engine::estimate::estimate(&l.model, &l.behaviours, &opts)
    };
    super::bounds::reporting();
    let report = report.map_err(|e| engine_failure(l, e, a.json))?;
    if a.json {
        super::json::print_pretty(&EstimateDoc {
            spec: spec_name,
            fair: a.fair,
            seed: a.seed,
            steps: a.steps,
            report: &report,
        });
    } else {
        out!("{}", estimate_text(a, &report));
    }
    if let Some(path) = &a.report {
        let backend = if a.backend == Backend::Lnt { "lnt" } else { "native" };
        let meta = super::report::meta(l, "simulate", spec_name, backend, a.fair);
        super::report::write_estimate(&meta, &report, a.steps, path)?;
    }
    match report.stopped {
        Some(r) => {
            eprintln!(
                "warning: {} after {} runs; the figures are those of the runs made",
                super::bounds::stop_text(&a.limits, r),
                report.runs
            );
            Ok(super::bounds::stop_code(r))
        }
        None => Ok(exit::OK),
    }
}

#[derive(Serialize)]
struct EstimateDoc<'a> {
    spec: &'a str,
    fair: bool,
    seed: u64,
    steps: usize,
    #[serde(flatten)]
    report: &'a EstimateReport,
}

fn estimate_text(a: &EstimateArgs, r: &EstimateReport) -> String {
    let mut s = String::new();
    if r.no_initial_state {
        let _ = writeln!(s, "no initial state (the assumptions exclude every initial state)");
        return s;
    }
    let how = match r.method {
        Method::Interval { epsilon, confidence } => {
            format!("Okamoto bound for ±{epsilon} at confidence {confidence}: {}", okamoto_runs(epsilon, confidence))
        }
        Method::Sprt { theta, indifference, alpha, beta, .. } => {
            format!("sequential test of P >= {theta} (indifference ±{indifference}, alpha {alpha}, beta {beta})")
        }
    };
    let _ = writeln!(
        s,
        "{} runs of at most {} steps (seed {}; {how}); {} ended in a deadlock",
        r.runs, a.steps, a.seed, r.deadlocks
    );
    for p in &r.properties {
        let _ = writeln!(s, "  {}", property_line(p));
    }
    s
}

/// One property's figures: `name (modality): estimate [lo, hi], k of n runs`, or its decision.
fn property_line(p: &PropertyEstimate) -> String {
    if !p.estimated {
        return format!("{} ({}): not estimated (no bounded reading)", p.property, p.modality);
    }
    let counts = format!("{} of {} runs", p.successes, p.runs);
    let line = estimate_line(p, &counts);
    match (p.not_refuted, p.not_refuted_interval) {
        (Some(n), Some((lo, hi))) => format!(
            "{line}; not refuted: {:.4} in [{lo:.4}, {hi:.4}], {n} of {} runs (the probability that it holds lies \
             between the two)",
            n as f64 / p.runs.max(1) as f64,
            p.runs
        ),
        (Some(n), None) => format!("{line}; not refuted in {n} of {} runs", p.runs),
        _ => line,
    }
}

/// The estimate of the runs that satisfy the property's bounded reading.
fn estimate_line(p: &PropertyEstimate, counts: &str) -> String {
    let guaranteed = if p.not_refuted.is_some() { "guaranteed " } else { "" };
    match (p.interval, p.decision) {
        (Some((lo, hi)), _) => {
            format!("{} ({}): {guaranteed}{:.4} in [{lo:.4}, {hi:.4}], {counts}", p.property, p.modality, p.estimate)
        }
        (None, Some(d)) => {
            let verdict = match d {
                Decision::Above => "P >= theta accepted",
                Decision::Below => "P < theta accepted",
                Decision::Undecided => "undecided",
            };
            format!("{} ({}): {verdict} after {} runs ({counts}, {:.4})", p.property, p.modality, p.runs, p.estimate)
        }
        (None, None) => format!("{} ({}): {:.4}, {counts}", p.property, p.modality, p.estimate),
    }
}
