//! Tokens of the LNT subset emitted by `labs emit` (both dialects).

use std::fmt;

use crate::diagnostics::Located;
use crate::diagnostics::span::Span;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    Ident(String),
    Num(u64),
    /// A keyword (lower case).
    Kw(&'static str),
    /// Punctuation.
    P(&'static str),
    Eof,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(s) => write!(f, "identifier `{s}`"),
            Tok::Num(n) => write!(f, "number `{n}`"),
            Tok::Kw(k) => write!(f, "`{k}`"),
            Tok::P(p) => write!(f, "`{p}`"),
            Tok::Eof => write!(f, "end of file"),
        }
    }
}

const KEYWORDS: &[&str] = &[
    "module", "is", "end", "type", "array", "of", "with", "function", "process", "var", "in", "out", "if", "then",
    "elsif", "else", "loop", "while", "return", "eval", "alt", "select", "hide", "par", "stop", "null", "any", "where",
    "and", "or", "not", "div", "mod", "only", "case", "for", "break", "raise", "use", "access",
];

const PUNCT: &[&str] = &[
    "...", "..", "||", "->", "[]", ":=", "==", "!=", "<=", ">=", "<>", "=>", "!?", "(", ")", "[", "]", ",", ";", ":",
    "!", "?", "<", ">", "+", "-", "*", "=", "|", ".",
];

pub(crate) fn lex(src: &str) -> Result<Vec<(Tok, Span)>, Located> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0usize;
    while i < b.len() {
        let c = b[i];
        let pos = Span::new(i, i + 1);
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'-' && b.get(i + 1) == Some(&b'-') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'(' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            loop {
                if i + 1 >= b.len() {
                    return Err(Located::new(pos, "unterminated comment"));
                }
                if b[i] == b'*' && b[i + 1] == b')' {
                    i += 2;
                    break;
                }
                i += 1;
            }
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let w = &src[s..i];
            let lw = w.to_ascii_lowercase();
            match KEYWORDS.iter().find(|k| **k == lw) {
                Some(k) => out.push((Tok::Kw(k), Span::new(s, i))),
                None => out.push((Tok::Ident(w.to_string()), Span::new(s, i))),
            }
        } else if c.is_ascii_digit() {
            let s = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let n: u64 = src[s..i].parse().map_err(|_| Located::new(Span::new(s, i), "number too large"))?;
            out.push((Tok::Num(n), Span::new(s, i)));
        } else {
            match PUNCT.iter().find(|p| b[i..].starts_with(p.as_bytes())) {
                Some(p) => {
                    out.push((Tok::P(p), Span::new(i, i + p.len())));
                    i += p.len();
                }
                None => {
                    let ch = src[i..].chars().next().unwrap_or('?');
                    return Err(Located::new(pos, format!("unexpected character `{ch}`")));
                }
            }
        }
    }
    out.push((Tok::Eof, Span::new(i, i)));
    Ok(out)
}
