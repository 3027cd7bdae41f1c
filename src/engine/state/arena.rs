//! The arena of packed states: fixed-size blocks, appended to, never moved.

use super::*;

/// The packed states, in id order, in fixed-size blocks.
pub(super) struct Arena {
    pub(super) sb: usize,
    pub(super) blocks: Vec<SystemBlock>,
}

impl Arena {
    #[inline]
    pub(super) fn get(&self, i: u32) -> &[u8] {
        let b = &self.blocks[(i >> BLOCK_BITS) as usize];
        let o = (i as usize & (BLOCK - 1)) * self.sb;
        &b[o..o + self.sb]
    }
    /// Appends a state. Every block but the last holds exactly `BLOCK` states. A block's
    /// whole capacity is reserved at once, so it is never moved; only the pages written are
    /// backed by memory, so a small run does not pay for a whole block. The first
    /// `SMALL_PAGES` bytes of a block keep small pages (`SystemBlock`), so that a small run
    /// does not take a whole huge page either.
    pub(super) fn push(&mut self, s: &[u8]) {
        let full = BLOCK * self.sb;
        match self.blocks.last_mut() {
            Some(b) if b.len() < full => b.extend_from_slice(s),
            _ => {
                let mut b = self.new_block();
                b.extend_from_slice(s);
                self.blocks.push(b);
            }
        }
    }
    /// An empty block with room for `BLOCK` states, advised for huge pages past its start.
    pub(super) fn new_block(&self) -> SystemBlock {
        let full = BLOCK * self.sb;
        let b = SystemBlock::with_capacity(full);
        if full > SMALL_PAGES {
            hugepages::advise(b.as_ptr().wrapping_add(SMALL_PAGES), full - SMALL_PAGES);
        }
        b
    }
    /// The first block with room (every block before it is full).
    pub(super) fn open_block(&self) -> usize {
        let full = BLOCK * self.sb;
        self.blocks.iter().position(|b| b.len() < full).unwrap_or(self.blocks.len())
    }
    /// Room for the next `n` states (adding blocks as needed), unwritten, in pieces of at
    /// most `piece` states that do not cross blocks; `commit(n)` once they are all written.
    pub(super) fn reserve_pieces(&mut self, n: usize, piece: usize) -> Vec<&mut [MaybeUninit<u8>]> {
        let (sb, full) = (self.sb, BLOCK * self.sb);
        let open = self.open_block();
        let mut room: usize = self.blocks[open..].iter().map(|b| (full - b.len()) / sb).sum();
        while room < n {
            let b = self.new_block();
            self.blocks.push(b);
            room += BLOCK;
        }
        let mut left = n;
        let mut out = Vec::new();
        for b in &mut self.blocks[open..] {
            let k = ((full - b.len()) / sb).min(left);
            out.extend(b.spare_capacity_mut()[..k * sb].chunks_mut(piece * sb));
            left -= k;
        }
        out
    }
    /// Marks the next `n` states, all written through `reserve_pieces`, as stored.
    pub(super) fn commit(&mut self, mut n: usize) {
        let (sb, full) = (self.sb, BLOCK * self.sb);
        let open = self.open_block();
        for b in &mut self.blocks[open..] {
            let k = ((full - b.len()) / sb).min(n);
            // SAFETY: these bytes lie within the capacity, and were all written (the
            // caller's contract, from `reserve_pieces`).
            unsafe { b.grow_len(k * sb) };
            n -= k;
        }
        debug_assert_eq!(n, 0);
    }
    /// Memory in use: whole blocks, and the written part of the last one, up to the next
    /// page (small or huge).
    pub(super) fn bytes(&self) -> usize {
        match self.blocks.split_last() {
            None => 0,
            Some((last, full)) => {
                let page = if last.len() <= SMALL_PAGES { 4 << 10 } else { 2 << 20 };
                full.iter().map(|b| b.capacity()).sum::<usize>()
                    + last.len().next_multiple_of(page).min(last.capacity())
            }
        }
    }
}
