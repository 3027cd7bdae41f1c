//! Round trips of the stored form under random field widths, learnt from random states and
//! widened mid-run, against the states themselves.

use super::super::encoding::encode_into;
use super::*;
use proptest::prelude::*;

/// A slot value: mostly small (the common case), with ⊥ and the extremes of the range.
fn value() -> impl Strategy<Value = i32> {
    prop_oneof![
        6 => -4i32..8,
        2 => -300i32..300,
        1 => Just(BOT),
        1 => prop_oneof![Just(i32::MIN + 1), Just(i32::MAX), Just(-32767), Just(32767), Just(127), Just(-127)],
        1 => any::<i32>(),
    ]
}

/// States of `len` slots: the first ones learn the fields, the others come later.
fn states(len: usize) -> impl Strategy<Value = Vec<Vec<i32>>> {
    prop::collection::vec(prop::collection::vec(value(), len), 2..12)
}

/// The codec learnt from `states` (the first one exact, then widened by each).
fn learnt(states: &[Vec<i32>]) -> Codec {
    states[1..].iter().fold(Codec::exact(&states[0]), |c, s| c.widened(s))
}

fn code_of(c: &Codec, s: &[i32]) -> Option<Vec<u8>> {
    let mut out = vec![0u8; c.bytes()];
    c.encode(s, &mut out).then_some(out)
}

fn decoded(c: &Codec, b: &[u8]) -> Vec<i32> {
    let mut out = Vec::new();
    c.decode(b, &mut out);
    out
}

/// The narrowest working width `s` fits, as the stepper would choose it.
fn work_width(s: &[i32]) -> usize {
    super::super::encoding::width_needed(s)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn learnt_states_round_trip_and_equal_codes_are_equal_states(len in 1usize..40, seed in states(40)) {
        let seen: Vec<Vec<i32>> = seed.iter().map(|s| s[..len].to_vec()).collect();
        let c = learnt(&seen);
        // Each field is no wider than an `i32` and than what its learnt range needs, and the
        // fields fit their bytes.
        let bits: u32 = c.bits().map(u32::from).sum();
        prop_assert!(c.bits().all(|b| b <= 32));
        prop_assert!(c.bytes() * 8 >= bits as usize && c.bytes() <= len * 4 + 8);
        let codes: Vec<Vec<u8>> = seen.iter().map(|s| code_of(&c, s).expect("a learnt state fits")).collect();
        for (s, b) in seen.iter().zip(&codes) {
            prop_assert_eq!(&decoded(&c, b), s);
            // From the working form at each width the state fits: the same bytes.
            for w in [1, 2, 4].into_iter().filter(|&w| w >= work_width(s)) {
                let mut work = vec![0u8; len * w];
                prop_assert!(encode_into(s, w, &mut work));
                let mut packed = vec![0xAAu8; c.bytes()];
                let fits = match w {
                    1 => c.pack::<1>(&work, &mut packed),
                    2 => c.pack::<2>(&work, &mut packed),
                    _ => c.pack::<4>(&work, &mut packed),
                };
                prop_assert!(fits, "width {}", w);
                prop_assert_eq!(&packed, b, "width {}", w);
            }
        }
        for (i, a) in seen.iter().enumerate() {
            for (j, b) in seen.iter().enumerate() {
                prop_assert_eq!(a == b, codes[i] == codes[j]);
                // Coding `b` from `a` (as a successor from its parent) gives `b`'s code.
                let w = work_width(a).max(work_width(b));
                let (mut wa, mut wb) = (vec![0u8; len * w], vec![0u8; len * w]);
                prop_assert!(encode_into(a, w, &mut wa) && encode_into(b, w, &mut wb));
                let mut from = vec![0x55u8; c.bytes()];
                let fits = match w {
                    1 => c.pack_from::<1>(&wa, &codes[i], &wb, &mut from),
                    2 => c.pack_from::<2>(&wa, &codes[i], &wb, &mut from),
                    _ => c.pack_from::<4>(&wa, &codes[i], &wb, &mut from),
                };
                prop_assert!(fits);
                prop_assert_eq!(&from, &codes[j], "width {}", w);
                if a == b {
                    prop_assert_eq!(super::super::hash_bytes(&codes[i]), super::super::hash_bytes(&codes[j]));
                }
            }
        }
    }

    #[test]
    fn widening_mid_run_keeps_every_stored_state(len in 1usize..24, seed in states(24), later in states(24)) {
        let first: Vec<Vec<i32>> = seed.iter().map(|s| s[..len].to_vec()).collect();
        let more: Vec<Vec<i32>> = later.iter().map(|s| s[..len].to_vec()).collect();
        let old = learnt(&first);
        let stored: Vec<Vec<u8>> = first.iter().map(|s| code_of(&old, s).expect("fits")).collect();
        let mut c = old.clone();
        for s in &more {
            match code_of(&c, s) {
                // A state that fits decodes to itself.
                Some(b) => prop_assert_eq!(&decoded(&c, &b), s),
                None => {
                    // Coded from a stored state (as a successor), it does not fit either.
                    let w = work_width(s).max(work_width(&first[0]));
                    let (mut wa, mut wb) = (vec![0u8; len * w], vec![0u8; len * w]);
                    prop_assert!(encode_into(&first[0], w, &mut wa) && encode_into(s, w, &mut wb));
                    let mut out = vec![0u8; c.bytes()];
                    let base = code_of(&c, &first[0]).expect("fits");
                    let fits = match w {
                        1 => c.pack_from::<1>(&wa, &base, &wb, &mut out),
                        2 => c.pack_from::<2>(&wa, &base, &wb, &mut out),
                        _ => c.pack_from::<4>(&wa, &base, &wb, &mut out),
                    };
                    prop_assert!(!fits);
                    // Re-encoding the stored states, as `StateStore::refit` does.
                    let wider = c.widened(s);
                    prop_assert!(wider.bits().zip(c.bits()).all(|(n, o)| n >= o));
                    for (b, s0) in stored.iter().zip(&first) {
                        prop_assert_eq!(&decoded(&old, b), s0);
                        let again = code_of(&wider, s0).expect("a widened codec holds the old states");
                        prop_assert_eq!(&decoded(&wider, &again), s0);
                    }
                    let b = code_of(&wider, s).expect("the misfit fits the widened codec");
                    prop_assert_eq!(&decoded(&wider, &b), s);
                    c = wider;
                }
            }
        }
        // Every state seen, early or late, fits the final codec, with distinct codes for
        // distinct states.
        let all: Vec<&Vec<i32>> = first.iter().chain(&more).collect();
        let codes: Vec<Vec<u8>> = all.iter().map(|s| code_of(&c, s).expect("fits")).collect();
        for i in 0..all.len() {
            for j in 0..all.len() {
                prop_assert_eq!(all[i] == all[j], codes[i] == codes[j]);
            }
        }
    }
}

