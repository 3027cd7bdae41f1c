//! `labs simulate --backend lnt`: random runs over the LTS of the emitted LNT program, generated
//! on the fly by the interpreter (never the whole LTS).
//!
//! A LAbS step from a real state (a target of `DONE`) is a path of non-`DONE` transitions
//! ending with one `DONE`. At each real state the walk computes every distinct LAbS successor
//! (depth-first over the intermediate states of the step, which are few: one step and its
//! receivers' private actions) and the run picks one uniformly, with the native simulator's
//! generator and choice sequence (`engine::simulate_with`). The LAbS state of a real state is
//! read from the processes' variables (`I`, `L`, `Zp`, `Zc`, `pc` of each agent, `E` of `Env`,
//! the ranks `r` of each `Timestamps (k)`, the turn `t` of `Sched`); the event of a step from
//! the labels of the hidden gates (`TICK !a`: agent `a` acts; `REFRESH !k !a`: it writes tuple
//! `k`; `PUT_k !s !gm … !ln`/`QRY_k !s !gm !lm … !ln`: propagation/confirmation, the receivers in
//! both `gm` and `ln` copy, after `QRY_k` those in `lm` and `ln` will re-propagate). What the LNT cannot show (the edge of the
//! behaviour and the list of assigned variables, unchanged values included) is taken from the
//! native step with the same state and the same event skeleton; an LNT step with no such
//! native step, or a native step the LNT program lacks, is an error.

use super::LntcheckError;
use super::interp::{Explorer, Net, SysState, Trans};
use super::sem::{Program, Value};
use crate::behaviour::Behaviour;
use crate::engine::estimate::{EstimateOptions, EstimateReport};
use crate::engine::simulate::Walk;
use crate::engine::state::{BOT, Layout};
use crate::engine::step::{Event, Stepper, Work};
use crate::engine::{EngineError, SimulateOptions, SimulateReport, simulate_with};
use crate::model::{Model, Store};
use crate::trace::Trace;
use rustc_hash::FxHashSet;

/// An LNT state or label that breaks the encoding.
fn encoding(m: String) -> LntcheckError {
    LntcheckError::Encoding(m)
}

/// What the hidden labels of one LAbS step say about its event.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Skeleton {
    /// `Some(a)` for an agent step of `a` (`TICK !a`).
    pub(crate) agent: Option<usize>,
    /// Tuples written (`REFRESH !k !a`), sorted.
    pub(crate) written: Vec<usize>,
    /// `Some((sender, tuple, confirm))` for a message step.
    pub(crate) message: Option<(usize, usize, bool)>,
    /// Receivers that copied (in the message's `gm` and `ln`), sorted.
    pub(crate) copied: Vec<usize>,
    /// Confirmation receivers with a newer value (in `QRY_k`'s `lm` and `ln`), sorted.
    pub(crate) refreshed: Vec<usize>,
}

fn nums(label: &str) -> Vec<&str> {
    label.split(" !").skip(1).collect()
}

fn insert_sorted(v: &mut Vec<usize>, x: usize) {
    if let Err(i) = v.binary_search(&x) {
        v.insert(i, x);
    }
}

