//! The stored form of a state: every slot in a bit field of its own width.
//!
//! The stepper and the symmetry reduction work on states packed at one width for every slot
//! (1, 2 or 4 bytes, `encoding.rs`: the *working* form). The store keeps each state in far
//! fewer bits: slot `i` takes `bits` bits holding a code, 0 for ⊥ where the slot may be ⊥,
//! then the values `lo`, `lo + 1`, … The fields are packed into little-endian 64-bit words
//! (a field never straddles two words) and the last word is cut to its used bytes.
//!
//! The widths are learnt: a new store has every slot at 0 bits (the value 0 only), and a
//! state that does not fit makes the slots it overflows wider (`Codec::widened`), which the
//! store answers by re-encoding its states. A field that widens at least doubles its range,
//! so each slot widens a few times per run at most, almost always within the first BFS
//! levels. Nothing rests on a prediction of the values: the codes cover the values seen.

use super::BOT;
use super::encoding::{load_le, store_le};

/// How one slot is coded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SlotCode {
    /// The value of the first value code.
    lo: i32,
    /// Field width (0..=32).
    bits: u8,
    /// Whether code 0 is ⊥ (values then start at code 1).
    bot: bool,
    /// Bit position of the field in its word.
    shift: u8,
    /// Whether the field is the first of a word other than the first.
    starts_word: bool,
    /// The word the field is in.
    word: u32,
}

impl SlotCode {
    /// How many values the field holds: every code but ⊥'s.
    #[inline]
    fn values(&self) -> u64 {
        (1u64 << self.bits) - u64::from(self.bot)
    }
    /// The code of `v`, `None` when it does not fit.
    #[inline]
    fn code(&self, v: i32) -> Option<u64> {
        if v == BOT {
            return self.bot.then_some(0);
        }
        let d = (i64::from(v) - i64::from(self.lo)) as u64;
        (d < self.values()).then(|| d + u64::from(self.bot))
    }
    #[inline]
    fn value(&self, code: u64) -> i32 {
        let v = (i64::from(self.lo) + code as i64 - i64::from(self.bot)) as i32;
        if self.bot && code == 0 { BOT } else { v }
    }
    #[inline]
    fn mask(&self) -> u64 {
        (1u64 << self.bits) - 1
    }
    /// The narrowest field that holds this one's codes and `v`, at least doubling the
    /// values it holds (so that a slot widens a few times per run at most).
    fn widened(&self, v: i32) -> SlotCode {
        if self.code(v).is_some() {
            return *self;
        }
        let bot = self.bot || v == BOT;
        let seen = (self.values() > 0).then(|| (i64::from(self.lo), i64::from(self.lo) + self.values() as i64 - 1));
        let (lo, hi) = match (seen, v == BOT) {
            (Some(r), true) => r,
            (Some((lo, hi)), false) => (lo.min(v.into()), hi.max(v.into())),
            (None, _) => (v.into(), v.into()),
        };
        let span = if v == BOT && seen.is_none() { 0 } else { (hi - lo + 1) as u64 };
        let need = span + u64::from(bot);
        let bits = (u64::BITS - (need - 1).leading_zeros()).max(u32::from(self.bits) + 1).min(32) as u8;
        let values = ((1u64 << bits) - u64::from(bot)) as i64;
        // The new range keeps the old values and grows towards `v`, within the values a slot
        // can hold (every `i32` but ⊥'s `i32::MIN`).
        let (min, max) = (i64::from(i32::MIN) + 1, i64::from(i32::MAX));
        let lo = if seen.is_some_and(|(l, _)| v != BOT && i64::from(v) < l) { hi - values + 1 } else { lo };
        let lo = lo.min(max - values + 1).max(min);
        SlotCode { lo: lo as i32, bits, bot, shift: 0, starts_word: false, word: 0 }
    }
}

/// The coding of every slot of a state, and where each field lies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Codec {
    slots: Vec<SlotCode>,
    /// Bytes of a coded state.
    bytes: usize,
}

impl Codec {
    /// Every slot at 0 bits: only the state of zeros fits.
    pub(crate) fn new(stride: usize) -> Codec {
        Codec::placed(vec![SlotCode { lo: 0, bits: 0, bot: false, shift: 0, starts_word: false, word: 0 }; stride])
    }

