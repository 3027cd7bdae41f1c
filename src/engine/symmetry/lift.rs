//! Concrete runs from paths of representatives.
//!
//! A path of the reduced graph is a sequence of orbits. It is lifted from an initial state of
//! the system, step by step: the next concrete state is the first successor (in the stepper's
//! order) whose representative is the path's next state. Such a successor exists because the
//! permutations map steps to steps. A lasso's loop ends in a state of the orbit where it
//! started, perhaps permuted: the loop is then walked again from there until a concrete state
//! repeats, which happens within as many rounds as the orbit has states, since each round's
//! start is a function of the previous one.

use super::Group;
use super::canon::CanonScratch;
use super::element::{Element, SlotMap};
use crate::engine::state::{Layout, StateStore, encode_into};
use crate::engine::step::{RuntimeError, Stepper, Work};

/// Why a path could not be lifted (never expected: a bug of the reduction).
#[derive(Debug)]
pub(crate) enum LiftError {
    Runtime(RuntimeError),
    /// The path's state at this index has no concrete counterpart.
    NoStep(usize),
}

impl std::fmt::Display for LiftError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LiftError::Runtime(e) => write!(f, "{}", e.0),
            LiftError::NoStep(i) => {
                write!(f, "state {i} of a reduced path has no concrete counterpart (symmetry reduction)")
            }
        }
    }
}

/// Tells whether concrete states belong to stored orbits.
struct Orbits<'a> {
    store: &'a StateStore,
    group: &'a Group,
    lay: &'a Layout,
    /// The working form of a state, and its stored form.
    enc: Vec<u8>,
    code: Vec<u8>,
    sc: CanonScratch,
}

impl Orbits<'_> {
    /// Whether concrete state `s` is in the orbit of stored representative `id`.
    fn represents(&mut self, s: &[i32], id: u32) -> bool {
        let width = self.store.width();
        self.enc.resize(self.store.work_bytes(), 0);
        // A value too wide for the store is in no stored orbit.
        if !encode_into(s, width, &mut self.enc) {
            return false;
        }
        self.group.canonicalise(self.lay, width, &mut self.enc, &mut self.sc);
        self.code.resize(self.store.state_bytes(), 0);
        self.store.pack(&self.enc, &mut self.code) && self.code == self.store.packed(id)
    }
}

struct Lifter<'a> {
    stepper: &'a Stepper<'a>,
    orbits: Orbits<'a>,
    w: Work,
}

impl Lifter<'_> {
    /// The first successor of `s` in the orbit of `id`.
    fn step(&mut self, s: &[i32], id: u32) -> Result<Option<Vec<i32>>, RuntimeError> {
        let orbits = &mut self.orbits;
        let mut found = None;
        self.stepper.successors(s, &mut self.w, false, &mut |_, t| {
            if found.is_none() && orbits.represents(t, id) {
                found = Some(t.to_vec());
            }
        })?;
        Ok(found)
    }

    /// Appends the concrete states of `ids` after the last state of `out`.
    fn follow(&mut self, ids: &[u32], offset: usize, out: &mut Vec<Vec<i32>>) -> Result<(), LiftError> {
        for (k, &id) in ids.iter().enumerate() {
            let last = out.last().expect("a lifted path starts with a state");
            let next = self.step(last, id).map_err(LiftError::Runtime)?.ok_or(LiftError::NoStep(offset + k))?;
            out.push(next);
        }
        Ok(())
    }
}

