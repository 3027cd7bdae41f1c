//! The packed successors: `Stepper::successors_packed` gives exactly the packed forms of
//! `successors`, in the same order (`tests/it/engine_packed.rs`), applying messages to the packed
//! bytes directly.

use super::*;
use crate::engine::fast::PackedApply;
use crate::engine::state::{encode_slot, width_of};

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
        debug_assert!((p as usize) < self.st.len(), "slot {p} beyond the state");
        // SAFETY: the caller's contract, `p < st.len()`.
        unsafe { *self.st.get_unchecked(p as usize) }
    }

    /// Writes `v`, which fits `W` bytes (ranks of fewer than 64 holders, and pending words of
    /// a message: see `message_packed`), into slot `p`. Safety: `(p + 1) * W <= out.len()`.
    #[inline(always)]
    unsafe fn put(&mut self, p: u32, v: i32) {
        let at = p as usize * W;
        debug_assert!(at + W <= self.out.len(), "slot {p} beyond the packed state");
        // SAFETY: the caller's contract, `(p + 1) * W <= out.len()`; unaligned accesses.
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
        debug_assert!(at + W <= self.out.len(), "slot {p} beyond the packed state");
        // SAFETY: the caller's contract, `(p + 1) * W <= out.len()`; unaligned accesses.
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
        debug_assert!((from.max(to) + len) * W <= self.out.len(), "slots beyond the packed state");
        // SAFETY: the caller's contract, both ranges within `out`; distinct agents' slots do
        // not overlap.
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

impl Stepper<'_> {
    /// The successors of `st`, in the order of `successors`, packed with `width` bytes per
    /// slot and appended to `out`; `parent` is `st` packed. Returns how many there are.
    /// Messages are applied to the packed bytes directly (they only copy values that are
    /// already in the state, and write ranks and pending bits), and so are compiled agent
    /// steps (`step_packed`); the other agent steps are computed on `i32` slots and then
    /// packed.
    pub fn successors_packed(
        &self,
        st: &[i32],
        parent: &[u8],
        width: usize,
        w: &mut Work,
        out: &mut Vec<u8>,
    ) -> Result<usize, PackedStop> {
        match width {
            1 => self.successors_packed_w::<1>(st, parent, w, out, None),
            2 => self.successors_packed_w::<2>(st, parent, w, out, None),
            _ => self.successors_packed_w::<4>(st, parent, w, out, None),
        }
    }

    /// `successors_packed`, also pushing to `ends`, after each agent, how many successors its
    /// steps and those of the agents before it make (the steps are listed agent by agent).
    pub(crate) fn successors_packed_by_agent(
        &self,
        st: &[i32],
        parent: &[u8],
        width: usize,
        w: &mut Work,
        out: &mut Vec<u8>,
        ends: &mut Vec<usize>,
    ) -> Result<usize, PackedStop> {
        match width {
            1 => self.successors_packed_w::<1>(st, parent, w, out, Some(ends)),
            2 => self.successors_packed_w::<2>(st, parent, w, out, Some(ends)),
            _ => self.successors_packed_w::<4>(st, parent, w, out, Some(ends)),
        }
    }

    pub(super) fn successors_packed_w<const W: usize>(
        &self,
        st: &[i32],
        parent: &[u8],
        w: &mut Work,
        out: &mut Vec<u8>,
        mut ends: Option<&mut Vec<usize>>,
    ) -> Result<usize, PackedStop> {
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
            self.agent_steps_packed::<W>(st, parent, a, w, out, &mut n)?;
            if let Some(e) = ends.as_deref_mut() {
                e.push(n);
            }
        }
        Ok(n)
    }

    /// The agent steps of agent `a` in `st` (as `agent_steps`), packed with `W` bytes per
    /// slot and appended to `out`; `n` counts them. A compiled edge writes only the slots it
    /// changes into a copy of `parent`; the other edges are evaluated on `i32` slots and
    /// packed whole.
    fn agent_steps_packed<const W: usize>(
        &self,
        st: &[i32],
        parent: &[u8],
        a: usize,
        w: &mut Work,
        out: &mut Vec<u8>,
        n: &mut usize,
    ) -> Result<(), PackedStop> {
        if !self.may_step(st, a) {
            return Ok(());
        }
        let ctl = st[self.lay.ctl(a)] as usize;
        for (ei, fast) in self.fast[a][ctl].iter().enumerate() {
            if let Some(f) = fast {
                // A `Fallback` (a run-time error, or a tuple with too many holders for
                // `stamp_packed`) goes on to the evaluator, which reports any error.
                match f.enabled(st) {
                    Ok(false) => continue,
                    Ok(true) => {
                        let at = out.len();
                        out.extend_from_slice(parent);
                        match self.step_packed::<W>(st, a, f, &mut out[at..]) {
                            Ok(()) => {
                                *n += 1;
                                continue;
                            }
                            Err(PackedApply::Disabled) => {
                                out.truncate(at);
                                continue;
                            }
                            Err(PackedApply::Widen(wd)) => return Err(PackedStop::Widen(wd)),
                            Err(PackedApply::Fallback) => out.truncate(at),
                        }
                    }
                    Err(_) => {}
                }
            }
            let mut stop = None;
            self.edge_steps(st, a, ei, w, false, false, &mut |_, s| {
                if stop.is_some() {
                    return;
                }
                let at = out.len();
                out.resize(at + parent.len(), 0);
                if encode_into(s, W, &mut out[at..]) {
                    *n += 1;
                } else {
                    stop = Some(PackedStop::Widen(width_needed(s)));
                }
            })
            .map_err(PackedStop::Error)?;
            if let Some(e) = stop {
                return Err(e);
            }
        }
        Ok(())
    }

    /// The step of compiled edge `f` of agent `a` (as `agent_step` then `finish_step`),
    /// applied to `out`, which holds `st` packed with `W` bytes per slot.
    fn step_packed<const W: usize>(
        &self,
        st: &[i32],
        a: usize,
        f: &FastEdge,
        out: &mut [u8],
    ) -> Result<(), PackedApply> {
        if f.stamps.iter().any(|&k| self.plans[k].len() >= 64) {
            return Err(PackedApply::Fallback);
        }
        let mut wide = match f.apply_packed::<W>(st, out) {
            Ok(()) => 0,
            Err(PackedApply::Widen(x)) => x,
            Err(e) => return Err(e),
        };
        let lay = &self.lay;
        for &k in &f.stamps {
            self.stamp_packed::<W>(st, a, k, out);
        }
        let mut put = |p: usize, v: i32| {
            if !encode_slot::<W>(out, p, v) {
                wide = wide.max(width_of(v));
            }
        };
        or_bits(st, lay.zp(a), &f.stamps, &mut put);
        or_bits(st, lay.zc(a), &f.confirms, &mut put);
        put(lay.ctl(a), f.target);
        if self.fair {
            put(lay.turn(), ((a + 1) % lay.n_agents) as i32);
        }
        if wide > 0 { Err(PackedApply::Widen(wide)) } else { Ok(()) }
    }

    /// A fresh timestamp of tuple `k` (fewer than 64 holders) for agent `a`, in `out`: the
    /// newest rank, then the ranks made dense again (as `finish_step` and `renormalise`).
    #[inline]
    fn stamp_packed<const W: usize>(&self, st: &[i32], a: usize, k: TupleId, out: &mut [u8]) {
        let plan = &self.plans[k];
        let (mut max, mut present) = (0, 0u64);
        for h in plan {
            let r = st[h.rank as usize];
            max = max.max(r);
            if h.agent as usize != a {
                present |= 1u64 << r;
            }
        }
        // The state's ranks are dense, so `max + 1` is at most the number of holders (< 64),
        // and every rank fits every width.
        let new = max + 1;
        present |= 1u64 << new;
        let dense = |r: i32| (present & ((1u64 << r) - 1)).count_ones() as i32;
        for h in plan {
            if h.agent as usize == a {
                encode_slot::<W>(out, h.rank as usize, dense(new));
            } else if present & (present + 1) != 0 {
                encode_slot::<W>(out, h.rank as usize, dense(st[h.rank as usize]));
            }
        }
    }

    /// What a message of tuple `k` from `s` does first, on either packed path: it clears
    /// the sender's pending bit in `out`. Returns the sender's plan, the tuple's bit in a
    /// mask word, and the sender's rank.
    pub(super) fn sender_packed<const W: usize>(
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
    pub(super) fn message_packed<const W: usize, const LINK_TRUE: bool>(
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
            let action =
                self.receive(st, s, k, confirm, h, tr, ts, LINK_TRUE, true, &mut w.sc).map_err(PackedStop::Error)?;
            if action != Receive::Copy {
                present |= 1u64 << tr;
                if action == Receive::Skip {
                    continue;
                }
            }
            // Receivers are other agents than the sender, so each of these words is written
            // once by this message: reading it from `st` is reading the current value.
            // SAFETY: plan positions, and a holder's stigmergic slots
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
    pub(super) fn message_packed_many<const W: usize>(
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
            let action = self
                .receive(st, s, k, confirm, h, tr, ts, self.link_true[k], true, &mut w.sc)
                .map_err(PackedStop::Error)?;
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
}

/// Sets the bits of `tuples` (sorted) in the mask words from slot `base` of `st`, writing each
/// changed word once through `put`.
#[inline]
fn or_bits(st: &[i32], base: usize, tuples: &[TupleId], put: &mut impl FnMut(usize, i32)) {
    let mut i = 0;
    while i < tuples.len() {
        let wi = tuples[i] / 32;
        let mut bits = 0u32;
        while i < tuples.len() && tuples[i] / 32 == wi {
            bits |= 1 << (tuples[i] % 32);
            i += 1;
        }
        put(base + wi, (st[base + wi] as u32 | bits) as i32);
    }
}
