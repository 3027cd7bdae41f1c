//! Back end: the compositional LNT emulation program, one MCL query per property and the SVL
//! scripts of the compositional and monolithic CADP workflows (`labs emit`).
//!
//! The generation is split into typed *view structs* built from the model, the compiled
//! behaviours and the value analysis ([`view`], [`mcl`], [`svl`]) and Askama templates under
//! `lnt-templates/` and `svl/` that lay the code out. The only code text produced outside the
//! templates is expression printing ([`expr`], [`domains`], [`mcl`]). The encoding is documented in
//! `docs/lnt-encoding.md`.

test_visible_mod!(domains);
pub(crate) mod errors;
pub(crate) mod expr;
test_visible_mod!(mcl);
pub mod names;
pub(crate) mod svl;
pub(crate) mod templates;
pub(crate) mod view;

use crate::analysis::values::ValueAnalysis;
use crate::behaviour::Behaviour;
use crate::model::Model;

/// The dialect of the emitted files: the spellings that changed across CADP releases, in the
/// LNT program, the SVL scripts and the on-the-fly command lines (CADP `HISTORY` items; table
/// and sources in `docs/lnt-encoding.md` §1 and §8). Ordered by release.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Dialect {
    /// Releases before 2024-d: `select … end select`, ranges `..`, in-out actuals `!?x`, send
    /// offers `!x` (the bare `x` dates from 2022, #2826, after some of these releases).
    V2023,
    /// 2024-d to 2025-c: `alt … end alt` (#2982), send offers `x`, `lnt.open -root`,
    /// `verify … with evaluator4 in`.
    V2024D,
    /// 2025-d: `lnt.open -main` (#3115; `-root` deprecated, with a warning).
    V2025D,
    /// 2025-e: ranges `...` (#3133; `..` deprecated).
    V2025E,
    /// 2025-f to 2025-k: in-out actuals `x?` (#3148; `!?x` deprecated).
    V2025,
    /// 2025-l: SVL's `"D.bcg" = "M.bcg" |= "Q.mcl"` (#3256; `verify … in` deprecated).
    V2025L,
    /// 2026-a and later (to 2026-d, the last release read): the model checker is `evaluator`,
    /// EVALUATOR 5 (#3269, #3270; the keywords `evaluator4` and `evaluator5` deprecated).
    V2026,
}

/// Why [`Dialect::FALLBACK`] was chosen, for `README.txt` and the CLI's note.
pub(crate) const FALLBACK_REASON: &str =
    "no CADP installation detected: the 2024-d forms, which every release from 2024-d accepts";

/// A CADP release name `YYYY-x` as (year, letter).
pub(crate) type Release = (u32, char);

impl Dialect {
    /// The dialect used when none is given and no CADP installation tells: the 2024-d forms
    /// (`alt`, `..`, `!?x`, `-root`, `evaluator4`, `verify … in`), which every release from
    /// 2024-d accepts, the later ones with warnings at most (HISTORY #3115, #3133, #3148,
    /// #3256 and #3270 keep each older form "still accepted").
    pub const FALLBACK: Dialect = Dialect::V2024D;

    /// Every dialect, oldest first.
    #[cfg(feature = "test-support")]
    pub const ALL: [Dialect; 7] = [
        Dialect::V2023,
        Dialect::V2024D,
        Dialect::V2025D,
        Dialect::V2025E,
        Dialect::V2025,
        Dialect::V2025L,
        Dialect::V2026,
    ];

    /// The first release of each dialect after the oldest, from the latest.
    const FIRST_RELEASES: [(Release, Dialect); 6] = [
        ((2026, 'a'), Dialect::V2026),
        ((2025, 'l'), Dialect::V2025L),
        ((2025, 'f'), Dialect::V2025),
        ((2025, 'e'), Dialect::V2025E),
        ((2025, 'd'), Dialect::V2025D),
        ((2024, 'd'), Dialect::V2024D),
    ];

