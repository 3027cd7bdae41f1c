//! Traces: the initial state and the steps of a path, printed in the human format of
//! docs/trace-format.md or as JSON (docs/json.md), and an independent replay checker.

pub mod cadp;
mod changes;
test_visible_mod!(checked);
mod errors;
test_visible_mod!(from_labels);
pub mod from_json;

use crate::behaviour::Behaviour;
use crate::engine::state::{BOT, Layout};
use crate::engine::step::{Event, Stepper, Work};
use crate::model::{Model, Store};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;

pub use changes::{ChangesJson, apply_changes, to_changes_json};
pub use errors::{ReplayError, ShownTraceError, TranslateError};

pub use crate::engine::path::{Mark, Trace, TraceStep};

/// Concrete timestamps along a trace (docs/semantics.md, "Timestamps as dense ranks"): initial
/// ones 0, 1, 2, … in initialisation order (agent by agent, tuple by tuple), then +1 per
/// written tuple; messages copy them.
#[derive(Clone)]
pub(crate) struct Clock {
    pub(crate) ts: Vec<Vec<i64>>, // [agent][tuple]
    next: i64,
}

impl Clock {
    pub(crate) fn new(st: &Stepper) -> Clock {
        let n = st.lay.n_agents;
        let mut ts = vec![vec![0i64; st.lay.n_tuples]; n];
        let mut next = 0;
        for (a, row) in ts.iter_mut().enumerate() {
            for (k, t) in row.iter_mut().enumerate() {
                if st.holders[k].contains(&a) {
                    *t = next;
                    next += 1;
                }
            }
        }
        Clock { ts, next }
    }
    pub(crate) fn apply(&mut self, ev: &Event) {
        match ev {
            Event::Agent { agent, written, .. } => {
                for &k in written {
                    self.ts[*agent][k] = self.next;
                    self.next += 1;
                }
            }
            Event::Message { sender, tuple, copied, .. } => {
                let t = self.ts[*sender][*tuple];
                for &r in copied {
                    self.ts[r][*tuple] = t;
                }
            }
        }
    }
}

fn val(v: i32) -> String {
    if v == BOT { "undef".into() } else { v.to_string() }
}

