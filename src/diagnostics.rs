//! Located diagnostics (errors and warnings) and their rendering with a source snippet.

use crate::syntax::span::{SourceFile, Span};
use std::fmt::Write;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    /// Where the problem is; `None` for problems without a location (e.g. command line).
    pub span: Option<Span>,
    pub hint: Option<String>,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Error, message: message.into(), span: Some(span), hint: None }
    }

    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Warning, message: message.into(), span: Some(span), hint: None }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// `error: MESSAGE`, `--> file:line:col`, the source line with a caret, and the hint.
    pub fn render(&self, file: &SourceFile) -> String {
        let mut out = String::new();
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let _ = writeln!(out, "{kind}: {}", self.message);
        if let Some(span) = self.span {
            let (line, col) = file.line_col(span.start);
            let text = file.line_text(line);
            let gutter = line.to_string().len();
            let _ = writeln!(out, "{:gutter$}--> {}:{line}:{col}", "", file.name);
            let _ = writeln!(out, "{:gutter$} |", "");
            let _ = writeln!(out, "{line} | {text}");
            let (end_line, end_col) = file.line_col(span.end.max(span.start + 1) - 1);
            let width = if end_line == line { (end_col + 1).saturating_sub(col).max(1) } else { 1 };
            let pad: String = text.chars().take(col - 1).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
            let _ = writeln!(out, "{:gutter$} | {pad}{}", "", "^".repeat(width));
        }
        if let Some(hint) = &self.hint {
            let _ = writeln!(out, "  = hint: {hint}");
        }
        out
    }

    /// `file:line:col` of the diagnostic, for tests and compact output.
    pub fn location(&self, file: &SourceFile) -> Option<(usize, usize)> {
        self.span.map(|s| file.line_col(s.start))
    }
}

/// The diagnostics of one stage; errors stop the pipeline, warnings do not.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    pub items: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn push(&mut self, d: Diagnostic) {
        self.items.push(d);
    }
    pub fn error(&mut self, span: Span, message: impl Into<String>) {
        self.push(Diagnostic::error(span, message));
    }
    pub fn warning(&mut self, span: Span, message: impl Into<String>) {
        self.push(Diagnostic::warning(span, message));
    }
    pub fn has_errors(&self) -> bool {
        self.items.iter().any(Diagnostic::is_error)
    }
    pub fn extend(&mut self, other: Diagnostics) {
        self.items.extend(other.items);
    }
}
