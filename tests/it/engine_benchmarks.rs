//! Known verdicts of the benchmark specs at small parameters (benchmarks/README.md),
//! thread-count independence, simulation reproducibility.

use crate::engine_common;
use crate::fixtures;
use engine_common::*;
use fixtures::bench;
use labs::engine::{SimulateOptions, simulate};

#[test]
fn leader3_free() {
    let (m, b) = load(&bench("leader.labs"), &["n=3"]);
    let rep = run(&m, &b, false, 1).unwrap();
    assert_eq!(verdict(&rep, "LeaderIs0"), "holds");
    assert_eq!(verdict(&rep, "LeaderNot0"), "violated");
    assert_eq!(verdict(&rep, "LeaderIs100"), "violated");
    let t = rep.results.iter().find(|r| r.property == "LeaderIs100").unwrap().trace.as_ref().unwrap();
    assert!(t.ends_in_deadlock, "D12: LeaderIs100 is violated by a path to a deadlock");
    replay_all(&m, &b, &rep);
}

#[test]
fn leader3_fair() {
    let (m, b) = load(&bench("leader.labs"), &["n=3"]);
    let rep = run(&m, &b, true, 1).unwrap();
    assert_eq!(verdict(&rep, "LeaderIs0"), "violated");
    replay_all(&m, &b, &rep);
}

#[test]
fn philosophers3() {
    let (m, b) = load(&bench("philosophers.labs"), &["n=3"]);
    let rep = run(&m, &b, false, 1).unwrap();
    assert_eq!(verdict(&rep, "P1"), "violated");
    replay_all(&m, &b, &rep);
}

#[test]
fn twophasecommit2() {
    let (m, b) = load(&bench("twophasecommit.labs"), &["workers=2"]);
    let rep = run(&m, &b, false, 1).unwrap();
    assert_eq!(verdict(&rep, "NeverRollback"), "holds");
}

#[test]
fn twophase2() {
    let (m, b) = load(&bench("twophase.labs"), &["workers=2"]);
    let rep = run(&m, &b, false, 1).unwrap();
    assert_eq!(verdict(&rep, "InfCommits"), "holds");
}

#[test]
fn thread_count_independence() {
    for (file, ext, fair) in [
        ("leader.labs", "n=4", false),
        ("leader.labs", "n=4", true),
        ("philosophers.labs", "n=3", false),
        ("twophase.labs", "workers=2", false),
    ] {
        let (m, b) = load(&bench(file), &[ext]);
        let r1 = run(&m, &b, fair, 1).unwrap();
        for threads in [2, 3] {
            let r2 = run(&m, &b, fair, threads).unwrap();
            assert_eq!(
                (r1.stats.states, r1.stats.transitions, r1.stats.deadlocks),
                (r2.stats.states, r2.stats.transitions, r2.stats.deadlocks),
                "{file} {ext} fair={fair} threads={threads}"
            );
            for (a, c) in r1.results.iter().zip(&r2.results) {
                assert_eq!(a.verdict, c.verdict);
                // Same exploration order: the same counterexample.
                assert_eq!(a.trace, c.trace);
            }
        }
    }
}

#[test]
fn simulation_is_reproducible() {
    let (m, b) = load(&bench("leader.labs"), &["n=3"]);
    let opts = SimulateOptions { runs: 5, steps: 40, seed: 42, ..Default::default() };
    let a = simulate(&m, &b, &opts).unwrap();
    let c = simulate(&m, &b, &opts).unwrap();
    assert_eq!(a.runs.len(), 5);
    for (x, y) in a.runs.iter().zip(&c.runs) {
        assert_eq!(x.trace, y.trace);
        labs::trace::replay(&m, &b, &x.trace).unwrap();
        // LeaderNot0 (always) is violated at the latest once 0 has spread; LeaderIs0 is
        // satisfied when a run reaches the deadlock.
        if x.deadlock {
            let p = x.properties.iter().find(|p| p.property == "LeaderIs0").unwrap();
            assert_eq!(p.status, labs::engine::SimStatus::Satisfied);
        }
    }
    let other = simulate(&m, &b, &SimulateOptions { seed: 43, ..opts }).unwrap();
    assert!(a.runs.iter().zip(&other.runs).any(|(x, y)| x.trace != y.trace), "the seed matters");
}

#[test]
fn bounds_give_unknown() {
    let (m, b) = load(&bench("leader.labs"), &["n=5"]);
    let rep = labs::engine::verify(
        &m,
        &b,
        &labs::engine::VerifyOptions { max_states: Some(10), threads: 1, check_analysis: true, ..Default::default() },
    )
    .unwrap();
    assert_eq!(rep.stopped, Some(labs::engine::StopReason::MaxStates));
    assert_eq!(verdict(&rep, "LeaderIs0"), "unknown");
    // An invariant violation found in the explored part is still a violation.
    assert_eq!(verdict(&rep, "LeaderNot0"), "violated");
}

/// `labs verify` starts the threads before loading the model and hands them to the engine:
/// the results are those of a verification that starts its own, the same threads serve
/// several verifications, and the time their start took counts as exploration time.
#[test]
fn threads_started_beforehand_give_the_same_results() {
    use labs::engine::{VerifyOptions, Workers, verify};
    let (model, behs) = load(&format!("{BENCH}/leader.labs"), &["_n=4"]);
    let own = run(&model, &behs, false, 2).expect("verifies");
    let workers = std::sync::Arc::new(Workers::new(2));
    assert_eq!(workers.threads(), 2);
    for _ in 0..2 {
        let opts =
            VerifyOptions { threads: 2, workers: Some(workers.clone()), check_analysis: true, ..Default::default() };
        let rep = verify(&model, &behs, &opts).expect("verifies");
        let counts = |r: &labs::engine::VerifyReport| (r.stats.states, r.stats.transitions, r.stats.deadlocks);
        assert_eq!(counts(&rep), counts(&own));
        let verdicts = |r: &labs::engine::VerifyReport| r.results.iter().map(|p| p.verdict).collect::<Vec<_>>();
        assert_eq!(verdicts(&rep), verdicts(&own));
        assert!(rep.stats.seconds >= workers.start_cost().as_secs_f64(), "the threads' start is not counted");
        replay_all(&model, &behs, &rep);
    }
}
