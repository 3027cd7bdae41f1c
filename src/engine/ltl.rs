//! Linear-time formulas on the explored graph (docs/semantics.md, D14).
//!
//! The negated formula, in negation normal form, is expanded into a transition-based
//! generalised Büchi automaton (a tableau: an automaton state is a set of obligations, one
//! transition per way of meeting them now and postponing the rest); the automaton runs in
//! product with the state graph, where a deadlocked state repeats forever. A reachable cycle
//! of the product that meets every `until` at least once is a run violating the formula: the
//! counterexample lasso. `holds_on_lasso` evaluates a formula on one lasso directly, by
//! fixpoints over its positions: the independent judge of the lassos found here.

use super::accepting::{Emptiness, Halt, accepting_cycle, run};
use super::check::{Cex, Outcome, Space, UNSEEN, path_from};
use super::explore::NO_PARENT;
use super::ltl_formula::{Node, Table};
use crate::syntax::ltl::Ltl;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::{BTreeSet, HashMap};

/// One transition of the automaton: the literals the current state must satisfy, the
/// obligations left for the next state, and the `until`s it does not postpone (a bit per
/// `until` of the formula).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Cover {
    lits: Vec<(usize, bool)>,
    next: u32,
    accepts: u64,
}

/// The automaton of a formula's negation (or of the formula itself).
#[derive(Clone)]
pub(crate) struct Automaton {
    /// Transitions of each automaton state; state 0 is initial.
    covers: Vec<Vec<Cover>>,
    /// Every `until` bit.
    all: u64,
    /// Atoms of the formula (as `Ltl::atoms` lists them).
    atoms: usize,
}

/// The largest automaton the translation builds: more states or transitions than this, and
/// the property is not checked (docs/semantics.md, D14). The product with the state graph has
/// one node per pair of a state and an automaton state, so an automaton this large already
/// multiplies the check's memory by up to `MAX_STATES`.
pub(crate) const MAX_STATES: usize = 10_000;
pub(crate) const MAX_TRANSITIONS: usize = 100_000;
/// The tableau steps (obligations expanded) the translation may take in all.
const MAX_WORK: usize = 4_000_000;

/// Why a formula has no automaton.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// More `until`s (after simplification) than acceptance bits.
    TooManyUntils(usize),
    /// The automaton would pass `MAX_STATES` or `MAX_TRANSITIONS` (or the tableau
    /// `MAX_WORK`): the sizes reached when it stopped.
    TooLarge { states: usize, transitions: usize },
    /// The run's limits stopped the translation.
    Stopped,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Refused::TooManyUntils(n) => {
                write!(f, "its automaton needs {n} acceptance sets (`until`s after simplification), more than 64")
            }
            Refused::TooLarge { states, transitions } => write!(
                f,
                "its automaton passes the bound of {MAX_STATES} states and {MAX_TRANSITIONS} transitions (the \
                 translation stopped at {states} states and {transitions} transitions)"
            ),
            Refused::Stopped => write!(f, "the run was stopped while its automaton was built"),
        }
    }
}

/// What watches a translation: the run's limits (`stopped`), and where its progress goes
/// (`progress(states, transitions)`, every few hundred thousand steps).
#[derive(Clone, Copy)]
pub(crate) struct Watch<'a> {
    pub(crate) stopped: &'a dyn Fn() -> bool,
    pub(crate) progress: &'a dyn Fn(usize, usize),
}

impl Watch<'_> {
    /// Nothing stops the translation, nobody watches it.
    pub(crate) const NONE: Watch<'static> = Watch { stopped: &|| false, progress: &|_, _| {} };
}

/// The translation's running counts, checked against the bounds.
struct Budget<'a> {
    work: usize,
    transitions: usize,
    watch: Watch<'a>,
}

