//! Property checking on the explored graph (docs/semantics.md, D12; scoped patterns:
//! docs/language.md §6).
//!
//! Predicates are evaluated once per state into bit vectors; each modality is a graph
//! search on top of them. Scoped patterns (`between`/`from … until`) use a small monitor
//! run in product with the state graph (see `Mon`).

use super::explore::{Graph, NO_PARENT};
use super::node_set::NodeSet;
use std::collections::VecDeque;

/// A counterexample: state ids from an initial state; `loop_start` is the index in the
/// path of the state the loop goes back to (the last state equals it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Cex {
    pub(crate) path: Vec<u32>,
    pub(crate) loop_start: Option<usize>,
    pub(crate) deadlock: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    Holds,
    Violated(Cex),
    Unknown,
}

/// A state graph the checks search: states `0..states()` in BFS order, the first
/// `initial()` of them initial. Successors are what an implementation makes them: the lists
/// of an explored graph that kept them (`Graph`), or recomputed from the state store
/// (`recompute::Recomputed`), so that no check needs memory per transition.
pub(crate) trait Space: Sync {
    fn states(&self) -> usize;
    fn initial(&self) -> usize;
    /// Whether every reachable state is stored and expanded.
    fn complete(&self) -> bool;
    /// The distinct successors of the expanded state `s`, in increasing id order, appended
    /// to `out`.
    fn succs(&self, s: u32, out: &mut Vec<u32>);
    /// Path of state ids from an initial state to `s` (BFS parents: a shortest one).
    fn path_to(&self, s: u32) -> Vec<u32>;
    /// `succs` of each of `ids` (an implementation may compute them on several threads).
    fn succs_many(&self, ids: &[u32]) -> Vec<Vec<u32>> {
        ids.iter()
            .map(|&s| {
                let mut v = Vec::new();
                self.succs(s, &mut v);
                v
            })
            .collect()
    }
}

impl Space for Graph {
    fn states(&self) -> usize {
        Graph::states(self)
    }
    fn initial(&self) -> usize {
        self.n_initial
    }
    fn complete(&self) -> bool {
        Graph::complete(self)
    }
    fn succs(&self, s: u32, out: &mut Vec<u32>) {
        debug_assert!(self.has_edges, "successor lists were kept");
        out.extend_from_slice(Graph::succs(self, s));
    }
    fn path_to(&self, s: u32) -> Vec<u32> {
        Graph::path_to(self, s)
    }
}

/// A graph given by its successor lists (the tests' graphs); `path_to` is a shortest path.
#[cfg(test)]
pub(crate) struct Lists {
    pub(crate) succ: Vec<Vec<u32>>,
    pub(crate) initial: usize,
}

#[cfg(test)]
impl Space for Lists {
    fn states(&self) -> usize {
        self.succ.len()
    }
    fn initial(&self) -> usize {
        self.initial
    }
    fn complete(&self) -> bool {
        true
    }
    fn succs(&self, s: u32, out: &mut Vec<u32>) {
        let mut l = self.succ[s as usize].clone();
        l.sort_unstable();
        l.dedup();
        out.extend(l);
    }
    fn path_to(&self, s: u32) -> Vec<u32> {
        let mut parent = vec![NO_PARENT; self.succ.len()];
        let mut seen = vec![false; self.succ.len()];
        let mut q: VecDeque<u32> = (0..self.initial as u32).collect();
        q.iter().for_each(|&i| seen[i as usize] = true);
        while let Some(x) = q.pop_front() {
            for &t in &self.succ[x as usize] {
                if !seen[t as usize] {
                    seen[t as usize] = true;
                    parent[t as usize] = x;
                    q.push_back(t);
                }
            }
        }
        assert!(seen[s as usize], "a path reaches {s}");
        path_from(&parent, s)
    }
}

