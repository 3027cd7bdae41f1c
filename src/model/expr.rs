//! Resolved expressions: names replaced by variable ids, locals and quantified variables by
//! slots, externs by their values, parentheses dropped.

use crate::syntax::ast::{BinOp, CmpOp, MinMax, QuantKind};

/// Index into `Model::vars`.
pub(crate) type VarId = usize;
/// Index into `Model::agent_types` (which are sorted by name, D1).
pub(crate) type TypeId = usize;
/// Index into `Model::tuples`.
pub(crate) type TupleId = usize;
/// Index into `Model::stigmergies`.
pub(crate) type StigId = usize;

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
    pub(crate) fn walk(&self, f: &mut dyn FnMut(&Expr)) {
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

/// A rewriting of expressions (`Expr::map`): each method may replace a node; `None` keeps the
/// node and rewrites its children.
pub trait Rewrite {
    /// Replaces `e` whole (its children are not visited), or `None`.
    fn expr(&mut self, _e: &Expr) -> Option<Expr> {
        None
    }
    /// Replaces an agent reference whole (`Of(e)`'s `e` is then not visited), or `None`.
    fn owner(&mut self, _o: &AgentRef) -> Option<AgentRef> {
        None
    }
}

impl Expr {
    /// A copy of `self` rewritten top-down by `r`, through every sub-expression: indices,
    /// owners (`x of e`), conditions of `if`.
    pub fn map(&self, r: &mut dyn Rewrite) -> Expr {
        if let Some(e) = r.expr(self) {
            return e;
        }
        let b = |x: &Expr, r: &mut dyn Rewrite| Box::new(x.map(r));
        match self {
            Expr::Const(_) | Expr::QVar(_) => self.clone(),
            Expr::AgentId(o) => Expr::AgentId(o.map(r)),
            Expr::Var(v) => Expr::Var(VarRef {
                var: v.var,
                indices: v.indices.iter().map(|i| i.map(r)).collect(),
                owner: v.owner.map(r),
            }),
            Expr::Local { slot, len, index } => {
                Expr::Local { slot: *slot, len: *len, index: index.as_ref().map(|i| b(i, r)) }
            }
            Expr::Neg(a) => Expr::Neg(b(a, r)),
            Expr::Abs(a) => Expr::Abs(b(a, r)),
            Expr::Bin(op, x, y) => Expr::Bin(*op, b(x, r), b(y, r)),
            Expr::MinMax(m, x, y) => Expr::MinMax(*m, b(x, r), b(y, r)),
            Expr::NonDet(x, y) => Expr::NonDet(b(x, r), b(y, r)),
            Expr::If(c, x, y) => Expr::If(Box::new(c.map(r)), b(x, r), b(y, r)),
        }
    }

    /// Folds `self` bottom-up: `f` gets each node and the values of its arithmetic children
    /// in order (indices, then the owner's expression, for a variable; the operands
    /// otherwise; an `if`'s condition is not an arithmetic child: `f` reads it from the node).
    /// Only the tests fold (`tests/it/model_expr.rs`).
    #[cfg(feature = "test-support")]
    pub fn fold<T>(&self, f: &mut dyn FnMut(&Expr, Vec<T>) -> T) -> T {
        let owner = |o: &AgentRef, f: &mut dyn FnMut(&Expr, Vec<T>) -> T| match o {
            AgentRef::Of(e) => vec![e.fold(f)],
            _ => vec![],
        };
        let children = match self {
            Expr::Const(_) | Expr::QVar(_) => vec![],
            Expr::AgentId(o) => owner(o, f),
            Expr::Var(v) => {
                let mut c: Vec<T> = v.indices.iter().map(|i| i.fold(f)).collect();
                c.extend(owner(&v.owner, f));
                c
            }
            Expr::Local { index, .. } => index.iter().map(|i| i.fold(f)).collect(),
            Expr::Neg(a) | Expr::Abs(a) => vec![a.fold(f)],
            Expr::Bin(_, a, b) | Expr::MinMax(_, a, b) | Expr::NonDet(a, b) | Expr::If(_, a, b) => {
                let x = a.fold(f);
                vec![x, b.fold(f)]
            }
        };
        f(self, children)
    }
}

impl AgentRef {
    /// A copy rewritten by `r` (see `Expr::map`).
    pub(crate) fn map(&self, r: &mut dyn Rewrite) -> AgentRef {
        if let Some(o) = r.owner(self) {
            return o;
        }
        match self {
            AgentRef::Of(e) => AgentRef::Of(Box::new(e.map(r))),
            other => other.clone(),
        }
    }

    fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        if let AgentRef::Of(e) = self {
            e.walk(f);
        }
    }
}

impl BExpr {
    /// Calls `f` on every arithmetic sub-expression (pre-order).
    pub(crate) fn walk_exprs(&self, f: &mut dyn FnMut(&Expr)) {
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

    /// A copy with every arithmetic sub-expression rewritten by `r` (see `Expr::map`).
    pub(crate) fn map(&self, r: &mut dyn Rewrite) -> BExpr {
        match self {
            BExpr::Const(_) => self.clone(),
            BExpr::Not(b) => BExpr::Not(Box::new(b.map(r))),
            BExpr::Cmp(op, a, b) => BExpr::Cmp(*op, a.map(r), b.map(r)),
            BExpr::And(a, b) => BExpr::And(Box::new(a.map(r)), Box::new(b.map(r))),
            BExpr::Or(a, b) => BExpr::Or(Box::new(a.map(r)), Box::new(b.map(r))),
        }
    }
}
