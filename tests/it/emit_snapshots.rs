//! Snapshots of every file `labs emit` writes, for the benchmarks and the semantics cases,
//! with free and round-robin scheduling.

use crate::fixtures;
use fixtures::emit_files;

use labs::lnt::{Dialect, EmittedFile};

/// All files of one run in one snapshot, each under a header line.
fn bundle(files: &[EmittedFile]) -> String {
    let mut s = String::new();
    for f in files {
        s += &format!("======== {} ========\n{}", f.name, f.contents);
    }
    s
}

fn check(name: &str, file: &str, externs: &[&str]) {
    for fair in [false, true] {
        let files = emit_files(file, externs, fair, Dialect::V2025).unwrap();
        // Deterministic: a second run gives the same bytes.
        assert_eq!(files, emit_files(file, externs, fair, Dialect::V2025).unwrap());
        let snap = format!("{name}{}", if fair { "_fair" } else { "" });
        insta::assert_snapshot!(snap, bundle(&files));
    }
}

#[test]
fn leader() {
    check("leader3", "benchmarks/leader.labs", &["n=3"]);
}

#[test]
fn flock() {
    check("flock", "benchmarks/flock.labs", &["birds=3", "grid=5", "delta=5"]);
}

#[test]
fn formation() {
    check("formation", "benchmarks/formation.labs", &["n=3", "size=10", "range=2"]);
}

#[test]
fn philosophers() {
    check("philosophers3", "benchmarks/philosophers.labs", &["n=3"]);
}

#[test]
fn twophase() {
    check("twophase2", "benchmarks/twophase.labs", &["workers=2"]);
}

#[test]
fn twophasecommit() {
    check("twophasecommit2", "benchmarks/twophasecommit.labs", &["workers=2"]);
}

/// The semantics cases the encoding accepts (the others are refused: see `emit_fragments.rs`).
#[test]
fn semantics_cases() {
    for case in [
        "arith",
        "assign",
        "block_writes",
        "confirm",
        "divzero",
        "guard_par",
        "guard_scope",
        "holders",
        "ids",
        "link",
        "ltl_deadlock",
        "modalities",
        "nil",
        "nondet",
        "of_read",
        "par_skip",
        "precedence",
        "recursion",
        "roundrobin",
        "tuple_joint",
        "tuple_split",
        "undef",
        "undef_exists",
        "undef_link",
        "zc_mentions",
    ] {
        check(&format!("case_{case}"), &format!("tests/cases/{case}.labs"), &[]);
    }
    check("case_leader2", "tests/cases/leader2.labs", &["n=3"]);
}

#[test]
fn dialect_2023() {
    let files = emit_files("benchmarks/leader.labs", &["n=3"], false, Dialect::V2023).unwrap();
    let lnt = &files[0].contents;
    assert!(lnt.contains("         select\n") && lnt.contains("end select;"));
    assert!(lnt.contains("array [0 .. 2] of Nat"));
    assert!(lnt.contains("eval st_Node_0_0 (id, !?I, !?L, !?E, !?r, !?U, 1);"));
    assert!(!lnt.contains(" alt") && !lnt.contains("..."));
    let new = emit_files("benchmarks/leader.labs", &["n=3"], false, Dialect::V2025).unwrap();
    assert!(new[0].contents.contains("array [0 ... 2] of Nat"));
    assert!(new[0].contents.contains("eval st_Node_0_0 (id, I?, L?, E?, r?, U?, 1);"));
    // Only the LNT program depends on the dialect (and the header of the others).
    assert_eq!(files.len(), new.len());
}
