//! State encoding: a flat vector of `i32` slots with a fixed layout, and a hash-indexed
//! arena of states.
//!
//! Layout of one state (see `Layout`):
//! `[env (env_len)] [agent 0] … [agent n-1] [turn (only under --fair)]`, each agent being
//! `[attrs (attr_len)] [stigmergic copies (stig_len)] [rank per tuple] [Zp mask] [Zc mask] [ctl]`.
//! ⊥ is `BOT` (`i32::MIN`, outside `arith::MIN_VALUE..=MAX_VALUE`). Slots a type does not use
//! (attributes of other types, stigmergies it does not hold) stay ⊥; ranks of tuples an agent
//! does not hold stay 0. Timestamps are stored as dense ranks among the holders
//! (docs/semantics.md, "Timestamps as dense ranks").

use super::hugepages;
use super::par::Workers;
use super::spin::SpinLock;
use super::sysalloc::SystemBlock;
use crate::model::Model;
use std::mem::MaybeUninit;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering, fence};

mod arena;
mod codec;
mod encoding;
mod layout;

use arena::*;
use codec::{Codec, SlotRanges};
use encoding::*;
pub use encoding::{encode_into, encode_slot, hash_bytes, width_needed, width_of};
pub use layout::{BOT, Layout};

/// An empty index entry.
const EMPTY: u64 = u64::MAX;
/// Entries with this bit (in the low 32 bits) are states new in the current batch (index
/// into the shard's batch list); others are global ids.
const NEW: u32 = 1 << 31;
/// Shards of the index (as a power of two) when several threads insert: enough that two
/// threads rarely want the same lock at once.
const SHARD_BITS: u32 = 6;
/// Shards for a single thread, which needs no more than one lock: fewer, larger tables,
/// which get huge pages sooner (leader n=9, one thread: −4 % exploration time).
const SHARD_BITS_ONE_THREAD: u32 = 3;
/// States per arena block (the arena grows by whole blocks: no reallocation copies). Blocks
/// are large (megabytes) so that most of each can be backed by huge pages (`hugepages`).
const BLOCK_BITS: u32 = 20;
const BLOCK: usize = 1 << BLOCK_BITS;
/// Bytes at the start of each arena block left to small pages (`Arena::push`).
const SMALL_PAGES: usize = 4 << 20;

/// An index entry: the low 32 bits of the hash (the tag) above the state reference.
/// The home slot depends on the tag only (`home`), so growing never rehashes the packed
/// bytes.
#[inline]
fn entry(h: u64, e: u32) -> u64 {
    (h << 32) | e as u64
}
#[inline]
fn tag_of(x: u64) -> u32 {
    (x >> 32) as u32
}

/// The home slot of `tag` in a table of `cap` slots: `tag × cap / 2^32`, which works for any
/// capacity, so tables can grow by less than doubling.
#[inline]
fn home(tag: u32, cap: usize) -> usize {
    ((tag as u64 * cap as u64) >> 32) as usize
}

/// The slot after `p` in linear probing (wrapping around).
#[inline]
fn next_slot(p: usize, cap: usize) -> usize {
    if p + 1 == cap { 0 } else { p + 1 }
}

/// The first empty slot at or after `tag`'s home slot (for placing an entry known to be
/// absent).
#[inline]
fn free_slot(table: &[AtomicU64], tag: u32) -> usize {
    let cap = table.len();
    let mut p = home(tag, cap);
    while table[p].load(Ordering::Relaxed) != EMPTY {
        p = next_slot(p, cap);
    }
    p
}

/// Equality of two packed states of the same length (inlined, 8 bytes at a time).
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    debug_assert_eq!(a.len(), b.len());
    let (mut ca, mut cb) = (a.chunks_exact(8), b.chunks_exact(8));
    for (x, y) in (&mut ca).zip(&mut cb) {
        if u64::from_ne_bytes(x.try_into().unwrap()) != u64::from_ne_bytes(y.try_into().unwrap()) {
            return false;
        }
    }
    if a.len().is_multiple_of(8) {
        return true;
    }
    if a.len() >= 8 {
        // The last 8 bytes (overlapping the chunks already compared): no `memcmp` call.
        let n = a.len() - 8;
        return u64::from_ne_bytes(a[n..].try_into().unwrap()) == u64::from_ne_bytes(b[n..].try_into().unwrap());
    }
    load_le(a) == load_le(b)
}

/// Hints the CPU to fetch the cache line at `p` (no effect where unsupported; never faults).
#[inline(always)]
fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint; it never faults, whatever the address.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// One shard of the hash index: open addressing with linear probing over the states whose
/// hash has the shard's top bits. During a batch it also holds the batch's new states.
#[derive(Default)]
pub(crate) struct Shard {
    /// Entries are atomic because `ShardCell::find_stored` reads them without the lock
    /// (every access is `Relaxed`: plain loads and stores on x86-64).
    table: Vec<AtomicU64>,
    used: usize,
    new_data: Vec<u8>,
    /// Smallest discovery key of each new state.
    new_key: Vec<u64>,
    /// Table position of each new state.
    new_pos: Vec<u32>,
}

