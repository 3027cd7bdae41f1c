//! Every file or folder the documentation names exists: markdown links, and code spans that
//! are paths in the repository (`src/engine/`, `tests/it/engine_store.rs`, `../tests/cases/`).

use crate::fixtures;

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
