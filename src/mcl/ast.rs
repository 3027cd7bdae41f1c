//! The abstract syntax of MCL queries, as parsed (names not yet resolved, types not checked).
//! State formulas and data expressions share one tree: `(v = 3)` and `real` are state
//! formulas too, and only typing tells a fixpoint variable from a data variable.

use crate::syntax::span::Span;

/// The index of an action formula among a query's actions.
pub(crate) type ActId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sign {
    Mu,
    Nu,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Type {
    Bool,
    Nat,
    Int,
}

impl Type {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Type::Bool => "Bool",
            Type::Nat => "Nat",
            Type::Int => "Int",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinOp {
    And,
    Or,
    Implies,
    Equ,
    Xor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

impl BinOp {
    pub(crate) fn text(self) -> &'static str {
        match self {
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::Implies => "implies",
            BinOp::Equ => "equ",
            BinOp::Xor => "xor",
            BinOp::Eq => "=",
            BinOp::Ne => "<>",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "div",
            BinOp::Mod => "mod",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Name {
    pub(crate) text: String,
    pub(crate) span: Span,
}

/// `name : Type := init` of a fixpoint.
#[derive(Clone, Debug)]
pub(crate) struct Param {
    pub(crate) name: Name,
    pub(crate) ty: Type,
    pub(crate) init: Expr,
}

#[derive(Clone, Debug)]
pub(crate) struct Expr {
    pub(crate) kind: ExprKind,
    pub(crate) span: Span,
}

#[derive(Clone, Debug)]
pub(crate) enum ExprKind {
    Bool(bool),
    Num(u64),
    /// A data variable or a fixpoint variable without arguments.
    Var(String),
    /// A fixpoint variable with arguments.
    Call(Name, Vec<Expr>),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// `and` / `or` chains, flattened (so long chains do not nest).
    Chain(BinOp, Vec<Expr>),
    Diamond(Box<Reg>, Box<Expr>),
    Box(Box<Reg>, Box<Expr>),
    /// `< R > @` (`true`) or `[ R ] -|` (`false`): the infinite looping operator.
    Loop(Box<Reg>, bool),
    Fix {
        sign: Sign,
        name: Name,
        params: Vec<Param>,
        body: Box<Expr>,
    },
}

/// A regular formula (over action formulas), or an action formula.
#[derive(Clone, Debug)]
pub(crate) struct Reg {
    pub(crate) kind: RegKind,
    pub(crate) span: Span,
}

#[derive(Clone, Debug)]
pub(crate) enum RegKind {
    // Action formulas.
    True,
    False,
    Label(String),
    Pattern(Pattern),
    Not(Box<Reg>),
    And(Vec<Reg>),
    Or(Vec<Reg>),
    Implies(Box<Reg>, Box<Reg>),
    // Regular operators.
    Nil,
    Seq(Box<Reg>, Box<Reg>),
    Alt(Box<Reg>, Box<Reg>),
    Star(Box<Reg>),
    Plus(Box<Reg>),
    Repeat(Box<Reg>, u64),
}

/// `{ G O1 ... On [...] [where c] }`.
#[derive(Clone, Debug)]
pub(crate) struct Pattern {
    pub(crate) gate: Name,
    pub(crate) offers: Vec<Offer>,
    /// A trailing `...`: any number of further offers.
    pub(crate) more: bool,
    pub(crate) guard: Option<Expr>,
}

#[derive(Clone, Debug)]
pub(crate) enum Offer {
    /// `!e`
    Emit(Expr),
    /// `?x:T`
    Bind(Name, Type),
    /// `?any`
    Any,
}
