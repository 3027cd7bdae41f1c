//! Straight-line LNT code that evaluates LAbS guards, expressions and statements exactly as
//! the native engine does (`docs/semantics.md`, D9, D10; `docs/lnt-encoding.md` §3,
//! "Evaluation"): operands left to right, every operand evaluated before its operation, `and`,
//! `or` and `if` short-circuiting, ⊥ as its own value (`LAB_BOT`, never a LAbS value), every
//! run-time error an exit with its code, and nothing the evaluation does not reach evaluated.
//!
//! The code never raises an LNT exception: every operation that could fail (division by zero,
//! an overflow, an index or an agent out of range) is tested before it is made, and the test
//! leaves the evaluation with the status of the error. The status is `r` (procedures) or the
//! returned value (functions): `R_OFF` (the step is disabled), `R_OK`, `R_UNKNOWN` (a value
//! not known yet is needed: the early checks of a read attempt), or an error code.
//!
//! Tests the value analysis proves useless are left out (an operation that cannot overflow on
//! the analysed values of its operands, a divisor that cannot be 0, an index always in range),
//! but only on values the analysis describes: the pre-state of the step (a variable a block
//! wrote earlier is "tainted" and keeps every test).

use crate::analysis::IntervalSet;
use crate::lnt::EmitError;
use crate::lnt::domains::{Abs, int_lit};
use crate::lnt::expr::strides;
use crate::lnt::mcl::TrackKey;
use crate::model::arith::{MAX_VALUE, MIN_VALUE};
use crate::model::{AgentRef, BExpr, Expr, Model, Store, TypeId, VarId, VarRef};
use crate::syntax::ast::{BinOp, MinMax};
use std::collections::{BTreeMap, BTreeSet};

/// The step is disabled (D10: ⊥ where a value is needed, an empty `[a..b]`, a wrong guess).
pub(crate) const R_OFF: u32 = 0;
/// Evaluation finished (a predicate: true).
pub(crate) const R_OK: u32 = 1;
/// A value the early checks of a read attempt do not know yet is needed.
pub(crate) const R_UNKNOWN: u32 = 2;
pub(crate) use crate::lnt::errors::{E_AGENT, E_DIV, E_INDEX, E_OVERFLOW, error_code};

/// One statement of generated code.
#[derive(Clone, Debug)]
pub(super) enum Ln {
    S(String),
    /// A `--` comment line (not a statement).
    Comment(String),
    /// Leaves the evaluation with a status.
    Exit(u32),
    /// `if c1 then … elsif c2 then … else … end if`.
    If(Vec<(String, Vec<Ln>)>, Vec<Ln>),
}

/// How the evaluation is left: a procedure sets `r` and returns, a function returns the status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ExitStyle {
    Proc,
    Func,
}

/// The code as indented lines (`indent` spaces), statements separated by `;`.
pub(super) fn print(block: &[Ln], indent: usize, style: ExitStyle) -> Vec<String> {
    let mut out = vec![];
    print_into(block, indent, style, &mut out);
    out
}

fn print_into(block: &[Ln], indent: usize, style: ExitStyle, out: &mut Vec<String>) {
    let pad = " ".repeat(indent);
    // Each statement's lines, comments before it; `;` between statements.
    let mut groups: Vec<Vec<String>> = vec![];
    let mut comments: Vec<String> = vec![];
    for l in block {
        let mut lines = std::mem::take(&mut comments);
        match l {
            Ln::Comment(c) => {
                comments = lines;
                comments.push(format!("{pad}-- {c}"));
                continue;
            }
            Ln::S(s) => lines.push(format!("{pad}{s}")),
            Ln::Exit(c) => match style {
                ExitStyle::Proc => {
                    lines.push(format!("{pad}r := {c};"));
                    lines.push(format!("{pad}return"));
                }
                ExitStyle::Func => lines.push(format!("{pad}return {c}")),
            },
            Ln::If(arms, els) => {
                for (k, (c, body)) in arms.iter().enumerate() {
                    let kw = if k == 0 { "if" } else { "elsif" };
                    lines.push(format!("{pad}{kw} {c} then"));
                    print_into(body, indent + 3, style, &mut lines);
                }
                if !els.is_empty() {
                    lines.push(format!("{pad}else"));
                    print_into(els, indent + 3, style, &mut lines);
                }
                lines.push(format!("{pad}end if"));
            }
        }
        groups.push(lines);
    }
    if groups.is_empty() {
        groups.push(vec![format!("{pad}null")]);
    }
    let last = groups.len() - 1;
    for (i, mut g) in groups.into_iter().enumerate() {
        if i < last {
            g.last_mut().expect("a statement has a line").push(';');
        }
        out.extend(g);
    }
    out.extend(comments);
}

/// Whether the code can leave with a run-time error.
pub(super) fn has_error_exit(block: &[Ln]) -> bool {
    block.iter().any(|l| match l {
        Ln::Exit(c) => *c >= E_DIV,
        Ln::If(arms, els) => arms.iter().any(|(_, b)| has_error_exit(b)) || has_error_exit(els),
        Ln::S(_) | Ln::Comment(_) => false,
    })
}

/// `if c then <exit> end if` (`c` "true": the exit alone).
fn exit_if(c: String, code: u32) -> Ln {
    if c == "true" {
        return Ln::Exit(code);
    }
    Ln::If(vec![(c, vec![Ln::Exit(code)])], vec![])
}

