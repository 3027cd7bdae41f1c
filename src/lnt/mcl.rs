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

use super::domains::model_has_undef;
use super::{EmitError, names};
use crate::analysis::values::ValueAnalysis;
use crate::model::arith;
use crate::model::{AgentRef, BExpr, Expr, Modality, Model, Property, QPred, Store, VarId};
use crate::syntax::ast::{BinOp, CmpOp, MinMax, QuantKind};
use std::collections::{BTreeMap, BTreeSet};

/// A tracked value: (agent, or `None` for the environment; variable; element).
pub type TrackKey = (Option<usize>, VarId, usize);

/// A property query, ready for `svl/query.mcl`.
#[derive(Clone, Debug)]
pub struct Query {
    pub name: String,
    pub keyword: String,
    pub text: String,
    /// `always`, `finally`, `fairly` or `fairly_inf`.
    pub kind: &'static str,
    pub keys: Vec<TrackKey>,
    /// Formal parameters `s_i` of the initialisation phase, `v_i` of the main fixpoint and
    /// `r_i` of the reachability fixpoint (same order).
    pub sparams: Vec<String>,
    pub params: Vec<String>,
    /// The initial value of each `s_i` (0: set by the initialisation labels).
    pub zeros: Vec<String>,
    pub rparams: Vec<String>,
    /// One update clause per tracked value: the action pattern binding the new value `w` and
    /// the actual parameters with `w` in its place.
    pub updates: Vec<Update>,
    /// The action formula of every transition that is neither `DONE` nor a tracked update.
    pub irrelevant: String,
    /// The predicate over `v_i`, and over `r_i`.
    pub pred: String,
    pub rpred: String,
    /// The observation gates the query needs (plus `DONE`).
    pub gates: Vec<String>,
    pub vars: BTreeSet<VarId>,
    /// Whether the program can abandon read attempts (visible `ABANDON` steps back to the
    /// state the attempt started from): `finally` does not follow them.
    pub abandon: bool,
}

#[derive(Clone, Debug)]
pub struct Update {
    pub pattern: String,
    pub sargs: Vec<String>,
    pub args: Vec<String>,
    pub rargs: Vec<String>,
}

/// The properties to check: all of them, or those named (in the order given).
pub fn select_properties<'m>(model: &'m Model, names: &[String]) -> Result<Vec<&'m Property>, EmitError> {
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
pub fn observed_vars(qs: &[Query]) -> BTreeSet<VarId> {
    qs.iter().flat_map(|q| q.vars.iter().copied()).collect()
}

/// A property expression after quantifier expansion.
#[derive(Clone, Debug, PartialEq)]
enum MExpr {
    Const(i64),
    Param(TrackKey),
    Neg(Box<MExpr>),
    Abs(Box<MExpr>),
    Bin(BinOp, Box<MExpr>, Box<MExpr>),
}

#[derive(Clone, Debug, PartialEq)]
enum MBool {
    Const(bool),
    Not(Box<MBool>),
    Cmp(CmpOp, MExpr, MExpr),
    And(Vec<MBool>),
    Or(Vec<MBool>),
}

struct Conv<'a> {
    model: &'a Model,
    analysis: &'a ValueAnalysis,
    prop: &'a str,
}

