//! The one error type of labs's readers of generated files (LNT, SVL, MCL): a message and the
//! byte span it is about. Its line and column need the text, so they are computed when the
//! error is shown (`in_text`, `render`), as for LAbS diagnostics.

use super::Diagnostic;
use super::span::{SourceFile, Span};
use std::fmt;

/// A message about a place in a text read by one of labs's readers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    pub span: Span,
    pub message: String,
}

impl Located {
    pub(crate) fn new(span: Span, message: impl Into<String>) -> Located {
        Located { span, message: message.into() }
    }

    /// 1-based (line, column in characters) of the start of the span in `text`.
    pub(crate) fn line_col(&self, text: &str) -> (usize, usize) {
        SourceFile::new("", text).line_col(self.span.start)
    }

    /// `line:col: message`, the span located in `text` (the text the reader was given).
    pub fn in_text<'a>(&'a self, text: &'a str) -> InText<'a> {
        InText { located: self, text }
    }

    /// The error as a LAbS-style diagnostic (`error: ...`, `--> file:line:col`, caret).
    pub(crate) fn to_diagnostic(&self) -> Diagnostic {
        Diagnostic::error(self.span, self.message.clone())
    }
}

/// `Located::in_text`.
pub struct InText<'a> {
    located: &'a Located,
    text: &'a str,
}

impl fmt::Display for InText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (line, col) = self.located.line_col(self.text);
        write!(f, "{line}:{col}: {}", self.located.message)
    }
}

/// Renders errors found in the text read from `name` as LAbS diagnostics are rendered.
pub(crate) fn render(name: &str, text: &str, errors: &[Located]) -> String {
    let file = SourceFile::new(name, text);
    let diagnostics: Vec<_> = errors.iter().map(Located::to_diagnostic).collect();
    super::render_capped(&diagnostics, &file).concat()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_is_shown_as_the_line_and_character_column_of_its_start() {
        // `é` is two bytes and one character: byte 9 is column 3 of line 2.
        let text = "first\nxé!";
        let e = Located::new(Span::new(9, 10), "unexpected `!`");
        assert_eq!(e.in_text(text).to_string(), "2:3: unexpected `!`");
        let rendered = render("q.mcl", text, &[e]);
        assert!(rendered.contains("--> q.mcl:2:3"), "{rendered}");
        assert!(rendered.contains("2 | xé!"), "{rendered}");
    }
}
