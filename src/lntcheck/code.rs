//! The compiled form of a checked program's expressions and function bodies
//! (`docs/lntcheck.md`, "Successor function"): each expression, `where` clause and function body
//! becomes, once, a flat sequence of stack-machine operations, run by [`Vm`] with a value stack
//! and a pool of frames that are reused, so that a step neither walks the syntax tree nor
//! allocates (arrays aside, written in place when not shared). The tree-walking evaluator
//! (`eval.rs`) stays the reference the tests compare this one with: same values, same errors at
//! the same places.

use super::ast::{BinOp, Mode};
use super::eval::{Env, as_bool, as_int, every_integer, pos_of};
use super::sem::*;
use crate::analysis::intervals::{IntervalSet, NEG_INF, POS_INF};
use crate::diagnostics::Located;
use crate::diagnostics::span::Span;
use std::sync::Arc;

type R<T> = Result<T, Located>;

#[derive(Clone, Debug)]
pub(crate) enum Op {
    Const(Value),
    /// A variable (an error when unassigned).
    Load(u32, Span),
    /// An in-out argument of `eval`: the variable, or 0 when unassigned.
    LoadOrZero(u32),
    /// A function call in an expression: (function, arguments on the stack, position).
    Call(u32, u32, Span),
    IntToNat(Span),
    ArrNew(u32),
    Index(Span),
    Bin(BinOp, Span),
    /// `and`/`or` after its left operand (a Boolean checked at `pos`): when that decides,
    /// leaves it and jumps to `to`; else drops it.
    Short {
        or: bool,
        pos: Span,
        to: u32,
    },
    /// The right operand of `and`/`or`: a Boolean checked at `pos`.
    IsBool(Span),
    Neg(Span),
    Not(Span),
    Store(u32),
    StoreIdx(u32, Span),
    JumpIfNot(Span, u32),
    Jump(u32),
    Clear(u32),
    /// A `while` loop's iteration counter (a frame slot past the variables) set to 0.
    LoopStart(u32),
    /// One more iteration (an error past the bound, at the condition's position).
    LoopNext(u32, Span),
    /// Returns, with the value on the stack when `true`.
    Ret(bool),
    /// `eval f (args)`: the arguments on the stack, then the in-out ones written back (argument
    /// index, variable).
    EvalCall {
        f: u32,
        nargs: u32,
        refs: Box<[(u32, u32)]>,
        pos: Span,
    },
}

/// A compiled expression, with the position its value's type errors are reported at.
#[derive(Clone, Debug)]
pub(crate) struct Code {
    ops: Box<[Op]>,
    pos: Span,
}

/// A compiled function body.
#[derive(Clone, Debug)]
pub(crate) struct FuncCode {
    ops: Box<[Op]>,
    /// Variables, then one counter per `while` loop.
    frame: usize,
}

/// A compiled input bound (`DomExpr`).
#[derive(Clone, Debug)]
pub(crate) enum DomCode {
    AtLeast(Code),
    AtMost(Code),
    Equal(Code),
    And(Vec<DomCode>),
    Or(Vec<DomCode>),
    Empty,
}

/// One conjunct of a communication's `where` clause and the variables it reads.
#[derive(Clone, Debug)]
pub(crate) struct Conjunct {
    pub(crate) code: Code,
    pub(crate) uses: Vec<u32>,
}

/// The compiled expressions of one control node of a process.
#[derive(Clone, Debug)]
pub(crate) enum NodeCode {
    Other,
    Assign {
        e: Code,
        idx: Option<Code>,
    },
    Any {
        pred: Option<Code>,
        bounds: Option<DomCode>,
    },
    /// The arguments pushed, then the call.
    Eval(Code),
    Cond(Code),
    Comm {
        sends: Vec<Option<Code>>,
        bounds: Vec<Option<DomCode>>,
        pred: Option<Code>,
        conjuncts: Vec<Conjunct>,
    },
}

