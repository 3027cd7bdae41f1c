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
use labs::lntcheck::diff::memo_agrees_with_reference;
use proptest::prelude::*;

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

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn random_specs_agree(seed in 0u64..1_000_000, fair in any::<bool>()) {
        let g = crate::specgen::generate(seed);
        if let Some(src) = program(&g.text, &g.externs, fair, Dialect::V2025) {
            let r = memo_agrees_with_reference(&src, "MAIN", 400);
            prop_assert!(r.is_ok(), "seed {seed} fair={fair}: {}\n{}", r.unwrap_err(), g.text);
        }
    }
}
