//! Soundness of the value analysis's abstract domain against the concrete arithmetic
//! (`labs::model::arith`), plus the lattice laws and normal-form invariants.

use labs::analysis::ops::{self, BoolSet};
use labs::analysis::{IntervalSet, NEG_INF, POS_INF, WidenBounds};
use labs::model::arith::{self, MAX_VALUE, MIN_VALUE};
use labs::syntax::ast::{BinOp, CmpOp};
use proptest::prelude::*;
use proptest::sample::{Index, select};

/// A concrete value: `None` is ⊥.
type Val = Option<i64>;

fn s(lo: i64, hi: i64) -> IntervalSet {
    IntervalSet::range(lo, hi)
}

fn set(raw: &[(i64, i64)], undef: bool) -> IntervalSet {
    IntervalSet::from_intervals(raw.iter().copied(), undef)
}

/// Small intervals around 0, around the edges of the value range (to exercise clamping and
/// overflow) and around 2^16 (products overflow), sometimes unbounded on one side.
fn arb_interval() -> impl Strategy<Value = (i64, i64)> {
    let center = prop_oneof![6 => Just(0i64), 1 => Just(MAX_VALUE - 6), 1 => Just(MIN_VALUE + 6), 1 => Just(1 << 16)];
    (
        center,
        -12i64..12,
        prop_oneof![3 => 0i64..10, 1 => 0i64..40],
        prop::bool::weighted(0.08),
        prop::bool::weighted(0.08),
    )
        .prop_map(|(c, off, len, no_lo, no_hi)| {
            let lo = c + off;
            (if no_lo { NEG_INF } else { lo }, if no_hi { POS_INF } else { lo + len })
        })
}

/// Bounded sets of up to 12 short intervals near 0 (more than `ops::MAX_PAIRS` pairs at times),
/// small enough to enumerate every pair of values.
fn arb_small_set() -> impl Strategy<Value = IntervalSet> {
    (prop::collection::vec((-25i64..25, 0i64..4), 1..12), prop::bool::weighted(0.2))
        .prop_map(|(raw, undef)| IntervalSet::from_intervals(raw.into_iter().map(|(lo, len)| (lo, lo + len)), undef))
}

/// The concrete values of a small set, ⊥ included.
fn all_values(x: &IntervalSet) -> Vec<Val> {
    let mut v: Vec<Val> = x.iter_values(1000).expect("small set").map(Some).collect();
    if x.contains_undef() {
        v.push(None);
    }
    v
}

fn arb_set() -> impl Strategy<Value = IntervalSet> {
    (prop::collection::vec(arb_interval(), 0..4), prop::bool::weighted(0.25))
        .prop_map(|(raw, undef)| IntervalSet::from_intervals(raw, undef))
}

/// How to choose a concrete value from a set.
#[derive(Clone, Debug)]
struct Draw {
    interval: Index,
    offset: u64,
    from_top: bool,
    undef: bool,
}

fn arb_draw() -> impl Strategy<Value = Draw> {
    (any::<Index>(), prop_oneof![0u64..3, any::<u64>()], any::<bool>(), prop::bool::weighted(0.3))
        .prop_map(|(interval, offset, from_top, undef)| Draw { interval, offset, from_top, undef })
}

/// A possible concrete value of `set` (a LAbS value, so inside the 32-bit range), or `None` if
/// the set has none.
fn pick(set: &IntervalSet, d: &Draw) -> Option<Val> {
    let defined: Vec<(i64, i64)> = set
        .intervals()
        .iter()
        .map(|i| (i.lo.max(MIN_VALUE), i.hi.min(MAX_VALUE)))
        .filter(|(lo, hi)| lo <= hi)
        .collect();
    if set.contains_undef() && (d.undef || defined.is_empty()) {
        return Some(None);
    }
    if defined.is_empty() {
        return None;
    }
    let (lo, hi) = defined[d.interval.index(defined.len())];
    let k = (d.offset % (hi - lo + 1) as u64) as i64;
    Some(Some(if d.from_top { hi - k } else { lo + k }))
}

fn assert_normal(x: &IntervalSet) {
    for i in x.intervals() {
        assert!(i.lo <= i.hi, "empty interval in {x}");
    }
    for w in x.intervals().windows(2) {
        assert!(i128::from(w[0].hi) + 1 < i128::from(w[1].lo), "not sorted, disjoint and non-adjacent: {x}");
    }
}

