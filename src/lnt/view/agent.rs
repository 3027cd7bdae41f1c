//! The per-agent parts of the view: initialisation, the environment, an agent type's process
//! (its variables, observation labels, steps and messages).

use super::code::{self, Gen, Source};
use super::step::step_fn;
use super::{
    AgentView, Ctx, EnvView, FieldView, INT_CHOICE, InitView, LinkFn, MsgView, SetEnvView, StepFn, obs_diffs,
    store_array,
};
use crate::analysis::IntervalSet;
use crate::behaviour::Behaviour;
use crate::engine::eval::{Ctx as EvalCtx, Mode as EvalMode, Scratch, Stop, to_slot};
use crate::engine::state::{BOT, Layout};
use crate::lnt::domains::{Abs, int_lit};
use crate::lnt::{EmitError, domains, names};
use crate::model::{AgentRef, BExpr, Expr, Init, Model, Store, TypeId, VarId, print};
use std::collections::BTreeSet;

/// The value of a store slot its agent's type never writes: the agent processes start from
/// `Attrs (0)` and `Stigs (0)` (lnt-templates/program.lnt).
const UNHELD_SLOT: i64 = 0;

/// What an initialiser gives one element of one agent (or of the environment), evaluated as
/// the native engine evaluates it: on a state where every variable is ⊥, `id` the agent's.
#[derive(Clone, Debug, PartialEq, Eq)]
enum InitValue {
    Undef,
    Values(Vec<i64>),
    /// `a..b`: `a`, …, `b - 1`.
    Range(i64, i64),
    /// A run-time error (its `ERR` code).
    Error(u32),
}

fn init_value(m: &Model, lay: &Layout, me: Option<usize>, init: &Init) -> InitValue {
    let cx = EvalCtx { model: m, lay, me, c1: None, c2: None, mode: EvalMode::Pred };
    let base = vec![BOT; lay.len];
    let mut sc = Scratch::default();
    let mut ev = |e: &Expr| -> Result<Option<i64>, u32> {
        match cx.eval(&base, &mut sc, e) {
            Ok(v) => to_slot(v).map(|x| (x != BOT).then_some(x as i64)).map_err(|_| code::E_OVERFLOW),
            Err(Stop::Error(msg)) => Err(code::error_code(&msg)),
            Err(Stop::Disabled) => Ok(None),
        }
    };
    let r = match init {
        Init::Undef => return InitValue::Undef,
        Init::Single(e) => ev(e).map(|v| v.map(|x| InitValue::Values(vec![x])).unwrap_or(InitValue::Undef)),
        Init::Choice(es) => es.iter().map(&mut ev).collect::<Result<Vec<_>, _>>().map(|vs| {
            if vs.iter().any(Option::is_none) {
                InitValue::Undef
            } else {
                InitValue::Values(vs.into_iter().flatten().collect())
            }
        }),
        Init::Range(a, b) => ev(a).and_then(|a| Ok((a, ev(b)?))).map(|(a, b)| match (a, b) {
            (Some(a), Some(b)) => InitValue::Range(a, b),
            _ => InitValue::Undef,
        }),
    };
    r.unwrap_or_else(InitValue::Error)
}

