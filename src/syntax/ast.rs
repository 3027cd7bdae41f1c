//! The syntax tree of a LAbS specification, as written (no name resolution).
//!
//! Every node carries the span of its source text. Expressions of all flavours
//! (process, constant, spawn, link, property: docs/language.md §3.9) share one
//! type; the parser enforces which forms a flavour admits.

pub(crate) use super::ltl::Ltl;
use super::span::Span;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    pub system: System,
    pub stigmergies: Vec<Stigmergy>,
    pub agents: Vec<Agent>,
    /// `assume { Name = QPred ... }`; empty when absent.
    pub assumptions: Vec<Assumption>,
    pub properties: Vec<Property>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct System {
    pub externs: Vec<Ident>,
    pub environment: Vec<VarDecl>,
    pub spawn: Vec<SpawnItem>,
    pub processes: Vec<ProcDef>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpawnItem {
    pub agent: Ident,
    pub count: Expr,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stigmergy {
    pub name: Ident,
    pub link: BExpr,
    pub tuples: Vec<TupleDecl>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Agent {
    pub name: Ident,
    pub interface: Vec<VarDecl>,
    pub stigmergies: Vec<Ident>,
    pub processes: Vec<ProcDef>,
    pub span: Span,
}

/// `name[d1, …, dk]` (no dimensions for a scalar).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarName {
    pub name: Ident,
    pub dims: Vec<Expr>,
}

/// `x[dims]: init` in `environment` and `interface`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarDecl {
    pub var: VarName,
    pub init: Init,
}

/// `a, b: i1, i2` in a stigmergy: one tuple sharing one timestamp.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TupleDecl {
    pub vars: Vec<VarName>,
    pub inits: Vec<Init>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Init {
    Undef(Span),
    /// `[e1, …, ek]`: a choice among the values.
    Choice(Vec<Expr>, Span),
    /// `a..b`: a choice among `a, …, b-1`.
    Range(Expr, Expr, Span),
    Single(Expr),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcDef {
    pub name: Ident,
    pub body: Proc,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GuardKind {
    /// `g -> P`: blocks until `g` holds.
    Blocking,
    /// `g => P`: if `g` does not hold, one step skips `P`.
    Conditional,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Proc {
    /// `P || Q || …` (at least two items).
    Par(Vec<Proc>, Span),
    /// `P ++ Q ++ …` (at least two items).
    Choice(Vec<Proc>, Span),
    /// `P; Q; …` (at least two items).
    Seq(Vec<Proc>, Span),
    Guard {
        cond: BExpr,
        kind: GuardKind,
        body: Box<Proc>,
        span: Span,
    },
    Skip(Span),
    Nil(Span),
    Call(Ident),
    Action(Action),
    Block(Vec<Stmt>, Span),
    /// `( P )`: kept so that printing and error spans follow the source.
    Paren(Box<Proc>, Span),
}

impl Proc {
    pub(crate) fn span(&self) -> Span {
        match self {
            Proc::Par(_, s) | Proc::Choice(_, s) | Proc::Seq(_, s) | Proc::Skip(s) | Proc::Nil(s) => *s,
            Proc::Guard { span, .. } | Proc::Block(_, span) | Proc::Paren(_, span) => *span,
            Proc::Call(i) => i.span,
            Proc::Action(a) => a.span,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AssignOp {
    /// `<-`
    Attr,
    /// `<~`
    Stig,
    /// `<--`
    Env,
}

impl AssignOp {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            AssignOp::Attr => "<-",
            AssignOp::Stig => "<~",
            AssignOp::Env => "<--",
        }
    }
}

/// `x[i], y <- e1, e2` (equal counts, checked by the parser).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    pub lhs: Vec<Lhs>,
    pub op: AssignOp,
    pub rhs: Vec<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lhs {
    pub name: Ident,
    pub indices: Vec<Expr>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QuantKind {
    Forall,
    Exists,
}

/// `forall T x` / `exists T x`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quantifier {
    pub kind: QuantKind,
    pub agent: Ident,
    pub var: Ident,
}

/// A statement of a block `{ s1; …; sn }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// An ordinary assignment with `<-`, `<~` or `<--`.
    Assign(Action),
    /// `x, y := e1, e2` (block locals).
    Local { lhs: Vec<Lhs>, rhs: Vec<Expr>, span: Span },
    /// `p[] := pick k [T] [where φ]`.
    Pick { name: Ident, count: Expr, agent: Option<Ident>, filter: Option<BExpr>, span: Span },
    /// `b := forall T x, exists U y, φ`.
    Quant { name: Ident, quants: Vec<Quantifier>, pred: BExpr, span: Span },
    /// `c := count T x, φ`.
    Count { name: Ident, agent: Ident, var: Ident, pred: BExpr, span: Span },
}

impl Stmt {
    pub(crate) fn span(&self) -> Span {
        match self {
            Stmt::Assign(a) => a.span,
            Stmt::Local { span, .. }
            | Stmt::Pick { span, .. }
            | Stmt::Quant { span, .. }
            | Stmt::Count { span, .. } => *span,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// `/`: truncating division.
    Div,
    /// `%`: non-negative remainder.
    Mod,
    /// `:`: division rounding to nearest, ties away from zero.
    RDiv,
}

impl BinOp {
    pub fn as_str(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
            BinOp::RDiv => ":",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MinMax {
    Min,
    Max,
}

/// The agent named after `of`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Owner {
    /// Process flavour: any arithmetic expression (`x of p[0] + 1` = `x of (p[0] + 1)`).
    Expr(Box<Expr>),
    /// Link flavour: `of c1` / `of 1` (the sender, or the picker in `pick … where`).
    C1(Span),
    /// Link flavour: `of c2` / `of 2` (the receiver, or the candidate).
    C2(Span),
}

/// Arithmetic expressions of every flavour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    Int(i64, Span),
    /// `_name`.
    Extern(Ident),
    /// `id` (own id) or `id of …` (links and properties).
    Id {
        owner: Option<Owner>,
        span: Span,
    },
    /// `x`, `x[i, j]`, `x of e`, `x[i] of c1`.
    Var {
        name: Ident,
        indices: Vec<Expr>,
        owner: Option<Owner>,
        span: Span,
    },
    Neg(Box<Expr>, Span),
    Abs(Box<Expr>, Span),
    Bin(BinOp, Box<Expr>, Box<Expr>, Span),
    MinMax(MinMax, Box<Expr>, Box<Expr>, Span),
    If {
        cond: Box<BExpr>,
        then: Box<Expr>,
        els: Box<Expr>,
        span: Span,
    },
    /// `[a..b]`: a fresh value in `a..b-1`.
    NonDet(Box<Expr>, Box<Expr>, Span),
    /// `( e )`.
    Paren(Box<Expr>, Span),
}

impl Expr {
    pub(crate) fn span(&self) -> Span {
        match self {
            Expr::Int(_, s) => *s,
            Expr::Extern(i) => i.span,
            Expr::Id { span, .. }
            | Expr::Var { span, .. }
            | Expr::Neg(_, span)
            | Expr::Abs(_, span)
            | Expr::Bin(_, _, _, span)
            | Expr::MinMax(_, _, _, span)
            | Expr::If { span, .. }
            | Expr::NonDet(_, _, span)
            | Expr::Paren(_, span) => *span,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    /// Whether `a op b` holds on integers.
    pub(crate) fn holds(self, a: i64, b: i64) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoolOp {
    And,
    Or,
}

/// Boolean expressions. `and` binds tighter than `or` (semantics D11).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BExpr {
    Bool(bool, Span),
    Not(Box<BExpr>, Span),
    Cmp(CmpOp, Expr, Expr, Span),
    Logic(BoolOp, Box<BExpr>, Box<BExpr>, Span),
    /// A bare arithmetic expression as a whole condition: `e != 0`.
    Truthy(Expr),
    /// `( b )`.
    Paren(Box<BExpr>, Span),
}

impl BExpr {
    pub(crate) fn span(&self) -> Span {
        match self {
            BExpr::Bool(_, s)
            | BExpr::Not(_, s)
            | BExpr::Cmp(_, _, _, s)
            | BExpr::Logic(_, _, _, s)
            | BExpr::Paren(_, s) => *s,
            BExpr::Truthy(e) => e.span(),
        }
    }
}

/// `forall T x, exists U y, body` in properties and assumptions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QPred {
    pub quants: Vec<Quantifier>,
    pub body: BExpr,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assumption {
    pub name: Ident,
    pub pred: QPred,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Modality {
    Always,
    Eventually,
    Finally,
    Fairly,
    FairlyInf,
    /// `between (q) and (r), pattern`.
    Between {
        open: QPred,
        close: QPred,
        pattern: Pattern,
    },
    /// `from (q) until (r), pattern`.
    FromUntil {
        open: QPred,
        close: QPred,
        pattern: Pattern,
    },
    /// Any other linear-time formula (`finally always ψ`, `ψ until φ`, …): an extension of
    /// LAbS (docs/semantics.md, D14).
    Ltl(Ltl<QPred>),
}

impl Modality {
    pub fn keyword(&self) -> &'static str {
        match self {
            Modality::Always => "always",
            Modality::Eventually => "eventually",
            Modality::Finally => "finally",
            Modality::Fairly => "fairly",
            Modality::FairlyInf => "fairly_inf",
            Modality::Between { .. } => "between",
            Modality::FromUntil { .. } => "from",
            Modality::Ltl(_) => "ltl",
        }
    }
}

/// The pattern of a scoped property; its predicate is the property's main `QPred`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(clippy::large_enum_variant)]
pub enum Pattern {
    ThereIs,
    Always,
    /// `s precedes p`: within the scope, `p` holds only after `s` has held.
    Precedes(QPred),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Property {
    pub name: Ident,
    pub modality: Modality,
    pub pred: QPred,
    pub span: Span,
}
