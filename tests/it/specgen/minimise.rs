//! Shrinking a spec while a failure persists: the spec is parsed, every single simplification
//! of its syntax tree is tried (dropping a property, an agent type, a declaration, a process
//! item or a statement; replacing an expression by a constant or one of its operands; …), and
//! the first that still loads, is shorter when printed, and still fails is kept, until none
//! does. Works on any spec text, not only generated ones.

use crate::engine_common::load_text;
use labs::syntax::ast::*;
use labs::syntax::printer::print_spec;
use labs::syntax::span::Span;

fn sp() -> Span {
    Span::default()
}

fn int(n: i64) -> Expr {
    Expr::Int(n, sp())
}

/// The smallest spec found within `budget` checks of `still_fails` (each a run of the failing
/// routes), printed canonically.
pub fn minimise(text: &str, externs: &[String], budget: usize, still_fails: &mut dyn FnMut(&str) -> bool) -> String {
    let Some(spec) = labs::syntax::parse(text).spec else { return text.to_string() };
    let mut best = print_spec(&spec);
    if best != text && load_text(&best, externs).is_ok() && !still_fails(&best) {
        // The canonical form loses the failure (it should not): shrink the original text.
        best = text.to_string();
    }
    let mut checks = 0;
    let mut start = 0;
    let mut improved_in_pass = false;
    while let Some(spec) = labs::syntax::parse(&best).spec {
        let mut found = None;
        let mut index = 0;
        let mut out_of_budget = false;
        spec_variants(&spec, &mut |c| {
            index += 1;
            if index <= start {
                return false;
            }
            let t = print_spec(&c);
            if t.len() >= best.len() || load_text(&t, externs).is_err() {
                return false;
            }
            if checks >= budget {
                out_of_budget = true;
                return true;
            }
            checks += 1;
            if still_fails(&t) {
                found = Some((index - 1, t));
                return true;
            }
            false
        });
        if out_of_budget {
            break;
        }
        match found {
            Some((i, t)) => {
                best = t;
                start = i;
                improved_in_pass = true;
            }
            None if improved_in_pass && start > 0 => {
                start = 0;
                improved_in_pass = false;
            }
            None => break,
        }
    }
    best
}

// ---------------------------------------------------------------------- the whole spec

