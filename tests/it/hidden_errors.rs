//! Run-time errors that neither a reduction nor an early stop may hide (docs/semantics.md, D9):
//! a run-time error reachable in the system is reported whatever the properties, on every
//! route. The semantics cases `pred_error_by_order`, `pred_error_past_violation`,
//! `step_error_past_violation` and `ltl_error_past_violation` pin the rule on every route
//! (`routes_agree.rs`); here: the variants of each, what a run says it did not search, the
//! analysis the early stop and the reduction rest on (`analysis::fallible`) against the errors
//! the exhaustive engine meets on random specs, and random symmetric specs whose predicates
//! can fail, reduced and stopped early against the unreduced exhaustive run.

use crate::engine_common::{load_text, replay_all};
use crate::fixtures::{self, labs, stderr, stdout};
use crate::scratch::Scratch;
use crate::specgen;
use labs::engine::symmetry::{self, TypeSymmetry};
use labs::engine::{EngineError, VerifyOptions, VerifyReport, verify};
use labs::model::Model;
use proptest::prelude::*;

fn run(
    model: &Model,
    behs: &[labs::behaviour::Behaviour],
    fair: bool,
    symmetry: bool,
    exhaustive: bool,
) -> Result<VerifyReport, EngineError> {
    let opts = VerifyOptions { fair, threads: 1, symmetry, exhaustive, check_analysis: true, ..Default::default() };
    verify(model, behs, &opts)
}

/// The same verdicts, or a run-time error on both sides.
fn same_outcome(
    tag: &str,
    want: &Result<VerifyReport, EngineError>,
    got: &Result<VerifyReport, EngineError>,
) -> Result<(), String> {
    match (want, got) {
        (Ok(a), Ok(b)) => {
            let va: Vec<_> = a.results.iter().map(|x| (&x.property, x.verdict)).collect();
            let vb: Vec<_> = b.results.iter().map(|x| (&x.property, x.verdict)).collect();
            if va != vb {
                return Err(format!("{tag}: verdicts {va:?}, expected {vb:?}"));
            }
            Ok(())
        }
        (Err(EngineError::Runtime { .. }), Err(EngineError::Runtime { .. })) => Ok(()),
        (a, b) => Err(format!("{tag}: {}, expected {}", describe(b), describe(a))),
    }
}

fn describe(r: &Result<VerifyReport, EngineError>) -> String {
    match r {
        Ok(r) => format!("{:?}", r.results.iter().map(|x| (&x.property, x.verdict)).collect::<Vec<_>>()),
        Err(e) => e.to_string(),
    }
}

/// `pred_error_by_order.labs` with the property `H = {property}`.
fn by_order(property: &str) -> String {
    let text = fixtures::read("tests/cases/pred_error_by_order.labs");
    let i = text.find("    H = ").expect("the property H");
    format!("{}    H = {property}\n}}\n", &text[..i])
}

