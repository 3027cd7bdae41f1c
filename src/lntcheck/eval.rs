//! Evaluation of expressions and function bodies (run-time errors are located messages).

use super::ast::{BinOp, Mode};
use super::sem::*;
use crate::analysis::intervals::{IntervalSet, NEG_INF, POS_INF};
use crate::diagnostics::Located;
use crate::diagnostics::span::Span;

pub(crate) type Env = Vec<Option<Value>>;
type R<T> = Result<T, Located>;

/// LNT's `Int` and `Nat` are machine integers in CADP; we compute on `i64` and report values
/// outside 32 bits as errors.
fn int(v: i64, pos: Span) -> R<Value> {
    if v < i32::MIN as i64 || v > i32::MAX as i64 {
        return Err(Located::new(pos, format!("integer overflow ({v})")));
    }
    Ok(Value::I(v))
}

pub(crate) fn as_int(v: &Value, pos: Span) -> R<i64> {
    match v {
        Value::I(i) => Ok(*i),
        _ => Err(Located::new(pos, "a number was expected")),
    }
}

pub(crate) fn as_bool(v: &Value, pos: Span) -> R<bool> {
    match v {
        Value::B(b) => Ok(*b),
        _ => Err(Located::new(pos, "a Boolean was expected")),
    }
}

/// The position an expression's errors are reported at.
pub(crate) fn pos_of(e: &CE) -> Span {
    match e {
        CE::Var(_, p)
        | CE::Call(_, _, p)
        | CE::Pre(_, _, p)
        | CE::Index(_, _, p)
        | CE::Bin(_, _, _, p)
        | CE::Neg(_, p) => *p,
        CE::Not(a) => pos_of(a),
        CE::Const(_) => Span::default(),
    }
}

pub(crate) struct Ev<'a> {
    pub(crate) p: &'a Program,
    pub(crate) depth: u32,
}

enum Flow {
    Normal,
    Ret(Option<Value>),
}

