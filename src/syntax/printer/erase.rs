//! Syntax trees with every span set to `Span::default()`, for comparing trees up to spans
//! (feature `test-support`).

use crate::syntax::ast::*;
use crate::syntax::span::Span;

/// A copy of the tree with every span set to `Span::default()`, for comparing trees.
pub fn erase_spans(spec: &Spec) -> Spec {
    let sys = &spec.system;
    Spec {
        system: System {
            externs: sys.externs.iter().map(id).collect(),
            environment: sys.environment.iter().map(e_decl).collect(),
            spawn: sys.spawn.iter().map(|s| SpawnItem { agent: id(&s.agent), count: e_expr(&s.count) }).collect(),
            processes: sys.processes.iter().map(e_def).collect(),
            span: Span::default(),
        },
        stigmergies: spec
            .stigmergies
            .iter()
            .map(|s| Stigmergy {
                name: id(&s.name),
                link: e_bexpr(&s.link),
                tuples: s
                    .tuples
                    .iter()
                    .map(|t| TupleDecl {
                        vars: t.vars.iter().map(e_var_name).collect(),
                        inits: t.inits.iter().map(e_init).collect(),
                        span: Span::default(),
                    })
                    .collect(),
                span: Span::default(),
            })
            .collect(),
        agents: spec
            .agents
            .iter()
            .map(|a| Agent {
                name: id(&a.name),
                interface: a.interface.iter().map(e_decl).collect(),
                stigmergies: a.stigmergies.iter().map(id).collect(),
                processes: a.processes.iter().map(e_def).collect(),
                span: Span::default(),
            })
            .collect(),
        assumptions: spec
            .assumptions
            .iter()
            .map(|a| Assumption { name: id(&a.name), pred: e_qpred(&a.pred) })
            .collect(),
        properties: spec
            .properties
            .iter()
            .map(|p| Property {
                name: id(&p.name),
                modality: e_modality(&p.modality),
                pred: e_qpred(&p.pred),
                span: Span::default(),
            })
            .collect(),
    }
}

fn id(i: &Ident) -> Ident {
    Ident { name: i.name.clone(), span: Span::default() }
}

fn e_var_name(v: &VarName) -> VarName {
    VarName { name: id(&v.name), dims: v.dims.iter().map(e_expr).collect() }
}

fn e_decl(d: &VarDecl) -> VarDecl {
    VarDecl { var: e_var_name(&d.var), init: e_init(&d.init) }
}

fn e_init(i: &Init) -> Init {
    let z = Span::default();
    match i {
        Init::Undef(_) => Init::Undef(z),
        Init::Choice(es, _) => Init::Choice(es.iter().map(e_expr).collect(), z),
        Init::Range(a, b, _) => Init::Range(e_expr(a), e_expr(b), z),
        Init::Single(e) => Init::Single(e_expr(e)),
    }
}

fn e_def(d: &ProcDef) -> ProcDef {
    ProcDef { name: id(&d.name), body: erase_proc(&d.body) }
}

fn e_quant(q: &Quantifier) -> Quantifier {
    Quantifier { kind: q.kind, agent: id(&q.agent), var: id(&q.var) }
}

fn e_qpred(q: &QPred) -> QPred {
    QPred { quants: q.quants.iter().map(e_quant).collect(), body: e_bexpr(&q.body), span: Span::default() }
}

fn e_modality(m: &Modality) -> Modality {
    let pat = |p: &Pattern| match p {
        Pattern::ThereIs => Pattern::ThereIs,
        Pattern::Always => Pattern::Always,
        Pattern::Precedes(q) => Pattern::Precedes(e_qpred(q)),
    };
    match m {
        Modality::Between { open, close, pattern } => {
            Modality::Between { open: e_qpred(open), close: e_qpred(close), pattern: pat(pattern) }
        }
        Modality::FromUntil { open, close, pattern } => {
            Modality::FromUntil { open: e_qpred(open), close: e_qpred(close), pattern: pat(pattern) }
        }
        Modality::Ltl(f) => Modality::Ltl(f.try_map(&mut |q| Some(e_qpred(q))).expect("every atom maps")),
        other => other.clone(),
    }
}

fn e_lhs(l: &Lhs) -> Lhs {
    Lhs { name: id(&l.name), indices: l.indices.iter().map(e_expr).collect(), span: Span::default() }
}

fn e_action(a: &Action) -> Action {
    Action {
        lhs: a.lhs.iter().map(e_lhs).collect(),
        op: a.op,
        rhs: a.rhs.iter().map(e_expr).collect(),
        span: Span::default(),
    }
}

