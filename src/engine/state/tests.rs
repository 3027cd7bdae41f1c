//! The store's unit tests: hashing, batch numbering on several threads, lookups without
//! the lock racing insertions, deduplication and widening.

use super::*;

#[test]
fn hash_of_a_remainder_is_that_of_the_zero_padded_word() {
    // The overlapping load must give the value of the padded copy (the hash of every
    // length and content, compared with a plain reference implementation).
    fn reference(b: &[u8]) -> u64 {
        const K: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut h = b.len() as u64;
        for c in b.chunks(8) {
            let mut buf = [0u8; 8];
            buf[..c.len()].copy_from_slice(c);
            h = (h ^ u64::from_le_bytes(buf)).wrapping_mul(K).rotate_left(31);
        }
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
    let bytes: Vec<u8> = (0..40u32).map(|i| (i.wrapping_mul(97) ^ 0xA5) as u8).collect();
    for len in 0..=bytes.len() {
        assert_eq!(hash_bytes(&bytes[..len]), reference(&bytes[..len]), "length {len}");
    }
}

#[test]
fn parent_bucket_sort_orders_like_a_full_sort() {
    // Keys from a pseudo-random generator: dense parents (the counting sort), sparse
    // parents (the fallback), one parent (initial states), and empty.
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for (parents, n) in [(100u64, 500usize), (1 << 30, 300), (1, 200), (5, 0)] {
        let mut all: Vec<(u64, u32, u32)> =
            (0..n).map(|i| (((7 + rnd() % parents) << 32) | (rnd() % 50), i as u32, (i * 3) as u32)).collect();
        let mut want = all.clone();
        want.sort_by_key(|x| x.0);
        sort_by_key_parent(&mut all);
        assert_eq!(all.iter().map(|x| x.0).collect::<Vec<_>>(), want.iter().map(|x| x.0).collect::<Vec<_>>());
        let mut got_items = all.clone();
        got_items.sort();
        want.sort();
        assert_eq!(got_items, want, "the same items");
    }
}

/// One batch of `n` states (after 1,000 earlier ones), each inserted twice, finished on
/// `threads` threads: the ids of the insertions, the keys and the stored states.
fn big_batch(threads: usize, n: u32) -> (Vec<u32>, Vec<u64>, Vec<Vec<i32>>) {
    let state = |x: u32| [(x / 1000) as i32, (x % 1000) as i32];
    let mut s = StateStore::compact_for_threads(2, threads);
    s.refit(&[vec![0, 0], vec![(2 * n / 1000) as i32, 999]]);
    let mut enc = vec![0u8; s.state_bytes()];
    for x in 0..1000 {
        assert!(s.codec.encode(&state(n + x), &mut enc));
        s.insert_shared(&enc, hash_bytes(&enc), x as u64);
    }
    let workers = Workers::new(threads);
    s.finish_batch_on(&workers);
    let mut refs = Vec::new();
    for k in 0..n {
        // States in a scrambled order (7919 is prime), keys in insertion order.
        assert!(s.codec.encode(&state((u64::from(k) * 7919 % u64::from(n)) as u32), &mut enc));
        let h = hash_bytes(&enc);
        let key = (u64::from(k / 4) << 32) | u64::from(k % 4);
        refs.push(s.insert_shared(&enc, h, key + (u64::from(n) << 32)));
        refs.push(s.insert_shared(&enc, h, key));
    }
    let b = s.finish_batch_on(&workers);
    let ids = refs.iter().map(|&r| b.resolve(r)).collect();
    (ids, b.keys, (0..s.len() as u32).map(|i| s.get(i)).collect())
}

#[test]
fn finishing_on_several_threads_numbers_like_one() {
    // More states than an arena block, so the copy crosses into a new block.
    let n = BLOCK as u32 + 50_000;
    let one = big_batch(1, n);
    // Independent of the program: the k-th state inserted has the k-th smallest key, so
    // it gets the k-th id of the batch, after the 1,000 earlier states.
    for k in 0..n as usize {
        assert_eq!(one.0[2 * k], 1000 + k as u32);
        assert_eq!(one.0[2 * k + 1], 1000 + k as u32);
        let x = (k as u64 * 7919 % u64::from(n)) as u32;
        assert_eq!(one.2[1000 + k], vec![(x / 1000) as i32, (x % 1000) as i32]);
    }
    assert_eq!(one.1.len(), n as usize);
    for threads in [2, 3] {
        assert!(big_batch(threads, n) == one, "{threads} threads");
    }
}

#[test]
fn stored_states_are_found_while_other_threads_insert_and_grow_the_tables() {
    // Lookups of states stored by an earlier batch take the lock-free path, racing with
    // insertions that replace tables; every one must find its state's id, and no
    // stored state may be taken for a new one.
    let state = |x: u32| [(x >> 16) as i32, (x & 0xFFFF) as i32];
    let mut s = StateStore::compact_for_threads(2, 4);
    s.refit(&[state(0).to_vec(), state(u32::MAX).to_vec()]);
    let sb = s.state_bytes();
    let old = 5_000u32;
    let mut enc = vec![0u8; sb];
    for x in 0..old {
        assert!(s.codec.encode(&state(x), &mut enc));
        s.insert_shared(&enc, hash_bytes(&enc), u64::from(x));
    }
    s.finish_batch_on(&Workers::new(1));
    let fresh = 100_000u32;
    let store = &s;
    std::thread::scope(|scope| {
        for t in 0..2u32 {
            scope.spawn(move || {
                let mut enc = vec![0u8; sb];
                for k in 0..fresh / 2 {
                    let x = old + 2 * k + t;
                    assert!(store.codec.encode(&state(x), &mut enc));
                    let r = store.insert_shared(&enc, hash_bytes(&enc), u64::from(x));
                    assert_ne!(r as u32 & NEW, 0, "state {x} is new");
                }
            });
        }
        for t in 0..2u32 {
            scope.spawn(move || {
                let mut enc = vec![0u8; sb];
                for round in 0..20u32 {
                    for x in (0..old).map(|i| (i * 7 + round + t) % old) {
                        assert!(store.codec.encode(&state(x), &mut enc));
                        let r = store.insert_shared(&enc, hash_bytes(&enc), u64::MAX);
                        assert_eq!(r as u32, x, "stored state {x}");
                    }
                }
            });
        }
    });
    let b = s.finish_batch_on(&Workers::new(2));
    assert_eq!(s.len(), (old + fresh) as usize);
    assert_eq!(b.keys, (u64::from(old)..u64::from(old + fresh)).collect::<Vec<_>>());
    for x in [0, old - 1, old, old + fresh - 1] {
        assert_eq!(s.find(&state(x)), Some(x));
    }
}

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
    // Field widths worked out by hand: the first state sets each field exactly (0 bits);
    // a value outside a field's window makes it the narrowest that covers the old window
    // and the value (and ⊥ once seen), in at least one more bit, extended towards the
    // value.
    let mut s = StateStore::compact_for_threads(2, 1);
    assert_eq!(s.insert(&[1, BOT]), (0, true));
    assert_eq!((s.slot_bits(), s.state_bytes()), (vec![0, 0], 1));
    assert_eq!(s.insert(&[-127, 127]), (1, true));
    // -127..=1: 129 values, so 8 bits, window -254..=1; ⊥ and 127: 2 codes, 1 bit.
    assert_eq!((s.slot_bits(), s.state_bytes()), (vec![8, 1], 2));
    assert_eq!(s.insert(&[300, -5]), (2, true));
    // -254..=300: 555 values, 10 bits; ⊥ and -5..=127: 134 codes, 8 bits.
    assert_eq!((s.slot_bits(), s.state_bytes(), s.width()), (vec![10, 8], 3, 2));
    assert_eq!(s.insert(&[1, BOT]), (0, false));
    assert_eq!(s.insert(&[i32::MAX, i32::MIN + 1]), (3, true));
    assert_eq!((s.slot_bits(), s.state_bytes(), s.width()), (vec![32, 32], 8, 4));
    assert_eq!(s.refits(), 4);
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

#[test]
fn a_fast_store_turned_compact_keeps_its_ids_and_goes_on() {
    // Slot 0 counts past a byte (the fast form widens to 2 bytes a slot, re-encoding its
    // states), slot 1 takes 0..=9 and ⊥, slot 2 never changes.
    let state = |i: i32| [i, if i % 11 == 10 { BOT } else { i % 11 }, 7];
    let mut s = StateStore::new(3);
    for i in 0..1000 {
        assert_eq!(s.insert(&state(i)), (i as u32, true));
    }
    assert!(!s.is_compact());
    assert_eq!((s.width(), s.state_bytes()), (2, 6));
    s.compact();
    assert!(s.is_compact());
    // Fields that hold exactly the values stored, worked out by hand: 0..=999 in 10 bits,
    // 0..=9 and ⊥ in 4, the constant in none: 14 bits, 2 bytes.
    assert_eq!(s.slot_bits(), vec![10, 4, 0]);
    assert_eq!((s.state_bytes(), s.refits()), (2, 0));
    for i in 0..1000 {
        assert_eq!(s.get(i as u32), state(i).to_vec());
        assert_eq!(s.find(&state(i)), Some(i as u32));
        assert_eq!(s.insert(&state(i)), (i as u32, false));
    }
    // A value outside the fields widens them; every id stays.
    assert_eq!(s.insert(&[5000, 3, 7]), (1000, true));
    assert_eq!(s.refits(), 1);
    assert_eq!(s.insert(&state(999)), (999, false));
    assert_eq!(s.get(1000), vec![5000, 3, 7]);
}

#[test]
fn auto_turns_compact_only_past_half_the_memory_bound_without_successor_lists() {
    use crate::limits::{Limits, MemorySource};
    // A bound of 2 bytes: any process takes more than half of it; a bound of 2^60 bytes: none
    // takes half of it.
    let tight = Limits::new(None, None, Some((2, MemorySource::User)), None);
    let loose = Limits::new(None, None, Some((1 << 60, MemorySource::User)), None);
    assert!(StorePolicy::Auto.compact_now(10, false, &tight));
    assert!(!StorePolicy::Auto.compact_now(10, true, &tight));
    assert!(!StorePolicy::Auto.compact_now(10, false, &loose));
    assert!(!StorePolicy::Auto.compact_now(10, false, &Limits::none()));
    assert!(!StorePolicy::Fast.compact_now(10, false, &tight));
    assert!(!StorePolicy::Compact.compact_now(10, false, &tight));
    assert!(StorePolicy::CompactPast(9).compact_now(10, true, &loose));
    assert!(!StorePolicy::CompactPast(10).compact_now(10, false, &tight));
}
