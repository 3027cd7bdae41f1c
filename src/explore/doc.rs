//! The JSON documents of the page's API (docs/explore.md): the view of the session the page
//! draws after every request. States and events are in the JSON form of traces
//! (docs/trace-format.md), with their concrete timestamps along the history.

use super::grid::GridView;
use super::session::{Session, Status};
use crate::engine::SimStatus;
use crate::engine::simulate::SimProperty;
use crate::report::view::{StepView, TraceView};
use crate::trace::{Clock, EventJson, StateJson, event_json, state_json};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// One element that differs between two states.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Change {
    /// Where the element is in the state's JSON form (`agents.1.stigmergy.dirx`,
    /// `agents.0.pending_confirm`, `environment.c`, `turn`): the page marks it.
    pub key: String,
    /// `Bird 1: dirx`, `environment: c`, `turn`.
    pub label: String,
    pub from: String,
    pub to: String,
}

#[derive(Serialize)]
pub(crate) struct EnabledDoc {
    pub(crate) index: usize,
    /// One line: `Bird 0: x <- 4; y <- 4`, `Bird 2: put (dirx,diry) @5 → agents 0, 1`.
    pub(crate) text: String,
    pub(crate) event: EventJson,
    pub(crate) state: StateJson,
    pub(crate) changes: Vec<Change>,
}

#[derive(Serialize)]
pub(crate) struct PropertyDoc {
    pub(crate) property: String,
    pub(crate) modality: String,
    pub(crate) text: String,
    /// At the cursor: decided by the states up to it.
    pub(crate) status: &'static str,
    pub(crate) at: Option<usize>,
    pub(crate) progress: Option<&'static str>,
    /// On the whole history (the verdict on a complete run: a lasso or a deadlock).
    pub(crate) run_status: &'static str,
    pub(crate) run_at: Option<usize>,
}

#[derive(Serialize)]
pub(crate) struct HistoryDoc {
    /// The state the step leads to.
    pub(crate) at: usize,
    pub(crate) text: String,
}

#[derive(Serialize)]
pub(crate) struct OriginDoc {
    pub(crate) title: String,
    pub(crate) intact: bool,
    pub(crate) branched_at: Option<usize>,
}

#[derive(Serialize)]
pub(crate) struct TraceEntry {
    pub(crate) index: usize,
    pub(crate) title: String,
}

/// The whole view: what `GET /api/state` returns, and every action with its `message`.
#[derive(Serialize)]
pub(crate) struct ViewDoc {
    pub(crate) spec: String,
    pub(crate) externs: BTreeMap<String, i64>,
    pub(crate) fair: bool,
    pub(crate) rev: u64,
    pub(crate) cursor: usize,
    /// Steps in the history (its states are 0 to `length`).
    pub(crate) length: usize,
    pub(crate) agents: Vec<String>,
    pub(crate) state: StateJson,
    /// The step into the cursor's state and what it changed (none at state 0).
    pub(crate) last_step: Option<String>,
    pub(crate) last_changes: Vec<Change>,
    pub(crate) last_event: Option<EventJson>,
    pub(crate) enabled: Vec<EnabledDoc>,
    /// The enabled step the history takes next, when the cursor is not at its end.
    pub(crate) next_in_history: Option<usize>,
    /// A run-time error met by a step of this state (the steps listed meet none).
    pub(crate) runtime_error: Option<String>,
    /// The earliest state before the cursor equal to it.
    pub(crate) same_as: Option<usize>,
    pub(crate) loop_start: Option<usize>,
    pub(crate) ends_in_deadlock: bool,
    pub(crate) properties: Vec<PropertyDoc>,
    pub(crate) property_error: Option<String>,
    pub(crate) history: Vec<HistoryDoc>,
    /// The history as the report's message-sequence chart (legend and SVG).
    pub(crate) chart: String,
    pub(crate) origin: Option<OriginDoc>,
    pub(crate) trace_file: Option<String>,
    pub(crate) traces: Vec<TraceEntry>,
    pub(crate) view: Option<GridView>,
    /// What the last action did, in words.
    pub(crate) message: Option<String>,
    /// Whether the last "run until" met its condition.
    pub(crate) found: Option<bool>,
}

