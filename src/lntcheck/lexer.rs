//! Tokens of the LNT subset emitted by `labs emit` (both dialects).

use std::fmt;

/// A source position (1-based line and column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub(crate) struct Pos {
    pub(crate) line: u32,
    pub(crate) col: u32,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A located message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diag {
    pub(crate) pos: Pos,
    pub message: String,
}

impl Diag {
    pub(crate) fn new(pos: Pos, message: impl Into<String>) -> Diag {
        Diag { pos, message: message.into() }
    }
}

impl fmt::Display for Diag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pos, self.message)
    }
}

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

pub(crate) fn lex(src: &str) -> Result<Vec<(Tok, Pos)>, Diag> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    macro_rules! adv {
        ($n:expr) => {
            for _ in 0..$n {
                if b[i] == b'\n' {
                    line += 1;
                    col = 1;
                } else {
                    col += 1;
                }
                i += 1;
            }
        };
    }
    while i < b.len() {
        let c = b[i];
        let pos = Pos { line, col };
        if c.is_ascii_whitespace() {
            adv!(1);
        } else if c == b'-' && b.get(i + 1) == Some(&b'-') {
            while i < b.len() && b[i] != b'\n' {
                adv!(1);
            }
        } else if c == b'(' && b.get(i + 1) == Some(&b'*') {
            adv!(2);
            loop {
                if i + 1 >= b.len() {
                    return Err(Diag::new(pos, "unterminated comment"));
                }
                if b[i] == b'*' && b[i + 1] == b')' {
                    adv!(2);
                    break;
                }
                adv!(1);
            }
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                adv!(1);
            }
            let w = &src[s..i];
            let lw = w.to_ascii_lowercase();
            match KEYWORDS.iter().find(|k| **k == lw) {
                Some(k) => out.push((Tok::Kw(k), pos)),
                None => out.push((Tok::Ident(w.to_string()), pos)),
            }
        } else if c.is_ascii_digit() {
            let s = i;
            while i < b.len() && b[i].is_ascii_digit() {
                adv!(1);
            }
            let n: u64 = src[s..i].parse().map_err(|_| Diag::new(pos, "number too large"))?;
            out.push((Tok::Num(n), pos));
        } else {
            match PUNCT.iter().find(|p| b[i..].starts_with(p.as_bytes())) {
                Some(p) => {
                    adv!(p.len());
                    out.push((Tok::P(p), pos));
                }
                None => {
                    let ch = src[i..].chars().next().unwrap_or('?');
                    return Err(Diag::new(pos, format!("unexpected character `{ch}`")));
                }
            }
        }
    }
    out.push((Tok::Eof, Pos { line, col }));
    Ok(out)
}
