//! Traces read back from their JSON form (docs/trace-format.md): the documents `verify
//! --json`, `simulate --json`, `translate-trace --json` and `labs explore`'s export print, or
//! a bare trace object. Each state is decoded into the engine's slots (values, timestamps as
//! dense ranks, pending sets, control point, turn) and each step is matched to a successor of
//! the state before it that reaches that state by that event, so the trace built is a path of
//! the native successor relation; `replay` then checks it independently.

use super::{Mark, Trace, TraceStep, agent_name, tuple_name};
use crate::behaviour::Behaviour;
use crate::engine::state::BOT;
use crate::engine::step::{Event, Stepper, Work};
use crate::model::{Model, Store, VarId};
use serde::Deserialize;
use std::collections::BTreeMap;

/// Why a JSON document is not a trace of this spec.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JsonTraceError {
    #[error("not JSON: {0}")]
    NotJson(String),
    #[error("no trace in this document (expected a trace object, or `trace`, `results[].trace` or `runs[].trace`)")]
    NoTrace,
    #[error("{title}: not a trace in the JSON form of docs/trace-format.md: {message}")]
    Shape { title: String, message: String },
    #[error("{title}: {message}")]
    Mismatch { title: String, message: String },
    #[error("the trace was made {made} but this run is {run}: give the same scheduling")]
    Scheduling { made: &'static str, run: &'static str },
    #[error("the trace was made with the extern values {made}, not {given}")]
    Externs { made: String, given: String },
}

