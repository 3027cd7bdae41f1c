//! The abstract values of the value analysis: finite unions of integer intervals plus ⊥.
//!
//! Bounds are `i64`, and the two extreme `i64`s stand for the infinities: [`NEG_INF`] is −∞ and
//! [`POS_INF`] is +∞. LAbS values live in `MIN_VALUE..=MAX_VALUE` (32-bit), so no real value can
//! be confused with an infinity, and an interval `[NEG_INF, 5]` is the unbounded `(−∞, 5]`.
//!
//! Normal form (VMCAI 2023): the intervals are sorted, each has `lo <= hi`, and consecutive ones
//! are separated by at least one missing integer (`[0, 2] ∪ [3, 3]` is stored as `[0, 3]`).
//! Every constructor and operation returns a value in normal form, so `==` is set equality.

use std::fmt;

use crate::model::arith::{MAX_VALUE, MIN_VALUE};

/// −∞ as a bound.
pub const NEG_INF: i64 = i64::MIN;
/// +∞ as a bound.
pub const POS_INF: i64 = i64::MAX;

/// A closed interval `[lo, hi]` with `lo <= hi` (bounds may be [`NEG_INF`] / [`POS_INF`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Interval {
    pub lo: i64,
    pub hi: i64,
}

impl Interval {
    pub(crate) fn new(lo: i64, hi: i64) -> Interval {
        debug_assert!(lo <= hi, "empty interval [{lo}, {hi}]");
        Interval { lo, hi }
    }

    pub(crate) fn is_bounded(self) -> bool {
        self.lo != NEG_INF && self.hi != POS_INF
    }
}

/// Where widening sends a bound that keeps growing: the LNT integer range by default, or a
/// declared bound of the variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WidenBounds {
    pub(crate) lo: i64,
    pub(crate) hi: i64,
}

impl WidenBounds {
    /// The 32-bit range every LAbS value must stay in.
    pub const VALUE_RANGE: WidenBounds = WidenBounds { lo: MIN_VALUE, hi: MAX_VALUE };
}

impl Default for WidenBounds {
    fn default() -> Self {
        WidenBounds::VALUE_RANGE
    }
}

/// A set of possible values: integers (a normalised union of intervals) and possibly ⊥.
///
/// `Default` is the empty set, the bottom of the lattice (no possible value: unreachable).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct IntervalSet {
    intervals: Vec<Interval>,
    undef: bool,
}

impl IntervalSet {
    /// No value at all (not even ⊥).
    pub fn empty() -> IntervalSet {
        IntervalSet::default()
    }

    pub fn singleton(v: i64) -> IntervalSet {
        IntervalSet::range(v, v)
    }

    /// `[lo, hi]`; empty when `lo > hi`. Use [`NEG_INF`] / [`POS_INF`] for unbounded sides.
    pub fn range(lo: i64, hi: i64) -> IntervalSet {
        let intervals = if lo <= hi { vec![Interval::new(lo, hi)] } else { Vec::new() };
        IntervalSet { intervals, undef: false }
    }

    /// Every integer, and ⊥ (for the tests).
    #[cfg(feature = "test-support")]
    pub fn top() -> IntervalSet {
        IntervalSet { intervals: vec![Interval::new(NEG_INF, POS_INF)], undef: true }
    }

    /// Every LAbS value (`MIN_VALUE..=MAX_VALUE`), without ⊥.
    pub(crate) fn value_range() -> IntervalSet {
        IntervalSet::range(MIN_VALUE, MAX_VALUE)
    }

    /// Only ⊥.
    pub fn undef_only() -> IntervalSet {
        IntervalSet { intervals: Vec::new(), undef: true }
    }

    /// Normalises any list of (possibly overlapping, unsorted, empty) intervals.
    pub fn from_intervals(raw: impl IntoIterator<Item = (i64, i64)>, undef: bool) -> IntervalSet {
        let mut v: Vec<Interval> =
            raw.into_iter().filter(|(lo, hi)| lo <= hi).map(|(lo, hi)| Interval::new(lo, hi)).collect();
        v.sort_unstable();
        let mut out: Vec<Interval> = Vec::with_capacity(v.len());
        for i in v {
            match out.last_mut() {
                // Overlapping or adjacent (`hi + 1 >= lo`, computed without overflow).
                Some(last) if i128::from(last.hi) + 1 >= i128::from(i.lo) => last.hi = last.hi.max(i.hi),
                _ => out.push(i),
            }
        }
        IntervalSet { intervals: out, undef }
    }

    /// The same integers, with ⊥ added or removed.
    pub fn with_undef(mut self, undef: bool) -> IntervalSet {
        self.undef = undef;
        self
    }

    /// The integers only (⊥ removed).
    pub(crate) fn defined(&self) -> IntervalSet {
        self.clone().with_undef(false)
    }

    pub fn intervals(&self) -> &[Interval] {
        &self.intervals
    }

    /// No possible value at all, neither an integer nor ⊥.
    pub fn is_empty(&self) -> bool {
        self.intervals.is_empty() && !self.undef
    }

