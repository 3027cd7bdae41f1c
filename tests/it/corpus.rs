//! Every benchmark, semantics case and example resolves with its externs; the id
//! layout follows D1; `labs info --json` snapshots of the benchmarks.

use crate::fixtures;

use labs::behaviour::compile_all;
use labs::model::externs::parse_externs;
use labs::model::{Model, resolve};
use labs::syntax::parse;
use std::path::{Path, PathBuf};

fn shared(rel: &str) -> PathBuf {
    fixtures::path(rel)
}

fn load(path: &Path, externs: &[&str]) -> Model {
    let src = std::fs::read_to_string(path).unwrap();
    let parsed = parse(&src);
    assert!(!parsed.diagnostics.has_errors(), "{}: {:?}", path.display(), parsed.diagnostics);
    let externs = parse_externs(externs).unwrap();
    let (model, _) =
        resolve(parsed.spec.as_ref().unwrap(), &src, &externs).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
    compile_all(&model).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
    model
}

/// The externs of the `# case:` lines of a file (the part before `=>`), or none.
fn case_externs(path: &Path) -> Vec<Vec<String>> {
    let src = std::fs::read_to_string(path).unwrap();
    let cases: Vec<Vec<String>> = src
        .lines()
        .filter_map(|l| l.trim_start_matches('#').trim().strip_prefix("case:"))
        .map(|c| {
            let before = c.split("=>").next().unwrap_or("");
            before.split_whitespace().filter(|w| !w.starts_with("--")).map(String::from).collect()
        })
        .collect();
    if cases.is_empty() { vec![vec![]] } else { cases }
}

#[test]
fn benchmarks_resolve_with_published_parameters() {
    let runs: &[(&str, &[&str])] = &[
        ("flock.labs", &["birds=3", "grid=5", "delta=5"]),
        ("formation.labs", &["n=3", "size=10", "range=2"]),
        ("leader.labs", &["n=5"]),
        ("leader.labs", &["n=7"]),
        ("twophase.labs", &["workers=2"]),
        ("twophase.labs", &["workers=3"]),
        ("twophasecommit.labs", &["workers=2"]),
        ("philosophers.labs", &["n=5"]),
    ];
    for (file, externs) in runs {
        let m = load(&shared(&format!("benchmarks/{file}")), externs);
        assert!(m.n_agents() >= 2, "{file}");
        assert!(!m.properties.is_empty(), "{file}");
    }
}

#[test]
fn semantics_cases_resolve() {
    let dir = shared("tests/cases");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "labs") || path.ends_with("wrongarrow.labs") {
            continue;
        }
        for externs in case_externs(&path) {
            let refs: Vec<&str> = externs.iter().map(String::as_str).collect();
            load(&path, &refs);
            n += 1;
        }
    }
    assert!(n >= 25, "only {n} cases found");
}

#[test]
fn examples_resolve() {
    let dir = fixtures::examples();
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "labs") {
            continue;
        }
        for externs in case_externs(&path) {
            let refs: Vec<&str> = externs.iter().map(String::as_str).collect();
            load(&path, &refs);
            n += 1;
        }
    }
    assert!(n >= 6, "only {n} example runs found");
}