/// `always ψ`: the first violating state in BFS order (shortest path).
pub(crate) fn always(g: &dyn Space, psi: &[bool]) -> Outcome {
    match psi.iter().position(|&b| !b) {
        Some(i) => Outcome::Violated(Cex { path: g.path_to(i as u32), loop_start: None, deadlock: false }),
        None if !g.complete() => Outcome::Unknown,
        None => Outcome::Holds,
    }
}

/// States from which some ψ-state is reachable: one search of the strongly connected
/// components, which are completed successors first, so that whether a component reaches ψ
/// is known when it is completed (no predecessor lists).
fn can_reach(g: &dyn Space, psi: &[bool]) -> Vec<bool> {
    let mut buf = Vec::new();
    super::scc::reaching(
        g.states(),
        0..g.states() as u32,
        |v, f| {
            buf.clear();
            g.succs(v, &mut buf);
            for &w in &buf {
                f(w);
            }
        },
        &|v| psi[v as usize],
    )
}

/// `fairly ψ`: every state reachable through ψ-free paths can reach ψ.
pub(crate) fn fairly(g: &dyn Space, psi: &[bool]) -> Outcome {
    if !g.complete() {
        return Outcome::Unknown;
    }
    let reach = can_reach(g, psi);
    // BFS from the initial states, not going through ψ-states.
    let n = g.states();
    let mut parent = vec![NO_PARENT; n];
    let mut seen = vec![false; n];
    let mut q = VecDeque::new();
    for i in 0..g.initial() as u32 {
        seen[i as usize] = true;
        q.push_back(i);
    }
    let mut buf = Vec::new();
    while let Some(s) = q.pop_front() {
        if !reach[s as usize] {
            return Outcome::Violated(Cex { path: path_from(&parent, s), loop_start: None, deadlock: false });
        }
        if psi[s as usize] {
            continue;
        }
        buf.clear();
        g.succs(s, &mut buf);
        for &t in &buf {
            if !seen[t as usize] {
                seen[t as usize] = true;
                parent[t as usize] = s;
                q.push_back(t);
            }
        }
    }
    Outcome::Holds
}

/// `fairly_inf ψ`: every reachable state can reach ψ.
pub(crate) fn fairly_inf(g: &dyn Space, psi: &[bool]) -> Outcome {
    if !g.complete() {
        return Outcome::Unknown;
    }
    let reach = can_reach(g, psi);
    match reach.iter().position(|&b| !b) {
        Some(i) => Outcome::Violated(Cex { path: g.path_to(i as u32), loop_start: None, deadlock: false }),
        None => Outcome::Holds,
    }
}

/// The path from a start to `s` along `parent` (a start's parent is `NO_PARENT`).
pub(crate) fn path_from(parent: &[u32], mut s: u32) -> Vec<u32> {
    let mut p = vec![s];
    while parent[s as usize] != NO_PARENT {
        s = parent[s as usize];
        p.push(s);
    }
    p.reverse();
    p
}

/// `finally ψ`: violated iff a ψ-free path from an initial state reaches a deadlock or a
/// cycle (D12).
pub(crate) fn finally(g: &dyn Space, psi: &[bool]) -> Outcome {
    if !g.complete() {
        return Outcome::Unknown;
    }
    let succ = |s: u32, out: &mut Vec<u32>| g.succs(s, out);
    let allowed = |s: u32| !psi[s as usize];
    let found = lassos(g.states(), g.initial(), &succ, &allowed);
    if !found.dead && !found.cycle {
        return Outcome::Holds;
    }
    let starts: Vec<u32> = (0..g.initial() as u32).collect();
    let sub = SubGraph {
        n: g.states(),
        succ: &succ,
        allowed: &allowed,
        cycles: found.cycle,
        many: Some(&|ids: &[u32]| g.succs_many(ids)),
    };
    match bad_path(&sub, &starts) {
        Some(c) => Outcome::Violated(c),
        None => Outcome::Holds,
    }
}

