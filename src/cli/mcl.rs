//! `labs mcl QUERY.mcl LTS.aut [--diag FILE.aut] [--json]`: one MCL query on one LTS, and the
//! path that explains its verdict.

use super::json::{DiagnosticDoc, MclDoc, UnmatchedDoc};
use super::{Failure, exit};
use crate::diagnostics::Diagnostic;
use crate::limits::Limits;
use crate::lnt::names::ERR;
use crate::lnt::view::monitor::{ACC, STUCK};
use crate::mcl::{self, EvalError};
use crate::stdout::outln;
use crate::syntax::span::SourceFile;
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
    let unmatched = mcl::unmatched_actions(&query, &lts.labels);
    let file = SourceFile::new(qname.clone(), qtext.clone());
    let unmatched_doc: Vec<UnmatchedDoc> = unmatched
        .iter()
        .map(|u| {
            let (line, column) = file.line_col(u.span.start);
            UnmatchedDoc { gate: u.gate.clone(), line, column, reason: u.reason.clone() }
        })
        .collect();
    if !unmatched.is_empty() {
        eprint!("{}", unmatched_warnings(&unmatched, &file, &a.lts));
    }
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
            unmatched: unmatched_doc,
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

/// One warning per action formula no label of the LTS matches, then what the verdict then
/// means, and where a monitor's labels come from when the query reads them.
fn unmatched_warnings(unmatched: &[mcl::Unmatched], file: &SourceFile, lts: &Path) -> String {
    let mut out = String::new();
    for u in unmatched {
        out += &Diagnostic::warning(u.span, format!("{}: this action formula matches no transition", u.reason))
            .render(file);
    }
    out += &format!(
        "note: the query was evaluated with {} matching no transition of {}; if it was written for an LTS whose \
         labels {} match, its verdict is about another LTS\n",
        if unmatched.len() == 1 { "that action formula" } else { "those action formulas" },
        lts.display(),
        if unmatched.len() == 1 { "it would" } else { "they would" },
    );
    if unmatched.iter().any(|u| u.gate == ACC || u.gate == STUCK) {
        out += &format!(
            "note: `{ACC}` and `{STUCK}` are the steps of the monitor of a linear-time or scoped property: only the LTS \
             of the property's root process has them (`labs lts SPEC [NAME=VALUE…] --root Root_P -o FILE.aut`); on that \
             LTS, the property holds when neither occurs\n"
        );
    }
    if unmatched.iter().any(|u| u.gate == ERR) {
        out += &format!(
            "note: `{ERR}` is the step of a run-time error of the model: on the LTS of `MAIN` it never occurs when no \
             run-time error is reachable, which is what the error checks of `labs emit` verify\n"
        );
    }
    out
}
