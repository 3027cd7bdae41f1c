//! The dependency order of ARCHITECTURE.md ("Layers"), checked on the source: every `crate::`
//! path in `src/` names only stages listed before the file's own stage, and within a stage the
//! files do not depend on each other in a cycle. Test code (`#[cfg(test)]` onwards) is left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::fixtures;

/// The stages in order, from the line of ARCHITECTURE.md that follows the "Layers" heading's
/// marker: a backquoted list.
fn layers() -> Vec<String> {
    let doc = std::fs::read_to_string(fixtures::path("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let line = doc.lines().find(|l| l.starts_with("Order: ")).expect("an `Order: ` line in ARCHITECTURE.md");
    line.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read src") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// (stage, file within the stage) of a source file: `src/engine/step.rs` is ("engine", "step"),
/// `src/engine/mod.rs` ("engine", ""), `src/limits.rs` ("limits", ""); binaries (`src/bin/`, with their modules) are no stage.
fn place(src: &Path, p: &Path) -> Option<(String, String)> {
    let rel: Vec<String> =
        p.strip_prefix(src).ok()?.with_extension("").iter().map(|c| c.to_string_lossy().into_owned()).collect();
    match rel.as_slice() {
        [one] if one == "lib" || one == "main" => None,
        [dir, ..] if dir == "bin" => None,
        [one] => Some((one.clone(), String::new())),
        [stage, file] if file == "mod" => Some((stage.clone(), String::new())),
        [stage, file, ..] => Some((stage.clone(), file.clone())),
        _ => None,
    }
}

/// The source without its tests.
fn code(p: &Path) -> String {
    let text = std::fs::read_to_string(p).expect("read source");
    match text.find("#[cfg(test)]") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// Identifiers following `prefix` in `text` (`crate::engine::step` gives `engine` for
/// `crate::`), including the members of a `prefix{a, b::c}` group; not where the prefix
/// continues a longer path.
fn names_after(text: &str, prefix: &str) -> BTreeSet<String> {
    idents_after(text, prefix, false)
}

/// The same, also where the prefix continues a path (`labs::engine::step` gives `step` for
/// `engine::`).
fn paths_after(text: &str, prefix: &str) -> BTreeSet<String> {
    idents_after(text, prefix, true)
}

fn idents_after(text: &str, prefix: &str, within_path: bool) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    for (i, _) in text.match_indices(prefix) {
        let before = text[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || (c == ':' && !within_path)) {
            continue;
        }
        let rest = &text[i + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            out.extend(group.split(',').map(|g| ident(g.trim())).filter(|g| !g.is_empty()));
        } else {
            out.insert(ident(rest));
        }
    }
    out
}

#[test]
fn stages_depend_only_on_earlier_stages() {
    let order = layers();
    assert!(order.len() >= 10 && order.last().map(String::as_str) == Some("cli"), "{order:?}");
    let src = fixtures::path("src");
    let mut files = vec![];
    rust_files(&src, &mut files);
    let mut bad = vec![];
    let mut seen = BTreeSet::new();
    for p in &files {
        let Some((stage, _)) = place(&src, p) else { continue };
        let Some(mine) = order.iter().position(|s| *s == stage) else {
            bad.push(format!("{}: stage `{stage}` is not in ARCHITECTURE.md's order", p.display()));
            continue;
        };
        seen.insert(stage.clone());
        for used in names_after(&code(p), "crate::") {
            if used == stage {
                continue;
            }
            match order.iter().position(|s| *s == used) {
                Some(theirs) if theirs < mine => {}
                Some(_) => bad.push(format!("{}: `{stage}` uses `{used}`, which comes after it", p.display())),
                None => bad.push(format!("{}: uses `crate::{used}`, a stage not in the order", p.display())),
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    let listed: BTreeSet<String> = order.iter().cloned().collect();
    assert_eq!(seen, listed, "ARCHITECTURE.md's order and the stages in src/ differ");
}

/// Within every folder of a stage (the stage's own, and one level below, as `lntcheck/svl/`),
/// the files and subfolders do not depend on each other in a cycle: a file's dependencies are
/// the members of the folder it names through `crate::…` or as many `super::` as lead there.
#[test]
fn files_of_a_stage_do_not_depend_on_each_other_in_a_cycle() {
    let src = fixtures::path("src");
    let mut files = vec![];
    rust_files(&src, &mut files);
    // module path of each file (`mod` dropped): engine/state/arena -> ["engine", "state", "arena"]
    let modules: Vec<(PathBuf, Vec<String>)> = files
        .iter()
        .filter_map(|p| {
            let rel: Vec<String> = p
                .strip_prefix(&src)
                .ok()?
                .with_extension("")
                .iter()
                .map(|c| c.to_string_lossy().into_owned())
                .collect();
            if rel.len() < 2 || rel[0] == "bin" {
                return None;
            }
            let mut m = rel;
            if m.last().is_some_and(|l| l == "mod") {
                m.pop();
            }
            Some((p.clone(), m))
        })
        .collect();
    // folder -> member -> members it uses
    let mut graph: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (_, m) in &modules {
        for d in 1..m.len() {
            graph.entry(m[..d].to_vec()).or_default().entry(m[d].clone()).or_default();
        }
    }
    for (p, m) in &modules {
        let text = code(p);
        for d in 1..m.len() {
            let folder = &m[..d];
            let member = &m[d];
            let mut used = names_after(&text, &format!("crate::{}::", folder.join("::")));
            // `super::` from a file is its parent module; each further `super::` one more up.
            for k in 1..m.len() {
                if m[..m.len() - k] == *folder {
                    used.extend(names_after(&text, &"super::".repeat(k)));
                }
            }
            let g = graph.get_mut(folder).expect("every folder is a node");
            let known: BTreeSet<String> = g.keys().cloned().collect();
            let deps = g.get_mut(member).expect("every member is a node");
            deps.extend(used.into_iter().filter(|u| u != member && known.contains(u)));
        }
    }
    let mut cycles = vec![];
    for (folder, g) in &graph {
        let stage = folder.join("/");
        for (a, deps) in g {
            for b in deps {
                if a < b && g.get(b).is_some_and(|d| d.contains(a)) {
                    cycles.push(format!("{stage}: {a} <-> {b}"));
                }
            }
        }
        // longer cycles: a file that reaches itself
        for start in g.keys() {
            let mut stack: Vec<&String> = g[start].iter().collect();
            let mut seen = BTreeSet::new();
            while let Some(n) = stack.pop() {
                if n == start {
                    cycles.push(format!("{stage}: {start} reaches itself"));
                    break;
                }
                if seen.insert(n.clone()) {
                    stack.extend(g.get(n).into_iter().flatten());
                }
            }
        }
    }
    assert!(graph.contains_key(&vec!["lntcheck".to_string(), "svl".to_string()]), "nested folders are checked");
    cycles.sort();
    cycles.dedup();
    assert!(cycles.is_empty(), "{}", cycles.join("\n"));
}

/// ARCHITECTURE.md (`src/cli/`): the `--json` documents are serialisable types in
/// `cli/json.rs`; no other CLI file builds JSON by hand (`json!`) or patches a document.
#[test]
fn the_cli_builds_json_only_through_its_report_types() {
    let cli = fixtures::path("src/cli");
    let mut files = vec![];
    rust_files(&cli, &mut files);
    let mut bad = vec![];
    for p in &files {
        if p.file_name().is_some_and(|n| n == "json.rs") {
            continue;
        }
        let text = code(p);
        for pattern in ["json!(", "serde_json::to_string", "serde_json::Value", "doc[\""] {
            if text.contains(pattern) {
                bad.push(format!("{}: `{pattern}`", p.display()));
            }
        }
    }
    assert!(files.len() > 10, "{files:?}");
    assert!(bad.is_empty(), "JSON built outside cli/json.rs:\n{}", bad.join("\n"));
}

/// ARCHITECTURE.md (`src/bin/labs-bench.rs`): the benchmark uses the library's stages, never
/// the CLI's internals.
#[test]
fn the_benchmark_does_not_reach_into_the_cli() {
    let text = std::fs::read_to_string(fixtures::path("src/bin/labs-bench.rs")).expect("labs-bench.rs");
    assert!(text.contains("use labs::"), "the benchmark uses the library");
    assert!(!text.contains("labs::cli"), "labs-bench.rs uses `labs::cli`");
}

/// ARCHITECTURE.md (`src/cli/`): the library's errors are turned into exit codes in one place,
/// `cli/failure.rs` (`From<…> for Failure`), and the exit codes are defined only there.
#[test]
fn library_errors_become_exit_codes_in_one_place() {
    let mut files = vec![];
    rust_files(&fixtures::path("src"), &mut files);
    let mut bad = vec![];
    let mut found = 0;
    for p in &files {
        let text = code(p);
        let here = p.ends_with("cli/failure.rs");
        for pat in ["for Failure", "const INTERRUPTED: ", "const VIOLATED: "] {
            if text.contains(pat) {
                if here {
                    found += 1;
                } else {
                    bad.push(format!("{}: `{pat}`", p.display()));
                }
            }
        }
    }
    assert!(found >= 3, "cli/failure.rs maps the stages' errors and defines the exit codes");
    assert!(bad.is_empty(), "outside cli/failure.rs:\n{}", bad.join("\n"));
}

/// ARCHITECTURE.md ("Public surface"): each stage's `pub` surface is its `mod.rs` and the
/// modules that code outside the library (tests, the benchmark, fuzz targets) names; the others
/// are `pub(crate)` or private.
#[test]
fn a_module_is_public_only_if_something_outside_the_library_names_it() {
    let mut outside = vec![];
    for dir in ["tests", "src/bin", "fuzz"] {
        let p = fixtures::path(dir);
        if p.is_dir() {
            rust_files(&p, &mut outside);
        }
    }
    let texts: Vec<String> = outside.iter().map(|p| std::fs::read_to_string(p).expect("read")).collect();
    let src = fixtures::path("src");
    let mut stages = vec![];
    rust_files(&src, &mut stages);
    let mut public = 0;
    let mut bad = vec![];
    for p in stages.iter().filter(|p| p.ends_with("mod.rs") && p.parent().is_some_and(|d| d.parent() == Some(&*src))) {
        let stage = p.parent().and_then(|d| d.file_name()).expect("stage").to_string_lossy().into_owned();
        for line in code(p).lines() {
            // `test_visible_mod!(m)`: public with the `test-support` feature only.
            let declared = line.strip_prefix("pub mod ").and_then(|r| r.strip_suffix(';'));
            let test_visible = line.strip_prefix("test_visible_mod!(").and_then(|r| r.strip_suffix(");"));
            let Some(m) = declared.or(test_visible) else { continue };
            public += 1;
            // A module another stage re-exports is public through it.
            let reexported = stages.iter().any(|q| code(q).contains(&format!("pub use crate::{stage}::{m};")));
            let named = reexported || texts.iter().any(|t| paths_after(t, &format!("{stage}::")).contains(m));
            if !named {
                bad.push(format!("{stage}::{m}"));
            }
        }
    }
    assert!(public > 10, "{public} public modules found");
    assert!(
        bad.is_empty(),
        "public modules nothing outside the library names (make them pub(crate)):\n{}",
        bad.join("\n")
    );
}

/// ARCHITECTURE.md ("Layers"): no source file is over about 1,000 lines unless it is one job
/// that reads best whole and says why at its top.
#[test]
fn a_long_source_file_says_why_it_is_whole() {
    let mut files = vec![];
    rust_files(&fixtures::path("src"), &mut files);
    let mut bad = vec![];
    for p in &files {
        let text = std::fs::read_to_string(p).expect("read");
        let head: String = text.lines().take_while(|l| l.starts_with("//!") || l.is_empty()).collect();
        if text.lines().count() > 1100 && !head.contains("although long") {
            bad.push(p.display().to_string());
        }
    }
    assert!(bad.is_empty(), "files over 1,100 lines without the reason they are whole at the top:\n{}", bad.join("\n"));
}
