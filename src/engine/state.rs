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

/// An arena of distinct states with an open-addressing hash index (linear probing).
/// State `i` is `data[i*stride .. (i+1)*stride]`; ids are assigned in insertion order.
pub struct StateStore {
    stride: usize,
    data: Vec<i32>,
    table: Vec<u32>,
    count: usize,
}

impl StateStore {
    pub fn new(stride: usize) -> StateStore {
        StateStore { stride, data: Vec::new(), table: vec![EMPTY; 1 << 12], count: 0 }
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    #[inline]
    pub fn get(&self, i: u32) -> &[i32] {
        let i = i as usize * self.stride;
        &self.data[i..i + self.stride]
    }

    /// Bytes used by the arena and the index.
    pub fn bytes(&self) -> usize {
        self.data.capacity() * 4 + self.table.capacity() * 4
    }

    fn slot_of(&self, h: u64) -> usize {
        (h as usize) & (self.table.len() - 1)
    }

    pub fn find(&self, s: &[i32]) -> Option<u32> {
        self.find_hashed(s, hash_state(s))
    }

    pub fn find_hashed(&self, s: &[i32], h: u64) -> Option<u32> {
        let mask = self.table.len() - 1;
        let mut p = self.slot_of(h);
        loop {
            let id = self.table[p];
            if id == EMPTY {
                return None;
            }
            if self.get(id) == s {
                return Some(id);
            }
            p = (p + 1) & mask;
        }
    }

    /// Inserts `s` (if new); returns its id and whether it was new.
    pub fn insert(&mut self, s: &[i32]) -> (u32, bool) {
        self.insert_hashed(s, hash_state(s))
    }

    pub fn insert_hashed(&mut self, s: &[i32], h: u64) -> (u32, bool) {
        debug_assert_eq!(s.len(), self.stride);
        if (self.count + 1) * 2 > self.table.len() {
            self.grow();
        }
        let mask = self.table.len() - 1;
        let mut p = self.slot_of(h);
        loop {
            let id = self.table[p];
            if id == EMPTY {
                let new = self.count as u32;
                self.table[p] = new;
                self.data.extend_from_slice(s);
                self.count += 1;
                return (new, true);
            }
            if self.get(id) == s {
                return (id, false);
            }
            p = (p + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let cap = self.table.len() * 2;
        let mut table = vec![EMPTY; cap];
        let mask = cap - 1;
        for id in 0..self.count as u32 {
            let h = hash_state(self.get(id));
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
        }
        assert_eq!(s.find(&[1, 1, 1]), None);
        assert_eq!(s.len(), 10_000);
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
