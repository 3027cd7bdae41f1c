//! `labs info`: the resolved model, for humans and as JSON.

use super::load::Loaded;
use crate::model::{Store, print};
use serde_json::{Value, json};
use std::fmt::Write;

pub fn info_json(l: &Loaded) -> Value {
    let m = &l.model;
    let types: Vec<Value> = m
        .agent_types
        .iter()
        .zip(&l.behaviours)
        .map(|(t, b)| {
            json!({
                "name": t.name,
                "count": t.count,
                "ids": if t.count > 0 { json!([t.first_id, t.first_id + t.count - 1]) } else { Value::Null },
                "attributes": t.attrs.iter().map(|&v| m.vars[v].name.clone()).collect::<Vec<_>>(),
                "stigmergies": t.stigmergies.iter().map(|&s| m.stigmergies[s].name.clone()).collect::<Vec<_>>(),
                "behaviour": { "control_states": b.states.len(), "actions": b.edge_count() },
            })
        })
        .collect();
    let vars: Vec<Value> = m
        .vars
        .iter()
        .map(|v| {
            let (store, stig) = match v.store {
                Store::Env => ("environment", Value::Null),
                Store::Attr => ("interface", Value::Null),
                Store::Stig { stigmergy, tuple } => {
                    ("stigmergy", json!({"name": m.stigmergies[stigmergy].name, "tuple": tuple}))
                }
            };
            let inits: Vec<Value> = v
                .inits
                .iter()
                .map(
                    |(t, i)| json!({"agent_type": t.map(|t| m.agent_types[t].name.clone()), "init": print::init(m, i)}),
                )
                .collect();
            json!({"name": v.name, "store": store, "stigmergy": stig, "shape": v.dims, "initialisers": inits})
        })
        .collect();
    let stigs: Vec<Value> = m
        .stigmergies
        .iter()
        .enumerate()
        .map(|(si, s)| {
            json!({
                "name": s.name,
                "link": print::bexpr(m, &s.link),
                "tuples": s.tuples.iter().map(|&t| m.tuples[t].vars.iter().map(|&v| m.vars[v].name.clone()).collect::<Vec<_>>()).collect::<Vec<_>>(),
                "holders": m.agent_types.iter().filter(|t| t.stigmergies.contains(&si)).map(|t| t.name.clone()).collect::<Vec<_>>(),
            })
        })
        .collect();
    let props: Vec<Value> =
        m.properties.iter().map(|p| json!({"name": p.name, "modality": p.keyword, "text": p.text})).collect();
    let assumptions: Vec<Value> = m.assumptions.iter().map(|a| json!({"name": a.name})).collect();
    json!({
        "spec": l.file.name,
        "externs": m.externs,
        "agents": m.n_agents(),
        "agent_types": types,
        "variables": vars,
        "stigmergies": stigs,
        "assumptions": assumptions,
        "properties": props,
    })
}

pub fn info_text(l: &Loaded) -> String {
    let m = &l.model;
    let mut s = String::new();
    let _ = writeln!(s, "spec {}: {} agents", l.file.name, m.n_agents());
    if !m.externs.is_empty() {
        let ex: Vec<String> = m.externs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let _ = writeln!(s, "externs: {}", ex.join(" "));
    }
    let _ = writeln!(s, "\nagent types (ids by byte-wise name order):");
    for (t, b) in m.agent_types.iter().zip(&l.behaviours) {
        let ids = if t.count == 0 {
            "no agents".to_string()
        } else {
            format!("ids {}..{}", t.first_id, t.first_id + t.count - 1)
        };
        let _ = writeln!(
            s,
            "  {:<12} {ids} ({} agents); behaviour: {} control states, {} guarded actions",
            t.name,
            t.count,
            b.states.len(),
            b.edge_count()
        );
    }
    let _ = writeln!(s, "\nvariables:");
    for v in &m.vars {
        let store = match v.store {
            Store::Env => "environment".to_string(),
            Store::Attr => "interface".to_string(),
            Store::Stig { stigmergy, tuple } => format!("stigmergy {} (tuple {tuple})", m.stigmergies[stigmergy].name),
        };
        let shape = if v.dims.is_empty() {
            String::new()
        } else {
            format!("[{}]", v.dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", "))
        };
        let inits: Vec<String> = v
            .inits
            .iter()
            .map(|(t, i)| match t {
                Some(t) => format!("{} ({})", print::init(m, i), m.agent_types[*t].name),
                None => print::init(m, i),
            })
            .collect();
        let _ = writeln!(s, "  {:<14} {:<28} init {}", format!("{}{shape}", v.name), store, inits.join(", "));
    }
    if !m.stigmergies.is_empty() {
        let _ = writeln!(s, "\nstigmergies:");
        for (si, st) in m.stigmergies.iter().enumerate() {
            let holders: Vec<&str> =
                m.agent_types.iter().filter(|t| t.stigmergies.contains(&si)).map(|t| t.name.as_str()).collect();
            let tuples: Vec<String> = st
                .tuples
                .iter()
                .map(|&t| {
                    format!(
                        "({})",
                        m.tuples[t].vars.iter().map(|&v| m.vars[v].name.as_str()).collect::<Vec<_>>().join(", ")
                    )
                })
                .collect();
            let _ = writeln!(s, "  {}: link = {}", st.name, print::bexpr(m, &st.link));
            let _ = writeln!(s, "    tuples {}; held by {}", tuples.join(" "), holders.join(", "));
        }
    }
    if !m.assumptions.is_empty() {
        let _ = writeln!(
            s,
            "\nassumptions: {}",
            m.assumptions.iter().map(|a| a.name.as_str()).collect::<Vec<_>>().join(", ")
        );
    }
    let _ = writeln!(s, "\nproperties:");
    if m.properties.is_empty() {
        let _ = writeln!(s, "  (none)");
    }
    for p in &m.properties {
        let _ = writeln!(s, "  {:<14} {}", p.name, p.text);
    }
    s
}
