//! The explorer computes successors directly in packed form (`Stepper::successors_packed`:
//! messages are applied to the packed bytes). On every reachable state of a range of specs,
//! and at every slot width, this must give exactly the packed forms of `Stepper::successors`,
//! in the same order, or report the width that a successor needs.

use crate::engine_common;
use crate::fixtures;
use crate::tier;
use engine_common::*;
use fixtures::EXAMPLES;
use labs::behaviour::Behaviour;
use labs::engine::explore::{ExploreOptions, explore};
use labs::engine::state::{encode_into, width_needed};
use labs::engine::step::{PackedStop, Stepper, Work};
use labs::model::Model;

/// Reachable states by a plain breadth-first search over `successors` with a `HashSet`:
/// independent of the packed store and of the packed successors.
fn reference_states(stepper: &Stepper, initial: &[Vec<i32>]) -> usize {
    let mut seen: std::collections::HashSet<Vec<i32>> = initial.iter().cloned().collect();
    let mut queue: Vec<Vec<i32>> = seen.iter().cloned().collect();
    let mut w = Work::default();
    while let Some(s) = queue.pop() {
        stepper
            .successors(&s, &mut w, false, &mut |_, t| {
                if seen.insert(t.to_vec()) {
                    queue.push(t.to_vec());
                }
            })
            .expect("successors");
    }
    seen.len()
}

/// Returns (successors compared, widenings asked for).
fn check(model: &Model, behs: &[Behaviour], fair: bool, what: &str) -> (usize, usize) {
    let stepper = Stepper::new(model, behs, fair);
    let initial = stepper.initial_states().expect("initial states");
    let g = explore(&stepper, &initial, &ExploreOptions { threads: 1, ..Default::default() });
    assert!(g.error.is_none(), "{what}: {:?}", g.error);
    assert_eq!(g.states(), reference_states(&stepper, &initial), "{what}: reachable states");
    compare_successors(&stepper, &g, what)
}

/// Compares the packed successors of every state of `g` with the reference ones; returns
/// (successors compared, widenings asked for).
fn compare_successors(stepper: &Stepper, g: &labs::engine::explore::Graph, what: &str) -> (usize, usize) {
    let stride = stepper.lay.len;
    let (mut w1, mut w2) = (Work::default(), Work::default());
    let mut st = Vec::new();
    let (mut packed_states, mut widened) = (0, 0);
    for i in 0..g.states() as u32 {
        g.store.get_into(i, &mut st);
        let mut expected: Vec<Vec<i32>> = Vec::new();
        stepper.successors(&st, &mut w1, false, &mut |_, s| expected.push(s.to_vec())).expect("successors");
        for width in [1, 2, 4] {
            if width_needed(&st) > width {
                continue;
            }
            let mut parent = vec![0u8; stride * width];
            assert!(encode_into(&st, width, &mut parent));
            let mut out = Vec::new();
            let got = stepper.successors_packed(&st, &parent, width, &mut w2, &mut out);
            let need = expected.iter().map(|s| width_needed(s)).max().unwrap_or(1);
            match got {
                Ok(n) => {
                    assert!(need <= width, "{what}: state {i} width {width}: a successor needs {need}");
                    assert_eq!(n, expected.len(), "{what}: state {i} width {width}: successor count");
                    for (j, s) in expected.iter().enumerate() {
                        let mut enc = vec![0u8; stride * width];
                        assert!(encode_into(s, width, &mut enc));
                        assert_eq!(
                            &out[j * enc.len()..(j + 1) * enc.len()],
                            &enc[..],
                            "{what}: state {i} width {width}: successor {j}"
                        );
                    }
                    packed_states += n;
                }
                Err(PackedStop::Widen(n)) => {
                    assert!(need > width, "{what}: state {i} width {width}: asked to widen to {n} needlessly");
                    assert!(n > width, "{what}: state {i}: widen to {n} from {width}");
                    widened += 1;
                }
                Err(PackedStop::Error(e)) => panic!("{what}: state {i}: {}", e.0),
            }
        }
    }
    (packed_states, widened)
}

