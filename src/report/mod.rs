//! The HTML report (`--report FILE.html`): one self-contained page with a header, the
//! verdicts and statistics, and per counterexample or simulation run a message-sequence chart
//! (`chart`) over a step table (`table`), both drawn from a `TraceView` (`view`).
//!
//! The page is returned as a `String`: this stage does no I/O and reads no clock (the date
//! and version are given in `Meta`, so pages are reproducible), and the page references no
//! resource outside itself (inline CSS and SVG, no script).

test_visible_mod!(chart);
pub(crate) mod html;
pub(crate) mod probability;
pub use probability::Simulated;
test_visible_mod!(table);
test_visible_mod!(view);

use crate::behaviour::Behaviour;
use crate::engine::estimate::{Decision, EstimateReport, Method};
use crate::engine::{SimStatus, SimulateReport, VerifyReport};
use crate::model::Model;
use crate::trace::Trace;
use html::esc;
use std::fmt::Write;
use view::TraceView;

/// What the header says about the run.
#[derive(Clone, Debug)]
pub struct Meta {
    /// `verify`, `simulate` or `translate-trace`.
    pub command: String,
    pub spec: String,
    pub externs: Vec<(String, i64)>,
    pub backend: String,
    pub fair: bool,
    /// When the page was made, as shown (`html::utc_text`).
    pub date: String,
    pub version: String,
}

/// One chart and its table, with a title and lines that say what it shows.
pub(crate) struct Section {
    pub(crate) title: String,
    pub(crate) notes: Vec<String>,
    pub(crate) view: TraceView,
}

/// One property's line of the verdicts' table.
pub(crate) struct VerdictRow {
    pub(crate) property: String,
    pub(crate) modality: String,
    pub(crate) verdict: String,
    /// The counterexample's length as shown, and the index of its section.
    pub(crate) trace: Option<(String, usize)>,
}

/// The verdicts' table and the statistics, when verifying.
pub(crate) struct Verdicts {
    pub(crate) rows: Vec<VerdictRow>,
    /// Label and value pairs.
    pub(crate) stats: Vec<(String, String)>,
}

fn trace_length(t: &Trace) -> String {
    let steps = if t.len() == 1 { "1 step".to_string() } else { format!("{} steps", t.len()) };
    match (t.loop_start, t.ends_in_deadlock) {
        (Some(l), _) => format!("{steps} (lasso: loop of {})", t.len() - l),
        (None, true) => format!("{steps} (deadlock)"),
        _ => steps,
    }
}

/// The page of `labs verify`; `wall_seconds` is the whole run's time; `backend_stats` are
/// the back end's own label and value pairs (the LTSs and queries of `lnt` and `cadp`).
pub fn verify_page(
    model: &Model,
    behs: &[Behaviour],
    meta: &Meta,
    r: &VerifyReport,
    wall_seconds: f64,
    backend_stats: Vec<(String, String)>,
) -> String {
    verify_page_with(model, behs, meta, r, wall_seconds, backend_stats, None)
}