/// Normal form, and only LAbS values (results of arithmetic are clamped).
fn assert_result(x: &IntervalSet) {
    assert_normal(x);
    if let (Some(lo), Some(hi)) = (x.min(), x.max()) {
        assert!(MIN_VALUE <= lo && hi <= MAX_VALUE, "out of the value range: {x}");
    }
}

fn contains_val(x: &IntervalSet, v: Val) -> bool {
    match v {
        None => x.contains_undef(),
        Some(v) => x.contains(v),
    }
}

/// Strict concrete evaluation: ⊥ wins over errors (D10); `None` = an error, no value.
fn concrete2(f: impl Fn(i64, i64) -> Result<i64, arith::ArithError>, a: Val, b: Val) -> Option<Val> {
    match (a, b) {
        (Some(a), Some(b)) => f(a, b).ok().map(Some),
        _ => Some(None),
    }
}

fn cmp_holds(op: CmpOp, a: Val, b: Val) -> bool {
    let (Some(a), Some(b)) = (a, b) else {
        return false;
    };
    match op {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
    }
}

const CMP_OPS: [CmpOp; 6] = [CmpOp::Eq, CmpOp::Ne, CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge];

fn config() -> ProptestConfig {
    ProptestConfig { cases: 2000, ..ProptestConfig::default() }
}

/// One soundness property per binary operator: the abstract result contains every concrete one.
macro_rules! binary_sound {
    ($name:ident, $abstract:expr, $concrete:expr) => {
        proptest! {
            #![proptest_config(config())]
            #[test]
            fn $name(x in arb_set(), y in arb_set(), dx in arb_draw(), dy in arb_draw()) {
                let r = $abstract(&x, &y);
                assert_result(&r);
                if let (Some(a), Some(b)) = (pick(&x, &dx), pick(&y, &dy)) {
                    if let Some(v) = concrete2($concrete, a, b) {
                        prop_assert!(contains_val(&r, v), "{x} op {y} = {r} misses {v:?} (from {a:?}, {b:?})");
                    }
                }
            }
        }
    };
}

binary_sound!(add_sound, ops::add, |a, b| arith::binary(BinOp::Add, a, b));
binary_sound!(sub_sound, ops::sub, |a, b| arith::binary(BinOp::Sub, a, b));
binary_sound!(mul_sound, ops::mul, |a, b| arith::binary(BinOp::Mul, a, b));
binary_sound!(div_sound, ops::div, arith::div);
binary_sound!(modulo_sound, ops::modulo, arith::modulo);
binary_sound!(rdiv_sound, ops::rdiv, arith::rdiv);
binary_sound!(min_sound, ops::min, |a: i64, b: i64| Ok(a.min(b)));
binary_sound!(max_sound, ops::max, |a: i64, b: i64| Ok(a.max(b)));

