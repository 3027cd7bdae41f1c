//! The per-agent parts of the view: initialisation, the environment, an agent type's process
//! (its variables, observation labels, steps and messages).

use super::step::step_fn;
use super::{
    AgentView, Ctx, EnvView, FieldView, INT_CHOICE, InitView, MsgView, SetEnvView, StepFn, obs_diffs, store_array,
};
use crate::analysis::IntervalSet;
use crate::behaviour::Behaviour;
use crate::lnt::expr::{Printer, Scope};
use crate::lnt::{EmitError, domains, names};
use crate::model::{AgentRef, Expr, Init, Model, Store, TypeId, VarId, print};
use std::collections::BTreeSet;

fn init_view(
    cx: &mut Ctx,
    var: VarId,
    k: usize,
    init: &Init,
    ty: Option<TypeId>,
    obs: Option<(String, usize)>,
) -> Result<InitView, EmitError> {
    let m = cx.model;
    let v = &m.vars[var];
    let p = Printer {
        model: m,
        scope: if ty.is_none() { Scope::EnvInit } else { Scope::Agent },
        nd: &[],
        undef: false,
        remote: &[],
    };
    let (value, cond) = match init {
        Init::Undef => (Some("UNDEF".to_string()), None),
        Init::Single(e) => (Some(p.expr(e)?), None),
        Init::Choice(es) => {
            let parts = es
                .iter()
                .map(|e| Ok(format!("({INT_CHOICE} == {})", p.expr(e)?)))
                .collect::<Result<Vec<_>, EmitError>>()?;
            (None, Some(if parts.len() == 1 { parts[0].clone() } else { format!("({})", parts.join(" or ")) }))
        }
        Init::Range(a, b) => {
            (None, Some(format!("(({INT_CHOICE} >= {}) and ({INT_CHOICE} < {}))", p.expr(a)?, p.expr(b)?)))
        }
    };
    let ainit: Vec<usize> =
        cx.assumed.iter().filter(|(_, x, e)| *x == var && *e == k).map(|(a, _, _)| a.unwrap_or(0)).collect();
    let ainit = match ty {
        Some(t) => ainit.into_iter().filter(|a| m.agent_types[t].ids().contains(a)).collect(),
        None => ainit,
    };
    Ok(InitView {
        comment: format!("{} := {}", v.element_name(k), print::init(m, init)),
        value,
        cond,
        arr: store_array(v.store),
        slot: v.offset + k,
        obs,
        ainit,
    })
}

pub(super) fn env_view(cx: &mut Ctx) -> Result<EnvView, EmitError> {
    let m = cx.model;
    let mut gates = vec!["TICK".to_string(), "SETENV".into(), "INIT".into()];
    let mut inits = vec![];
    let mut setenv = vec![];
    for (v, var) in m.vars.iter().enumerate() {
        if var.store != Store::Env {
            continue;
        }
        let observed = cx.observed.contains(&v);
        let gate = names::obs_gate(m, v);
        if observed {
            gates.push(gate.clone());
        }
        let init = var.init_for(None).cloned().unwrap_or(Init::Single(Expr::Const(0)));
        for k in 0..var.len {
            inits.push(init_view(cx, v, k, &init, None, observed.then(|| (gate.clone(), k)))?);
        }
        let set = domains::var_set(m, cx.analysis, v, None);
        setenv.push(SetEnvView {
            comment: var.name.clone(),
            lo: var.offset,
            hi: var.offset + var.len,
            dom: cx.dom(&set),
        });
    }
    if inits.iter().any(|i| !i.ainit.is_empty()) {
        gates.push("AENV".into());
    }
    Ok(EnvView { gates, inits, setenv })
}

/// The variables an agent of type `ty` holds: its attributes, then the stigmergic variables of
/// the stigmergies it holds, each in slot order (this is also its initialisation order).
fn agent_vars(m: &Model, ty: TypeId) -> Vec<VarId> {
    let t = &m.agent_types[ty];
    let mut attrs: Vec<VarId> = t.attrs.clone();
    attrs.sort_by_key(|&v| m.vars[v].offset);
    let mut stigs: Vec<VarId> = (0..m.vars.len())
        .filter(|&v| matches!(m.vars[v].store, Store::Stig { stigmergy, .. } if t.stigmergies.contains(&stigmergy)))
        .collect();
    stigs.sort_by_key(|&v| m.vars[v].offset);
    attrs.extend(stigs);
    attrs
}
type AgentParts = (AgentView, Vec<StepFn>, usize);

