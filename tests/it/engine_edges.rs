//! The successor lists kept, dropped part-way through the exploration (a budget the graph
//! passes), or never kept: the checks read kept lists or recompute successors, and every
//! verdict and counterexample must be the same, on one and two threads, with and without
//! checking on the fly.

use crate::engine_common::{load, load_text, replay_all};
use crate::fixtures::path_str as shared;
use labs::behaviour::Behaviour;
use labs::engine::{EdgePolicy, EdgeUse, VerifyOptions, VerifyReport, verify};
use labs::model::Model;

/// Scoped patterns and linear-time formulas beside the other modalities, on a space with
/// cycles and deadlocks several BFS levels deep.
const SCOPED_AND_LTL: &str = "system {\n  environment = x: 0\n  spawn = N: 2\n}\n\
    stigmergy S {\n  link = true\n  v: 2\n}\n\
    agent N {\n  interface = seen: 0\n  stigmergies = S\n  \
    Behavior = (v > id -> v <~ id) ++ (x < 3 -> x <-- (x + 1 + id) % 4) ++ \
    (seen < 2 -> seen <- seen + 1); Behavior\n}\n\
    check {\n  F = finally x = 3\n  G = fairly_inf x = 0\n  H = fairly exists N a, seen of a = 2\n  \
    B = between (x = 1) and (x = 0), thereIs (v of 0 = 0)\n  \
    U = from (x = 1) until (x = 0), thereIs (seen of 0 > 0)\n  \
    L = always finally x = 0\n  R = always (x = 1 implies finally x = 3)\n}\n";

/// (path, externs) of the example specs, in instances with a few BFS levels each (leader and
/// flocking with levels wide enough to be shared out to the workers).
const EXAMPLES: &[(&str, &[&str])] = &[
    ("examples/leader.labs", &["n=5"]),
    ("examples/flocking.labs", &["birds=2", "grid=3", "delta=1"]),
    ("examples/philosophers.labs", &["n=3", "asym=0"]),
    ("examples/philosophers.labs", &["n=4", "asym=1"]),
    ("examples/majority.labs", &["yes=2", "no=2"]),
    ("examples/twophase.labs", &["workers=2"]),
    ("examples/counter.labs", &["n=3", "atomic=0"]),
];

fn run(m: &Model, b: &[Behaviour], threads: usize, exhaustive: bool, edges: EdgePolicy) -> VerifyReport {
    let opts = VerifyOptions { threads, exhaustive, edges, ..Default::default() };
    verify(m, b, &opts).expect("no run-time error")
}

/// Each property's name, verdict and counterexample.
fn outcomes(r: &VerifyReport) -> Vec<(String, &'static str, Option<labs::trace::Trace>)> {
    r.results.iter().map(|x| (x.property.clone(), x.verdict.as_str(), x.trace.clone())).collect()
}

/// Every policy against `--edges keep` on `m`.
fn agree(name: &str, m: &Model, b: &[Behaviour]) {
    for threads in [1, 2] {
        for exhaustive in [true, false] {
            let kept = run(m, b, threads, exhaustive, EdgePolicy::Keep);
            assert_eq!(kept.stats.edges, EdgeUse::Chosen { kept: true }, "{name}");
            replay_all(m, b, &kept);
            let half = kept.stats.graph_bytes / 2;
            for policy in [EdgePolicy::Recompute, EdgePolicy::Within(1), EdgePolicy::Within(half)] {
                let other = run(m, b, threads, exhaustive, policy);
                let what = format!("{name}, {threads} threads, exhaustive {exhaustive}, {policy:?}");
                assert_eq!(outcomes(&other), outcomes(&kept), "{what}");
                assert_eq!(
                    (other.stats.states, other.stats.transitions, other.stats.deadlocks),
                    (kept.stats.states, kept.stats.transitions, kept.stats.deadlocks),
                    "{what}"
                );
                match (policy, other.stats.edges) {
                    (EdgePolicy::Recompute, e) => assert_eq!(e, EdgeUse::Chosen { kept: false }, "{what}"),
                    // Past a budget of one byte, the lists go after the first BFS level: the
                    // rest of the exploration keeps none.
                    (EdgePolicy::Within(1), EdgeUse::OverBudget { budget_bytes: 1, at_states }) => {
                        assert!(at_states < other.stats.states, "{what}: dropped at {at_states}")
                    }
                    (EdgePolicy::Within(b), EdgeUse::OverBudget { budget_bytes, .. }) => {
                        assert_eq!(budget_bytes, b, "{what}")
                    }
                    (_, e) => panic!("{what}: {e:?}"),
                }
            }
        }
    }
}

#[test]
fn dropping_the_lists_mid_exploration_changes_no_verdict_or_counterexample() {
    for (path, externs) in EXAMPLES {
        let (m, b) = load(&shared(path), externs);
        agree(&format!("{path} {externs:?}"), &m, &b);
    }
    let (m, b) = load_text(SCOPED_AND_LTL, &[]).unwrap();
    agree("scoped and linear-time", &m, &b);
}

#[test]
fn auto_keeps_no_lists_for_invariants_only() {
    let (m, b) = load(&shared("examples/leader.labs"), &["n=3"]);
    let opts = VerifyOptions { properties: Some(vec!["NeverAgreed".into()]), exhaustive: true, ..Default::default() };
    let r = verify(&m, &b, &opts).unwrap();
    assert_eq!(r.stats.edges, EdgeUse::NotNeeded);
    // Without a memory bound, a property that reads successors keeps them.
    let r = verify(&m, &b, &VerifyOptions { exhaustive: true, ..Default::default() }).unwrap();
    assert_eq!(r.stats.edges, EdgeUse::WithinBudget { budget_bytes: None });
}
