//! Abstract syntax of the LNT subset.

pub use super::lexer::Pos;

/// The spellings that changed across CADP releases, one flag per construct
/// (`docs/lnt-encoding.md` §1): choice `alt` (else `select`), array bounds `...` (else `..`),
/// in-out actuals `x?` (else `!?x`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dialect {
    pub alt: bool,
    pub dots3: bool,
    pub inout_suffix: bool,
}

impl Dialect {
    pub const D2023: Dialect = Dialect { alt: false, dots3: false, inout_suffix: false };
    pub const D2024D: Dialect = Dialect { alt: true, dots3: false, inout_suffix: false };
    pub const D2025E: Dialect = Dialect { alt: true, dots3: true, inout_suffix: false };
    pub const D2025: Dialect = Dialect { alt: true, dots3: true, inout_suffix: true };
}

/// One construct whose spelling depends on the dialect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spelling {
    Choice,
    Range,
    InOut,
}

impl Spelling {
    /// Whether dialect `d` uses the newer spelling of this construct.
    pub fn newer_in(self, d: Dialect) -> bool {
        match self {
            Spelling::Choice => d.alt,
            Spelling::Range => d.dots3,
            Spelling::InOut => d.inout_suffix,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Module {
    pub name: String,
    /// The module pragmas that fix a predefined type's enumerated range (`!nat_sup 255`):
    /// (pragma name without `!`, value).
    pub pragmas: Vec<(String, i64)>,
    pub types: Vec<TypeDecl>,
    pub funcs: Vec<Func>,
    pub procs: Vec<Proc>,
}

#[derive(Clone, Debug)]
pub enum TypeDef {
    Array { lo: u64, hi: u64, elem: String },
    Enum(Vec<(String, Pos)>),
}

#[derive(Clone, Debug)]
pub struct TypeDecl {
    pub name: String,
    pub def: TypeDef,
    pub with: Vec<String>,
    pub pos: Pos,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    In,
    Out,
    InOut,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub ty: String,
    pub mode: Mode,
    pub pos: Pos,
}

#[derive(Clone, Debug)]
pub struct Func {
    pub name: String,
    pub params: Vec<Param>,
    pub ret: Option<String>,
    pub body: Stmt,
    pub pos: Pos,
}

#[derive(Clone, Debug)]
pub struct Proc {
    pub name: String,
    pub gates: Vec<(String, Pos)>,
    pub params: Vec<Param>,
    pub body: Stmt,
    pub pos: Pos,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
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
    pub fn text(self) -> &'static str {
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
pub enum ExprK {
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
pub struct Expr {
    pub k: ExprK,
    pub pos: Pos,
}

/// An assignable place: `x` or `x[i]`.
#[derive(Clone, Debug)]
pub struct LValue {
    pub name: String,
    pub index: Option<Expr>,
    pub pos: Pos,
}

#[derive(Clone, Debug)]
pub enum Arg {
    In(Expr),
    Out(String, Pos),
    InOut(String, Pos),
}

#[derive(Clone, Debug)]
pub enum Offer {
    Send(Expr),
    Recv(LValue),
}

#[derive(Clone, Debug)]
pub enum ParBranch {
    Plain(Stmt),
    Synced(Vec<(String, Pos)>, Stmt),
}

#[derive(Clone, Debug)]
pub enum StmtK {
    Seq(Vec<Stmt>),
    Null,
    Stop,
    Var(Vec<(String, String, Pos)>, Box<Stmt>),
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
    Hide(Vec<(String, Pos)>, Box<Stmt>),
    Par(Vec<(String, Pos)>, Vec<ParBranch>),
    /// A process call (gates, arguments).
    Call(String, Vec<(String, Pos)>, Vec<Arg>),
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub k: StmtK,
    pub pos: Pos,
}
