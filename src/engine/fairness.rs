//! Fairness assumptions on runs (`--fairness`, docs/semantics.md, D15): which runs a
//! linear-time property (`finally`, `until`, scoped patterns, D14 formulas) must hold on.
//!
//! The fair unit is an agent: its steps are its agent steps and the messages it sends. A
//! violation is an accepting cycle of the product of the state graph with the automaton of
//! the negated formula (a deadlock repeats itself and is fair: nothing is enabled there):
//!
//! - weak: a strongly connected component of the product is a fair violation when its inner
//!   edges meet every acceptance set and every agent enabled in all its nodes makes one of
//!   its inner edges (a loop through the whole component is then fair; no smaller one can
//!   be, since its nodes and edges are a subset);
//! - strong: the same with "enabled in some node"; a component failing only that is refined
//!   as Emerson and Lei do: the nodes where a starved agent is enabled are removed, and the
//!   components of the rest are searched again;
//! - almost-sure: the property fails with positive probability under the random scheduler
//!   (docs/statistical.md) exactly when a reachable bottom component of the product with a
//!   *deterministic* automaton accepts (a run reaches it with positive probability and then
//!   takes every edge of it infinitely often). The automaton of the negation must be
//!   deterministic: the property is `unknown` with the reason otherwise.
//!
//! Under the symmetry reduction, weak and strong fairness follow each agent through the
//! elements of the group that map successors to their representatives (`threaded_fairness`,
//! `threaded_loop`; docs/semantics.md, D15).
//!
//! The loop of a counterexample visits, for each requirement (an acceptance set; an agent to
//! step, or for weak fairness to be disabled somewhere), an edge or node that meets it, and
//! each step records the agent it stands for, so that the trace shows a fair loop.

use super::check::Cex;
use super::explore::{Graph, NO_PARENT};
use super::ltl::Automaton;
use super::par::Workers;
use super::path::{Trace, TraceStep};
use super::state::hash_bytes;
use super::step::{Event, RuntimeError, Stepper, Work};
use super::symmetry::Group;
use super::symmetry::canon::CanonScratch;
use super::symmetry::element::Element;
use crate::limits::Limits;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// A fairness assumption (`--fairness`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fairness {
    /// No agent is enabled continuously from some point on without stepping.
    Weak,
    /// No agent is enabled infinitely often while stepping finitely often.
    Strong,
    /// The property holds with probability 1 under the uniform random scheduler.
    AlmostSure,
}

impl Fairness {
    pub fn as_str(self) -> &'static str {
        match self {
            Fairness::Weak => "weak",
            Fairness::Strong => "strong",
            Fairness::AlmostSure => "almost-sure",
        }
    }

    /// Whether the check follows agents by id (weak, strong): under the symmetry reduction,
    /// through the permutations that map successors to their representatives (a loop of
    /// orbits may lift to a run where the agents' roles rotate).
    pub(crate) fn tracks_agents(self) -> bool {
        !matches!(self, Fairness::AlmostSure)
    }
}

/// The agent that makes a step: the acting agent, or a message's sender.
pub(crate) fn actor(e: &Event) -> usize {
    match e {
        Event::Agent { agent, .. } => *agent,
        Event::Message { sender, .. } => *sender,
    }
}

/// The most agents the checks follow (one bit each).
pub(crate) const MAX_AGENTS: usize = 64;

/// A state's successors, each with the agents whose steps lead there (a bit per agent) and,
/// under the symmetry reduction, the element of the group that maps the successor to its
/// representative (an index into the check's `moves`; 0 where the reduction is off).
pub(crate) type Succ<'a> = dyn Fn(u32, &mut Vec<(u32, u64, u32)>) + Sync + 'a;

/// What the fair check decided.
pub(crate) enum FairOutcome {
    Holds,
    /// A fair lasso (or a path into a deadlock), with the agent each step stands for (`None`:
    /// any step between the two states) and, under the symmetry reduction, the element each
    /// step of the loop follows (indices into `moves`; empty otherwise).
    Violated(Cex, Vec<Option<usize>>, Vec<u32>),
    /// Stopped by the run's limits, or refused with the reason.
    Unknown(Option<String>),
}

