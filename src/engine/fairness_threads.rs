//! Weak and strong fairness under the symmetry reduction (docs/semantics.md, D15): each agent
//! followed through the elements of the group that map successors to their representatives,
//! over a component (`threaded_fairness`), along a counterexample's loop (`threaded_loop`), and
//! into concrete states (`lifted_trace`).

use super::{Fairness, Product};
use crate::engine::check::Cex;
use crate::engine::path::Trace;
use crate::engine::state::StateStore;
use crate::engine::step::Stepper;
use crate::engine::symmetry::Group;
use crate::engine::symmetry::element::Element;
use crate::engine::symmetry::lift::{LiftError, lift, lift_loop};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// Whether a component (stamped `stamp` in `mark`, each member's index in `place`) holds a
/// fair run under the symmetry reduction, and for strong fairness the members left when it
/// does not (Emerson and Lei's refinement).
///
/// A node of the reduced graph is a representative; an edge to a successor carries the
/// element that maps the successor to its representative. An agent is followed by a thread:
/// the pairs (node, agent of its state), joined along each inner edge `(v, j) → (w, π(j))`.
/// The threads are a covering of the component by the group's permutations, so each
/// connected part of them is strongly connected, and the agents of a concrete run lying
/// over the component run along the parts; every part is met by every lift of the
/// component (docs/semantics.md, D15). So the component holds a weakly fair run exactly
/// when every part has an edge where its agent acts or a node where its agent is disabled;
/// strongly fair, when every part where its agent is enabled somewhere has an edge where it
/// acts, and otherwise the nodes where such a starved part's agent is enabled are removed
/// and the rest searched again.
#[allow(clippy::too_many_arguments)]
pub(super) fn threaded_fairness(
    p: &Product,
    notion: Fairness,
    members: &[u32],
    mark: &[u32],
    stamp: u32,
    place: &[u32],
    moves: &[Vec<u8>],
    en: &dyn Fn(u32) -> u64,
) -> (bool, Option<Vec<u32>>) {
    const ACTS: u8 = 1;
    const DISABLED: u8 = 2;
    const ENABLED: u8 = 4;
    let n = moves[0].len();
    let mut parts = Parts::new(members.len() * n);
    let mut buf = Vec::new();
    let mut acts: Vec<(usize, u64)> = Vec::new();
    for (i, &v) in members.iter().enumerate() {
        p.each_out(v, &mut buf, &mut |w, _, who, el| {
            if mark[w as usize] == stamp {
                let k = place[w as usize] as usize;
                for (j, &to) in moves[el as usize].iter().enumerate() {
                    parts.join(i * n + j, k * n + to as usize);
                }
                if who != 0 {
                    acts.push((i, who));
                }
            }
        });
    }
    let mut flags = vec![0u8; members.len() * n];
    for (i, &v) in members.iter().enumerate() {
        let e = en(v);
        for j in 0..n {
            let r = parts.root(i * n + j);
            flags[r] |= if e >> j & 1 == 1 { ENABLED } else { DISABLED };
        }
    }
    for &(i, who) in &acts {
        for j in (0..n).filter(|j| who >> j & 1 == 1) {
            let r = parts.root(i * n + j);
            flags[r] |= ACTS;
        }
    }
    let roots = (0..members.len() * n).filter(|&x| parts.root(x) == x);
    match notion {
        Fairness::Weak => (roots.into_iter().all(|r| flags[r] & (ACTS | DISABLED) != 0), None),
        _ => {
            let starved = |r: usize| flags[r] & (ENABLED | ACTS) == ENABLED;
            if !roots.into_iter().any(starved) {
                return (true, None);
            }
            let rest = members
                .iter()
                .enumerate()
                .filter(|&(i, &v)| {
                    let e = en(v);
                    !(0..n).any(|j| e >> j & 1 == 1 && starved(parts.root(i * n + j)))
                })
                .map(|(_, &v)| v)
                .collect();
            (false, Some(rest))
        }
    }
}