#[test]
fn a_field_widens_a_few_times_however_far_its_values_go() {
    // A counter from 0 to 100,000: each widening at least doubles the field's range.
    let mut c = Codec::exact(&[0]);
    let mut widenings = 0;
    for v in 0..100_000 {
        if code_of(&c, &[v]).is_none() {
            c = c.widened(&[v]);
            widenings += 1;
        }
    }
    // 2^17 > 100,000: at most 17 widenings (one per bit), and 17 bits.
    assert!(widenings <= 17, "{widenings} widenings");
    assert_eq!(c.bits().collect::<Vec<_>>(), vec![17]);
}

#[test]
fn values_out_of_a_field_do_not_fit_it() {
    let c = Codec::exact(&[3, BOT]).widened(&[4, 7]);
    // Slot 0: 3..=4 (1 bit); slot 1: ⊥ and 7 (1 bit).
    assert_eq!(c.bits().collect::<Vec<_>>(), vec![1, 1]);
    for (s, fits) in
        [([3, BOT], true), ([4, 7], true), ([2, 7], false), ([5, 7], false), ([3, 8], false), ([BOT, 7], false)]
    {
        assert_eq!(code_of(&c, &s).is_some(), fits, "{s:?}");
    }
}

#[test]
fn a_field_of_no_bits_after_a_full_word_round_trips() {
    let c = Codec::exact(&[i32::MIN + 1, i32::MAX, 5]).widened(&[i32::MAX, i32::MIN + 1, 5]);
    assert_eq!(c.bits().collect::<Vec<_>>(), vec![32, 32, 0]);
    for s in [[i32::MIN + 1, i32::MAX, 5], [i32::MAX, i32::MIN + 1, 5], [-1, 17, 5]] {
        let b = code_of(&c, &s).expect("fits");
        assert_eq!(decoded(&c, &b), s);
    }
}

/// Bits for `codes` distinct codes, by counting: the least `b` with `2^b >= codes`.
fn bits_for(codes: u64) -> u8 {
    let mut b = 0;
    while (1u64 << b) < codes {
        b += 1;
    }
    b
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn fields_from_the_ranges_hold_exactly_the_states_added(len in 1usize..40, seed in states(40)) {
        let seen: Vec<Vec<i32>> = seed.iter().map(|s| s[..len].to_vec()).collect();
        let mut ranges = SlotRanges::new(len);
        for s in &seen {
            ranges.add(s);
        }
        let c = ranges.codec();
        // Each field as wide as the distinct codes of its slot need (the span of its values,
        // and one for ⊥), computed from the states.
        let want: Vec<u8> = (0..len)
            .map(|k| {
                let defined: Vec<i64> = seen.iter().map(|s| s[k]).filter(|&v| v != BOT).map(i64::from).collect();
                let span = match (defined.iter().min(), defined.iter().max()) {
                    (Some(lo), Some(hi)) => (hi - lo + 1) as u64,
                    _ => 0,
                };
                bits_for(span + u64::from(seen.iter().any(|s| s[k] == BOT)))
            })
            .collect();
        prop_assert_eq!(c.bits().collect::<Vec<_>>(), want);
        for s in &seen {
            let b = code_of(&c, s).expect("an added state fits");
            prop_assert_eq!(&decoded(&c, &b), s);
        }
    }
}
