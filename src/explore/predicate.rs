//! A state predicate typed in the page ("run until …"), read as the `check` section reads
//! one: the spec's text with its `check` section replaced by one property of that predicate,
//! parsed and resolved with the same extern values. The declarations before `check` are the
//! spec's own, so the predicate's variables and agent ids are those of the running model.

use crate::model::{Model, QPred, resolve};
use crate::syntax::lexer::{Sym, TokKind, tokenize};
use crate::syntax::parse;
use crate::syntax::span::SourceFile;

/// The name of the property the predicate is read as (any name works: it replaces the whole
/// `check` section).
const NAME: &str = "UntilPredicate";

/// `text` resolved against the spec `source` (the text `model` was resolved from), or why not.
pub(crate) fn resolve_predicate(source: &str, model: &Model, text: &str) -> Result<QPred, String> {
    if text.trim().is_empty() {
        return Err("the predicate is empty".into());
    }
    if text.contains(['{', '}']) {
        return Err("a predicate has no braces".into());
    }
    let start = check_section(source).ok_or("the spec has no `check` section")?;
    let head = &source[..start];
    let joined = format!("{head}check {{\n{NAME} = always ({text})\n}}\n");
    let first_line = head.lines().count() + 2;
    let parsed = parse(&joined);
    let file = SourceFile::new("predicate".to_string(), joined.clone());
    let first_error = |d: &crate::diagnostics::Diagnostics| {
        d.items.iter().find(|x| x.is_error()).map_or_else(
            || "the predicate is not valid".to_string(),
            |x| {
                let col =
                    x.span.map(|sp| file.line_col(sp.start)).filter(|(line, _)| *line == first_line).map(|(_, c)| c);
                match col {
                    // The predicate starts after `NAME = always (`.
                    Some(c) if c > NAME.len() + 11 => format!("{} (at column {})", x.message, c - NAME.len() - 11),
                    _ => x.message.clone(),
                }
            },
        )
    };
    let spec = match parsed.spec {
        Some(s) if !parsed.diagnostics.has_errors() => s,
        _ => return Err(first_error(&parsed.diagnostics)),
    };
    let (resolved, _) = resolve(&spec, &joined, &model.externs).map_err(|e| match e {
        crate::model::ResolveError::Invalid(d) | crate::model::ResolveError::BadExternValues(d) => first_error(&d),
        crate::model::ResolveError::MissingExterns(n) => format!("missing externs {}", n.join(", ")),
    })?;
    // The same declarations give the same layout; anything else would misread the states.
    if resolved.vars.len() != model.vars.len() || resolved.n_agents() != model.n_agents() {
        return Err("internal error: the predicate's model differs from the spec's".into());
    }
    let p = resolved.properties.into_iter().find(|p| p.name == NAME).ok_or("the predicate is not valid")?;
    Ok(p.pred)
}

/// Where the `check` section starts: the `check` word followed by `{` outside every brace.
fn check_section(source: &str) -> Option<usize> {
    let (tokens, _) = tokenize(source);
    let mut depth = 0i32;
    for (i, t) in tokens.iter().enumerate() {
        match &t.kind {
            TokKind::Sym(Sym::LBrace) => depth += 1,
            TokKind::Sym(Sym::RBrace) => depth -= 1,
            TokKind::Lower(w)
                if w == "check"
                    && depth == 0
                    && tokens.get(i + 1).is_some_and(|n| n.kind == TokKind::Sym(Sym::LBrace)) =>
            {
                return Some(t.span.start as usize);
            }
            _ => {}
        }
    }
    None
}