/// What `lassos` found on the paths from the initial nodes through allowed nodes.
pub(crate) struct Lassos {
    /// One reaches a node without successors.
    pub(crate) dead: bool,
    /// One reaches a cycle.
    pub(crate) cycle: bool,
}

/// Whether a path from the first `initial` nodes through `allowed` nodes reaches a node
/// without successors or a cycle: one depth-first search with a colour per node (on the
/// stack, finished), each node's successors computed once, stopped at the first cycle.
/// Where it finds one, `bad_path` finds the shortest (and knows whether to look for cycles);
/// where it does not (the common case of a property that holds), that costs no
/// breadth-first search, no components and no parents.
pub(crate) fn lassos(
    n: usize,
    initial: usize,
    succ: &dyn Fn(u32, &mut Vec<u32>),
    allowed: &dyn Fn(u32) -> bool,
) -> Lassos {
    const WHITE: u8 = 0;
    const GREY: u8 = 1;
    const BLACK: u8 = 2;
    let mut colour = vec![WHITE; n];
    let mut found = Lassos { dead: false, cycle: false };
    // The allowed successors still to visit of the nodes on the stack, each frame's after its
    // parent's; a frame is (node, start of its successors).
    let mut kids: Vec<u32> = Vec::new();
    let mut frames: Vec<(u32, usize)> = Vec::new();
    let mut buf = Vec::new();
    let mut enter = |s: u32, colour: &mut Vec<u8>, kids: &mut Vec<u32>, frames: &mut Vec<(u32, usize)>| {
        colour[s as usize] = GREY;
        buf.clear();
        succ(s, &mut buf);
        frames.push((s, kids.len()));
        kids.extend(buf.iter().copied().filter(|&t| allowed(t)));
        buf.is_empty()
    };
    for root in 0..initial as u32 {
        if !allowed(root) || colour[root as usize] != WHITE {
            continue;
        }
        found.dead |= enter(root, &mut colour, &mut kids, &mut frames);
        while let Some(&(s, start)) = frames.last() {
            if kids.len() == start {
                colour[s as usize] = BLACK;
                frames.pop();
                continue;
            }
            let t = kids.pop().expect("a successor");
            match colour[t as usize] {
                GREY => {
                    found.cycle = true;
                    return found;
                }
                WHITE => found.dead |= enter(t, &mut colour, &mut kids, &mut frames),
                _ => {}
            }
        }
    }
    found
}

/// A graph given by closures, for the generic lasso search.
pub(crate) struct SubGraph<'a> {
    pub(crate) n: usize,
    pub(crate) succ: &'a dyn Fn(u32, &mut Vec<u32>),
    /// Nodes the path may use (their successors are known); a maximal finite path ends at
    /// one without successors.
    pub(crate) allowed: &'a dyn Fn(u32) -> bool,
    /// Whether a cycle may be reachable (`false`: no component search).
    pub(crate) cycles: bool,
    /// `succ` of many nodes at once (on several threads), for the breadth-first search.
    pub(crate) many: Option<&'a SuccsMany<'a>>,
}

/// The successor lists of many nodes.
pub(crate) type SuccsMany<'a> = dyn Fn(&[u32]) -> Vec<Vec<u32>> + 'a;

/// Nodes whose successors `bad_path` asks for at once.
const BFS_WINDOW: usize = 1 << 14;

