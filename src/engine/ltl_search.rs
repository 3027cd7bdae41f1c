//! A depth-first search for a run violating a linear-time formula (docs/semantics.md, D14)
//! that does not wait for the breadth-first exploration, as `lasso_search` does for `finally`:
//! the product of concrete states with the automaton of the formula's negation, built as the
//! emptiness check of `accepting` asks for its edges, from each initial state as it is
//! enumerated, within a budget of states. Where a system settles or loops is often the last
//! level the breadth-first order reaches and among the first things a depth-first search
//! meets. The states are concrete (no symmetry reduction), so that what it finds is a concrete
//! run; a formula that holds is left to the exhaustive check.

use super::accepting::{Emptiness, Halt, run};
use super::eval::Scratch;
use super::fast::FastPred;
use super::lasso_search::Lasso;
use super::ltl::Automaton;
use super::step::{Stepper, Work};
use crate::limits::Limits;
use crate::model::QPred;
use rustc_hash::FxHashMap;

/// A state's distinct successors (itself alone for a deadlock, whose run repeats it), once
/// its edges were asked for.
struct Succs {
    ids: Vec<u32>,
    deadlock: bool,
}

/// The product: node `s·k + q` for the `s`-th state met and automaton state `q`.
struct Product<'a> {
    stepper: &'a Stepper<'a>,
    preds: &'a [(&'a QPred, Option<FastPred>)],
    aut: &'a Automaton,
    /// The predicate each atom of the automaton reads.
    atom_of: &'a [usize],
    k: u32,
    ids: FxHashMap<Vec<i32>, u32>,
    states: Vec<Vec<i32>>,
    /// Each state's predicates.
    values: Vec<Vec<bool>>,
    succs: Vec<Option<Succs>>,
    /// States met at most (then `Halt`).
    budget: usize,
    /// Only the edges into nodes where some transition of the automaton accepts.
    promising_only: bool,
    limits: &'a Limits,
    work: Work,
    sc: Scratch,
}

impl Product<'_> {
    /// The number of state `s`; `Halt` past the budget, when the run stops, or on a run-time
    /// error in a predicate (the exhaustive check meets it again).
    fn intern(&mut self, s: &[i32]) -> Result<u32, Halt> {
        if let Some(&i) = self.ids.get(s) {
            return Ok(i);
        }
        // The limits read the process's memory use: not at every state.
        let n = self.states.len();
        if n >= self.budget || (n.is_multiple_of(1024) && self.limits.stopped().is_some()) {
            return Err(Halt);
        }
        let mut values = Vec::with_capacity(self.preds.len());
        for (q, fast) in self.preds {
            let v = match fast.as_ref().map(|f| f.eval(s)) {
                Some(Ok(b)) => b,
                _ => self.stepper.eval_pred(s, &mut self.sc, q).map_err(|_| Halt)?,
            };
            values.push(v);
        }
        self.ids.insert(s.to_vec(), n as u32);
        self.states.push(s.to_vec());
        self.values.push(values);
        self.succs.push(None);
        Ok(n as u32)
    }

    /// Fills `succs[s]`; `Halt` as `intern`, or on a run-time error in a step.
    fn expand(&mut self, s: u32) -> Result<(), Halt> {
        if self.succs[s as usize].is_some() {
            return Ok(());
        }
        let mut next: Vec<Vec<i32>> = Vec::new();
        let st = &self.states[s as usize];
        self.stepper.successors(st, &mut self.work, false, &mut |_, t| next.push(t.to_vec())).map_err(|_| Halt)?;
        let deadlock = next.is_empty();
        let mut ids = Vec::with_capacity(next.len().max(1));
        for t in next {
            ids.push(self.intern(&t)?);
        }
        ids.sort_unstable();
        ids.dedup();
        if deadlock {
            ids.push(s);
        }
        self.succs[s as usize] = Some(Succs { ids, deadlock });
        Ok(())
    }

    /// The edges of node `x` (only into promising nodes if `promising_only`): those that meet
    /// the most acceptance bits first, then those into the most promising nodes
    /// (`Automaton::promise`).
    fn edges(&mut self, x: u32, out: &mut Vec<(u32, u64)>) -> Result<(), Halt> {
        let (s, q) = (x / self.k, x % self.k);
        self.expand(s)?;
        let (aut, atom_of, k) = (self.aut, self.atom_of, self.k);
        let succs = &self.succs[s as usize].as_ref().expect("expanded").ids;
        let values = &self.values;
        let at = out.len();
        aut.transitions(q, &|a| values[s as usize][atom_of[a]], &mut |next, acc| {
            out.extend(succs.iter().map(|&t| (t * k + next, acc)));
        });
        let promise = |y: u32| aut.promise(y % k, &|a| values[(y / k) as usize][atom_of[a]]).count_ones();
        if self.promising_only {
            let mut kept = at;
            for i in at..out.len() {
                if promise(out[i].0) > 0 {
                    out[kept] = out[i];
                    kept += 1;
                }
            }
            out.truncate(kept);
        }
        out[at..].sort_by_cached_key(|&(y, acc)| std::cmp::Reverse((acc.count_ones(), promise(y))));
        Ok(())
    }
}