/// D1: `spawn = Yes: 2, No: 3` gives No = 0..2 and Yes = 3..4.
#[test]
fn id_layout_is_by_bytewise_type_name() {
    let src = "system {\n  extern = _yes, _no\n  spawn = Yes: _yes, No: _no\n}\n\
               agent Yes {\n  Behavior = Skip\n}\nagent No {\n  Behavior = Skip\n}\ncheck {\n}\n";
    let parsed = parse(src);
    let (m, _) = resolve(parsed.spec.as_ref().unwrap(), src, &parse_externs(&["yes=2", "no=3"]).unwrap()).unwrap();
    let layout: Vec<(&str, usize, usize)> =
        m.agent_types.iter().map(|t| (t.name.as_str(), t.first_id, t.first_id + t.count - 1)).collect();
    assert_eq!(layout, vec![("No", 0, 2), ("Yes", 3, 4)]);

    // Upper case sorts before lower case, digits before letters (byte order).
    let src = "system {\n  spawn = b: 1, Proc2: 1, Proc1: 1, B: 1\n}\n".replace("b: 1, ", "");
    let src = format!(
        "{src}agent Proc2 {{\n  Behavior = Skip\n}}\nagent Proc1 {{\n  Behavior = Skip\n}}\nagent B {{\n  Behavior = Skip\n}}\ncheck {{\n}}\n"
    );
    let parsed = parse(&src);
    let (m, _) = resolve(parsed.spec.as_ref().unwrap(), &src, &Default::default()).unwrap();
    let names: Vec<&str> = m.agent_types.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, vec!["B", "Proc1", "Proc2"]);
    assert_eq!(m.type_of(2), 2);
}

/// The twophase models need `Coord` (alphabetically first) to be agent 0.
#[test]
fn twophase_coordinator_is_agent_zero() {
    let m = load(&shared("benchmarks/twophase.labs"), &["workers=3"]);
    assert_eq!(m.agent_types[0].name, "Coord");
    assert_eq!(m.agent_types[0].ids(), 0..1);
    assert_eq!(m.agent_types[1].ids(), 1..4);
}

#[test]
fn behaviours_have_the_expected_control_states() {
    // leader: `leader > id -> leader <~ id; Behavior` is one program point with one action.
    let m = load(&shared("benchmarks/leader.labs"), &["n=3"]);
    let (b, _) = compile_all(&m).unwrap();
    assert_eq!((b[0].states.len(), b[0].edge_count()), (1, 1));
    // philosophers: 8 actions in sequence, then a jump back: 8 program points, 8 edges.
    let m = load(&shared("benchmarks/philosophers.labs"), &["n=3"]);
    let (b, _) = compile_all(&m).unwrap();
    assert_eq!((b[0].states.len(), b[0].edge_count()), (8, 8));
    // guard_par: start, (x done, y pending), (x pending, y done), terminated.
    let m = load(&shared("tests/cases/guard_par.labs"), &[]);
    let (b, _) = compile_all(&m).unwrap();
    assert_eq!((b[0].states.len(), b[0].edge_count()), (4, 4));
    // nil: `(Nil || a <-- 1); a <-- 2`: start, then the Nil branch alone (no edge).
    let m = load(&shared("tests/cases/nil.labs"), &[]);
    let (b, _) = compile_all(&m).unwrap();
    assert_eq!((b[0].states.len(), b[0].edge_count()), (2, 1));
}

/// `undef` and `id` start initialisers, never declarations (corpus `ants.labs`).
#[test]
fn tuple_initialisers_may_be_undef_or_id() {
    let src = "system {\n  spawn = A: 2\n}\nstigmergy S {\n  link = true\n  p, q, r: undef, undef, undef\n  s, t: 1, id\n}\n\
               agent A {\n  stigmergies = S\n  Behavior = Skip\n}\ncheck {\n}\n";
    let parsed = parse(src);
    assert!(!parsed.diagnostics.has_errors(), "{:?}", parsed.diagnostics);
    let (m, _) = resolve(parsed.spec.as_ref().unwrap(), src, &Default::default()).unwrap();
    let sizes: Vec<usize> = m.tuples.iter().map(|t| t.vars.len()).collect();
    assert_eq!(sizes, vec![3, 2]);
    // A `,` between two tuples is still caught.
    let bad = "system {\n  spawn = A: 1\n}\nstigmergy S {\n  link = true\n  p: 0, q: 1\n}\nagent A {\n  Behavior = Skip\n}\ncheck {\n}\n";
    let d = parse(bad).diagnostics;
    assert!(d.items.iter().any(|x| x.message.contains("found a new declaration")), "{d:?}");
}