impl Budget<'_> {
    /// One more tableau step; an error past the bounds.
    fn tick(&mut self, states: usize) -> Result<(), Refused> {
        self.work += 1;
        if self.work > MAX_WORK {
            return Err(Refused::TooLarge { states, transitions: self.transitions });
        }
        if self.work.is_multiple_of(4096) && (self.watch.stopped)() {
            return Err(Refused::Stopped);
        }
        if self.work.is_multiple_of(1 << 18) {
            (self.watch.progress)(states, self.transitions);
        }
        Ok(())
    }
}

impl Automaton {
    /// The automaton whose accepting runs are exactly the runs violating `f`.
    pub(crate) fn of_negation<A: PartialEq>(f: &Ltl<A>) -> Result<Automaton, Refused> {
        Automaton::build(f, true, Watch::NONE)
    }

    /// The automaton whose accepting runs are exactly the runs satisfying `f`.
    pub(crate) fn of_formula<A: PartialEq>(f: &Ltl<A>) -> Result<Automaton, Refused> {
        Automaton::build(f, false, Watch::NONE)
    }

    /// [`Automaton::of_negation`] (`negate`) or [`Automaton::of_formula`], watched by `watch`
    /// (the run's limits, the progress line) while it builds.
    pub(crate) fn within<A: PartialEq>(f: &Ltl<A>, negate: bool, watch: Watch) -> Result<Automaton, Refused> {
        Automaton::build(f, negate, watch)
    }

    fn build<A: PartialEq>(f: &Ltl<A>, negate: bool, watch: Watch) -> Result<Automaton, Refused> {
        let mut t = Table::for_atoms(&f.atoms());
        let mut atoms = 0;
        let root = t.nnf(f, negate, &mut atoms);
        let root = t.simplify(root, &mut HashMap::new());
        // Per node, the other obligations its expansion always meets, as a bit per node.
        let words = t.nodes.len().div_ceil(64);
        let implied_by: Vec<Vec<u64>> = t
            .always_met()
            .iter()
            .enumerate()
            .map(|(h, met)| {
                let mut bits = vec![0u64; words];
                for &g in met.iter().filter(|&&g| g as usize != h) {
                    bits[g as usize / 64] |= 1 << (g % 64);
                }
                bits
            })
            .collect();
        let untils: Vec<u32> =
            reachable(&t, root).into_iter().filter(|&i| matches!(t.nodes[i as usize], Node::Until(..))).collect();
        if untils.len() > 64 {
            return Err(Refused::TooManyUntils(untils.len()));
        }
        // The acceptance bit of each `until` node (0 for the other nodes).
        let mut bit = vec![0u64; t.nodes.len()];
        for (k, &u) in untils.iter().enumerate() {
            bit[u as usize] = 1 << k;
        }
        let all = if untils.len() == 64 { u64::MAX } else { (1u64 << untils.len()) - 1 };
        let mut budget = Budget { work: 0, transitions: 0, watch };
        let mut states: Vec<Vec<u32>> = vec![vec![root]];
        let mut index: FxHashMap<Vec<u32>, u32> = FxHashMap::default();
        index.insert(states[0].clone(), 0);
        let mut covers = Vec::new();
        let mut q = 0;
        while q < states.len() {
            let mut out: FxHashSet<CoverKey> = FxHashSet::default();
            let (before, n_states) = (budget.transitions, states.len());
            expand(&t, &bit, states[q].clone(), &mut budget, n_states, &mut |mut p: Partial| {
                p.lits.sort_unstable();
                p.next.sort_unstable();
                out.insert((p.lits, without_implied(p.next, &implied_by), all & !p.postponed));
                if before + out.len() > MAX_TRANSITIONS {
                    return Err(Refused::TooLarge { states: n_states, transitions: before + out.len() });
                }
                Ok(())
            })?;
            // In a fixed order, so that states are numbered the same way on every run.
            let mut out: Vec<_> = out.into_iter().collect();
            out.sort_unstable();
            let mut cs: Vec<Cover> = Vec::new();
            for (lits, next, accepts) in out {
                let id = *index.entry(next.clone()).or_insert_with(|| {
                    states.push(next);
                    states.len() as u32 - 1
                });
                cs.push(Cover { lits, next: id, accepts });
            }
            let cs = undominated(cs);
            budget.transitions += cs.len();
            covers.push(cs);
            if states.len() > MAX_STATES || budget.transitions > MAX_TRANSITIONS {
                return Err(Refused::TooLarge { states: states.len(), transitions: budget.transitions });
            }
            q += 1;
        }
        Ok(Automaton { covers, all, atoms })
    }

