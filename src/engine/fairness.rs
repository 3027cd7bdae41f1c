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

#[path = "fairness_threads.rs"]
mod threads;
pub(crate) use threads::lifted_trace;
use threads::{threaded_fairness, threaded_loop};

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
    let en_or = members.iter().fold(0u64, |a, &v| a | en(v));
    let need = match notion {
        Fairness::AlmostSure => 0,
        _ => en_or,
    };
    let mut buf = Vec::new();
    let mut out = |u: u32, edges: &mut Vec<(u32, u64, u64)>| {
        p.each_out(u, &mut buf, &mut |w, acc, who, _| edges.push((w, acc, who)));
        en(u)
    };
    let inside = |v: u32| members.binary_search(&v).is_ok();
    fair_cycle(members[0], &inside, &mut out, notion == Fairness::Weak, need, all)
        .expect("a strongly connected component meets its requirements")
}

/// A node's out-edges `(target, acceptance bits, agents stepping)` into the vector, and the
/// agents enabled at the node.
pub(crate) type OutEdges<'a> = dyn FnMut(u32, &mut Vec<(u32, u64, u64)>) -> u64 + 'a;

/// A cycle from `entry` back to it through nodes where `inside` holds (a strongly connected
/// set of the product that meets the requirements), whose edges meet every acceptance bit of
/// `need_acc` and in which each agent of `need` makes a step or, when `weak`, is disabled in
/// some node; with the agent each step stands for (`None`: any step between the two states).
/// Each leg is a shortest path inside to an edge that meets a missing requirement, then back
/// to the entry. `None` when a requirement cannot be met (`out` gave up on a node).
pub(crate) fn fair_cycle(
    entry: u32,
    inside: &dyn Fn(u32) -> bool,
    out: &mut OutEdges,
    weak: bool,
    mut need: u64,
    mut need_acc: u64,
) -> Option<(Vec<u32>, Vec<Option<usize>>)> {
    let mut cycle = vec![entry];
    let mut edges = Vec::new();
    let mut actors: Vec<Option<usize>> = vec![];
    let mut cur = entry;
    loop {
        let done = need == 0 && need_acc == 0 && !actors.is_empty();
        if done && cur == entry {
            break;
        }
        // The shortest path inside to a useful edge (or back to the entry when done); each
        // node with the agents enabled in it.
        let mut parent: FxHashMap<u32, (u32, u64, u64)> = FxHashMap::default();
        let mut enabled: FxHashMap<u32, u64> = FxHashMap::default();
        let mut queue = VecDeque::from([cur]);
        let mut seen = rustc_hash::FxHashSet::default();
        seen.insert(cur);
        let mut goal: Option<(u32, u32, u64, u64)> = None;
        'bfs: while let Some(u) = queue.pop_front() {
            edges.clear();
            let en_u = out(u, &mut edges);
            enabled.insert(u, en_u);
            for &(w, acc, who) in &edges {
                if !inside(w) {
                    continue;
                }
                let useful = if done {
                    w == entry
                } else {
                    acc & need_acc != 0
                        || who & need != 0
                        || (weak && need & !en_u != 0)
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
        let (u, w, acc, who) = goal?;
        // Each hop with its source.
        let mut hops = vec![(u, w, acc, who)];
        let mut x = u;
        while x != cur {
            let (px, a, h) = parent[&x];
            hops.push((px, x, a, h));
            x = px;
        }
        hops.reverse();
        for (v, w, acc, who) in hops {
            if weak {
                need &= enabled[&v];
            }
            need_acc &= !acc;
            let mine = who & need;
            actors.push(if mine != 0 {
                let a = mine.trailing_zeros() as usize;
                need &= !(1 << a);
                Some(a)
            } else {
                None
            });
            cycle.push(w);
        }
        cur = w;
    }
    debug_assert_eq!(cycle.len(), actors.len() + 1);
    Some((cycle, actors))
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