/// Disjoint sets (union by size, path halving).
struct Parts {
    up: Vec<u32>,
    size: Vec<u32>,
}

impl Parts {
    fn new(n: usize) -> Parts {
        Parts { up: (0..n as u32).collect(), size: vec![1; n] }
    }

    fn root(&mut self, mut x: usize) -> usize {
        while self.up[x] as usize != x {
            let g = self.up[self.up[x] as usize];
            self.up[x] = g;
            x = g as usize;
        }
        x
    }

    fn join(&mut self, a: usize, b: usize) {
        let (mut a, mut b) = (self.root(a), self.root(b));
        if a == b {
            return;
        }
        if self.size[a] < self.size[b] {
            std::mem::swap(&mut a, &mut b);
        }
        self.up[b] = a as u32;
        self.size[a] += self.size[b];
    }
}

/// One inner edge of a component: target, acceptance bits, agents, element.
type Hop = (u32, u64, u64, u32);

/// A cycle from the component's first member back to it through its members, under the
/// symmetry reduction: one *round* that takes, for each acceptance set, an edge meeting it
/// and in which every agent `j` of the first member, followed through the elements of the
/// edges, steps (or under weak fairness is disabled somewhere, or under strong fairness is
/// disabled everywhere on its thread's part). Every round of the concrete loop, whatever
/// agent it starts with in each role, is then fair, and so is the concrete lasso of rounds
/// (docs/semantics.md, D15). With the agent each step stands for (an agent of the step's
/// source) and its element.
pub(super) fn threaded_loop(
    p: &Product,
    notion: Fairness,
    members: &[u32],
    all: u64,
    en: &dyn Fn(u32) -> u64,
    moves: &[Vec<u8>],
) -> (Vec<u32>, Vec<Option<usize>>, Vec<u32>) {
    let inside = |v: u32| members.binary_search(&v).is_ok();
    let n = moves[0].len();
    let entry = members[0];
    let weak = notion == Fairness::Weak;
    let mut walk = Walk {
        cur: entry,
        at: (0..n as u8).collect(),
        need: (0..n).filter(|&j| !weak || en(entry) >> j & 1 == 1).collect(),
        need_acc: all,
        cycle: vec![entry],
        actors: vec![],
        els: vec![],
    };
    // The acceptance sets, then each role's agent, then back to the entry.
    while walk.need_acc != 0 {
        let want = walk.need_acc;
        let hops = path_to(p, &inside, walk.cur, &|h| h.1 & want != 0).expect("an accepting component meets every set");
        for h in hops {
            walk.go(h, None, moves, en, weak);
        }
    }
    let mut buf = Vec::new();
    while let Some(&j) = walk.need.first() {
        // Breadth-first over the thread of role `j`: pairs (node, agent), from where it is.
        let start = (walk.cur, walk.at[j]);
        let mut parent: FxHashMap<(u32, u8), ((u32, u8), Hop)> = FxHashMap::default();
        let mut queue = VecDeque::from([start]);
        let mut seen = rustc_hash::FxHashSet::default();
        seen.insert(start);
        let mut goal: Option<((u32, u8), Hop)> = None;
        let mut outs: Vec<Hop> = Vec::new();
        'bfs: while let Some((u, x)) = queue.pop_front() {
            outs.clear();
            p.each_out(u, &mut buf, &mut |w, acc, who, el| outs.push((w, acc, who, el)));
            for &h in &outs {
                if !inside(h.0) {
                    continue;
                }
                let y = moves[h.3 as usize][x as usize];
                if who_has(h.2, x) || (weak && !who_has(en(h.0), y)) {
                    goal = Some(((u, x), h));
                    break 'bfs;
                }
                if seen.insert((h.0, y)) {
                    parent.insert((h.0, y), ((u, x), h));
                    queue.push_back((h.0, y));
                }
            }
        }
        let Some((last, h)) = goal else {
            // No step of this role's agent on its thread's part: under strong fairness that
            // agent is disabled all along it (the component is fair), so it needs none.
            debug_assert!(!weak, "a weakly fair component gives every agent a step or a rest");
            walk.need.retain(|&k| k != j);
            continue;
        };
        let mut hops = vec![h];
        let mut x = last;
        while x != start {
            let (px, ph) = parent[&x];
            hops.push(ph);
            x = px;
        }
        hops.reverse();
        let k = hops.len();
        for (i, h) in hops.into_iter().enumerate() {
            walk.go(h, (i + 1 == k).then_some(j), moves, en, weak);
        }
        walk.need.retain(|&k| k != j);
    }
    while walk.cur != entry || walk.actors.is_empty() {
        let hops = path_to(p, &inside, walk.cur, &|h| h.0 == entry).expect("a strongly connected component");
        for h in hops {
            walk.go(h, None, moves, en, weak);
        }
    }
    (walk.cycle, walk.actors, walk.els)
}