/// Every spec one simplification away from `s`, coarse simplifications first, given one at a
/// time to `visit` until it returns true (the specs are not all held at once: a spec has
/// thousands of them).
pub fn spec_variants(s: &Spec, visit: &mut dyn FnMut(Spec) -> bool) {
    macro_rules! out {
        ($c:expr) => {
            if visit($c) {
                return;
            }
        };
    }
    // Properties and assumptions.
    for i in 0..s.properties.len() {
        if s.properties.len() > 1 {
            let mut c = s.clone();
            c.properties.remove(i);
            out!(c);
        }
    }
    for i in 0..s.assumptions.len() {
        let mut c = s.clone();
        c.assumptions.remove(i);
        out!(c);
    }
    // Agent types: drop one (with its spawn item), or spawn fewer.
    for i in 0..s.system.spawn.len() {
        if s.system.spawn.len() > 1 {
            let mut c = s.clone();
            let name = c.system.spawn.remove(i).agent.name;
            c.agents.retain(|a| a.name.name != name);
            out!(c);
        }
        match &s.system.spawn[i].count {
            Expr::Int(n, _) if *n > 1 => {
                let mut c = s.clone();
                c.system.spawn[i].count = int(n - 1);
                out!(c);
            }
            Expr::Int(..) => {}
            _ => {
                let mut c = s.clone();
                c.system.spawn[i].count = int(1);
                out!(c);
            }
        }
    }
    // Stigmergies: drop one (and its mentions in `stigmergies = …`), drop a tuple or a
    // variable of a tuple.
    for i in 0..s.stigmergies.len() {
        let mut c = s.clone();
        let name = c.stigmergies.remove(i).name.name;
        for a in &mut c.agents {
            a.stigmergies.retain(|x| x.name != name);
        }
        out!(c);
        let st = &s.stigmergies[i];
        for t in 0..st.tuples.len() {
            if st.tuples.len() > 1 {
                let mut c = s.clone();
                c.stigmergies[i].tuples.remove(t);
                out!(c);
            }
            if st.tuples[t].vars.len() > 1 {
                for v in 0..st.tuples[t].vars.len() {
                    let mut c = s.clone();
                    c.stigmergies[i].tuples[t].vars.remove(v);
                    c.stigmergies[i].tuples[t].inits.remove(v);
                    out!(c);
                }
            }
        }
    }
    // Declarations.
    for i in 0..s.system.environment.len() {
        let mut c = s.clone();
        c.system.environment.remove(i);
        out!(c);
    }
    for (a, agent) in s.agents.iter().enumerate() {
        for i in 0..agent.interface.len() {
            let mut c = s.clone();
            c.agents[a].interface.remove(i);
            out!(c);
        }
        for i in 0..agent.stigmergies.len() {
            let mut c = s.clone();
            c.agents[a].stigmergies.remove(i);
            out!(c);
        }
        for i in 0..agent.processes.len() {
            if agent.processes[i].name.name != "Behavior" {
                let mut c = s.clone();
                c.agents[a].processes.remove(i);
                out!(c);
            }
        }
    }
    for i in 0..s.system.processes.len() {
        let mut c = s.clone();
        c.system.processes.remove(i);
        out!(c);
    }
    // Processes.
    for (a, agent) in s.agents.iter().enumerate() {
        for (i, d) in agent.processes.iter().enumerate() {
            for v in proc_variants(&d.body) {
                let mut c = s.clone();
                c.agents[a].processes[i].body = v;
                out!(c);
            }
        }
    }
    for (i, d) in s.system.processes.iter().enumerate() {
        for v in proc_variants(&d.body) {
            let mut c = s.clone();
            c.system.processes[i].body = v;
            out!(c);
        }
    }
    // Initialisers, links, assumptions and properties.
    for i in 0..s.system.environment.len() {
        for v in init_variants(&s.system.environment[i].init) {
            let mut c = s.clone();
            c.system.environment[i].init = v;
            out!(c);
        }
    }
    for (a, agent) in s.agents.iter().enumerate() {
        for i in 0..agent.interface.len() {
            for v in init_variants(&agent.interface[i].init) {
                let mut c = s.clone();
                c.agents[a].interface[i].init = v;
                out!(c);
            }
        }
    }
    for (i, st) in s.stigmergies.iter().enumerate() {
        for v in bexpr_variants(&st.link) {
            let mut c = s.clone();
            c.stigmergies[i].link = v;
            out!(c);
        }
        for (t, tuple) in st.tuples.iter().enumerate() {
            for (k, init) in tuple.inits.iter().enumerate() {
                for v in init_variants(init) {
                    let mut c = s.clone();
                    c.stigmergies[i].tuples[t].inits[k] = v;
                    out!(c);
                }
            }
        }
    }
    for i in 0..s.assumptions.len() {
        for v in qpred_variants(&s.assumptions[i].pred) {
            let mut c = s.clone();
            c.assumptions[i].pred = v;
            out!(c);
        }
    }
    for i in 0..s.properties.len() {
        for v in modality_variants(&s.properties[i].modality) {
            let mut c = s.clone();
            c.properties[i].modality = v;
            out!(c);
        }
        for v in qpred_variants(&s.properties[i].pred) {
            let mut c = s.clone();
            c.properties[i].pred = v;
            out!(c);
        }
    }
}

fn init_variants(i: &Init) -> Vec<Init> {
    match i {
        Init::Undef(_) => vec![Init::Single(int(0))],
        Init::Choice(items, _) => items.iter().map(|e| Init::Single(e.clone())).collect(),
        Init::Range(a, _, _) => vec![Init::Single(a.clone())],
        Init::Single(e) => expr_variants(e).into_iter().map(Init::Single).collect(),
    }
}

