//! Expressions compiled for one binding of `id`, `c1` and `c2`: agent references fold to
//! constants, so every variable becomes an absolute slot position and every index a
//! constant checked once, when compiling. What is left is arithmetic over slots.
//!
//! Evaluation agrees with `Ctx::eval` / `Ctx::eval_b` on every value and on ⊥. It has no
//! error messages of its own: any run-time error (overflow, division by zero) makes it
//! return `Fallback`, and the caller evaluates the original expression, which reports it.

use crate::engine::state::{BOT, Layout};
use crate::model::arith;
use crate::model::{AgentRef, BExpr, Expr, Model, Store, VarRef};
use crate::syntax::ast::{BinOp, CmpOp, MinMax};

/// A run-time error: the caller evaluates the original expression instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fallback;

/// The agents `id`, `c1` and `c2` denote (`None`: not bound here).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Binding {
    pub(crate) me: Option<usize>,
    pub(crate) c1: Option<usize>,
    pub(crate) c2: Option<usize>,
}

#[derive(Clone, Debug)]
pub(crate) enum CExpr {
    Const(i64),
    /// A state slot (may hold ⊥).
    Slot(u32),
    Neg(Box<CExpr>),
    Abs(Box<CExpr>),
    Bin(BinOp, Box<CExpr>, Box<CExpr>),
    MinMax(MinMax, Box<CExpr>, Box<CExpr>),
    If(Box<CBExpr>, Box<CExpr>, Box<CExpr>),
}

#[derive(Clone, Debug)]
pub(crate) enum CBExpr {
    Const(bool),
    Not(Box<CBExpr>),
    Cmp(CmpOp, Prog, Prog),
    And(Box<CBExpr>, Box<CBExpr>),
    Or(Box<CBExpr>, Box<CBExpr>),
}

/// What compiling reads: the model, the layout, the binding and the agents the quantified
/// variables of a property's predicate denote (`QVar(i)` is `quants[i]`; empty elsewhere).
pub(crate) struct Compiler<'a> {
    pub(crate) model: &'a Model,
    pub(crate) lay: &'a Layout,
    pub(crate) bind: Binding,
    pub(crate) quants: &'a [usize],
}

