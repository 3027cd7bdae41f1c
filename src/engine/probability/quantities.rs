//! The quantities of docs/probability.md on a chain: the probability of reaching a set of
//! states, the expected steps to it (with and without the condition that it is reached), the
//! probability of reaching it within `k` steps, and the probabilities decided by the bottom
//! components (`finally always α`, `always finally α`).

use super::chain::{RowBuf, Rows};
use super::graph::{Bottoms, zero_one};
use super::solve::{Precision, Reward, System, solve};
use super::{CURVE_STEPS, Interval, PropertyProbability, Steps, SweepFn};
use crate::engine::par::Workers;
use crate::limits::Limits;

/// What every computation needs: the chain, its initial distribution, the threads, the
/// limits, the precision, and the progress reporter of each quantity.
pub(crate) struct Ctx<'a> {
    pub(crate) rows: &'a dyn Rows,
    pub(crate) initial: &'a [(u32, f64)],
    pub(crate) workers: &'a Workers,
    pub(crate) limits: &'a Limits,
    pub(crate) precision: f64,
    pub(crate) report: &'a dyn Fn(&'static str) -> Option<Box<SweepFn>>,
}

/// The probability of reaching `target`: the initial distribution's interval, the states
/// where it is 0 and 1, and every state's bounds when `per_state`.
pub(crate) struct Reach {
    pub(crate) p: Interval,
    pub(crate) zero: Vec<bool>,
    pub(crate) one: Vec<bool>,
    pub(crate) states: Option<(Vec<f64>, Vec<f64>)>,
    pub(crate) sweeps: u64,
    pub(crate) converged: bool,
}

/// The initial distribution's mass where `f` holds.
fn mass(initial: &[(u32, f64)], f: impl Fn(usize) -> bool) -> f64 {
    initial.iter().filter(|(s, _)| f(*s as usize)).map(|(_, w)| w).sum()
}

pub(crate) fn reach(ctx: &Ctx, target: &[bool], per_state: bool, precision: f64) -> Reach {
    let n = ctx.rows.len();
    let (zero, one) = zero_one(ctx.rows, target);
    let undecided: Vec<u32> = (0..n as u32).filter(|&s| !zero[s as usize] && !one[s as usize]).collect();
    let exit: Vec<f64> = one.iter().map(|&o| if o { 1.0 } else { 0.0 }).collect();
    // Every state's bounds serve the expected steps of the runs that reach the target, which
    // are needed only when the probability lies strictly between 0 and 1.
    let per_state = per_state
        && !ctx.initial.iter().all(|&(s, _)| one[s as usize])
        && !ctx.initial.iter().all(|&(s, _)| zero[s as usize]);
    if !ctx.initial.iter().any(|&(s, _)| !zero[s as usize] && !one[s as usize]) {
        // The graph decides every initial state.
        let p = mass(ctx.initial, |s| one[s]).min(1.0);
        let states = per_state.then(|| (exit.clone(), exit));
        return Reach { p: Interval::exact(p), zero, one, states, sweeps: 0, converged: true };
    }
    let sys = System {
        rows: ctx.rows,
        undecided: &undecided,
        values: vec![(exit, Reward::Zero)],
        known: Interval { lower: 0.0, upper: 1.0 },
        initial: ctx.initial,
    };
    let progress = (ctx.report)("probability");
    let s = solve(&sys, Precision::Absolute(precision), per_state, ctx.workers, ctx.limits, progress.as_deref());
    let states = s.states.into_iter().next();
    Reach { p: s.initial[0], zero, one, states, sweeps: s.sweeps, converged: s.converged }
}

/// `finally ψ`: the probability, the expected steps, the expected steps of the runs that
/// reach ψ, and with `curve` the probability of reaching ψ within each number of steps.
pub(crate) fn finally(ctx: &Ctx, psi: &[bool], curve: bool, r: &mut PropertyProbability) {
    let n = ctx.rows.len();
    let certain = ctx.initial.iter().all(|&(s, _)| psi[s as usize]);
    // The conditional expectation needs every state's probability, to a finer precision.
    let reach_p = reach(ctx, psi, true, ctx.precision);
    r.probability = Some(reach_p.p);
    r.sweeps += reach_p.sweeps;
    r.converged = reach_p.converged;
    if !reach_p.converged {
        return;
    }
    let p_is_one = ctx.initial.iter().all(|&(s, _)| reach_p.one[s as usize]);
    let p_is_zero = ctx.initial.iter().all(|&(s, _)| reach_p.zero[s as usize]);
    // Expected steps: infinite unless ψ is reached with probability 1.
    if certain {
        r.expected_steps = Some(Steps::Within(Interval::exact(0.0)));
    } else if !p_is_one {
        r.expected_steps = Some(Steps::Infinite);
    } else {
        let undecided: Vec<u32> = (0..n as u32).filter(|&s| reach_p.one[s as usize] && !psi[s as usize]).collect();
        let (i, sweeps, ok) = steps(ctx, &undecided, Reward::One, "expected steps");
        r.expected_steps = Some(Steps::Within(i));
        r.sweeps += sweeps;
        r.converged &= ok;
    }
    r.expected_steps_if_reached = if p_is_zero {
        None
    } else if p_is_one {
        r.expected_steps
    } else if !r.converged {
        None
    } else {
        conditional(ctx, psi, &reach_p, r)
    };
    if curve && r.converged {
        r.within = within(ctx, psi, reach_p.p.lower);
    }
}

