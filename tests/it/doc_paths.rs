//! Every file or folder the documentation names exists: markdown links, and code spans that
//! are paths in the repository (`src/engine/`, `tests/it/engine_store.rs`, `../tests/cases/`);
//! and no file cites a document outside the repository.

use crate::fixtures;
use crate::scratch::Scratch;

use std::path::{Path, PathBuf};

/// The documents a reader follows: the READMEs, the architecture map and `docs/`.
fn documents() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = ["README.md", "ARCHITECTURE.md", "examples/README.md", "benchmarks/README.md"]
        .iter()
        .map(|p| fixtures::path(p))
        .collect();
    let mut docs: Vec<PathBuf> = std::fs::read_dir(fixtures::path("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    v.extend(docs);
    v
}

/// The path-like references of a markdown text, each with the folder it is relative to.
fn references(text: &str, doc_dir: &Path) -> Vec<(String, PathBuf)> {
    let root = fixtures::root();
    // The entries at the top of the repository: a code span starting with one is a path.
    let top: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "target" && n != ".git")
        .collect();
    let path_like = regex::Regex::new(r"^(\.\./|\./)*[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*/?$").unwrap();
    let mut out = vec![];
    let link = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    for c in link.captures_iter(text) {
        let target = c[1].split('#').next().unwrap_or("");
        if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        out.push((target.to_string(), doc_dir.to_path_buf()));
    }
    let span = regex::Regex::new(r"`([^`\n]+)`").unwrap();
    for c in span.captures_iter(text) {
        let s = &c[1];
        if !path_like.is_match(s) {
            continue;
        }
        if s.starts_with("../") || s.starts_with("./") {
            out.push((s.to_string(), doc_dir.to_path_buf()));
            continue;
        }
        let first = s.split('/').next().unwrap_or("");
        // A bare name (`state.rs`, `X.svl`) is a file of a folder named nearby, or an emitted file.
        if top.iter().any(|t| t == first) && (s.contains('/') || s.ends_with(".md") || s.ends_with(".toml")) {
            out.push((s.to_string(), root.to_path_buf()));
        }
    }
    out
}

#[test]
fn every_path_the_documents_name_exists() {
    let mut missing = vec![];
    let mut checked = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let rel = doc.strip_prefix(fixtures::root()).unwrap().display().to_string();
        for (r, base) in references(&text, doc.parent().unwrap()) {
            checked += 1;
            if !base.join(&r).exists() {
                missing.push(format!("{rel}: {r}"));
            }
        }
    }
    assert!(missing.is_empty(), "paths named by the documentation that do not exist:\n{}", missing.join("\n"));
    // The documents do name paths: a parser finding none would pass vacuously.
    assert!(checked > 50, "only {checked} references found");
}

#[test]
fn the_reference_finder_finds_links_and_paths_and_skips_the_rest() {
    let root = fixtures::root();
    let docs = root.join("docs");
    let text = "See [the map](../ARCHITECTURE.md#code), `src/engine/state.rs`, `../tests/cases/`, \
                `README.md`, [web](https://example.org), `X.svl`, `labs verify SPEC`, `state.rs`.";
    let found: Vec<String> = references(text, &docs).into_iter().map(|(r, _)| r).collect();
    assert_eq!(found, ["../ARCHITECTURE.md", "src/engine/state.rs", "../tests/cases/", "README.md"]);
    // A missing file is reported as missing.
    assert!(!root.join("src/engine/no_such_file.rs").exists());
}

/// No document tells the history of its writing: that lives in git.
#[test]
fn documents_describe_the_design_not_a_diary() {
    let diary = regex::Regex::new(
        r"(?i)\b(this|last|next|previous|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh) session\b|\bround [0-9]+\b|\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh) round\b",
    )
    .unwrap();
    let mut found = vec![];
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for (i, line) in text.lines().enumerate() {
            if let Some(m) = diary.find(line) {
                found.push(format!("{}:{}: {}", doc.display(), i + 1, m.as_str()));
            }
        }
    }
    assert!(found.is_empty(), "diary wording in the documentation:\n{}", found.join("\n"));
}

/// Documents that sit outside the repository, which no file may cite: the repository stands on
/// its own (its documents are `docs/`, the READMEs and `ARCHITECTURE.md`). Each name is built
/// from two pieces so that this file does not name it.
fn outside_documents() -> Vec<String> {
    [
        ("labs-language", ".md"),
        ("product", ".md"),
        ("compositional-encoding", ".md"),
        ("cadp-", "interfaces"),
        ("sliver-", "pipeline"),
        ("../", "shared"),
    ]
    .iter()
    .map(|(a, b)| format!("{a}{b}"))
    .collect()
}

/// `path: name` for every file under `root` (build output and git's files aside) whose bytes
/// contain one of `names`.
fn files_naming(root: &Path, names: &[String]) -> Vec<String> {
    let mut found = vec![];
    let walk = walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !(e.file_type().is_dir() && (e.file_name() == "target" || e.file_name() == ".git")));
    for entry in walk {
        let entry = entry.unwrap();
        if !entry.file_type().is_file() {
            continue;
        }
        let bytes = std::fs::read(entry.path()).unwrap();
        for name in names {
            if bytes.windows(name.len()).any(|w| w == name.as_bytes()) {
                let rel = entry.path().strip_prefix(root).unwrap().display().to_string();
                found.push(format!("{rel}: {name}"));
            }
        }
    }
    found
}

#[test]
fn no_file_cites_a_document_outside_the_repository() {
    let found = files_naming(fixtures::root(), &outside_documents());
    assert!(
        found.is_empty(),
        "files citing documents outside the repository (cite docs/ instead):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_citation_finder_finds_them_in_every_file_but_build_output() {
    let dir = Scratch::path("doc-paths", "repo");
    let write = |rel: &str, text: &str| {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    let [language, .., shared] = &outside_documents()[..] else { unreachable!() };
    write("docs/a.md", &format!("The grammar is in `{language}` §3."));
    write("src/b.rs", &format!("//! Read {shared}/spec first.\n"));
    write("tests/c.rs", "// cites docs/language.md §3 only\n");
    write("target/debug/d.txt", language);
    let found = files_naming(&dir, &outside_documents());
    assert_eq!(found, [format!("docs/a.md: {language}"), format!("src/b.rs: {shared}")]);
}