impl Compiler<'_> {
    /// The compiled form of `e`, or `None` when it needs the evaluator: block locals,
    /// unbound quantified variables, `[a..b]`, an index or agent that is not constant for
    /// this binding, or a constant part that is a run-time error.
    pub(crate) fn expr(&self, e: &Expr) -> Option<CExpr> {
        Some(match e {
            Expr::Const(c) if (arith::MIN_VALUE..=arith::MAX_VALUE).contains(c) => CExpr::Const(*c),
            Expr::Const(_) => return None,
            Expr::AgentId(r) => CExpr::Const(self.agent(r)? as i64),
            Expr::Var(vr) => CExpr::Slot(self.slot(vr)? as u32),
            Expr::QVar(i) => CExpr::Const(*self.quants.get(*i)? as i64),
            Expr::Local { .. } | Expr::NonDet(..) => return None,
            Expr::Neg(a) => match self.expr(a)? {
                CExpr::Const(x) => CExpr::Const(arith::neg(x).ok()?),
                a => CExpr::Neg(Box::new(a)),
            },
            Expr::Abs(a) => match self.expr(a)? {
                CExpr::Const(x) => CExpr::Const(arith::abs(x).ok()?),
                a => CExpr::Abs(Box::new(a)),
            },
            Expr::Bin(op, a, b) => match (self.expr(a)?, self.expr(b)?) {
                (CExpr::Const(x), CExpr::Const(y)) => CExpr::Const(arith::binary(*op, x, y).ok()?),
                (a, b) => CExpr::Bin(*op, Box::new(a), Box::new(b)),
            },
            Expr::MinMax(m, a, b) => match (self.expr(a)?, self.expr(b)?) {
                (CExpr::Const(x), CExpr::Const(y)) => CExpr::Const(min_max(*m, x, y)),
                (a, b) => CExpr::MinMax(*m, Box::new(a), Box::new(b)),
            },
            Expr::If(c, a, b) => {
                let (c, a, b) = (self.bexpr(c)?, self.expr(a)?, self.expr(b)?);
                match c {
                    CBExpr::Const(true) => a,
                    CBExpr::Const(false) => b,
                    c => CExpr::If(Box::new(c), Box::new(a), Box::new(b)),
                }
            }
        })
    }

    /// The compiled form of `b` (see `expr`). Only constant left operands of `and` / `or`
    /// are folded: a constant right operand must not hide an error on the left.
    pub(crate) fn bexpr(&self, b: &BExpr) -> Option<CBExpr> {
        Some(match b {
            BExpr::Const(c) => CBExpr::Const(*c),
            BExpr::Not(x) => match self.bexpr(x)? {
                CBExpr::Const(c) => CBExpr::Const(!c),
                x => CBExpr::Not(Box::new(x)),
            },
            BExpr::Cmp(op, a, b) => match (self.expr(a)?, self.expr(b)?) {
                (CExpr::Const(x), CExpr::Const(y)) => CBExpr::Const(op.holds(x, y)),
                (a, b) => CBExpr::Cmp(*op, Prog::of(&a)?, Prog::of(&b)?),
            },
            BExpr::And(x, y) => match (self.bexpr(x)?, self.bexpr(y)?) {
                (CBExpr::Const(false), _) => CBExpr::Const(false),
                (CBExpr::Const(true), y) => y,
                (x, y) => CBExpr::And(Box::new(x), Box::new(y)),
            },
            BExpr::Or(x, y) => match (self.bexpr(x)?, self.bexpr(y)?) {
                (CBExpr::Const(true), _) => CBExpr::Const(true),
                (CBExpr::Const(false), y) => y,
                (x, y) => CBExpr::Or(Box::new(x), Box::new(y)),
            },
        })
    }

    /// The agent `r` denotes, when it is constant and in range.
    fn agent(&self, r: &AgentRef) -> Option<usize> {
        let a = match r {
            AgentRef::Own => self.bind.me?,
            AgentRef::C1 => self.bind.c1?,
            AgentRef::C2 => self.bind.c2?,
            AgentRef::Of(e) => match self.expr(e)? {
                CExpr::Const(a) if a >= 0 && (a as usize) < self.lay.n_agents => a as usize,
                _ => return None,
            },
        };
        Some(a)
    }

    /// The absolute slot `vr` denotes (as `Ctx::var_slot`), when its owner and indices are
    /// constant and in range.
    pub(crate) fn slot(&self, vr: &VarRef) -> Option<usize> {
        let var = &self.model.vars[vr.var];
        let k = self.element(&var.dims, &vr.indices)?;
        let slot = var.offset + k;
        Some(match var.store {
            Store::Env => slot,
            Store::Attr => self.lay.attr(self.agent(&vr.owner)?, slot),
            Store::Stig { .. } => self.lay.stig(self.agent(&vr.owner)?, slot),
        })
    }

    /// Row-major element number of constant `indices` within `dims` (as `Ctx::index`).
    pub(crate) fn element(&self, dims: &[usize], indices: &[Expr]) -> Option<usize> {
        let mut k = 0usize;
        for (d, ie) in dims.iter().zip(indices) {
            match self.expr(ie)? {
                CExpr::Const(i) if i >= 0 && (i as usize) < *d => k = k * d + i as usize,
                _ => return None,
            }
        }
        Some(k)
    }
}

#[inline]
fn min_max(m: MinMax, x: i64, y: i64) -> i64 {
    match m {
        MinMax::Min => x.min(y),
        MinMax::Max => x.max(y),
    }
}

/// `Prog::eval`'s result for ⊥. Values are never below `arith::MIN_VALUE`, so neither this
/// nor `FAIL` is a value.
pub(crate) const NONE: i64 = i64::MIN;
/// `Prog::eval`'s result for a run-time error (`Fallback`).
pub(crate) const FAIL: i64 = i64::MIN + 1;

/// `checked` of `arith`, with `FAIL` for an overflow.
#[inline(always)]
fn in_range(v: i64) -> i64 {
    if (arith::MIN_VALUE..=arith::MAX_VALUE).contains(&v) { v } else { FAIL }
}

/// An expression as a postfix program over a small stack: the form that is evaluated
/// (a loop over a flat array, where the tree cost a call per node).
#[derive(Clone, Debug)]
pub(crate) struct Prog(Box<[Op]>);

