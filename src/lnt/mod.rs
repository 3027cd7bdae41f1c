//! Back end: the compositional LNT emulation program, one MCL query per property and the SVL
//! scripts of the compositional and monolithic CADP workflows (`labs emit`).
//!
//! The generation is split into typed *view structs* built from the model, the compiled
//! behaviours and the value analysis ([`view`], [`mcl`], [`svl`]) and Askama templates under
//! `lnt-templates/` and `svl/` that lay the code out. The only code text produced outside the
//! templates is expression printing ([`expr`], [`domains`], [`mcl`]). The encoding is documented in
//! `docs/lnt-encoding.md`.

pub mod domains;
pub mod expr;
pub mod mcl;
pub mod names;
pub mod svl;
pub mod templates;
pub mod view;

use crate::analysis::values::ValueAnalysis;
use crate::behaviour::Behaviour;
use crate::model::Model;
use std::fmt;

/// The LNT dialect of the emitted program (`reference/cadp-interfaces.md` §6.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// CADP up to 2023/2024: `select … end select`, ranges `..`, in-out actuals `!?x`.
    V2023,
    /// CADP 2025 and later: `alt … end alt`, ranges `...`, in-out actuals `x?`.
    V2025,
}

impl Dialect {
    /// The dialect used when none is given and no CADP installation tells.
    pub const CURRENT: Dialect = Dialect::V2025;

    pub fn parse(s: &str) -> Option<Dialect> {
        match s {
            "2023" => Some(Dialect::V2023),
            "2025" => Some(Dialect::V2025),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Dialect::V2023 => "2023",
            Dialect::V2025 => "2025",
        }
    }

    /// The keyword opening (and closing) a nondeterministic choice.
    pub fn alt(self) -> &'static str {
        match self {
            Dialect::V2023 => "select",
            Dialect::V2025 => "alt",
        }
    }

    /// The range symbol of array bounds.
    pub fn range(self) -> &'static str {
        match self {
            Dialect::V2023 => "..",
            Dialect::V2025 => "...",
        }
    }

    /// An in-out actual parameter.
    pub fn inout(self, x: &str) -> String {
        match self {
            Dialect::V2023 => format!("!?{x}"),
            Dialect::V2025 => format!("{x}?"),
        }
    }

    /// The dialect for a CADP version string such as `2024-k` (`None` if not recognised).
    /// Releases before 2025 get the 2023 dialect (they accept `select`, `..` and `!?x`;
    /// `alt` only exists from 2024-04); 2025 and later get the current one.
    pub fn for_cadp_version(version: &str) -> Option<Dialect> {
        let re = regex::Regex::new(r"(20\d\d)-[a-z]").expect("valid regex");
        let year: u32 = re.captures_iter(version).filter_map(|c| c[1].parse().ok()).max()?;
        Some(if year >= 2025 { Dialect::V2025 } else { Dialect::V2023 })
    }
}

/// Looks for the installed CADP version: `$CADP/HISTORY` or `$CADP/VERSION` (the highest
/// `YYYY-x` release name they mention). `None` when `$CADP` is unset or says nothing usable.
pub fn detect_dialect() -> Option<Dialect> {
    let root = std::env::var_os("CADP")?;
    let root = std::path::PathBuf::from(root);
    for f in ["VERSION", "HISTORY"] {
        if let Ok(text) = std::fs::read_to_string(root.join(f))
            && let Some(d) = Dialect::for_cadp_version(&text)
        {
            return Some(d);
        }
    }
    None
}

/// What to emit.
#[derive(Clone, Debug)]
pub struct EmitOptions {
    /// Round-robin scheduling (`--fair`).
    pub fair: bool,
    /// The properties to emit queries for (`--property`); empty: all of them.
    pub properties: Vec<String>,
    pub dialect: Dialect,
    /// The base name of the files (a valid LNT module name, see [`names::module_name`]).
    pub base: String,
    /// The specification's file name and externs, for the header comments only.
    pub source: String,
}