    pub(crate) fn states(&self) -> usize {
        self.covers.len()
    }

    /// Atoms of the formula (occurrences, as `Ltl::atoms` lists them).
    pub(crate) fn atoms(&self) -> usize {
        self.atoms
    }

    /// Whether every state has at most one transition for each valuation of the atoms: any
    /// two transitions of a state disagree on some literal. Its product with a Markov chain
    /// is then a Markov chain (the almost-sure check, docs/semantics.md, D15).
    pub(crate) fn deterministic(&self) -> bool {
        self.covers.iter().all(|cs| {
            cs.iter()
                .enumerate()
                .all(|(i, c)| cs[i + 1..].iter().all(|d| c.lits.iter().any(|&(k, b)| d.lits.contains(&(k, !b)))))
        })
    }

    /// An automaton with the same language whose transitions from each state are pairwise
    /// exclusive, made by giving the overlap of two transitions to the one that is as good
    /// there: its target is universal (a `true` state looping on every letter through every
    /// acceptance set: a run diverted there is accepted), or both go to the same state and it
    /// meets at least the other's acceptance sets (a run that takes it at every such position
    /// visits the same states and meets at least the same sets). Targets that merely accept
    /// more would not do: the choice recurs at every position, and the run it makes need not
    /// be an accepting one. `None` when two transitions overlap and neither is as good.
    pub(crate) fn determinised(&self) -> Option<Automaton> {
        const MAX_COVERS: usize = 10_000;
        let universal: Vec<bool> = (0..self.covers.len())
            .map(|q| self.covers[q].iter().any(|c| c.lits.is_empty() && c.next == q as u32 && c.accepts == self.all))
            .collect();
        let as_good = |c: &Cover, d: &Cover| {
            universal[c.next as usize] || (c.next == d.next && c.accepts & d.accepts == d.accepts)
        };
        let overlap = |c: &Cover, d: &Cover| !c.lits.iter().any(|&(k, b)| d.lits.contains(&(k, !b)));
        let mut covers = Vec::with_capacity(self.covers.len());
        for cs in &self.covers {
            let mut cs = cs.clone();
            'again: loop {
                if cs.len() > MAX_COVERS {
                    return None;
                }
                for i in 0..cs.len() {
                    for j in 0..cs.len() {
                        if i == j || !overlap(&cs[i], &cs[j]) {
                            continue;
                        }
                        if !as_good(&cs[i], &cs[j]) {
                            if as_good(&cs[j], &cs[i]) {
                                continue;
                            }
                            return None;
                        }
                        // `j` keeps only where `i` does not apply: one piece per literal of
                        // `i` it does not have, that literal negated after the earlier ones.
                        let d = cs.swap_remove(j);
                        let c = if i == cs.len() { cs[j].clone() } else { cs[i].clone() };
                        let mut kept = d.lits.clone();
                        for &(k, b) in c.lits.iter().filter(|l| !d.lits.contains(l)) {
                            let mut lits = kept.clone();
                            lits.push((k, !b));
                            lits.sort_unstable();
                            cs.push(Cover { lits, next: d.next, accepts: d.accepts });
                            kept.push((k, b));
                        }
                        continue 'again;
                    }
                }
                break;
            }
            covers.push(cs);
        }
        Some(Automaton { covers, all: self.all, atoms: self.atoms })
    }

    /// Every acceptance bit.
    pub(crate) fn all(&self) -> u64 {
        self.all
    }

    /// The acceptance bits some transition from state `q` meets on reading a state whose atom
    /// `k` has the value `value(k)`: the searches on the fly follow first the edges into
    /// product nodes whose next step can accept most, where an accepting cycle is likelier.
    pub(crate) fn promise(&self, q: u32, value: &dyn Fn(usize) -> bool) -> u64 {
        let mut acc = 0;
        self.transitions(q, value, &mut |_, a| acc |= a);
        acc
    }

    /// The transitions from state `q` on reading a state whose atom `k` has the value
    /// `value(k)`: `f(target, acceptance bits)` for each.
    pub(crate) fn transitions(&self, q: u32, value: &dyn Fn(usize) -> bool, f: &mut dyn FnMut(u32, u64)) {
        for c in &self.covers[q as usize] {
            if c.lits.iter().all(|&(k, b)| value(k) == b) {
                f(c.next, c.accepts);
            }
        }
    }

    /// `out`: the states reached from the states `from` by reading one state whose atom `k`
    /// has the value `value(k)` (sorted, without repeats).
    pub(crate) fn step(&self, from: &[u32], value: &dyn Fn(usize) -> bool, out: &mut Vec<u32>) {
        out.clear();
        for &q in from {
            for c in &self.covers[q as usize] {
                if c.lits.iter().all(|&(k, b)| value(k) == b) {
                    out.push(c.next);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
    }

    /// Per state: whether some infinite sequence of atom values is accepted from it (its
    /// language is not empty), i.e. it reaches a cycle whose transitions meet every
    /// acceptance bit. The automata are small: reachability is computed from every state.
    pub(crate) fn nonempty(&self) -> Vec<bool> {
        self.nonempty_with(&|_| true)
    }

    /// Whether the automaton accepts, from state `q`, the word that repeats one valuation of
    /// the atoms forever (`value(k)`: atom `k`): the stuttered suffix of a run that ends in a
    /// deadlock (D14).
    #[cfg(test)]
    pub(crate) fn accepts_constant(&self, q: u32, value: &dyn Fn(usize) -> bool) -> bool {
        self.accepting_constant(value)[q as usize]
    }

    /// [`Automaton::accepts_constant`] from every state.
    pub(crate) fn accepting_constant(&self, value: &dyn Fn(usize) -> bool) -> Vec<bool> {
        self.nonempty_with(&|c: &Cover| c.lits.iter().all(|&(k, b)| value(k) == b))
    }

    /// The automaton degeneralised for a monitor: one acceptance condition, by a counter of the
    /// acceptance sets met in order (a transition meeting the next sets moves the counter on;
    /// it accepts when the counter wraps round).
    pub(crate) fn degeneralised(&self) -> Degeneralised {
        let sets = self.all.count_ones();
        let mut states: Vec<(u32, u32)> = vec![(0, 0)];
        let mut index: HashMap<(u32, u32), u32> = HashMap::from([((0, 0), 0)]);
        let mut trans = vec![];
        let mut i = 0;
        while i < states.len() {
            let (q, j) = states[i];
            let mut out = vec![];
            for c in &self.covers[q as usize] {
                let mut k = j;
                while k < sets && c.accepts & (1 << k) != 0 {
                    k += 1;
                }
                let accepting = k == sets;
                let next = (c.next, if accepting { 0 } else { k });
                let id = *index.entry(next).or_insert_with(|| {
                    states.push(next);
                    states.len() as u32 - 1
                });
                out.push(MonitorStep { lits: c.lits.clone(), next: id, accepting });
            }
            trans.push(out);
            i += 1;
        }
        Degeneralised { origin: states.iter().map(|s| s.0).collect(), trans }
    }

    fn nonempty_with(&self, keep: &dyn Fn(&Cover) -> bool) -> Vec<bool> {
        let n = self.covers.len();
        let kept = |q: u32| self.covers[q as usize].iter().filter(|c| keep(c));
        // Components are numbered successors first (`scc`), so one pass in that order sees
        // every component a component reaches before it.
        let comp = super::scc::components(n, 0..n as u32, |q, f| kept(q).for_each(|c| f(c.next))).comp;
        let nc = comp.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
        // A component is accepting when its inner transitions meet every bit (and it has one).
        let mut met = vec![None::<u64>; nc];
        for q in 0..n as u32 {
            for c in kept(q).filter(|c| comp[c.next as usize] == comp[q as usize]) {
                let m = &mut met[comp[q as usize] as usize];
                *m = Some(m.unwrap_or(0) | c.accepts);
            }
        }
        let mut live: Vec<bool> = met.iter().map(|m| m.is_some_and(|m| m & self.all == self.all)).collect();
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_unstable_by_key(|&q| comp[q as usize]);
        for q in order {
            let cq = comp[q as usize] as usize;
            if !live[cq] && kept(q).any(|c| live[comp[c.next as usize] as usize]) {
                live[cq] = true;
            }
        }
        (0..n).map(|q| live[comp[q] as usize]).collect()
    }
}

/// One transition of a degeneralised automaton: the literals the state read must satisfy, the
/// next state, and whether the transition is accepting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MonitorStep {
    pub(crate) lits: Vec<(usize, bool)>,
    pub(crate) next: u32,
    pub(crate) accepting: bool,
}

/// A Büchi automaton with one acceptance condition on transitions (state 0 is initial): the
/// runs with infinitely many accepting transitions are accepted.
#[derive(Clone, Debug)]
pub(crate) struct Degeneralised {
    /// Per state, the state of the generalised automaton it counts for.
    pub(crate) origin: Vec<u32>,
    pub(crate) trans: Vec<Vec<MonitorStep>>,
}

/// A transition found by the tableau: its literals (sorted), the obligations of its target
/// (sorted), its acceptance bits.
type CoverKey = (Vec<(usize, bool)>, Vec<u32>, u64);

/// A cover under construction: the literals chosen, the obligations postponed to the next
/// state (`next`, the `until`s among them as acceptance bits in `postponed`), and the nodes
/// expanded (a bit per node).
#[derive(Clone, Default)]
struct Partial {
    lits: Vec<(usize, bool)>,
    next: Vec<u32>,
    postponed: u64,
    done: Vec<u64>,
}

/// Every way of meeting the obligations `todo` now (literals) and later (`next`), each given
/// to `out`; every branch is a choice kept on an explicit stack (no recursion), each
/// obligation expanded a tick of `budget`. `bit`: each `until`'s acceptance bit. `states`: the
/// automaton's states so far (for the refusal's message).
fn expand(
    t: &Table,
    bit: &[u64],
    todo: Vec<u32>,
    budget: &mut Budget,
    states: usize,
    out: &mut dyn FnMut(Partial) -> Result<(), Refused>,
) -> Result<(), Refused> {
    let start = Partial { done: vec![0; t.nodes.len().div_ceil(64)], ..Partial::default() };
    let mut branches = vec![(todo, start)];
    'branch: while let Some((mut todo, mut p)) = branches.pop() {
        while let Some(f) = todo.pop() {
            let (w, m) = (f as usize / 64, 1u64 << (f % 64));
            if p.done[w] & m != 0 {
                continue;
            }
            p.done[w] |= m;
            budget.tick(states)?;
            match t.nodes[f as usize] {
                Node::True => {}
                Node::False => continue 'branch,
                Node::Lit(i, b) => {
                    if p.lits.contains(&(i, !b)) {
                        continue 'branch;
                    }
                    if !p.lits.contains(&(i, b)) {
                        p.lits.push((i, b));
                    }
                }
                Node::And(a, b) => todo.extend([a, b]),
                Node::Or(a, b) => {
                    let mut left = todo.clone();
                    left.push(a);
                    branches.push((left, p.clone()));
                    todo.push(b);
                }
                Node::Until(a, b) => {
                    let mut now = todo.clone();
                    now.push(b);
                    branches.push((now, p.clone()));
                    todo.push(a);
                    p.next.push(f);
                    p.postponed |= bit[f as usize];
                }
                Node::Release(a, b) => {
                    let mut now = todo.clone();
                    now.extend([a, b]);
                    branches.push((now, p.clone()));
                    todo.push(b);
                    p.next.push(f);
                }
            }
        }
        out(p)?;
    }
    Ok(())
}

