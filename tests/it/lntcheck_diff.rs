//! Differential tests: the native engine and the `lnt` back end (the emitted LNT program run by
//! labs's own interpreter) must agree on verdicts, reachable LAbS valuations and counterexamples.

use crate::fixtures;
use fixtures::{bench, example as ex};

use crate::engine_common;
use crate::tier;
use engine_common::*;
use labs::lnt::Dialect;
use labs::lntcheck::diff::differential;

fn case(path: &str, externs: &[&str]) {
    let (m, b) = load(path, externs);
    let stem = std::path::Path::new(path).file_stem().unwrap().to_string_lossy().into_owned();
    for fair in [false, true] {
        for dialect in [Dialect::V2025, Dialect::V2023] {
            if dialect == Dialect::V2023 && fair {
                continue;
            }
            let r = differential(&m, &b, &stem, fair, dialect, Some(3_000_000))
                .unwrap_or_else(|e| panic!("{path} {externs:?} fair={fair}: {e}"));
            eprintln!(
                "{stem} {externs:?} fair={fair}: native {} states, {} valuations; lnt {} LTS states, {} LAbS states, {} valuations; verdicts {:?}",
                r.native_states,
                r.native_valuations,
                r.lnt_lts_states,
                r.lnt_labs_states,
                r.lnt_valuations,
                r.lnt.iter().map(|(p, v)| format!("{p}={}", v.as_str())).collect::<Vec<_>>()
            );
            assert!(r.problems.is_empty(), "{path} {externs:?} fair={fair}: {:#?}", r.problems);
            assert_eq!(r.native.len(), r.lnt.len());
        }
    }
}

#[test]
fn leader2() {
    case(&bench("leader.labs"), &["n=2"]);
}
#[test]
fn leader3() {
    case(&bench("leader.labs"), &["n=3"]);
}
#[test]
fn philosophers3() {
    case(&bench("philosophers.labs"), &["n=3"]);
}
#[test]
fn twophase2() {
    if !tier::slow("twophase workers=2, about 10 s") {
        return;
    }
    case(&bench("twophase.labs"), &["workers=2"]);
}
#[test]
fn twophasecommit2() {
    if !tier::slow("twophasecommit workers=2, about 10 s") {
        return;
    }
    case(&bench("twophasecommit.labs"), &["workers=2"]);
}
#[test]
fn flock2() {
    if !tier::slow("flock birds=2 grid=3, about 12 s (ex_flocking runs the same grid)") {
        return;
    }
    case(&bench("flock.labs"), &["birds=2", "delta=1", "grid=3"]);
}
#[test]
fn formation2() {
    case(&bench("formation.labs"), &["n=2", "range=2", "size=3"]);
}
#[test]
fn ex_counter() {
    case(&ex("counter.labs"), &["n=2", "atomic=0"]);
    case(&ex("counter.labs"), &["n=2", "atomic=1"]);
}
#[test]
fn ex_leader() {
    case(&ex("leader.labs"), &["n=2"]);
}
#[test]
fn ex_majority() {
    case(&ex("majority.labs"), &["yes=1", "no=1"]);
}
#[test]
fn ex_philosophers() {
    case(&ex("philosophers.labs"), &["n=2", "asym=0"]);
    case(&ex("philosophers.labs"), &["n=2", "asym=1"]);
}
#[test]
fn ex_twophase() {
    case(&ex("twophase.labs"), &["workers=2"]);
}
#[test]
fn ex_flocking() {
    case(&ex("flocking.labs"), &["birds=2", "delta=1", "grid=3"]);
}
/// `pos of (id - 1)` read by agent 0 under a guard `id > 0`: the remote-read check compares
/// ids as integers, so it disables the step instead of raising `IntToNat` of -1.
#[test]
fn ex_line() {
    case(&ex("line.labs"), &["n=2", "gap=1", "size=3"]);
}
