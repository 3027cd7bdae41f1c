//! `--report FILE.html`: the page of `crate::report` for a finished run, written whole.

use super::load::Loaded;
use super::{Failure, exit};
use crate::engine::{SimulateReport, VerifyReport};
use crate::report::{self, Meta};
use crate::trace::Trace;
use std::path::Path;

/// Refuses a report path whose directory does not exist before the run starts (exit 2), so
/// that a long verification does not end without its report.
pub(crate) fn check_target(path: &Path) -> Result<(), Failure> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if path.is_dir() {
        return Err(Failure::new(exit::USAGE, format!("--report {}: is a directory", path.display())));
    }
    if !dir.is_dir() {
        return Err(Failure::new(
            exit::USAGE,
            format!("--report {}: no directory `{}`", path.display(), dir.display()),
        ));
    }
    Ok(())
}

pub(crate) fn meta(l: &Loaded, command: &str, spec_name: &str, backend: &str, fair: bool) -> Meta {
    Meta {
        command: command.to_string(),
        spec: spec_name.to_string(),
        externs: l.model.externs.iter().map(|(k, v)| (k.clone(), *v)).collect(),
        backend: backend.to_string(),
        fair,
        date: report::html::utc_text(std::time::SystemTime::now()),
        version: env!("CARGO_PKG_VERSION").to_string(),
    }
}

fn write(path: &Path, page: &str) -> Result<(), Failure> {
    super::write_whole(path, page.as_bytes())
        .map_err(|e| Failure::new(exit::BACKEND, format!("cannot write the report `{}`: {e}", path.display())))
}

/// The page of `verify`; `backend_stats` are what the back end adds to the statistics, `sim`
/// the simulation estimate drawn beside the exact curves of `--probability`.
pub(crate) fn write_verify(
    l: &Loaded,
    meta: &Meta,
    r: &VerifyReport,
    backend_stats: Vec<(String, String)>,
    sim: Option<&report::Simulated>,
    path: &Path,
) -> Result<(), Failure> {
    write(path, &report::verify_page_with(&l.model, &l.behaviours, meta, r, super::run_seconds(), backend_stats, sim))
}

/// The statistics of a script's LTSs for a report: the workflow, each property's query and
/// the LTS it ran on, then how many LTSs the script defined and the largest.
pub(crate) fn lts_stats(workflow: String, r: &crate::lts_backend::Report) -> Vec<(String, String)> {
    use crate::diagnostics::plural;
    let mut out = vec![("workflow".to_string(), workflow)];
    out.extend(r.statements.iter().map(|v| {
        let size = format!(
            "{}, {}",
            plural(v.states as usize, "state", "states"),
            plural(v.transitions as usize, "transition", "transitions")
        );
        (v.check.clone(), format!("{} on {} ({size})", v.mcl, v.bcg))
    }));
    if let Some(x) = r.lts.iter().max_by_key(|x| x.states) {
        out.push((
            plural(r.lts.len(), "LTS", "LTSs"),
            format!(
                "the largest {}: {}, {}",
                x.file,
                plural(x.states as usize, "state", "states"),
                plural(x.transitions as usize, "transition", "transitions")
            ),
        ));
    }
    out
}

pub(crate) fn write_simulate(
    l: &Loaded,
    meta: &Meta,
    r: &SimulateReport,
    seed: &dyn Fn(usize) -> u64,
    path: &Path,
) -> Result<(), Failure> {
    write(path, &report::simulate_page(&l.model, &l.behaviours, meta, r, seed))
}

pub(crate) fn write_estimate(
    meta: &Meta,
    r: &crate::engine::estimate::EstimateReport,
    steps: usize,
    path: &Path,
) -> Result<(), Failure> {
    write(path, &report::estimate_page(meta, r, steps))
}

pub(crate) fn write_trace(
    l: &Loaded,
    meta: &Meta,
    t: &Trace,
    title: &str,
    notes: Vec<String>,
    path: &Path,
) -> Result<(), Failure> {
    write(path, &report::trace_page(&l.model, &l.behaviours, meta, t, title, notes))
}
