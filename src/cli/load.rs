//! Reading, parsing, resolving and compiling a spec, with diagnostics rendered for users.

use super::Failure;
use crate::behaviour::{Behaviour, compile_all};
use crate::diagnostics::{Diagnostics, render_capped};
use crate::model::externs::parse_externs;
use crate::model::{Model, ResolveError, resolve};
use crate::syntax::parse;
use crate::syntax::span::{SourceFile, Span, decode_utf8};
use std::path::Path;

/// A spec ready for the back ends.
pub(crate) struct Loaded {
    pub(crate) file: SourceFile,
    pub(crate) model: Model,
    pub(crate) behaviours: Vec<Behaviour>,
}

impl Loaded {
    /// The spec's file name without its directory (`leader.labs` for `dir/leader.labs`): how
    /// every JSON document and report names the spec.
    pub(crate) fn name(&self) -> &str {
        Path::new(&self.file.name).file_name().and_then(|n| n.to_str()).unwrap_or(&self.file.name)
    }

    /// The spec's file name without its extension (`leader` for `dir/leader.labs`): the base
    /// of generated file names.
    pub(crate) fn stem(&self) -> String {
        Path::new(&self.file.name).file_stem().map_or("spec".into(), |s| s.to_string_lossy().into_owned())
    }
}

/// Loads `path` with the extern words `n=3`…; warnings go to `warnings`.
pub(crate) fn load(
    command: &str,
    path: &Path,
    extern_words: &[String],
    warnings: &mut Vec<String>,
) -> Result<Loaded, Failure> {
    let bytes = std::fs::read(path)
        .map_err(|e| Failure::new(super::exit::USAGE, format!("cannot read `{}`: {e}", path.display())))?;
    let text = match decode_utf8(bytes) {
        Ok(text) => text,
        Err((bad, replaced)) => {
            let file = SourceFile::new(path.display().to_string(), replaced);
            let mut d = Diagnostics::default();
            // The bad byte reads as U+FFFD, three bytes, in the replaced text.
            d.error(
                Span::new(bad.offset, bad.offset + '\u{FFFD}'.len_utf8()),
                format!("not valid UTF-8 (byte 0x{:02X}): a specification is UTF-8 text", bad.byte),
            );
            return Err(invalid(&file, &d));
        }
    };
    let file = SourceFile::new(path.display().to_string(), text);
    let externs = parse_externs(extern_words).map_err(|e| Failure::new(super::exit::USAGE, e.to_string()))?;
    let parsed = parse(&file.text);
    let spec = match parsed.spec {
        Some(spec) if !parsed.diagnostics.has_errors() => {
            render_all(&file, &parsed.diagnostics, warnings);
            spec
        }
        _ => return Err(invalid(&file, &parsed.diagnostics)),
    };
    let declared: Vec<&str> = spec.system.externs.iter().map(|i| i.name.as_str()).collect();
    let unknown: Vec<&String> = externs.keys().filter(|k| !declared.contains(&k.as_str())).collect();
    if !unknown.is_empty() {
        let list = |v: &mut dyn Iterator<Item = &str>| v.map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
        let has = if declared.is_empty() {
            "the spec declares no extern".to_string()
        } else {
            format!("the spec declares {}", list(&mut declared.iter().copied()))
        };
        return Err(Failure::new(
            super::exit::USAGE,
            format!("unknown extern(s) {}: {has}", list(&mut unknown.iter().map(|s| s.as_str()))),
        ));
    }
    let (model, diags) = match resolve(&spec, &file.text, &externs) {
        Ok(r) => r,
        Err(ResolveError::MissingExterns(names)) => {
            let bare: Vec<String> = names.iter().map(|n| n.trim_start_matches('_').to_string()).collect();
            let example: Vec<String> = bare.iter().map(|n| format!("{n}=VALUE")).collect();
            return Err(Failure::new(
                2,
                format!(
                    "error: no value given for extern(s) {}\n  = hint: give them on the command line, e.g. `labs {command} {} {}`\n",
                    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "),
                    path.display(),
                    example.join(" ")
                ),
            ));
        }
        Err(ResolveError::Invalid(d)) => return Err(invalid(&file, &d)),
        Err(ResolveError::BadExternValues(d)) => {
            return Err(Failure { code: super::exit::USAGE, ..invalid(&file, &d) });
        }
    };
    render_all(&file, &diags, warnings);
    let behaviours = match compile_all(&model) {
        Ok((b, w)) => {
            render_all(&file, &w, warnings);
            b
        }
        Err(d) => return Err(invalid(&file, &d)),
    };
    Ok(Loaded { file, model, behaviours })
}

/// The text of a file that is not a spec (a trace, an LNT program, a query): unreadable is a
/// usage error; not UTF-8 is exit `bad_text`, located at the first bad byte.
pub(crate) fn read_text(path: &Path, bad_text: i32) -> Result<String, Failure> {
    let bytes = std::fs::read(path)
        .map_err(|e| Failure::new(super::exit::USAGE, format!("cannot read `{}`: {e}", path.display())))?;
    decode_utf8(bytes).map_err(|(bad, _)| {
        Failure::new(
            bad_text,
            format!("not valid UTF-8 (byte 0x{:02X})\n --> {}:{}:{}", bad.byte, path.display(), bad.line, bad.col),
        )
    })
}

/// `--property NAME` names no property of the spec (exit 2, listing the ones it has).
pub(crate) fn unknown_property(l: &Loaded, name: &str) -> Failure {
    let names: Vec<&str> = l.model.properties.iter().map(|x| x.name.as_str()).collect();
    Failure::new(super::exit::USAGE, format!("no property named `{name}`; the spec has: {}", names.join(", ")))
}

fn render_all(file: &SourceFile, d: &Diagnostics, out: &mut Vec<String>) {
    out.extend(render_capped(&d.items, file));
}

fn invalid(file: &SourceFile, d: &Diagnostics) -> Failure {
    let mut text: String = render_capped(&d.items, file).concat();
    if !d.has_errors() {
        text += "error: the specification is invalid\n";
    }
    let n = d.items.iter().filter(|x| x.is_error()).count();
    if n > 1 {
        text += &format!("error: {n} errors in `{}`\n", file.name);
    }
    Failure { code: super::exit::INVALID_SPEC, message: text }
}