/// The shortest found path from `starts` through allowed nodes that ends in a dead node, or
/// a lasso (prefix + cycle) through allowed nodes; `None` if neither exists.
///
/// Memory per node: a parent, a place in the breadth-first order and a component number
/// (4 bytes each) and a few bits; these searches run over every state of an exploration.
pub(crate) fn bad_path(sg: &SubGraph, starts: &[u32]) -> Option<Cex> {
    let n = sg.n;
    // `UNSEEN` until the search visits a node; a start's parent is `NO_PARENT`.
    let mut parent = vec![UNSEEN; n];
    // The breadth-first order, also the queue (from `head`).
    let mut order = Vec::new();
    for &s in starts {
        if (sg.allowed)(s) && parent[s as usize] == UNSEEN {
            parent[s as usize] = NO_PARENT;
            order.push(s);
        }
    }
    let mut buf = Vec::new();
    let mut first_dead: Option<u32> = None;
    let mut head = 0;
    while head < order.len() {
        // The successors of the next nodes of the queue, computed together when `many` can
        // share them out; then taken in queue order, as one node at a time would.
        let end = if sg.many.is_some() { (head + BFS_WINDOW).min(order.len()) } else { head + 1 };
        let lists = match sg.many {
            Some(many) => many(&order[head..end]),
            None => {
                buf.clear();
                (sg.succ)(order[head], &mut buf);
                vec![std::mem::take(&mut buf)]
            }
        };
        for (k, list) in lists.into_iter().enumerate() {
            let s = order[head + k];
            if first_dead.is_none() && list.is_empty() {
                first_dead = Some(s);
            }
            for &t in &list {
                if (sg.allowed)(t) && parent[t as usize] == UNSEEN {
                    parent[t as usize] = s;
                    order.push(t);
                }
            }
        }
        head = end;
    }
    let dead_cex = first_dead.map(|d| Cex { path: path_from(&parent, d), loop_start: None, deadlock: true });
    if !sg.cycles {
        return dead_cex;
    }
    // Cycles: strongly connected components of the visited subgraph; a node is on a cycle
    // when its component has two nodes or more, or when it has an edge to itself.
    let mut in_big = NodeSet::new(n);
    let comp = {
        let in_sub = |t: u32| parent[t as usize] != UNSEEN && (sg.allowed)(t);
        super::scc::components_noting(
            n,
            order.iter().copied(),
            |v, f| {
                buf.clear();
                (sg.succ)(v, &mut buf);
                for &w in &buf {
                    if in_sub(w) {
                        f(w);
                    }
                }
            },
            |members| {
                if members.len() > 1 {
                    members.iter().for_each(|&w| in_big.insert(w));
                }
            },
        )
        .comp
    };
    let best = order.iter().copied().find(|&s| {
        in_big.contains(s) || {
            buf.clear();
            (sg.succ)(s, &mut buf);
            buf.contains(&s)
        }
    }); // `order` is BFS order: the first is the closest
    drop(order);
    let lasso = best.map(|c| {
        let cc = comp[c as usize];
        // Shortest cycle through c inside its component.
        let mut par: rustc_hash::FxHashMap<u32, u32> = Default::default();
        let mut q = VecDeque::from([c]);
        let mut end = None;
        'bfs: while let Some(s) = q.pop_front() {
            buf.clear();
            (sg.succ)(s, &mut buf);
            for &t in &buf.clone() {
                if t == c {
                    end = Some(s);
                    break 'bfs;
                }
                if (sg.allowed)(t) && comp[t as usize] == cc && !par.contains_key(&t) {
                    par.insert(t, s);
                    q.push_back(t);
                }
            }
        }
        let mut cyc = vec![c];
        let mut s = end.expect("cycle");
        while s != c {
            cyc.push(s);
            s = par[&s];
        }
        cyc.push(c);
        cyc.reverse(); // c … c
        let mut path = path_from(&parent, c);
        let ls = path.len() - 1;
        path.extend_from_slice(&cyc[1..]);
        Cex { path, loop_start: Some(ls), deadlock: false }
    });
    match (dead_cex, lasso) {
        (Some(d), Some(l)) => Some(if l.path.len() < d.path.len() { l } else { d }),
        (d, l) => d.or(l),
    }
}

/// The parent a breadth-first search gives a node it has not visited (state ids stay below
/// 2^31, the store's limit).
pub(crate) const UNSEEN: u32 = NO_PARENT - 1;

