//! The MCL evaluator (`labs::mcl`) on hand-made LTSs whose verdicts are derived by hand.

use labs::mcl::{self, Limits, Lts};

fn lts(text: &str) -> Lts {
    mcl::read_aut(text).unwrap()
}

fn holds(query: &str, l: &Lts) -> bool {
    let q = mcl::parse(query).unwrap_or_else(|e| panic!("{query}: {e:?}"));
    // A bound, so that a wrong (infinite) equation system fails instead of hanging.
    let limits = Limits { max_states: Some(100_000), ..Limits::default() };
    mcl::evaluate(&q, l.view(), &limits).unwrap().holds
}

/// 0 -A-> 1 -B-> 2 -A-> 0, and 1 -C-> 3 (3 is a deadlock).
const RING: &str = "des (0, 4, 4)\n(0, A, 1)\n(1, B, 2)\n(2, A, 0)\n(1, C, 3)\n";

#[test]
fn modalities_and_regular_formulas() {
    let l = lts(RING);
    assert!(holds("<\"A\"> true", &l));
    assert!(!holds("<\"B\"> true", &l));
    assert!(holds("[\"B\"] false", &l));
    assert!(holds("<\"A\" . \"B\"> true", &l));
    assert!(holds("<\"A\" . (\"B\" | \"C\")> [true] false", &l)); // C leads to the deadlock
    assert!(!holds("[true*] <true> true", &l)); // deadlock reachable (state 3)
    assert!(holds("<true*> [true] false", &l));
    assert!(holds("[true* . \"C\"] [true] false", &l));
    assert!(!holds("[true* . \"C\"] false", &l));
    assert!(holds("<(\"A\" . \"B\")+ . \"A\"> true", &l));
    assert!(holds("<\"A\" {1} . \"C\"> true", &l));
    assert!(holds("not <not (\"A\" or \"C\")> true", &l)); // only A leaves 0
}

#[test]
fn fixpoints_liveness_and_parameters() {
    let l = lts(RING);
    // Every path reaches C? No: A B A B ... avoids it.
    assert!(!holds("mu X . (<true> true and [not \"C\"] X)", &l));
    // Some path reaches the deadlock.
    assert!(holds("mu X . ([true] false or <true> X)", &l));
    // An infinite A/B path exists.
    assert!(holds("nu X . <\"A\" or \"B\"> X", &l));
    // Counting A's along the cycle: after two A steps from 0 we are in 0 again (A B A).
    assert!(holds("mu X (n: Nat := 0) . ((n = 2) or <\"A\"> X (n + 1) or <\"B\"> X (n))", &l));
    // With the count bounded (so that the equation system is finite): three A's never
    // lead to the deadlock, but one A then C does.
    assert!(!holds(
        "mu X (n: Nat := 0) . ((n < 3) and (((n = 3) and [true] false) or <\"A\"> X (n + 1) or <\"B\"> X (n)))",
        &l
    ));
    assert!(holds(
        "mu X (n: Nat := 0) . ((n < 3) and ([true] false or <\"A\"> X (n + 1) or <\"B\" or \"C\"> X (n)))",
        &l
    ));
}

#[test]
fn patterns_bind_offers() {
    // 0 -G !1 !-2-> 1 -G !2 !5-> 2 -H !TRUE-> 0
    let l = lts("des (0, 3, 3)\n(0, \"G !1 !-2\", 1)\n(1, \"G !2 !5\", 2)\n(2, \"H !TRUE\", 0)\n");
    assert!(holds("<{G !1 ?x:Int where x < 0}> true", &l));
    assert!(!holds("<{G !1 ?x:Nat}> true", &l)); // -2 is not a Nat
    assert!(holds("<{G ...}> true", &l));
    assert!(!holds("<{G !1}> true", &l)); // two offers, one given
    assert!(holds("<{G ?any ?y:Int}> <{G !(y + 4) ...}> true", &l));
    assert!(holds("[true*] [{H !true}] false", &l) == false);
    assert!(holds("nu Inv (s: Int := 0) . ((s >= 0 - 2) and [{G ?any ?w:Int}] Inv (w) and [not {G ...}] Inv (s))", &l));
    assert!(!holds("nu Inv (s: Int := 0) . ((s >= 0) and [{G ?any ?w:Int}] Inv (w) and [not {G ...}] Inv (s))", &l));
}