#[test]
fn packed_successors_match_the_reference_stepper_on_the_benchmarks() {
    let cases: &[(&str, &[&str], bool)] = &[
        ("leader.labs", &["n=4"], false),
        ("leader.labs", &["n=4"], true),
        ("philosophers.labs", &["n=3"], false),
        ("twophase.labs", &["workers=2"], false),
        ("twophasecommit.labs", &["workers=2"], false),
        ("formation.labs", &["n=2", "size=4", "range=1"], true),
        ("flock.labs", &["birds=2", "grid=3", "delta=1"], true),
    ];
    for (file, externs, fair) in cases {
        let (m, b) = load(&format!("{BENCH}/{file}"), externs);
        let (n, _) = check(&m, &b, *fair, &format!("{file} {externs:?} fair={fair}"));
        assert!(n > 0, "{file}: no successor checked");
    }
}

#[test]
fn packed_successors_match_on_the_semantics_cases() {
    let mut checked = 0;
    for entry in std::fs::read_dir(CASES).expect("semantics cases") {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "labs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        // Cases that need externs or that stop with a run-time error are covered elsewhere.
        let Ok((m, b)) = load_text(&text, &[]) else { continue };
        let stepper = Stepper::new(&m, &b, false);
        let Ok(initial) = stepper.initial_states() else { continue };
        let g = explore(&stepper, &initial, &ExploreOptions { threads: 1, ..Default::default() });
        if g.error.is_some() {
            continue;
        }
        for fair in [false, true] {
            check(&m, &b, fair, &path.display().to_string());
        }
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} semantics cases checked");
}

/// Nine tuples: a write of tuple 7 or 8 sets a pending bit that no longer fits in one byte,
/// so the step must ask for wider slots.
#[test]
fn a_step_that_sets_a_high_pending_bit_asks_for_wider_slots() {
    let text = "system {\n  spawn = N: 2\n}\n\
                stigmergy S {\n  link = true\n  a: 0\n  b: 0\n  c: 0\n  d: 0\n  e: 0\n  f: 0\n  g: 0\n  h: 0\n  i: 0\n}\n\
                agent N {\n  stigmergies = S\n  Behavior = i <~ 1; h <~ 1; a <~ 1\n}\ncheck {\n}\n";
    let (m, b) = load_text(text, &[]).expect("loads");
    // `check` also compares the explorer's count (it starts at one byte per slot and must
    // widen) with the reference search.
    let (n, widened) = check(&m, &b, false, "nine tuples");
    assert!(n > 0 && widened > 0, "{n} successors, {widened} widenings");
    let stepper = Stepper::new(&m, &b, false);
    let g = explore(&stepper, &stepper.initial_states().unwrap(), &ExploreOptions { threads: 2, ..Default::default() });
    assert!(g.store.width() > 1, "the working form should have widened");
}

/// With 64 holders or more, ranks no longer fit the `u64` rank set of the fast path, and
/// messages take the general one: both must agree with the reference stepper. (The fast path
/// is also every other test's; the general one is 64's, in the default tier.)
#[test]
fn messages_to_many_holders_match_the_reference_stepper() {
    let mut holders = vec![64];
    if tier::slow("63 and 70 holders, about 8 s") {
        holders.extend([63, 70]);
    }
    for n in holders {
        let text = format!(
            "system {{\n  spawn = N: {n}\n}}\n\
             stigmergy S {{\n  link = true\n  x: 0\n}}\n\
             agent N {{\n  stigmergies = S\n  Behavior = x <~ id + 1\n}}\ncheck {{\n}}\n"
        );
        let (m, b) = load_text(&text, &[]).expect("loads");
        let stepper = Stepper::new(&m, &b, false);
        let initial = stepper.initial_states().expect("initial states");
        let opts = ExploreOptions { threads: 1, max_states: Some(3000), ..Default::default() };
        let g = explore(&stepper, &initial, &opts);
        assert!(g.error.is_none());
        let (compared, _) = compare_successors(&stepper, &g, &format!("{n} holders"));
        assert!(compared > 10_000, "{n} holders: only {compared} successors compared");
    }
}