impl Skeleton {
    /// Accounts for one transition (label before hiding).
    fn add(&mut self, orig: &str) -> Result<(), LntcheckError> {
        let gate = orig.split(' ').next().unwrap_or("");
        let args = nums(orig);
        let num = |i: usize| -> Result<usize, LntcheckError> {
            args.get(i).and_then(|x| x.parse().ok()).ok_or_else(|| encoding(format!("unexpected offers in `{orig}`")))
        };
        match gate {
            "TICK" => {
                let a = num(0)?;
                if self.agent.is_some_and(|b| b != a) || self.message.is_some() {
                    return Err(encoding(format!("`{orig}`: a second action in one LAbS step")));
                }
                self.agent = Some(a);
            }
            "REFRESH" => insert_sorted(&mut self.written, num(0)?),
            // `PUT_k !s !gm … !ln`, `QRY_k !s !gm !lm … !ln`: the receivers older than the
            // sender (newer: `lm`) and the linked ones, as masks (bit a: agent a); a receiver
            // the link rules out does nothing.
            g if g.starts_with("PUT_") || g.starts_with("QRY_") => {
                let k: usize = g[4..].parse().map_err(|_| encoding(format!("unexpected gate in `{orig}`")))?;
                if self.agent.is_some() || self.message.is_some() {
                    return Err(encoding(format!("`{orig}`: a second action in one LAbS step")));
                }
                let confirm = g.starts_with("QRY_");
                self.message = Some((num(0)?, k, confirm));
                let linked = num(args.len().saturating_sub(1))?;
                let agents = |m: usize| (0..usize::BITS as usize).filter(move |a| (m >> a) & 1 == 1 && (linked >> a) & 1 == 1);
                self.copied = agents(num(1)?).collect();
                if confirm {
                    self.refreshed = agents(num(2)?).collect();
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Whether a native event agrees with everything the labels say.
    fn matches(&self, ev: &Event) -> bool {
        match ev {
            Event::Agent { agent, written, .. } => {
                self.message.is_none() && self.agent == Some(*agent) && {
                    let mut w = written.clone();
                    w.sort_unstable();
                    w == self.written
                }
            }
            Event::Message { sender, tuple, confirm, copied, refreshed } => {
                let (mut c, mut r) = (copied.clone(), refreshed.clone());
                c.sort_unstable();
                r.sort_unstable();
                self.agent.is_none()
                    && self.message == Some((*sender, *tuple, *confirm))
                    && c == self.copied
                    && r == self.refreshed
            }
        }
    }
}

/// Where the LAbS state lives in the LNT processes.
struct Places {
    /// Per agent id: (leaf, slots of `I`, `L`, `Zp`, `Zc`, `pc`).
    agents: Vec<Option<(usize, [Option<usize>; 5])>>,
    /// The `Env` leaf and the slot of `E`.
    env: Option<(usize, usize)>,
    /// Per tuple: the `Timestamps (k)` leaf and the slot of `r`.
    ranks: Vec<Option<(usize, usize)>>,
    /// The `Sched` leaf and the slot of `t`.
    sched: Option<(usize, usize)>,
}

impl Places {
    fn new(net: &Net, n_agents: usize, n_tuples: usize) -> Places {
        let mut p = Places { agents: vec![None; n_agents], env: None, ranks: vec![None; n_tuples], sched: None };
        for (k, l) in net.leaves.iter().enumerate() {
            let slot = |n: &str| l.proc.slot_names.iter().position(|x| x == n);
            let arg = match l.args.first() {
                Some(Value::I(i)) => Some(*i as usize),
                _ => None,
            };
            if l.proc.name.starts_with("Agent_") {
                if let Some(a) = arg.filter(|a| *a < n_agents) {
                    p.agents[a] = Some((k, [slot("I"), slot("L"), slot("Zp"), slot("Zc"), slot("pc")]));
                }
            } else if l.proc.name == "Env" {
                p.env = slot("E").map(|s| (k, s));
            } else if l.proc.name == "Timestamps" {
                if let (Some(t), Some(s)) = (arg.filter(|t| *t < n_tuples), slot("r")) {
                    p.ranks[t] = Some((k, s));
                }
            } else if l.proc.name == "Sched" {
                p.sched = slot("t").map(|s| (k, s));
            }
        }
        p
    }
}

/// Two independent 64-bit hashes of `x` (a state, or a skeleton and a state).
fn fingerprint<T: std::hash::Hash + ?Sized>(x: &T) -> u128 {
    use std::hash::{BuildHasher, Hasher};
    let mut a = std::collections::hash_map::DefaultHasher::new();
    x.hash(&mut a);
    let b = rustc_hash::FxBuildHasher.hash_one(x);
    (u128::from(a.finish()) << 64) | u128::from(b)
}

/// A LAbS step of the program: its skeleton and the real state it reaches.
pub(crate) type SkeletonStep = (Skeleton, SysState);

/// The native steps from a state, listed with multiplicity.
pub(crate) type NativeSteps = Vec<(Event, Vec<i32>)>;

/// An initial LAbS state of the program, with a state of the program that has it.
pub(crate) type InitialState = (Vec<i32>, SysState);

/// A LAbS step of the program checked against the native semantics (`LntWalk::checked_steps`).
pub(crate) struct CheckedStep {
    /// The native step it is.
    pub(crate) event: Event,
    /// The LAbS state it reaches, and the program's state.
    pub(crate) state: Vec<i32>,
    pub(crate) real: SysState,
}

/// The interpreter as a `Walk` of LAbS states.
pub(crate) struct LntWalk<'a> {
    model: &'a Model,
    stepper: Stepper<'a>,
    prog: &'a Program,
    ex: Explorer<'a>,
    places: Places,
    undef: i64,
    work: Work,
    /// Real states of the successors last returned.
    pending: Vec<SysState>,
    /// The current real state.
    cur: Option<SysState>,
    /// Most intermediate states explored for one LAbS step so far (statistics).
    pub(crate) widest_step: usize,
    /// The run's limits, checked within a step (`None`: the caller checks between steps).
    pub(crate) limits: Option<crate::limits::Limits>,
}

impl<'a> LntWalk<'a> {
    pub(crate) fn new(
        model: &'a Model,
        behs: &'a [Behaviour],
        fair: bool,
        prog: &'a Program,
        net: &'a Net,
    ) -> LntWalk<'a> {
        let stepper = Stepper::new(model, behs, fair);
        let places = Places::new(net, stepper.lay.n_agents, stepper.lay.n_tuples);
        let undef = super::backend::undef_value(prog);
        LntWalk {
            model,
            stepper,
            prog,
            ex: Explorer::new(prog, net),
            places,
            undef,
            work: Work::default(),
            pending: vec![],
            cur: None,
            widest_step: 0,
            limits: None,
        }
    }

    /// Every distinct LAbS step from `from`: (skeleton, real state reached by `DONE`), in a
    /// reproducible order (depth first, transitions in the interpreter's order); and the first
    /// `ERR` label met (a run-time error of the model, reported by the program).
    pub(crate) fn labs_steps(&mut self, from: &SysState) -> Result<(Vec<SkeletonStep>, Option<String>), LntcheckError> {
        let mut out: Vec<SkeletonStep> = vec![];
        let mut error = None;
        // Intermediate states are remembered by a 128-bit fingerprint, not kept whole: an
        // initialisation can pass through millions of them (two independent 64-bit hashes;
        // a collision would drop a path, which the comparison with the native steps reports).
        let mut seen_out: FxHashSet<u128> = FxHashSet::default();
        let mut visited: FxHashSet<u128> = FxHashSet::default();
        let mut stack = vec![(Skeleton::default(), from.clone())];
        visited.insert(fingerprint(&(&Skeleton::default(), from)));
        let mut first = true;
        let mut popped = 0u64;
        while let Some((sk, st)) = stack.pop() {
            popped += 1;
            if popped.is_multiple_of(1024) && self.limits.as_ref().is_some_and(|l| l.stopped().is_some()) {
                return Err(encoding("stopped by the run's limits within a step".into()));
            }
            let succ: Vec<Trans> =
                self.ex.successors_full(&st).map_err(|d| LntcheckError::Program(self.prog.locate(&d)))?;
            if succ.is_empty() && !first {
                return Err(encoding(
                    "the LNT program blocks in the middle of a step (a state without successors, not reached by \
                     DONE)"
                        .into(),
                ));
            }
            // Partial-order reduction: a transition that is the only move of each leaf taking
            // part in it (an observation label, a private step) happens on every path to
            // `DONE` and commutes with everything else; taking it alone loses no LAbS
            // successor (the skeleton does not depend on the order either).
            let succ = match succ.iter().position(|t| t.sole && t.label != "DONE") {
                Some(i) if !first => vec![succ.into_iter().nth(i).expect("index")],
                _ => succ,
            };
            first = false;
            let mut next = vec![];
            for t in succ {
                if t.label == "DONE" {
                    if seen_out.insert(fingerprint(&(&sk, &t.next))) {
                        out.push((sk.clone(), t.next));
                    }
                } else if crate::trace::cadp::split_label(&t.label).0 == "ERR" {
                    // The program stops after reporting the error.
                    error.get_or_insert(t.label);
                } else {
                    let mut s2 = sk.clone();
                    s2.add(&t.orig)?;
                    if visited.insert(fingerprint(&(&s2, &t.next))) {
                        next.push((s2, t.next));
                    }
                }
            }
            // depth first, in the interpreter's order
            stack.extend(next.into_iter().rev());
        }
        self.widest_step = self.widest_step.max(visited.len());
        Ok((out, error))
    }

    /// Every distinct LAbS step from the real state `from`, whose LAbS state is `cur`: the
    /// program's steps distinct by skeleton and LAbS state reached, each with the native event
    /// it is and the real state it reaches; and the native steps, listed with multiplicity. An
    /// LNT step with no such native step, or a native step the program lacks, is an internal
    /// error; `trace` gives a run to `cur`, for the reports.
    pub(crate) fn checked_steps(
        &mut self,
        from: &SysState,
        cur: &[i32],
        trace: &dyn Fn() -> Trace,
    ) -> Result<(Vec<CheckedStep>, NativeSteps), EngineError> {
        let internal = |m: String| EngineError::Internal(format!("--backend lnt: {m}"));
        let internal_lnt = |e: LntcheckError| internal(e.to_string());
        let (steps, error) = self.labs_steps(from).map_err(|m| EngineError::Runtime {
            message: format!("in the emitted LNT program: {m}"),
            trace: Some(Box::new(trace())),
        })?;
        let mut native: Vec<(Event, Vec<i32>)> = vec![];
        let native_error = self
            .stepper
            .successors(cur, &mut self.work, true, &mut |e, s| native.push((e.expect("event"), s.to_vec())))
            .err();
        match (native_error, error) {
            // The same run-time error on both sides: reported as the native engine words it.
            (Some(e), Some(label)) if label_code(&label) == Some(crate::lnt::errors::error_code(&e.0)) => {
                return Err(EngineError::Runtime { message: e.0, trace: Some(Box::new(trace())) });
            }
            (None, None) => {}
            (n, l) => {
                return Err(internal(format!(
                    "the native engine meets {} where the LNT program reports {}; trace so far:\n{}",
                    n.map(|e| format!("the run-time error `{}`", e.0)).unwrap_or_else(|| "no run-time error".into()),
                    l.unwrap_or_else(|| "none".into()),
                    crate::trace::render(self.model, self.stepper.behs, &trace())
                )));
            }
        }
        let mut out: Vec<CheckedStep> = vec![];
        let mut lnt: Vec<(Skeleton, Vec<i32>)> = vec![];
        for (sk, st) in steps {
            let v = self.labs_state(&st).map_err(internal_lnt)?;
            // Two ways through the program to one LAbS step (the same skeleton and LAbS state,
            // different values of the program's own variables) are one step.
            if lnt.iter().any(|(k, w)| *k == sk && *w == v) {
                continue;
            }
            let found = native.iter().position(|(e, s)| *s == v && sk.matches(e));
            let Some(i) = found else {
                return Err(internal(format!(
                    "the LNT program takes a step ({sk:?}) that is not a step of the native semantics; \
                     trace so far:\n{}",
                    crate::trace::render(self.model, self.stepper.behs, &trace())
                )));
            };
            out.push(CheckedStep { event: native[i].0.clone(), state: v.clone(), real: st });
            lnt.push((sk, v));
        }
        if let Some((e, _)) = native.iter().find(|(e, s)| !lnt.iter().any(|(sk, v)| v == s && sk.matches(e))) {
            return Err(internal(format!(
                "the native step {e:?} is missing from the LNT program; trace so far:\n{}",
                crate::trace::render(self.model, self.stepper.behs, &trace())
            )));
        }
        Ok((out, native))
    }

    /// The native semantics the steps are checked against.
    pub(crate) fn stepper(&self) -> &Stepper<'a> {
        &self.stepper
    }

    /// A state of the LNT program reached by its first `DONE` whose LAbS state is `target`.
    /// Depth first through the initialisation; the program initialises the environment, then
    /// each agent in id order, each part ending with `INIT !j` (j = 0: the environment, j = a + 1:
    /// agent a), so a path is abandoned as soon as a part it finished disagrees with `target`.
    /// (Should the program not follow that order, no path is abandoned: only slower.)
    fn find_initial(&mut self, target: &[i32]) -> Result<SysState, LntcheckError> {
        let init = self.ex.initial().map_err(|d| LntcheckError::Program(self.prog.locate(&d)))?;
        let mut visited: FxHashSet<u128> = FxHashSet::default();
        let mut stack = vec![init];
        while let Some(st) = stack.pop() {
            let succ: Vec<Trans> =
                self.ex.successors_full(&st).map_err(|d| LntcheckError::Program(self.prog.locate(&d)))?;
            let mut next = vec![];
            for t in succ {
                if t.label == "DONE" {
                    if self.labs_state(&t.next)? == target {
                        return Ok(t.next);
                    }
                    continue;
                }
                let finished = t.orig.strip_prefix("INIT !").and_then(|j| j.parse::<usize>().ok());
                if let Some(j) = finished
                    && !self.part_agrees(&t.next, target, j)
                {
                    continue;
                }
                if visited.insert(fingerprint(&t.next)) {
                    next.push(t.next);
                }
            }
            stack.extend(next.into_iter().rev());
        }
        Err(encoding(format!(
            "no way through it reaches the initial state {target:?} of the native semantics (the initial states \
             differ)"
        )))
    }

    /// Every initial LAbS state of the program (the states its first `DONE` reaches), each
    /// with the first state of the program found for it, in the order of a depth-first search
    /// through the initialisation; `None` when `limits` stop it first.
    pub(crate) fn initial_states(
        &mut self,
        limits: &crate::limits::Limits,
    ) -> Result<Option<Vec<InitialState>>, LntcheckError> {
        let init = self.ex.initial().map_err(|d| LntcheckError::Program(self.prog.locate(&d)))?;
        let mut visited: FxHashSet<u128> = FxHashSet::default();
        let mut found: FxHashSet<Vec<i32>> = FxHashSet::default();
        let mut out = vec![];
        let mut stack = vec![init];
        let mut popped = 0u64;
        while let Some(st) = stack.pop() {
            popped += 1;
            if popped.is_multiple_of(1024) && limits.stopped().is_some() {
                return Ok(None);
            }
            let succ: Vec<Trans> =
                self.ex.successors_full(&st).map_err(|d| LntcheckError::Program(self.prog.locate(&d)))?;
            let mut next = vec![];
            for t in succ {
                if t.label == "DONE" {
                    let v = self.labs_state(&t.next)?;
                    if found.insert(v.clone()) {
                        out.push((v, t.next));
                    }
                } else if visited.insert(fingerprint(&t.next)) {
                    next.push(t.next);
                }
            }
            stack.extend(next.into_iter().rev());
        }
        Ok(Some(out))
    }

    /// Whether the part `j` of the initialisation (0: the environment, a + 1: agent a) gave
    /// the values of `target` (attributes, stigmergic values, environment; timestamps are
    /// checked at `DONE`). Unknown (the state cannot be read yet): yes.
    fn part_agrees(&self, st: &SysState, target: &[i32], j: usize) -> bool {
        let Ok(v) = self.labs_state(st) else { return true };
        let lay = &self.stepper.lay;
        let slots: Vec<usize> = match j {
            0 => (0..lay.env_len).collect(),
            _ if j - 1 < lay.n_agents => {
                let a = j - 1;
                (0..lay.attr_len).map(|k| lay.attr(a, k)).chain((0..lay.stig_len).map(|k| lay.stig(a, k))).collect()
            }
            _ => return true,
        };
        slots.iter().all(|&k| v[k] == target[k])
    }

    fn to_i32(&self, v: &Value) -> i32 {
        match v {
            Value::I(i) if *i == self.undef => BOT,
            Value::I(i) => *i as i32,
            Value::B(b) => *b as i32,
            _ => 0,
        }
    }

    /// The LAbS state (native layout) of a real state, from the processes' variables.
    pub(crate) fn labs_state(&self, st: &SysState) -> Result<Vec<i32>, LntcheckError> {
        let model = self.model;
        let lay: &Layout = &self.stepper.lay;
        let arr = |leaf: usize, slot: Option<usize>, what: &str| -> Result<Vec<Value>, LntcheckError> {
            match slot.and_then(|s| st[leaf].env.get(s).cloned().flatten()) {
                Some(Value::A(xs)) => Ok(xs.to_vec()),
                _ => Err(encoding(format!("no array `{what}` in {}", self.ex.net.leaves[leaf].name))),
            }
        };
        let mut out = vec![BOT; lay.len];
        if let Some((leaf, s)) = self.places.env {
            let e = arr(leaf, Some(s), "E")?;
            for var in model.vars.iter().filter(|v| v.store == Store::Env) {
                for k in 0..var.len {
                    out[var.offset + k] = e.get(var.offset + k).map_or(0, |x| self.to_i32(x));
                }
            }
        }
        for a in 0..lay.n_agents {
            let (leaf, sl) = self.places.agents[a].ok_or_else(|| encoding(format!("no LNT process for agent {a}")))?;
            let ty = self.stepper.type_of[a];
            let iv = arr(leaf, sl[0], "I")?;
            let lv = arr(leaf, sl[1], "L")?;
            for &v in &model.agent_types[ty].attrs {
                let var = &model.vars[v];
                for k in 0..var.len {
                    out[lay.attr(a, var.offset + k)] = iv.get(var.offset + k).map_or(0, |x| self.to_i32(x));
                }
            }
            for var in &model.vars {
                if let Store::Stig { stigmergy, .. } = var.store
                    && model.holds(ty, stigmergy)
                {
                    for k in 0..var.len {
                        out[lay.stig(a, var.offset + k)] = lv.get(var.offset + k).map_or(0, |x| self.to_i32(x));
                    }
                }
            }
            for (mask, at) in [(sl[2], lay.zp(a)), (sl[3], lay.zc(a))] {
                for w in &mut out[at..at + lay.mask_words] {
                    *w = 0;
                }
                if lay.n_tuples > 0 {
                    let z = arr(leaf, mask, "Zp/Zc")?;
                    for k in 0..lay.n_tuples {
                        if matches!(z.get(k), Some(Value::B(true))) {
                            Layout::set_bit(&mut out, at, k);
                        }
                    }
                }
            }
            out[lay.ctl(a)] = match sl[4].and_then(|s| st[leaf].env.get(s).cloned().flatten()) {
                Some(Value::I(pc)) => pc as i32,
                _ => return Err(encoding(format!("no `pc` in {}", self.ex.net.leaves[leaf].name))),
            };
            for k in 0..lay.n_tuples {
                out[lay.rank(a, k)] = 0;
            }
        }
        // Ranks: the LNT keeps ranks over all agents (non-holders at 0); the LAbS state keeps
        // the dense ranks among the holders, i.e. the same order.
        for k in 0..lay.n_tuples {
            let hs = &self.stepper.holders[k];
            if hs.is_empty() {
                continue;
            }
            let (leaf, s) = self.places.ranks[k].ok_or_else(|| encoding(format!("no `Timestamps ({k})` process")))?;
            let r = arr(leaf, Some(s), "r")?;
            let rv: Vec<i64> = hs
                .iter()
                .map(|&h| match r.get(h) {
                    Some(Value::I(x)) => *x,
                    _ => 0,
                })
                .collect();
            let mut distinct = rv.clone();
            distinct.sort_unstable();
            distinct.dedup();
            for (i, &h) in hs.iter().enumerate() {
                out[lay.rank(h, k)] = distinct.binary_search(&rv[i]).unwrap_or(0) as i32;
            }
        }
        if lay.fair {
            let (leaf, s) = self.places.sched.ok_or_else(|| encoding("no `Sched` process under --fair".into()))?;
            out[lay.turn()] = match st[leaf].env.get(s).cloned().flatten() {
                Some(Value::I(t)) => t as i32,
                _ => return Err(encoding("no turn `t` in Sched".into())),
            };
        }
        Ok(out)
    }
}

impl Walk for LntWalk<'_> {
    /// Each run starts from the native draw: listing the initial states of the LNT program
    /// would mean running every way through its initialisation (a million for flock with 3
    /// birds); each run instead finds the LNT state of the initial state it starts from.
    fn start(&mut self, _i: usize, state: &[i32]) -> Result<(), EngineError> {
        let found = self.find_initial(state).map_err(|m| EngineError::Runtime {
            message: format!("in the initialisation of the emitted LNT program: {m}"),
            trace: None,
        })?;
        self.cur = Some(found);
        Ok(())
    }

