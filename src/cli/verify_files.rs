//! `labs verify --backend lnt` and `--backend cadp`: the back end's one call
//! (`lntcheck::verify`, `cadp::verify`), its report printed as the native back end prints
//! verdicts and traces, followed by the statistics of the script's LTSs.

use super::json::{CadpDoc, LntDoc, LtsDoc, StatsDoc, VerifyDoc};
use super::load::Loaded;
use super::verify::{results_text, verify_exit_code};
use super::{Backend, Failure, exit};
use crate::analysis::values::analyse;
use crate::diagnostics::plural;
use crate::lnt::names;
use crate::lts_backend::{Options, Report};
use crate::stdout::out;
use std::fmt::Write;
use std::path::PathBuf;

/// What the command line says beyond the back end's `Options`.
pub(crate) struct FilesVerifyArgs {
    pub(crate) backend: Backend,
    pub(crate) json: bool,
    /// `--workflow`; `None`: chosen from the value analysis.
    pub(crate) workflow: Option<crate::lts_backend::Workflow>,
    /// `--report FILE.html`.
    pub(crate) report: Option<PathBuf>,
    /// `--probability`, with its precision (`--backend lnt` only).
    pub(crate) probability: Option<f64>,
}

/// Verifies by the emitted files with `a.backend` (`Lnt` or `Cadp`); `opts.workflow`,
/// `base` and `source` are set here.
pub(crate) fn verify_files(
    l: &Loaded,
    spec_name: &str,
    mut opts: Options,
    a: &FilesVerifyArgs,
) -> Result<i32, Failure> {
    if let Some(p) = opts.properties.iter().find(|p| !l.model.properties.iter().any(|x| &x.name == *p)) {
        return Err(super::load::unknown_property(l, p));
    }
    let analysis = analyse(&l.model, &l.behaviours);
    let choice = crate::lts_backend::choose_workflow(a.workflow, &analysis);
    if !choice.asked && !choice.unbounded.is_empty() {
        let what: Vec<String> =
            choice.unbounded.iter().map(|(v, range)| format!("`{}` ({range})", l.model.vars[*v].name)).collect();
        super::status::note(format_args!(
            "note: the monolithic workflow runs: the value analysis does not bound {}, so the compositional \
             script's leaves, generated alone, would enumerate all these values",
            what.join(", ")
        ));
    }
    opts.workflow = choice.workflow;
    opts.base = names::module_name(&l.stem());
    opts.source = crate::lnt::source_text(&l.file.name, &l.model);
    let cadp = a.backend == Backend::Cadp;
    let show_progress = super::status::wanted(a.json);
    let mut script_stopped = true;
    let report = if cadp {
        if show_progress {
            opts.progress = Some(std::sync::Arc::new(|line: &str| eprintln!("cadp: {line}")));
        }
        if opts.workflow == crate::lts_backend::Workflow::Compositional {
            for w in super::emit::unbounded_inputs(l, &analysis) {
                eprintln!("{}", w.replace("use the monolithic script (`*_mono.svl`)", "use `--workflow monolithic`"));
            }
        }
        crate::cadp::verify(&l.model, &l.behaviours, &analysis, &opts).map_err(|e| cadp_failure(l, e, a.json))?
    } else {
        if show_progress {
            opts.phase_progress = Some(std::sync::Arc::new(phase_line));
        }
        let report = crate::lntcheck::verify(&l.model, &l.behaviours, &analysis, &opts);
        super::status::clear();
        let mut report = report.map_err(|e| lnt_failure(l, e, a.json))?;
        script_stopped = report.verify.stopped.is_some();
        if let Some(precision) = a.probability {
            lnt_probabilities(l, &analysis, &opts, precision, show_progress, a.report.is_some(), &mut report)
                .map_err(|e| super::verify::engine_failure(l, e, a.json))?;
        }
        report
    };
    // A stop after the script: while the probabilities were computed.
    let in_probabilities = report.verify.stopped.is_some() && !script_stopped;
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    if report.cross_checked {
        super::status::note("cross-check: the native engine gives the same verdicts");
    }
    super::bounds::reporting();
    let backend = if cadp { "cadp" } else { "lnt" };
    if a.json {
        super::json::print_pretty(&json_doc(l, spec_name, &opts, &report, cadp));
    } else {
        out!("{}", text(l, &report, cadp, a.probability.unwrap_or(0.0), in_probabilities));
    }
    if let (Some(r), false) = (report.verify.stopped, cadp) {
        let phase = if in_probabilities {
            "the probabilities were computed".to_string()
        } else {
            format!("{} ran", report.script)
        };
        eprintln!("warning: {} while {phase}", super::bounds::stop_text(&opts.limits, r));
    }
    if let Some(p) = &a.report {
        let meta = super::report::meta(l, "verify", spec_name, backend, opts.fair);
        let workflow = if cadp {
            report.workflow.as_str().to_string()
        } else {
            format!("{} ({})", report.workflow.as_str(), report.script)
        };
        let stats = super::report::lts_stats(workflow, &report);
        super::report::write_verify(l, &meta, &report.verify, stats, None, p)?;
    }
    Ok(verify_exit_code(&report.verify))
}

