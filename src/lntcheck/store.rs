//! The states of a program's LTS, stored compactly (`docs/lntcheck.md`, "State store"): each
//! leaf's local states interned once and numbered per leaf, a system state one row of leaf-state
//! numbers in a single flat vector, and open-addressing indexes of numbers (no key stored twice,
//! no allocation per system state).

use rustc_hash::FxHasher;
use std::hash::{Hash, Hasher};

/// An empty slot of an index.
const EMPTY: u32 = u32::MAX;

/// An open-addressing hash index of numbers `0..len`, whose keys live elsewhere: probing
/// compares through `same`, growing rehashes through `hash_of`.
#[derive(Default)]
struct Index {
    slots: Vec<u32>,
    len: usize,
}

impl Index {
    /// The number whose key hashes to `h` and satisfies `same`, or `fresh` inserted.
    fn find_or_insert(
        &mut self,
        h: u64,
        same: impl Fn(u32) -> bool,
        fresh: u32,
        hash_of: impl Fn(u32) -> u64,
    ) -> (u32, bool) {
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            self.grow(&hash_of);
        }
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            match self.slots[i] {
                EMPTY => {
                    self.slots[i] = fresh;
                    self.len += 1;
                    return (fresh, true);
                }
                x if same(x) => return (x, false),
                _ => i = (i + 1) & mask,
            }
        }
    }

    fn grow(&mut self, hash_of: &impl Fn(u32) -> u64) {
        let cap = (self.slots.len() * 2).max(16);
        let mut slots = vec![EMPTY; cap];
        let mask = cap - 1;
        for &x in self.slots.iter().filter(|&&x| x != EMPTY) {
            let mut i = hash_of(x) as usize & mask;
            while slots[i] != EMPTY {
                i = (i + 1) & mask;
            }
            slots[i] = x;
        }
        self.slots = slots;
    }

    /// The bytes the next insertion would allocate at once (when the index is about to grow).
    fn growth_bytes(&self) -> u64 {
        if (self.len + 1) * 4 > self.slots.len() * 3 { (self.slots.len().max(8) * 2 * 4) as u64 } else { 0 }
    }
}

fn hash_of<T: Hash + ?Sized>(x: &T) -> u64 {
    let mut h = FxHasher::default();
    x.hash(&mut h);
    // The low bits pick the slot: mix the high ones in.
    let v = h.finish();
    v ^ (v >> 29)
}

/// One leaf's local states, each stored once, numbered in the order met.
struct LeafStates<L> {
    states: Vec<L>,
    index: Index,
}

impl<L: Hash + Eq + Clone> LeafStates<L> {
    fn number(&mut self, s: &L) -> u32 {
        let fresh = self.states.len() as u32;
        let states = &self.states;
        let (id, new) = self.index.find_or_insert(
            hash_of(s),
            |x| states[x as usize] == *s,
            fresh,
            |x| hash_of(&states[x as usize]),
        );
        if new {
            self.states.push(s.clone());
        }
        id
    }
}

/// The system states met so far, numbered in the order met (0 the first).
pub struct StateStore<L> {
    leaves: Vec<LeafStates<L>>,
    /// Row `i` (`width` numbers from `i * width`): state `i`'s leaf-state numbers.
    rows: Vec<u32>,
    width: usize,
    index: Index,
    len: usize,
    row: Vec<u32>,
}

impl<L: Hash + Eq + Clone> StateStore<L> {
    /// A store holding `initial` as state 0.
    pub(crate) fn new(initial: &[L]) -> StateStore<L> {
        let width = initial.len();
        let mut s = StateStore {
            leaves: (0..width).map(|_| LeafStates { states: vec![], index: Index::default() }).collect(),
            rows: vec![],
            width,
            index: Index::default(),
            len: 0,
            row: Vec::with_capacity(width),
        };
        s.number(initial);
        s
    }

    /// The number of `st`, and whether it was new.
    pub(crate) fn number(&mut self, st: &[L]) -> (u32, bool) {
        debug_assert_eq!(st.len(), self.width);
        self.row.clear();
        for (k, l) in st.iter().enumerate() {
            let id = self.leaves[k].number(l);
            self.row.push(id);
        }
        let (w, rows, row) = (self.width, &self.rows, &self.row);
        let at = |x: u32| &rows[x as usize * w..(x as usize + 1) * w];
        let (id, new) =
            self.index.find_or_insert(hash_of(&row[..]), |x| at(x) == &row[..], self.len as u32, |x| hash_of(at(x)));
        if new {
            self.rows.extend_from_slice(&self.row);
            self.len += 1;
        }
        (id, new)
    }

    /// State `i` (a copy of its leaves' states).
    pub(crate) fn get(&self, i: u32) -> Vec<L> {
        let w = self.width;
        self.rows[i as usize * w..(i as usize + 1) * w]
            .iter()
            .enumerate()
            .map(|(k, &l)| self.leaves[k].states[l as usize].clone())
            .collect()
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The bytes the next new state may allocate at once (the row vector or an index about to
    /// double): admitted against the memory bound first. A leaf state met for the first time
    /// adds a few hundred bytes at most, left out.
    pub(crate) fn growth_bytes(&self) -> u64 {
        let mut b = self.index.growth_bytes();
        if self.rows.len() + self.width > self.rows.capacity() {
            b += (self.rows.capacity().max(self.width) * 2 * 4) as u64;
        }
        b
    }
}