/// A shard behind its lock, with the address and size of its table readable without the
/// lock, for prefetching and for `find_stored`. They are alone on their cache line: every
/// lock and insertion writes the shard's lines, and a reader on another core would wait for
/// the line to come back. `table_version` is odd while they change (a sequence lock), so
/// that a reader never pairs one table's address with another's size.
#[repr(C, align(64))]
struct ShardCell {
    table_ptr: AtomicUsize,
    table_len: AtomicUsize,
    table_version: AtomicUsize,
    shard: OwnLine<SpinLock<Shard>>,
}

/// A value starting on a cache line of its own.
#[repr(align(64))]
struct OwnLine<T>(T);

impl<T> std::ops::Deref for OwnLine<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::ops::DerefMut for OwnLine<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

impl ShardCell {
    fn new(shard: Shard) -> ShardCell {
        let c = ShardCell {
            shard: OwnLine(SpinLock::new(shard)),
            table_ptr: AtomicUsize::new(0),
            table_len: AtomicUsize::new(0),
            table_version: AtomicUsize::new(0),
        };
        c.publish(&c.shard.lock());
        c
    }
    /// Makes `s`'s table the one lookups without the lock read. Called with the shard
    /// locked (or owned), so there is one writer at a time.
    #[inline]
    fn publish(&self, s: &Shard) {
        let v = self.table_version.load(Ordering::Relaxed);
        self.table_version.store(v + 1, Ordering::Relaxed);
        fence(Ordering::Release);
        self.table_ptr.store(s.table.as_ptr() as usize, Ordering::Relaxed);
        self.table_len.store(s.table.len(), Ordering::Relaxed);
        self.table_version.store(v + 2, Ordering::Release);
    }

    /// The id of `enc` (hash `h`) if it was stored by an earlier batch, found without the
    /// lock; `None` when it is not there, is new in this batch, or the table is being
    /// replaced (the caller then takes the locked path, which decides). Most lookups of an
    /// exploration find a state stored earlier (leader n=7: 79 %): they neither write the
    /// lock's line nor wait for it.
    ///
    /// Sound because, during a batch, the entries of stored states and their packed bytes
    /// never change (they are written when a batch is finished, with the store owned), a
    /// replaced table stays allocated until the batch ends (`StateStore::retired`), and an entry
    /// is written with one atomic store: a stale table, or a read racing an insertion, can
    /// only miss a state, never find a wrong one.
    #[inline]
    fn find_stored(&self, arena: &Arena, enc: &[u8], h: u64) -> Option<u32> {
        find_stored_in(self.published()?, arena, enc, h)
    }

    /// Prefetches the packed bytes of the state stored by an earlier batch that `h` most
    /// likely refers to, without the lock (as `find_stored`): taking it for a prefetch would
    /// move the lock's line between the cores for every successor.
    #[inline]
    fn prefetch_stored(&self, arena: &Arena, h: u64) {
        let Some(table) = self.published() else { return };
        let (cap, tag) = (table.len(), h as u32);
        let mut p = home(tag, cap);
        loop {
            let x = table[p].load(Ordering::Relaxed);
            if x == EMPTY {
                return;
            }
            if tag_of(x) == tag {
                let e = x as u32;
                if e & NEW == 0 {
                    prefetch(arena.get(e).as_ptr());
                }
                return;
            }
            p = next_slot(p, cap);
        }
    }

    /// The table lookups without the lock read: `None` while it is being replaced, or while
    /// it is too small to be worth it.
    #[inline]
    fn published(&self) -> Option<&[AtomicU64]> {
        let v = self.table_version.load(Ordering::Acquire);
        let ptr = self.table_ptr.load(Ordering::Relaxed) as *const AtomicU64;
        let cap = self.table_len.load(Ordering::Relaxed);
        fence(Ordering::Acquire);
        if v & 1 != 0 || self.table_version.load(Ordering::Relaxed) != v || cap < LOCK_FREE_MIN_SLOTS {
            return None;
        }
        // SAFETY: `ptr` and `cap` were published together (the version did not change
        // around their reads) for a table that is the shard's current one or, being that
        // large, one retired during this batch; both stay allocated until the batch ends,
        // and lookups only happen during batches.
        Some(unsafe { std::slice::from_raw_parts(ptr, cap) })
    }
}

/// The id of `enc` (hash `h`) among the states stored by earlier batches, in `table`.
/// `None` also at the first entry of this batch with `h`'s tag: most likely `enc` itself,
/// which only the locked path can compare and update, and searching on to an empty slot
/// would cost an unsuccessful search's probes.
fn find_stored_in(table: &[AtomicU64], arena: &Arena, enc: &[u8], h: u64) -> Option<u32> {
    let cap = table.len();
    let tag = h as u32;
    let mut p = home(tag, cap);
    loop {
        let x = table[p].load(Ordering::Relaxed);
        if x == EMPTY {
            return None;
        }
        if tag_of(x) == tag {
            let e = x as u32;
            if e & NEW != 0 {
                return None;
            }
            if same_bytes(arena.get(e), enc) {
                return Some(e);
            }
        }
        p = next_slot(p, cap);
    }
}