    /// At least one integer is possible.
    pub fn has_values(&self) -> bool {
        !self.intervals.is_empty()
    }

    pub fn contains(&self, v: i64) -> bool {
        // The intervals are sorted and disjoint: find the last one starting at or before `v`.
        let idx = self.intervals.partition_point(|i| i.lo <= v);
        idx > 0 && self.intervals[idx - 1].hi >= v
    }

    pub fn contains_undef(&self) -> bool {
        self.undef
    }

    /// Smallest integer ([`NEG_INF`] if unbounded below); `None` without integers.
    pub fn min(&self) -> Option<i64> {
        self.intervals.first().map(|i| i.lo)
    }

    /// Largest integer ([`POS_INF`] if unbounded above); `None` without integers.
    pub fn max(&self) -> Option<i64> {
        self.intervals.last().map(|i| i.hi)
    }

    /// The single interval covering every integer of the set (⊥ kept).
    pub fn hull(&self) -> IntervalSet {
        match (self.min(), self.max()) {
            (Some(lo), Some(hi)) => IntervalSet::range(lo, hi).with_undef(self.undef),
            _ => self.clone(),
        }
    }

    /// Number of integers (⊥ not counted); `None` if unbounded.
    pub fn cardinality(&self) -> Option<u64> {
        self.intervals.iter().try_fold(0u64, |acc, i| {
            if !i.is_bounded() {
                return None;
            }
            // At most 2^64 - 1 integers fit between two non-sentinel i64s.
            let n = u64::try_from(i128::from(i.hi) - i128::from(i.lo) + 1).ok()?;
            acc.checked_add(n)
        })
    }

    /// The single integer, if the set has exactly one (⊥ ignored).
    pub(crate) fn as_singleton(&self) -> Option<i64> {
        match self.intervals.as_slice() {
            [i] if i.lo == i.hi => Some(i.lo),
            _ => None,
        }
    }

    /// The integers in increasing order (⊥ excluded), or `None` if there are more than `limit`
    /// (or infinitely many): enumeration is only meant for small sets.
    pub fn iter_values(&self, limit: u64) -> Option<impl Iterator<Item = i64> + '_> {
        match self.cardinality() {
            Some(n) if n <= limit => Some(self.intervals.iter().flat_map(|i| i.lo..=i.hi)),
            _ => None,
        }
    }

    /// Least upper bound (set union).
    pub fn join(&self, other: &IntervalSet) -> IntervalSet {
        let raw = self.intervals.iter().chain(&other.intervals).map(|i| (i.lo, i.hi));
        IntervalSet::from_intervals(raw, self.undef || other.undef)
    }

    /// `self ⊔= other`; returns whether `self` grew (the fixpoint's "changed" test).
    pub fn join_assign(&mut self, other: &IntervalSet) -> bool {
        if other.is_subset(self) {
            return false;
        }
        *self = self.join(other);
        true
    }

    /// Greatest lower bound (set intersection).
    pub fn meet(&self, other: &IntervalSet) -> IntervalSet {
        let (a, b) = (&self.intervals, &other.intervals);
        let (mut i, mut j) = (0, 0);
        let mut out = Vec::new();
        // Merge-style sweep over the two sorted lists.
        while i < a.len() && j < b.len() {
            let lo = a[i].lo.max(b[j].lo);
            let hi = a[i].hi.min(b[j].hi);
            if lo <= hi {
                out.push(Interval::new(lo, hi));
            }
            if a[i].hi < b[j].hi {
                i += 1;
            } else {
                j += 1;
            }
        }
        // Pieces of disjoint, non-adjacent intervals are themselves disjoint and non-adjacent.
        IntervalSet { intervals: out, undef: self.undef && other.undef }
    }

    /// Inclusion: every value of `self` (⊥ included) is a value of `other`.
    pub fn is_subset(&self, other: &IntervalSet) -> bool {
        if self.undef && !other.undef {
            return false;
        }
        // Normal form: each interval of `self` must lie inside a single interval of `other`.
        self.intervals.iter().all(|i| {
            let idx = other.intervals.partition_point(|o| o.lo <= i.lo);
            idx > 0 && other.intervals[idx - 1].hi >= i.hi
        })
    }

    /// The set without the integer `v`.
    pub(crate) fn remove(&self, v: i64) -> IntervalSet {
        if !self.contains(v) {
            return self.clone();
        }
        let mut out = Vec::with_capacity(self.intervals.len() + 1);
        for &i in &self.intervals {
            if i.lo <= v && v <= i.hi {
                if i.lo < v {
                    out.push(Interval::new(i.lo, v - 1));
                }
                if v < i.hi {
                    out.push(Interval::new(v + 1, i.hi));
                }
            } else {
                out.push(i);
            }
        }
        IntervalSet { intervals: out, undef: self.undef }
    }

    /// Widening, applied to `self` (the previous iterate) and `newer` (the next one); the result
    /// contains both. To force termination: a bound that grew jumps to `bounds` (or to the
    /// infinity if it already passed it), and a gap of `self` that `newer` reaches into is
    /// filled. No step adds a gap, so each step that changes the set fills a gap, moves a bound
    /// (at most twice per side) or adds ⊥: chains stabilise after a bounded number of steps.
    pub fn widen(&self, newer: &IntervalSet, bounds: WidenBounds) -> IntervalSet {
        let (Some(old_lo), Some(old_hi)) = (self.min(), self.max()) else {
            return self.join(newer);
        };
        let undef = self.undef || newer.undef;
        let mut out: Vec<(i64, i64)> = self.intervals.iter().map(|i| (i.lo, i.hi)).collect();
        // Gaps between consecutive intervals of `self` that `newer` touches become filled.
        for k in 1..self.intervals.len() {
            let gap = IntervalSet::range(self.intervals[k - 1].hi + 1, self.intervals[k].lo - 1);
            if newer.meet(&gap).has_values() {
                out.push((self.intervals[k - 1].hi, self.intervals[k].lo));
            }
        }
        if let (Some(new_lo), Some(new_hi)) = (newer.min(), newer.max()) {
            if new_lo < old_lo {
                let to = if new_lo >= bounds.lo { bounds.lo } else { NEG_INF };
                out.push((to, old_lo));
            }
            if new_hi > old_hi {
                let to = if new_hi <= bounds.hi { bounds.hi } else { POS_INF };
                out.push((old_hi, to));
            }
        }
        IntervalSet::from_intervals(out, undef)
    }

    /// Bounds the number of intervals: while there are more than `max_intervals` (at least 1),
    /// the two neighbours with the smallest gap between them merge. Only adds values, so it is
    /// a sound over-approximation; it keeps the set's hull and ⊥ unchanged.
    pub fn normalise_with_cap(&mut self, max_intervals: usize) {
        let cap = max_intervals.max(1);
        let n = self.intervals.len();
        if n <= cap {
            return;
        }
        // Close the `n - cap` smallest gaps at once (ties: the leftmost first); gap k lies
        // between interval k and k + 1.
        let mut gaps: Vec<(i128, usize)> = self
            .intervals
            .windows(2)
            .enumerate()
            .map(|(k, w)| (i128::from(w[1].lo) - i128::from(w[0].hi), k))
            .collect();
        gaps.sort_unstable();
        let mut close = vec![false; n - 1];
        for &(_, k) in &gaps[..n - cap] {
            close[k] = true;
        }
        let mut out: Vec<Interval> = Vec::with_capacity(cap);
        for (k, &i) in self.intervals.iter().enumerate() {
            match out.last_mut() {
                Some(last) if close[k - 1] => last.hi = i.hi,
                _ => out.push(i),
            }
        }
        self.intervals = out;
    }
}