/// The obligations `next` (sorted) without those another one's expansion always meets
/// (`implied_by`, from `Table::always_met`): the state expands to the same transitions
/// without them.
fn without_implied(next: Vec<u32>, implied_by: &[Vec<u64>]) -> Vec<u32> {
    let Some(first) = next.first() else { return next };
    let mut implied = vec![0u64; implied_by[*first as usize].len()];
    for &h in &next {
        for (w, m) in implied.iter_mut().zip(&implied_by[h as usize]) {
            *w |= m;
        }
    }
    next.into_iter().filter(|&g| implied[g as usize / 64] & (1 << (g % 64)) == 0).collect()
}

/// The covers of one state without those another one makes useless: the same next state,
/// fewer literals to satisfy and at least the same acceptance (any run through the dominated
/// one can take the other instead). The covers are distinct, so two never dominate each
/// other. Compared pairwise among those with the same next state, where these are at most
/// `DOMINANCE_GROUP` (a smaller automaton, not a different language: larger groups stay whole).
fn undominated(cs: Vec<Cover>) -> Vec<Cover> {
    const DOMINANCE_GROUP: usize = 256;
    let dominates = |c: &Cover, d: &Cover| {
        c.next == d.next && c.accepts & d.accepts == d.accepts && c.lits.iter().all(|l| d.lits.binary_search(l).is_ok())
    };
    let mut group: HashMap<u32, usize> = HashMap::new();
    for c in &cs {
        *group.entry(c.next).or_default() += 1;
    }
    let same_next: HashMap<u32, Vec<&Cover>> =
        cs.iter().filter(|c| group[&c.next] <= DOMINANCE_GROUP).fold(HashMap::new(), |mut m, c| {
            m.entry(c.next).or_insert_with(Vec::new).push(c);
            m
        });
    cs.iter()
        .filter(|d| same_next.get(&d.next).is_none_or(|g| !g.iter().any(|c| !std::ptr::eq(*c, *d) && dominates(c, d))))
        .cloned()
        .collect()
}

