//! The composition: the lock of read attempts, the pairwise read gates and the branches of the
//! top-level `par`.

use super::{AgentView, Component, Ctx, EnvView, Instance, is_obs_gate};
use crate::analysis::IntervalSet;
use crate::lnt::names;
use crate::model::Model;
use std::collections::BTreeSet;

/// The gate on which an agent takes the lock of read attempts.
pub(super) const TRY: &str = "TRY";

/// The `Lock` process: one read attempt at a time, so that the attempts of different readers
/// do not interleave. It takes part in `TRY` (taken), `ABANDON` and every `DONE` (released).
pub(super) fn add_lock(components: &mut Vec<Component>) {
    let gates: Vec<String> = vec![TRY.into(), names::ABANDON.into(), "DONE".into()];
    if let Some(c) = components.iter_mut().find(|c| c.agents) {
        for g in &gates {
            if !c.sync.contains(g) {
                c.sync.push(g.clone());
            }
        }
    }
    let at = components.iter().position(|c| c.agents).unwrap_or(components.len());
    components.insert(
        at,
        Component {
            comment: "one read attempt at a time".into(),
            sync: gates.clone(),
            inner_sync: vec![],
            instances: vec![Instance {
                process: "Lock".into(),
                iface: vec![],
                gates,
                arg: None,
                split: None,
                obs_gates: vec![],
            }],
            agents: false,
        },
    );
}

/// `x` (a Nat variable) is one of `agents`.
pub(super) fn agent_cond(cx: &mut Ctx, x: &str, agents: &IntervalSet) -> String {
    match agents.as_singleton() {
        Some(a) => format!("({x} == {a})"),
        None => format!("{} (NatToInt ({x}))", cx.dom(agents)),
    }
}

/// Binds each agent instance's read gates (`RDO_j`: it reads `j`; `RDI_j`: `j` reads it) to
/// the pairwise gates `RD_r_o`, and gives each instance its own interface: the agents'
/// common gates and its read gates, so that a read synchronises its two parties alone. A
/// formal gate of a pair no step of this instance reads keeps its own name as its actual gate
/// (never offered there: a process instantiation never repeats an actual gate); the names so
/// kept are returned, for `MAIN` to hide.
pub(super) fn pair_read_gates(components: &mut [Component], pairs: &BTreeSet<(usize, usize)>) -> Vec<String> {
    let Some(c) = components.iter_mut().find(|c| c.agents) else { return vec![] };
    let alone = c.instances.len() == 1;
    let common = if alone { vec![] } else { std::mem::take(&mut c.inner_sync) };
    let mut unbound = BTreeSet::new();
    for inst in c.instances.iter_mut() {
        let Some(id) = inst.arg else { continue };
        let mut own = vec![];
        for g in inst.gates.iter_mut() {
            let pair = if let Some(j) = g.strip_prefix("RDO_").and_then(|j| j.parse::<usize>().ok()) {
                (id, j)
            } else if let Some(j) = g.strip_prefix("RDI_").and_then(|j| j.parse::<usize>().ok()) {
                (j, id)
            } else {
                continue;
            };
            if !pairs.contains(&pair) {
                unbound.insert(g.clone());
                continue;
            }
            let bound = names::read_gate(pair.0, pair.1);
            if !own.contains(&bound) {
                own.push(bound.clone());
            }
            *g = bound;
        }
        if !alone {
            inst.iface = common.iter().cloned().chain(own).collect();
        }
    }
    unbound.into_iter().collect()
}

