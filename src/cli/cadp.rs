//! `--backend cadp`'s own options read from the command line (`--distributor`, `--hosts`),
//! and `labs simulate --backend cadp`: Executor's runs turned into checked LAbS traces.

use super::load::Loaded;
use super::{Failure, exit};
use crate::analysis::values::analyse;
use crate::cadp::{self, ExecutorOptions};
use crate::engine::simulate::RecordedWalk;
use crate::engine::{SimulateOptions, SimulateReport};
use crate::lnt::names;
use crate::trace::checked::LabelReader;
use std::path::PathBuf;

/// `--distributor FILE.gcf` needs `--backend cadp` and a readable `.gcf` file (usage errors).
pub(crate) fn check_gcf(gcf: &std::path::Path) -> Result<(), Failure> {
    let usage = |m: String| Failure::new(super::exit::USAGE, m);
    if gcf.extension().is_none_or(|e| e != "gcf") {
        return Err(usage(format!("--distributor: `{}` is not a grid configuration file (FILE.gcf)", gcf.display())));
    }
    match std::fs::File::open(gcf).and_then(|f| f.metadata()) {
        Ok(m) if m.is_file() => Ok(()),
        Ok(_) => Err(usage(format!("--distributor: `{}` is not a file", gcf.display()))),
        Err(e) => Err(usage(format!("--distributor: cannot read `{}`: {e}", gcf.display()))),
    }
}

/// The hosts of `--hosts FILE`; an unreadable, empty or malformed file is a usage error.
pub(crate) fn read_hosts_file(f: &std::path::Path) -> Result<Vec<crate::lts_backend::Host>, Failure> {
    let text = std::fs::read_to_string(f)
        .map_err(|e| Failure::new(super::exit::USAGE, format!("--hosts: cannot read `{}`: {e}", f.display())))?;
    crate::lts_backend::read_hosts(&text)
        .map_err(|m| Failure::new(super::exit::USAGE, format!("--hosts `{}`: {m}", f.display())))
}

/// The command that runs a job on a host: `$LABS_SSH`, else `ssh`.
pub(crate) fn ssh_command() -> PathBuf {
    std::env::var_os("LABS_SSH").filter(|s| !s.is_empty()).map_or_else(|| PathBuf::from("ssh"), PathBuf::from)
}

/// `labs simulate --backend cadp`: Executor's runs, each translated to a LAbS trace, replayed,
/// cut to `--steps` LAbS steps and marked as the native runs are.
pub(super) fn simulate_cadp(l: &Loaded, json: bool, opts: &SimulateOptions) -> Result<SimulateReport, Failure> {
    let analysis = analyse(&l.model, &l.behaviours);
    let reader = LabelReader::new(&l.model, &l.behaviours, &analysis, opts.fair);
    let exec = ExecutorOptions {
        fair: opts.fair,
        runs: opts.runs,
        steps: opts.steps,
        seed: opts.seed,
        limits: opts.limits.clone(),
        base: names::module_name(&l.stem()),
        source: crate::lnt::source_text(&l.file.name, &l.model),
    };
    let report = cadp::executor_runs(&l.model, &l.behaviours, &analysis, &exec).map_err(Failure::from)?;
    let mut runs = vec![];
    for r in &report.runs {
        let mut trace = reader
            .check(&r.path, None, None)
            .map_err(|e| {
                Failure::new(
                    exit::BACKEND,
                    format!("internal error of the LNT encoding: Executor's run with seed {} {e}", r.seed),
                )
            })?
            .translated
            .trace;
        if trace.steps.len() > opts.steps {
            trace.steps.truncate(opts.steps);
            trace.ends_in_deadlock = false;
        }
        // Marks as for a native run: the walk offers the recorded step, and ends where the
        // trace ends (a deadlock only if Executor said so).
        let steps = if trace.ends_in_deadlock { opts.steps } else { trace.steps.len() };
        let one = SimulateOptions { runs: 1, steps, seed: 0, ..opts.clone() };
        let mut walk = RecordedWalk::new(&trace);
        let marked = crate::engine::simulate_with(&l.model, &l.behaviours, &one, &mut walk)
            .map_err(|e| super::verify::engine_failure(l, e, json))?;
        runs.extend(marked.runs);
    }
    Ok(SimulateReport { runs, stopped: report.stopped })
}
