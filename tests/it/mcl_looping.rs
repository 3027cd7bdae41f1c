//! MCL's infinite looping operator `< R > @` (and `[ R ] -|`) in labs's evaluator: verdicts
//! derived by hand on small LTSs, lasso diagnostics, and random LTSs and regular formulas
//! compared with a brute-force search over bounded paths.

use labs::limits::Limits;
use labs::mcl::{self, Lts};
use proptest::prelude::*;

fn eval(query: &str, l: &Lts) -> mcl::Evaluation {
    let q = mcl::parse(query).unwrap_or_else(|e| panic!("{query}: {e:?}"));
    mcl::evaluate(&q, l.view(&l.adjacency()), &Limits::new(None, Some(100_000), None, None)).unwrap()
}

fn holds(query: &str, l: &Lts) -> bool {
    eval(query, l).holds
}

/// 0 -A-> 1 -B-> 2 -A-> 0, and 1 -C-> 3 -D-> 3.
const RING: &str = "des (0, 5, 4)\n(0, A, 1)\n(1, B, 2)\n(2, A, 0)\n(1, C, 3)\n(3, D, 3)\n";

#[test]
fn looping_verdicts_by_hand() {
    let l = mcl::read_aut(RING).unwrap();
    // The ring A B A A B A ...: infinitely many A's.
    assert!(holds("< true* . \"A\" > @", &l));
    // B comes back forever on the ring.
    assert!(holds("< true* . \"B\" > @", &l));
    // D forever in 3, reached by C.
    assert!(holds("< true* . \"D\" > @", &l));
    // No path takes C twice.
    assert!(!holds("< true* . \"C\" > @", &l));
    // Iterations must follow one another: A . B then A . B again is impossible (A B A A B).
    assert!(!holds("< \"A\" . \"B\" > @", &l));
    assert!(holds("< \"A\" . \"B\" . \"A\" > @", &l));
    assert!(holds("< \"A\" | \"B\" > @", &l));
    // From the initial state the path must start with an iteration: D is not reachable by D's.
    assert!(!holds("< \"D\" > @", &l));
    // The dual.
    assert!(holds("[ true* . \"C\" ] -|", &l));
    assert!(!holds("[ true* . \"D\" ] -|", &l));
    assert!(holds("not < true* . \"C\" > @", &l));
    // Inside a formula: after C, D loops.
    assert!(holds("< true* . \"C\" > < \"D\" > @", &l));
    assert!(holds("[ true* . \"C\" ] < \"D\" > @", &l));
    // A cycle that never completes an iteration does not count (A forever, no B).
    let a_loop = mcl::read_aut("des (0, 1, 1)\n(0, A, 0)\n").unwrap();
    assert!(!holds("< (\"A\")* . \"B\" > @", &a_loop));
    assert!(holds("< (\"A\")* . \"A\" > @", &a_loop));
    // An empty iteration does not count.
    assert!(!holds("< nil > @", &l));
}

#[test]
fn a_loop_binding_data_is_refused() {
    let e = mcl::parse("< true* . {A ?x:Nat} > @").unwrap_err();
    assert!(format!("{e:?}").contains("cannot reach the next iteration"), "{e:?}");
}

#[test]
fn the_diagnostic_is_a_lasso_through_an_iteration() {
    let l = mcl::read_aut(RING).unwrap();
    let ev = eval("< true* . \"D\" > @", &l);
    let d = ev.diagnostic.unwrap();
    let k = d.loop_start.expect("a lasso");
    assert_eq!(d.labels[..k], ["A", "C"]);
    // The loop stays in 3 (D's only), whichever automaton states it goes through.
    assert!(!d.labels[k..].is_empty() && d.labels[k..].iter().all(|x| x == "D"), "{d:?}");
    // Falsified by the dual: the same witness.
    let ev = eval("[ true* . \"D\" ] -|", &l);
    assert!(!ev.holds);
    let d = ev.diagnostic.unwrap();
    assert!(d.labels[d.loop_start.unwrap()..].iter().all(|x| x == "D"), "{d:?}");
    // A ring lasso: it goes back to a state of the path and its loop holds an A.
    let d = eval("< true* . \"A\" > @", &l).diagnostic.unwrap();
    let k = d.loop_start.unwrap();
    assert!(d.labels[k..].iter().any(|x| x == "A"));
    let (first, last) = (d.states[k], *d.states.last().unwrap());
    let lts_succ = l.adjacency();
    let back = lts_succ[last as usize].iter().any(|&(lab, to)| to == first && l.label(lab) == d.labels.last().unwrap());
    assert!(back, "{d:?}");
}

/// A small regular formula over the labels A and B.
#[derive(Clone, Debug)]
enum Re {
    Lab(char),
    Any,
    Seq(Box<Re>, Box<Re>),
    Alt(Box<Re>, Box<Re>),
    Star(Box<Re>),
}

impl Re {
    fn text(&self) -> String {
        match self {
            Re::Lab(c) => format!("\"{c}\""),
            Re::Any => "true".into(),
            Re::Seq(a, b) => format!("({} . {})", a.text(), b.text()),
            Re::Alt(a, b) => format!("({} | {})", a.text(), b.text()),
            Re::Star(a) => format!("({})*", a.text()),
        }
    }

