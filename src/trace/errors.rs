//! The errors of the trace stage: why a trace does not replay, why a label path cannot be
//! translated. Each message names the step or label at fault; the CLI adds the context.

/// Why a trace fails the independent replay (`super::replay`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The initial state does not have the layout's number of slots.
    #[error("initial state has {found} slots, expected {expected}")]
    SlotCount { found: usize, expected: usize },
    #[error("the initial state is not an initial state of the model")]
    NotInitial,
    /// A run-time error of the model while computing the initial states or a deadlock.
    #[error("{0}")]
    Runtime(String),
    /// Step `step` reaches a successor state, but by another event.
    #[error("step {step}: the state is a successor but the event does not produce it")]
    WrongEvent { step: usize },
    #[error("step {step}: not a successor of the previous state")]
    NotSuccessor { step: usize },
    #[error("loop_start {loop_start} beyond the last step")]
    LoopBeyondEnd { loop_start: usize },
    #[error("the loop does not close: the last state differs from the loop start")]
    LoopOpen,
    #[error("the trace is marked as ending in a deadlock, but its last state has successors")]
    NotDeadlock,
}

/// A trace about to be shown (`counterexample for P`, `run 2`) that fails the replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the {name} does not replay: {error}")]
pub struct ShownTraceError {
    pub name: String,
    pub error: ReplayError,
}

/// Why a path of LNT labels cannot be translated into a LAbS trace (`from_labels::translate`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TranslateError {
    #[error("label `{label}`: `{offer}` is not an integer")]
    NotAnInteger { label: String, offer: String },
    #[error("label `{label}`: wrong offers for variable `{variable}`")]
    WrongOffers { label: String, variable: String },
    #[error(
        "the path has no `DONE` label, so it does not complete the initialisation: nothing to translate (was \
         `DONE` hidden?)"
    )]
    NoDone,
    /// The loop of a lasso has no `DONE`.
    #[error("the loop of the lasso has no `DONE`: it stays inside one step")]
    LoopInsideStep,
    /// After the `done`-th `DONE`, a label observes a slot of an agent that has no such slot.
    #[error("after DONE number {done}: a label observes a slot no agent has")]
    UnownedSlot { done: usize },
    #[error("no initial state of the model has the observed initial values")]
    NoInitialMatch,
    /// A run-time error of the model while computing the initial states or a deadlock.
    #[error("{0}")]
    Runtime(String),
    #[error("the search for a matching native path gave up after {expansions} expansions")]
    SearchBudget { expansions: usize },
    /// No native path matches: step `step` of the path (`None`: its loop or deadlock).
    #[error(
        "no native path has the observed values of the labels: {} (an encoding error, or the trace is not \
         from this spec with these extern values {})",
        unmatched_place(*step),
        if *fair { "and --fair" } else { "without --fair" }
    )]
    Unmatched { step: Option<usize>, fair: bool },
}

fn unmatched_place(step: Option<usize>) -> String {
    match step {
        None => "the end of the path (its loop or deadlock) cannot be matched".to_string(),
        Some(k) => format!("step {k} of the path cannot be matched"),
    }
}
