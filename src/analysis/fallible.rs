//! Where a run-time error of the model (docs/semantics.md, D9) may be met, read off the value
//! analysis: every step, link predicate, assumption, initialiser and property predicate is
//! evaluated abstractly over the analysed sets, which contain every value of every reachable
//! state, so a place found free of errors cannot fail in any reachable state.
//!
//! Two decisions rest on it. The native engine may stop exploring once every property is
//! violated only where no run-time error can lie in the part it would not explore (D9: an
//! error reachable in the system is reported whatever the properties). And a quantifier is
//! evaluated agent by agent in id order, stopping at the first agent that decides it: when
//! its body may fail, whether the evaluation fails depends on which agent comes first, so a
//! permutation of the agents it ranges over is no symmetry (docs/reductions.md).
//!
//! The reading is sound, not exact: a place reported may never fail in a reachable state (the
//! sets over-approximate), which costs only the early stop or the reduction.

use super::intervals::IntervalSet;
use super::values::{Analysis, Env, ValueAnalysis};
use crate::behaviour::{Behaviour, Step};
use crate::diagnostics::span::Span;
use crate::model::arith::{MAX_RANGE_CHOICES, MAX_VALUE, MIN_VALUE};
use crate::model::expr::{AgentRef, BExpr, Expr, QPred, TypeId};
use crate::model::{ActionKind, Assign, Init, Model, Property, Stmt, Store, print};
use crate::syntax::ast::BinOp;
use std::collections::HashMap;
use std::fmt;

/// A place where a run-time error may be met, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// `property E`, `a step of A`, `the link predicate of S`, `assumption Has1`, `the
    /// initialiser of x`.
    pub place: String,
    /// What may fail: "`10 / (2 - x of 0)` may divide by zero".
    pub what: String,
    pub span: Option<Span>,
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "in {}, {}", self.place, self.what)
    }
}

/// What `analyse` found, per kind of place.
#[derive(Clone, Debug, Default)]
pub struct Fallibility {
    /// The initialisers and the assumptions (evaluated on the initial states).
    pub initial: Option<Site>,
    /// The agent steps (guards, assignments, block statements).
    pub steps: Option<Site>,
    /// The link predicates.
    pub links: Option<Site>,
    /// Per property of the model (in `Model::properties` order), its predicates.
    pub properties: Vec<Option<Site>>,
    /// The agent types a quantifier with a body that may fail ranges over (in a step or in a
    /// property's predicate), with the place of the quantifier.
    pub quantified: Vec<(TypeId, Site)>,
}

impl Fallibility {
    /// The first place where a reachable state may meet a run-time error when `props` are
    /// checked: `None` when there is none.
    pub fn first(&self, model: &Model, props: &[&Property]) -> Option<&Site> {
        let checked =
            model.properties.iter().zip(&self.properties).filter(|(p, _)| props.iter().any(|q| q.name == p.name));
        self.initial
            .as_ref()
            .or(self.steps.as_ref())
            .or(self.links.as_ref())
            .or_else(|| checked.filter_map(|(_, s)| s.as_ref()).next())
    }
}

/// Where the model may meet a run-time error on a reachable state, by the value analysis `va`
/// of `model` and `behs`.
pub fn analyse(model: &Model, behs: &[Behaviour], va: &ValueAnalysis) -> Fallibility {
    let an = Analysis::of_result(model, va);
    let mut f = Finder { an: &an, quantified: Vec::new() };
    let initial = f.initialisers().or_else(|| f.assumptions());
    let steps = f.steps(behs);
    let links = f.links();
    let properties = model.properties.iter().map(|p| f.property(p)).collect();
    Fallibility { initial, steps, links, properties, quantified: f.quantified }
}

/// How ⊥ and `[a..b]` are read (`engine::eval::Mode`): a nondeterministic value is an error in
/// a predicate and may be too wide in a step.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Step,
    Pred,
}

struct Finder<'a, 'm> {
    an: &'a Analysis<'m>,
    quantified: Vec<(TypeId, Site)>,
}

