//! The visited set's memory per state (issue 44's target): each slot stored in about the
//! bits its values need, and at most 12 bytes of index on top, once the run is large enough
//! for the minimum table sizes not to matter. And fields that widen in the middle of an
//! exploration change no count.

use crate::engine_common;
use engine_common::*;
use labs::engine::explore::{ExploreOptions, explore_initial};
use labs::engine::state::{BOT, StorePolicy};
use labs::engine::step::Stepper;
use labs::engine::symmetry;
use std::sync::Arc;

/// Bits a slot needs for the values it holds over `states` (⊥ taking a code of its own),
/// computed from the states, not from the store's fields.
fn needed_bits(states: &[Vec<i32>], slot: usize) -> u32 {
    let vals = states.iter().map(|s| s[slot]);
    let bot = vals.clone().any(|v| v == BOT);
    let defined: Vec<i64> = vals.filter(|&v| v != BOT).map(i64::from).collect();
    let span = match (defined.iter().min(), defined.iter().max()) {
        (Some(lo), Some(hi)) => (hi - lo + 1) as u64,
        _ => 0,
    };
    let codes = span + u64::from(bot);
    u64::BITS - codes.saturating_sub(1).leading_zeros()
}

/// Bytes of fields of `bits` each, placed in 64-bit words without straddling two, the last
/// word cut to whole bytes.
fn placed_bytes(bits: impl Iterator<Item = u32>) -> usize {
    let (mut words, mut used) = (0usize, 0u32);
    for b in bits {
        if used + b > 64 {
            words += 1;
            used = 0;
        }
        used += b;
    }
    (words * 8 + used.div_ceil(8) as usize).max(1)
}

#[test]
fn the_store_costs_the_bits_the_values_need_and_at_most_12_bytes_of_index() {
    let cases: &[(&str, &[&str], bool)] = &[
        ("leader.labs", &["n=7"], false),
        ("philosophers.labs", &["n=5"], false),
        ("philosophers.labs", &["n=6"], false),
        ("twophase.labs", &["workers=3"], false),
        ("formation.labs", &["n=3", "size=6", "range=2"], true),
    ];
    for (file, externs, fair) in cases {
        let (m, b) = load(&format!("{BENCH}/{file}"), externs);
        let stepper = Stepper::new(&m, &b, *fair);
        let opts = ExploreOptions { threads: 2, store: StorePolicy::Compact, ..Default::default() };
        let g = explore_initial(&stepper, &opts).expect("explores");
        assert!(g.stopped.is_none() && g.error.is_none());
        let (states, sb) = (g.states(), g.store.state_bytes());
        assert!(states >= 10_000, "{file}: only {states} states, too few for the bound");
        let all: Vec<Vec<i32>> = (0..states as u32).map(|i| g.store.get(i)).collect();
        // A field that widens at least doubles its range, so it may hold one bit more than
        // its values need, never more.
        let need: Vec<u32> = (0..stepper.lay.len).map(|k| needed_bits(&all, k)).collect();
        let bound = placed_bytes(need.iter().map(|b| b + 1));
        assert!(sb <= bound, "{file} {externs:?}: {sb}-byte states, the values need at most {bound}");
        assert!(
            sb < stepper.lay.len,
            "{file} {externs:?}: {sb}-byte states, no smaller than a byte per slot ({})",
            stepper.lay.len
        );
        // The arena: the states, and the rest of the last 4 KiB page. The index: 8-byte
        // entries at a load of at least 2/3 (12 bytes per state), and the shards' first
        // tables (64 shards of a few slots).
        let bound = states * (sb + 12) + 4096 + 64 * 8 * 8;
        assert!(
            g.store.bytes() <= bound,
            "{file} {externs:?}: {:.2} bytes per state for {sb}-byte states",
            g.store.bytes() as f64 / states as f64
        );
        // The fast form: a byte per slot (every value here is within ±127), and the index
        // within as many bytes again (its growth is chosen by the state size for that).
        let opts = ExploreOptions { threads: 2, store: StorePolicy::Fast, ..Default::default() };
        let fast = explore_initial(&stepper, &opts).expect("explores");
        let wb = stepper.lay.len;
        assert_eq!((fast.states(), fast.store.state_bytes()), (states, wb), "{file} {externs:?}");
        assert!(
            fast.store.bytes() <= 2 * states * wb + 4096 + 64 * 8 * 8,
            "{file} {externs:?}: fast form, {:.2} bytes per state for {wb}-byte states",
            fast.store.bytes() as f64 / states as f64
        );
    }
}

/// A counter past a byte and a pending bit past the first byte of its mask: the fields and
/// the working width both widen while the exploration is well under way (tens of thousands
/// of states stored). The counts must be those of an exploration on one thread, whatever the
/// thread count, with and without the reduction.
#[test]
fn fields_that_widen_mid_exploration_change_no_count() {
    let text = "system {\n  extern = _n\n  spawn = N: 2\n}\n\
                stigmergy S {\n  link = true\n  a: 0\n  b: 0\n  c: 0\n  d: 0\n  e: 0\n  f: 0\n  g: 0\n  h: 0\n  i: 0\n}\n\
                agent N {\n  interface = k: 0\n  stigmergies = S\n\
                Behavior = k < _n -> k <- k + 1; Behavior ++ k = _n -> i <~ 1; k <- 0; Behavior\n}\ncheck {\n}\n";
    let (m, b) = load_text(text, &["n=200".to_string()]).expect("loads");
    let stepper = Stepper::new(&m, &b, false);
    let group = symmetry::analyse(&m, &b, false).group.map(Arc::new);
    assert!(group.is_some(), "the two agents are interchangeable");
    for reduce in [false, true] {
        let run = |threads: usize| {
            let symmetry = group.clone().filter(|_| reduce);
            let opts = ExploreOptions { threads, symmetry, store: StorePolicy::Compact, ..Default::default() };
            let g = explore_initial(&stepper, &opts).expect("explores");
            assert!(g.stopped.is_none() && g.error.is_none());
            (g.states(), g.transitions, g.deadlocks, g.store.refits(), g.store.state_bytes(), g.parent.to_vec())
        };
        let one = run(1);
        // 201 values of `k` per agent (0..=200): more than 128, so each counter's field has
        // widened to 8 bits once states with `k` at 128 (about 128²/2 of them before) came.
        assert!(one.0 > 201 * 201 / 2, "reduce={reduce}: {} states", one.0);
        assert!(one.3 >= 3, "reduce={reduce}: only {} widenings", one.3);
        for threads in [2, 3] {
            assert!(run(threads) == one, "reduce={reduce}: {threads} threads");
        }
    }
}
