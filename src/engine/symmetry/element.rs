//! Elements of the symmetry group as the fairness checks follow them: the permutation of the
//! agents that maps a state to its representative (which agent of the representative each
//! agent of the state is), and the same element acting on decoded states (to lift a loop of
//! representatives to concrete states).

use super::Group;
use crate::engine::state::{BOT, Layout};

/// A permutation of the agents with a symmetry of values: agent `a`'s block goes to
/// `agents[a]`; `value` is 0 for no map of values, `k` for `values[k - 1]` of the group.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Element {
    pub(crate) agents: Vec<u8>,
    pub(crate) value: u32,
}

impl Element {
    pub(crate) fn identity(n: usize) -> Element {
        Element { agents: (0..n).map(|a| a as u8).collect(), value: 0 }
    }
}

/// A map of decoded states: slot `x` of the image is slot `from[x]` of the state, its value `v`
/// mapped to `offset[x] - v` (`neg`) or `v + offset[x]`; ⊥ stays ⊥. The group's elements are
/// such maps, and so are their inverses and products.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SlotMap {
    from: Vec<u32>,
    neg: Vec<bool>,
    offset: Vec<i32>,
}

impl SlotMap {
    fn identity(len: usize) -> SlotMap {
        SlotMap { from: (0..len as u32).collect(), neg: vec![false; len], offset: vec![0; len] }
    }

    /// Element `el` of `group` on states of layout `lay`: its map of values, then its
    /// permutation of the agents' blocks (the two commute).
    pub(crate) fn of(group: &Group, lay: &Layout, el: &Element) -> SlotMap {
        let mut h = SlotMap::identity(lay.len);
        if el.value > 0 {
            for m in &group.values[el.value as usize - 1].moves {
                let x = m.to as usize;
                h.from[x] = m.from;
                if let Some(c) = m.mirror {
                    h.neg[x] = true;
                    h.offset[x] = c;
                }
            }
        }
        let mut g = h.clone();
        for (a, &to) in el.agents.iter().enumerate() {
            let (src, dst) = (lay.base(a), lay.base(to as usize));
            for k in 0..lay.agent_stride {
                g.from[dst + k] = h.from[src + k];
                g.neg[dst + k] = h.neg[src + k];
                g.offset[dst + k] = h.offset[src + k];
            }
        }
        g
    }

    /// The map undoing this one.
    pub(crate) fn inverse(&self) -> SlotMap {
        let mut inv = SlotMap::identity(self.from.len());
        for x in 0..self.from.len() {
            let y = self.from[x] as usize;
            inv.from[y] = x as u32;
            inv.neg[y] = self.neg[x];
            inv.offset[y] = if self.neg[x] { self.offset[x] } else { -self.offset[x] };
        }
        inv
    }

    /// This map, then `g`.
    pub(crate) fn then(&self, g: &SlotMap) -> SlotMap {
        let mut out = SlotMap::identity(self.from.len());
        for x in 0..self.from.len() {
            let y = g.from[x] as usize;
            out.from[x] = self.from[y];
            // g(f(v)) with f(v) = ±v + of, g(w) = ±w + og.
            let (sf, of) = (if self.neg[y] { -1 } else { 1 }, self.offset[y]);
            let (sg, og) = (if g.neg[x] { -1 } else { 1 }, g.offset[x]);
            out.neg[x] = sf * sg < 0;
            out.offset[x] = sg * of + og;
        }
        out
    }

    /// The image of state `s`.
    pub(crate) fn apply(&self, s: &[i32]) -> Vec<i32> {
        (0..s.len())
            .map(|x| {
                let v = s[self.from[x] as usize];
                match v {
                    BOT => BOT,
                    _ if self.neg[x] => self.offset[x] - v,
                    _ => v + self.offset[x],
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(from: &[u32], neg: &[bool], offset: &[i32]) -> SlotMap {
        SlotMap { from: from.to_vec(), neg: neg.to_vec(), offset: offset.to_vec() }
    }

    /// A swap of slots 0 and 1 with a mirror about 2 on one side, a mirror of slot 2 about 3,
    /// and their products and inverses, on states with ⊥: computed by hand.
    #[test]
    fn products_and_inverses_agree_with_the_maps_applied_in_turn() {
        let f = map(&[1, 0, 2], &[true, false, false], &[4, 0, 0]);
        let g = map(&[0, 1, 2], &[false, false, true], &[0, 0, 6]);
        for s in [[1, 2, 3], [BOT, 0, 5], [4, BOT, BOT]] {
            let fs = f.apply(&s);
            assert_eq!(fs, vec![if s[1] == BOT { BOT } else { 4 - s[1] }, s[0], s[2]]);
            assert_eq!(f.inverse().apply(&fs), s.to_vec());
            assert_eq!(f.then(&g).apply(&s), g.apply(&fs));
            assert_eq!(g.then(&f).apply(&s), f.apply(&g.apply(&s)));
            let fg = f.then(&g);
            assert_eq!(fg.inverse().apply(&fg.apply(&s)), s.to_vec());
            assert_eq!(fg.inverse(), g.inverse().then(&f.inverse()));
        }
    }
}