/// `verify_page`, with the simulation estimate `sim` drawn beside each exact curve of
/// `--probability` (docs/probability.md, "The report").
pub fn verify_page_with(
    model: &Model,
    behs: &[Behaviour],
    meta: &Meta,
    r: &VerifyReport,
    wall_seconds: f64,
    backend_stats: Vec<(String, String)>,
    sim: Option<&Simulated>,
) -> String {
    let mut traces = 0;
    let rows = r
        .results
        .iter()
        .map(|x| VerdictRow {
            property: x.property.clone(),
            modality: x.modality.clone(),
            verdict: x.verdict.as_str().to_string(),
            trace: x.trace.as_ref().map(|t| {
                traces += 1;
                (trace_length(t), traces - 1)
            }),
        })
        .collect();
    let st = &r.stats;
    let mut stats = vec![];
    // Only the native engine counts LAbS states (the other back ends reduce LTSs).
    if meta.backend == "native" {
        stats.push(("states".to_string(), st.states.to_string()));
        stats.push(("transitions".to_string(), st.transitions.to_string()));
        stats.push(("deadlocks".to_string(), st.deadlocks.to_string()));
        if let Some(red) = &st.reduction {
            stats.push(("counts of representatives up to".to_string(), red.clone()));
        }
        if st.decided_early {
            stats.push((
                "exploration".to_string(),
                "stopped as soon as every property was decided; the states beyond, where the value analysis \
                 shows no run-time error can be met, were not searched"
                    .to_string(),
            ));
        }
        if let Some(w) = &st.went_on {
            stats.push((
                "exploration".to_string(),
                format!(
                    "went on to every state after every property was violated (within {} states): the value \
                     analysis cannot exclude a run-time error ({})",
                    w.violated_at, w.reason
                ),
            ));
        }
    }
    stats.extend(backend_stats);
    stats.push(("wall time".to_string(), format!("{wall_seconds:.2} s")));
    stats.push(("peak memory".to_string(), format!("{} MiB", st.peak_rss_mib)));
    if let Some(s) = r.stopped {
        stats.push((
            "stopped early".to_string(),
            format!("{s:?}; the states beyond, and the run-time errors they may meet, were not searched"),
        ));
    }
    let sections = r
        .results
        .iter()
        .filter_map(|x| {
            let t = x.trace.as_ref()?;
            Some(Section {
                title: format!("Counterexample for {} ({})", x.property, x.modality),
                notes: vec![format!("{}: {}", x.property, trace_length(t))],
                view: TraceView::new(model, behs, t),
            })
        })
        .collect();
    let mut html = page(meta, Some(&Verdicts { rows, stats }), sections);
    if let Some(p) = &r.probabilities {
        let at = html.rfind("</main>").unwrap_or(html.len());
        html.insert_str(at, &probability::exact_sections(p, sim));
    }
    html
}

/// The page of `labs simulate`; `seed(i)` is the seed run `i` was drawn with.
pub fn simulate_page(
    model: &Model,
    behs: &[Behaviour],
    meta: &Meta,
    r: &SimulateReport,
    seed: &dyn Fn(usize) -> u64,
) -> String {
    let sections = r
        .runs
        .iter()
        .enumerate()
        .map(|(i, run)| {
            let mut notes = vec![trace_length(&run.trace)];
            for p in &run.properties {
                let status = match p.status {
                    SimStatus::Satisfied => "satisfied",
                    SimStatus::Violated => "violated",
                    SimStatus::Undecided => "undecided",
                };
                let at = p.at_step.map_or(String::new(), |k| format!(" at state {k}"));
                notes.push(format!("{} ({}): {status}{at}", p.property, p.modality));
            }
            Section {
                title: format!("Run {} of {} (seed {})", i + 1, r.runs.len(), seed(i)),
                notes,
                view: TraceView::new(model, behs, &run.trace),
            }
        })
        .collect();
    page(meta, None, sections)
}

/// The page of one trace (`labs translate-trace`).
pub(crate) fn trace_page(
    model: &Model,
    behs: &[Behaviour],
    meta: &Meta,
    t: &Trace,
    title: &str,
    notes: Vec<String>,
) -> String {
    let mut notes = notes;
    notes.insert(0, trace_length(t));
    page(meta, None, vec![Section { title: title.to_string(), notes, view: TraceView::new(model, behs, t) }])
}

/// The page's style sheet (also served by `labs explore`, whose history chart is this chart).
pub(crate) const STYLE: &str = include_str!("report.css");