/// The shard grows when more than `LOAD_NUM / LOAD_DEN` of its slots are used (`grow`).
/// Growing by a fifth keeps the load between 2/3 and 0.8, so the index costs 10–12 bytes per
/// state (8-byte entries); but every entry is then moved about five times over a run (cheap:
/// the entries keep their order, so a move is a streaming copy). Larger states can afford a
/// lower load, hence fewer moves (`growth_twentieths`). Linear probing is still short at 0.8
/// because most probes stop at a mismatching tag without reading the state.
const LOAD_NUM: usize = 4;
const LOAD_DEN: usize = 5;
/// Slots of a shard's table at first.
const MIN_SLOTS: usize = 4;

/// By how many twentieths a table grows, for states of `sb` bytes: at most 12 bytes of index
/// per state below 19 bytes (a fifth), and otherwise the largest growth whose lowest load
/// (0.8 / growth) keeps index and state within twice the state, with 4 bytes per state to
/// spare for the arena's last block and the batch buffers. Doubling costs up to 20 bytes per
/// state, growing by half 15.
fn growth_twentieths(sb: usize) -> usize {
    if sb >= 24 {
        20
    } else if sb >= 19 {
        10
    } else {
        4
    }
}

impl Shard {
    fn with_capacity(cap: usize) -> Shard {
        Shard { table: empty_table(cap), ..Default::default() }
    }

    /// Capacity for `n` entries right after a rebuild: the load right after growing by a
    /// fifth (2/3), so that the index stays within 12 bytes per state.
    fn capacity_for(n: usize) -> usize {
        (n * LOAD_DEN / LOAD_NUM * 6 / 5 + 2).max(MIN_SLOTS)
    }

    #[inline]
    fn bytes_of<'a>(&'a self, arena: &'a Arena, e: u32) -> &'a [u8] {
        if e & NEW != 0 {
            let i = (e & !NEW) as usize * arena.sb;
            &self.new_data[i..i + arena.sb]
        } else {
            arena.get(e)
        }
    }

    /// Looks `enc` up, adding it as a new state with discovery key `key` when absent, or
    /// lowering the key of a new state. Returns the entry (a global id, or `NEW | index`).
    /// There must be room for one more entry (`grow_if_full`).
    #[inline]
    fn insert(&mut self, arena: &Arena, enc: &[u8], h: u64, key: u64) -> u32 {
        let cap = self.table.len();
        let mut p = home(h as u32, cap);
        loop {
            let x = self.table[p].load(Ordering::Relaxed);
            if x == EMPTY {
                let idx = self.new_key.len() as u32;
                let e = NEW | idx;
                self.table[p].store(entry(h, e), Ordering::Relaxed);
                self.new_data.extend_from_slice(enc);
                self.new_key.push(key);
                self.new_pos.push(p as u32);
                self.used += 1;
                return e;
            }
            let e = x as u32;
            if tag_of(x) == h as u32 && same_bytes(self.bytes_of(arena, e), enc) {
                if e & NEW != 0 {
                    // Written only when lowered: an unchanged line stays shared between cores.
                    let k = &mut self.new_key[(e & !NEW) as usize];
                    if key < *k {
                        *k = key;
                    }
                }
                return e;
            }
            p = next_slot(p, cap);
        }
    }

    /// Grows the table by `twentieths` twentieths; entries move by their tag (no rehashing of
    /// the packed bytes). Returns the table replaced.
    fn grow(&mut self, twentieths: usize) -> Vec<AtomicU64> {
        let cap = self.table.len() + (self.table.len() * twentieths / 20).max(MIN_SLOTS);
        let table = empty_table(cap);
        for x in &self.table {
            let x = x.load(Ordering::Relaxed);
            if x == EMPTY {
                continue;
            }
            let p = free_slot(&table, tag_of(x));
            table[p].store(x, Ordering::Relaxed);
            let e = x as u32;
            if e & NEW != 0 {
                self.new_pos[(e & !NEW) as usize] = p as u32;
            }
        }
        std::mem::replace(&mut self.table, table)
    }

    /// Grows the table if one more entry would exceed the load; returns the table replaced.
    #[inline]
    fn grow_if_full(&mut self, sb: usize) -> Option<Vec<AtomicU64>> {
        ((self.used + 1) * LOAD_DEN > self.table.len() * LOAD_NUM).then(|| self.grow(growth_twentieths(sb)))
    }
}

/// Tables with fewer slots are only read under the lock (`ShardCell::find_stored`), so they
/// can be freed as soon as they are replaced. A small run then keeps no replaced tables, and
/// it gains little from lookups without the lock: holding dozens of small tables until the
/// end of a batch made leader n=5 take one more 2 MiB page (about 0.2 ms).
const LOCK_FREE_MIN_SLOTS: usize = 256;

/// A table of `cap` empty entries.
fn empty_table(cap: usize) -> Vec<AtomicU64> {
    hugepages::vec_of(cap, || AtomicU64::new(EMPTY))
}

/// Batches whose new states take fewer bytes have their arena pages faulted in by the
/// copy itself (handing the populating to a worker costs a job's start-up).
const POPULATE_MIN_BYTES: usize = 32 << 10;

