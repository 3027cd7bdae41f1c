//! Each agent type's resolved process → a finite automaton of guarded actions.
//!
//! A control state is a program point of the behaviour: a position in the (inlined)
//! process tree, and for each parallel composition under way the position of each of its
//! branches (a terminated branch carries no information). An edge is a guarded action:
//! it leaves control state `source` (entry condition), fires only when all its `guards`
//! hold in the pre-state, performs `action` atomically and moves to `target` (exit
//! condition). This is the single representation the value analysis, the native engine
//! and the LNT generator consume.

mod compile;

pub use compile::compile_all;

use crate::model::{Action, BExpr, TupleId};

/// Index of a control state within one behaviour.
pub(crate) type CtlId = u32;

#[derive(Clone, Debug)]
pub(crate) enum Step {
    /// An action or block of the model.
    Act(Action),
    /// `Skip` (D4), or the step of `g => P` that skips `P` because `g` is false.
    Skip,
}

#[derive(Clone, Debug)]
pub(crate) struct Edge {
    /// Conjoined guards on the path to the action (outermost first); evaluated left to
    /// right with short-circuit, atomically with the action.
    pub(crate) guards: Vec<BExpr>,
    pub(crate) step: Step,
    pub(crate) target: CtlId,
    /// Tuples this step adds to the agent's confirmation set `Zc` (D3: mentioned in the
    /// agent's own copy by the guards, right-hand sides and indices, minus those written).
    pub(crate) confirms: Vec<TupleId>,
    /// Tuples this step writes (each gets one fresh timestamp and goes to `Zp`).
    pub(crate) writes: Vec<TupleId>,
}

#[derive(Clone, Debug)]
pub struct Behaviour {
    /// A readable description of each control state (program points), for `labs info`.
    pub states: Vec<String>,
    pub(crate) initial: CtlId,
    /// Outgoing edges per control state.
    pub(crate) edges: Vec<Vec<Edge>>,
}

impl Behaviour {
    pub fn edge_count(&self) -> usize {
        self.edges.iter().map(Vec::len).sum()
    }
}