/// The scope kind of a pattern property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    /// `between (Q) and (R)`: only intervals closed by R count.
    Between,
    /// `from (Q) until (R)`: intervals need not be closed.
    FromUntil,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pat {
    ThereIs,
    Always,
    /// `S precedes P` (the `S` predicate is the extra bit).
    Precedes,
}

/// Monitor states.
pub(crate) mod mon {
    pub(crate) const IDLE: u8 = 0;
    /// Inside an interval, obligation still open (`thereIs`: P not seen; `precedes`: S not
    /// seen; `always`: no violation yet).
    pub(crate) const OPEN: u8 = 1;
    /// Inside an interval, nothing more to check (`thereIs` P seen, `precedes` S seen).
    pub(crate) const DONE: u8 = 2;
    /// (`between`) A violation happened in the interval; it counts if R closes it.
    pub(crate) const PENDING: u8 = 3;
    pub(crate) const BAD: u8 = 4;
    pub(crate) const N: u32 = 5;
}

/// The predicate values of one state for a scoped pattern.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bits {
    pub(crate) q: bool,
    pub(crate) r: bool,
    pub(crate) p: bool,
    pub(crate) s: bool,
}

/// The monitor reading one state (the first state of a path is read from `IDLE`).
///
/// Reading (docs/language.md §6, Dwyer-style): an interval opens at a state where Q holds
/// and R does not, and closes at the next R-state, which is not part of it. `thereIs P`:
/// some state of the interval satisfies P; `always P`: all do; `S precedes P`: no P-state
/// of the interval comes before (strictly) the first S-state of the interval. With `between`
/// only closed intervals are checked; with `from … until` an interval that is never closed
/// is checked too (for `thereIs`: a maximal path that stays in it without P violates).
pub(crate) fn mon_step(scope: Scope, pat: Pat, m: u8, b: Bits) -> u8 {
    use mon::*;
    let violation = match scope {
        Scope::Between => PENDING,
        Scope::FromUntil => BAD,
    };
    let cont = |m: u8| -> u8 {
        match (pat, m) {
            (Pat::ThereIs, OPEN) => {
                if b.p {
                    DONE
                } else {
                    OPEN
                }
            }
            (Pat::Always, OPEN) => {
                if b.p {
                    OPEN
                } else {
                    violation
                }
            }
            (Pat::Precedes, OPEN) => {
                if b.s {
                    DONE
                } else if b.p {
                    violation
                } else {
                    OPEN
                }
            }
            (_, m) => m,
        }
    };
    match m {
        BAD => BAD,
        IDLE => {
            if b.q && !b.r {
                cont(OPEN)
            } else {
                IDLE
            }
        }
        _ if b.r => match (pat, m) {
            (Pat::ThereIs, OPEN) | (_, PENDING) => BAD,
            _ => IDLE,
        },
        _ => cont(m),
    }
}