/// Looks for a run violating the formula whose negation `aut` accepts, atom `a` of `aut`
/// being predicate `atom_of[a]` of `preds`, among at most `budget` concrete states. `None`:
/// none found within the budget, or the search met a run-time error or a stop of the run.
///
/// Two searches share the states met: first one through promising nodes only (where some
/// transition of the automaton accepts) within a quarter of the budget, which finds at once
/// a run that stabilises or loops away from what the formula wants (`finally always ψ` is
/// then `lasso_search`'s search through ψ-free states), without getting lost in the part
/// where ψ holds for ever; then one through every node, for violations that need a prefix
/// (`always (p implies finally q)`: reaching p). A search through fewer edges only finds
/// fewer lassos, each a real one.
pub(super) fn find(
    stepper: &Stepper,
    preds: &[(&QPred, Option<FastPred>)],
    aut: &Automaton,
    atom_of: &[usize],
    budget: usize,
    limits: &Limits,
) -> Option<Lasso> {
    let k = aut.states() as u32;
    if budget as u64 * k as u64 >= u32::MAX as u64 {
        return None;
    }
    let mut product = Product {
        stepper,
        preds,
        aut,
        atom_of,
        k,
        ids: FxHashMap::default(),
        states: Vec::new(),
        values: Vec::new(),
        succs: Vec::new(),
        budget: budget / 4,
        promising_only: true,
        limits,
        work: Work::default(),
        sc: Scratch::default(),
    };
    let mut found = search(&mut product)?;
    if found.is_none() {
        (product.budget, product.promising_only) = (budget, false);
        found = search(&mut product)?;
    }
    let (prefix, cycle) = found?;
    let deadlock = |s: u32| product.succs[s as usize].as_ref().is_some_and(|n| n.deadlock);
    let c = run(&prefix, &cycle, &|x| x / product.k, &deadlock);
    Some(Lasso {
        states: c.path.iter().map(|&s| product.states[s as usize].clone()).collect(),
        loop_start: c.loop_start,
        visited: product.states.len(),
    })
}

/// One emptiness check of `product` from each initial state in turn: the lasso found
/// (`Some(None)`: none within the budget), `None` on a run-time error in the initial states.
fn search(product: &mut Product) -> Option<Option<(Vec<u32>, Vec<u32>)>> {
    let k = product.k;
    let mut search = Emptiness::new(product.aut.all(), 0);
    let mut starts = Vec::new();
    let mut found = None;
    // From each initial state as it is enumerated: there may be millions of them.
    let stepper = product.stepper;
    stepper
        .for_each_initial(&mut |s| {
            let Ok(i) = product.intern(s) else { return false };
            starts.push(i * k);
            let mut edges = |x: u32, out: &mut Vec<(u32, u64)>| product.edges(x, out);
            match search.search(i * k, &mut edges) {
                Ok(false) => true,
                Ok(true) => {
                    found = search.lasso(&starts, &mut edges).ok();
                    false
                }
                Err(Halt) => false,
            }
        })
        .ok()?;
    Some(found)
}
