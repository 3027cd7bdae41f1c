//! One MCL (evaluator4) query per property, tracking the values the property reads through
//! the observation labels of the LNT program.
//!
//! Quantifiers are expanded over the agents of their type (textual nesting order), `x of a`
//! becomes a fixpoint parameter per (agent, variable, element) (environment variables: per
//! element), and the predicate is printed fully parenthesised, with constants folded so that
//! no empty conjunction or disjunction is ever printed. Parameters are ordered canonically
//! (environment first, then by agent id, then by slot), and every formal list, actual list
//! and update clause is generated from that one list.
//!
//! The predicate is evaluated only in the real states of the semantics: the states reached by a
//! `DONE` transition (the barrier every agent passes at the end of its initialisation and of
//! every step). Between a `DONE` and the next one the tracked values may be half-updated.

use super::{EmitError, names};
use crate::analysis::values::ValueAnalysis;
use crate::model::arith;
use crate::model::{AgentRef, BExpr, Expr, Modality, Model, Property, QPred, Store, VarId};
use crate::syntax::ast::{BinOp, CmpOp, MinMax, QuantKind};
use std::collections::{BTreeMap, BTreeSet};

/// A tracked value: (agent, or `None` for the environment; variable; element).
pub(crate) type TrackKey = (Option<usize>, VarId, usize);

/// A property query, ready for `svl/query.mcl`.
#[derive(Clone, Debug)]
pub struct Query {
    pub(crate) name: String,
    pub(crate) text: String,
    /// `always`, `finally`, `fairly` or `fairly_inf`.
    pub(crate) kind: &'static str,
    pub(crate) keys: Vec<TrackKey>,
    /// Formal parameters `s_i` of the initialisation phase, `v_i` of the main fixpoint and
    /// `r_i` of the reachability fixpoint (same order).
    pub(crate) sparams: Vec<String>,
    pub(crate) params: Vec<String>,
    /// The initial value of each `s_i` (0: set by the initialisation labels).
    pub(crate) zeros: Vec<String>,
    pub(crate) rparams: Vec<String>,
    /// One update clause per tracked value: the action pattern binding the new value `w` and
    /// the actual parameters with `w` in its place.
    pub(crate) updates: Vec<Update>,
    /// The action formula of every transition that is neither `DONE` nor a tracked update.
    pub(crate) irrelevant: String,
    /// The predicate over `v_i`, and over `r_i`.
    pub(crate) pred: String,
    pub(crate) rpred: String,
    /// When evaluating the predicate meets a run-time error (D9), over `v_i`; `None`: never.
    pub(crate) err_pred: Option<String>,
    /// The observation gates the query needs (plus `DONE`).
    pub(crate) gates: Vec<String>,
    pub vars: BTreeSet<VarId>,
    /// Whether the program can abandon read attempts (visible `ABANDON` steps back to the
    /// state the attempt started from): `finally` does not follow them.
    pub(crate) abandon: bool,
    /// A linear-time property's monitor (`kind` is `ltl`).
    pub(crate) monitor: Option<MonitorRef>,
}

/// The processes that check a linear-time property: the monitor, and the root composing it
/// with `MAIN` (docs/lnt-encoding.md §2, Monitors).
#[derive(Clone, Debug)]
pub(crate) struct MonitorRef {
    pub(crate) process: String,
    pub(crate) root: String,
    /// The monitor's gates, and those it synchronises on with `MAIN` (`DONE`, `ATOMS_P`).
    pub(crate) gates: Vec<String>,
    pub(crate) sync: Vec<String>,
    /// The observer of its atoms (`Observer_P [gates]`), and what it synchronises on with the
    /// agents' composition (`DONE`, the observation gates it reads); `None`: no atom reads a
    /// variable.
    pub(crate) observer: Option<(String, Vec<String>)>,
}

#[derive(Clone, Debug)]
pub(crate) struct Update {
    pub(crate) pattern: String,
    pub(crate) sargs: Vec<String>,
    pub(crate) args: Vec<String>,
    pub(crate) rargs: Vec<String>,
}

impl Query {
    /// The variables of `keys` become observed too (a monitor's tracked values).
    pub(crate) fn observe(&mut self, model: &Model, keys: &[TrackKey]) {
        self.vars.extend(keys.iter().map(|k| k.1));
        let gates: BTreeSet<String> =
            self.gates.iter().cloned().chain(keys.iter().map(|k| names::obs_gate(model, k.1))).collect();
        self.gates = gates.into_iter().collect();
    }