/// A construct the LNT encoding does not support, or an unusable option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmitError {
    pub message: String,
}

impl EmitError {
    pub fn unsupported(construct: &str, detail: impl Into<String>) -> EmitError {
        let detail = detail.into();
        let mut message = format!("the LNT encoding does not support {construct}");
        if !detail.is_empty() {
            message += &format!(" ({detail})");
        }
        EmitError { message }
    }
}

impl fmt::Display for EmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EmitError {}

/// One generated file: its name (inside the output directory) and contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmittedFile {
    pub name: String,
    pub contents: String,
}

/// Writes every file into `dir` (created if needed) atomically: a temporary file in the
/// directory, then a rename; all temporaries are written before any file is replaced. On
/// failure, the path that could not be written and why.
pub fn write_files(dir: &std::path::Path, files: &[EmittedFile]) -> Result<(), (std::path::PathBuf, std::io::Error)> {
    std::fs::create_dir_all(dir).map_err(|e| (dir.to_path_buf(), e))?;
    let mut temps = vec![];
    for f in files {
        let tmp = dir.join(format!(".{}.{}.tmp", f.name, std::process::id()));
        if let Err(e) = std::fs::write(&tmp, &f.contents) {
            let _ = std::fs::remove_file(&tmp);
            for (t, _) in &temps {
                let _ = std::fs::remove_file(t);
            }
            return Err((dir.join(&f.name), e));
        }
        temps.push((tmp, dir.join(&f.name)));
    }
    for (i, (tmp, dest)) in temps.iter().enumerate() {
        if let Err(e) = std::fs::rename(tmp, dest) {
            for (t, _) in &temps[i..] {
                let _ = std::fs::remove_file(t);
            }
            return Err((dest.clone(), e));
        }
    }
    Ok(())
}

/// Generates every file of `labs emit`, in a fixed order: the `.lnt`, one `.mcl` per property,
/// the compositional and monolithic `.svl` scripts, `README.txt`.
pub fn emit(
    model: &Model,
    behaviours: &[Behaviour],
    analysis: &ValueAnalysis,
    opts: &EmitOptions,
) -> Result<Vec<EmittedFile>, EmitError> {
    let props = mcl::select_properties(model, &opts.properties)?;
    let queries = props.iter().map(|&p| mcl::build(model, analysis, p)).collect::<Result<Vec<_>, _>>()?;
    let observed = mcl::observed_vars(&queries);
    let program = view::build(model, behaviours, analysis, opts, &observed)?;
    let mut files = vec![EmittedFile { name: format!("{}.lnt", opts.base), contents: templates::render_lnt(&program) }];
    for q in &queries {
        let descriptions = q.keys.iter().map(|k| mcl::describe(model, k)).collect();
        files.push(EmittedFile {
            name: svl::mcl_file(&opts.base, &q.name),
            contents: templates::render_mcl(q, opts, descriptions),
        });
    }
    let scripts = svl::build(model, &program, &queries, opts);
    files.push(EmittedFile { name: scripts.comp_file.clone(), contents: templates::render_svl_comp(&scripts) });
    files.push(EmittedFile { name: scripts.mono_file.clone(), contents: templates::render_svl_mono(&scripts) });
    files.push(EmittedFile { name: "README.txt".into(), contents: templates::render_readme(&scripts) });
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dialect_from_version() {
        assert_eq!(Dialect::for_cadp_version("CADP 2023-k \"Pisa\""), Some(Dialect::V2023));
        assert_eq!(Dialect::for_cadp_version("2024-d 2025-c"), Some(Dialect::V2025));
        assert_eq!(Dialect::for_cadp_version("nothing"), None);
        assert_eq!(Dialect::V2023.inout("I"), "!?I");
        assert_eq!(Dialect::V2025.inout("I"), "I?");
    }
}
