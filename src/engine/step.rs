//! The successor relation (docs/semantics.md: D3–D8 and "Steps in detail"): the reference
//! successors here, the packed ones the explorer uses in `packed`, the initial states in
//! `initial`.

use super::eval::{Ctx, Mode, R, Scratch, Stop, to_slot};
use super::fast::{FastEdge, Links};
use super::state::{BOT, Layout, encode_into, width_needed};
use crate::behaviour::{Behaviour, Step};
use crate::model::{Assign, Init, Model, Stmt, Store, TupleId, TypeId, VarId};
use serde::Serialize;

mod initial;
mod local_assume;
mod packed;

pub(crate) use initial::{Drawn, INITIAL_DRAWS, InitialSampler};

pub use packed::PackedStop;

/// One assigned variable element, for traces.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Assigned {
    /// `None` for environment variables.
    pub(crate) agent: Option<usize>,
    pub(crate) var: VarId,
    /// Element number (row-major) within the variable.
    pub(crate) elem: usize,
    pub(crate) value: i32,
}

/// What a transition did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// An agent step: edge `edge` of its current control state.
    Agent { agent: usize, edge: usize, assigned: Vec<Assigned>, written: Vec<TupleId>, skip: bool },
    /// A propagation (`confirm = false`) or confirmation of `tuple` by `sender`; `copied` are
    /// the receivers that took the sender's values, `refreshed` the (confirmation) receivers
    /// with a newer value that will re-propagate.
    Message { sender: usize, tuple: TupleId, confirm: bool, copied: Vec<usize>, refreshed: Vec<usize> },
}

/// Replaces ranks (all in `0..=ranks.len()`, as after a message or a write) by their dense
/// ranks; returns whether any changed.
fn dense_ranks(ranks: &mut [i32]) -> bool {
    let h = ranks.len();
    if h < 64 {
        let mut bits = 0u64;
        for &r in ranks.iter() {
            bits |= 1u64 << r;
        }
        if bits & (bits + 1) == 0 {
            return false;
        }
        for r in ranks.iter_mut() {
            *r = (bits & ((1u64 << *r) - 1)).count_ones() as i32;
        }
    } else {
        let mut rs: Vec<i32> = ranks.to_vec();
        rs.sort_unstable();
        rs.dedup();
        for r in ranks.iter_mut() {
            *r = rs.binary_search(r).unwrap() as i32;
        }
    }
    true
}

/// What a message does to one holder of its tuple (`Stepper::receive`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Receive {
    Skip,
    /// Confirmation reaching a holder with a newer value: it re-propagates (`Zp`).
    Refresh,
    /// The holder takes the sender's values and timestamp, and propagates them.
    Copy,
}

/// A run-time error met in a step or message from a state, and where: the action of the
/// agent step (or the agent type, for a guard's `Skip`); `None` for a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StepError {
    pub(crate) site: Option<crate::diagnostics::span::Span>,
    pub(crate) error: RuntimeError,
}

/// A run-time error of the model met while computing successors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeError(pub String);

/// Precomputed facts for stepping.
pub struct Stepper<'a> {
    pub model: &'a Model,
    pub(crate) behs: &'a [Behaviour],
    pub lay: Layout,
    pub(crate) fair: bool,
    /// Type of each agent.
    pub(crate) type_of: Vec<TypeId>,
    /// Holders of each tuple (agents whose type holds its stigmergy), increasing ids.
    pub(crate) holders: Vec<Vec<usize>>,
    /// State slots (relative to `Layout::stig(a, 0)`) of each tuple's variables.
    pub(crate) tuple_slots: Vec<Vec<usize>>,
    /// The same as a range `(first, len)`, for the tuples whose messages take the fast path
    /// (`message_packed`): consecutive slots (a tuple's variables are declared together, so
    /// they normally are) and fewer than 64 holders (ranks then fit a `u64` set).
    fast_span: Vec<Option<(u32, u32)>>,
    /// Whether each tuple's link predicate is the constant `true`.
    link_true: Vec<bool>,
    /// Absolute state positions each message of a tuple touches, per holder.
    plans: Vec<Vec<HolderPos>>,
    /// Position of each agent in `holders[k]` (`u32::MAX` if it does not hold `k`).
    holder_index: Vec<Vec<u32>>,
    /// The compiled form of each edge (per agent and control state), where it has one.
    fast: Vec<Vec<Vec<Option<FastEdge>>>>,
    /// The compiled link predicates (per tuple, sender and receiver).
    links: Links,
}

