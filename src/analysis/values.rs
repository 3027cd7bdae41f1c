//! The value analysis fixpoint: for each variable and agent type, an interval set containing
//! every value the variable can hold in any reachable state (docs/semantics.md, "Value analysis").
//!
//! It runs on the "chaos automaton": every guarded action of every agent type may fire at any
//! time. Guards only filter (soundly) the values read by the action they guard. Stigmergic
//! values travel between all holders of their stigmergy, so the holders of a tuple share one
//! set per variable (links are ignored: sound). Array elements share one set.

use super::intervals::{IntervalSet, WidenBounds};
use super::ops::{self, BoolSet};
use crate::behaviour::{Behaviour, Step};
use crate::model::expr::{AgentRef, BExpr, Expr, TypeId, VarId};
use crate::model::{ActionKind, Assign, Init, Model, Stmt, Store};
use std::collections::HashMap;

/// Rounds of plain joins before widening a set that keeps growing.
const ROUNDS_BEFORE_WIDENING: usize = 12;
/// At most this many intervals per set (closest ones merge beyond).
const MAX_INTERVALS: usize = 16;
/// A hard cap on rounds; widening makes every chain finite well before it.
const MAX_ROUNDS: usize = 1_000;

/// The result: one set per (variable, agent type); environment variables have no type.
#[derive(Clone, Debug)]
pub struct ValueAnalysis {
    /// Keyed by (variable, agent type holding it; `None` for the environment).
    pub sets: HashMap<(VarId, Option<TypeId>), IntervalSet>,
    /// The keys whose set was widened (their bounds are not tight).
    pub widened: Vec<(VarId, Option<TypeId>)>,
}

impl ValueAnalysis {
    /// The analysis with every set replaced by one common interval, the hull of all sets (⊥
    /// kept where it was): the emitted domains then constrain nothing beyond a finite range.
    pub fn coarse(&self) -> ValueAnalysis {
        let mut all = super::intervals::IntervalSet::empty();
        for s in self.sets.values() {
            all.join_assign(&s.defined());
        }
        let hull = all.hull();
        let mut out = self.clone();
        for s in out.sets.values_mut() {
            *s = hull.clone().with_undef(s.contains_undef());
        }
        out
    }

    pub fn get(&self, var: VarId, ty: Option<TypeId>) -> Option<&IntervalSet> {
        self.sets.get(&(var, ty))
    }

    /// All values of `var` over every agent type (e.g. for `x of e`).
    pub(crate) fn any_type(&self, var: VarId) -> IntervalSet {
        let mut out = IntervalSet::empty();
        for ((v, _), s) in &self.sets {
            if *v == var {
                out.join_assign(s);
            }
        }
        out
    }

    pub(crate) fn is_widened(&self, var: VarId, ty: Option<TypeId>) -> bool {
        self.widened.contains(&(var, ty))
    }
}

/// Runs the analysis on a model and its compiled behaviours (one per agent type).
pub fn analyse(model: &Model, behaviours: &[Behaviour]) -> ValueAnalysis {
    let mut a = Analysis { model, sets: HashMap::new(), widened: vec![] };
    a.initialise();
    let mut rounds = 0;
    loop {
        rounds += 1;
        let before = a.sets.clone();
        for (ty, b) in behaviours.iter().enumerate() {
            if model.agent_types[ty].count == 0 {
                continue;
            }
            for edges in &b.edges {
                for e in edges {
                    a.fire(ty, &e.guards, &e.step);
                }
            }
        }
        a.share_stigmergic_values();
        for s in a.sets.values_mut() {
            s.normalise_with_cap(MAX_INTERVALS);
        }
        if a.sets == before || rounds >= MAX_ROUNDS {
            break;
        }
        if rounds >= ROUNDS_BEFORE_WIDENING {
            for (k, s) in a.sets.iter_mut() {
                let old = &before[k];
                if s != old {
                    *s = old.widen(s, WidenBounds::VALUE_RANGE);
                    if !a.widened.contains(k) {
                        a.widened.push(*k);
                    }
                }
            }
        }
    }
    a.widened.sort();
    ValueAnalysis { sets: a.sets, widened: a.widened }
}