fn modality_variants(m: &Modality) -> Vec<Modality> {
    type Rebuild = fn(QPred, QPred, Pattern) -> Modality;
    let (open, close, pattern, rebuild): (&QPred, &QPred, &Pattern, Rebuild) = match m {
        Modality::Between { open, close, pattern } => {
            (open, close, pattern, |open, close, pattern| Modality::Between { open, close, pattern })
        }
        Modality::FromUntil { open, close, pattern } => {
            (open, close, pattern, |open, close, pattern| Modality::FromUntil { open, close, pattern })
        }
        _ => return vec![],
    };
    let mut out = vec![];
    if let Pattern::Precedes(q) = pattern {
        out.push(rebuild(open.clone(), close.clone(), Pattern::ThereIs));
        for v in qpred_variants(q) {
            out.push(rebuild(open.clone(), close.clone(), Pattern::Precedes(v)));
        }
    }
    for v in qpred_variants(open) {
        out.push(rebuild(v, close.clone(), pattern.clone()));
    }
    for v in qpred_variants(close) {
        out.push(rebuild(open.clone(), v, pattern.clone()));
    }
    out
}

fn qpred_variants(q: &QPred) -> Vec<QPred> {
    let mut out = vec![];
    for i in 0..q.quants.len() {
        let mut c = q.clone();
        c.quants.remove(i);
        out.push(c);
    }
    for v in bexpr_variants(&q.body) {
        out.push(QPred { quants: q.quants.clone(), body: v, span: sp() });
    }
    out
}

// ---------------------------------------------------------------------- processes

fn proc_variants(p: &Proc) -> Vec<Proc> {
    let mut out = vec![];
    let list = |items: &Vec<Proc>, make: fn(Vec<Proc>, Span) -> Proc, out: &mut Vec<Proc>| {
        out.extend(items.iter().cloned());
        for i in 0..items.len() {
            if items.len() > 2 {
                let mut c = items.clone();
                c.remove(i);
                out.push(make(c, sp()));
            }
        }
        for i in 0..items.len() {
            for v in proc_variants(&items[i]) {
                let mut c = items.clone();
                c[i] = v;
                out.push(make(c, sp()));
            }
        }
    };
    match p {
        Proc::Par(items, _) => list(items, Proc::Par, &mut out),
        Proc::Choice(items, _) => list(items, Proc::Choice, &mut out),
        Proc::Seq(items, _) => list(items, Proc::Seq, &mut out),
        Proc::Guard { cond, kind, body, .. } => {
            out.push((**body).clone());
            if *kind == GuardKind::Conditional {
                out.push(Proc::Guard { cond: cond.clone(), kind: GuardKind::Blocking, body: body.clone(), span: sp() });
            }
            for v in bexpr_variants(cond) {
                out.push(Proc::Guard { cond: v, kind: kind.clone(), body: body.clone(), span: sp() });
            }
            for v in proc_variants(body) {
                out.push(Proc::Guard { cond: cond.clone(), kind: kind.clone(), body: Box::new(v), span: sp() });
            }
        }
        Proc::Skip(_) => {}
        Proc::Nil(_) | Proc::Call(_) => out.push(Proc::Skip(sp())),
        Proc::Action(a) => {
            out.push(Proc::Skip(sp()));
            out.extend(action_variants(a).into_iter().map(Proc::Action));
        }
        Proc::Block(stmts, _) => {
            out.push(Proc::Skip(sp()));
            for i in 0..stmts.len() {
                if stmts.len() > 1 {
                    let mut c = stmts.clone();
                    c.remove(i);
                    out.push(Proc::Block(c, sp()));
                }
            }
            for i in 0..stmts.len() {
                for v in stmt_variants(&stmts[i]) {
                    let mut c = stmts.clone();
                    c[i] = v;
                    out.push(Proc::Block(c, sp()));
                }
            }
        }
        Proc::Paren(inner, _) => {
            out.push((**inner).clone());
            out.extend(proc_variants(inner).into_iter().map(|v| Proc::Paren(Box::new(v), sp())));
        }
    }
    out
}