/// `{[0, 2], [5, +inf], undef}`: intervals in order (a singleton is `[3, 3]`), then `undef` if ⊥
/// is possible; the empty set is `{}`.
impl fmt::Display for IntervalSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bound = |b: i64| match b {
            NEG_INF => "-inf".to_string(),
            POS_INF => "+inf".to_string(),
            v => v.to_string(),
        };
        let mut parts: Vec<String> =
            self.intervals.iter().map(|i| format!("[{}, {}]", bound(i.lo), bound(i.hi))).collect();
        if self.undef {
            parts.push("undef".to_string());
        }
        write!(f, "{{{}}}", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjacent_intervals_merge() {
        let s = IntervalSet::range(0, 2).join(&IntervalSet::singleton(3));
        assert_eq!(s, IntervalSet::range(0, 3));
        assert_eq!(s.to_string(), "{[0, 3]}");
    }

    #[test]
    fn display() {
        let s = IntervalSet::from_intervals([(5, POS_INF), (0, 2)], true);
        assert_eq!(s.to_string(), "{[0, 2], [5, +inf], undef}");
        assert_eq!(IntervalSet::empty().to_string(), "{}");
    }

    #[test]
    fn cap_merges_smallest_gaps() {
        let mut s = IntervalSet::from_intervals([(0, 0), (2, 2), (10, 10), (100, 100)], false);
        s.normalise_with_cap(2);
        assert_eq!(s, IntervalSet::from_intervals([(0, 10), (100, 100)], false));
    }

    #[test]
    fn widening_jumps_to_bounds() {
        let old = IntervalSet::range(0, 3);
        let new = IntervalSet::range(0, 4);
        assert_eq!(old.widen(&new, WidenBounds::VALUE_RANGE), IntervalSet::range(0, MAX_VALUE));
        let wide = IntervalSet::range(0, i64::from(i32::MAX) + 7);
        assert_eq!(old.widen(&wide, WidenBounds::VALUE_RANGE), IntervalSet::range(0, POS_INF));
    }

    #[test]
    fn remove_splits() {
        let s = IntervalSet::range(0, 4).remove(2);
        assert_eq!(s, IntervalSet::from_intervals([(0, 1), (3, 4)], false));
        assert_eq!(s.cardinality(), Some(4));
    }
}