fn who_has(agents: u64, a: u8) -> bool {
    agents >> a & 1 == 1
}

/// A loop being built by `threaded_loop`.
struct Walk {
    cur: u32,
    /// Where the agent that started the round in role `j` is now (an agent of `cur`).
    at: Vec<u8>,
    /// The roles still to step (or to rest, under weak fairness).
    need: Vec<usize>,
    need_acc: u64,
    cycle: Vec<u32>,
    actors: Vec<Option<usize>>,
    els: Vec<u32>,
}

impl Walk {
    /// Takes the edge `h` out of `cur`, with role `prefer`'s agent acting when it can.
    fn go(
        &mut self,
        (w, acc, who, el): Hop,
        prefer: Option<usize>,
        moves: &[Vec<u8>],
        en: &dyn Fn(u32) -> u64,
        weak: bool,
    ) {
        self.need_acc &= !acc;
        let at = &self.at;
        let acting = prefer
            .filter(|&j| who_has(who, at[j]))
            .or_else(|| self.need.iter().copied().find(|&j| who_has(who, at[j])))
            .map(|j| at[j] as usize)
            .or_else(|| (who != 0).then(|| who.trailing_zeros() as usize));
        if let Some(a) = acting {
            self.need.retain(|&j| self.at[j] as usize != a);
        }
        for x in self.at.iter_mut() {
            *x = moves[el as usize][*x as usize];
        }
        if weak {
            let e = en(w);
            let at = &self.at;
            self.need.retain(|&j| who_has(e, at[j]));
        }
        self.cycle.push(w);
        self.actors.push(acting);
        self.els.push(el);
        self.cur = w;
    }
}

/// Breadth-first from `from` over the nodes `inside` to the first edge `goal` accepts: the
/// edges there.
fn path_to(p: &Product, inside: &dyn Fn(u32) -> bool, from: u32, goal: &dyn Fn(&Hop) -> bool) -> Option<Vec<Hop>> {
    let mut parent: FxHashMap<u32, (u32, Hop)> = FxHashMap::default();
    let mut queue = VecDeque::from([from]);
    let mut seen = rustc_hash::FxHashSet::default();
    seen.insert(from);
    let (mut buf, mut outs) = (Vec::new(), Vec::new());
    while let Some(u) = queue.pop_front() {
        outs.clear();
        p.each_out(u, &mut buf, &mut |w, acc, who, el| outs.push((w, acc, who, el)));
        for &h in &outs {
            if !inside(h.0) {
                continue;
            }
            if goal(&h) {
                let mut hops = vec![h];
                let mut x = u;
                while x != from {
                    let (px, ph) = parent[&x];
                    hops.push(ph);
                    x = px;
                }
                hops.reverse();
                return Some(hops);
            }
            if seen.insert(h.0) {
                parent.insert(h.0, (u, h));
                queue.push_back(h.0);
            }
        }
    }
    None
}

