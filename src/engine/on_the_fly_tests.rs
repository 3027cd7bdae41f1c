//! The searches among the expanded states alone (the depth-first searches given no budget),
//! on random small specs, free and fair, with and without reduction: every violation they find
//! is a path of the explored graph, a lasso or a path into a deadlock (or, for `always`, to a
//! state), that violates the property, judged by `holds_on_lasso` on the predicates' values
//! along it, and the property is violated on the whole graph; a property they do not decide
//! is left to the whole graph's check.

use super::*;
use crate::engine::check::Outcome;
use crate::engine::explore::{ExploreOptions, explore_initial, explore_watched};
use crate::engine::ltl::holds_on_lasso;
use crate::engine::recompute::tests::{load, system};
use crate::engine::{check_property, eval_pred, formula_over_predicates};
use crate::limits::Limits;
use crate::syntax::ltl::Ltl;
use proptest::prelude::*;
use std::sync::Arc;

/// The recompute tests' system, with linear-time and scoped properties.
fn spec(n: u8, k: i32, md: i32, w: i32, lk: i32) -> String {
    format!(
        "{}check {{\n  A = always x < {k}\n  F = finally forall N a, v of a = 0\n  \
         L = always finally x = 0\n  K = finally always forall N a, v of a = 0\n  \
         R = always (x = 1 implies finally seen of 0 = {w})\n  \
         T = (x < {k} until seen of 0 > 0) or (always v of 0 > 0)\n  \
         W = x < {md} unless exists N a, v of a = 0 and x > 0\n  \
         B = between (x = 1) and (x = 0), thereIs (v of 0 = 0)\n  \
         U = from (x = 1) until (x = 0), thereIs (seen of 0 > 0)\n  \
         P = between (x > 0) and (seen of 0 = {w}), (v of 0 = 0) precedes (x = 2)\n}}\n",
        system(n, k, md, w, lk)
    )
}

/// The property as a formula over its predicates (`always` and `finally` too).
fn formula(p: &Property) -> Ltl<usize> {
    match p.modality {
        Modality::Always => Ltl::Always(Box::new(Ltl::Atom(0))),
        Modality::Finally => Ltl::Finally(Box::new(Ltl::Atom(0))),
        _ => formula_over_predicates(p).expect("a linear-time or scoped property"),
    }
}

fn judge(text: &str, fair: bool, symmetry: bool) {
    let (model, behs) = load(text);
    let stepper = Stepper::new(&model, &behs, fair);
    let group = symmetry.then(|| crate::engine::symmetry::analyse(&model, &behs, fair).group).flatten().map(Arc::new);
    let opts = ExploreOptions { threads: 1, keep_edges: true, symmetry: group.clone(), ..Default::default() };
    let Ok(full) = explore_initial(&stepper, &opts) else { return };
    if full.error.is_some() {
        return;
    }
    let psi_of = |q: &QPred| -> Result<Vec<bool>, String> {
        (0..full.states() as u32)
            .map(|i| eval_pred(&stepper, &full.store.get(i), &mut Default::default(), q).map_err(|e| e.0))
            .collect()
    };
    let none = Limits::none();
    let workers = Workers::new(1);
    for p in model.properties.iter().filter(|p| OnTheFly::applies(&[p])) {
        let Ok(whole) = check_property(&full as &dyn Space, p, &mut |q| psi_of(q), &none) else { return };
        let aut = crate::engine::Translation::of(p, &none).and_then(|t| t.negation.ok());
        let mut watch =
            OnTheFly::new(&stepper, group.as_deref(), &[p], &[aut], &workers, &none, super::Watch::Stop, 0, None);
        let g = explore_watched(&stepper, &opts, &mut |g, ids| watch.decided(g, ids)).expect("no error");
        let Some(found) = &watch.found[0] else {
            assert!(g.complete(), "{}: undecided before the end\n{text}", p.name);
            continue;
        };
        let Found::Graph(c) = found else { panic!("the depth-first searches had no budget") };
        assert!(matches!(whole, Outcome::Violated(_)), "{} holds on the whole graph\n{text}", p.name);
        for w in c.path.windows(2) {
            assert!(g.is_expanded(w[0]) && g.succs(w[0]).contains(&w[1]), "{:?} is not a path\n{text}", c.path);
        }
        let f = formula(p);
        let atoms: Vec<usize> = f.atoms().into_iter().copied().collect();
        let path = &c.path;
        let value = |a: usize, i: usize| watch.psi[0][atoms[a]][path[i] as usize];
        let holds = match (c.loop_start, &p.modality) {
            (Some(l), _) => {
                assert_eq!(path[l], *path.last().unwrap(), "{text}");
                holds_on_lasso(&f, path.len() - 1, Some(l), &value)
            }
            (None, Modality::Always) => value(0, path.len() - 1),
            (None, _) => {
                assert!(c.deadlock && g.succs(*path.last().unwrap()).is_empty(), "{:?}\n{text}", c);
                holds_on_lasso(&f, path.len(), None, &value)
            }
        };
        assert!(!holds, "{}: {:?} does not violate it\n{text}", p.name, c);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn violations_found_among_expanded_states_are_real(
        n in 2u8..4, k in 0i32..4, md in 1i32..5, w in 0i32..3, lk in -1i32..3,
    ) {
        let text = spec(n, k, md, w, lk);
        for (fair, symmetry) in [(false, false), (false, true), (true, false), (true, true)] {
            judge(&text, fair, symmetry);
        }
    }
}