/// The value of an operand that is an integer literal (`5`, `(-5)`).
fn literal(text: &str) -> Option<i64> {
    let t = text.strip_prefix("(-").and_then(|t| t.strip_suffix(')')).map(|t| format!("-{t}"));
    t.as_deref().unwrap_or(text).parse().ok()
}

/// The condition "`v` lies outside `0 .. n - 1`" (`n` written `n_text` in LNT), decided here
/// when `v` is a literal (LNT cannot type a comparison of two literals): `None` when it
/// cannot hold, `"true"` when it always does.
fn outside(v: &Val, n: i64, n_text: &str) -> Option<String> {
    match literal(&v.text) {
        Some(x) if (0..n).contains(&x) => None,
        Some(_) => Some("true".into()),
        None => Some(format!("({0} < 0) or ({0} >= {n_text})", v.text)),
    }
}

/// Where the evaluated expressions take their values.
pub(super) enum Source<'a> {
    /// A step of an agent of type `ty`: its stores `I`, `L`, the environment `E` (known when
    /// `kn >= kn_all`), the block locals `LOC`, the choices `nd_i` and the read slots
    /// `ra_k`, `rl_k`, `rv_k` (slot `k`'s agent and location are known when `kn > 2k`, its value
    /// when `kn > 2k + 1`).
    Step { ty: TypeId, kn_all: usize },
    /// A link predicate evaluated by a receiver of type `ty` (`c2`, its own stores `I`, `L`) on
    /// a message of sender `s` (`c1`) whose variables arrive as the named fields.
    Link { ty: TypeId, fields: &'a [(VarId, usize, String)] },
    /// The `assume` predicates: the initial values they read, by tracked key.
    Assume { names: &'a BTreeMap<TrackKey, String> },
}

/// Whether ⊥ in an index, an agent or a bound disables the step (steps) or makes the
/// reference read ⊥ (predicates).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    Step,
    Pred,
}

/// What follows an element's position once it is known: the code that uses it.
type Then<'t> = dyn FnMut(&mut Gen, Pos) -> Result<Vec<Ln>, EmitError> + 't;

/// The code generator of one function.
pub(super) struct Gen<'a> {
    pub(crate) model: &'a Model,
    pub(crate) mode: Mode,
    pub(crate) src: Source<'a>,
    /// The analysed values, to leave out impossible error tests (`None`: keep every test).
    pub(crate) abs: Option<&'a Abs<'a>>,
    /// Variables a block wrote before the statement being generated (their values may lie
    /// outside the analysed sets of the pre-state), and locals computed from them.
    pub(crate) tainted: BTreeSet<VarId>,
    pub(crate) tainted_locals: BTreeSet<usize>,
    /// The choices of the step: `[a..b]` node → the index `i` of `nd_i` (and of `U[i]`).
    pub(crate) nd: &'a [(*const Expr, usize)],
    /// The reads of another agent: node → slot `k` (`U[n_nd + k]`).
    pub(crate) slots: &'a [(*const Expr, usize)],
    pub(crate) n_nd: usize,
    /// The keys an `assume` predicate read (filled while generating).
    pub(crate) keys_read: BTreeSet<TrackKey>,
    ints: usize,
    bools: usize,
    nats: usize,
}

/// An evaluated operand: LNT text (a temporary or a literal) and whether it may be ⊥.
#[derive(Clone, Debug)]
struct Val {
    text: String,
    may_bot: bool,
}

impl Val {
    fn known(text: String) -> Val {
        Val { text, may_bot: false }
    }
}

/// An evaluated array element position: a literal slot, or a Nat temporary.
enum Pos {
    Const(usize),
    Var(String),
}

impl Pos {
    fn plus(&self, base: usize) -> String {
        match self {
            Pos::Const(k) => (base + k).to_string(),
            Pos::Var(n) if base == 0 => n.clone(),
            Pos::Var(n) => format!("({base} + {n})"),
        }
    }
}