/// Batches large enough to be cut into several chunks (more than 1,024 parents) and taken
/// by several workers give exactly the sequential graph: same ids (so the same packed
/// state at each id), BFS parents and successor lists.
#[test]
fn chunked_parallel_exploration_builds_the_sequential_graph() {
    for (file, externs) in [("leader.labs", ["n=7"]), ("twophase.labs", ["workers=3"])] {
        let (m, b) = load(&format!("{BENCH}/{file}"), &externs);
        let stepper = Stepper::new(&m, &b, false);
        let initial = stepper.initial_states().unwrap();
        let opts = |threads| ExploreOptions { threads, keep_edges: true, ..Default::default() };
        let g1 = explore(&stepper, &initial, &opts(1));
        assert!(g1.states() > 20_000, "{file}: too small to need chunks");
        for threads in [2, 3] {
            let g = explore(&stepper, &initial, &opts(threads));
            assert_eq!(g.states(), g1.states(), "{file} threads={threads}");
            assert_eq!(g.parent, g1.parent, "{file} threads={threads}: parents");
            assert_eq!(g.succ_off, g1.succ_off, "{file} threads={threads}: successor offsets");
            assert_eq!(g.succ, g1.succ, "{file} threads={threads}: successors");
            for i in 0..g.states() as u32 {
                assert_eq!(g.store.packed(i), g1.store.packed(i), "{file} threads={threads}: state {i}");
            }
        }
    }
}

/// The compiled steps and links (`fast`) must be what the explorer uses on the benchmarks:
/// by reading the specs, every edge of philosophers (array elements indexed by `id` and
/// `(id + 1) % n`), leader, twophase (`agree = id - 1`, `min(agree + 1, n)`), formation
/// (`max`, `min`, `_size - 1`) and flock (`(x + dirx) % grid`) is a guarded simultaneous
/// assignment with constant indices, and every link (formation, flock) reads only `c1`'s and
/// `c2`'s scalars: all of them compile. The specs' packed successors are compared with the
/// reference above, so these counts say the comparison covered the compiled paths.
#[test]
fn the_benchmarks_take_the_compiled_paths() {
    let cases: &[(&str, &[&str], usize)] = &[
        ("philosophers.labs", &["n=3"], 0),
        ("leader.labs", &["n=4"], 0),
        ("twophase.labs", &["workers=2"], 0),
        ("twophasecommit.labs", &["workers=2"], 0),
        // Two tuples with links (Left, Right), 2 × 2 (sender, receiver) pairs each.
        ("formation.labs", &["n=2", "size=4", "range=1"], 2 * 2 * 2),
        // One tuple (dirx, diry) with a link, 2 × 2 pairs.
        ("flock.labs", &["birds=2", "grid=3", "delta=1"], 2 * 2),
    ];
    for (file, externs, pairs) in cases {
        let (m, b) = load(&format!("{BENCH}/{file}"), externs);
        let c = Stepper::new(&m, &b, false).compiled_counts();
        assert!(c.edges > 0, "{file}: no edges");
        assert_eq!(c.compiled_edges, c.edges, "{file}: edges without a compiled form");
        assert_eq!(c.link_pairs, *pairs, "{file}: link pairs");
        assert_eq!(c.compiled_link_pairs, *pairs, "{file}: links without a compiled form");
    }
    // The majority example observes `op of [0 .. n]` in a block: nondeterminism, which only
    // the evaluator handles.
    let (m, b) = load(&format!("{EXAMPLES}/majority.labs"), &["yes=1", "no=2"]);
    let c = Stepper::new(&m, &b, false).compiled_counts();
    assert_eq!(c.compiled_edges, 0, "majority: {c:?}");
}