/// The nodes reachable from `root` in the table.
fn reachable(t: &Table, root: u32) -> BTreeSet<u32> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![root];
    while let Some(n) = todo.pop() {
        if !seen.insert(n) {
            continue;
        }
        match t.nodes[n as usize] {
            Node::And(a, b) | Node::Or(a, b) | Node::Until(a, b) | Node::Release(a, b) => todo.extend([a, b]),
            _ => {}
        }
    }
    seen
}

/// The product of the states `0..within` of `g` (each expanded) with `aut`: node `s·k + q`
/// for state `s` and automaton state `q` (`k` automaton states), with an edge for each
/// transition of `q` whose literals `s` satisfies (`bits[a][s]`: atom `a` in `s`) to each
/// successor below `within`. A deadlocked state is its own successor (its run repeats it); a
/// state whose successors all lie beyond `within` has no edge.
fn product<'a>(
    g: &'a dyn Space,
    aut: &'a Automaton,
    bits: &'a [&'a [bool]],
    within: u32,
) -> impl Fn(u32, &mut Vec<(u32, u64)>) + 'a {
    let k = aut.states() as u32;
    move |x: u32, out: &mut Vec<(u32, u64)>| {
        let (s, q) = (x / k, x % k);
        let mut covers =
            aut.covers[q as usize].iter().filter(|c| c.lits.iter().all(|&(a, b)| bits[a][s as usize] == b));
        let Some(first) = covers.next() else { return };
        TARGETS.with_borrow_mut(|targets| {
            targets.clear();
            g.succs(s, targets);
            if targets.is_empty() {
                targets.push(s);
            } else {
                targets.retain(|&t| t < within);
            }
            for c in std::iter::once(first).chain(covers) {
                out.extend(targets.iter().map(|&t| (t * k + c.next, c.accepts)));
            }
        });
    }
}

