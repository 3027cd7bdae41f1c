//! The MCL evaluator's diagnostics (`labs::mcl::Evaluation::diagnostic`) on hand-made LTSs:
//! each expected path or lasso is derived by hand from the LTS and the formula, and every
//! diagnostic is checked to be a path of the LTS.

use labs::limits::Limits;
use labs::mcl::{self, Diagnostic, Lts};

fn lts(text: &str) -> Lts {
    mcl::read_aut(text).unwrap()
}

fn diagnose(query: &str, l: &Lts) -> (bool, Diagnostic) {
    let q = mcl::parse(query).unwrap_or_else(|e| panic!("{query}: {e:?}"));
    let limits = Limits::new(None, Some(100_000), None, None);
    let ev = mcl::evaluate(&q, l.view(&l.adjacency()), &limits).unwrap();
    let d = ev.diagnostic.expect("a diagnostic");
    assert_is_a_path_of(&d, l);
    (ev.holds, d)
}

/// The diagnostic follows transitions of `l` from its initial state; a lasso's last label
/// leads back to the state where its loop starts.
fn assert_is_a_path_of(d: &Diagnostic, l: &Lts) {
    assert_eq!(d.states[0], l.initial);
    let step = |from: u32, label: &str, to: u32| {
        assert!(
            l.trans.iter().any(|&(s, a, t)| s == from && t == to && l.labels[a as usize] == label),
            "{from} -{label}-> {to} is not a transition: {d:?}"
        );
    };
    for (i, label) in d.labels.iter().enumerate() {
        let to = match d.loop_start {
            Some(k) if i + 1 == d.labels.len() => d.states[k],
            _ => d.states[i + 1],
        };
        step(d.states[i], label, to);
    }
    match d.loop_start {
        Some(k) => {
            assert_eq!(d.states.len(), d.labels.len(), "{d:?}");
            assert!(k < d.labels.len(), "{d:?}");
        }
        None => assert_eq!(d.states.len(), d.labels.len() + 1, "{d:?}"),
    }
}

/// 0 -A-> 1 -B-> 2 -A-> 0, and 1 -C-> 3 (3 is a deadlock).
const RING: &str = "des (0, 4, 4)\n(0, A, 1)\n(1, B, 2)\n(2, A, 0)\n(1, C, 3)\n";

#[test]
fn a_safety_violation_is_the_shortest_path_to_the_bad_state() {
    let l = lts(RING);
    // Deadlock freedom fails: the only deadlock, 3, is reached by A then C.
    let (holds, d) = diagnose("[true*] <true> true", &l);
    assert!(!holds);
    assert_eq!((d.states, d.labels, d.loop_start), (vec![0, 1, 3], vec!["A".into(), "C".into()], None));
    // "Never B": violated by A then B (the B step is the violation itself).
    let (holds, d) = diagnose("[true* . \"B\"] false", &l);
    assert!(!holds);
    assert_eq!(d.labels, ["A", "B"]);
}

#[test]
fn a_liveness_violation_is_a_lasso_or_a_deadlock() {
    // 0 -A-> 1 -A-> 0, 0 -B-> 2 -B-> 2: "every path takes B" fails on the A cycle.
    let l = lts("des (0, 4, 3)\n(0, A, 1)\n(1, A, 0)\n(0, B, 2)\n(2, B, 2)\n");
    let (holds, d) = diagnose("mu X . (<true> true and [not \"B\"] X)", &l);
    assert!(!holds);
    assert_eq!((d.states, d.labels, d.loop_start), (vec![0, 1], vec!["A".into(), "A".into()], Some(0)));
    // With the deadlock of RING: "every path reaches a B" fails by A, C into the deadlock
    // (the A B A cycle passes B, so the only counterexample ends in state 3).
    let l = lts(RING);
    let (holds, d) = diagnose("mu X . (<true> true and [not \"B\"] X)", &l);
    assert!(!holds);
    assert_eq!((d.states, d.labels, d.loop_start), (vec![0, 1, 3], vec!["A".into(), "C".into()], None));
}

#[test]
fn a_true_possibility_is_explained_by_a_witness() {
    let l = lts(RING);
    let (holds, d) = diagnose("<true* . \"C\"> true", &l);
    assert!(holds);
    assert_eq!(d.labels, ["A", "C"]);
    // An infinite A/B path: a lasso through the whole ring.
    let (holds, d) = diagnose("nu X . <\"A\" or \"B\"> X", &l);
    assert!(holds);
    assert_eq!((d.states, d.labels, d.loop_start), (vec![0, 1, 2], vec!["A".into(), "B".into(), "A".into()], Some(0)));
}

#[test]
fn parameters_are_followed_along_the_path() {
    // 0 -G !1-> 1 -G !2-> 2 -G !3-> 0: the sum of the offers exceeds 2 after the second step.
    let l = lts("des (0, 3, 3)\n(0, \"G !1\", 1)\n(1, \"G !2\", 2)\n(2, \"G !3\", 0)\n");
    let (holds, d) = diagnose("nu Inv (s: Nat := 0) . ((s <= 2) and [{G ?n:Nat}] Inv (s + n))", &l);
    assert!(!holds);
    assert_eq!(d.labels, ["G !1", "G !2"]);
    // The emitted form of a diagnostic reads back as the same path.
    assert_eq!(d.to_aut(), "des (0, 2, 3)\n(0, \"G !1\", 1)\n(1, \"G !2\", 2)\n");
}
