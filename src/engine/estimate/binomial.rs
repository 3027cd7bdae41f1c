//! Confidence intervals for the probability of a success, from `successes` of `runs`
//! independent runs (docs/statistical.md, "Estimation"): the Chernoff–Hoeffding (Okamoto)
//! half-width, which fixes the number of runs in advance, and the exact (Clopper–Pearson)
//! interval, which is reported for the runs actually made.

/// The half-width the Okamoto bound guarantees after `runs` runs at `confidence`:
/// `sqrt(ln(2 / (1 - confidence)) / (2 runs))`, so that `P(|p̂ - p| > ε) <= 1 - confidence`
/// (infinite for no run).
pub fn okamoto_epsilon(runs: u64, confidence: f64) -> f64 {
    ((2.0 / (1.0 - confidence)).ln() / (2.0 * runs as f64)).sqrt()
}

/// The exact (Clopper–Pearson) interval of the probability after `successes` of `runs` runs,
/// at `confidence`: the probabilities `p` under which neither `successes or fewer` nor
/// `successes or more` has probability below `(1 - confidence) / 2`. For every `p` and every
/// fixed number of runs it contains `p` with probability at least `confidence`, and it lies
/// within the Okamoto half-width of the estimate. `None` without runs.
pub fn clopper_pearson(successes: u64, runs: u64, confidence: f64) -> Option<(f64, f64)> {
    if runs == 0 {
        return None;
    }
    let (k, n) = (successes as f64, runs as f64);
    let tail = (1.0 - confidence) / 2.0;
    // P(X >= k | p) = I_p(k, n - k + 1) grows with p; P(X <= k | p) = 1 - I_p(k + 1, n - k).
    let lower = if successes == 0 { 0.0 } else { solve(&|p| reg_inc_beta(k, n - k + 1.0, p), tail) };
    let upper = if successes >= runs { 1.0 } else { solve(&|p| reg_inc_beta(k + 1.0, n - k, p), 1.0 - tail) };
    Some((lower, upper))
}

/// The `p` in `[0, 1]` where the increasing `f` reaches `target`, by bisection to the
/// precision of a double.
fn solve(f: &dyn Fn(f64) -> f64, target: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// `ln Γ(x)` for `x > 0` (Lanczos' approximation, g = 7, nine terms: about 15 digits).
fn ln_gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x) Γ(1 - x) = π / sin(πx).
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let a = C.iter().enumerate().skip(1).fold(C[0], |a, (i, c)| a + c / (x + i as f64));
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The regularised incomplete beta function `I_x(a, b)` (`a, b > 0`): by its continued
/// fraction, on the side of `x` where it converges fast.
fn reg_inc_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front = (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (-x).ln_1p()).exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_fraction(b, a, 1.0 - x) / b
    }
}

/// The continued fraction of `I_x(a, b)`, evaluated by the modified Lentz method; it needs
/// about `sqrt(max(a, b))` terms where it is used.
fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let nonzero = |v: f64| if v.abs() < TINY { TINY } else { v };
    let mut c = 1.0;
    let mut d = 1.0 / nonzero(1.0 - (a + b) * x / (a + 1.0));
    let mut h = d;
    for m in 1..=10_000_000u64 {
        let m = m as f64;
        let even = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
        d = 1.0 / nonzero(1.0 + even * d);
        c = nonzero(1.0 + even / c);
        h *= d * c;
        let odd = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
        d = 1.0 / nonzero(1.0 + odd * d);
        c = nonzero(1.0 + odd / c);
        let step = d * c;
        h *= step;
        if (step - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `P(X <= k)` for `X ~ Binomial(n, p)`, summed term by term (the definition, independent
    /// of the incomplete beta function).
    fn cdf(k: u64, n: u64, p: f64) -> f64 {
        let mut ln_choose = 0.0f64;
        let mut sum = 0.0;
        for i in 0..=k {
            if i > 0 {
                ln_choose += ((n - i + 1) as f64).ln() - (i as f64).ln();
            }
            sum += (ln_choose + i as f64 * p.ln() + (n - i) as f64 * (-p).ln_1p()).exp();
        }
        sum
    }

    #[test]
    fn the_exact_interval_puts_each_tail_at_half_the_error() {
        for n in [1u64, 2, 5, 10, 37, 100, 400] {
            for k in 0..=n {
                for confidence in [0.8, 0.95, 0.99] {
                    let tail = (1.0 - confidence) / 2.0;
                    let (lo, hi) = clopper_pearson(k, n, confidence).unwrap();
                    assert!(lo <= k as f64 / n as f64 && k as f64 / n as f64 <= hi, "{k}/{n}: [{lo}, {hi}]");
                    if k < n {
                        let got = cdf(k, n, hi);
                        assert!((got - tail).abs() < 1e-9, "{k}/{n} at {confidence}: P(X <= k | {hi}) = {got}");
                    }
                    if k > 0 {
                        let got = 1.0 - cdf(k - 1, n, lo);
                        assert!((got - tail).abs() < 1e-9, "{k}/{n} at {confidence}: P(X >= k | {lo}) = {got}");
                    }
                }
            }
        }
    }

    #[test]
    fn no_success_and_all_successes_have_closed_forms() {
        // P(X = 0 | p) = (1 - p)^n = tail, P(X = n | p) = p^n = tail.
        for n in [1u64, 3, 614, 18_445, 1_000_000] {
            let tail: f64 = 0.025;
            let (lo, hi) = clopper_pearson(0, n, 0.95).unwrap();
            assert_eq!(lo, 0.0);
            let want = 1.0 - tail.powf(1.0 / n as f64);
            assert!((hi - want).abs() <= 1e-9 * want.max(1e-3), "0/{n}: {hi} vs {want}");
            let (lo, hi) = clopper_pearson(n, n, 0.95).unwrap();
            assert_eq!(hi, 1.0);
            assert!((lo - (1.0 - want)).abs() <= 1e-9, "{n}/{n}: {lo}");
        }
        assert_eq!(clopper_pearson(0, 0, 0.95), None);
    }

    #[test]
    fn the_exact_interval_lies_within_the_okamoto_half_width() {
        for n in [1u64, 7, 50, 614, 5_000, 100_000, 3_000_000] {
            let eps = okamoto_epsilon(n, 0.95);
            for k in [0, 1, n / 3, n / 2, n - n / 10, n] {
                let (lo, hi) = clopper_pearson(k, n, 0.95).unwrap();
                let p = k as f64 / n as f64;
                assert!(lo >= p - eps - 1e-12 && hi <= p + eps + 1e-12, "{k}/{n}: [{lo}, {hi}] vs ±{eps}");
                assert!(lo < hi);
            }
        }
        // 614 runs at 95 %: about ±0.055 (issue 55).
        assert!((okamoto_epsilon(614, 0.95) - 0.0548).abs() < 1e-4);
    }

    #[test]
    fn ln_gamma_meets_factorials() {
        let mut f = 1.0f64;
        for n in 1..30u32 {
            f *= n as f64;
            assert!((ln_gamma(n as f64 + 1.0) - f.ln()).abs() < 1e-10 * f.ln().max(1.0), "{n}!");
        }
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-12);
    }
}