proptest! {
    #![proptest_config(config())]

    #[test]
    fn binary_dispatch_matches(op in select(vec![BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::Mod, BinOp::RDiv]),
                               x in arb_set(), y in arb_set(), dx in arb_draw(), dy in arb_draw()) {
        let r = ops::binary(op, &x, &y);
        if let (Some(a), Some(b)) = (pick(&x, &dx), pick(&y, &dy))
            && let Some(v) = concrete2(|a, b| arith::binary(op, a, b), a, b)
        {
            prop_assert!(contains_val(&r, v));
        }
    }

    /// Every pair of concrete values of two small sets, for every operator.
    #[test]
    fn binary_exhaustive(x in arb_small_set(), y in arb_small_set()) {
        type Abstract = fn(&IntervalSet, &IntervalSet) -> IntervalSet;
        type Concrete = fn(i64, i64) -> Result<i64, arith::ArithError>;
        let cases: [(&str, Abstract, Concrete); 8] = [
            ("+", ops::add, |a, b| arith::binary(BinOp::Add, a, b)),
            ("-", ops::sub, |a, b| arith::binary(BinOp::Sub, a, b)),
            ("*", ops::mul, |a, b| arith::binary(BinOp::Mul, a, b)),
            ("/", ops::div, arith::div),
            ("%", ops::modulo, arith::modulo),
            (":", ops::rdiv, arith::rdiv),
            ("min", ops::min, |a, b| Ok(a.min(b))),
            ("max", ops::max, |a, b| Ok(a.max(b))),
        ];
        for (name, abs_op, conc_op) in cases {
            let r = abs_op(&x, &y);
            assert_result(&r);
            for &a in &all_values(&x) {
                for &b in &all_values(&y) {
                    if let Some(v) = concrete2(conc_op, a, b) {
                        prop_assert!(contains_val(&r, v), "{x} {name} {y} = {r} misses {v:?} (from {a:?}, {b:?})");
                    }
                }
            }
        }
    }

    /// On single values the abstract operators are exact (an error gives the empty set).
    #[test]
    fn binary_exact_on_singletons(op in select(vec![BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::Mod, BinOp::RDiv]),
                                  a in -40i64..40, b in -12i64..12) {
        let r = ops::binary(op, &IntervalSet::singleton(a), &IntervalSet::singleton(b));
        let expected = arith::binary(op, a, b).map_or(IntervalSet::empty(), IntervalSet::singleton);
        prop_assert_eq!(r, expected, "{} {} {}", a, op.as_str(), b);
    }

    /// Every pair of concrete values, for every comparison.
    #[test]
    fn filter_cmp_exhaustive(x in arb_small_set(), y in arb_small_set()) {
        for op in CMP_OPS {
            let (x2, y2) = ops::filter_cmp(op, &x, &y);
            let (mut some_true, mut some_false) = (false, false);
            for &a in &all_values(&x) {
                for &b in &all_values(&y) {
                    if cmp_holds(op, a, b) {
                        some_true = true;
                        prop_assert!(contains_val(&x2, a) && contains_val(&y2, b),
                            "{x} {} {y} filtered to {x2}, {y2} loses {a:?}, {b:?}", op.as_str());
                    } else {
                        some_false = true;
                    }
                }
            }
            // Exact on these sets: both answers are computed from the bounds.
            prop_assert_eq!(ops::may_be_true(op, &x, &y), some_true, "may_be_true {}", op.as_str());
            prop_assert_eq!(ops::may_be_false(op, &x, &y), some_false, "may_be_false {}", op.as_str());
        }
    }

    #[test]
    fn neg_sound(x in arb_set(), d in arb_draw()) {
        let r = ops::neg(&x);
        assert_result(&r);
        match pick(&x, &d) {
            Some(None) => prop_assert!(r.contains_undef()),
            Some(Some(a)) => if let Ok(v) = arith::neg(a) { prop_assert!(r.contains(v), "-{x} = {r} misses {v}") },
            None => {}
        }
    }

    #[test]
    fn abs_sound(x in arb_set(), d in arb_draw()) {
        let r = ops::abs(&x);
        assert_result(&r);
        match pick(&x, &d) {
            Some(None) => prop_assert!(r.contains_undef()),
            Some(Some(a)) => if let Ok(v) = arith::abs(a) { prop_assert!(r.contains(v), "abs {x} = {r} misses {v}") },
            None => {}
        }
    }

    #[test]
    fn filter_cmp_sound(op in select(CMP_OPS.to_vec()), x in arb_set(), y in arb_set(), dx in arb_draw(), dy in arb_draw()) {
        let (x2, y2) = ops::filter_cmp(op, &x, &y);
        assert_normal(&x2);
        assert_normal(&y2);
        prop_assert!(x2.is_subset(&x) && y2.is_subset(&y));
        prop_assert!(!x2.contains_undef() && !y2.contains_undef());
        prop_assert_eq!(x2.is_empty(), y2.is_empty());
        if let (Some(a), Some(b)) = (pick(&x, &dx), pick(&y, &dy)) {
            if cmp_holds(op, a, b) {
                prop_assert!(contains_val(&x2, a) && contains_val(&y2, b),
                    "{x} {} {y} filtered to {x2}, {y2} loses {a:?}, {b:?}", op.as_str());
                prop_assert!(ops::may_be_true(op, &x, &y));
            } else {
                prop_assert!(ops::may_be_false(op, &x, &y), "{x} {} {y} cannot be false for {a:?}, {b:?}", op.as_str());
            }
        }
    }

    #[test]
    fn may_be_true_matches_filter(op in select(CMP_OPS.to_vec()), x in arb_set(), y in arb_set()) {
        let (x2, _) = ops::filter_cmp(op, &x, &y);
        prop_assert_eq!(ops::may_be_true(op, &x, &y), !x2.is_empty());
        let b = ops::compare(op, &x, &y);
        prop_assert_eq!(b.may_false, ops::may_be_false(op, &x, &y));
    }

    #[test]
    fn nondet_sound(x in arb_set(), y in arb_set(), dx in arb_draw(), dy in arb_draw(), k in any::<u64>()) {
        let r = ops::nondet(&x, &y);
        assert_result(&r);
        prop_assert!(!r.contains_undef());
        if let (Some(Some(a)), Some(Some(b))) = (pick(&x, &dx), pick(&y, &dy))
            && a < b
        {
            let v = a + (k % (b - a) as u64) as i64;
            prop_assert!(r.contains(v), "[{x}..{y}] = {r} misses {v}");
        }
    }

    #[test]
    fn ite_sound(c in any::<bool>(), extra in any::<bool>(), t in arb_set(), e in arb_set(), dt in arb_draw(), de in arb_draw()) {
        let (may_true, may_false) = if c { (true, extra) } else { (extra, true) };
        let r = ops::ite(may_true, may_false, &t, &e);
        let v = if c { pick(&t, &dt) } else { pick(&e, &de) };
        if let Some(v) = v {
            prop_assert!(contains_val(&r, v));
        }
    }

    #[test]
    fn boolset_sound(b1 in any::<(bool, bool)>(), b2 in any::<(bool, bool)>(), c1 in any::<bool>(), c2 in any::<bool>()) {
        let (a, b) = (BoolSet { may_true: b1.0, may_false: b1.1 }, BoolSet { may_true: b2.0, may_false: b2.1 });
        let holds = |s: BoolSet, v: bool| if v { s.may_true } else { s.may_false };
        if holds(a, c1) && holds(b, c2) {
            prop_assert!(holds(a.and(b), c1 && c2));
            prop_assert!(holds(a.or(b), c1 || c2));
            prop_assert!(holds(!a, !c1));
        }
    }

    #[test]
    fn from_intervals_is_the_union(raw in prop::collection::vec(arb_interval(), 0..5), v in -30i64..30) {
        let x = IntervalSet::from_intervals(raw.iter().copied(), false);
        assert_normal(&x);
        prop_assert_eq!(x.contains(v), raw.iter().any(|&(lo, hi)| lo <= v && v <= hi));
    }

    #[test]
    fn join_is_upper_bound(x in arb_set(), y in arb_set(), d in arb_draw()) {
        let j = x.join(&y);
        assert_normal(&j);
        prop_assert!(x.is_subset(&j) && y.is_subset(&j));
        prop_assert_eq!(&j, &y.join(&x));
        if let Some(v) = pick(&x, &d) {
            prop_assert!(contains_val(&j, v));
        }
        let mut k = x.clone();
        prop_assert_eq!(k.join_assign(&y), !y.is_subset(&x));
        prop_assert_eq!(k, j);
    }

    #[test]
    fn meet_is_lower_bound(x in arb_set(), y in arb_set(), d in arb_draw()) {
        let m = x.meet(&y);
        assert_normal(&m);
        prop_assert!(m.is_subset(&x) && m.is_subset(&y));
        if let Some(v) = pick(&x, &d) {
            prop_assert_eq!(contains_val(&m, v), contains_val(&y, v));
        }
    }

    #[test]
    fn subset_agrees_with_values(x in arb_set(), y in arb_set(), d in arb_draw()) {
        if x.is_subset(&y)
            && let Some(v) = pick(&x, &d)
        {
            prop_assert!(contains_val(&y, v));
        }
        prop_assert!(x.is_subset(&x));
        prop_assert_eq!(x.is_subset(&y) && y.is_subset(&x), x == y);
    }

    #[test]
    fn cap_keeps_every_value(x in arb_set(), cap in 1usize..4, d in arb_draw()) {
        let mut c = x.clone();
        c.normalise_with_cap(cap);
        assert_normal(&c);
        prop_assert!(c.intervals().len() <= cap);
        prop_assert!(x.is_subset(&c));
        prop_assert_eq!(c.hull(), x.hull());
        if let Some(v) = pick(&x, &d) {
            prop_assert!(contains_val(&c, v));
        }
    }

    #[test]
    fn widen_is_upper_bound(x in arb_set(), y in arb_set()) {
        let w = x.widen(&y, WidenBounds::VALUE_RANGE);
        assert_normal(&w);
        prop_assert!(x.is_subset(&w) && y.is_subset(&w));
    }

    /// Widening chains stabilise: along `w' = w ∇ (w ⊔ y)`, once `w` has integers it changes at
    /// most once per gap it had then, twice per bound and once for ⊥.
    #[test]
    fn widen_chains_stabilise(first in arb_set(), ys in prop::collection::vec(arb_set(), 1..30)) {
        let mut w = first;
        let mut gaps_then = None;
        let mut changes = 0;
        for y in &ys {
            let next = w.widen(&w.join(y), WidenBounds::VALUE_RANGE);
            prop_assert!(w.is_subset(&next));
            if gaps_then.is_some() && next != w {
                changes += 1;
            }
            w = next;
            if gaps_then.is_none() && w.has_values() {
                gaps_then = Some(w.intervals().len() - 1);
            }
        }
        prop_assert!(changes <= gaps_then.unwrap_or(0) + 5, "{changes} changes, ending at {w}");
    }

    #[test]
    fn iter_values_agrees(x in arb_set()) {
        if let Some(values) = x.iter_values(100) {
            let values: Vec<i64> = values.collect();
            prop_assert_eq!(Some(values.len() as u64), x.cardinality());
            prop_assert!(values.windows(2).all(|w| w[0] < w[1]));
            prop_assert!(values.iter().all(|&v| x.contains(v)));
        } else {
            prop_assert!(x.cardinality().is_none_or(|n| n > 100));
        }
    }
}

