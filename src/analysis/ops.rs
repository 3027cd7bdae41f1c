//! Sound abstract versions of the expression operators (docs/semantics.md, D9, D10) on
//! [`IntervalSet`]s.
//!
//! Soundness is w.r.t. `crate::model::arith`: whenever the concrete operation on values drawn
//! from the operands yields a value, the abstract result contains it. The operands' integers are
//! taken to be LAbS values, and results are clamped to `MIN_VALUE..=MAX_VALUE`:
//!
//! - an out-of-range result is an overflow *error*, not a value, so it is dropped;
//! - division / modulo by zero is an error too, so only non-zero divisors contribute (the engine
//!   reports division by zero on its own; this domain only describes the values that exist);
//! - ⊥ (D10): an operation with a ⊥ operand gives ⊥ (even `⊥ / 0`), so the result may be ⊥
//!   whenever one operand may be ⊥ and the other has any possible value; comparisons with ⊥ are
//!   false.
//!
//! Binary operators work interval by interval and join the pieces. Bounds are computed in
//! `i128`, where the infinities become ±2^100: beyond every `i64`, so formulas over interval
//! corners stay sound, and small enough that sums do not overflow (products saturate).

use std::borrow::Cow;

use super::intervals::{IntervalSet, NEG_INF, POS_INF};
use crate::model::arith::{MAX_VALUE, MIN_VALUE};
use crate::syntax::ast::{BinOp, CmpOp, MinMax};

/// Above this many interval pairs, the operand with more intervals is replaced by its hull:
/// a little precision for a bounded cost.
pub(crate) const MAX_PAIRS: usize = 64;

/// Divisor ranges up to this many values are split into single divisors for `%` (more precise
/// remainders, e.g. wrap-around `[-1, 3] % 5 = [0, 3] ∪ [4, 4]`).
const MOD_ENUMERATE: i128 = 8;

const INF: i128 = 1 << 100;

type Raw = (i128, i128);

fn bound128(b: i64) -> i128 {
    match b {
        NEG_INF => -INF,
        POS_INF => INF,
        v => i128::from(v),
    }
}

/// The pieces, clamped to the value range (the rest would be overflow errors) and normalised.
fn finish(raw: Vec<Raw>, undef: bool) -> IntervalSet {
    let (min, max) = (i128::from(MIN_VALUE), i128::from(MAX_VALUE));
    let clamped = raw.into_iter().filter(|&(lo, hi)| lo <= hi && hi >= min && lo <= max).map(|(lo, hi)| {
        // In range after clamping, so the conversions cannot fail.
        (lo.max(min) as i64, hi.min(max) as i64)
    });
    IntervalSet::from_intervals(clamped, undef)
}

/// ⊥ is a possible result of a strict binary operation iff some pair of possible operands has a ⊥.
fn undef_of(x: &IntervalSet, y: &IntervalSet) -> bool {
    (x.contains_undef() && !y.is_empty()) || (y.contains_undef() && !x.is_empty())
}

/// Applies `f` to every pair of intervals (after hulling if there are too many pairs).
fn pairwise(x: &IntervalSet, y: &IntervalSet, undef: bool, f: impl Fn(Raw, Raw, &mut Vec<Raw>)) -> IntervalSet {
    let (mut x, mut y) = (Cow::Borrowed(x), Cow::Borrowed(y));
    while x.intervals().len() * y.intervals().len() > MAX_PAIRS {
        if x.intervals().len() >= y.intervals().len() {
            x = Cow::Owned(x.hull());
        } else {
            y = Cow::Owned(y.hull());
        }
    }
    let mut raw = Vec::new();
    for a in x.intervals() {
        for b in y.intervals() {
            f((bound128(a.lo), bound128(a.hi)), (bound128(b.lo), bound128(b.hi)), &mut raw);
        }
    }
    finish(raw, undef)
}

/// The smallest interval containing `f` at the four corners: exact for functions monotone in
/// each argument on the box (all of `+ - *`, and `/ :` once the divisor has a fixed sign).
fn corners(a: Raw, b: Raw, f: impl Fn(i128, i128) -> i128) -> Raw {
    let c = [f(a.0, b.0), f(a.0, b.1), f(a.1, b.0), f(a.1, b.1)];
    (*c.iter().min().unwrap(), *c.iter().max().unwrap())
}

