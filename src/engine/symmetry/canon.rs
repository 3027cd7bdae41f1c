//! Canonical representatives on packed states: within each class of interchangeable agents
//! the agent blocks are sorted, slot by slot by value (⊥ first), so that the representative
//! is the least state of its orbit in the order of the decoded slots, whatever the packing
//! width (the store re-encodes its states when it widens); under round-robin the agents are
//! rotated so that the turn is agent 0.
//!
//! An agent's block holds everything that belongs to the agent: its attributes, its copies of
//! the stigmergic variables, its timestamp ranks (dense ranks among all holders, which a
//! permutation leaves unchanged), its `Zp`/`Zc` masks (of tuples, not agents) and its control
//! state. Nothing outside the blocks refers to an agent except the turn.
//!
//! With symmetries of values, each image of the state under them is canonicalised that way
//! too, and the least of these (slot by slot by value) is the representative: the least state
//! of the orbit under both groups, which commute.

use super::element::Element;
use super::{Group, SlotMove};
use crate::engine::state::Layout;
use std::cmp::Ordering;

/// Reusable buffers of `canonicalise`.
#[derive(Default)]
pub(crate) struct CanonScratch {
    agents: AgentScratch,
    best: Vec<u8>,
    image: Vec<u8>,
}

/// Reusable buffers of the agent permutations.
#[derive(Default)]
struct AgentScratch {
    block: Vec<u8>,
    order: Vec<u32>,
    out: Vec<u8>,
}

/// Agents per class up to which blocks are sorted in place by insertion (few moves of small
/// blocks); larger classes sort indices.
const INSERTION_MAX: usize = 12;

impl Group {
    /// Replaces the packed state `enc` (`width` bytes per slot, layout `lay`) by the
    /// representative of its orbit.
    pub(crate) fn canonicalise(&self, lay: &Layout, width: usize, enc: &mut [u8], sc: &mut CanonScratch) {
        if self.values.is_empty() {
            self.permute_agents(lay, width, enc, &mut sc.agents);
            return;
        }
        sc.best.clear();
        sc.best.extend_from_slice(enc);
        self.permute_agents(lay, width, &mut sc.best, &mut sc.agents);
        let env = lay.env_len * width;
        let b = lay.agent_stride * width;
        // The agents whose blocks may come first in a representative.
        let first = if let Some(n) = self.rotations {
            let at = lay.turn() * width;
            let t = read_slot(&enc[at..at + width]) as usize;
            if t < n { t..t + 1 } else { 0..1 }
        } else {
            match self.classes.first() {
                Some(c) if c.start == 0 => c.clone(),
                _ => 0..1,
            }
        };
        let bot = bottom(width);
        for h in &self.values {
            // An image whose environment, or whose least first block, is greater than the
            // best representative's cannot give a lesser one: most are dropped here, after
            // comparing a slot or two, mapped on the fly.
            let env_order = if h.env.is_empty() {
                cmp_blocks(&enc[..env], &sc.best[..env], width)
            } else {
                map_moves(&h.env, &enc[..env], width, &mut sc.image);
                cmp_blocks(&sc.image, &sc.best[..env], width)
            };
            match env_order {
                Ordering::Greater => continue,
                Ordering::Equal if lay.n_agents > 0 => {
                    let block = |a: usize| &enc[env + a * b..env + (a + 1) * b];
                    let mut least = first.start;
                    for a in first.clone().skip(1) {
                        if cmp_mapped(block(a), &h.blocks[a], block(least), &h.blocks[least], width, bot)
                            == Ordering::Less
                        {
                            least = a;
                        }
                    }
                    if cmp_mapped_plain(block(least), &h.blocks[least], &sc.best[env..env + b], width, bot)
                        == Ordering::Greater
                    {
                        continue;
                    }
                }
                _ => {}
            }
            map_moves(&h.moves, enc, width, &mut sc.image);
            self.permute_agents(lay, width, &mut sc.image, &mut sc.agents);
            if cmp_blocks(&sc.image, &sc.best, width) == Ordering::Less {
                std::mem::swap(&mut sc.image, &mut sc.best);
            }
        }
        enc.copy_from_slice(&sc.best);
    }