    /// `--lnt-dialect`: a dialect's name (`2023`, `2024-d`, `2025-d`, `2025-e`, `2025`,
    /// `2025-l`, `2026`) or any release name `YYYY-x` (its dialect).
    pub(crate) fn parse(s: &str) -> Option<Dialect> {
        match s {
            "2023" => Some(Dialect::V2023),
            "2025" => Some(Dialect::V2025),
            "2026" => Some(Dialect::V2026),
            _ => parse_release(s).filter(|_| s.trim().len() == 6).map(Dialect::for_release),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Dialect::V2023 => "2023",
            Dialect::V2024D => "2024-d",
            Dialect::V2025D => "2025-d",
            Dialect::V2025E => "2025-e",
            Dialect::V2025 => "2025",
            Dialect::V2025L => "2025-l",
            Dialect::V2026 => "2026",
        }
    }

    /// The dialect a release reads without warnings about the forms written: the latest whose
    /// first release is not after it.
    pub(crate) fn for_release(r: Release) -> Dialect {
        Self::FIRST_RELEASES.iter().find(|(first, _)| r >= *first).map_or(Dialect::V2023, |&(_, d)| d)
    }

    /// The keyword opening (and closing) a nondeterministic choice.
    pub fn alt(self) -> &'static str {
        match self {
            Dialect::V2023 => "select",
            _ => "alt",
        }
    }

    /// The range symbol of array bounds.
    pub fn range(self) -> &'static str {
        if self >= Dialect::V2025E { "..." } else { ".." }
    }

    /// What opens a send offer: `!` before 2024-d, nothing from 2024-d (`G (X)`, the offer of
    /// the 2022 LNT revision, #2826; #3148 reserves `!` for pragmas).
    pub(crate) fn send(self) -> &'static str {
        match self {
            Dialect::V2023 => "!",
            _ => "",
        }
    }

    /// An in-out actual parameter.
    pub fn inout(self, x: &str) -> String {
        if self >= Dialect::V2025 { format!("{x}?") } else { format!("!?{x}") }
    }

    /// The `lnt.open` option naming the process to generate: `-main` from 2025-d (#3115).
    pub fn main_option(self) -> &'static str {
        if self >= Dialect::V2025D { "-main" } else { "-root" }
    }

    /// The model checker, as SVL's `with` clause and `lnt.open` name it: `evaluator` (EVALUATOR
    /// 5) from 2026-a (#3269, #3270), `evaluator4` before.
    pub fn evaluator(self) -> &'static str {
        if self >= Dialect::V2026 { "evaluator" } else { "evaluator4" }
    }

    /// Whether SVL's verification statements are written `"D.bcg" = "M.bcg" |= with T "Q.mcl"`
    /// (from 2025-l, #3256), else `"D.bcg" = verify "Q.mcl" with T in "M.bcg"`.
    pub fn svl_models(self) -> bool {
        self >= Dialect::V2025L
    }

    /// The forms of this dialect that CADP 2026 deprecates, with the warning each gets (HISTORY
    /// items, up to 2026-d), for `README.txt`. `select` is the exception: announced to become
    /// a fatal error two years after 2024-d (#2982).
    pub(crate) fn deprecated_in_2026(self) -> Vec<&'static str> {
        let mut w = vec![];
        if self < Dialect::V2024D {
            w.push("select (TRAIAN warns, #3124; announced to become a fatal error two years after\n    April 2024, #2982)");
        }
        if self < Dialect::V2025E {
            w.push("the array bounds .. (TRAIAN: \"..\" is deprecated and should be replaced by\n    \"...\", #3133)");
        }
        if self < Dialect::V2025 {
            w.push("the in-out actuals !?x (TRAIAN: \"!?X\" for in-out parameters is deprecated, #3148)");
        }
        if self < Dialect::V2025D {
            w.push("lnt.open -root in the on-the-fly script (lnt.open warns: renamed -main, #3115)");
        }
        if self < Dialect::V2025L {
            w.push("SVL's verify ... in (deprecated for |=, #3256)");
        }
        if self < Dialect::V2026 {
            w.push(
                "evaluator4 in the scripts (SVL warns: the keyword is deprecated for evaluator, #3270;\n    \
                 the evaluator4 binary is kept for the moment, #3269)",
            );
        }
        w
    }

    /// The dialect for a CADP version text such as `2024-k "Eindhoven"` (the highest release
    /// named; `None` if none is recognised).
    pub(crate) fn for_cadp_version(version: &str) -> Option<Dialect> {
        let re = regex::Regex::new(r"\b(20\d\d)-([a-zA-Z])\b").expect("valid regex");
        let release = re
            .captures_iter(version)
            .filter_map(|c| Some((c[1].parse().ok()?, c[2].chars().next()?.to_ascii_lowercase())))
            .max()?;
        Some(Dialect::for_release(release))
    }
}