    /// The ends `j` such that `w[i..j]` is in the language (a backtracking matcher).
    fn ends(&self, w: &[char], i: usize) -> Vec<usize> {
        let mut out = match self {
            Re::Lab(c) => (w.get(i) == Some(c)).then_some(i + 1).into_iter().collect(),
            Re::Any => (i < w.len()).then_some(i + 1).into_iter().collect(),
            Re::Seq(a, b) => a.ends(w, i).into_iter().flat_map(|j| b.ends(w, j)).collect(),
            Re::Alt(a, b) => [a.ends(w, i), b.ends(w, i)].concat(),
            Re::Star(a) => {
                let mut seen = vec![i];
                let mut todo = vec![i];
                while let Some(j) = todo.pop() {
                    for k in a.ends(w, j) {
                        if !seen.contains(&k) {
                            seen.push(k);
                            todo.push(k);
                        }
                    }
                }
                seen
            }
        };
        out.sort_unstable();
        out.dedup();
        out
    }
}

fn re() -> impl Strategy<Value = Re> {
    let leaf = prop_oneof![Just(Re::Lab('A')), Just(Re::Lab('B')), Just(Re::Any)];
    leaf.prop_recursive(3, 8, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Re::Seq(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Re::Alt(Box::new(a), Box::new(b))),
            inner.prop_map(|a| Re::Star(Box::new(a))),
        ]
    })
}

/// The brute-force reference: `R`-steps are the non-empty paths of at most `BOUND` labels
/// whose word `R` matches; a state loops when it has an `R`-step to a state that loops
/// (greatest fixed point over those finitely many steps).
fn brute(n: usize, edges: &[(usize, char, usize)], r: &Re) -> bool {
    const BOUND: usize = 7;
    let mut step = vec![vec![false; n]; n];
    for (s, from_s) in step.iter_mut().enumerate() {
        // Every path from s of length 1..=BOUND.
        let mut paths: Vec<(usize, Vec<char>)> = vec![(s, vec![])];
        for _ in 0..BOUND {
            let mut next = vec![];
            for (at, w) in &paths {
                for &(x, c, y) in edges {
                    if x == *at {
                        let mut w2 = w.clone();
                        w2.push(c);
                        if r.ends(&w2, 0).contains(&w2.len()) {
                            from_s[y] = true;
                        }
                        next.push((y, w2));
                    }
                }
            }
            paths = next;
        }
    }
    let mut alive = vec![true; n];
    loop {
        let next: Vec<bool> = (0..n).map(|s| (0..n).any(|t| alive[t] && step[s][t])).collect();
        if next == alive {
            return alive[0];
        }
        alive = next;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, .. ProptestConfig::default() })]

    #[test]
    fn looping_agrees_with_bounded_paths(
        n in 1usize..4,
        raw in proptest::collection::vec((0usize..3, prop_oneof![Just('A'), Just('B')], 0usize..3), 0..6),
        r in re(),
    ) {
        let edges: Vec<(usize, char, usize)> = raw.into_iter().map(|(x, c, y)| (x % n, c, y % n)).collect();
        let mut text = format!("des (0, {}, {n})\n", edges.len());
        for (x, c, y) in &edges {
            text.push_str(&format!("({x}, {c}, {y})\n"));
        }
        let l = mcl::read_aut(&text).unwrap();
        let q = format!("< {} > @", r.text());
        prop_assert_eq!(holds(&q, &l), brute(n, &edges, &r), "{}\n{}", q, text);
        let dual = format!("[ {} ] -|", r.text());
        prop_assert_eq!(holds(&dual, &l), !brute(n, &edges, &r));
    }
}

/// A chain 0 -B-> 1 -B-> … -B-> n-1, with an `A` loop on state 0 when `loop_at_start`.
fn chain(n: usize, loop_at_start: bool) -> Lts {
    let mut aut = format!("des (0, {}, {n})\n", n - 1 + usize::from(loop_at_start));
    if loop_at_start {
        aut.push_str("(0, A, 0)\n");
    }
    for i in 0..n - 1 {
        aut.push_str(&format!("({i}, B, {})\n", i + 1));
    }
    mcl::read_aut(&aut).unwrap()
}

/// `< R > @` stops exploring once a loop is reached from the state it is asked at: the `A`
/// loop on the initial state of a 50,000-state chain is found after a few thousand of the
/// product's nodes, the first time the product is solved. Without that loop the answer needs
/// every state of the chain.
#[test]
fn a_loop_near_the_start_is_found_without_the_whole_product() {
    let n = 50_000;
    let near = chain(n, true);
    for (query, holds) in [("< true* . \"A\" > @", true), ("[ true* . \"A\" ] -|", false)] {
        let e = eval(query, &near);
        assert_eq!(e.holds, holds, "{query}");
        assert!(e.states_explored < 5_000, "{query}: {} states explored", e.states_explored);
    }
    // A conjunct after the loop that would need every state (as the deadlock half of a
    // linear-time query does) is neither evaluated nor explained.
    let e = eval("([ true* . \"A\" ] -|) and (nu X . [ true ] X)", &near);
    assert!(!e.holds);
    assert!(e.states_explored < 5_000, "{} states explored", e.states_explored);
    let none = chain(n, false);
    let e = eval("< true* . \"A\" > @", &none);
    assert!(!e.holds);
    assert!(e.states_explored >= n, "{} states explored, of {n}", e.states_explored);
}