impl Conv<'_> {
    fn refuse(&self, what: &str) -> EmitError {
        EmitError::unsupported(what, format!("in property `{}`", self.prop))
    }

    fn constant(&self, e: &Expr, qv: &[i64], what: &str) -> Result<i64, EmitError> {
        match self.expr(e, qv)? {
            MExpr::Const(c) => Ok(c),
            _ => Err(self.refuse(what)),
        }
    }

    fn fold(&self, r: Result<i64, arith::ArithError>) -> Result<MExpr, EmitError> {
        r.map(MExpr::Const)
            .map_err(|e| EmitError { message: format!("property `{}`: constant arithmetic fails ({e:?})", self.prop) })
    }

    fn expr(&self, e: &Expr, qv: &[i64]) -> Result<MExpr, EmitError> {
        Ok(match e {
            Expr::Const(c) => MExpr::Const(*c),
            Expr::QVar(i) => MExpr::Const(qv[*i]),
            Expr::AgentId(AgentRef::Of(x)) => MExpr::Const(self.constant(x, qv, "a non-constant agent in `id of`")?),
            Expr::AgentId(_) => return Err(self.refuse("`id` without `of` in a property")),
            Expr::Var(r) => {
                let v = &self.model.vars[r.var];
                let agent = if v.store == Store::Env {
                    None
                } else {
                    match &r.owner {
                        AgentRef::Of(x) => {
                            let a = self.constant(x, qv, "a non-constant agent after `of`")?;
                            if a < 0 || a as usize >= self.model.n_agents() {
                                return Err(EmitError {
                                    message: format!("property `{}`: agent {a} does not exist", self.prop),
                                });
                            }
                            Some(a as usize)
                        }
                        _ => return Err(self.refuse("a variable without `of` in a property")),
                    }
                };
                let mut flat = 0usize;
                let st = super::expr::strides(&v.dims);
                for ((i, d), s) in r.indices.iter().zip(&v.dims).zip(&st) {
                    let c = self.constant(i, qv, "a non-constant array index")?;
                    if c < 0 || c as usize >= *d {
                        return Err(EmitError {
                            message: format!("property `{}`: index {c} out of range for `{}`", self.prop, v.name),
                        });
                    }
                    flat += c as usize * s;
                }
                MExpr::Param((agent, r.var, flat))
            }
            Expr::Local { .. } => return Err(self.refuse("block locals")),
            Expr::Neg(a) => match self.expr(a, qv)? {
                MExpr::Const(c) => self.fold(arith::neg(c))?,
                x => MExpr::Neg(Box::new(x)),
            },
            Expr::Abs(a) => match self.expr(a, qv)? {
                MExpr::Const(c) => self.fold(arith::abs(c))?,
                x => MExpr::Abs(Box::new(x)),
            },
            Expr::Bin(op, a, b) => match (self.expr(a, qv)?, self.expr(b, qv)?) {
                (MExpr::Const(x), MExpr::Const(y)) => self.fold(arith::binary(*op, x, y))?,
                (x, y) => match op {
                    BinOp::Add | BinOp::Sub | BinOp::Mul => MExpr::Bin(*op, Box::new(x), Box::new(y)),
                    _ => return Err(self.refuse("`/`, `%` or `:` on variables")),
                },
            },
            Expr::MinMax(mm, a, b) => match (self.expr(a, qv)?, self.expr(b, qv)?) {
                (MExpr::Const(x), MExpr::Const(y)) => {
                    MExpr::Const(if *mm == MinMax::Min { x.min(y) } else { x.max(y) })
                }
                _ => return Err(self.refuse("`min`/`max` on variables")),
            },
            Expr::If(c, a, b) => match self.bool(c, qv, false)? {
                MBool::Const(true) => self.expr(a, qv)?,
                MBool::Const(false) => self.expr(b, qv)?,
                _ => return Err(self.refuse("`if` expressions with a non-constant condition")),
            },
            Expr::NonDet(..) => return Err(self.refuse("`[a..b]`")),
        })
    }

    fn bool(&self, b: &BExpr, qv: &[i64], undef: bool) -> Result<MBool, EmitError> {
        Ok(match b {
            BExpr::Const(c) => MBool::Const(*c),
            BExpr::Not(x) => match self.bool(x, qv, undef)? {
                MBool::Const(c) => MBool::Const(!c),
                x => MBool::Not(Box::new(x)),
            },
            BExpr::Cmp(op, x, y) => {
                // A non-constant array index or agent: split over its possible values.
                if let Some((target, range)) = self.find_dynamic(x, qv).or_else(|| self.find_dynamic(y, qv)) {
                    let mut parts = vec![];
                    for k in range {
                        let is_k = BExpr::Cmp(CmpOp::Eq, target.clone(), Expr::Const(k));
                        let case = BExpr::Cmp(*op, subst(x, &target, k), subst(y, &target, k));
                        parts.push(and(vec![self.bool(&is_k, qv, undef)?, self.bool(&case, qv, undef)?]));
                    }
                    return Ok(or(parts));
                }
                // A `min`/`max`/`if` whose operand depends on the state: split into its cases.
                if let Some((node, cases)) = find_choice(self, x, qv).or_else(|| find_choice(self, y, qv)) {
                    let mut parts = vec![];
                    for (cond, with) in cases {
                        let case = BExpr::Cmp(*op, replace(x, &node, &with), replace(y, &node, &with));
                        parts.push(and(vec![self.bool(&cond, qv, undef)?, self.bool(&case, qv, undef)?]));
                    }
                    return Ok(or(parts));
                }
                let (x, y) = (self.expr(x, qv)?, self.expr(y, qv)?);
                if let (MExpr::Const(a), MExpr::Const(b)) = (&x, &y) {
                    return Ok(MBool::Const(op.holds(*a, *b)));
                }
                // Equal operands: `=`, `<=`, `>=` hold (when defined), the others do not.
                let c = if x == y {
                    MBool::Const(matches!(op, CmpOp::Eq | CmpOp::Le | CmpOp::Ge))
                } else if matches!(op, CmpOp::Eq | CmpOp::Ne) && orient_key(&y) < orient_key(&x) {
                    // Symmetric: one orientation, so that duplicates are recognised.
                    MBool::Cmp(*op, y.clone(), x.clone())
                } else {
                    MBool::Cmp(*op, x.clone(), y.clone())
                };
                if undef {
                    let mut keys = BTreeSet::new();
                    params_of(&x, &mut keys);
                    params_of(&y, &mut keys);
                    let mut parts: Vec<MBool> = keys
                        .into_iter()
                        .filter(|k| self.may_be_undef(k))
                        .map(|k| MBool::Cmp(CmpOp::Ne, MExpr::Param(k), MExpr::Const(UNDEF_MARK)))
                        .collect();
                    parts.push(c);
                    and(parts)
                } else {
                    c
                }
            }
            BExpr::And(x, y) => and(vec![self.bool(x, qv, undef)?, self.bool(y, qv, undef)?]),
            BExpr::Or(x, y) => or(vec![self.bool(x, qv, undef)?, self.bool(y, qv, undef)?]),
        })
    }

    /// The first array index or `of` operand that is not constant, with its possible values
    /// (the dimension's indices, or the agent ids).
    fn find_dynamic(&self, e: &Expr, qv: &[i64]) -> Option<(Expr, std::ops::Range<i64>)> {
        match e {
            Expr::Var(r) => {
                if let AgentRef::Of(a) = &r.owner
                    && self.model.vars[r.var].store != Store::Env
                {
                    if let Some(x) = self.find_dynamic(a, qv) {
                        return Some(x);
                    }
                    if !matches!(self.expr(a, qv), Ok(MExpr::Const(_))) {
                        return Some(((**a).clone(), 0..self.model.n_agents() as i64));
                    }
                }
                for (i, d) in r.indices.iter().zip(&self.model.vars[r.var].dims) {
                    if let Some(x) = self.find_dynamic(i, qv) {
                        return Some(x);
                    }
                    if !matches!(self.expr(i, qv), Ok(MExpr::Const(_))) {
                        return Some((i.clone(), 0..*d as i64));
                    }
                }
                None
            }
            Expr::Neg(a) | Expr::Abs(a) => self.find_dynamic(a, qv),
            Expr::Bin(_, a, b) | Expr::MinMax(_, a, b) | Expr::NonDet(a, b) => {
                self.find_dynamic(a, qv).or_else(|| self.find_dynamic(b, qv))
            }
            Expr::If(_, a, b) => self.find_dynamic(a, qv).or_else(|| self.find_dynamic(b, qv)),
            Expr::AgentId(AgentRef::Of(a)) => self.find_dynamic(a, qv),
            _ => None,
        }
    }

    /// Whether the value analysis says a tracked value may be ⊥.
    fn may_be_undef(&self, k: &TrackKey) -> bool {
        let ty = k.0.map(|a| self.model.type_of(a));
        super::domains::var_set(self.model, self.analysis, k.1, ty).contains_undef()
    }

    /// Expands the quantifiers from the `i`-th on, in textual nesting order.
    fn qpred(&self, q: &QPred, i: usize, qv: &mut Vec<i64>, undef: bool) -> Result<MBool, EmitError> {
        if i == q.quants.len() {
            return self.bool(&q.body, qv, undef);
        }
        let (kind, ty) = q.quants[i];
        let mut parts = vec![];
        for a in self.model.agent_types[ty].ids() {
            qv.push(a as i64);
            parts.push(self.qpred(q, i + 1, qv, undef)?);
            qv.pop();
        }
        Ok(match kind {
            QuantKind::Forall => and(parts),
            QuantKind::Exists => or(parts),
        })
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
        MExpr::Bin(_, a, b) => {
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
pub fn pattern(model: &Model, key: &TrackKey, bind: Option<&str>) -> String {
    let (agent, var, elem) = *key;
    let gate = names::obs_gate(model, var);
    let who = agent.map(|a| format!(" !{a}")).unwrap_or_default();
    match bind {
        Some(w) => format!("{{{gate}{who} !{elem} ?{w}:Int}}"),
        None => format!("{{{gate}{who} !{elem} ...}}"),
    }
}

/// Builds the query of a property. `analysis` tells which variables may hold ⊥.
pub fn build(model: &Model, analysis: &ValueAnalysis, prop: &Property) -> Result<Query, EmitError> {
    let kind = match &prop.modality {
        Modality::Always => "always",
        Modality::Finally => "finally",
        Modality::Fairly => "fairly",
        Modality::FairlyInf => "fairly_inf",
        Modality::Between { .. } | Modality::FromUntil { .. } => {
            return Err(EmitError::unsupported(
                "scoped `between`/`from` properties",
                format!("property `{}`; use the native back end", prop.name),
            ));
        }
    };
    let conv = Conv { model, analysis, prop: &prop.name };
    let undef = model_has_undef(model);
    let pred = conv.qpred(&prop.pred, 0, &mut vec![], undef)?;
    let mut keys = BTreeSet::new();
    bparams_of(&pred, &mut keys);
    let keys: Vec<TrackKey> = keys.into_iter().collect();
    // Tracked values of agents that do not hold the variable would never be observed.
    for (agent, var, _) in &keys {
        if let Some(a) = agent {
            let ty = model.type_of(*a);
            let v = &model.vars[*var];
            let has = match v.store {
                Store::Attr => model.agent_types[ty].attrs.contains(var),
                Store::Stig { stigmergy, .. } => model.holds(ty, stigmergy),
                Store::Env => true,
            };
            if !has {
                return Err(EmitError {
                    message: format!(
                        "property `{}` reads `{}` of agent {a}, whose type `{}` has no such variable",
                        prop.name, v.name, model.agent_types[ty].name
                    ),
                });
            }
        }
    }
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
        keyword: prop.keyword.clone(),
        text: prop.text.replace("(*", "( *").replace("*)", "* )"),
        kind,
        zeros: vec!["0".to_string(); keys.len()],
        keys,
        sparams,
        params,
        rparams,
        updates,
        irrelevant,
        pred: pv.bool(&pred),
        rpred: pr.bool(&pred),
        gates,
        vars,
        abandon: false,
    })
}

