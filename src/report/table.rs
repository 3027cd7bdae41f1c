//! The step table under a chart: one row per state (0 = initial), the event that led to it,
//! and the value of every variable, with the values that changed highlighted.

use super::html::esc;
use super::view::{Owner, TraceView, shown};
use std::fmt::Write;

fn owner_name(v: &TraceView, o: Owner) -> String {
    match o {
        Owner::Env => "environment".to_string(),
        Owner::Agent(a) => v.agents[a].clone(),
    }
}

/// The table; row `i` has the anchor `{id}-s{i}`.
pub fn step_table(v: &TraceView, id: &str) -> String {
    let mut out = String::from(r#"<div class="steps"><table class="step-table"><thead><tr>"#);
    out.push_str(r#"<th rowspan="2" class="num">state</th><th rowspan="2" class="event">step</th>"#);
    // Groups of consecutive columns of one owner.
    let mut groups: Vec<(Owner, usize)> = vec![];
    for c in &v.columns {
        match groups.last_mut() {
            Some((o, n)) if *o == c.owner => *n += 1,
            _ => groups.push((c.owner, 1)),
        }
    }
    for (o, n) in &groups {
        let _ = write!(out, r#"<th colspan="{n}" class="grp">{}</th>"#, esc(&owner_name(v, *o)));
    }
    out.push_str("</tr><tr>");
    let mut first_of_group = vec![false; v.columns.len()];
    let mut at = 0;
    for (_, n) in &groups {
        first_of_group[at] = true;
        at += n;
    }
    for (k, c) in v.columns.iter().enumerate() {
        let class = if first_of_group[k] { r#" class="grp""# } else { "" };
        let _ = write!(out, "<th{class}>{}</th>", esc(&c.name));
    }
    out.push_str("</tr></thead><tbody>");
    let n = v.steps.len();
    for (i, row) in v.rows.iter().enumerate() {
        let mut classes = vec![];
        let mut num = i.to_string();
        if v.loop_start == Some(i) {
            classes.push("loop-start");
            num = format!("↻ {num}");
        } else if v.loop_start.is_some_and(|l| i > l) {
            classes.push("in-loop");
        }
        // (text, class) of each verdict mark of this state; a lasso's violation is its loop's.
        let marks: Vec<(String, &str)> = v
            .marks
            .iter()
            .filter(|m| m.at == i)
            .map(|m| match (m.status == "violated", super::chart::violated_by_loop(v, m)) {
                (true, true) => (format!("{} violated by the loop", m.property), "mark violated"),
                (true, false) => (format!("{} violated", m.property), "mark violated"),
                (false, _) => (format!("{} {}", m.property, m.status), "mark satisfied"),
            })
            .collect();
        if v.marks.iter().any(|m| m.at == i && m.status == "violated" && !super::chart::violated_by_loop(v, m)) {
            classes.push("violated");
        }
        if v.deadlock && i == n {
            classes.push("deadlock");
        }
        let class = if classes.is_empty() { String::new() } else { format!(r#" class="{}""#, classes.join(" ")) };
        let _ = write!(out, r#"<tr id="{id}-s{i}"{class}><td class="num">{num}</td><td class="event">"#);
        out.push_str(&esc(&if i == 0 { "initial state".to_string() } else { v.step_text(i - 1) }));
        if v.loop_start == Some(i) {
            out.push_str(r#" <span class="tag loop">loop starts here</span>"#);
        }
        for (text, class) in &marks {
            let _ = write!(out, r#" <span class="tag {class}">{}</span>"#, esc(text));
        }
        if v.deadlock && i == n {
            out.push_str(r#" <span class="tag dead">deadlock</span>"#);
        }
        out.push_str("</td>");
        let prev = (i > 0).then(|| &v.rows[i - 1]);
        for (k, value) in row.values.iter().enumerate() {
            let mut cls = vec![];
            if first_of_group[k] {
                cls.push("grp");
            }
            if prev.is_some_and(|p| p.values[k] != *value) {
                cls.push("chg");
            } else if prev.is_some_and(|p| p.stamps[k] != row.stamps[k]) {
                cls.push("chg-ts");
            }
            let class = if cls.is_empty() { String::new() } else { format!(r#" class="{}""#, cls.join(" ")) };
            let _ = write!(out, "<td{class}>{}", esc(&shown(*value)));
            if let Some(t) = row.stamps[k] {
                let _ = write!(out, r#"<span class="ts">@{t}</span>"#);
            }
            out.push_str("</td>");
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></div>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Store;
    use crate::report::view::{Assignment, Column, Row, StepView};

    #[test]
    fn changed_values_and_timestamps_are_highlighted() {
        let col = |a, name: &str, stigmergic| Column { owner: Owner::Agent(a), name: name.into(), stigmergic };
        let v = TraceView {
            agents: vec!["A 0".into(), "A 1".into()],
            env: false,
            columns: vec![col(0, "x", true), col(1, "x", true)],
            rows: vec![
                Row { values: vec![Some(0), Some(0)], stamps: vec![Some(0), Some(1)] },
                Row { values: vec![Some(4), Some(0)], stamps: vec![Some(2), Some(1)] },
                Row { values: vec![Some(4), Some(4)], stamps: vec![Some(2), Some(2)] },
            ],
            steps: vec![
                StepView::Agent {
                    agent: 0,
                    assignments: vec![Assignment {
                        var: "x".into(),
                        store: Store::Stig { stigmergy: 0, tuple: 0 },
                        value: Some(4),
                        stamp: Some(2),
                    }],
                    skip: false,
                },
                StepView::Message {
                    sender: 0,
                    tuple: "x".into(),
                    confirm: false,
                    stamp: 2,
                    copied: vec![1],
                    refreshed: vec![],
                },
            ],
            loop_start: None,
            deadlock: true,
            marks: vec![],
        };
        let t = step_table(&v, "r");
        assert_eq!(t.matches("<tr id=").count(), 3);
        // One changed value per step; the group column of agent 1 stays unchanged at step 1.
        assert_eq!(t.matches(r#"class="chg""#).count() + t.matches(r#"class="grp chg""#).count(), 2);
        assert!(t.contains(r#"<tr id="r-s1"><td class="num">1</td><td class="event">A 0: x &lt;~ 4 @2</td><td class="grp chg">4<span class="ts">@2</span>"#), "{t}");
        assert!(t.contains("A 0: put (x) @2 → agent 1"));
        assert!(t.contains(r#"<tr id="r-s2" class="deadlock">"#));
    }

    /// A satisfied mark is green, a violated one red; a lasso's violation is its loop's, so no
    /// row is red for it.
    #[test]
    fn verdict_pills_have_the_verdicts_colour() {
        let row = Row { values: vec![Some(0)], stamps: vec![None] };
        let skip = StepView::Agent { agent: 0, assignments: vec![], skip: true };
        let mut v = TraceView {
            agents: vec!["A 0".into()],
            env: false,
            columns: vec![Column { owner: Owner::Agent(0), name: "x".into(), stigmergic: false }],
            rows: vec![row.clone(), row.clone(), row],
            steps: vec![skip.clone(), skip],
            loop_start: None,
            deadlock: false,
            marks: vec![
                crate::trace::Mark { at: 1, property: "Q".into(), status: "satisfied".into() },
                crate::trace::Mark { at: 2, property: "P".into(), status: "violated".into() },
            ],
        };
        let t = step_table(&v, "r");
        assert!(t.contains(r#"<span class="tag mark satisfied">Q satisfied</span>"#), "{t}");
        assert!(t.contains(r#"<span class="tag mark violated">P violated</span>"#), "{t}");
        assert!(t.contains(r#"<tr id="r-s2" class="violated">"#), "{t}");
        v.loop_start = Some(1);
        let t = step_table(&v, "r");
        assert!(t.contains(r#"<span class="tag mark violated">P violated by the loop</span>"#), "{t}");
        assert!(!t.contains(r#"class="violated""#) && !t.contains(r#"in-loop violated"#), "{t}");
    }
}
