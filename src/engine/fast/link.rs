//! Link predicates compiled per (sender, receiver) pair: `x of c1` and `x of c2` are then
//! slots.

use super::expr::{Binding, CBExpr, Compiler};
use crate::engine::state::Layout;
use crate::model::{BExpr, Model};

/// At most this many compiled predicates per tuple (64 agents): beyond, links are evaluated.
const MAX_PAIRS: usize = 64 * 64;

/// The compiled link predicate of each tuple, for each (sender, receiver) pair that has
/// one (`None` for tuples whose link is the constant `true`, or too many agents).
pub(crate) struct Links {
    n: usize,
    /// How many tuples have a link other than `true`.
    #[cfg(feature = "test-support")]
    not_true: usize,
    pairs: Vec<Option<Vec<Option<CBExpr>>>>,
}

impl Links {
    pub(crate) fn compile(model: &Model, lay: &Layout) -> Links {
        let n = lay.n_agents;
        let pairs = model
            .tuples
            .iter()
            .map(|t| {
                let link = &model.stigmergies[t.stigmergy].link;
                if matches!(link, BExpr::Const(true)) || n * n > MAX_PAIRS {
                    return None;
                }
                let pair = |s, r| {
                    let bind = Binding { me: None, c1: Some(s), c2: Some(r) };
                    Compiler { model, lay, bind, quants: &[] }.bexpr(link)
                };
                Some((0..n * n).map(|i| pair(i / n, i % n)).collect())
            })
            .collect();
        Links {
            n,
            #[cfg(feature = "test-support")]
            not_true: model
                .tuples
                .iter()
                .filter(|t| !matches!(model.stigmergies[t.stigmergy].link, BExpr::Const(true)))
                .count(),
            pairs,
        }
    }

    /// (pairs whose link is not `true`, pairs with a compiled link).
    #[cfg(feature = "test-support")]
    pub(crate) fn counts(&self) -> (usize, usize) {
        let compiled = self.pairs.iter().flatten().flatten().filter(|c| c.is_some()).count();
        (self.not_true * self.n * self.n, compiled)
    }

    /// The compiled link of tuple `k` from sender `s` to receiver `r`, if there is one.
    #[inline]
    pub(crate) fn get(&self, k: usize, s: usize, r: usize) -> Option<&CBExpr> {
        self.pairs[k].as_ref()?[s * self.n + r].as_ref()
    }
}