/// The reachable part of the product of the graph with an automaton: its nodes, in
/// breadth-first order, and their breadth-first parents; its edges are computed again from the
/// graph's successors and the automaton's transitions wherever they are read, so that the
/// product costs a few words per node and nothing per edge.
struct Product<'a> {
    /// Product node of each index (`state · k + automaton state`), in breadth-first order.
    node: Vec<u64>,
    parent: Vec<u32>,
    /// The index of each product node (`NONE`: not reached).
    index: Vec<u32>,
    /// Whether the node's state has a satisfied transition of the automaton (otherwise its
    /// runs leave the automaton: rejected).
    live: Vec<bool>,
    k: u64,
    succ: &'a Succ<'a>,
    aut: &'a Automaton,
    bits: &'a [&'a [bool]],
}

/// `Product::index` of a node not reached.
const NONE: u32 = u32::MAX;

impl Product<'_> {
    fn state(&self, i: u32) -> u32 {
        (self.node[i as usize] / self.k) as u32
    }

    /// The edges out of node `i`: `f(target index, acceptance bits, agents, element)`; `buf`
    /// is scratch. A deadlock repeats forever, and nothing is enabled in it.
    fn each_out(&self, i: u32, buf: &mut Vec<(u32, u64, u32)>, f: &mut dyn FnMut(u32, u64, u64, u32)) {
        let x = self.node[i as usize];
        let (s, q) = ((x / self.k) as u32, (x % self.k) as u32);
        out_edges(self.succ, s, buf);
        let k = self.k;
        self.aut.transitions(q, &|a| self.bits[a][s as usize], &mut |nq, acc| {
            for &(t, who, el) in buf.iter() {
                f(self.index[(t as u64 * k + nq as u64) as usize], acc, who, el);
            }
        });
    }
}

/// The successors of `s` with the agents that step to each, into `buf`; a deadlock repeats
/// its state, and nothing steps.
fn out_edges(succ: &Succ, s: u32, buf: &mut Vec<(u32, u64, u32)>) {
    buf.clear();
    succ(s, buf);
    if buf.is_empty() {
        buf.push((s, 0, 0));
    }
}

fn product<'a>(
    states: usize,
    initial: usize,
    succ: &'a Succ<'a>,
    aut: &'a Automaton,
    bits: &'a [&'a [bool]],
    stopped: &dyn Fn() -> bool,
) -> Option<Product<'a>> {
    let k = aut.states() as u64;
    let mut p = Product {
        node: vec![],
        parent: vec![],
        index: vec![NONE; states * k as usize],
        live: vec![],
        k,
        succ,
        aut,
        bits,
    };
    for s in 0..initial as u64 {
        let x = s * k;
        if p.index[x as usize] == NONE {
            p.index[x as usize] = p.node.len() as u32;
            p.node.push(x);
            p.parent.push(NO_PARENT);
        }
    }
    let mut targets = Vec::new();
    let mut head = 0;
    while head < p.node.len() {
        if head % 4096 == 0 && stopped() {
            return None;
        }
        let x = p.node[head];
        let (s, q) = ((x / k) as u32, (x % k) as u32);
        out_edges(succ, s, &mut targets);
        let mut live = false;
        let (index, node, parent) = (&mut p.index, &mut p.node, &mut p.parent);
        aut.transitions(q, &|a| bits[a][s as usize], &mut |nq, _| {
            live = true;
            for &(t, _, _) in &targets {
                let y = t as u64 * k + nq as u64;
                if index[y as usize] == NONE {
                    index[y as usize] = node.len() as u32;
                    node.push(y);
                    parent.push(head as u32);
                }
            }
        });
        p.live.push(live);
        head += 1;
    }
    Some(p)
}

