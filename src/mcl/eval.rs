//! Local (on the fly) evaluation of a typed query on an LTS.

use super::aut::LtsView;
use super::diag::Diagnostic;
use super::typing::Query;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// Bounds of one evaluation: a deadline, a cancel flag (set by a signal handler) and a
/// maximum number of (state, valuation) pairs explored.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub deadline: Option<Instant>,
    pub cancel: Option<Arc<AtomicBool>>,
    pub max_states: Option<u64>,
}

/// The verdict, its diagnostic (a counterexample for FALSE, a witness for TRUE when the
/// formula has one), and the number of (state, valuation) pairs explored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evaluation {
    pub holds: bool,
    pub diagnostic: Option<Diagnostic>,
    pub states_explored: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalError {
    /// The deadline of `Limits` passed.
    Timeout,
    /// The cancel flag of `Limits` was set.
    Interrupted,
    /// More (state, valuation) pairs than `Limits::max_states`.
    StateLimit { limit: u64 },
    /// A data error while evaluating (division by zero, Nat underflow, overflow), as
    /// evaluator4 stops on it.
    Runtime { message: String },
    /// A construct the evaluator does not support, found at evaluation time.
    Unsupported { message: String },
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::Timeout => write!(f, "time limit reached"),
            EvalError::Interrupted => write!(f, "interrupted"),
            EvalError::StateLimit { limit } => write!(f, "more than {limit} (state, valuation) pairs"),
            EvalError::Runtime { message } => write!(f, "evaluation error: {message}"),
            EvalError::Unsupported { message } => write!(f, "{message} is not supported"),
        }
    }
}

impl std::error::Error for EvalError {}

/// Decides `q` on `lts` from its initial state.
pub fn evaluate(q: &Query, lts: LtsView, limits: &Limits) -> Result<Evaluation, EvalError> {
    let _ = (q, lts, limits);
    Err(EvalError::Unsupported { message: "evaluation (skeleton)".into() })
}