    /// The query checking that the property's predicate never meets a run-time error in a
    /// reachable state (an `always` of its negation), if it can meet one.
    pub(crate) fn error_check(&self) -> Option<Query> {
        let err = self.err_pred.as_ref()?;
        let mut q = self.clone();
        q.kind = "always";
        q.monitor = None;
        q.text = format!("{}; checked here: evaluating it meets no run-time error (D9)", self.text);
        q.pred = format!("(not {err})");
        q.rpred = q.pred.clone();
        q.err_pred = None;
        Some(q)
    }
}

/// The properties to check: all of them, or those named (in the order given).
pub(crate) fn select_properties<'m>(model: &'m Model, names: &[String]) -> Result<Vec<&'m Property>, EmitError> {
    if names.is_empty() {
        return Ok(model.properties.iter().collect());
    }
    names
        .iter()
        .map(|n| {
            model.properties.iter().find(|p| &p.name == n).ok_or_else(|| {
                let avail: Vec<&str> = model.properties.iter().map(|p| p.name.as_str()).collect();
                EmitError {
                    message: format!(
                        "no property named `{n}` (the specification has: {})",
                        if avail.is_empty() { "none".to_string() } else { avail.join(", ") }
                    ),
                }
            })
        })
        .collect()
}

/// The variables read by the queries (they get observation labels in the LNT program).
pub(crate) fn observed_vars(qs: &[Query]) -> BTreeSet<VarId> {
    qs.iter().flat_map(|q| q.vars.iter().copied()).collect()
}

/// A property expression after quantifier expansion: an integer-valued MCL expression over
/// the tracked values (which hold `UNDEF` for ⊥).
#[derive(Clone, Debug, PartialEq)]
enum MExpr {
    Const(i64),
    Param(TrackKey),
    Neg(Box<MExpr>),
    Abs(Box<MExpr>),
    Bin(BinOp, Box<MExpr>, Box<MExpr>),
    /// `div` and `mod` on non-negative operands, the divisor positive (every convention agrees).
    NDiv(Box<MExpr>, Box<MExpr>),
    NMod(Box<MExpr>, Box<MExpr>),
}

#[derive(Clone, Debug, PartialEq)]
enum MBool {
    Const(bool),
    Not(Box<MBool>),
    Cmp(CmpOp, MExpr, MExpr),
    And(Vec<MBool>),
    Or(Vec<MBool>),
}

/// What evaluating an expression gives under one case: a value, ⊥, or a run-time error.
#[derive(Clone, Debug, PartialEq)]
enum Out {
    Val(MExpr),
    Bot,
    Err,
}

/// The cases of an evaluation: mutually exclusive guards over the tracked values, each with
/// what the evaluation gives under it (the guards cover every valuation).
type Cases = Vec<(MBool, Out)>;

/// A Boolean evaluation: when it gives true, and when it meets a run-time error (otherwise it
/// gives false).
struct Truth {
    t: MBool,
    err: MBool,
}

struct Conv<'a> {
    model: &'a Model,
    analysis: &'a ValueAnalysis,
    prop: &'a str,
}

fn not(b: MBool) -> MBool {
    match b {
        MBool::Const(c) => MBool::Const(!c),
        MBool::Not(x) => *x,
        // The query's values are integers (⊥ is one of them): `not (x < y)` is `x >= y`.
        MBool::Cmp(op, x, y) => cmp(crate::analysis::ops::negate(op), x, y),
        x => MBool::Not(Box::new(x)),
    }
}

fn cmp(op: CmpOp, x: MExpr, y: MExpr) -> MBool {
    if let (MExpr::Const(a), MExpr::Const(b)) = (&x, &y) {
        return MBool::Const(op.holds(*a, *b));
    }
    if x == y {
        return MBool::Const(matches!(op, CmpOp::Eq | CmpOp::Le | CmpOp::Ge));
    }
    if matches!(op, CmpOp::Eq | CmpOp::Ne) && orient_key(&y) < orient_key(&x) {
        // Symmetric: one orientation, so that duplicates are recognised.
        return MBool::Cmp(op, y, x);
    }
    MBool::Cmp(op, x, y)
}

fn c(v: i64) -> MExpr {
    MExpr::Const(v)
}

fn bx(e: MExpr) -> Box<MExpr> {
    Box::new(e)
}

/// `|y|` when `y` is not 0, else 1: a divisor that is never 0, so that no evaluation order of
/// the query's `and`/`or` can divide by zero.
fn safe_divisor(y: &MExpr) -> MExpr {
    match y {
        MExpr::Const(v) if *v != 0 => c(v.abs()),
        _ => {
            let a = MExpr::Abs(bx(y.clone()));
            MExpr::Bin(
                BinOp::Add,
                bx(a.clone()),
                bx(MExpr::NDiv(bx(c(1)), bx(MExpr::Bin(BinOp::Add, bx(a), bx(c(1)))))),
            )
        }
    }
}

