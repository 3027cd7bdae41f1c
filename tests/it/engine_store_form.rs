//! The store's two forms (`--store`): states kept in the working form (fast), coded compact
//! from the start, or turned compact part-way through the exploration. The form is only a
//! matter of bytes: every count, verdict and counterexample must be the same, on one and two
//! threads, with and without the reduction, whether the checks read kept successor lists or
//! recompute successors from the store.

use crate::engine_common::{load, load_text, replay_all};
use crate::fixtures::path_str as shared;
use labs::behaviour::Behaviour;
use labs::engine::state::StorePolicy;
use labs::engine::{EdgePolicy, VerifyOptions, VerifyReport, verify};
use labs::model::Model;

/// (path, externs) of example specs with every modality among their properties, a few BFS
/// levels deep (leader and flocking with levels wide enough to be shared out to the workers).
const EXAMPLES: &[(&str, &[&str])] = &[
    ("examples/leader.labs", &["n=5"]),
    ("examples/flocking.labs", &["birds=2", "grid=3", "delta=1"]),
    ("examples/philosophers.labs", &["n=4", "asym=1"]),
    ("examples/majority.labs", &["yes=2", "no=2"]),
    ("examples/twophase.labs", &["workers=2"]),
];

/// Linear-time and `finally` properties over a counter that passes a byte (the working width
/// and, once compact, the fields widen after the switch) and a pending bit past the first
/// byte of its mask.
const WIDENING: &str = "system {\n  extern = _n\n  spawn = N: 2\n}\n\
    stigmergy S {\n  link = true\n  a: 0\n  b: 0\n  c: 0\n  d: 0\n  e: 0\n  f: 0\n  g: 0\n  h: 0\n  i: 0\n}\n\
    agent N {\n  interface = k: 0\n  stigmergies = S\n\
    Behavior = k < _n -> k <- k + 1; Behavior ++ k = _n -> i <~ 1; k <- 0; Behavior\n}\n\
    check {\n  F = finally exists N x, k of x = 150\n  A = always forall N x, k of x < 190\n  \
    L = always finally forall N x, i of x = 0\n}\n";

fn run(
    m: &Model,
    b: &[Behaviour],
    threads: usize,
    symmetry: bool,
    edges: EdgePolicy,
    store: StorePolicy,
) -> VerifyReport {
    let opts = VerifyOptions { threads, symmetry, edges, store, exhaustive: true, ..Default::default() };
    verify(m, b, &opts).expect("no run-time error")
}

/// Each property's name, verdict and counterexample.
type Results = Vec<(String, &'static str, Option<labs::trace::Trace>)>;

/// The results, and the counts (states, transitions, deadlocks).
fn outcomes(r: &VerifyReport) -> (Results, [u64; 3]) {
    let results = r.results.iter().map(|x| (x.property.clone(), x.verdict.as_str(), x.trace.clone())).collect();
    (results, [r.stats.states, r.stats.transitions, r.stats.deadlocks])
}

/// Compact from the start and compact from a third of the states on, against the fast form.
fn agree(name: &str, m: &Model, b: &[Behaviour]) {
    for threads in [1, 2] {
        for symmetry in [false, true] {
            for edges in [EdgePolicy::Keep, EdgePolicy::Recompute] {
                let what = format!("{name}, {threads} threads, reduction {symmetry}, {edges:?}");
                let fast = run(m, b, threads, symmetry, edges, StorePolicy::Fast);
                assert!(!fast.stats.compact_store && fast.stats.compacted_at.is_none(), "{what}");
                replay_all(m, b, &fast);
                let third = fast.stats.states / 3;
                for store in [StorePolicy::Compact, StorePolicy::CompactPast(third)] {
                    let other = run(m, b, threads, symmetry, edges, store);
                    assert_eq!(outcomes(&other), outcomes(&fast), "{what}, {store:?}");
                    assert!(other.stats.compact_store, "{what}, {store:?}");
                    match (store, other.stats.compacted_at) {
                        (StorePolicy::Compact, None) => {}
                        // After the batch that passed a third of the states: part-way.
                        (StorePolicy::CompactPast(n), Some(at)) => {
                            assert!(
                                at > n && at < other.stats.states,
                                "{what}: compact at {at} of {}",
                                other.stats.states
                            )
                        }
                        (_, at) => panic!("{what}, {store:?}: compacted at {at:?}"),
                    }
                }
            }
        }
    }
}

#[test]
fn turning_compact_mid_exploration_changes_no_count_verdict_or_counterexample() {
    for (path, externs) in EXAMPLES {
        let (m, b) = load(&shared(path), externs);
        agree(&format!("{path} {externs:?}"), &m, &b);
    }
    let (m, b) = load_text(WIDENING, &["n=200".to_string()]).unwrap();
    agree("widening", &m, &b);
}

#[test]
fn auto_stays_fast_without_a_memory_bound() {
    let (m, b) = load(&shared("examples/leader.labs"), &["n=4"]);
    let r = run(&m, &b, 1, true, EdgePolicy::Recompute, StorePolicy::Auto);
    assert!(!r.stats.compact_store && r.stats.compacted_at.is_none());
}