/// Checks the formula whose negation `aut` accepts, on the whole graph `g`; `bits[k][s]`: atom
/// `k` in state `s`. `Unknown` where the graph is not whole or `stopped` says so.
pub(crate) fn check(g: &dyn Space, aut: &Automaton, bits: &[&[bool]], stopped: &dyn Fn() -> bool) -> Outcome {
    if !g.complete() {
        return Outcome::Unknown;
    }
    assert_eq!(bits.len(), aut.atoms, "one value vector per atom of the formula");
    let k = aut.states() as u64;
    let n = g.states() as u64 * k;
    if n >= UNSEEN as u64 {
        return Outcome::Unknown;
    }
    let edges = product(g, aut, bits, g.states() as u32);
    // Breadth-first from the initial nodes: the reachable part, with shortest prefixes.
    // `UNSEEN` until the search visits a node; an initial node's parent is `NO_PARENT`.
    let mut parent = vec![UNSEEN; n as usize];
    // The breadth-first order, also the queue (from `head`).
    let mut order = Vec::new();
    for s in 0..g.initial() as u32 {
        let x = s * k as u32;
        if parent[x as usize] == UNSEEN {
            parent[x as usize] = NO_PARENT;
            order.push(x);
        }
    }
    let mut buf = Vec::new();
    let mut head = 0;
    while let Some(&x) = order.get(head) {
        if head % 4096 == 0 && stopped() {
            return Outcome::Unknown;
        }
        head += 1;
        buf.clear();
        edges(x, &mut buf);
        for &(y, _) in &buf {
            if parent[y as usize] == UNSEEN {
                parent[y as usize] = x;
                order.push(y);
            }
        }
    }
    let comp = super::scc::components(n as usize, order.iter().copied(), |v, f| {
        buf.clear();
        edges(v, &mut buf);
        for &(w, _) in &buf {
            f(w);
        }
    })
    .comp;
    if stopped() {
        return Outcome::Unknown;
    }
    // Acceptance bits met inside each component; the first accepting component in BFS order
    // has the shortest prefix.
    let mut met: HashMap<u32, (u64, bool)> = HashMap::new();
    for &x in &order {
        buf.clear();
        edges(x, &mut buf);
        for &(y, acc) in &buf {
            if comp[y as usize] == comp[x as usize] {
                let e = met.entry(comp[x as usize]).or_insert((0, false));
                e.0 |= acc;
                e.1 = true;
            }
        }
    }
    let accepting = |c: u32| met.get(&c).is_some_and(|&(acc, cyclic)| cyclic && acc & aut.all == aut.all);
    let Some(&entry) = order.iter().find(|&&x| accepting(comp[x as usize])) else {
        return Outcome::Holds;
    };
    let cc = comp[entry as usize];
    let mut infallible = |x: u32, out: &mut Vec<(u32, u64)>| {
        edges(x, out);
        Ok(())
    };
    let cycle = accepting_cycle(entry, &mut infallible, &|y| comp[y as usize] == cc, aut.all)
        .expect("the product's edges never refuse");
    let prefix = path_from(&parent, entry);
    Outcome::Violated(run(&prefix, &cycle, &|x| x / k as u32, &|s| is_deadlock(g, s)))
}