    fn successors(&mut self, cur: &[i32], trace: &Trace) -> Result<Vec<(Event, Vec<i32>)>, EngineError> {
        let from = self.cur.clone().expect("a started run");
        let (steps, _) = self.checked_steps(&from, cur, &|| trace.clone())?;
        self.pending.clear();
        let mut out = vec![];
        for s in steps {
            out.push((s.event, s.state));
            self.pending.push(s.real);
        }
        Ok(out)
    }

    fn take(&mut self, i: usize) {
        self.cur = Some(self.pending[i].clone());
    }
}

/// The code of an `ERR !agent !code` label.
fn label_code(label: &str) -> Option<u32> {
    crate::trace::cadp::split_label(label).1.get(1)?.parse().ok()
}

/// Runs `labs simulate` on the emitted LNT program `src` (text).
pub fn simulate(
    model: &Model,
    behs: &[Behaviour],
    src: &str,
    opts: &SimulateOptions,
) -> Result<SimulateReport, EngineError> {
    crate::engine::check_behaviours(model, behs)?;
    let emitted = |d: super::Located| EngineError::Internal(format!("emitted LNT:{}", d.in_text(src)));
    let prog = super::load(src, None).map_err(emitted)?;
    if let Some(d) = super::check::check(&prog).into_iter().next() {
        return Err(emitted(d));
    }
    let net = super::interp::build_net(&prog, "MAIN").map_err(emitted)?;
    let mut walk = LntWalk::new(model, behs, opts.fair, &prog, &net);
    simulate_with(model, behs, opts, &mut walk)
}

