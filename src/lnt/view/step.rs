//! One step of an agent (an edge of its behaviour) as the functions `en_` and `st_` and the
//! read slots and checks of its attempt.

use super::lower::{Lowered, assign_text, lower_stmt, stmts_of};
use super::reads::{bnondets, bremote_reads, conjuncts, is_literal, is_static_read, nondets, remote_reads};
use super::{Ctx, EdgeView, NdView, ReadSlot, SetEnvDiff, StepFn, StmtView, obs_diffs, store_array};
use crate::analysis::IntervalSet;
use crate::behaviour::{Edge, Step};
use crate::lnt::domains::{Abs, int_lit};
use crate::lnt::expr::{Printer, Scope, conj};
use crate::lnt::{EmitError, domains, names};
use crate::model::{ActionKind, AgentRef, Assign, Expr, Stmt, Store, TypeId, VarId, print};
use std::collections::BTreeSet;

/// Where the acting agent checks each enabling condition while it reads: a condition is
/// checked as soon as the slots it names are chosen (`ra_k`, `rl_k`) or read (`rv_k`), so that
/// an attempt that cannot succeed stops before reading more; a condition on the environment
/// waits for `TICK`. `en_` checks them all again at `TICK`: these are early cuts, not the
/// definition. The guards' conjuncts keep their order (a conjunct may rely on the ones before
/// it for its definedness); the checks of the reads' agents and locations are placed alone.
/// Returns the checks made before any read and, per slot, after its choice and after its read.
pub(super) fn early_checks(
    n_remote: usize,
    read_parts: &[String],
    guard_conjuncts: &[String],
) -> (String, Vec<ReadSlot>) {
    // Position 0 is the start; 2k + 1 after slot k's choice; 2k + 2 after its read; None: at TICK.
    fn position(c: &str) -> Option<usize> {
        if c.contains("E[") || c.contains("LOC[") {
            return None;
        }
        let mut pos = 0;
        for (i, _) in c.match_indices('_') {
            let head = &c[..i];
            let kind = ["ra", "rl", "rv"].into_iter().find(|k| head.ends_with(k));
            let Some(kind) = kind else { continue };
            let before = head[..head.len() - 2].chars().next_back();
            if before.is_some_and(|b| b.is_alphanumeric() || b == '_') {
                continue;
            }
            let digits: String = c[i + 1..].chars().take_while(|d| d.is_ascii_digit()).collect();
            let Ok(k) = digits.parse::<usize>() else { continue };
            pos = pos.max(if kind == "rv" { 2 * k + 2 } else { 2 * k + 1 });
        }
        Some(pos)
    }
    let mut at: Vec<Vec<String>> = vec![vec![]; 2 * n_remote + 1];
    for c in read_parts {
        if let Some(p) = position(c) {
            at[p].push(c.clone());
        }
    }
    let mut floor = Some(0);
    for c in guard_conjuncts {
        floor = match (floor, position(c)) {
            (Some(f), Some(p)) => Some(f.max(p)),
            _ => None,
        };
        let Some(f) = floor else { break };
        at[f].push(c.clone());
    }
    let text = |cs: &[String]| if cs.is_empty() { String::new() } else { conj(cs) };
    let reads = (0..n_remote)
        .map(|k| ReadSlot { k, owners: vec![], guess_check: text(&at[2 * k + 1]), read_check: text(&at[2 * k + 2]) })
        .collect();
    (text(&at[0]), reads)
}

/// The checks of remote reads: the value received as `rv_k` is agent `e`'s element (the
/// agent id and location offered with `TICK` are those the step computes), `e` defined.
fn remote_checks(p: &Printer, nodes: &[&Expr], names: &[(*const Expr, String)]) -> Result<Vec<String>, EmitError> {
    let mut out = vec![];
    for e in nodes {
        let Expr::Var(r) = e else { continue };
        let AgentRef::Of(a) = &r.owner else { continue };
        let name = &names.iter().find(|(q, _)| std::ptr::eq(*q, *e)).expect("named remote read").1;
        let k = name.trim_start_matches("rv_");
        out.extend(p.def(a)?);
        for i in &r.indices {
            out.extend(p.def(i)?);
        }
        // A read the step does not perform (e.g. short-circuited) may name no agent: the slot
        // is then offered unused, `(N_AGENTS, 0, 0)`, which is allowed only for such ids.
        // An agent id made of literals alone (`0 + 1`) is typed: Nat or Int would be ambiguous.
        let agent = if is_literal(a) { format!("({} of Int)", p.expr(a)?) } else { p.expr(a)? };
        out.push(format!(
            "((NatToInt (ra_{k}) == {agent}) or ((ra_{k} == N_AGENTS) and (({agent} < 0) or ({agent} >= NatToInt (N_AGENTS)))))"
        ));
        out.push(format!("((ra_{k} == N_AGENTS) or (rl_{k} == {}))", p.location(r.var, &r.indices)?));
    }
    let mut uniq = vec![];
    for c in out {
        if !uniq.contains(&c) {
            uniq.push(c);
        }
    }
    Ok(uniq)
}