/// The statements initialising `v` with what `value` says (an `ERR` for a run-time error;
/// `who`: the agent that reports it).
fn init_code(value: &InitValue, who: &str, snd: &str) -> Vec<code::Ln> {
    let s = |t: String| code::Ln::S(t);
    match value {
        InitValue::Undef => vec![s(format!("{INT_CHOICE} := UNDEF"))],
        InitValue::Values(vs) if vs.len() == 1 => vec![s(format!("{INT_CHOICE} := {}", int_lit(vs[0])))],
        InitValue::Values(vs) => {
            let parts: Vec<String> = vs.iter().map(|x| format!("({INT_CHOICE} == {})", int_lit(*x))).collect();
            vec![s(format!(
                "{INT_CHOICE} := any Int where {}",
                if parts.is_empty() { "false".into() } else { parts.join(" or ") }
            ))]
        }
        InitValue::Range(a, b) => vec![s(format!(
            "{INT_CHOICE} := any Int where ({INT_CHOICE} >= {}) and ({INT_CHOICE} < {})",
            int_lit(*a),
            int_lit(*b)
        ))],
        InitValue::Error(c) => vec![s(format!("ERR ({snd}{who}, {snd}({c} of Nat))")), s("stop".into())],
    }
}

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
    let lay = Layout::new(m, false);
    // Per agent of the type (the value may depend on `id`), grouped when equal.
    let cases: Vec<(Option<usize>, InitValue)> = match ty {
        None => vec![(None, init_value(m, &lay, None, init))],
        Some(t) => m.agent_types[t].ids().map(|a| (Some(a), init_value(m, &lay, Some(a), init))).collect(),
    };
    let who = if ty.is_some() { "id" } else { "N_AGENTS" };
    let first = cases.first().map(|c| c.1.clone()).unwrap_or(InitValue::Undef);
    let lines = if cases.iter().all(|c| c.1 == first) {
        init_code(&first, who, cx.snd)
    } else {
        let arms = cases
            .iter()
            .map(|(a, val)| (format!("id == {}", a.expect("agents only")), init_code(val, who, cx.snd)))
            .collect();
        vec![code::Ln::If(arms, vec![code::Ln::S("stop".into())])]
    };
    let may_fail = cases.iter().any(|c| matches!(c.1, InitValue::Error(_)));
    let ainit: Vec<usize> =
        cx.assumed.iter().filter(|(_, x, e)| *x == var && *e == k).map(|(a, _, _)| a.unwrap_or(0)).collect();
    let ainit = match ty {
        Some(t) => ainit.into_iter().filter(|a| m.agent_types[t].ids().contains(a)).collect(),
        None => ainit,
    };
    let indent = if ty.is_some() { 12 } else { 6 };
    Ok(InitView {
        comment: format!("{} := {}", v.element_name(k), print::init(m, init)),
        lines: code::print(&lines, indent, code::ExitStyle::Proc),
        may_fail,
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
        // The values senders of any holding type may have. A holder whose type lacks the
        // variable still offers its slot, which keeps the store's initial 0 (the link reads
        // ⊥ for it): without 0 in the domain, receivers would refuse its message.
        let mut set = IntervalSet::empty();
        for (t, at) in m.agent_types.iter().enumerate() {
            if at.count == 0 || !m.holds(t, s) {
                continue;
            }
            match cx.analysis.get(v, Some(t)) {
                Some(x) if m.type_has_var(t, v) => set.join_assign(x),
                _ => set.join_assign(&IntervalSet::singleton(UNHELD_SLOT)),
            };
        }
        let arr = store_array(var.store);
        for e in 0..var.len {
            let slot = var.offset + e;
            let name = format!("f_{}", fields.len());
            field_names.push((v, e, name.clone()));
            fields.push(FieldView { name, src: format!("{arr}[{slot}]"), slot, dom: cx.dom(&set) });
        }
    }
    let (link, link_may_fail) = link_fn(cx, ty, k, &field_names, &fields)?;
    let link_const = link == "1";
    let names: Vec<String> = tuple.vars.iter().map(|&v| m.vars[v].name.clone()).collect();
    // Only a holder sends: when some agent does not hold the tuple, a receiver requires the
    // sender to be a holder, else that agent's id would make a message nobody sends.
    let every_agent_holds = m.agent_types.iter().enumerate().all(|(t, at)| at.count == 0 || m.holds(t, s));
    let sender = if every_agent_holds { "(s < N_AGENTS)".into() } else { format!("(s < N_AGENTS) and holds ({k}, s)") };
    Ok(MsgView {
        k,
        sender,
        put: names::put_gate(k),
        qry: names::qry_gate(k),
        comment: format!("tuple {k} ({}) of stigmergy {}", names.join(", "), m.stigmergies[s].name),
        values,
        fields,
        link,
        link_may_fail,
        link_const,
        obs: obs_diffs(cx, &copied),
    })
}

/// The link predicate of tuple `k` as a receiver of type `ty` evaluates it (D6, D10 in
/// predicates): a function `lk_…` returning 1 (linked), 0, or the code of a run-time error,
/// called with the sender's fields; `1` when the link is `true`. Also whether it can fail.
fn link_fn(
    cx: &mut Ctx,
    ty: TypeId,
    k: usize,
    field_names: &[(VarId, usize, String)],
    fields: &[FieldView],
) -> Result<(String, bool), EmitError> {
    let m = cx.model;
    let link = &m.stigmergies[m.tuples[k].stigmergy].link;
    if *link == BExpr::Const(true) {
        return Ok(("1".into(), false));
    }
    let abs = Abs { model: m, analysis: cx.analysis, ty, locals: vec![] };
    let mut g = Gen::new(m, code::Mode::Pred, Source::Link { ty, fields: field_names });
    g.abs = Some(&abs);
    let mut body = vec![];
    let b = g.bexpr(&mut body, link)?;
    body.push(code::Ln::If(vec![(b, vec![code::Ln::Exit(code::R_OK)])], vec![code::Ln::Exit(code::R_OFF)]));
    let may_fail = code::has_error_exit(&body);
    let decls = g.decls(None);
    let name = format!("lk_{}_{k}", names::type_ident(m, ty));
    let params: String = fields.iter().map(|f| format!(", {}: Int", f.name)).collect();
    let args: String = fields.iter().map(|f| format!(", {}", f.name)).collect();
    cx.links.push(LinkFn {
        name: name.clone(),
        comment: format!(
            "the link of tuple {k} (stigmergy {}) as {} receives it",
            m.stigmergies[m.tuples[k].stigmergy].name, m.agent_types[ty].name
        ),
        params,
        body: code::print(&body, 6, code::ExitStyle::Func),
        decls,
    });
    Ok((format!("{name} (id, s, I, L{args})"), may_fail))
}
