//! What an expression reads and chooses: its `[a..b]` nodes, its reads of other agents'
//! variables.

use crate::model::{AgentRef, Expr, Model, Store};

/// Collects the `[a..b]` nodes of an expression in evaluation order (an `if` contributes
/// both arms: which one is evaluated is known only when the step is).
pub(super) fn nondets<'e>(m: &Model, e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::NonDet(a, b) => {
            nondets(m, a, out);
            nondets(m, b, out);
            out.push(e);
        }
        Expr::Const(_) | Expr::QVar(_) => {}
        Expr::AgentId(o) => {
            if let AgentRef::Of(x) = o {
                nondets(m, x, out)
            }
        }
        Expr::Var(r) => {
            // The agent first, then the indices; an environment variable's agent is not
            // evaluated.
            if let AgentRef::Of(x) = &r.owner
                && m.vars[r.var].store != Store::Env
            {
                nondets(m, x, out)
            }
            r.indices.iter().for_each(|i| nondets(m, i, out));
        }
        Expr::Local { index, .. } => {
            if let Some(i) = index {
                nondets(m, i, out)
            }
        }
        Expr::Neg(a) | Expr::Abs(a) => nondets(m, a, out),
        Expr::Bin(_, a, b) | Expr::MinMax(_, a, b) => {
            nondets(m, a, out);
            nondets(m, b, out);
        }
        Expr::If(c, a, b) => {
            bnondets(m, c, out);
            nondets(m, a, out);
            nondets(m, b, out);
        }
    }
}

pub(super) fn bnondets<'e>(m: &Model, b: &'e crate::model::BExpr, out: &mut Vec<&'e Expr>) {
    use crate::model::BExpr;
    match b {
        BExpr::Const(_) => {}
        BExpr::Not(x) => bnondets(m, x, out),
        BExpr::Cmp(_, x, y) => {
            nondets(m, x, out);
            nondets(m, y, out);
        }
        BExpr::And(x, y) | BExpr::Or(x, y) => {
            bnondets(m, x, out);
            bnondets(m, y, out);
        }
    }
}

/// Whether a read's agent or indices make a choice (`x of [0..2]`): each occurrence reads
/// where its own choice says.
pub(super) fn is_nondeterministic(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= matches!(x, Expr::NonDet(..)));
    found
}

/// Collects the reads of another agent's variable (`x of e`, not environment variables) in an
/// expression, inner ones first.
pub(super) fn remote_reads<'e>(m: &Model, e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::Var(r) => {
            // The agent first, then the indices (the native order); an environment
            // variable's agent is not evaluated.
            let remote = matches!(r.owner, AgentRef::Of(_)) && m.vars[r.var].store != Store::Env;
            if let AgentRef::Of(x) = &r.owner
                && remote
            {
                remote_reads(m, x, out);
            }
            r.indices.iter().for_each(|i| remote_reads(m, i, out));
            if remote {
                out.push(e);
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