/// The divisor interval without 0, as its negative part and its positive part.
fn nonzero_parts(b: Raw) -> impl Iterator<Item = Raw> {
    [(b.0, b.1.min(-1)), (b.0.max(1), b.1)].into_iter().filter(|(lo, hi)| lo <= hi)
}

/// `:` on `i128` (the same rounding as `arith::rdiv`: to nearest, ties away from zero).
fn rdiv128(n: i128, d: i128) -> i128 {
    let (q, r) = (n / d, n % d);
    if 2 * r.abs() >= d.abs() { if (n < 0) != (d < 0) { q - 1 } else { q + 1 } } else { q }
}

/// `a % d` for a single divisor `d >= 1` (the result depends on `|d|` only).
fn mod_single(a: Raw, d: i128, out: &mut Vec<Raw>) {
    if a.1 - a.0 + 1 >= d {
        out.push((0, d - 1));
        return;
    }
    let (r1, r2) = (a.0.rem_euclid(d), a.1.rem_euclid(d));
    if r1 <= r2 {
        out.push((r1, r2));
    } else {
        // The range wraps around a multiple of `d`.
        out.push((0, r2));
        out.push((r1, d - 1));
    }
}

/// `a % b` for `b` ranging over the positive `[p, q]` (absolute values of the divisors).
fn mod_range(a: Raw, (p, q): Raw, out: &mut Vec<Raw>) {
    if q < INF && q - p < MOD_ENUMERATE {
        (p..=q).for_each(|d| mod_single(a, d, out));
    } else if a.0 >= 0 && a.1 < p {
        out.push(a);
    } else if a.0 >= 0 {
        out.push((0, a.1.min(q - 1)));
    } else {
        out.push((0, q - 1));
    }
}

pub fn add(x: &IntervalSet, y: &IntervalSet) -> IntervalSet {
    pairwise(x, y, undef_of(x, y), |a, b, out| out.push((a.0 + b.0, a.1 + b.1)))
}

pub fn sub(x: &IntervalSet, y: &IntervalSet) -> IntervalSet {
    pairwise(x, y, undef_of(x, y), |a, b, out| out.push((a.0 - b.1, a.1 - b.0)))
}

pub fn mul(x: &IntervalSet, y: &IntervalSet) -> IntervalSet {
    pairwise(x, y, undef_of(x, y), |a, b, out| out.push(corners(a, b, i128::saturating_mul)))
}

/// `/` (truncating). Zero divisors contribute nothing (a run-time error).
pub fn div(x: &IntervalSet, y: &IntervalSet) -> IntervalSet {
    pairwise(x, y, undef_of(x, y), |a, b, out| out.extend(nonzero_parts(b).map(|b| corners(a, b, |n, d| n / d))))
}

/// `:` (rounding to nearest, ties away from zero; monotone like `/`). Zero divisors contribute
/// nothing.
pub fn rdiv(x: &IntervalSet, y: &IntervalSet) -> IntervalSet {
    pairwise(x, y, undef_of(x, y), |a, b, out| out.extend(nonzero_parts(b).map(|b| corners(a, b, rdiv128))))
}

/// `%` (remainder in `[0, |d|)`). Zero divisors contribute nothing.
pub fn modulo(x: &IntervalSet, y: &IntervalSet) -> IntervalSet {
    pairwise(x, y, undef_of(x, y), |a, b, out| {
        for (lo, hi) in nonzero_parts(b) {
            let abs = if hi < 0 { (-hi, -lo) } else { (lo, hi) };
            mod_range(a, abs, out);
        }
    })
}

pub fn binary(op: BinOp, x: &IntervalSet, y: &IntervalSet) -> IntervalSet {
    match op {
        BinOp::Add => add(x, y),
        BinOp::Sub => sub(x, y),
        BinOp::Mul => mul(x, y),
        BinOp::Div => div(x, y),
        BinOp::Mod => modulo(x, y),
        BinOp::RDiv => rdiv(x, y),
    }
}