/// How many states ahead `finish_batch` prefetches.
const FINISH_AHEAD: usize = 8;
/// States per piece of the arena copy in `finish_batch_on`.
const FINISH_PIECE: usize = 4096;
/// Batches with fewer new states are finished on one thread.
const FINISH_PARALLEL_MIN: usize = 8192;

/// Sorts new states by discovery key. A key is `parent << 32 | successor index`, and a
/// batch's parents are consecutive, so the states are first distributed by parent (counting
/// sort, linear) and only states of the same parent are compared.
fn sort_by_key_parent(all: &mut Vec<(u64, u32, u32)>) {
    let n = all.len();
    if n == 0 {
        return;
    }
    let (lo, hi) = all.iter().fold((u64::MAX, 0), |(lo, hi), x| ((x.0 >> 32).min(lo), (x.0 >> 32).max(hi)));
    let span = (hi - lo + 1) as usize;
    if span > 2 * n + 1024 {
        all.sort_unstable_by_key(|x| x.0);
        return;
    }
    // `end[b]`: after the placement loop, the end of parent `lo + b`'s states.
    let mut end = vec![0u32; span + 1];
    for x in all.iter() {
        end[((x.0 >> 32) - lo) as usize + 1] += 1;
    }
    for b in 1..=span {
        end[b] += end[b - 1];
    }
    let mut sorted = vec![(0u64, 0u32, 0u32); n];
    for &x in all.iter() {
        let b = ((x.0 >> 32) - lo) as usize;
        sorted[end[b] as usize] = x;
        end[b] += 1;
    }
    let mut start = 0;
    for &e in &end[..span] {
        let e = e as usize;
        if e - start > 1 {
            sorted[start..e].sort_unstable_by_key(|x| x.0);
        }
        start = e;
    }
    *all = sorted;
}

/// The set of distinct states: a packed arena (ids in insertion order) and a hash index
/// sharded by the top bits of the hash, each shard behind its own lock so that several
/// threads can insert at once. Insertion is two-phase: `insert_shared` (any thread) records
/// states new to the batch with their smallest discovery key; `finish_batch` (one thread)
/// then numbers them in key order, which makes ids independent of the thread schedule.
/// The stepper hands states over in the working form (every slot in `width` bytes, 1, 2
/// or 4, `encoding.rs`). The store keeps them in one of two forms: the working form itself
/// (*fast*: nothing to code), or coded by `codec` (*compact*, `codec.rs`), each slot in a
/// bit field as wide as its values need. A store starts fast or compact and may turn compact
/// once (`compact`). `widen` changes the working width, `refit` the compact fields (each
/// re-encodes what the change touches).
pub struct StateStore {
    stride: usize,
    width: usize,
    /// Whether states are stored coded by `codec` (otherwise in the working form).
    compact: bool,
    codec: Codec,
    /// How many times the fields were widened (`refit`).
    refits: u32,
    arena: Arena,
    count: usize,
    /// The index has `2^shard_bits` shards, chosen by the top bits of the hash.
    shard_bits: u32,
    shards: Vec<ShardCell>,
    /// Tables replaced during the current batch: a lookup without the lock may still be
    /// reading one (`ShardCell::find_stored`), so they are freed when the batch ends (only
    /// those with at least `LOCK_FREE_MIN_SLOTS` slots: the others are never read so).
    retired: SpinLock<Vec<Vec<AtomicU64>>>,
}

/// The form a store keeps its states in (`--store`). The form changes no result: ids follow
/// discovery keys, whatever the bytes stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StorePolicy {
    /// Fast, turning compact once no successor lists are kept and the process's resident
    /// memory passes half of the memory bound (`AUTO_SHARE`).
    #[default]
    Auto,
    /// The working form, whatever it costs (1, 2 or 4 bytes per slot).
    Fast,
    /// Compact from the first state: each slot in the bits its values need.
    Compact,
    /// Fast, turning compact once more than this many states are stored (the tests' way to
    /// switch at a chosen point).
    CompactPast(u64),
}

/// The share of the memory bound a fast store may let the process take (1 / `AUTO_SHARE`),
/// as the successor lists may (`edges::AUTO_SHARE`): coding the compact form makes the
/// exploration a quarter to a half slower, so it waits until memory is short, and the
/// lists, which cost more, go first.
const AUTO_SHARE: u64 = 2;

impl StorePolicy {
    /// Whether a fast store holding `states` states turns compact now; `edges_kept`: the
    /// exploration still keeps successor lists.
    pub(crate) fn compact_now(self, states: usize, edges_kept: bool, limits: &crate::limits::Limits) -> bool {
        match self {
            StorePolicy::Fast | StorePolicy::Compact => false,
            StorePolicy::CompactPast(n) => states as u64 > n,
            StorePolicy::Auto => {
                !edges_kept && limits.memory().is_some_and(|(b, _)| crate::limits::resident_bytes() > b / AUTO_SHARE)
            }
        }
    }
}

