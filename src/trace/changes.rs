//! The JSON form of a simulation run (docs/json.md, `labs simulate --json`): the initial state
//! whole, then each step as its event and what it changes, so that a run of many steps over
//! many agents costs what changes rather than every state again.

use super::{Clock, EventJson, Mark, Trace, event_json, state_json};
use crate::behaviour::Behaviour;
use crate::engine::step::Stepper;
use crate::model::Model;
use serde::Serialize;
use serde_json::{Map, Value};

/// A trace with each step's state given as what changed (docs/json.md, CHANGES).
#[derive(Serialize)]
pub struct ChangesJson {
    initial: Value,
    steps: Vec<ChangeStepJson>,
    loop_start: Option<usize>,
    ends_in_deadlock: bool,
    marks: Vec<Mark>,
}

#[derive(Serialize)]
struct ChangeStepJson {
    event: EventJson,
    changes: Value,
}

/// `trace` with its initial state whole and each step's state as the changes from the state
/// before it (docs/json.md): `apply_changes` on the state before gives the state after.
pub fn to_changes_json(model: &Model, behs: &[Behaviour], trace: &Trace) -> ChangesJson {
    let stepper = Stepper::new(model, behs, trace.fair);
    let mut clock = Clock::new(&stepper);
    let as_value = |s| serde_json::to_value(s).expect("JSON of a state");
    let initial = as_value(state_json(model, &stepper, &clock.ts, &trace.initial));
    let mut before = initial.clone();
    let mut steps = Vec::with_capacity(trace.steps.len());
    for s in &trace.steps {
        clock.apply(&s.event);
        let after = as_value(state_json(model, &stepper, &clock.ts, &s.state));
        steps.push(ChangeStepJson {
            event: event_json(model, &stepper, &clock.ts, &s.event, &s.state),
            changes: changes(&before, &after),
        });
        before = after;
    }
    ChangesJson {
        initial,
        steps,
        loop_start: trace.loop_start,
        ends_in_deadlock: trace.ends_in_deadlock,
        marks: trace.marks.clone(),
    }
}

/// The maps whose changed entries alone are listed (the others' fields are replaced whole).
const ENTRY_MAPS: [&str; 3] = ["environment", "attributes", "stigmergy"];

/// The fields of the STATE `after` that differ from `before`: of `environment`, `attributes`
/// and `stigmergy` the changed entries; of `agents` the agents with a change, each with its
/// `id` and its changed fields; any other field whole. Only what changed is present.
fn changes(before: &Value, after: &Value) -> Value {
    let mut out = Map::new();
    let (Value::Object(b), Value::Object(a)) = (before, after) else { return after.clone() };
    for (key, new) in a {
        let old = b.get(key);
        if old == Some(new) {
            continue;
        }
        let diff = match (key.as_str(), old, new) {
            (k, Some(Value::Object(o)), Value::Object(n)) if ENTRY_MAPS.contains(&k) => Value::Object(
                n.iter().filter(|(name, v)| o.get(*name) != Some(*v)).map(|(k, v)| (k.clone(), v.clone())).collect(),
            ),
            ("agents", Some(Value::Array(o)), Value::Array(n)) => Value::Array(
                o.iter()
                    .zip(n)
                    .filter(|(x, y)| x != y)
                    .map(|(x, y)| {
                        let mut agent = match changes(x, y) {
                            Value::Object(m) => m,
                            _ => Map::new(),
                        };
                        agent.insert("id".into(), y["id"].clone());
                        Value::Object(agent)
                    })
                    .collect(),
            ),
            _ => new.clone(),
        };
        out.insert(key.clone(), diff);
    }
    Value::Object(out)
}

/// The STATE after a step: `before` with `changes` applied (the inverse of the changes
/// written by `to_changes_json`; docs/json.md says how a reader applies them).
pub fn apply_changes(before: &Value, changes: &Value) -> Value {
    let mut state = before.clone();
    let (Value::Object(s), Value::Object(c)) = (&mut state, changes) else { return state };
    for (key, change) in c {
        match (key.as_str(), s.get_mut(key), change) {
            (k, Some(Value::Object(entries)), Value::Object(new)) if ENTRY_MAPS.contains(&k) => {
                for (name, v) in new {
                    entries.insert(name.clone(), v.clone());
                }
            }
            ("agents", Some(Value::Array(agents)), Value::Array(new)) => {
                for a in new {
                    if let Some(old) = agents.iter_mut().find(|x| x["id"] == a["id"]) {
                        *old = apply_changes(old, a);
                    }
                }
            }
            _ => {
                s.insert(key.clone(), change.clone());
            }
        }
    }
    state
}
