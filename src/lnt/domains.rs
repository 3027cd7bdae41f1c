//! Value-analysis domains as LNT membership predicates, and a small abstract evaluator giving
//! static domains to the values an agent chooses (`[a..b]`, `pick`).
//!
//! Every input offer of the LNT program is constrained by one of these predicates
//! (`dom_<n> (v)`), so that each leaf of the compositional workflow, generated in isolation,
//! only enumerates values the analysis says can occur.

use crate::analysis::values::ValueAnalysis;
use crate::analysis::{IntervalSet, NEG_INF, POS_INF, ops};
use crate::model::arith::{MAX_VALUE, MIN_VALUE};
use crate::model::{AgentRef, Expr, Model, Store, TypeId};

/// The distinct domains used by a program, in order of first use (`dom_0`, `dom_1`, …).
#[derive(Clone, Debug, Default)]
pub(crate) struct DomainTable {
    pub(crate) sets: Vec<IntervalSet>,
}

impl DomainTable {
    /// The name of the predicate for `set` (added if new).
    pub(crate) fn name(&mut self, set: &IntervalSet) -> String {
        let i = match self.sets.iter().position(|s| s == set) {
            Some(i) => i,
            None => {
                self.sets.push(set.clone());
                self.sets.len() - 1
            }
        };
        format!("dom_{i}")
    }
}

/// An LNT integer literal (negative ones parenthesised).
pub(crate) fn int_lit(v: i64) -> String {
    if v < 0 { format!("(-{})", v.unsigned_abs()) } else { v.to_string() }
}

/// The LNT Boolean expression "`var` ∈ `set`", fully parenthesised (`false` for the empty set).
pub(crate) fn membership(var: &str, set: &IntervalSet) -> String {
    let mut parts = vec![];
    for i in set.intervals() {
        let lo = if i.lo == NEG_INF { MIN_VALUE } else { i.lo.max(MIN_VALUE) };
        let hi = if i.hi == POS_INF { MAX_VALUE } else { i.hi.min(MAX_VALUE) };
        if lo == hi {
            parts.push(format!("({var} == {})", int_lit(lo)));
        } else {
            parts.push(format!("(({var} >= {}) and ({var} <= {}))", int_lit(lo), int_lit(hi)));
        }
    }
    if set.contains_undef() {
        parts.push(format!("({var} == UNDEF)"));
    }
    match parts.len() {
        0 => "false".into(),
        1 => parts.pop().expect("one part"),
        _ => format!("({})", parts.join(" or ")),
    }
}

/// The ids of an agent type, or of all agents, as a set.
pub(crate) fn ids(model: &Model, ty: Option<TypeId>) -> IntervalSet {
    match ty {
        Some(t) => {
            let a = &model.agent_types[t];
            if a.count == 0 {
                IntervalSet::empty()
            } else {
                IntervalSet::range(a.first_id as i64, (a.first_id + a.count - 1) as i64)
            }
        }
        None => {
            let n = model.n_agents();
            if n == 0 { IntervalSet::empty() } else { IntervalSet::range(0, n as i64 - 1) }
        }
    }
}

/// The analysed values of a variable for an agent type (the environment's for environment
/// variables; every type's when `ty` is `None`).
pub(crate) fn var_set(model: &Model, a: &ValueAnalysis, var: usize, ty: Option<TypeId>) -> IntervalSet {
    if model.vars[var].store == Store::Env {
        return a.get(var, None).cloned().unwrap_or_default();
    }
    match ty {
        Some(t) => a.get(var, Some(t)).cloned().unwrap_or_else(|| a.any_type(var)),
        None => a.any_type(var),
    }
}

/// Abstract evaluation of an expression of an agent of type `ty` (sound, coarse): `locals`
/// gives the sets of block locals by slot (missing slots: every value).
pub(crate) struct Abs<'a> {
    pub(crate) model: &'a Model,
    pub(crate) analysis: &'a ValueAnalysis,
    pub(crate) ty: TypeId,
    pub(crate) locals: Vec<IntervalSet>,
}

impl Abs<'_> {
    pub(crate) fn expr(&self, e: &Expr) -> IntervalSet {
        match e {
            Expr::Const(v) => IntervalSet::singleton(*v),
            Expr::AgentId(AgentRef::Own) => ids(self.model, Some(self.ty)),
            Expr::AgentId(AgentRef::Of(x)) => self.expr(x).meet(&ids(self.model, None)),
            Expr::AgentId(_) | Expr::QVar(_) => ids(self.model, None),
            Expr::Var(r) => match r.owner {
                AgentRef::Own => var_set(self.model, self.analysis, r.var, Some(self.ty)),
                _ => var_set(self.model, self.analysis, r.var, None),
            },
            Expr::Local { slot, len, .. } => {
                let mut out = IntervalSet::empty();
                for s in *slot..slot + len {
                    match self.locals.get(s) {
                        Some(x) if !x.is_empty() => {
                            out.join_assign(x);
                        }
                        _ => {
                            out.join_assign(&IntervalSet::value_range().with_undef(true));
                        }
                    }
                }
                out
            }
            Expr::Neg(a) => ops::neg(&self.expr(a)),
            Expr::Abs(a) => ops::abs(&self.expr(a)),
            Expr::Bin(op, a, b) => ops::binary(*op, &self.expr(a), &self.expr(b)),
            Expr::MinMax(m, a, b) => ops::min_max(*m, &self.expr(a), &self.expr(b)),
            Expr::If(_, a, b) => self.expr(a).join(&self.expr(b)),
            Expr::NonDet(a, b) => ops::nondet(&self.expr(a), &self.expr(b)),
        }
    }

    /// The static domain of the choice made by `[a..b]`: the analysis of the expression,
    /// integers only, clamped to the value range.
    pub(crate) fn nondet_domain(&self, a: &Expr, b: &Expr) -> IntervalSet {
        ops::nondet(&self.expr(a), &self.expr(b)).defined().meet(&IntervalSet::value_range())
    }
}

/// The most values a choice (`[a..b]`) may have: the program enumerates it before the step.
pub(crate) const CHOICE_LIMIT: u64 = 1 << 16;

/// The most combinations of the choices of one step (each with the 0 of a choice not made):
/// the program chooses them one after the other before the step, every combination a path.
pub(crate) const STEP_CHOICES_LIMIT: u64 = 1 << 20;

/// ⊥: one less than the smallest value (and 0) of every analysed set, so that it lies outside
/// every analysed range.
pub fn undef_value(model: &Model, analysis: &ValueAnalysis) -> i64 {
    let mut lo = 0i64;
    for s in analysis.sets.values() {
        if let Some(m) = s.min() {
            lo = lo.min(m.max(crate::model::arith::MIN_VALUE));
        }
    }
    let _ = model;
    lo - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memberships() {
        assert_eq!(membership("v", &IntervalSet::empty()), "false");
        assert_eq!(membership("v", &IntervalSet::singleton(3)), "(v == 3)");
        assert_eq!(membership("v", &IntervalSet::range(-1, 1)), "((v >= (-1)) and (v <= 1))");
        let s = IntervalSet::from_intervals([(0, 2), (5, 5)], true);
        assert_eq!(membership("x", &s), "(((x >= 0) and (x <= 2)) or (x == 5) or (x == UNDEF))");
    }

    #[test]
    fn table_dedupes() {
        let mut t = DomainTable::default();
        assert_eq!(t.name(&IntervalSet::singleton(1)), "dom_0");
        assert_eq!(t.name(&IntervalSet::singleton(2)), "dom_1");
        assert_eq!(t.name(&IntervalSet::singleton(1)), "dom_0");
    }
}