impl Ev<'_> {
    pub(crate) fn eval(&mut self, env: &[Option<Value>], e: &CE) -> R<Value> {
        Ok(match e {
            CE::Const(v) => v.clone(),
            CE::Var(s, pos) => match &env[*s as usize] {
                Some(v) => v.clone(),
                None => return Err(Located::new(*pos, "variable used before being assigned")),
            },
            CE::Call(f, args, pos) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(env, a)?);
                }
                let (r, _) = self.call(*f, vals, *pos)?;
                match r {
                    Some(v) => v,
                    None => return Err(Located::new(*pos, "function returned no value")),
                }
            }
            CE::Pre(pre, a, pos) => {
                let v = self.eval(env, a)?;
                match pre {
                    Pre::NatToInt => v,
                    Pre::IntToNat => {
                        let i = as_int(&v, *pos)?;
                        if i < 0 {
                            return Err(Located::new(*pos, format!("IntToNat of a negative number ({i})")));
                        }
                        v
                    }
                    Pre::ArrNew(n) => Value::A(vec![v; *n].into()),
                }
            }
            CE::Index(a, i, pos) => {
                let av = self.eval(env, a)?;
                let iv = as_int(&self.eval(env, i)?, *pos)?;
                match av {
                    Value::A(xs) => {
                        if iv < 0 || iv as usize >= xs.len() {
                            return Err(Located::new(
                                *pos,
                                format!("array index {iv} out of range 0 .. {}", xs.len() - 1),
                            ));
                        }
                        xs[iv as usize].clone()
                    }
                    _ => return Err(Located::new(*pos, "indexing a value that is not an array")),
                }
            }
            CE::Bin(op, a, b, pos) => {
                // `and`/`or`: evaluated left to right with short circuit (LNT's `and then`
                // semantics is not guaranteed for `and`; see docs/lntcheck.md)
                if *op == BinOp::And || *op == BinOp::Or {
                    let x = as_bool(&self.eval(env, a)?, pos_of(a))?;
                    if (*op == BinOp::And && !x) || (*op == BinOp::Or && x) {
                        return Ok(Value::B(x));
                    }
                    return Ok(Value::B(as_bool(&self.eval(env, b)?, pos_of(b))?));
                }
                let x = self.eval(env, a)?;
                let y = self.eval(env, b)?;
                match op {
                    BinOp::Eq => Value::B(x == y),
                    BinOp::Ne => Value::B(x != y),
                    _ => {
                        let (x, y) = (as_int(&x, *pos)?, as_int(&y, *pos)?);
                        match op {
                            BinOp::Add => int(x + y, *pos)?,
                            BinOp::Sub => int(x - y, *pos)?,
                            BinOp::Mul => int(x * y, *pos)?,
                            BinOp::Div | BinOp::Mod => {
                                if y == 0 {
                                    return Err(Located::new(*pos, "division by zero"));
                                }
                                // LNT: `div` truncates; `mod` has the sign of the divisor
                                if *op == BinOp::Div {
                                    int(x / y, *pos)?
                                } else {
                                    let r = x % y;
                                    int(if r != 0 && ((r < 0) != (y < 0)) { r + y } else { r }, *pos)?
                                }
                            }
                            BinOp::Lt => Value::B(x < y),
                            BinOp::Le => Value::B(x <= y),
                            BinOp::Gt => Value::B(x > y),
                            BinOp::Ge => Value::B(x >= y),
                            _ => unreachable!(),
                        }
                    }
                }
            }
            CE::Neg(a, pos) => int(-as_int(&self.eval(env, a)?, *pos)?, *pos)?,
            CE::Not(a) => Value::B(!as_bool(&self.eval(env, a)?, pos_of(a))?),
        })
    }

    pub(crate) fn eval_bool(&mut self, env: &[Option<Value>], e: &CE) -> R<bool> {
        let v = self.eval(env, e)?;
        as_bool(&v, pos_of(e))
    }

    /// Calls function `f`; returns its result and the final values of its parameters.
    pub(crate) fn call(&mut self, f: u32, args: Vec<Value>, pos: Span) -> R<(Option<Value>, Env)> {
        let p = self.p;
        let cf = &p.funcs[f as usize];
        if args.len() != cf.modes.len() {
            return Err(Located::new(
                pos,
                format!("`{}` takes {} arguments, {} given", cf.name, cf.modes.len(), args.len()),
            ));
        }
        if self.depth > 200 {
            return Err(Located::new(pos, "call depth exceeded (recursion?)"));
        }
        self.depth += 1;
        let mut env: Env = vec![None; cf.nslots];
        for (i, (a, m)) in args.into_iter().zip(&cf.modes).enumerate() {
            if *m != Mode::Out {
                env[i] = Some(a);
            }
        }
        // The depth counts the calls under way, also after an error (the explorer goes on to
        // other states).
        let r = self.exec(&mut env, &cf.body);
        self.depth -= 1;
        let r = r?;
        Ok((
            match r {
                Flow::Ret(v) => v,
                Flow::Normal => None,
            },
            env,
        ))
    }

    /// `eval f (args)` in environment `env` (in-out arguments written back).
    pub(crate) fn eval_stmt(&mut self, env: &mut Env, f: u32, args: &[CArg], pos: Span) -> R<()> {
        let mut vals = vec![];
        for a in args {
            vals.push(match a {
                CArg::In(e) => self.eval(env, e)?,
                CArg::Ref(s) => env[*s as usize].clone().unwrap_or(Value::I(0)),
            });
        }
        let (_, fenv) = self.call(f, vals, pos)?;
        for (i, a) in args.iter().enumerate() {
            if let CArg::Ref(s) = a {
                match &fenv[i] {
                    Some(v) => env[*s as usize] = Some(v.clone()),
                    None => return Err(Located::new(pos, "out parameter not assigned by the function")),
                }
            }
        }
        Ok(())
    }

    pub(crate) fn assign(&mut self, env: &mut Env, slot: u32, idx: &Option<CE>, e: &CE, pos: Span) -> R<()> {
        let v = self.eval(env, e)?;
        match idx {
            None => env[slot as usize] = Some(v),
            Some(i) => {
                let iv = as_int(&self.eval(env, i)?, pos)?;
                let Some(Value::A(xs)) = &env[slot as usize] else {
                    return Err(Located::new(pos, "array element written before the array is assigned"));
                };
                if iv < 0 || iv as usize >= xs.len() {
                    return Err(Located::new(pos, format!("array index {iv} out of range 0 .. {}", xs.len() - 1)));
                }
                let mut ys: Vec<Value> = xs.to_vec();
                ys[iv as usize] = v;
                env[slot as usize] = Some(Value::A(ys.into()));
            }
        }
        Ok(())
    }

    fn exec(&mut self, env: &mut Env, s: &FS) -> R<Flow> {
        match s {
            FS::Seq(v) => {
                for x in v {
                    if let Flow::Ret(r) = self.exec(env, x)? {
                        return Ok(Flow::Ret(r));
                    }
                }
            }
            FS::Assign(slot, idx, e, pos) => self.assign(env, *slot, idx, e, *pos)?,
            FS::If(arms, els) => {
                for (c, b) in arms {
                    if self.eval_bool(env, c)? {
                        return self.exec(env, b);
                    }
                }
                if let Some(b) = els {
                    return self.exec(env, b);
                }
            }
            FS::While(c, b) => {
                let mut n = 0u64;
                while self.eval_bool(env, c)? {
                    if let Flow::Ret(r) = self.exec(env, b)? {
                        return Ok(Flow::Ret(r));
                    }
                    n += 1;
                    if n > 100_000_000 {
                        return Err(Located::new(pos_of(c), "loop does not terminate"));
                    }
                }
            }
            FS::Return(e) => {
                return Ok(Flow::Ret(match e {
                    Some(e) => Some(self.eval(env, e)?),
                    None => None,
                }));
            }
            FS::Eval(f, args, pos) => self.eval_stmt(env, *f, args, *pos)?,
            FS::Null => {}
            FS::Reset(slots, b) => {
                for s in slots {
                    env[*s as usize] = None;
                }
                return self.exec(env, b);
            }
        }
        Ok(Flow::Normal)
    }

    /// The values of an input its `where` clause allows (every integer when it says nothing;
    /// a comparison with an expression that cannot be evaluated yet says nothing either).
    pub(crate) fn input_set(&mut self, env: &[Option<Value>], b: &Bounds) -> IntervalSet {
        fn go(ev: &mut Ev, env: &[Option<Value>], b: &DomExpr) -> IntervalSet {
            let mut value = |e: &CE| ev.eval(env, e).ok().and_then(|v| as_int(&v, Span::default()).ok());
            match b {
                DomExpr::AtLeast(e) => value(e).map_or_else(every_integer, |v| IntervalSet::range(v, POS_INF)),
                DomExpr::AtMost(e) => value(e).map_or_else(every_integer, |v| IntervalSet::range(NEG_INF, v)),
                DomExpr::Equal(e) => value(e).map_or_else(every_integer, IntervalSet::singleton),
                DomExpr::And(v) => v.iter().fold(every_integer(), |acc, x| acc.meet(&go(ev, env, x))),
                DomExpr::Or(v) => v.iter().fold(IntervalSet::empty(), |acc, x| acc.join(&go(ev, env, x))),
                DomExpr::Empty => IntervalSet::empty(),
            }
        }
        b.as_ref().map_or_else(every_integer, |b| go(self, env, b))
    }
}

