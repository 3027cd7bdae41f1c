//! `labs verify --probability`: the option's values, the text beside each verdict, the
//! progress line, and the refusal of `--backend cadp` (docs/probability.md).

use super::{Failure, exit};
use crate::diagnostics::plural;
use crate::engine::VerifyReport;
use crate::engine::probability::{Interval, Steps, SweepProgress};
use std::fmt::Write;

/// `--precision` when not given.
pub(crate) const DEFAULT_PRECISION: f64 = 1e-6;

/// `--estimate-runs` when not given: the report's estimate beside each exact curve.
pub(crate) const DEFAULT_ESTIMATE_RUNS: u64 = 1000;

/// The seed of those runs, and the confidence of the intervals drawn around their estimate.
pub(crate) const ESTIMATE_SEED: u64 = 0;
pub(crate) const ESTIMATE_CONFIDENCE: f64 = 0.95;

/// `verify --probability --report`: the simulation estimate of each `finally` property whose
/// exact curve the page plots, from `--estimate-runs` runs as long as the longest curve
/// (`None` without such a curve, without runs, or after a stopped verification).
pub(crate) fn curve_estimate(
    l: &super::load::Loaded,
    r: &VerifyReport,
    fair: bool,
    runs: u64,
    threads: usize,
    limits: &crate::limits::Limits,
) -> Result<Option<crate::engine::estimate::EstimateReport>, crate::engine::EngineError> {
    use crate::engine::estimate::{EstimateOptions, Method};
    let Some(p) = &r.probabilities else { return Ok(None) };
    let finally: Vec<&crate::engine::probability::PropertyProbability> = p
        .properties
        .iter()
        .filter(|q| !q.within.is_empty())
        .filter(|q| {
            r.results
                .iter()
                .any(|x| x.property == q.property && matches!(x.modality.as_str(), "finally" | "eventually"))
        })
        .collect();
    if finally.is_empty() || runs == 0 || r.stopped.is_some() {
        return Ok(None);
    }
    let steps = finally.iter().map(|q| q.within.len() - 1).max().unwrap_or(0);
    let opts = EstimateOptions {
        fair,
        steps,
        seed: ESTIMATE_SEED,
        properties: Some(finally.iter().map(|q| q.property.clone()).collect()),
        // The runs asked for, whatever precision they give: their interval is drawn.
        method: Method::Interval { epsilon: 1e-3, confidence: ESTIMATE_CONFIDENCE, max_runs: Some(runs) },
        threads,
        limits: limits.clone(),
    };
    crate::engine::estimate::estimate(&l.model, &l.behaviours, &opts).map(Some)
}

/// `--precision E`: a number in (0, 0.5].
pub(crate) fn parse_precision(s: &str) -> Result<f64, String> {
    let e: f64 = s.trim().parse().map_err(|_| format!("`{s}` is not a number"))?;
    if !e.is_finite() || e <= 0.0 || e > 0.5 {
        return Err(format!("the precision must be a number in (0, 0.5], not `{s}`"));
    }
    if e < 1e-12 {
        return Err(format!("the precision must be at least 1e-12 (the intervals carry rounding errors), not `{s}`"));
    }
    Ok(e)
}

/// `--probability --backend cadp`.
pub(crate) fn cadp_refused() -> Failure {
    Failure::new(
        exit::USAGE,
        "`--probability` applies to the native engine and to --backend lnt, not to --backend cadp: CADP's \
         Markov-chain tools (bcg_transient, bcg_steady) read a model with rates, which labs does not emit \
         (docs/probability.md says how to build one by hand)"
            .to_string(),
    )
}

/// The digits after the point that show an interval of width `precision`.
fn digits(precision: f64) -> usize {
    ((-precision.log10()).ceil().max(1.0) as usize).min(15)
}

/// `0.982716 [0.982715, 0.982717]`: the middle, and the bounds rounded outwards, so that the
/// printed interval still contains the value.
pub(crate) fn interval_text(i: &Interval, decimals: usize) -> String {
    let scale = 10f64.powi(decimals as i32);
    // `+ 0.0` turns a -0 (the ceiling of a tiny negative rounding margin) into 0.
    let lo = (i.lower * scale).floor() / scale + 0.0;
    let hi = (i.upper * scale).ceil() / scale + 0.0;
    let mid = (i.lower + i.upper) / 2.0 + 0.0;
    format!("{mid:.decimals$} [{lo:.decimals$}, {hi:.decimals$}]")
}