impl<'a> Gen<'a> {
    pub(crate) fn new(model: &'a Model, mode: Mode, src: Source<'a>) -> Gen<'a> {
        Gen {
            model,
            mode,
            src,
            abs: None,
            tainted: BTreeSet::new(),
            tainted_locals: BTreeSet::new(),
            nd: &[],
            slots: &[],
            n_nd: 0,
            keys_read: BTreeSet::new(),
            ints: 0,
            bools: 0,
            nats: 0,
        }
    }

    /// The declarations of the temporaries used so far (`x_i: Int`, `b_i: Bool`, `n_i:
    /// Nat`), after `first` if given; empty when there are none.
    pub(crate) fn decls(&self, first: Option<&str>) -> String {
        let mut parts: Vec<String> = first.map(str::to_string).into_iter().collect();
        let group = |n: usize, p: &str, t: &str| {
            (n > 0).then(|| format!("{}: {t}", (0..n).map(|i| format!("{p}_{i}")).collect::<Vec<_>>().join(", ")))
        };
        parts.extend(group(self.ints, "x", "Int"));
        parts.extend(group(self.bools, "b", "Bool"));
        parts.extend(group(self.nats, "n", "Nat"));
        parts.join(", ")
    }

    fn int(&mut self) -> String {
        self.ints += 1;
        format!("x_{}", self.ints - 1)
    }

    fn bool(&mut self) -> String {
        self.bools += 1;
        format!("b_{}", self.bools - 1)
    }

    fn nat(&mut self) -> String {
        self.nats += 1;
        format!("n_{}", self.nats - 1)
    }

    fn refuse(&self, what: &str, detail: impl Into<String>) -> EmitError {
        EmitError::unsupported(what, detail)
    }

    // ---- what the analysis says ----------------------------------------------------------

    /// Whether `e` reads a value the analysis of the pre-state does not describe.
    fn tainted(&self, e: &Expr) -> bool {
        let mut t = false;
        e.walk(&mut |x| match x {
            Expr::Var(r) if self.tainted.contains(&r.var) => t = true,
            Expr::Local { slot, len, .. } if (*slot..slot + len).any(|s| self.tainted_locals.contains(&s)) => t = true,
            _ => {}
        });
        t
    }

    /// The analysed values of `e` (`None`: unknown, keep every test).
    fn set(&self, e: &Expr) -> Option<IntervalSet> {
        let abs = self.abs?;
        if self.tainted(e) {
            return None;
        }
        let s = abs.expr(e);
        // An empty set is an analysis that knows nothing (a variable it did not see).
        (s.has_values() || s.contains_undef()).then_some(s)
    }

    /// Whether `e` may be ⊥.
    fn may_bot(&self, e: &Expr) -> bool {
        self.set(e).is_none_or(|s| s.contains_undef())
    }

    /// Whether the defined values of `e` may lie outside `lo..=hi`.
    fn may_leave(&self, e: &Expr, lo: i64, hi: i64) -> bool {
        match self.set(e) {
            None => true,
            Some(s) => {
                let d = s.defined();
                !d.is_empty() && (d.min().is_none_or(|m| m < lo) || d.max().is_none_or(|m| m > hi))
            }
        }
    }

    /// Whether `a op b` may overflow on the analysed values.
    fn may_overflow(&self, op: BinOp, a: &Expr, b: &Expr) -> bool {
        let (Some(x), Some(y)) = (self.set(a), self.set(b)) else { return true };
        let (x, y) = (x.defined(), y.defined());
        let (Some(xl), Some(xh), Some(yl), Some(yh)) = (x.min(), x.max(), y.min(), y.max()) else {
            // One operand is never defined: the operation never computes.
            return false;
        };
        let (xl, xh, yl, yh) = (xl as i128, xh as i128, yl as i128, yh as i128);
        let corners: [i128; 4] = match op {
            BinOp::Add => [xl + yl, xl + yh, xh + yl, xh + yh],
            BinOp::Sub => [xl - yl, xl - yh, xh - yl, xh - yh],
            BinOp::Mul => [xl * yl, xl * yh, xh * yl, xh * yh],
            _ => return false,
        };
        corners.iter().any(|&c| c < MIN_VALUE as i128 || c > MAX_VALUE as i128)
    }

    /// Whether the divisor `b` may be 0.
    fn may_be_zero(&self, b: &Expr) -> bool {
        self.set(b).is_none_or(|s| s.contains(0))
    }

    // ---- failures of the three kinds of ⊥ ----------------------------------------------

    /// ⊥ where a definite value is needed: in a step the step is disabled; in a predicate the
    /// whole reference reads ⊥ (`bot` is then run instead of `rest`).
    fn need_defined(&self, v: &Val, out: &mut Vec<Ln>, result: Option<&str>, rest: Vec<Ln>) {
        if !v.may_bot {
            out.extend(rest);
            return;
        }
        let test = format!("({} == LAB_BOT)", v.text);
        match self.mode {
            Mode::Step => {
                out.push(exit_if(test, R_OFF));
                out.extend(rest);
            }
            Mode::Pred => {
                let bot = result.map(|r| vec![Ln::S(format!("{r} := LAB_BOT"))]).unwrap_or_default();
                out.push(Ln::If(vec![(test, bot)], rest));
            }
        }
    }

    // ---- expressions ---------------------------------------------------------------------

    /// Code computing `e`; the operand holding its value.
    fn expr(&mut self, out: &mut Vec<Ln>, e: &Expr) -> Result<Val, EmitError> {
        Ok(match e {
            Expr::Const(c) => {
                if !(MIN_VALUE..=MAX_VALUE).contains(c) {
                    return Err(self.refuse("an integer literal outside the 32-bit range", c.to_string()));
                }
                Val::known(int_lit(*c))
            }
            Expr::AgentId(o) => self.agent_id(out, o)?,
            Expr::Var(r) => self.var(out, e, r)?,
            Expr::Local { slot, len, index } => self.local(out, *slot, *len, index.as_deref())?,
            Expr::QVar(_) => return Err(self.refuse("quantified variables outside properties", "")),
            Expr::Neg(a) | Expr::Abs(a) => {
                let x = self.expr(out, a)?;
                let t = self.int();
                let f =
                    if matches!(e, Expr::Neg(_)) { format!("- {}", x.text) } else { format!("lab_abs ({})", x.text) };
                if x.may_bot {
                    out.push(Ln::If(
                        vec![(format!("{} == LAB_BOT", x.text), vec![Ln::S(format!("{t} := LAB_BOT"))])],
                        vec![Ln::S(format!("{t} := {f}"))],
                    ));
                } else {
                    out.push(Ln::S(format!("{t} := {f}")));
                }
                Val { text: t, may_bot: x.may_bot }
            }
            Expr::Bin(op, a, b) => {
                let (x, y) = (self.expr(out, a)?, self.expr(out, b)?);
                let t = self.int();
                let (value, test, code) = match op {
                    BinOp::Add => (format!("{} + {}", x.text, y.text), "lab_add_ok", E_OVERFLOW),
                    BinOp::Sub => (format!("{} - {}", x.text, y.text), "lab_sub_ok", E_OVERFLOW),
                    BinOp::Mul => (format!("{} * {}", x.text, y.text), "lab_mul_ok", E_OVERFLOW),
                    BinOp::Div => (format!("lab_div ({}, {})", x.text, y.text), "", E_DIV),
                    BinOp::Mod => (format!("lab_mod ({}, {})", x.text, y.text), "", E_DIV),
                    BinOp::RDiv => (format!("lab_rdiv ({}, {})", x.text, y.text), "", E_DIV),
                };
                let fails = match op {
                    BinOp::Add | BinOp::Sub | BinOp::Mul => self.may_overflow(*op, a, b),
                    _ => self.may_be_zero(b),
                };
                let mut arms = vec![];
                if x.may_bot || y.may_bot {
                    let mut c = vec![];
                    if x.may_bot {
                        c.push(format!("({} == LAB_BOT)", x.text));
                    }
                    if y.may_bot {
                        c.push(format!("({} == LAB_BOT)", y.text));
                    }
                    arms.push((c.join(" or "), vec![Ln::S(format!("{t} := LAB_BOT"))]));
                }
                if fails {
                    let c = match (test.is_empty(), literal(&y.text)) {
                        (true, Some(0)) => Some("true".to_string()),
                        (true, Some(_)) => None,
                        (true, None) => Some(format!("{} == 0", y.text)),
                        (false, _) => Some(format!("not ({test} ({}, {}))", x.text, y.text)),
                    };
                    if let Some(c) = c {
                        arms.push((c, vec![Ln::Exit(code)]));
                    }
                }
                let set = vec![Ln::S(format!("{t} := {value}"))];
                if arms.is_empty() {
                    out.extend(set);
                } else {
                    out.push(Ln::If(arms, set));
                }
                Val { text: t, may_bot: x.may_bot || y.may_bot }
            }
            Expr::MinMax(m, a, b) => {
                let (x, y) = (self.expr(out, a)?, self.expr(out, b)?);
                let t = self.int();
                let f = if *m == MinMax::Min { "lab_min" } else { "lab_max" };
                let set = Ln::S(format!("{t} := {f} ({}, {})", x.text, y.text));
                if x.may_bot || y.may_bot {
                    let c = format!("({} == LAB_BOT) or ({} == LAB_BOT)", x.text, y.text);
                    out.push(Ln::If(vec![(c, vec![Ln::S(format!("{t} := LAB_BOT"))])], vec![set]));
                } else {
                    out.push(set);
                }
                Val { text: t, may_bot: x.may_bot || y.may_bot }
            }
            Expr::If(c, a, b) => {
                let cond = self.bexpr(out, c)?;
                let t = self.int();
                let mut then = vec![];
                let x = self.expr(&mut then, a)?;
                then.push(Ln::S(format!("{t} := {}", x.text)));
                let mut els = vec![];
                let y = self.expr(&mut els, b)?;
                els.push(Ln::S(format!("{t} := {}", y.text)));
                out.push(Ln::If(vec![(cond, then)], els));
                Val { text: t, may_bot: x.may_bot || y.may_bot }
            }
            Expr::NonDet(a, b) => {
                if self.mode == Mode::Pred {
                    return Err(self.refuse("`[a..b]` in a predicate", ""));
                }
                let i = self
                    .nd
                    .iter()
                    .find(|(p, _)| std::ptr::eq(*p, e))
                    .map(|(_, i)| *i)
                    .ok_or_else(|| self.refuse("`[a..b]` in this position", "initialisers and links"))?;
                let (lo, hi) = (self.expr(out, a)?, self.expr(out, b)?);
                for v in [&lo, &hi] {
                    if v.may_bot {
                        out.push(exit_if(format!("{} == LAB_BOT", v.text), R_OFF));
                    }
                }
                // An empty range disables the step; so does a choice outside it (another
                // choice is the right one).
                let outside = format!("(nd_{i} < {0}) or (nd_{i} >= {1})", lo.text, hi.text);
                let test = match (literal(&lo.text), literal(&hi.text)) {
                    (Some(l), Some(h)) if l >= h => "true".to_string(),
                    (Some(_), Some(_)) => outside,
                    _ => format!("({} >= {}) or {outside}", lo.text, hi.text),
                };
                out.push(exit_if(test, R_OFF));
                out.push(Ln::S(format!("U[{i}] := true")));
                Val::known(format!("nd_{i}"))
            }
        })
    }

    /// `id`, `id of c1`, `id of e`.
    fn agent_id(&mut self, out: &mut Vec<Ln>, o: &AgentRef) -> Result<Val, EmitError> {
        Ok(match (o, &self.src) {
            (AgentRef::Of(e), _) => {
                let a = self.expr(out, e)?;
                let t = self.int();
                let mut rest = vec![];
                let n = self.model.n_agents() as i64;
                if self.may_leave(e, 0, n - 1)
                    && let Some(c) = outside(&a, n, "NatToInt (N_AGENTS)")
                {
                    rest.push(exit_if(c, E_AGENT));
                }
                rest.push(Ln::S(format!("{t} := {}", a.text)));
                self.need_defined(&a, out, Some(&t), rest);
                Val { text: t, may_bot: a.may_bot && self.mode == Mode::Pred }
            }
            (AgentRef::Own, Source::Step { .. }) | (AgentRef::C2, Source::Link { .. }) => {
                Val::known("NatToInt (id)".into())
            }
            (AgentRef::C1, Source::Link { .. }) => Val::known("NatToInt (s)".into()),
            _ => return Err(self.refuse("`id` in this position", "outside a step or a link")),
        })
    }

    /// A block local, `p` or `p[i]`.
    fn local(&mut self, out: &mut Vec<Ln>, slot: usize, len: usize, index: Option<&Expr>) -> Result<Val, EmitError> {
        let Source::Step { .. } = self.src else {
            return Err(self.refuse("block locals outside a step", ""));
        };
        let may_bot = true;
        Ok(match index {
            None => Val { text: format!("LOC[{slot}]"), may_bot },
            Some(Expr::Const(c)) if *c >= 0 && (*c as usize) < len => {
                Val { text: format!("LOC[{}]", slot + *c as usize), may_bot }
            }
            Some(i) => {
                let x = self.expr(out, i)?;
                let t = self.int();
                let mut rest = vec![];
                if self.may_leave(i, 0, len as i64 - 1)
                    && let Some(c) = outside(&x, len as i64, &len.to_string())
                {
                    rest.push(exit_if(c, E_INDEX));
                }
                rest.push(Ln::S(format!("{t} := LOC[IntToNat ({slot} + {})]", x.text)));
                self.need_defined(&x, out, Some(&t), rest);
                Val { text: t, may_bot }
            }
        })
    }

    /// The element of `var` the indices name: literal when they are constants in range;
    /// otherwise code evaluating them in order (⊥: `need_defined`; out of range: an error).
    /// `result` is the variable a predicate sets to ⊥ for a ⊥ index. Returns the position and
    /// the code that must follow once it is known (`k` runs it with the position).
    fn element(
        &mut self,
        out: &mut Vec<Ln>,
        var: VarId,
        indices: &[Expr],
        result: Option<&str>,
        k: &mut Then,
    ) -> Result<(), EmitError> {
        let v = &self.model.vars[var];
        let dims = v.dims.clone();
        let consts: Option<Vec<i64>> =
            indices.iter().map(|e| if let Expr::Const(c) = e { Some(*c) } else { None }).collect();
        if let Some(cs) = &consts
            && cs.iter().zip(&dims).all(|(c, d)| *c >= 0 && (*c as usize) < *d)
        {
            let st = strides(&dims);
            let flat: usize = cs.iter().zip(&st).map(|(c, s)| *c as usize * s).sum();
            let rest = k(self, Pos::Const(flat))?;
            out.extend(rest);
            return Ok(());
        }
        let flat = self.nat();
        self.index_from(out, &dims, indices, 0, &flat, result, k)
    }

    /// Evaluates index `j` on (the previous ones are in `flat`), then the rest.
    #[allow(clippy::too_many_arguments)]
    fn index_from(
        &mut self,
        out: &mut Vec<Ln>,
        dims: &[usize],
        indices: &[Expr],
        j: usize,
        flat: &str,
        result: Option<&str>,
        k: &mut Then,
    ) -> Result<(), EmitError> {
        if j == indices.len() {
            let rest = k(self, Pos::Var(flat.to_string()))?;
            out.extend(rest);
            return Ok(());
        }
        let x = self.expr(out, &indices[j])?;
        let d = dims[j];
        let mut rest = vec![];
        if self.may_leave(&indices[j], 0, d as i64 - 1)
            && let Some(c) = outside(&x, d as i64, &d.to_string())
        {
            rest.push(exit_if(c, E_INDEX));
        }
        rest.push(Ln::S(if j == 0 {
            format!("{flat} := IntToNat ({})", x.text)
        } else {
            format!("{flat} := ({flat} * {d}) + IntToNat ({})", x.text)
        }));
        self.index_from(&mut rest, dims, indices, j + 1, flat, result, k)?;
        self.need_defined(&x, out, result, rest);
        Ok(())
    }

    /// Whether agents of type `ty` have variable `var` (D7; otherwise `x of a` reads ⊥).
    fn type_has(&self, ty: TypeId, var: VarId) -> bool {
        self.model.type_has_var(ty, var)
    }

    /// An LNT condition on the Int `a` (an agent id): its type has `var`; `None`: all do.
    fn has_var_cond(&self, var: VarId, a: &str) -> Option<String> {
        let m = self.model;
        let spawned = || m.agent_types.iter().enumerate().filter(|(_, t)| t.count > 0);
        if spawned().all(|(ty, _)| self.type_has(ty, var)) {
            return None;
        }
        let parts: Vec<String> = spawned()
            .filter(|(ty, _)| self.type_has(*ty, var))
            .map(|(_, t)| {
                let (lo, hi) = (t.first_id, t.first_id + t.count - 1);
                if lo == hi { format!("({a} == {lo})") } else { format!("(({a} >= {lo}) and ({a} <= {hi}))") }
            })
            .collect();
        Some(if parts.is_empty() { "false".into() } else { format!("({})", parts.join(" or ")) })
    }

    /// Whether reading `r` may give ⊥: the variable may hold it, the owner's type may lack
    /// the variable, or (in a predicate) an index or the owner may be ⊥.
    fn var_may_bot(&self, node: &Expr, r: &VarRef) -> bool {
        if self.may_bot(node) {
            return true;
        }
        // The agent's own variable (c2's in a link) that its type lacks is ⊥ whatever the
        // analysis has for it (no set: the type never holds it).
        let own_type = match (&r.owner, &self.src) {
            (AgentRef::Own, Source::Step { ty, .. }) | (AgentRef::C2, Source::Link { ty, .. }) => Some(*ty),
            _ => None,
        };
        if own_type.is_some_and(|ty| !self.type_has(ty, r.var)) {
            return true;
        }
        let owner = match &r.owner {
            AgentRef::Of(a) if self.model.vars[r.var].store != Store::Env => Some(&**a),
            _ => None,
        };
        if owner.is_some() && self.has_var_cond(r.var, "a").is_some() {
            return true;
        }
        if let (AgentRef::C1, Source::Link { .. }) = (&r.owner, &self.src)
            && self.has_var_cond(r.var, "a").is_some()
        {
            return true;
        }
        self.mode == Mode::Pred && r.indices.iter().chain(owner).any(|e| self.may_bot(e))
    }

    /// A variable reference.
    fn var(&mut self, out: &mut Vec<Ln>, node: &Expr, r: &VarRef) -> Result<Val, EmitError> {
        let m = self.model;
        let v = &m.vars[r.var];
        let t = self.int();
        let may_bot = self.var_may_bot(node, r);
        let var = r.var;
        let store = v.store;
        let arr = match store {
            Store::Env => "E",
            Store::Attr => "I",
            Store::Stig { .. } => "L",
        };
        let offset = v.offset;
        let tt = t.clone();
        match (&r.owner, &self.src, store) {
            (_, Source::Step { kn_all, .. }, Store::Env) => {
                // The environment is known at `TICK` only (the read attempt's checks wait).
                let kn_all = *kn_all;
                out.push(exit_if(format!("kn < {kn_all}"), R_UNKNOWN));
                self.element(out, var, &r.indices, Some(&t), &mut |_, p| {
                    Ok(vec![Ln::S(format!("{tt} := lab_in ({arr}[{}])", p.plus(offset)))])
                })?;
            }
            (_, Source::Link { .. }, Store::Env) => {
                return Err(self.refuse("an environment variable in a link predicate", format!("`{}`", v.name)));
            }
            (AgentRef::Own, Source::Step { ty, .. }, _) | (AgentRef::C2, Source::Link { ty, .. }, _) => {
                if !self.type_has(*ty, var) {
                    out.push(Ln::S(format!("{t} := LAB_BOT")));
                } else {
                    self.element(out, var, &r.indices, Some(&t), &mut |_, p| {
                        Ok(vec![Ln::S(format!("{tt} := lab_in ({arr}[{}])", p.plus(offset)))])
                    })?;
                }
            }
            (AgentRef::C1, Source::Link { fields, .. }, _) => {
                let consts: Option<Vec<usize>> = r
                    .indices
                    .iter()
                    .zip(&v.dims)
                    .map(
                        |(e, d)| if let Expr::Const(c) = e { usize::try_from(*c).ok().filter(|c| c < d) } else { None },
                    )
                    .collect();
                let Some(cs) = consts else {
                    return Err(self.refuse(
                        "a sender array element with a non-constant index in a link predicate",
                        format!("`{} of c1`", v.name),
                    ));
                };
                let st = strides(&v.dims);
                let k: usize = cs.iter().zip(&st).map(|(c, s)| c * s).sum();
                let f = fields
                    .iter()
                    .find(|(x, e, _)| *x == var && *e == k)
                    .map(|(_, _, n)| n.clone())
                    .ok_or_else(|| EmitError { message: format!("internal: no message field for `{}`", v.name) })?;
                match self.has_var_cond(var, "NatToInt (s)") {
                    None => out.push(Ln::S(format!("{t} := lab_in ({f})"))),
                    Some(c) => out.push(Ln::If(
                        vec![(c, vec![Ln::S(format!("{t} := lab_in ({f})"))])],
                        vec![Ln::S(format!("{t} := LAB_BOT"))],
                    )),
                }
            }
            (AgentRef::Of(a), Source::Step { .. }, _) => self.remote(out, node, r, a, &t)?,
            (AgentRef::Of(a), Source::Assume { .. }, _) => self.assumed(out, r, Some(a), &t)?,
            (_, Source::Assume { .. }, Store::Env) => self.assumed(out, r, None, &t)?,
            (AgentRef::Of(_), Source::Link { .. }, _) => {
                return Err(self.refuse(
                    "reading another agent's variable (`x of e`) in a link predicate",
                    format!("`{}`: only `c1` and `c2` are known there", v.name),
                ));
            }
            _ => return Err(self.refuse("`of c1`/`of c2` outside a link predicate", format!("`{}`", v.name))),
        }
        Ok(Val { text: t, may_bot })
    }

    /// `x of a` in a step: agent `a` (⊥: disabled; out of range: an error), the element, then
    /// ⊥ if `a`'s type has no `x`, the acting agent's own current value if `a` is itself (a
    /// block sees its earlier statements' effects), otherwise the value read in the node's
    /// slot, whose agent and location must be these.
    fn remote(&mut self, out: &mut Vec<Ln>, node: &Expr, r: &VarRef, a: &Expr, t: &str) -> Result<(), EmitError> {
        let m = self.model;
        let k = self
            .slots
            .iter()
            .find(|(p, _)| std::ptr::eq(*p, node))
            .map(|(_, k)| *k)
            .ok_or_else(|| EmitError { message: "internal: an unnamed read of another agent".into() })?;
        let av = self.expr(out, a)?;
        let n = m.n_agents() as i64;
        let mut rest = vec![];
        if self.may_leave(a, 0, n - 1)
            && let Some(c) = outside(&av, n, "NatToInt (N_AGENTS)")
        {
            rest.push(exit_if(c, E_AGENT));
        }
        let v = &m.vars[r.var];
        let base = match v.store {
            Store::Stig { .. } => m.attr_len.max(1) + v.offset,
            _ => v.offset,
        };
        let has = self.has_var_cond(r.var, &av.text);
        let (agent, used) = (av.text.clone(), self.n_nd + k);
        let tt = t.to_string();
        // The slot's offer ranges over every location it may read: a value the agent read
        // never holds there (a leaf generated alone offers them all) is not this step. The
        // tests below and the values the step writes rely on the analysed values of the agent
        // actually read, so that a leaf generated alone stays within the analysed sets: a value
        // only another type holds would let it write what its own type never holds.
        let never_held = self.never_held(r.var, a, k);
        self.element(&mut rest, r.var, &r.indices, Some(t), &mut |_, p| {
            let loc = p.plus(base);
            let mut read = vec![
                exit_if(format!("kn <= {}", 2 * k), R_UNKNOWN),
                exit_if(format!("(NatToInt (ra_{k}) != {agent}) or (rl_{k} != {loc})"), R_OFF),
                exit_if(format!("kn <= {}", 2 * k + 1), R_UNKNOWN),
            ];
            if let Some(c) = &never_held {
                read.push(exit_if(c.clone(), R_OFF));
            }
            read.extend([Ln::S(format!("{tt} := lab_in (rv_{k})")), Ln::S(format!("U[{used}] := true"))]);
            let own = vec![Ln::S(format!("{tt} := lab_in (lab_own (I, L, {loc}))"))];
            let mut arms = vec![];
            if let Some(c) = &has {
                arms.push((format!("not {c}"), vec![Ln::S(format!("{tt} := LAB_BOT"))]));
            }
            arms.push((format!("{agent} == NatToInt (id)"), own));
            Ok(vec![Ln::If(arms, read)])
        })?;
        self.need_defined(&av, out, Some(t), rest);
        Ok(())
    }

    /// The condition under which the value `rv_k` read from agent `ra_k` is one its type
    /// never holds in `var` (`None`: every value read is held), over the types `a` may name
    /// that have `var`.
    fn never_held(&self, var: VarId, a: &Expr, k: usize) -> Option<String> {
        let abs = self.abs?;
        let named = self.set(a).map(|s| s.defined());
        let mut groups: Vec<(IntervalSet, Vec<String>)> = vec![];
        for (ty, t) in self.model.agent_types.iter().enumerate() {
            let ids = crate::lnt::domains::ids(self.model, Some(ty));
            if t.count == 0 || !self.type_has(ty, var) || named.as_ref().is_some_and(|n| !n.meet(&ids).has_values()) {
                continue;
            }
            let set = crate::lnt::domains::var_set(self.model, abs.analysis, var, Some(ty));
            let (lo, hi) = (t.first_id, t.first_id + t.count - 1);
            let cond =
                if lo == hi { format!("(ra_{k} == {lo})") } else { format!("((ra_{k} >= {lo}) and (ra_{k} <= {hi}))") };
            match groups.iter_mut().find(|(s, _)| *s == set) {
                Some((_, conds)) => conds.push(cond),
                None => groups.push((set, vec![cond])),
            }
        }
        let outside = |s: &IntervalSet| format!("not {}", crate::lnt::domains::membership(&format!("rv_{k}"), s));
        let full = |s: &IntervalSet| IntervalSet::value_range().with_undef(true).is_subset(s);
        match groups.as_slice() {
            [] => None,
            [(s, _)] => (!full(s)).then(|| outside(s)),
            _ => {
                let parts: Vec<String> = groups
                    .iter()
                    .filter(|(s, _)| !full(s))
                    .map(|(s, conds)| {
                        let of = if conds.len() == 1 { conds[0].clone() } else { format!("({})", conds.join(" or ")) };
                        format!("({of} and {})", outside(s))
                    })
                    .collect();
                (!parts.is_empty()).then(|| format!("({})", parts.join(" or ")))
            }
        }
    }

    /// A variable of an `assume` predicate: the initial value of the element it names (agent
    /// `a`, `None` for the environment), among the tracked keys.
    fn assumed(&mut self, out: &mut Vec<Ln>, r: &VarRef, a: Option<&Expr>, t: &str) -> Result<(), EmitError> {
        let m = self.model;
        let v = &m.vars[r.var];
        let var = r.var;
        let len = v.len;
        let names = match &self.src {
            Source::Assume { names } => *names,
            _ => unreachable!("assumed values are read in assumptions only"),
        };
        let tt = t.to_string();
        // Every element an agent (or the environment) can hold: the keys a computed position
        // may name.
        let av = match a {
            None => None,
            Some(a) => Some((self.expr(out, a)?, a)),
        };
        // A literal agent is the one to read (an agent out of range fails first).
        let fixed = av.as_ref().and_then(|(x, _)| literal(&x.text)).filter(|x| (0..m.n_agents() as i64).contains(x));
        let agents: Vec<Option<usize>> = match (a, fixed) {
            (None, _) => vec![None],
            (Some(_), Some(x)) => {
                if self.type_has(m.type_of(x as usize), var) {
                    vec![Some(x as usize)]
                } else {
                    vec![]
                }
            }
            (Some(_), None) => (0..m.n_agents()).filter(|&x| self.type_has(m.type_of(x), var)).map(Some).collect(),
        };
        let mut rest = vec![];
        if let Some((x, e)) = &av
            && self.may_leave(e, 0, m.n_agents() as i64 - 1)
            && let Some(c) = outside(x, m.n_agents() as i64, "NatToInt (N_AGENTS)")
        {
            rest.push(exit_if(c, E_AGENT));
        }
        let agent_text = av.as_ref().filter(|_| fixed.is_none()).map(|(x, _)| x.text.clone());
        let mut keys = BTreeSet::new();
        self.element(&mut rest, var, &r.indices, Some(t), &mut |_, p| {
            let mut arms = vec![];
            for &ag in &agents {
                let elems: Vec<usize> = match &p {
                    Pos::Const(e) => vec![*e],
                    Pos::Var(_) => (0..len).collect(),
                };
                for e in elems {
                    let key = (ag, var, e);
                    keys.insert(key);
                    let name = names.get(&key).cloned().unwrap_or_else(|| "LAB_BOT".into());
                    let mut c = vec![];
                    if let (Some(x), Some(agent)) = (ag, &agent_text) {
                        c.push(format!("({agent} == {x})"));
                    }
                    if let Pos::Var(n) = &p {
                        c.push(format!("({n} == {e})"));
                    }
                    let set = vec![Ln::S(format!("{tt} := lab_in ({name})"))];
                    if c.is_empty() {
                        return Ok(set);
                    }
                    arms.push((c.join(" and "), set));
                }
            }
            // The agent's type has no such variable: ⊥.
            let bot = vec![Ln::S(format!("{tt} := LAB_BOT"))];
            Ok(if arms.is_empty() { bot } else { vec![Ln::If(arms, bot)] })
        })?;
        self.keys_read.extend(keys);
        match av {
            Some((x, _)) => self.need_defined(&x, out, Some(t), rest),
            None => out.extend(rest),
        }
        Ok(())
    }

    // ---- Boolean expressions -------------------------------------------------------------

    /// Code computing `b`: the Bool temporary (or literal) holding it.
    pub(crate) fn bexpr(&mut self, out: &mut Vec<Ln>, b: &BExpr) -> Result<String, EmitError> {
        Ok(match b {
            BExpr::Const(c) => c.to_string(),
            BExpr::Not(x) => {
                let v = self.bexpr(out, x)?;
                let t = self.bool();
                out.push(Ln::S(format!("{t} := not ({v})")));
                t
            }
            BExpr::Cmp(op, x, y) => {
                let (a, c) = (self.expr(out, x)?, self.expr(out, y)?);
                if let (Some(u), Some(v)) = (literal(&a.text), literal(&c.text)) {
                    return Ok(op.holds(u, v).to_string());
                }
                let t = self.bool();
                let mut parts = vec![];
                for v in [&a, &c] {
                    if v.may_bot {
                        parts.push(format!("({} != LAB_BOT)", v.text));
                    }
                }
                parts.push(format!("({} {} {})", a.text, crate::lnt::expr::cmp_op(*op), c.text));
                out.push(Ln::S(format!("{t} := {}", parts.join(" and "))));
                t
            }
            BExpr::And(x, y) | BExpr::Or(x, y) => {
                let t = self.bool();
                let v = self.bexpr(out, x)?;
                out.push(Ln::S(format!("{t} := {v}")));
                let mut second = vec![];
                let w = self.bexpr(&mut second, y)?;
                second.push(Ln::S(format!("{t} := {w}")));
                let c = if matches!(b, BExpr::And(..)) { t.clone() } else { format!("not ({t})") };
                out.push(Ln::If(vec![(c, second)], vec![]));
                t
            }
        })
    }

    /// `e` as the value of an assignment: ⊥ disables the step unless `e` is a plain copy of
    /// a variable or local (D10). Returns the operand, in the store's representation (`UNDEF`).
    pub(crate) fn assigned(&mut self, out: &mut Vec<Ln>, e: &Expr) -> Result<String, EmitError> {
        let v = self.expr(out, e)?;
        if v.may_bot && !matches!(e, Expr::Var(_) | Expr::Local { .. }) {
            out.push(exit_if(format!("{} == LAB_BOT", v.text), R_OFF));
        }
        Ok(v.text)
    }

    /// The position of an assigned element (indices evaluated in order; ⊥ disables, out of
    /// range is an error), as a literal slot or a Nat temporary.
    pub(crate) fn target(&mut self, out: &mut Vec<Ln>, var: VarId, indices: &[Expr]) -> Result<String, EmitError> {
        let offset = self.model.vars[var].offset;
        let mut pos = String::new();
        self.element(out, var, indices, None, &mut |_, p| {
            pos = p.plus(offset);
            Ok(vec![])
        })?;
        Ok(pos)
    }

    /// The position of an assigned local (`p[i]`: evaluated, ⊥ disables, out of range is an
    /// error).
    pub(crate) fn local_target(
        &mut self,
        out: &mut Vec<Ln>,
        slot: usize,
        len: usize,
        index: Option<&Expr>,
    ) -> Result<String, EmitError> {
        match index {
            None => Ok(slot.to_string()),
            Some(i) => {
                let x = self.expr(out, i)?;
                if x.may_bot {
                    out.push(exit_if(format!("{} == LAB_BOT", x.text), R_OFF));
                }
                if self.may_leave(i, 0, len as i64 - 1)
                    && let Some(c) = outside(&x, len as i64, &len.to_string())
                {
                    out.push(exit_if(c, E_INDEX));
                }
                let n = self.nat();
                out.push(Ln::S(format!("{n} := IntToNat ({slot} + {})", x.text)));
                Ok(n)
            }
        }
    }

    /// `e` evaluated as a whole predicate condition: `if not b then <exit R_OFF>`.
    pub(crate) fn require(&mut self, out: &mut Vec<Ln>, b: &BExpr) -> Result<(), EmitError> {
        let v = self.bexpr(out, b)?;
        if v != "true" {
            out.push(exit_if(format!("not ({v})"), R_OFF));
        }
        Ok(())
    }
}