    /// Replaces `enc` by the representative of its orbit under the permutations of agents.
    fn permute_agents(&self, lay: &Layout, width: usize, enc: &mut [u8], sc: &mut AgentScratch) {
        let b = lay.agent_stride * width;
        let base = lay.env_len * width;
        if let Some(n) = self.rotations {
            let at = lay.turn() * width;
            let turn = read_slot(&enc[at..at + width]);
            if turn > 0 && (turn as usize) < n {
                enc[base..base + n * b].rotate_left(turn as usize * b);
                enc[at..at + width].fill(0);
            }
            return;
        }
        for c in &self.classes {
            let (lo, hi) = (base + c.start * b, base + c.end * b);
            if c.len() <= INSERTION_MAX {
                insertion_sort(&mut enc[lo..hi], b, width, &mut sc.block);
            } else {
                sort_by_index(&mut enc[lo..hi], b, width, sc);
            }
        }
    }
}

impl Group {
    /// `canonicalise`, telling also which element of the group maps `enc` to its
    /// representative: the permutation of the agents (`el.agents[a]`: where agent `a`'s block
    /// goes) and the symmetry of values (`el.value`: 0 for none, `k` for `values[k - 1]`).
    /// Where the state has symmetries of its own, any of the elements mapping it there.
    pub(crate) fn canonicalise_tracked(
        &self,
        lay: &Layout,
        width: usize,
        enc: &mut [u8],
        sc: &mut CanonScratch,
        el: &mut Element,
    ) {
        debug_assert!(self.rotations.is_none(), "round-robin scheduling follows no agent by id");
        let mut rep = std::mem::take(&mut sc.best);
        rep.clear();
        rep.extend_from_slice(enc);
        self.canonicalise(lay, width, &mut rep, sc);
        let mut image = std::mem::take(&mut sc.image);
        for v in 0..=self.values.len() {
            image.clear();
            match v {
                0 => image.extend_from_slice(enc),
                _ => map_moves(&self.values[v - 1].moves, enc, width, &mut image),
            }
            // Permutations of agents leave the environment alone.
            let env = lay.env_len * width;
            if image[..env] != rep[..env] {
                continue;
            }
            self.sort_tracked(lay, width, &mut image, &mut sc.agents, &mut el.agents);
            if image == rep {
                el.value = v as u32;
                enc.copy_from_slice(&rep);
                sc.best = rep;
                sc.image = image;
                return;
            }
        }
        unreachable!("the representative is the sorted image of the state under one symmetry of values");
    }

    /// Sorts the agent blocks of each class of `enc`, noting where each agent's block goes.
    fn sort_tracked(&self, lay: &Layout, width: usize, enc: &mut [u8], sc: &mut AgentScratch, to: &mut Vec<u8>) {
        let b = lay.agent_stride * width;
        let base = lay.env_len * width;
        to.clear();
        to.extend((0..lay.n_agents).map(|a| a as u8));
        for c in &self.classes {
            let (lo, hi) = (base + c.start * b, base + c.end * b);
            let blocks = &mut enc[lo..hi];
            sc.order.clear();
            sc.order.extend(0..c.len() as u32);
            let blk = |i: u32| &blocks[i as usize * b..(i as usize + 1) * b];
            sc.order.sort_by(|&x, &y| cmp_blocks(blk(x), blk(y), width));
            sc.out.clear();
            for (k, &i) in sc.order.iter().enumerate() {
                sc.out.extend_from_slice(blk(i));
                to[c.start + i as usize] = (c.start + k) as u8;
            }
            blocks.copy_from_slice(&sc.out);
        }
    }
}

/// The encoding of ⊥ at `width`, as `read_slot` reads it.
fn bottom(width: usize) -> i32 {
    match width {
        1 => i8::MIN as i32,
        2 => i16::MIN as i32,
        _ => i32::MIN,
    }
}

