//! Checking on the fly: when every property checked is an `always` or a `finally` property,
//! the native engine stops as soon as each one is violated (for `always` with the
//! counterexample the exhaustive run gives, a shortest one), whatever the number of threads;
//! otherwise it explores everything.

use crate::engine_common::{load, load_text, replay_all, verdict};
use crate::fixtures::{self, labs, path_str as shared};
use labs::engine::{VerifyOptions, VerifyReport, verify};

fn check(
    m: &labs::model::Model,
    b: &[labs::behaviour::Behaviour],
    props: &[&str],
    threads: usize,
    exhaustive: bool,
) -> VerifyReport {
    let opts = VerifyOptions {
        properties: Some(props.iter().map(|p| p.to_string()).collect()),
        threads,
        check_analysis: true,
        exhaustive,
        ..Default::default()
    };
    verify(m, b, &opts).expect("no run-time error")
}

/// leader.labs: every node starts with `leader = n`; node 0 writes 0 and propagates it to
/// all (link = true), after which no node holds a value other than 0. No shorter path
/// violates `LeaderNot0` (any other write is of an id above 0), so the shortest
/// counterexample has two steps, found among the first few levels of a space of millions.
#[test]
fn a_shallow_violation_stops_the_search_on_one_and_two_threads() {
    let (m, b) = load(&shared("benchmarks/leader.labs"), &["n=8"]);
    let one = check(&m, &b, &["LeaderNot0"], 1, false);
    let two = check(&m, &b, &["LeaderNot0"], 2, false);
    for r in [&one, &two] {
        assert_eq!(verdict(r, "LeaderNot0"), "violated");
        assert!(r.stats.decided_early && !r.stats.complete);
        assert!(r.stats.states < 2_000, "explored {} states", r.stats.states);
        assert_eq!(r.results[0].trace.as_ref().unwrap().steps.len(), 2);
        assert!(r.stopped.is_none(), "no bound was met");
        replay_all(&m, &b, r);
    }
    assert_eq!(one.results[0].trace, two.results[0].trace);
}

#[test]
fn the_counterexample_is_the_exhaustive_runs() {
    let (m, b) = load(&shared("benchmarks/leader.labs"), &["n=4"]);
    let full = check(&m, &b, &["LeaderNot0"], 1, true);
    assert!(full.stats.complete && !full.stats.decided_early);
    for threads in [1, 2] {
        let otf = check(&m, &b, &["LeaderNot0"], threads, false);
        assert_eq!(otf.results[0].trace, full.results[0].trace);
        assert!(otf.stats.states < full.stats.states);
    }
}

const TWO_INVARIANTS: &str = "system {\n  environment = x: 0\n  spawn = P: 2\n}\n\
    agent P {\n  Behavior = x < 5 -> x <-- x + 1; Behavior\n}\n\
    check {\n  Small = always x < 3\n  Bounded = always x <= 5\n  Reaches = finally x = 5\n}\n";

/// `Bounded` holds (x never passes 5), so the search must go on to the end even though
/// `Small` is violated at depth 3.
#[test]
fn a_property_that_holds_needs_the_whole_space() {
    let (m, b) = load_text(TWO_INVARIANTS, &[]).unwrap();
    let full = check(&m, &b, &["Small", "Bounded"], 1, true);
    let r = check(&m, &b, &["Small", "Bounded"], 2, false);
    assert_eq!((verdict(&r, "Small"), verdict(&r, "Bounded")), ("violated", "holds"));
    assert!(r.stats.complete && !r.stats.decided_early);
    assert_eq!(r.stats.states, full.stats.states);
    assert_eq!(r.results[0].trace.as_ref().unwrap().steps.len(), 3);
}

/// A `finally` property needs the whole graph: the violated `always` beside it is still
/// decided, and so is the `finally` (x reaches 5 on every path and stays there).
#[test]
fn always_beside_finally_decides_both() {
    let (m, b) = load_text(TWO_INVARIANTS, &[]).unwrap();
    let r = check(&m, &b, &["Small", "Reaches"], 1, false);
    assert_eq!((verdict(&r, "Small"), verdict(&r, "Reaches")), ("violated", "holds"));
    assert!(r.stats.complete);
}

#[test]
fn the_cli_says_it_stopped_early_and_exhaustive_explores_everything() {
    let spec = shared("benchmarks/leader.labs");
    let o = labs(&["verify", &spec, "n=5", "--property", "LeaderNot0", "--json"]);
    assert_eq!(o.status.code(), Some(10), "{}", fixtures::stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((v["stats"]["decided_early"].as_bool(), v["stats"]["complete"].as_bool()), (Some(true), Some(false)));
    let o = labs(&["verify", &spec, "n=5", "--property", "LeaderNot0", "--json", "--exhaustive"]);
    let w: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((w["stats"]["decided_early"].as_bool(), w["stats"]["complete"].as_bool()), (Some(false), Some(true)));
    assert!(w["stats"]["states"].as_u64() > v["stats"]["states"].as_u64());
    assert_eq!(v["results"][0]["trace"], w["results"][0]["trace"]);
    let o = labs(&["verify", &spec, "n=5", "--property", "LeaderNot0"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("stopped as soon as every property was decided"));
    let o = labs(&["verify", &spec, "n=3", "--backend", "lnt", "--exhaustive"]);
    assert_eq!(o.status.code(), Some(2), "--exhaustive is the native engine's");
    // LeaderIs100 alone: the depth-first search decides it before any state is stored, and
    // the output counts the states it visited instead.
    let o = labs(&["verify", &spec, "n=5", "--property", "LeaderIs100"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        !out.contains("\n0 states,") && out.contains(" states visited by the depth-first search, none stored"),
        "{out}"
    );
    assert!(out.contains("decided by a depth-first search, before the exploration stored any state"));
}

/// `LeaderIs100` never holds (no node ever holds 100), and the system ends in a deadlock once
/// every node holds 0 and has propagated it: the last level of the breadth-first order, but
/// the first thing a depth-first search meets. The shortest such path has n + 1 = 9 steps
/// (node 0 writes 0, then each of the 8 nodes propagates the value it holds, as every receiver
/// of a newer value must); on the fly the path may be longer, never shorter.
#[test]
fn a_finally_violation_is_found_without_the_whole_space() {
    let (m, b) = load(&shared("benchmarks/leader.labs"), &["n=8"]);
    for threads in [1, 2] {
        let r = check(&m, &b, &["LeaderIs100", "LeaderNot0"], threads, false);
        assert_eq!((verdict(&r, "LeaderIs100"), verdict(&r, "LeaderNot0")), ("violated", "violated"));
        assert!(r.stats.decided_early && r.stats.states < 20_000, "explored {} states", r.stats.states);
        let t = r.results[0].trace.as_ref().unwrap();
        assert!(t.ends_in_deadlock);
        assert!(t.steps.len() >= 9, "{} steps", t.steps.len());
        replay_all(&m, &b, &r);
    }
    let small = load(&shared("benchmarks/leader.labs"), &["n=3"]);
    let full = check(&small.0, &small.1, &["LeaderIs100"], 1, true);
    assert_eq!(full.results[0].trace.as_ref().unwrap().steps.len(), 4, "n + 1 steps for n = 3");
}