fn action_variants(a: &Action) -> Vec<Action> {
    let mut out = vec![];
    if a.lhs.len() > 1 {
        for i in 0..a.lhs.len() {
            let mut c = a.clone();
            c.lhs.remove(i);
            c.rhs.remove(i);
            out.push(c);
        }
    }
    for i in 0..a.rhs.len() {
        for v in expr_variants(&a.rhs[i]) {
            let mut c = a.clone();
            c.rhs[i] = v;
            out.push(c);
        }
    }
    for i in 0..a.lhs.len() {
        for (k, idx) in a.lhs[i].indices.iter().enumerate() {
            for v in expr_variants(idx) {
                let mut c = a.clone();
                c.lhs[i].indices[k] = v;
                out.push(c);
            }
        }
    }
    out
}

fn stmt_variants(s: &Stmt) -> Vec<Stmt> {
    let mut out = vec![];
    match s {
        Stmt::Assign(a) => out.extend(action_variants(a).into_iter().map(Stmt::Assign)),
        Stmt::Local { lhs, rhs, .. } => {
            for i in 0..rhs.len() {
                for v in expr_variants(&rhs[i]) {
                    let mut c = rhs.clone();
                    c[i] = v;
                    out.push(Stmt::Local { lhs: lhs.clone(), rhs: c, span: sp() });
                }
            }
        }
        Stmt::Pick { name, count, agent, filter, .. } => {
            if agent.is_some() {
                out.push(Stmt::Pick {
                    name: name.clone(),
                    count: count.clone(),
                    agent: None,
                    filter: filter.clone(),
                    span: sp(),
                });
            }
            if let Some(f) = filter {
                out.push(Stmt::Pick {
                    name: name.clone(),
                    count: count.clone(),
                    agent: agent.clone(),
                    filter: None,
                    span: sp(),
                });
                for v in bexpr_variants(f) {
                    out.push(Stmt::Pick {
                        name: name.clone(),
                        count: count.clone(),
                        agent: agent.clone(),
                        filter: Some(v),
                        span: sp(),
                    });
                }
            }
            if !matches!(count, Expr::Int(1, _)) {
                out.push(Stmt::Pick {
                    name: name.clone(),
                    count: int(1),
                    agent: agent.clone(),
                    filter: filter.clone(),
                    span: sp(),
                });
            }
        }
        Stmt::Quant { name, quants, pred, .. } => {
            for i in 0..quants.len() {
                if quants.len() > 1 {
                    let mut c = quants.clone();
                    c.remove(i);
                    out.push(Stmt::Quant { name: name.clone(), quants: c, pred: pred.clone(), span: sp() });
                }
            }
            for v in bexpr_variants(pred) {
                out.push(Stmt::Quant { name: name.clone(), quants: quants.clone(), pred: v, span: sp() });
            }
        }
        Stmt::Count { name, agent, var, pred, .. } => {
            for v in bexpr_variants(pred) {
                out.push(Stmt::Count {
                    name: name.clone(),
                    agent: agent.clone(),
                    var: var.clone(),
                    pred: v,
                    span: sp(),
                });
            }
        }
    }
    out
}

// ---------------------------------------------------------------------- expressions

fn bexpr_variants(b: &BExpr) -> Vec<BExpr> {
    let mut out = vec![];
    if !matches!(b, BExpr::Bool(true, _)) {
        out.push(BExpr::Bool(true, sp()));
    }
    if !matches!(b, BExpr::Bool(..)) {
        out.push(BExpr::Bool(false, sp()));
    }
    match b {
        BExpr::Bool(..) => {}
        BExpr::Not(x, _) => {
            out.push((**x).clone());
            out.extend(bexpr_variants(x).into_iter().map(|v| BExpr::Not(Box::new(wrap_b(v)), sp())));
        }
        BExpr::Cmp(op, l, r, _) => {
            for v in expr_variants(l) {
                out.push(BExpr::Cmp(*op, v, r.clone(), sp()));
            }
            for v in expr_variants(r) {
                out.push(BExpr::Cmp(*op, l.clone(), v, sp()));
            }
        }
        BExpr::Logic(op, l, r, _) => {
            out.push((**l).clone());
            out.push((**r).clone());
            for v in bexpr_variants(l) {
                out.push(BExpr::Logic(*op, Box::new(v), r.clone(), sp()));
            }
            for v in bexpr_variants(r) {
                out.push(BExpr::Logic(*op, l.clone(), Box::new(v), sp()));
            }
        }
        BExpr::Truthy(e) => out.extend(expr_variants(e).into_iter().map(BExpr::Truthy)),
        BExpr::Paren(x, _) => {
            out.push((**x).clone());
            out.extend(bexpr_variants(x).into_iter().map(|v| BExpr::Paren(Box::new(v), sp())));
        }
    }
    out
}