/// What the page needs besides the session.
pub(crate) struct Frame<'a> {
    pub(crate) spec: &'a str,
    pub(crate) trace_file: Option<String>,
    pub(crate) traces: Vec<TraceEntry>,
    pub(crate) view: Option<GridView>,
}

fn status_name(s: SimStatus) -> &'static str {
    match s {
        SimStatus::Satisfied => "satisfied",
        SimStatus::Violated => "violated",
        SimStatus::Undecided => "undecided",
    }
}

fn property_doc(p: &crate::model::Property, s: &Status) -> PropertyDoc {
    let (now, run): (&SimProperty, &SimProperty) = (&s.now, &s.run);
    PropertyDoc {
        property: p.name.clone(),
        modality: p.keyword.clone(),
        text: p.text.clone(),
        status: status_name(now.status),
        at: now.at_step,
        progress: s.progress,
        run_status: status_name(run.status),
        run_at: run.at_step,
    }
}

pub(crate) fn view(s: &mut Session, frame: Frame) -> ViewDoc {
    let model = s.model;
    let behs = s.behs;
    let (statuses, shown, property_error) = match s.statuses() {
        Ok((st, shown)) => (st, shown, None),
        Err(e) => (vec![], s.run.clone(), Some(e)),
    };
    // Concrete timestamps at the cursor, and the states' JSON forms along the way.
    let mut clock = Clock::new(&s.stepper);
    for step in &s.run.steps[..s.cursor] {
        clock.apply(&step.event);
    }
    let state = state_json(model, &s.stepper, &clock.ts, s.current());
    let state_value = serde_json::to_value(&state).unwrap_or(Value::Null);
    let agents: Vec<String> = (0..s.stepper.lay.n_agents).map(|a| crate::trace::agent_name(model, a)).collect();
    let view = TraceView::new(model, behs, &shown);
    let last_event = (s.cursor > 0).then(|| {
        let step = &s.run.steps[s.cursor - 1];
        event_json(model, &s.stepper, &clock.ts, &step.event, &step.state)
    });
    let (last_step, last_changes) = if s.cursor == 0 {
        (None, vec![])
    } else {
        let mut before = Clock::new(&s.stepper);
        for step in &s.run.steps[..s.cursor - 1] {
            before.apply(&step.event);
        }
        let prev = state_json(model, &s.stepper, &before.ts, s.run.state(s.cursor - 1));
        let prev = serde_json::to_value(&prev).unwrap_or(Value::Null);
        (Some(view.step_text(s.cursor - 1)), changes(&agents, &prev, &state_value))
    };
    let en = s.enabled();
    let next_in_history = s
        .run
        .steps
        .get(s.cursor)
        .and_then(|next| en.steps.iter().position(|(ev, st)| *ev == next.event && *st == next.state));
    let enabled = en
        .steps
        .iter()
        .enumerate()
        .map(|(index, (ev, st))| {
            let mut c = clock.clone();
            c.apply(ev);
            let state = state_json(model, &s.stepper, &c.ts, st);
            let after = serde_json::to_value(&state).unwrap_or(Value::Null);
            let text = StepView::of(model, &c, ev).text(&agents);
            EnabledDoc {
                index,
                text,
                event: event_json(model, &s.stepper, &c.ts, ev, st),
                state,
                changes: changes(&agents, &state_value, &after),
            }
        })
        .collect();
    let history = (0..view.steps.len()).map(|i| HistoryDoc { at: i + 1, text: view.step_text(i) }).collect();
    let chart = crate::report::chart::legend(&view) + &crate::report::chart::chart(&view, "h");
    ViewDoc {
        spec: frame.spec.to_string(),
        externs: model.externs.clone(),
        fair: s.fair(),
        rev: s.rev,
        cursor: s.cursor,
        length: s.run.len(),
        agents,
        state,
        last_step,
        last_changes,
        last_event,
        enabled,
        next_in_history,
        runtime_error: en.error,
        same_as: s.same_as(),
        loop_start: shown.loop_start,
        ends_in_deadlock: shown.ends_in_deadlock,
        properties: model.properties.iter().zip(&statuses).map(|(p, st)| property_doc(p, st)).collect(),
        property_error,
        history,
        chart,
        origin: s.origin.as_ref().map(|o| OriginDoc {
            title: o.title.clone(),
            intact: o.intact,
            branched_at: o.branched_at,
        }),
        trace_file: frame.trace_file,
        traces: frame.traces,
        view: frame.view,
        message: None,
        found: None,
    }
}

