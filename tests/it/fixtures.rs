//! Where the tests find their data: every path a test reads goes through here, and every one
//! lies inside this repository (`benchmarks/`, `tests/cases/`, `examples/`).

use std::path::{Path, PathBuf};

/// The repository's root.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A file or folder of the repository, by its path from the root.
pub fn path(rel: &str) -> PathBuf {
    root().join(rel)
}

/// The same, as a string (for command lines).
pub fn path_str(rel: &str) -> String {
    path(rel).to_string_lossy().into_owned()
}

/// A file's text; panics with its path when it cannot be read.
pub fn read(rel: &str) -> String {
    let p = path(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The published benchmark specifications (`benchmarks/`).
pub fn benchmarks() -> PathBuf {
    path("benchmarks")
}

/// The hand-derived semantics cases (`tests/cases/`).
pub fn cases() -> PathBuf {
    path("tests/cases")
}

/// The project's own examples (`examples/`).
pub fn examples() -> PathBuf {
    path("examples")
}

/// The `.labs` files of a folder, sorted by name.
pub fn labs_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "labs"))
        .collect();
    v.sort();
    v
}

/// The same folders as strings, for `format!("{BENCH}/leader.labs")`.
pub const BENCH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/benchmarks");
pub const CASES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cases");
pub const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples");

/// A benchmark specification's path (`benchmarks/NAME`), for command lines.
pub fn bench(name: &str) -> String {
    format!("{BENCH}/{name}")
}

/// An example's path (`examples/NAME`), for command lines.
pub fn example(name: &str) -> String {
    format!("{EXAMPLES}/{name}")
}

/// The `labs` binary built for these tests, as a command to complete. Every verification
/// and simulation the tests run checks the value analysis on the states it reaches
/// (`--check-analysis`, through its environment variable).
pub fn labs_command() -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_labs"));
    c.env("LABS_CHECK_ANALYSIS", "1");
    c
}

/// Runs the `labs` binary with `args` and waits for it.
pub fn labs(args: &[&str]) -> std::process::Output {
    labs_command().args(args).output().expect("run labs")
}

/// A finished command's standard error, as text.
pub fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The JSON Lines of `labs simulate --json` (docs/json.md) as one object: the summary line's
/// fields, with `runs` replaced by the run lines in order. Each line must be one JSON object
/// with `kind` "run" (all but the last) or "summary" (the last).
pub fn simulate_doc(stdout: &[u8]) -> serde_json::Value {
    let text = std::str::from_utf8(stdout).expect("UTF-8 output");
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: not one JSON object per line: {l}")))
        .collect();
    let (summary, runs) = lines.split_last().unwrap_or_else(|| panic!("no summary line: {text}"));
    assert_eq!(summary["kind"], "summary", "{text}");
    assert!(runs.iter().all(|r| r["kind"] == "run"), "{text}");
    assert_eq!(summary["runs"].as_u64(), Some(runs.len() as u64), "{text}");
    let mut doc = summary.clone();
    doc["runs"] = serde_json::Value::Array(runs.to_vec());
    doc
}

/// A finished command's standard output, as text.
pub fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The files `labs emit` writes for the spec at `rel` (a path from the repository's root) with
/// these externs, scheduling and dialect, every property included.
pub fn emit_files(
    rel: &str,
    externs: &[&str],
    fair: bool,
    dialect: labs::lnt::Dialect,
) -> Result<Vec<labs::lnt::EmittedFile>, labs::lnt::EmitError> {
    let src = read(rel);
    let spec = labs::syntax::parse(&src).spec.expect("the spec parses");
    let externs = labs::model::externs::parse_externs(externs).expect("the externs parse");
    let (model, _) = labs::model::resolve(&spec, &src, &externs).expect("the spec resolves");
    let (b, _) = labs::behaviour::compile_all(&model).expect("the behaviours compile");
    let a = labs::analysis::values::analyse(&model, &b);
    let stem = Path::new(rel).file_stem().expect("a file name").to_string_lossy().into_owned();
    let opts = labs::lnt::EmitOptions {
        fair,
        properties: vec![],
        dialect,
        dialect_reason: String::new(),
        base: labs::lnt::names::module_name(&stem),
        source: format!("{stem}.labs"),
        usage: None,
    };
    labs::lnt::emit(&model, &b, &a, &opts)
}

/// The instances on which `verify --backend lnt` is compared with the native engine: (spec,
/// externs, the SVL workflow it runs them with). The examples, the specs of `tests/specs`
/// and two benchmarks; monolithic where the value analysis leaves an input unbounded for a leaf
/// generated alone.
pub fn lnt_instances() -> Vec<(String, Vec<&'static str>, &'static str)> {
    let ex = |f: &str| format!("{EXAMPLES}/{f}");
    vec![
        (ex("counter.labs"), vec!["n=2", "atomic=0"], "monolithic"),
        (ex("leader.labs"), vec!["n=3"], "compositional"),
        (ex("philosophers.labs"), vec!["n=3", "asym=0"], "compositional"),
        (ex("twophase.labs"), vec!["workers=2"], "monolithic"),
        (ex("majority.labs"), vec!["yes=1", "no=2"], "compositional"),
        // `pick`, then four reads of the picked agent's `state` in one assignment (issue 26)
        (path_str("tests/specs/majority_pick.labs"), vec![], "compositional"),
        (ex("line.labs"), vec!["n=3", "size=5", "gap=2"], "monolithic"),
        (ex("flocking.labs"), vec!["birds=2", "grid=3", "delta=1"], "monolithic"),
        (format!("{BENCH}/philosophers.labs"), vec!["n=3"], "compositional"),
        (format!("{BENCH}/formation.labs"), vec!["n=2", "range=2", "size=3"], "monolithic"),
    ]
}