#[derive(Clone, Debug)]
enum Op {
    Const(i64),
    Slot(u32),
    Neg,
    Abs,
    Bin(BinOp),
    /// `Bin` of two slots, of a slot and a constant, of a constant and a slot (fused: the
    /// operands of most operations are leaves, and one dispatch is cheaper than three).
    BinSS(BinOp, u32, u32),
    BinSC(BinOp, u32, i32),
    BinCS(BinOp, i32, u32),
    MinMax(MinMax),
    /// `if c then a else b`, rare: evaluated by nested programs.
    If(Box<(CBExpr, Prog, Prog)>),
}

/// The evaluation stack's size; deeper expressions are not compiled.
const STACK: usize = 16;

impl Prog {
    /// The program of `e`, if its stack fits `STACK`.
    pub(crate) fn of(e: &CExpr) -> Option<Prog> {
        let mut ops = Vec::new();
        (flatten(e, &mut ops)? <= STACK).then(|| Prog(ops.into()))
    }

    /// The value of the expression in `st`: a value, `NONE` (⊥) or `FAIL` (a run-time
    /// error). Sentinels rather than `Result<Option<i64>>` keep every operation a few
    /// instructions. Every operand is evaluated, where the evaluator stops at the first
    /// error; evaluation has no effect, and `FAIL` wins over `NONE` and values, so the
    /// result is the same. Operands are values within `arith`'s 32-bit range, so `+`, `-`
    /// and `*` cannot overflow an `i64` before the range check.
    #[inline]
    pub(crate) fn eval(&self, st: &[i32]) -> i64 {
        // Most operands are one constant or one slot: no stack for them.
        match &*self.0 {
            [Op::Const(c)] => return *c,
            [Op::Slot(p)] => {
                let v = st[*p as usize];
                return if v == BOT { NONE } else { v as i64 };
            }
            _ => {}
        }
        let mut s = [0i64; STACK];
        let mut n = 0;
        // SAFETY: `Prog::of` only builds well-formed postfix programs whose stack never
        // exceeds `STACK` (`flatten` computes the depth), so every push is below `STACK`
        // and every pop finds its operands.
        unsafe {
            let top = s.as_mut_ptr();
            for op in self.0.iter() {
                // What the SAFETY argument rests on, checked in debug builds and tests: a
                // push finds room, a unary operation one operand, a binary one two.
                debug_assert!(
                    match op {
                        Op::Neg | Op::Abs => n >= 1,
                        Op::Bin(_) | Op::MinMax(_) => n >= 2,
                        _ => n < STACK,
                    },
                    "evaluation stack out of bounds: depth {n} at {op:?}"
                );
                match op {
                    Op::Const(c) => {
                        *top.add(n) = *c;
                        n += 1;
                    }
                    Op::Slot(p) => {
                        *top.add(n) = slot(st, *p);
                        n += 1;
                    }
                    Op::Neg => *top.add(n - 1) = unary(*top.add(n - 1), |x| in_range(-x)),
                    Op::Abs => *top.add(n - 1) = unary(*top.add(n - 1), |x| in_range(x.abs())),
                    Op::Bin(op) => {
                        n -= 1;
                        *top.add(n - 1) = binary(*op, *top.add(n - 1), *top.add(n));
                    }
                    Op::BinSS(op, p, q) => {
                        *top.add(n) = binary(*op, slot(st, *p), slot(st, *q));
                        n += 1;
                    }
                    Op::BinSC(op, p, c) => {
                        *top.add(n) = binary(*op, slot(st, *p), *c as i64);
                        n += 1;
                    }
                    Op::BinCS(op, c, q) => {
                        *top.add(n) = binary(*op, *c as i64, slot(st, *q));
                        n += 1;
                    }
                    Op::MinMax(m) => {
                        n -= 1;
                        let (x, y) = (*top.add(n - 1), *top.add(n));
                        *top.add(n - 1) = if x == FAIL || y == FAIL {
                            FAIL
                        } else if x == NONE || y == NONE {
                            NONE
                        } else {
                            min_max(*m, x, y)
                        };
                    }
                    Op::If(b) => {
                        *top.add(n) = match b.0.eval(st) {
                            Ok(true) => b.1.eval(st),
                            Ok(false) => b.2.eval(st),
                            Err(Fallback) => FAIL,
                        };
                        n += 1;
                    }
                }
            }
        }
        s[0]
    }
}

