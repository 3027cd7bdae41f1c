//! Located diagnostics (errors and warnings) and their rendering with a source snippet.

pub(crate) mod located;
pub mod span;

pub use located::Located;
use span::{SourceFile, Span};
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
    pub(crate) fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Error, message: message.into(), span: Some(span), hint: None }
    }

    pub(crate) fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Warning, message: message.into(), span: Some(span), hint: None }
    }

    pub(crate) fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
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
            let (end_line, end_col) = file.line_col(span.end.max(span.start + 1) - 1);
            let width = if end_line == line { (end_col + 1).saturating_sub(col).max(1) } else { 1 };
            let (shown, col, width) = around_caret(text, col, width);
            let _ = writeln!(out, "{:gutter$} |", "");
            let _ = writeln!(out, "{line} | {shown}");
            let pad: String = shown.chars().take(col - 1).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
            let _ = writeln!(out, "{:gutter$} | {pad}{}", "", "^".repeat(width));
        }
        if let Some(hint) = &self.hint {
            let _ = writeln!(out, "  = hint: {hint}");
        }
        out
    }

    /// `file:line:col` of the diagnostic, for the tests.
    #[cfg(feature = "test-support")]
    pub fn location(&self, file: &SourceFile) -> Option<(usize, usize)> {
        self.span.map(|s| file.line_col(s.start))
    }
}

/// At most this many diagnostics are rendered for one file; the others are counted.
pub(crate) const MAX_RENDERED: usize = 50;

/// A count and its noun for a message: `1 state`, `2 states`.
pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 { format!("1 {one}") } else { format!("{n} {many}") }
}

/// A source line longer than this many characters is shown shortened around the caret.
const MAX_LINE_CHARS: usize = 120;

/// The part of `text` shown for a caret at column `col` (from 1) spanning `width` characters:
/// the whole line when it is short, else about `MAX_LINE_CHARS` characters around the caret
/// with `…` where it was cut; with the caret's column and width in the part shown.
/// Control characters (but tabs) are shown as U+FFFD, one for one, so that a hostile file
/// cannot drive the terminal and columns stay where they were.
fn around_caret(text: &str, col: usize, width: usize) -> (String, usize, usize) {
    let visible = |c: char| if c.is_control() && c != '\t' { '\u{FFFD}' } else { c };
    let len = text.chars().count();
    if len <= MAX_LINE_CHARS {
        return (text.chars().map(visible).collect(), col, width);
    }
    let keep = MAX_LINE_CHARS - 2;
    let first = (col - 1).saturating_sub(keep / 3).min(len - keep);
    let last = first + keep;
    let mut shown = String::new();
    if first > 0 {
        shown.push('…');
    }
    shown.extend(text.chars().skip(first).take(keep).map(visible));
    if last < len {
        shown.push('…');
    }
    let col_shown = col - first + usize::from(first > 0);
    let width_shown = width.min(last + 1 - col.min(last)).max(1);
    (shown, col_shown, width_shown)
}

/// The diagnostics rendered one after the other in source order, the first [`MAX_RENDERED`]
/// of them, then `... and N more errors` (and warnings) for the rest.
pub(crate) fn render_capped<'a>(items: impl IntoIterator<Item = &'a Diagnostic>, file: &SourceFile) -> Vec<String> {
    let mut out = vec![];
    let (mut errors, mut warnings) = (0usize, 0usize);
    // The stages find them in their own order; those without a location come first, and
    // diagnostics at the same place keep the order found.
    let mut items: Vec<&Diagnostic> = items.into_iter().collect();
    items.sort_by_key(|d| d.span.map(|s| (s.start, s.end)));
    for (i, d) in items.into_iter().enumerate() {
        if i < MAX_RENDERED {
            out.push(d.render(file));
        } else if d.is_error() {
            errors += 1;
        } else {
            warnings += 1;
        }
    }
    let count = |n: usize, what: &str| format!("{n} more {what}{}", if n == 1 { "" } else { "s" });
    let rest = match (errors, warnings) {
        (0, 0) => return out,
        (e, 0) => count(e, "error"),
        (0, w) => count(w, "warning"),
        (e, w) => format!("{} and {}", count(e, "error"), count(w, "warning")),
    };
    out.push(format!("... and {rest}\n"));
    out
}

/// The diagnostics of one stage; errors stop the pipeline, warnings do not.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    pub items: Vec<Diagnostic>,
}

impl Diagnostics {
    pub(crate) fn push(&mut self, d: Diagnostic) {
        self.items.push(d);
    }
    pub(crate) fn error(&mut self, span: Span, message: impl Into<String>) {
        self.push(Diagnostic::error(span, message));
    }
    pub(crate) fn warning(&mut self, span: Span, message: impl Into<String>) {
        self.push(Diagnostic::warning(span, message));
    }
    pub fn has_errors(&self) -> bool {
        self.items.iter().any(Diagnostic::is_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_is_shown_around_the_caret() {
        // 500 characters, each position recognisable: the caret must point at the same one.
        let text: String = (0..500).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        for col in [1, 2, 40, 41, 42, 250, 440, 480, 500, 501] {
            let (shown, c, w) = around_caret(&text, col, 3);
            assert!(shown.chars().count() <= MAX_LINE_CHARS, "col {col}: {shown}");
            assert_eq!(shown.chars().nth(c - 1), text.chars().nth(col - 1), "col {col}: {shown}");
            assert_eq!(shown.starts_with('…'), col > 40, "col {col}");
            assert_eq!(shown.ends_with('…'), col < 420, "col {col}");
            assert!((1..=3).contains(&w) && c + w - 1 <= shown.chars().count() + 1, "col {col}");
        }
        let short = "x := 1";
        assert_eq!(around_caret(short, 3, 2), (short.to_string(), 3, 2));
        assert_eq!(around_caret("a\u{1b}[2J\tb", 6, 1), ("a\u{FFFD}[2J\tb".to_string(), 6, 1));
    }

    #[test]
    fn at_most_fifty_diagnostics_then_a_count() {
        let file = SourceFile::new("f.labs", "x\n");
        let mut d: Vec<Diagnostic> = (0..70).map(|i| Diagnostic::error(Span::new(0, 1), format!("e{i}"))).collect();
        d.push(Diagnostic::warning(Span::new(0, 1), "w"));
        let out = render_capped(&d, &file);
        assert_eq!(out.len(), MAX_RENDERED + 1);
        assert!(out[MAX_RENDERED - 1].starts_with("error: e49\n"));
        assert_eq!(out[MAX_RENDERED], "... and 20 more errors and 1 more warning\n");
        assert_eq!(render_capped(&d[..50], &file).len(), 50);
    }
}
