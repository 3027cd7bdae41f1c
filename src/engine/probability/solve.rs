//! Sound value iteration (Quatmann and Katoen, CAV 2018) on the states whose value the graph
//! does not decide (docs/probability.md, "Guaranteed intervals").
//!
//! The values `v` solve `v(s) = r(s) + Σ_t P(s, t) v(t)` on the undecided states, every other
//! state having a known value (an exit). After `k` sweeps, `x(s)` is what is collected in `k`
//! steps (the reward, and the exits' values reached) and `y(s)` the probability of being still
//! undecided after them, so `v(s) = x(s) + y(s) · (a mean of v over undecided states)`. Where
//! every `y(s) < 1`, the least value is at least `min x(s) / (1 - y(s))` and the greatest at
//! most `max x(s) / (1 - y(s))`; with them (and the bounds known beforehand, `[0, 1]` for a
//! probability), every `v(s)` lies in `[x(s) + y(s) L, x(s) + y(s) U]`. The iteration stops
//! when the interval of the initial distribution's value is narrow enough, or when the run's
//! limits stop it: the interval then is the one reached, which is still guaranteed. Plain
//! value iteration, which stops when two sweeps differ little, can stop far from the value.

use super::super::par::Workers;
use super::chain::{Edge, RowBuf, Rows};
use super::{Interval, SweepFn};
use crate::limits::Limits;
use std::marker::PhantomData;
use std::time::Instant;

/// What a state collects at each step it spends undecided.
#[derive(Clone, Copy)]
pub(crate) enum Reward<'a> {
    /// Nothing: the value is the probability of reaching the exits, weighted by their values.
    Zero,
    /// One: the expected number of steps before an exit.
    One,
    /// Its own reward.
    Each(&'a [f64]),
}

impl Reward<'_> {
    #[inline]
    fn at(&self, s: usize) -> f64 {
        match self {
            Reward::Zero => 0.0,
            Reward::One => 1.0,
            Reward::Each(r) => r[s],
        }
    }
}

/// A system to solve: its rows, the undecided states, and per value sought the exits' values
/// (`exit[s]` for every decided state; ignored for undecided ones; empty when every exit is
/// worth 0, which spares an array of the states' size) and the reward.
pub(crate) struct System<'a> {
    pub(crate) rows: &'a dyn Rows,
    /// The undecided states, increasing; every one of them leaves them with probability 1.
    pub(crate) undecided: &'a [u32],
    pub(crate) values: Vec<(Vec<f64>, Reward<'a>)>,
    /// What is known of every value beforehand (`[0, 1]` for probabilities, `[0, ∞)` for
    /// expected steps).
    pub(crate) known: Interval,
    /// The initial distribution: states and weights (summing to 1).
    pub(crate) initial: &'a [(u32, f64)],
}

/// When to stop: the width of the initial value's interval, absolute or relative to its lower
/// end (absolute below 1: a value of 0, such as the expected steps when ψ holds at the start,
/// has an interval at least as wide as the rounding margin, so a purely relative test would
/// never stop).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Precision {
    Absolute(f64),
    Relative(f64),
}

impl Precision {
    fn reached(&self, i: &Interval) -> bool {
        let w = i.upper - i.lower;
        match *self {
            Precision::Absolute(e) => w <= e,
            Precision::Relative(e) => w <= e * i.lower.abs().max(1.0),
        }
    }
}

/// The outcome of `solve`: per value sought, the interval of the initial distribution's value
/// and every state's (when asked for), and the sweeps made.
pub(crate) struct Solved {
    pub(crate) initial: Vec<Interval>,
    /// Per value, every state's lower and upper bound (exits exact).
    pub(crate) states: Vec<(Vec<f64>, Vec<f64>)>,
    pub(crate) sweeps: u64,
    /// Whether the precision was reached (otherwise the limits stopped the iteration).
    pub(crate) converged: bool,
}

/// Undecided states per job of a sweep.
const CHUNK: usize = 4096;

/// A slice written at disjoint indices by several threads.
struct Shared<'a> {
    ptr: *mut f64,
    len: usize,
    _p: PhantomData<&'a mut [f64]>,
}

// SAFETY: every index is written by one job only (the chunks of a sweep are disjoint), and
// nothing reads the slice while a sweep writes it.
unsafe impl Sync for Shared<'_> {}
// SAFETY: as for `Sync`: the slice outlives the sweep (`'a`), and the jobs write disjoint
// indices.
unsafe impl Send for Shared<'_> {}

