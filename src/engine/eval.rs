//! Expression and predicate evaluation with ⊥ (D10), run-time errors (D9) and
//! nondeterminism (a choice-sequence oracle that the caller backtracks over).

use super::state::{BOT, Layout};
use crate::model::arith::{self, ArithError};
use crate::model::{AgentRef, BExpr, Expr, Model, QPred, Store, VarRef};
use crate::syntax::ast::{MinMax, QuantKind};

/// A value: `None` is ⊥.
pub(crate) type Val = Option<i64>;

/// Why an evaluation produced no value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The step is disabled (⊥ where a definite value is needed, empty choice).
    Disabled,
    /// A run-time error of the model (division by zero, overflow, out of range).
    Error(String),
}

pub(crate) type R<T> = Result<T, Stop>;

/// How ⊥ in an index / `of` operand / `[a..b]` bound is treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// In steps: it disables the step.
    Step,
    /// In links, properties and assumptions: the reference reads as ⊥.
    Pred,
}

pub(crate) use crate::model::arith::MAX_RANGE_CHOICES;

/// A choice-sequence oracle: every evaluation of `[a..b]` (and every `pick` choice) asks
/// `choose`; `advance` moves to the next untried sequence (depth-first).
#[derive(Clone, Debug, Default)]
pub(crate) struct Chooser {
    trail: Vec<(i64, i64)>,
    pos: usize,
}

impl Chooser {
    pub(crate) fn reset(&mut self) {
        self.trail.clear();
        self.pos = 0;
    }
    pub(crate) fn start(&mut self) {
        self.pos = 0;
    }
    /// A value in `lo..hi` (`lo < hi`).
    pub(crate) fn choose(&mut self, lo: i64, hi: i64) -> i64 {
        debug_assert!(lo < hi);
        let v = if self.pos < self.trail.len() {
            self.trail[self.pos].0
        } else {
            self.trail.push((lo, hi));
            lo
        };
        self.pos += 1;
        v
    }
    /// Advances to the next choice sequence; false when all were tried.
    pub(crate) fn advance(&mut self) -> bool {
        self.trail.truncate(self.pos);
        while let Some(last) = self.trail.last_mut() {
            if last.0 + 1 < last.1 {
                last.0 += 1;
                return true;
            }
            self.trail.pop();
        }
        false
    }
}

/// What the evaluation reads besides the state.
pub(crate) struct Ctx<'a> {
    pub(crate) model: &'a Model,
    pub(crate) lay: &'a Layout,
    /// The acting agent (`id`).
    pub(crate) me: Option<usize>,
    pub(crate) c1: Option<usize>,
    pub(crate) c2: Option<usize>,
    pub(crate) mode: Mode,
}

/// Mutable evaluation scratch: quantified variables, block locals, the choice oracle.
#[derive(Default)]
pub struct Scratch {
    pub(crate) qvars: Vec<i64>,
    pub(crate) locals: Vec<i32>,
    pub(crate) chooser: Chooser,
}

pub(crate) fn arith_err(e: ArithError) -> Stop {
    match e {
        ArithError::DivisionByZero => Stop::Error("division by zero".into()),
        ArithError::Overflow => Stop::Error("arithmetic overflow".into()),
    }
}

#[inline]
fn from_slot(v: i32) -> Val {
    if v == BOT { None } else { Some(v as i64) }
}

/// Converts a value to a slot, checking the value range.
pub(crate) fn to_slot(v: Val) -> R<i32> {
    match v {
        None => Ok(BOT),
        Some(x) if (arith::MIN_VALUE..=arith::MAX_VALUE).contains(&x) => Ok(x as i32),
        Some(_) => Err(Stop::Error("arithmetic overflow".into())),
    }
}

