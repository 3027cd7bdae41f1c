//! Resolved expressions: names replaced by variable ids, locals and quantified variables by
//! slots, externs by their values, parentheses dropped.

use crate::syntax::ast::{BinOp, CmpOp, MinMax, QuantKind};

/// Index into `Model::vars`.
pub type VarId = usize;
/// Index into `Model::agent_types` (which are sorted by name, D1).
pub type TypeId = usize;
/// Index into `Model::tuples`.
pub type TupleId = usize;
/// Index into `Model::stigmergies`.
pub type StigId = usize;

/// Whose copy of a variable an expression reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AgentRef {
    /// The acting agent (processes, initialisers).
    Own,
    /// `x of e`: agent `e` (processes; properties use `Of(QVar(i))` or `Of(Const(n))`).
    Of(Box<Expr>),
    /// `of c1`: the sender of a message (links), the picker (`pick … where`).
    C1,
    /// `of c2`: the receiver (links), the candidate (`pick … where`).
    C2,
}

/// A reference to a (possibly indexed) variable of the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarRef {
    pub var: VarId,
    /// One index per dimension (empty for scalars).
    pub indices: Vec<Expr>,
    /// Ignored for environment variables (shared by all agents).
    pub owner: AgentRef,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    Const(i64),
    /// The id of an agent: `id` (`AgentRef::Own`), `id of c1`, `id of a`.
    AgentId(AgentRef),
    Var(VarRef),
    /// A block-local variable or `pick` array: `slot` is the first slot, `len` the array
    /// length (1 for scalars); `index` is present for `p[i]`.
    Local {
        slot: usize,
        len: usize,
        index: Option<Box<Expr>>,
    },
    /// The i-th quantified variable in scope (its value is an agent id).
    QVar(usize),
    Neg(Box<Expr>),
    Abs(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    MinMax(MinMax, Box<Expr>, Box<Expr>),
    If(Box<BExpr>, Box<Expr>, Box<Expr>),
    /// `[a..b]`: a fresh value in `a..b-1`.
    NonDet(Box<Expr>, Box<Expr>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BExpr {
    Const(bool),
    Not(Box<BExpr>),
    Cmp(CmpOp, Expr, Expr),
    And(Box<BExpr>, Box<BExpr>),
    Or(Box<BExpr>, Box<BExpr>),
}

/// `forall T x, exists U y, body`: `QVar(i)` in `body` is the i-th quantifier's agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QPred {
    pub quants: Vec<(QuantKind, TypeId)>,
    pub body: BExpr,
}

impl Expr {
    /// Calls `f` on every sub-expression (pre-order), descending into Boolean parts too.
    pub fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        match self {
            Expr::Const(_) | Expr::QVar(_) => {}
            Expr::AgentId(owner) => owner.walk(f),
            Expr::Var(v) => {
                for i in &v.indices {
                    i.walk(f);
                }
                v.owner.walk(f);
            }
            Expr::Local { index, .. } => {
                if let Some(i) = index {
                    i.walk(f);
                }
            }
            Expr::Neg(a) | Expr::Abs(a) => a.walk(f),
            Expr::Bin(_, a, b) | Expr::MinMax(_, a, b) | Expr::NonDet(a, b) => {
                a.walk(f);
                b.walk(f);
            }
            Expr::If(c, a, b) => {
                c.walk_exprs(f);
                a.walk(f);
                b.walk(f);
            }
        }
    }
}

impl AgentRef {
    fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        if let AgentRef::Of(e) = self {
            e.walk(f);
        }
    }
}

impl BExpr {
    /// Calls `f` on every arithmetic sub-expression (pre-order).
    pub fn walk_exprs(&self, f: &mut dyn FnMut(&Expr)) {
        match self {
            BExpr::Const(_) => {}
            BExpr::Not(b) => b.walk_exprs(f),
            BExpr::Cmp(_, a, b) => {
                a.walk(f);
                b.walk(f);
            }
            BExpr::And(a, b) | BExpr::Or(a, b) => {
                a.walk_exprs(f);
                b.walk_exprs(f);
            }
        }
    }

    pub fn and(a: BExpr, b: BExpr) -> BExpr {
        match (a, b) {
            (BExpr::Const(true), x) | (x, BExpr::Const(true)) => x,
            (a, b) => BExpr::And(Box::new(a), Box::new(b)),
        }
    }
}
