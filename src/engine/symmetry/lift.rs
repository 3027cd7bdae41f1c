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