fn e_stmt(s: &Stmt) -> Stmt {
    let z = Span::default();
    match s {
        Stmt::Assign(a) => Stmt::Assign(e_action(a)),
        Stmt::Local { lhs, rhs, .. } => {
            Stmt::Local { lhs: lhs.iter().map(e_lhs).collect(), rhs: rhs.iter().map(e_expr).collect(), span: z }
        }
        Stmt::Pick { name, count, agent, filter, .. } => Stmt::Pick {
            name: id(name),
            count: e_expr(count),
            agent: agent.as_ref().map(id),
            filter: filter.as_ref().map(e_bexpr),
            span: z,
        },
        Stmt::Quant { name, quants, pred, .. } => {
            Stmt::Quant { name: id(name), quants: quants.iter().map(e_quant).collect(), pred: e_bexpr(pred), span: z }
        }
        Stmt::Count { name, agent, var, pred, .. } => {
            Stmt::Count { name: id(name), agent: id(agent), var: id(var), pred: e_bexpr(pred), span: z }
        }
    }
}

/// `erase_spans` for one process.
pub fn erase_proc(p: &Proc) -> Proc {
    let z = Span::default();
    match p {
        Proc::Par(v, _) => Proc::Par(v.iter().map(erase_proc).collect(), z),
        Proc::Choice(v, _) => Proc::Choice(v.iter().map(erase_proc).collect(), z),
        Proc::Seq(v, _) => Proc::Seq(v.iter().map(erase_proc).collect(), z),
        Proc::Guard { cond, kind, body, .. } => {
            Proc::Guard { cond: e_bexpr(cond), kind: kind.clone(), body: Box::new(erase_proc(body)), span: z }
        }
        Proc::Skip(_) => Proc::Skip(z),
        Proc::Nil(_) => Proc::Nil(z),
        Proc::Call(i) => Proc::Call(id(i)),
        Proc::Action(a) => Proc::Action(e_action(a)),
        Proc::Block(stmts, _) => Proc::Block(stmts.iter().map(e_stmt).collect(), z),
        Proc::Paren(inner, _) => Proc::Paren(Box::new(erase_proc(inner)), z),
    }
}

fn e_owner(o: &Owner) -> Owner {
    let z = Span::default();
    match o {
        Owner::Expr(e) => Owner::Expr(Box::new(e_expr(e))),
        Owner::C1(_) => Owner::C1(z),
        Owner::C2(_) => Owner::C2(z),
    }
}

fn e_expr(e: &Expr) -> Expr {
    erase_expr(e)
}

/// `erase_spans` for one expression.
pub(crate) fn erase_expr(e: &Expr) -> Expr {
    let z = Span::default();
    let bx = |e: &Expr| Box::new(erase_expr(e));
    match e {
        Expr::Int(n, _) => Expr::Int(*n, z),
        Expr::Extern(i) => Expr::Extern(id(i)),
        Expr::Id { owner, .. } => Expr::Id { owner: owner.as_ref().map(e_owner), span: z },
        Expr::Var { name, indices, owner, .. } => Expr::Var {
            name: id(name),
            indices: indices.iter().map(erase_expr).collect(),
            owner: owner.as_ref().map(e_owner),
            span: z,
        },
        Expr::Neg(a, _) => Expr::Neg(bx(a), z),
        Expr::Abs(a, _) => Expr::Abs(bx(a), z),
        Expr::Bin(op, a, b, _) => Expr::Bin(*op, bx(a), bx(b), z),
        Expr::MinMax(m, a, b, _) => Expr::MinMax(*m, bx(a), bx(b), z),
        Expr::If { cond, then, els, .. } => {
            Expr::If { cond: Box::new(e_bexpr(cond)), then: bx(then), els: bx(els), span: z }
        }
        Expr::NonDet(a, b, _) => Expr::NonDet(bx(a), bx(b), z),
        Expr::Paren(a, _) => Expr::Paren(bx(a), z),
    }
}

fn e_bexpr(b: &BExpr) -> BExpr {
    erase_bexpr(b)
}

/// `erase_spans` for one Boolean expression.
pub(crate) fn erase_bexpr(b: &BExpr) -> BExpr {
    let z = Span::default();
    match b {
        BExpr::Bool(v, _) => BExpr::Bool(*v, z),
        BExpr::Not(a, _) => BExpr::Not(Box::new(erase_bexpr(a)), z),
        BExpr::Cmp(op, l, r, _) => BExpr::Cmp(*op, erase_expr(l), erase_expr(r), z),
        BExpr::Logic(op, l, r, _) => BExpr::Logic(*op, Box::new(erase_bexpr(l)), Box::new(erase_bexpr(r)), z),
        BExpr::Truthy(e) => BExpr::Truthy(erase_expr(e)),
        BExpr::Paren(a, _) => BExpr::Paren(Box::new(erase_bexpr(a)), z),
    }
}