impl Conv<'_> {
    fn refuse(&self, what: &str) -> EmitError {
        EmitError::unsupported(what, format!("in property `{}`", self.prop))
    }

    /// The analysed range of a tracked value (its defined part), if bounded.
    fn range(&self, e: &MExpr) -> Option<(i128, i128)> {
        Some(match e {
            MExpr::Const(v) => (*v as i128, *v as i128),
            MExpr::Param(k) => {
                let ty = k.0.map(|a| self.model.type_of(a));
                let s = super::domains::var_set(self.model, self.analysis, k.1, ty).defined();
                (s.min()? as i128, s.max()? as i128)
            }
            MExpr::Neg(a) => {
                let (l, h) = self.range(a)?;
                (-h, -l)
            }
            MExpr::Abs(a) => {
                let (l, h) = self.range(a)?;
                if l >= 0 {
                    (l, h)
                } else if h <= 0 {
                    (-h, -l)
                } else {
                    (0, h.max(-l))
                }
            }
            MExpr::Bin(op, a, b) => {
                let ((al, ah), (bl, bh)) = (self.range(a)?, self.range(b)?);
                let f = |x: i128, y: i128| match op {
                    BinOp::Add => x + y,
                    BinOp::Sub => x - y,
                    _ => x * y,
                };
                let cs = [f(al, bl), f(al, bh), f(ah, bl), f(ah, bh)];
                (*cs.iter().min()?, *cs.iter().max()?)
            }
            MExpr::NDiv(a, _) => (0, self.range(a)?.1.max(0)),
            MExpr::NMod(_, b) => (0, self.range(b)?.1.max(0)),
        })
    }

    /// Whether the value of `e` may lie outside `lo..=hi`.
    fn may_leave(&self, e: &MExpr, lo: i64, hi: i64) -> bool {
        self.range(e).is_none_or(|(l, h)| l < lo as i128 || h > hi as i128)
    }

    /// Splits on `e`'s value among `0..n` (an index or an agent): one case per value, and a
    /// run-time error when it may lie outside.
    fn split(&self, g: &MBool, e: &MExpr, n: usize, out: &mut Vec<(MBool, Result<usize, ()>)>) {
        if let MExpr::Const(v) = e {
            out.push((g.clone(), usize::try_from(*v).ok().filter(|v| *v < n).ok_or(())));
            return;
        }
        for k in 0..n {
            if self.range(e).is_none_or(|(l, h)| l <= k as i128 && k as i128 <= h) {
                out.push((and(vec![g.clone(), cmp(CmpOp::Eq, e.clone(), c(k as i64))]), Ok(k)));
            }
        }
        if self.may_leave(e, 0, n as i64 - 1) {
            let outside = or(vec![cmp(CmpOp::Lt, e.clone(), c(0)), cmp(CmpOp::Ge, e.clone(), c(n as i64))]);
            out.push((and(vec![g.clone(), outside]), Err(())));
        }
    }

    /// Whether the value analysis says a tracked value may be ⊥.
    fn may_be_undef(&self, k: &TrackKey) -> bool {
        let ty = k.0.map(|a| self.model.type_of(a));
        super::domains::var_set(self.model, self.analysis, k.1, ty).contains_undef()
    }

    fn cases(&self, e: &Expr, qv: &[i64]) -> Result<Cases, EmitError> {
        let t = MBool::Const(true);
        Ok(match e {
            Expr::Const(v) => vec![(t, Out::Val(c(*v)))],
            Expr::QVar(i) => vec![(t, Out::Val(c(qv[*i])))],
            Expr::AgentId(AgentRef::Of(x)) => {
                let mut out = vec![];
                for (g, o) in self.cases(x, qv)? {
                    match o {
                        Out::Val(v) => {
                            let mut parts = vec![];
                            self.split(&g, &v, self.model.n_agents(), &mut parts);
                            for (g, a) in parts {
                                out.push((g, a.map(|a| Out::Val(c(a as i64))).unwrap_or(Out::Err)));
                            }
                        }
                        o => out.push((g, o)),
                    }
                }
                out
            }
            Expr::AgentId(_) => return Err(self.refuse("`id` without `of` in a property")),
            Expr::Var(r) => self.var(r, qv)?,
            Expr::Local { .. } => return Err(self.refuse("block locals")),
            Expr::Neg(a) | Expr::Abs(a) => {
                let neg = matches!(e, Expr::Neg(_));
                self.cases(a, qv)?
                    .into_iter()
                    .map(|(g, o)| {
                        let o = match o {
                            Out::Val(MExpr::Const(v)) => Out::Val(c(if neg { -v } else { v.abs() })),
                            Out::Val(x) if neg => Out::Val(MExpr::Neg(bx(x))),
                            Out::Val(x) => Out::Val(MExpr::Abs(bx(x))),
                            o => o,
                        };
                        (g, o)
                    })
                    .collect()
            }
            Expr::Bin(op, a, b) => {
                let mut out = vec![];
                for (ga, oa) in self.cases(a, qv)? {
                    let x = match oa {
                        Out::Err => {
                            out.push((ga, Out::Err));
                            continue;
                        }
                        o => o,
                    };
                    for (gb, ob) in self.cases(b, qv)? {
                        let g = and(vec![ga.clone(), gb]);
                        match (&x, ob) {
                            (_, Out::Err) => out.push((g, Out::Err)),
                            (Out::Bot, _) | (_, Out::Bot) => out.push((g, Out::Bot)),
                            (Out::Val(x), Out::Val(y)) => {
                                for (h, o) in self.arith(*op, x, &y) {
                                    out.push((and(vec![g.clone(), h]), o));
                                }
                            }
                            (Out::Err, _) => unreachable!("handled above"),
                        }
                    }
                }
                out
            }
            Expr::MinMax(mm, a, b) => {
                let mut out = vec![];
                for (ga, oa) in self.cases(a, qv)? {
                    if oa == Out::Err {
                        out.push((ga, Out::Err));
                        continue;
                    }
                    for (gb, ob) in self.cases(b, qv)? {
                        let g = and(vec![ga.clone(), gb]);
                        match (&oa, ob) {
                            (_, Out::Err) => out.push((g, Out::Err)),
                            (Out::Bot, _) | (_, Out::Bot) => out.push((g, Out::Bot)),
                            (Out::Val(x), Out::Val(y)) => {
                                let first = if *mm == MinMax::Min { CmpOp::Le } else { CmpOp::Ge };
                                let pick_x = cmp(first, x.clone(), y.clone());
                                out.push((and(vec![g.clone(), pick_x.clone()]), Out::Val(x.clone())));
                                out.push((and(vec![g, not(pick_x)]), Out::Val(y)));
                            }
                            (Out::Err, _) => unreachable!("handled above"),
                        }
                    }
                }
                out
            }
            Expr::If(cond, a, b) => {
                let tr = self.truth(cond, qv)?;
                let mut out = vec![(tr.err.clone(), Out::Err)];
                let ok = not(tr.err.clone());
                for (g, o) in self.cases(a, qv)? {
                    out.push((and(vec![ok.clone(), tr.t.clone(), g]), o));
                }
                for (g, o) in self.cases(b, qv)? {
                    out.push((and(vec![ok.clone(), not(tr.t.clone()), g]), o));
                }
                out
            }
            Expr::NonDet(..) => return Err(self.refuse("`[a..b]`")),
        }
        .into_iter()
        .filter(|(g, _)| *g != MBool::Const(false))
        .collect())
    }

    /// `x op y` on defined values: its value, or an overflow or a division by zero.
    fn arith(&self, op: BinOp, x: &MExpr, y: &MExpr) -> Cases {
        let t = MBool::Const(true);
        if let (MExpr::Const(a), MExpr::Const(b)) = (x, y) {
            return vec![(t, arith::binary(op, *a, *b).map(|v| Out::Val(c(v))).unwrap_or(Out::Err))];
        }
        let (min, max) = (arith::MIN_VALUE, arith::MAX_VALUE);
        match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul => {
                let r = MExpr::Bin(op, bx(x.clone()), bx(y.clone()));
                if !self.may_leave(&r, min, max) {
                    return vec![(t, Out::Val(r))];
                }
                let inside = and(vec![cmp(CmpOp::Ge, r.clone(), c(min)), cmp(CmpOp::Le, r.clone(), c(max))]);
                vec![(inside.clone(), Out::Val(r)), (not(inside), Out::Err)]
            }
            BinOp::Div | BinOp::Mod | BinOp::RDiv => {
                let mut out = vec![];
                let nonzero = match y {
                    MExpr::Const(0) => return vec![(t, Out::Err)],
                    MExpr::Const(_) => t.clone(),
                    _ if self.range(y).is_some_and(|(l, h)| l > 0 || h < 0) => t.clone(),
                    _ => {
                        out.push((cmp(CmpOp::Eq, y.clone(), c(0)), Out::Err));
                        cmp(CmpOp::Ne, y.clone(), c(0))
                    }
                };
                let d = safe_divisor(y);
                let ax = MExpr::Abs(bx(x.clone()));
                let q = MExpr::NDiv(bx(ax.clone()), bx(d.clone()));
                let rem = MExpr::NMod(bx(ax), bx(d.clone()));
                // The signs agree: the quotient keeps its sign.
                let same = or(vec![
                    and(vec![cmp(CmpOp::Lt, x.clone(), c(0)), cmp(CmpOp::Lt, y.clone(), c(0))]),
                    and(vec![cmp(CmpOp::Ge, x.clone(), c(0)), cmp(CmpOp::Ge, y.clone(), c(0))]),
                ]);
                let signed = |v: MExpr| -> Vec<(MBool, MExpr)> {
                    vec![(same.clone(), v.clone()), (not(same.clone()), MExpr::Neg(bx(v)))]
                };
                let vals: Vec<(MBool, MExpr)> = match op {
                    BinOp::Div => signed(q),
                    BinOp::Mod => vec![
                        (
                            and(vec![cmp(CmpOp::Lt, x.clone(), c(0)), cmp(CmpOp::Ne, rem.clone(), c(0))]),
                            MExpr::Bin(BinOp::Sub, bx(d), bx(rem.clone())),
                        ),
                        (or(vec![cmp(CmpOp::Ge, x.clone(), c(0)), cmp(CmpOp::Eq, rem.clone(), c(0))]), rem),
                    ],
                    _ => {
                        // Rounded to the nearest, ties away from zero: up when 2r >= |y|.
                        let up = cmp(CmpOp::Ge, rem.clone(), MExpr::Bin(BinOp::Sub, bx(d), bx(rem)));
                        let q1 = MExpr::Bin(BinOp::Add, bx(q.clone()), bx(c(1)));
                        let mut v = vec![];
                        for (g, x) in signed(q1) {
                            v.push((and(vec![up.clone(), g]), x));
                        }
                        for (g, x) in signed(q) {
                            v.push((and(vec![not(up.clone()), g]), x));
                        }
                        v
                    }
                };
                for (g, v) in vals {
                    out.push((and(vec![nonzero.clone(), g]), Out::Val(v)));
                }
                out
            }
        }
    }

    /// A variable reference: its owner, then its indices, evaluated in order (⊥ makes the
    /// reference ⊥, out of range is an error), then the tracked value (⊥ if it holds `UNDEF`,
    /// or if the owner's type has no such variable).
    fn var(&self, r: &crate::model::VarRef, qv: &[i64]) -> Result<Cases, EmitError> {
        let m = self.model;
        let v = &m.vars[r.var];
        let t = MBool::Const(true);
        // (guard, the owner or `None` for the environment) or what the reference gives.
        let mut owners: Vec<(MBool, Result<Option<usize>, Out>)> = vec![];
        if v.store == Store::Env {
            owners.push((t, Ok(None)));
        } else {
            let AgentRef::Of(x) = &r.owner else {
                return Err(self.refuse("a variable without `of` in a property"));
            };
            for (g, o) in self.cases(x, qv)? {
                match o {
                    Out::Val(a) => {
                        let mut parts = vec![];
                        self.split(&g, &a, m.n_agents(), &mut parts);
                        for (g, a) in parts {
                            owners.push((g, a.map(Some).map_err(|_| Out::Err)));
                        }
                    }
                    o => owners.push((g, Err(o))),
                }
            }
        }
        let mut out = vec![];
        for (g, owner) in owners {
            let owner = match owner {
                Ok(o) => o,
                Err(o) => {
                    out.push((g, o));
                    continue;
                }
            };
            // The element: indices in order.
            let mut elems: Vec<(MBool, Result<usize, Out>)> = vec![(g, Ok(0))];
            for (ie, d) in r.indices.iter().zip(&v.dims) {
                let mut next = vec![];
                for (g, e) in elems {
                    let flat = match e {
                        Ok(f) => f,
                        Err(o) => {
                            next.push((g, Err(o)));
                            continue;
                        }
                    };
                    for (gi, oi) in self.cases(ie, qv)? {
                        let g = and(vec![g.clone(), gi]);
                        match oi {
                            Out::Val(i) => {
                                let mut parts = vec![];
                                self.split(&g, &i, *d, &mut parts);
                                for (g, k) in parts {
                                    next.push((g, k.map(|k| flat * d + k).map_err(|_| Out::Err)));
                                }
                            }
                            o => next.push((g, Err(o))),
                        }
                    }
                }
                elems = next;
            }
            for (g, e) in elems {
                let flat = match e {
                    Ok(f) => f,
                    Err(o) => {
                        out.push((g, o));
                        continue;
                    }
                };
                let has = match owner {
                    None => true,
                    Some(a) => m.type_has_var(m.type_of(a), r.var),
                };
                if !has {
                    out.push((g, Out::Bot));
                    continue;
                }
                let key = (owner, r.var, flat);
                let p = MExpr::Param(key);
                if self.may_be_undef(&key) {
                    let undef = cmp(CmpOp::Eq, p.clone(), c(UNDEF_MARK));
                    out.push((and(vec![g.clone(), undef.clone()]), Out::Bot));
                    out.push((and(vec![g, not(undef)]), Out::Val(p)));
                } else {
                    out.push((g, Out::Val(p)));
                }
            }
        }
        Ok(out)
    }

    /// A Boolean expression.
    fn truth(&self, b: &BExpr, qv: &[i64]) -> Result<Truth, EmitError> {
        Ok(match b {
            BExpr::Const(v) => Truth { t: MBool::Const(*v), err: MBool::Const(false) },
            BExpr::Not(x) => {
                let x = self.truth(x, qv)?;
                Truth { t: and(vec![not(x.t), not(x.err.clone())]), err: x.err }
            }
            BExpr::Cmp(op, x, y) => {
                let (mut t, mut err) = (vec![], vec![]);
                for (gx, ox) in self.cases(x, qv)? {
                    if ox == Out::Err {
                        err.push(gx);
                        continue;
                    }
                    for (gy, oy) in self.cases(y, qv)? {
                        let g = and(vec![gx.clone(), gy]);
                        match (&ox, oy) {
                            (_, Out::Err) => err.push(g),
                            (Out::Val(a), Out::Val(b)) => t.push(and(vec![g, cmp(*op, a.clone(), b)])),
                            _ => {}
                        }
                    }
                }
                Truth { t: or(t), err: or(err) }
            }
            BExpr::And(x, y) => self.conj(self.truth(x, qv)?, self.truth(y, qv)?),
            BExpr::Or(x, y) => self.disj(self.truth(x, qv)?, self.truth(y, qv)?),
        })
    }

    /// `x and y`, short-circuit: `y` is evaluated only when `x` is true.
    fn conj(&self, x: Truth, y: Truth) -> Truth {
        Truth { t: and(vec![x.t.clone(), y.t]), err: or(vec![x.err, and(vec![x.t, y.err])]) }
    }

    /// `x or y`, short-circuit: `y` is evaluated only when `x` is false.
    fn disj(&self, x: Truth, y: Truth) -> Truth {
        let x_false = and(vec![not(x.t.clone()), not(x.err.clone())]);
        Truth { t: or(vec![x.t, and(vec![not(x.err.clone()), y.t])]), err: or(vec![x.err, and(vec![x_false, y.err])]) }
    }

    /// Expands the quantifiers from the `i`-th on, in textual nesting order (agents in id
    /// order, short-circuit as the native engine evaluates them).
    fn qpred(&self, q: &QPred, i: usize, qv: &mut Vec<i64>) -> Result<Truth, EmitError> {
        if i == q.quants.len() {
            return self.truth(&q.body, qv);
        }
        let (kind, ty) = q.quants[i];
        let mut acc: Option<Truth> = None;
        for a in self.model.agent_types[ty].ids() {
            qv.push(a as i64);
            let x = self.qpred(q, i + 1, qv)?;
            qv.pop();
            acc = Some(match acc {
                None => x,
                Some(p) if kind == QuantKind::Forall => self.conj(p, x),
                Some(p) => self.disj(p, x),
            });
        }
        Ok(acc.unwrap_or(Truth { t: MBool::Const(kind == QuantKind::Forall), err: MBool::Const(false) }))
    }
}