/// One trace of a document, with the title the document gives it.
#[derive(Clone, Debug)]
pub struct TitledTrace {
    pub title: String,
    pub trace: Trace,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ValueIn {
    Int(i64),
    Text(String),
}

#[derive(Deserialize)]
struct StigIn {
    value: ValueIn,
    timestamp: i64,
}

#[derive(Deserialize)]
struct AgentIn {
    id: usize,
    #[serde(default)]
    attributes: BTreeMap<String, ValueIn>,
    #[serde(default)]
    stigmergy: BTreeMap<String, StigIn>,
    #[serde(default)]
    pending_propagate: Vec<String>,
    #[serde(default)]
    pending_confirm: Vec<String>,
    control: i32,
}

#[derive(Deserialize)]
struct StateIn {
    #[serde(default)]
    environment: BTreeMap<String, ValueIn>,
    agents: Vec<AgentIn>,
    turn: Option<i32>,
}

#[derive(Deserialize)]
struct AssignmentIn {
    variable: String,
    value: ValueIn,
}

#[derive(Deserialize)]
struct EventIn {
    kind: String,
    agent: usize,
    #[serde(default)]
    tuple: Option<String>,
    #[serde(default)]
    receivers: Vec<usize>,
    #[serde(default)]
    assignments: Vec<AssignmentIn>,
}

#[derive(Deserialize)]
struct StepIn {
    event: EventIn,
    state: StateIn,
}

#[derive(Deserialize)]
struct TraceIn {
    initial: StateIn,
    #[serde(default)]
    steps: Vec<StepIn>,
    #[serde(default)]
    loop_start: Option<usize>,
    #[serde(default)]
    ends_in_deadlock: bool,
    #[serde(default)]
    marks: Vec<MarkIn>,
}

#[derive(Deserialize)]
struct MarkIn {
    at: usize,
    property: String,
    status: String,
}

/// Every trace of a JSON document, each decoded against `model` under the scheduling `fair`
/// and matched step by step with the native successors (not yet replayed).
pub fn read(model: &Model, behs: &[Behaviour], fair: bool, text: &str) -> Result<Vec<TitledTrace>, JsonTraceError> {
    let doc: serde_json::Value = serde_json::from_str(text).map_err(|e| JsonTraceError::NotJson(e.to_string()))?;
    if let Some(made) = doc.get("fair").and_then(serde_json::Value::as_bool)
        && made != fair
    {
        let says = |f: bool| if f { "with --fair" } else { "without --fair" };
        return Err(JsonTraceError::Scheduling { made: says(made), run: says(fair) });
    }
    if let Some(made) = doc.get("externs").and_then(serde_json::Value::as_object) {
        let made: BTreeMap<String, i64> = made.iter().filter_map(|(k, v)| Some((k.clone(), v.as_i64()?))).collect();
        if made != model.externs {
            let show = |m: &BTreeMap<String, i64>| {
                let parts: Vec<String> = m.iter().map(|(k, v)| format!("{k}={v}")).collect();
                if parts.is_empty() { "(none)".to_string() } else { parts.join(" ") }
            };
            return Err(JsonTraceError::Externs { made: show(&made), given: show(&model.externs) });
        }
    }
    let mut found: Vec<(String, &serde_json::Value)> = vec![];
    if doc.get("initial").is_some() {
        found.push(("trace".to_string(), &doc));
    } else if let Some(t) = doc.get("trace") {
        found.push(("trace".to_string(), t));
    } else if let Some(results) = doc.get("results").and_then(serde_json::Value::as_array) {
        for r in results {
            if let Some(t) = r.get("trace") {
                let p = r.get("property").and_then(serde_json::Value::as_str).unwrap_or("?");
                let m = r.get("modality").and_then(serde_json::Value::as_str).unwrap_or("?");
                found.push((format!("counterexample for {p} ({m})"), t));
            }
        }
    } else if let Some(runs) = doc.get("runs").and_then(serde_json::Value::as_array) {
        for (i, r) in runs.iter().enumerate() {
            if let Some(t) = r.get("trace") {
                let seed = r.get("seed").and_then(serde_json::Value::as_u64);
                let title = match seed {
                    Some(s) => format!("run {} (seed {s})", i + 1),
                    None => format!("run {}", i + 1),
                };
                found.push((title, t));
            }
        }
    }
    if found.is_empty() {
        return Err(JsonTraceError::NoTrace);
    }
    let stepper = Stepper::new(model, behs, fair);
    let names = Names::new(model);
    found
        .into_iter()
        .map(|(title, value)| {
            let t: TraceIn = TraceIn::deserialize(value)
                .map_err(|e| JsonTraceError::Shape { title: title.clone(), message: e.to_string() })?;
            let trace = decode(&stepper, &names, &t)
                .map_err(|message| JsonTraceError::Mismatch { title: title.clone(), message })?;
            Ok(TitledTrace { title, trace })
        })
        .collect()
}

/// Where each named element of a state lives.
struct Names {
    /// Environment element name → slot.
    env: BTreeMap<String, usize>,
    /// Per agent type: attribute element name → slot within the agent's attributes.
    attrs: Vec<BTreeMap<String, usize>>,
    /// Per agent type: stigmergic element name → (slot within the agent's copies, tuple).
    stig: Vec<BTreeMap<String, (usize, usize)>>,
    /// Tuple name (`dirx,diry`) → tuple.
    tuples: BTreeMap<String, usize>,
    /// Element name of every (variable, element), for assignments.
    elements: BTreeMap<(VarId, usize), String>,
}

impl Names {
    fn new(model: &Model) -> Names {
        let mut env = BTreeMap::new();
        let mut elements = BTreeMap::new();
        for (vi, v) in model.vars.iter().enumerate() {
            for e in 0..v.len {
                elements.insert((vi, e), v.element_name(e));
                if v.store == Store::Env {
                    env.insert(v.element_name(e), v.offset + e);
                }
            }
        }
        let mut attrs = vec![];
        let mut stig = vec![];
        for (ty, t) in model.agent_types.iter().enumerate() {
            let mut a = BTreeMap::new();
            for &vi in &t.attrs {
                let v = &model.vars[vi];
                for e in 0..v.len {
                    a.insert(v.element_name(e), v.offset + e);
                }
            }
            attrs.push(a);
            let mut s = BTreeMap::new();
            for v in &model.vars {
                if let Store::Stig { stigmergy, tuple } = v.store
                    && model.holds(ty, stigmergy)
                {
                    for e in 0..v.len {
                        s.insert(v.element_name(e), (v.offset + e, tuple));
                    }
                }
            }
            stig.push(s);
        }
        let tuples = (0..model.tuples.len()).map(|k| (tuple_name(model, k), k)).collect();
        Names { env, attrs, stig, tuples, elements }
    }
}

fn value(v: &ValueIn, what: &dyn Fn() -> String) -> Result<i32, String> {
    match v {
        ValueIn::Int(x) => i32::try_from(*x).map_err(|_| format!("{}: {x} is out of range", what())),
        ValueIn::Text(s) if s == "undef" => Ok(BOT),
        ValueIn::Text(s) => Err(format!("{}: `{s}` is neither a number nor \"undef\"", what())),
    }
}

/// The engine's slots of a state given in JSON (`at`: which state, for messages).
fn decode_state(stepper: &Stepper, names: &Names, s: &StateIn, at: &str) -> Result<Vec<i32>, String> {
    let model = stepper.model;
    let lay = &stepper.lay;
    let mut st = stepper.initial_base();
    if s.environment.len() != names.env.len() {
        return Err(format!("{at}: {} environment elements, the spec has {}", s.environment.len(), names.env.len()));
    }
    for (name, v) in &s.environment {
        let slot =
            *names.env.get(name).ok_or_else(|| format!("{at}: the spec has no environment variable `{name}`"))?;
        st[slot] = value(v, &|| format!("{at}: {name}"))?;
    }
    if s.agents.len() != lay.n_agents {
        return Err(format!("{at}: {} agents, the spec has {}", s.agents.len(), lay.n_agents));
    }
    // Timestamps of each (agent, tuple), turned into dense ranks per tuple below.
    let mut stamps: Vec<Vec<Option<i64>>> = vec![vec![None; lay.n_tuples]; lay.n_agents];
    for (i, ag) in s.agents.iter().enumerate() {
        if ag.id != i {
            return Err(format!("{at}: agent {i} is listed with id {}", ag.id));
        }
        let who = agent_name(model, i);
        let ty = stepper.type_of[i];
        if ag.attributes.len() != names.attrs[ty].len() {
            return Err(format!(
                "{at}: {who} has {} attribute elements, the spec gives it {}",
                ag.attributes.len(),
                names.attrs[ty].len()
            ));
        }
        for (name, v) in &ag.attributes {
            let slot = *names.attrs[ty]
                .get(name)
                .ok_or_else(|| format!("{at}: {who} has no attribute `{name}` in the spec"))?;
            st[lay.attr(i, slot)] = value(v, &|| format!("{at}: {who}: {name}"))?;
        }
        if ag.stigmergy.len() != names.stig[ty].len() {
            return Err(format!(
                "{at}: {who} has {} stigmergic elements, the spec gives it {}",
                ag.stigmergy.len(),
                names.stig[ty].len()
            ));
        }
        for (name, v) in &ag.stigmergy {
            let (slot, k) = *names.stig[ty]
                .get(name)
                .ok_or_else(|| format!("{at}: {who} has no stigmergic variable `{name}` in the spec"))?;
            st[lay.stig(i, slot)] = value(&v.value, &|| format!("{at}: {who}: {name}"))?;
            match stamps[i][k] {
                Some(t) if t != v.timestamp => {
                    return Err(format!(
                        "{at}: {who}: the variables of tuple `{}` have different timestamps",
                        tuple_name(model, k)
                    ));
                }
                _ => stamps[i][k] = Some(v.timestamp),
            }
        }
        for (confirm, list) in [(false, &ag.pending_propagate), (true, &ag.pending_confirm)] {
            let at_mask = if confirm { lay.zc(i) } else { lay.zp(i) };
            for t in list {
                let k = *names.tuples.get(t).ok_or_else(|| format!("{at}: {who}: no tuple `{t}` in the spec"))?;
                crate::engine::state::Layout::set_bit(&mut st, at_mask, k);
            }
        }
        let states = stepper.behs[ty].states.len();
        if ag.control < 0 || ag.control as usize >= states {
            return Err(format!("{at}: {who}: control point {} does not exist in this spec", ag.control));
        }
        st[lay.ctl(i)] = ag.control;
    }
    for (k, holders) in stepper.holders.iter().enumerate() {
        let mut ts: Vec<i64> = holders.iter().filter_map(|&h| stamps[h][k]).collect();
        if ts.len() != holders.len() {
            return Err(format!("{at}: a holder of tuple `{}` has no timestamp for it", tuple_name(model, k)));
        }
        ts.sort_unstable();
        ts.dedup();
        for &h in holders {
            let t = stamps[h][k].expect("checked above");
            st[lay.rank(h, k)] = ts.binary_search(&t).expect("listed") as i32;
        }
    }
    match (lay.fair, s.turn) {
        (true, Some(t)) if t >= 0 && (t as usize) < lay.n_agents => st[lay.turn()] = t,
        (true, _) => return Err(format!("{at}: no valid round-robin `turn` (a trace made with --fair has one)")),
        (false, Some(_)) => return Err(format!("{at}: the state has a round-robin `turn`: it was made with --fair")),
        (false, None) => {}
    }
    Ok(st)
}

/// Whether the engine's `ev` is the event given in JSON.
fn same_event(model: &Model, names: &Names, ev: &Event, e: &EventIn) -> bool {
    match ev {
        Event::Agent { agent, assigned, skip, .. } => {
            let kind_ok = if *skip { e.kind == "skip" } else { e.kind == "agent" };
            kind_ok
                && *agent == e.agent
                && assigned.len() == e.assignments.len()
                && assigned.iter().zip(&e.assignments).all(|(a, b)| {
                    names.elements.get(&(a.var, a.elem)) == Some(&b.variable)
                        && value(&b.value, &String::new).is_ok_and(|v| v == a.value)
                })
        }
        Event::Message { sender, tuple, confirm, copied, .. } => {
            let kind = if *confirm { "confirm" } else { "propagate" };
            e.kind == kind
                && *sender == e.agent
                && e.tuple.as_deref() == Some(tuple_name(model, *tuple).as_str())
                && *copied == e.receivers
        }
    }
}

fn decode(stepper: &Stepper, names: &Names, t: &TraceIn) -> Result<Trace, String> {
    let model = stepper.model;
    let initial = decode_state(stepper, names, &t.initial, "the initial state")?;
    let mut trace = Trace::start(stepper.fair, initial);
    let mut w = Work::default();
    for (i, s) in t.steps.iter().enumerate() {
        let at = format!("step {}", i + 1);
        let next = decode_state(stepper, names, &s.state, &at)?;
        let mut reaches = false;
        let mut event = None;
        stepper.successors_past_errors(trace.last(), &mut w, &mut |ev, succ| {
            if succ == next.as_slice() {
                reaches = true;
                if event.is_none()
                    && let Some(ev) = ev
                    && same_event(model, names, &ev, &s.event)
                {
                    event = Some(ev);
                }
            }
        });
        let Some(event) = event else {
            return Err(if reaches {
                format!("{at}: the state is reached, but not by the event the trace gives")
            } else {
                format!("{at}: no step of this spec leads from state {i} to the state the trace gives")
            });
        };
        trace.steps.push(TraceStep { event, state: next });
    }
    if let Some(l) = t.loop_start
        && l >= trace.len()
    {
        return Err(format!("`loop_start` {l} is beyond the trace's {} steps", trace.len()));
    }
    trace.loop_start = t.loop_start;
    trace.ends_in_deadlock = t.ends_in_deadlock;
    trace.marks = t
        .marks
        .iter()
        .filter(|m| m.at <= trace.len())
        .map(|m| Mark { at: m.at, property: m.property.clone(), status: m.status.clone() })
        .collect();
    Ok(trace)
}