fn expr(e: &CE, out: &mut Vec<Op>) {
    match e {
        CE::Const(v) => out.push(Op::Const(v.clone())),
        CE::Var(s, pos) => out.push(Op::Load(*s, *pos)),
        CE::Call(f, args, pos) => {
            args.iter().for_each(|a| expr(a, out));
            out.push(Op::Call(*f, args.len() as u32, *pos));
        }
        CE::Pre(pre, a, pos) => {
            expr(a, out);
            match pre {
                Pre::NatToInt => {}
                Pre::IntToNat => out.push(Op::IntToNat(*pos)),
                Pre::ArrNew(n) => out.push(Op::ArrNew(*n as u32)),
            }
        }
        CE::Index(a, i, pos) => {
            expr(a, out);
            expr(i, out);
            out.push(Op::Index(*pos));
        }
        CE::Bin(op @ (BinOp::And | BinOp::Or), a, b, _) => {
            expr(a, out);
            let at = out.len();
            out.push(Op::Jump(0));
            expr(b, out);
            out.push(Op::IsBool(pos_of(b)));
            out[at] = Op::Short { or: *op == BinOp::Or, pos: pos_of(a), to: out.len() as u32 };
        }
        CE::Bin(op, a, b, pos) => {
            expr(a, out);
            expr(b, out);
            out.push(Op::Bin(*op, *pos));
        }
        CE::Neg(a, pos) => {
            expr(a, out);
            out.push(Op::Neg(*pos));
        }
        CE::Not(a) => {
            expr(a, out);
            out.push(Op::Not(pos_of(a)));
        }
    }
}

pub(crate) fn code(e: &CE) -> Code {
    let mut ops = vec![];
    expr(e, &mut ops);
    Code { ops: ops.into(), pos: pos_of(e) }
}

fn args(args: &[CArg], out: &mut Vec<Op>) -> Box<[(u32, u32)]> {
    let mut refs = vec![];
    for (i, a) in args.iter().enumerate() {
        match a {
            CArg::In(e) => expr(e, out),
            CArg::Ref(s) => {
                out.push(Op::LoadOrZero(*s));
                refs.push((i as u32, *s));
            }
        }
    }
    refs.into()
}

fn dom(d: &DomExpr) -> DomCode {
    match d {
        DomExpr::AtLeast(e) => DomCode::AtLeast(code(e)),
        DomExpr::AtMost(e) => DomCode::AtMost(code(e)),
        DomExpr::Equal(e) => DomCode::Equal(code(e)),
        DomExpr::And(v) => DomCode::And(v.iter().map(dom).collect()),
        DomExpr::Or(v) => DomCode::Or(v.iter().map(dom).collect()),
        DomExpr::Empty => DomCode::Empty,
    }
}

/// The conjuncts of a `where` clause.
pub(crate) fn conjuncts<'e>(e: &'e CE, out: &mut Vec<&'e CE>) {
    match e {
        CE::Bin(BinOp::And, a, b, _) => {
            conjuncts(a, out);
            conjuncts(b, out);
        }
        _ => out.push(e),
    }
}

/// The compiled expressions of each node of a process.
pub(crate) fn node_codes(nodes: &[Node]) -> Vec<NodeCode> {
    nodes
        .iter()
        .map(|n| match n {
            Node::Assign { idx, e, .. } => NodeCode::Assign { e: code(e), idx: idx.as_ref().map(code) },
            Node::Any { pred, bounds, .. } => {
                NodeCode::Any { pred: pred.as_ref().map(code), bounds: bounds.as_ref().map(dom) }
            }
            Node::Eval { f, args: a, next: _, pos } => {
                let mut ops = vec![];
                let refs = args(a, &mut ops);
                ops.push(Op::EvalCall { f: *f, nargs: a.len() as u32, refs, pos: *pos });
                NodeCode::Eval(Code { ops: ops.into(), pos: *pos })
            }
            Node::Cond { c, .. } => NodeCode::Cond(code(c)),
            Node::Comm { offers, pred, .. } => {
                let mut cs = vec![];
                if let Some(pr) = pred {
                    conjuncts(pr, &mut cs);
                }
                NodeCode::Comm {
                    sends: offers
                        .iter()
                        .map(|o| match o {
                            COffer::Send(e) => Some(code(e)),
                            COffer::Recv { .. } => None,
                        })
                        .collect(),
                    bounds: offers
                        .iter()
                        .map(|o| match o {
                            COffer::Recv { bounds: Some(b), .. } => Some(dom(b)),
                            _ => None,
                        })
                        .collect(),
                    pred: pred.as_ref().map(code),
                    conjuncts: cs
                        .into_iter()
                        .map(|c| {
                            let mut uses = vec![];
                            ce_uses(c, &mut uses);
                            Conjunct { code: code(c), uses }
                        })
                        .collect(),
                }
            }
            _ => NodeCode::Other,
        })
        .collect()
}