/// Decides the property whose negation `aut` accepts (`bits[a][s]`: atom `a` in state `s`) on
/// the whole graph whose states `0..initial` are initial, under `notion`; `enabled(s)`: the
/// agents with a step in `s`; `accepts_formula`: `aut` is the formula's own automaton
/// (almost-sure only), not its negation's. `moves`: under the symmetry reduction, for each
/// element the edges name, where it sends each agent (`moves[e][a]`); empty otherwise.
// The graph's three views and the automaton's two are read together here only.
#[allow(clippy::too_many_arguments)]
pub(crate) fn check(
    notion: Fairness,
    states: usize,
    initial: usize,
    succ: &Succ,
    enabled: &(dyn Fn(u32) -> u64 + Sync),
    aut: &Automaton,
    accepts_formula: bool,
    bits: &[&[bool]],
    moves: &[Vec<u8>],
    stopped: &dyn Fn() -> bool,
) -> FairOutcome {
    if notion == Fairness::AlmostSure {
        assert!(aut.deterministic(), "almost-sure reads a deterministic automaton");
    }
    let Some(p) = product(states, initial, succ, aut, bits, stopped) else { return FairOutcome::Unknown(None) };
    let all = aut.all();
    let m = p.node.len();
    let en = |i: u32| enabled(p.state(i));
    // Agents are followed through the reduction's permutations (docs/semantics.md, D15).
    let threaded = notion.tracks_agents() && !moves.is_empty();
    // The fair component nearest to an initial node (its least breadth-first index).
    let mut found: Option<Vec<u32>> = None;
    // The nodes of the set searched (at first every node), and the component each node was
    // last completed in (a stamp per component), with its place in the component (threaded).
    let mut alive = vec![true; m];
    let mut mark = vec![NONE; m];
    let mut place = if threaded { vec![0u32; m] } else { vec![] };
    let mut stamp = 0u32;
    let (mut buf_search, mut buf_comp) = (Vec::new(), Vec::new());
    // `None`: every node.
    let mut work: Vec<Option<Vec<u32>>> = vec![None];
    while let Some(set) = work.pop() {
        if stopped() {
            return FairOutcome::Unknown(None);
        }
        if let Some(set) = &set {
            for &v in set {
                alive[v as usize] = true;
            }
        }
        let roots: Box<dyn Iterator<Item = u32>> = match &set {
            None => Box::new(0..m as u32),
            Some(s) => Box::new(s.iter().copied()),
        };
        let mut refine: Vec<Vec<u32>> = Vec::new();
        super::scc::components_noting(
            m,
            roots,
            |v, f| {
                p.each_out(v, &mut buf_search, &mut |w, _, _, _| {
                    if alive[w as usize] {
                        f(w)
                    }
                })
            },
            |members| {
                stamp += 1;
                for (i, &v) in members.iter().enumerate() {
                    mark[v as usize] = stamp;
                    if threaded {
                        place[v as usize] = i as u32;
                    }
                }
                let (mut acc, mut steps, mut cyclic, mut bottom) = (0u64, 0u64, false, true);
                let (mut en_or, mut en_and) = (0u64, u64::MAX);
                for &v in members {
                    let e = en(v);
                    en_or |= e;
                    en_and &= e;
                    bottom &= p.live[v as usize];
                    p.each_out(v, &mut buf_comp, &mut |w, a, who, _| {
                        if mark[w as usize] == stamp {
                            acc |= a;
                            steps |= who;
                            cyclic = true;
                        } else {
                            bottom = false;
                        }
                    });
                }
                let mut keep = |mut e: Vec<u32>| {
                    e.sort_unstable();
                    if found.as_ref().is_none_or(|f| e[0] < f[0]) {
                        found = Some(e);
                    }
                };
                if accepts_formula {
                    // The automaton of the formula itself (deterministic): a run that reaches a
                    // bottom component missing an acceptance set, or a node where the automaton
                    // has no transition, violates it, with positive probability.
                    match members.iter().copied().find(|&v| !p.live[v as usize]) {
                        Some(v) => keep(vec![v]),
                        None if bottom && cyclic && acc & all != all => keep(members.to_vec()),
                        None => {}
                    }
                    return;
                }
                if !cyclic || acc & all != all {
                    return;
                }
                if threaded {
                    let (fair, rest) = threaded_fairness(&p, notion, members, &mark, stamp, &place, moves, &en);
                    if let Some(rest) = rest.filter(|r| !r.is_empty()) {
                        refine.push(rest);
                    }
                    if fair {
                        keep(members.to_vec());
                    }
                    return;
                }
                let fair = match notion {
                    Fairness::Weak => en_and & !steps == 0,
                    Fairness::Strong => {
                        let starved = en_or & !steps;
                        if starved != 0 {
                            let rest: Vec<u32> = members.iter().copied().filter(|&v| en(v) & starved == 0).collect();
                            if !rest.is_empty() {
                                refine.push(rest);
                            }
                        }
                        starved == 0
                    }
                    Fairness::AlmostSure => bottom,
                };
                if fair {
                    keep(members.to_vec());
                }
            },
        );
        match &set {
            None => alive.fill(false),
            Some(set) => {
                for &v in set {
                    alive[v as usize] = false;
                }
            }
        }
        work.extend(refine.into_iter().map(Some));
    }
    let Some(members) = found else { return FairOutcome::Holds };
    let entry = members[0];
    if accepts_formula && !p.live[entry as usize] {
        return FairOutcome::Violated(past_bad_prefix(&p, entry, succ), vec![], vec![]);
    }
    let need_acc = if accepts_formula { 0 } else { all };
    let (cycle, loop_actors, loop_moves) = if threaded {
        threaded_loop(&p, notion, &members, need_acc, &en, moves)
    } else {
        let (c, a) = fair_loop(&p, notion, &members, need_acc, &en);
        (c, a, vec![])
    };
    let mut prefix = vec![entry];
    while p.parent[*prefix.last().expect("a node") as usize] != NO_PARENT {
        prefix.push(p.parent[*prefix.last().expect("a node") as usize]);
    }
    prefix.reverse();
    let states: Vec<u32> = prefix.iter().map(|&i| p.state(i)).collect();
    let loop_state = p.state(entry);
    if members.iter().all(|&v| p.state(v) == loop_state) && enabled(loop_state) == 0 && is_dead(succ, loop_state) {
        // A deadlock: the path to it, shown once.
        let first = states.iter().position(|&s| s == loop_state).expect("the prefix reaches the deadlock");
        let path = states[..=first].to_vec();
        let actors = vec![None; path.len() - 1];
        return FairOutcome::Violated(Cex { path, loop_start: None, deadlock: true }, actors, vec![]);
    }
    let mut actors = vec![None; states.len() - 1];
    let mut path = states;
    let loop_start = path.len() - 1;
    for (i, who) in cycle.iter().skip(1).zip(loop_actors) {
        path.push(p.state(*i));
        actors.push(who);
    }
    FairOutcome::Violated(Cex { path, loop_start: Some(loop_start), deadlock: false }, actors, loop_moves)
}

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
fn threaded_fairness(
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
fn threaded_loop(
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

/// A run through the product node `entry`, where the formula's automaton has no transition:
/// every continuation violates the formula, so the path to it goes on along the first
/// successor of each state until a state repeats (a lasso) or a deadlock.
fn past_bad_prefix(p: &Product, entry: u32, succ: &Succ) -> Cex {
    let mut prefix = vec![entry];
    while p.parent[*prefix.last().expect("a node") as usize] != NO_PARENT {
        prefix.push(p.parent[*prefix.last().expect("a node") as usize]);
    }
    let mut path: Vec<u32> = prefix.iter().rev().map(|&i| p.state(i)).collect();
    let mut at: FxHashMap<u32, usize> = FxHashMap::default();
    for (i, &s) in path.iter().enumerate() {
        at.entry(s).or_insert(i);
    }
    let mut next = Vec::new();
    loop {
        let s = *path.last().expect("a state");
        next.clear();
        succ(s, &mut next);
        let Some(&(t, _, _)) = next.first() else {
            return Cex { path, loop_start: None, deadlock: true };
        };
        if let Some(&i) = at.get(&t) {
            path.push(t);
            return Cex { path, loop_start: Some(i), deadlock: false };
        }
        at.insert(t, path.len());
        path.push(t);
    }
}

fn is_dead(succ: &Succ, s: u32) -> bool {
    let mut v = Vec::new();
    succ(s, &mut v);
    v.is_empty()
}

/// A cycle from the component's first member back to it, through its members, meeting every
/// acceptance bit and every agent requirement of `notion`; with the agent each step stands
/// for.
fn fair_loop(
    p: &Product,
    notion: Fairness,
    members: &[u32],
    all: u64,
    en: &dyn Fn(u32) -> u64,
) -> (Vec<u32>, Vec<Option<usize>>) {
    let inside = |v: u32| members.binary_search(&v).is_ok();
    let entry = members[0];
    let en_or = members.iter().fold(0u64, |a, &v| a | en(v));
    let mut need_acc = all;
    // Agents still to step (or, under weak fairness, to be seen disabled).
    let mut need = match notion {
        Fairness::AlmostSure => 0,
        _ => en_or,
    };
    let weak = notion == Fairness::Weak;
    if weak {
        need &= en(entry);
    }
    let mut cycle = vec![entry];
    let (mut outs, mut buf) = (Vec::new(), Vec::new());
    let mut actors: Vec<Option<usize>> = vec![];
    let mut cur = entry;
    let take = |need: &mut u64, need_acc: &mut u64, acc: u64, who: u64| -> Option<usize> {
        *need_acc &= !acc;
        let mine = who & *need;
        if mine != 0 {
            let a = mine.trailing_zeros() as usize;
            *need &= !(1 << a);
            Some(a)
        } else {
            None
        }
    };
    loop {
        let done = need == 0 && need_acc == 0 && !actors.is_empty();
        if done && cur == entry {
            break;
        }
        // The shortest path inside to a useful edge (or back to the entry when done).
        let mut parent: rustc_hash::FxHashMap<u32, (u32, u64, u64)> = rustc_hash::FxHashMap::default();
        let mut queue = VecDeque::from([cur]);
        let mut seen = rustc_hash::FxHashSet::default();
        seen.insert(cur);
        let mut goal: Option<(u32, u32, u64, u64)> = None;
        'bfs: while let Some(u) = queue.pop_front() {
            outs.clear();
            p.each_out(u, &mut buf, &mut |w, acc, who, _| outs.push((w, acc, who)));
            for &(w, acc, who) in &outs {
                if !inside(w) {
                    continue;
                }
                let useful = if done {
                    w == entry
                } else {
                    acc & need_acc != 0
                        || who & need != 0
                        || (weak && need & !en(w) != 0)
                        || (need == 0 && need_acc == 0)
                };
                if useful {
                    goal = Some((u, w, acc, who));
                    break 'bfs;
                }
                if seen.insert(w) {
                    parent.insert(w, (u, acc, who));
                    queue.push_back(w);
                }
            }
        }
        let (u, w, acc, who) = goal.expect("a strongly connected component meets its requirements");
        let mut hops = vec![(w, acc, who)];
        let mut x = u;
        while x != cur {
            let (px, a, h) = parent[&x];
            hops.push((x, a, h));
            x = px;
        }
        hops.reverse();
        for (v, acc, who) in hops {
            actors.push(take(&mut need, &mut need_acc, acc, who));
            if weak {
                need &= en(v);
            }
            cycle.push(v);
        }
        cur = w;
    }
    debug_assert_eq!(cycle.len(), actors.len() + 1);
    (cycle, actors)
}

/// The agents that act in a loop and those enabled in it, read from the states and the
/// steps' actors (`acting`), for the counterexample's summary and its check.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoopAgents {
    pub notion: Option<Fairness>,
    /// Agents that make a step of the loop.
    pub acting: Vec<usize>,
    /// Agents enabled in every state of the loop.
    pub enabled_throughout: Vec<usize>,
    /// Agents enabled in some state of the loop.
    pub enabled_somewhere: Vec<usize>,
}