/// An accepting lasso of the product of `aut` with the expanded states `0..within` of `g`
/// (their successors all stored; a graph still being explored), found by the emptiness check
/// on the fly (`accepting`): a run of the whole graph violating the formula. `None`: there is
/// none among those states (or `stopped` said so).
pub(crate) fn lasso_within(
    g: &dyn Space,
    aut: &Automaton,
    bits: &[&[bool]],
    within: u32,
    stopped: &dyn Fn() -> bool,
) -> Option<Cex> {
    let k = aut.states() as u64;
    let n = within as u64 * k;
    if n >= u32::MAX as u64 {
        return None;
    }
    let edges = product(g, aut, bits, within);
    let mut asked = 0u32;
    let mut checked = |x: u32, out: &mut Vec<(u32, u64)>| {
        asked = asked.wrapping_add(1);
        if asked.is_multiple_of(4096) && stopped() {
            return Err(Halt);
        }
        edges(x, out);
        Ok(())
    };
    let starts: Vec<u32> = (0..(g.initial() as u32).min(within)).map(|s| s * k as u32).collect();
    let mut search = Emptiness::new(aut.all, n as usize);
    for &x in &starts {
        if search.search(x, &mut checked).ok()? {
            let (prefix, cycle) = search.lasso(&starts, &mut checked).ok()?;
            return Some(run(&prefix, &cycle, &|x| x / k as u32, &|s| is_deadlock(g, s)));
        }
    }
    None
}