pub fn min(x: &IntervalSet, y: &IntervalSet) -> IntervalSet {
    pairwise(x, y, undef_of(x, y), |a, b, out| out.push((a.0.min(b.0), a.1.min(b.1))))
}

pub fn max(x: &IntervalSet, y: &IntervalSet) -> IntervalSet {
    pairwise(x, y, undef_of(x, y), |a, b, out| out.push((a.0.max(b.0), a.1.max(b.1))))
}

pub(crate) fn min_max(op: MinMax, x: &IntervalSet, y: &IntervalSet) -> IntervalSet {
    match op {
        MinMax::Min => min(x, y),
        MinMax::Max => max(x, y),
    }
}

fn unary(x: &IntervalSet, f: impl Fn(Raw) -> Raw) -> IntervalSet {
    let raw = x.intervals().iter().map(|i| f((bound128(i.lo), bound128(i.hi)))).collect();
    finish(raw, x.contains_undef())
}

/// Unary minus.
pub fn neg(x: &IntervalSet) -> IntervalSet {
    unary(x, |(lo, hi)| (-hi, -lo))
}

pub fn abs(x: &IntervalSet) -> IntervalSet {
    unary(x, |(lo, hi)| {
        if lo >= 0 {
            (lo, hi)
        } else if hi <= 0 {
            (-hi, -lo)
        } else {
            (0, hi.max(-lo))
        }
    })
}

/// `[a..b]`: a value in `a..b-1` for some possible `a` and `b`. A ⊥ bound disables the step
/// (D10), so the result never contains ⊥; nor does an empty range give a value.
pub fn nondet(lo: &IntervalSet, hi: &IntervalSet) -> IntervalSet {
    pairwise(lo, hi, false, |a, b, out| out.push((a.0, b.1 - 1)))
}

/// `if c then t else e`, given what the condition may evaluate to.
pub fn ite(cond_may_true: bool, cond_may_false: bool, then: &IntervalSet, els: &IntervalSet) -> IntervalSet {
    match (cond_may_true, cond_may_false) {
        (true, true) => then.join(els),
        (true, false) => then.clone(),
        (false, true) => els.clone(),
        (false, false) => IntervalSet::empty(),
    }
}

/// The comparison that holds exactly when `op` does not (on integers; ⊥ falsifies both).
pub(crate) fn negate(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Eq => CmpOp::Ne,
        CmpOp::Ne => CmpOp::Eq,
        CmpOp::Lt => CmpOp::Ge,
        CmpOp::Ge => CmpOp::Lt,
        CmpOp::Le => CmpOp::Gt,
        CmpOp::Gt => CmpOp::Le,
    }
}

/// `y op x` holds iff `x op' y` holds.
fn flip(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Ge => CmpOp::Le,
        CmpOp::Eq | CmpOp::Ne => op,
    }
}

/// Whether `a op b` holds for some integers `a ∈ x`, `b ∈ y` (⊥ never makes it true).
pub fn may_be_true(op: CmpOp, x: &IntervalSet, y: &IntervalSet) -> bool {
    let (Some(x_min), Some(x_max), Some(y_min), Some(y_max)) = (x.min(), x.max(), y.min(), y.max()) else {
        return false;
    };
    match op {
        CmpOp::Eq => x.meet(y).has_values(),
        CmpOp::Ne => !matches!((x.as_singleton(), y.as_singleton()), (Some(a), Some(b)) if a == b),
        CmpOp::Lt => x_min < y_max,
        CmpOp::Le => x_min <= y_max,
        CmpOp::Gt => x_max > y_min,
        CmpOp::Ge => x_max >= y_min,
    }
}

/// Whether `a op b` is false for some possible `a ∈ x`, `b ∈ y`: a ⊥ operand makes any
/// comparison false (D10).
pub fn may_be_false(op: CmpOp, x: &IntervalSet, y: &IntervalSet) -> bool {
    undef_of(x, y) || may_be_true(negate(op), x, y)
}