pub(super) fn components(
    model: &Model,
    agents: &[AgentView],
    env: Option<&EnvView>,
    assume: bool,
    fair: bool,
    has_env: bool,
    has_tuples: bool,
) -> Vec<Component> {
    let mut out = vec![];
    if fair {
        out.push(Component {
            comment: "round-robin scheduler (--fair)".into(),
            sync: vec!["TICK".into()],
            inner_sync: vec![],
            instances: vec![Instance {
                process: "Sched".into(),
                iface: vec![],
                gates: vec!["TICK".into()],
                arg: None,
                split: None,
                obs_gates: vec![],
            }],
            agents: false,
        });
    }
    if assume {
        out.push(Component {
            comment: "assumptions on the initial state".into(),
            sync: vec!["INIT".into(), "AINIT".into()],
            inner_sync: vec![],
            instances: vec![Instance {
                process: "Assumptions".into(),
                iface: vec![],
                gates: vec!["INIT".into(), "AINIT".into()],
                arg: None,
                split: None,
                obs_gates: vec![],
            }],
            agents: false,
        });
    }
    if let Some(e) = env {
        let obs: Vec<String> = e.gates.iter().filter(|g| is_obs_gate(g)).cloned().collect();
        let mut sync = vec!["TICK".to_string(), "SETENV".into(), "INIT".into()];
        if e.gates.iter().any(|g| g == "AENV") {
            sync.push("AENV".into());
            if let Some(a) = out.iter_mut().find(|c| c.instances[0].process == "Assumptions") {
                a.sync.push("AENV".into());
                a.instances[0].gates.push("AENV".into());
            }
        }
        out.push(Component {
            comment: "environment".into(),
            sync,
            inner_sync: vec![],
            instances: vec![Instance {
                process: "Env".into(),
                iface: vec![],
                gates: e.gates.clone(),
                arg: None,
                split: None,
                obs_gates: obs,
            }],
            agents: false,
        });
    }
    // Timestamps takes part in every message: it offers the comparisons of the timestamps
    // and receives the linked receivers (docs/lnt-encoding.md §3, Propagation)
    let mut msg_sync = vec!["REFRESH".to_string()];
    let split = has_tuples.then_some(0);
    for k in 0..model.tuples.len() {
        msg_sync.push(names::put_gate(k));
        msg_sync.push(names::qry_gate(k));
    }
    if has_tuples {
        out.push(Component {
            comment: "timestamps, one process per tuple".into(),
            sync: msg_sync.clone(),
            inner_sync: vec![],
            instances: (0..model.tuples.len())
                .map(|k| Instance {
                    process: "Timestamps".into(),
                    iface: vec![],
                    // every tuple's message gates (one arity per gate), of which it offers
                    // its own tuple's: the instances interleave
                    gates: [&msg_sync[..1], &["REQ".to_string()], &msg_sync[1..]].concat(),
                    arg: Some(k),
                    split,
                    obs_gates: vec![],
                })
                .collect(),
            agents: false,
        });
    }
    let mut sync = vec!["TICK".to_string(), "INIT".into()];
    if assume {
        sync.push("AINIT".into());
    }
    if has_env {
        sync.push("SETENV".into());
    }
    if has_tuples {
        sync.extend(msg_sync);
    }
    let mut inner = vec!["TICK".to_string(), "DONE".into(), "INIT".into()];
    for k in 0..model.tuples.len() {
        inner.push(names::put_gate(k));
        inner.push(names::qry_gate(k));
    }
    let mut instances = vec![];
    for a in agents {
        let obs: Vec<String> = a.gates.iter().filter(|g| is_obs_gate(g)).cloned().collect();
        for id in a.first_id..=a.last_id {
            instances.push(Instance {
                process: a.process.clone(),
                iface: vec![],
                gates: a.gates.clone(),
                arg: Some(id),
                split,
                obs_gates: obs.clone(),
            });
        }
    }
    out.push(Component { comment: "the agents".into(), sync, inner_sync: inner, instances, agents: true });
    out
}

/// The composition of the compositional script's leaves: MAIN's, with every agent and
/// `Timestamps` instantiated with `split` 1, so that a message's rendezvous carries no
/// timestamps (its masks 0) and each receiver then asks `Timestamps (k)` for its comparison
/// (`REQ`). Generated alone, a receiver's leaf then offers each message once per sender and
/// values, not once per set of older and linked receivers (docs/lnt-encoding.md §7).
pub(crate) fn split_components(components: &[Component]) -> Vec<Component> {
    let mut out = components.to_vec();
    for c in out.iter_mut() {
        let timestamps = c.instances.iter().any(|i| i.process == "Timestamps");
        if !(timestamps || c.agents) || c.instances.iter().all(|i| i.split.is_none()) {
            continue;
        }
        for i in c.instances.iter_mut() {
            i.split = Some(1);
        }
        c.sync.retain(|g| !(g.starts_with("PUT_") || g.starts_with("QRY_") || g == "REQ"));
        let at = c.sync.iter().position(|g| g == "REFRESH").map_or(c.sync.len(), |i| i + 1);
        c.sync.insert(at, "REQ".into());
    }
    out
}