impl Ctx<'_> {
    fn bot<T>(&self, v: T) -> R<T> {
        match self.mode {
            Mode::Step => Err(Stop::Disabled),
            Mode::Pred => Ok(v),
        }
    }

    fn agent(&self, st: &[i32], sc: &mut Scratch, r: &AgentRef) -> R<Option<usize>> {
        let a = match r {
            AgentRef::Own => {
                return self.me.map(Some).ok_or_else(|| Stop::Error("`id` used outside an agent".into()));
            }
            AgentRef::C1 => {
                return self.c1.map(Some).ok_or_else(|| Stop::Error("`c1` used outside a link".into()));
            }
            AgentRef::C2 => {
                return self.c2.map(Some).ok_or_else(|| Stop::Error("`c2` used outside a link".into()));
            }
            AgentRef::Of(e) => self.eval(st, sc, e)?,
        };
        match a {
            None => self.bot(None),
            Some(a) if a >= 0 && (a as usize) < self.lay.n_agents => Ok(Some(a as usize)),
            Some(a) => Err(Stop::Error(format!("agent id {a} out of range (0..{})", self.lay.n_agents))),
        }
    }

    /// The state slot a variable reference denotes (`None`: ⊥ index or agent in Pred mode).
    pub(crate) fn var_slot(&self, st: &[i32], sc: &mut Scratch, vr: &VarRef) -> R<Option<usize>> {
        let var = &self.model.vars[vr.var];
        let owner = match var.store {
            Store::Env => None,
            _ => match self.agent(st, sc, &vr.owner)? {
                None => return Ok(None),
                Some(a) => Some(a),
            },
        };
        let k = match self.index(st, sc, &var.dims, &vr.indices, &var.name)? {
            None => return Ok(None),
            Some(k) => k,
        };
        let slot = var.offset + k;
        Ok(Some(match (var.store, owner) {
            (Store::Env, _) => slot,
            (Store::Attr, Some(a)) => self.lay.attr(a, slot),
            (Store::Stig { .. }, Some(a)) => self.lay.stig(a, slot),
            _ => unreachable!(),
        }))
    }

    /// Row-major element number of `indices` within `dims`.
    pub(crate) fn index(
        &self,
        st: &[i32],
        sc: &mut Scratch,
        dims: &[usize],
        indices: &[Expr],
        name: &str,
    ) -> R<Option<usize>> {
        let mut k = 0usize;
        for (d, ie) in dims.iter().zip(indices) {
            let i = match self.eval(st, sc, ie)? {
                None => return self.bot(None),
                Some(i) => i,
            };
            if i < 0 || i as usize >= *d {
                return Err(Stop::Error(format!("index {i} out of range for `{name}` (size {d})")));
            }
            k = k * d + i as usize;
        }
        Ok(Some(k))
    }

    fn local_slot(
        &self,
        st: &[i32],
        sc: &mut Scratch,
        slot: usize,
        len: usize,
        index: Option<&Expr>,
    ) -> R<Option<usize>> {
        match index {
            None => Ok(Some(slot)),
            Some(ie) => {
                let i = match self.eval(st, sc, ie)? {
                    None => return self.bot(None),
                    Some(i) => i,
                };
                if i < 0 || i as usize >= len {
                    return Err(Stop::Error(format!("index {i} out of range for a local array (size {len})")));
                }
                Ok(Some(slot + i as usize))
            }
        }
    }

    pub(crate) fn eval(&self, st: &[i32], sc: &mut Scratch, e: &Expr) -> R<Val> {
        Ok(match e {
            Expr::Const(c) => Some(*c),
            Expr::AgentId(r) => self.agent(st, sc, r)?.map(|a| a as i64),
            Expr::Var(vr) if vr.indices.is_empty() && !matches!(vr.owner, AgentRef::Of(_)) => {
                // Fast path: a scalar of the acting agent, c1, c2 or the environment.
                let var = &self.model.vars[vr.var];
                let owner = match vr.owner {
                    AgentRef::Own => self.me,
                    AgentRef::C1 => self.c1,
                    AgentRef::C2 => self.c2,
                    AgentRef::Of(_) => None,
                };
                let pos = match (var.store, owner) {
                    (Store::Env, _) => Some(var.offset),
                    (Store::Attr, Some(a)) => Some(self.lay.attr(a, var.offset)),
                    (Store::Stig { .. }, Some(a)) => Some(self.lay.stig(a, var.offset)),
                    _ => None,
                };
                match pos {
                    Some(p) => from_slot(st[p]),
                    None => match self.var_slot(st, sc, vr)? {
                        None => None,
                        Some(s) => from_slot(st[s]),
                    },
                }
            }
            Expr::Var(vr) => match self.var_slot(st, sc, vr)? {
                None => None,
                Some(s) => from_slot(st[s]),
            },
            Expr::Local { slot, len, index } => match self.local_slot(st, sc, *slot, *len, index.as_deref())? {
                None => None,
                Some(s) => from_slot(*sc.locals.get(s).ok_or_else(|| Stop::Error("local slot out of range".into()))?),
            },
            Expr::QVar(i) => Some(*sc.qvars.get(*i).ok_or_else(|| Stop::Error("unbound quantified variable".into()))?),
            Expr::Neg(a) => match self.eval(st, sc, a)? {
                None => None,
                Some(x) => Some(arith::neg(x).map_err(arith_err)?),
            },
            Expr::Abs(a) => match self.eval(st, sc, a)? {
                None => None,
                Some(x) => Some(arith::abs(x).map_err(arith_err)?),
            },
            Expr::Bin(op, a, b) => {
                let x = self.eval(st, sc, a)?;
                let y = self.eval(st, sc, b)?;
                match (x, y) {
                    (Some(x), Some(y)) => Some(arith::binary(*op, x, y).map_err(arith_err)?),
                    _ => None,
                }
            }
            Expr::MinMax(m, a, b) => {
                let x = self.eval(st, sc, a)?;
                let y = self.eval(st, sc, b)?;
                match (x, y) {
                    (Some(x), Some(y)) => Some(match m {
                        MinMax::Min => x.min(y),
                        MinMax::Max => x.max(y),
                    }),
                    _ => None,
                }
            }
            Expr::If(c, a, b) => {
                if self.eval_b(st, sc, c)? {
                    self.eval(st, sc, a)?
                } else {
                    self.eval(st, sc, b)?
                }
            }
            Expr::NonDet(a, b) => {
                let lo = self.eval(st, sc, a)?;
                let hi = self.eval(st, sc, b)?;
                match (lo, hi) {
                    (Some(lo), Some(hi)) => {
                        if self.mode == Mode::Pred {
                            return Err(Stop::Error("nondeterministic value `[a..b]` in a predicate".into()));
                        }
                        if lo >= hi {
                            return Err(Stop::Disabled);
                        }
                        if hi - lo > MAX_RANGE_CHOICES {
                            return Err(Stop::Error(format!(
                                "the nondeterministic value `[{lo}..{hi}]` has {} choices, more than the {MAX_RANGE_CHOICES} \
                                 a step may enumerate",
                                hi - lo
                            )));
                        }
                        Some(sc.chooser.choose(lo, hi))
                    }
                    _ => return self.bot(None),
                }
            }
        })
    }

    pub(crate) fn eval_b(&self, st: &[i32], sc: &mut Scratch, b: &BExpr) -> R<bool> {
        Ok(match b {
            BExpr::Const(c) => *c,
            BExpr::Not(x) => !self.eval_b(st, sc, x)?,
            BExpr::Cmp(op, a, b) => {
                let x = self.eval(st, sc, a)?;
                let y = self.eval(st, sc, b)?;
                match (x, y) {
                    (Some(x), Some(y)) => op.holds(x, y),
                    _ => false,
                }
            }
            BExpr::And(a, b) => self.eval_b(st, sc, a)? && self.eval_b(st, sc, b)?,
            BExpr::Or(a, b) => self.eval_b(st, sc, a)? || self.eval_b(st, sc, b)?,
        })
    }

    /// A quantified predicate; its quantifiers bind `QVar(base..)` where `base` is the number
    /// of variables already bound in `sc.qvars`.
    pub(crate) fn eval_q(&self, st: &[i32], sc: &mut Scratch, q: &QPred) -> R<bool> {
        let base = sc.qvars.len();
        let r = self.eval_q_from(st, sc, q, 0);
        sc.qvars.truncate(base);
        r
    }

    fn eval_q_from(&self, st: &[i32], sc: &mut Scratch, q: &QPred, i: usize) -> R<bool> {
        if i == q.quants.len() {
            return self.eval_b(st, sc, &q.body);
        }
        let (kind, ty) = q.quants[i];
        let ids = self.model.agent_types[ty].ids();
        let want = matches!(kind, QuantKind::Exists);
        for a in ids {
            sc.qvars.push(a as i64);
            let r = self.eval_q_from(st, sc, q, i + 1);
            sc.qvars.pop();
            if r? == want {
                return Ok(want);
            }
        }
        Ok(!want)
    }
}