/// `!` applies only to `true`, `false` or a parenthesised condition.
fn wrap_b(b: BExpr) -> BExpr {
    match b {
        BExpr::Bool(..) | BExpr::Paren(..) => b,
        other => BExpr::Paren(Box::new(other), sp()),
    }
}

fn expr_variants(e: &Expr) -> Vec<Expr> {
    let mut out = vec![];
    match e {
        Expr::Int(n, _) => {
            if *n != 0 {
                out.push(int(0));
            }
            if n.abs() > 1 {
                out.push(int(1));
            }
        }
        Expr::Extern(_) | Expr::Id { .. } => out.push(int(0)),
        Expr::Var { name, indices, owner, .. } => {
            out.push(int(0));
            if let Some(Owner::Expr(o)) = owner {
                for v in expr_variants(o) {
                    out.push(Expr::Var {
                        name: name.clone(),
                        indices: indices.clone(),
                        owner: Some(Owner::Expr(Box::new(v))),
                        span: sp(),
                    });
                }
            }
            for (k, idx) in indices.iter().enumerate() {
                for v in expr_variants(idx) {
                    let mut c = indices.clone();
                    c[k] = v;
                    out.push(Expr::Var { name: name.clone(), indices: c, owner: owner.clone(), span: sp() });
                }
            }
        }
        Expr::Neg(x, _) | Expr::Abs(x, _) | Expr::Paren(x, _) => {
            out.push((**x).clone());
            let rebuild = |v: Expr| match e {
                Expr::Neg(..) => Expr::Neg(Box::new(v), sp()),
                Expr::Abs(..) => Expr::Abs(Box::new(v), sp()),
                _ => Expr::Paren(Box::new(v), sp()),
            };
            out.extend(expr_variants(x).into_iter().map(rebuild));
        }
        Expr::Bin(op, l, r, _) => {
            out.push((**l).clone());
            out.push((**r).clone());
            for v in expr_variants(l) {
                out.push(Expr::Bin(*op, Box::new(v), r.clone(), sp()));
            }
            for v in expr_variants(r) {
                out.push(Expr::Bin(*op, l.clone(), Box::new(v), sp()));
            }
        }
        Expr::MinMax(m, l, r, _) => {
            out.push((**l).clone());
            out.push((**r).clone());
            for v in expr_variants(l) {
                out.push(Expr::MinMax(*m, Box::new(v), r.clone(), sp()));
            }
            for v in expr_variants(r) {
                out.push(Expr::MinMax(*m, l.clone(), Box::new(v), sp()));
            }
        }
        Expr::If { cond, then, els, .. } => {
            out.push((**then).clone());
            out.push((**els).clone());
            for v in bexpr_variants(cond) {
                out.push(Expr::If { cond: Box::new(v), then: then.clone(), els: els.clone(), span: sp() });
            }
            for v in expr_variants(then) {
                out.push(Expr::If { cond: cond.clone(), then: Box::new(v), els: els.clone(), span: sp() });
            }
            for v in expr_variants(els) {
                out.push(Expr::If { cond: cond.clone(), then: then.clone(), els: Box::new(v), span: sp() });
            }
        }
        Expr::NonDet(a, b, _) => {
            out.push(int(0));
            out.push((**a).clone());
            for v in expr_variants(a) {
                out.push(Expr::NonDet(Box::new(v), b.clone(), sp()));
            }
            for v in expr_variants(b) {
                out.push(Expr::NonDet(a.clone(), Box::new(v), sp()));
            }
        }
    }
    out
}
