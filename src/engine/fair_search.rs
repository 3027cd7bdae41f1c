//! A search for a fair run violating a property on runs (`--fairness`, docs/semantics.md,
//! D15) that does not wait for the exploration: the product of concrete states with the
//! automaton of the formula's negation, built as the emptiness check of `accepting` asks for
//! its edges, from each initial state as it is enumerated. A violation is often met long
//! before the whole state space is known (a deadlock, a loop that starves nobody).
//!
//! Weak fairness is a generalised Büchi condition on the product's edges: besides the
//! automaton's acceptance sets, one set per agent, made of the edges the agent steps by and
//! the edges leaving a state where it is disabled (a deadlock repeats its state, and nothing is
//! enabled there). A run meets every set infinitely often exactly when it is accepted and no
//! agent is enabled from some point on without stepping; Couvreur's search stops at the first
//! strongly connected component whose inner edges meet every set, so a weak-fair violation is
//! found as soon as such a component is, and when the search ends without one, none exists:
//! the property holds under weak fairness.
//!
//! Strong fairness is not such a condition (it needs the refinement of `fairness::check`): the
//! search then asks every agent to step (a deadlock meets every set), which only finds loops
//! fair under any notion; it is sound but not complete, so it runs within a budget of states
//! and an answer other than a violation is left to the check on the whole graph.
//!
//! The states are those of the engine's state store (ids in order of discovery, concrete: no
//! symmetry reduction), with the values of the automaton's atoms on each; the product's nodes
//! are `state · k + automaton state`, and a state's successors are computed again, agent by
//! agent, each time a node of it is entered. The counterexample is the shortest prefix through
//! the nodes met, then a loop inside the component that takes, for each requirement, an edge
//! that meets it (`fairness::fair_cycle`), each step with the agent it stands for.

use super::accepting::{Emptiness, Halt};
use super::eval::Scratch;
use super::fairness::{Fairness, MAX_AGENTS, fair_cycle};
use super::fast::FastPred;
use super::ltl::Automaton;
use super::state::{StateStore, hash_bytes};
use super::step::{PackedStop, Stepper, Work};
use crate::limits::Limits;
use crate::model::QPred;

/// A fair violation: the states from an initial one, the agent each step stands for (`None`:
/// any step between the two states), and where the loop starts (`None`: the last state is a
/// deadlock).
pub(crate) struct FairLasso {
    pub(crate) states: Vec<Vec<i32>>,
    pub(crate) actors: Vec<Option<usize>>,
    pub(crate) loop_start: Option<usize>,
}

/// What the search decided.
pub(crate) enum FairFound {
    Violated(FairLasso),
    /// The whole product was searched without a fair accepting component (weak fairness).
    Holds,
}

/// The answer of a search with the number of distinct states it stored (`None`: no answer:
/// the budget, the run's limits, a run-time error, or a strong-fairness search that found
/// nothing).
pub(crate) struct Searched {
    pub(crate) found: Option<FairFound>,
    pub(crate) visited: usize,
}

/// The states met, with their atoms' values, and the scratch space to expand them.
struct States<'a> {
    stepper: &'a Stepper<'a>,
    preds: &'a [(&'a QPred, Option<FastPred>)],
    /// The predicate each atom of the automaton reads.
    atom_of: &'a [usize],
    store: StateStore,
    /// Bit `a`: atom `a` holds in the state.
    values: Vec<u64>,
    /// States stored at most (then `Halt`).
    budget: usize,
    limits: &'a Limits,
    work: Work,
    sc: Scratch,
    st: Vec<i32>,
    parent: Vec<u8>,
    encs: Vec<u8>,
    ends: Vec<usize>,
    refs: Vec<u64>,
}

