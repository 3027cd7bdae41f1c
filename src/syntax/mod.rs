//! The first stage: source text → syntax tree (`ast`), with located diagnostics.

pub mod ast;
pub(crate) mod lexer;
pub(crate) mod ltl;
pub(crate) mod parser;
pub mod printer;
/// Spans are the diagnostics' vocabulary; re-exported where the syntax tree uses them.
pub use crate::diagnostics::span;
pub(crate) mod stack;

/// The linear-time formulas of `check` (the tests build random ones).
pub use ltl::Ltl;
pub use parser::{ParseOutput, parse};
