//! The path every back end's traces share: an initial state and steps (event, full state
//! after it), with a lasso's loop, a deadlock and property marks. Defined here, below the
//! `trace` stage that renders, replays and translates it, because the engine builds paths.

use super::step::Event;
use serde::Serialize;

/// One step of a trace: what happened and the full state after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceStep {
    pub event: Event,
    pub state: Vec<i32>,
}

/// A mark printed after the state reached by `at` steps (0 = the initial state).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mark {
    pub at: usize,
    pub property: String,
    /// `violated` or `satisfied`.
    pub status: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// Whether the trace was produced under round-robin scheduling (needed to replay it).
    pub fair: bool,
    pub initial: Vec<i32>,
    pub steps: Vec<TraceStep>,
    /// Index in `steps` where a lasso's loop begins: the state before `steps[i]` (the
    /// initial state when 0) equals the last state.
    pub loop_start: Option<usize>,
    pub ends_in_deadlock: bool,
    pub marks: Vec<Mark>,
}

impl Trace {
    /// A run of no step yet from `initial`.
    pub(crate) fn start(fair: bool, initial: Vec<i32>) -> Trace {
        Trace { fair, initial, steps: Vec::new(), loop_start: None, ends_in_deadlock: false, marks: Vec::new() }
    }

    pub fn len(&self) -> usize {
        self.steps.len()
    }
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
    /// State after `i` steps.
    pub(crate) fn state(&self, i: usize) -> &[i32] {
        if i == 0 { &self.initial } else { &self.steps[i - 1].state }
    }
    pub fn last(&self) -> &[i32] {
        self.state(self.steps.len())
    }
}