/// The concrete lasso of a counterexample found under the reduction: its prefix lifted as
/// any path, its loop edge by edge through the elements `els` (indices into `elements`) its
/// check followed, with the agent of each step of the loop.
pub(crate) fn lifted_trace(
    stepper: &Stepper,
    store: &StateStore,
    group: &Group,
    elements: &[Element],
    c: &Cex,
    actors: &[Option<usize>],
    els: &[u32],
) -> Result<Trace, LiftError> {
    let ls = c.loop_start.expect("a lasso");
    let (mut states, _) = lift(stepper, store, group, &c.path[..=ls], None)?;
    let start = states.pop().expect("a lifted path has a state");
    let loop_actors: Option<Vec<usize>> = actors[ls..].iter().copied().collect();
    let loop_actors = loop_actors.ok_or(LiftError::NoStep(ls))?;
    let perms: Vec<&Element> = els.iter().map(|&e| &elements[e as usize]).collect();
    let (looped, who, at) = lift_loop(stepper, store, group, start, &c.path[ls..], &loop_actors, &perms)?;
    let mut all_actors = vec![None; states.len()];
    all_actors.extend(who.into_iter().map(Some));
    let loop_start = states.len() + at;
    states.extend(looped);
    let mut t = super::trace_with_actors(stepper, &states, &all_actors);
    t.loop_start = Some(loop_start);
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::super::{Automaton, FairOutcome, check};
    use super::*;
    use crate::engine::ltl::Watch;
    use crate::syntax::Ltl;

    /// Target, agents, element.
    type Edge = (u32, u64, u32);

    /// The representatives' loop of `tests/cases/fairness_rotation.labs`, by hand: in state 0
    /// agent 0 is the leader (x = 0) and agent 1 waits; in state 1 (x sorted: the waiter's 1
    /// before the leader's 2) the roles are swapped. The leader's steps 0 -> 1 and 1 -> 0
    /// reach states whose representatives swap the two agents (element 1); the waiter's
    /// step leads to state 2, where `done = 1` and only the leader moves.
    fn rotation(el: u32) -> (Vec<Vec<Edge>>, Vec<u64>) {
        let succ = vec![vec![(1, 1 << 0, el), (2, 1 << 1, 0)], vec![(0, 1 << 1, el), (2, 1 << 0, 0)], vec![(2, 1, 0)]];
        (succ, vec![0b11, 0b11, 0b01])
    }

    fn decide(notion: Fairness, moves: &[Vec<u8>]) -> FairOutcome {
        let (succ, en) = rotation(1);
        let aut = Automaton::within(&Ltl::Finally(Box::new(Ltl::Atom(0usize))), true, Watch::NONE).expect("built");
        let done = [false, false, true];
        let bits: Vec<&[bool]> = vec![&done];
        check(
            notion,
            3,
            1,
            &|s, out| out.extend_from_slice(&succ[s as usize]),
            &|s| en[s as usize],
            &aut,
            false,
            &bits,
            moves,
            &|| false,
        )
    }

    /// Followed through the swaps, the leader acts on both edges of the loop and the waiter,
    /// enabled throughout, never: no fair run avoids `done = 1`. Read without them (the
    /// identity on every edge), each agent of the representatives acts once in the loop, so
    /// the loop looks fair and `finally done = 1` violated: the wrong verdict.
    #[test]
    fn threads_through_the_permutations_decide_the_rotating_loop() {
        let swap = vec![vec![0u8, 1], vec![1, 0]];
        let naive = vec![vec![0u8, 1], vec![0, 1]];
        for notion in [Fairness::Weak, Fairness::Strong] {
            assert!(matches!(decide(notion, &swap), FairOutcome::Holds), "{notion:?} with the swaps");
            assert!(matches!(decide(notion, &naive), FairOutcome::Violated(..)), "{notion:?} read naively");
        }
    }

    /// Disjoint sets: joined classes share a root, others keep theirs.
    #[test]
    fn parts_join_classes() {
        let mut p = Parts::new(6);
        p.join(0, 3);
        p.join(3, 5);
        p.join(1, 2);
        assert_eq!(p.root(0), p.root(5));
        assert_eq!(p.root(1), p.root(2));
        assert_ne!(p.root(0), p.root(1));
        assert_ne!(p.root(4), p.root(0));
    }
}