impl LoopAgents {
    /// From each loop state's enabled agents and each loop step's actor.
    pub fn of(enabled: &[Vec<usize>], acting: &[usize]) -> LoopAgents {
        let mut act: Vec<usize> = acting.to_vec();
        act.sort_unstable();
        act.dedup();
        let mut some: Vec<usize> = enabled.iter().flatten().copied().collect();
        some.sort_unstable();
        some.dedup();
        let all: Vec<usize> = some.iter().copied().filter(|a| enabled.iter().all(|e| e.contains(a))).collect();
        LoopAgents { notion: None, acting: act, enabled_throughout: all, enabled_somewhere: some }
    }

    /// Whether the loop is fair under `notion` (a run into a deadlock always is).
    pub fn fair(&self, notion: Fairness) -> bool {
        match notion {
            Fairness::Weak => self.enabled_throughout.iter().all(|a| self.acting.contains(a)),
            Fairness::Strong => self.enabled_somewhere.iter().all(|a| self.acting.contains(a)),
            Fairness::AlmostSure => true,
        }
    }
}

/// The explored graph's successors, each with the agents whose steps lead there, and each
/// state's enabled agents; under the symmetry reduction each successor with the element of the
/// group that maps it to its representative (a successor per concrete successor state).
pub(crate) struct Labelled {
    start: Vec<usize>,
    edges: Vec<(u32, u64, u32)>,
    enabled: Vec<u64>,
    /// The elements the edges name (the identity first; only it without the reduction).
    pub(crate) elements: Vec<Element>,
}