/// Stands for ⊥ in comparisons until printing replaces it by the program's value.
const UNDEF_MARK: i64 = i64::MIN;

/// Orders the operands of `=`/`<>`: variables before constants, then by structure.
fn orient_key(e: &MExpr) -> (bool, String) {
    (matches!(e, MExpr::Const(_)), format!("{e:?}"))
}

fn and(parts: Vec<MBool>) -> MBool {
    junction(parts, true)
}

fn or(parts: Vec<MBool>) -> MBool {
    junction(parts, false)
}

/// A flattened conjunction (`neutral = true`) or disjunction (`neutral = false`): constants
/// folded, nested ones of the same kind spliced, duplicates dropped, never empty.
fn junction(parts: Vec<MBool>, neutral: bool) -> MBool {
    let mut out: Vec<MBool> = vec![];
    for p in parts {
        let nested = match p {
            MBool::Const(c) if c == neutral => continue,
            MBool::Const(_) => return MBool::Const(!neutral),
            MBool::And(xs) if neutral => xs,
            MBool::Or(xs) if !neutral => xs,
            x => vec![x],
        };
        for x in nested {
            if !out.contains(&x) {
                out.push(x);
            }
        }
    }
    match out.len() {
        0 => MBool::Const(neutral),
        1 => out.pop().expect("one"),
        _ if neutral => MBool::And(out),
        _ => MBool::Or(out),
    }
}

