//! Bad prefixes of linear-time formulas (docs/semantics.md, D14): finite paths that every
//! continuation violates (`x = 0 until x = 2` after a state with neither). A violation that
//! has one is shown as that finite path, ended where it becomes bad, not as a lasso.
//!
//! A prefix is bad exactly when no state of the formula's own automaton (`of_formula`) that
//! reading it leads to can still accept (`Automaton::nonempty`). `Prefixes` steps that set
//! along a run; `shortest` searches the whole graph breadth-first for the shortest bad prefix
//! (the exhaustive check), `cut` ends a counterexample already found at its first bad position
//! (the searches on the fly, and the back ends' diagnostics).

use super::check::{Space, UNSEEN};
use super::ltl::{Automaton, Watch};
use super::path::Trace;
use crate::syntax::ltl::Ltl;
use std::collections::{HashMap, HashSet, VecDeque};

/// The formula's automaton, for reading prefixes.
pub(crate) struct Prefixes {
    aut: Automaton,
    /// Per automaton state: whether some continuation is accepted from it.
    live: Vec<bool>,
}

/// How a run continues after its last position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RunEnd {
    /// A lasso: the last position is followed by this one.
    Loop(usize),
    /// A deadlock: the last position repeats forever.
    Deadlock,
    /// Nothing is known beyond the last position.
    Open,
}

impl Prefixes {
    /// `None` when no prefix of any word is bad for `f` (its automaton never runs out of live
    /// states: `always finally ψ`, `finally always ψ`), or when its automaton is refused.
    pub(crate) fn new<A: PartialEq>(f: &Ltl<A>, watch: Watch) -> Option<Prefixes> {
        let aut = Automaton::within(f, false, watch).ok()?;
        let live = aut.nonempty();
        let p = Prefixes { aut, live };
        p.may_reject().then_some(p)
    }

    /// The automaton's live states before any position is read.
    fn start(&self) -> Vec<u32> {
        if self.live[0] { vec![0] } else { vec![] }
    }

    /// The live states after reading, from the states `at`, a position whose atom `k` has
    /// the value `value(k)`.
    fn read(&self, at: &[u32], value: &dyn Fn(usize) -> bool, out: &mut Vec<u32>) {
        self.aut.step(at, value, out);
        out.retain(|&q| self.live[q as usize]);
    }

