//! MCL's infinite looping operator: `< R > @` holds in a state from which some infinite path
//! is a sequence of consecutive non-empty `R`-paths; its dual `[ R ] -|` holds where no such
//! path starts.
//!
//! `R` becomes a nondeterministic automaton over the query's actions (`Loop::build`, no data
//! bound inside `R`: a value bound in one iteration could not reach the next). The operator
//! is decided on the product of the LTS with that automaton: an edge that completes an
//! `R`-path also restarts the automaton, and such an edge is *accepting*. A state satisfies
//! `< R > @` when its product node with the automaton's start reaches a strongly connected
//! component holding an accepting edge (then a cycle repeats it forever). The diagnostic is a
//! lasso: a shortest path into that component, then a cycle through an accepting edge.

use super::ast::{ActId, Offer, Reg, RegKind};
use crate::syntax::span::Span;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// The automaton of a regular formula, without empty moves: `edges[q]` lists `(action, target,
/// completes)`, where `completes` says that the path read so far is an `R`-path.
#[derive(Clone, Debug)]
pub(crate) struct Loop {
    pub(super) edges: Vec<Vec<(ActId, u32, bool)>>,
}

/// Where a regular formula binds data (`?x:T`), which `@` cannot carry from one iteration to
/// the next.
pub(crate) fn binder(r: &Reg) -> Option<Span> {
    match &r.kind {
        RegKind::Pattern(p) => p.offers.iter().any(|o| matches!(o, Offer::Bind(..))).then_some(r.span),
        RegKind::Not(a) | RegKind::Star(a) | RegKind::Plus(a) | RegKind::Repeat(a, _) => binder(a),
        RegKind::Seq(a, b) | RegKind::Alt(a, b) | RegKind::Implies(a, b) => binder(a).or_else(|| binder(b)),
        RegKind::And(v) | RegKind::Or(v) => v.iter().find_map(binder),
        RegKind::True | RegKind::False | RegKind::Label(_) | RegKind::Nil => None,
    }
}

/// An automaton with empty moves, under construction.
#[derive(Default)]
struct Thompson {
    eps: Vec<Vec<u32>>,
    steps: Vec<Vec<(ActId, u32)>>,
}

impl Thompson {
    fn state(&mut self) -> u32 {
        self.eps.push(Vec::new());
        self.steps.push(Vec::new());
        (self.eps.len() - 1) as u32
    }

    /// The fragment of `r` between two fresh states.
    fn fragment<E>(&mut self, r: &Reg, act: &mut dyn FnMut(&Reg) -> Result<ActId, E>) -> Result<(u32, u32), E> {
        let (i, o) = (self.state(), self.state());
        match &r.kind {
            RegKind::Nil => self.eps[i as usize].push(o),
            RegKind::Seq(a, b) => {
                let (ai, ao) = self.fragment(a, act)?;
                let (bi, bo) = self.fragment(b, act)?;
                self.eps[i as usize].push(ai);
                self.eps[ao as usize].push(bi);
                self.eps[bo as usize].push(o);
            }
            RegKind::Alt(a, b) => {
                for x in [a, b] {
                    let (xi, xo) = self.fragment(x, act)?;
                    self.eps[i as usize].push(xi);
                    self.eps[xo as usize].push(o);
                }
            }
            RegKind::Star(a) | RegKind::Plus(a) => {
                let (ai, ao) = self.fragment(a, act)?;
                self.eps[i as usize].push(ai);
                self.eps[ao as usize].extend([ai, o]);
                if matches!(r.kind, RegKind::Star(_)) {
                    self.eps[i as usize].push(o);
                }
            }
            RegKind::Repeat(a, n) => {
                let mut at = i;
                for _ in 0..*n {
                    let (ai, ao) = self.fragment(a, act)?;
                    self.eps[at as usize].push(ai);
                    at = ao;
                }
                self.eps[at as usize].push(o);
            }
            _ => {
                let a = act(r)?;
                self.steps[i as usize].push((a, o));
            }
        }
        Ok((i, o))
    }

    fn closure(&self, q: u32) -> Vec<bool> {
        let mut seen = vec![false; self.eps.len()];
        let mut stack = vec![q];
        while let Some(x) = stack.pop() {
            if !std::mem::replace(&mut seen[x as usize], true) {
                stack.extend(&self.eps[x as usize]);
            }
        }
        seen
    }
}

impl Loop {
    /// The automaton of `r`; `act` types each action formula.
    pub(crate) fn build<E>(r: &Reg, act: &mut dyn FnMut(&Reg) -> Result<ActId, E>) -> Result<Loop, E> {
        let mut t = Thompson::default();
        let (start, end) = t.fragment(r, act)?;
        let closures: Vec<Vec<bool>> = (0..t.eps.len() as u32).map(|q| t.closure(q)).collect();
        // State q of the result stands for the closure of Thompson state `keep[q]`: the start,
        // and every target of an action step.
        let mut keep = vec![start];
        keep.extend(t.steps.iter().flatten().map(|&(_, x)| x));
        keep.sort_unstable();
        keep.dedup();
        keep.retain(|&x| x != start);
        keep.insert(0, start);
        let id: FxHashMap<u32, u32> = keep.iter().enumerate().map(|(i, &x)| (x, i as u32)).collect();
        let edges = keep
            .iter()
            .map(|&q| {
                let mut out = Vec::new();
                for (p, _) in closures[q as usize].iter().enumerate().filter(|(_, c)| **c) {
                    for &(a, x) in &t.steps[p] {
                        out.push((a, id[&x], closures[x as usize][end as usize]));
                    }
                }
                out
            })
            .collect();
        Ok(Loop { edges })
    }
}