#[test]
fn a_quantifier_whose_body_can_fail_is_not_reduced() {
    // In the initial state (2, 1) each predicate below reaches `10 / (x of a - 2)` with agent 0
    // (x = 2) first, and divides by zero; in its permutation (1, 2) agent 0 decides it first.
    // The scopes' predicates and `finally`'s are evaluated in every state like `always`'s.
    let failing = [
        "always exists A a, x of a = 1 or 10 / (x of a - 2) > 0",
        "finally exists A a, x of a = 1 or 10 / (x of a - 2) > 0",
        "finally always exists A a, x of a = 1 or 10 / (x of a - 2) > 0",
        // `forall` stops at the first agent that makes its body false: agent 0 with x = 1 in
        // (1, 2), which decides it without a division (and the property would be violated).
        "always forall A a, x of a != 1 and 10 / (x of a - 2) > 0",
        "between (true) and (exists A a, x of a = 1 or 10 / (x of a - 2) > 0), thereIs false",
        "from (exists A a, x of a = 1 or 10 / (x of a - 2) > 0) until (false), always false",
    ];
    for p in failing {
        let spec = Scratch::file("hidden", "order.labs", &by_order(p));
        let (model, behs) = load_text(&by_order(p), &[]).unwrap();
        for fair in [false, true] {
            let s = symmetry::analyse(&model, &behs, fair);
            assert!(
                matches!(&s.types[0], TypeSymmetry::Broken(r) if r.iter().any(|r| r.text.contains("may meet a run-time error"))),
                "{p} (fair={fair}): {:?}",
                s.types[0]
            );
        }
        for opts in [&[][..], &["--no-reduction"], &["--fair"], &["--exhaustive"]] {
            let mut args = vec!["verify", spec.as_str(), "-q"];
            args.extend(opts);
            let o = labs(&args);
            assert_eq!(o.status.code(), Some(1), "{p} {opts:?}: {}{}", stdout(&o), stderr(&o));
            assert!(
                stderr(&o).contains("run-time error of the model: division by zero"),
                "{p} {opts:?}: {}",
                stderr(&o)
            );
        }
    }
    // A body that cannot fail (x + 2 is 3 or 4) keeps the agents interchangeable: the check
    // reads the values, not the mere presence of a division.
    let safe = by_order("always exists A a, x of a = 1 or 10 / (x of a + 2) > 0");
    let (model, behs) = load_text(&safe, &[]).unwrap();
    assert_eq!(symmetry::analyse(&model, &behs, false).types[0], TypeSymmetry::Interchangeable);
    let spec = Scratch::file("hidden", "safe.labs", &safe);
    let o = labs(&["verify", spec.as_str(), "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("A: 2 interchangeable agents"), "{}", stdout(&o));
}

#[test]
fn a_map_of_values_that_moves_an_error_is_no_symmetry() {
    // x is -1 or 1 and never changes. Mirroring x (x := -x) maps the steps to steps, but the
    // predicate divides by zero at x = 1 (`1 <= 0` is false, then `1 / (1 - 1)`) and holds at
    // x = -1: the map is refused, so the initial state x = 1 is not replaced by x = -1, and the
    // run stops with the division by zero. With `+ 1` the predicate fails at neither and is
    // true at both (`-1 <= 0`; `1 / 2 = 0 >= 0`), and the map is a symmetry.
    let spec = |body: &str| {
        format!(
            "system {{ spawn = A: 1 }}\nagent A {{ interface = x: [-1, 1]\n Behavior = Skip; Behavior }}\n\
             check {{ P = always x of 0 <= 0 or 1 / ({body}) >= 0 }}\n"
        )
    };
    for (body, error) in [("x of 0 - 1", true), ("x of 0 + 1", false)] {
        let text = spec(body);
        let (model, behs) = load_text(&text, &[]).unwrap();
        let maps = symmetry::analyse(&model, &behs, false).values.maps.len();
        assert_eq!(maps, usize::from(!error), "{text}");
        for reduced in [true, false] {
            let r = run(&model, &behs, false, reduced, false);
            match (&r, error) {
                (Err(EngineError::Runtime { message, .. }), true) => assert!(message.contains("division by zero")),
                (Ok(r), false) => assert_eq!(r.results[0].verdict, labs::engine::Verdict::Holds),
                _ => panic!("{text}\nreduced={reduced}: {}", describe(&r)),
            }
        }
    }
}

#[test]
fn a_run_says_what_it_did_not_search() {
    // x and y change together: `x - y + 1` is always 1, but the value analysis, which keeps one
    // set per variable, cannot exclude 0. V is violated at x = 1 (10 / 1 is not above 100),
    // in the second of the three states.
    let text = "system { spawn = A: 1 }\n\
                agent A { interface = x: 0; y: 0\n Behavior = x, y <- 1, 1; x, y <- 2, 2 }\n\
                check { V = always x of 0 < 1 or 10 / (x of 0 - y of 0 + 1) > 100 }\n";
    let spec = Scratch::file("hidden", "went_on.labs", text);
    let o = labs(&["verify", spec.as_str(), "--json", "-q"]);
    assert_eq!(o.status.code(), Some(10), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["results"][0]["verdict"], "violated");
    let st = &v["stats"];
    assert_eq!(
        (st["complete"].as_bool(), st["decided_early"].as_bool(), st["states"].as_u64()),
        (Some(true), Some(false), Some(3))
    );
    assert_eq!(st["went_on"]["violated_at"], 2, "{st}");
    let reason = st["went_on"]["reason"].as_str().unwrap();
    assert!(reason.contains("property V") && reason.contains("may divide by zero"), "{reason}");
    let o = labs(&["verify", spec.as_str(), "-q"]);
    assert!(
        stdout(&o).contains("every property was violated within the first 2 states, but the exploration went on"),
        "{}",
        stdout(&o)
    );
    // With --exhaustive nothing could have stopped early: nothing to say.
    let o = labs(&["verify", spec.as_str(), "--exhaustive", "--json", "-q"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["stats"].get("went_on").is_none(), "{}", v["stats"]);

    // Leader election cannot meet a run-time error (ids and `leader` stay within 0..n): the
    // exploration stops at NeverAgreed's violation and says why that hides nothing.
    let leader = fixtures::example("leader.labs");
    let o = labs(&["verify", &leader, "n=3", "--property", "NeverAgreed", "-q"]);
    assert_eq!(o.status.code(), Some(10), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("not searched: the states beyond it, where the value analysis shows no run-time error"),
        "{}",
        stdout(&o)
    );
    // A bound: what lies beyond it was not searched, errors included.
    let o = labs(&["verify", &leader, "n=5", "--max-states", "100", "-q"]);
    assert!(
        stdout(&o).contains("not searched: the states beyond, and the run-time errors they may meet"),
        "{}",
        stdout(&o)
    );
}

/// Where the engine met its run-time error, by the words the engine adds to the message.
fn error_place(message: &str) -> &'static str {
    if message.contains("(in a step of") {
        "step"
    } else if message.contains("(in a link predicate)") {
        "link"
    } else if message.contains("(in assumption") || message.contains("(in the initialiser") {
        "initial"
    } else {
        "property"
    }
}

/// The analysis the early stop and the reduction rest on, against the engine: on random specs
/// over the whole language, every run-time error the exhaustive exploration meets lies where
/// `analysis::fallible` said one may be met (a place it calls safe never fails).
#[test]
fn the_analysis_finds_every_error_the_engine_meets() {
    let count = if crate::tier::slow("400 more random specs against the analysis, about 30 s") { 600 } else { 200 };
    let (mut errors, mut safe) = (0, 0);
    for seed in 0..count {
        let g = specgen::generate(seed);
        let Ok((model, behs)) = load_text(&g.text, &g.externs) else { continue };
        let va = labs::analysis::values::analyse(&model, &behs);
        let f = labs::analysis::fallible::analyse(&model, &behs, &va);
        let props: Vec<_> = model.properties.iter().collect();
        for fair in [false, true] {
            let opts =
                VerifyOptions { fair, threads: 1, exhaustive: true, max_states: Some(3000), ..Default::default() };
            match verify(&model, &behs, &opts) {
                Err(EngineError::Runtime { message, .. }) => {
                    errors += 1;
                    let found = match error_place(&message) {
                        "step" => f.steps.is_some(),
                        "link" => f.links.is_some(),
                        "initial" => f.initial.is_some(),
                        _ => f.first(&model, &props).is_some(),
                    };
                    assert!(
                        found,
                        "seed {seed} fair={fair}: `{message}` where the analysis found nothing:\n{}",
                        g.text
                    );
                }
                Ok(r) if r.stopped.is_none() && f.first(&model, &props).is_none() => safe += 1,
                _ => {}
            }
        }
    }
    // Both kinds must occur, or the test proves nothing.
    assert!(errors >= 20 && safe >= 20, "{errors} runs with errors, {safe} proven safe");
}

#[test]
fn the_benchmarks_cannot_fail() {
    // Their arithmetic stays in range: ids index arrays of n elements, positions wrap `% grid`,
    // and the links' squares are at most 2 · (grid - 1)^2. So the native engine may stop at
    // their violations (`labs-bench` measures it).
    let instances: [(&str, &[&str]); 6] = [
        ("flock.labs", &["birds=3", "grid=5", "delta=5"]),
        ("formation.labs", &["n=3", "size=10", "range=2"]),
        ("leader.labs", &["n=5"]),
        ("philosophers.labs", &["n=5"]),
        ("twophase.labs", &["workers=3"]),
        ("twophasecommit.labs", &["workers=3"]),
    ];
    for (file, externs) in instances {
        let (model, behs) = crate::engine_common::load(&fixtures::bench(file), externs);
        let va = labs::analysis::values::analyse(&model, &behs);
        let f = labs::analysis::fallible::analyse(&model, &behs, &va);
        let props: Vec<_> = model.properties.iter().collect();
        assert_eq!(f.first(&model, &props), None, "{file}");
        assert!(f.quantified.is_empty(), "{file}");
    }
}

/// A spec of `n` agents of one type `A` built from constructs that commute with permutations,
/// with predicates whose evaluation can fail depending on the order of the agents (a
/// quantifier whose body divides by a value that can be 0), in properties, assumptions and a
/// step's quantifier statement.
fn random_spec() -> impl Strategy<Value = (String, bool)> {
    let action = prop::sample::select(vec![
        "a < 2 -> a <- a + 1",
        "a > 0 -> a <- a - 1",
        "a <- a of [0..N]",
        "v <~ a",
        "a <- v",
        "Skip",
        "{ l := exists A y, a of y = 1 or 6 / (a of y - 2) > 0; a <- l }",
        "{ l := forall A y, a of y != 0 and 6 / (a of y - 1) > 0; v <~ l }",
    ]);
    let property = prop::sample::select(vec![
        "always exists A x, a of x = 1 or 10 / (a of x - 2) > 0",
        "always forall A x, a of x != 1 and 10 / (a of x - 2) > 0",
        "finally exists A x, a of x = 0 or 6 / (a of x - 1) < 0",
        "finally always exists A x, v of x = 1 or 6 / (a of x - 2) > 0",
        "always forall A x, exists A y, a of x = a of y or 4 / (a of y - 1) >= 0",
        "between (exists A x, a of x = 2 or 3 / (a of x) > 0) and (exists A x, v of x = 1), thereIs true",
        "always forall A x, a of x < 2",
        "finally exists A x, v of x = 1",
    ]);
    let assumption = prop::sample::select(vec![
        "",
        "exists A x, a of x = 1",
        "exists A x, a of x = 2",
        "forall A x, a of x != 0",
        "exists A x, a of x = 0",
    ]);
    (prop::collection::vec(action, 1..3), property, prop::collection::vec(assumption, 0..3), 2usize..4, any::<bool>())
        .prop_map(|(actions, property, assumptions, n, fair)| {
            let body =
                actions.iter().map(|a| format!("({a})")).collect::<Vec<_>>().join(" ++ ").replace('N', &n.to_string());
            let assume: Vec<String> = assumptions
                .iter()
                .filter(|a| !a.is_empty())
                .enumerate()
                .map(|(i, a)| format!("    H{i} = {a}\n"))
                .collect();
            let assume = if assume.is_empty() { String::new() } else { format!("assume {{\n{}}}\n", assume.concat()) };
            let text = format!(
                "system {{ spawn = A: {n} }}\n\
                 stigmergy S {{ link = true\n v: 0 }}\n\
                 agent A {{ interface = a: 0..3\n stigmergies = S\n Behavior = ({body}); Behavior }}\n\
                 {assume}check {{ P = {property} }}\n"
            );
            (text, fair)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// The reduced run and the run stopped early give the outcome of the unreduced exhaustive
    /// one: the same verdicts, or a run-time error on both.
    #[test]
    fn failing_predicates_reduced_and_stopped_early_agree((text, fair) in random_spec()) {
        let (model, behs) = load_text(&text, &[]).unwrap_or_else(|e| panic!("{e:?}:\n{text}"));
        let want = run(&model, &behs, fair, false, true);
        for (symmetry, exhaustive) in [(true, true), (true, false), (false, false)] {
            let got = run(&model, &behs, fair, symmetry, exhaustive);
            let tag = format!("fair={fair} reduced={symmetry} exhaustive={exhaustive}\n{text}");
            if let Err(e) = same_outcome(&tag, &want, &got) {
                return Err(TestCaseError::fail(e));
            }
            if let Ok(r) = &got {
                replay_all(&model, &behs, r);
            }
        }
    }
}
