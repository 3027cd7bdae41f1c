//! `labs info`: the resolved model, for humans (as JSON: `json::InfoDoc`).

use super::load::Loaded;
use crate::model::{Store, print};
use std::fmt::Write;

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