impl States<'_> {
    /// Evaluates the atoms on the states stored since `from`; `Halt` on a run-time error
    /// (the exhaustive check meets it again), past the budget, or when the run stops.
    fn evaluate_from(&mut self, from: usize) -> Result<(), Halt> {
        let n = self.store.len();
        if n > self.budget || (n / 1024 != from / 1024 && self.limits.stopped().is_some()) {
            return Err(Halt);
        }
        for i in from..n {
            self.store.get_into(i as u32, &mut self.st);
            let mut bits = 0u64;
            for (a, &p) in self.atom_of.iter().enumerate() {
                let (q, fast) = &self.preds[p];
                let v = match fast.as_ref().map(|f| f.eval(&self.st)) {
                    Some(Ok(b)) => b,
                    _ => self.stepper.eval_pred(&self.st, &mut self.sc, q).map_err(|_| Halt)?,
                };
                bits |= u64::from(v) << a;
            }
            self.values.push(bits);
        }
        Ok(())
    }

    /// Stores initial state `s`; its id.
    fn initial(&mut self, s: &[i32]) -> Result<u32, Halt> {
        let from = self.store.len();
        let (id, _) = self.store.insert(s);
        self.evaluate_from(from)?;
        Ok(id)
    }

    /// The distinct successors of state `s` into `out`, each with the agents stepping to it
    /// (a deadlock: itself, by nobody); returns the agents enabled in `s`.
    fn expand(&mut self, s: u32, out: &mut Vec<(u32, u64)>) -> Result<u64, Halt> {
        out.clear();
        let k = loop {
            self.store.get_work(s, &mut self.st, &mut self.parent);
            self.encs.clear();
            self.ends.clear();
            let width = self.store.width();
            match self.stepper.successors_packed_by_agent(
                &self.st,
                &self.parent,
                width,
                &mut self.work,
                &mut self.encs,
                &mut self.ends,
            ) {
                Ok(k) => break k,
                Err(PackedStop::Widen(w)) => self.store.widen(w),
                Err(PackedStop::Error(_)) => return Err(Halt),
            }
        };
        let from = self.store.len();
        let wb = self.store.work_bytes();
        self.refs.clear();
        for (j, enc) in self.encs.chunks_exact(wb).take(k).enumerate() {
            self.refs.push(self.store.insert_shared(enc, hash_bytes(enc), j as u64));
        }
        let ids = self.store.finish_batch();
        let mut a = 0;
        for (j, &r) in self.refs.iter().enumerate() {
            while self.ends[a] <= j {
                a += 1;
            }
            out.push((ids.resolve(r), 1u64 << a));
        }
        self.evaluate_from(from)?;
        out.sort_unstable();
        out.dedup_by(|b, a| {
            let same = a.0 == b.0;
            if same {
                a.1 |= b.1;
            }
            same
        });
        let enabled = out.iter().fold(0, |m, e| m | e.1);
        if out.is_empty() {
            out.push((s, 0));
        }
        Ok(enabled)
    }
}

/// The product's view for the search: the automaton, where the agents' sets lie among the
/// acceptance bits, and the states.
struct Product<'a> {
    aut: &'a Automaton,
    k: u32,
    /// The agents' sets are bits `shift..64`.
    shift: u32,
    agents: u64,
    weak: bool,
    states: States<'a>,
    succ: Vec<(u32, u64)>,
}

impl Product<'_> {
    /// The edges of node `x`, each `(target, automaton acceptance bits, agents stepping)`;
    /// returns the agents enabled in its state.
    fn out(&mut self, x: u32, f: &mut dyn FnMut(u32, u64, u64)) -> Result<u64, Halt> {
        let (s, q) = (x / self.k, x % self.k);
        let mut succ = std::mem::take(&mut self.succ);
        let enabled = self.states.expand(s, &mut succ)?;
        if (self.states.store.len() as u64 + 1) * self.k as u64 >= u32::MAX as u64 {
            return Err(Halt);
        }
        let v = self.states.values[s as usize];
        let k = self.k;
        self.aut.transitions(q, &|a| v >> a & 1 == 1, &mut |nq, acc| {
            for &(t, who) in &succ {
                f(t * k + nq, acc, who);
            }
        });
        self.succ = succ;
        Ok(enabled)
    }

    /// The agents' acceptance bits of an edge stepped by `who` out of a state where `enabled`
    /// are enabled.
    fn agent_bits(&self, who: u64, enabled: u64) -> u64 {
        let met = if self.weak || enabled == 0 { who | !enabled } else { who };
        if self.agents == 0 { 0 } else { (met & self.agents) << self.shift }
    }

    /// The edges for the emptiness check: automaton bits and the agents' sets together, those
    /// that meet the most automaton bits first, then those into the most promising nodes
    /// (`Automaton::promise`).
    fn edges(&mut self, x: u32, out: &mut Vec<(u32, u64)>) -> Result<(), Halt> {
        let at = out.len();
        let mut raw = Vec::new();
        let enabled = self.out(x, &mut |y, acc, who| raw.push((y, acc, who)))?;
        out.extend(raw.iter().map(|&(y, acc, who)| (y, acc | self.agent_bits(who, enabled))));
        let (aut, k, values) = (self.aut, self.k, &self.states.values);
        let all = aut.all();
        let promise = |y: u32| aut.promise(y % k, &|a| values[(y / k) as usize] >> a & 1 == 1).count_ones();
        out[at..].sort_by_cached_key(|&(y, acc)| std::cmp::Reverse(((acc & all).count_ones(), promise(y))));
        Ok(())
    }
}