impl<'a> Shared<'a> {
    fn new(v: &'a mut [f64]) -> Shared<'a> {
        Shared { ptr: v.as_mut_ptr(), len: v.len(), _p: PhantomData }
    }
    #[inline]
    fn set(&self, i: usize, x: f64) {
        assert!(i < self.len);
        // SAFETY: in bounds; the index belongs to the caller's chunk alone (see `Sync`).
        unsafe { *self.ptr.add(i) = x }
    }
}

/// What one chunk of a sweep found: per value the least and greatest `x / (1 - y)`, whether
/// some `y` is still 1, and the longest row.
struct ChunkStats {
    lo: [f64; MAX_VALUES],
    hi: [f64; MAX_VALUES],
    stuck: bool,
    longest: usize,
}

/// The most values one `solve` computes together (besides `y`).
const MAX_VALUES: usize = 2;

/// `Σ_t P(s, t) v(t)` for each of the `w` numbers a state has in `v` (stride `w`), over the
/// row `row` of `s` (a deadlock keeps its own), into `out`.
#[inline]
fn means(row: &[Edge], s: usize, v: &[f64], w: usize, out: &mut [f64; MAX_VALUES + 1]) {
    if row.is_empty() {
        out[..w].copy_from_slice(&v[s * w..s * w + w]);
        return;
    }
    *out = [0.0; MAX_VALUES + 1];
    let mut total = 0u64;
    for e in row {
        let c = e.count as f64;
        let t = e.to as usize * w;
        for j in 0..w {
            out[j] += c * v[t + j];
        }
        total += e.count as u64;
    }
    let total = total as f64;
    for o in out.iter_mut().take(w) {
        *o /= total;
    }
}

/// Solves `sys` on `workers` until `precision` or a stop of `limits`; `per_state` keeps
/// every state's bounds; `progress` is told after each sweep.
///
/// Each state's numbers are kept together, `y` then each `x`, so that a row's successors
/// cost one cache miss each, not one per number.
pub(crate) fn solve(
    sys: &System,
    precision: Precision,
    per_state: bool,
    workers: &Workers,
    limits: &Limits,
    progress: Option<&SweepFn>,
) -> Solved {
    let n = sys.rows.len();
    let k = sys.values.len();
    assert!((1..=MAX_VALUES).contains(&k), "one or two values at a time");
    let w = k + 1;
    let mut v = vec![0.0; n * w];
    for (j, (exit, _)) in sys.values.iter().enumerate() {
        for (s, &e) in exit.iter().enumerate() {
            v[s * w + 1 + j] = e;
        }
    }
    for &s in sys.undecided {
        let s = s as usize;
        v[s * w] = 1.0;
        v[s * w + 1..s * w + w].fill(0.0);
    }
    let mut v2 = v.clone();
    let mut best: Vec<Interval> = (0..k).map(|_| Interval { lower: f64::NEG_INFINITY, upper: f64::INFINITY }).collect();
    // The bounds L, U of the last sweep (the known ones before any).
    let mut lu: Vec<(f64, f64)> = vec![(sys.known.lower, sys.known.upper); k];
    let (mut sweeps, mut longest) = (0u64, 1usize);
    let started = Instant::now();
    let chunks = sys.undecided.len().div_ceil(CHUNK);
    let mut converged = false;
    loop {
        let cur = initial_bounds(sys, &v, w, &lu, sweeps, longest);
        for (b, c) in best.iter_mut().zip(&cur) {
            b.lower = b.lower.max(c.lower);
            b.upper = b.upper.min(c.upper);
        }
        if let Some(p) = progress {
            p(sweeps, &best[0], started.elapsed().as_secs_f64());
        }
        if best.iter().all(|b| precision.reached(b)) {
            converged = true;
            break;
        }
        if limits.stopped().is_some() {
            break;
        }
        let outs = {
            let out = Shared::new(&mut v2);
            let v = &v;
            let job = |c: usize| -> Option<ChunkStats> {
                if limits.stopped().is_some() {
                    return None;
                }
                let mut buf = RowBuf::default();
                let mut st = ChunkStats {
                    lo: [f64::INFINITY; MAX_VALUES],
                    hi: [f64::NEG_INFINITY; MAX_VALUES],
                    stuck: false,
                    longest: 0,
                };
                let mut m = [0.0; MAX_VALUES + 1];
                for &s in &sys.undecided[c * CHUNK..((c + 1) * CHUNK).min(sys.undecided.len())] {
                    let s = s as usize;
                    let row = sys.rows.row(s, &mut buf);
                    st.longest = st.longest.max(row.len());
                    means(row, s, v, w, &mut m);
                    let ny = m[0];
                    out.set(s * w, ny);
                    // The ratios with their rounding errors on the safe side: y and x are
                    // computed to within `rounding` of their exact values.
                    let e = rounding(sweeps + 1, longest.max(row.len()), 1.0);
                    let (d_lo, d_hi) = (1.0 - ny - e, 1.0 - ny + e);
                    for (j, (_, reward)) in sys.values.iter().enumerate() {
                        let nx = reward.at(s) + m[1 + j];
                        out.set(s * w + 1 + j, nx);
                        if d_lo > 0.0 {
                            let ex = rounding(sweeps + 1, longest.max(row.len()), nx);
                            st.lo[j] = st.lo[j].min((nx - ex).max(0.0) / d_hi);
                            st.hi[j] = st.hi[j].max((nx + ex) / d_lo);
                        }
                    }
                    st.stuck |= d_lo <= 0.0;
                }
                Some(st)
            };
            workers.in_chunks(chunks, job)
        };
        if outs.iter().any(Option::is_none) {
            // Stopped within the sweep: the last whole sweep's bounds stand.
            break;
        }
        std::mem::swap(&mut v, &mut v2);
        sweeps += 1;
        let outs: Vec<ChunkStats> = outs.into_iter().flatten().collect();
        let stuck = outs.iter().any(|o| o.stuck);
        longest = longest.max(outs.iter().map(|o| o.longest).max().unwrap_or(0));
        for (j, b) in lu.iter_mut().enumerate() {
            let (mut lo, mut hi) = (sys.known.lower, sys.known.upper);
            if !stuck {
                let l = outs.iter().map(|o| o.lo[j]).fold(f64::INFINITY, f64::min);
                let u = outs.iter().map(|o| o.hi[j]).fold(f64::NEG_INFINITY, f64::max);
                if l.is_finite() {
                    lo = lo.max(l);
                }
                if u.is_finite() {
                    hi = hi.min(u);
                }
            }
            *b = (lo, hi);
        }
    }
    drop(v2);
    let states = if per_state {
        (0..k)
            .map(|j| {
                let (l, u) = lu[j];
                let mut lo: Vec<f64> = (0..n).map(|s| v[s * w + 1 + j]).collect();
                let mut hi = lo.clone();
                for &s in sys.undecided {
                    let s = s as usize;
                    let (x, y) = (v[s * w + 1 + j], v[s * w]);
                    let (a, b) = if y > 0.0 { (x + y * l, x + y * u) } else { (x, x) };
                    let e = rounding(sweeps, longest, 1.0);
                    lo[s] = (a - rounding(sweeps, longest, a) - l.abs() * e).max(sys.known.lower);
                    hi[s] = (b + rounding(sweeps, longest, b) + u.abs() * e).min(sys.known.upper);
                }
                (lo, hi)
            })
            .collect()
    } else {
        Vec::new()
    };
    Solved { initial: best, states, sweeps, converged }
}

/// A bound on the rounding errors of `sweeps` sweeps over rows of at most `longest` entries,
/// for values of magnitude up to `v`: each sweep adds at most `(longest + 4)` relative
/// roundings of the values, and the iteration does not amplify earlier errors (its matrix is
/// substochastic).
pub(crate) fn rounding(sweeps: u64, longest: usize, v: f64) -> f64 {
    (sweeps as f64 + 2.0) * (longest as f64 + 4.0) * f64::EPSILON * v.abs().max(1.0)
}

/// The interval of each value of the initial distribution, from the current sweep (`v` with
/// stride `w`: `y`, then each value's `x`).
fn initial_bounds(sys: &System, v: &[f64], w: usize, lu: &[(f64, f64)], sweeps: u64, longest: usize) -> Vec<Interval> {
    lu.iter()
        .enumerate()
        .map(|(j, &(l, u))| {
            let (mut lo, mut hi) = (0.0, 0.0);
            for &(s, p) in sys.initial {
                let s = s as usize;
                let (x, y) = (v[s * w + 1 + j], v[s * w]);
                // Exits have y = 0 and x their value.
                lo += p * (x + if y > 0.0 { y * l } else { 0.0 });
                hi += p * (x + if y > 0.0 { y * u } else { 0.0 });
            }
            // Each bound's margin from its own magnitude: before any upper bound is known, `hi`
            // is infinite, and a margin taken from it would erase the lower bound too.
            let m_lo = rounding(sweeps, longest + sys.initial.len(), lo) + l.abs() * rounding(sweeps, longest, 1.0);
            let m_hi = rounding(sweeps, longest + sys.initial.len(), hi) + u.abs() * rounding(sweeps, longest, 1.0);
            Interval { lower: (lo - m_lo).max(sys.known.lower), upper: (hi + m_hi).min(sys.known.upper) }
        })
        .collect()
}