/// A readable name of a tracked value: `leader of agent 2`, `fork[1] (environment)`.
pub fn describe(model: &Model, k: &TrackKey) -> String {
    let v = &model.vars[k.1];
    match k.0 {
        Some(a) => format!("{} of agent {a}", v.element_name(k.2)),
        None => format!("{} (environment)", v.element_name(k.2)),
    }
}

/// `e` with every occurrence of `target` replaced by the constant `k`.
fn subst(e: &Expr, target: &Expr, k: i64) -> Expr {
    replace(e, target, &Expr::Const(k))
}

/// `e` with every occurrence of `target` replaced by `with`.
fn replace(e: &Expr, target: &Expr, with: &Expr) -> Expr {
    e.map(&mut Replace { target, with })
}

/// Replaces every occurrence of one sub-expression.
struct Replace<'a> {
    target: &'a Expr,
    with: &'a Expr,
}

impl crate::model::Rewrite for Replace<'_> {
    fn expr(&mut self, e: &Expr) -> Option<Expr> {
        (e == self.target).then(|| self.with.clone())
    }
}

/// The first `min`/`max`/`if` sub-expression whose choice of operand is not constant, as the
/// cases (condition, operand) it splits into.
fn find_choice(conv: &Conv, e: &Expr, qv: &[i64]) -> Option<(Expr, Vec<(BExpr, Expr)>)> {
    let inner = |x: &Expr| find_choice(conv, x, qv);
    match e {
        Expr::MinMax(mm, a, b) => inner(a).or_else(|| inner(b)).or_else(|| {
            if matches!((conv.expr(a, qv), conv.expr(b, qv)), (Ok(MExpr::Const(_)), Ok(MExpr::Const(_)))) {
                return None;
            }
            let (first, second) = if *mm == MinMax::Min { (CmpOp::Le, CmpOp::Gt) } else { (CmpOp::Ge, CmpOp::Lt) };
            Some((
                e.clone(),
                vec![
                    (BExpr::Cmp(first, (**a).clone(), (**b).clone()), (**a).clone()),
                    (BExpr::Cmp(second, (**a).clone(), (**b).clone()), (**b).clone()),
                ],
            ))
        }),
        Expr::If(c, a, b) => inner(a).or_else(|| inner(b)).or_else(|| {
            if matches!(conv.bool(c, qv, false), Ok(MBool::Const(_))) {
                return None;
            }
            Some((e.clone(), vec![((**c).clone(), (**a).clone()), (BExpr::Not(c.clone()), (**b).clone())]))
        }),
        Expr::Neg(a) | Expr::Abs(a) => inner(a),
        Expr::Bin(_, a, b) => inner(a).or_else(|| inner(b)),
        Expr::Var(r) => r.indices.iter().find_map(inner),
        _ => None,
    }
}

