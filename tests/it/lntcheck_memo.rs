//! The memoising successor function of labs's LNT interpreter (each leaf's local behaviour
//! computed once per local state, `docs/lntcheck.md`, "Successor function") gives, state by
//! state, the transitions the reference explorer computes from the compiled syntax every time:
//! on the benchmarks and on random specs of the differential generator (`tests/it/specgen/`),
//! free and `--fair`, including the states where the program stops with an error.

use crate::engine_common::load_text;
use crate::fixtures::bench;
use labs::analysis::values::analyse;
use labs::lnt::Dialect;
use labs::lntcheck::backend::emit_lnt;
use labs::lntcheck::diff::{compiled_agrees_with_reference, memo_agrees_with_reference};
use proptest::prelude::*;
use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};

/// The emitted program of `text` (`None`: the spec does not load).
fn program(text: &str, externs: &[String], fair: bool, dialect: Dialect) -> Option<String> {
    let (model, behs) = load_text(text, externs).ok()?;
    let analysis = analyse(&model, &behs);
    emit_lnt(&model, &behs, &analysis, "m", fair, dialect).ok()
}

#[test]
fn benchmarks_agree() {
    for (file, externs) in [("leader.labs", "n=3"), ("philosophers.labs", "n=3"), ("leader.labs", "n=4")] {
        let text = std::fs::read_to_string(bench(file)).unwrap();
        for fair in [false, true] {
            let src = program(&text, &[externs.to_string()], fair, Dialect::V2025).expect("the benchmark loads");
            let n =
                memo_agrees_with_reference(&src, "MAIN", 3_000).unwrap_or_else(|e| panic!("{file} fair={fair}: {e}"));
            assert!(n > 20, "{file}: only {n} states compared");
        }
    }
}

/// Whether the memoising and the reference explorer agree on the random spec of `seed`.
fn random_spec_agrees(seed: u64, fair: bool) -> Result<(), String> {
    let g = crate::specgen::generate(seed);
    match program(&g.text, &g.externs, fair, Dialect::V2025) {
        Some(src) => memo_agrees_with_reference(&src, "MAIN", 400)
            .map(|_| ())
            .map_err(|e| format!("seed {seed} fair={fair}: {e}\n{}", g.text)),
        None => Ok(()),
    }
}

/// Random specs drawn by proptest from a fixed generator seed: some rare random programs take
/// minutes in the reference explorer, so the default tier checks the same few every time and
/// `many_random_specs_agree` more in the slow tier.
#[test]
fn random_specs_agree() {
    let config = ProptestConfig { cases: 8, ..ProptestConfig::default() };
    let mut runner = TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    runner
        .run(&(0u64..1_000_000, any::<bool>()), |(seed, fair)| {
            random_spec_agrees(seed, fair).map_err(TestCaseError::fail)
        })
        .unwrap_or_else(|e| panic!("{e}"));
}

/// The compiled successor function alone (expressions, `where` clauses and function bodies run
/// as stack-machine code, nothing memoised) against the reference explorer, which walks the
/// syntax trees: the benchmarks' programs, then random programs drawn by proptest from the
/// differential generator (another fixed seed than `random_specs_agree`'s).
#[test]
fn compiled_successors_agree_with_tree_walking() {
    for (file, externs) in [("leader.labs", "n=3"), ("philosophers.labs", "n=3")] {
        let text = std::fs::read_to_string(bench(file)).unwrap();
        for fair in [false, true] {
            let src = program(&text, &[externs.to_string()], fair, Dialect::V2025).expect("the benchmark loads");
            let n = compiled_agrees_with_reference(&src, "MAIN", 1_500)
                .unwrap_or_else(|e| panic!("{file} fair={fair}: {e}"));
            assert!(n > 20, "{file}: only {n} states compared");
        }
    }
    let config = ProptestConfig { cases: 8, ..ProptestConfig::default() };
    let mut rng_seed = [7u8; 32];
    rng_seed[0] = 61;
    let mut runner = TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &rng_seed));
    runner
        .run(&(0u64..1_000_000, any::<bool>()), |(seed, fair)| {
            let g = crate::specgen::generate(seed);
            match program(&g.text, &g.externs, fair, Dialect::V2025) {
                Some(src) => compiled_agrees_with_reference(&src, "MAIN", 400)
                    .map(|_| ())
                    .map_err(|e| TestCaseError::fail(format!("seed {seed} fair={fair}: {e}\n{}", g.text))),
                None => Ok(()),
            }
        })
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn many_random_specs_agree() {
    if !crate::tier::slow("30 more random specs against the reference explorer, a few minutes") {
        return;
    }
    for seed in 0..30u64 {
        random_spec_agrees(1_000_003 + seed * 7919, seed % 2 == 1).unwrap_or_else(|e| panic!("{e}"));
    }
}
