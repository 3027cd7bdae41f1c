//! Every `.labs` file of the shared benchmarks and semantics cases parses, prints and parses
//! back to the same tree; spot checks of the trees.
//!
//! The public corpus (`labs-lang/labs-examples`, `labs-lang/labs/examples`) is not part of the
//! repository: it was checked manually (every file the reference accepts parses;
//! `environment.labs`, `tsp.labs`, `voter.labs` and `aggregation.labs` are rejected with
//! located messages). Set `LABS_CORPUS=/path/to/dir` to run `extra_corpus_if_present` on it.

use labs::diagnostics::Severity;
use labs::syntax::ast::*;
use labs::syntax::parse;
use labs::syntax::printer::{erase_spans, print_spec};
use labs::syntax::span::SourceFile;
use std::path::{Path, PathBuf};

fn labs_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|e| e == "labs"))
        .collect();
    out.sort();
    out
}

fn shared_files() -> Vec<PathBuf> {
    let mut v = labs_files(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/benchmarks"
    )));
    v.extend(labs_files(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/semantics-cases"
    ))));
    v
}

fn parse_ok(path: &Path) -> (Spec, Vec<labs::diagnostics::Diagnostic>) {
    let text = std::fs::read_to_string(path).unwrap();
    let out = parse(&text);
    let file = SourceFile::new(path.display().to_string(), text);
    let rendered: Vec<String> = out
        .diagnostics
        .items
        .iter()
        .map(|d| d.render(&file))
        .collect();
    assert!(
        !out.diagnostics.has_errors(),
        "{}:\n{}",
        path.display(),
        rendered.join("\n")
    );
    (
        out.spec.expect("a tree without errors"),
        out.diagnostics.items,
    )
}

fn roundtrip(path: &Path, spec: &Spec) {
    let printed = print_spec(spec);
    let again = parse(&printed);
    let spec2 = again.spec.unwrap_or_else(|| {
        panic!(
            "{}: printed text does not parse:\n{printed}\n{:?}",
            path.display(),
            again.diagnostics
        )
    });
    assert_eq!(
        erase_spans(spec),
        erase_spans(&spec2),
        "{}: round trip changed the tree:\n{printed}",
        path.display()
    );
    assert_eq!(
        print_spec(&spec2),
        printed,
        "{}: printing is not idempotent",
        path.display()
    );
}

#[test]
fn all_shared_files_parse_and_round_trip() {
    let files = shared_files();
    assert!(
        files.len() >= 30,
        "expected the shared corpus, found {} files",
        files.len()
    );
    for f in &files {
        let (spec, _) = parse_ok(f);
        roundtrip(f, &spec);
    }
}

#[test]
fn extra_corpus_if_present() {
    let Ok(dir) = std::env::var("LABS_CORPUS") else {
        return;
    };
    let mut failures = Vec::new();
    for f in labs_files(Path::new(&dir)) {
        let text = std::fs::read_to_string(&f).unwrap();
        let out = parse(&text);
        let file = SourceFile::new(f.display().to_string(), text);
        match out.spec {
            Some(spec) => roundtrip(&f, &spec),
            None => failures.push(
                out.diagnostics
                    .items
                    .iter()
                    .map(|d| d.render(&file))
                    .collect::<Vec<_>>()
                    .join(""),
            ),
        }
    }
    eprintln!("{}", failures.join("\n"));
}