impl Labelled {
    /// `None` when the run's limits stop it (or a step fails, which the exploration would
    /// have reported first). Each state's successors are computed again in the stored form,
    /// agent by agent, canonicalised under `group` as the exploration did, and looked up in
    /// the store; blocks of states on all the workers.
    pub(crate) fn of(
        stepper: &Stepper,
        g: &Graph,
        group: Option<&Group>,
        workers: &Workers,
        limits: &Limits,
    ) -> Option<Labelled> {
        const CHUNK: usize = 4096;
        let n = g.states();
        let store = &g.store;
        let (width, wb, sb) = (store.width(), store.work_bytes(), store.state_bytes());
        let identity = Element::identity(stepper.lay.n_agents);
        let parts = workers.in_chunks(n.div_ceil(CHUNK), |c| {
            if limits.stopped().is_some() {
                return None;
            }
            let (lo, hi) = (c * CHUNK, ((c + 1) * CHUNK).min(n));
            let (mut work, mut st, mut parent, mut encs, mut ends) = (Work::default(), vec![], vec![], vec![], vec![]);
            let mut code = vec![0u8; sb];
            let mut out: Vec<(u32, u32, u64)> = Vec::new();
            let (mut canon, mut el) = (CanonScratch::default(), Element::default());
            // This block's elements, interned.
            let mut local: FxHashMap<Element, u32> = FxHashMap::default();
            local.insert(identity.clone(), 0);
            let mut part =
                Labelled { start: Vec::with_capacity(hi - lo), edges: vec![], enabled: vec![], elements: vec![] };
            for i in lo as u32..hi as u32 {
                store.get_work(i, &mut st, &mut parent);
                encs.clear();
                ends.clear();
                let k =
                    stepper.successors_packed_by_agent(&st, &parent, width, &mut work, &mut encs, &mut ends).ok()?;
                out.clear();
                let mut a = 0;
                for (j, enc) in encs.chunks_exact_mut(wb).take(k).enumerate() {
                    while ends[a] <= j {
                        a += 1;
                    }
                    let e = match group {
                        Some(gr) => {
                            gr.canonicalise_tracked(&stepper.lay, width, enc, &mut canon, &mut el);
                            let next = local.len() as u32;
                            *local.entry(el.clone()).or_insert(next)
                        }
                        None => 0,
                    };
                    let key: &[u8] = if store.is_compact() {
                        if !store.pack_from(&parent, i, enc, &mut code) {
                            return None;
                        }
                        &code
                    } else {
                        enc
                    };
                    out.push((store.id_of(key, hash_bytes(key))?, e, 1u64 << a));
                }
                out.sort_unstable();
                let (base, mut en) = (part.edges.len(), 0);
                for &(t, e, who) in &out {
                    en |= who;
                    let len = part.edges.len();
                    match part.edges.last_mut() {
                        Some(last) if len > base && last.0 == t && last.2 == e => last.1 |= who,
                        _ => part.edges.push((t, who, e)),
                    }
                }
                part.enabled.push(en);
                part.start.push(part.edges.len());
            }
            let mut els = vec![Element::default(); local.len()];
            for (x, i) in local {
                els[i as usize] = x;
            }
            part.elements = els;
            Some(part)
        });
        let total = parts.iter().map(|p| p.as_ref().map_or(0, |p| p.edges.len())).sum();
        let mut l = Labelled {
            start: Vec::with_capacity(n + 1),
            edges: Vec::with_capacity(total),
            enabled: Vec::with_capacity(n),
            elements: vec![identity.clone()],
        };
        let mut index: FxHashMap<Element, u32> = FxHashMap::default();
        index.insert(identity, 0);
        l.start.push(0);
        for part in parts {
            let part = part?;
            let to: Vec<u32> = part
                .elements
                .into_iter()
                .map(|x| {
                    let next = l.elements.len() as u32;
                    *index.entry(x.clone()).or_insert_with(|| {
                        l.elements.push(x);
                        next
                    })
                })
                .collect();
            let base = l.edges.len();
            l.start.extend(part.start.iter().map(|&e| base + e));
            l.edges.extend(part.edges.iter().map(|&(t, who, e)| (t, who, to[e as usize])));
            l.enabled.extend_from_slice(&part.enabled);
        }
        Some(l)
    }