/// The page of `labs simulate --estimate` or `--sprt`: each property's figures and, for each
/// `finally` property, the estimated probability of reaching ψ within `k` steps against `k`.
/// The intervals are the exact ones of the runs made (docs/statistical.md), so a run cut short
/// shows the precision it has, not the one asked for.
pub(crate) fn estimate_page(meta: &Meta, r: &EstimateReport, steps: usize) -> String {
    let mut out = open_page(meta);
    let confidence = match r.method {
        Method::Interval { confidence, .. } => Some(confidence),
        Method::Sprt { .. } => None,
    };
    let how = match r.method {
        Method::Interval { epsilon, confidence, .. } => {
            let bound = crate::engine::estimate::okamoto_runs(epsilon, confidence);
            let support = match r.epsilon_achieved {
                None => "no run was made: no estimate".to_string(),
                Some(e) if e > epsilon => format!(
                    "these runs support ±{:.4}, not the ±{epsilon} asked (the Okamoto bound needs {bound} runs)",
                    (e * 1e4).ceil() / 1e4
                ),
                Some(_) => format!("within ±{epsilon} (the Okamoto bound: {bound} runs)"),
            };
            format!("exact intervals at confidence {confidence}: {support}")
        }
        Method::Sprt { theta, indifference, alpha, beta, .. } => {
            format!("sequential test of P ≥ {theta} (indifference ±{indifference}, α {alpha}, β {beta})")
        }
    };
    let runs = match r.runs_planned {
        Some(planned) if planned != r.runs => format!("{} of {planned} planned runs", r.runs),
        _ => format!("{} runs", r.runs),
    };
    let _ = write!(
        out,
        "<section><h2>Estimates</h2><p class=\"note-text\">{runs} of at most {steps} steps, {} of them ended in a \
         deadlock; {}</p><table class=\"verdicts\"><thead><tr><th>property</th><th>modality</th><th>estimate</th>\
         <th>{}</th><th>runs</th></tr></thead><tbody>",
        r.deadlocks,
        esc(&how),
        if confidence.is_some() { "interval" } else { "decision" }
    );
    for p in &r.properties {
        let (estimate, second) = estimate_cells(p, steps);
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&p.property),
            esc(&p.modality),
            esc(&estimate),
            esc(&second),
            p.runs
        );
    }
    out.push_str("</tbody></table></section>");
    for p in r.properties.iter().filter(|p| p.estimated && p.modality == "finally" && p.runs > 0) {
        let curve = probability::cumulative(&p.reached, p.runs, steps);
        let band: Option<Vec<(f64, f64)>> = confidence.map(|c| probability::band(&p.reached, p.runs, steps, c));
        let title = format!("Probability of reaching {} within k steps", p.property);
        let note = match confidence {
            Some(c) => format!(
                "The band is the exact interval of the {} runs at each k, at confidence {c}: at each k on its own, the \
                 true probability lies in it with that confidence (not at every k at once).",
                p.runs
            ),
            None => "A sequential test gives no interval: the curve is the fraction of its runs.".to_string(),
        };
        let _ = write!(
            out,
            "<section class=\"estimate\"><h2>{}</h2><ul class=\"notes\"><li>{} of {} runs reached it within {steps} \
             steps.</li><li>{}</li></ul><div class=\"plot\">{}</div><details><summary>Values</summary>{}</details>\
             </section>",
            esc(&title),
            p.successes,
            p.runs,
            esc(&note),
            probability::plot(&curve, band.as_deref(), &title),
            probability::table(&curve, band.as_deref())
        );
    }
    out.push_str("</main></body></html>\n");
    out
}

/// A property's estimate and its interval or decision, as the page's table shows them.
fn estimate_cells(p: &crate::engine::estimate::PropertyEstimate, steps: usize) -> (String, String) {
    if !p.estimated {
        return ("—".into(), "not estimable on bounded runs (a branching property)".into());
    }
    let Some(estimate) = p.estimate else { return ("—".into(), "no run".into()) };
    let undecided = p.not_refuted.map_or(0, |n| n - p.successes);
    if undecided == p.runs {
        return (
            "—".into(),
            format!("not estimable on bounded runs: none of the runs decided it within {steps} steps"),
        );
    }
    let second = match (p.interval, p.decision) {
        (Some((lo, hi)), _) => format!("[{lo:.4}, {hi:.4}]"),
        (None, Some(Decision::Above)) => "P ≥ θ accepted".to_string(),
        (None, Some(Decision::Below)) => "P < θ accepted".to_string(),
        (None, Some(Decision::Inconclusive)) => "not decided by bounded runs".to_string(),
        _ => "undecided".to_string(),
    };
    if undecided == 0 {
        return (format!("{estimate:.4}"), second);
    }
    let n = p.not_refuted.unwrap_or(p.runs);
    let upper = match p.not_refuted_interval {
        Some((lo, hi)) => format!("{:.4} in [{lo:.4}, {hi:.4}]", n as f64 / p.runs as f64),
        None => format!("{n} runs"),
    };
    (
        format!("guaranteed {estimate:.4}"),
        format!("{second}; not refuted {upper} ({undecided} runs undecided within {steps} steps)"),
    )
}