/// The value of slot `m.to` of the image of `block` (`m` from a dense block map).
#[inline]
fn mapped(block: &[u8], m: &SlotMove, width: usize, bot: i32) -> i32 {
    let at = m.from as usize * width;
    let v = read_slot(&block[at..at + width]);
    match m.mirror {
        Some(c) if v != bot => c - v,
        _ => v,
    }
}

/// Compares the images of two blocks under their dense maps, slot by slot by value.
#[inline]
fn cmp_mapped(x: &[u8], mx: &[SlotMove], y: &[u8], my: &[SlotMove], width: usize, bot: i32) -> Ordering {
    for (p, q) in mx.iter().zip(my) {
        let (u, v) = (mapped(x, p, width, bot), mapped(y, q, width, bot));
        if u != v {
            return u.cmp(&v);
        }
    }
    Ordering::Equal
}

/// Compares the image of block `x` with block `y`, slot by slot by value.
#[inline]
fn cmp_mapped_plain(x: &[u8], mx: &[SlotMove], y: &[u8], width: usize, bot: i32) -> Ordering {
    for (i, p) in mx.iter().enumerate() {
        let (u, v) = (mapped(x, p, width, bot), read_slot(&y[i * width..(i + 1) * width]));
        if u != v {
            return u.cmp(&v);
        }
    }
    Ordering::Equal
}

/// `out` := `part` (of a packed state, or of a block) with `moves` (relative to `part`)
/// applied. Mirrored values stay within one byte (the analysis only mirrors such domains),
/// so they fit every width.
#[inline]
fn map_moves(moves: &[SlotMove], enc: &[u8], width: usize, out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(enc);
    if width == 1 {
        for m in moves {
            let x = enc[m.from as usize] as i8;
            out[m.to as usize] = match m.mirror {
                Some(c) if x != i8::MIN => (c as i8).wrapping_sub(x) as u8,
                _ => x as u8,
            };
        }
        return;
    }
    let bot = bottom(width);
    for m in moves {
        let (from, to) = (m.from as usize * width, m.to as usize * width);
        let src = &enc[from..from + width];
        match m.mirror {
            Some(c) => {
                let v = read_slot(src);
                let v = if v == bot { v } else { c - v };
                let dst = &mut out[to..to + width];
                match width {
                    1 => dst[0] = v as i8 as u8,
                    2 => dst.copy_from_slice(&(v as i16).to_le_bytes()),
                    _ => dst.copy_from_slice(&v.to_le_bytes()),
                }
            }
            None => out[to..to + width].copy_from_slice(src),
        }
    }
}

/// Compares two packed blocks slot by slot by value: from the first byte that differs, only
/// that slot is decoded.
#[inline]
fn cmp_blocks(a: &[u8], b: &[u8], width: usize) -> Ordering {
    match first_difference(a, b) {
        None => Ordering::Equal,
        Some(i) => {
            let s = i / width * width;
            read_slot(&a[s..s + width]).cmp(&read_slot(&b[s..s + width]))
        }
    }
}