/// A value in the JSON form: a number, or `"undef"` for ⊥.
#[derive(Serialize)]
#[serde(untagged)]
enum JsonValue {
    Int(i32),
    Undef(&'static str),
}

fn jval(v: i32) -> JsonValue {
    if v == BOT { JsonValue::Undef("undef") } else { JsonValue::Int(v) }
}

pub(crate) fn agent_name(model: &Model, a: usize) -> String {
    format!("{} {}", model.agent_types[model.type_of(a)].name, a)
}

pub(crate) fn tuple_name(model: &Model, k: usize) -> String {
    model.tuples[k].vars.iter().map(|&v| model.vars[v].name.as_str()).collect::<Vec<_>>().join(",")
}

/// The human form (docs/trace-format.md).
pub fn render(model: &Model, behs: &[Behaviour], trace: &Trace) -> String {
    let stepper = Stepper::new(model, behs, trace.fair);
    let lay = &stepper.lay;
    let mut clock = Clock::new(&stepper);
    let mut out = String::new();
    let st = &trace.initial;
    out.push_str("<initialization>\n");
    for v in model.vars.iter().filter(|v| v.store == Store::Env) {
        for e in 0..v.len {
            let _ = writeln!(out, "  {} <-- {}", v.element_name(e), val(st[v.offset + e]));
        }
    }
    for a in 0..lay.n_agents {
        let ty = stepper.type_of[a];
        for &vi in &model.agent_types[ty].attrs {
            let v = &model.vars[vi];
            for e in 0..v.len {
                let _ = writeln!(
                    out,
                    "{}: {} <- {}",
                    agent_name(model, a),
                    v.element_name(e),
                    val(st[lay.attr(a, v.offset + e)])
                );
            }
        }
        for v in &model.vars {
            if let Store::Stig { stigmergy, tuple } = v.store
                && model.holds(ty, stigmergy)
            {
                for e in 0..v.len {
                    let _ = writeln!(
                        out,
                        "{}: {} <~ {} @{}",
                        agent_name(model, a),
                        v.element_name(e),
                        val(st[lay.stig(a, v.offset + e)]),
                        clock.ts[a][tuple]
                    );
                }
            }
        }
    }
    out.push_str("<end initialization>\n");
    let marks_at = |out: &mut String, i: usize| {
        for m in trace.marks.iter().filter(|m| m.at == i) {
            let _ = writeln!(out, "<property {}: {}>", m.status, m.property);
        }
    };
    let last = trace.steps.len();
    for (i, step) in trace.steps.iter().enumerate() {
        marks_at(&mut out, i);
        if trace.loop_start == Some(i) {
            out.push_str("<loop starts here>\n");
        }
        clock.apply(&step.event);
        out.push_str(&event_text(model, &stepper, &clock.ts, &step.event, &step.state));
    }
    if trace.ends_in_deadlock {
        out.push_str("<deadlock>\n");
    }
    marks_at(&mut out, last);
    out
}

fn event_text(model: &Model, stepper: &Stepper, ts: &[Vec<i64>], ev: &Event, st: &[i32]) -> String {
    let lay = &stepper.lay;
    let mut out = String::new();
    match ev {
        Event::Agent { agent, assigned, skip, .. } => {
            let who = agent_name(model, *agent);
            if assigned.is_empty() {
                let _ = writeln!(out, "{who}: {}", if *skip { "Skip" } else { "(no assignment)" });
            }
            for asd in assigned {
                let v = &model.vars[asd.var];
                let name = v.element_name(asd.elem);
                match v.store {
                    Store::Env => {
                        let _ = writeln!(out, "{who}: {name} <-- {}", val(asd.value));
                    }
                    Store::Attr => {
                        let _ = writeln!(out, "{who}: {name} <- {}", val(asd.value));
                    }
                    Store::Stig { tuple, .. } => {
                        let _ = writeln!(out, "{who}: {name} <~ {} @{}", val(asd.value), ts[*agent][tuple]);
                    }
                }
            }
        }
        Event::Message { sender, tuple, confirm, copied, .. } => {
            let kind = if *confirm { "confirm" } else { "propagate" };
            let who = agent_name(model, *sender);
            let tn = tuple_name(model, *tuple);
            let _ = writeln!(out, "<{who}: {kind} {tn}>");
            for &r in copied {
                for &vi in &model.tuples[*tuple].vars {
                    let v = &model.vars[vi];
                    for e in 0..v.len {
                        let _ = writeln!(
                            out,
                            "  {}: {} <~ {} @{}",
                            agent_name(model, r),
                            v.element_name(e),
                            val(st[lay.stig(r, v.offset + e)]),
                            ts[r][*tuple]
                        );
                    }
                }
            }
            let _ = writeln!(out, "<{who}: end {kind} {tn}>");
        }
    }
    out
}

/// The JSON form of a trace (docs/json.md).
#[derive(Serialize)]
pub struct TraceJson {
    initial: StateJson,
    steps: Vec<StepJson>,
    loop_start: Option<usize>,
    ends_in_deadlock: bool,
    marks: Vec<Mark>,
}

#[derive(Serialize)]
pub(crate) struct StepJson {
    event: EventJson,
    state: StateJson,
}

#[derive(Serialize)]
pub(crate) struct StateJson {
    environment: BTreeMap<String, JsonValue>,
    agents: Vec<AgentJson>,
    /// The round-robin turn, under fair scheduling only.
    #[serde(skip_serializing_if = "Option::is_none")]
    turn: Option<i32>,
}

#[derive(Serialize)]
pub(crate) struct AgentJson {
    id: usize,
    agent_type: String,
    attributes: BTreeMap<String, JsonValue>,
    stigmergy: BTreeMap<String, StigJson>,
    pending_propagate: Vec<String>,
    pending_confirm: Vec<String>,
    control: i32,
    control_point: String,
}

#[derive(Serialize)]
pub(crate) struct StigJson {
    value: JsonValue,
    timestamp: i64,
}

#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum EventJson {
    Agent {
        kind: &'static str,
        agent: usize,
        agent_type: String,
        assignments: Vec<AssignmentJson>,
        text: String,
    },
    Message {
        kind: &'static str,
        agent: usize,
        agent_type: String,
        tuple: String,
        receivers: Vec<usize>,
        repropagating: Vec<usize>,
        text: String,
    },
}

