//! What an expression reads and chooses: its `[a..b]` nodes, its reads of other agents'
//! variables, a guard's conjuncts.

use crate::model::{AgentRef, Expr, Model, Store};

/// Collects the `[a..b]` nodes of an expression in evaluation order.
pub(super) fn nondets<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::NonDet(a, b) => {
            nondets(a, out);
            nondets(b, out);
            out.push(e);
        }
        Expr::Const(_) | Expr::QVar(_) => {}
        Expr::AgentId(o) => {
            if let AgentRef::Of(x) = o {
                nondets(x, out)
            }
        }
        Expr::Var(r) => {
            r.indices.iter().for_each(|i| nondets(i, out));
            if let AgentRef::Of(x) = &r.owner {
                nondets(x, out)
            }
        }
        Expr::Local { index, .. } => {
            if let Some(i) = index {
                nondets(i, out)
            }
        }
        Expr::Neg(a) | Expr::Abs(a) => nondets(a, out),
        Expr::Bin(_, a, b) | Expr::MinMax(_, a, b) => {
            nondets(a, out);
            nondets(b, out);
        }
        Expr::If(c, a, b) => {
            bnondets(c, out);
            nondets(a, out);
            nondets(b, out);
        }
    }
}

pub(super) fn bnondets<'e>(b: &'e crate::model::BExpr, out: &mut Vec<&'e Expr>) {
    use crate::model::BExpr;
    match b {
        BExpr::Const(_) => {}
        BExpr::Not(x) => bnondets(x, out),
        BExpr::Cmp(_, x, y) => {
            nondets(x, out);
            nondets(y, out);
        }
        BExpr::And(x, y) | BExpr::Or(x, y) => {
            bnondets(x, out);
            bnondets(y, out);
        }
    }
}

/// Collects the reads of another agent's variable (`x of e`, not environment variables) in an
/// expression, inner ones first.
pub(super) fn remote_reads<'e>(m: &Model, e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::Var(r) => {
            r.indices.iter().for_each(|i| remote_reads(m, i, out));
            if let AgentRef::Of(x) = &r.owner {
                remote_reads(m, x, out);
                if m.vars[r.var].store != Store::Env {
                    out.push(e);
                }
            }
        }
        Expr::Const(_) | Expr::QVar(_) => {}
        Expr::AgentId(o) => {
            if let AgentRef::Of(x) = o {
                remote_reads(m, x, out)
            }
        }
        Expr::Local { index, .. } => {
            if let Some(i) = index {
                remote_reads(m, i, out)
            }
        }
        Expr::Neg(a) | Expr::Abs(a) => remote_reads(m, a, out),
        Expr::Bin(_, a, b) | Expr::MinMax(_, a, b) | Expr::NonDet(a, b) => {
            remote_reads(m, a, out);
            remote_reads(m, b, out);
        }
        Expr::If(c, a, b) => {
            bremote_reads(m, c, out);
            remote_reads(m, a, out);
            remote_reads(m, b, out);
        }
    }
}

pub(super) fn bremote_reads<'e>(m: &Model, b: &'e crate::model::BExpr, out: &mut Vec<&'e Expr>) {
    use crate::model::BExpr;
    match b {
        BExpr::Const(_) => {}
        BExpr::Not(x) => bremote_reads(m, x, out),
        BExpr::Cmp(_, x, y) => {
            remote_reads(m, x, out);
            remote_reads(m, y, out);
        }
        BExpr::And(x, y) | BExpr::Or(x, y) => {
            bremote_reads(m, x, out);
            bremote_reads(m, y, out);
        }
    }
}

/// The conjuncts of a guard (`a and b` is checked as `a`, then `b`).
pub(super) fn conjuncts(b: &crate::model::BExpr) -> Vec<&crate::model::BExpr> {
    match b {
        crate::model::BExpr::And(x, y) => {
            let mut out = conjuncts(x);
            out.extend(conjuncts(y));
            out
        }
        _ => vec![b],
    }
}

/// Whether a remote read's agent and indices are constant expressions of the step.
pub(super) fn is_static_read(e: &Expr) -> bool {
    fn st(e: &Expr) -> bool {
        match e {
            Expr::Const(_) | Expr::AgentId(AgentRef::Own) => true,
            Expr::Neg(a) | Expr::Abs(a) => st(a),
            Expr::Bin(_, a, b) | Expr::MinMax(_, a, b) => st(a) && st(b),
            _ => false,
        }
    }
    match e {
        Expr::Var(r) => match &r.owner {
            AgentRef::Of(a) => st(a) && r.indices.iter().all(st),
            _ => false,
        },
        _ => false,
    }
}

/// Whether `e` is made of integer literals alone (no variable, agent or local).
pub(super) fn is_literal(e: &Expr) -> bool {
    match e {
        Expr::Const(_) => true,
        Expr::Neg(a) | Expr::Abs(a) => is_literal(a),
        Expr::Bin(_, a, b) | Expr::MinMax(_, a, b) => is_literal(a) && is_literal(b),
        _ => false,
    }
}