/// The first reason found, if any.
type Why = Option<String>;

fn env(ty: Option<TypeId>) -> Env {
    Env { ty, locals: Vec::new(), quants: Vec::new(), refined: HashMap::new() }
}

/// Whether every value of `s` lies in the LAbS value range.
fn in_value_range(s: &IntervalSet) -> bool {
    s.min().is_none_or(|lo| lo >= MIN_VALUE) && s.max().is_none_or(|hi| hi <= MAX_VALUE)
}

/// The bounds of `x op y` over the hulls of the defined values, before any range check
/// (`None` when an operand has no defined value: the operation is then not made).
fn raw_bounds(op: BinOp, x: &IntervalSet, y: &IntervalSet) -> Option<(i128, i128)> {
    let (a, b) = ((i128::from(x.min()?), i128::from(x.max()?)), (i128::from(y.min()?), i128::from(y.max()?)));
    Some(match op {
        BinOp::Add => (a.0 + b.0, a.1 + b.1),
        BinOp::Sub => (a.0 - b.1, a.1 - b.0),
        BinOp::Mul => {
            let c = [a.0 * b.0, a.0 * b.1, a.1 * b.0, a.1 * b.1];
            (*c.iter().min().expect("four"), *c.iter().max().expect("four"))
        }
        // |a / b| <= |a|, and the remainder is below |b|.
        BinOp::Div | BinOp::RDiv | BinOp::Mod => {
            let m = a.0.abs().max(a.1.abs()).max(b.0.abs()).max(b.1.abs());
            (-m, m)
        }
    })
}

impl Finder<'_, '_> {
    fn model(&self) -> &Model {
        self.an.model
    }

    fn show(&self, e: &Expr) -> String {
        print::expr(self.model(), e)
    }

    // ------------------------------------------------------------------ expressions

    /// Why evaluating `e` in `env` may meet a run-time error.
    fn expr(&self, e: &Expr, env: &Env, mode: Mode) -> Why {
        match e {
            Expr::Const(c) => (!(MIN_VALUE..=MAX_VALUE).contains(c)).then(|| format!("the constant {c} overflows")),
            Expr::QVar(_) => None,
            Expr::AgentId(owner) => self.owner(owner, env, mode),
            Expr::Var(v) => {
                let var = &self.model().vars[v.var];
                if var.store != Store::Env
                    && let Some(w) = self.owner(&v.owner, env, mode)
                {
                    return Some(w);
                }
                for (i, (d, ie)) in var.dims.iter().zip(&v.indices).enumerate() {
                    if let Some(w) = self.expr(ie, env, mode) {
                        return Some(w);
                    }
                    let idx = self.an.expr(ie, env).defined();
                    if !idx.is_subset(&IntervalSet::range(0, *d as i64 - 1)) {
                        let dim = if var.dims.len() > 1 { format!(" (dimension {})", i + 1) } else { String::new() };
                        return Some(format!(
                            "the index `{}` of `{}`{dim} may leave 0..{}",
                            self.show(ie),
                            var.name,
                            d.saturating_sub(1)
                        ));
                    }
                }
                None
            }
            Expr::Local { len, index, .. } => {
                let ie = index.as_deref()?;
                self.expr(ie, env, mode).or_else(|| self.local_index(ie, *len, env))
            }
            Expr::Neg(a) | Expr::Abs(a) => self.expr(a, env, mode),
            Expr::Bin(op, a, b) => {
                if let Some(w) = self.expr(a, env, mode).or_else(|| self.expr(b, env, mode)) {
                    return Some(w);
                }
                let (x, y) = (self.an.expr(a, env).defined(), self.an.expr(b, env).defined());
                if matches!(op, BinOp::Div | BinOp::Mod | BinOp::RDiv) && y.contains(0) && x.has_values() {
                    return Some(format!("`{}` may divide by zero", self.show(e)));
                }
                let (lo, hi) = raw_bounds(*op, &x, &y)?;
                (lo < i128::from(MIN_VALUE) || hi > i128::from(MAX_VALUE))
                    .then(|| format!("`{}` may overflow", self.show(e)))
            }
            Expr::MinMax(_, a, b) => self.expr(a, env, mode).or_else(|| self.expr(b, env, mode)),
            Expr::If(c, a, b) => {
                if let Some(w) = self.bexpr(c, env, mode) {
                    return Some(w);
                }
                let cond = self.an.bexpr(c, env);
                let then = if cond.may_true { self.expr(a, env, mode) } else { None };
                then.or_else(|| if cond.may_false { self.expr(b, env, mode) } else { None })
            }
            Expr::NonDet(a, b) => {
                if let Some(w) = self.expr(a, env, mode).or_else(|| self.expr(b, env, mode)) {
                    return Some(w);
                }
                let (lo, hi) = (self.an.expr(a, env).defined(), self.an.expr(b, env).defined());
                let (Some(lo), Some(hi)) = (lo.min(), hi.max()) else { return None };
                if mode == Mode::Pred {
                    return Some(format!("`{}` is a nondeterministic value in a predicate", self.show(e)));
                }
                (i128::from(hi) - i128::from(lo) > i128::from(MAX_RANGE_CHOICES))
                    .then(|| format!("`{}` may choose among more than {MAX_RANGE_CHOICES} values", self.show(e)))
            }
        }
    }