/// A release name `YYYY-x` at the start of `s`.
fn parse_release(s: &str) -> Option<Release> {
    let s = s.trim();
    let (year, letter) = s.split_once('-')?;
    let year: u32 = year.parse().ok().filter(|y| (2000..2100).contains(y))?;
    let mut cs = letter.chars();
    let c = cs.next().filter(|c| c.is_ascii_alphabetic())?.to_ascii_lowercase();
    Some((year, c))
}

/// The release `cadp_lib -1` names: its second word (`2023-k`; the dash may be missing).
pub(crate) fn release_of_cadp_lib(output: &str) -> Option<Release> {
    let word = output.split_whitespace().nth(1)?;
    let (year, letter) = word.split_at_checked(4)?;
    let letter = letter.strip_prefix('-').unwrap_or(letter);
    if letter.len() != 1 {
        return None;
    }
    parse_release(&format!("{year}-{letter}"))
}

/// The dialect of the CADP installation at `root` read from its files: `VERSION`, else
/// `HISTORY` (the highest `YYYY-x` release named). A fallback for when `cadp_lib -1` cannot
/// be run (`installed_dialect` of the CADP driver).
pub(crate) fn dialect_of_installation(root: &std::path::Path) -> Option<(Dialect, String)> {
    ["VERSION", "HISTORY"].iter().find_map(|f| {
        let text = std::fs::read_to_string(root.join(f)).ok()?;
        Some((Dialect::for_cadp_version(&text)?, format!("release named in `{}`", root.join(f).display())))
    })
}

/// What the header comments say about the source (`EmitOptions::source`): the file name of
/// the spec at `path`, without its directory, and the model's externs, `leader.labs (_n=3)`.
pub(crate) fn source_text(path: &str, model: &Model) -> String {
    let name = std::path::Path::new(path).file_name().map_or(path.to_string(), |n| n.to_string_lossy().into_owned());
    let ext: Vec<String> = model.externs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    // It goes into comments: no comment delimiters, no line breaks.
    let name: String =
        name.replace("(*", "( *").replace("*)", "* )").chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    if ext.is_empty() { name } else { format!("{name} ({})", ext.join(" ")) }
}

/// What to emit.
#[derive(Clone, Debug)]
pub struct EmitOptions {
    /// Round-robin scheduling (`--fair`).
    pub fair: bool,
    /// The properties to emit queries for (`--property`); empty: all of them.
    pub properties: Vec<String>,
    pub dialect: Dialect,
    /// Why this dialect (asked for, detected from the installation, or the fallback), for
    /// `README.txt`.
    pub dialect_reason: String,
    /// The base name of the files (a valid LNT module name, see [`names::module_name`]).
    pub base: String,
    /// The specification's file name and externs, for the header comments only
    /// ([`source_text`]).
    pub source: String,
    /// How `labs emit` was run, for the commands of `README.txt`; `None`: placeholders.
    pub usage: Option<Usage>,
}

/// The command line `README.txt` repeats so that its commands can be pasted.
#[derive(Clone, Debug)]
pub struct Usage {
    /// The spec and extern words, shell-quoted: `'benchmarks/leader.labs' n=3`.
    pub(crate) spec: String,
    /// `--fair` and `--property P`, as given, shell-quoted (with a leading space each).
    pub(crate) options: String,
    /// `--split`: the job scripts and the `Makefile` were written too.
    pub(crate) split: bool,
}