/// What `x op y` may evaluate to.
pub fn compare(op: CmpOp, x: &IntervalSet, y: &IntervalSet) -> BoolSet {
    BoolSet { may_true: may_be_true(op, x, y), may_false: may_be_false(op, x, y) }
}

/// `b + d` for a bound, where the infinities absorb `d`.
fn step(b: i64, d: i64) -> i64 {
    if b == NEG_INF || b == POS_INF { b } else { b + d }
}

/// Guard filtering: the parts `(x', y')` of `x` and `y` that can make `x op y` true. Every pair
/// `(a, b)` with `a op b` has `a ∈ x'` and `b ∈ y'`; ⊥ is never kept.
pub fn filter_cmp(op: CmpOp, x: &IntervalSet, y: &IntervalSet) -> (IntervalSet, IntervalSet) {
    if !may_be_true(op, x, y) {
        return (IntervalSet::empty(), IntervalSet::empty());
    }
    let (xd, yd) = (x.defined(), y.defined());
    // Non-empty and `may_be_true` guarantee the bounds and the ±1 below stay within i64.
    let (x_min, y_max) = (xd.min().unwrap(), yd.max().unwrap());
    match op {
        CmpOp::Eq => {
            let both = xd.meet(&yd);
            (both.clone(), both)
        }
        CmpOp::Ne => {
            let x2 = y.as_singleton().map_or(xd.clone(), |c| xd.remove(c));
            let y2 = x.as_singleton().map_or(yd.clone(), |c| yd.remove(c));
            (x2, y2)
        }
        CmpOp::Lt => (
            xd.meet(&IntervalSet::range(NEG_INF, step(y_max, -1))),
            yd.meet(&IntervalSet::range(step(x_min, 1), POS_INF)),
        ),
        CmpOp::Le => (xd.meet(&IntervalSet::range(NEG_INF, y_max)), yd.meet(&IntervalSet::range(x_min, POS_INF))),
        CmpOp::Gt | CmpOp::Ge => {
            let (y2, x2) = filter_cmp(flip(op), y, x);
            (x2, y2)
        }
    }
}

/// The possible outcomes of a condition: an abstract boolean.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BoolSet {
    pub may_true: bool,
    pub may_false: bool,
}

impl BoolSet {
    pub(crate) const TRUE: BoolSet = BoolSet { may_true: true, may_false: false };
    pub(crate) const FALSE: BoolSet = BoolSet { may_true: false, may_false: true };

    pub(crate) fn constant(b: bool) -> BoolSet {
        if b { BoolSet::TRUE } else { BoolSet::FALSE }
    }

    /// Short-circuiting does not matter here: only the outcomes do.
    pub fn and(self, other: BoolSet) -> BoolSet {
        BoolSet {
            may_true: self.may_true && other.may_true,
            may_false: self.may_false || (self.may_true && other.may_false),
        }
    }

    pub fn or(self, other: BoolSet) -> BoolSet {
        !(!self).and(!other)
    }
}

impl std::ops::Not for BoolSet {
    type Output = BoolSet;

    fn not(self) -> BoolSet {
        BoolSet { may_true: self.may_false, may_false: self.may_true }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(lo: i64, hi: i64) -> IntervalSet {
        IntervalSet::range(lo, hi)
    }

    #[test]
    fn hand_computed() {
        assert_eq!(add(&s(0, 2), &s(3, 3)), s(3, 5));
        assert_eq!(modulo(&s(-7, -7), &s(5, 5)), s(3, 3));
        assert_eq!(div(&s(0, 4), &s(2, 2)), s(0, 2));
        assert_eq!(modulo(&s(-1, 3), &s(5, 5)), s(0, 4));
        assert_eq!(modulo(&s(-1, 2), &s(5, 5)), IntervalSet::from_intervals([(0, 2), (4, 4)], false));
        assert_eq!(rdiv(&s(-7, -7), &s(2, 2)), s(-4, -4));
        assert_eq!(div(&s(1, 1), &s(0, 0)), IntervalSet::empty());
        assert_eq!(div(&IntervalSet::undef_only(), &s(0, 0)), IntervalSet::undef_only());
    }
}