struct FuncCompiler {
    ops: Vec<Op>,
    nslots: usize,
    loops: usize,
}

impl FuncCompiler {
    fn stmt(&mut self, s: &FS) {
        match s {
            FS::Seq(v) => v.iter().for_each(|x| self.stmt(x)),
            FS::Assign(slot, idx, e, pos) => {
                expr(e, &mut self.ops);
                match idx {
                    None => self.ops.push(Op::Store(*slot)),
                    Some(i) => {
                        expr(i, &mut self.ops);
                        self.ops.push(Op::StoreIdx(*slot, *pos));
                    }
                }
            }
            FS::If(arms, els) => {
                let mut ends = vec![];
                for (c, b) in arms {
                    expr(c, &mut self.ops);
                    let test = self.ops.len();
                    self.ops.push(Op::Jump(0));
                    self.stmt(b);
                    ends.push(self.ops.len());
                    self.ops.push(Op::Jump(0));
                    self.ops[test] = Op::JumpIfNot(pos_of(c), self.ops.len() as u32);
                }
                if let Some(b) = els {
                    self.stmt(b);
                }
                let end = self.ops.len() as u32;
                for at in ends {
                    self.ops[at] = Op::Jump(end);
                }
            }
            FS::While(c, b) => {
                let counter = (self.nslots + self.loops) as u32;
                self.loops += 1;
                self.ops.push(Op::LoopStart(counter));
                let top = self.ops.len() as u32;
                expr(c, &mut self.ops);
                let test = self.ops.len();
                self.ops.push(Op::Jump(0));
                self.stmt(b);
                self.ops.push(Op::LoopNext(counter, pos_of(c)));
                self.ops.push(Op::Jump(top));
                self.ops[test] = Op::JumpIfNot(pos_of(c), self.ops.len() as u32);
            }
            FS::Return(e) => match e {
                Some(e) => {
                    expr(e, &mut self.ops);
                    self.ops.push(Op::Ret(true));
                }
                None => self.ops.push(Op::Ret(false)),
            },
            FS::Eval(f, a, pos) => {
                let refs = args(a, &mut self.ops);
                self.ops.push(Op::EvalCall { f: *f, nargs: a.len() as u32, refs, pos: *pos });
            }
            FS::Null => {}
            FS::Reset(slots, b) => {
                for s in slots {
                    self.ops.push(Op::Clear(*s));
                }
                self.stmt(b);
            }
        }
    }
}

pub(crate) fn func_code(f: &CFunc) -> FuncCode {
    let mut c = FuncCompiler { ops: vec![], nslots: f.nslots, loops: 0 };
    c.stmt(&f.body);
    c.ops.push(Op::Ret(false));
    FuncCode { ops: c.ops.into(), frame: f.nslots + c.loops }
}

/// LNT's `Int` and `Nat` are machine integers in CADP: values outside 32 bits are errors.
fn int(v: i64, pos: Span) -> R<Value> {
    if v < i32::MIN as i64 || v > i32::MAX as i64 {
        return Err(Located::new(pos, format!("integer overflow ({v})")));
    }
    Ok(Value::I(v))
}