    /// Why the agent of `x of e` (or `id of e`) may be out of range.
    fn owner(&self, owner: &AgentRef, env: &Env, mode: Mode) -> Why {
        let AgentRef::Of(e) = owner else { return None };
        if let Some(w) = self.expr(e, env, mode) {
            return Some(w);
        }
        let ids = self.an.expr(e, env).defined();
        let n = self.model().n_agents() as i64;
        (!ids.is_subset(&IntervalSet::range(0, n - 1)))
            .then(|| format!("the agent `{}` may be out of range (0..{})", self.show(e), n - 1))
    }

    fn local_index(&self, ie: &Expr, len: usize, env: &Env) -> Why {
        let idx = self.an.expr(ie, env).defined();
        (!idx.is_subset(&IntervalSet::range(0, len as i64 - 1)))
            .then(|| format!("the index `{}` of a local array may leave 0..{}", self.show(ie), len.saturating_sub(1)))
    }

    /// Why evaluating `b` may fail; `and` and `or` evaluate their right operand only when the
    /// left one leaves it to decide (`and`: under the left one's refinement of `env`).
    fn bexpr(&self, b: &BExpr, env: &Env, mode: Mode) -> Why {
        match b {
            BExpr::Const(_) => None,
            BExpr::Not(x) => self.bexpr(x, env, mode),
            BExpr::Cmp(_, x, y) => self.expr(x, env, mode).or_else(|| self.expr(y, env, mode)),
            BExpr::And(x, y) => self.bexpr(x, env, mode).or_else(|| {
                let mut narrowed = env.clone();
                if !self.an.refine(x, &mut narrowed) {
                    return None;
                }
                self.bexpr(y, &narrowed, mode)
            }),
            BExpr::Or(x, y) => self.bexpr(x, env, mode).or_else(|| {
                if !self.an.bexpr(x, env).may_false {
                    return None;
                }
                self.bexpr(y, env, mode)
            }),
        }
    }

    /// `q`'s body, its quantified variables ranging over their types; a body that may fail
    /// makes the evaluation depend on the order of the agents of every quantified type, which
    /// is noted at `place`.
    fn qpred(&mut self, q: &QPred, env: &Env, mode: Mode, place: &str, span: Option<Span>) -> Option<Site> {
        let mut inner = env.clone();
        inner.quants = q.quants.iter().map(|&(_, t)| self.an.ids_of(t)).collect();
        let what = self.bexpr(&q.body, &inner, mode)?;
        let site = Site { place: place.to_string(), what, span };
        for &(_, t) in &q.quants {
            if !self.quantified.iter().any(|(u, _)| *u == t) {
                self.quantified.push((t, site.clone()));
            }
        }
        Some(site)
    }