/// The nondeterminism checks of the `[a..b]` nodes `nds`: bounds defined, choice in range.
fn nd_checks(p: &Printer, nds: &[&Expr], names: &[(*const Expr, String)]) -> Result<Vec<String>, EmitError> {
    let mut out = vec![];
    for e in nds {
        let Expr::NonDet(a, b) = e else { continue };
        let name = &names.iter().find(|(q, _)| std::ptr::eq(*q, *e)).expect("named choice").1;
        out.extend(p.def(a)?);
        out.extend(p.def(b)?);
        out.push(format!("({name} >= {})", p.expr(a)?));
        out.push(format!("({name} < {})", p.expr(b)?));
    }
    Ok(out)
}

/// A statement of a step function (an assignment is a one-statement block).
enum S<'a> {
    Assign(&'a Assign),
    Stmt(&'a Stmt),
    /// A condition the step needs (a `pick … where` filter on a chosen candidate).
    Check(&'a crate::model::BExpr),
}

/// The functions `en_<name>` and `st_<name>` of edge `e` of type `ty`, leaving `source`, and the
/// edge's view; also the number of locals the step uses.
pub(super) fn step_fn(
    cx: &mut Ctx,
    ty: TypeId,
    name: &str,
    source: u32,
    e: &Edge,
) -> Result<(StepFn, EdgeView, usize), EmitError> {
    let m = cx.model;
    let mut abs = Abs { model: m, analysis: cx.analysis, ty, locals: vec![] };
    // The choices of the step, in order: [a..b] in guards, then per statement.
    let mut guard_nd: Vec<&Expr> = vec![];
    for g in &e.guards {
        bnondets(g, &mut guard_nd);
    }
    let mut nd_names: Vec<(*const Expr, String)> = vec![];
    let mut nd_views: Vec<NdView> = vec![];
    for x in &guard_nd {
        let Expr::NonDet(a, b) = x else { continue };
        let nm = format!("nd_{}", nd_views.len());
        let dom = abs.nondet_domain(a, b);
        nd_views.push(NdView { name: nm.clone(), dom: cx.dom(&dom) });
        nd_names.push((*x as *const Expr, nm));
    }

    // `forall`/`exists`/`count` statements become local assignments of their expansion over
    // the agents of the type (their reads of other agents are remote reads); a `pick … where`
    // becomes the choice followed by one check of the filter per chosen candidate.
    let lowered: Vec<Lowered> = match &e.step {
        Step::Act(a) => stmts_of(a).into_iter().flat_map(|st| lower_stmt(m, st)).collect(),
        Step::Skip => vec![],
    };
    let (list, locals): (Vec<S>, usize) = match &e.step {
        Step::Skip => (vec![], 0),
        Step::Act(a) => match &a.kind {
            ActionKind::Assign(x) => (vec![S::Assign(x)], 0),
            ActionKind::Block { locals, .. } => (
                lowered
                    .iter()
                    .map(|l| match l {
                        Lowered::Stmt(st) => S::Stmt(st),
                        Lowered::Check(b) => S::Check(b),
                    })
                    .collect(),
                *locals,
            ),
        },
    };
    abs.locals = vec![IntervalSet::empty(); locals];
    // First pass: name the choices of each statement (domains from the abstract locals).
    let mut stmt_nd: Vec<Vec<&Expr>> = vec![];
    let mut stmt_rm: Vec<Vec<&Expr>> = vec![];
    let mut guard_rm: Vec<&Expr> = vec![];
    for g in &e.guards {
        bremote_reads(m, g, &mut guard_rm);
    }
    let mut pick_names: Vec<Vec<String>> = vec![];
    for s in &list {
        let mut nds = vec![];
        let mut rms = vec![];
        let mut picks = vec![];
        match *s {
            S::Assign(a) | S::Stmt(Stmt::Assign(a)) => {
                for t in &a.targets {
                    t.indices.iter().for_each(|i| nondets(i, &mut nds));
                    t.indices.iter().for_each(|i| remote_reads(m, i, &mut rms));
                }
                a.values.iter().for_each(|v| nondets(v, &mut nds));
                a.values.iter().for_each(|v| remote_reads(m, v, &mut rms));
            }
            S::Stmt(Stmt::Local { slots, values }) => {
                slots.iter().filter_map(|s| s.index.as_ref()).for_each(|i| nondets(i, &mut nds));
                values.iter().for_each(|v| nondets(v, &mut nds));
                slots.iter().filter_map(|s| s.index.as_ref()).for_each(|i| remote_reads(m, i, &mut rms));
                values.iter().for_each(|v| remote_reads(m, v, &mut rms));
                for (sl, v) in slots.iter().zip(values) {
                    let val = abs.expr(v);
                    for k in sl.slot..sl.slot + sl.len {
                        if let Some(x) = abs.locals.get_mut(k) {
                            x.join_assign(&val);
                        }
                    }
                }
            }
            S::Stmt(Stmt::Pick { slot, count, agent_type, .. }) => {
                let ids = domains::ids(m, *agent_type);
                for k in 0..*count {
                    let nm = format!("nd_{}", nd_views.len());
                    nd_views.push(NdView { name: nm.clone(), dom: cx.dom(&ids) });
                    picks.push(nm);
                    if let Some(x) = abs.locals.get_mut(slot + k) {
                        x.join_assign(&ids);
                    }
                }
            }
            S::Check(b) => {
                bnondets(b, &mut nds);
                bremote_reads(m, b, &mut rms);
            }
            S::Stmt(Stmt::Quant { .. } | Stmt::Count { .. }) => unreachable!("lowered to local assignments"),
        }
        for x in &nds {
            let Expr::NonDet(a, b) = x else { continue };
            let nm = format!("nd_{}", nd_views.len());
            let dom = abs.nondet_domain(a, b);
            nd_views.push(NdView { name: nm.clone(), dom: cx.dom(&dom) });
            nd_names.push((*x as *const Expr, nm));
        }
        stmt_nd.push(nds);
        stmt_rm.push(rms);
        pick_names.push(picks);
    }
    let (remote_names, n_remote) = name_reads(cx, ty, &abs.locals, &guard_rm, &stmt_rm);
    let remote: Vec<usize> = (0..n_remote).collect();

    let p = Printer { model: m, scope: Scope::Agent, nd: &nd_names, undef: cx.undef, remote: &remote_names };
    let nd_parts = nd_checks(&p, &guard_nd, &nd_names)?;
    let read_parts = remote_checks(&p, &guard_rm, &remote_names)?;
    let mut guard_parts = nd_parts.clone();
    guard_parts.extend(read_parts.iter().cloned());
    let mut guard_conjuncts = nd_parts;
    for g in &e.guards {
        guard_parts.push(p.guard(g)?);
        for c in conjuncts(g) {
            guard_conjuncts.push(p.guard(c)?);
        }
    }
    let guards = guard_parts;
    // A statement's read of a constant agent and location can be checked before `TICK` as
    // well (every statement is evaluated when the step is enabled).
    let static_reads: Vec<&Expr> = stmt_rm.iter().flatten().copied().filter(|x| is_static_read(x)).collect();
    let mut read_parts = read_parts;
    for c in remote_checks(&p, &static_reads, &remote_names)? {
        if !read_parts.contains(&c) {
            read_parts.push(c);
        }
    }
    let (start_check, reads) = early_checks(n_remote, &read_parts, &guard_conjuncts);

    let mut stmts = vec![];
    let mut out = StepLocals::default();
    for (si, s) in list.iter().enumerate() {
        let names = Names { nd: &nd_names, remote: &remote_names };
        stmts.push(stmt_view(&p, si, s, (&stmt_nd[si], &stmt_rm[si], &pick_names[si]), names, &mut out)?);
    }
    let StepLocals { temps, slots, written } = out;

    let comment = match &e.step {
        Step::Skip => "Skip".to_string(),
        Step::Act(a) => match &a.kind {
            ActionKind::Assign(x) => assign_text(m, x),
            ActionKind::Block { .. } => "block".into(),
        },
    };
    let guard_text: Vec<String> = e.guards.iter().map(|g| print::bexpr(m, g)).collect();
    let comment = if guard_text.is_empty() { comment } else { format!("{} -> {comment}", guard_text.join(" -> ")) };
    let has_effect = !matches!(e.step, Step::Skip);
    let mut setenv = vec![];
    for &v in &written {
        let var = &m.vars[v];
        if var.store == Store::Env {
            let gate = cx.observed.contains(&v).then(|| names::obs_gate(m, v));
            for k in 0..var.len {
                setenv.push(SetEnvDiff { slot: var.offset + k, obs: gate.clone().map(|g| (g, k)) });
            }
        }
    }
    let f = StepFn {
        name: name.to_string(),
        comment: comment.clone(),
        nd: nd_views.iter().map(|n| n.name.clone()).collect(),
        guards,
        effect: has_effect,
        stmts,
        temps,
        slots,
        remote: remote.clone(),
    };
    let ev = EdgeView {
        comment,
        source,
        target: e.target,
        func: name.to_string(),
        nd: nd_views,
        has_effect,
        setenv,
        writes: e.writes.clone(),
        confirms: e.confirms.clone(),
        obs: obs_diffs(cx, &written),
        remote,
        reads,
        start_check,
    };
    Ok((f, ev, locals))
}

/// Names the remote reads of a step (`rv_k`) and records what each slot can carry (in
/// `cx.remote_shapes`, `cx.type_reads`, `cx.remote_vars`). `locals` are the abstract values of
/// the step's locals. Returns the names and the number of slots.
fn name_reads<'e>(
    cx: &mut Ctx,
    ty: TypeId,
    locals: &[IntervalSet],
    guard_rm: &[&'e Expr],
    stmt_rm: &[Vec<&'e Expr>],
) -> (Vec<(*const Expr, String)>, usize) {
    // One slot per location read: another agent's state does not change during the step, so
    // the same read written twice shares a slot when its agent and indices cannot change in
    // between: within the guards or within one statement (evaluated before any of its writes),
    // or anywhere in the step when they are constant expressions.
    let mut remote_names: Vec<(*const Expr, String)> = vec![];
    let mut seen: Vec<(&Expr, usize, String)> = vec![];
    let segments = std::iter::once(guard_rm).chain(stmt_rm.iter().map(Vec::as_slice)).enumerate();
    for (seg, x) in segments.flat_map(|(seg, rms)| rms.iter().map(move |x| (seg, x))) {
        let name = match seen.iter().find(|(y, s, _)| *y == *x && (*s == seg || is_static_read(x))) {
            Some((_, _, n)) => n.clone(),
            None => {
                let n = format!("rv_{}", seen.len());
                seen.push((x, seg, n.clone()));
                n
            }
        };
        remote_names.push((*x as *const Expr, name));
    }
    let n_remote = seen.len();
    // What each slot can carry: the agents the read can name, the locations of the variable
    // (the element when the indices are constant) and its values.
    // (Locals start at 0 in `st_E`, before any statement assigns them.)
    let m = cx.model;
    let n_agents = m.n_agents() as i64;
    let zero = IntervalSet::singleton(0);
    let abs_any = Abs { model: m, analysis: cx.analysis, ty, locals: locals.iter().map(|l| l.join(&zero)).collect() };
    for (k, (x, _, _)) in seen.iter().enumerate() {
        let Expr::Var(r) = x else { continue };
        let AgentRef::Of(a) = &r.owner else { continue };
        let agents = abs_any.expr(a).defined().meet(&IntervalSet::range(0, n_agents - 1));
        let v = &m.vars[r.var];
        let base = match v.store {
            Store::Stig { .. } => m.attr_len.max(1) + v.offset,
            _ => v.offset,
        };
        let consts: Option<Vec<usize>> =
            r.indices.iter().map(|e| if let Expr::Const(c) = e { usize::try_from(*c).ok() } else { None }).collect();
        let (lo, hi) = match consts {
            Some(cs) if cs.iter().zip(&v.dims).all(|(c, d)| c < d) => {
                let mut flat = 0;
                let mut stride = v.len;
                for (c, d) in cs.iter().zip(&v.dims) {
                    stride /= d;
                    flat += c * stride;
                }
                (base + flat, base + flat + 1)
            }
            _ => (base, base + v.len.max(1)),
        };
        let values = domains::var_set(m, cx.analysis, r.var, None).join(&zero);
        if cx.remote_shapes.len() <= k {
            cx.remote_shapes.resize(k + 1, vec![]);
        }
        let read = (agents.clone(), lo, hi);
        if !cx.type_reads[ty].contains(&read) {
            cx.type_reads[ty].push(read);
        }
        let shape = (agents, lo, hi, values);
        if !cx.remote_shapes[k].contains(&shape) {
            cx.remote_shapes[k].push(shape);
        }
    }
    for x in guard_rm.iter().chain(stmt_rm.iter().flatten()) {
        if let Expr::Var(r) = x {
            cx.remote_vars.insert(r.var);
        }
    }
    cx.max_remote = cx.max_remote.max(n_remote);
    (remote_names, n_remote)
}

/// The names of a step's choices (`nd_k`) and remote reads (`rv_k`), by expression node.
#[derive(Clone, Copy)]
struct Names<'n> {
    nd: &'n [(*const Expr, String)],
    remote: &'n [(*const Expr, String)],
}

/// What a step function's statements declare and write: temporaries, computed slots, the
/// variables written.
#[derive(Default)]
struct StepLocals {
    temps: Vec<String>,
    slots: Vec<String>,
    written: BTreeSet<VarId>,
}

/// Statement `si` of a step function: its condition (choices in range, reads checked, values
/// defined) and its assignments, through temporaries so that every value is computed before
/// any write. `nds`, `rms` and `picks` are the statement's choices, remote reads and `pick`
/// choice names.
fn stmt_view(
    p: &Printer,
    si: usize,
    s: &S,
    (nds, rms, picks): (&[&Expr], &[&Expr], &[String]),
    names: Names,
    out: &mut StepLocals,
) -> Result<StmtView, EmitError> {
    let m = p.model;
    let (nd_names, remote_names) = (names.nd, names.remote);
    let mut cond = nd_checks(p, nds, nd_names)?;
    cond.extend(remote_checks(p, rms, remote_names)?);
    let mut assigns = vec![];
    let comment;
    match *s {
        S::Assign(a) | S::Stmt(Stmt::Assign(a)) => {
            comment = assign_text(m, a);
            let mut writes = vec![];
            for (j, (t, v)) in a.targets.iter().zip(&a.values).enumerate() {
                let tmp = format!("t_{si}_{j}");
                out.temps.push(tmp.clone());
                cond.extend(p.copy_def(v)?);
                for i in &t.indices {
                    cond.extend(p.def(i)?);
                }
                assigns.push((tmp.clone(), p.expr(v)?));
                let slot = p.slot(t.var, &t.indices)?;
                let arr = store_array(m.vars[t.var].store);
                if slot.parse::<usize>().is_ok() {
                    writes.push((format!("{arr}[{slot}]"), tmp));
                } else {
                    let sv = format!("s_{si}_{j}");
                    out.slots.push(sv.clone());
                    assigns.push((sv.clone(), slot));
                    writes.push((format!("{arr}[{sv}]"), tmp));
                }
                out.written.insert(t.var);
            }
            assigns.extend(writes);
        }
        S::Stmt(Stmt::Local { slots: targets, values }) => {
            comment = "local assignment".into();
            let mut writes = vec![];
            for (j, (t, v)) in targets.iter().zip(values).enumerate() {
                let tmp = format!("t_{si}_{j}");
                out.temps.push(tmp.clone());
                cond.extend(p.copy_def(v)?);
                assigns.push((tmp.clone(), p.expr(v)?));
                match &t.index {
                    None => writes.push((format!("LOC[{}]", t.slot), tmp)),
                    Some(i) => {
                        cond.extend(p.def(i)?);
                        let sv = format!("s_{si}_{j}");
                        out.slots.push(sv.clone());
                        assigns
                            .push((sv.clone(), format!("IntToNat ({} + lab_chk ({}, {}))", t.slot, p.expr(i)?, t.len)));
                        writes.push((format!("LOC[{sv}]"), tmp));
                    }
                }
            }
            assigns.extend(writes);
        }
        S::Stmt(Stmt::Pick { slot, count, agent_type, filter }) => {
            comment = format!(
                "pick {count}{}",
                agent_type.map(|t| format!(" {}", m.agent_types[t].name)).unwrap_or_default()
            );
            let names = picks;
            let ids = domains::ids(m, *agent_type);
            for (k, nm) in names.iter().enumerate() {
                cond.push(format!(
                    "(({nm} >= {}) and ({nm} <= {}))",
                    int_lit(ids.min().unwrap_or(0)),
                    int_lit(ids.max().unwrap_or(-1))
                ));
                cond.push(format!("({nm} != NatToInt (id))"));
                for other in &names[..k] {
                    cond.push(format!("({nm} != {other})"));
                }
                assigns.push((format!("LOC[{}]", slot + k), nm.clone()));
            }
            let _ = filter;
        }
        S::Check(b) => {
            comment = "pick filter".into();
            cond.push(p.bexpr(b)?);
        }
        S::Stmt(_) => unreachable!("lowered"),
    }
    cond.dedup();
    Ok(StmtView { comment, cond: conj(&cond), assigns })
}