    pub(crate) fn succs(&self, s: u32, out: &mut Vec<(u32, u64, u32)>) {
        out.extend_from_slice(&self.edges[self.start[s as usize]..self.start[s as usize + 1]]);
    }

    pub(crate) fn enabled(&self, s: u32) -> u64 {
        self.enabled[s as usize]
    }

    /// Where each element sends each agent, for `check` (empty without the reduction).
    pub(crate) fn moves(&self, reduced: bool) -> Vec<Vec<u8>> {
        if !reduced {
            return vec![];
        }
        self.elements.iter().map(|e| e.agents.clone()).collect()
    }
}

/// The trace through `states` whose step `i` is made by agent `actors[i]` where given.
pub(crate) fn trace_with_actors(stepper: &Stepper, states: &[Vec<i32>], actors: &[Option<usize>]) -> Trace {
    let mut w = Work::default();
    let mut steps = Vec::new();
    for (pair, want) in states.windows(2).zip(actors.iter().chain(std::iter::repeat(&None))) {
        let mut ev = None;
        let _ = stepper.successors(&pair[0], &mut w, true, &mut |e, s| {
            if ev.is_none() && s == pair[1].as_slice() && want.is_none_or(|a| e.as_ref().is_some_and(|e| actor(e) == a))
            {
                ev = e;
            }
        });
        steps.push(TraceStep { event: ev.expect("trace step is a successor"), state: pair[1].clone() });
    }
    Trace {
        fair: stepper.fair,
        initial: states[0].clone(),
        steps,
        loop_start: None,
        ends_in_deadlock: false,
        marks: Vec::new(),
    }
}

/// The agents enabled in a state (those with a step there).
pub fn enabled_agents(stepper: &Stepper, st: &[i32]) -> Result<Vec<usize>, RuntimeError> {
    let mut v = Vec::new();
    stepper.successors(st, &mut Work::default(), true, &mut |e, _| {
        if let Some(e) = e {
            v.push(actor(&e));
        }
    })?;
    v.sort_unstable();
    v.dedup();
    Ok(v)
}

/// The agents acting and enabled in the loop of `t` (a run into a deadlock: none).
pub fn loop_agents(stepper: &Stepper, t: &Trace) -> Result<LoopAgents, RuntimeError> {
    let Some(ls) = t.loop_start else { return Ok(LoopAgents::default()) };
    let mut enabled = Vec::new();
    for i in ls..t.len() {
        enabled.push(enabled_agents(stepper, t.state(i))?);
    }
    let acting: Vec<usize> = t.steps[ls..].iter().map(|s| actor(&s.event)).collect();
    Ok(LoopAgents::of(&enabled, &acting))
}

#[cfg(test)]
mod tests {
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