fn bin(op: BinOp, x: Value, y: Value, pos: Span) -> R<Value> {
    Ok(match op {
        BinOp::Eq => Value::B(x == y),
        BinOp::Ne => Value::B(x != y),
        _ => {
            let (x, y) = (as_int(&x, pos)?, as_int(&y, pos)?);
            match op {
                BinOp::Add => int(x + y, pos)?,
                BinOp::Sub => int(x - y, pos)?,
                BinOp::Mul => int(x * y, pos)?,
                BinOp::Div | BinOp::Mod => {
                    if y == 0 {
                        return Err(Located::new(pos, "division by zero"));
                    }
                    if op == BinOp::Div {
                        int(x / y, pos)?
                    } else {
                        let r = x % y;
                        int(if r != 0 && ((r < 0) != (y < 0)) { r + y } else { r }, pos)?
                    }
                }
                BinOp::Lt => Value::B(x < y),
                BinOp::Le => Value::B(x <= y),
                BinOp::Gt => Value::B(x > y),
                BinOp::Ge => Value::B(x >= y),
                BinOp::Eq | BinOp::Ne | BinOp::And | BinOp::Or => unreachable!("handled above"),
            }
        }
    })
}

/// `frame[slot][i] := v` (the array written in place when no other state shares it).
fn store_idx(frame: &mut [Option<Value>], slot: u32, v: Value, i: Value, pos: Span) -> R<()> {
    let iv = as_int(&i, pos)?;
    let Some(Value::A(xs)) = &mut frame[slot as usize] else {
        return Err(Located::new(pos, "array element written before the array is assigned"));
    };
    if iv < 0 || iv as usize >= xs.len() {
        return Err(Located::new(pos, format!("array index {iv} out of range 0 .. {}", xs.len() - 1)));
    }
    match Arc::get_mut(xs) {
        Some(ys) => ys[iv as usize] = v,
        None => {
            let mut ys: Vec<Value> = xs.to_vec();
            ys[iv as usize] = v;
            *xs = ys.into();
        }
    }
    Ok(())
}

/// The machine that runs compiled code.
pub(crate) struct Vm<'a> {
    p: &'a Program,
    /// The program's functions compiled, by index as `p.funcs`.
    fcode: &'a [FuncCode],
    stack: Vec<Value>,
    frames: Vec<Vec<Option<Value>>>,
    depth: u32,
}