/// An expected number of steps, with `significant` significant digits.
fn steps_text(s: &Steps, significant: usize) -> String {
    match s {
        Steps::Infinite => "infinite (ψ is missed with positive probability)".into(),
        Steps::Within(i) if i.upper.is_infinite() => format!("at least {:.3}", i.lower),
        Steps::Within(i) => {
            let mag = i.upper.abs().max(1.0).log10().floor() as usize;
            interval_text(i, significant.saturating_sub(1 + mag).max(1))
        }
    }
}

/// What follows a property's verdict: its probability, then for `finally` a line of expected
/// steps (empty when the run computed no probability).
pub(crate) fn beside_verdict(r: &VerifyReport, property: &str, indent: usize, precision: f64) -> String {
    let Some(p) = r.probabilities.as_ref().and_then(|p| p.properties.iter().find(|p| p.property == property)) else {
        return String::new();
    };
    let mut s = String::new();
    match (&p.probability, &p.why_not) {
        (Some(i), _) => {
            let _ = write!(s, "  probability {}", interval_text(i, digits(precision)));
            if let Some(reading) = p.reading {
                let _ = write!(s, " (of `{reading}` ψ)");
            }
            if !p.converged {
                s += " (stopped before the precision was reached)";
            }
        }
        (None, Some(why)) => {
            let _ = write!(s, "  probability not computed: {why}");
        }
        (None, None) => {}
    }
    if let Some(e) = &p.expected_steps {
        let _ = write!(s, "\n{:indent$}  expected steps to ψ: {}", "", steps_text(e, digits(precision)));
        match (&p.expected_steps_if_reached, e) {
            (Some(c), Steps::Infinite) => {
                let _ = write!(s, "; {} among the runs that reach it", steps_text(c, digits(precision)));
            }
            (None, Steps::Infinite) => s += "; no run reaches it",
            _ => {}
        }
    }
    s
}

/// The progress line of the iterations, on standard error.
pub(crate) fn progress_line(p: &SweepProgress) {
    eprint!(
        "\r{} of {}: {:>8} sweeps [{:.9}, {:.9}] {:>7.1}s ",
        p.quantity, p.property, p.sweeps, p.interval.lower, p.interval.upper, p.seconds
    );
}

/// The line after the statistics: how the chain was read.
pub(crate) fn chain_text(r: &VerifyReport) -> Option<String> {
    let c = &r.probabilities.as_ref()?.chain;
    Some(if c.stored {
        format!(
            "probabilities: a chain of {} entries stored in {} MiB, built in {:.2} s; computed in {:.2} s",
            c.entries,
            c.bytes.div_ceil(1 << 20),
            c.build_seconds,
            c.seconds
        )
    } else {
        format!(
            "probabilities: the chain's rows recomputed at every sweep (storing them would pass the memory bound); \
             computed in {:.2} s",
            c.seconds
        )
    })
}

/// With `--backend lnt`: the line after the statistics, the LNT program's chain and whether it
/// is the native engine's.
pub(crate) fn lnt_chain_text(r: &VerifyReport) -> Option<String> {
    let p = r.probabilities.as_ref()?;
    let Some(c) = &p.lnt else {
        return Some(
            "probabilities: not computed, the run was stopped before the LNT program's chain was explored whole".into(),
        );
    };
    let mut s = format!(
        "probabilities on the LNT program's chain: {} ({} initial), {}, explored in {:.2} s; computed in {:.2} s",
        plural(c.states as usize, "state", "states"),
        c.initial_states,
        plural(p.chain.entries as usize, "entry", "entries"),
        p.chain.build_seconds,
        p.chain.seconds
    );
    if c.same_distribution {
        s += "; the same distribution as the native engine's chain";
    } else {
        s += "; its distribution is not the native engine's (docs/probability.md, \"The LNT program's chain\"):";
        if c.differing_states > 0 {
            let _ = write!(
                s,
                " at {} of its states two steps of one agent of the same kind reach the same state, which the \
                 native engine counts twice and the LNT program once;",
                c.differing_states
            );
        }
        if c.initial_differs {
            s += " the native engine lists some initial states more than once (an initialiser repeats a value), \
                  the LNT program each once;";
        }
        s += " the probabilities are those of the LNT program's chain";
    }
    Some(s)
}