/// The expected reward collected on `undecided` before leaving them (every exit worth 0).
fn steps(ctx: &Ctx, undecided: &[u32], reward: Reward, quantity: &'static str) -> (Interval, u64, bool) {
    let sys = System {
        rows: ctx.rows,
        undecided,
        values: vec![(Vec::new(), reward)],
        known: Interval { lower: 0.0, upper: f64::INFINITY },
        initial: ctx.initial,
    };
    let progress = (ctx.report)(quantity);
    let s = solve(&sys, Precision::Relative(ctx.precision), false, ctx.workers, ctx.limits, progress.as_deref());
    (s.initial[0], s.sweeps, s.converged)
}

/// The expected steps to ψ of the runs that reach it, `E[T; reached] / P(reached)`: with
/// `p(s)` the probability of reaching ψ from `s`, `g(s) = E_s[T; reached]` solves
/// `g(s) = p(s) + Σ_t P(s, t) g(t)` off ψ where `p(s) > 0` (the steps counted are those of
/// the runs that reach ψ), so `g` is computed twice, with `p`'s lower and upper bounds as
/// rewards, and divided by the probability's bounds.
fn conditional(ctx: &Ctx, psi: &[bool], reach_p: &Reach, r: &mut PropertyProbability) -> Option<Steps> {
    let n = ctx.rows.len();
    let (lo, hi) = reach_p.states.as_ref()?;
    let undecided: Vec<u32> = (0..n as u32).filter(|&s| !reach_p.zero[s as usize] && !psi[s as usize]).collect();
    if ctx.initial.iter().all(|&(s, _)| undecided.binary_search(&s).is_err()) {
        // The runs that reach ψ start in it: exactly 0 steps (the iteration would give 0 up
        // to its rounding margin).
        return Some(Steps::Within(Interval::exact(0.0)));
    }
    let sys = System {
        rows: ctx.rows,
        undecided: &undecided,
        values: vec![(Vec::new(), Reward::Each(lo)), (Vec::new(), Reward::Each(hi))],
        known: Interval { lower: 0.0, upper: f64::INFINITY },
        initial: ctx.initial,
    };
    let progress = (ctx.report)("expected steps if reached");
    let s = solve(&sys, Precision::Relative(ctx.precision), false, ctx.workers, ctx.limits, progress.as_deref());
    r.sweeps += s.sweeps;
    r.converged &= s.converged;
    let p = reach_p.p;
    if p.lower <= 0.0 {
        return Some(Steps::Within(Interval { lower: s.initial[0].lower / p.upper, upper: f64::INFINITY }));
    }
    Some(Steps::Within(Interval { lower: s.initial[0].lower / p.upper, upper: s.initial[1].upper / p.lower }))
}

/// `always ψ`, given `bad` (where ψ fails): one minus the probability of reaching `bad`.
pub(crate) fn always(ctx: &Ctx, bad: &[bool], r: &mut PropertyProbability) {
    let reach_p = reach(ctx, bad, false, ctx.precision);
    r.probability = Some(reach_p.p.complement());
    r.sweeps += reach_p.sweeps;
    r.converged = reach_p.converged;
}

/// `finally always α` (`always_in`) or `always finally α`: a run ends in a bottom component
/// and visits every one of its states infinitely often, so it satisfies the formula when the
/// component has α everywhere (or somewhere).
pub(crate) fn bottom(ctx: &Ctx, alpha: &[bool], always_in: bool, r: &mut PropertyProbability) {
    let b = Bottoms::of(ctx.rows);
    let mut good = vec![always_in; b.bottom.len()];
    for (s, &c) in b.comp.iter().enumerate() {
        let c = c as usize;
        if always_in {
            good[c] &= alpha[s];
        } else {
            good[c] |= alpha[s];
        }
    }
    let target: Vec<bool> = (0..ctx.rows.len()).map(|s| b.in_bottom(s) && good[b.comp[s] as usize]).collect();
    drop(b);
    let reach_p = reach(ctx, &target, false, ctx.precision);
    r.probability = Some(reach_p.p);
    r.sweeps += reach_p.sweeps;
    r.converged = reach_p.converged;
}

/// States per job of a step of `within`.
const WITHIN_CHUNK: usize = 8192;

/// The probability of reaching `psi` within `k` steps for `k = 0, 1, …`, until it is within
/// 10^-4 of `reach` (the probability of ever reaching it) or `CURVE_STEPS`.
fn within(ctx: &Ctx, psi: &[bool], reach: f64) -> Vec<f64> {
    let n = ctx.rows.len();
    let mut z: Vec<f64> = psi.iter().map(|&b| if b { 1.0 } else { 0.0 }).collect();
    let at = |z: &[f64]| ctx.initial.iter().map(|&(s, w)| w * z[s as usize]).sum::<f64>().min(1.0);
    let mut out = vec![at(&z)];
    while out.len() <= CURVE_STEPS && *out.last().unwrap_or(&0.0) < reach - 1e-4 {
        if ctx.limits.stopped().is_some() {
            break;
        }
        let parts = ctx.workers.in_chunks(n.div_ceil(WITHIN_CHUNK), |c| {
            let mut buf = RowBuf::default();
            (c * WITHIN_CHUNK..((c + 1) * WITHIN_CHUNK).min(n))
                .map(|s| {
                    if psi[s] {
                        return 1.0;
                    }
                    let row = ctx.rows.row(s, &mut buf);
                    if row.is_empty() {
                        return z[s];
                    }
                    let (mut sum, mut total) = (0.0, 0u64);
                    for e in row {
                        sum += e.count as f64 * z[e.to as usize];
                        total += e.count as u64;
                    }
                    sum / total as f64
                })
                .collect::<Vec<f64>>()
        });
        z = parts.concat();
        out.push(at(&z));
    }
    out
}