fn params_of(e: &MExpr, out: &mut BTreeSet<TrackKey>) {
    match e {
        MExpr::Const(_) => {}
        MExpr::Param(k) => {
            out.insert(*k);
        }
        MExpr::Neg(a) | MExpr::Abs(a) => params_of(a, out),
        MExpr::Bin(_, a, b) | MExpr::NDiv(a, b) | MExpr::NMod(a, b) => {
            params_of(a, out);
            params_of(b, out);
        }
    }
}

fn bparams_of(b: &MBool, out: &mut BTreeSet<TrackKey>) {
    match b {
        MBool::Const(_) => {}
        MBool::Not(x) => bparams_of(x, out),
        MBool::Cmp(_, x, y) => {
            params_of(x, out);
            params_of(y, out);
        }
        MBool::And(xs) | MBool::Or(xs) => xs.iter().for_each(|x| bparams_of(x, out)),
    }
}

/// An MCL integer literal. A negative one is the unary minus of a natural literal, `(- n)`:
/// unary minus exists on Int only, so the constant is typed Int, whereas `(0 - n)` could be
/// read as a Nat subtraction that underflows.
fn lit(v: i64) -> String {
    if v < 0 { format!("(- {})", v.unsigned_abs()) } else { v.to_string() }
}

struct Printer<'a> {
    names: &'a BTreeMap<TrackKey, String>,
    undef: i64,
}