impl<'a> Vm<'a> {
    pub(crate) fn new(p: &'a Program, fcode: &'a [FuncCode]) -> Vm<'a> {
        Vm { p, fcode, stack: vec![], frames: vec![], depth: 0 }
    }

    fn pop(&mut self) -> Value {
        self.stack.pop().expect("compiled code keeps its operands on the stack")
    }

    /// Runs the expression operation `op` at `pc` on `env`; the next operation.
    fn expr_op(&mut self, op: &Op, pc: usize, env: &[Option<Value>]) -> R<usize> {
        match op {
            Op::Const(v) => self.stack.push(v.clone()),
            Op::Load(s, pos) => match &env[*s as usize] {
                Some(v) => self.stack.push(v.clone()),
                None => return Err(Located::new(*pos, "variable used before being assigned")),
            },
            Op::LoadOrZero(s) => self.stack.push(env[*s as usize].clone().unwrap_or(Value::I(0))),
            Op::Call(f, n, pos) => {
                let (r, frame) = self.call(*f, *n, *pos)?;
                self.frames.push(frame);
                match r {
                    Some(v) => self.stack.push(v),
                    None => return Err(Located::new(*pos, "function returned no value")),
                }
            }
            Op::IntToNat(pos) => {
                let i = as_int(self.stack.last().expect("an operand"), *pos)?;
                if i < 0 {
                    return Err(Located::new(*pos, format!("IntToNat of a negative number ({i})")));
                }
            }
            Op::ArrNew(n) => {
                let v = self.pop();
                self.stack.push(Value::A(vec![v; *n as usize].into()));
            }
            Op::Index(pos) => {
                let i = self.pop();
                let a = self.pop();
                let iv = as_int(&i, *pos)?;
                match a {
                    Value::A(xs) => {
                        if iv < 0 || iv as usize >= xs.len() {
                            return Err(Located::new(
                                *pos,
                                format!("array index {iv} out of range 0 .. {}", xs.len() - 1),
                            ));
                        }
                        self.stack.push(xs[iv as usize].clone());
                    }
                    _ => return Err(Located::new(*pos, "indexing a value that is not an array")),
                }
            }
            Op::Bin(op, pos) => {
                let y = self.pop();
                let x = self.pop();
                self.stack.push(bin(*op, x, y, *pos)?);
            }
            Op::Short { or, pos, to } => {
                let v = self.pop();
                let x = as_bool(&v, *pos)?;
                if x == *or {
                    self.stack.push(Value::B(x));
                    return Ok(*to as usize);
                }
            }
            Op::IsBool(pos) => {
                as_bool(self.stack.last().expect("an operand"), *pos)?;
            }
            Op::Neg(pos) => {
                let v = self.pop();
                let r = int(-as_int(&v, *pos)?, *pos)?;
                self.stack.push(r);
            }
            Op::Not(pos) => {
                let v = self.pop();
                self.stack.push(Value::B(!as_bool(&v, *pos)?));
            }
            _ => unreachable!("a statement operation in an expression"),
        }
        Ok(pc + 1)
    }

    /// Calls function `f` on the `n` values on top of the stack; its result and its frame (to
    /// be given back to `self.frames`).
    fn call(&mut self, f: u32, n: u32, pos: Span) -> R<(Option<Value>, Vec<Option<Value>>)> {
        let p = self.p;
        let cf = &p.funcs[f as usize];
        let fc = &self.fcode[f as usize];
        if n as usize != cf.modes.len() {
            return Err(Located::new(pos, format!("`{}` takes {} arguments, {} given", cf.name, cf.modes.len(), n)));
        }
        if self.depth > 200 {
            return Err(Located::new(pos, "call depth exceeded (recursion?)"));
        }
        self.depth += 1;
        let mut frame = self.frames.pop().unwrap_or_default();
        frame.clear();
        frame.resize(fc.frame, None);
        let base = self.stack.len() - n as usize;
        for (i, (a, m)) in self.stack.drain(base..).zip(&cf.modes).enumerate() {
            if *m != Mode::Out {
                frame[i] = Some(a);
            }
        }
        let r = self.run(&fc.ops, &mut frame)?;
        self.depth -= 1;
        Ok((r, frame))
    }

    /// Runs statement code on `frame` to its return.
    fn run(&mut self, ops: &[Op], frame: &mut [Option<Value>]) -> R<Option<Value>> {
        let mut pc = 0;
        loop {
            match &ops[pc] {
                Op::Store(s) => {
                    frame[*s as usize] = Some(self.pop());
                    pc += 1;
                }
                Op::StoreIdx(s, pos) => {
                    let i = self.pop();
                    let v = self.pop();
                    store_idx(frame, *s, v, i, *pos)?;
                    pc += 1;
                }
                Op::JumpIfNot(pos, to) => {
                    let v = self.pop();
                    pc = if as_bool(&v, *pos)? { pc + 1 } else { *to as usize };
                }
                Op::Jump(to) => pc = *to as usize,
                Op::Clear(s) => {
                    frame[*s as usize] = None;
                    pc += 1;
                }
                Op::LoopStart(c) => {
                    frame[*c as usize] = Some(Value::I(0));
                    pc += 1;
                }
                Op::LoopNext(c, pos) => {
                    let Some(Value::I(n)) = &mut frame[*c as usize] else { unreachable!("a loop counter") };
                    *n += 1;
                    if *n > 100_000_000 {
                        return Err(Located::new(*pos, "loop does not terminate"));
                    }
                    pc += 1;
                }
                Op::Ret(with) => return Ok(if *with { Some(self.pop()) } else { None }),
                Op::EvalCall { f, nargs, refs, pos } => {
                    self.eval_call(frame, *f, *nargs, refs, *pos)?;
                    pc += 1;
                }
                op => pc = self.expr_op(op, pc, frame)?,
            }
        }
    }

    fn eval_call(&mut self, env: &mut [Option<Value>], f: u32, n: u32, refs: &[(u32, u32)], pos: Span) -> R<()> {
        let (_, mut fenv) = self.call(f, n, pos)?;
        let mut r = Ok(());
        for &(i, s) in refs {
            match fenv[i as usize].take() {
                Some(v) => env[s as usize] = Some(v),
                None => {
                    r = Err(Located::new(pos, "out parameter not assigned by the function"));
                    break;
                }
            }
        }
        self.frames.push(fenv);
        r
    }

    /// Runs expression code on `env`: the value left on the stack.
    fn run_expr(&mut self, ops: &[Op], env: &[Option<Value>]) -> R<Value> {
        let mut pc = 0;
        while pc < ops.len() {
            pc = self.expr_op(&ops[pc], pc, env)?;
        }
        Ok(self.pop())
    }

    /// A fresh start for a step: what an error left behind is dropped.
    fn reset(&mut self) {
        self.stack.clear();
        self.depth = 0;
    }

    pub(crate) fn eval(&mut self, env: &[Option<Value>], c: &Code) -> R<Value> {
        self.reset();
        self.run_expr(&c.ops, env)
    }

    pub(crate) fn eval_bool(&mut self, env: &[Option<Value>], c: &Code) -> R<bool> {
        let v = self.eval(env, c)?;
        as_bool(&v, c.pos)
    }

    pub(crate) fn assign(&mut self, env: &mut Env, slot: u32, idx: Option<&Code>, e: &Code, pos: Span) -> R<()> {
        let v = self.eval(env, e)?;
        match idx {
            None => env[slot as usize] = Some(v),
            Some(i) => {
                let iv = self.run_expr(&i.ops, env)?;
                store_idx(env, slot, v, iv, pos)?;
            }
        }
        Ok(())
    }

    /// `eval f (args)` on the process's variables (node code `NodeCode::Eval`).
    pub(crate) fn eval_stmt(&mut self, env: &mut Env, c: &Code) -> R<()> {
        self.reset();
        let (last, args) = c.ops.split_last().expect("a call");
        let mut pc = 0;
        while pc < args.len() {
            pc = self.expr_op(&args[pc], pc, env)?;
        }
        let Op::EvalCall { f, nargs, refs, pos } = last else { unreachable!("a call") };
        self.eval_call(env, *f, *nargs, refs, *pos)
    }

    /// The values of an input its `where` clause allows (as `Ev::input_set`).
    pub(crate) fn input_set(&mut self, env: &[Option<Value>], b: Option<&DomCode>) -> IntervalSet {
        fn go(vm: &mut Vm, env: &[Option<Value>], b: &DomCode) -> IntervalSet {
            let mut value = |c: &Code| vm.eval(env, c).ok().and_then(|v| as_int(&v, Span::default()).ok());
            match b {
                DomCode::AtLeast(e) => value(e).map_or_else(every_integer, |v| IntervalSet::range(v, POS_INF)),
                DomCode::AtMost(e) => value(e).map_or_else(every_integer, |v| IntervalSet::range(NEG_INF, v)),
                DomCode::Equal(e) => value(e).map_or_else(every_integer, IntervalSet::singleton),
                DomCode::And(v) => v.iter().fold(every_integer(), |acc, x| acc.meet(&go(vm, env, x))),
                DomCode::Or(v) => v.iter().fold(IntervalSet::empty(), |acc, x| acc.join(&go(vm, env, x))),
                DomCode::Empty => IntervalSet::empty(),
            }
        }
        b.map_or_else(every_integer, |b| go(self, env, b))
    }
}
