//! The message-sequence chart of a trace, in SVG: one lifeline per agent (and one for the
//! environment), time flowing down, assignments as boxes on the sender's lifeline, each put or
//! qry as one arrow per receiver it reached. Long traces are cut into segments of
//! `SEGMENT_STEPS` steps, one `<svg>` each, so that no image grows without bound.

use super::html::esc;
use super::view::{Assignment, Owner, StepView, TraceView, shown};
use crate::model::Store;
use std::fmt::Write;

/// Steps per `<svg>`.
pub const SEGMENT_STEPS: usize = 40;
/// Width of a character of the chart's monospace font (13 px), for layout.
const CHAR_W: f64 = 7.9;
/// Room on the left for step numbers and the loop bracket.
const LEFT: f64 = 74.0;
const HEAD: f64 = 30.0;
const LINE_H: f64 = 16.0;
const ARROW_GAP: f64 = 11.0;
const MARK_H: f64 = 26.0;
/// Longest box or label text before it is shortened (the whole text stays in a tooltip).
const MAX_CHARS: usize = 44;

/// Geometry shared by every segment of one chart.
struct Frame {
    col_w: f64,
    lanes: usize,
    env_lane: Option<usize>,
    /// Wide enough for the longest band text (a mark, the deadlock).
    min_width: f64,
}

impl Frame {
    fn x(&self, lane: usize) -> f64 {
        LEFT + self.col_w * lane as f64 + self.col_w / 2.0
    }
    fn width(&self) -> f64 {
        (LEFT + self.col_w * self.lanes as f64 + 12.0).max(self.min_width)
    }
}

fn chars(s: &str) -> usize {
    s.chars().count()
}

fn shorten(s: &str) -> String {
    if chars(s) <= MAX_CHARS { s.to_string() } else { s.chars().take(MAX_CHARS - 1).collect::<String>() + "…" }
}

fn local(a: &[Assignment]) -> Vec<&Assignment> {
    a.iter().filter(|x| x.store != Store::Env).collect()
}

fn env(a: &[Assignment]) -> Vec<&Assignment> {
    a.iter().filter(|x| x.store == Store::Env).collect()
}

fn message_label(tuple: &str, confirm: bool, stamp: i64) -> String {
    format!("{} ({tuple}) @{stamp}", if confirm { "qry" } else { "put" })
}

/// The initial state's box of each lane (agents, then the environment): one `name = value`
/// line per variable element, with the timestamp of a stigmergic one.
fn initial_lines(v: &TraceView) -> Vec<Vec<String>> {
    let lanes = v.agents.len() + usize::from(v.env);
    let mut out = vec![vec![]; lanes];
    let Some(row) = v.rows.first() else { return out };
    for (k, c) in v.columns.iter().enumerate() {
        let lane = match c.owner {
            Owner::Agent(a) => a,
            Owner::Env => v.agents.len(),
        };
        let (Some(lines), Some(value)) = (out.get_mut(lane), row.values.get(k)) else { continue };
        let at = row.stamps.get(k).copied().flatten().map_or(String::new(), |t| format!(" @{t}"));
        lines.push(format!("{} = {}{at}", c.name, shown(*value)));
    }
    out
}

