//! `labs emit`: writes the LNT program, the MCL queries, the SVL scripts and a README.

use super::load::Loaded;
use super::{Failure, exit};
use crate::analysis::values::analyse;
use crate::lnt::{self, Dialect, EmitOptions, EmittedFile};
use crate::stdout::outln;
use std::path::Path;

/// The dialect: the one asked for, else the installed CADP's, else the fallback; and why.
pub(crate) fn choose_dialect(asked: Option<&str>) -> Result<(Dialect, String), Failure> {
    match asked {
        Some(d) => Dialect::parse(d)
            .map(|d| (d, "asked for with --lnt-dialect".to_string()))
            .ok_or_else(|| Failure::new(exit::USAGE, format!("unknown LNT dialect `{d}` (expected 2023, 2024-d, 2025-d, 2025-e, 2025, 2025-l, 2026 or a CADP release name such as 2024-k)"))),
        None => Ok(
            crate::cadp::install::installed_dialect(
                std::env::var_os("CADP").as_deref(),
                std::env::var_os("PATH").as_deref(),
            )
            .map(|(d, from)| (d, format!("detected: {from}")))
            .unwrap_or_else(|| (Dialect::FALLBACK, lnt::FALLBACK_REASON.to_string())),
        ),
    }
}

/// The words of `labs verify` that `README.txt` repeats: the spec by its absolute path (the
/// commands run from anywhere), the externs, `--fair` and the properties.
fn usage(l: &Loaded, fair: bool, properties: &[String], split: bool) -> lnt::Usage {
    let path = std::fs::canonicalize(&l.file.name).unwrap_or_else(|_| l.file.name.clone().into());
    let mut spec = vec![shell_word(&path.to_string_lossy())];
    spec.extend(l.model.externs.iter().map(|(k, v)| shell_word(&format!("{k}={v}"))));
    let mut options = String::new();
    if fair {
        options += " --fair";
    }
    for p in properties {
        options += &format!(" --property {}", shell_word(p));
    }
    lnt::Usage { spec: spec.join(" "), options, split }
}

/// `s` as one word of `sh`: as it is when it needs no quoting, else single-quoted.
fn shell_word(s: &str) -> String {
    let plain = !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "/._-=+,:@".contains(c));
    if plain { s.to_string() } else { format!("'{}'", s.replace('\'', "'\\''")) }
}

pub(crate) fn run(
    l: &Loaded,
    fair: bool,
    properties: &[String],
    out_dir: &Path,
    force: bool,
    dialect: Option<&str>,
    split: bool,
) -> Result<i32, Failure> {
    if out_dir.as_os_str() == "-" {
        // `-` is standard output elsewhere; emit writes several files.
        return Err(Failure::new(
            exit::USAGE,
            "-o -: `labs emit` writes several files into a directory, not on standard output\n  = hint: give a \
             directory (`-o ./-` if it is really to be named `-`)",
        ));
    }
    let (dialect, why) = choose_dialect(dialect)?;
    if let Some(p) = properties.iter().find(|p| !l.model.properties.iter().any(|q| &q.name == *p)) {
        return Err(super::load::unknown_property(l, p));
    }
    let stem = l.stem();
    let opts = EmitOptions {
        fair,
        properties: properties.to_vec(),
        dialect,
        dialect_reason: why.clone(),
        base: lnt::names::module_name(&stem),
        source: lnt::source_text(&l.file.name, &l.model),
        usage: Some(usage(l, fair, properties, split)),
    };
    let analysis = analyse(&l.model, &l.behaviours);
    let mut files =
        lnt::emit(&l.model, &l.behaviours, &analysis, &opts).map_err(|e| Failure::new(exit::BACKEND, e.message))?;
    if split {
        let jobs = crate::cadp::split::split_files(&opts.base, &files)?;
        files.extend(jobs);
    }
    if !force {
        refuse_foreign_files(out_dir, &files)?;
    }
    write_all(out_dir, &files)?;
    for f in &files {
        outln!("{}", out_dir.join(&f.name).display());
    }
    super::status::note(format_args!("note: LNT dialect {} ({why})", dialect.name()));
    for w in unbounded_inputs(l, &analysis) {
        eprintln!("{w}");
    }
    Ok(exit::OK)
}

/// Warnings for variables whose analysed set is too large for leaves generated alone
/// (`lts_backend::unbounded_inputs`): such a spec needs the monolithic script.
pub(super) fn unbounded_inputs(l: &Loaded, analysis: &crate::analysis::values::ValueAnalysis) -> Vec<String> {
    crate::lts_backend::unbounded_inputs(analysis)
        .into_iter()
        .map(|(v, range)| {
            format!(
                "warning: the value analysis does not bound `{}` ({range}): the leaves of the compositional \
                 script, generated alone, would enumerate all these values in their input offers\n  = hint: use \
                 the monolithic script (`*_mono.svl`), or `labs verify` (native)",
                l.model.vars[v].name
            )
        })
        .collect()
}

/// A usage error naming every file of `files` that exists in `dir` and was not written by
/// `labs emit` (no header, or not a regular file): checked for all targets before any is
/// written, so that a refused run writes nothing.
fn refuse_foreign_files(dir: &Path, files: &[EmittedFile]) -> Result<(), Failure> {
    let foreign: Vec<String> = files
        .iter()
        .map(|f| dir.join(&f.name))
        .filter(|p| !replaceable(p))
        .map(|p| format!("`{}`", p.display()))
        .collect();
    if foreign.is_empty() {
        return Ok(());
    }
    let (what, verb) = if foreign.len() == 1 { ("file", "was") } else { ("files", "were") };
    Err(Failure::new(
        exit::USAGE,
        format!(
            "{what} {} {verb} not written by `labs emit` (no `{}` header) and would be replaced; \
             nothing was written\n  = hint: move {}, choose another directory with -o, or pass --force to \
             replace {}",
            foreign.join(", "),
            lnt::HEADER,
            if foreign.len() == 1 { "it" } else { "them" },
            if foreign.len() == 1 { "it" } else { "them" },
        ),
    ))
}

/// Whether `path` holds nothing, or a regular file whose first line is an emitted file's
/// header. A path that cannot be examined (its directory missing, not a directory, or
/// unreadable) holds nothing of the user's that writing could replace: the writer reports it.
fn replaceable(path: &Path) -> bool {
    use std::io::Read;
    match std::fs::symlink_metadata(path) {
        Err(_) => true,
        Ok(m) if !m.file_type().is_file() => false,
        Ok(_) => {
            let mut head = [0u8; 64];
            let mut len = 0;
            let Ok(mut file) = std::fs::File::open(path) else { return false };
            while len < head.len() {
                match file.read(&mut head[len..]) {
                    Ok(0) => break,
                    Ok(n) => len += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => return false,
                }
            }
            lnt::starts_with_header(&head[..len])
        }
    }
}

/// Writes the files (see [`lnt::write_files`]), with the message of `labs emit` on failure.
pub(crate) fn write_all(dir: &Path, files: &[EmittedFile]) -> Result<(), Failure> {
    lnt::write_files(dir, files)
        .map_err(|(what, e)| Failure::new(exit::BACKEND, format!("cannot write `{}`: {e}", what.display())))
}