/// The edges (per agent and control state) and the (tuple, sender, receiver) link
/// predicates other than `true`, and how many of each have a compiled form (`fast`).
#[cfg(feature = "test-support")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompiledCounts {
    pub edges: usize,
    pub compiled_edges: usize,
    pub link_pairs: usize,
    pub compiled_link_pairs: usize,
}

/// Where a holder of a tuple keeps what a message of that tuple reads and writes.
#[derive(Clone, Copy)]
struct HolderPos {
    agent: u32,
    rank: u32,
    /// The words of `Zp` and `Zc` that hold the tuple's bit.
    zp: u32,
    zc: u32,
    /// Position of the agent's stigmergic slot 0 (`tuple_slots` are relative to it).
    stig: u32,
}

/// Reusable buffers for successor generation (one per thread).
#[derive(Default)]
pub struct Work {
    pub sc: Scratch,
    buf: Vec<i32>,
    assigned: Vec<Assigned>,
    written: Vec<TupleId>,
    writes: Vec<(usize, Assigned)>,
    ranks: Vec<i32>,
}

impl<'a> Stepper<'a> {
    pub fn new(model: &'a Model, behs: &'a [Behaviour], fair: bool) -> Stepper<'a> {
        let lay = Layout::new(model, fair);
        let n = lay.n_agents;
        let type_of: Vec<TypeId> = (0..n).map(|a| model.type_of(a)).collect();
        let holders: Vec<Vec<usize>> =
            model.tuples.iter().map(|t| (0..n).filter(|&a| model.holds(type_of[a], t.stigmergy)).collect()).collect();
        let tuple_slots: Vec<Vec<usize>> = model
            .tuples
            .iter()
            .map(|t| {
                t.vars.iter().flat_map(|&v| model.vars[v].offset..model.vars[v].offset + model.vars[v].len).collect()
            })
            .collect();
        let link_true = model
            .tuples
            .iter()
            .map(|t| matches!(model.stigmergies[t.stigmergy].link, crate::model::BExpr::Const(true)))
            .collect();
        let plans = holders
            .iter()
            .enumerate()
            .map(|(k, hs)| {
                hs.iter()
                    .map(|&a| HolderPos {
                        agent: a as u32,
                        rank: lay.rank(a, k) as u32,
                        zp: (lay.zp(a) + k / 32) as u32,
                        zc: (lay.zc(a) + k / 32) as u32,
                        stig: lay.stig(a, 0) as u32,
                    })
                    .collect()
            })
            .collect();
        let holder_index = holders
            .iter()
            .map(|hs| {
                let mut ix = vec![u32::MAX; n];
                for (i, &a) in hs.iter().enumerate() {
                    ix[a] = i as u32;
                }
                ix
            })
            .collect();
        let fast_span = tuple_slots
            .iter()
            .zip(&holders)
            .map(|(sl, hs): (&Vec<usize>, &Vec<usize>)| {
                let first = sl.first().copied().unwrap_or(0);
                let consecutive = sl.iter().enumerate().all(|(i, &x)| x == first + i);
                (consecutive && hs.len() < 64).then_some((first as u32, sl.len() as u32))
            })
            .collect();
        let fast = (0..n)
            .map(|a| {
                let edges = &behs[type_of[a]].edges;
                edges.iter().map(|es| es.iter().map(|e| FastEdge::compile(model, &lay, a, e)).collect()).collect()
            })
            .collect();
        let links = Links::compile(model, &lay);
        Stepper {
            model,
            behs,
            lay,
            fair,
            type_of,
            holders,
            tuple_slots,
            fast_span,
            link_true,
            plans,
            holder_index,
            fast,
            links,
        }
    }

    /// How much of the model has a compiled form, for the tests.
    #[cfg(feature = "test-support")]
    pub fn compiled_counts(&self) -> CompiledCounts {
        let edges = self.fast.iter().flatten().flatten();
        let (pairs, compiled_pairs) = self.links.counts();
        CompiledCounts {
            edges: edges.clone().count(),
            compiled_edges: edges.filter(|e| e.is_some()).count(),
            link_pairs: pairs,
            compiled_link_pairs: compiled_pairs,
        }
    }

    fn ctx(&self, me: Option<usize>, mode: Mode) -> Ctx<'_> {
        Ctx { model: self.model, lay: &self.lay, me, c1: None, c2: None, mode }
    }

    pub(crate) fn tuple_of(&self, var: VarId) -> Option<TupleId> {
        match self.model.vars[var].store {
            Store::Stig { tuple, .. } => Some(tuple),
            _ => None,
        }
    }

    /// Every successor of `st`: `emit(event, successor)` (events only when `want_events`).
    /// Successors may repeat. The first run-time error a message or step meets ends the
    /// enumeration: it is an error of the model.
    pub fn successors(
        &self,
        st: &[i32],
        w: &mut Work,
        want_events: bool,
        emit: &mut dyn FnMut(Option<Event>, &[i32]),
    ) -> Result<(), RuntimeError> {
        self.successors_of(st, w, want_events, false, emit)
    }

    /// The successors of `st` by the messages and choices of steps that meet no run-time
    /// error, the others left out. A path of another back end may leave a state by one step
    /// while another step there fails: each route reports the error its own search meets
    /// (docs/semantics.md, D9), so replaying such a path must not stop at the other one.
    pub(crate) fn successors_past_errors(&self, st: &[i32], w: &mut Work, emit: &mut dyn FnMut(Option<Event>, &[i32])) {
        // With `past_errors`, no error is returned.
        let _ = self.successors_of(st, w, true, true, emit);
    }

    fn successors_of(
        &self,
        st: &[i32],
        w: &mut Work,
        want_events: bool,
        past_errors: bool,
        emit: &mut dyn FnMut(Option<Event>, &[i32]),
    ) -> Result<(), RuntimeError> {
        for a in 0..self.lay.n_agents {
            let mut err = None;
            self.for_each_pending(st, a, &mut |k, confirm| {
                if err.is_some() {
                    return;
                }
                match self.message(st, a, k, confirm, w, want_events) {
                    Ok(ev) => emit(ev, &w.buf),
                    Err(_) if past_errors => {}
                    Err(e) => err = Some(e),
                }
            });
            if let Some(e) = err {
                return Err(e);
            }
            self.agent_steps(st, a, w, want_events, past_errors, &mut |ev, s| emit(ev, s))?;
        }
        Ok(())
    }

    /// Calls `f(tuple, confirm)` for each pending propagation (`Zp`), then each pending
    /// confirmation (`Zc`) of agent `a`, in increasing tuple order.
    #[inline]
    fn for_each_pending(&self, st: &[i32], a: usize, f: &mut impl FnMut(TupleId, bool)) {
        let lay = &self.lay;
        for confirm in [false, true] {
            let at = if confirm { lay.zc(a) } else { lay.zp(a) };
            for wi in 0..lay.mask_words {
                let mut word = st[at + wi] as u32;
                while word != 0 {
                    let k = wi * 32 + word.trailing_zeros() as usize;
                    word &= word - 1;
                    f(k, confirm);
                }
            }
        }
    }

    /// Whether agent `a` may take a step in `st`: it is quiet, and it has the turn under
    /// round-robin scheduling.
    #[inline]
    fn may_step(&self, st: &[i32], a: usize) -> bool {
        (!self.fair || st[self.lay.turn()] as usize == a) && self.lay.quiet(st, a)
    }

    /// The agent steps of agent `a` in `st`, every edge evaluated (the reference; the
    /// explorer's `successors_packed` runs compiled edges instead); with `past_errors`, the
    /// choices that meet a run-time error are left out instead of ending the enumeration.
    fn agent_steps(
        &self,
        st: &[i32],
        a: usize,
        w: &mut Work,
        want_events: bool,
        past_errors: bool,
        emit: &mut impl FnMut(Option<Event>, &[i32]),
    ) -> Result<(), RuntimeError> {
        if !self.may_step(st, a) {
            return Ok(());
        }
        let ctl = st[self.lay.ctl(a)] as usize;
        for ei in 0..self.behs[self.type_of[a]].edges[ctl].len() {
            self.edge_steps(st, a, ei, w, want_events, past_errors, emit)?;
        }
        Ok(())
    }

    /// Every run-time error that the messages and agent steps from `st` meet, in the order
    /// `successors` meets them (it stops at the first). A path from another back end may end
    /// in any of them: each route reports the first error its own search meets (D9).
    pub(crate) fn step_errors(&self, st: &[i32], w: &mut Work) -> Vec<StepError> {
        let mut errors = vec![];
        for a in 0..self.lay.n_agents {
            self.for_each_pending(st, a, &mut |k, confirm| {
                if let Err(error) = self.message(st, a, k, confirm, w, false) {
                    errors.push(StepError { site: None, error });
                }
            });
            if !self.may_step(st, a) {
                continue;
            }
            let ctl = st[self.lay.ctl(a)] as usize;
            let ty = &self.model.agent_types[self.type_of[a]];
            for (ei, edge) in self.behs[self.type_of[a]].edges[ctl].iter().enumerate() {
                let site = match &edge.step {
                    Step::Act(action) => action.span,
                    Step::Skip => ty.span,
                };
                self.each_choice(st, a, ei, w, |_, r| {
                    if let Err(Stop::Error(m)) = r {
                        errors.push(StepError { site: Some(site), error: self.step_error(a, &m) });
                    }
                    true
                });
            }
        }
        errors
    }

    /// Where in the spec the agent step of `st` that meets `error` is: its action (or, for a
    /// guard's `Skip`, the agent type).
    pub(crate) fn runtime_error_site(&self, st: &[i32], error: &str) -> Option<crate::diagnostics::span::Span> {
        self.step_errors(st, &mut Work::default()).into_iter().find(|e| e.error.0 == error)?.site
    }

    /// The steps of agent `a` along edge `ei` of its control state in `st`, evaluated (one
    /// per choice of its nondeterministic values); with `past_errors`, a choice that meets a
    /// run-time error is left out, otherwise it ends the enumeration with that error.
    #[allow(clippy::too_many_arguments)]
    fn edge_steps(
        &self,
        st: &[i32],
        a: usize,
        ei: usize,
        w: &mut Work,
        want_events: bool,
        past_errors: bool,
        emit: &mut impl FnMut(Option<Event>, &[i32]),
    ) -> Result<(), RuntimeError> {
        let mut error = None;
        self.each_choice(st, a, ei, w, |w, r| match r {
            Ok(()) => {
                let ev = want_events.then(|| {
                    let edge = &self.behs[self.type_of[a]].edges[st[self.lay.ctl(a)] as usize][ei];
                    Event::Agent {
                        agent: a,
                        edge: ei,
                        assigned: w.assigned.clone(),
                        written: w.written.clone(),
                        skip: matches!(edge.step, Step::Skip),
                    }
                });
                emit(ev, &w.buf);
                true
            }
            Err(Stop::Disabled) => true,
            Err(Stop::Error(_)) if past_errors => true,
            Err(Stop::Error(m)) => {
                error = Some(self.step_error(a, &m));
                false
            }
        });
        error.map_or(Ok(()), Err)
    }

    /// Evaluates the step of agent `a` along edge `ei` once per choice of its nondeterministic
    /// values, showing each outcome to `f` until it returns false.
    fn each_choice(&self, st: &[i32], a: usize, ei: usize, w: &mut Work, mut f: impl FnMut(&mut Work, R<()>) -> bool) {
        w.sc.chooser.reset();
        loop {
            w.sc.chooser.start();
            let r = self.agent_step(st, a, ei, w);
            if !f(w, r) || !w.sc.chooser.advance() {
                return;
            }
        }
    }

    /// A run-time error `m` met in a step of agent `a`, as reported.
    fn step_error(&self, a: usize, m: &str) -> RuntimeError {
        RuntimeError(format!("{m} (in a step of {} {a})", self.model.agent_types[self.type_of[a]].name))
    }

    /// The steps of agent `a` in `st`, evaluated (the symmetry analysis compares them on
    /// mapped states).
    pub(crate) fn agent_successors(
        &self,
        st: &[i32],
        a: usize,
        w: &mut Work,
        emit: &mut impl FnMut(&[i32]),
    ) -> Result<(), RuntimeError> {
        self.agent_steps(st, a, w, false, false, &mut |_, s| emit(s))
    }

    /// Whether the link predicate of tuple `k` holds from sender `s` to receiver `r`,
    /// evaluated.
    pub(crate) fn link_holds(
        &self,
        st: &[i32],
        k: TupleId,
        s: usize,
        r: usize,
        sc: &mut Scratch,
    ) -> Result<bool, RuntimeError> {
        self.linked(st, s, r, k, false, sc)
    }

    /// Whether `q` holds in `st`, or the run-time error it meets (for the tests' oracles).
    #[cfg(feature = "test-support")]
    pub fn predicate_holds(&self, st: &[i32], q: &crate::model::QPred) -> Result<bool, String> {
        self.eval_pred(st, &mut Scratch::default(), q).map_err(|e| e.0)
    }

    /// Evaluates a quantified predicate on a state (Pred mode: ⊥ index reads ⊥).
    pub(crate) fn eval_pred(
        &self,
        st: &[i32],
        sc: &mut Scratch,
        q: &crate::model::QPred,
    ) -> Result<bool, RuntimeError> {
        match self.ctx(None, Mode::Pred).eval_q(st, sc, q) {
            Ok(b) => Ok(b),
            Err(Stop::Disabled) => Ok(false),
            Err(Stop::Error(m)) => Err(RuntimeError(m)),
        }
    }

    /// Whether `st` has no successor.
    pub(crate) fn is_deadlock(&self, st: &[i32], w: &mut Work) -> Result<bool, RuntimeError> {
        let mut any = false;
        self.successors(st, w, false, &mut |_, _| any = true)?;
        Ok(!any)
    }

    fn agent_step(&self, st: &[i32], a: usize, ei: usize, w: &mut Work) -> R<()> {
        let lay = &self.lay;
        let ty = self.type_of[a];
        let ctl = st[lay.ctl(a)] as usize;
        let edge = &self.behs[ty].edges[ctl][ei];
        let cx = self.ctx(Some(a), Mode::Step);
        for g in &edge.guards {
            if !cx.eval_b(st, &mut w.sc, g)? {
                return Err(Stop::Disabled);
            }
        }
        w.buf.clear();
        w.buf.extend_from_slice(st);
        w.assigned.clear();
        w.written.clear();
        if let Step::Act(action) = &edge.step {
            match &action.kind {
                crate::model::ActionKind::Assign(asg) => self.assign(&cx, a, asg, w)?,
                crate::model::ActionKind::Block { stmts, locals } => {
                    w.sc.locals.clear();
                    w.sc.locals.resize(*locals, BOT);
                    for s in stmts {
                        self.stmt(&cx, a, s, w)?;
                    }
                }
            }
        }
        self.finish_step(a, edge, w);
        Ok(())
    }

    /// What every agent step does after its assignments (in `w.buf`): a fresh timestamp and
    /// a pending propagation for each written tuple (`w.written` plus the edge's), pending
    /// confirmations, the next control state, and the round-robin turn.
    fn finish_step(&self, a: usize, edge: &crate::behaviour::Edge, w: &mut Work) {
        let lay = &self.lay;
        for &k in &edge.writes {
            if !w.written.contains(&k) {
                w.written.push(k);
            }
        }
        w.written.sort_unstable();
        let buf = &mut w.buf;
        for &k in &w.written {
            let max = self.plans[k].iter().map(|h| buf[h.rank as usize]).max().unwrap_or(0);
            buf[lay.rank(a, k)] = max + 1;
            Layout::set_bit(buf, lay.zp(a), k);
            self.renormalise(buf, k, &mut w.ranks);
        }
        for &k in &edge.confirms {
            if !w.written.contains(&k) {
                Layout::set_bit(buf, lay.zc(a), k);
            }
        }
        buf[lay.ctl(a)] = edge.target as i32;
        if self.fair {
            let t = lay.turn();
            buf[t] = ((a + 1) % lay.n_agents) as i32;
        }
    }

    /// Simultaneous assignment evaluated on (and applied to) `w.buf`.
    fn assign(&self, cx: &Ctx, a: usize, asg: &Assign, w: &mut Work) -> R<()> {
        let mut writes = std::mem::take(&mut w.writes);
        writes.clear();
        let r = self.assign_into(cx, a, asg, w, &mut writes);
        if r.is_ok() {
            for (pos, asd) in writes.drain(..) {
                w.buf[pos] = asd.value;
                if let Some(k) = self.tuple_of(asd.var)
                    && !w.written.contains(&k)
                {
                    w.written.push(k);
                }
                w.assigned.push(asd);
            }
        }
        w.writes = writes;
        r
    }

    fn assign_into(
        &self,
        cx: &Ctx,
        a: usize,
        asg: &Assign,
        w: &mut Work,
        writes: &mut Vec<(usize, Assigned)>,
    ) -> R<()> {
        for (t, e) in asg.targets.iter().zip(&asg.values) {
            let var = &self.model.vars[t.var];
            let k = cx.index(&w.buf, &mut w.sc, &var.dims, &t.indices, &var.name)?.ok_or(Stop::Disabled)?;
            let v = cx.eval(&w.buf, &mut w.sc, e)?;
            if v.is_none() && !is_plain_copy(e) {
                return Err(Stop::Disabled);
            }
            let value = to_slot(v)?;
            let slot = var.offset + k;
            let (pos, agent) = match var.store {
                Store::Env => (slot, None),
                Store::Attr => (self.lay.attr(a, slot), Some(a)),
                Store::Stig { .. } => (self.lay.stig(a, slot), Some(a)),
            };
            writes.push((pos, Assigned { agent, var: t.var, elem: k, value }));
        }
        Ok(())
    }

    fn stmt(&self, cx: &Ctx, a: usize, s: &Stmt, w: &mut Work) -> R<()> {
        match s {
            Stmt::Assign(asg) => self.assign(cx, a, asg, w),
            Stmt::Local { slots, values } => {
                let mut writes = Vec::with_capacity(slots.len());
                for (t, e) in slots.iter().zip(values) {
                    let pos = match &t.index {
                        None => t.slot,
                        Some(ie) => {
                            let i = cx.eval(&w.buf, &mut w.sc, ie)?.ok_or(Stop::Disabled)?;
                            if i < 0 || i as usize >= t.len {
                                return Err(Stop::Error(format!(
                                    "index {i} out of range for a local array (size {})",
                                    t.len
                                )));
                            }
                            t.slot + i as usize
                        }
                    };
                    let v = cx.eval(&w.buf, &mut w.sc, e)?;
                    if v.is_none() && !is_plain_copy(e) {
                        return Err(Stop::Disabled);
                    }
                    writes.push((pos, to_slot(v)?));
                }
                for (pos, v) in writes {
                    w.sc.locals[pos] = v;
                }
                Ok(())
            }
            Stmt::Pick { slot, count, agent_type, filter } => {
                let ids: Vec<usize> = match agent_type {
                    Some(t) => self.model.agent_types[*t].ids().collect(),
                    None => (0..self.lay.n_agents).collect(),
                };
                let mut cands = Vec::new();
                for c in ids {
                    if c == a {
                        continue;
                    }
                    let ok = match filter {
                        None => true,
                        Some(f) => {
                            let fx = Ctx { c1: Some(a), c2: Some(c), ..*cx };
                            match fx.eval_b(&w.buf, &mut w.sc, f) {
                                Ok(b) => b,
                                Err(Stop::Disabled) => false,
                                Err(e) => return Err(e),
                            }
                        }
                    };
                    if ok {
                        cands.push(c);
                    }
                }
                if cands.len() < *count {
                    return Err(Stop::Disabled);
                }
                for i in 0..*count {
                    let j = w.sc.chooser.choose(0, cands.len() as i64) as usize;
                    let c = cands.remove(j);
                    w.sc.locals[slot + i] = c as i32;
                }
                Ok(())
            }
            Stmt::Quant { slot, pred } => {
                let v = cx.eval_q(&w.buf, &mut w.sc, pred)?;
                w.sc.locals[*slot] = i32::from(v);
                Ok(())
            }
            Stmt::Count { slot, agent_type, pred } => {
                let mut n = 0;
                for c in self.model.agent_types[*agent_type].ids() {
                    w.sc.qvars.push(c as i64);
                    let r = cx.eval_b(&w.buf, &mut w.sc, pred);
                    w.sc.qvars.pop();
                    if r? {
                        n += 1;
                    }
                }
                w.sc.locals[*slot] = n;
                Ok(())
            }
        }
    }

    /// Propagation (`confirm = false`) or confirmation of tuple `k` by `s`, into `w.buf`.
    fn message(
        &self,
        st: &[i32],
        s: usize,
        k: TupleId,
        confirm: bool,
        w: &mut Work,
        want_events: bool,
    ) -> Result<Option<Event>, RuntimeError> {
        w.buf.clear();
        w.buf.extend_from_slice(st);
        let buf = &mut w.buf[..];
        let plan = &self.plans[k];
        let me = plan[self.holder_index[k][s] as usize];
        let bit = 1u32 << (k % 32);
        let own = if confirm { me.zc } else { me.zp } as usize;
        buf[own] = (buf[own] as u32 & !bit) as i32;
        let ts = st[me.rank as usize];
        let slots = &self.tuple_slots[k];
        let mut copied = Vec::new();
        let mut refreshed = Vec::new();
        let mut any_copy = false;
        for h in plan {
            let r = h.agent as usize;
            let tr = st[h.rank as usize];
            match self.receive(st, s, k, confirm, h, tr, ts, self.link_true[k], false, &mut w.sc)? {
                Receive::Skip => continue,
                Receive::Refresh => {
                    let zp = h.zp as usize;
                    buf[zp] = (buf[zp] as u32 | bit) as i32;
                    if want_events {
                        refreshed.push(r);
                    }
                }
                Receive::Copy => {
                    for &slot in slots {
                        buf[h.stig as usize + slot] = st[me.stig as usize + slot];
                    }
                    buf[h.rank as usize] = ts;
                    any_copy = true;
                    let (zp, zc) = (h.zp as usize, h.zc as usize);
                    buf[zp] = (buf[zp] as u32 | bit) as i32;
                    buf[zc] = (buf[zc] as u32 & !bit) as i32;
                    if want_events {
                        copied.push(r);
                    }
                }
            }
        }
        if any_copy {
            // Only copies change ranks (the state's ranks were dense).
            self.renormalise(buf, k, &mut w.ranks);
        }
        Ok(want_events.then_some(Event::Message { sender: s, tuple: k, confirm, copied, refreshed }))
    }

    /// What a message of tuple `k` from `s`, whose copy has rank `ts`, does to holder `h`
    /// (docs/semantics.md, D6): nothing for the sender itself, a holder with the same timestamp, a
    /// newer one under propagation, or an unlinked one; otherwise the holder copies an older
    /// value, or (confirmation only) re-propagates its newer one. `compiled`: whether the link
    /// may use its compiled form (the explorer) or is evaluated (the reference).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn receive(
        &self,
        st: &[i32],
        s: usize,
        k: TupleId,
        confirm: bool,
        h: &HolderPos,
        tr: i32,
        ts: i32,
        link_true: bool,
        compiled: bool,
        sc: &mut Scratch,
    ) -> Result<Receive, RuntimeError> {
        let r = h.agent as usize;
        if r == s || tr == ts || (!confirm && tr > ts) {
            return Ok(Receive::Skip);
        }
        if !link_true && !self.linked(st, s, r, k, compiled, sc)? {
            return Ok(Receive::Skip);
        }
        Ok(if tr < ts { Receive::Copy } else { Receive::Refresh })
    }

    /// Whether the link predicate of tuple `k` holds from sender `s` to receiver `r`
    /// (`compiled`: as `receive`).
    fn linked(
        &self,
        st: &[i32],
        s: usize,
        r: usize,
        k: TupleId,
        compiled: bool,
        sc: &mut Scratch,
    ) -> Result<bool, RuntimeError> {
        // A `Fallback` (a run-time error) goes on to the evaluator, which reports it.
        if compiled
            && let Some(link) = self.links.get(k, s, r)
            && let Ok(b) = link.eval(st)
        {
            return Ok(b);
        }
        let link = &self.model.stigmergies[self.model.tuples[k].stigmergy].link;
        let cx = Ctx { c1: Some(s), c2: Some(r), ..self.ctx(None, Mode::Pred) };
        match cx.eval_b(st, sc, link) {
            Ok(b) => Ok(b),
            Err(Stop::Disabled) => Ok(false),
            Err(Stop::Error(m)) => Err(RuntimeError(format!("{m} (in a link predicate)"))),
        }
    }

    /// Dense ranks of tuple `k` among its holders (`ranks` is scratch space).
    fn renormalise(&self, st: &mut [i32], k: TupleId, ranks: &mut Vec<i32>) {
        let plan = &self.plans[k];
        ranks.clear();
        ranks.extend(plan.iter().map(|h| st[h.rank as usize]));
        if dense_ranks(ranks) {
            for (h, &r) in plan.iter().zip(ranks.iter()) {
                st[h.rank as usize] = r;
            }
        }
    }
}

/// `x <- y`: a plain copy of a variable may copy ⊥ (D10).
fn is_plain_copy(e: &crate::model::Expr) -> bool {
    matches!(e, crate::model::Expr::Var(_) | crate::model::Expr::Local { .. })
}