    // ------------------------------------------------------------------ places

    fn initialisers(&self) -> Option<Site> {
        let model = self.model();
        for (v, var) in model.vars.iter().enumerate() {
            let owners: Vec<Option<TypeId>> = match var.store {
                Store::Env => vec![None],
                Store::Attr => (0..model.agent_types.len())
                    .filter(|&t| model.agent_types[t].attrs.contains(&v))
                    .map(Some)
                    .collect(),
                Store::Stig { stigmergy, .. } => {
                    (0..model.agent_types.len()).filter(|&t| model.holds(t, stigmergy)).map(Some).collect()
                }
            };
            for ty in owners {
                if ty.is_some_and(|t| model.agent_types[t].count == 0) {
                    continue;
                }
                let init = match var.store {
                    Store::Attr => var.init_for(ty),
                    _ => var.init_for(None),
                };
                let exprs: Vec<&Expr> = match init {
                    None | Some(Init::Undef) => vec![],
                    Some(Init::Single(e)) => vec![e],
                    Some(Init::Choice(es)) => es.iter().collect(),
                    Some(Init::Range(a, b)) => vec![a, b],
                };
                let env = env(ty);
                for e in exprs {
                    let why = self.expr(e, &env, Mode::Pred).or_else(|| {
                        (!in_value_range(&self.an.expr(e, &env))).then(|| format!("`{}` may overflow", self.show(e)))
                    });
                    if let Some(what) = why {
                        return Some(Site { place: format!("the initialiser of `{}`", var.name), what, span: None });
                    }
                }
            }
        }
        None
    }

    /// The assumptions, evaluated on concrete initial states before any reduction: their
    /// quantifiers are not noted.
    fn assumptions(&self) -> Option<Site> {
        self.model().assumptions.iter().find_map(|a| {
            let place = format!("assumption {}", a.name);
            let mut f = Finder { an: self.an, quantified: Vec::new() };
            f.qpred(&a.pred, &env(None), Mode::Pred, &place, None)
        })
    }

    fn links(&self) -> Option<Site> {
        self.model().stigmergies.iter().find_map(|s| {
            let what = self.bexpr(&s.link, &env(None), Mode::Pred)?;
            Some(Site { place: format!("the link predicate of {}", s.name), what, span: Some(s.span) })
        })
    }

    fn property(&mut self, p: &Property) -> Option<Site> {
        let place = format!("property {}", p.name);
        let mut first = None;
        // Every predicate, so that every quantifier whose body may fail is noted.
        for q in p.predicates() {
            let site = self.qpred(q, &env(None), Mode::Pred, &place, Some(p.span));
            first = first.or(site);
        }
        first
    }

    /// Every step of every populated agent type; the first place that may fail. Every step is
    /// read, so that every quantifier whose body may fail is noted.
    fn steps(&mut self, behs: &[Behaviour]) -> Option<Site> {
        let mut first = None;
        for (ty, b) in behs.iter().enumerate() {
            if self.model().agent_types[ty].count == 0 {
                continue;
            }
            let place = format!("a step of {}", self.model().agent_types[ty].name);
            for e in b.edges.iter().flatten() {
                let span = match &e.step {
                    Step::Act(a) => Some(a.span),
                    Step::Skip => None,
                };
                let site = |what| Site { place: place.clone(), what, span };
                let mut env = env(Some(ty));
                let mut fires = true;
                for g in &e.guards {
                    if let Some(w) = self.bexpr(g, &env, Mode::Step) {
                        first = first.or(Some(site(w)));
                    }
                    if !self.an.refine(g, &mut env) {
                        fires = false;
                        break;
                    }
                }
                let Step::Act(action) = &e.step else { continue };
                if !fires {
                    continue;
                }
                let why = match &action.kind {
                    ActionKind::Assign(a) => self.assign(a, &env),
                    ActionKind::Block { stmts, locals } => {
                        env.locals = vec![IntervalSet::empty(); *locals];
                        let mut why = None;
                        for s in stmts {
                            let w = self.stmt(s, &mut env, &place, span);
                            why = why.or(w);
                        }
                        why
                    }
                };
                first = first.or(why.map(site));
            }
        }
        first
    }