/// What `finish_batch` returns: the batch's discovery keys in id order, and per shard the
/// id of each of its new states.
pub struct BatchIds {
    pub(crate) keys: Vec<u64>,
    maps: Vec<Vec<AtomicU32>>,
}

impl BatchIds {
    /// The global id of an entry returned by `insert_shared`.
    #[inline]
    pub(crate) fn resolve(&self, r: u64) -> u32 {
        let e = r as u32;
        if e & NEW != 0 { self.maps[(r >> 32) as usize][(e & !NEW) as usize].load(Ordering::Relaxed) } else { e }
    }
}

impl StateStore {
    pub(crate) fn new(stride: usize) -> StateStore {
        StateStore::with_shard_bits(stride, SHARD_BITS)
    }

    /// A store for `threads` inserting threads. The number of shards only affects speed:
    /// ids follow discovery keys, whatever the shard of a state.
    pub(crate) fn for_threads(stride: usize, threads: usize) -> StateStore {
        StateStore::with_shard_bits(stride, if threads <= 1 { SHARD_BITS_ONE_THREAD } else { SHARD_BITS })
    }

    /// A store for `threads` inserting threads that keeps its states compact from the first
    /// one.
    pub(crate) fn compact_for_threads(stride: usize, threads: usize) -> StateStore {
        let mut s = StateStore::for_threads(stride, threads);
        s.compact = true;
        s.arena.sb = s.codec.bytes();
        s
    }

