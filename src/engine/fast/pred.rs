//! A property's quantified predicate compiled once per tuple of quantified agents: with
//! each `QVar` a constant agent id, `x of b1` is a slot and the body folds like a link
//! (`expr`). `engine::eval_all` evaluates it on every stored state.
//!
//! Evaluation mirrors `Ctx::eval_q` in `Mode::Pred`: tuples in the evaluator's order (each
//! quantifier's `ids()`, outermost first), a `forall` stopping at its first false instance,
//! an `exists` at its first true one. ⊥ in a comparison is false (D10), as in every compiled
//! predicate; a ⊥ index or agent, which `Mode::Pred` reads as ⊥, cannot occur, since only
//! constant in-range indices and agents compile. A run-time error is a `Fallback`, and the
//! caller evaluates the predicate instead, which reports it with its message.

use super::expr::{Binding, CBExpr, Compiler, Fallback};
use crate::engine::state::Layout;
use crate::model::{Model, QPred};
use crate::syntax::ast::QuantKind;

/// At most this many compiled instances of a body: beyond, the predicate is evaluated.
const MAX_INSTANCES: usize = 4096;

/// A quantified predicate with its body compiled for every tuple of agents.
#[derive(Clone, Debug)]
pub(crate) struct FastPred {
    /// Per quantifier, outermost first: whether it is `exists`, and how many agents it
    /// ranges over.
    levels: Box<[(bool, usize)]>,
    /// `Some(exists)` when every quantifier is of that kind: then the nested loops visit the
    /// bodies in order and stop at the first one equal to `exists`, so one loop does.
    uniform: Option<bool>,
    /// The body for every tuple, in the evaluator's order (the innermost quantifier's agent
    /// varies fastest).
    bodies: Box<[CBExpr]>,
}

impl FastPred {
    /// The compiled form of `q`, or `None` when an instance of its body does not compile
    /// (see `Compiler::bexpr`) or it has more than `MAX_INSTANCES` instances.
    pub(crate) fn compile(model: &Model, lay: &Layout, q: &QPred) -> Option<FastPred> {
        let ranges: Vec<_> = q.quants.iter().map(|&(_, ty)| model.agent_types[ty].ids()).collect();
        let n = ranges.iter().try_fold(1usize, |n, r| n.checked_mul(r.len()).filter(|&n| n <= MAX_INSTANCES))?;
        let mut tuple = vec![0usize; ranges.len()];
        let mut bodies = Vec::with_capacity(n);
        for k in 0..n {
            // The k-th tuple in mixed radix, the innermost quantifier as the lowest digit.
            let mut rest = k;
            for (a, r) in tuple.iter_mut().zip(&ranges).rev() {
                *a = r.start + rest % r.len();
                rest /= r.len();
            }
            let cx = Compiler { model, lay, bind: Binding::default(), quants: &tuple };
            bodies.push(cx.bexpr(&q.body)?);
        }
        let levels: Box<[(bool, usize)]> =
            q.quants.iter().zip(&ranges).map(|(&(kind, _), r)| (matches!(kind, QuantKind::Exists), r.len())).collect();
        let uniform = match levels.first() {
            Some(&(exists, _)) if levels.iter().all(|&(e, _)| e == exists) => Some(exists),
            _ => None,
        };
        Some(FastPred { levels, uniform, bodies: bodies.into() })
    }

    /// Whether the predicate holds in `st`; `Fallback` at the first run-time error the
    /// evaluator would meet.
    #[inline]
    pub(crate) fn eval(&self, st: &[i32]) -> Result<bool, Fallback> {
        let Some(exists) = self.uniform else { return self.eval_from(st, 0, 0) };
        for b in &self.bodies {
            if b.eval(st)? == exists {
                return Ok(exists);
            }
        }
        Ok(!exists)
    }

    /// The quantifiers from `level` on, for the tuple prefix numbered `prefix`.
    fn eval_from(&self, st: &[i32], level: usize, prefix: usize) -> Result<bool, Fallback> {
        let Some(&(exists, count)) = self.levels.get(level) else {
            return self.bodies[prefix].eval(st);
        };
        for j in 0..count {
            if self.eval_from(st, level + 1, prefix * count + j)? == exists {
                return Ok(exists);
            }
        }
        Ok(!exists)
    }
}

#[cfg(test)]
#[path = "pred_tests.rs"]
mod tests;