/// A construct the LNT encoding does not support, or an unusable option.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct EmitError {
    pub message: String,
}

impl EmitError {
    pub(crate) fn unsupported(construct: &str, detail: impl Into<String>) -> EmitError {
        let detail = detail.into();
        let mut message = format!("the LNT encoding does not support {construct}");
        if !detail.is_empty() {
            message += &format!(" ({detail})");
        }
        EmitError { message }
    }
}

/// One generated file: its name (inside the output directory) and contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmittedFile {
    pub name: String,
    pub contents: String,
}

/// The words the first line of every file `emit` writes starts with (after the comment opener
/// `(* ` of LNT, MCL and SVL): how `labs emit` recognises a file it may replace.
pub(crate) const HEADER: &str = "Generated by labs emit";

/// Whether text starting with `first_bytes` begins the way every emitted file begins (the
/// `Makefile` of `labs emit --split` opens with `# `).
pub(crate) fn starts_with_header(first_bytes: &[u8]) -> bool {
    let rest = first_bytes.strip_prefix(b"(* ").or_else(|| first_bytes.strip_prefix(b"# "));
    rest.unwrap_or(first_bytes).starts_with(HEADER.as_bytes())
}

/// Writes every file into `dir` (created if needed) atomically: a temporary file in the
/// directory, then a rename; all temporaries are written before any file is replaced. On
/// failure, the path that could not be written and why.
pub(crate) fn write_files(
    dir: &std::path::Path,
    files: &[EmittedFile],
) -> Result<(), (std::path::PathBuf, std::io::Error)> {
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
/// the compositional and monolithic `.svl` scripts, the on-the-fly shell script, `README.txt`.
pub fn emit(
    model: &Model,
    behaviours: &[Behaviour],
    analysis: &ValueAnalysis,
    opts: &EmitOptions,
) -> Result<Vec<EmittedFile>, EmitError> {
    let props = mcl::select_properties(model, &opts.properties)?;
    let mut queries = props.iter().map(|&p| mcl::build(model, analysis, p)).collect::<Result<Vec<_>, _>>()?;
    // A linear-time property is checked by a monitor, which observes the values its atoms read.
    let formulas: Vec<_> = props.iter().map(|&p| mcl::linear_time(p)).collect();
    for (q, f) in queries.iter_mut().zip(&formulas) {
        if let Some(f) = f {
            q.observe(model, &view::monitor::tracked_keys(model, analysis, f)?);
        }
    }
    let specs: Vec<view::monitor::MonitorSpec> = props
        .iter()
        .zip(&formulas)
        .filter_map(|(p, f)| {
            let formula = f.as_ref()?;
            Some(view::monitor::MonitorSpec {
                id: names::property_id(model, &p.name),
                property: p.name.clone(),
                formula,
            })
        })
        .collect();
    let observed = mcl::observed_vars(&queries);
    let program = view::build(model, behaviours, analysis, opts, &observed, &specs)?;
    for q in &mut queries {
        q.abandon = !program.remote.is_empty();
        q.monitor = program.monitors.iter().find(|m| m.property == q.name).map(|m| mcl::MonitorRef {
            process: m.process.clone(),
            root: m.root.clone(),
            gates: m.gates.clone(),
            sync: m.sync.clone(),
            observer: m.observer.as_ref().map(|o| (format!("{} [{}]", o.process, o.gates.join(", ")), o.sync.clone())),
        });
    }
    let mut files = vec![EmittedFile { name: format!("{}.lnt", opts.base), contents: templates::render_lnt(&program) }];
    if program.has_err {
        files.push(EmittedFile {
            name: svl::mcl_file(&opts.base, &names::errors_id(model)),
            contents: templates::render_errors_mcl(opts),
        });
    }
    for q in &queries {
        let descriptions: Vec<String> = q.keys.iter().map(|k| mcl::describe(model, k)).collect();
        if let Some(e) = q.error_check() {
            files.push(EmittedFile {
                name: svl::mcl_file(&opts.base, &names::property_errors_id(model, &q.name)),
                contents: templates::render_mcl(&e, opts, descriptions.clone()),
            });
        }
        files.push(EmittedFile {
            name: svl::mcl_file(&opts.base, &names::property_id(model, &q.name)),
            contents: templates::render_mcl(q, opts, descriptions),
        });
    }
    let scripts = svl::build(model, &program, &queries, opts);
    files.push(EmittedFile { name: scripts.comp_file.clone(), contents: templates::render_svl_comp(&scripts) });
    files.push(EmittedFile { name: scripts.mono_file.clone(), contents: templates::render_svl_mono(&scripts) });
    files.push(EmittedFile { name: scripts.otf_file.clone(), contents: templates::render_on_the_fly(&scripts) });
    files.push(EmittedFile { name: "README.txt".into(), contents: templates::render_readme(&scripts) });
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dialect_from_version() {
        // The first release of each dialect and the one before it (CADP HISTORY #2982 in
        // 2024-d, #3115 in 2025-d, #3133 in 2025-e, #3148 in 2025-f, #3256 in 2025-l, #3269
        // and #3270 in 2026-a).
        let cases = [
            ("CADP 2023-k \"Pisa\"", Dialect::V2023),
            ("2024-c", Dialect::V2023),
            ("2024-d", Dialect::V2024D),
            ("2025-c", Dialect::V2024D),
            ("2025-d", Dialect::V2025D),
            ("2025-e", Dialect::V2025E),
            ("2025-f", Dialect::V2025),
            ("2025-k", Dialect::V2025),
            ("2025-l", Dialect::V2025L),
            ("2026-a", Dialect::V2026),
            ("2026-d", Dialect::V2026),
            ("2024-D 2025-c", Dialect::V2024D),
            ("2025-E", Dialect::V2025E),
        ];
        for (text, d) in cases {
            assert_eq!(Dialect::for_cadp_version(text), Some(d), "{text}");
        }
        assert_eq!(Dialect::for_cadp_version("nothing 2025"), None);
        // `cadp_lib -1`: the release is the second word, with or without its dash.
        assert_eq!(release_of_cadp_lib("CADP 2025-f \"Stand-in\"\n"), Some((2025, 'f')));
        assert_eq!(release_of_cadp_lib("CADP 2023k"), Some((2023, 'k')));
        assert_eq!(release_of_cadp_lib("2025-f"), None);
        assert_eq!(release_of_cadp_lib("CADP 2025-ff"), None);
        assert_eq!(Dialect::V2023.inout("I"), "!?I");
        assert_eq!(Dialect::V2025E.inout("I"), "!?I");
        assert_eq!(Dialect::V2025.inout("I"), "I?");
        assert_eq!(Dialect::V2026.inout("I"), "I?");
        assert_eq!((Dialect::V2023.alt(), Dialect::V2024D.alt()), ("select", "alt"));
        assert_eq!((Dialect::V2025D.range(), Dialect::V2025E.range()), ("..", "..."));
        assert_eq!((Dialect::V2023.send(), Dialect::V2024D.send()), ("!", ""));
        assert_eq!((Dialect::V2024D.main_option(), Dialect::V2025D.main_option()), ("-root", "-main"));
        assert_eq!((Dialect::V2025L.evaluator(), Dialect::V2026.evaluator()), ("evaluator4", "evaluator"));
        assert!(!Dialect::V2025.svl_models() && Dialect::V2025L.svl_models() && Dialect::V2026.svl_models());
        // `--lnt-dialect`: the names, and any release name.
        for d in Dialect::ALL {
            assert_eq!(Dialect::parse(d.name()), Some(d));
        }
        assert_eq!(Dialect::parse("2024-k"), Some(Dialect::V2024D));
        assert_eq!(Dialect::parse("2022-a"), Some(Dialect::V2023));
        assert_eq!(Dialect::parse("2026-d"), Some(Dialect::V2026));
        assert_eq!(Dialect::parse("2024"), None);
        assert_eq!(Dialect::parse("2025-ee"), None);
    }
}
