//! Accepting lassos of a product (a state graph × the Büchi automaton of a formula's
//! negation) found on the fly, as the product is built: Couvreur's search of strongly
//! connected components, which merges the acceptance bits of every edge closing a cycle into
//! the component's root and so stops at the first component whose edges meet every bit
//! (generalised acceptance needs no degeneralisation, and one pass, unlike a nested
//! depth-first search). Then the lasso: a shortest prefix among the nodes the search met, and
//! a cycle through every bit inside the component, as `ltl::check` builds on the whole graph.
//!
//! Nodes are `u32`s the caller gives meaning to; edges are asked for through a function that
//! may refuse (a budget, the run's limits, a run-time error), which ends the search without an
//! answer.

use super::check::Cex;
use super::explore::NO_PARENT;
use std::collections::{HashMap, VecDeque};

/// The search stopped without an answer.
#[derive(Debug)]
pub(super) struct Halt;

/// The edges of a product node, appended as (target, acceptance bits of the edge).
pub(super) type Edges<'a> = dyn FnMut(u32, &mut Vec<(u32, u64)>) -> Result<(), Halt> + 'a;

const UNSEEN: u32 = 0;
/// A node whose component is complete and accepts nothing.
const DEAD: u32 = u32::MAX;

/// A root of a component being built: its depth-first number, the acceptance bits met by the
/// edges inside the component so far, and those of the edge the search entered it by (inside
/// once a later root merges it with its parent's).
struct Root {
    num: u32,
    acc: u64,
    entry: u64,
}

/// One emptiness check, which may be run from several start nodes in turn (a node completed
/// from one start is not searched again).
pub(super) struct Emptiness {
    /// Each node's depth-first number (`UNSEEN`, `DEAD`).
    num: Vec<u32>,
    /// The nodes of the components not yet complete, in depth-first order.
    live: Vec<u32>,
    roots: Vec<Root>,
    count: u32,
    /// Every acceptance bit.
    all: u64,
    /// The accepting component found: the live nodes numbered from this one on.
    found: Option<u32>,
}

impl Emptiness {
    /// A search over nodes below `nodes` (more are made room for as they come).
    pub(super) fn new(all: u64, nodes: usize) -> Self {
        Emptiness { num: vec![UNSEEN; nodes], live: Vec::new(), roots: Vec::new(), count: 0, all, found: None }
    }

    fn num(&self, x: u32) -> u32 {
        self.num.get(x as usize).copied().unwrap_or(UNSEEN)
    }

    /// Whether a search has met `x`.
    fn met(&self, x: u32) -> bool {
        self.num(x) != UNSEEN
    }

    /// Whether `x` is in the accepting component found.
    pub(super) fn inside(&self, x: u32) -> bool {
        let n = self.num(x);
        self.found.is_some_and(|r| n != UNSEEN && n != DEAD && n >= r)
    }

    /// Searches the nodes reachable from `start` (nothing if it was met before); `true` once
    /// an accepting component is found (`lasso` then builds the run).
    pub(super) fn search(&mut self, start: u32, edges: &mut Edges) -> Result<bool, Halt> {
        if self.met(start) {
            return Ok(false);
        }
        // The edges still to follow of the nodes on the depth-first stack, each node's above
        // its parent's; a frame is (node, start of its edges).
        let mut pending: Vec<(u32, u64)> = Vec::new();
        let mut frames: Vec<(u32, usize)> = Vec::new();
        self.enter(start, 0, edges, &mut pending, &mut frames)?;
        while let Some(&(v, at)) = frames.last() {
            if pending.len() == at {
                frames.pop();
                if self.roots.last().is_some_and(|r| r.num == self.num(v)) {
                    // v's component is complete without accepting: none of it is searched again.
                    self.roots.pop();
                    while let Some(x) = self.live.pop() {
                        self.num[x as usize] = DEAD;
                        if x == v {
                            break;
                        }
                    }
                }
                continue;
            }
            let (w, acc) = pending.pop().expect("an edge");
            match self.num(w) {
                UNSEEN => self.enter(w, acc, edges, &mut pending, &mut frames)?,
                DEAD => {}
                n => {
                    // The edge closes a cycle: every root numbered above w's joins its component.
                    let mut met = acc;
                    while self.roots.last().is_some_and(|r| r.num > n) {
                        let r = self.roots.pop().expect("a root");
                        met |= r.acc | r.entry;
                    }
                    let top = self.roots.last_mut().expect("w's component has a root");
                    top.acc |= met;
                    if top.acc & self.all == self.all {
                        self.found = Some(top.num);
                        return Ok(true);
                    }
                }
            }
        }
        Ok(false)
    }

