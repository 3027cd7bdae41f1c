//! Stage: MCL (evaluator4 syntax) queries evaluated on explicit LTSs.
//!
//! `read_aut` reads an Aldebaran LTS, `parse` reads and types a query, `evaluate` decides it
//! on the fly over (state, parameter valuation) pairs and explains the verdict with a
//! `Diagnostic` (a path or a lasso); `unmatched_actions` finds the labels and patterns no label
//! of an LTS can match. This stage depends only on `syntax::span` and
//! `diagnostics`; the LNT interpreter and the CLI depend on it, never the reverse.

mod ast;
mod aut;
mod diag;
mod eval;
mod explain;
mod gates;
mod lexer;
mod looping;
mod looping_eval;
mod lts;
mod parser;
mod typing;

pub use aut::{AutError, read_aut, read_aut_bytes};
pub use diag::Diagnostic;
pub use eval::{EvalError, Evaluation, evaluate};
pub(crate) use eval::{Successors, evaluate_on};
pub use gates::{Unmatched, unmatched_actions};
pub use lts::{Lts, LtsView};
pub(crate) use typing::Query;

pub(crate) use crate::diagnostics::Located;

/// Reads and types a query: every error located (line:col through `Located::line_col`). On a
/// large stack: nesting is bounded (200 levels), but a level takes several frames.
pub fn parse(text: &str) -> Result<Query, Vec<Located>> {
    crate::syntax::stack::on_large_stack("labs-mcl-parser", || parse_inline(text))
}

fn parse_inline(text: &str) -> Result<Query, Vec<Located>> {
    let tokens = lexer::lex(text).map_err(|e| vec![e])?;
    let formula = parser::parse(&tokens)?;
    typing::check(formula)
}
