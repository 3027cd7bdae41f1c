//! Symmetry reduction (docs/reductions.md): the same verdicts with and without it on every
//! spec the tests and the benchmark know, counterexamples that replay, the reduced counts
//! equal to the number of orbits computed by brute force over every permutation of the
//! unreduced graph's states, and the analysis accepting and refusing what it should.

use crate::engine_common;
use crate::fixtures;
use crate::orbits::check_orbits;
use crate::tier;
use engine_common::*;
use labs::behaviour::Behaviour;
use labs::engine::symmetry::{self, TypeSymmetry};
use labs::engine::{EngineError, VerifyReport};
use labs::model::Model;
use proptest::prelude::*;

/// Every `# case:` line of the semantics cases and the examples: (file, externs, fair).
fn case_instances() -> Vec<(String, Vec<String>, bool)> {
    let mut out = Vec::new();
    for dir in [fixtures::cases(), fixtures::examples(), fixtures::path("tests/specs")] {
        for f in fixtures::labs_files(&dir) {
            let text = std::fs::read_to_string(&f).unwrap();
            let mut lines: Vec<(Vec<String>, bool)> = text
                .lines()
                .filter_map(|l| l.strip_prefix("# case:"))
                .map(|rest| {
                    let args = rest.split_once("=>").map_or(rest, |(a, _)| a);
                    let words: Vec<String> = args.split_whitespace().map(String::from).collect();
                    let fair = words.iter().any(|w| w == "--fair");
                    (words.into_iter().filter(|w| w != "--fair").collect(), fair)
                })
                .collect();
            if lines.is_empty() {
                lines = vec![(vec![], false), (vec![], true)];
            }
            for (externs, fair) in lines {
                out.push((f.to_string_lossy().into_owned(), externs, fair));
            }
        }
    }
    // Benchmark instances small enough for a test, free and round-robin.
    let mut benchmarks = vec![
        ("flock.labs", vec!["birds=2", "grid=4", "delta=1"]),
        ("leader.labs", vec!["n=3"]),
        ("twophase.labs", vec!["workers=2"]),
        ("philosophers.labs", vec!["n=3"]),
    ];
    if tier::slow("flock birds=3 grid=3 delta=2, about 10 s") {
        benchmarks.push(("flock.labs", vec!["birds=3", "grid=3", "delta=2"]));
    }
    for (file, externs) in benchmarks {
        for fair in [false, true] {
            out.push((fixtures::bench(file), externs.iter().map(|s| s.to_string()).collect(), fair));
        }
    }
    out
}

/// Loads an instance; `None` for cases that are rejected statically (they test the front end).
fn load_instance(file: &str, externs: &[String]) -> Option<(Model, Vec<Behaviour>)> {
    load_text(&std::fs::read_to_string(file).unwrap(), externs).ok()
}

fn same_outcome(tag: &str, plain: &Result<VerifyReport, EngineError>, reduced: &Result<VerifyReport, EngineError>) {
    match (plain, reduced) {
        (Ok(p), Ok(r)) => {
            let vp: Vec<_> = p.results.iter().map(|x| (&x.property, x.verdict)).collect();
            let vr: Vec<_> = r.results.iter().map(|x| (&x.property, x.verdict)).collect();
            assert_eq!(vp, vr, "{tag}: verdicts differ with symmetry reduction");
            assert!(r.stats.states <= p.stats.states, "{tag}: more states with the reduction");
        }
        (Err(EngineError::Runtime { .. }), Err(EngineError::Runtime { .. })) => {}
        (p, r) => panic!("{tag}: outcome differs: {:?} vs {:?}", p.as_ref().err(), r.as_ref().err()),
    }
}

