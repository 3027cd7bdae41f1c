//! `labs translate-trace`: a trace saved from CADP (Executor output, an Evaluator diagnostic,
//! a `.seq` file or a diagnostic converted to `.aut`) turned back into a LAbS trace, replayed
//! and checked in the native engine.

use super::json::{ShowsDoc, TranslatedDoc};
use super::load::Loaded;
use super::{Failure, exit};
use crate::analysis::values::analyse;
use crate::stdout::{out, outln};
use crate::trace::checked::LabelReader;
use crate::trace::from_labels::CounterexampleError;
use crate::trace::{self, cadp, from_labels};
use std::fmt::Write;
use std::path::Path;

pub(crate) struct TranslateArgs<'a> {
    pub(crate) trace_file: &'a Path,
    pub(crate) fair: bool,
    pub(crate) property: Option<String>,
    pub(crate) json: bool,
    /// `--report FILE.html`.
    pub(crate) report: Option<&'a Path>,
}

/// Splits the words after SPEC into extern assignments (`NAME=VALUE`) and the trace file.
pub(crate) fn split_words(words: &[String]) -> Result<(Vec<String>, String), Failure> {
    let is_extern = |w: &str| {
        w.split_once('=').is_some_and(|(n, _)| {
            let n = n.trim_start_matches('_');
            n.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) && n.chars().all(|c| c.is_ascii_alphanumeric())
        }) && !Path::new(w).exists()
    };
    let (externs, files): (Vec<String>, Vec<String>) = words.iter().cloned().partition(|w| is_extern(w));
    match files.as_slice() {
        [f] => Ok((externs, f.clone())),
        [] => {
            Err(Failure::new(exit::USAGE, "no trace file given: `labs translate-trace SPEC [NAME=VALUE…] TRACE_FILE`"))
        }
        _ => Err(Failure::new(exit::USAGE, format!("several trace files given: {}", files.join(", ")))),
    }
}

pub(crate) fn run(l: &Loaded, a: &TranslateArgs) -> Result<i32, Failure> {
    let text = super::load::read_text(a.trace_file, exit::USAGE)?;
    let path = cadp::parse_trace(&text).map_err(|e| {
        let file = a.trace_file.display();
        let at = match e.line {
            Some(n) => format!("{file}:{n}"),
            None => file.to_string(),
        };
        Failure::new(exit::USAGE, format!("{}\n --> {at}", e.message))
    })?;
    let analysis = analyse(&l.model, &l.behaviours);
    let reader = LabelReader::new(&l.model, &l.behaviours, &analysis, a.fair);
    let prop = match &a.property {
        None => None,
        Some(name) => Some(
            l.model
                .properties
                .iter()
                .find(|p| &p.name == name)
                .ok_or_else(|| super::load::unknown_property(l, name))?,
        ),
    };
    // The property was named by the user: a query that cannot be built is a usage error.
    let observed = match prop {
        None => None,
        Some(p) => Some(reader.observed(p).map_err(|e| Failure::new(exit::USAGE, e.to_string()))?),
    };
    let checked = reader.check(&path, observed.as_ref(), prop).map_err(|e| match e {
        CounterexampleError::Untranslatable(m) => {
            Failure::new(exit::BACKEND, format!("cannot translate `{}`: {m}", a.trace_file.display()))
        }
        CounterexampleError::NoReplay(m) => {
            Failure::new(exit::BACKEND, format!("internal error: the translated trace does not replay: {m}"))
        }
        _ => Failure::new(exit::BACKEND, e.to_string()),
    })?;
    let (t, shows) = (checked.translated, checked.shows);
    let observed_names: Vec<&str> = t.observed.iter().map(|&v| l.model.vars[v].name.as_str()).collect();
    if a.json {
        super::json::print_pretty(&TranslatedDoc {
            spec: l.name(),
            externs: &l.model.externs,
            labels: path.labels.len(),
            ignored_labels: t.ignored_labels,
            trailing_labels: t.trailing_labels,
            observed: observed_names.clone(),
            property: a.property.as_deref(),
            shows: shows.and_then(|s| match s {
                from_labels::Shows::Violation { at } => Some(ShowsDoc { violation: true, at: Some(at) }),
                from_labels::Shows::NoViolation => Some(ShowsDoc { violation: false, at: None }),
                from_labels::Shows::NotDecidable => None,
            }),
            trace: trace::to_json(&l.model, &l.behaviours, &t.trace),
        });
    } else {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{} labels → a LAbS trace of {} steps{}{} (observed: {})",
            path.labels.len(),
            t.trace.len(),
            if t.trace.loop_start.is_some() { ", a lasso" } else { "" },
            if t.trace.ends_in_deadlock { ", ending in a deadlock" } else { "" },
            if observed_names.is_empty() { "nothing".to_string() } else { observed_names.join(", ") }
        );
        s += &trace::render(&l.model, &l.behaviours, &t.trace);
        out!("{s}");
        if t.ignored_labels > 0 {
            super::status::note(format_args!(
                "note: {} labels that are neither DONE nor observations were ignored",
                t.ignored_labels
            ));
        }
        if t.trailing_labels > 0 {
            super::status::note(format_args!(
                "note: {} observation labels after the last DONE (an unfinished step) were ignored",
                t.trailing_labels
            ));
        }
        if let (Some(p), Some(sh)) = (prop, shows) {
            match sh {
                from_labels::Shows::Violation { at } => {
                    outln!("the trace violates {} ({}) at state {at}", p.name, p.keyword)
                }
                from_labels::Shows::NoViolation => {}
                from_labels::Shows::NotDecidable => {
                    outln!("{} ({}) cannot be decided on one trace", p.name, p.keyword)
                }
            }
        }
    }
    if let Some(file) = a.report {
        // The label path may come from CADP or from `labs mcl --diag`: the page names neither.
        let meta =
            super::report::meta(l, "translate-trace", l.name(), "a translated label path (translate-trace)", a.fair);
        let mut notes = vec![format!("from `{}`: {} labels", a.trace_file.display(), path.labels.len())];
        let mut shown = t.trace.clone();
        if let (Some(p), Some(from_labels::Shows::Violation { at })) = (prop, shows) {
            notes.push(format!("violates {} ({}) at state {at}", p.name, p.keyword));
            if !shown.marks.iter().any(|m| m.at == at && m.property == p.name) {
                shown.marks.push(trace::Mark { at, property: p.name.clone(), status: "violated".into() });
            }
        }
        let title = format!("Trace translated from {}", a.trace_file.display());
        super::report::write_trace(l, &meta, &shown, &title, notes, file)?;
    }
    // The trace was given as a counterexample of P: one that does not show it is an error.
    if let (Some(p), Some(from_labels::Shows::NoViolation)) = (prop, shows) {
        return Err(Failure::new(
            exit::BACKEND,
            format!(
                "the trace does not show a violation of {} ({}): it is not a counterexample of this property",
                p.name, p.keyword
            ),
        ));
    }
    Ok(exit::OK)
}
