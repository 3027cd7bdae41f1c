//! The tokens of the SVL subset, each with its byte span.

use crate::diagnostics::Located;
use crate::diagnostics::span::Span;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Id(String),
    Str(String),
    Num(i64),
    Sym(&'static str),
    Directive(String),
}

/// A token as a message quotes it: its text, as the script writes it.
impl std::fmt::Display for Tok {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tok::Id(x) => write!(f, "`{x}`"),
            Tok::Directive(x) => write!(f, "`%{x}`"),
            Tok::Str(x) => write!(f, "\"{x}\""),
            Tok::Num(n) => write!(f, "`{n}`"),
            Tok::Sym(s) => write!(f, "`{s}`"),
        }
    }
}

pub(super) fn lex(src: &str) -> Result<Vec<(Tok, Span)>, Located> {
    let b = src.as_bytes();
    let mut out = vec![];
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if src[i..].starts_with("(*") {
            let end =
                src[i + 2..].find("*)").ok_or_else(|| Located::new(Span::new(i, i + 2), "unterminated comment"))?;
            i += end + 4;
        } else if c == b'%' && (i == 0 || b[i - 1] == b'\n') {
            let end = src[i..].find('\n').map_or(b.len(), |e| i + e);
            out.push((Tok::Directive(src[i + 1..end].trim().to_string()), Span::new(i, end)));
            i = end;
        } else if c == b'"' {
            let mut s = String::new();
            let mut j = i + 1;
            loop {
                match b.get(j) {
                    None => return Err(Located::new(Span::new(i, i + 1), "unterminated string")),
                    Some(b'"') => break,
                    Some(b'\\') if j + 1 < b.len() => {
                        let ch = src[j + 1..].chars().next().expect("a char");
                        s.push(ch);
                        j += 1 + ch.len_utf8();
                    }
                    Some(_) => {
                        let ch = src[j..].chars().next().expect("a char");
                        s.push(ch);
                        j += ch.len_utf8();
                    }
                }
            }
            out.push((Tok::Str(s), Span::new(i, j + 1)));
            i = j + 1;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let mut j = i;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                j += 1;
            }
            out.push((Tok::Id(src[i..j].to_string()), Span::new(i, j)));
            i = j;
        } else if c.is_ascii_digit() || (c == b'-' && b.get(i + 1).is_some_and(|d| d.is_ascii_digit())) {
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let n = src[i..j].parse().map_err(|_| Located::new(Span::new(i, j), "bad number"))?;
            out.push((Tok::Num(n), Span::new(i, j)));
            i = j;
        } else {
            let sym = ["||", "|=", "->", "=", "(", ")", "[", "]", ",", ";", ">"]
                .into_iter()
                .find(|s| src[i..].starts_with(s))
                .ok_or_else(|| Located::new(Span::new(i, i + 1), format!("unexpected character `{}`", c as char)))?;
            out.push((Tok::Sym(sym), Span::new(i, i + sym.len())));
            i += sym.len();
        }
    }
    Ok(out)
}