#[test]
fn every_instance_gets_the_same_verdicts_and_replayable_counterexamples() {
    let mut reduced_somewhere = 0;
    for (file, externs, fair) in case_instances() {
        let tag = format!("{file} {} {}", externs.join(" "), if fair { "--fair" } else { "" });
        let Some((model, behs)) = load_instance(&file, &externs) else { continue };
        let plain = run_with(&model, &behs, fair, false, 1);
        let reduced = run_with(&model, &behs, fair, true, 2);
        same_outcome(&tag, &plain, &reduced);
        match &reduced {
            Ok(r) => {
                replay_all(&model, &behs, r);
                if r.stats.reduction.is_some() {
                    reduced_somewhere += 1;
                    // One thread: the same counts and the same counterexamples.
                    let one = run_with(&model, &behs, fair, true, 1).unwrap();
                    assert_eq!(
                        (one.stats.states, one.stats.transitions),
                        (r.stats.states, r.stats.transitions),
                        "{tag}"
                    );
                    for (a, b) in one.results.iter().zip(&r.results) {
                        assert_eq!(a.trace.as_ref().map(|t| &t.steps), b.trace.as_ref().map(|t| &t.steps), "{tag}");
                    }
                }
            }
            Err(EngineError::Runtime { trace: Some(t), .. }) => {
                labs::trace::replay(&model, &behs, t).unwrap_or_else(|e| panic!("{tag}: error trace: {e}"))
            }
            Err(_) => {}
        }
    }
    // The instance list must exercise the reduction, or this test proves nothing.
    assert!(reduced_somewhere >= 5, "only {reduced_somewhere} instances were reduced");
}

#[test]
fn reduced_counts_are_the_numbers_of_orbits() {
    let mut instances: Vec<(&str, &[&str])> = vec![
        ("examples/majority.labs", &["yes=2", "no=3"]),
        ("examples/counter.labs", &["n=3", "atomic=0"]),
        ("examples/counter.labs", &["n=3", "atomic=1"]),
        ("examples/twophase.labs", &["workers=3"]),
        ("examples/flocking.labs", &["birds=3", "grid=2", "delta=1"]),
        ("tests/specs/majority_pick.labs", &[]),
        // Symmetries of values: the square's 8 symmetries, with and without agents'.
        ("benchmarks/flock.labs", &["birds=2", "grid=3", "delta=1"]),
        ("examples/flocking.labs", &["birds=2", "grid=3", "delta=1"]),
    ];
    if tier::slow("flock birds=3 grid=2 delta=1, about 40 s") {
        instances.push(("benchmarks/flock.labs", &["birds=3", "grid=2", "delta=1"]));
    }
    let mut checked = 0;
    for (file, externs) in instances {
        let externs: Vec<String> = externs.iter().map(|s| s.to_string()).collect();
        let (model, behs) = load_instance(&fixtures::path_str(file), &externs).unwrap();
        for fair in [false, true] {
            checked += check_orbits(&format!("{file} {externs:?} fair={fair}"), &model, &behs, fair) as usize;
        }
    }
    // Round-robin rotations are exercised by the single-type instances.
    assert!(checked >= 10, "only {checked} reduced instances");
}

fn statuses(text: &str, fair: bool) -> Vec<(String, TypeSymmetry)> {
    let (model, behs) = load_text(text, &[]).unwrap_or_else(|_| panic!("loads:\n{text}"));
    let s = symmetry::analyse(&model, &behs, fair);
    model.agent_types.iter().map(|t| t.name.clone()).zip(s.types).collect()
}

fn is_broken(s: &TypeSymmetry, needle: &str) -> bool {
    matches!(s, TypeSymmetry::Broken(r) if r.iter().any(|r| r.text.contains(needle)))
}

/// A spec with one agent type `A` of three agents and the given pieces.
fn spec(behaviour: &str, link: &str, property: &str) -> String {
    format!(
        "system {{ spawn = A: 3 }}\n\
         stigmergy S {{ link = {link}\n v: 0 }}\n\
         agent A {{ interface = a: 0..2\n stigmergies = S\n Behavior = ({behaviour}); Behavior }}\n\
         check {{ P = {property} }}\n"
    )
}

#[test]
fn the_analysis_accepts_ids_used_only_to_name_agents() {
    let ok = [
        spec("a <- a of [0..3]", "a of c1 = a of c2", "always forall A x, a of x < 2"),
        spec(
            "v <~ a",
            "id of c1 != id of c2",
            "finally exists A x, exists A y, id of x != id of y and a of x = a of y",
        ),
        spec("{ p[] := pick 1 A where a of c2 = a of c1; a <- a of p[0] }", "true", "always forall A x, a of x >= 0"),
        spec("{ c := count A y, a of y = 1; a <- c % 2 }", "true", "fairly forall A x, a of x = 1"),
        // A random number that happens to range over the ids is a number, not an agent.
        spec("a <- [0..3]", "true", "always forall A x, a of x < 3"),
    ];
    for t in &ok {
        assert_eq!(statuses(t, false), vec![("A".to_string(), TypeSymmetry::Interchangeable)], "{t}");
        assert_eq!(statuses(t, true), vec![("A".to_string(), TypeSymmetry::Rotations)], "{t}");
    }
    // Initialisers may use ids: they only choose the initial states.
    let init = "system { spawn = A: 3 }\nagent A { interface = a: id % 2\n Behavior = a <- 1 - a; Behavior }\ncheck { P = always forall A x, a of x < 2 }";
    assert_eq!(statuses(init, false)[0].1, TypeSymmetry::Interchangeable);
}

