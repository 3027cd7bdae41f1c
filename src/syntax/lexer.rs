//! Maximal-munch tokenizer for LAbS (docs/language.md §2).
//!
//! Comments (`#` to end of line) and whitespace are skipped. Identifiers are classified by
//! their first character; reserved words are recognised by the parser (they are lexed as
//! ordinary words). Lexical errors are diagnostics, never panics.

use super::span::Span;
use crate::diagnostics::Diagnostic;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Sym {
    /// `<--`
    EnvAssign,
    /// `<-`
    AttrAssign,
    /// `<~`
    StigAssign,
    /// `:=`
    LocalAssign,
    /// `..`
    DotDot,
    /// `->`
    Arrow,
    /// `=>`
    FatArrow,
    /// `++`
    PlusPlus,
    /// `||`
    BarBar,
    /// `!=`
    Ne,
    /// `<=`
    Le,
    /// `>=`
    Ge,
    Lt,
    Gt,
    Eq,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Colon,
    Bang,
    Semi,
    Comma,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
}

impl Sym {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Sym::EnvAssign => "<--",
            Sym::AttrAssign => "<-",
            Sym::StigAssign => "<~",
            Sym::LocalAssign => ":=",
            Sym::DotDot => "..",
            Sym::Arrow => "->",
            Sym::FatArrow => "=>",
            Sym::PlusPlus => "++",
            Sym::BarBar => "||",
            Sym::Ne => "!=",
            Sym::Le => "<=",
            Sym::Ge => ">=",
            Sym::Lt => "<",
            Sym::Gt => ">",
            Sym::Eq => "=",
            Sym::Plus => "+",
            Sym::Minus => "-",
            Sym::Star => "*",
            Sym::Slash => "/",
            Sym::Percent => "%",
            Sym::Colon => ":",
            Sym::Bang => "!",
            Sym::Semi => ";",
            Sym::Comma => ",",
            Sym::LParen => "(",
            Sym::RParen => ")",
            Sym::LBracket => "[",
            Sym::RBracket => "]",
            Sym::LBrace => "{",
            Sym::RBrace => "}",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TokKind {
    /// `[A-Z][A-Za-z0-9_]*` (including reserved words such as `Skip`).
    Upper(String),
    /// `[a-z][A-Za-z0-9_]*` (including reserved words such as `and`).
    Lower(String),
    /// `_[a-z][A-Za-z0-9_]*`, stored with its underscore.
    Extern(String),
    Int(i64),
    Sym(Sym),
    Eof,
}

impl fmt::Display for TokKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokKind::Upper(s) | TokKind::Lower(s) | TokKind::Extern(s) => write!(f, "`{s}`"),
            TokKind::Int(n) => write!(f, "`{n}`"),
            TokKind::Sym(s) => write!(f, "`{}`", s.as_str()),
            TokKind::Eof => write!(f, "end of input"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub(crate) kind: TokKind,
    pub(crate) span: Span,
}

/// The reserved words (docs/language.md §2.3): never names.
pub(crate) const RESERVED: &[&str] = &[
    "abs", "and", "count", "else", "exists", "false", "forall", "id", "if", "max", "min", "of", "or", "pick", "Skip",
    "then", "true", "undef", "where",
];

pub(crate) fn is_reserved(word: &str) -> bool {
    RESERVED.contains(&word)
}

fn is_word_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Tokenizes `src`. The token list always ends with `Eof`; lexical errors are returned
/// alongside (the offending characters are skipped).
pub(crate) fn tokenize(src: &str) -> (Vec<Token>, Vec<Diagnostic>) {
    let bytes = src.as_bytes();
    let mut toks = Vec::new();
    let mut errs = Vec::new();
    let mut i = 0usize;
    let n = bytes.len();
    while i < n {
        let b = bytes[i];
        if b == b' ' || b == b'\t' || b == b'\n' || b == b'\r' {
            i += 1;
            continue;
        }
        if b == b'#' {
            while i < n && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        let start = i;
        if !b.is_ascii() {
            // A whole UTF-8 character (src is a &str, so boundaries are valid).
            let ch = src[i..].chars().next().unwrap_or('\u{FFFD}');
            let len = ch.len_utf8();
            // A zero-width span: a span ending inside a multi-byte character cannot be rendered.
            let mut d = Diagnostic::error(Span::new(i, i), format!("non-ASCII character `{ch}`"));
            d = if ch.is_alphabetic() {
                d.with_hint("names may contain only ASCII letters, digits and `_`")
            } else {
                d.with_hint("only ASCII text is allowed outside comments")
            };
            errs.push(d);
            i += len;
            continue;
        }
        if b.is_ascii_alphabetic() {
            while i < n && is_word_char(bytes[i]) {
                i += 1;
            }
            let word = src[start..i].to_string();
            let kind = if b.is_ascii_uppercase() { TokKind::Upper(word) } else { TokKind::Lower(word) };
            toks.push(Token { kind, span: Span::new(start, i) });
            continue;
        }
        if b == b'_' {
            while i < n && is_word_char(bytes[i]) {
                i += 1;
            }
            let word = &src[start..i];
            let second = word.as_bytes().get(1).copied();
            match second {
                Some(c) if c.is_ascii_lowercase() => {
                    if is_reserved(&word[1..]) {
                        errs.push(
                            Diagnostic::error(
                                Span::new(start, i),
                                format!("`{word}` is not a valid external parameter name"),
                            )
                            .with_hint(format!("`{}` is a reserved word; choose another name", &word[1..])),
                        );
                    } else {
                        toks.push(Token { kind: TokKind::Extern(word.to_string()), span: Span::new(start, i) });
                    }
                }
                _ => errs.push(
                    Diagnostic::error(Span::new(start, i), format!("`{word}` is not a valid name"))
                        .with_hint("an external parameter is `_` followed by a lowercase letter, e.g. `_n`"),
                ),
            }
            continue;
        }
        if b.is_ascii_digit() {
            while i < n && bytes[i].is_ascii_digit() {
                i += 1;
            }
            if i < n && (bytes[i].is_ascii_alphabetic() || bytes[i] == b'_') {
                while i < n && is_word_char(bytes[i]) {
                    i += 1;
                }
                errs.push(
                    Diagnostic::error(Span::new(start, i), format!("invalid number `{}`", &src[start..i]))
                        .with_hint("only decimal integer literals are supported"),
                );
                continue;
            }
            match src[start..i].parse::<i64>() {
                Ok(v) if v <= i32::MAX as i64 => toks.push(Token { kind: TokKind::Int(v), span: Span::new(start, i) }),
                _ => errs.push(
                    Diagnostic::error(Span::new(start, i), "integer literal too large")
                        .with_hint(format!("integers must be at most {}", i32::MAX)),
                ),
            }
            continue;
        }
        let next = bytes.get(i + 1).copied();
        let next2 = bytes.get(i + 2).copied();
        let (sym, len) = match (b, next, next2) {
            (b'<', Some(b'-'), Some(b'-')) => (Some(Sym::EnvAssign), 3),
            (b'<', Some(b'-'), _) => (Some(Sym::AttrAssign), 2),
            (b'<', Some(b'~'), _) => (Some(Sym::StigAssign), 2),
            (b'<', Some(b'='), _) => (Some(Sym::Le), 2),
            (b'<', _, _) => (Some(Sym::Lt), 1),
            (b'>', Some(b'='), _) => (Some(Sym::Ge), 2),
            (b'>', _, _) => (Some(Sym::Gt), 1),
            (b':', Some(b'='), _) => (Some(Sym::LocalAssign), 2),
            (b':', _, _) => (Some(Sym::Colon), 1),
            (b'.', Some(b'.'), _) => (Some(Sym::DotDot), 2),
            (b'-', Some(b'>'), _) => (Some(Sym::Arrow), 2),
            (b'-', _, _) => (Some(Sym::Minus), 1),
            (b'=', Some(b'>'), _) => (Some(Sym::FatArrow), 2),
            (b'=', Some(b'='), _) => {
                errs.push(
                    Diagnostic::error(Span::new(i, i + 2), "`==` is not an operator")
                        .with_hint("equality is written with a single `=`"),
                );
                (None, 2)
            }
            (b'=', _, _) => (Some(Sym::Eq), 1),
            (b'+', Some(b'+'), _) => (Some(Sym::PlusPlus), 2),
            (b'+', _, _) => (Some(Sym::Plus), 1),
            (b'|', Some(b'|'), _) => (Some(Sym::BarBar), 2),
            (b'|', _, _) => {
                errs.push(
                    Diagnostic::error(Span::new(i, i + 1), "a single `|` is not an operator")
                        .with_hint("parallel composition is `||`; nondeterministic choice is `++`"),
                );
                (None, 1)
            }
            (b'!', Some(b'='), _) => (Some(Sym::Ne), 2),
            (b'!', _, _) => (Some(Sym::Bang), 1),
            (b'*', _, _) => (Some(Sym::Star), 1),
            (b'/', _, _) => (Some(Sym::Slash), 1),
            (b'%', _, _) => (Some(Sym::Percent), 1),
            (b';', _, _) => (Some(Sym::Semi), 1),
            (b',', _, _) => (Some(Sym::Comma), 1),
            (b'(', _, _) => (Some(Sym::LParen), 1),
            (b')', _, _) => (Some(Sym::RParen), 1),
            (b'[', _, _) => (Some(Sym::LBracket), 1),
            (b']', _, _) => (Some(Sym::RBracket), 1),
            (b'{', _, _) => (Some(Sym::LBrace), 1),
            (b'}', _, _) => (Some(Sym::RBrace), 1),
            (b'$', _, _) => {
                errs.push(Diagnostic::error(Span::new(i, i + 1), "raw external calls are not supported").with_hint(
                    "`$f(…)` calls are passed to the C back end by the reference tool; this tool rejects them",
                ));
                (None, 1)
            }
            (b'&', _, _) => {
                let len = if next == Some(b'&') { 2 } else { 1 };
                errs.push(
                    Diagnostic::error(Span::new(i, i + len), format!("unexpected `{}`", &src[i..i + len]))
                        .with_hint("conjunction is written `and`"),
                );
                (None, len)
            }
            _ => {
                let d = Diagnostic::error(Span::new(i, i + 1), format!("unexpected character `{}`", b as char));
                let d = if b == b'.' { d.with_hint("ranges are written `a..b`") } else { d };
                errs.push(d);
                (None, 1)
            }
        };
        if let Some(sym) = sym {
            toks.push(Token { kind: TokKind::Sym(sym), span: Span::new(i, i + len) });
        }
        i += len;
    }
    toks.push(Token { kind: TokKind::Eof, span: Span::new(n, n) });
    (toks, errs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<TokKind> {
        let (t, e) = tokenize(src);
        assert!(e.is_empty(), "{e:?}");
        t.into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn maximal_munch() {
        use Sym::*;
        let k = kinds("<-- <- <~ := .. -> => ++ || != <= >= < > = : x<-1 a<--1");
        let syms: Vec<_> = k.iter().filter_map(|k| if let TokKind::Sym(s) = k { Some(*s) } else { None }).collect();
        assert_eq!(
            syms,
            vec![
                EnvAssign,
                AttrAssign,
                StigAssign,
                LocalAssign,
                DotDot,
                Arrow,
                FatArrow,
                PlusPlus,
                BarBar,
                Ne,
                Le,
                Ge,
                Lt,
                Gt,
                Eq,
                Colon,
                AttrAssign,
                EnvAssign
            ]
        );
    }

    #[test]
    fn classes_and_comments() {
        let k = kinds("Foo bar _ext 12 # comment é\n0..5");
        assert_eq!(
            k,
            vec![
                TokKind::Upper("Foo".into()),
                TokKind::Lower("bar".into()),
                TokKind::Extern("_ext".into()),
                TokKind::Int(12),
                TokKind::Int(0),
                TokKind::Sym(Sym::DotDot),
                TokKind::Int(5),
                TokKind::Eof
            ]
        );
    }

    #[test]
    fn lexical_errors() {
        for (src, msg) in [
            ("a | b", "single `|`"),
            ("a == b", "`==`"),
            ("$f(1)", "raw external calls"),
            ("café", "non-ASCII"),
            ("_N", "not a valid name"),
            ("_id", "not a valid external"),
            ("0x1F", "invalid number"),
            ("99999999999999999999", "too large"),
        ] {
            let (_, e) = tokenize(src);
            assert!(e.iter().any(|d| d.message.contains(msg)), "{src}: {e:?}");
        }
    }
}