/// A value of a state's JSON form as the page shows it.
fn shown(v: Option<&Value>) -> String {
    match v {
        None => "—".to_string(),
        Some(Value::Array(items)) => {
            let names: Vec<String> =
                items.iter().map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string)).collect();
            if names.is_empty() { "none".to_string() } else { names.join(" ") }
        }
        Some(Value::String(s)) => s.clone(),
        Some(Value::Object(o)) => match (o.get("value"), o.get("timestamp")) {
            (Some(v), Some(t)) => format!("{} @{t}", v.as_str().map_or_else(|| v.to_string(), str::to_string)),
            _ => Value::Object(o.clone()).to_string(),
        },
        Some(v) => v.to_string(),
    }
}

/// The entries of two maps (`environment`, an agent's `attributes` or `stigmergy`) that differ.
fn diff_map(out: &mut Vec<Change>, prefix: &str, owner: &str, b: Option<&Value>, a: Option<&Value>) {
    let empty = serde_json::Map::new();
    let b = b.and_then(Value::as_object).unwrap_or(&empty);
    let a = a.and_then(Value::as_object).unwrap_or(&empty);
    let keys: std::collections::BTreeSet<&String> = b.keys().chain(a.keys()).collect();
    for k in keys {
        if b.get(k) != a.get(k) {
            out.push(Change {
                key: format!("{prefix}.{k}"),
                label: format!("{owner}: {k}"),
                from: shown(b.get(k)),
                to: shown(a.get(k)),
            });
        }
    }
}

/// The elements that differ between two states in JSON form.
pub(crate) fn changes(agents: &[String], before: &Value, after: &Value) -> Vec<Change> {
    let mut out = vec![];
    diff_map(&mut out, "environment", "environment", before.get("environment"), after.get("environment"));
    let none = vec![];
    let ab = before.get("agents").and_then(Value::as_array).unwrap_or(&none);
    let aa = after.get("agents").and_then(Value::as_array).unwrap_or(&none);
    for (i, (b, a)) in ab.iter().zip(aa).enumerate() {
        let owner = agents.get(i).cloned().unwrap_or_else(|| format!("agent {i}"));
        diff_map(&mut out, &format!("agents.{i}.attributes"), &owner, b.get("attributes"), a.get("attributes"));
        diff_map(&mut out, &format!("agents.{i}.stigmergy"), &owner, b.get("stigmergy"), a.get("stigmergy"));
        for field in ["pending_propagate", "pending_confirm", "control_point"] {
            if b.get(field) != a.get(field) {
                out.push(Change {
                    key: format!("agents.{i}.{field}"),
                    label: format!("{owner}: {}", field.replace('_', " ")),
                    from: shown(b.get(field)),
                    to: shown(a.get(field)),
                });
            }
        }
    }
    if before.get("turn") != after.get("turn") {
        out.push(Change {
            key: "turn".into(),
            label: "turn".into(),
            from: shown(before.get("turn")),
            to: shown(after.get("turn")),
        });
    }
    out
}