#[test]
fn the_analysis_refuses_ids_used_as_numbers_and_named_agents() {
    let broken = [
        (spec("a <- id % 2", "true", "always forall A x, a of x < 2"), "as a number"),
        (spec("a <- a of ((id + 1) % 3)", "true", "always forall A x, a of x < 2"), "numbered"),
        (spec("a <- 1", "id of c1 < id of c2", "always forall A x, a of x < 2"), "link predicate"),
        (spec("a <- 1", "true", "always a of 0 = 0"), "names agent 0"),
        (spec("a <- 1", "true", "always forall A x, id of x < 2 or a of x = 1"), "as a number"),
        (spec("{ p[] := pick 1 A; a <- p[0] }", "true", "always forall A x, a of x < 3"), "as a number"),
    ];
    for (t, why) in &broken {
        for fair in [false, true] {
            let s = statuses(t, fair);
            assert!(is_broken(&s[0].1, why), "{t}\nfair={fair}: expected `{why}`, got {:?}", s[0].1);
        }
    }
    // --fair with two types: no rotation keeps the types apart.
    let two = "system { spawn = A: 2, B: 2 }\nagent A { interface = a: 0\n Behavior = a <- 1; Behavior }\nagent B { interface = a: 0\n Behavior = a <- 1; Behavior }\ncheck { P = always forall A x, a of x < 2 }";
    let s = statuses(two, true);
    assert!(is_broken(&s[0].1, "--fair") && is_broken(&s[1].1, "--fair"), "{s:?}");
    assert_eq!(statuses(two, false)[0].1, TypeSymmetry::Interchangeable);
}

/// Random small specs built only from constructs that commute with permutations of `A`.
fn random_spec() -> impl Strategy<Value = (String, bool)> {
    let action = prop::sample::select(vec![
        "a < 2 -> a <- a + 1",
        "a > 0 -> a <- a - 1",
        "a <- a of [0..3]",
        "v <~ a",
        "a <- v",
        "v = 1 -> a <- 0",
        "{ c := count A y, a of y = 1; a <- c % 3 }",
        "{ p[] := pick 1 A where v of c2 != v of c1; a <- a of p[0] }",
        "Skip",
    ]);
    let link = prop::sample::select(vec!["true", "a of c1 = a of c2", "a of c1 != a of c2 or v of c2 = 0"]);
    let property = prop::sample::select(vec![
        "always forall A x, a of x < 2",
        "always exists A x, v of x = 0",
        "finally forall A x, forall A y, a of x = a of y",
        "finally exists A x, v of x = 1",
        "fairly forall A x, a of x = 2",
        "fairly_inf exists A x, exists A y, id of x != id of y and a of x = a of y",
    ]);
    (prop::collection::vec(action, 1..4), link, property, 2usize..4, any::<bool>()).prop_map(
        |(actions, link, property, n, fair)| {
            let body = actions.iter().map(|a| format!("({a})")).collect::<Vec<_>>().join(" ++ ");
            let text =
                spec(&body, link, property).replace("A: 3", &format!("A: {n}")).replace("[0..3]", &format!("[0..{n}]"));
            (text, fair)
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn random_symmetric_specs_reduce_to_their_orbits((text, fair) in random_spec()) {
        let (model, behs) = load_text(&text, &[]).unwrap_or_else(|_| panic!("loads:\n{text}"));
        let s = symmetry::analyse(&model, &behs, fair);
        let want = if fair { TypeSymmetry::Rotations } else { TypeSymmetry::Interchangeable };
        prop_assert_eq!(&s.types[0], &want, "{}", text);
        prop_assert!(check_orbits(&text, &model, &behs, fair));
        let plain = run_with(&model, &behs, fair, false, 1);
        let reduced = run_with(&model, &behs, fair, true, 1);
        same_outcome(&text, &plain, &reduced);
        if let Ok(r) = &reduced {
            replay_all(&model, &behs, r);
        }
    }
}