/// A scoped pattern: a reachable BAD monitor state, or (`from … until … thereIs`) a maximal
/// path that stays in an open interval without P.
pub(crate) fn scoped(g: &dyn Space, scope: Scope, pat: Pat, bits: &[Bits]) -> Outcome {
    if !g.complete() {
        return Outcome::Unknown;
    }
    let n = g.states() as u32;
    let node = |s: u32, m: u8| s * mon::N + m as u32;
    let starts: Vec<u32> =
        (0..g.initial() as u32).map(|s| node(s, mon_step(scope, pat, mon::IDLE, bits[s as usize]))).collect();
    let succ = |x: u32, out: &mut Vec<u32>| {
        let (s, m) = (x / mon::N, (x % mon::N) as u8);
        let start = out.len();
        g.succs(s, out);
        for t in &mut out[start..] {
            *t = node(*t, mon_step(scope, pat, m, bits[*t as usize]));
        }
    };
    // Reachability of BAD.
    let total = (n * mon::N) as usize;
    let mut parent = vec![NO_PARENT; total];
    let mut seen = vec![false; total];
    let mut q = VecDeque::new();
    for &s in &starts {
        if !seen[s as usize] {
            seen[s as usize] = true;
            q.push_back(s);
        }
    }
    let mut buf = Vec::new();
    while let Some(x) = q.pop_front() {
        if x % mon::N == mon::BAD as u32 {
            let path = path_from(&parent, x).into_iter().map(|y| y / mon::N).collect();
            return Outcome::Violated(Cex { path, loop_start: None, deadlock: false });
        }
        buf.clear();
        succ(x, &mut buf);
        for &y in &buf {
            if !seen[y as usize] {
                seen[y as usize] = true;
                parent[y as usize] = x;
                q.push_back(y);
            }
        }
    }
    if scope == Scope::FromUntil && pat == Pat::ThereIs {
        // Maximal paths that stay in an open interval without P forever. Any path to such
        // a node first: start from every reachable OPEN node is not shortest, so search from
        // the initial product nodes with the restriction lifted on the prefix.
        let sub =
            SubGraph { n: total, succ: &succ, allowed: &|x| x % mon::N == mon::OPEN as u32, cycles: true, many: None };
        let opens: Vec<u32> =
            (0..total as u32).filter(|&x| seen[x as usize] && x % mon::N == mon::OPEN as u32).collect();
        if let Some(c) = bad_path(&sub, &opens) {
            // Prefix: from an initial node to the first node of the found path.
            let first = c.path[0];
            let mut prefix: Vec<u32> = path_from(&parent, first);
            prefix.pop();
            let shift = prefix.len();
            let mut path: Vec<u32> = prefix.into_iter().map(|y| y / mon::N).collect();
            path.extend(c.path.iter().map(|y| y / mon::N));
            return Outcome::Violated(Cex { path, loop_start: c.loop_start.map(|l| l + shift), deadlock: c.deadlock });
        }
    }
    Outcome::Holds
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monitor_between_thereis() {
        let b = |q, r, p| Bits { q, r, p, s: false };
        let m = mon_step(Scope::Between, Pat::ThereIs, mon::IDLE, b(true, false, false));
        assert_eq!(m, mon::OPEN);
        assert_eq!(mon_step(Scope::Between, Pat::ThereIs, m, b(false, true, true)), mon::BAD);
        assert_eq!(mon_step(Scope::Between, Pat::ThereIs, m, b(false, false, true)), mon::DONE);
        assert_eq!(mon_step(Scope::Between, Pat::ThereIs, mon::DONE, b(false, true, false)), mon::IDLE);
        assert_eq!(mon_step(Scope::Between, Pat::Always, mon::OPEN, b(false, false, false)), mon::PENDING);
        assert_eq!(mon_step(Scope::FromUntil, Pat::Always, mon::OPEN, b(false, false, false)), mon::BAD);
    }

    /// Brute force over a small graph: breadth-first distances through allowed nodes, and
    /// whether a node is on a cycle of allowed nodes.
    struct Brute {
        dist: Vec<Option<usize>>,
        adj: Vec<Vec<u32>>,
        allowed: Vec<bool>,
    }

    impl Brute {
        /// The length of a shortest cycle of allowed nodes through `c`.
        fn cycle_len(&self, c: u32) -> Option<usize> {
            let mut d: Vec<Option<usize>> = vec![None; self.adj.len()];
            let mut q = VecDeque::from([(c, 0usize)]);
            while let Some((v, k)) = q.pop_front() {
                for &w in &self.adj[v as usize] {
                    if w == c {
                        return Some(k + 1);
                    }
                    if self.allowed[w as usize] && d[w as usize].is_none() {
                        d[w as usize] = Some(k + 1);
                        q.push_back((w, k + 1));
                    }
                }
            }
            None
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 3000, ..Default::default() })]

        /// `bad_path` against brute force: a path of allowed nodes along edges from a start;
        /// a deadlock at the least distance, or a lasso entering its cycle at a closest node
        /// on a cycle along a shortest cycle through it; the shorter of the two; `None` just
        /// when neither exists.
        #[test]
        fn bad_path_is_a_shortest_violation(
            n in 1usize..10,
            raw in proptest::collection::vec((0u32..10, 0u32..10), 0..24),
            mask in 0u16..1024,
            starts in proptest::collection::vec(0u32..10, 1..3),
            cycles: bool,
            many: bool,
        ) {
            let n32 = n as u32;
            let mut adj = vec![Vec::new(); n];
            for (a, b) in raw {
                adj[(a % n32) as usize].push(b % n32);
            }
            let allowed: Vec<bool> = (0..n).map(|v| mask >> v & 1 == 1).collect();
            let starts: Vec<u32> = starts.iter().map(|s| s % n32).collect();
            let mut dist = vec![None; n];
            let mut q = VecDeque::new();
            for &s in &starts {
                if allowed[s as usize] && dist[s as usize].is_none() {
                    dist[s as usize] = Some(0);
                    q.push_back(s);
                }
            }
            while let Some(v) = q.pop_front() {
                for &w in &adj[v as usize] {
                    if allowed[w as usize] && dist[w as usize].is_none() {
                        dist[w as usize] = Some(dist[v as usize].unwrap() + 1);
                        q.push_back(w);
                    }
                }
            }
            let b = Brute { dist, adj, allowed };
            let reached = |v: usize| b.dist[v].is_some();
            let dead_len = (0..n).filter(|&v| reached(v) && b.adj[v].is_empty()).map(|v| b.dist[v].unwrap()).min();
            let cyc_dist = (0..n)
                .filter(|&v| cycles && reached(v) && b.cycle_len(v as u32).is_some())
                .map(|v| b.dist[v].unwrap())
                .min();
            let succ = |v: u32, out: &mut Vec<u32>| out.extend_from_slice(&b.adj[v as usize]);
            let allowed_fn = |v: u32| b.allowed[v as usize];
            let lists = |ids: &[u32]| ids.iter().map(|&v| b.adj[v as usize].clone()).collect();
            let sg = SubGraph { n, succ: &succ, allowed: &allowed_fn, cycles, many: many.then_some(&lists as &SuccsMany) };
            let got = bad_path(&sg, &starts);
            let Some(cex) = got else {
                proptest::prop_assert!(dead_len.is_none() && cyc_dist.is_none());
                return Ok(());
            };
            let p = &cex.path;
            proptest::prop_assert!(starts.contains(&p[0]));
            for w in p.windows(2) {
                proptest::prop_assert!(b.adj[w[0] as usize].contains(&w[1]), "an edge {:?}", w);
            }
            proptest::prop_assert!(p.iter().all(|&v| b.allowed[v as usize]));
            if cex.deadlock {
                let last = *p.last().unwrap() as usize;
                proptest::prop_assert!(b.adj[last].is_empty() && cex.loop_start.is_none());
                proptest::prop_assert_eq!(Some(p.len() - 1), dead_len);
                // A lasso from a closest node on a cycle is not shorter.
                if let Some(d) = cyc_dist {
                    let longest = (0..n)
                        .filter(|&v| reached(v) && b.dist[v] == Some(d))
                        .filter_map(|v| b.cycle_len(v as u32))
                        .max()
                        .unwrap();
                    proptest::prop_assert!(d + longest >= p.len() - 1);
                }
            } else {
                let ls = cex.loop_start.expect("a lasso");
                let c = p[ls];
                proptest::prop_assert_eq!(*p.last().unwrap(), c);
                proptest::prop_assert_eq!(Some(ls), cyc_dist);
                proptest::prop_assert_eq!(Some(ls), b.dist[c as usize]);
                proptest::prop_assert_eq!(Some(p.len() - 1 - ls), b.cycle_len(c));
                if let Some(d) = dead_len {
                    proptest::prop_assert!(p.len() - 1 < d);
                }
            }
        }
    }
}