pub(super) struct Analysis<'m> {
    pub(super) model: &'m Model,
    pub(super) sets: HashMap<(VarId, Option<TypeId>), IntervalSet>,
    widened: Vec<(VarId, Option<TypeId>)>,
}

/// What an expression is evaluated against: the acting type, locals, quantified variables.
#[derive(Clone)]
pub(super) struct Env {
    pub(super) ty: Option<TypeId>,
    pub(super) locals: Vec<IntervalSet>,
    pub(super) quants: Vec<IntervalSet>,
    /// Guard refinements of the acting agent's own scalar variables.
    pub(super) refined: HashMap<VarId, IntervalSet>,
}

impl<'m> Analysis<'m> {
    /// The analysis' result `va` as the sets expressions are evaluated against (`fallible`).
    pub(super) fn of_result(model: &'m Model, va: &ValueAnalysis) -> Analysis<'m> {
        Analysis { model, sets: va.sets.clone(), widened: va.widened.clone() }
    }

    pub(super) fn key(&self, var: VarId, ty: Option<TypeId>) -> (VarId, Option<TypeId>) {
        match self.model.vars[var].store {
            Store::Env => (var, None),
            _ => (var, ty),
        }
    }

    pub(super) fn ids_of(&self, ty: TypeId) -> IntervalSet {
        let t = &self.model.agent_types[ty];
        if t.count == 0 {
            IntervalSet::empty()
        } else {
            IntervalSet::range(t.first_id as i64, (t.first_id + t.count - 1) as i64)
        }
    }

    pub(super) fn all_ids(&self) -> IntervalSet {
        let n = self.model.n_agents();
        if n == 0 { IntervalSet::empty() } else { IntervalSet::range(0, n as i64 - 1) }
    }

    fn initialise(&mut self) {
        let m = self.model;
        for (v, var) in m.vars.iter().enumerate() {
            match var.store {
                Store::Env => {
                    let init = var.init_for(None).cloned();
                    let s = init.map_or(IntervalSet::empty(), |i| self.init_set(&i, None));
                    self.sets.insert((v, None), s);
                }
                Store::Attr => {
                    for (ty, t) in m.agent_types.iter().enumerate() {
                        if t.attrs.contains(&v) && t.count > 0 {
                            let s = var
                                .init_for(Some(ty))
                                .cloned()
                                .map_or(IntervalSet::empty(), |i| self.init_set(&i, Some(ty)));
                            self.sets.insert((v, Some(ty)), s);
                        }
                    }
                }
                Store::Stig { stigmergy, .. } => {
                    for ty in 0..m.agent_types.len() {
                        if m.holds(ty, stigmergy) && m.agent_types[ty].count > 0 {
                            let s = var
                                .init_for(None)
                                .cloned()
                                .map_or(IntervalSet::empty(), |i| self.init_set(&i, Some(ty)));
                            self.sets.insert((v, Some(ty)), s);
                        }
                    }
                }
            }
        }
        self.share_stigmergic_values();
    }

    fn init_set(&self, init: &Init, ty: Option<TypeId>) -> IntervalSet {
        let env = Env { ty, locals: vec![], quants: vec![], refined: HashMap::new() };
        match init {
            Init::Undef => IntervalSet::undef_only(),
            Init::Single(e) => self.expr(e, &env),
            Init::Choice(v) => v.iter().fold(IntervalSet::empty(), |acc, e| acc.join(&self.expr(e, &env))),
            Init::Range(a, b) => ops::nondet(&self.expr(a, &env), &self.expr(b, &env)),
        }
    }

    /// Holders of a stigmergy exchange values: each holder's set becomes their union.
    fn share_stigmergic_values(&mut self) {
        let m = self.model;
        for (v, var) in m.vars.iter().enumerate() {
            if let Store::Stig { stigmergy, .. } = var.store {
                let holders: Vec<TypeId> =
                    (0..m.agent_types.len()).filter(|&t| m.holds(t, stigmergy) && m.agent_types[t].count > 0).collect();
                let mut all = IntervalSet::empty();
                for &t in &holders {
                    all.join_assign(&self.sets[&(v, Some(t))]);
                }
                for &t in &holders {
                    self.sets.insert((v, Some(t)), all.clone());
                }
            }
        }
    }

    fn join_into(&mut self, var: VarId, ty: TypeId, value: &IntervalSet) {
        let key = self.key(var, Some(ty));
        self.sets.entry(key).or_default().join_assign(value);
    }

    fn fire(&mut self, ty: TypeId, guards: &[BExpr], step: &Step) {
        let mut env = Env { ty: Some(ty), locals: vec![], quants: vec![], refined: HashMap::new() };
        for g in guards {
            if !self.refine(g, &mut env) {
                return; // the guard can never hold
            }
        }
        let Step::Act(action) = step else { return };
        match &action.kind {
            ActionKind::Assign(a) => self.assign(a, ty, &env),
            ActionKind::Block { stmts, locals } => {
                env.locals = vec![IntervalSet::empty(); *locals];
                for s in stmts {
                    match s {
                        Stmt::Assign(a) => {
                            self.assign(a, ty, &env);
                            // Later statements read the new values: over-approximate by the join.
                            for (t, v) in a.targets.iter().zip(&a.values) {
                                if self.model.vars[t.var].dims.is_empty() {
                                    let val = self.rhs(v, &env);
                                    let key = self.key(t.var, Some(ty));
                                    let cur = self.sets.get(&key).cloned().unwrap_or_default();
                                    env.refined.insert(t.var, cur.join(&val));
                                }
                            }
                        }
                        Stmt::Local { slots, values } => {
                            let vals: Vec<IntervalSet> = values.iter().map(|v| self.rhs(v, &env)).collect();
                            for (s, v) in slots.iter().zip(vals) {
                                env.locals[s.slot] = v;
                            }
                        }
                        Stmt::Pick { slot, count, agent_type, .. } => {
                            let ids = agent_type.map_or_else(|| self.all_ids(), |t| self.ids_of(t));
                            for k in 0..*count {
                                env.locals[slot + k] = ids.clone();
                            }
                        }
                        Stmt::Quant { slot, .. } => env.locals[*slot] = IntervalSet::range(0, 1),
                        Stmt::Count { slot, agent_type, .. } => {
                            env.locals[*slot] = IntervalSet::range(0, self.model.agent_types[*agent_type].count as i64)
                        }
                    }
                }
            }
        }
    }

    fn assign(&mut self, a: &Assign, ty: TypeId, env: &Env) {
        for (t, v) in a.targets.iter().zip(&a.values) {
            let val = self.rhs(v, env);
            self.join_into(t.var, ty, &val);
        }
    }

    /// A right-hand side: ⊥ is assigned only by a plain copy (D10).
    pub(super) fn rhs(&self, e: &Expr, env: &Env) -> IntervalSet {
        let v = self.expr(e, env);
        match e {
            Expr::Var(_) | Expr::Local { .. } => v,
            _ => v.defined(),
        }
    }

    /// Narrows `env` by a guard that must hold; false if it can never hold.
    pub(super) fn refine(&self, g: &BExpr, env: &mut Env) -> bool {
        match g {
            BExpr::And(a, b) => self.refine(a, env) && self.refine(b, env),
            BExpr::Cmp(op, x, y) => {
                let (xs, ys) = (self.expr(x, env), self.expr(y, env));
                if !ops::may_be_true(*op, &xs, &ys) {
                    return false;
                }
                let (x2, y2) = ops::filter_cmp(*op, &xs, &ys);
                for (e, s) in [(x, x2), (y, y2)] {
                    if let Expr::Var(r) = e
                        && r.owner == AgentRef::Own
                        && r.indices.is_empty()
                    {
                        env.refined.insert(r.var, s);
                    }
                }
                true
            }
            other => self.bexpr(other, env).may_true,
        }
    }

    fn var_set(&self, var: VarId, owner: &AgentRef, env: &Env) -> IntervalSet {
        let v = &self.model.vars[var];
        if v.store == Store::Env {
            return env
                .refined
                .get(&var)
                .cloned()
                .unwrap_or_else(|| self.sets.get(&(var, None)).cloned().unwrap_or_default());
        }
        match owner {
            AgentRef::Own => {
                if let Some(s) = env.refined.get(&var) {
                    return s.clone();
                }
                match env.ty {
                    Some(t) => self.read_of_types(var, std::iter::once(t)),
                    None => self.read_of_types(var, 0..self.model.agent_types.len()),
                }
            }
            AgentRef::Of(e) => {
                // Only types whose ids the owner expression may take.
                let ids = self.expr(e, env);
                let types = (0..self.model.agent_types.len()).filter(|&t| ids.meet(&self.ids_of(t)).has_values());
                self.read_of_types(var, types)
            }
            AgentRef::C1 | AgentRef::C2 => self.read_of_types(var, 0..self.model.agent_types.len()),
        }
    }

    /// What reading `var` of an agent of one of `types` may give: the sets of the types that
    /// have `var`, and ⊥ if one of them has no such variable (the engine reads ⊥ there).
    fn read_of_types(&self, var: VarId, types: impl Iterator<Item = TypeId>) -> IntervalSet {
        let mut out = IntervalSet::empty();
        for t in types {
            if self.model.agent_types[t].count == 0 {
                continue;
            }
            let held = self.sets.get(&(var, Some(t)));
            out.join_assign(held.unwrap_or(&IntervalSet::undef_only()));
        }
        out
    }

    pub(super) fn expr(&self, e: &Expr, env: &Env) -> IntervalSet {
        match e {
            Expr::Const(v) => IntervalSet::singleton(*v),
            Expr::AgentId(AgentRef::Own) => env.ty.map_or_else(|| self.all_ids(), |t| self.ids_of(t)),
            Expr::AgentId(AgentRef::Of(e)) => self.expr(e, env).meet(&self.all_ids()),
            Expr::AgentId(_) => self.all_ids(),
            Expr::Var(r) => self.var_set(r.var, &r.owner, env),
            Expr::Local { slot, len, .. } => {
                (*slot..slot + len).filter_map(|s| env.locals.get(s)).fold(IntervalSet::empty(), |a, b| a.join(b))
            }
            Expr::QVar(i) => env.quants.get(*i).cloned().unwrap_or_else(|| self.all_ids()),
            Expr::Neg(a) => ops::neg(&self.expr(a, env)),
            Expr::Abs(a) => ops::abs(&self.expr(a, env)),
            Expr::Bin(op, a, b) => ops::binary(*op, &self.expr(a, env), &self.expr(b, env)),
            Expr::MinMax(m, a, b) => ops::min_max(*m, &self.expr(a, env), &self.expr(b, env)),
            Expr::If(c, a, b) => {
                let cond = self.bexpr(c, env);
                ops::ite(cond.may_true, cond.may_false, &self.expr(a, env), &self.expr(b, env))
            }
            Expr::NonDet(a, b) => ops::nondet(&self.expr(a, env), &self.expr(b, env)),
        }
    }

    pub(super) fn bexpr(&self, b: &BExpr, env: &Env) -> BoolSet {
        match b {
            BExpr::Const(v) => BoolSet::constant(*v),
            BExpr::Not(x) => !self.bexpr(x, env),
            BExpr::Cmp(op, x, y) => ops::compare(*op, &self.expr(x, env), &self.expr(y, env)),
            BExpr::And(x, y) => self.bexpr(x, env).and(self.bexpr(y, env)),
            BExpr::Or(x, y) => self.bexpr(x, env).or(self.bexpr(y, env)),
        }
    }
}