impl Printer<'_> {
    fn expr(&self, e: &MExpr) -> String {
        match e {
            MExpr::Const(c) if *c == UNDEF_MARK => lit(self.undef),
            MExpr::Const(c) => lit(*c),
            MExpr::Param(k) => self.names[k].clone(),
            MExpr::Neg(a) => format!("(- {})", self.expr(a)),
            MExpr::Abs(a) => format!("abs ({})", self.expr(a)),
            MExpr::NDiv(a, b) => format!("({} div {})", self.expr(a), self.expr(b)),
            MExpr::NMod(a, b) => format!("({} mod {})", self.expr(a), self.expr(b)),
            MExpr::Bin(op, a, b) => {
                let o = match op {
                    BinOp::Add => "+",
                    BinOp::Sub => "-",
                    _ => "*",
                };
                format!("({} {o} {})", self.expr(a), self.expr(b))
            }
        }
    }

    fn bool(&self, b: &MBool) -> String {
        match b {
            MBool::Const(c) => c.to_string(),
            MBool::Not(x) => format!("(not {})", self.bool(x)),
            MBool::Cmp(op, x, y) => {
                let o = match op {
                    CmpOp::Eq => "=",
                    CmpOp::Ne => "<>",
                    CmpOp::Lt => "<",
                    CmpOp::Le => "<=",
                    CmpOp::Gt => ">",
                    CmpOp::Ge => ">=",
                };
                format!("({} {o} {})", self.expr(x), self.expr(y))
            }
            MBool::And(xs) => format!("({})", xs.iter().map(|x| self.bool(x)).collect::<Vec<_>>().join(" and ")),
            MBool::Or(xs) => format!("({})", xs.iter().map(|x| self.bool(x)).collect::<Vec<_>>().join(" or ")),
        }
    }
}

