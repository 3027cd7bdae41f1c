//! Abstract syntax of the LNT subset.

pub(crate) use crate::diagnostics::span::Span;

/// The spellings that changed across CADP releases, one flag per construct
/// (`docs/lnt-encoding.md` §1): choice `alt` (else `select`), array bounds `...` (else `..`),
/// in-out actuals `x?` (else `!?x`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dialect {
    pub(crate) alt: bool,
    pub(crate) dots3: bool,
    pub(crate) inout_suffix: bool,
}

/// The four dialects the emitter writes, for the tests that check its text.
#[cfg(feature = "test-support")]
impl Dialect {
    pub const D2023: Dialect = Dialect { alt: false, dots3: false, inout_suffix: false };
    pub const D2024D: Dialect = Dialect { alt: true, dots3: false, inout_suffix: false };
    pub const D2025E: Dialect = Dialect { alt: true, dots3: true, inout_suffix: false };
    pub const D2025: Dialect = Dialect { alt: true, dots3: true, inout_suffix: true };
}

/// One construct whose spelling depends on the dialect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Spelling {
    Choice,
    Range,
    InOut,
}

impl Spelling {
    /// Whether dialect `d` uses the newer spelling of this construct.
    pub(crate) fn newer_in(self, d: Dialect) -> bool {
        match self {
            Spelling::Choice => d.alt,
            Spelling::Range => d.dots3,
            Spelling::InOut => d.inout_suffix,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Module {
    /// The module pragmas that fix a predefined type's enumerated range (`!nat_sup 255`) or
    /// width (`!int_bits 32`, the only width read): (pragma name without `!`, value).
    pub(crate) pragmas: Vec<(String, i64)>,
    pub(crate) types: Vec<TypeDecl>,
    pub(crate) funcs: Vec<Func>,
    pub(crate) procs: Vec<Proc>,
}

#[derive(Clone, Debug)]
pub(crate) enum TypeDef {
    Array { lo: u64, hi: u64, elem: String },
    Enum(Vec<(String, Span)>),
}

#[derive(Clone, Debug)]
pub(crate) struct TypeDecl {
    pub(crate) name: String,
    pub(crate) def: TypeDef,
    pub(crate) pos: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    In,
    Out,
    InOut,
}

#[derive(Clone, Debug)]
pub(crate) struct Param {
    pub(crate) name: String,
    pub(crate) ty: String,
    pub(crate) mode: Mode,
    pub(crate) pos: Span,
}

#[derive(Clone, Debug)]
pub(crate) struct Func {
    pub(crate) name: String,
    pub(crate) params: Vec<Param>,
    pub(crate) ret: Option<String>,
    pub(crate) body: Stmt,
    pub(crate) pos: Span,
}

#[derive(Clone, Debug)]
pub(crate) struct Proc {
    pub(crate) name: String,
    pub(crate) gates: Vec<(String, Span)>,
    pub(crate) params: Vec<Param>,
    pub(crate) body: Stmt,
    pub(crate) pos: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
}

impl BinOp {
    pub(crate) fn text(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "div",
            BinOp::Mod => "mod",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::And => "and",
            BinOp::Or => "or",
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) enum ExprK {
    Num(u64),
    /// A variable, a constant function without arguments, or an enumeration constructor.
    Name(String),
    Call(String, Vec<Expr>),
    Index(Box<Expr>, Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Of(Box<Expr>, String),
}

#[derive(Clone, Debug)]
pub(crate) struct Expr {
    pub(crate) k: ExprK,
    pub(crate) pos: Span,
}

/// An assignable place: `x` or `x[i]`.
#[derive(Clone, Debug)]
pub(crate) struct LValue {
    pub(crate) name: String,
    pub(crate) index: Option<Expr>,
    pub(crate) pos: Span,
}

#[derive(Clone, Debug)]
pub(crate) enum Arg {
    In(Expr),
    Out(String, Span),
    InOut(String, Span),
}

#[derive(Clone, Debug)]
pub(crate) enum Offer {
    Send(Expr),
    Recv(LValue),
}

#[derive(Clone, Debug)]
pub(crate) enum ParBranch {
    Plain(Stmt),
    Synced(Vec<(String, Span)>, Stmt),
}

#[derive(Clone, Debug)]
pub(crate) enum StmtK {
    Seq(Vec<Stmt>),
    Null,
    Stop,
    Var(Vec<(String, String, Span)>, Box<Stmt>),
    Assign(LValue, Expr),
    Any(LValue, String, Option<Expr>),
    If(Vec<(Expr, Stmt)>, Option<Box<Stmt>>),
    OnlyIf(Expr),
    While(Expr, Box<Stmt>),
    Loop(Box<Stmt>),
    Return(Option<Expr>),
    Eval(String, Vec<Arg>),
    Alt(Vec<Stmt>),
    Comm(String, Vec<Offer>, Option<Expr>),
    Hide(Vec<(String, Span)>, Box<Stmt>),
    Par(Vec<(String, Span)>, Vec<ParBranch>),
    /// A process call (gates, arguments).
    Call(String, Vec<(String, Span)>, Vec<Arg>),
}

#[derive(Clone, Debug)]
pub(crate) struct Stmt {
    pub(crate) k: StmtK,
    pub(crate) pos: Span,
}
