//! `labs verify` with the native engine: output, exit codes, progress.

use super::json::{RuntimeErrorDoc, VerifyDoc};
use super::load::Loaded;
use super::{Failure, exit};
use crate::diagnostics::plural;
use crate::engine::{self, EngineError, Progress, StopReason, Verdict, VerifyOptions, VerifyReport, Workers};
use crate::limits::Limits;
use crate::stdout::out;
use crate::trace;
use std::fmt::Write;
use std::sync::Arc;

pub(crate) struct VerifyArgs {
    pub(crate) properties: Vec<String>,
    pub(crate) fair: bool,
    /// `--fairness` (docs/semantics.md, D15).
    pub(crate) fairness: Option<engine::Fairness>,
    pub(crate) json: bool,
    /// The exploration's threads, already started.
    pub(crate) workers: Option<Arc<Workers>>,
    pub(crate) max_states: Option<u64>,
    /// The run's bounds (`--timeout`, `--memory`, Ctrl-C), started with the command.
    pub(crate) limits: Limits,
    /// `--report FILE.html`.
    pub(crate) report: Option<std::path::PathBuf>,
    /// Symmetry reduction where sound (not `--no-reduction`).
    pub(crate) symmetry: bool,
    /// `--exhaustive`.
    pub(crate) exhaustive: bool,
    /// `--edges`.
    pub(crate) edges: engine::EdgePolicy,
    /// `--store`.
    pub(crate) store: engine::state::StorePolicy,
    /// `--check-analysis`.
    pub(crate) check_analysis: bool,
    /// `--probability`, with its precision.
    pub(crate) probability: Option<f64>,
    /// `--estimate-runs`: the runs of the estimate the report draws beside the exact curves.
    pub(crate) estimate_runs: u64,
}

fn progress_line(p: &Progress) {
    if let Some(phase) = &p.phase {
        super::status::show(&format!(
            "{phase}: {:>10} automaton states {:>10} transitions {:>7.1}s",
            p.states, p.transitions, p.seconds
        ));
        return;
    }
    let rate = if p.seconds > 0.0 { p.states as f64 / p.seconds } else { 0.0 };
    let mib = p.memory_bytes / (1 << 20);
    super::status::show(&if p.initial {
        format!("{:>12} initial states {:>10.0} states/s {mib:>8} MiB {:>7.1}s", p.states, rate, p.seconds)
    } else {
        format!(
            "{:>12} states {:>12} transitions {:>10.0} states/s {mib:>8} MiB queue {:>10} {:>7.1}s",
            p.states, p.transitions, rate, p.queue, p.seconds
        )
    });
}

pub(super) fn engine_failure(l: &Loaded, e: EngineError, json: bool) -> Failure {
    match e {
        EngineError::Runtime { message, trace } => {
            let head = format!("run-time error of the model: {message}");
            with_trace(l, head, message, trace, "(while computing the initial states)", json)
        }
        EngineError::AnalysisMissed { message, trace } => {
            let head = format!("internal error: {message}");
            with_trace(l, head.clone(), head, trace, "(no trace could be built to the state)", json)
        }
        EngineError::UnknownProperty(p) => super::load::unknown_property(l, &p),
        e @ (EngineError::Internal(_) | EngineError::RunRefused { .. }) => Failure::new(exit::BACKEND, e.to_string()),
        e @ EngineError::NoInitialDrawn { .. } => Failure::new(exit::INCONCLUSIVE, e.to_string()),
    }
}

