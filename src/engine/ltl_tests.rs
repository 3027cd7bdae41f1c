//! The tests of `ltl.rs`: the automata against a direct evaluation of formulas on lassos.

use super::*;
use crate::engine::check::Lists;
use proptest::prelude::*;

fn atom(i: usize) -> Ltl<usize> {
    Ltl::Atom(i)
}
fn b(f: Ltl<usize>) -> Box<Ltl<usize>> {
    Box::new(f)
}

#[test]
fn fixpoints_on_a_lasso() {
    // Positions 0 1 2, loop back to 1; atom 0 holds at 2 only.
    let at = |_: usize, i: usize| i == 2;
    let gf = Ltl::Always(b(Ltl::Finally(b(atom(0)))));
    let fg = Ltl::Finally(b(Ltl::Always(b(atom(0)))));
    assert!(holds_on_lasso(&gf, 3, Some(1), &at));
    assert!(!holds_on_lasso(&fg, 3, Some(1), &at));
    // A run ending in a deadlock at position 2 repeats it: `finally always` holds.
    assert!(holds_on_lasso(&fg, 3, None, &at));
    // `p unless q` with p never and q never: false; with p always: true.
    assert!(!holds_on_lasso(&Ltl::Unless(b(atom(0)), b(atom(1))), 3, Some(1), &|_, _| false));
    assert!(holds_on_lasso(&Ltl::Unless(b(atom(0)), b(atom(1))), 3, Some(1), &|k, _| k == 0));
    assert!(!holds_on_lasso(&Ltl::Until(b(atom(0)), b(atom(1))), 3, Some(1), &|k, _| k == 0));
}

/// A random small formula over atoms 0 and 1.
fn formula() -> impl Strategy<Value = Ltl<usize>> {
    prop_oneof![Just(atom(0)), Just(atom(1))].prop_recursive(4, 16, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|x| Ltl::Not(b(x))),
            inner.clone().prop_map(|x| Ltl::Always(b(x))),
            inner.clone().prop_map(|x| Ltl::Finally(b(x))),
            (inner.clone(), inner.clone()).prop_map(|(x, y)| Ltl::And(b(x), b(y))),
            (inner.clone(), inner.clone()).prop_map(|(x, y)| Ltl::Or(b(x), b(y))),
            (inner.clone(), inner.clone()).prop_map(|(x, y)| Ltl::Implies(b(x), b(y))),
            (inner.clone(), inner.clone()).prop_map(|(x, y)| Ltl::Until(b(x), b(y))),
            (inner.clone(), inner).prop_map(|(x, y)| Ltl::Unless(b(x), b(y))),
        ]
    })
}

