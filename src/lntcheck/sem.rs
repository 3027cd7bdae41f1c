//! Name resolution and compilation of a parsed module to an executable form: functions as
//! slot-resolved statement trees, sequential processes as control-flow graphs, and the static
//! process network (`par`, `hide`, process calls) as a tree of leaves.

use super::ast::*;
use crate::diagnostics::Located;
use crate::diagnostics::span::SourceFile;
use std::collections::HashMap;
use std::sync::Arc;

type R<T> = Result<T, Located>;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Ty {
    Nat,
    Int,
    Bool,
    /// A declared type (index into `Program::types`).
    User(u32),
}

#[derive(Clone, Debug)]
pub(crate) enum TyKind {
    Array { len: usize, elem: Ty },
    Enum { first: u32, n: u32 },
}

#[derive(Clone, Debug)]
pub(crate) struct TyInfo {
    pub(crate) name: String,
    pub(crate) kind: TyKind,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Value {
    I(i64),
    B(bool),
    /// An enumeration constructor (global index into `Program::ctors`).
    E(u32),
    A(Arc<[Value]>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pre {
    NatToInt,
    IntToNat,
    /// A whole-array constructor `T (v)` (length).
    ArrNew(usize),
}

#[derive(Clone, Debug)]
pub(crate) enum CE {
    Const(Value),
    Var(u32, Span),
    Call(u32, Vec<CE>, Span),
    Pre(Pre, Box<CE>, Span),
    Index(Box<CE>, Box<CE>, Span),
    Bin(BinOp, Box<CE>, Box<CE>, Span),
    Neg(Box<CE>, Span),
    Not(Box<CE>),
}

#[derive(Clone, Debug)]
pub(crate) enum CArg {
    In(CE),
    Ref(u32),
}

#[derive(Clone, Debug)]
pub(crate) enum FS {
    Seq(Vec<FS>),
    Assign(u32, Option<CE>, CE, Span),
    If(Vec<(CE, FS)>, Option<Box<FS>>),
    While(CE, Box<FS>),
    Return(Option<CE>),
    Eval(u32, Vec<CArg>, Span),
    Null,
    Reset(Vec<u32>, Box<FS>),
}

#[derive(Clone, Debug)]
pub(crate) struct CFunc {
    pub(crate) name: String,
    pub(crate) modes: Vec<Mode>,
    pub(crate) nslots: usize,
    pub(crate) body: FS,
}

/// The values of an input that a `where` clause allows, as far as its comparisons of the input
/// with other expressions say: a union of intervals once evaluated (`Ev::input_set`), so that a
/// set spread out (`x == 1 or x == 2147483646`) is enumerated value by value, not as its hull.
#[derive(Clone, Debug)]
pub(crate) enum DomExpr {
    /// `x >= e`
    AtLeast(CE),
    /// `x <= e`
    AtMost(CE),
    /// `x == e`
    Equal(CE),
    /// Conjunction: the intersection (a conjunct that says nothing of `x` is left out).
    And(Vec<DomExpr>),
    /// Disjunction: the union (nothing known if a disjunct says nothing of `x`).
    Or(Vec<DomExpr>),
    /// `false`: no value.
    Empty,
}

/// What a `where` clause says of an input's values (`None`: nothing).
pub(crate) type Bounds = Option<DomExpr>;

#[derive(Clone, Debug)]
pub(crate) enum COffer {
    Send(CE),
    Recv { slot: u32, ty: Ty, bounds: Bounds, name: String, pos: Span },
}

pub(crate) const TAU: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub(crate) enum Node {
    Assign {
        slot: u32,
        idx: Option<CE>,
        e: CE,
        next: u32,
        pos: Span,
    },
    Any {
        slot: u32,
        ty: Ty,
        pred: Option<CE>,
        bounds: Bounds,
        next: u32,
        pos: Span,
        name: String,
    },
    Eval {
        f: u32,
        args: Vec<CArg>,
        next: u32,
        pos: Span,
    },
    Cond {
        c: CE,
        t: u32,
        f: u32,
    },
    Alt(Vec<u32>),
    /// `gate`: index into the process's local gates, or `TAU` for `i`.
    Comm {
        gate: u32,
        offers: Vec<COffer>,
        pred: Option<CE>,
        next: u32,
    },
    Reset {
        slots: Vec<u32>,
        next: u32,
    },
    Goto(u32),
    Stop,
    End,
}

#[derive(Clone, Debug)]
pub(crate) struct CProc {
    pub(crate) name: String,
    pub(crate) nslots: usize,
    pub(crate) slot_names: Vec<String>,
    pub(crate) nodes: Vec<Node>,
    pub(crate) entry: u32,
    /// `live[n][s]`: slot `s` may be read after node `n` is reached.
    pub(crate) live: Vec<Vec<bool>>,
    /// Each node's expressions compiled (`code.rs`), by index as `nodes`.
    pub(crate) code: Vec<super::code::NodeCode>,
}

pub struct Program {
    pub(crate) module: Module,
    pub(crate) types: Vec<TyInfo>,
    pub(crate) ctors: Vec<String>,
    pub(crate) type_ids: HashMap<String, Ty>,
    pub(crate) ctor_ids: HashMap<String, (u32, Ty)>,
    pub(crate) funcs: Vec<CFunc>,
    /// The functions compiled for the successor function (`code.rs`), by index as `funcs`.
    pub(crate) fcode: Vec<super::code::FuncCode>,
    pub(crate) func_ids: HashMap<String, u32>,
    pub(crate) proc_ids: HashMap<String, usize>,
    /// The text the program was read from: positions are byte spans into it.
    pub(crate) file: SourceFile,
}

pub(crate) fn ty_of(p: &Program, name: &str, pos: Span) -> R<Ty> {
    p.type_ids.get(name).copied().ok_or_else(|| Located::new(pos, format!("undeclared type `{name}`")))
}

impl Program {
    pub(crate) fn ty_name(&self, t: Ty) -> String {
        match t {
            Ty::Nat => "Nat".into(),
            Ty::Int => "Int".into(),
            Ty::Bool => "Bool".into(),
            Ty::User(i) => self.types[i as usize].name.clone(),
        }
    }

    /// `line:col` of a position of the program's text.
    pub(crate) fn at(&self, pos: Span) -> String {
        let (line, col) = self.file.line_col(pos.start);
        format!("{line}:{col}")
    }

    /// `line:col: message`, an error located in the program's text.
    pub(crate) fn locate(&self, d: &Located) -> String {
        d.in_text(&self.file.text).to_string()
    }

    pub(crate) fn build(module: Module) -> R<Program> {
        let mut p = Program {
            module,
            types: vec![],
            ctors: vec![],
            type_ids: HashMap::new(),
            ctor_ids: HashMap::new(),
            funcs: vec![],
            fcode: vec![],
            func_ids: HashMap::new(),
            proc_ids: HashMap::new(),
            file: SourceFile::new("", ""),
        };
        for (n, t) in [("Nat", Ty::Nat), ("Int", Ty::Int), ("Bool", Ty::Bool)] {
            p.type_ids.insert(n.into(), t);
        }
        let tds = p.module.types.clone();
        for td in &tds {
            if p.type_ids.contains_key(&td.name) {
                return Err(Located::new(td.pos, format!("type `{}` declared twice", td.name)));
            }
            let id = Ty::User(p.types.len() as u32);
            let kind = match &td.def {
                TypeDef::Array { lo, hi, elem } => {
                    if *lo != 0 || hi < lo {
                        return Err(Located::new(td.pos, "array bounds must be `0 .. n`"));
                    }
                    let e = ty_of(&p, elem, td.pos)?;
                    TyKind::Array { len: (*hi - *lo + 1) as usize, elem: e }
                }
                TypeDef::Enum(cs) => {
                    let first = p.ctors.len() as u32;
                    for (c, pos) in cs {
                        if p.ctor_ids.contains_key(c) {
                            return Err(Located::new(*pos, format!("constructor `{c}` declared twice")));
                        }
                        p.ctor_ids.insert(c.clone(), (p.ctors.len() as u32, id));
                        p.ctors.push(c.clone());
                    }
                    TyKind::Enum { first, n: cs.len() as u32 }
                }
            };
            p.types.push(TyInfo { name: td.name.clone(), kind });
            p.type_ids.insert(td.name.clone(), id);
        }
        for (i, f) in p.module.funcs.iter().enumerate() {
            if p.func_ids.insert(f.name.clone(), i as u32).is_some() {
                return Err(Located::new(f.pos, format!("function `{}` declared twice", f.name)));
            }
        }
        for (i, pr) in p.module.procs.iter().enumerate() {
            if p.proc_ids.insert(pr.name.clone(), i).is_some() {
                return Err(Located::new(pr.pos, format!("process `{}` declared twice", pr.name)));
            }
        }
        let fs = p.module.funcs.clone();
        for f in &fs {
            let cf = compile_func(&p, f)?;
            p.funcs.push(cf);
        }
        p.fcode = p.funcs.iter().map(super::code::func_code).collect();
        Ok(p)
    }
}

/// A lexical scope: names to slots (and their types).
#[derive(Default, Clone)]
pub(crate) struct Scope {
    pub(crate) frames: Vec<HashMap<String, u32>>,
    pub(crate) names: Vec<String>,
    pub(crate) types: Vec<Ty>,
}

impl Scope {
    pub(crate) fn declare(&mut self, name: &str, t: Ty) -> u32 {
        let s = self.names.len() as u32;
        self.names.push(name.to_string());
        self.types.push(t);
        if self.frames.is_empty() {
            self.frames.push(HashMap::new());
        }
        self.frames.last_mut().map(|f| f.insert(name.to_string(), s));
        s
    }
    pub(crate) fn lookup(&self, name: &str) -> Option<u32> {
        self.frames.iter().rev().find_map(|f| f.get(name).copied())
    }
}

pub(crate) fn compile_expr(p: &Program, sc: &Scope, e: &Expr) -> R<CE> {
    Ok(match &e.k {
        ExprK::Num(n) => Value::I(*n as i64).into_ce(),
        ExprK::Name(n) => {
            if let Some(s) = sc.lookup(n) {
                CE::Var(s, e.pos)
            } else if n == "true" || n == "TRUE" {
                CE::Const(Value::B(true))
            } else if n == "false" || n == "FALSE" {
                CE::Const(Value::B(false))
            } else if let Some((c, _)) = p.ctor_ids.get(n) {
                CE::Const(Value::E(*c))
            } else if let Some(f) = p.func_ids.get(n) {
                CE::Call(*f, vec![], e.pos)
            } else {
                return Err(Located::new(e.pos, format!("undeclared variable `{n}`")));
            }
        }
        ExprK::Call(n, args) => {
            let cargs = args.iter().map(|a| compile_expr(p, sc, a)).collect::<R<Vec<_>>>()?;
            let one = |pre: Pre, mut cargs: Vec<CE>| -> R<CE> {
                if cargs.len() != 1 {
                    return Err(Located::new(e.pos, format!("`{n}` takes 1 argument, {} given", cargs.len())));
                }
                Ok(CE::Pre(pre, Box::new(cargs.remove(0)), e.pos))
            };
            if n == "NatToInt" {
                one(Pre::NatToInt, cargs)?
            } else if n == "IntToNat" {
                one(Pre::IntToNat, cargs)?
            } else if let Some(f) = p.func_ids.get(n) {
                CE::Call(*f, cargs, e.pos)
            } else if let Some(Ty::User(t)) = p.type_ids.get(n) {
                match &p.types[*t as usize].kind {
                    TyKind::Array { len, .. } => one(Pre::ArrNew(*len), cargs)?,
                    TyKind::Enum { .. } => return Err(Located::new(e.pos, format!("`{n}` is not a function"))),
                }
            } else {
                return Err(Located::new(e.pos, format!("undeclared function `{n}`")));
            }
        }
        ExprK::Index(a, i) => CE::Index(Box::new(compile_expr(p, sc, a)?), Box::new(compile_expr(p, sc, i)?), e.pos),
        ExprK::Bin(op, a, b) => {
            CE::Bin(*op, Box::new(compile_expr(p, sc, a)?), Box::new(compile_expr(p, sc, b)?), e.pos)
        }
        ExprK::Neg(a) => CE::Neg(Box::new(compile_expr(p, sc, a)?), e.pos),
        ExprK::Not(a) => CE::Not(Box::new(compile_expr(p, sc, a)?)),
        ExprK::Of(a, _) => compile_expr(p, sc, a)?,
    })
}

impl Value {
    fn into_ce(self) -> CE {
        CE::Const(self)
    }
}

fn compile_args(p: &Program, sc: &Scope, f: &str, args: &[Arg], pos: Span) -> R<(u32, Vec<CArg>)> {
    let fid = *p.func_ids.get(f).ok_or_else(|| Located::new(pos, format!("undeclared function `{f}`")))?;
    let mut out = vec![];
    for a in args {
        out.push(match a {
            Arg::In(e) => CArg::In(compile_expr(p, sc, e)?),
            Arg::Out(n, pos) | Arg::InOut(n, pos) => {
                CArg::Ref(sc.lookup(n).ok_or_else(|| Located::new(*pos, format!("undeclared variable `{n}`")))?)
            }
        });
    }
    Ok((fid, out))
}

fn lvalue(p: &Program, sc: &Scope, lv: &LValue) -> R<(u32, Option<CE>)> {
    let s = sc.lookup(&lv.name).ok_or_else(|| Located::new(lv.pos, format!("undeclared variable `{}`", lv.name)))?;
    let idx = match &lv.index {
        Some(i) => Some(compile_expr(p, sc, i)?),
        None => None,
    };
    Ok((s, idx))
}

fn compile_func(p: &Program, f: &Func) -> R<CFunc> {
    let mut sc = Scope::default();
    sc.frames.push(HashMap::new());
    for prm in &f.params {
        let t = ty_of(p, &prm.ty, prm.pos)?;
        sc.declare(&prm.name, t);
    }
    let body = fstmt(p, &mut sc, &f.body)?;
    Ok(CFunc { name: f.name.clone(), modes: f.params.iter().map(|x| x.mode).collect(), nslots: sc.names.len(), body })
}

fn fstmt(p: &Program, sc: &mut Scope, s: &Stmt) -> R<FS> {
    Ok(match &s.k {
        StmtK::Seq(v) => FS::Seq(v.iter().map(|x| fstmt(p, sc, x)).collect::<R<_>>()?),
        StmtK::Null => FS::Null,
        StmtK::Var(decls, body) => {
            sc.frames.push(HashMap::new());
            let mut slots = vec![];
            for (n, t, pos) in decls {
                let t = ty_of(p, t, *pos)?;
                slots.push(sc.declare(n, t));
            }
            let b = fstmt(p, sc, body)?;
            sc.frames.pop();
            FS::Reset(slots, Box::new(b))
        }
        StmtK::Assign(lv, e) => {
            let (s_, idx) = lvalue(p, sc, lv)?;
            FS::Assign(s_, idx, compile_expr(p, sc, e)?, s.pos)
        }
        StmtK::If(arms, els) => FS::If(
            arms.iter().map(|(c, b)| Ok((compile_expr(p, sc, c)?, fstmt(p, sc, b)?))).collect::<R<_>>()?,
            match els {
                Some(b) => Some(Box::new(fstmt(p, sc, b)?)),
                None => None,
            },
        ),
        StmtK::While(c, b) => FS::While(compile_expr(p, sc, c)?, Box::new(fstmt(p, sc, b)?)),
        StmtK::Return(e) => FS::Return(match e {
            Some(e) => Some(compile_expr(p, sc, e)?),
            None => None,
        }),
        StmtK::Eval(f, args) => {
            let (fid, a) = compile_args(p, sc, f, args, s.pos)?;
            FS::Eval(fid, a, s.pos)
        }
        _ => return Err(Located::new(s.pos, "this statement is not allowed in a function")),
    })
}

// ---------------------------------------------------------------------------------------------
// Bounds of inputs, from `where` clauses (syntactic, with inlining of one-line functions)

fn subst(e: &Expr, m: &HashMap<String, Expr>) -> Expr {
    let b = |x: &Expr| Box::new(subst(x, m));
    let k = match &e.k {
        ExprK::Name(n) => match m.get(n) {
            Some(r) => return r.clone(),
            None => ExprK::Name(n.clone()),
        },
        ExprK::Num(n) => ExprK::Num(*n),
        ExprK::Call(f, a) => ExprK::Call(f.clone(), a.iter().map(|x| subst(x, m)).collect()),
        ExprK::Index(a, i) => ExprK::Index(b(a), b(i)),
        ExprK::Bin(o, x, y) => ExprK::Bin(*o, b(x), b(y)),
        ExprK::Neg(x) => ExprK::Neg(b(x)),
        ExprK::Not(x) => ExprK::Not(b(x)),
        ExprK::Of(x, t) => ExprK::Of(b(x), t.clone()),
    };
    Expr { k, pos: e.pos }
}

fn is_var(e: &Expr, x: &str) -> bool {
    match &e.k {
        ExprK::Name(n) => n == x,
        ExprK::Of(a, _) => is_var(a, x),
        ExprK::Call(f, a) if (f == "NatToInt" || f == "IntToNat") && a.len() == 1 => is_var(&a[0], x),
        _ => false,
    }
}

fn mentions(e: &Expr, x: &str) -> bool {
    match &e.k {
        ExprK::Name(n) => n == x,
        ExprK::Num(_) => false,
        ExprK::Call(_, a) => a.iter().any(|y| mentions(y, x)),
        ExprK::Index(a, i) => mentions(a, x) || mentions(i, x),
        ExprK::Bin(_, a, b) => mentions(a, x) || mentions(b, x),
        ExprK::Neg(a) | ExprK::Not(a) | ExprK::Of(a, _) => mentions(a, x),
    }
}

#[derive(Clone)]
enum BA {
    AtLeast(Expr),
    AtMost(Expr),
    Equal(Expr),
    And(Vec<BA>),
    Or(Vec<BA>),
    Empty,
}

fn one_line_body(f: &Func) -> Option<&Expr> {
    match &f.body.k {
        StmtK::Return(Some(e)) => Some(e),
        StmtK::Seq(v) if v.len() == 1 => match &v[0].k {
            StmtK::Return(Some(e)) => Some(e),
            _ => None,
        },
        _ => None,
    }
}

fn plus(e: &Expr, d: i64) -> Expr {
    let (op, n) = if d >= 0 { (BinOp::Add, d as u64) } else { (BinOp::Sub, (-d) as u64) };
    Expr { k: ExprK::Bin(op, Box::new(e.clone()), Box::new(Expr { k: ExprK::Num(n), pos: e.pos })), pos: e.pos }
}

/// The values of `x` that `e` allows, from its comparisons of `x` (`None`: it says nothing).
fn bounds_ast(m: &Module, e: &Expr, x: &str, depth: u32) -> Option<BA> {
    match &e.k {
        ExprK::Bin(BinOp::And, a, b) => match (bounds_ast(m, a, x, depth), bounds_ast(m, b, x, depth)) {
            (Some(a), Some(b)) => Some(BA::And(vec![a, b])),
            (a, None) => a,
            (None, b) => b,
        },
        ExprK::Bin(BinOp::Or, a, b) => Some(BA::Or(vec![bounds_ast(m, a, x, depth)?, bounds_ast(m, b, x, depth)?])),
        ExprK::Bin(op @ (BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq), a, b) => {
            let (op, other) = if is_var(a, x) && !mentions(b, x) {
                (*op, b)
            } else if is_var(b, x) && !mentions(a, x) {
                let flipped = match op {
                    BinOp::Lt => BinOp::Gt,
                    BinOp::Le => BinOp::Ge,
                    BinOp::Gt => BinOp::Lt,
                    BinOp::Ge => BinOp::Le,
                    o => *o,
                };
                (flipped, a)
            } else {
                return None;
            };
            let o = (**other).clone();
            Some(match op {
                BinOp::Lt => BA::AtMost(plus(&o, -1)),
                BinOp::Le => BA::AtMost(o),
                BinOp::Gt => BA::AtLeast(plus(&o, 1)),
                BinOp::Ge => BA::AtLeast(o),
                _ => BA::Equal(o),
            })
        }
        ExprK::Call(f, args) if depth < 8 => {
            let fd = m.funcs.iter().find(|g| &g.name == f)?;
            let body = one_line_body(fd)?;
            if fd.params.len() != args.len() {
                return None;
            }
            let j = args.iter().position(|a| is_var(a, x))?;
            // rename the formal to the input, substitute the other actuals
            let mut map = HashMap::new();
            for (k, (prm, a)) in fd.params.iter().zip(args).enumerate() {
                if k == j {
                    map.insert(prm.name.clone(), Expr { k: ExprK::Name(x.to_string()), pos: a.pos });
                } else {
                    map.insert(prm.name.clone(), a.clone());
                }
            }
            let b = subst(body, &map);
            bounds_ast(m, &b, x, depth + 1)
        }
        ExprK::Name(n) if n.eq_ignore_ascii_case("false") => Some(BA::Empty),
        _ => None,
    }
}

fn compile_ba(p: &Program, sc: &Scope, b: BA) -> Option<DomExpr> {
    Some(match b {
        BA::AtLeast(e) => DomExpr::AtLeast(compile_expr(p, sc, &e).ok()?),
        BA::AtMost(e) => DomExpr::AtMost(compile_expr(p, sc, &e).ok()?),
        BA::Equal(e) => DomExpr::Equal(compile_expr(p, sc, &e).ok()?),
        BA::And(v) => DomExpr::And(v.into_iter().filter_map(|x| compile_ba(p, sc, x)).collect()),
        BA::Or(v) => DomExpr::Or(v.into_iter().map(|x| compile_ba(p, sc, x)).collect::<Option<_>>()?),
        BA::Empty => DomExpr::Empty,
    })
}

fn bounds(p: &Program, sc: &Scope, pred: Option<&Expr>, x: &str) -> Bounds {
    compile_ba(p, sc, bounds_ast(&p.module, pred?, x, 0)?)
}

// ---------------------------------------------------------------------------------------------
// Sequential processes to control-flow graphs

struct PB<'a> {
    p: &'a Program,
    sc: Scope,
    nodes: Vec<Node>,
    gates: Vec<String>,
}

impl PB<'_> {
    fn push(&mut self, n: Node) -> u32 {
        self.nodes.push(n);
        (self.nodes.len() - 1) as u32
    }
    fn gate(&self, g: &str, pos: Span) -> R<u32> {
        if g == "i" {
            return Ok(TAU);
        }
        self.gates
            .iter()
            .position(|x| x == g)
            .map(|i| i as u32)
            .ok_or_else(|| Located::new(pos, format!("undeclared gate `{g}`")))
    }
    /// Compiles `s` so that it continues with `next`; returns its entry node.
    fn stmt(&mut self, s: &Stmt, next: u32) -> R<u32> {
        let p = self.p;
        Ok(match &s.k {
            StmtK::Seq(v) => {
                let mut n = next;
                for x in v.iter().rev() {
                    n = self.stmt(x, n)?;
                }
                n
            }
            StmtK::Null => next,
            StmtK::Stop => self.push(Node::Stop),
            StmtK::Var(decls, body) => {
                self.sc.frames.push(HashMap::new());
                let mut slots = vec![];
                for (n, t, pos) in decls {
                    let t = ty_of(p, t, *pos)?;
                    slots.push(self.sc.declare(n, t));
                }
                let b = self.stmt(body, next)?;
                self.sc.frames.pop();
                self.push(Node::Reset { slots, next: b })
            }
            StmtK::Assign(lv, e) => {
                let (slot, idx) = lvalue(p, &self.sc, lv)?;
                let e = compile_expr(p, &self.sc, e)?;
                self.push(Node::Assign { slot, idx, e, next, pos: s.pos })
            }
            StmtK::Any(lv, t, w) => {
                if lv.index.is_some() {
                    return Err(Located::new(lv.pos, "`x[i] := any T` is not part of the subset"));
                }
                let (slot, _) = lvalue(p, &self.sc, lv)?;
                let ty = ty_of(p, t, s.pos)?;
                let pred = match w {
                    Some(w) => Some(compile_expr(p, &self.sc, w)?),
                    None => None,
                };
                let bounds = bounds(p, &self.sc, w.as_ref(), &lv.name);
                self.push(Node::Any { slot, ty, pred, bounds, next, pos: s.pos, name: lv.name.clone() })
            }
            StmtK::If(arms, els) => {
                let mut f = match els {
                    Some(b) => self.stmt(b, next)?,
                    None => next,
                };
                for (c, b) in arms.iter().rev() {
                    let t = self.stmt(b, next)?;
                    let c = compile_expr(p, &self.sc, c)?;
                    f = self.push(Node::Cond { c, t, f });
                }
                f
            }
            StmtK::OnlyIf(c) => {
                let c = compile_expr(p, &self.sc, c)?;
                let stop = self.push(Node::Stop);
                self.push(Node::Cond { c, t: next, f: stop })
            }
            StmtK::While(c, b) => {
                let head = self.push(Node::Goto(0));
                let body = self.stmt(b, head)?;
                let c = compile_expr(p, &self.sc, c)?;
                self.nodes[head as usize] = Node::Cond { c, t: body, f: next };
                head
            }
            StmtK::Loop(b) => {
                let head = self.push(Node::Goto(0));
                let body = self.stmt(b, head)?;
                self.nodes[head as usize] = Node::Goto(body);
                head
            }
            StmtK::Eval(f, args) => {
                let (fid, args) = compile_args(p, &self.sc, f, args, s.pos)?;
                self.push(Node::Eval { f: fid, args, next, pos: s.pos })
            }
            StmtK::Alt(bs) => {
                let mut v = vec![];
                for b in bs {
                    v.push(self.stmt(b, next)?);
                }
                self.push(Node::Alt(v))
            }
            StmtK::Comm(g, offers, w) => {
                let gate = self.gate(g, s.pos)?;
                let mut co = vec![];
                for o in offers {
                    co.push(match o {
                        Offer::Send(e) => COffer::Send(compile_expr(p, &self.sc, e)?),
                        Offer::Recv(lv) => {
                            if lv.index.is_some() {
                                return Err(Located::new(lv.pos, "`?x[i]` is not part of the subset"));
                            }
                            let (slot, _) = lvalue(p, &self.sc, lv)?;
                            COffer::Recv {
                                slot,
                                ty: self.sc.types[slot as usize],
                                bounds: bounds(p, &self.sc, w.as_ref(), &lv.name),
                                name: lv.name.clone(),
                                pos: lv.pos,
                            }
                        }
                    });
                }
                let pred = match w {
                    Some(w) => Some(compile_expr(p, &self.sc, w)?),
                    None => None,
                };
                self.push(Node::Comm { gate, offers: co, pred, next })
            }
            StmtK::Return(_) => return Err(Located::new(s.pos, "`return` in a process")),
            StmtK::Hide(..) | StmtK::Par(..) | StmtK::Call(..) => {
                return Err(Located::new(
                    s.pos,
                    "parallel composition, hiding and process calls are supported only at the top of a process body \
                     (a static network), not inside sequential code",
                ));
            }
        })
    }
}

pub(crate) fn ce_uses(e: &CE, out: &mut Vec<u32>) {
    match e {
        CE::Const(_) => {}
        CE::Var(s, _) => out.push(*s),
        CE::Call(_, a, _) => a.iter().for_each(|x| ce_uses(x, out)),
        CE::Pre(_, a, _) | CE::Neg(a, _) | CE::Not(a) => ce_uses(a, out),
        CE::Index(a, b, _) | CE::Bin(_, a, b, _) => {
            ce_uses(a, out);
            ce_uses(b, out)
        }
    }
}

fn be_uses(b: &Bounds, out: &mut Vec<u32>) {
    fn go(b: &DomExpr, out: &mut Vec<u32>) {
        match b {
            DomExpr::AtLeast(e) | DomExpr::AtMost(e) | DomExpr::Equal(e) => ce_uses(e, out),
            DomExpr::And(v) | DomExpr::Or(v) => v.iter().for_each(|x| go(x, out)),
            DomExpr::Empty => {}
        }
    }
    if let Some(b) = b {
        go(b, out)
    }
}

/// (uses, defs, successors) of a node; uses are read before defs are written, except for
/// `where` clauses (read after the inputs are bound: `late` uses).
fn node_info(n: &Node) -> (Vec<u32>, Vec<u32>, Vec<u32>, Vec<u32>) {
    let (mut u, mut d, mut late) = (vec![], vec![], vec![]);
    let succ = match n {
        Node::Assign { slot, idx, e, next, .. } => {
            ce_uses(e, &mut u);
            if let Some(i) = idx {
                ce_uses(i, &mut u);
                u.push(*slot);
            }
            d.push(*slot);
            vec![*next]
        }
        Node::Any { slot, pred, bounds, next, .. } => {
            be_uses(bounds, &mut u);
            d.push(*slot);
            if let Some(p) = pred {
                ce_uses(p, &mut late);
            }
            vec![*next]
        }
        Node::Eval { args, next, .. } => {
            for a in args {
                match a {
                    CArg::In(e) => ce_uses(e, &mut u),
                    CArg::Ref(s) => {
                        u.push(*s);
                        d.push(*s)
                    }
                }
            }
            vec![*next]
        }
        Node::Cond { c, t, f } => {
            ce_uses(c, &mut u);
            vec![*t, *f]
        }
        Node::Alt(v) => v.clone(),
        Node::Comm { offers, pred, next, .. } => {
            for o in offers {
                match o {
                    COffer::Send(e) => ce_uses(e, &mut u),
                    COffer::Recv { slot, bounds, .. } => {
                        be_uses(bounds, &mut u);
                        d.push(*slot)
                    }
                }
            }
            if let Some(p) = pred {
                ce_uses(p, &mut late);
            }
            vec![*next]
        }
        Node::Reset { slots, next } => {
            d.extend(slots);
            vec![*next]
        }
        Node::Goto(n) => vec![*n],
        Node::Stop | Node::End => vec![],
    };
    (u, d, late, succ)
}

fn liveness(nodes: &[Node], nslots: usize) -> Vec<Vec<bool>> {
    let info: Vec<_> = nodes.iter().map(node_info).collect();
    let mut live = vec![vec![false; nslots]; nodes.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for i in (0..nodes.len()).rev() {
            let (u, d, late, succ) = &info[i];
            let mut l = vec![false; nslots];
            for s in succ {
                for (k, v) in live[*s as usize].iter().enumerate() {
                    if *v {
                        l[k] = true;
                    }
                }
            }
            for s in late {
                l[*s as usize] = true;
            }
            for s in d {
                l[*s as usize] = false;
            }
            for s in u {
                l[*s as usize] = true;
            }
            if l != live[i] {
                live[i] = l;
                changed = true;
            }
        }
    }
    live
}

pub(crate) fn compile_proc(p: &Program, pi: usize) -> R<CProc> {
    let pr = &p.module.procs[pi];
    let mut b = PB { p, sc: Scope::default(), nodes: vec![], gates: pr.gates.iter().map(|g| g.0.clone()).collect() };
    b.sc.frames.push(HashMap::new());
    for prm in &pr.params {
        let t = ty_of(p, &prm.ty, prm.pos)?;
        b.sc.declare(&prm.name, t);
    }
    let end = b.push(Node::End);
    let entry = b.stmt(&pr.body, end)?;
    let nslots = b.sc.names.len();
    let live = liveness(&b.nodes, nslots);
    let code = super::code::node_codes(&b.nodes);
    Ok(CProc { name: pr.name.clone(), nslots, slot_names: b.sc.names, nodes: b.nodes, entry, live, code })
}
