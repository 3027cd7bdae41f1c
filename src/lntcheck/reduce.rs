//! Minimisation of an explicit LTS, as SVL's `branching reduction`, `divbranching reduction` and
//! `divsharp reduction` do: the quotient modulo branching bisimulation (internal cycles
//! collapsed, divergence forgotten), modulo divergence-preserving branching bisimulation, or,
//! for `divsharp`, the latter with the transitions on the `hold` gates matched directly (strong
//! actions: never after internal steps), which keeps the priority operator applicable to the
//! result.
//!
//! The classes are found by signature refinement (Blom and Orzan's algorithm, `refine.rs`):
//! start from one block and split blocks by signature until nothing splits. The quotient is
//! then built here.

use super::LntcheckError;
use super::lts::Lts;
use super::refine::{Classes, Graph, refine};
use crate::limits::{Limits, StopReason};

/// Which reduction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// Branching bisimulation (`branching`): the states of an internal cycle are equivalent
    /// and the cycle leaves no trace.
    Branching,
    /// Divergence-preserving branching bisimulation (`divbranching`).
    DivBranching,
    /// Divergence-preserving sharp bisimulation (`divsharp`): labels of these gates are strong.
    DivSharp { hold: Vec<String> },
}

impl Reduction {
    /// The reduction an SVL script names (`branching`, `divbranching`, `divsharp`), with its
    /// `hold` gates.
    pub(crate) fn from_svl(name: &str, hold: &[String]) -> Option<Reduction> {
        match name {
            "branching" => Some(Reduction::Branching),
            "divbranching" => Some(Reduction::DivBranching),
            "divsharp" | "sharp" => Some(Reduction::DivSharp { hold: hold.to_vec() }),
            _ => None,
        }
    }
}

/// The minimal LTS of `lts` (its reachable part) modulo `r`; divergent classes keep an internal
/// self-loop, as CADP's divergence-preserving reductions do.
pub fn minimise(lts: &Lts, r: &Reduction, limits: &Limits) -> Result<Lts, LntcheckError> {
    minimise_on(lts, r, limits, 1)
}