/// Concrete states along `path` (ids of representatives in `store`, from an initial state),
/// each a step from the previous one; with `loop_start`, the last state equals the state at
/// the returned loop start.
pub(crate) fn lift(
    stepper: &Stepper,
    store: &StateStore,
    group: &Group,
    path: &[u32],
    loop_start: Option<usize>,
) -> Result<(Vec<Vec<i32>>, Option<usize>), LiftError> {
    let orbits =
        Orbits { store, group, lay: &stepper.lay, enc: Vec::new(), code: Vec::new(), sc: CanonScratch::default() };
    let mut l = Lifter { stepper, orbits, w: Work::default() };
    let mut first = None;
    stepper
        .for_each_initial(&mut |s| {
            if l.orbits.represents(s, path[0]) {
                first = Some(s.to_vec());
            }
            first.is_none()
        })
        .map_err(LiftError::Runtime)?;
    let mut out = vec![first.ok_or(LiftError::NoStep(0))?];
    l.follow(&path[1..], 1, &mut out)?;
    let Some(ls) = loop_start else { return Ok((out, None)) };
    // Where each round of the loop started, in `out`.
    let mut starts = vec![ls];
    loop {
        let end = out.len() - 1;
        if let Some(&s) = starts.iter().find(|&&s| out[s] == out[end]) {
            // Drop nothing: the states after `s` up to `end` form the concrete loop.
            return Ok((out, Some(s)));
        }
        if starts.len() as u64 > group.order() {
            return Err(LiftError::NoStep(path.len()));
        }
        starts.push(end);
        l.follow(&path[ls + 1..], ls + 1, &mut out)?;
    }
}

/// Concrete states, the agent making each step between them, and where the loop starts.
pub(crate) type LiftedLoop = (Vec<Vec<i32>>, Vec<usize>, usize);

/// A loop of representatives lifted edge by edge, as the fair checks plan it (weak and strong
/// fairness, docs/semantics.md, D15): step `i` goes from representative `ids[i]` by the step of
/// agent `actors[i]` (an agent of `ids[i]`) to the state that element `perms[i]` maps to
/// `ids[i + 1]`; the last id is the first. From the concrete state `start`, in the orbit of
/// `ids[0]`: `σ` maps the current concrete state to its representative, so the next concrete
/// state is `σ⁻¹ · perms[i]⁻¹` of the next representative, made by agent `σ⁻¹(actors[i])`, and
/// `σ` becomes `perms[i] · σ`. Round after round, until a round ends in a state where one
/// started (within the order of the loop's element). Returns the concrete states from `start`,
/// the agent making each step, and the index of the state where the concrete loop starts.
pub(crate) fn lift_loop(
    stepper: &Stepper,
    store: &StateStore,
    group: &Group,
    start: Vec<i32>,
    ids: &[u32],
    actors: &[usize],
    perms: &[&Element],
) -> Result<LiftedLoop, LiftError> {
    let lay = &stepper.lay;
    let width = store.width();
    let mut enc = vec![0u8; store.work_bytes()];
    if !encode_into(&start, width, &mut enc) {
        return Err(LiftError::NoStep(0));
    }
    let mut sigma = Element::default();
    group.canonicalise_tracked(lay, width, &mut enc, &mut CanonScratch::default(), &mut sigma);
    let mut code = vec![0u8; store.state_bytes()];
    if !store.pack(&enc, &mut code) || code != store.packed(ids[0]) {
        return Err(LiftError::NoStep(0));
    }
    let mut back = SlotMap::of(group, lay, &sigma).inverse();
    let mut states = vec![start];
    let mut who = Vec::new();
    let mut round_starts = vec![0usize];
    let mut w = Work::default();
    loop {
        for (i, (&a, &pi)) in actors.iter().zip(perms).enumerate() {
            let agent = sigma.agents.iter().position(|&x| x as usize == a).ok_or(LiftError::NoStep(i))?;
            back = SlotMap::of(group, lay, pi).inverse().then(&back);
            sigma.agents = sigma.agents.iter().map(|&x| pi.agents[x as usize]).collect();
            let next = back.apply(&store.get(ids[i + 1]));
            let from = states.last().expect("a state");
            let mut made = false;
            stepper
                .successors(from, &mut w, true, &mut |e, t| {
                    made |= t == next.as_slice()
                        && match e {
                            Some(crate::engine::step::Event::Agent { agent: a, .. }) => a == agent,
                            Some(crate::engine::step::Event::Message { sender, .. }) => sender == agent,
                            None => false,
                        };
                })
                .map_err(LiftError::Runtime)?;
            if !made {
                return Err(LiftError::NoStep(i + 1));
            }
            states.push(next);
            who.push(agent);
        }
        let end = states.len() - 1;
        if let Some(&s) = round_starts.iter().find(|&&s| states[s] == states[end]) {
            return Ok((states, who, s));
        }
        if round_starts.len() as u64 > group.order() {
            return Err(LiftError::NoStep(ids.len()));
        }
        round_starts.push(end);
    }
}