    fn enter(
        &mut self,
        v: u32,
        entry: u64,
        edges: &mut Edges,
        pending: &mut Vec<(u32, u64)>,
        frames: &mut Vec<(u32, usize)>,
    ) -> Result<(), Halt> {
        self.count += 1;
        if v as usize >= self.num.len() {
            self.num.resize(v as usize + 1, UNSEEN);
        }
        self.num[v as usize] = self.count;
        self.live.push(v);
        self.roots.push(Root { num: self.count, acc: 0, entry });
        let at = pending.len();
        edges(v, pending)?;
        // Followed from the end: in the order given.
        pending[at..].reverse();
        frames.push((v, at));
        Ok(())
    }

    /// The lasso through the accepting component found (`search` returned `true`): a shortest
    /// path through met nodes from one of `starts` to the component, then a cycle inside it
    /// through every acceptance bit, back to the path's last node. Product nodes, the cycle's
    /// first and last being that node.
    pub(super) fn lasso(&self, starts: &[u32], edges: &mut Edges) -> Result<(Vec<u32>, Vec<u32>), Halt> {
        let prefix = self.prefix(starts, edges)?;
        let entry = *prefix.last().expect("non-empty");
        let cycle = accepting_cycle(entry, &mut |x, out| edges(x, out), &|x| self.inside(x), self.all)?;
        Ok((prefix, cycle))
    }

    /// A shortest path through met nodes from one of `starts` to the accepting component
    /// found (`search` returned `true`), ending at its first node there.
    pub(super) fn prefix(&self, starts: &[u32], edges: &mut Edges) -> Result<Vec<u32>, Halt> {
        let mut parent: HashMap<u32, u32> = HashMap::new();
        let mut queue: VecDeque<u32> = VecDeque::new();
        for &s in starts {
            if self.met(s) && !parent.contains_key(&s) {
                parent.insert(s, NO_PARENT);
                queue.push_back(s);
            }
        }
        let mut buf = Vec::new();
        let entry = loop {
            let x = queue.pop_front().expect("a start reaches the component the search found from it");
            if self.inside(x) {
                break x;
            }
            buf.clear();
            edges(x, &mut buf)?;
            for &(y, _) in &buf {
                if self.met(y) && !parent.contains_key(&y) {
                    parent.insert(y, x);
                    queue.push_back(y);
                }
            }
        };
        let mut prefix = vec![entry];
        while let Some(&p) = parent.get(prefix.last().expect("non-empty")).filter(|&&p| p != NO_PARENT) {
            prefix.push(p);
        }
        prefix.reverse();
        Ok(prefix)
    }
}

/// A cycle from `entry` back to it through nodes where `inside` holds (a strongly connected
/// set whose inner edges meet every bit of `all`), whose edges meet every bit: the shortest
/// path to an edge with a missing bit, again until none is missing, then the shortest way back.
pub(super) fn accepting_cycle(
    entry: u32,
    edges: &mut Edges,
    inside: &dyn Fn(u32) -> bool,
    all: u64,
) -> Result<Vec<u32>, Halt> {
    let mut cycle = vec![entry];
    let mut cur = entry;
    let mut missing = all;
    let mut within = |x: u32, out: &mut Vec<(u32, u64)>| {
        let at = out.len();
        edges(x, out)?;
        let mut k = at;
        for i in at..out.len() {
            if inside(out[i].0) {
                out[k] = out[i];
                k += 1;
            }
        }
        out.truncate(k);
        Ok(())
    };
    loop {
        let closing = missing == 0;
        let goal = |_: u32, y: u32, acc: u64| if closing { y == entry } else { acc & missing != 0 };
        let (segment, acc) =
            bfs_to_edge(cur, &mut within, &goal)?.expect("an accepting component has a cycle through every bit");
        cycle.extend_from_slice(&segment[1..]);
        cur = *segment.last().expect("non-empty");
        missing &= !acc;
        if closing {
            return Ok(cycle);
        }
    }
}

/// The shortest path from `from` ending with an edge that `goal` accepts (at least one
/// edge), and that edge's acceptance bits.
fn bfs_to_edge(
    from: u32,
    edges: &mut Edges,
    goal: &dyn Fn(u32, u32, u64) -> bool,
) -> Result<Option<(Vec<u32>, u64)>, Halt> {
    let mut parent: HashMap<u32, u32> = HashMap::from([(from, NO_PARENT)]);
    let mut queue = VecDeque::from([from]);
    let mut buf = Vec::new();
    while let Some(x) = queue.pop_front() {
        buf.clear();
        edges(x, &mut buf)?;
        for &(y, acc) in &buf {
            if goal(x, y, acc) {
                let mut path = vec![y, x];
                let mut z = x;
                while parent[&z] != NO_PARENT {
                    z = parent[&z];
                    path.push(z);
                }
                path.reverse();
                return Ok(Some((path, acc)));
            }
            parent.entry(y).or_insert_with(|| {
                queue.push_back(y);
                x
            });
        }
    }
    Ok(None)
}