/// The `assume` predicates, for the `Assumptions` process of the LNT program: the values they read
/// (in initialisation order: the environment, then agent by agent, attributes then stigmergic
/// variables, by slot) and their conjunction as an LNT condition over `A[q]`.
#[derive(Clone, Debug)]
pub struct AssumeSpec {
    pub keys: Vec<TrackKey>,
    pub cond: String,
    pub names: Vec<String>,
}

/// The position of a tracked value in the initialisation order.
pub fn init_order(model: &Model, k: &TrackKey) -> (usize, usize, usize) {
    let v = &model.vars[k.1];
    let store = match v.store {
        Store::Env | Store::Attr => 0,
        Store::Stig { .. } => 1,
    };
    (k.0.map_or(0, |a| a + 1), store, v.offset + k.2)
}

pub fn assumptions(model: &Model, analysis: &ValueAnalysis) -> Result<Option<AssumeSpec>, EmitError> {
    if model.assumptions.is_empty() {
        return Ok(None);
    }
    let undef = model_has_undef(model);
    let mut parts = vec![];
    for a in &model.assumptions {
        let conv = Conv { model, analysis, prop: &a.name };
        parts.push(conv.qpred(&a.pred, 0, &mut vec![], undef)?);
    }
    let pred = and(parts);
    let mut keys = BTreeSet::new();
    bparams_of(&pred, &mut keys);
    let mut keys: Vec<TrackKey> = keys.into_iter().collect();
    keys.sort_by_key(|k| init_order(model, k));
    let names: BTreeMap<TrackKey, String> = keys.iter().enumerate().map(|(q, k)| (*k, format!("A[{q}]"))).collect();
    Ok(Some(AssumeSpec {
        keys,
        cond: lnt_bool(&names, &pred),
        names: model.assumptions.iter().map(|a| a.name.clone()).collect(),
    }))
}

