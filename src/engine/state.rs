//! State encoding: a flat vector of `i32` slots with a fixed layout, and a hash-indexed
//! arena of states.
//!
//! Layout of one state (see `Layout`):
//! `[env (env_len)] [agent 0] … [agent n-1] [turn (only under --fair)]`, each agent being
//! `[attrs (attr_len)] [stigmergic copies (stig_len)] [rank per tuple] [Zp mask] [Zc mask] [ctl]`.
//! ⊥ is `BOT` (`i32::MIN`, outside `arith::MIN_VALUE..=MAX_VALUE`). Slots a type does not use
//! (attributes of other types, stigmergies it does not hold) stay ⊥; ranks of tuples an agent
//! does not hold stay 0. Timestamps are stored as dense ranks among the holders (§4).

use crate::model::Model;
use std::hash::Hasher;

/// The undefined value ⊥.
pub const BOT: i32 = i32::MIN;

/// Where each component of a state lives in the flat vector.
#[derive(Clone, Debug)]
pub struct Layout {
    pub n_agents: usize,
    pub env_len: usize,
    pub attr_len: usize,
    pub stig_len: usize,
    pub n_tuples: usize,
    /// 32-bit words per pending-set mask.
    pub mask_words: usize,
    pub agent_stride: usize,
    pub fair: bool,
    /// Total slots per state.
    pub len: usize,
}

impl Layout {
    pub fn new(model: &Model, fair: bool) -> Layout {
        let n_agents = model.n_agents();
        let n_tuples = model.tuples.len();
        let mask_words = n_tuples.div_ceil(32);
        let agent_stride = model.attr_len + model.stig_len + n_tuples + 2 * mask_words + 1;
        let len = model.env_len + n_agents * agent_stride + usize::from(fair);
        Layout {
            n_agents,
            env_len: model.env_len,
            attr_len: model.attr_len,
            stig_len: model.stig_len,
            n_tuples,
            mask_words,
            agent_stride,
            fair,
            len,
        }
    }

    #[inline]
    pub fn base(&self, a: usize) -> usize {
        self.env_len + a * self.agent_stride
    }
    #[inline]
    pub fn attr(&self, a: usize, slot: usize) -> usize {
        self.base(a) + slot
    }
    #[inline]
    pub fn stig(&self, a: usize, slot: usize) -> usize {
        self.base(a) + self.attr_len + slot
    }
    #[inline]
    pub fn rank(&self, a: usize, k: usize) -> usize {
        self.base(a) + self.attr_len + self.stig_len + k
    }
    #[inline]
    pub fn zp(&self, a: usize) -> usize {
        self.base(a) + self.attr_len + self.stig_len + self.n_tuples
    }
    #[inline]
    pub fn zc(&self, a: usize) -> usize {
        self.zp(a) + self.mask_words
    }
    #[inline]
    pub fn ctl(&self, a: usize) -> usize {
        self.zc(a) + self.mask_words
    }
    #[inline]
    pub fn turn(&self) -> usize {
        self.len - 1
    }

    #[inline]
    pub fn has_bit(st: &[i32], at: usize, k: usize) -> bool {
        (st[at + k / 32] as u32 >> (k % 32)) & 1 == 1
    }
    #[inline]
    pub fn set_bit(st: &mut [i32], at: usize, k: usize) {
        st[at + k / 32] = (st[at + k / 32] as u32 | (1u32 << (k % 32))) as i32;
    }
    #[inline]
    pub fn clear_bit(st: &mut [i32], at: usize, k: usize) {
        st[at + k / 32] = (st[at + k / 32] as u32 & !(1u32 << (k % 32))) as i32;
    }
    /// Whether `Zp` and `Zc` of agent `a` are both empty.
    #[inline]
    pub fn quiet(&self, st: &[i32], a: usize) -> bool {
        let p = self.zp(a);
        st[p..p + 2 * self.mask_words].iter().all(|&w| w == 0)
    }
    /// Tuples in the mask at `at`, in increasing order.
    pub fn bits(&self, st: &[i32], at: usize) -> impl Iterator<Item = usize> + '_ {
        let words: Vec<u32> = st[at..at + self.mask_words].iter().map(|&w| w as u32).collect();
        (0..self.n_tuples).filter(move |&k| (words[k / 32] >> (k % 32)) & 1 == 1)
    }
}