/// The legend of one chart: a key for each kind of mark the chart and its table use.
pub(crate) fn legend(v: &TraceView) -> String {
    let agent_steps = || {
        v.steps.iter().filter_map(|s| match s {
            StepView::Agent { assignments, .. } => Some(assignments),
            StepView::Message { .. } => None,
        })
    };
    let messages = || {
        v.steps.iter().filter_map(|s| match s {
            StepView::Message { confirm, refreshed, .. } => Some((*confirm, !refreshed.is_empty())),
            StepView::Agent { .. } => None,
        })
    };
    let keys = [
        ("initial", "initial state", true),
        ("assign", "assignment", agent_steps().any(|a| !local(a).is_empty())),
        ("env-assign", "environment assignment", agent_steps().any(|a| !env(a).is_empty())),
        ("put", "put → receivers", messages().any(|(confirm, _)| !confirm)),
        ("qry", "qry → receivers", messages().any(|(confirm, _)| confirm)),
        ("refreshed", "qry receiver with a newer value", messages().any(|(_, newer)| newer)),
        ("mark", "violating state", v.marks.iter().any(|m| m.status == "violated" && !violated_by_loop(v, m))),
        ("satisfied", "satisfying state", v.marks.iter().any(|m| m.status != "violated")),
        ("loop", "lasso loop, repeated forever", v.loop_start.is_some()),
        ("deadlock", "deadlock", v.deadlock),
        ("ts", "@t timestamp", messages().next().is_some() || v.columns.iter().any(|c| c.stigmergic)),
    ];
    let mut out = String::from(r#"<p class="legend">"#);
    let used: Vec<String> = keys
        .iter()
        .filter(|k| k.2)
        .map(|(class, text, _)| format!(r#"<span class="key {class}">{text}</span>"#))
        .collect();
    out.push_str(&used.join(" "));
    out.push_str("</p>");
    out
}

/// A violation of a lasso, marked at its last state: the loop is what violates.
pub(crate) fn violated_by_loop(v: &TraceView, m: &crate::trace::Mark) -> bool {
    v.loop_start.is_some() && m.status == "violated" && m.at == v.steps.len()
}

fn frame(v: &TraceView) -> Frame {
    let mut widest = v.agents.iter().map(|a| chars(a)).max().unwrap_or(0).max(11);
    for lines in initial_lines(v) {
        widest = widest.max(lines.iter().map(|l| chars(l).min(MAX_CHARS)).max().unwrap_or(0));
    }
    for s in &v.steps {
        let w = match s {
            StepView::Agent { assignments, .. } => {
                assignments.iter().map(|a| chars(&a.text()).min(MAX_CHARS)).max().unwrap_or(4)
            }
            // A message label sits beside the sender's lifeline, over half of the next column.
            StepView::Message { tuple, confirm, stamp, .. } => {
                chars(&message_label(tuple, *confirm, *stamp)).min(MAX_CHARS) / 2
            }
        };
        widest = widest.max(w);
    }
    let col_w = (widest as f64 * CHAR_W + 26.0).clamp(150.0, MAX_CHARS as f64 * CHAR_W + 26.0);
    let lanes = v.agents.len() + usize::from(v.env);
    let band = v.marks.iter().map(|m| chars(&mark_text(v, m).0)).chain([chars(DEADLOCK_TEXT)]).max().unwrap_or(0);
    let min_width = LEFT + 4.0 + band as f64 * CHAR_W + 12.0;
    Frame { col_w, lanes, env_lane: v.env.then_some(v.agents.len()), min_width }
}

fn row_height(s: &StepView) -> f64 {
    match s {
        StepView::Agent { assignments, .. } => {
            let lines = local(assignments).len().max(env(assignments).len()).max(1);
            14.0 + LINE_H * lines as f64 + 8.0
        }
        StepView::Message { copied, refreshed, .. } => {
            let arrows = (copied.len() + refreshed.len()).max(1);
            20.0 + ARROW_GAP * arrows as f64 + 8.0
        }
    }
}

/// A box of text lines centred on lane `x`, its top at `y`.
fn text_box(out: &mut String, class: &str, x: f64, y: f64, w: f64, lines: &[String]) {
    let h = LINE_H * lines.len() as f64 + 6.0;
    let full: Vec<String> = lines.to_vec();
    let _ = write!(
        out,
        r#"<g class="{class}"><title>{}</title><rect x="{:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" rx="3"/>"#,
        esc(&full.join("\n")),
        x - w / 2.0
    );
    for (k, l) in lines.iter().enumerate() {
        let _ = write!(
            out,
            r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            y + 14.0 + LINE_H * k as f64,
            esc(&shorten(l))
        );
    }
    out.push_str("</g>");
}

fn box_width(lines: &[String], col_w: f64) -> f64 {
    let c = lines.iter().map(|l| chars(l).min(MAX_CHARS)).max().unwrap_or(4);
    (c as f64 * CHAR_W + 14.0).min(col_w - 8.0)
}

/// An arrow head pointing at (`x`, `y`) from the direction `dir` (+1: rightwards).
fn head(x: f64, y: f64, dir: f64) -> String {
    format!(
        r#"<polygon class="head" points="{x:.1},{y:.1} {:.1},{:.1} {:.1},{:.1}"/>"#,
        x - 8.0 * dir,
        y - 4.0,
        x - 8.0 * dir,
        y + 4.0
    )
}

fn step_row(out: &mut String, f: &Frame, s: &StepView, y: f64) {
    match s {
        StepView::Agent { agent, assignments, skip } => {
            let x = f.x(*agent);
            let mut lines: Vec<String> = local(assignments).iter().map(|a| a.text()).collect();
            let env_lines: Vec<String> = env(assignments).iter().map(|a| a.text()).collect();
            let mut class = "assign";
            if lines.is_empty() && env_lines.is_empty() {
                lines.push(if *skip { "Skip" } else { "(no assignment)" }.to_string());
                class = "assign skip";
            }
            if !env_lines.is_empty()
                && let Some(e) = f.env_lane
            {
                let xe = f.x(e);
                let _ = write!(
                    out,
                    r#"<line class="env-link" x1="{x:.1}" y1="{:.1}" x2="{xe:.1}" y2="{:.1}"/>"#,
                    y + 13.0,
                    y + 13.0
                );
                text_box(out, "assign env-assign", xe, y + 4.0, box_width(&env_lines, f.col_w), &env_lines);
            }
            if lines.is_empty() {
                let _ = write!(out, r#"<circle class="assign-dot" cx="{x:.1}" cy="{:.1}" r="4"/>"#, y + 13.0);
            } else {
                text_box(out, class, x, y + 4.0, box_width(&lines, f.col_w), &lines);
            }
        }
        StepView::Message { sender, tuple, confirm, stamp, copied, refreshed } => {
            let kind = if *confirm { "qry" } else { "put" };
            let xs = f.x(*sender);
            let label = message_label(tuple, *confirm, *stamp);
            let _ = write!(out, r#"<g class="msg {kind}" data-sender="{sender}">"#);
            let _ = write!(out, "<title>{}</title>", esc(&label));
            // Nearer receivers first, so that the arrows stack without crossing.
            let mut targets: Vec<(usize, bool)> =
                copied.iter().map(|&r| (r, false)).chain(refreshed.iter().map(|&r| (r, true))).collect();
            targets.sort_by_key(|&(r, _)| (r.abs_diff(*sender), r));
            // The label goes on the side of the receivers, unless it would leave the chart there.
            let fits_right = xs + 6.0 + chars(&shorten(&label)) as f64 * CHAR_W < f.width();
            let fits_left = xs - 6.0 - chars(&shorten(&label)) as f64 * CHAR_W > 0.0;
            let all_right = targets.iter().all(|&(r, _)| r > *sender);
            let right = if all_right { fits_right || !fits_left } else { !fits_left };
            let (tx, anchor) = if right { (xs + 6.0, "start") } else { (xs - 6.0, "end") };
            let _ = write!(
                out,
                r#"<text class="msg-label" x="{tx:.1}" y="{:.1}" text-anchor="{anchor}">{}</text>"#,
                y + 14.0,
                esc(&shorten(&label))
            );
            let _ = write!(out, r#"<circle class="send" cx="{xs:.1}" cy="{:.1}" r="3.5"/>"#, y + 20.0 + ARROW_GAP);
            if targets.is_empty() {
                let ay = y + 20.0 + ARROW_GAP;
                let _ = write!(
                    out,
                    r#"<text class="no-receiver" x="{:.1}" y="{:.1}" text-anchor="{anchor}">reached nobody</text>"#,
                    if right { xs + 8.0 } else { xs - 8.0 },
                    ay + 4.0
                );
            }
            for (k, &(r, newer)) in targets.iter().enumerate() {
                let ay = y + 20.0 + ARROW_GAP * (k + 1) as f64;
                let xr = f.x(r);
                let dir = if r > *sender { 1.0 } else { -1.0 };
                let class = if newer { "arrow refreshed" } else { "arrow" };
                let _ = write!(
                    out,
                    r#"<g class="{class}" data-to="{r}"><line x1="{xs:.1}" y1="{ay:.1}" x2="{:.1}" y2="{ay:.1}"/>{}</g>"#,
                    xr - 2.0 * dir,
                    head(xr - 2.0 * dir, ay, dir)
                );
                if k > 0 {
                    // The sender's lifeline between stacked arrows, drawn over in the message colour.
                    let _ = write!(
                        out,
                        r#"<line class="stack" x1="{xs:.1}" y1="{:.1}" x2="{xs:.1}" y2="{ay:.1}"/>"#,
                        ay - ARROW_GAP
                    );
                }
            }
            out.push_str("</g>");
        }
    }
}

fn mark_band(out: &mut String, f: &Frame, y: f64, text: &str, class: &str) {
    let _ = write!(
        out,
        r#"<g class="{class}"><line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}"/><text x="{:.1}" y="{:.1}">{}</text></g>"#,
        LEFT - 4.0,
        y + MARK_H / 2.0 + 4.0,
        f.width() - 6.0,
        y + MARK_H / 2.0 + 4.0,
        LEFT + 4.0,
        y + MARK_H / 2.0,
        esc(text)
    );
}

/// The text and class of the band of mark `m`.
fn mark_text(v: &TraceView, m: &crate::trace::Mark) -> (String, &'static str) {
    let (sym, class) = if m.status == "violated" { ("✗", "mark violated") } else { ("✓", "mark satisfied") };
    let at = m.at;
    let text = match v.loop_start {
        Some(l) if violated_by_loop(v, m) => {
            format!("{sym} {} violated by the loop: states {l} to {at}, repeated forever", m.property)
        }
        _ => format!("{sym} {} {} here (state {at})", m.property, m.status),
    };
    (text, class)
}

const DEADLOCK_TEXT: &str = "■ deadlock: no step is possible from here";

fn marks_at(out: &mut String, f: &Frame, v: &TraceView, at: usize, y: &mut f64) {
    for m in v.marks.iter().filter(|m| m.at == at) {
        let (text, class) = mark_text(v, m);
        mark_band(out, f, *y, &text, class);
        *y += MARK_H;
    }
}

/// Row 0: the initial state, a box of each lane's initial values (the step table's row 0).
fn initial_row(out: &mut String, f: &Frame, v: &TraceView, id: &str, y: &mut f64) {
    let lanes = initial_lines(v);
    let lines = lanes.iter().map(Vec::len).max().unwrap_or(0).max(1);
    let _ = write!(
        out,
        r##"<a href="#{id}-s0"><text class="stepno" x="{:.1}" y="{:.1}" text-anchor="end">0</text></a>"##,
        LEFT - 10.0,
        *y + 17.0
    );
    for (lane, l) in lanes.iter().enumerate().filter(|(_, l)| !l.is_empty()) {
        text_box(out, "initial", f.x(lane), *y + 4.0, box_width(l, f.col_w), l);
    }
    *y += 14.0 + LINE_H * lines as f64 + 8.0;
}

/// The chart of one trace: a `<div class="msc">` holding one `<svg>` per segment. `id`
/// prefixes the anchors of the step table's rows (`{id}-s{i}`) that step numbers link to.
pub fn chart(v: &TraceView, id: &str) -> String {
    let f = frame(v);
    let n = v.steps.len();
    let segments = n.div_ceil(SEGMENT_STEPS).max(1);
    let mut out = String::from(r#"<div class="msc">"#);
    for seg in 0..segments {
        let from = seg * SEGMENT_STEPS;
        let to = (from + SEGMENT_STEPS).min(n);
        let mut body = String::new();
        let mut y = HEAD + 10.0;
        if seg == 0 {
            initial_row(&mut body, &f, v, id, &mut y);
            marks_at(&mut body, &f, v, 0, &mut y);
        }
        let mut loop_top = None;
        for i in from..to {
            if i > from {
                marks_at(&mut body, &f, v, i, &mut y);
            }
            if v.loop_start.is_some_and(|l| l <= i) && loop_top.is_none() {
                loop_top = Some(y);
            }
            let h = row_height(&v.steps[i]);
            let _ = write!(
                body,
                r##"<a href="#{id}-s{}"><text class="stepno" x="{:.1}" y="{:.1}" text-anchor="end">{}</text></a>"##,
                i + 1,
                LEFT - 10.0,
                y + 17.0,
                i + 1
            );
            let _ = write!(
                body,
                r#"<line class="row-rule" x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}"/>"#,
                LEFT - 30.0,
                f.width() - 6.0
            );
            step_row(&mut body, &f, &v.steps[i], y);
            y += h;
        }
        if let (Some(top), Some(l)) = (loop_top, v.loop_start) {
            let bottom = y - 4.0;
            let x = 12.0;
            let text = if l >= from { format!("loop: back to state {l}") } else { "loop (continued)".to_string() };
            // The label runs along the bracket where it fits; a short loop's label would be
            // clipped, and the band under the loop says the same.
            let label = if chars(&text) as f64 * CHAR_W <= bottom - top {
                format!(
                    r#"<text transform="translate({:.1} {:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
                    x - 4.0,
                    (top + bottom) / 2.0,
                    esc(&text)
                )
            } else {
                String::new()
            };
            let _ = write!(
                body,
                r#"<g class="loop-bracket"><title>{}</title><path d="M {:.1} {top:.1} H {x:.1} V {bottom:.1} H {:.1}"/>{}{label}</g>"#,
                esc(&text),
                x + 10.0,
                x + 10.0,
                head(x + 10.0, top, 1.0),
            );
            if to == n {
                let band = format!("↻ loop: back to state {l}, repeated forever");
                mark_band(&mut body, &f, y, &band, "loop-band");
                y += MARK_H;
            }
        }
        if to == n {
            if n > 0 {
                marks_at(&mut body, &f, v, n, &mut y);
            }
            if v.deadlock {
                mark_band(&mut body, &f, y, DEADLOCK_TEXT, "deadlock");
                y += MARK_H;
            }
            if n == 0 && !v.deadlock && v.marks.is_empty() {
                let _ =
                    write!(body, r#"<text class="note" x="{:.1}" y="{:.1}">(no step)</text>"#, LEFT + 4.0, y + 14.0);
                y += 20.0;
            }
        }
        let height = y + 8.0;
        let width = f.width();
        let _ = write!(
            out,
            r#"<svg class="msc-segment" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" role="img" aria-label="steps {}–{to}">"#,
            from + 1
        );
        for lane in 0..f.lanes {
            let x = f.x(lane);
            let (name, class) = if Some(lane) == f.env_lane {
                ("environment".to_string(), "lifeline env")
            } else {
                (v.agents[lane].clone(), "lifeline")
            };
            let w = (chars(&name) as f64 * CHAR_W + 16.0).min(f.col_w - 6.0);
            let _ = write!(
                out,
                r#"<g class="{class}" data-lane="{lane}"><line x1="{x:.1}" y1="{HEAD:.1}" x2="{x:.1}" y2="{:.1}"/><rect x="{:.1}" y="4" width="{w:.1}" height="{:.1}" rx="4"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text></g>"#,
                height - 4.0,
                x - w / 2.0,
                HEAD - 8.0,
                HEAD - 12.0,
                esc(&name)
            );
        }
        out.push_str(&body);
        out.push_str("</svg>");
    }
    out.push_str("</div>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::view::{Column, Owner, Row};
    use crate::trace::Mark;

    fn put(sender: usize, copied: Vec<usize>) -> StepView {
        StepView::Message { sender, tuple: "x".into(), confirm: false, stamp: 1, copied, refreshed: vec![] }
    }

    fn assign(agent: usize, var: &str, store: Store, value: i32) -> StepView {
        let stamp = matches!(store, Store::Stig { .. }).then_some(3);
        StepView::Agent {
            agent,
            assignments: vec![Assignment { var: var.into(), store, value: Some(value), stamp }],
            skip: false,
        }
    }

    /// A view of `agents` agents and the given steps; rows are irrelevant to the chart.
    fn view(agents: usize, env: bool, steps: Vec<StepView>) -> TraceView {
        let row = Row { values: vec![Some(0)], stamps: vec![None] };
        TraceView {
            agents: (0..agents).map(|a| format!("A {a}")).collect(),
            env,
            columns: vec![Column { owner: Owner::Agent(0), name: "x".into(), stigmergic: false }],
            rows: vec![row; steps.len() + 1],
            steps,
            loop_start: None,
            deadlock: false,
            marks: vec![],
        }
    }

    fn count(hay: &str, needle: &str) -> usize {
        hay.matches(needle).count()
    }

    const STIG: Store = Store::Stig { stigmergy: 0, tuple: 0 };

    #[test]
    fn one_lifeline_per_agent_and_one_for_the_environment() {
        let svg = chart(&view(3, false, vec![assign(1, "x", Store::Attr, 2)]), "t");
        assert_eq!(count(&svg, r#"<g class="lifeline"#), 3);
        assert_eq!(count(&svg, "lifeline env"), 0);
        let svg = chart(&view(3, true, vec![assign(1, "e", Store::Env, 2)]), "t");
        assert_eq!(count(&svg, r#"<g class="lifeline"#), 4);
        assert_eq!(count(&svg, r#"<g class="lifeline env""#), 1);
        // The environment assignment is a box on the environment's lifeline, linked to the agent.
        assert_eq!(count(&svg, "assign env-assign"), 1);
        assert_eq!(count(&svg, r#"class="env-link""#), 1);
        assert!(svg.contains("e &lt;-- 2"), "{svg}");
    }

    #[test]
    fn one_arrow_per_receiver_of_each_message() {
        let steps = vec![
            assign(0, "x", STIG, 5),
            put(0, vec![1, 2, 3]),
            StepView::Message {
                sender: 2,
                tuple: "x".into(),
                confirm: true,
                stamp: 1,
                copied: vec![0],
                refreshed: vec![3],
            },
            put(3, vec![]),
        ];
        let svg = chart(&view(4, false, steps), "t");
        assert_eq!(count(&svg, r#"<g class="msg put""#), 2);
        assert_eq!(count(&svg, r#"<g class="msg qry""#), 1);
        // 3 receivers of the put, 1 of the qry, plus one receiver that had a newer value.
        assert_eq!(count(&svg, r#"<g class="arrow""#), 4);
        assert_eq!(count(&svg, r#"<g class="arrow refreshed""#), 1);
        assert_eq!(count(&svg, r#"class="head""#), 5);
        assert_eq!(count(&svg, "reached nobody"), 1);
        // Timestamps are shown on the assignment and on the messages.
        assert!(svg.contains("x &lt;~ 5 @3"), "{svg}");
        assert!(svg.contains("put (x) @1"));
        // Arrows point at their receivers.
        for r in [1, 2, 3] {
            assert!(svg.contains(&format!(r#"<g class="arrow" data-to="{r}">"#)));
        }
    }

    #[test]
    fn a_lasso_is_bracketed_and_a_deadlock_marked() {
        let mut v = view(2, false, vec![assign(0, "x", Store::Attr, 1), assign(1, "x", Store::Attr, 1)]);
        assert_eq!(count(&chart(&v, "t"), "loop-bracket"), 0);
        v.loop_start = Some(1);
        let svg = chart(&v, "t");
        assert_eq!(count(&svg, r#"<g class="loop-bracket""#), 1);
        assert!(svg.contains("loop: back to state 1"));
        assert_eq!(count(&svg, r#"<g class="deadlock""#), 0);
        v.loop_start = None;
        v.deadlock = true;
        v.marks.push(Mark { at: 2, property: "P".into(), status: "violated".into() });
        let svg = chart(&v, "t");
        assert_eq!(count(&svg, r#"<g class="deadlock""#), 1);
        assert_eq!(count(&svg, r#"<g class="mark violated""#), 1);
        assert!(svg.contains("P violated here (state 2)"));
    }

    #[test]
    fn long_traces_are_cut_into_segments_and_the_loop_bracket_continues() {
        let n = 2 * SEGMENT_STEPS + 3;
        let mut v = view(2, false, (0..n).map(|i| assign(i % 2, "x", Store::Attr, i as i32)).collect());
        v.loop_start = Some(SEGMENT_STEPS - 2);
        let svg = chart(&v, "t");
        assert_eq!(count(&svg, "<svg "), 3);
        // Every segment repeats the lifelines.
        assert_eq!(count(&svg, r#"<g class="lifeline""#), 6);
        // The loop covers the end of the first segment and the two others.
        assert_eq!(count(&svg, r#"<g class="loop-bracket""#), 3);
        assert_eq!(count(&svg, "<title>loop (continued)</title>"), 2);
        // Each state is numbered once (0, the initial state, then each step's) and links to its
        // table row.
        assert_eq!(count(&svg, "class=\"stepno\""), n + 1);
        assert!(svg.contains(&format!("href=\"#t-s{n}\"")));
        // No segment is taller than its steps need.
        for seg in svg.split("<svg ").skip(1) {
            let h: f64 = seg.split("height=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
            assert!(h < 60.0 + SEGMENT_STEPS as f64 * 40.0, "{h}");
        }
    }

    /// A one-step loop is too short for a label along its bracket: the band under it says where
    /// the loop goes back to, and the violation is the loop's, not a state's.
    #[test]
    fn a_short_loop_is_labelled_under_it_and_owns_the_violation() {
        let mut v = view(2, false, vec![assign(0, "x", Store::Attr, 1), assign(1, "x", Store::Attr, 1)]);
        v.loop_start = Some(1);
        v.marks.push(Mark { at: 2, property: "P".into(), status: "violated".into() });
        let svg = chart(&v, "t");
        assert!(!svg.contains("rotate(-90)"), "no clipped label along a one-step bracket: {svg}");
        assert_eq!(count(&svg, r#"<g class="loop-band""#), 1);
        assert!(svg.contains("↻ loop: back to state 1, repeated forever"), "{svg}");
        assert!(svg.contains("✗ P violated by the loop: states 1 to 2, repeated forever"), "{svg}");
        assert!(!svg.contains("violated here"), "{svg}");
        // A long loop keeps its label along the bracket.
        v.steps = (0..8).map(|i| assign(i % 2, "x", Store::Attr, i as i32)).collect();
        v.rows = vec![v.rows[0].clone(); 9];
        v.marks[0].at = 8;
        assert_eq!(count(&chart(&v, "t"), "rotate(-90)"), 1);
    }

    #[test]
    fn a_long_mark_widens_the_chart_to_hold_its_text() {
        let mut v = view(1, false, vec![assign(0, "x", Store::Attr, 1)]);
        v.loop_start = Some(0);
        let name = "ConsensusIsReachedAndKeptForever";
        v.marks.push(Mark { at: 1, property: name.into(), status: "violated".into() });
        let svg = chart(&v, "t");
        let text = format!("✗ {name} violated by the loop: states 0 to 1, repeated forever");
        assert!(svg.contains(&text), "{svg}");
        let width: f64 = svg
            .split("<svg class=\"msc-segment\" width=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        // The text starts at LEFT + 4 and needs about CHAR_W per character.
        assert!(width >= LEFT + 4.0 + text.chars().count() as f64 * CHAR_W, "width {width} for {text}");
    }

    /// The initial state is the chart's row 0: each lifeline's initial values, linked to the
    /// table's row 0, so that a counterexample of no step still shows its state.
    #[test]
    fn the_initial_state_is_drawn() {
        let mut v = view(2, true, vec![]);
        v.columns = vec![
            Column { owner: Owner::Agent(0), name: "x".into(), stigmergic: false },
            Column { owner: Owner::Agent(1), name: "s".into(), stigmergic: true },
            Column { owner: Owner::Env, name: "e".into(), stigmergic: false },
        ];
        v.rows = vec![Row { values: vec![Some(3), None, Some(-1)], stamps: vec![None, Some(0), None] }];
        v.marks.push(Mark { at: 0, property: "P".into(), status: "violated".into() });
        let svg = chart(&v, "t");
        assert_eq!(count(&svg, r#"<g class="initial""#), 3);
        for text in ["x = 3", "s = undef @0", "e = -1", r##"href="#t-s0""##, "P violated here (state 0)"] {
            assert!(svg.contains(text), "{text}: {svg}");
        }
    }

    /// The legend has a key for what the chart shows, and only for that.
    #[test]
    fn the_legend_lists_only_what_is_used() {
        let v = view(2, false, vec![assign(0, "x", Store::Attr, 1)]);
        let l = legend(&v);
        assert!(l.contains("key assign") && l.contains("key initial"), "{l}");
        for unused in ["env-assign", "key put", "key qry", "refreshed", "key mark", "key loop", "deadlock", "key ts"] {
            assert!(!l.contains(unused), "{unused}: {l}");
        }
        let mut v = view(3, false, vec![put(0, vec![1]), assign(1, "x", STIG, 2)]);
        v.loop_start = Some(0);
        v.deadlock = true;
        v.marks.push(Mark { at: 1, property: "P".into(), status: "satisfied".into() });
        let l = legend(&v);
        for used in ["key put", "key loop", "key deadlock", "key ts", "key satisfied"] {
            assert!(l.contains(used), "{used}: {l}");
        }
        assert!(!l.contains("key qry") && !l.contains("key mark"), "{l}");
    }

    #[test]
    fn long_texts_are_shortened_with_the_whole_text_in_a_tooltip() {
        let long = "v".repeat(80);
        let svg = chart(&view(1, false, vec![assign(0, &long, Store::Attr, 1)]), "t");
        assert!(svg.contains(&format!("<title>{long} &lt;- 1</title>")));
        assert!(svg.contains(&format!("{}…", "v".repeat(MAX_CHARS - 1))));
    }
}
