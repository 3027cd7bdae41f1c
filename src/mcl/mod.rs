//! Stage: MCL (evaluator4 syntax) queries evaluated on explicit LTSs.
//!
//! `read_aut` reads an Aldebaran LTS, `parse` reads and types a query, `evaluate` decides it
//! on the fly over (state, parameter valuation) pairs and explains the verdict with a
//! `Diagnostic` (a path or a lasso). This stage depends only on `syntax::span` and
//! `diagnostics`; the LNT interpreter and the CLI depend on it, never the reverse.

mod ast;
mod aut;
mod diag;
mod eval;
mod explain;
mod lexer;
mod lts;
mod parser;
mod typing;

pub use aut::{AutError, read_aut, read_aut_bytes};
pub use diag::Diagnostic;
pub use eval::{EvalError, Evaluation, Successors, evaluate, evaluate_on};
pub use lts::{Lts, LtsView};
pub use typing::Query;

use crate::syntax::span::{SourceFile, Span};

/// A located error in a query (lexing, parsing, typing or an unsupported construct).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MclError {
    pub(crate) message: String,
    pub span: Span,
}

impl MclError {
    pub(crate) fn new(span: Span, message: impl Into<String>) -> MclError {
        MclError { message: message.into(), span }
    }

    /// The error as a LAbS-style diagnostic (`error: ...`, `--> file:line:col`, caret).
    pub(crate) fn to_diagnostic(&self) -> crate::diagnostics::Diagnostic {
        crate::diagnostics::Diagnostic::error(self.span, self.message.clone())
    }

    /// 1-based (line, column) of the error in `text`.
    pub(crate) fn line_col(&self, text: &str) -> (usize, usize) {
        SourceFile::new("", text).line_col(self.span.start)
    }
}

/// Renders errors of the query read from `name` as the LAbS diagnostics are rendered.
pub(crate) fn render_errors(name: &str, text: &str, errors: &[MclError]) -> String {
    let file = SourceFile::new(name, text);
    let diagnostics: Vec<_> = errors.iter().map(MclError::to_diagnostic).collect();
    crate::diagnostics::render_capped(&diagnostics, &file).concat()
}

/// Reads and types a query: every error located (line:col through `MclError::line_col`). On a
/// large stack: nesting is bounded (200 levels), but a level takes several frames.
pub fn parse(text: &str) -> Result<Query, Vec<MclError>> {
    crate::syntax::stack::on_large_stack("labs-mcl-parser", || parse_inline(text))
}

fn parse_inline(text: &str) -> Result<Query, Vec<MclError>> {
    let tokens = lexer::lex(text).map_err(|e| vec![e])?;
    let formula = parser::parse(&tokens)?;
    typing::check(formula)
}