thread_local! {
    /// A state's successors, while the product's edges of one node are listed.
    static TARGETS: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn is_deadlock(g: &dyn Space, s: u32) -> bool {
    let mut b = Vec::new();
    g.succs(s, &mut b);
    b.is_empty()
}

/// Whether `f` holds on the run through positions `0..n` whose last position is followed by
/// `loop_start` (a lasso) or by itself (a run ending in a deadlock, `None`); `atom(k, i)`:
/// atom `k` (in `f.atoms()` order) at position `i`.
pub(crate) fn holds_on_lasso<A>(
    f: &Ltl<A>,
    n: usize,
    loop_start: Option<usize>,
    atom: &dyn Fn(usize, usize) -> bool,
) -> bool {
    assert!(n > 0, "a run has a first position");
    let next = |i: usize| if i + 1 < n { i + 1 } else { loop_start.unwrap_or(n - 1) };
    let mut k = 0;
    eval(f, n, &next, atom, &mut k)[0]
}

fn eval<A>(
    f: &Ltl<A>,
    n: usize,
    next: &dyn Fn(usize) -> usize,
    atom: &dyn Fn(usize, usize) -> bool,
    k: &mut usize,
) -> Vec<bool> {
    // v[i] = now[i] || (keep[i] && v[next(i)]) from `init` until stable: a least fixpoint
    // from all-false, a greatest from all-true.
    let fix = |now: &[bool], keep: &[bool], init: bool| {
        let mut v = vec![init; n];
        loop {
            let mut changed = false;
            for i in (0..n).rev() {
                let x = now[i] || (keep[i] && v[next(i)]);
                changed |= x != v[i];
                v[i] = x;
            }
            if !changed {
                return v;
            }
        }
    };
    let pointwise = |a: Vec<bool>, b: Vec<bool>, op: fn(bool, bool) -> bool| -> Vec<bool> {
        a.into_iter().zip(b).map(|(x, y)| op(x, y)).collect()
    };
    match f {
        Ltl::Atom(_) => {
            *k += 1;
            (0..n).map(|i| atom(*k - 1, i)).collect()
        }
        Ltl::Not(x) => eval(x, n, next, atom, k).into_iter().map(|b| !b).collect(),
        Ltl::And(x, y) => pointwise(eval(x, n, next, atom, k), eval(y, n, next, atom, k), |a, b| a && b),
        Ltl::Or(x, y) => pointwise(eval(x, n, next, atom, k), eval(y, n, next, atom, k), |a, b| a || b),
        Ltl::Implies(x, y) => pointwise(eval(x, n, next, atom, k), eval(y, n, next, atom, k), |a, b| !a || b),
        Ltl::Always(x) => {
            let a = eval(x, n, next, atom, k);
            fix(&vec![false; n], &a, true)
        }
        Ltl::Finally(x) => {
            let a = eval(x, n, next, atom, k);
            fix(&a, &vec![true; n], false)
        }
        Ltl::Until(x, y) => {
            let (a, b) = (eval(x, n, next, atom, k), eval(y, n, next, atom, k));
            fix(&b, &a, false)
        }
        Ltl::Unless(x, y) => {
            let (a, b) = (eval(x, n, next, atom, k), eval(y, n, next, atom, k));
            fix(&b, &a, true)
        }
    }
}

#[cfg(test)]
#[path = "ltl_tests.rs"]
mod tests;
