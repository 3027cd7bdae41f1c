//! `labs values`: the value analysis per variable and agent type.

use super::json::{BoundDoc, IntervalDoc, ValueSetDoc, ValuesDoc};
use super::load::Loaded;
use crate::analysis::IntervalSet;
use crate::analysis::values::ValueAnalysis;
use crate::model::{Model, Store, TypeId, VarId};
use std::fmt::Write;

/// The rows of the report: (variable, agent type or None for the environment), in model order.
fn rows(m: &Model, a: &ValueAnalysis) -> Vec<(VarId, Option<TypeId>)> {
    let mut out = vec![];
    for v in 0..m.vars.len() {
        if m.vars[v].store == Store::Env {
            out.push((v, None));
        } else {
            for t in 0..m.agent_types.len() {
                if a.get(v, Some(t)).is_some() {
                    out.push((v, Some(t)));
                }
            }
        }
    }
    out
}

fn store_name(s: Store) -> &'static str {
    match s {
        Store::Env => "environment",
        Store::Attr => "interface",
        Store::Stig { .. } => "stigmergy",
    }
}

/// Array elements share one set; they are listed one by one, as `fork[0]`.
fn element_names(m: &Model, v: VarId) -> Vec<String> {
    (0..m.vars[v].len).map(|k| m.vars[v].element_name(k)).collect()
}

pub(crate) fn values_json<'a>(l: &'a Loaded, a: &ValueAnalysis) -> ValuesDoc<'a> {
    let m = &l.model;
    let mut variables = vec![];
    for (v, t) in rows(m, a) {
        let set = a.get(v, t).cloned().unwrap_or_default();
        for name in element_names(m, v) {
            variables.push(ValueSetDoc {
                name,
                agent_type: t.map(|t| m.agent_types[t].name.clone()),
                store: store_name(m.vars[v].store),
                intervals: intervals_json(&set),
                widened: a.is_widened(v, t),
            });
        }
    }
    ValuesDoc { spec: l.name(), externs: &m.externs, variables }
}

fn intervals_json(s: &IntervalSet) -> Vec<IntervalDoc> {
    let mut out: Vec<IntervalDoc> =
        s.intervals().iter().map(|i| IntervalDoc::Interval([BoundDoc::new(i.lo), BoundDoc::new(i.hi)])).collect();
    if s.contains_undef() {
        out.push(IntervalDoc::Undef("undef"));
    }
    out
}

pub(crate) fn values_text(l: &Loaded, a: &ValueAnalysis) -> String {
    let m = &l.model;
    let mut s = String::new();
    let mut widened = false;
    for (v, t) in rows(m, a) {
        let set = a.get(v, t).cloned().unwrap_or_default();
        let owner = t.map_or("(environment)".to_string(), |t| m.agent_types[t].name.clone());
        let var = &m.vars[v];
        let name = if var.dims.is_empty() { var.name.clone() } else { format!("{}[*]", var.name) };
        let mark = if a.is_widened(v, t) {
            widened = true;
            "  (widened)"
        } else {
            ""
        };
        let _ = writeln!(s, "{owner:<14} {name:<14} {set}{mark}");
    }
    if widened {
        let _ = writeln!(s, "\nnote: sets marked (widened) kept growing and were widened to the 32-bit value range");
    }
    s
}
