//! The errors of the trace stage: why a trace does not replay, why a label path cannot be
//! translated. Each message names the step or label at fault; the CLI adds the context.

use std::fmt;

/// Why a trace fails the independent replay (`super::replay`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayError {
    /// The initial state does not have the layout's number of slots.
    SlotCount {
        found: usize,
        expected: usize,
    },
    NotInitial,
    /// A run-time error of the model while computing the initial states or a deadlock.
    Runtime(String),
    /// A run-time error while computing the successors of the state before step `step`.
    StepRuntime {
        step: usize,
        message: String,
    },
    /// Step `step` reaches a successor state, but by another event.
    WrongEvent {
        step: usize,
    },
    NotSuccessor {
        step: usize,
    },
    LoopBeyondEnd {
        loop_start: usize,
    },
    LoopOpen,
    NotDeadlock,
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            ReplayError::SlotCount { found, expected } => {
                write!(f, "initial state has {found} slots, expected {expected}")
            }
            ReplayError::NotInitial => write!(f, "the initial state is not an initial state of the model"),
            ReplayError::Runtime(m) => write!(f, "{m}"),
            ReplayError::StepRuntime { step, message } => {
                write!(f, "step {step}: run-time error while replaying: {message}")
            }
            ReplayError::WrongEvent { step } => {
                write!(f, "step {step}: the state is a successor but the event does not produce it")
            }
            ReplayError::NotSuccessor { step } => write!(f, "step {step}: not a successor of the previous state"),
            ReplayError::LoopBeyondEnd { loop_start } => write!(f, "loop_start {loop_start} beyond the last step"),
            ReplayError::LoopOpen => write!(f, "the loop does not close: the last state differs from the loop start"),
            ReplayError::NotDeadlock => {
                write!(f, "the trace is marked as ending in a deadlock, but its last state has successors")
            }
        }
    }
}

impl std::error::Error for ReplayError {}

/// A trace about to be shown (`counterexample for P`, `run 2`) that fails the replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShownTraceError {
    pub name: String,
    pub error: ReplayError,
}

impl fmt::Display for ShownTraceError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "the {} does not replay: {}", self.name, self.error)
    }
}

impl std::error::Error for ShownTraceError {}

/// Why a path of LNT labels cannot be translated into a LAbS trace (`from_labels::translate`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TranslateError {
    NotAnInteger {
        label: String,
        offer: String,
    },
    WrongOffers {
        label: String,
        variable: String,
    },
    NoDone,
    /// The loop of a lasso has no `DONE`.
    LoopInsideStep,
    /// After the `done`-th `DONE`, a label observes a slot of an agent that has no such slot.
    UnownedSlot {
        done: usize,
    },
    NoInitialMatch,
    /// A run-time error of the model while computing the initial states or a deadlock.
    Runtime(String),
    StepRuntime {
        step: usize,
        message: String,
    },
    SearchBudget {
        expansions: usize,
    },
    /// No native path matches: step `step` of the path (`None`: its loop or deadlock).
    Unmatched {
        step: Option<usize>,
        fair: bool,
    },
}

impl fmt::Display for TranslateError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            TranslateError::NotAnInteger { label, offer } => write!(f, "label `{label}`: `{offer}` is not an integer"),
            TranslateError::WrongOffers { label, variable } => {
                write!(f, "label `{label}`: wrong offers for variable `{variable}`")
            }
            TranslateError::NoDone => write!(
                f,
                "the path has no `DONE` label, so it does not complete the initialisation: nothing to translate (was \
                 `DONE` hidden?)"
            ),
            TranslateError::LoopInsideStep => {
                write!(f, "the loop of the lasso has no `DONE`: it stays inside one step")
            }
            TranslateError::UnownedSlot { done } => {
                write!(f, "after DONE number {done}: a label observes a slot no agent has")
            }
            TranslateError::NoInitialMatch => {
                write!(f, "no initial state of the model has the observed initial values")
            }
            TranslateError::Runtime(m) => write!(f, "{m}"),
            TranslateError::StepRuntime { step, message } => {
                write!(f, "run-time error while replaying step {step}: {message}")
            }
            TranslateError::SearchBudget { expansions } => {
                write!(f, "the search for a matching native path gave up after {expansions} expansions")
            }
            TranslateError::Unmatched { step, fair } => {
                let what = match step {
                    None => "the end of the path (its loop or deadlock) cannot be matched".to_string(),
                    Some(k) => format!("step {k} of the path cannot be matched"),
                };
                write!(
                    f,
                    "no native path has the observed values of the labels: {what} (an encoding error, or the trace \
                     is not from this spec with these extern values{})",
                    if *fair { " and --fair" } else { " without --fair" }
                )
            }
        }
    }
}

impl std::error::Error for TranslateError {}
