//! Printing resolved expressions back in LAbS syntax (for `labs info` and messages).

use super::expr::{AgentRef, BExpr, Expr};
use super::{Init, Model};
use crate::syntax::ast::MinMax;

pub(crate) fn expr(m: &Model, e: &Expr) -> String {
    match e {
        Expr::Const(v) => v.to_string(),
        Expr::AgentId(o) => match o {
            AgentRef::Own => "id".into(),
            o => format!("id{}", owner(m, o)),
        },
        Expr::Var(v) => {
            let mut s = m.vars[v.var].name.clone();
            if !v.indices.is_empty() {
                let idx: Vec<String> = v.indices.iter().map(|i| expr(m, i)).collect();
                s += &format!("[{}]", idx.join(", "));
            }
            s + &owner(m, &v.owner)
        }
        Expr::Local { slot, index, .. } => match index {
            Some(i) => format!("local{slot}[{}]", expr(m, i)),
            None => format!("local{slot}"),
        },
        Expr::QVar(i) => format!("a{i}"),
        Expr::Neg(a) => format!("-{}", atom(m, a)),
        Expr::Abs(a) => format!("abs({})", expr(m, a)),
        Expr::Bin(op, a, b) => format!("{} {} {}", atom(m, a), op.as_str(), atom(m, b)),
        Expr::MinMax(mm, a, b) => {
            let f = if *mm == MinMax::Min { "min" } else { "max" };
            format!("{f}({}, {})", expr(m, a), expr(m, b))
        }
        Expr::If(c, a, b) => format!("if {} then {} else {}", bexpr(m, c), expr(m, a), expr(m, b)),
        Expr::NonDet(a, b) => format!("[{}..{}]", expr(m, a), expr(m, b)),
    }
}

fn atom(m: &Model, e: &Expr) -> String {
    match e {
        Expr::Bin(..) | Expr::If(..) => format!("({})", expr(m, e)),
        _ => expr(m, e),
    }
}

fn owner(m: &Model, o: &AgentRef) -> String {
    match o {
        AgentRef::Own => String::new(),
        AgentRef::Of(e) => format!(" of {}", atom(m, e)),
        AgentRef::C1 => " of c1".into(),
        AgentRef::C2 => " of c2".into(),
    }
}

pub(crate) fn bexpr(m: &Model, b: &BExpr) -> String {
    match b {
        BExpr::Const(v) => v.to_string(),
        BExpr::Not(x) => format!("!({})", bexpr(m, x)),
        BExpr::Cmp(op, a, c) => format!("{} {} {}", expr(m, a), op.as_str(), expr(m, c)),
        BExpr::And(a, c) => format!("{} and {}", batom(m, a, true), batom(m, c, true)),
        BExpr::Or(a, c) => format!("{} or {}", batom(m, a, false), batom(m, c, false)),
    }
}

fn batom(m: &Model, b: &BExpr, in_and: bool) -> String {
    match b {
        BExpr::Or(..) if in_and => format!("({})", bexpr(m, b)),
        _ => bexpr(m, b),
    }
}

pub(crate) fn init(m: &Model, i: &Init) -> String {
    match i {
        Init::Undef => "undef".into(),
        Init::Single(e) => expr(m, e),
        Init::Range(a, b) => format!("{}..{}", expr(m, a), expr(m, b)),
        Init::Choice(v) => {
            let items: Vec<String> = v.iter().map(|e| expr(m, e)).collect();
            format!("[{}]", items.join(", "))
        }
    }
}