    fn with_shard_bits(stride: usize, shard_bits: u32) -> StateStore {
        StateStore {
            stride,
            width: 1,
            compact: false,
            arena: Arena { sb: stride, blocks: Vec::new() },
            codec: Codec::new(stride),
            refits: 0,
            count: 0,
            shard_bits,
            shards: (0..1 << shard_bits).map(|_| ShardCell::new(Shard::with_capacity(MIN_SLOTS))).collect(),
            retired: SpinLock::new(Vec::new()),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.count
    }

    /// The address space one arena block reserves for states of `stride` slots of `width`
    /// bytes (reserved at once, backed by memory only as it is written): a bound on the
    /// coded states' block, whose fields hold no more than the working form's slots.
    pub(crate) fn block_bytes(stride: usize, width: usize) -> u64 {
        (stride as u64).saturating_mul(width as u64).saturating_mul(BLOCK as u64)
    }

    /// Slot width of the working form in bytes (1, 2 or 4).
    pub fn width(&self) -> usize {
        self.width
    }

    /// Bytes of a state in the working form (`width()` bytes per slot).
    pub(crate) fn work_bytes(&self) -> usize {
        self.stride * self.width
    }

    /// Bytes per stored state in the arena.
    pub fn state_bytes(&self) -> usize {
        self.arena.sb
    }

    /// Slots per state.
    pub(crate) fn stride(&self) -> usize {
        self.stride
    }

    /// Whether the states are stored compact (coded), not in the working form.
    #[inline]
    pub fn is_compact(&self) -> bool {
        self.compact
    }

    /// Each slot's field width in the stored form, in bits.
    #[cfg(test)]
    pub(crate) fn slot_bits(&self) -> Vec<u8> {
        self.codec.bits().collect()
    }

    /// How many times the fields were widened so far.
    #[cfg(any(test, feature = "test-support"))]
    pub fn refits(&self) -> u32 {
        self.refits
    }

    /// The stored bytes of state `i`.
    #[inline]
    pub fn packed(&self, i: u32) -> &[u8] {
        self.arena.get(i)
    }

    /// State `i`, decoded into `out`.
    #[inline]
    pub fn get_into(&self, i: u32, out: &mut Vec<i32>) {
        if self.compact {
            self.codec.decode(self.arena.get(i), out);
        } else {
            decode(self.arena.get(i), self.width, out);
        }
    }

    /// State `i`, decoded into `out`, and in the working form into `work`.
    #[inline]
    pub(crate) fn get_work(&self, i: u32, out: &mut Vec<i32>, work: &mut Vec<u8>) {
        self.get_into(i, out);
        if !self.compact {
            work.clear();
            work.extend_from_slice(self.arena.get(i));
            return;
        }
        work.resize(self.work_bytes(), 0);
        let fits = encode_into(out, self.width, work);
        debug_assert!(fits, "a stored state fits the working width");
    }

    /// Codes the working form `work` into `out` (`state_bytes()` long); false when a value
    /// does not fit its field (`refit`).
    #[inline]
    pub(crate) fn pack(&self, work: &[u8], out: &mut [u8]) -> bool {
        if !self.compact {
            out.copy_from_slice(work);
            return true;
        }
        match self.width {
            1 => self.codec.pack::<1>(work, out),
            2 => self.codec.pack::<2>(work, out),
            _ => self.codec.pack::<4>(work, out),
        }
    }

    /// `pack` for a successor `work` of the stored state `base` (whose working form is
    /// `base_work`): only the slots that differ are coded again.
    #[inline]
    pub(crate) fn pack_from(&self, base_work: &[u8], base: u32, work: &[u8], out: &mut [u8]) -> bool {
        if !self.compact {
            out.copy_from_slice(work);
            return true;
        }
        let base = self.arena.get(base);
        match self.width {
            1 => self.codec.pack_from::<1>(base_work, base, work, out),
            2 => self.codec.pack_from::<2>(base_work, base, work, out),
            _ => self.codec.pack_from::<4>(base_work, base, work, out),
        }
    }

    /// The working form `work`, decoded (for a state that does not fit the fields).
    pub(crate) fn unwork(&self, work: &[u8]) -> Vec<i32> {
        let mut s = Vec::with_capacity(self.stride);
        decode(work, self.width, &mut s);
        s
    }

    /// Widens the compact fields so that every state of `states` fits, and re-encodes every
    /// stored state (drops the current batch). The first states of a store set its fields
    /// exactly.
    pub(crate) fn refit(&mut self, states: &[Vec<i32>]) {
        debug_assert!(self.compact, "only compact stores have fields to widen");
        let Some(first) = states.first() else { return };
        let mut codec = if self.count == 0 { Codec::exact(first) } else { self.codec.clone() };
        for s in states {
            codec = codec.widened(s);
        }
        self.recode(codec);
        self.refits += 1;
    }

    /// Turns a fast store compact: fields that hold exactly the values of the stored states,
    /// every state re-encoded (drops the current batch). Ids, and so every result, stay.
    pub(crate) fn compact(&mut self) {
        if self.compact {
            return;
        }
        let mut ranges = SlotRanges::new(self.stride);
        let mut dec = Vec::new();
        for id in 0..self.count as u32 {
            self.get_into(id, &mut dec);
            ranges.add(&dec);
        }
        let codec = if self.count == 0 { Codec::new(self.stride) } else { ranges.codec() };
        self.recode(codec);
        self.compact = true;
    }

    /// Stores every state in the compact form of `codec` (which holds them all), then
    /// rebuilds the index. Each block of the old arena is freed as soon as it is re-encoded,
    /// so the memory held grows by at most a block of the new form.
    fn recode(&mut self, codec: Codec) {
        let old = std::mem::replace(&mut self.arena, Arena { sb: codec.bytes(), blocks: Vec::new() });
        let (mut dec, mut enc) = (Vec::new(), vec![0u8; codec.bytes()]);
        for block in old.blocks {
            for b in block.chunks_exact(old.sb) {
                if self.compact {
                    self.codec.decode(b, &mut dec);
                } else {
                    decode(b, self.width, &mut dec);
                }
                let fits = codec.encode(&dec, &mut enc);
                debug_assert!(fits, "the new fields hold every stored state");
                self.arena.push(&enc);
            }
        }
        self.codec = codec;
        self.rebuild();
    }

    /// State `i`.
    pub fn get(&self, i: u32) -> Vec<i32> {
        let mut v = Vec::with_capacity(self.stride);
        self.get_into(i, &mut v);
        v
    }

    /// Bytes used by the arena and the index.
    pub fn bytes(&self) -> usize {
        self.arena.bytes()
            + self
                .shards
                .iter()
                .map(|s| {
                    let s = s.shard.lock();
                    s.table.len() * 8 + s.new_data.capacity() + s.new_key.capacity() * 8 + s.new_pos.capacity() * 4
                })
                .sum::<usize>()
            + self.retired.lock().iter().map(|t| t.len() * 8).sum::<usize>()
    }

    #[inline]
    fn shard_of(&self, h: u64) -> usize {
        (h >> (64 - self.shard_bits)) as usize
    }

    #[cfg(test)]
    pub(crate) fn find(&self, s: &[i32]) -> Option<u32> {
        let mut enc = vec![0u8; self.state_bytes()];
        if !self.encode(s, &mut enc) {
            return None;
        }
        let h = hash_bytes(&enc);
        find_stored_in(&self.shards[self.shard_of(h)].shard.lock().table, &self.arena, &enc, h)
    }

    /// The id a reference from `insert_shared` names when it is a state stored by an earlier
    /// batch (`None`: a state new in this batch).
    #[inline]
    pub(crate) fn stored_id(r: u64) -> Option<u32> {
        let e = r as u32;
        (e & NEW == 0).then_some(e)
    }

    /// The id of the stored packed state `enc` (`h = hash_bytes(enc)`), outside a batch (no
    /// state is new): safe from several threads while nothing is inserted.
    #[inline]
    pub(crate) fn id_of(&self, enc: &[u8], h: u64) -> Option<u32> {
        let c = &self.shards[self.shard_of(h)];
        c.find_stored(&self.arena, enc, h).or_else(|| find_stored_in(&c.shard.lock().table, &self.arena, enc, h))
    }

    /// Batch insertion of a stored state (`enc`, coded by `pack`, `h = hash_bytes(enc)`)
    /// with discovery key `key`; safe from several threads. Returns a reference to resolve
    /// with `BatchIds::resolve` after `finish_batch`.
    #[inline]
    pub(crate) fn insert_shared(&self, enc: &[u8], h: u64, key: u64) -> u64 {
        let s = self.shard_of(h);
        let c = &self.shards[s];
        if let Some(e) = c.find_stored(&self.arena, enc, h) {
            return ((s as u64) << 32) | e as u64;
        }
        let mut sh = c.shard.lock();
        if let Some(old) = sh.grow_if_full(self.arena.sb) {
            c.publish(&sh);
            if old.len() >= LOCK_FREE_MIN_SLOTS {
                self.retired.lock().push(old);
            }
        }
        let e = sh.insert(&self.arena, enc, h, key);
        ((s as u64) << 32) | e as u64
    }

    /// Releases the memory held for batches; called when an exploration ends. The unused end
    /// of the last arena block is kept: it was never written, so it holds no memory, and
    /// shrinking it can make the allocator copy the whole block.
    pub(crate) fn release_spare(&mut self) {
        for c in &mut self.shards {
            let s = c.shard.get_mut();
            s.new_data = Vec::new();
            s.new_key = Vec::new();
            s.new_pos = Vec::new();
        }
    }

    /// Prefetches the index slot where `h` would be probed (no lock taken).
    #[inline]
    pub(crate) fn prefetch_slot(&self, h: u64) {
        let c = &self.shards[self.shard_of(h)];
        let (ptr, cap) = (c.table_ptr.load(Ordering::Relaxed), c.table_len.load(Ordering::Relaxed));
        prefetch((ptr + home(h as u32, cap) * 8) as *const u8);
    }

    /// Prefetches the packed bytes of the state that `h` most likely refers to, if any.
    #[inline]
    pub(crate) fn prefetch_state(&self, h: u64) {
        self.shards[self.shard_of(h)].prefetch_stored(&self.arena, h);
    }

    /// Numbers the batch's new states in increasing key order (ids from `len()`), and
    /// appends them to the arena (on one thread).
    pub(crate) fn finish_batch(&mut self) -> BatchIds {
        self.finish_batch_on(&Workers::new(1))
    }

    /// `finish_batch` on `workers`: the copy into the arena is cut into pieces of
    /// consecutive ids, and the index entries are rewritten shard by shard. Only gathering
    /// and ordering the keys stays serial.
    pub(crate) fn finish_batch_on(&mut self, workers: &Workers) -> BatchIds {
        let sb = self.state_bytes();
        let first = self.count as u32;
        // No lookup runs between batches; freed first, so that the memory serves the arrays
        // below.
        self.retired.get_mut().clear();
        let n: usize = self.shards.iter_mut().map(|s| s.shard.get_mut().new_key.len()).sum();
        assert!(self.count + n <= NEW as usize, "too many states");
        // Room in the arena, reserved first: its pages, mostly new to the process (small
        // pages for the first megabytes of a block, 3 µs each on the VMs we measure), are
        // faulted in by a worker while this thread gathers and orders the keys.
        let raw_pieces = self.arena.reserve_pieces(n, FINISH_PIECE);
        let shards = &self.shards;
        let gather = || {
            let mut all: Vec<(u64, u32, u32)> = Vec::with_capacity(n);
            for (si, c) in shards.iter().enumerate() {
                let s = c.shard.lock();
                all.extend(s.new_key.iter().enumerate().map(|(i, &k)| (k, si as u32, i as u32)));
            }
            sort_by_key_parent(&mut all);
            all
        };
        let all = if workers.threads() > 1 && n * sb >= POPULATE_MIN_BYTES {
            // Addresses only: the worker passes them to the kernel, and touches nothing.
            let ranges: Vec<(usize, usize)> = raw_pieces.iter().map(|p| (p.as_ptr() as usize, p.len())).collect();
            let mut out = workers.in_chunks(2, |c| match c {
                0 => {
                    for &(p, len) in &ranges {
                        hugepages::populate(p as *const u8, len);
                    }
                    None
                }
                _ => Some(gather()),
            });
            out.pop().flatten().expect("the keys were gathered")
        } else {
            gather()
        };
        // Handing a small batch to the workers costs more than it saves.
        let run = |n_jobs: usize, f: &(dyn Fn(usize) + Sync)| {
            if n < FINISH_PARALLEL_MIN {
                (0..n_jobs).for_each(f);
            } else {
                workers.in_chunks(n_jobs, f);
            }
        };
        let maps: Vec<Vec<AtomicU32>> = self
            .shards
            .iter_mut()
            .map(|s| (0..s.shard.get_mut().new_key.len()).map(|_| AtomicU32::new(0)).collect())
            .collect();
        let keys: Vec<u64> = all.iter().map(|x| x.0).collect();
        {
            let datas: Vec<&[u8]> = self.shards.iter_mut().map(|c| &c.shard.get_mut().new_data[..]).collect();
            let pieces: Vec<(usize, Mutex<&mut [MaybeUninit<u8>]>)> = raw_pieces
                .into_iter()
                .scan(0, |at, p| {
                    let start = *at;
                    *at += p.len() / sb;
                    Some((start, Mutex::new(p)))
                })
                .collect();
            run(pieces.len(), &|c| {
                let (start, ref piece) = pieces[c];
                let mut piece = piece.lock().unwrap_or_else(|e| e.into_inner());
                for (j, dst) in piece.chunks_exact_mut(sb).enumerate() {
                    let at = start + j;
                    // In key order the states are scattered over the shards' buffers:
                    // fetching a few ahead overlaps the cache misses.
                    if let Some(&(_, sa, ia)) = all.get(at + FINISH_AHEAD) {
                        prefetch(datas[sa as usize].as_ptr().wrapping_add(ia as usize * sb));
                    }
                    let (_, si, i) = all[at];
                    let o = i as usize * sb;
                    dst.write_copy_of_slice(&datas[si as usize][o..o + sb]);
                    maps[si as usize][i as usize].store(first + at as u32, Ordering::Relaxed);
                }
            });
        }
        // Every reserved byte was written above: each piece is a whole number of states,
        // and each of its states was copied.
        self.arena.commit(n);
        self.count += n;
        let shards = &self.shards;
        run(shards.len(), &|si| {
            let mut s = shards[si].shard.lock();
            let s = &mut *s;
            for (i, &p) in s.new_pos.iter().enumerate() {
                if let Some(&pa) = s.new_pos.get(i + FINISH_AHEAD) {
                    prefetch(s.table.as_ptr().wrapping_add(pa as usize) as *const u8);
                }
                let x = s.table[p as usize].get_mut();
                *x = (*x & !0xFFFF_FFFF) | maps[si][i].load(Ordering::Relaxed) as u64;
            }
            s.new_data.clear();
            s.new_key.clear();
            s.new_pos.clear();
        });
        BatchIds { keys, maps }
    }

    /// New states of the current batch so far (takes every shard's lock in turn: for
    /// occasional checks only).
    pub(crate) fn pending(&self) -> usize {
        self.shards.iter().map(|c| c.shard.lock().new_key.len()).sum()
    }

    /// Drops the states of the current batch and frees their buffers at once, without
    /// rebuilding the index (which would take time and memory when a bound has just stopped
    /// the run): the index keeps entries for the dropped states, so the store then serves
    /// only the states it holds by id (`get_into`, `packed`), never a lookup or an insertion.
    pub(crate) fn discard_batch(&mut self) {
        for c in &mut self.shards {
            let s = c.shard.get_mut();
            s.new_data = Vec::new();
            s.new_key = Vec::new();
            s.new_pos = Vec::new();
        }
        self.retired.get_mut().clear();
    }

    /// Drops the states of the current batch.
    pub(crate) fn abort_batch(&mut self) {
        self.rebuild();
    }

    /// Makes the working form `width` bytes per slot (drops the current batch). A compact
    /// store's states do not change; a fast store's are re-encoded at the new width.
    pub(crate) fn widen(&mut self, width: usize) {
        if self.compact || width <= self.width {
            self.width = self.width.max(width);
            self.rebuild();
            return;
        }
        let (old, old_width) =
            (std::mem::replace(&mut self.arena, Arena { sb: self.stride * width, blocks: Vec::new() }), self.width);
        let (mut dec, mut enc) = (Vec::new(), vec![0u8; self.stride * width]);
        for block in old.blocks {
            for b in block.chunks_exact(old.sb) {
                decode(b, old_width, &mut dec);
                encode_into(&dec, width, &mut enc);
                self.arena.push(&enc);
            }
        }
        self.width = width;
        self.rebuild();
    }

    /// Codes `s` in the stored form into `out` (`state_bytes()` long); false when a value
    /// does not fit (the working width or the compact fields).
    fn encode(&self, s: &[i32], out: &mut [u8]) -> bool {
        if self.compact { self.codec.encode(s, out) } else { encode_into(s, self.width, out) }
    }

    /// Rebuilds the index from the arena.
    fn rebuild(&mut self) {
        let mut per = vec![0usize; self.shards.len()];
        let hashes: Vec<u64> = (0..self.count as u32).map(|i| hash_bytes(self.arena.get(i))).collect();
        for &h in &hashes {
            per[self.shard_of(h)] += 1;
        }
        for (s, &n) in self.shards.iter_mut().zip(&per) {
            *s.shard.get_mut() = Shard::with_capacity(Shard::capacity_for(n));
        }
        for (i, &h) in hashes.iter().enumerate() {
            let si = self.shard_of(h);
            let s = self.shards[si].shard.get_mut();
            let p = free_slot(&s.table, h as u32);
            *s.table[p].get_mut() = entry(h, i as u32);
            s.used += 1;
        }
        for c in &self.shards {
            c.publish(&c.shard.lock());
        }
    }

    /// Inserts `s` (if new) on its own; returns its id and whether it was new.
    pub(crate) fn insert(&mut self, s: &[i32]) -> (u32, bool) {
        let need = width_needed(s);
        if need > self.width {
            self.widen(need);
        }
        let mut enc = vec![0u8; self.state_bytes()];
        if !self.encode(s, &mut enc) {
            self.refit(&[s.to_vec()]);
            enc.resize(self.state_bytes(), 0);
            self.codec.encode(s, &mut enc);
        }
        let h = hash_bytes(&enc);
        let r = self.insert_shared(&enc, h, 0);
        let ids = self.finish_batch();
        (ids.resolve(r), !ids.keys.is_empty())
    }
}

#[cfg(test)]
mod tests;