/// An error met at a state, with the trace that reaches it (`json`: as a JSON document on
/// stdout, whose `error` is `json_error`); `without` says why there is no trace.
fn with_trace(
    l: &Loaded,
    head: String,
    json_error: String,
    trace: Option<Box<crate::engine::path::Trace>>,
    without: &str,
    json: bool,
) -> Failure {
    let mut text = format!("error: {head}\n");
    // The action that fails, located in the spec, when an agent step of the last state meets
    // this error.
    let site =
        trace.as_ref().and_then(|t| engine::runtime_error_site(&l.model, &l.behaviours, t.fair, t.last(), &json_error));
    if let Some(span) = site {
        let located = crate::diagnostics::Diagnostic::error(span, "").render(&l.file);
        text.extend(located.lines().skip(1).map(|line| format!("{line}\n")));
    }
    match trace {
        Some(t) if json => {
            let trace = trace::to_json(&l.model, &l.behaviours, &t);
            super::json::print_pretty(&RuntimeErrorDoc { error: json_error, trace });
        }
        Some(t) => {
            let _ = writeln!(text, "the trace that reaches it:\n{}", trace::render(&l.model, &l.behaviours, &t));
        }
        None => {
            text += without;
            text.push('\n');
        }
    }
    Failure { code: exit::BACKEND, message: text }
}

pub(crate) fn verify(l: &Loaded, spec_name: &str, a: &VerifyArgs) -> Result<i32, Failure> {
    let show_progress = super::status::wanted(a.json);
    let opts = VerifyOptions {
        fair: a.fair,
        fairness: a.fairness,
        properties: if a.properties.is_empty() { None } else { Some(a.properties.clone()) },
        threads: a.workers.as_ref().map_or(1, |w| w.threads()),
        workers: a.workers.clone(),
        max_states: a.max_states,
        limits: a.limits.clone(),
        progress: if show_progress { Some(Arc::new(progress_line)) } else { None },
        symmetry: a.symmetry,
        check_analysis: a.check_analysis,
        exhaustive: a.exhaustive,
        edges: a.edges,
        store: a.store,
        probability: a.probability.map(|precision| engine::probability::ProbabilityOptions {
            precision,
            curve: a.report.is_some(),
            progress: if show_progress { Some(Arc::new(super::probability::progress_line)) } else { None },
        }),
    };
    let report = engine::verify(&l.model, &l.behaviours, &opts);
    super::bounds::reporting();
    super::status::clear();
    let report = report.map_err(|e| engine_failure(l, e, a.json))?;
    replayed(l, &report)?;
    if report.stats.initial_states == 0 && !report.stats.decided_early && report.stopped.is_none() {
        eprintln!(
            "warning: the system has no initial state (the assumptions or an empty range initialiser exclude \
             every one): every property holds vacuously"
        );
    }
    if a.json {
        let mut doc = VerifyDoc::new(l, spec_name, a.fair, &report);
        doc.fairness = a.fairness.map(engine::Fairness::as_str);
        super::json::print_pretty(&doc);
    } else {
        if let Some(f) = a.fairness {
            out!("{}", fairness_line(f));
        }
        out!("{}", verify_text(l, &report, a.probability.unwrap_or(0.0)));
    }
    if let Some(r) = report.stopped {
        eprintln!("warning: {}", super::bounds::stop_text(&a.limits, r));
    }
    if let Some(p) = &a.report {
        let threads = a.workers.as_ref().map_or(1, |w| w.threads());
        let estimate = super::probability::curve_estimate(l, &report, a.fair, a.estimate_runs, threads, &a.limits)
            .map_err(|e| engine_failure(l, e, a.json))?;
        let sim = estimate.as_ref().map(|e| crate::report::Simulated {
            report: e,
            seed: super::probability::ESTIMATE_SEED,
            confidence: super::probability::ESTIMATE_CONFIDENCE,
        });
        super::report::write_verify(
            l,
            &super::report::meta(l, "verify", spec_name, "native", a.fair),
            &report,
            vec![],
            sim.as_ref(),
            p,
        )?;
    }
    Ok(verify_exit_code(&report))
}

/// Every counterexample of the report has passed the independent replay.
pub(super) fn replayed(l: &Loaded, r: &VerifyReport) -> Result<(), Failure> {
    let traces =
        r.results.iter().filter_map(|x| Some((format!("counterexample for {}", x.property), x.trace.as_ref()?)));
    Ok(trace::replay_all(&l.model, &l.behaviours, traces)?)
}

