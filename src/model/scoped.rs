//! The scoped patterns (`between (Q) and (R), P`, `from (Q) until (R), P`) as linear-time
//! formulas over their predicates, so that a back end that checks linear-time formulas checks
//! them too (the derivation is in docs/semantics.md, "Scoped patterns as linear-time
//! formulas"; the native engine's monitor, `engine::check::mon_step`, stays the reference).

use super::{Modality, Pattern, QPred};
use crate::syntax::ltl::Ltl;

/// The pattern inside the scope, over atoms of type `A`.
#[derive(Clone, Debug)]
pub(crate) enum Inner<A> {
    ThereIs,
    Always,
    /// `S precedes P`, with `S`.
    Precedes(A),
}

fn bx<A>(f: Ltl<A>) -> Box<Ltl<A>> {
    Box::new(f)
}

fn not<A>(f: Ltl<A>) -> Ltl<A> {
    Ltl::Not(bx(f))
}

fn and<A>(f: Ltl<A>, g: Ltl<A>) -> Ltl<A> {
    Ltl::And(bx(f), bx(g))
}

/// `Seg ∧ always (R → Seg)` where `Seg = ¬Open unless (Open ∧ Int)`, `Open = Q ∧ ¬R`: the
/// monitor is idle at the start and at every R-state, an interval opens at the first Open
/// state after that, and `Int` says the interval opened here is no violation; it reads the run
/// only up to the next R-state, which closes the interval. `closed_only`: `between` (only
/// intervals that R closes count).
pub(crate) fn scoped_ltl<A: Clone>(closed_only: bool, inner: &Inner<A>, q: &A, r: &A, p: &A) -> Ltl<A> {
    let at = |x: &A| Ltl::Atom(x.clone());
    let open = || and(at(q), not(at(r)));
    let closes = || Ltl::Finally(bx(at(r)));
    let int = match inner {
        // Violation: no P before the closing R (which must come, for `between`).
        Inner::ThereIs if closed_only => not(Ltl::Until(bx(not(at(p))), bx(at(r)))),
        Inner::ThereIs => not(Ltl::Unless(bx(not(at(p))), bx(at(r)))),
        // P up to the closing R (or the interval never closes, for `between`).
        Inner::Always if closed_only => Ltl::Or(bx(Ltl::Until(bx(at(p)), bx(at(r)))), bx(Ltl::Always(bx(not(at(r)))))),
        Inner::Always => Ltl::Unless(bx(at(p)), bx(at(r))),
        // Violation: a P-state without S, before any S-state and before R (then R comes,
        // for `between`).
        Inner::Precedes(s) => {
            let quiet = and(not(at(s)), not(at(r)));
            let early_p = and(at(p), and(not(at(s)), not(at(r))));
            let bad = Ltl::Until(bx(quiet), bx(early_p));
            not(if closed_only { and(bad, closes()) } else { bad })
        }
    };
    let seg = || Ltl::Unless(bx(not(open())), bx(and(open(), int.clone())));
    and(seg(), Ltl::Always(bx(Ltl::Implies(bx(at(r)), bx(seg())))))
}