/// The example specs and the specs of tests/specs (blocks, `pick`, nondeterminism next to
/// compiled edges) give the reference successors too.
#[test]
fn packed_successors_match_on_the_examples() {
    let cases: &[(&str, &[&str], bool)] = &[
        ("majority.labs", &["yes=1", "no=2"], false),
        ("philosophers.labs", &["n=3", "asym=1"], false),
        ("flocking.labs", &["birds=2", "grid=3", "delta=1"], true),
        ("line.labs", &["n=3", "size=5", "gap=2"], false),
        ("counter.labs", &["n=2", "atomic=1"], false),
        ("twophase.labs", &["workers=2"], false),
    ];
    let mut checked = 0;
    for (file, externs, fair) in cases {
        let path = format!("{EXAMPLES}/{file}");
        let text = std::fs::read_to_string(&path).unwrap();
        let externs: Vec<String> = externs.iter().map(|s| s.to_string()).collect();
        let (m, b) = load_text(&text, &externs).expect("loads");
        let stepper = Stepper::new(&m, &b, *fair);
        let initial = stepper.initial_states().expect("initial states");
        let opts = ExploreOptions { threads: 1, max_states: Some(20_000), ..Default::default() };
        let g = explore(&stepper, &initial, &opts);
        assert!(g.error.is_none(), "{path}: {:?}", g.error);
        let (n, _) = compare_successors(&stepper, &g, &path);
        assert!(n > 0, "{path}: no successor checked");
        checked += 1;
    }
    for name in ["distinct_reads.labs", "majority_pick.labs"] {
        let path = fixtures::path(&format!("tests/specs/{name}"));
        let text = std::fs::read_to_string(&path).unwrap();
        let (m, b) = load_text(&text, &[]).expect("loads");
        for fair in [false, true] {
            check(&m, &b, fair, &format!("{name} fair={fair}"));
        }
        checked += 1;
    }
    assert_eq!(checked, 8);
}

/// A compiled step or link that meets a run-time error hands over to the evaluator, so the
/// explorer reports the reference's error (semantics D9, messages of `engine::eval`): the
/// first state whose expansion fails is the one the reference search meets first, with the
/// same message.
#[test]
fn run_time_errors_in_compiled_steps_and_links_are_the_evaluators() {
    let step = "system {\n  spawn = N: 1\n}\n\
                agent N {\n  interface = x: 1\n  Behavior = x > 0 -> x <- x * 1000; Behavior\n}\ncheck {\n}\n";
    let link = "system {\n  spawn = N: 2\n}\n\
                stigmergy S {\n  link = x of c1 / (x of c2 - x of c1) > 0\n  s: 0\n}\n\
                agent N {\n  interface = x: 0\n  stigmergies = S\n  Behavior = s <~ 1\n}\ncheck {\n}\n";
    // 1, 1000, 10^6, 10^9, then 10^12 overflows; both agents have x = 0, so the link
    // divides by zero on the first message.
    for (text, message, compiled_links) in
        [(step, "arithmetic overflow (in a step of N 0)", 0), (link, "division by zero (in a link predicate)", 4)]
    {
        let (m, b) = load_text(text, &[]).expect("loads");
        let stepper = Stepper::new(&m, &b, false);
        let c = stepper.compiled_counts();
        assert_eq!((c.compiled_edges, c.compiled_link_pairs), (c.edges, compiled_links), "{c:?}");
        let g = explore(&stepper, &stepper.initial_states().unwrap(), &ExploreOptions::default());
        let (at, got) = g.error.expect("a run-time error");
        let mut st = Vec::new();
        g.store.get_into(at, &mut st);
        let reference = stepper.successors(&st, &mut Work::default(), false, &mut |_, _| {}).expect_err("reference");
        assert_eq!(got, reference.0);
        assert_eq!(got, message);
    }
}
