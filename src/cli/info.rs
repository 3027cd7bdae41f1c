//! `labs info`: the resolved model, for humans (as JSON: `json::InfoDoc`).

use super::load::Loaded;
use crate::engine::symmetry::{self, Asymmetry, TypeSymmetry};
use crate::model::{Store, print};
use std::fmt::Write;

/// Reasons shown per type and scheduling; the rest are counted.
const MAX_REASONS: usize = 3;

/// One scheduling's verdict on a type, in words (`labs info`, text and JSON).
pub(super) fn symmetry_word(s: &TypeSymmetry) -> &'static str {
    match s {
        TypeSymmetry::Interchangeable => "interchangeable",
        TypeSymmetry::Rotations => "rotations",
        TypeSymmetry::Trivial => "trivial",
        TypeSymmetry::Broken(_) => "not symmetric",
    }
}

/// The symmetry analysis without and with `--fair` (both shown by `labs info`).
pub(super) fn symmetry_both(l: &Loaded) -> [symmetry::Symmetry; 2] {
    [false, true].map(|fair| symmetry::analyse(&l.model, &l.behaviours, fair))
}

/// A reason with its place: `the behaviour of Node uses … (leader.labs:17:18)`.
pub(super) fn reason_text(l: &Loaded, r: &Asymmetry) -> String {
    match r.span {
        Some(sp) => {
            let (line, col) = l.file.line_col(sp.start);
            format!("{} ({}:{line}:{col})", r.text, l.file.name)
        }
        None => r.text.clone(),
    }
}

/// The symmetry section: per agent type, what `labs verify` reduces without and with
/// `--fair`, and why not where it does not.
fn symmetry_text(l: &Loaded, s: &mut String) {
    let m = &l.model;
    let [free, fair] = symmetry_both(l);
    let _ = writeln!(s, "\nsymmetry reduction (labs verify; --no-reduction turns it off):");
    for ((t, a), b) in m.agent_types.iter().zip(&free.types).zip(&fair.types) {
        let _ = writeln!(s, "  {:<12} {} (free interleaving), {} (--fair)", t.name, symmetry_word(a), symmetry_word(b));
        let mut reasons: Vec<&Asymmetry> = Vec::new();
        for r in
            [a, b].into_iter().filter_map(|x| if let TypeSymmetry::Broken(r) = x { Some(r) } else { None }).flatten()
        {
            if !reasons.contains(&r) {
                reasons.push(r);
            }
        }
        for r in reasons.iter().take(MAX_REASONS) {
            let _ = writeln!(s, "    - {}", reason_text(l, r));
        }
        if reasons.len() > MAX_REASONS {
            let _ = writeln!(s, "    - and {} more", reasons.len() - MAX_REASONS);
        }
    }
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
    symmetry_text(l, &mut s);
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