/// `--probability` with `--backend lnt`: the probabilities on the chain of the emitted LNT
/// program, run by the interpreter (docs/probability.md, "The LNT program's chain"); a stop
/// while they are computed is the run's stop.
fn lnt_probabilities(
    l: &Loaded,
    analysis: &crate::analysis::values::ValueAnalysis,
    opts: &Options,
    precision: f64,
    show_progress: bool,
    curve: bool,
    report: &mut Report,
) -> Result<(), crate::engine::EngineError> {
    let src = crate::lntcheck::backend::emit_lnt(
        &l.model,
        &l.behaviours,
        analysis,
        &l.stem(),
        opts.fair,
        crate::lnt::Dialect::FALLBACK,
    )
    .map_err(|e| crate::engine::EngineError::Internal(e.to_string()))?;
    let popts = crate::engine::probability::ProbabilityOptions {
        precision,
        curve,
        progress: if show_progress { Some(std::sync::Arc::new(super::probability::progress_line)) } else { None },
    };
    let progress = if show_progress { opts.phase_progress.as_ref() } else { None };
    let p = crate::lntcheck::probability::probabilities(
        &l.model,
        &l.behaviours,
        &src,
        &opts.properties,
        opts.fair,
        &opts.limits,
        &popts,
        progress,
    );
    super::status::clear();
    report.verify.probabilities = Some(p?);
    report.verify.stopped = report.verify.stopped.or(opts.limits.stopped());
    Ok(())
}

/// One line of progress of labs's interpreters, rewritten in place (as the native engine's):
/// the phase first, so that a narrow terminal cuts the figures rather than what runs.
pub(super) fn phase_line(p: &crate::lts_backend::PhaseProgress) {
    let rate = if p.seconds > 0.0 { p.states as f64 / p.seconds } else { 0.0 };
    let phase: String = p.phase.chars().take(40).collect();
    super::status::show(&format!(
        "{phase}: {} states, {} transitions, {rate:.0} states/s, {:.1} s",
        p.states, p.transitions, p.seconds
    ));
}

fn json_doc<'a>(l: &'a Loaded, spec_name: &'a str, opts: &Options, r: &'a Report, cadp: bool) -> VerifyDoc<'a> {
    let lts_doc = |file: &str, states, transitions| LtsDoc { file: file.to_string(), states, transitions };
    let mut doc = VerifyDoc::new(l, spec_name, opts.fair, &r.verify);
    let files = r.kept_files.as_ref().map(|d| d.display().to_string());
    doc.stats = StatsDoc::Lts {
        seconds: r.verify.stats.seconds,
        peak_rss_mib: r.verify.stats.peak_rss_mib,
        lts: r.lts.iter().map(|x| lts_doc(&x.file, x.states, x.transitions)).collect(),
    };
    if cadp {
        doc.backend = "cadp";
        doc.cadp = Some(CadpDoc {
            workflow: r.workflow.as_str(),
            lnt_dialect: r.dialect.name(),
            cross_checked: opts.cross_check,
            files,
            diagnostics: r.diagnostic_sources.iter().cloned().collect(),
        });
    } else {
        doc.backend = "lnt";
        for v in &r.statements {
            if let Some(d) = v.result.and_then(|i| doc.results.get_mut(i)) {
                d.mcl = Some(v.mcl.clone());
                d.lts = Some(lts_doc(&v.bcg, v.states, v.transitions));
            }
        }
        doc.lnt = Some(LntDoc {
            workflow: r.workflow.as_str(),
            lnt_dialect: r.dialect.name(),
            script: r.script.clone(),
            files,
        });
    }
    doc
}