    /// A simultaneous assignment: each target's indices, then its value, which must fit the
    /// value range.
    fn assign(&self, a: &Assign, env: &Env) -> Why {
        let model = self.model();
        for (t, v) in a.targets.iter().zip(&a.values) {
            let var = &model.vars[t.var];
            for (d, ie) in var.dims.iter().zip(&t.indices) {
                if let Some(w) = self.expr(ie, env, Mode::Step) {
                    return Some(w);
                }
                if !self.an.expr(ie, env).defined().is_subset(&IntervalSet::range(0, *d as i64 - 1)) {
                    return Some(format!(
                        "the index `{}` of `{}` may leave 0..{}",
                        self.show(ie),
                        var.name,
                        d.saturating_sub(1)
                    ));
                }
            }
            if let Some(w) = self.expr(v, env, Mode::Step) {
                return Some(w);
            }
            if !in_value_range(&self.an.expr(v, env)) {
                return Some(format!("`{}` may overflow", self.show(v)));
            }
        }
        None
    }

    /// One statement of a block, and what it leaves in `env` for the next ones (as the value
    /// analysis reads them).
    fn stmt(&mut self, s: &Stmt, env: &mut Env, place: &str, span: Option<Span>) -> Why {
        let model = self.an.model;
        match s {
            Stmt::Assign(a) => {
                let why = self.assign(a, env);
                for (t, v) in a.targets.iter().zip(&a.values) {
                    if model.vars[t.var].dims.is_empty() {
                        let val = self.an.rhs(v, env);
                        let key = self.an.key(t.var, env.ty);
                        let cur = self.an.sets.get(&key).cloned().unwrap_or_default();
                        env.refined.insert(t.var, cur.join(&val));
                    }
                }
                why
            }
            Stmt::Local { slots, values } => {
                let mut why = None;
                for (t, v) in slots.iter().zip(values) {
                    let w = t
                        .index
                        .as_ref()
                        .and_then(|ie| self.expr(ie, env, Mode::Step).or_else(|| self.local_index(ie, t.len, env)))
                        .or_else(|| self.expr(v, env, Mode::Step))
                        .or_else(|| {
                            (!in_value_range(&self.an.expr(v, env))).then(|| format!("`{}` may overflow", self.show(v)))
                        });
                    why = why.or(w);
                }
                let vals: Vec<IntervalSet> = values.iter().map(|v| self.an.rhs(v, env)).collect();
                for (t, v) in slots.iter().zip(vals) {
                    match t.index {
                        // One element of the array: any of them.
                        Some(_) => {
                            for l in &mut env.locals[t.slot..t.slot + t.len] {
                                l.join_assign(&v);
                            }
                        }
                        None => env.locals[t.slot] = v,
                    }
                }
                why
            }
            Stmt::Pick { slot, count, agent_type, filter } => {
                let why = filter.as_ref().and_then(|f| self.bexpr(f, env, Mode::Step));
                let n = model.n_agents() as i64;
                let ids = agent_type.map_or_else(
                    || if n == 0 { IntervalSet::empty() } else { IntervalSet::range(0, n - 1) },
                    |t| self.an.ids_of(t),
                );
                for l in &mut env.locals[*slot..slot + count] {
                    *l = ids.clone();
                }
                why
            }
            Stmt::Quant { slot, pred } => {
                let why = self.qpred(pred, env, Mode::Step, place, span).map(|s| s.what);
                env.locals[*slot] = IntervalSet::range(0, 1);
                why
            }
            Stmt::Count { slot, agent_type, pred } => {
                // Every agent is evaluated: the order does not matter.
                let mut inner = env.clone();
                inner.quants = vec![self.an.ids_of(*agent_type)];
                let why = self.bexpr(pred, &inner, Mode::Step);
                env.locals[*slot] = IntervalSet::range(0, model.agent_types[*agent_type].count as i64);
                why
            }
        }
    }
}
