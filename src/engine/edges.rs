//! Whether the exploration keeps the successor lists for the checks that run after it, or
//! the checks recompute successors from the state store (`recompute::Recomputed`): kept while
//! the graph fits in a budget, dropped once it would not (docs/performance.md, "Successor
//! lists: kept while they fit").

use crate::limits::Limits;
use serde::Serialize;

/// What `verify` does with the successor lists (`--edges`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EdgePolicy {
    /// Kept while the graph (store, parents, lists) takes at most half of the run's memory
    /// bound (`AUTO_SHARE`), and only where a selected property reads successors.
    #[default]
    Auto,
    /// Kept whatever they cost.
    Keep,
    /// Never kept: the checks recompute successors.
    Recompute,
    /// Kept while the graph takes at most this many bytes (`Auto` with a budget of its own).
    Within(u64),
}

/// The share of the memory bound the graph may take with its successor lists. The lists are
/// about half of the graph on the benchmarks, so when they are dropped at this point the
/// store has about three quarters of the bound to grow into.
const AUTO_SHARE: u64 = 2;

/// Which successors the checks read, and why (`Stats::edges`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum EdgeUse {
    /// Kept (`--edges keep`) or not (`--edges recompute`), as asked.
    Chosen { kept: bool },
    /// Not kept: no selected property reads successors (only `always`).
    #[default]
    NotNeeded,
    /// Kept: the graph stayed within the budget (`None`: the run has no memory bound).
    WithinBudget { budget_bytes: Option<u64> },
    /// Dropped when the graph passed the budget, with `at_states` states stored; the checks
    /// recomputed successors.
    OverBudget { budget_bytes: u64, at_states: u64 },
}

impl EdgeUse {
    /// Whether the checks read kept successor lists.
    pub fn kept(&self) -> bool {
        match *self {
            EdgeUse::Chosen { kept } => kept,
            EdgeUse::NotNeeded | EdgeUse::OverBudget { .. } => false,
            EdgeUse::WithinBudget { .. } => true,
        }
    }
}

/// How the exploration starts: whether it keeps the lists, and the graph size in bytes past
/// which it drops them (`None`: never).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EdgePlan {
    pub(crate) keep: bool,
    pub(crate) budget: Option<u64>,
}

/// The plan for `policy`, where `needed` says whether a selected property reads successors.
pub(crate) fn plan(policy: EdgePolicy, needed: bool, limits: &Limits) -> EdgePlan {
    match policy {
        EdgePolicy::Keep => EdgePlan { keep: true, budget: None },
        EdgePolicy::Recompute => EdgePlan { keep: false, budget: None },
        _ if !needed => EdgePlan { keep: false, budget: None },
        EdgePolicy::Within(b) => EdgePlan { keep: true, budget: Some(b) },
        EdgePolicy::Auto => EdgePlan { keep: true, budget: limits.memory().map(|(b, _)| b / AUTO_SHARE) },
    }
}

/// What the run did under `policy`, from its plan and where (if anywhere) the exploration
/// dropped the lists.
pub(crate) fn outcome(policy: EdgePolicy, plan: EdgePlan, dropped_at: Option<u64>) -> EdgeUse {
    match (policy, dropped_at) {
        (EdgePolicy::Keep | EdgePolicy::Recompute, _) => EdgeUse::Chosen { kept: plan.keep },
        _ if !plan.keep => EdgeUse::NotNeeded,
        (_, Some(at_states)) => {
            EdgeUse::OverBudget { budget_bytes: plan.budget.expect("dropped at a budget"), at_states }
        }
        (_, None) => EdgeUse::WithinBudget { budget_bytes: plan.budget },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::MemorySource;

    #[test]
    fn auto_keeps_within_half_the_bound_and_only_where_needed() {
        let bound = Limits::new(None, None, Some((1000, MemorySource::User)), None);
        assert_eq!(plan(EdgePolicy::Auto, true, &bound), EdgePlan { keep: true, budget: Some(500) });
        assert_eq!(plan(EdgePolicy::Auto, false, &bound), EdgePlan { keep: false, budget: None });
        assert_eq!(plan(EdgePolicy::Auto, true, &Limits::none()), EdgePlan { keep: true, budget: None });
        assert_eq!(plan(EdgePolicy::Keep, false, &bound), EdgePlan { keep: true, budget: None });
        assert_eq!(plan(EdgePolicy::Recompute, true, &bound), EdgePlan { keep: false, budget: None });
        assert_eq!(plan(EdgePolicy::Within(7), true, &bound), EdgePlan { keep: true, budget: Some(7) });
    }

    #[test]
    fn outcome_says_why() {
        let p = EdgePlan { keep: true, budget: Some(500) };
        assert_eq!(outcome(EdgePolicy::Auto, p, Some(42)), EdgeUse::OverBudget { budget_bytes: 500, at_states: 42 });
        assert_eq!(outcome(EdgePolicy::Auto, p, None), EdgeUse::WithinBudget { budget_bytes: Some(500) });
        assert!(!outcome(EdgePolicy::Auto, p, Some(42)).kept());
        let none = EdgePlan { keep: false, budget: None };
        assert_eq!(outcome(EdgePolicy::Auto, none, None), EdgeUse::NotNeeded);
        assert_eq!(outcome(EdgePolicy::Recompute, none, None), EdgeUse::Chosen { kept: false });
    }
}