    /// Every slot at 0 bits, holding exactly its value in `s`: the codec of a store's first
    /// state.
    pub(crate) fn exact(s: &[i32]) -> Codec {
        Codec::placed(
            s.iter()
                .map(|&v| SlotCode {
                    lo: if v == BOT { 0 } else { v },
                    bits: 0,
                    bot: v == BOT,
                    shift: 0,
                    starts_word: false,
                    word: 0,
                })
                .collect(),
        )
    }

    /// The codec of these fields, each placed in the first word where it fits after the
    /// previous one.
    fn placed(mut slots: Vec<SlotCode>) -> Codec {
        let (mut words, mut used) = (1usize, 0u32);
        for s in slots.iter_mut() {
            s.starts_word = used + u32::from(s.bits) > 64;
            if s.starts_word {
                words += 1;
                used = 0;
            }
            // A field of no bits may come after a full word: its code, 0, goes anywhere.
            s.shift = if s.bits == 0 { 0 } else { used as u8 };
            s.word = words as u32 - 1;
            used += u32::from(s.bits);
        }
        // At least a byte: the arena's arithmetic divides by the state size.
        let bytes = ((words - 1) * 8 + used.div_ceil(8) as usize).max(1);
        Codec { slots, bytes }
    }

    /// Bytes of a coded state.
    #[inline]
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Each slot's field width in bits.
    #[cfg(test)]
    pub(crate) fn bits(&self) -> impl Iterator<Item = u8> + '_ {
        self.slots.iter().map(|s| s.bits)
    }

    /// A codec in which `s` fits, with every field at least as wide as here (and holding
    /// the same values), so every state that fits this one fits it too.
    pub(crate) fn widened(&self, s: &[i32]) -> Codec {
        Codec::placed(self.slots.iter().zip(s).map(|(c, &v)| c.widened(v)).collect())
    }

    /// Codes `s` into `out` (`bytes()` long); false (and `out` unspecified) when some value
    /// does not fit.
    pub(crate) fn encode(&self, s: &[i32], out: &mut [u8]) -> bool {
        self.encode_by(|i| s[i], out)
    }

    /// Codes the working form `work` (every slot in `W` bytes, as `encoding::encode_into`
    /// writes it) into `out`, as `encode` would code the decoded state.
    #[inline]
    pub(crate) fn pack<const W: usize>(&self, work: &[u8], out: &mut [u8]) -> bool {
        debug_assert_eq!(work.len(), self.slots.len() * W);
        self.encode_by(|i| read_slot::<W>(work, i), out)
    }

    /// `pack`, for a state `work` that differs from `base_work`, coded as `base`, in a few
    /// slots (a successor and its parent): only the slots whose bytes differ are coded, the
    /// others keep their fields from `base`.
    #[inline]
    pub(crate) fn pack_from<const W: usize>(&self, base_work: &[u8], base: &[u8], work: &[u8], out: &mut [u8]) -> bool {
        debug_assert_eq!(work.len(), base_work.len());
        let out = &mut out[..self.bytes];
        // The words in registers (or on the stack) while fields change: no partial stores
        // and reloads of the same bytes.
        let mut words = [0u64; SMALL_WORDS];
        let n = self.bytes.div_ceil(8);
        if n > SMALL_WORDS {
            return self.pack::<W>(work, out);
        }
        for (k, w) in words[..n].iter_mut().enumerate() {
            *w = load_le(&base[k * 8..(k * 8 + 8).min(self.bytes)]);
        }
        let mut bad = false;
        for (k, (a, b)) in work.chunks(8).zip(base_work.chunks(8)).enumerate() {
            let mut diff = load_le(a) ^ load_le(b);
            while diff != 0 {
                // The slot of the lowest differing byte; its other bytes are skipped.
                let byte = diff.trailing_zeros() as usize / 8;
                let slot = (k * 8 + byte) / W;
                let first = (slot * W - k * 8) * 8;
                diff &= !(((1u64 << (8 * W)) - 1) << first);
                let c = &self.slots[slot];
                let v = read_slot::<W>(work, slot);
                let is_bot = v == BOT;
                let d = (i64::from(v) - i64::from(c.lo)) as u64;
                bad |= if is_bot { !c.bot } else { d >= c.values() };
                let code = if is_bot { 0 } else { d.wrapping_add(u64::from(c.bot)) };
                let w = &mut words[c.word as usize];
                *w = *w & !(c.mask() << c.shift) | ((code & c.mask()) << c.shift);
            }
        }
        for (k, &w) in words[..n].iter().enumerate() {
            store_le(&mut out[k * 8..(k * 8 + 8).min(self.bytes)], w);
        }
        !bad
    }

    #[inline(always)]
    fn encode_by(&self, value: impl Fn(usize) -> i32, out: &mut [u8]) -> bool {
        let out = &mut out[..self.bytes];
        let mut bad = false;
        let (mut word, mut at) = (0u64, 0usize);
        for (i, c) in self.slots.iter().enumerate() {
            if c.starts_word {
                out[at..at + 8].copy_from_slice(&word.to_le_bytes());
                (word, at) = (0, at + 8);
            }
            let v = value(i);
            // Branch-free: a ⊥ takes code 0 and fits only where the slot may be ⊥.
            let is_bot = v == BOT;
            let d = (i64::from(v) - i64::from(c.lo)) as u64;
            bad |= if is_bot { !c.bot } else { d >= c.values() };
            let code = if is_bot { 0 } else { d.wrapping_add(u64::from(c.bot)) };
            word |= code << c.shift;
        }
        store_le(&mut out[at..], word);
        !bad
    }

    /// The state coded in `b`, into `out`.
    pub(crate) fn decode(&self, b: &[u8], out: &mut Vec<i32>) {
        out.resize(self.slots.len(), 0);
        let b = &b[..self.bytes];
        let word_at = |at: usize| load_le(&b[at..(at + 8).min(b.len())]);
        let (mut word, mut at) = (word_at(0), 0usize);
        for (o, c) in out.iter_mut().zip(&self.slots) {
            if c.starts_word {
                at += 8;
                word = word_at(at);
            }
            *o = c.value((word >> c.shift) & c.mask());
        }
    }
}