/// The run of states a lasso of product nodes (`prefix` ending at the cycle's first node)
/// follows, `state` giving a node's state: the prefix then the cycle, the loop starting where
/// the prefix ends; or, when the cycle stays in a state that `deadlock` says has no successor,
/// the path to that state, ending in the deadlock (the product may repeat it on the prefix
/// already, while the automaton moves on: those repetitions are not steps).
pub(super) fn run(prefix: &[u32], cycle: &[u32], state: &dyn Fn(u32) -> u32, deadlock: &dyn Fn(u32) -> bool) -> Cex {
    let loop_state = state(cycle[0]);
    if deadlock(loop_state) {
        let mut path: Vec<u32> = prefix.iter().map(|&x| state(x)).collect();
        let first = path.iter().position(|&s| s == loop_state).expect("the prefix reaches the deadlock");
        path.truncate(first + 1);
        return Cex { path, loop_start: None, deadlock: true };
    }
    let path: Vec<u32> = prefix.iter().chain(&cycle[1..]).map(|&x| state(x)).collect();
    Cex { path, loop_start: Some(prefix.len() - 1), deadlock: false }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Whether a cycle through `0..n` reachable from node 0 meets every bit of `all`: some
    /// strongly connected set's inner edges meet them all (brute force over reachability).
    fn brute(succ: &[Vec<(u32, u64)>], all: u64) -> bool {
        let n = succ.len();
        let mut reach = vec![vec![false; n]; n];
        for (x, r) in reach.iter_mut().enumerate() {
            let mut todo: Vec<usize> = succ[x].iter().map(|&(y, _)| y as usize).collect();
            while let Some(y) = todo.pop() {
                if !std::mem::replace(&mut r[y], true) {
                    todo.extend(succ[y].iter().map(|&(z, _)| z as usize));
                }
            }
        }
        let from0 = |x: usize| x == 0 || reach[0][x];
        (0..n).filter(|&x| from0(x) && reach[x][x]).any(|x| {
            let comp = |y: usize| reach[x][y] && reach[y][x];
            let met = (0..n)
                .filter(|&y| comp(y))
                .flat_map(|y| succ[y].iter().filter(|&&(z, _)| comp(z as usize)).map(|&(_, a)| a))
                .fold(0, |m, a| m | a);
            met & all == all
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        /// On random graphs with two acceptance bits: the search finds an accepting component
        /// exactly when one is reachable, and the lasso is a path of the graph from the start
        /// whose cycle meets both bits.
        #[test]
        fn the_search_finds_exactly_the_accepting_cycles(
            raw in proptest::collection::vec(proptest::collection::vec((0u32..6, 0u64..4), 0..4), 1..7),
        ) {
            let n = raw.len() as u32;
            let succ: Vec<Vec<(u32, u64)>> =
                raw.iter().map(|es| es.iter().map(|&(y, a)| (y % n, a)).collect()).collect();
            let all = 0b11;
            let mut edges = |x: u32, out: &mut Vec<(u32, u64)>| {
                out.extend_from_slice(&succ[x as usize]);
                Ok(())
            };
            let mut e = Emptiness::new(all, 0);
            let found = e.search(0, &mut edges).unwrap();
            prop_assert_eq!(found, brute(&succ, all));
            if found {
                let (prefix, cycle) = e.lasso(&[0], &mut edges).unwrap();
                prop_assert_eq!(prefix[0], 0);
                prop_assert_eq!(prefix.last(), cycle.first());
                prop_assert_eq!(cycle.first(), cycle.last());
                prop_assert!(cycle.len() >= 2);
                let edge = |x: u32, y: u32| succ[x as usize].iter().filter(move |e| e.0 == y).map(|e| e.1);
                for w in prefix.windows(2) {
                    prop_assert!(edge(w[0], w[1]).next().is_some(), "{:?} is not a path", prefix);
                }
                // Each step of the cycle may take any of the parallel edges: their bits together.
                let met = cycle.windows(2).fold(0, |m, w| m | edge(w[0], w[1]).fold(0, |a, b| a | b));
                prop_assert!(cycle.windows(2).all(|w| edge(w[0], w[1]).next().is_some()));
                prop_assert_eq!(met & all, all, "{:?}", cycle);
            }
        }
    }
}