#[derive(Serialize)]
pub(crate) struct AssignmentJson {
    variable: String,
    store: &'static str,
    value: JsonValue,
    /// The new timestamp of a stigmergic variable.
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<i64>,
}

pub(crate) fn state_json(model: &Model, stepper: &Stepper, ts: &[Vec<i64>], st: &[i32]) -> StateJson {
    let lay = &stepper.lay;
    let mut environment = BTreeMap::new();
    for v in model.vars.iter().filter(|v| v.store == Store::Env) {
        for e in 0..v.len {
            environment.insert(v.element_name(e), jval(st[v.offset + e]));
        }
    }
    let mut agents = Vec::new();
    for a in 0..lay.n_agents {
        let ty = stepper.type_of[a];
        let mut attributes = BTreeMap::new();
        for &vi in &model.agent_types[ty].attrs {
            let v = &model.vars[vi];
            for e in 0..v.len {
                attributes.insert(v.element_name(e), jval(st[lay.attr(a, v.offset + e)]));
            }
        }
        let mut stigmergy = BTreeMap::new();
        for v in &model.vars {
            if let Store::Stig { stigmergy: s, tuple } = v.store
                && model.holds(ty, s)
            {
                for e in 0..v.len {
                    let value = jval(st[lay.stig(a, v.offset + e)]);
                    stigmergy.insert(v.element_name(e), StigJson { value, timestamp: ts[a][tuple] });
                }
            }
        }
        let names = |at: usize| -> Vec<String> { lay.bits(st, at).map(|k| tuple_name(model, k)).collect() };
        let control = st[lay.ctl(a)];
        agents.push(AgentJson {
            id: a,
            agent_type: model.agent_types[ty].name.clone(),
            attributes,
            stigmergy,
            pending_propagate: names(lay.zp(a)),
            pending_confirm: names(lay.zc(a)),
            control,
            control_point: stepper.behs[ty].states.get(control as usize).cloned().unwrap_or_default(),
        });
    }
    StateJson { environment, agents, turn: lay.fair.then(|| st[lay.turn()]) }
}

pub(crate) fn event_json(model: &Model, stepper: &Stepper, ts: &[Vec<i64>], ev: &Event, st: &[i32]) -> EventJson {
    let text = event_text(model, stepper, ts, ev, st);
    match ev {
        Event::Agent { agent, assigned, skip, .. } => {
            let assignments = assigned
                .iter()
                .map(|a| {
                    let v = &model.vars[a.var];
                    let (store, timestamp) = match v.store {
                        Store::Env => ("environment", None),
                        Store::Attr => ("interface", None),
                        Store::Stig { tuple, .. } => ("stigmergy", Some(ts[*agent][tuple])),
                    };
                    AssignmentJson { variable: v.element_name(a.elem), store, value: jval(a.value), timestamp }
                })
                .collect();
            EventJson::Agent {
                kind: if *skip { "skip" } else { "agent" },
                agent: *agent,
                agent_type: model.agent_types[model.type_of(*agent)].name.clone(),
                assignments,
                text,
            }
        }
        Event::Message { sender, tuple, confirm, copied, refreshed } => EventJson::Message {
            kind: if *confirm { "confirm" } else { "propagate" },
            agent: *sender,
            agent_type: model.agent_types[model.type_of(*sender)].name.clone(),
            tuple: tuple_name(model, *tuple),
            receivers: copied.clone(),
            repropagating: refreshed.clone(),
            text,
        },
    }
}