#[test]
fn hand_computed_arithmetic() {
    assert_eq!(ops::add(&s(0, 2), &s(3, 3)), s(3, 5));
    assert_eq!(ops::modulo(&s(-7, -7), &s(5, 5)), s(3, 3));
    assert_eq!(ops::div(&s(0, 4), &s(2, 2)), s(0, 2));
    assert_eq!(ops::div(&s(-7, -7), &s(2, 2)), s(-3, -3));
    assert_eq!(ops::rdiv(&s(-7, -7), &s(2, 2)), s(-4, -4));
    assert_eq!(ops::rdiv(&s(7, 7), &s(2, 2)), s(4, 4));
    assert_eq!(ops::modulo(&s(-7, -7), &s(-3, -3)), s(2, 2));
    assert_eq!(ops::modulo(&s(-1, -1), &s(5, 5)), s(4, 4));
    assert_eq!(ops::modulo(&s(-1, 2), &s(5, 5)), set(&[(0, 2), (4, 4)], false));
    // Wide divisor ranges: below every divisor the dividend is unchanged; else `[0, max)`.
    assert_eq!(ops::modulo(&s(3, 7), &s(10, 30)), s(3, 7));
    assert_eq!(ops::modulo(&s(5, 10), &s(10, 30)), s(0, 10));
    assert_eq!(ops::modulo(&s(-5, 10), &s(-30, -10)), s(0, 29));
    assert_eq!(ops::mul(&s(-2, 3), &s(4, 5)), s(-10, 15));
    assert_eq!(ops::sub(&s(0, 0), &s(1, 3)), s(-3, -1));
    assert_eq!(ops::neg(&s(1, 3)), s(-3, -1));
    assert_eq!(ops::abs(&s(-5, 3)), s(0, 5));
    assert_eq!(ops::min(&s(0, 10), &s(3, 3)), s(0, 3));
    assert_eq!(ops::max(&s(0, 10), &s(3, 3)), s(3, 10));
    // Division by [-1, 1] only uses -1 and 1.
    assert_eq!(ops::div(&s(5, 5), &s(-1, 1)), set(&[(-5, -5), (5, 5)], false));
    // 2^20 * 2^20 always overflows: no value.
    assert_eq!(ops::mul(&IntervalSet::singleton(1 << 20), &IntervalSet::singleton(1 << 20)), IntervalSet::empty());
    // Unbounded operands give results clamped to the value range.
    assert_eq!(ops::add(&s(0, POS_INF), &s(1, 1)), s(1, MAX_VALUE));
    assert_eq!(ops::nondet(&s(0, 0), &s(3, 5)), s(0, 4));
    assert_eq!(ops::nondet(&s(3, 3), &s(3, 3)), IntervalSet::empty());
}