/// A scoped property as a linear-time formula over its predicates (`None` for the other
/// modalities); `pred` is the property's predicate (the pattern's P).
pub fn as_ltl(modality: &Modality, pred: &QPred) -> Option<Ltl<QPred>> {
    let (closed_only, open, close, pattern) = match modality {
        Modality::Between { open, close, pattern } => (true, open, close, pattern),
        Modality::FromUntil { open, close, pattern } => (false, open, close, pattern),
        _ => return None,
    };
    let inner = match pattern {
        Pattern::ThereIs => Inner::ThereIs,
        Pattern::Always => Inner::Always,
        Pattern::Precedes(s) => Inner::Precedes(s.clone()),
    };
    Some(scoped_ltl(closed_only, &inner, open, close, pred))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::check::{Bits, Pat, Scope, mon, mon_step};
    use crate::engine::ltl::holds_on_lasso;
    use proptest::prelude::*;

    /// The native monitor's verdict on one run (a lasso, or a run ending in a deadlock that
    /// repeats its last position): violated when it reaches BAD, or, for `from … until …
    /// thereIs`, when the run's repeated part stays in an open interval.
    fn monitor_violates(scope: Scope, pat: Pat, bits: &[Bits], loop_start: Option<usize>) -> bool {
        let n = bits.len();
        let next = |i: usize| if i + 1 < n { i + 1 } else { loop_start.unwrap_or(n - 1) };
        let mut seen: Vec<(usize, u8)> = vec![];
        let (mut i, mut m) = (0, mon_step(scope, pat, mon::IDLE, bits[0]));
        loop {
            if m == mon::BAD {
                return true;
            }
            if let Some(k) = seen.iter().position(|&x| x == (i, m)) {
                let open_forever = seen[k..].iter().all(|&(_, m)| m == mon::OPEN);
                return scope == Scope::FromUntil && pat == Pat::ThereIs && open_forever;
            }
            seen.push((i, m));
            i = next(i);
            m = mon_step(scope, pat, m, bits[i]);
        }
    }

    /// Atoms: 0 = Q, 1 = R, 2 = P, 3 = S.
    fn formula(scope: Scope, pat: Pat) -> Ltl<usize> {
        let inner = match pat {
            Pat::ThereIs => Inner::ThereIs,
            Pat::Always => Inner::Always,
            Pat::Precedes => Inner::Precedes(3),
        };
        scoped_ltl(scope == Scope::Between, &inner, &0, &1, &2)
    }

    fn agree(scope: Scope, pat: Pat, bits: &[Bits], loop_start: Option<usize>) -> bool {
        let f = formula(scope, pat);
        let atoms: Vec<usize> = f.atoms().into_iter().copied().collect();
        let value = |k: usize, i: usize| {
            let b = bits[i];
            [b.q, b.r, b.p, b.s][atoms[k]]
        };
        holds_on_lasso(&f, bits.len(), loop_start, &value) != monitor_violates(scope, pat, bits, loop_start)
    }

    fn bits(v: u8) -> Bits {
        Bits { q: v & 1 != 0, r: v & 2 != 0, p: v & 4 != 0, s: v & 8 != 0 }
    }

    const ALL: [(Scope, Pat); 6] = [
        (Scope::Between, Pat::ThereIs),
        (Scope::Between, Pat::Always),
        (Scope::Between, Pat::Precedes),
        (Scope::FromUntil, Pat::ThereIs),
        (Scope::FromUntil, Pat::Always),
        (Scope::FromUntil, Pat::Precedes),
    ];

    #[test]
    fn hand_cases() {
        let (q, r, p, qp) = (bits(1), bits(2), bits(4), bits(5));
        let none = bits(0);
        // Q (with P), Q again (without P), R: the interval opened at 0 had its P; a Q inside an
        // open interval opens nothing.
        let run = [qp, q, r];
        assert!(agree(Scope::Between, Pat::ThereIs, &run, None));
        assert!(!monitor_violates(Scope::Between, Pat::ThereIs, &run, None));
        // Q, then R without P: violated; never closed: only `from … until` violates.
        assert!(monitor_violates(Scope::Between, Pat::ThereIs, &[q, none, r], None));
        assert!(!monitor_violates(Scope::Between, Pat::ThereIs, &[q, none], Some(1)));
        assert!(monitor_violates(Scope::FromUntil, Pat::ThereIs, &[q, none], Some(1)));
        for (scope, pat) in ALL {
            for run in [&[q, none, r][..], &[q, none][..], &[qp, q, r][..], &[p, q, p, r, q][..]] {
                for loop_start in [None, Some(0), Some(run.len() - 1)] {
                    assert!(agree(scope, pat, run, loop_start), "{scope:?} {pat:?} {run:?} {loop_start:?}");
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

        /// Every scoped pattern: its formula holds on a random run exactly when the native
        /// monitor finds no violation on it.
        #[test]
        fn formula_agrees_with_the_monitor(
            raw in proptest::collection::vec(0u8..16, 1..9),
            back in proptest::option::of(0usize..8),
        ) {
            let run: Vec<Bits> = raw.iter().map(|&v| bits(v)).collect();
            let loop_start = back.map(|b| b % run.len());
            for (scope, pat) in ALL {
                prop_assert!(agree(scope, pat, &run, loop_start), "{:?} {:?} {:?} {:?}", scope, pat, raw, loop_start);
            }
        }
    }
}