pub(super) fn agent_view(
    cx: &mut Ctx,
    ty: TypeId,
    b: &Behaviour,
    env_names: &[String],
    has_tuples: bool,
) -> Result<AgentParts, EmitError> {
    let has_env = !env_names.is_empty();
    let m = cx.model;
    let t = &m.agent_types[ty];
    let tname = names::type_ident(m, ty);
    let mut gates = vec!["TICK".to_string(), "DONE".into(), "INIT".into()];
    if !m.assumptions.is_empty() {
        gates.push("AINIT".into());
    }
    if has_env {
        gates.push("SETENV".into());
    }
    if has_tuples {
        gates.push("REFRESH".into());
        gates.push("REQ".into());
        for k in 0..m.tuples.len() {
            gates.push(names::put_gate(k));
            gates.push(names::qry_gate(k));
        }
    }
    for (v, var) in m.vars.iter().enumerate() {
        if var.store == Store::Env && cx.observed.contains(&v) {
            gates.push(names::obs_gate(m, v));
        }
    }
    let vars = agent_vars(m, ty);
    let mut inits = vec![];
    for &v in &vars {
        let var = &m.vars[v];
        let observed = cx.observed.contains(&v);
        let gate = names::obs_gate(m, v);
        if observed && !gates.contains(&gate) {
            gates.push(gate.clone());
        }
        let key = if var.store == Store::Attr { Some(ty) } else { None };
        let init = var.init_for(key).cloned().unwrap_or(Init::Single(Expr::Const(0)));
        for k in 0..var.len {
            inits.push(init_view(cx, v, k, &init, Some(ty), observed.then(|| (gate.clone(), k)))?);
        }
    }

    let mut int_vars: Vec<String> = env_names.to_vec();
    let mut steps = vec![];
    let mut edges = vec![];
    let mut local_max = 0;
    for (s, out) in b.edges.iter().enumerate() {
        for (i, e) in out.iter().enumerate() {
            let name = format!("{tname}_{s}_{i}");
            let (f, ev, locals) = step_fn(cx, ty, &name, s as u32, e)?;
            local_max = local_max.max(locals);
            for nd in &ev.nd {
                if !int_vars.contains(&nd.name) {
                    int_vars.push(nd.name.clone());
                }
            }
            steps.push(f);
            edges.push(ev);
        }
    }

    let mut held = vec![];
    let mut not_held = vec![];
    for (k, tuple) in m.tuples.iter().enumerate() {
        let msg = msg_view(cx, ty, k)?;
        for f in msg.values.iter().chain(&msg.fields) {
            if !int_vars.contains(&f.name) {
                int_vars.push(f.name.clone());
            }
        }
        if m.holds(ty, tuple.stigmergy) { held.push(msg) } else { not_held.push(msg) }
    }
    let choice = !(edges.is_empty() && held.is_empty() && not_held.is_empty());
    let view = AgentView {
        process: names::agent_process(m, ty),
        type_name: t.name.clone(),
        first_id: t.first_id,
        last_id: t.first_id + t.count - 1,
        gates,
        initial: b.initial,
        inits,
        edges,
        held,
        choice,
        not_held,
        int_vars,
        nat_vars: vec![],
        serves: vec![],
    };
    Ok((view, steps, local_max))
}

/// The sender variables a link predicate reads (`x of c1`), in variable order.
fn link_vars(m: &Model, s: usize) -> Vec<VarId> {
    let mut out = BTreeSet::new();
    m.stigmergies[s].link.walk_exprs(&mut |x| {
        if let Expr::Var(r) = x
            && r.owner == AgentRef::C1
        {
            out.insert(r.var);
        }
    });
    out.into_iter().collect()
}

fn msg_view(cx: &mut Ctx, ty: TypeId, k: usize) -> Result<MsgView, EmitError> {
    let m = cx.model;
    let tuple = &m.tuples[k];
    let s = tuple.stigmergy;
    let mut values = vec![];
    let mut copied = BTreeSet::new();
    for &v in &tuple.vars {
        let var = &m.vars[v];
        let set = domains::var_set(m, cx.analysis, v, None);
        copied.insert(v);
        for e in 0..var.len {
            let slot = var.offset + e;
            values.push(FieldView {
                name: format!("x_{}", values.len()),
                src: format!("L[{slot}]"),
                slot,
                dom: cx.dom(&set),
            });
        }
    }
    let mut fields = vec![];
    let mut field_names = vec![];
    for v in link_vars(m, s) {
        let var = &m.vars[v];
        if var.store == Store::Env {
            return Err(EmitError::unsupported(
                "an environment variable in a link predicate",
                format!("`{}` in stigmergy `{}`", var.name, m.stigmergies[s].name),
            ));
        }
        // The values senders of any holding type may have.
        let mut set = IntervalSet::empty();
        for (t, at) in m.agent_types.iter().enumerate() {
            if at.count > 0
                && m.holds(t, s)
                && let Some(x) = cx.analysis.get(v, Some(t))
            {
                set.join_assign(x);
            }
        }
        let arr = store_array(var.store);
        for e in 0..var.len {
            let slot = var.offset + e;
            let name = format!("f_{}", fields.len());
            field_names.push((v, e, name.clone()));
            fields.push(FieldView { name, src: format!("{arr}[{slot}]"), slot, dom: cx.dom(&set) });
        }
    }
    let p = Printer { model: m, scope: Scope::Link { fields: &field_names }, nd: &[], undef: cx.undef, remote: &[] };
    let link = p.bexpr(&m.stigmergies[s].link)?;
    let _ = ty;
    let names: Vec<String> = tuple.vars.iter().map(|&v| m.vars[v].name.clone()).collect();
    Ok(MsgView {
        k,
        put: names::put_gate(k),
        qry: names::qry_gate(k),
        comment: format!("tuple {k} ({}) of stigmergy {}", names.join(", "), m.stigmergies[s].name),
        values,
        fields,
        link,
        obs: obs_diffs(cx, &copied),
    })
}
