//! MCL tokens: identifiers (keywords are recognised case-insensitively by the parser),
//! natural numbers, double-quoted strings, punctuation. Comments: `(* ... *)` (not nested)
//! and `--` to the end of the line. Linear time, no recursion.

use super::Located;
use crate::syntax::span::Span;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    Ident(String),
    Num(u64),
    Str(String),
    /// A single-quoted regular expression (refused by the parser, by name).
    Regex,
    /// Punctuation and operators, as written (`(`, `:=`, `<=`, `...`, ...).
    Sym(&'static str),
    Eof,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub(crate) tok: Tok,
    pub(crate) span: Span,
}

/// Longest first, so that `...` wins over `.` and `<=` over `<`.
const SYMBOLS: &[&str] = &[
    "...", ":=", "<=", ">=", "<>", "->", "-|", "(", ")", "[", "]", "{", "}", "<", ">", "=", ",", ".", ":", "!", "?",
    "*", "+", "-", "/", "|", "@", "^", "%", ";", "#", "&", "~",
];

/// The tokens of `text`, ending with `Eof`.
pub(crate) fn lex(text: &str) -> Result<Vec<Token>, Located> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if text[i..].starts_with("(*") {
            match text[i + 2..].find("*)") {
                Some(end) => i = i + 2 + end + 2,
                None => return Err(Located::new(Span::new(i, i + 2), "unterminated comment `(*`")),
            }
            continue;
        }
        if text[i..].starts_with("--") {
            i = text[i..].find('\n').map_or(bytes.len(), |e| i + e);
            continue;
        }
        let start = i;
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push(Token { tok: Tok::Ident(text[start..i].to_string()), span: Span::new(start, i) });
            continue;
        }
        if c.is_ascii_digit() {
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            if i < bytes.len() && (bytes[i] == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)) {
                return Err(Located::new(Span::new(start, i + 1), "real numbers are not supported"));
            }
            let n = text[start..i]
                .parse::<u64>()
                .ok()
                .filter(|&n| n <= i64::MAX as u64)
                .ok_or_else(|| Located::new(Span::new(start, i), "number too large"))?;
            out.push(Token { tok: Tok::Num(n), span: Span::new(start, i) });
            continue;
        }
        if c == b'"' || c == b'\'' {
            i += 1;
            let mut s = String::new();
            loop {
                let Some(&b) = bytes.get(i) else {
                    return Err(Located::new(Span::new(start, start + 1), "unterminated string"));
                };
                if b == b'\n' {
                    return Err(Located::new(Span::new(start, i), "unterminated string (end of line)"));
                }
                if b == b'\\' && bytes.get(i + 1).is_some_and(|&n| n == c || n == b'\\') {
                    s.push(bytes[i + 1] as char);
                    i += 2;
                    continue;
                }
                if b == c {
                    i += 1;
                    break;
                }
                let ch = text[i..].chars().next().unwrap_or('\u{fffd}');
                s.push(ch);
                i += ch.len_utf8();
            }
            let tok = if c == b'"' { Tok::Str(s) } else { Tok::Regex };
            out.push(Token { tok, span: Span::new(start, i) });
            continue;
        }
        match SYMBOLS.iter().find(|s| text[i..].starts_with(**s)) {
            Some(s) => {
                i += s.len();
                out.push(Token { tok: Tok::Sym(s), span: Span::new(start, i) });
            }
            None => {
                let ch = text[i..].chars().next().unwrap_or('?');
                return Err(Located::new(Span::new(i, i + ch.len_utf8()), format!("unexpected character `{ch}`")));
            }
        }
    }
    out.push(Token { tok: Tok::Eof, span: Span::new(bytes.len(), bytes.len()) });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(t: &str) -> Vec<Tok> {
        lex(t).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn symbols_comments_strings() {
        assert_eq!(
            toks("(* c *) mu X (n:Nat := 0) . <\"A !\\\"x\\\"\"> X -- end\n{G ...}"),
            vec![
                Tok::Ident("mu".into()),
                Tok::Ident("X".into()),
                Tok::Sym("("),
                Tok::Ident("n".into()),
                Tok::Sym(":"),
                Tok::Ident("Nat".into()),
                Tok::Sym(":="),
                Tok::Num(0),
                Tok::Sym(")"),
                Tok::Sym("."),
                Tok::Sym("<"),
                Tok::Str("A !\"x\"".into()),
                Tok::Sym(">"),
                Tok::Ident("X".into()),
                Tok::Sym("{"),
                Tok::Ident("G".into()),
                Tok::Sym("..."),
                Tok::Sym("}"),
                Tok::Eof,
            ]
        );
    }

    #[test]
    fn located_errors() {
        assert_eq!(lex("true (* open").unwrap_err().span, Span::new(5, 7));
        assert_eq!(lex("<\"A> true").unwrap_err().message, "unterminated string");
        assert_eq!(lex("a $ b").unwrap_err().span, Span::new(2, 3));
        assert!(lex("99999999999999999999").unwrap_err().message.contains("too large"));
    }
}
