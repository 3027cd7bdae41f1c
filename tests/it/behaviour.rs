//! Behaviour compilation on the cases where the reference tool goes wrong
//! (`reference/sliver-pipeline.md` §2): three or more parallel branches, and guards in front
//! of a recursive call. Checked on the compiled automaton and through the engine's counts.

use labs::behaviour::compile_all;
use labs::engine::{Verdict, VerifyOptions, verify};
use labs::model::resolve;
use labs::syntax::parse;

fn run(src: &str) -> (Vec<(usize, usize)>, labs::engine::VerifyReport) {
    let spec = parse(src).spec.expect("parses");
    let (model, _) = resolve(&spec, src, &Default::default()).expect("resolves");
    let (b, _) = compile_all(&model).expect("compiles");
    let sizes = b.iter().map(|b| (b.states.len(), b.edge_count())).collect();
    let report = verify(&model, &b, &VerifyOptions { threads: 1, check_analysis: true, ..Default::default() })
        .expect("verifies");
    (sizes, report)
}

/// Three branches, then a continuation: every subset of finished branches is a control
/// point (7 with at least one branch left, then `d <-- 1`, then termination); the sequel runs
/// only once all three have finished, whatever their order.
#[test]
fn three_parallel_branches_join_correctly() {
    let src = "system {\n  environment = a: 0; b: 0; c: 0; d: 0\n  spawn = P: 1\n}\nagent P {\n  \
               Behavior = (a <-- 1 || b <-- 1 || c <-- 1); d <-- 1\n}\ncheck {\n  \
               Joined = always d = 0 or (a = 1 and b = 1 and c = 1)\n  Ends = finally d = 1\n}\n";
    let (sizes, r) = run(src);
    assert_eq!(sizes, vec![(9, 13)]);
    // States: the 8 valuations of a, b, c with d = 0, then d = 1; edges 3*1 + 3*2 + 1*3 + 1.
    assert_eq!((r.stats.states, r.stats.transitions, r.stats.deadlocks), (9, 13, 1));
    assert!(r.results.iter().all(|x| x.verdict == Verdict::Holds));
}

/// Four branches, one of which loops: the others still run and the loop keeps going.
#[test]
fn a_looping_branch_does_not_block_its_siblings() {
    let src = "system {\n  environment = a: 0; b: 0; c: 0; t: 0\n  spawn = P: 1\n}\nagent P {\n  \
               Behavior = a <-- 1 || b <-- 1 || c <-- 1 || Loop\n  Loop = t <-- 1 - t; Loop\n}\ncheck {\n  \
               AllSet = fairly a = 1 and b = 1 and c = 1\n}\n";
    let (_, r) = run(src);
    // a, b, c each 0 or 1, t 0 or 1: 16 states, no deadlock.
    assert_eq!((r.stats.states, r.stats.deadlocks), (16, 0));
    assert_eq!(r.results[0].verdict, Verdict::Holds);
}

/// `g -> Behavior`: the guard constrains the first action of `Behavior` (the reference drops
/// it and loops for ever). x: 0 → 1 → 2 → 3, then the guard is false: a deadlock.
#[test]
fn guard_on_a_recursive_call_is_kept() {
    let src = "system {\n  environment = x: 0\n  spawn = P: 1\n}\nagent P {\n  \
               Behavior = x <-- x + 1; (x < 3 -> Behavior)\n}\ncheck {\n  Stops = always x <= 3\n}\n";
    let (sizes, r) = run(src);
    assert_eq!(sizes, vec![(2, 2)]);
    assert_eq!((r.stats.states, r.stats.transitions, r.stats.deadlocks), (4, 3, 1));
    assert_eq!(r.results[0].verdict, Verdict::Holds);
}

/// A guard in front of a choice guards the first action of every branch; a conditional
/// `=>` takes one skipping step when false.
#[test]
fn guarded_choice_and_conditional() {
    let src = "system {\n  environment = x: 0; y: 0\n  spawn = P: 1\n}\nagent P {\n  \
               Behavior = (x = 1 -> y <-- 1 ++ y <-- 2); Skip\n}\ncheck {\n}\n";
    let (sizes, r) = run(src);
    // Control points: the guarded choice (two edges, both guarded), `Skip`, termination.
    assert_eq!(sizes, vec![(3, 3)]);
    // x = 0: neither branch can start (the guard covers both): one state, a deadlock.
    assert_eq!((r.stats.states, r.stats.transitions, r.stats.deadlocks), (1, 0, 1));
    let src = "system {\n  environment = x: 0; y: 0\n  spawn = P: 1\n}\nagent P {\n  \
               Behavior = (x = 1 => y <-- 1); y <-- 2\n}\ncheck {\n  Two = finally y = 2\n}\n";
    let (sizes, r) = run(src);
    // start (two edges: the guarded action and the skipping step), then `y <-- 2`, then done.
    assert_eq!(sizes, vec![(3, 3)]);
    assert_eq!((r.stats.states, r.stats.transitions, r.stats.deadlocks), (3, 2, 1));
    assert_eq!(r.results[0].verdict, Verdict::Holds);
}