/// The verdicts and counterexamples as the native back end prints them; the statistics are
/// those of the script's LTSs (not LAbS states: the reductions merge them).
fn text(l: &Loaded, r: &Report, cadp: bool, precision: f64, in_probabilities: bool) -> String {
    let mut s = results_text(l, &r.verify, precision);
    if cadp {
        let _ = write!(s, "\nCADP, {} workflow: ", r.workflow.as_str());
    } else {
        let _ = writeln!(s, "\nLNT interpreter, {} workflow ({}):", r.workflow.as_str(), r.script);
        for v in &r.statements {
            let _ = writeln!(
                s,
                "  {}: {} on {} ({}, {})",
                v.check,
                v.mcl,
                v.bcg,
                plural(v.states as usize, "state", "states"),
                plural(v.transitions as usize, "transition", "transitions")
            );
        }
    }
    let _ = write!(s, "{}", plural(r.lts.len(), "LTS", "LTSs"));
    if let Some(x) = r.lts.iter().max_by_key(|x| x.states) {
        let _ = write!(s, ", the largest {} states and {} transitions ({})", x.states, x.transitions, x.file);
    }
    let memory = if cadp { "peak memory of labs" } else { "peak memory" };
    let _ = writeln!(s, "; {:.2} s, {memory} {} MiB", r.verify.stats.seconds, r.verify.stats.peak_rss_mib);
    if let Some(d) = &r.kept_files {
        let _ = writeln!(s, "files kept in {}", d.display());
    }
    if let Some(c) = super::probability::lnt_chain_text(&r.verify) {
        let _ = writeln!(s, "{c}");
    }
    if let (Some(stop), true) = (r.verify.stopped, in_probabilities) {
        let _ = writeln!(
            s,
            "probabilities stopped early: {}; the intervals printed are the ones reached, wider than --precision",
            super::bounds::reason_text(stop)
        );
    } else if let Some(stop) = r.verify.stopped {
        let who = if cadp { "CADP" } else { "the script" };
        let _ = writeln!(
            s,
            "{who} was stopped: {}; undecided properties are `unknown`; not searched: the states beyond, and the \
             run-time errors they may meet",
            super::bounds::reason_text(stop)
        );
    }
    s
}

/// The note of an error behind which the working directory is kept.
fn kept_note(what: &str, dir: &std::path::Path) -> String {
    format!("\n  = note: {what} kept in `{}`", dir.display())
}

fn lnt_failure(l: &Loaded, e: crate::lntcheck::VerifyError, json: bool) -> Failure {
    use crate::lntcheck::VerifyError;
    match e {
        VerifyError::Engine(e) => super::verify::engine_failure(l, e, json),
        VerifyError::Failed { message, work_dir } => {
            Failure::new(exit::BACKEND, format!("{message}{}", kept_note("the generated files are", &work_dir)))
        }
        VerifyError::WorkDir(e) if e.is_usage() => Failure::new(exit::USAGE, e.to_string()),
        e @ (VerifyError::Refused(_) | VerifyError::WorkDir(_) | VerifyError::Io(_)) => {
            Failure::new(exit::BACKEND, e.to_string())
        }
    }
}

fn cadp_failure(l: &Loaded, e: crate::cadp::CadpError, json: bool) -> Failure {
    use crate::cadp::CadpError;
    match e {
        CadpError::Engine(e) => super::verify::engine_failure(l, e, json),
        CadpError::Counterexample { message, work_dir } => Failure::new(
            exit::BACKEND,
            format!("{message}{}", kept_note("the generated files, CADP's log and its diagnostic are", &work_dir)),
        ),
        e => Failure::from(e),
    }
}