/// Appends the postfix form of `e` to `ops`; returns the stack depth it needs.
fn flatten(e: &CExpr, ops: &mut Vec<Op>) -> Option<usize> {
    Some(match e {
        CExpr::Const(c) => {
            ops.push(Op::Const(*c));
            1
        }
        CExpr::Slot(p) => {
            ops.push(Op::Slot(*p));
            1
        }
        CExpr::Neg(a) | CExpr::Abs(a) => {
            let d = flatten(a, ops)?;
            ops.push(if matches!(e, CExpr::Neg(_)) { Op::Neg } else { Op::Abs });
            d
        }
        CExpr::Bin(op, a, b) if leaf(a).is_some() && leaf(b).is_some() => {
            ops.push(match (leaf(a)?, leaf(b)?) {
                (Leaf::Slot(p), Leaf::Slot(q)) => Op::BinSS(*op, p, q),
                (Leaf::Slot(p), Leaf::Const(c)) => Op::BinSC(*op, p, c),
                (Leaf::Const(c), Leaf::Slot(q)) => Op::BinCS(*op, c, q),
                // Folded when compiling; kept general all the same.
                (Leaf::Const(x), Leaf::Const(y)) => {
                    ops.push(Op::Const(x as i64));
                    ops.push(Op::Const(y as i64));
                    ops.push(Op::Bin(*op));
                    return Some(2);
                }
            });
            1
        }
        CExpr::Bin(_, a, b) | CExpr::MinMax(_, a, b) => {
            let (da, db) = (flatten(a, ops)?, flatten(b, ops)?);
            ops.push(match e {
                CExpr::Bin(op, ..) => Op::Bin(*op),
                CExpr::MinMax(m, ..) => Op::MinMax(*m),
                _ => unreachable!("matched above"),
            });
            da.max(db + 1)
        }
        CExpr::If(c, a, b) => {
            ops.push(Op::If(Box::new(((**c).clone(), Prog::of(a)?, Prog::of(b)?))));
            1
        }
    })
}

/// An operand that is a slot or a constant within `i32` (every value is).
enum Leaf {
    Slot(u32),
    Const(i32),
}

fn leaf(e: &CExpr) -> Option<Leaf> {
    match e {
        CExpr::Slot(p) => Some(Leaf::Slot(*p)),
        CExpr::Const(c) => i32::try_from(*c).ok().map(Leaf::Const),
        _ => None,
    }
}

/// Slot `p` of `st` as an operand (`NONE` for ⊥).
#[inline(always)]
fn slot(st: &[i32], p: u32) -> i64 {
    let v = st[p as usize];
    if v == BOT { NONE } else { v as i64 }
}

#[inline(always)]
fn unary(x: i64, f: impl Fn(i64) -> i64) -> i64 {
    if x == FAIL || x == NONE { x } else { f(x) }
}

#[inline(always)]
fn binary(op: BinOp, x: i64, y: i64) -> i64 {
    // Both sentinels are below every value: one comparison for the common case.
    if x.min(y) <= FAIL {
        return if x == FAIL || y == FAIL { FAIL } else { NONE };
    }
    match op {
        BinOp::Add => in_range(x + y),
        BinOp::Sub => in_range(x - y),
        BinOp::Mul => in_range(x * y),
        _ => arith::binary(op, x, y).unwrap_or(FAIL),
    }
}

impl CBExpr {
    /// Whether the predicate holds in `st`; a comparison with ⊥ is false (D10).
    #[inline]
    pub(crate) fn eval(&self, st: &[i32]) -> Result<bool, Fallback> {
        Ok(match self {
            CBExpr::Const(c) => *c,
            CBExpr::Not(x) => !x.eval(st)?,
            CBExpr::Cmp(op, a, b) => {
                let x = a.eval(st);
                if x == FAIL {
                    return Err(Fallback);
                }
                let y = b.eval(st);
                if y == FAIL {
                    return Err(Fallback);
                }
                x != NONE && y != NONE && op.holds(x, y)
            }
            CBExpr::And(x, y) => x.eval(st)? && y.eval(st)?,
            CBExpr::Or(x, y) => x.eval(st)? || y.eval(st)?,
        })
    }
}

#[cfg(test)]
#[path = "expr_tests.rs"]
mod tests;