fn lnt_expr(names: &BTreeMap<TrackKey, String>, e: &MExpr) -> String {
    match e {
        MExpr::Const(c) if *c == UNDEF_MARK => "UNDEF".into(),
        MExpr::Const(c) => super::domains::int_lit(*c),
        MExpr::Param(k) => names[k].clone(),
        MExpr::Neg(a) => format!("(- {})", lnt_expr(names, a)),
        MExpr::Abs(a) => format!("lab_abs ({})", lnt_expr(names, a)),
        MExpr::Bin(op, a, b) => {
            let o = match op {
                BinOp::Add => "+",
                BinOp::Sub => "-",
                _ => "*",
            };
            format!("({} {o} {})", lnt_expr(names, a), lnt_expr(names, b))
        }
    }
}

fn lnt_bool(names: &BTreeMap<TrackKey, String>, b: &MBool) -> String {
    match b {
        MBool::Const(c) => c.to_string(),
        MBool::Not(x) => format!("(not {})", lnt_bool(names, x)),
        MBool::Cmp(op, x, y) => {
            format!("({} {} {})", lnt_expr(names, x), super::expr::cmp_op(*op), lnt_expr(names, y))
        }
        MBool::And(xs) => format!("({})", xs.iter().map(|x| lnt_bool(names, x)).collect::<Vec<_>>().join(" and ")),
        MBool::Or(xs) => format!("({})", xs.iter().map(|x| lnt_bool(names, x)).collect::<Vec<_>>().join(" or ")),
    }
}