/// `minimise`, refining on up to `threads` threads (the result does not depend on their
/// number).
pub fn minimise_on(lts: &Lts, r: &Reduction, limits: &Limits, threads: usize) -> Result<Lts, LntcheckError> {
    let stopped = |r: StopReason| LntcheckError::Stopped(format!("stopped while minimising ({r:?})"));
    // The states numbered breadth-first from the initial one, unreachable ones dropped (as
    // generated LTSs already are: those are used as they are).
    let renumbered;
    let lts = if lts.is_breadth_first() {
        lts
    } else {
        renumbered = lts.reachable();
        &renumbered
    };
    let n = lts.nstates;
    if n == 0 {
        return Ok(lts.clone());
    }
    let tau = lts.labels.iter().position(|l| l == "i").map(|x| x as u32);
    let strong: Vec<bool> = lts
        .labels
        .iter()
        .map(|l| match r {
            Reduction::Branching | Reduction::DivBranching => false,
            Reduction::DivSharp { hold } => l != "i" && hold.iter().any(|h| h == Lts::gate(l)),
        })
        .collect();
    let keep_divergence = *r != Reduction::Branching;
    let g = Graph::new(n, &lts.trans, tau, strong, keep_divergence);
    let Classes { class: block, count, diverges: div_of } = refine(&g, n, limits, threads).map_err(stopped)?;
    // The quotient: each block's transitions in the order its states (in state order) and
    // their successors give them, each (label, target block) once, inert steps removed, an
    // internal self-loop on divergent classes. Only the order within a block matters (the
    // result is renumbered breadth-first), so no set of all the quotient's transitions is kept.
    let mut start = vec![0usize; count + 1];
    for &b in &block {
        start[b as usize + 1] += 1;
    }
    for b in 0..count {
        start[b + 1] += start[b];
    }
    let mut members = vec![0u32; n];
    let mut fill = start.clone();
    for (s, &b) in block.iter().enumerate() {
        members[fill[b as usize]] = s as u32;
        fill[b as usize] += 1;
    }
    const DIVERGES: u32 = u32::MAX;
    let mut out = Lts::new();
    let mut labels = vec![None; lts.labels.len()];
    // (label, target block, position among the block's transitions)
    let mut from_block: Vec<(u32, u32, u32)> = vec![];
    for b in 0..count {
        from_block.clear();
        for &s in &members[start[b]..start[b + 1]] {
            for &(l, t) in g.succ(s) {
                let c = block[t as usize];
                if !(Some(l) == tau && c == b as u32) {
                    from_block.push((l, c, from_block.len() as u32));
                }
            }
            if div_of[s as usize] {
                from_block.push((DIVERGES, b as u32, from_block.len() as u32));
            }
        }
        // Each (label, target) once, at its first position.
        from_block.sort_unstable();
        from_block.dedup_by_key(|x| (x.0, x.1));
        from_block.sort_unstable_by_key(|x| x.2);
        for &(l, c, _) in &from_block {
            if l == DIVERGES {
                out.add(b as u32, "i", b as u32);
            } else {
                out.add_mapped(&mut labels, &lts.labels, b as u32, l, c);
            }
        }
    }
    // Blocks are numbered in state order, so the initial state's block is 0.
    debug_assert_eq!(block[0], 0);
    out.nstates = count;
    Ok(out.reachable())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn min(l: &Lts, r: &Reduction) -> Lts {
        minimise(l, r, &Limits::none()).expect("no bound")
    }

    fn lts(trans: &[(u32, &str, u32)]) -> Lts {
        let mut l = Lts::new();
        for &(s, x, t) in trans {
            l.add(s, x, t);
            l.nstates = l.nstates.max(s as usize + 1).max(t as usize + 1);
        }
        l
    }

    fn sorted(l: &Lts) -> Vec<(u32, String, u32)> {
        let mut v: Vec<_> = l.trans.iter().map(|&(s, x, t)| (s, l.label(x).to_string(), t)).collect();
        v.sort();
        v
    }

    #[test]
    fn inert_steps_disappear_and_choices_made_by_internal_steps_stay() {
        // 0 -i-> 1 -a-> 2: the internal step is inert.
        let m = min(&lts(&[(0, "i", 1), (1, "a", 2)]), &Reduction::DivBranching);
        assert_eq!(sorted(&m), [(0, "a".to_string(), 1)]);
        // a.b + i.c: the internal step decides (no b after it): not inert.
        let m = min(&lts(&[(0, "a", 1), (1, "b", 2), (0, "i", 3), (3, "c", 4)]), &Reduction::DivBranching);
        assert_eq!((m.nstates, m.trans.len()), (4, 4), "{:?}", sorted(&m));
        // i.a + a: the internal step is inert (the state after it can do what 0 does).
        let m = min(&lts(&[(0, "i", 1), (1, "a", 2), (0, "a", 2)]), &Reduction::DivBranching);
        assert_eq!(sorted(&m), [(0, "a".to_string(), 1)]);
    }

    #[test]
    fn divergence_is_kept_as_an_internal_loop() {
        // 0 -i-> 1 -i-> 0, 0 -a-> 2: the cycle is inert but divergent.
        let m = min(&lts(&[(0, "i", 1), (1, "i", 0), (0, "a", 2)]), &Reduction::DivBranching);
        assert_eq!(sorted(&m), [(0, "a".to_string(), 1), (0, "i".to_string(), 0)]);
        // Without the cycle, a divergent and a non-divergent state are told apart.
        let m = min(&lts(&[(0, "b", 1), (0, "c", 2), (1, "i", 1), (1, "a", 3), (2, "a", 3)]), &Reduction::DivBranching);
        assert_eq!(m.nstates, 4, "{:?}", sorted(&m));
    }

    #[test]
    fn branching_forgets_internal_cycles() {
        // An abandoned attempt: 0 -i-> 1 -i-> 0 with the step taken from 1 only; the cycle's
        // states are one class, with no internal loop left.
        let m = min(&lts(&[(0, "i", 1), (1, "i", 0), (1, "a", 2)]), &Reduction::Branching);
        assert_eq!(sorted(&m), [(0, "a".to_string(), 1)]);
        // A state whose only moves form an internal cycle is a deadlock once reduced.
        let m = min(&lts(&[(0, "a", 1), (1, "i", 2), (2, "i", 1)]), &Reduction::Branching);
        assert_eq!(sorted(&m), [(0, "a".to_string(), 1)]);
        // divbranching keeps the divergence of the same system.
        let m = min(&lts(&[(0, "a", 1), (1, "i", 2), (2, "i", 1)]), &Reduction::DivBranching);
        assert_eq!(sorted(&m), [(0, "a".to_string(), 1), (1, "i".to_string(), 1)]);
        assert_eq!(Reduction::from_svl("branching", &[]), Some(Reduction::Branching));
        assert_eq!(Reduction::from_svl("divbranching", &[]), Some(Reduction::DivBranching));
    }

    #[test]
    fn hold_gates_are_not_matched_after_internal_steps() {
        // 0 -i-> 1 -G !1-> 2 and 0 -G !1-> 2 also directly: inert for divbranching; for
        // divsharp with G strong, 0 and 1 differ only if their direct G moves differ: here
        // both have one, so still one class.
        let l = lts(&[(0, "i", 1), (1, "G !1", 2), (0, "G !1", 2)]);
        assert_eq!(min(&l, &Reduction::DivBranching).nstates, 2);
        let sharp = Reduction::DivSharp { hold: vec!["G".into()] };
        assert_eq!(min(&l, &sharp).nstates, 2);
        // 0 -i-> 1 -G-> 2: for divsharp 0 cannot do G itself, so the step is not inert.
        let l = lts(&[(0, "i", 1), (1, "G", 2)]);
        assert_eq!(min(&l, &Reduction::DivBranching).nstates, 2);
        assert_eq!(sorted(&min(&l, &sharp)), [(0, "i".to_string(), 1), (1, "G".to_string(), 2)]);
    }

    #[test]
    fn the_result_is_branching_bisimilar_to_the_input_on_visible_labels() {
        // Two copies of a small system that differ only by inert steps minimise to the same LTS.
        let a = lts(&[(0, "a", 1), (1, "i", 2), (2, "b", 0), (1, "c", 3), (2, "c", 3)]);
        let b = lts(&[(0, "i", 4), (4, "a", 1), (1, "i", 2), (2, "b", 0), (1, "c", 3), (2, "c", 3)]);
        let (ma, mb) = (min(&a, &Reduction::DivBranching), min(&b, &Reduction::DivBranching));
        assert!(Lts::bisimilar(&ma, &mb), "{:?} vs {:?}", sorted(&ma), sorted(&mb));
        assert_eq!(ma.nstates, 3);
    }

    /// Why `divsharp` with the prioritised gates held: branching bisimulation is not a
    /// congruence for priorities. In `i.(a + b) + b` the internal step is inert, so the
    /// minimised process is `a + b`, where `a > b` removes `b`; in the process itself `b` is
    /// possible first, before `a` is.
    #[test]
    fn priorities_need_the_held_gates_strong() {
        let p = lts(&[(0, "i", 1), (1, "a", 2), (1, "b", 3), (0, "b", 3)]);
        let chains =
            vec![vec![super::super::lts::prio_pattern("a").unwrap(), super::super::lts::prio_pattern("b").unwrap()]];
        let sizes = |r: &Reduction| {
            let whole = min(&p.prio(&chains), r);
            let leaf_first = min(&min(&p, r).prio(&chains), r);
            (whole, leaf_first)
        };
        let (whole, leaf_first) = sizes(&Reduction::DivBranching);
        assert!(!Lts::bisimilar(&whole, &leaf_first), "{:?} vs {:?}", sorted(&whole), sorted(&leaf_first));
        let (whole, leaf_first) = sizes(&Reduction::DivSharp { hold: vec!["a".into(), "b".into()] });
        assert!(Lts::bisimilar(&whole, &leaf_first), "{:?} vs {:?}", sorted(&whole), sorted(&leaf_first));
    }

    /// Signature refinement from the definitions, state by state: the states a state reaches
    /// by inert steps and whether they include a cycle are found by search, nothing is shared
    /// between states or rounds.
    fn reference(l: &Lts, r: &Reduction) -> Lts {
        let l = l.reachable();
        let n = l.nstates;
        let adj = l.adjacency();
        let tau = |x: u32| l.label(x) == "i";
        let strong = |x: u32| match r {
            Reduction::DivSharp { hold } => !tau(x) && hold.iter().any(|h| h == Lts::gate(l.label(x))),
            _ => false,
        };
        let mut block = vec![0u32; n];
        let mut count = 1;
        let mut div = vec![false; n];
        loop {
            let inert = |s: usize, x: u32, t: u32| tau(x) && block[s] == block[t as usize];
            let inert_reach = |s: usize| {
                let mut seen = vec![false; n];
                let mut todo = vec![s];
                seen[s] = true;
                while let Some(u) = todo.pop() {
                    for &(x, t) in &adj[u] {
                        if inert(u, x, t) && !seen[t as usize] {
                            seen[t as usize] = true;
                            todo.push(t as usize);
                        }
                    }
                }
                seen
            };
            // Keyed by (block, divergence, signature).
            let mut ids: std::collections::HashMap<_, u32> = Default::default();
            let mut next = vec![0; n];
            for s in 0..n {
                let reach = inert_reach(s);
                let mut sig = vec![];
                let mut cycle = false;
                for u in (0..n).filter(|&u| reach[u]) {
                    for &(x, t) in &adj[u] {
                        if inert(u, x, t) {
                            // u -i-> t inside the inert part: a cycle when t reaches u back.
                            cycle |= inert_reach(t as usize)[u];
                        } else if !strong(x) {
                            sig.push((x, block[t as usize]));
                        }
                    }
                }
                sig.extend(adj[s].iter().filter(|&&(x, _)| strong(x)).map(|&(x, t)| (x, block[t as usize])));
                sig.sort_unstable();
                sig.dedup();
                div[s] = cycle && *r != Reduction::Branching;
                let k = ids.len() as u32;
                let key: (u32, bool, Vec<(u32, u32)>) = (block[s], div[s], sig);
                next[s] = *ids.entry(key).or_insert(k);
            }
            block = next;
            if ids.len() == count {
                break;
            }
            count = ids.len();
        }
        let mut out = Lts::new();
        let mut seen = std::collections::HashSet::new();
        for (s, succ) in adj.iter().enumerate() {
            for &(x, t) in succ {
                let (b, c) = (block[s], block[t as usize]);
                if !(tau(x) && b == c) && seen.insert((b, x, c)) {
                    out.add(b, l.label(x), c);
                }
            }
            if div[s] && seen.insert((block[s], u32::MAX, block[s])) {
                out.add(block[s], "i", block[s]);
            }
        }
        out.nstates = count;
        out.reachable()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 2000, ..Default::default() })]

        /// `minimise` (blocks refined only when a state or a target of theirs changed block,
        /// one-state blocks never, signatures shared by an inert component) gives the LTS,
        /// numbering included, that the refinement from the definitions gives.
        #[test]
        fn minimise_is_the_refinement_from_the_definitions(
            n in 1usize..9,
            raw in proptest::collection::vec((0u32..9, 0usize..5, 0u32..9), 0..24),
            which in 0usize..3,
        ) {
            const LABELS: [&str; 5] = ["i", "i", "a", "b", "G !1"];
            let mut l = Lts::new();
            for &(s, x, t) in &raw {
                l.add(s % n as u32, LABELS[x], t % n as u32);
            }
            l.nstates = n;
            let r = [Reduction::Branching, Reduction::DivBranching, Reduction::DivSharp { hold: vec!["G".into()] }][which].clone();
            let (got, want) = (min(&l, &r), reference(&l, &r));
            proptest::prop_assert_eq!(got.nstates, want.nstates);
            proptest::prop_assert_eq!(sorted(&got), sorted(&want));
            // A breadth-first numbered input is used as it is: the same result.
            let bfs = l.reachable();
            proptest::prop_assert!(bfs.is_breadth_first());
            let again = min(&bfs, &r);
            proptest::prop_assert_eq!(again.nstates, want.nstates);
            proptest::prop_assert_eq!(sorted(&again), sorted(&want));
            // Only an input that renumbering leaves as it is counts as breadth-first.
            let named = |x: &Lts| x.trans.iter().map(|&(s, a, t)| (s, x.label(a).to_string(), t)).collect::<Vec<_>>();
            if l.is_breadth_first() {
                proptest::prop_assert_eq!(named(&bfs), named(&l));
                proptest::prop_assert_eq!(bfs.nstates, l.nstates);
            }
        }
    }
}