/// Hash of a state (FxHash over the slots).
#[inline]
pub fn hash_state(s: &[i32]) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    for &x in s {
        h.write_u32(x as u32);
    }
    // FxHash's low bits are weak: mix.
    let x = h.finish();
    (x ^ (x >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9) ^ (x >> 32)
}

const EMPTY: u32 = u32::MAX;

/// Bytes per slot needed to store `v` (⊥ is the most negative code of each width).
#[inline]
fn width_of(v: i32) -> usize {
    if v == BOT || (-127..=127).contains(&v) {
        1
    } else if (-32767..=32767).contains(&v) {
        2
    } else {
        4
    }
}

#[inline]
fn encode(s: &[i32], width: usize, out: &mut Vec<u8>) {
    out.clear();
    match width {
        1 => out.extend(s.iter().map(|&v| if v == BOT { i8::MIN as u8 } else { v as i8 as u8 })),
        2 => {
            for &v in s {
                let x = if v == BOT { i16::MIN } else { v as i16 };
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        _ => {
            for &v in s {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
}

#[inline]
fn decode(b: &[u8], width: usize, out: &mut Vec<i32>) {
    out.clear();
    match width {
        1 => out.extend(b.iter().map(|&x| if x as i8 == i8::MIN { BOT } else { x as i8 as i32 })),
        2 => out.extend(b.chunks_exact(2).map(|c| {
            let x = i16::from_le_bytes([c[0], c[1]]);
            if x == i16::MIN { BOT } else { x as i32 }
        })),
        _ => out.extend(b.chunks_exact(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))),
    }
}

/// An arena of distinct states with an open-addressing hash index (linear probing).
/// Ids are assigned in insertion order. Every slot is stored in `width` bytes (1, 2 or 4):
/// the arena starts with 1 and is re-encoded, once, to a wider width when a value that does
/// not fit arrives. Hashes are computed on the `i32` form, so they do not depend on width.
pub struct StateStore {
    stride: usize,
    width: usize,
    data: Vec<u8>,
    table: Vec<u32>,
    count: usize,
    enc: Vec<u8>,
}

impl StateStore {
    pub fn new(stride: usize) -> StateStore {
        StateStore { stride, width: 1, data: Vec::new(), table: vec![EMPTY; 1 << 12], count: 0, enc: Vec::new() }
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Bytes per stored state in the arena.
    pub fn state_bytes(&self) -> usize {
        self.stride * self.width
    }

    #[inline]
    fn raw(&self, i: u32) -> &[u8] {
        let n = self.stride * self.width;
        let i = i as usize * n;
        &self.data[i..i + n]
    }

    /// State `i`, decoded into `out`.
    #[inline]
    pub fn get_into(&self, i: u32, out: &mut Vec<i32>) {
        decode(self.raw(i), self.width, out);
    }

    /// State `i`.
    pub fn get(&self, i: u32) -> Vec<i32> {
        let mut v = Vec::with_capacity(self.stride);
        self.get_into(i, &mut v);
        v
    }

    /// Bytes used by the arena and the index.
    pub fn bytes(&self) -> usize {
        self.data.len() + self.table.len() * 4
    }

    fn slot_of(&self, h: u64) -> usize {
        (h as usize) & (self.table.len() - 1)
    }

    pub fn find(&self, s: &[i32]) -> Option<u32> {
        let h = hash_state(s);
        if s.iter().map(|&v| width_of(v)).max().unwrap_or(1) > self.width {
            return None;
        }
        let mut enc = Vec::new();
        encode(s, self.width, &mut enc);
        let mask = self.table.len() - 1;
        let mut p = self.slot_of(h);
        loop {
            let id = self.table[p];
            if id == EMPTY {
                return None;
            }
            if self.raw(id) == enc.as_slice() {
                return Some(id);
            }
            p = (p + 1) & mask;
        }
    }

    /// Inserts `s` (if new); returns its id and whether it was new.
    pub fn insert(&mut self, s: &[i32]) -> (u32, bool) {
        self.insert_hashed(s, hash_state(s))
    }

    /// As `insert`, with `h = hash_state(s)` computed by the caller.
    pub fn insert_hashed(&mut self, s: &[i32], h: u64) -> (u32, bool) {
        debug_assert_eq!(s.len(), self.stride);
        let need = s.iter().map(|&v| width_of(v)).max().unwrap_or(1);
        if need > self.width {
            self.widen(need);
        }
        if (self.count + 1) * 2 > self.table.len() {
            self.grow();
        }
        let mut enc = std::mem::take(&mut self.enc);
        encode(s, self.width, &mut enc);
        let mask = self.table.len() - 1;
        let mut p = self.slot_of(h);
        let r = loop {
            let id = self.table[p];
            if id == EMPTY {
                let new = self.count as u32;
                self.table[p] = new;
                self.data.extend_from_slice(&enc);
                self.count += 1;
                break (new, true);
            }
            if self.raw(id) == enc.as_slice() {
                break (id, false);
            }
            p = (p + 1) & mask;
        };
        self.enc = enc;
        r
    }

    fn widen(&mut self, width: usize) {
        let mut data = Vec::with_capacity(self.count * self.stride * width);
        let (mut dec, mut enc) = (Vec::new(), Vec::new());
        for id in 0..self.count as u32 {
            self.get_into(id, &mut dec);
            encode(&dec, width, &mut enc);
            data.extend_from_slice(&enc);
        }
        self.data = data;
        self.width = width;
    }

    fn grow(&mut self) {
        let cap = self.table.len() * 2;
        let mut table = vec![EMPTY; cap];
        let mask = cap - 1;
        let mut dec = Vec::new();
        for id in 0..self.count as u32 {
            self.get_into(id, &mut dec);
            let h = hash_state(&dec);
            let mut p = (h as usize) & mask;
            while table[p] != EMPTY {
                p = (p + 1) & mask;
            }
            table[p] = id;
        }
        self.table = table;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_dedups_and_grows() {
        let mut s = StateStore::new(3);
        for i in 0..10_000 {
            let (id, new) = s.insert(&[i, i * 2, BOT]);
            assert!(new);
            assert_eq!(id as i32, i);
        }
        for i in 0..10_000 {
            assert_eq!(s.insert(&[i, i * 2, BOT]), (i as u32, false));
            assert_eq!(s.find(&[i, i * 2, BOT]), Some(i as u32));
            assert_eq!(s.get(i as u32), vec![i, i * 2, BOT]);
        }
        assert_eq!(s.find(&[1, 1, 1]), None);
        assert_eq!(s.len(), 10_000);
    }

    #[test]
    fn store_widens() {
        let mut s = StateStore::new(2);
        assert_eq!(s.insert(&[1, BOT]), (0, true));
        assert_eq!(s.insert(&[-127, 127]), (1, true));
        assert_eq!(s.state_bytes(), 2);
        assert_eq!(s.insert(&[300, -5]), (2, true));
        assert_eq!(s.state_bytes(), 4);
        assert_eq!(s.insert(&[1, BOT]), (0, false));
        assert_eq!(s.insert(&[i32::MAX, i32::MIN + 1]), (3, true));
        assert_eq!(s.state_bytes(), 8);
        assert_eq!(s.get(0), vec![1, BOT]);
        assert_eq!(s.get(1), vec![-127, 127]);
        assert_eq!(s.get(2), vec![300, -5]);
        assert_eq!(s.get(3), vec![i32::MAX, i32::MIN + 1]);
        assert_eq!(s.find(&[300, -5]), Some(2));
        assert_eq!(s.find(&[-128, 0]), None);
    }

    #[test]
    fn masks() {
        let mut st = vec![0i32; 4];
        Layout::set_bit(&mut st, 1, 33);
        Layout::set_bit(&mut st, 1, 31);
        assert!(Layout::has_bit(&st, 1, 33));
        assert!(Layout::has_bit(&st, 1, 31));
        assert!(!Layout::has_bit(&st, 1, 32));
        Layout::clear_bit(&mut st, 1, 31);
        assert!(!Layout::has_bit(&st, 1, 31));
    }
}