/// The JSON form (docs/json.md): `initial`, `steps` (event + state), `loop_start`,
/// `ends_in_deadlock`, plus `marks`.
pub fn to_json(model: &Model, behs: &[Behaviour], trace: &Trace) -> TraceJson {
    let stepper = Stepper::new(model, behs, trace.fair);
    let mut clock = Clock::new(&stepper);
    let initial = state_json(model, &stepper, &clock.ts, &trace.initial);
    let mut steps = Vec::new();
    for s in &trace.steps {
        clock.apply(&s.event);
        steps.push(StepJson {
            event: event_json(model, &stepper, &clock.ts, &s.event, &s.state),
            state: state_json(model, &stepper, &clock.ts, &s.state),
        });
    }
    TraceJson {
        initial,
        steps,
        loop_start: trace.loop_start,
        ends_in_deadlock: trace.ends_in_deadlock,
        marks: trace.marks.clone(),
    }
}

/// Re-checks a trace against the semantics: the initial state is an initial state, each
/// step's (event, state) is a successor of the previous state, the loop closes, and a
/// trace marked as ending in a deadlock does.
pub fn replay(model: &Model, behs: &[Behaviour], trace: &Trace) -> Result<(), ReplayError> {
    let stepper = Stepper::new(model, behs, trace.fair);
    let lay: &Layout = &stepper.lay;
    if trace.initial.len() != lay.len {
        return Err(ReplayError::SlotCount { found: trace.initial.len(), expected: lay.len });
    }
    // A membership test: a system may have more initial states than can be listed.
    if !stepper.is_initial(&trace.initial).map_err(|e| ReplayError::Runtime(e.0))? {
        return Err(ReplayError::NotInitial);
    }
    let mut w = Work::default();
    for (i, step) in trace.steps.iter().enumerate() {
        let prev = trace.state(i);
        let mut found = false;
        let mut same_state = false;
        // A step is a transition even where another step of `prev` meets a run-time error:
        // a path from another back end may go past that error to the one its search met (D9).
        stepper.successors_past_errors(prev, &mut w, &mut |ev, s| {
            if s == step.state.as_slice() {
                same_state = true;
                if ev.as_ref() == Some(&step.event) {
                    found = true;
                }
            }
        });
        if !found {
            return Err(if same_state {
                ReplayError::WrongEvent { step: i + 1 }
            } else {
                ReplayError::NotSuccessor { step: i + 1 }
            });
        }
    }
    if let Some(l) = trace.loop_start {
        if l >= trace.steps.len() {
            return Err(ReplayError::LoopBeyondEnd { loop_start: l });
        }
        if trace.state(l) != trace.last() {
            return Err(ReplayError::LoopOpen);
        }
    }
    if trace.ends_in_deadlock {
        let dead = stepper.is_deadlock(trace.last(), &mut w).map_err(|e| ReplayError::Runtime(e.0))?;
        if !dead {
            return Err(ReplayError::NotDeadlock);
        }
    }
    Ok(())
}

/// `replay` on every trace a command is about to show, each named (`counterexample for P`,
/// `run 2`): no trace reaches a user unchecked, whichever back end built it.
pub fn replay_all<'a>(
    model: &Model,
    behs: &[Behaviour],
    traces: impl IntoIterator<Item = (String, &'a Trace)>,
) -> Result<(), ShownTraceError> {
    for (name, t) in traces {
        replay(model, behs, t).map_err(|error| ShownTraceError { name, error })?;
    }
    Ok(())
}
