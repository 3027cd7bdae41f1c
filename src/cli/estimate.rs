//! `labs simulate --estimate` and `--sprt`: statistical model checking with the native engine or
//! labs's LNT interpreter, printed as text or JSON, and the report page (docs/statistical.md).

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

/// The parameters of Wald's test that make a test at all (each already lies in (0, 1)): the
/// indifference region `theta ± indifference` inside (0, 1), so that both hypotheses are
/// probabilities a run can have, and `alpha + beta < 1`, without which the two thresholds
/// cross zero and a single run decides.
pub(crate) fn sprt_parameters(theta: f64, indifference: f64, alpha: f64, beta: f64) -> Result<(), String> {
    if !(theta - indifference > 0.0 && theta + indifference < 1.0) {
        return Err(format!(
            "the indifference region {theta} ± {indifference} (--sprt ± --indifference) must lie strictly inside (0, 1)"
        ));
    }
    if alpha + beta >= 1.0 {
        return Err(format!(
            "--alpha {alpha} and --beta {beta} add up to {}: the test needs alpha + beta < 1 (at 1 or more a single run \
             decides it, whatever the runs show)",
            alpha + beta
        ));
    }
    Ok(())
}

pub(crate) fn estimate(l: &Loaded, spec_name: &str, a: &EstimateArgs) -> Result<i32, Failure> {
    if a.backend == Backend::Cadp {
        return Err(Failure::new(
            exit::USAGE,
            "--estimate and --sprt run the native engine or labs's LNT interpreter (--backend lnt), not CADP's \
             Executor: its runs follow the same probability model, and `labs simulate --backend cadp` shows them",
        ));
    }
    if let Method::Sprt { theta, indifference, alpha, beta, .. } = a.method {
        sprt_parameters(theta, indifference, alpha, beta).map_err(|m| Failure::new(exit::USAGE, m))?;
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
            externs: &l.model.externs,
            backend: if a.backend == Backend::Lnt { "lnt" } else { "native" },
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
    externs: &'a std::collections::BTreeMap<String, i64>,
    backend: &'static str,
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
    let runs = match r.runs_planned {
        Some(planned) if planned != r.runs => format!("{} of {planned} planned runs", r.runs),
        _ => format!("{} runs", r.runs),
    };
    let how = match r.method {
        Method::Interval { epsilon, confidence, max_runs } => {
            let bound = okamoto_runs(epsilon, confidence);
            let cap = match max_runs {
                Some(m) if m < bound => format!("--max-runs {m}, under the "),
                _ => String::new(),
            };
            format!("{cap}Okamoto bound for ±{epsilon} at confidence {confidence}: {bound}")
        }
        Method::Sprt { theta, indifference, alpha, beta, .. } => {
            format!("sequential test of P >= {theta} (indifference ±{indifference}, alpha {alpha}, beta {beta})")
        }
    };
    let _ = writeln!(
        s,
        "{runs} of at most {} steps (seed {}; {how}); {} ended in a deadlock",
        a.steps, a.seed, r.deadlocks
    );
    if let Method::Interval { epsilon, confidence, .. } = r.method {
        match r.epsilon_achieved {
            None => {
                let _ = writeln!(s, "  no run was made: no estimate");
            }
            Some(achieved) if achieved > epsilon => {
                let _ = writeln!(
                    s,
                    "  {} runs support ±{} at confidence {confidence} (Okamoto), not ±{epsilon}: each interval below \
                     is the exact one of these runs",
                    r.runs,
                    round_up(achieved)
                );
            }
            Some(_) => {}
        }
    }
    for p in &r.properties {
        let _ = writeln!(s, "  {}", property_line(p, a.steps));
    }
    s
}

/// A half-width shown with 4 decimals, rounded up (so that it still bounds the intervals).
fn round_up(x: f64) -> String {
    format!("{:.4}", (x * 1e4).ceil() / 1e4)
}

/// One property's figures: `name (modality): estimate in [lo, hi], k of n runs`, or its
/// decision; for a linear-time formula whose runs the step bound left undecided, the runs its
/// prefixes guarantee and those they do not refute.
fn property_line(p: &PropertyEstimate, steps: usize) -> String {
    let head = format!("{} ({})", p.property, p.modality);
    if !p.estimated {
        return format!("{head}: not estimable on bounded runs (a branching property: no single run decides it)");
    }
    let Some(estimate) = p.estimate else { return format!("{head}: no estimate (no run)") };
    let undecided = p.not_refuted.map_or(0, |n| n - p.successes);
    if undecided == p.runs {
        return format!(
            "{head}: not estimable on bounded runs: none of the {} runs decided it within {steps} steps (no finite \
             prefix decides `finally always ψ`, `always finally ψ` and the like, only a run that ends in a deadlock; \
             another formula may need more --steps)",
            p.runs
        );
    }
    let counts = format!("{} of {} runs", p.successes, p.runs);
    if undecided == 0 {
        return match p.interval {
            Some((lo, hi)) => format!("{head}: {estimate:.4} in [{lo:.4}, {hi:.4}], {counts}"),
            None => format!("{head}: {} after {} runs ({counts}, {estimate:.4})", decision_text(p, steps), p.runs),
        };
    }
    let n = p.not_refuted.unwrap_or(p.runs);
    let upper = n as f64 / p.runs as f64;
    let left = format!("{undecided} runs undecided within {steps} steps");
    match (p.interval, p.not_refuted_interval) {
        (Some((lo, hi)), Some((nlo, nhi))) => format!(
            "{head}: guaranteed {estimate:.4} in [{lo:.4}, {hi:.4}], {counts}; not refuted: {upper:.4} in \
             [{nlo:.4}, {nhi:.4}], {n} of {} runs (the probability that it holds lies between the two; {left})",
            p.runs
        ),
        _ => format!(
            "{head}: {} after {} runs (guaranteed by {counts}, not refuted by {n}; {left})",
            decision_text(p, steps),
            p.runs
        ),
    }
}

/// What a sequential test concluded.
fn decision_text(p: &PropertyEstimate, steps: usize) -> String {
    match p.decision {
        Some(Decision::Above) => "P >= theta accepted".into(),
        Some(Decision::Below) => "P < theta accepted".into(),
        Some(Decision::Inconclusive) => format!(
            "not decided by bounded runs (the runs left undecided within {steps} steps could put the probability on \
             either side of theta)"
        ),
        Some(Decision::Undecided) | None => "undecided".into(),
    }
}