/// The action pattern of the observation label of a tracked value, binding `bind` (`?w:Int`)
/// or ignoring the rest (`...`).
pub(crate) fn pattern(model: &Model, key: &TrackKey, bind: Option<&str>) -> String {
    let (agent, var, elem) = *key;
    let gate = names::obs_gate(model, var);
    let who = agent.map(|a| format!(" !{a}")).unwrap_or_default();
    match bind {
        Some(w) => format!("{{{gate}{who} !{elem} ?{w}:Int}}"),
        None => format!("{{{gate}{who} !{elem} ...}}"),
    }
}

/// The linear-time formula a property is checked as by a monitor (docs/lnt-encoding.md §5):
/// a formula other than `always ψ` and `finally ψ`, or a scoped pattern (as the formula
/// `model::scoped::as_ltl` derives); `None` for the other modalities.
pub(crate) fn linear_time(prop: &Property) -> Option<crate::syntax::ltl::Ltl<QPred>> {
    match &prop.modality {
        Modality::Ltl(f) => Some(f.clone()),
        m => crate::model::scoped::as_ltl(m, &prop.pred),
    }
}

/// Builds the query of a property. `analysis` tells which variables may hold ⊥.
pub fn build(model: &Model, analysis: &ValueAnalysis, prop: &Property) -> Result<Query, EmitError> {
    let formula = linear_time(prop);
    let kind = match &prop.modality {
        Modality::Always => "always",
        Modality::Finally => "finally",
        Modality::Fairly => "fairly",
        Modality::FairlyInf => "fairly_inf",
        Modality::Between { .. } | Modality::FromUntil { .. } | Modality::Ltl(_) => "ltl",
    };
    let conv = Conv { model, analysis, prop: &prop.name };
    let mut keys = BTreeSet::new();
    let truth = match &formula {
        None => conv.qpred(&prop.pred, 0, &mut vec![])?,
        // A linear-time property reads its atoms (its monitor evaluates them, and the query
        // tracks what they read): evaluating it meets an error where some atom's evaluation
        // does.
        Some(f) => {
            let mut err = vec![];
            for a in f.atoms() {
                let t = conv.qpred(a, 0, &mut vec![])?;
                bparams_of(&t.t, &mut keys);
                err.push(t.err);
            }
            Truth { t: MBool::Const(false), err: or(err) }
        }
    };
    bparams_of(&truth.t, &mut keys);
    bparams_of(&truth.err, &mut keys);
    let keys: Vec<TrackKey> = keys.into_iter().collect();
    let sparams: Vec<String> = (0..keys.len()).map(|i| format!("s_{i}")).collect();
    let params: Vec<String> = (0..keys.len()).map(|i| format!("v_{i}")).collect();
    let rparams: Vec<String> = (0..keys.len()).map(|i| format!("r_{i}")).collect();
    let vnames: BTreeMap<TrackKey, String> = keys.iter().cloned().zip(params.iter().cloned()).collect();
    let rnames: BTreeMap<TrackKey, String> = keys.iter().cloned().zip(rparams.iter().cloned()).collect();
    let undef_value = super::domains::undef_value(model, analysis);
    let pv = Printer { names: &vnames, undef: undef_value };
    let pr = Printer { names: &rnames, undef: undef_value };
    let updates = keys
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let mut args = params.clone();
            args[i] = "w".into();
            let mut sargs = sparams.clone();
            sargs[i] = "w".into();
            let mut rargs = rparams.clone();
            rargs[i] = "w".into();
            Update { pattern: pattern(model, k, Some("w")), sargs, args, rargs }
        })
        .collect();
    let mut relevant = vec!["\"DONE\"".to_string()];
    relevant.extend(keys.iter().map(|k| pattern(model, k, None)));
    let irrelevant = format!("(not ({}))", relevant.join(" or "));
    let vars: BTreeSet<VarId> = keys.iter().map(|k| k.1).collect();
    let gates: Vec<String> =
        vars.iter().map(|&v| names::obs_gate(model, v)).collect::<BTreeSet<_>>().into_iter().collect();
    Ok(Query {
        name: prop.name.clone(),
        text: prop.text.replace("(*", "( *").replace("*)", "* )"),
        kind,
        zeros: vec!["0".to_string(); keys.len()],
        keys,
        sparams,
        params,
        rparams,
        updates,
        irrelevant,
        pred: pv.bool(&truth.t),
        rpred: pr.bool(&truth.t),
        err_pred: (truth.err != MBool::Const(false)).then(|| pv.bool(&truth.err)),
        gates,
        vars,
        abandon: false,
        monitor: None,
    })
}

/// A readable name of a tracked value: `leader of agent 2`, `fork[1] (environment)`.
pub(crate) fn describe(model: &Model, k: &TrackKey) -> String {
    let v = &model.vars[k.1];
    match k.0 {
        Some(a) => format!("{} of agent {a}", v.element_name(k.2)),
        None => format!("{} (environment)", v.element_name(k.2)),
    }
}

/// The position of a tracked value in the initialisation order.
pub(crate) fn init_order(model: &Model, k: &TrackKey) -> (usize, usize, usize) {
    let v = &model.vars[k.1];
    let store = match v.store {
        Store::Env | Store::Attr => 0,
        Store::Stig { .. } => 1,
    };
    (k.0.map_or(0, |a| a + 1), store, v.offset + k.2)
}
