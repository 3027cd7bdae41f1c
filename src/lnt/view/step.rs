//! One step of an agent (an edge of its behaviour): the procedure `st_` that evaluates it (its
//! guards, then its statements, as `code` generates them) and the function `en_` that tells,
//! without changing the agent, whether it is enabled, disabled or meets a run-time error.

use super::code::{Gen, Ln, Mode, R_OFF, Source};
use super::lower::{Lowered, assign_text, lower_stmt, stmts_of};
use super::reads::{bnondets, bremote_reads, is_nondeterministic, is_static_read, nondets, remote_reads};
use super::{Ctx, EdgeView, NdView, ReadSlot, SetEnvDiff, StepFn, obs_diffs};
use crate::analysis::IntervalSet;
use crate::behaviour::{Edge, Step};
use crate::lnt::domains::{Abs, int_lit};
use crate::lnt::{EmitError, domains, names};
use crate::model::{ActionKind, AgentRef, Expr, Stmt, Store, TypeId, VarId, print};
use std::collections::BTreeSet;

/// A statement of a step (an assignment is a one-statement block).
enum S<'a> {
    Assign(&'a crate::model::Assign),
    Stmt(&'a Stmt),
    /// A condition the step needs (a `pick … where` filter on a chosen candidate).
    Check(&'a crate::model::BExpr),
}

/// The procedure `st_<name>` and the function `en_<name>` of edge `e` of type `ty`, leaving
/// `source`, and the edge's view; also the number of locals the step uses.
pub(super) fn step_fn(
    cx: &mut Ctx,
    ty: TypeId,
    name: &str,
    source: u32,
    e: &Edge,
) -> Result<(StepFn, EdgeView, usize), EmitError> {
    let m = cx.model;
    let mut abs = Abs { model: m, analysis: cx.analysis, ty, locals: vec![] };

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

    // The choices of the step in evaluation order (guards, then statement by statement), with
    // their static domains (the abstract locals as computed so far), and its reads of other
    // agents per segment (the guards, then each statement).
    let mut nd_nodes: Vec<&Expr> = vec![];
    for g in &e.guards {
        bnondets(m, g, &mut nd_nodes);
    }
    let mut nd_doms: Vec<IntervalSet> = nd_nodes
        .iter()
        .map(|x| match x {
            Expr::NonDet(a, b) => abs.nondet_domain(a, b),
            _ => unreachable!("choices are `[a..b]` nodes"),
        })
        .collect();
    let mut guard_rm: Vec<&Expr> = vec![];
    for g in &e.guards {
        bremote_reads(m, g, &mut guard_rm);
    }
    let mut stmt_rm: Vec<Vec<&Expr>> = vec![];
    // Per statement, the `nd_i` indices of its `pick` choices.
    let mut pick_nds: Vec<Vec<usize>> = vec![];
    for s in &list {
        let mut nds = vec![];
        let mut rms = vec![];
        let mut picks = vec![];
        match *s {
            S::Assign(a) | S::Stmt(Stmt::Assign(a)) => {
                for (t, v) in a.targets.iter().zip(&a.values) {
                    t.indices.iter().for_each(|i| nondets(m, i, &mut nds));
                    t.indices.iter().for_each(|i| remote_reads(m, i, &mut rms));
                    nondets(m, v, &mut nds);
                    remote_reads(m, v, &mut rms);
                }
            }
            S::Stmt(Stmt::Local { slots, values }) => {
                for (sl, v) in slots.iter().zip(values) {
                    if let Some(i) = &sl.index {
                        nondets(m, i, &mut nds);
                        remote_reads(m, i, &mut rms);
                    }
                    nondets(m, v, &mut nds);
                    remote_reads(m, v, &mut rms);
                }
            }
            S::Stmt(Stmt::Pick { count, .. }) => {
                for _ in 0..*count {
                    picks.push(nd_nodes.len() + picks.len());
                }
            }
            S::Check(b) => {
                bnondets(m, b, &mut nds);
                bremote_reads(m, b, &mut rms);
            }
            S::Stmt(Stmt::Quant { .. } | Stmt::Count { .. }) => unreachable!("lowered to local assignments"),
        }
        // Pick choices come first in their statement (they are made before anything else).
        if let S::Stmt(Stmt::Pick { agent_type, .. }) = s {
            let ids = domains::ids(m, *agent_type);
            for _ in &picks {
                nd_doms.push(ids.clone());
                nd_nodes.push(&PICK_PLACEHOLDER);
            }
        }
        for x in &nds {
            let Expr::NonDet(a, b) = x else { continue };
            nd_doms.push(abs.nondet_domain(a, b));
        }
        nd_nodes.extend(nds);
        // The abstract locals after the statement.
        match *s {
            S::Stmt(Stmt::Local { slots, values }) => {
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
                    if let Some(x) = abs.locals.get_mut(slot + k) {
                        x.join_assign(&ids);
                    }
                }
            }
            _ => {}
        }
        stmt_rm.push(rms);
        pick_nds.push(picks);
    }
    let nd_names: Vec<(*const Expr, usize)> = nd_nodes
        .iter()
        .enumerate()
        .filter(|(_, x)| !std::ptr::eq(**x, &PICK_PLACEHOLDER))
        .map(|(i, x)| (*x as *const Expr, i))
        .collect();
    let n_nd = nd_nodes.len();
    let (slots, n_remote) = name_reads(cx, ty, &abs.locals, &guard_rm, &stmt_rm);
    let kn_all = 2 * n_remote + 1;

    // The code: the guards, then the statements in order.
    let mut g = Gen::new(m, Mode::Step, Source::Step { ty, kn_all });
    g.abs = Some(&abs);
    g.nd = &nd_names;
    g.slots = &slots;
    g.n_nd = n_nd;
    let mut body: Vec<Ln> = vec![];
    for guard in &e.guards {
        g.require(&mut body, guard)?;
    }
    let mut written: BTreeSet<VarId> = BTreeSet::new();
    for (si, s) in list.iter().enumerate() {
        match *s {
            S::Assign(a) | S::Stmt(Stmt::Assign(a)) => {
                body.push(Ln::Comment(assign_text(m, a)));
                let mut writes = vec![];
                for (t, v) in a.targets.iter().zip(&a.values) {
                    let pos = g.target(&mut body, t.var, &t.indices)?;
                    let val = g.assigned(&mut body, v)?;
                    writes.push((t.var, pos, val));
                }
                for (var, pos, val) in writes {
                    let arr = super::store_array(m.vars[var].store);
                    body.push(Ln::S(format!("{arr}[{pos}] := lab_out ({val})")));
                    written.insert(var);
                    g.tainted.insert(var);
                }
            }
            S::Stmt(Stmt::Local { slots: targets, values }) => {
                body.push(Ln::Comment("local assignment".into()));
                let mut writes = vec![];
                for (t, v) in targets.iter().zip(values) {
                    let pos = g.local_target(&mut body, t.slot, t.len, t.index.as_ref())?;
                    let val = g.assigned(&mut body, v)?;
                    writes.push((pos, val));
                    if expr_tainted(&g, v) {
                        g.tainted_locals.extend(t.slot..t.slot + t.len);
                    }
                }
                for (pos, val) in writes {
                    body.push(Ln::S(format!("LOC[{pos}] := {val}")));
                }
            }
            S::Stmt(Stmt::Pick { slot, count, agent_type, .. }) => {
                body.push(Ln::Comment(format!(
                    "pick {count}{}",
                    agent_type.map(|t| format!(" {}", m.agent_types[t].name)).unwrap_or_default()
                )));
                let ids = domains::ids(m, *agent_type);
                let picks = &pick_nds[si];
                for (k, &i) in picks.iter().enumerate() {
                    let mut bad = vec![
                        format!("(nd_{i} < {})", int_lit(ids.min().unwrap_or(0))),
                        format!("(nd_{i} > {})", int_lit(ids.max().unwrap_or(-1))),
                        format!("(nd_{i} == NatToInt (id))"),
                    ];
                    for &j in &picks[..k] {
                        bad.push(format!("(nd_{i} == nd_{j})"));
                    }
                    body.push(Ln::If(vec![(bad.join(" or "), vec![Ln::Exit(R_OFF)])], vec![]));
                    body.push(Ln::S(format!("U[{i}] := true")));
                    body.push(Ln::S(format!("LOC[{}] := nd_{i}", slot + k)));
                }
                let _ = count;
            }
            S::Check(b) => {
                // The filter is checked on the chosen candidates only: exact as long as it
                // cannot fail (the native engine evaluates it on every candidate, in id order).
                let mut check = vec![];
                g.require(&mut check, b)?;
                if super::code::has_error_exit(&check) {
                    return Err(EmitError::unsupported(
                        "a `pick … where` filter that may meet a run-time error",
                        format!("`{}`", print::bexpr(m, b)),
                    ));
                }
                body.push(Ln::Comment("pick filter".into()));
                body.extend(check);
            }
            S::Stmt(_) => unreachable!("lowered"),
        }
    }
    let may_fail = super::code::has_error_exit(&body);
    let body = super::code::print(&body, 6, super::code::ExitStyle::Proc);
    // the block locals, only where a block has some (an unused variable is warned about)
    let uses_locals = body.iter().any(|l| l.contains("LOC["));
    let decls = g.decls(uses_locals.then_some("LOC: Locals"));

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
    // A choice is enumerated over its analysed domain before the step (by CADP as by labs's
    // interpreter): one the analysis cannot bound to a small set is refused by name.
    for (x, d) in nd_nodes.iter().zip(&nd_doms) {
        if d.cardinality().is_none_or(|n| n > domains::CHOICE_LIMIT) {
            return Err(EmitError::unsupported(
                "a `[a..b]` whose bounds the value analysis does not bound to a small range",
                format!("`{}` in a step of {}: values {}", print::expr(m, x), m.agent_types[ty].name, d),
            ));
        }
    }
    // The values a choice not made takes (0, added to its domain), and the unused slot.
    let zero = IntervalSet::singleton(0);
    // The choices of a step are chosen one after the other before it, so every combination is
    // a path of the program before its first action: their number is bounded too.
    let combinations = nd_doms.iter().try_fold(1u64, |n, d| n.checked_mul(d.join(&zero).cardinality()?));
    if combinations.is_none_or(|n| n > domains::STEP_CHOICES_LIMIT) {
        let shown: Vec<String> = nd_nodes
            .iter()
            .zip(&nd_doms)
            .filter(|(x, _)| !std::ptr::eq(**x, &PICK_PLACEHOLDER))
            .map(|(x, d)| format!("`{}` over {d}", print::expr(m, x)))
            .collect();
        return Err(EmitError::unsupported(
            "a step whose `[a..b]` and `pick` choices have more combinations of analysed values than can be enumerated",
            format!(
                "{} combinations, more than {}, in a step of {} ({})",
                combinations.map_or_else(|| "too many".to_string(), |n| n.to_string()),
                domains::STEP_CHOICES_LIMIT,
                m.agent_types[ty].name,
                shown.join(", ")
            ),
        ));
    }
    let nd: Vec<NdView> = nd_doms
        .iter()
        .enumerate()
        .map(|(i, d)| NdView { name: format!("nd_{i}"), dom: cx.dom(&d.join(&zero)) })
        .collect();
    let mut canon: Vec<String> = (0..n_nd).map(|i| format!("(not (U[{i}])) and (nd_{i} != 0)")).collect();
    canon.extend(
        (0..n_remote).map(|k| format!("(not (U[{}])) and (kn > {}) and (ra_{k} != N_AGENTS)", n_nd + k, 2 * k)),
    );
    let mut params = String::new();
    let mut args = String::new();
    for i in 0..n_nd {
        params += &format!(", nd_{i}: Int");
        args += &format!(", nd_{i}");
    }
    for k in 0..n_remote {
        params += &format!(", ra_{k}, rl_{k}: Nat, rv_{k}: Int");
        args += &format!(", ra_{k}, rl_{k}, rv_{k}");
    }
    let remote: Vec<usize> = (0..n_remote).collect();
    cx.used_max = cx.used_max.max(n_nd + n_remote);
    let f = StepFn {
        name: name.to_string(),
        comment: comment.clone(),
        params,
        args: args.clone(),
        body,
        decls,
        uses_locals,
        canon,
    };
    let ev = EdgeView {
        comment,
        source,
        target: e.target,
        func: name.to_string(),
        nd,
        has_effect,
        may_fail,
        setenv,
        writes: e.writes.clone(),
        confirms: e.confirms.clone(),
        obs: obs_diffs(cx, &written),
        reads: remote
            .iter()
            .map(|&k| ReadSlot { k, owners: vec![], choice_kn: 2 * k + 1, read_kn: 2 * k + 2 })
            .collect(),
        args,
        kn_all,
    };
    Ok((f, ev, locals))
}

/// Stands for a `pick` choice among the step's choices (it has no `[a..b]` node).
static PICK_PLACEHOLDER: Expr = Expr::Const(0);

/// Whether `e` reads a value tainted by an earlier statement of the block.
fn expr_tainted(g: &Gen, e: &Expr) -> bool {
    let mut t = false;
    e.walk(&mut |x| match x {
        Expr::Var(r) if g.tainted.contains(&r.var) => t = true,
        Expr::Local { slot, len, .. } if (*slot..slot + len).any(|s| g.tainted_locals.contains(&s)) => t = true,
        _ => {}
    });
    t
}

/// Names the remote reads of a step (slot `k`) and records what each slot can carry (in
/// `cx.remote_shapes`, `cx.type_reads`, `cx.remote_vars`). `locals` are the abstract values of
/// the step's locals. Returns the slot of each read node and the number of slots.
fn name_reads<'e>(
    cx: &mut Ctx,
    ty: TypeId,
    locals: &[IntervalSet],
    guard_rm: &[&'e Expr],
    stmt_rm: &[Vec<&'e Expr>],
) -> (Vec<(*const Expr, usize)>, usize) {
    // One slot per location read: another agent's state does not change during the step, so
    // the same read written twice shares a slot when its agent and indices cannot change in
    // between: within the guards or within one statement (evaluated before any of its writes),
    // or anywhere in the step when they are constant expressions. A read whose agent or
    // indices make a choice (`x of [0..2]`) is a read of its own each time it is written.
    let mut slots: Vec<(*const Expr, usize)> = vec![];
    let mut seen: Vec<(&Expr, usize)> = vec![];
    let segments = std::iter::once(guard_rm).chain(stmt_rm.iter().map(Vec::as_slice)).enumerate();
    for (seg, x) in segments.flat_map(|(seg, rms)| rms.iter().map(move |x| (seg, x))) {
        let shared = if is_nondeterministic(x) {
            None
        } else {
            seen.iter().position(|(y, s)| *y == *x && !is_nondeterministic(y) && (*s == seg || is_static_read(x)))
        };
        let k = match shared {
            Some(k) => k,
            None => {
                seen.push((x, seg));
                seen.len() - 1
            }
        };
        slots.push((*x as *const Expr, k));
    }
    let n_remote = seen.len();
    // What each slot can carry: the agents the read can name, the locations of the variable
    // (the element when the indices are constant) and its values.
    let m = cx.model;
    let n_agents = m.n_agents() as i64;
    let abs_any = Abs { model: m, analysis: cx.analysis, ty, locals: locals.to_vec() };
    for (k, (x, _)) in seen.iter().enumerate() {
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
        let values = domains::var_set(m, cx.analysis, r.var, None).join(&IntervalSet::singleton(0));
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
    (slots, n_remote)
}