#[test]
fn hand_computed_undef() {
    let u = IntervalSet::undef_only();
    assert_eq!(ops::add(&s(0, 2).with_undef(true), &s(1, 1)), s(1, 3).with_undef(true));
    assert_eq!(ops::div(&u, &s(0, 0)), u);
    assert_eq!(ops::add(&u, &IntervalSet::empty()), IntervalSet::empty());
    assert!(!ops::may_be_true(CmpOp::Ne, &u, &s(0, 0)));
    assert!(ops::may_be_false(CmpOp::Ne, &u, &s(0, 0)));
    assert_eq!(ops::nondet(&u, &s(3, 3)), IntervalSet::empty());
}

#[test]
fn hand_computed_lattice() {
    assert_eq!(s(0, 2).join(&s(3, 3)), s(0, 3));
    assert_eq!(s(0, 2).join(&s(4, 4)).to_string(), "{[0, 2], [4, 4]}");
    assert_eq!(set(&[(0, 2), (5, 9)], true).meet(&set(&[(2, 6)], true)), set(&[(2, 2), (5, 6)], true));
    assert!(s(1, 2).is_subset(&set(&[(0, 3), (7, 8)], false)));
    assert!(!s(1, 2).with_undef(true).is_subset(&s(0, 3)));
    assert_eq!(IntervalSet::top().to_string(), "{[-inf, +inf], undef}");
    assert_eq!(set(&[(0, 2), (3, 3)], true).to_string(), "{[0, 3], undef}");
    assert_eq!(set(&[(0, 1), (5, 6)], false).cardinality(), Some(4));
    assert_eq!(s(0, POS_INF).cardinality(), None);
}