    /// Whether some word has a bad prefix: the sets of live states reached by reading every
    /// valuation of the atoms, from the start, include the empty set. Exact over up to 8
    /// atoms and 256 sets; beyond, assumed (the searches are then merely run for nothing).
    fn may_reject(&self) -> bool {
        let atoms = self.aut.atoms();
        if self.start().is_empty() || atoms > 8 {
            return true;
        }
        let mut seen: HashSet<Vec<u32>> = HashSet::from([self.start()]);
        let mut todo = vec![self.start()];
        let mut next = vec![];
        while let Some(at) = todo.pop() {
            for v in 0..1u32 << atoms {
                self.read(&at, &|k| v >> k & 1 == 1, &mut next);
                if next.is_empty() || seen.len() > 256 {
                    return true;
                }
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        false
    }

    /// The first position `i` of the run such that its positions `0..=i` are a bad prefix:
    /// the run has `n` positions, read by `atom(k, i)` (atom `k` at position `i`), and goes on
    /// as `end` says. Past the last position a lasso's positions are counted on round the
    /// loop (the answer may lie beyond `n`, in a later round); a run ending in a deadlock is
    /// judged on its own positions only (when it is bad only by repeating its last state, the
    /// whole path is its counterexample already).
    pub(crate) fn first_bad(&self, n: usize, end: RunEnd, atom: &mut dyn FnMut(usize, usize) -> bool) -> Option<usize> {
        let atoms = self.aut.atoms();
        let mut at = self.start();
        let mut next = vec![];
        let mut seen: HashSet<(usize, Vec<u32>)> = HashSet::new();
        let mut i = 0usize;
        loop {
            let pos = match end {
                _ if i < n => i,
                RunEnd::Loop(l) if n > l => l + (i - l) % (n - l),
                _ => return None,
            };
            if at.is_empty() {
                return Some(i.saturating_sub(1));
            }
            if i >= n && !seen.insert((pos, at.clone())) {
                return None;
            }
            let vals: Vec<bool> = (0..atoms).map(|k| atom(k, pos)).collect();
            self.read(&at, &|k| vals[k], &mut next);
            std::mem::swap(&mut at, &mut next);
            if at.is_empty() {
                return Some(i);
            }
            i += 1;
        }
    }
}

/// Atom `k` on a state of a trace, or the run-time error evaluating it meets.
pub(crate) type AtomOnState<'a, E> = dyn FnMut(usize, &[i32]) -> Result<bool, E> + 'a;

/// `t`, a counterexample of the formula `pre` reads, ended at its first bad position (a lasso
/// unrolled when that position lies in a later round of its loop): a finite path without a
/// loop. `atom(k, state)`: atom `k` on a state of the trace. Returns that position (the
/// length of the path now), or `None`, and `t` unchanged, when no prefix of it is bad.
pub(crate) fn cut<E>(pre: &Prefixes, t: &mut Trace, atom: &mut AtomOnState<E>) -> Result<Option<usize>, E> {
    let (n, end) = match t.loop_start {
        Some(l) => (t.len(), RunEnd::Loop(l)),
        None if t.ends_in_deadlock => (t.len() + 1, RunEnd::Deadlock),
        None => (t.len() + 1, RunEnd::Open),
    };
    // Each atom on each position, evaluated once, when first read.
    let mut cache: HashMap<(usize, usize), bool> = HashMap::new();
    let mut err = None;
    let bad = pre.first_bad(n, end, &mut |k, i| {
        if let Some(&b) = cache.get(&(k, i)) {
            return b;
        }
        let b = match atom(k, t.state(i)) {
            Ok(b) => b,
            Err(e) => {
                err.get_or_insert(e);
                false
            }
        };
        cache.insert((k, i), b);
        b
    });
    if let Some(e) = err {
        return Err(e);
    }
    let Some(at) = bad else { return Ok(None) };
    if let Some(l) = t.loop_start {
        if at > t.len() {
            let period = t.len() - l;
            let steps = (0..at).map(|k| t.steps[if k < t.len() { k } else { l + (k - l) % period }].clone()).collect();
            t.steps = steps;
        } else {
            t.steps.truncate(at);
        }
        t.loop_start = None;
        // The last state has its successor on the lasso.
        t.ends_in_deadlock = false;
    } else if at < t.len() {
        t.steps.truncate(at);
        t.ends_in_deadlock = false;
    }
    Ok(Some(at))
}

/// The shortest path of `g` from an initial state whose states are a bad prefix of the formula
/// `pre` reads (`bits[k][s]`: atom `k` in state `s`; a deadlocked state repeats), found
/// breadth-first over pairs of a state and the set of the automaton's live states reading the
/// path leads to. `None` when there is none, when the pairs would need more than `max_sets`
/// sets (the memory of `max_sets` copies of a state index), or when `stopped` says so.
pub(crate) fn shortest(
    g: &dyn Space,
    pre: &Prefixes,
    bits: &[&[bool]],
    max_sets: usize,
    stopped: &dyn Fn() -> bool,
) -> Option<Vec<u32>> {
    let mut search = Search {
        n: g.states(),
        max_sets,
        sets: vec![],
        ids: HashMap::new(),
        parent: vec![],
        queue: Default::default(),
    };
    let value = |s: u32| move |k: usize| bits[k][s as usize];
    let mut next = vec![];
    let start = pre.start();
    for s in 0..g.initial() as u32 {
        pre.read(&start, &value(s), &mut next);
        if search.visit(s, &next, ROOT)? {
            return Some(vec![s]);
        }
    }
    let mut succ = vec![];
    let mut polled = 0u32;
    while let Some((set, s)) = search.queue.pop_front() {
        polled = polled.wrapping_add(1);
        if polled.is_multiple_of(4096) && stopped() {
            return None;
        }
        succ.clear();
        g.succs(s, &mut succ);
        if succ.is_empty() {
            succ.push(s);
        }
        let at = search.sets[set as usize].clone();
        for &t in &succ {
            pre.read(&at, &value(t), &mut next);
            if search.visit(t, &next, (set as u64) << 32 | s as u64)? {
                let mut p = search.path(set, s);
                p.push(t);
                return Some(p);
            }
        }
    }
    None
}

/// `parent` of a pair the search starts from.
const ROOT: u64 = u64::MAX;
/// `parent` of a pair not reached.
const UNREACHED: u64 = (UNSEEN as u64) << 32;

/// The breadth-first search of `shortest`: pairs (set id, state).
struct Search {
    n: usize,
    max_sets: usize,
    sets: Vec<Vec<u32>>,
    ids: HashMap<Vec<u32>, u32>,
    /// Per set, per state: the parent pair (set << 32 | state), `ROOT` or `UNREACHED`.
    parent: Vec<Vec<u64>>,
    queue: VecDeque<(u32, u32)>,
}

impl Search {
    /// Reaches state `s` with the live set `at` from the pair `from`: `Some(true)` when the set
    /// is empty (a bad prefix), `None` past `max_sets`.
    fn visit(&mut self, s: u32, at: &[u32], from: u64) -> Option<bool> {
        if at.is_empty() {
            return Some(true);
        }
        let id = match self.ids.get(at) {
            Some(&id) => id,
            None => {
                if self.sets.len() >= self.max_sets {
                    return None;
                }
                let id = self.sets.len() as u32;
                self.ids.insert(at.to_vec(), id);
                self.sets.push(at.to_vec());
                self.parent.push(vec![UNREACHED; self.n]);
                id
            }
        };
        let p = &mut self.parent[id as usize][s as usize];
        if *p == UNREACHED {
            *p = from;
            self.queue.push_back((id, s));
        }
        Some(false)
    }

    /// The states of the path to the pair (set, s).
    fn path(&self, mut set: u32, mut s: u32) -> Vec<u32> {
        let mut p = vec![s];
        while self.parent[set as usize][s as usize] != ROOT {
            let x = self.parent[set as usize][s as usize];
            (set, s) = ((x >> 32) as u32, x as u32);
            p.push(s);
        }
        p.reverse();
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::check::Lists;
    use crate::engine::ltl::holds_on_lasso;

    fn atom(i: usize) -> Ltl<usize> {
        Ltl::Atom(i)
    }
    fn b(f: Ltl<usize>) -> Box<Ltl<usize>> {
        Box::new(f)
    }

    #[test]
    fn recurrence_and_stabilisation_have_no_bad_prefix() {
        let gf = Ltl::Always(b(Ltl::Finally(b(atom(0)))));
        let fg = Ltl::Finally(b(Ltl::Always(b(atom(0)))));
        assert!(Prefixes::new(&gf, Watch::NONE).is_none());
        assert!(Prefixes::new(&fg, Watch::NONE).is_none());
        assert!(Prefixes::new(&Ltl::Until(b(atom(0)), b(atom(1))), Watch::NONE).is_some());
    }

    #[test]
    fn an_until_fails_where_neither_side_holds() {
        // x = 0 until x = 2 on the run x = 0, 1, 2, 0, … (a loop back to 0): atom 0 is
        // `x = 0`, atom 1 `x = 2`. Position 1 (x = 1) has neither: the prefix 0..=1 is bad.
        let f = Ltl::Until(b(atom(0)), b(atom(1)));
        let xs = [0, 1, 2];
        let p = Prefixes::new(&f, Watch::NONE).unwrap();
        let at = p.first_bad(3, RunEnd::Loop(0), &mut |k, i| if k == 0 { xs[i] == 0 } else { xs[i] == 2 });
        assert_eq!(at, Some(1));
    }

    #[test]
    fn a_bad_position_in_a_later_round_of_the_loop() {
        // `always (a implies always b)` on p0 = {¬a, b}, then the loop p1 = {¬a, ¬b},
        // p2 = {a, b} back to p1: the `a` at p2 obliges `b` forever, which p1 breaks in the
        // second round (unrolled position 3).
        let f = Ltl::Always(b(Ltl::Implies(b(atom(0)), b(Ltl::Always(b(atom(1)))))));
        let vals = [[false, true], [false, false], [true, true]];
        let p = Prefixes::new(&f, Watch::NONE).unwrap();
        assert_eq!(p.first_bad(3, RunEnd::Loop(1), &mut |k, i| vals[i][k]), Some(3));
        // `b until a` (atom 0 is b, atom 1 is a) with b forever and a never: violated, but no
        // finite prefix shows it.
        let u = Ltl::Until(b(atom(0)), b(atom(1)));
        let p = Prefixes::new(&u, Watch::NONE).unwrap();
        assert_eq!(p.first_bad(2, RunEnd::Loop(0), &mut |k, _| k == 0), None);
        // A run ending in a deadlock is judged on its positions only.
        assert_eq!(p.first_bad(2, RunEnd::Deadlock, &mut |k, _| k == 0), None);
        assert_eq!(p.first_bad(2, RunEnd::Open, &mut |k, i| k == 0 && i == 0), Some(1));
    }

    #[test]
    fn the_graph_search_finds_the_shortest_bad_prefix() {
        // 0 → 1 → 2 → 3 → 3 and 0 → 4 → 4: `always a` with a false at 3 and at 4. The path
        // 0 4 is the shortest bad prefix.
        let succ = vec![vec![1, 4], vec![2], vec![3], vec![3], vec![4]];
        let space = Lists { succ, initial: 1 };
        let a = [true, true, true, false, false];
        let f = Ltl::Always(b(atom(0)));
        let p = Prefixes::new(&f, Watch::NONE).unwrap();
        let bits: Vec<&[bool]> = vec![&a];
        assert_eq!(shortest(&space, &p, &bits, 4, &|| false), Some(vec![0, 4]));
        // Holds on every run: no bad prefix.
        let all = [true; 5];
        let bits: Vec<&[bool]> = vec![&all];
        assert_eq!(shortest(&space, &p, &bits, 4, &|| false), None);
        // A bad prefix is a violation on every continuation of it.
        let path = [0usize, 4];
        assert!(!holds_on_lasso(&f, 2, Some(1), &|_, i| a[path[i]]));
    }
}
