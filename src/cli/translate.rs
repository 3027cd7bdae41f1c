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
    if text.trim_start().starts_with('{') {
        return run_json(l, a, &text, prop);
    }
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
    let read = Read {
        labels: path.labels.len(),
        ignored_labels: t.ignored_labels,
        trailing_labels: t.trailing_labels,
        observed: observed_names,
        source: format!("{} labels", path.labels.len()),
    };
    finish(l, a, prop, &t.trace, shows, &read)
}

/// What was read from the trace file, for the output.
struct Read<'a> {
    labels: usize,
    ignored_labels: usize,
    trailing_labels: usize,
    observed: Vec<&'a str>,
    /// `7 labels`, `a JSON trace`.
    source: String,
}

/// A trace in the JSON form of `verify --json`, `simulate --json`, `translate-trace --json` or
/// `labs explore`'s export: decoded, matched with the native steps and replayed; every
/// variable's value is given, so every one is observed.
fn run_json(l: &Loaded, a: &TranslateArgs, text: &str, prop: Option<&crate::model::Property>) -> Result<i32, Failure> {
    use crate::trace::from_json::{self, JsonTraceError};
    let file = a.trace_file.display();
    let mut traces = from_json::read(&l.model, &l.behaviours, a.fair, text).map_err(|e| match e {
        JsonTraceError::NotJson(_) | JsonTraceError::NoTrace | JsonTraceError::Shape { .. } => {
            Failure::new(exit::USAGE, format!("`{file}`: {e}"))
        }
        _ => Failure::new(exit::BACKEND, format!("cannot replay `{file}`: {e}")),
    })?;
    let chosen = if traces.len() == 1 {
        traces.remove(0)
    } else {
        let wanted = prop.map(|p| format!("counterexample for {} (", p.name));
        match wanted.and_then(|w| traces.iter().position(|t| t.title.starts_with(&w))) {
            Some(i) => traces.remove(i),
            None => {
                let titles: Vec<&str> = traces.iter().map(|t| t.title.as_str()).collect();
                return Err(Failure::new(
                    exit::USAGE,
                    format!(
                        "`{file}` holds {} traces ({}): name the counterexample with --property",
                        traces.len(),
                        titles.join("; ")
                    ),
                ));
            }
        }
    };
    trace::replay(&l.model, &l.behaviours, &chosen.trace)
        .map_err(|e| Failure::new(exit::BACKEND, format!("`{file}` ({}) does not replay: {e}", chosen.title)))?;
    let shows = match prop {
        None => None,
        Some(p) => Some(
            from_labels::shows(&l.model, &l.behaviours, &chosen.trace, p)
                .map_err(|e| Failure::new(exit::BACKEND, format!("run-time error of the model: {}", e.0)))?,
        ),
    };
    let read = Read {
        labels: 0,
        ignored_labels: 0,
        trailing_labels: 0,
        observed: l.model.vars.iter().map(|v| v.name.as_str()).collect(),
        source: format!("a JSON trace ({})", chosen.title),
    };
    finish(l, a, prop, &chosen.trace, shows, &read)
}

fn finish(
    l: &Loaded,
    a: &TranslateArgs,
    prop: Option<&crate::model::Property>,
    t: &trace::Trace,
    shows: Option<from_labels::Shows>,
    read: &Read,
) -> Result<i32, Failure> {
    if a.json {
        super::json::print_pretty(&TranslatedDoc {
            spec: l.name(),
            externs: &l.model.externs,
            labels: read.labels,
            ignored_labels: read.ignored_labels,
            trailing_labels: read.trailing_labels,
            observed: read.observed.clone(),
            property: a.property.as_deref(),
            shows: shows.and_then(|s| match s {
                from_labels::Shows::Violation { at } => Some(ShowsDoc { violation: true, at: Some(at) }),
                from_labels::Shows::NoViolation => Some(ShowsDoc { violation: false, at: None }),
                from_labels::Shows::NotDecidable => None,
            }),
            trace: trace::to_json(&l.model, &l.behaviours, t),
        });
    } else {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{} → a LAbS trace of {} steps{}{} (observed: {})",
            read.source,
            t.len(),
            if t.loop_start.is_some() { ", a lasso" } else { "" },
            if t.ends_in_deadlock { ", ending in a deadlock" } else { "" },
            if read.observed.is_empty() { "nothing".to_string() } else { read.observed.join(", ") }
        );
        s += &trace::render(&l.model, &l.behaviours, t);
        out!("{s}");
        if read.ignored_labels > 0 {
            super::status::note(format_args!(
                "note: {} labels that are neither DONE nor observations were ignored",
                read.ignored_labels
            ));
        }
        if read.trailing_labels > 0 {
            super::status::note(format_args!(
                "note: {} observation labels after the last DONE (an unfinished step) were ignored",
                read.trailing_labels
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
        let mut notes = vec![format!("from `{}`: {}", a.trace_file.display(), read.source)];
        let mut shown = t.clone();
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