/// Every run of at most `len` positions through `succ` from state 0 that is a lasso or
/// ends in a deadlock, as (states, loop start).
fn runs(succ: &[Vec<u32>], len: usize) -> Vec<(Vec<u32>, Option<usize>)> {
    let mut out = vec![];
    let mut stack = vec![vec![0u32]];
    while let Some(path) = stack.pop() {
        let last = *path.last().unwrap();
        if succ[last as usize].is_empty() {
            out.push((path.clone(), None));
            continue;
        }
        for (i, _) in path.iter().enumerate().filter(|&(_, &s)| succ[last as usize].contains(&s)) {
            out.push((path.clone(), Some(i)));
        }
        if path.len() < len {
            for &t in &succ[last as usize] {
                let mut p = path.clone();
                p.push(t);
                stack.push(p);
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// The automaton's verdict agrees with evaluating the formula on every short run, and
    /// its counterexample is a run of the graph that the direct evaluation judges violating.
    #[test]
    fn automaton_agrees_with_runs(
        f in formula(),
        edges in proptest::collection::vec(proptest::collection::vec(0u32..4, 0..3), 4),
        bits in proptest::collection::vec(proptest::collection::vec(any::<bool>(), 4), 2),
    ) {
        let succ: Vec<Vec<u32>> = edges.into_iter().map(|mut v| { v.sort(); v.dedup(); v }).collect();
        let space = Lists { succ: succ.clone(), initial: 1 };
        let aut = Automaton::of_negation(&f).unwrap();
        // The automaton numbers atoms by occurrence; atom `k` reads `bits[value of k]`.
        let bits: Vec<Vec<bool>> = f.atoms().iter().map(|&&a| bits[a].clone()).collect();
        let bits = &bits;
        let slices: Vec<&[bool]> = bits.iter().map(Vec::as_slice).collect();
        // On the fly, among the first `within` states only: a lasso found there is one of
        // the whole graph, and on the whole graph one is found exactly when the check
        // finds the formula violated.
        for within in 1..=4u32 {
            let Some(c) = lasso_within(&space, &aut, &slices, within, &|| false) else {
                prop_assert!(within < 4 || !matches!(check(&space, &aut, &slices, &|| false), Outcome::Violated(_)));
                continue;
            };
            prop_assert!(c.path.iter().all(|&s| s < within), "{:?} leaves 0..{}", c.path, within);
            for w in c.path.windows(2) {
                prop_assert!(succ[w[0] as usize].contains(&w[1]), "{:?} is not a path", c.path);
            }
            let (n, l) = match c.loop_start {
                Some(l) => {
                    prop_assert_eq!(c.path[l], *c.path.last().unwrap());
                    (c.path.len() - 1, Some(l))
                }
                None => {
                    prop_assert!(c.deadlock && succ[*c.path.last().unwrap() as usize].is_empty());
                    (c.path.len(), None)
                }
            };
            let path = &c.path;
            prop_assert!(!holds_on_lasso(&f, n, l, &|a, i| bits[a][path[i] as usize]), "{:?} does not violate {:?}", c, f);
            prop_assert!(matches!(check(&space, &aut, &slices, &|| false), Outcome::Violated(_)));
        }
        match check(&space, &aut, &slices, &|| false) {
            Outcome::Violated(c) => {
                for w in c.path.windows(2) {
                    prop_assert!(succ[w[0] as usize].contains(&w[1]), "{:?} is not a path", c.path);
                }
                let (n, l) = match c.loop_start {
                    Some(l) => (c.path.len() - 1, Some(l)),
                    None => {
                        prop_assert!(c.deadlock && succ[*c.path.last().unwrap() as usize].is_empty());
                        (c.path.len(), None)
                    }
                };
                if let Some(l) = l {
                    prop_assert_eq!(c.path[l], *c.path.last().unwrap());
                }
                let path = &c.path;
                prop_assert!(!holds_on_lasso(&f, n, l, &|a, i| bits[a][path[i] as usize]), "{:?} does not violate {:?}", c, f);
            }
            Outcome::Holds => {
                for (path, l) in runs(&succ, 8) {
                    let ok = holds_on_lasso(&f, path.len(), l, &|a, i| bits[a][path[i] as usize]);
                    prop_assert!(ok, "{:?} {:?} violates {:?}", path, l, f);
                }
            }
            Outcome::Unknown => prop_assert!(false, "unknown"),
        }
    }
}

/// What the automata of `f` and of its negation say about a prefix: `Some(true)` when no
/// state of the negation's can still accept (every continuation satisfies `f`),
/// `Some(false)` when none of the formula's can, as `simulate`'s marks read it.
fn prefix_verdict(f: &Ltl<usize>, prefix: &[Vec<bool>]) -> Option<bool> {
    let (pos, neg) = (Automaton::of_formula(f).unwrap(), Automaton::of_negation(f).unwrap());
    let (pos_live, neg_live) = (pos.nonempty(), neg.nonempty());
    let atoms = f.atoms();
    let (mut at_pos, mut at_neg, mut next) = (vec![0u32], vec![0u32], vec![]);
    for v in prefix {
        let value = |k: usize| v[*atoms[k]];
        pos.step(&at_pos, &value, &mut next);
        std::mem::swap(&mut at_pos, &mut next);
        neg.step(&at_neg, &value, &mut next);
        std::mem::swap(&mut at_neg, &mut next);
    }
    let live = |at: &[u32], live: &[bool]| at.iter().any(|&q| live[q as usize]);
    if !live(&at_neg, &neg_live) {
        Some(true)
    } else if !live(&at_pos, &pos_live) {
        Some(false)
    } else {
        None
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// A prefix called good is satisfied by every continuation, a bad one violated by every
    /// continuation: every lasso that extends it by up to 2 positions (any valuation of the
    /// two atoms at each), looping back anywhere, is evaluated directly.
    #[test]
    fn prefix_decisions_hold_for_every_continuation(
        f in formula(),
        prefix in proptest::collection::vec(proptest::collection::vec(any::<bool>(), 2), 1..4),
    ) {
        let Some(verdict) = prefix_verdict(&f, &prefix) else { return Ok(()) };
        let vals: Vec<Vec<bool>> = (0..4).map(|m| vec![m & 1 == 1, m & 2 == 2]).collect();
        let mut words: Vec<Vec<Vec<bool>>> = vec![prefix.clone()];
        for _ in 0..2 {
            let longer: Vec<_> = words.iter().filter(|w| w.len() == words.last().unwrap().len())
                .flat_map(|w| vals.iter().map(move |v| { let mut w = w.clone(); w.push(v.clone()); w })).collect();
            words.extend(longer);
        }
        let atoms = f.atoms();
        for w in &words {
            for l in 0..w.len() {
                let holds = holds_on_lasso(&f, w.len(), Some(l), &|k, i| w[i][*atoms[k]]);
                prop_assert_eq!(holds, verdict, "{:?} on {:?} looping at {}", f, w, l);
            }
        }
    }
}

#[test]
fn prefixes_decide_what_they_can() {
    let (p, q) = (vec![true, false], vec![false, true]);
    let until = Ltl::Until(b(atom(0)), b(atom(1)));
    assert_eq!(prefix_verdict(&until, &[p.clone(), q.clone()]), Some(true));
    assert_eq!(prefix_verdict(&until, &[p.clone(), vec![false, false]]), Some(false));
    assert_eq!(prefix_verdict(&until, &[p.clone(), p.clone()]), None);
    // No finite prefix decides recurrence or stabilisation.
    let gf = Ltl::Always(b(Ltl::Finally(b(atom(0)))));
    let fg = Ltl::Finally(b(Ltl::Always(b(atom(0)))));
    for w in [vec![p.clone()], vec![q.clone(), q.clone()]] {
        assert_eq!(prefix_verdict(&gf, &w), None);
        assert_eq!(prefix_verdict(&fg, &w), None);
    }
    assert_eq!(prefix_verdict(&Ltl::Always(b(atom(0))), &[p, q]), Some(false));
}

#[test]
fn automaton_sizes_are_small() {
    let gf = Ltl::Always(b(Ltl::Finally(b(atom(0)))));
    let a = Automaton::of_negation(&gf).unwrap();
    // ¬GFp = FG¬p: a waiting state and a committed one.
    assert!(a.states() <= 3, "{}", a.states());
    assert_eq!(a.atoms, 1);
}

/// The words `u·v^ω` over two atoms with `|u| ≤ 2` and `1 ≤ |v| ≤ 2`, as (positions, loop
/// start): every ultimately periodic word with a short lasso.
fn short_lassos() -> Vec<(Vec<[bool; 2]>, usize)> {
    let vals: Vec<[bool; 2]> = (0..4).map(|m| [m & 1 == 1, m & 2 == 2]).collect();
    let mut words: Vec<Vec<[bool; 2]>> = vec![vec![]];
    for len in 1..=4 {
        let longer: Vec<_> = words
            .iter()
            .filter(|w| w.len() == len - 1)
            .flat_map(|w| {
                vals.iter().map(move |v| {
                    let mut w = w.clone();
                    w.push(*v);
                    w
                })
            })
            .collect();
        words.extend(longer);
    }
    let mut out = vec![];
    for w in words.into_iter().filter(|w| !w.is_empty()) {
        for l in w.len().saturating_sub(2)..w.len().min(3) {
            out.push((w.clone(), l));
        }
    }
    out
}

/// Whether the degeneralised automaton accepts the lasso word (positions `0..n`, the last
/// followed by `loop_start`): in the product of its states with the positions, some
/// accepting transition reachable from (0, 0) lies on a cycle. `value(k, i)`: literal
/// atom `k` at position `i`.
fn degeneralised_accepts(d: &Degeneralised, n: usize, loop_start: usize, value: &dyn Fn(usize, usize) -> bool) -> bool {
    let next_pos = |i: usize| if i + 1 < n { i + 1 } else { loop_start };
    let node = |q: u32, i: usize| q as usize * n + i;
    let nodes = d.trans.len() * n;
    let mut succ: Vec<Vec<(usize, bool)>> = vec![vec![]; nodes];
    for (q, ts) in d.trans.iter().enumerate() {
        for i in 0..n {
            for t in ts.iter().filter(|t| t.lits.iter().all(|&(k, b)| value(k, i) == b)) {
                succ[node(q as u32, i)].push((node(t.next, next_pos(i)), t.accepting));
            }
        }
    }
    let reach_from = |s: usize| {
        let mut seen = vec![false; nodes];
        let mut todo = vec![s];
        while let Some(x) = todo.pop() {
            if !std::mem::replace(&mut seen[x], true) {
                todo.extend(succ[x].iter().map(|&(y, _)| y));
            }
        }
        seen
    };
    let start = reach_from(node(0, 0));
    (0..nodes).filter(|&x| start[x]).any(|x| succ[x].iter().any(|&(y, acc)| acc && reach_from(y)[x]))
}

/// Whether the degeneralised automaton of `f`'s negation accepts exactly the short lassos
/// that violate `f` (judged directly by `holds_on_lasso`), each of its states counting for
/// a state of the generalised automaton with the same moves.
fn degeneralised_agrees(f: &Ltl<usize>) -> Result<(), String> {
    let aut = Automaton::of_negation(f).unwrap();
    let d = aut.degeneralised();
    if d.origin[0] != 0 {
        return Err("the initial state counts for another".into());
    }
    for (q, ts) in d.trans.iter().enumerate() {
        let from = &aut.covers[d.origin[q] as usize];
        if let Some(t) =
            ts.iter().find(|t| !from.iter().any(|c| c.lits == t.lits && c.next == d.origin[t.next as usize]))
        {
            return Err(format!("{f:?}: {t:?} from {q} is no move of the generalised automaton"));
        }
    }
    let atoms = f.atoms();
    for (w, l) in short_lassos() {
        let value = |k: usize, i: usize| w[i][*atoms[k]];
        let violated = !holds_on_lasso(f, w.len(), Some(l), &value);
        if degeneralised_accepts(&d, w.len(), l, &value) != violated {
            return Err(format!("{f:?} on {w:?} looping at {l}: violated {violated}"));
        }
    }
    Ok(())
}

/// Negations with several `until`s met on different positions: the counter must meet the
/// acceptance sets in turn (e.g. ¬(GF a ∧ GF b) on (a ¬b · ¬a b)^ω).
#[test]
fn degeneralised_meets_the_acceptance_sets_in_turn() {
    let gf = |x: Ltl<usize>| Ltl::Always(b(Ltl::Finally(b(x))));
    let formulas = [
        Ltl::Not(b(Ltl::And(b(gf(atom(0))), b(gf(atom(1)))))),
        Ltl::Not(b(Ltl::And(b(gf(atom(0))), b(gf(Ltl::Not(b(atom(0)))))))),
        Ltl::Implies(b(gf(atom(0))), b(Ltl::Finally(b(Ltl::Always(b(atom(1))))))),
        Ltl::Not(b(Ltl::And(b(Ltl::Until(b(atom(0)), b(atom(1)))), b(gf(Ltl::Until(b(atom(1)), b(atom(0)))))))),
    ];
    for f in &formulas {
        degeneralised_agrees(f).unwrap();
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// The degeneralised automaton of a formula's negation accepts exactly the short
    /// lassos that violate the formula (judged directly by `holds_on_lasso`), and each of
    /// its states counts for a state of the generalised automaton with the same moves.
    #[test]
    fn degeneralised_accepts_the_violating_lassos(f in formula()) {
        if let Err(e) = degeneralised_agrees(&f) {
            prop_assert!(false, "{}", e);
        }
    }

    /// A run ending in a deadlock repeats its last valuation `b` forever: it violates the
    /// formula exactly when, after its prefix `w`, the automaton of the negation is in some
    /// state that accepts `b` repeated (`accepts_constant`).
    #[test]
    fn accepts_constant_judges_the_deadlocked_runs(f in formula()) {
        let aut = Automaton::of_negation(&f).unwrap();
        let atoms = f.atoms();
        for (w, _) in short_lassos() {
            let (prefix, last) = w.split_at(w.len() - 1);
            let mut at = vec![0u32];
            let mut next = vec![];
            for v in prefix {
                aut.step(&at, &|k| v[*atoms[k]], &mut next);
                std::mem::swap(&mut at, &mut next);
            }
            let accepted = at.iter().any(|&q| aut.accepts_constant(q, &|k| last[0][*atoms[k]]));
            let violated = !holds_on_lasso(&f, w.len(), None, &|k, i| w[i][*atoms[k]]);
            prop_assert_eq!(accepted, violated, "{:?} on {:?} then its last forever", f, w);
        }
    }
}

fn gf(x: Ltl<usize>) -> Ltl<usize> {
    Ltl::Always(b(Ltl::Finally(b(x))))
}
fn fg(x: Ltl<usize>) -> Ltl<usize> {
    Ltl::Finally(b(Ltl::Always(b(x))))
}

/// Conjunctions and disjunctions of the shapes the rewrites of `ltl_formula` merge (`G`, `F`,
/// `G F`, `F G`, `U`, `R` written as `¬(¬a U ¬b)`, `W`) over literals, sometimes negated whole.
fn merging_formula() -> impl Strategy<Value = Ltl<usize>> {
    let leaf = prop_oneof![Just(atom(0)), Just(atom(1)), Just(Ltl::Not(b(atom(0)))), Just(Ltl::Not(b(atom(1))))];
    let temporal = (0..8u8, leaf.clone(), leaf).prop_map(|(k, x, y)| match k {
        0 => Ltl::Always(b(x)),
        1 => Ltl::Finally(b(x)),
        2 => gf(x),
        3 => fg(x),
        4 => Ltl::Until(b(x), b(y)),
        5 => Ltl::Not(b(Ltl::Until(b(Ltl::Not(b(x))), b(Ltl::Not(b(y)))))),
        6 => Ltl::Unless(b(x), b(y)),
        _ => x,
    });
    (proptest::collection::vec((temporal, any::<bool>()), 1..6), any::<bool>()).prop_map(|(parts, negate)| {
        let mut it = parts.into_iter();
        let (first, _) = it.next().expect("at least one");
        let f = it.fold(first, |acc, (x, and)| if and { Ltl::And(b(acc), b(x)) } else { Ltl::Or(b(acc), b(x)) });
        if negate { Ltl::Not(b(f)) } else { f }
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Simplified, with implied obligations and dominated transitions dropped, the automata
    /// of formulas built for the rewrites still accept exactly the short lassos violating them
    /// (the negation's) and satisfying them (the formula's own, as the negation of `¬f`).
    #[test]
    fn rewritten_automata_accept_the_right_lassos(f in merging_formula()) {
        if let Err(e) = degeneralised_agrees(&f) {
            prop_assert!(false, "{}", e);
        }
        if let Err(e) = degeneralised_agrees(&Ltl::Not(b(f.clone()))) {
            prop_assert!(false, "¬: {}", e);
        }
    }
}

/// The sizes the rewrites give: a disjunction of recurrences is one recurrence, whose negation
/// is one stabilisation (a waiting state and a committed one); a conjunction of recurrences
/// needs one state and an acceptance set per recurrence, not 2^n states.
#[test]
fn recurrences_and_stabilisations_stay_small() {
    let any_of = |n: usize, f: &dyn Fn(Ltl<usize>) -> Ltl<usize>, and: bool| {
        (1..n).fold(
            f(atom(0)),
            |acc, i| if and { Ltl::And(b(acc), b(f(atom(i)))) } else { Ltl::Or(b(acc), b(f(atom(i)))) },
        )
    };
    let or13 = any_of(13, &gf, false);
    let neg = Automaton::of_negation(&or13).unwrap();
    assert!(neg.states() <= 2, "{}", neg.states());
    assert_eq!(neg.atoms(), 13);
    assert!(Automaton::of_formula(&or13).unwrap().states() <= 2);
    let and13 = any_of(13, &fg, true);
    assert!(Automaton::of_formula(&and13).unwrap().states() <= 2);
    let and6 = any_of(6, &gf, true);
    let pos = Automaton::of_formula(&and6).unwrap();
    assert_eq!(pos.states(), 1);
    assert_eq!(pos.all().count_ones(), 6);
}

/// A formula past the bound is refused with the sizes reached, quickly and without the
/// memory the whole tableau would take: 13 disjuncts `G F aᵢ ∧ bᵢ` give 3^13 ways of meeting
/// the negation's obligations from the first state.
#[test]
fn the_translation_is_bounded() {
    let f = (1..13).fold(Ltl::And(b(gf(atom(0))), b(atom(100))), |acc, i| {
        Ltl::Or(b(acc), b(Ltl::And(b(gf(atom(i))), b(atom(100 + i)))))
    });
    match Automaton::of_negation(&f) {
        Err(Refused::TooLarge { transitions, .. }) => assert!(transitions > MAX_TRANSITIONS),
        other => panic!("{:?}", other.map(|a| a.states())),
    }
    // The run's limits stop it too.
    let stopped = Watch { stopped: &|| true, progress: &|_, _| {} };
    assert!(matches!(Automaton::within(&f, true, stopped), Err(Refused::Stopped)));
}

/// Whether the deterministic automaton `aut` accepts the lasso word (positions `0..n`, the
/// last followed by `loop_start`): its one run, followed until a (state, position) pair
/// repeats, meets every acceptance set on the repeating part; no transition rejects.
fn deterministic_accepts(aut: &Automaton, n: usize, loop_start: usize, value: &dyn Fn(usize, usize) -> bool) -> bool {
    let mut seen: HashMap<(u32, usize), usize> = HashMap::new();
    let mut accs: Vec<u64> = Vec::new();
    let (mut q, mut i) = (0u32, 0usize);
    loop {
        if let Some(&at) = seen.get(&(q, i)) {
            return accs[at..].iter().fold(0, |a, b| a | b) & aut.all() == aut.all();
        }
        seen.insert((q, i), accs.len());
        let mut moves = Vec::new();
        aut.transitions(q, &|k| value(k, i), &mut |t, a| moves.push((t, a)));
        assert!(moves.len() <= 1, "a deterministic automaton has at most one move");
        let Some(&(t, a)) = moves.first() else { return false };
        accs.push(a);
        q = t;
        i = if i + 1 < n { i + 1 } else { loop_start };
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// A determinised automaton (of a formula's negation, or of the formula) is
    /// deterministic and accepts exactly the short lassos the original language has, judged
    /// directly by `holds_on_lasso` (the almost-sure check, docs/semantics.md, D15).
    #[test]
    fn determinised_automata_keep_their_language(f in formula()) {
        let atoms = f.atoms();
        for negate in [true, false] {
            let aut = if negate { Automaton::of_negation(&f) } else { Automaton::of_formula(&f) }.unwrap();
            let Some(d) = aut.determinised() else { continue };
            prop_assert!(d.deterministic(), "{:?}", f);
            for (w, l) in short_lassos() {
                let value = |k: usize, i: usize| w[i][*atoms[k]];
                let holds = holds_on_lasso(&f, w.len(), Some(l), &value);
                prop_assert_eq!(deterministic_accepts(&d, w.len(), l, &value), holds != negate,
                    "{:?} (negated: {}) on {:?} looping at {}", f, negate, w, l);
            }
        }
    }
}

/// The formulas the almost-sure check reads deterministically: `finally`, `until` and
/// `always finally` (the negation's or the formula's automaton), not `finally always`'s
/// negation.
#[test]
fn determinisable_forms() {
    let det = |f: &Ltl<usize>, negate: bool| {
        let a = if negate { Automaton::of_negation(f) } else { Automaton::of_formula(f) }.unwrap();
        a.deterministic() || a.determinised().is_some()
    };
    assert!(det(&Ltl::Finally(b(atom(0))), true));
    assert!(det(&Ltl::Until(b(atom(0)), b(atom(1))), true));
    assert!(det(&Ltl::Always(b(Ltl::Finally(b(atom(0))))), false));
    assert!(!det(&Ltl::Always(b(Ltl::Finally(b(atom(0))))), true));
}
