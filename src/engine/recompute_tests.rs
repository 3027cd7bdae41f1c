//! The checks on recomputed successors against the checks on the successor lists an
//! exploration keeps, on random small specs (one spec per case, every modality; with and
//! without symmetry reduction), and `fairly_inf`'s reachability against a brute-force fixpoint
//! over the kept lists.

use super::*;
use crate::engine::check::{Outcome, Space};
use crate::engine::explore::{ExploreOptions, explore_initial};
use crate::engine::{check_property, eval_pred};
use crate::model::externs::parse_externs;
use crate::model::{Modality, Model};
use proptest::prelude::*;
use std::sync::Arc;

/// A system with cycles, deadlocks and a stigmergy (`x` counts modulo `md` up to `k`, `v`
/// falls to the smallest id that links, `seen` counts to `w`), without its `check` section.
pub(crate) fn system(n: u8, k: i32, md: i32, w: i32, lk: i32) -> String {
    format!(
        "system {{\n  environment = x: 0\n  spawn = N: {n}\n}}\n\
         stigmergy S {{\n  link = id of c1 + id of c2 > {lk}\n  v: {k}\n}}\n\
         agent N {{\n  interface = seen: 0\n  stigmergies = S\n  \
         Behavior = (v > id -> v <~ id) ++ (x < {k} -> x <-- (x + 1 + id) % {md}) ++ \
         (seen < {w} -> seen <- seen + 1); Behavior\n}}\n"
    )
}

/// That system with one property of each modality.
fn spec(n: u8, k: i32, md: i32, w: i32, lk: i32) -> String {
    format!(
        "{}check {{\n  A = always x < {k}\n  F = finally forall N a, v of a = 0\n  \
         G = fairly_inf x = 0\n  H = fairly exists N a, seen of a = {w}\n  \
         B = between (x = 1) and (x = 0), thereIs (v of 0 = 0)\n  \
         U = from (x = 1) until (x = 0), thereIs (seen of 0 > 0)\n  \
         L = always finally x = 0\n}}\n",
        system(n, k, md, w, lk)
    )
}

pub(crate) fn load(text: &str) -> (Model, Vec<crate::behaviour::Behaviour>) {
    let parsed = crate::syntax::parse(text);
    let spec = parsed.spec.expect("parses");
    let model = crate::model::resolve(&spec, text, &parse_externs(&Vec::<String>::new()).unwrap()).expect("resolves").0;
    let behs = crate::behaviour::compile_all(&model).expect("compiles").0;
    (model, behs)
}

/// States reaching a ψ-state, by iterating to the fixpoint over the kept lists.
fn reach_brute(g: &Graph, psi: &[bool]) -> Vec<bool> {
    let mut r = psi.to_vec();
    loop {
        let mut changed = false;
        for s in 0..g.states() as u32 {
            if !r[s as usize] && g.succs(s).iter().any(|&t| r[t as usize]) {
                r[s as usize] = true;
                changed = true;
            }
        }
        if !changed {
            return r;
        }
    }
}

fn agree(text: &str, symmetry: bool) {
    let (model, behs) = load(text);
    let stepper = Stepper::new(&model, &behs, false);
    let group = symmetry.then(|| crate::engine::symmetry::analyse(&model, &behs, false).group).flatten().map(Arc::new);
    let opts = |keep| ExploreOptions { threads: 1, keep_edges: keep, symmetry: group.clone(), ..Default::default() };
    let (Ok(kept), Ok(bare)) = (explore_initial(&stepper, &opts(true)), explore_initial(&stepper, &opts(false))) else {
        return;
    };
    if kept.error.is_some() {
        return;
    }
    let workers = Workers::new(2);
    let space = Recomputed { g: &bare, stepper: &stepper, symmetry: group.as_deref(), workers: &workers };
    assert_eq!(Space::states(&space), kept.states());
    let ids: Vec<u32> = (0..kept.states() as u32).collect();
    let many = space.succs_many(&ids);
    for s in 0..kept.states() as u32 {
        let mut v = Vec::new();
        space.succs(s, &mut v);
        assert_eq!(v, kept.succs(s), "successors of {s}\n{text}");
        assert_eq!(many[s as usize], v, "succs_many of {s}\n{text}");
    }
    let mut psi_of = |q: &crate::model::QPred| -> Result<Vec<bool>, String> {
        (0..kept.states() as u32)
            .map(|i| eval_pred(&stepper, &kept.store.get(i), &mut Default::default(), q).map_err(|e| e.0))
            .collect()
    };
    let none = crate::limits::Limits::none();
    for p in &model.properties {
        let Ok(want) = check_property(&kept as &dyn Space, p, &mut psi_of, &none) else { return };
        let got = check_property(&space, p, &mut psi_of, &none).expect("the same predicates");
        assert_eq!(got, want, "{}\n{text}", p.name);
        if matches!(p.modality, Modality::FairlyInf) {
            let reach = reach_brute(&kept, &psi_of(&p.pred).unwrap());
            match &got {
                Outcome::Violated(c) => {
                    let last = *c.path.last().unwrap();
                    assert_eq!(reach.iter().position(|&b| !b), Some(last as usize), "{text}");
                }
                _ => assert!(reach.iter().all(|&b| b), "{text}"),
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, .. ProptestConfig::default() })]

    #[test]
    fn recomputed_checks_agree_with_kept_lists(n in 2u8..4, k in 0i32..4, md in 1i32..5, w in 0i32..3, lk in -1i32..3) {
        let text = spec(n, k, md, w, lk);
        agree(&text, false);
        agree(&text, true);
    }
}