/// The page up to its `<main>`: the document head and the header that describes the run.
fn open_page(meta: &Meta) -> String {
    let mut out = String::new();
    let title = format!("labs {} — {}", meta.command, meta.spec);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{STYLE}</style></head><body>",
        esc(&title)
    );
    let _ = write!(out, "<header><h1>{}</h1><dl class=\"meta\">", esc(&title));
    let externs = if meta.externs.is_empty() {
        "none".to_string()
    } else {
        meta.externs.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")
    };
    let scheduling = if meta.fair { "round-robin (--fair)" } else { "interleaving" };
    for (k, v) in [
        ("spec", meta.spec.as_str()),
        ("externs", externs.as_str()),
        ("back end", meta.backend.as_str()),
        ("scheduling", scheduling),
        ("date", meta.date.as_str()),
        ("labs", meta.version.as_str()),
    ] {
        let _ = write!(out, "<div><dt>{k}</dt><dd>{}</dd></div>", esc(v));
    }
    out.push_str("</dl></header><main>");
    out
}

/// The whole page.
pub(crate) fn page(meta: &Meta, verdicts: Option<&Verdicts>, sections: Vec<Section>) -> String {
    let mut out = open_page(meta);
    if let Some(v) = verdicts {
        out.push_str("<section><h2>Verdicts</h2><table class=\"verdicts\"><thead><tr><th>property</th><th>modality</th><th>verdict</th><th>trace</th></tr></thead><tbody>");
        if v.rows.is_empty() {
            out.push_str("<tr><td colspan=\"4\">(the spec has no properties to check)</td></tr>");
        }
        for row in &v.rows {
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td><td class=\"verdict {}\">{}</td><td>{}</td></tr>",
                esc(&row.property),
                esc(&row.modality),
                esc(&row.verdict),
                esc(&row.verdict),
                match &row.trace {
                    None => "—".to_string(),
                    Some((len, i)) => format!("<a href=\"#{}\">{}</a>", section_id(*i), esc(len)),
                }
            );
        }
        out.push_str("</tbody></table><dl class=\"stats\">");
        for (k, val) in &v.stats {
            let _ = write!(out, "<div><dt>{}</dt><dd>{}</dd></div>", esc(k), esc(val));
        }
        out.push_str("</dl></section>");
    }
    if sections.is_empty() {
        out.push_str("<section><p class=\"note\">No trace to show.</p></section>");
    }
    for (i, s) in sections.iter().enumerate() {
        let id = section_id(i);
        let _ = write!(out, "<section class=\"trace\" id=\"{id}\"><h2>{}</h2>", esc(&s.title));
        if !s.notes.is_empty() {
            out.push_str("<ul class=\"notes\">");
            for n in &s.notes {
                let _ = write!(out, "<li>{}</li>", esc(n));
            }
            out.push_str("</ul>");
        }
        out.push_str(&chart::legend(&s.view));
        out.push_str(&chart::chart(&s.view, &id));
        out.push_str("<h3>Steps</h3>");
        out.push_str(&table::step_table(&s.view, &id));
        out.push_str("</section>");
    }
    out.push_str("</main></body></html>\n");
    out
}

fn section_id(i: usize) -> String {
    format!("trace{}", i + 1)
}