/// Looks for a run violating the formula whose negation `aut` accepts (atom `a` of `aut` being
/// predicate `atom_of[a]` of `preds`) that is fair under `notion` (weak or strong), among at
/// most `budget` states.
pub(crate) fn find(
    stepper: &Stepper,
    notion: Fairness,
    preds: &[(&QPred, Option<FastPred>)],
    aut: &Automaton,
    atom_of: &[usize],
    budget: usize,
    limits: &Limits,
) -> Searched {
    let n = stepper.lay.n_agents;
    let none = Searched { found: None, visited: 0 };
    let shift = 64 - n as u32;
    let agents = if n == 0 { 0 } else { u64::MAX >> shift };
    // The agents' sets above the automaton's, in one word.
    if n > MAX_AGENTS || atom_of.len() > 64 || (n > 0 && aut.all() >> shift != 0) || notion == Fairness::AlmostSure {
        return none;
    }
    let weak = notion == Fairness::Weak;
    let k = aut.states() as u32;
    let mut p = Product {
        aut,
        k,
        shift,
        agents,
        weak,
        states: States {
            stepper,
            preds,
            atom_of,
            store: StateStore::for_threads(stepper.lay.len, 1),
            values: Vec::new(),
            budget,
            limits,
            work: Work::default(),
            sc: Scratch::default(),
            st: Vec::new(),
            parent: Vec::new(),
            encs: Vec::new(),
            ends: Vec::new(),
            refs: Vec::new(),
        },
        succ: Vec::new(),
    };
    let all = aut.all() | (agents << shift);
    let mut search = Emptiness::new(all, 0);
    let mut starts = Vec::new();
    let mut outcome: Result<bool, Halt> = Ok(false);
    let ok = stepper.for_each_initial(&mut |s| {
        let i = match p.states.initial(s) {
            Ok(i) => i,
            Err(h) => {
                outcome = Err(h);
                return false;
            }
        };
        starts.push(i * k);
        outcome = search.search(i * k, &mut |x, out| p.edges(x, out));
        matches!(outcome, Ok(false))
    });
    let visited = p.states.store.len();
    let found = match (ok, outcome) {
        (Ok(()), Ok(true)) => lasso(&mut p, &search, &starts).ok().map(FairFound::Violated),
        // Without an initial state the exploration says so.
        (Ok(()), Ok(false)) if weak && !starts.is_empty() => Some(FairFound::Holds),
        _ => None,
    };
    Searched { found, visited }
}

/// The fair lasso through the component `search` found.
fn lasso(p: &mut Product, search: &Emptiness, starts: &[u32]) -> Result<FairLasso, Halt> {
    let prefix = search.prefix(starts, &mut |x, out| p.edges(x, out))?;
    let entry = *prefix.last().expect("non-empty");
    let k = p.k;
    let state = |x: u32| x / k;
    let mut succ = Vec::new();
    let get = |p: &Product, x: u32| p.states.store.get(state(x));
    if p.states.expand(state(entry), &mut succ)? == 0 && succ == [(state(entry), 0)] {
        // A deadlock: the path to it, shown once (the product may repeat it on the prefix while
        // the automaton moves on).
        let first = prefix.iter().position(|&x| state(x) == state(entry)).expect("the prefix reaches it");
        let states: Vec<Vec<i32>> = prefix[..=first].iter().map(|&x| get(p, x)).collect();
        let actors = vec![None; states.len() - 1];
        return Ok(FairLasso { states, actors, loop_start: None });
    }
    let (need, need_acc) = (p.agents, p.aut.all());
    let weak = p.weak;
    let mut failed = false;
    let mut out =
        |u: u32, edges: &mut Vec<(u32, u64, u64)>| match p.out(u, &mut |w, acc, who| edges.push((w, acc, who))) {
            Ok(en) => en,
            Err(Halt) => {
                failed = true;
                0
            }
        };
    let cycle = fair_cycle(entry, &|x| search.inside(x), &mut out, weak, need, need_acc);
    let (Some((cycle, loop_actors)), false) = (cycle, failed) else { return Err(Halt) };
    let mut states: Vec<Vec<i32>> = prefix.iter().map(|&x| get(p, x)).collect();
    let mut actors = vec![None; states.len() - 1];
    let loop_start = states.len() - 1;
    states.extend(cycle[1..].iter().map(|&x| get(p, x)));
    actors.extend(loop_actors);
    Ok(FairLasso { states, actors, loop_start: Some(loop_start) })
}