/// The values an input takes when its `where` clause says nothing of it.
pub(crate) fn every_integer() -> IntervalSet {
    IntervalSet::range(NEG_INF, POS_INF)
}

/// The values of `Nat` or `Int` enumerated, as the module's range pragmas (`!nat_inf`,
/// `!nat_sup`, `!int_inf`, `!int_sup`) fix them; unbounded where they say nothing.
fn enumerated_range(p: &Program, t: Ty) -> IntervalSet {
    let (inf, sup, lo) = if t == Ty::Nat { ("nat_inf", "nat_sup", 0) } else { ("int_inf", "int_sup", NEG_INF) };
    let pragma = |name: &str| p.module.pragmas.iter().rev().find(|(n, _)| n == name).map(|&(_, v)| v);
    IntervalSet::range(pragma(inf).unwrap_or(lo).max(lo), pragma(sup).unwrap_or(POS_INF))
}

/// The finite domain of an input of type `t` among the values of `set` (and of the enumerated
/// range of its type); `Err` names what is unbounded or too large to enumerate.
pub(crate) fn domain(p: &Program, t: Ty, set: &IntervalSet) -> Result<Vec<Value>, super::LntcheckError> {
    const MAX: u64 = 1 << 20;
    let unsupported = super::LntcheckError::Unsupported;
    match t {
        Ty::Bool => Ok(vec![Value::B(false), Value::B(true)]),
        Ty::User(i) => match &p.types[i as usize].kind {
            TyKind::Enum { first, n } => Ok((*first..first + n).map(Value::E).collect()),
            TyKind::Array { .. } => Err(unsupported("an input of an array type cannot be enumerated".into())),
        },
        Ty::Nat | Ty::Int => {
            let set = set.meet(&enumerated_range(p, t));
            match (set.min(), set.max()) {
                (None, _) | (_, None) => Ok(vec![]),
                (Some(NEG_INF), _) => Err(unsupported("no lower bound".into())),
                (_, Some(POS_INF)) => Err(unsupported("no upper bound".into())),
                (Some(lo), Some(hi)) => match set.iter_values(MAX) {
                    Some(values) => Ok(values.map(Value::I).collect()),
                    None => Err(unsupported(format!("domain {lo} .. {hi} too large"))),
                },
            }
        }
    }
}