/// `labs simulate --backend lnt --estimate` (or `--sprt`): the estimate over runs of the
/// emitted LNT program `src`, each worker thread with its own interpreter; every step is
/// checked against the native semantics as in `simulate`.
pub fn estimate(
    model: &Model,
    behs: &[Behaviour],
    src: &str,
    opts: &EstimateOptions,
) -> Result<EstimateReport, EngineError> {
    crate::engine::check_behaviours(model, behs)?;
    let emitted = |d: super::Located| EngineError::Internal(format!("emitted LNT:{}", d.in_text(src)));
    let load = || -> Result<(Program, Net), EngineError> {
        let prog = super::load(src, None).map_err(emitted)?;
        if let Some(d) = super::check::check(&prog).into_iter().next() {
            return Err(emitted(d));
        }
        let net = super::interp::build_net(&prog, "MAIN").map_err(emitted)?;
        Ok((prog, net))
    };
    // Once here, so that a program that does not load fails before any run.
    load()?;
    let with_walk = |body: &mut dyn FnMut(&mut dyn Walk) -> Result<(), EngineError>| {
        let (prog, net) = load()?;
        let mut walk = LntWalk::new(model, behs, opts.fair, &prog, &net);
        body(&mut walk)
    };
    crate::engine::estimate::estimate_with(model, behs, opts, &with_walk)
}
