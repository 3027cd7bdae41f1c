//! Property tests of the LTS minimisation (`lntcheck::reduce`) on random small LTSs.

use labs::lntcheck::lts::Lts;
use labs::lntcheck::reduce::{Reduction, minimise};
use proptest::prelude::*;

fn build(n: usize, trans: &[(usize, usize, usize)]) -> Lts {
    const LABELS: [&str; 4] = ["i", "a", "b", "G !1"];
    let mut l = Lts::new();
    for &(s, x, t) in trans {
        l.add((s % n) as u32, LABELS[x % LABELS.len()], (t % n) as u32);
    }
    l.nstates = n;
    l
}

/// Visible label sequences of length up to `k` from the initial state (internal steps skipped).
fn weak_traces(l: &Lts, k: usize) -> std::collections::BTreeSet<Vec<String>> {
    let adj = l.adjacency();
    let closure = |set: &std::collections::BTreeSet<u32>| {
        let mut out = set.clone();
        let mut todo: Vec<u32> = set.iter().copied().collect();
        while let Some(s) = todo.pop() {
            for &(x, t) in &adj[s as usize] {
                if l.label(x) == "i" && out.insert(t) {
                    todo.push(t);
                }
            }
        }
        out
    };
    let mut result = std::collections::BTreeSet::new();
    let mut frontier = vec![(vec![], closure(&[0u32].into_iter().collect()))];
    for _ in 0..k {
        let mut next = vec![];
        for (trace, states) in &frontier {
            let mut by_label: std::collections::BTreeMap<String, std::collections::BTreeSet<u32>> = Default::default();
            for &s in states {
                for &(x, t) in &adj[s as usize] {
                    if l.label(x) != "i" {
                        by_label.entry(l.label(x).to_string()).or_default().insert(t);
                    }
                }
            }
            for (lab, targets) in by_label {
                let mut tr: Vec<String> = trace.clone();
                tr.push(lab);
                result.insert(tr.clone());
                next.push((tr, closure(&targets)));
            }
        }
        frontier = next;
    }
    result
}

proptest! {
    #[test]
    fn minimisation_is_idempotent_and_keeps_the_visible_traces(
        n in 1usize..7,
        trans in prop::collection::vec((0usize..7, 0usize..4, 0usize..7), 0..16),
        sharp in any::<bool>(),
    ) {
        let l = build(n, &trans);
        let r = if sharp { Reduction::DivSharp { hold: vec!["G".into()] } } else { Reduction::DivBranching };
        let m = minimise(&l, &r, &labs::limits::Limits::none()).unwrap();
        let reachable = l.reachable();
        prop_assert!(m.nstates <= reachable.nstates);
        let again = minimise(&m, &r, &labs::limits::Limits::none()).unwrap();
        prop_assert_eq!((again.nstates, again.trans.len()), (m.nstates, m.trans.len()));
        prop_assert!(Lts::bisimilar(&again, &m));
        // Branching bisimilar LTSs have the same weak traces.
        prop_assert_eq!(weak_traces(&m, 4), weak_traces(&reachable, 4));
    }

    #[test]
    fn without_internal_steps_it_is_strong_minimisation(
        n in 1usize..7,
        trans in prop::collection::vec((0usize..7, 1usize..4, 0usize..7), 0..16),
    ) {
        let l = build(n, &trans);
        let m = minimise(&l, &Reduction::DivBranching, &labs::limits::Limits::none()).unwrap();
        prop_assert!(Lts::bisimilar(&m, &l.reachable()));
        // Minimal: no two states of the result are strongly bisimilar.
        let again = minimise(&m, &Reduction::DivBranching, &labs::limits::Limits::none()).unwrap();
        prop_assert_eq!(again.nstates, m.nstates);
    }
}
