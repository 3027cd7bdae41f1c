//! The successor relation (semantics.md §5–§6) and initial states (§3).

use super::eval::{Ctx, Mode, R, Scratch, Stop, to_slot};
use super::fast::FastEdge;
use super::state::{BOT, Layout, encode_into, width_needed};
use crate::behaviour::{Behaviour, Step};
use crate::model::{Assign, Init, Model, Stmt, Store, TupleId, TypeId, VarId};
use serde::Serialize;

/// One assigned variable element, for traces.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Assigned {
    /// `None` for environment variables.
    pub agent: Option<usize>,
    pub var: VarId,
    /// Element number (row-major) within the variable.
    pub elem: usize,
    pub value: i32,
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

/// Why `Stepper::successors_packed` stopped.
#[derive(Debug)]
pub enum PackedStop {
    /// A successor needs this many bytes per slot.
    Widen(usize),
    Error(RuntimeError),
}

/// Writes pending-mask word `v` into slot `p` of a state packed with `W` bytes per slot, or
/// returns the width it needs.
#[inline]
fn put_word<const W: usize>(out: &mut [u8], p: usize, v: u32) -> Result<(), PackedStop> {
    match W {
        1 if v <= 127 => out[p] = v as u8,
        2 if v <= 32767 => out[2 * p..2 * p + 2].copy_from_slice(&(v as u16).to_le_bytes()),
        4 => out[4 * p..4 * p + 4].copy_from_slice(&v.to_le_bytes()),
        _ => return Err(PackedStop::Widen(if v <= 32767 { 2 } else { 4 })),
    }
    Ok(())
}

/// Whether pending-mask word `v` fits `W` bytes.
#[inline]
fn fits<const W: usize>(v: u32) -> bool {
    match W {
        1 => v <= 127,
        2 => v <= 32767,
        _ => true,
    }
}

/// A state being rewritten by a message: `st` decoded, and `out`, the same state packed with
/// `W` bytes per slot, being changed. Reads come from `st`, writes go to `out`; neither is
/// bounds-checked, so callers check both lengths against the layout first.
struct SlotView<'a, const W: usize> {
    st: &'a [i32],
    out: &'a mut [u8],
}

impl<const W: usize> SlotView<'_, W> {
    /// Slot `p` of the parent state. Safety: `p < st.len()`.
    #[inline(always)]
    unsafe fn get(&self, p: u32) -> i32 {
        unsafe { *self.st.get_unchecked(p as usize) }
    }

    /// Writes `v`, which fits `W` bytes (ranks of fewer than 64 holders, and pending words of
    /// a message: see `message_packed`), into slot `p`. Safety: `(p + 1) * W <= out.len()`.
    #[inline(always)]
    unsafe fn put(&mut self, p: u32, v: i32) {
        let at = p as usize * W;
        unsafe {
            let o = self.out.as_mut_ptr().add(at);
            match W {
                1 => *o = v as u8,
                2 => o.cast::<[u8; 2]>().write_unaligned((v as u16).to_le_bytes()),
                _ => o.cast::<[u8; 4]>().write_unaligned(v.to_le_bytes()),
            }
        }
    }

    /// The rank in slot `p` of `out` (ranks are non-negative). Safety: `(p + 1) * W <= out.len()`.
    #[inline(always)]
    unsafe fn rank(&self, p: u32) -> i32 {
        let at = p as usize * W;
        unsafe {
            let o = self.out.as_ptr().add(at);
            match W {
                1 => *o as i32,
                2 => u16::from_le_bytes(o.cast::<[u8; 2]>().read_unaligned()) as i32,
                _ => i32::from_le_bytes(o.cast::<[u8; 4]>().read_unaligned()),
            }
        }
    }

    /// Copies `len` slots from slot `from` to slot `to` (distinct agents' slots: no overlap).
    /// Safety: both ranges lie within `out`.
    #[inline(always)]
    unsafe fn copy(&mut self, from: usize, to: usize, len: usize) {
        unsafe {
            let o = self.out.as_mut_ptr();
            if len == 1 {
                // The common case (one variable), without a `memcpy` call.
                let v = o.add(from * W).cast::<[u8; W]>().read_unaligned();
                o.add(to * W).cast::<[u8; W]>().write_unaligned(v);
            } else {
                std::ptr::copy_nonoverlapping(o.add(from * W), o.add(to * W), len * W);
            }
        }
    }
}

