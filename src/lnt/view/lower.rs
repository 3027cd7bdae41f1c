//! Lowering of statements LNT has no counterpart for (quantified assignments, `count`, `pick`)
//! into local assignments and checks.

use crate::model::{ActionKind, AgentRef, Assign, Expr, Model, Stmt, Store, print};

/// `c` with the quantified variables replaced by the agent ids `qv`.
fn bsubst_q(c: &crate::model::BExpr, qv: &[i64]) -> crate::model::BExpr {
    c.map(&mut QuantIds(qv))
}

/// Replaces quantified variables by agent ids.
struct QuantIds<'a>(&'a [i64]);

impl crate::model::Rewrite for QuantIds<'_> {
    fn expr(&mut self, e: &Expr) -> Option<Expr> {
        match e {
            Expr::QVar(i) => Some(Expr::Const(self.0[*i])),
            _ => None,
        }
    }
}

/// A quantified predicate expanded over the agents of its types (textual nesting order).
pub(super) fn expand_quants(m: &Model, q: &crate::model::QPred, i: usize, qv: &mut Vec<i64>) -> crate::model::BExpr {
    use crate::model::BExpr;
    use crate::syntax::ast::QuantKind;
    if i == q.quants.len() {
        return bsubst_q(&q.body, qv);
    }
    let (kind, ty) = q.quants[i];
    let mut acc: Option<BExpr> = None;
    for a in m.agent_types[ty].ids() {
        qv.push(a as i64);
        let x = expand_quants(m, q, i + 1, qv);
        qv.pop();
        acc = Some(match (acc, kind) {
            (None, _) => x,
            (Some(p), QuantKind::Forall) => BExpr::And(Box::new(p), Box::new(x)),
            (Some(p), QuantKind::Exists) => BExpr::Or(Box::new(p), Box::new(x)),
        });
    }
    acc.unwrap_or(BExpr::Const(kind == QuantKind::Forall))
}

/// A statement of a block after lowering.
pub(super) enum Lowered {
    Stmt(Stmt),
    Check(crate::model::BExpr),
}

/// A `pick … where` filter for the candidate stored in local slot `cand`: `c1` is the picker,
/// `c2` the candidate (whose variables become remote reads).
fn pick_filter(f: &crate::model::BExpr, cand: usize) -> crate::model::BExpr {
    f.map(&mut Candidate(cand))
}

/// Reads `c1` as the picker and `c2` as the candidate stored in a local slot.
struct Candidate(usize);

impl crate::model::Rewrite for Candidate {
    fn expr(&mut self, e: &Expr) -> Option<Expr> {
        match e {
            Expr::AgentId(AgentRef::C2) => Some(Expr::Local { slot: self.0, len: 1, index: None }),
            _ => None,
        }
    }
    fn owner(&mut self, o: &AgentRef) -> Option<AgentRef> {
        match o {
            AgentRef::C1 => Some(AgentRef::Own),
            AgentRef::C2 => Some(AgentRef::Of(Box::new(Expr::Local { slot: self.0, len: 1, index: None }))),
            _ => None,
        }
    }
}

/// `b := forall/exists …` and `c := count T x, φ` as local assignments: `if φ' then 1 else 0`
/// and a sum of those over the agents of `T`; `p[] := pick k T where φ` as the choice then one
/// check of `φ` per candidate. Other statements are unchanged.
pub(super) fn lower_stmt(m: &Model, st: &Stmt) -> Vec<Lowered> {
    if let Stmt::Pick { slot, count, agent_type, filter: Some(f) } = st {
        let mut out =
            vec![Lowered::Stmt(Stmt::Pick { slot: *slot, count: *count, agent_type: *agent_type, filter: None })];
        out.extend((0..*count).map(|k| Lowered::Check(pick_filter(f, slot + k))));
        return out;
    }
    vec![Lowered::Stmt(lower_one(m, st))]
}

fn lower_one(m: &Model, st: &Stmt) -> Stmt {
    let one_if = |c: crate::model::BExpr| Expr::If(Box::new(c), Box::new(Expr::Const(1)), Box::new(Expr::Const(0)));
    let local = |slot: usize, value: Expr| Stmt::Local {
        slots: vec![crate::model::LocalTarget { slot, len: 1, index: None }],
        values: vec![value],
    };
    match st {
        Stmt::Quant { slot, pred } => local(*slot, one_if(expand_quants(m, pred, 0, &mut vec![]))),
        Stmt::Count { slot, agent_type, pred } => {
            let mut sum: Option<Expr> = None;
            for a in m.agent_types[*agent_type].ids() {
                let x = one_if(bsubst_q(pred, &[a as i64]));
                sum = Some(match sum {
                    None => x,
                    Some(s) => Expr::Bin(crate::syntax::ast::BinOp::Add, Box::new(s), Box::new(x)),
                });
            }
            local(*slot, sum.unwrap_or(Expr::Const(0)))
        }
        other => other.clone(),
    }
}

/// The statements of a step, as (statement, comment).
pub(super) fn stmts_of(a: &crate::model::Action) -> Vec<&Stmt> {
    match &a.kind {
        ActionKind::Block { stmts, .. } => stmts.iter().collect(),
        ActionKind::Assign(_) => vec![],
    }
}

pub(super) fn assign_text(m: &Model, a: &Assign) -> String {
    let lhs: Vec<String> = a
        .targets
        .iter()
        .map(|t| {
            let v = &m.vars[t.var];
            if t.indices.is_empty() {
                v.name.clone()
            } else {
                let idx: Vec<String> = t.indices.iter().map(|i| print::expr(m, i)).collect();
                format!("{}[{}]", v.name, idx.join(", "))
            }
        })
        .collect();
    let arrow = match a.targets.first().map(|t| m.vars[t.var].store) {
        Some(Store::Env) => "<--",
        Some(Store::Stig { .. }) => "<~",
        _ => "<-",
    };
    let rhs: Vec<String> = a.values.iter().map(|e| print::expr(m, e)).collect();
    format!("{} {arrow} {}", lhs.join(", "), rhs.join(", "))
}