#[test]
fn hand_computed_filters() {
    let (x, y) = ops::filter_cmp(CmpOp::Lt, &s(0, 10), &s(3, 5));
    assert_eq!((x, y), (s(0, 4), s(3, 5)));
    let (x, y) = ops::filter_cmp(CmpOp::Ge, &s(0, 10).with_undef(true), &s(3, 5));
    assert_eq!((x, y), (s(3, 10), s(3, 5)));
    let (x, _) = ops::filter_cmp(CmpOp::Ne, &s(0, 4), &s(2, 2));
    assert_eq!(x, set(&[(0, 1), (3, 4)], false));
    let (x, y) = ops::filter_cmp(CmpOp::Eq, &s(0, 4), &s(3, 9));
    assert_eq!((x, y), (s(3, 4), s(3, 4)));
    // Unbounded sides stay unbounded.
    let (x, y) = ops::filter_cmp(CmpOp::Lt, &s(0, POS_INF), &s(NEG_INF, POS_INF));
    assert_eq!((x, y), (s(0, POS_INF), s(1, POS_INF)));
    assert_eq!(ops::filter_cmp(CmpOp::Gt, &s(0, 2), &s(2, 9)), (IntervalSet::empty(), IntervalSet::empty()));
}

#[test]
fn widening_fills_gaps_inside_the_hull() {
    // Without gap filling this chain would change at every step.
    let mut w = set(&[(0, 0), (100, 100)], false);
    let mut changes = 0;
    for k in 1..50 {
        let next = w.widen(&w.join(&IntervalSet::singleton(2 * k)), WidenBounds::VALUE_RANGE);
        changes += usize::from(next != w);
        w = next;
    }
    assert_eq!((changes, w), (1, s(0, 100)));
}

#[test]
fn many_intervals_are_hulled() {
    // 10 × 10 pairs > MAX_PAIRS: the left operand is hulled first, then the product is small.
    let points = set(&(0..10).map(|k| (10 * k, 10 * k)).collect::<Vec<_>>(), false);
    assert_eq!(ops::add(&points, &points), ops::add(&points.hull(), &points));
    assert_eq!(ops::add(&points, &IntervalSet::singleton(1)).intervals().len(), 10);
}

#[test]
fn hand_computed_widening() {
    let b = WidenBounds::VALUE_RANGE;
    // A growing upper bound jumps to the limit; a gap that the new iterate reaches is filled.
    assert_eq!(s(0, 1).widen(&s(0, 2), b), s(0, MAX_VALUE));
    assert_eq!(s(0, 1).widen(&s(-1, 1), b), s(MIN_VALUE, 1));
    let x = set(&[(0, 0), (10, 10)], false);
    assert_eq!(x.widen(&set(&[(0, 0), (5, 5), (10, 10)], false), b), s(0, 10));
    assert_eq!(x.widen(&x, b), x);
}
