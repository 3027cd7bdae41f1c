//! `labs mcl QUERY.mcl LTS.aut [--diag FILE.aut] [--json]`: one MCL query on one LTS, and the
//! path that explains its verdict.

use super::json::{DiagnosticDoc, MclDoc};
use super::{Failure, exit};
use crate::limits::Limits;
use crate::mcl::{self, EvalError};
use crate::stdout::outln;
use std::path::{Path, PathBuf};

pub(crate) struct MclArgs {
    pub(crate) query: PathBuf,
    pub(crate) lts: PathBuf,
    pub(crate) json: bool,
    /// Where to write the diagnostic (`.aut`).
    pub(crate) diag: Option<PathBuf>,
    pub(crate) limits: Limits,
}

fn read_bytes(p: &Path, what: &str) -> Result<Vec<u8>, Failure> {
    std::fs::read(p).map_err(|e| Failure::new(exit::USAGE, format!("cannot read the {what} {}: {e}", p.display())))
}

pub(crate) fn run(a: &MclArgs) -> Result<i32, Failure> {
    let qname = a.query.display().to_string();
    let qtext = super::load::read_text(&a.query, exit::INVALID_SPEC)?;
    let query = mcl::parse(&qtext)
        .map_err(|errs| Failure::new(exit::INVALID_SPEC, crate::diagnostics::located::render(&qname, &qtext, &errs)))?;
    let lbytes = read_bytes(&a.lts, "LTS")?;
    let lts = mcl::read_aut_bytes(&lbytes)
        .map_err(|e| Failure::new(exit::USAGE, format!("{}:{}: {}", a.lts.display(), e.line, e.message)))?;
    let succ = lts.adjacency();
    let ev = mcl::evaluate(&query, lts.view(&succ), &a.limits).map_err(|e| match e {
        EvalError::Interrupted => Failure::new(exit::INTERRUPTED, "interrupted"),
        EvalError::Timeout => Failure::new(exit::TIMEOUT, format!("{e}; the query was not decided")),
        EvalError::Memory => Failure::new(
            exit::INCONCLUSIVE,
            super::bounds::stop_text(&a.limits, crate::limits::StopReason::Memory) + "; the query was not decided",
        ),
        EvalError::StateLimit { .. } => Failure::new(exit::INCONCLUSIVE, e.to_string()),
        _ => Failure::new(exit::BACKEND, format!("{qname}: {e}")),
    })?;
    super::bounds::reporting();
    if let (Some(path), Some(d)) = (&a.diag, &ev.diagnostic) {
        super::write_whole(path, d.to_aut().as_bytes())
            .map_err(|e| Failure::new(exit::USAGE, format!("cannot write the diagnostic {}: {e}", path.display())))?;
    }
    let verdict = if ev.holds { "TRUE" } else { "FALSE" };
    if a.json {
        super::json::print_compact(&MclDoc {
            query: qname,
            lts: a.lts.display().to_string(),
            states: lts.nstates,
            transitions: lts.trans.len(),
            verdict,
            holds: ev.holds,
            pairs_explored: ev.states_explored,
            diagnostic: ev.diagnostic.as_ref().map(|d| DiagnosticDoc {
                states: d.states.clone(),
                labels: d.labels.clone(),
                loop_start: d.loop_start,
            }),
        });
    } else {
        outln!("{verdict}");
    }
    Ok(if ev.holds { exit::OK } else { exit::VIOLATED })
}
