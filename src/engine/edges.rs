//! Whether the exploration keeps the successor lists for the checks that run after it, or
//! the checks recompute successors from the state store (`recompute::Recomputed`): kept while
//! the graph fits in a budget, dropped once it would not (docs/performance.md, "Successor
//! lists: kept while they fit").

use crate::limits::Limits;
use serde::Serialize;

/// What `verify` does with the successor lists (`--edges`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EdgePolicy {
    /// Kept while the process's resident memory stays at most half of the run's memory
    /// bound (`AUTO_SHARE`), and only where a selected property reads successors.
    #[default]
    Auto,
    /// Kept whatever they cost.
    Keep,
    /// Never kept: the checks recompute successors.
    Recompute,
    /// Kept while the graph (store, parents, lists: `Graph::memory_bytes`) takes at most this
    /// many bytes, and only where a selected property reads successors: a budget that does
    /// not depend on the process's other memory (the tests' way to drop the lists at a chosen
    /// point).
    Within(u64),
}

/// The share of the memory bound the process may take while the successor lists are kept
/// (1 / `AUTO_SHARE`). The lists are about half of the graph on the benchmarks, so when they
/// are dropped at this point the store has about three quarters of the bound to grow into;
/// the memory bound is on resident memory, so the budget is too.
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
    /// Kept: the memory stayed within the budget (`None`: the run has no memory bound).
    WithinBudget { budget_bytes: Option<u64> },
    /// Dropped when the memory passed the budget, with `at_states` states stored; the checks
    /// recomputed successors.
    OverBudget { budget_bytes: u64, at_states: u64 },
}

impl EdgeUse {
    /// Whether the checks read kept successor lists.
    pub(crate) fn kept(&self) -> bool {
        match *self {
            EdgeUse::Chosen { kept } => kept,
            EdgeUse::NotNeeded | EdgeUse::OverBudget { .. } => false,
            EdgeUse::WithinBudget { .. } => true,
        }
    }
}

/// The memory past which the exploration drops the successor lists it keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeBudget {
    /// The process's resident memory, in bytes.
    Resident(u64),
    /// The graph's memory (`Graph::memory_bytes`), in bytes.
    Graph(u64),
}

impl EdgeBudget {
    pub(crate) fn bytes(self) -> u64 {
        match self {
            EdgeBudget::Resident(b) | EdgeBudget::Graph(b) => b,
        }
    }
}

/// How the exploration starts: whether it keeps the lists, and the budget past which it
/// drops them (`None`: never).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EdgePlan {
    pub(crate) keep: bool,
    pub(crate) budget: Option<EdgeBudget>,
}

/// The plan for `policy`, where `needed` says whether a selected property reads successors.
pub(crate) fn plan(policy: EdgePolicy, needed: bool, limits: &Limits) -> EdgePlan {
    match policy {
        EdgePolicy::Keep => EdgePlan { keep: true, budget: None },
        EdgePolicy::Recompute => EdgePlan { keep: false, budget: None },
        _ if !needed => EdgePlan { keep: false, budget: None },
        EdgePolicy::Within(b) => EdgePlan { keep: true, budget: Some(EdgeBudget::Graph(b)) },
        EdgePolicy::Auto => {
            EdgePlan { keep: true, budget: limits.memory().map(|(b, _)| EdgeBudget::Resident(b / AUTO_SHARE)) }
        }
    }
}

/// What the run did under `policy`, from its plan and where (if anywhere) the exploration
/// dropped the lists.
pub(crate) fn outcome(policy: EdgePolicy, plan: EdgePlan, dropped_at: Option<u64>) -> EdgeUse {
    match (policy, dropped_at) {
        (EdgePolicy::Keep | EdgePolicy::Recompute, _) => EdgeUse::Chosen { kept: plan.keep },
        _ if !plan.keep => EdgeUse::NotNeeded,
        (_, Some(at_states)) => {
            EdgeUse::OverBudget { budget_bytes: plan.budget.expect("dropped at a budget").bytes(), at_states }
        }
        (_, None) => EdgeUse::WithinBudget { budget_bytes: plan.budget.map(EdgeBudget::bytes) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::MemorySource;

    #[test]
    fn auto_keeps_within_half_the_bound_and_only_where_needed() {
        let bound = Limits::new(None, None, Some((1000, MemorySource::User)), None);
        assert_eq!(
            plan(EdgePolicy::Auto, true, &bound),
            EdgePlan { keep: true, budget: Some(EdgeBudget::Resident(500)) }
        );
        assert_eq!(plan(EdgePolicy::Auto, false, &bound), EdgePlan { keep: false, budget: None });
        assert_eq!(plan(EdgePolicy::Auto, true, &Limits::none()), EdgePlan { keep: true, budget: None });
        assert_eq!(plan(EdgePolicy::Keep, false, &bound), EdgePlan { keep: true, budget: None });
        assert_eq!(plan(EdgePolicy::Recompute, true, &bound), EdgePlan { keep: false, budget: None });
        assert_eq!(
            plan(EdgePolicy::Within(7), true, &bound),
            EdgePlan { keep: true, budget: Some(EdgeBudget::Graph(7)) }
        );
    }

    #[test]
    fn outcome_says_why() {
        let p = EdgePlan { keep: true, budget: Some(EdgeBudget::Resident(500)) };
        assert_eq!(outcome(EdgePolicy::Auto, p, Some(42)), EdgeUse::OverBudget { budget_bytes: 500, at_states: 42 });
        assert_eq!(outcome(EdgePolicy::Auto, p, None), EdgeUse::WithinBudget { budget_bytes: Some(500) });
        assert!(!outcome(EdgePolicy::Auto, p, Some(42)).kept());
        let none = EdgePlan { keep: false, budget: None };
        assert_eq!(outcome(EdgePolicy::Auto, none, None), EdgeUse::NotNeeded);
        assert_eq!(outcome(EdgePolicy::Recompute, none, None), EdgeUse::Chosen { kept: false });
    }
}