/// The first index where `a` and `b` (of equal lengths) differ, 8 bytes at a time.
#[inline]
fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i + 8 <= a.len() {
        let x =
            u64::from_le_bytes(a[i..i + 8].try_into().unwrap()) ^ u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        if x != 0 {
            return Some(i + (x.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    (i..a.len()).find(|&k| a[k] != b[k])
}

/// Sorts the `b`-byte blocks of `blocks` in place.
fn insertion_sort(blocks: &mut [u8], b: usize, width: usize, tmp: &mut Vec<u8>) {
    let n = blocks.len() / b;
    for i in 1..n {
        if cmp_blocks(&blocks[(i - 1) * b..i * b], &blocks[i * b..(i + 1) * b], width) != Ordering::Greater {
            continue;
        }
        tmp.clear();
        tmp.extend_from_slice(&blocks[i * b..(i + 1) * b]);
        let mut j = i;
        while j > 0 && cmp_blocks(&blocks[(j - 1) * b..j * b], tmp, width) == Ordering::Greater {
            blocks.copy_within((j - 1) * b..j * b, j * b);
            j -= 1;
        }
        blocks[j * b..(j + 1) * b].copy_from_slice(tmp);
    }
}

fn sort_by_index(blocks: &mut [u8], b: usize, width: usize, sc: &mut AgentScratch) {
    let n = blocks.len() / b;
    sc.order.clear();
    sc.order.extend(0..n as u32);
    let blk = |i: u32| &blocks[i as usize * b..(i as usize + 1) * b];
    sc.order.sort_unstable_by(|&x, &y| cmp_blocks(blk(x), blk(y), width));
    sc.out.clear();
    for &i in &sc.order {
        sc.out.extend_from_slice(blk(i));
    }
    blocks.copy_from_slice(&sc.out);
}

/// A packed slot's value, ⊥ as the least value of the width (as encoded).
fn read_slot(b: &[u8]) -> i32 {
    match b.len() {
        1 => b[0] as i8 as i32,
        2 => i16::from_le_bytes([b[0], b[1]]) as i32,
        _ => i32::from_le_bytes([b[0], b[1], b[2], b[3]]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks of two 1-byte slots: sorted by signed value, ⊥ (0x80) first.
    #[test]
    fn both_sorts_order_blocks_by_signed_slot_values() {
        let vals: [[i8; 2]; 9] = [[5, 1], [3, -9], [0, 2], [3, 4], [-128, 0], [1, 1], [3, -9], [1, 0], [0, 7]];
        let blocks: Vec<u8> = vals.iter().flat_map(|p| p.map(|v| v as u8)).collect();
        let mut a = blocks.clone();
        insertion_sort(&mut a, 2, 1, &mut Vec::new());
        let mut b = blocks.clone();
        sort_by_index(&mut b, 2, 1, &mut AgentScratch::default());
        assert_eq!(a, b);
        let mut sorted = vals;
        sorted.sort();
        let want: Vec<u8> = sorted.iter().flat_map(|p| p.map(|v| v as u8)).collect();
        assert_eq!(a, want);
    }

    #[test]
    fn the_first_difference_is_found_in_every_position() {
        let a: Vec<u8> = (0..19).collect();
        assert_eq!(first_difference(&a, &a), None);
        for k in 0..a.len() {
            let mut b = a.clone();
            b[k] ^= 0x40;
            assert_eq!(first_difference(&a, &b), Some(k));
        }
    }

    /// A mirror about 4 (`v ↦ 4 - v`) and a move, at widths 1, 2 and 4: the same values
    /// as the `i32` map, ⊥ kept.
    #[test]
    fn packed_maps_agree_with_the_i32_map() {
        use crate::engine::state::{BOT, encode_into};
        use crate::engine::symmetry::ValueMap;
        let moves = [SlotMove { to: 0, from: 0, mirror: Some(4) }, SlotMove { to: 2, from: 1, mirror: None }];
        let h = ValueMap { moves: moves.to_vec(), text: String::new(), env: vec![], blocks: vec![] };
        for s in [[0, 7, -3], [BOT, -1, 5], [4, BOT, 0], [127 - 4, 2, 2]] {
            let mut want = [0; 3];
            h.apply(&s, &mut want);
            for width in [1, 2, 4] {
                let mut enc = vec![0u8; 3 * width];
                assert!(encode_into(&s, width, &mut enc));
                let mut got = Vec::new();
                map_moves(&h.moves, &enc, width, &mut got);
                let mut exp = vec![0u8; 3 * width];
                assert!(encode_into(&want, width, &mut exp));
                assert_eq!(got, exp, "{s:?} at width {width}");
            }
        }
    }

    /// Width 2 (little-endian): the order is by value, not by the bytes' order.
    #[test]
    fn wide_slots_compare_by_value() {
        let enc = |v: i16| v.to_le_bytes();
        assert_eq!(cmp_blocks(&enc(256), &enc(1), 2), Ordering::Greater);
        assert_eq!(cmp_blocks(&enc(-1), &enc(1), 2), Ordering::Less);
        assert_eq!(cmp_blocks(&enc(i16::MIN), &enc(-300), 2), Ordering::Less);
    }
}