/// The values each slot took over some states (`add`), for fields that hold exactly them
/// (`codec`): a fast store's fields when it turns compact (`StateStore::compact`).
pub(crate) struct SlotRanges {
    /// Per slot: the least and greatest value other than ⊥ (`lo > hi`: none), and whether
    /// ⊥ was seen.
    slots: Vec<(i32, i32, bool)>,
}

impl SlotRanges {
    pub(crate) fn new(stride: usize) -> SlotRanges {
        SlotRanges { slots: vec![(i32::MAX, i32::MIN, false); stride] }
    }

    #[inline]
    pub(crate) fn add(&mut self, s: &[i32]) {
        for (r, &v) in self.slots.iter_mut().zip(s) {
            if v == BOT {
                r.2 = true;
            } else {
                r.0 = r.0.min(v);
                r.1 = r.1.max(v);
            }
        }
    }

    /// The narrowest fields holding every value added.
    pub(crate) fn codec(&self) -> Codec {
        Codec::placed(
            self.slots
                .iter()
                .map(|&(lo, hi, bot)| {
                    let span = if lo <= hi { (i64::from(hi) - i64::from(lo) + 1) as u64 } else { 0 };
                    let need = span + u64::from(bot);
                    let bits = if need <= 1 { 0 } else { (u64::BITS - (need - 1).leading_zeros()) as u8 };
                    SlotCode { lo: if lo <= hi { lo } else { 0 }, bits, bot, shift: 0, starts_word: false, word: 0 }
                })
                .collect(),
        )
    }
}

/// Stored forms of up to this many words are coded from their parent's in place
/// (`Codec::pack_from`); longer ones are coded whole.
const SMALL_WORDS: usize = 8;

/// Slot `i` of a working form of `W` bytes per slot (⊥ is the most negative code).
#[inline(always)]
fn read_slot<const W: usize>(work: &[u8], i: usize) -> i32 {
    match W {
        1 => match work[i] as i8 {
            i8::MIN => BOT,
            x => x.into(),
        },
        2 => match i16::from_le_bytes([work[2 * i], work[2 * i + 1]]) {
            i16::MIN => BOT,
            x => x.into(),
        },
        _ => i32::from_le_bytes(work[4 * i..4 * i + 4].try_into().unwrap()),
    }
}

#[cfg(test)]
#[path = "codec_tests.rs"]
mod tests;