/// The product of an LTS with a looping automaton, explored from some states.
#[derive(Default)]
pub(super) struct Product {
    index: FxHashMap<(u32, u32), u32>,
    /// (LTS state, automaton state) of each node.
    pub(super) nodes: Vec<(u32, u32)>,
    /// Per node: (label, target node, accepting).
    pub(super) succ: Vec<Vec<(u32, u32, bool)>>,
    /// Per node: whether an accepting cycle is reachable (set by `solve`).
    pub(super) good: Vec<bool>,
    /// The nodes expanded so far, and when `good` was last computed.
    pub(super) expanded: usize,
    solved: Option<usize>,
    /// The nodes made but not expanded yet, taken last first (deepest first, so that a cycle
    /// closes early). While some are left, `good` is only sure where it is true.
    pub(super) pending: Vec<u32>,
}

impl Product {
    pub(super) fn node(&mut self, key: (u32, u32)) -> u32 {
        let next = self.nodes.len() as u32;
        *self.index.entry(key).or_insert_with(|| {
            self.nodes.push(key);
            self.succ.push(Vec::new());
            self.pending.push(next);
            next
        })
    }
}

/// A lasso: its states, its labels, and the position its loop goes back to.
pub(super) type Lasso = (Vec<u32>, Vec<String>, usize);

/// Backward reachability of the cycles through an accepting edge, for the nodes not solved yet
/// (earlier explorations' results stay valid: a node's successors never change).
pub(super) fn solve(p: &mut Product) {
    let n = p.nodes.len();
    if p.solved == Some(p.expanded) && p.good.len() == n {
        return;
    }
    let comp = components(p);
    let mut good = vec![false; comp.count];
    for (x, es) in p.succ.iter().enumerate() {
        for &(_, y, acc) in es {
            if acc && comp.of[x] == comp.of[y as usize] {
                good[comp.of[x]] = true;
            }
        }
    }
    let mut is_good: Vec<bool> = (0..n).map(|x| good[comp.of[x]]).collect();
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (x, es) in p.succ.iter().enumerate() {
        for &(_, y, _) in es {
            preds[y as usize].push(x as u32);
        }
    }
    let mut stack: Vec<u32> = (0..n as u32).filter(|&x| is_good[x as usize]).collect();
    while let Some(y) = stack.pop() {
        for &x in &preds[y as usize] {
            if !std::mem::replace(&mut is_good[x as usize], true) {
                stack.push(x);
            }
        }
    }
    p.good = is_good;
    p.solved = Some(p.expanded);
}

pub(super) struct Components {
    pub(super) of: Vec<usize>,
    pub(super) count: usize,
}

/// Strongly connected components (iterative Tarjan).
pub(super) fn components(p: &Product) -> Components {
    let n = p.nodes.len();
    const UNSEEN: u32 = u32::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut of = vec![usize::MAX; n];
    let mut stack = Vec::new();
    let mut count = 0;
    let mut next = 0u32;
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        let mut call: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = call.last_mut() {
            if let Some(&(_, w, _)) = p.succ[v].get(*i) {
                *i += 1;
                let w = w as usize;
                if index[w] == UNSEEN {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            call.pop();
            if let Some(&(u, _)) = call.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == index[v] {
                loop {
                    let w = stack.pop().expect("v is on the stack");
                    on_stack[w] = false;
                    of[w] = count;
                    if w == v {
                        break;
                    }
                }
                count += 1;
            }
        }
    }
    Components { of, count }
}

/// A shortest path (label, node) from `from` whose last edge satisfies `goal`, through nodes
/// `allowed` (the goal edge's target excepted).
pub(super) fn bfs(
    p: &Product,
    from: u32,
    allowed: &dyn Fn(u32) -> bool,
    goal: &dyn Fn(u32, u32, bool) -> bool,
) -> Option<Vec<(u32, u32)>> {
    let mut parent: FxHashMap<u32, (u32, u32)> = FxHashMap::default();
    let mut queue = VecDeque::from([from]);
    let mut seen = FxHashMap::default();
    seen.insert(from, ());
    let path_to = |parent: &FxHashMap<u32, (u32, u32)>, mut y: u32, last: (u32, u32)| {
        let mut path = vec![last];
        while y != from {
            let (x, label) = parent[&y];
            path.push((label, y));
            y = x;
        }
        path.reverse();
        path
    };
    while let Some(x) = queue.pop_front() {
        for &(label, y, acc) in &p.succ[x as usize] {
            if goal(x, y, acc) {
                return Some(path_to(&parent, x, (label, y)));
            }
            if allowed(y) && seen.insert(y, ()).is_none() {
                parent.insert(y, (x, label));
                queue.push_back(y);
            }
        }
    }
    None
}