pub(super) fn verify_exit_code(r: &VerifyReport) -> i32 {
    if r.results.iter().any(|x| x.verdict == Verdict::Violated) {
        return exit::VIOLATED;
    }
    if r.results.iter().any(|x| x.verdict == Verdict::Unknown) || r.stopped.is_some() {
        return match r.stopped {
            Some(StopReason::Timeout) => exit::TIMEOUT,
            Some(StopReason::Interrupted) => exit::INTERRUPTED,
            _ => exit::INCONCLUSIVE,
        };
    }
    exit::OK
}

/// The verdicts, the counterexamples, then the statistics: the whole run's wall-clock time
/// first (what a user waits for), then the back end's own time (`stats.seconds`).
pub(super) fn verify_text(l: &Loaded, r: &VerifyReport, precision: f64) -> String {
    let mut s = results_text(l, r, precision);
    let st = &r.stats;
    // Above the counts line, which stays last unless a note follows.
    let edges = match (r.stopped, st.edges) {
        // The budget was never checked against: the run stopped first.
        (Some(_), engine::EdgeUse::WithinBudget { .. }) => "successor lists kept until the run stopped".to_string(),
        _ => edges_text(&st.edges),
    };
    let _ = writeln!(s, "\n{edges}");
    // Decided before the exploration stored a state: what the depth-first searches visited.
    let counts = if st.decided_early && st.states == 0 {
        format!("{} visited by the depth-first search, none stored", count(st.searched_states, "state"))
    } else {
        format!(
            "{}, {}, {}",
            count(st.states, "state"),
            count(st.transitions, "transition"),
            count(st.deadlocks, "deadlock")
        )
    };
    let _ = writeln!(
        s,
        "{counts}, {:.2} s wall clock (exploration {:.2} s), peak memory {} MiB",
        super::run_seconds(),
        st.seconds,
        st.peak_rss_mib
    );
    if let Some(red) = &st.reduction {
        let _ = writeln!(s, "counts of representatives up to {red}; --no-reduction counts every state");
    }
    if let Some(c) = super::probability::chain_text(r) {
        let _ = writeln!(s, "{c}");
    }
    s += &search_text(r);
    s
}

/// What the exploration searched, where it did not search every reachable state
/// (docs/semantics.md, D9), or why it went on past the violations.
pub(super) fn search_text(r: &VerifyReport) -> String {
    let st = &r.stats;
    // An expanded state has a successor or is a deadlock: without either, the run stopped
    // before it expanded any state, while the initial states were enumerated.
    let expanded_none = st.transitions == 0 && st.deadlocks == 0;
    let mut s = String::new();
    if st.decided_early && st.states == 0 {
        let _ = writeln!(
            s,
            "every property was decided by a depth-first search, before the exploration stored any state (a \
             search that ends without a violation has searched every state it can reach); not searched: the \
             states no search reached, where the value analysis shows no run-time error can be met \
             (--exhaustive explores every state)"
        );
    } else if st.decided_early {
        let _ = writeln!(
            s,
            "exploration stopped as soon as every property was decided: the counts are of the explored part; \
             not searched: the states beyond it, where the value analysis shows no run-time error can be met \
             (--exhaustive explores every state)"
        );
    }
    if let Some(w) = &st.went_on {
        let _ = writeln!(
            s,
            "every property was violated within the first {}, but the exploration went on to every state: \
             a run-time error is reported whatever the properties, and the value analysis cannot exclude one \
             ({})",
            count(w.violated_at, "state"),
            w.reason
        );
    }
    let probabilities_cut =
        r.probabilities.as_ref().is_some_and(|p| p.properties.iter().any(|p| p.probability.is_some() && !p.converged));
    match r.stopped {
        Some(stop) if probabilities_cut => {
            let _ = writeln!(
                s,
                "probabilities stopped early: {} after exploring all {} states; the intervals printed are the \
                 ones reached, wider than --precision",
                super::bounds::reason_text(stop),
                st.states
            );
        }
        Some(stop) if expanded_none => {
            let _ = writeln!(
                s,
                "exploration stopped while the initial states were enumerated ({} stored): {}; undecided \
                 properties are `unknown`",
                st.states,
                super::bounds::reason_text(stop),
            );
        }
        Some(stop) => {
            let _ = writeln!(
                s,
                "exploration stopped early: {} after {} states; undecided properties are `unknown`; not searched: \
                 the states beyond, and the run-time errors they may meet",
                super::bounds::reason_text(stop),
                st.states
            );
        }
        None => {}
    }
    s
}

