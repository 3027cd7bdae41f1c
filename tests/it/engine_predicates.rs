//! The properties' predicates are compiled (`engine::predicate_compiles`) wherever the
//! benchmarks and examples need them, and a compiled predicate that meets a run-time error
//! leaves the report to the evaluator: the same message and trace as without compilation.

use crate::engine_common;
use crate::fixtures;
use engine_common::*;
use labs::engine::step::Stepper;
use labs::engine::{EngineError, VerifyOptions, predicate_compiles, verify};
use labs::model::{Modality, Pattern, Property, QPred};
use labs::trace::Trace;

/// Externs of every spec in `benchmarks/` and `examples/` (benchmarks/README.md,
/// examples/README.md); a spec missing here fails the test, so a new one gets checked.
const EXTERNS: &[(&str, &[&str])] = &[
    ("benchmarks/flock.labs", &["birds=3", "grid=5", "delta=5"]),
    ("benchmarks/formation.labs", &["n=3", "size=10", "range=2"]),
    ("benchmarks/leader.labs", &["n=5"]),
    ("benchmarks/philosophers.labs", &["n=5"]),
    ("benchmarks/twophase.labs", &["workers=3"]),
    ("benchmarks/twophasecommit.labs", &["workers=3"]),
    ("examples/counter.labs", &["n=2", "atomic=0"]),
    ("examples/flocking.labs", &["birds=3", "grid=2", "delta=1"]),
    ("examples/leader.labs", &["n=3"]),
    ("examples/line.labs", &["n=3", "size=5", "gap=2"]),
    ("examples/majority.labs", &["yes=2", "no=3"]),
    ("examples/philosophers.labs", &["n=3", "asym=0"]),
    ("examples/twophase.labs", &["workers=2"]),
];

/// Every predicate a property checks: its own, and a scope's opening, closing and
/// `precedes` predicates.
fn predicates(p: &Property) -> Vec<&QPred> {
    // a linear-time formula's atoms (the first is `p.pred`)
    let mut v = match &p.modality {
        Modality::Ltl(f) => f.atoms(),
        _ => vec![&p.pred],
    };
    if let Modality::Between { open, close, pattern } | Modality::FromUntil { open, close, pattern } = &p.modality {
        v.extend([open, close]);
        if let Pattern::Precedes(s) = pattern {
            v.push(s);
        }
    }
    v
}

/// A predicate without a compiled form is evaluated on every state, several times slower:
/// correct, so only this test notices when a change makes one fall back.
#[test]
fn every_property_of_the_benchmarks_and_examples_compiles() {
    let mut files: Vec<_> = [fixtures::benchmarks(), fixtures::examples()]
        .iter()
        .flat_map(|d| fixtures::labs_files(d))
        .map(|p| p.strip_prefix(fixtures::root()).unwrap().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let listed: Vec<_> = EXTERNS.iter().map(|(f, _)| f.to_string()).collect();
    assert_eq!(files, listed, "every spec of benchmarks/ and examples/ has its externs here");
    let mut checked = 0;
    for (file, externs) in EXTERNS {
        let (m, b) = load(&fixtures::path_str(file), externs);
        let stepper = Stepper::new(&m, &b, false);
        for p in &m.properties {
            for q in predicates(p) {
                assert!(predicate_compiles(&stepper, q), "{file}: a predicate of {} does not compile", p.name);
                checked += 1;
            }
        }
    }
    // 9 properties in the benchmarks (3 in leader) and 32 in the examples; twophase's
    // Answered has two state predicates.
    assert_eq!(checked, 42);
}

/// One agent type `P` of two agents with `a = 1`, each of which can set `a` to `value`;
/// the property `Safe` is `always forall P p, <pred>`.
fn spec(value: &str, pred: &str) -> String {
    format!(
        "system {{ spawn = P: 2 }}\n\
         agent P {{ interface = a: 1\n Behavior = a <- {value} }}\n\
         check {{ Safe = always forall P p, {pred} }}\n"
    )
}

/// The error `verify` reports, with its trace.
fn runtime_error(text: &str, symmetry: bool, threads: usize) -> (String, Trace, String) {
    let (m, b) = load_text(text, &[]).expect("loads");
    let stepper = Stepper::new(&m, &b, false);
    assert!(predicate_compiles(&stepper, &m.properties[0].pred), "the test needs the compiled path");
    let opts = VerifyOptions { threads, symmetry, check_analysis: true, exhaustive: true, ..Default::default() };
    match verify(&m, &b, &opts) {
        Err(EngineError::Runtime { message, trace: Some(t) }) => {
            labs::trace::replay(&m, &b, &t).expect("the error trace replays");
            let shown = labs::trace::render(&m, &b, &t);
            (message, *t, shown)
        }
        other => panic!("expected a run-time error with a trace, got {:?}", other.map(|r| r.results)),
    }
}

/// D9: a run-time error in a property is the evaluator's, with its message, at the first
/// state (in BFS order) where it happens: the initial state (`a = 1` everywhere) satisfies
/// the predicate, and its first successor is agent 0 setting `a`.
#[test]
fn run_time_errors_in_compiled_predicates_are_the_evaluators() {
    for (value, pred, message) in
        [("0", "10 / a of p > 0", "division by zero"), ("2", "a of p * 2000000000 > 0", "arithmetic overflow")]
    {
        let text = spec(value, pred);
        for threads in [1, 2] {
            for symmetry in [false, true] {
                let (m, t, shown) = runtime_error(&text, symmetry, threads);
                assert_eq!(m, message, "{pred}");
                assert_eq!(t.steps.len(), 1, "{pred}:\n{shown}");
                // Under the reduction the trace's agent may be either (a permutation).
                let step = shown.lines().last().unwrap();
                assert!(step == format!("P 0: a <- {value}") || symmetry, "{pred}:\n{shown}");
                assert!(step.ends_with(&format!(": a <- {value}")), "{pred}:\n{shown}");
            }
        }
    }
}
