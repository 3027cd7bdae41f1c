//! The layout of a state: which slot holds what (see `super`'s documentation).

use super::*;

/// The undefined value ⊥.
pub const BOT: i32 = i32::MIN;

/// Where each component of a state lives in the flat vector.
#[derive(Clone, Debug)]
pub struct Layout {
    pub n_agents: usize,
    pub(crate) env_len: usize,
    pub(crate) attr_len: usize,
    pub(crate) stig_len: usize,
    pub(crate) n_tuples: usize,
    /// 32-bit words per pending-set mask.
    pub(crate) mask_words: usize,
    pub agent_stride: usize,
    pub(crate) fair: bool,
    /// Total slots per state.
    pub len: usize,
}

impl Layout {
    pub(crate) fn new(model: &Model, fair: bool) -> Layout {
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
    pub(crate) fn rank(&self, a: usize, k: usize) -> usize {
        self.base(a) + self.attr_len + self.stig_len + k
    }
    #[inline]
    pub(crate) fn zp(&self, a: usize) -> usize {
        self.base(a) + self.attr_len + self.stig_len + self.n_tuples
    }
    #[inline]
    pub(crate) fn zc(&self, a: usize) -> usize {
        self.zp(a) + self.mask_words
    }
    #[inline]
    pub(crate) fn ctl(&self, a: usize) -> usize {
        self.zc(a) + self.mask_words
    }
    #[inline]
    pub fn turn(&self) -> usize {
        self.len - 1
    }

    #[cfg(test)]
    pub(crate) fn has_bit(st: &[i32], at: usize, k: usize) -> bool {
        (st[at + k / 32] as u32 >> (k % 32)) & 1 == 1
    }
    #[inline]
    pub(crate) fn set_bit(st: &mut [i32], at: usize, k: usize) {
        st[at + k / 32] = (st[at + k / 32] as u32 | (1u32 << (k % 32))) as i32;
    }
    #[cfg(test)]
    pub(crate) fn clear_bit(st: &mut [i32], at: usize, k: usize) {
        st[at + k / 32] = (st[at + k / 32] as u32 & !(1u32 << (k % 32))) as i32;
    }
    /// Whether `Zp` and `Zc` of agent `a` are both empty.
    #[inline]
    pub(crate) fn quiet(&self, st: &[i32], a: usize) -> bool {
        let p = self.zp(a);
        st[p..p + 2 * self.mask_words].iter().all(|&w| w == 0)
    }
    /// Tuples in the mask at `at`, in increasing order.
    pub(crate) fn bits(&self, st: &[i32], at: usize) -> impl Iterator<Item = usize> + '_ {
        let words: Vec<u32> = st[at..at + self.mask_words].iter().map(|&w| w as u32).collect();
        (0..self.n_tuples).filter(move |&k| (words[k / 32] >> (k % 32)) & 1 == 1)
    }
}