/// Which successors the checks read, and why.
fn edges_text(e: &engine::EdgeUse) -> String {
    let mib = |b: u64| b.div_ceil(1 << 20);
    match *e {
        engine::EdgeUse::Chosen { kept: true } => "successor lists kept (--edges keep)".into(),
        engine::EdgeUse::Chosen { kept: false } => "successors recomputed by the checks (--edges recompute)".into(),
        engine::EdgeUse::NotNeeded => "successor lists not kept: no property needs them".into(),
        engine::EdgeUse::WithinBudget { budget_bytes: Some(b) } => {
            format!("successor lists kept: the memory stayed within {} MiB (half the memory bound)", mib(b))
        }
        engine::EdgeUse::WithinBudget { budget_bytes: None } => "successor lists kept (no memory bound)".into(),
        engine::EdgeUse::OverBudget { budget_bytes, at_states } => format!(
            "successor lists dropped at {} when the memory passed {} MiB (half the memory bound); the checks \
             recomputed successors (--edges keep keeps them)",
            count(at_states, "state"),
            mib(budget_bytes)
        ),
    }
}

/// One line per verdict (with `--probability`, the property's probability beside it, shown
/// to `precision`), then the counterexamples.
pub(super) fn results_text(l: &Loaded, r: &VerifyReport, precision: f64) -> String {
    let mut s = String::new();
    let width = r.results.iter().map(|x| x.property.len()).max().unwrap_or(0);
    for x in &r.results {
        let beside = super::probability::beside_verdict(r, &x.property, width + 2 + 8, precision);
        match (&x.reason, beside.is_empty()) {
            (Some(why), _) => {
                let _ = writeln!(s, "{:<width$}  {} ({why})", x.property, x.verdict.as_str());
            }
            (None, true) => {
                let _ = writeln!(s, "{:<width$}  {}", x.property, x.verdict.as_str());
            }
            (None, false) => {
                let _ = writeln!(s, "{:<width$}  {:<8}{beside}", x.property, x.verdict.as_str());
            }
        }
    }
    if r.results.is_empty() {
        let _ = writeln!(s, "(the spec has no properties to check)");
    }
    for x in &r.results {
        if let Some(t) = &x.trace {
            let _ = writeln!(s, "\ncounterexample for {} ({}):", x.property, x.modality);
            s += &trace::render(&l.model, &l.behaviours, t);
            if let Some(f) = &x.fair_loop {
                s += &fair_loop_text(f);
            }
        }
    }
    s
}

/// What `--fairness` assumes, above the verdicts.
fn fairness_line(f: engine::Fairness) -> String {
    let what = match f {
        engine::Fairness::Weak => "runs in which an agent stays enabled and never steps are ignored",
        engine::Fairness::Strong => {
            "runs in which an agent is enabled infinitely often and steps finitely often are ignored"
        }
        engine::Fairness::AlmostSure => {
            "finally, scoped and linear-time properties must hold with probability 1 under the random scheduler"
        }
    };
    format!("{} fairness: {what} (always, fairly and fairly_inf unchanged)\n", f.as_str())
}

/// The agents acting and enabled in a fair counterexample's loop.
fn fair_loop_text(f: &engine::LoopAgents) -> String {
    let ids = |v: &[usize]| {
        if v.is_empty() { "none".to_string() } else { v.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", ") }
    };
    let notion = f.notion.map_or("", engine::Fairness::as_str);
    if f.acting.is_empty() && f.enabled_somewhere.is_empty() {
        return format!("{notion} fair: the run ends in a deadlock, where no agent is enabled\n");
    }
    format!(
        "{notion} fair loop: agents acting {}; enabled throughout {}; enabled somewhere {}\n",
        ids(&f.acting),
        ids(&f.enabled_throughout),
        ids(&f.enabled_somewhere)
    )
}

/// `1 state`, `2 states`.
fn count(n: u64, noun: &str) -> String {
    plural(n as usize, noun, &format!("{noun}s"))
}