/// Writes a rank (at most the number of holders) into slot `p`. Ranks fit every width as long
/// as there are fewer than 127 holders; beyond that the store is already wide enough, since
/// the state itself holds such ranks.
#[inline]
fn put_rank<const W: usize>(out: &mut [u8], p: usize, r: i32) {
    match W {
        1 => out[p] = r as u8,
        2 => out[2 * p..2 * p + 2].copy_from_slice(&(r as u16).to_le_bytes()),
        _ => out[4 * p..4 * p + 4].copy_from_slice(&r.to_le_bytes()),
    }
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

/// A run-time error of the model met while computing successors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeError(pub String);

/// Precomputed facts for stepping.
pub struct Stepper<'a> {
    pub model: &'a Model,
    pub behs: &'a [Behaviour],
    pub lay: Layout,
    pub fair: bool,
    /// Type of each agent.
    pub type_of: Vec<TypeId>,
    /// Holders of each tuple (agents whose type holds its stigmergy), increasing ids.
    pub holders: Vec<Vec<usize>>,
    /// State slots (relative to `Layout::stig(a, 0)`) of each tuple's variables.
    pub tuple_slots: Vec<Vec<usize>>,
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
    /// The compiled form of each edge (per agent type and control state), where it has one.
    fast: Vec<Vec<Vec<Option<FastEdge>>>>,
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
        let fast = behs
            .iter()
            .map(|b| b.edges.iter().map(|es| es.iter().map(|e| FastEdge::compile(model, &lay, e)).collect()).collect())
            .collect();
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
        }
    }

    fn ctx(&self, me: Option<usize>, mode: Mode) -> Ctx<'_> {
        Ctx { model: self.model, lay: &self.lay, me, c1: None, c2: None, mode }
    }

    pub fn tuple_of(&self, var: VarId) -> Option<TupleId> {
        match self.model.vars[var].store {
            Store::Stig { tuple, .. } => Some(tuple),
            _ => None,
        }
    }

    /// Every successor of `st`: `emit(event, successor)` (events only when `want_events`).
    /// Successors may repeat.
    pub fn successors(
        &self,
        st: &[i32],
        w: &mut Work,
        want_events: bool,
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
                    Err(e) => err = Some(e),
                }
            });
            if let Some(e) = err {
                return Err(e);
            }
            self.agent_steps(st, a, w, want_events, false, &mut |ev, s| emit(ev, s))?;
        }
        Ok(())
    }

    /// The successors of `st`, in the order of `successors`, packed with `width` bytes per
    /// slot and appended to `out`; `parent` is `st` packed. Returns how many there are.
    /// Messages are applied to the packed bytes directly (they only copy values that are
    /// already in the state, and write ranks and pending bits); agent steps are computed on
    /// `i32` slots and then packed.
    pub fn successors_packed(
        &self,
        st: &[i32],
        parent: &[u8],
        width: usize,
        w: &mut Work,
        out: &mut Vec<u8>,
    ) -> Result<usize, PackedStop> {
        match width {
            1 => self.successors_packed_w::<1>(st, parent, w, out),
            2 => self.successors_packed_w::<2>(st, parent, w, out),
            _ => self.successors_packed_w::<4>(st, parent, w, out),
        }
    }

    fn successors_packed_w<const W: usize>(
        &self,
        st: &[i32],
        parent: &[u8],
        w: &mut Work,
        out: &mut Vec<u8>,
    ) -> Result<usize, PackedStop> {
        let sb = parent.len();
        let mut n = 0;
        let mut stop = None;
        for a in 0..self.lay.n_agents {
            self.for_each_pending(st, a, &mut |k, confirm| {
                if stop.is_some() {
                    return;
                }
                let at = out.len();
                out.extend_from_slice(parent);
                let out = &mut out[at..];
                let sent = match self.fast_span[k] {
                    Some(span) if self.link_true[k] => self.message_packed::<W, true>(st, a, k, confirm, span, w, out),
                    Some(span) => self.message_packed::<W, false>(st, a, k, confirm, span, w, out),
                    None => self.message_packed_many::<W>(st, a, k, confirm, w, out),
                };
                match sent {
                    Ok(()) => n += 1,
                    Err(e) => stop = Some(e),
                }
            });
            if let Some(e) = stop {
                return Err(e);
            }
            self.agent_steps(st, a, w, false, true, &mut |_, s| {
                if stop.is_some() {
                    return;
                }
                let at = out.len();
                out.resize(at + sb, 0);
                if encode_into(s, W, &mut out[at..]) {
                    n += 1;
                } else {
                    stop = Some(PackedStop::Widen(width_needed(s)));
                }
            })
            .map_err(PackedStop::Error)?;
            if let Some(e) = stop {
                return Err(e);
            }
        }
        Ok(n)
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

    /// The agent steps of agent `a` in `st` (none unless it is quiet, and its turn under
    /// round-robin scheduling).
    /// `fast`: whether edges with a `FastEdge` use it (the explorer) or are evaluated (the
    /// reference successor function).
    fn agent_steps(
        &self,
        st: &[i32],
        a: usize,
        w: &mut Work,
        want_events: bool,
        fast: bool,
        emit: &mut impl FnMut(Option<Event>, &[i32]),
    ) -> Result<(), RuntimeError> {
        let lay = &self.lay;
        if self.fair && st[lay.turn()] as usize != a {
            return Ok(());
        }
        if !lay.quiet(st, a) {
            return Ok(());
        }
        let beh = &self.behs[self.type_of[a]];
        let ctl = st[lay.ctl(a)] as usize;
        for (ei, edge) in beh.edges[ctl].iter().enumerate() {
            w.sc.chooser.reset();
            loop {
                w.sc.chooser.start();
                match self.agent_step(st, a, ei, fast, w) {
                    Ok(()) => {
                        let ev = want_events.then(|| Event::Agent {
                            agent: a,
                            edge: ei,
                            assigned: w.assigned.clone(),
                            written: w.written.clone(),
                            skip: matches!(edge.step, Step::Skip),
                        });
                        emit(ev, &w.buf);
                    }
                    Err(Stop::Disabled) => {}
                    Err(Stop::Error(m)) => {
                        let ty = &self.model.agent_types[self.type_of[a]];
                        return Err(RuntimeError(format!("{m} (in a step of {} {a})", ty.name)));
                    }
                }
                if !w.sc.chooser.advance() {
                    break;
                }
            }
        }
        Ok(())
    }

    /// Whether `st` has no successor.
    pub fn is_deadlock(&self, st: &[i32], w: &mut Work) -> Result<bool, RuntimeError> {
        let mut any = false;
        self.successors(st, w, false, &mut |_, _| any = true)?;
        Ok(!any)
    }

    fn agent_step(&self, st: &[i32], a: usize, ei: usize, fast: bool, w: &mut Work) -> R<()> {
        let lay = &self.lay;
        let ty = self.type_of[a];
        let ctl = st[lay.ctl(a)] as usize;
        let edge = &self.behs[ty].edges[ctl][ei];
        if fast && let Some(f) = &self.fast[ty][ctl][ei] {
            if !f.enabled(st, lay, a) {
                return Err(Stop::Disabled);
            }
            w.buf.clear();
            w.buf.extend_from_slice(st);
            w.assigned.clear();
            w.written.clear();
            f.apply(st, &mut w.buf, lay, a);
            w.written.extend_from_slice(&f.written);
            self.finish_step(a, edge, w);
            return Ok(());
        }
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
            match self.receive(st, s, k, confirm, h, tr, ts, self.link_true[k], &mut w.sc)? {
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

    /// What a message of tuple `k` from `s` does first, on either packed path: it clears
    /// the sender's pending bit in `out`. Returns the sender's plan, the tuple's bit in a
    /// mask word, and the sender's rank.
    fn sender_packed<const W: usize>(
        &self,
        st: &[i32],
        s: usize,
        k: TupleId,
        confirm: bool,
        out: &mut [u8],
    ) -> Result<(HolderPos, u32, i32), PackedStop> {
        let me = self.plans[k][self.holder_index[k][s] as usize];
        let bit = 1u32 << (k % 32);
        let own = if confirm { me.zc } else { me.zp } as usize;
        put_word::<W>(out, own, st[own] as u32 & !bit)?;
        Ok((me, bit, st[me.rank as usize]))
    }

    /// `message` applied to `out`, which holds `st` packed with `W` bytes per slot, for a
    /// tuple with a `fast_span` (`span`; `message_packed_many` for the others).
    /// `LINK_TRUE` is whether the tuple's link predicate is the constant `true`: then the
    /// holder loop calls nothing and keeps its values in registers.
    #[allow(clippy::too_many_arguments)]
    fn message_packed<const W: usize, const LINK_TRUE: bool>(
        &self,
        st: &[i32],
        s: usize,
        k: TupleId,
        confirm: bool,
        (first, len): (u32, u32),
        w: &mut Work,
        out: &mut [u8],
    ) -> Result<(), PackedStop> {
        let plan = &self.plans[k];
        let (me, bit, ts) = self.sender_packed::<W>(st, s, k, confirm, out)?;
        let (first, len) = (first as usize, len as usize);
        // Every position of a plan is a slot of the layout: with these two checks, the
        // accesses of the loop below are in bounds.
        assert!(st.len() == self.lay.len && out.len() == self.lay.len * W);
        let mut sp = SlotView::<W> { st, out };
        // The ranks still present after the message, as a bit set: the state's ranks are
        // dense (`0..=max`), so the message only needs renormalising when a copy made some
        // rank disappear.
        let mut present = 1u64 << ts;
        let mut any_copy = false;
        let mut wide = 0u32;
        for h in plan {
            // SAFETY: plan positions are below `lay.len` (asserted above).
            let tr = unsafe { sp.get(h.rank) };
            let action = self.receive(st, s, k, confirm, h, tr, ts, LINK_TRUE, &mut w.sc).map_err(PackedStop::Error)?;
            if action != Receive::Copy {
                present |= 1u64 << tr;
                if action == Receive::Skip {
                    continue;
                }
            }
            // Receivers are other agents than the sender, so each of these words is written
            // once by this message: reading it from `st` is reading the current value.
            // SAFETY (this block): plan positions, and a holder's stigmergic slots
            // `stig + first .. stig + first + len`, are below `lay.len` (asserted above).
            unsafe {
                let zp = sp.get(h.zp) as u32 | bit;
                wide |= zp;
                sp.put(h.zp, zp as i32);
                if action == Receive::Copy {
                    // The sender's slots are unchanged by its own message: copy their bytes.
                    sp.copy(me.stig as usize + first, h.stig as usize + first, len);
                    sp.put(h.rank, ts);
                    any_copy = true;
                    let zc = sp.get(h.zc) as u32 & !bit;
                    sp.put(h.zc, zc as i32);
                }
            }
        }
        // A message only ORs into a receiver's word a bit that is set in a word of the
        // sender: both fit the width, so their OR does too (never a widening here).
        debug_assert!(fits::<W>(wide));
        if any_copy && present & (present + 1) != 0 {
            for h in plan {
                // SAFETY: plan positions are below `lay.len` (asserted above).
                unsafe {
                    let r = sp.rank(h.rank);
                    sp.put(h.rank, (present & ((1u64 << r) - 1)).count_ones() as i32);
                }
            }
        }
        Ok(())
    }

    /// `message_packed` for tuples without a `fast_span`: 64 holders or more (ranks do not
    /// fit a `u64` set), or slots that are not consecutive.
    fn message_packed_many<const W: usize>(
        &self,
        st: &[i32],
        s: usize,
        k: TupleId,
        confirm: bool,
        w: &mut Work,
        out: &mut [u8],
    ) -> Result<(), PackedStop> {
        let plan = &self.plans[k];
        let (me, bit, ts) = self.sender_packed::<W>(st, s, k, confirm, out)?;
        let slots = &self.tuple_slots[k];
        w.ranks.resize(plan.len(), 0);
        let ranks = &mut w.ranks[..];
        for (r, h) in ranks.iter_mut().zip(plan) {
            *r = st[h.rank as usize];
        }
        let mut any_copy = false;
        for (i, h) in plan.iter().enumerate() {
            let tr = st[h.rank as usize];
            let action =
                self.receive(st, s, k, confirm, h, tr, ts, self.link_true[k], &mut w.sc).map_err(PackedStop::Error)?;
            if action == Receive::Skip {
                continue;
            }
            // Receivers are other agents than the sender, so each of these words is written
            // once by this message: reading it from `st` is reading the current value.
            let zp = h.zp as usize;
            put_word::<W>(out, zp, st[zp] as u32 | bit)?;
            if action == Receive::Copy {
                // The sender's slots are unchanged by its own message: copy their bytes.
                for &slot in slots {
                    let from = (me.stig as usize + slot) * W;
                    out.copy_within(from..from + W, (h.stig as usize + slot) * W);
                }
                ranks[i] = ts;
                any_copy = true;
                let zc = h.zc as usize;
                put_word::<W>(out, zc, st[zc] as u32 & !bit)?;
            }
        }
        if any_copy {
            dense_ranks(ranks);
            for (h, &r) in plan.iter().zip(ranks.iter()) {
                put_rank::<W>(out, h.rank as usize, r);
            }
        }
        Ok(())
    }

    /// What a message of tuple `k` from `s`, whose copy has rank `ts`, does to holder `h`
    /// (semantics §5): nothing for the sender itself, a holder with the same timestamp, a
    /// newer one under propagation, or an unlinked one; otherwise the holder copies an older
    /// value, or (confirmation only) re-propagates its newer one.
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
        sc: &mut Scratch,
    ) -> Result<Receive, RuntimeError> {
        let r = h.agent as usize;
        if r == s || tr == ts || (!confirm && tr > ts) {
            return Ok(Receive::Skip);
        }
        if !link_true && !self.linked(st, s, r, k, sc)? {
            return Ok(Receive::Skip);
        }
        Ok(if tr < ts { Receive::Copy } else { Receive::Refresh })
    }

    /// Whether the link predicate of tuple `k` holds from sender `s` to receiver `r`.
    fn linked(&self, st: &[i32], s: usize, r: usize, k: TupleId, sc: &mut Scratch) -> Result<bool, RuntimeError> {
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

    /// All initial states (§3), in a deterministic order.
    pub fn initial_states(&self) -> Result<Vec<Vec<i32>>, RuntimeError> {
        let mut out = Vec::new();
        self.for_each_initial(&mut |s| {
            out.push(s.to_vec());
            true
        })?;
        Ok(out)
    }

    /// Calls `f` on each initial state, in the order of `initial_states`, until `f` returns
    /// false (so that a bound can stop the enumeration before it runs out of memory).
    pub fn for_each_initial(&self, f: &mut dyn FnMut(&[i32]) -> bool) -> Result<(), RuntimeError> {
        let model = self.model;
        let lay = &self.lay;
        let mut base = vec![BOT; lay.len];
        for a in 0..lay.n_agents {
            for k in 0..lay.n_tuples {
                base[lay.rank(a, k)] = 0;
            }
            let p = lay.zp(a);
            for x in &mut base[p..p + 2 * lay.mask_words] {
                *x = 0;
            }
            base[lay.ctl(a)] = self.behs[self.type_of[a]].initial as i32;
        }
        if lay.fair {
            base[lay.turn()] = 0;
        }
        // D2: ranks in id order among holders.
        for (k, hs) in self.holders.iter().enumerate() {
            for (r, &h) in hs.iter().enumerate() {
                base[lay.rank(h, k)] = r as i32;
            }
        }
        // Choice lists per slot.
        let mut slots: Vec<(usize, Vec<i32>)> = Vec::new();
        let mut sc = Scratch::default();
        let err = |m: String, name: &str| RuntimeError(format!("{m} (in the initialiser of `{name}`)"));
        let mut add = |var: &crate::model::Variable,
                       init: &Init,
                       me: Option<usize>,
                       pos: &dyn Fn(usize) -> usize|
         -> Result<(), RuntimeError> {
            let cx = self.ctx(me, Mode::Pred);
            let mut ev = |e: &crate::model::Expr| -> Result<i32, RuntimeError> {
                match cx.eval(&base, &mut sc, e) {
                    Ok(v) => to_slot(v).map_err(|_| err("arithmetic overflow".into(), &var.name)),
                    Err(Stop::Error(m)) => Err(err(m, &var.name)),
                    Err(Stop::Disabled) => Ok(BOT),
                }
            };
            let choices: Vec<i32> = match init {
                Init::Undef => vec![BOT],
                Init::Single(e) => vec![ev(e)?],
                Init::Choice(es) => es.iter().map(&mut ev).collect::<Result<_, _>>()?,
                Init::Range(a, b) => {
                    let (a, b) = (ev(a)?, ev(b)?);
                    if a == BOT || b == BOT { vec![BOT] } else { (a..b).collect() }
                }
            };
            for e in 0..var.len {
                slots.push((pos(var.offset + e), choices.clone()));
            }
            Ok(())
        };
        for var in &model.vars {
            if var.store == Store::Env
                && let Some(init) = var.init_for(None)
            {
                add(var, init, None, &|s| s)?;
            }
        }
        for a in 0..lay.n_agents {
            let ty = self.type_of[a];
            for &v in &model.agent_types[ty].attrs {
                let var = &model.vars[v];
                if let Some(init) = var.init_for(Some(ty)) {
                    add(var, init, Some(a), &|s| lay.attr(a, s))?;
                }
            }
            for var in &model.vars {
                if let Store::Stig { stigmergy, .. } = var.store
                    && model.holds(ty, stigmergy)
                    && let Some(init) = var.init_for(None)
                {
                    add(var, init, Some(a), &|s| lay.stig(a, s))?;
                }
            }
        }
        if slots.iter().any(|(_, c)| c.is_empty()) {
            return Ok(());
        }
        let mut idx = vec![0usize; slots.len()];
        let mut st = base.clone();
        loop {
            for (i, (pos, ch)) in slots.iter().enumerate() {
                st[*pos] = ch[idx[i]];
            }
            let mut ok = true;
            for asm in &model.assumptions {
                let cx = self.ctx(None, Mode::Pred);
                match cx.eval_q(&st, &mut sc, &asm.pred) {
                    Ok(true) => {}
                    Ok(false) | Err(Stop::Disabled) => {
                        ok = false;
                        break;
                    }
                    Err(Stop::Error(m)) => {
                        return Err(RuntimeError(format!("{m} (in assumption {})", asm.name)));
                    }
                }
            }
            if ok && !f(&st) {
                return Ok(());
            }
            // Odometer (last slot fastest).
            let mut i = slots.len();
            loop {
                if i == 0 {
                    return Ok(());
                }
                i -= 1;
                idx[i] += 1;
                if idx[i] < slots[i].1.len() {
                    break;
                }
                idx[i] = 0;
            }
        }
    }
}

/// `x <- y`: a plain copy of a variable may copy ⊥ (D10).
fn is_plain_copy(e: &crate::model::Expr) -> bool {
    matches!(e, crate::model::Expr::Var(_) | crate::model::Expr::Local { .. })
}
