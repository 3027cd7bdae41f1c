//! `verify --probability` on random specifications (`specgen`) against two independent
//! computations: the chain built here from the reference successor function
//! (`Stepper::successors`, every state, counted with multiplicity; the initial states listed
//! with repetitions) and solved by Gaussian elimination, for the properties whose probability
//! is a linear system here (`finally`, `always`, `fairly`, `fairly_inf`, `finally always`,
//! `always finally`, `until`, `unless`, `always (a implies finally b)`); and the simulation
//! estimates of `labs simulate --estimate`, which draw runs from the same chain: the exact
//! probability of reaching ψ within `S` steps lies within ε of the estimate, and every
//! formula's probability between its guaranteed and not-refuted fractions (± ε). Each spec
//! is checked with and without reduction, on one and two threads, free and `--fair`; a
//! formula is also checked through the automaton product (`φ or φ` matches no shape that
//! avoids it) against the shape.

use crate::engine_common::load_text;
use crate::probability::{prob, with_probability};
use crate::specgen;
use crate::tier;
use labs::behaviour::Behaviour;
use labs::engine::estimate::{EstimateOptions, Method, estimate};
use labs::engine::probability::Steps;
use labs::engine::step::{Event, Stepper, Work};
use labs::engine::{VerifyOptions, verify};
use labs::limits::Limits;
use labs::model::{Modality, Model, QPred};
use labs::syntax::Ltl;
use std::collections::HashMap;

/// The explicit chain of a model: states, rows with multiplicity, initial distribution.
pub(crate) struct Explicit {
    states: Vec<Vec<i32>>,
    /// Per state, successors with counts (empty: a deadlock).
    rows: Vec<Vec<(usize, u32)>>,
    initial: Vec<(usize, f64)>,
}

const MAX_STATES: usize = 250;

fn explicit(m: &Model, b: &[Behaviour], fair: bool) -> Option<Explicit> {
    explicit_counted(m, b, fair, false)
}

/// The acting agent, the tuples written, the message (sender, tuple, confirmation), the
/// receivers that copy and those that refresh.
type Shown = (Option<usize>, Vec<usize>, Option<(usize, usize, bool)>, Vec<usize>, Vec<usize>);

/// What the labels of the emitted LNT program show of a step (docs/probability.md, "The LNT
/// program's chain"): the acting agent and the tuples it writes, or the message with its
/// copying and refreshing receivers; a branch of the behaviour is not shown.
fn shown(e: &Event) -> Shown {
    let sorted = |v: &[usize]| {
        let mut v = v.to_vec();
        v.sort_unstable();
        v
    };
    match e {
        Event::Agent { agent, written, .. } => (Some(*agent), sorted(written), None, vec![], vec![]),
        Event::Message { sender, tuple, confirm, copied, refreshed } => {
            (None, vec![], Some((*sender, *tuple, *confirm)), sorted(copied), sorted(refreshed))
        }
    }
}

/// The explicit chain with multiplicity (`distinct` false: the native engine's), or with each
/// distinct step once, as the LNT program's LTS shows them (`distinct`: steps that show the
/// same and reach the same state are one; each distinct initial state once).
pub(crate) fn explicit_counted(m: &Model, b: &[Behaviour], fair: bool, distinct: bool) -> Option<Explicit> {
    let stepper = Stepper::new(m, b, fair);
    let mut init = stepper.initial_states().ok()?;
    if init.is_empty() {
        return None;
    }
    if distinct {
        init.sort();
        init.dedup();
    }
    let mut index: HashMap<Vec<i32>, usize> = HashMap::new();
    let mut states: Vec<Vec<i32>> = Vec::new();
    let mut id = |s: &[i32], states: &mut Vec<Vec<i32>>| -> usize {
        *index.entry(s.to_vec()).or_insert_with(|| {
            states.push(s.to_vec());
            states.len() - 1
        })
    };
    let mut counts: HashMap<usize, usize> = HashMap::new();
    for s in &init {
        *counts.entry(id(s, &mut states)).or_default() += 1;
    }
    let mut initial: Vec<(usize, f64)> = counts.into_iter().map(|(s, c)| (s, c as f64 / init.len() as f64)).collect();
    initial.sort_by_key(|x| x.0);
    let mut rows = Vec::new();
    let mut w = Work::default();
    let mut i = 0;
    while i < states.len() {
        if states.len() > MAX_STATES {
            return None;
        }
        let mut succ: Vec<Vec<i32>> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        stepper
            .successors(&states[i].clone(), &mut w, distinct, &mut |e, t| {
                if !distinct || seen.insert((e.map(|e| shown(&e)), t.to_vec())) {
                    succ.push(t.to_vec())
                }
            })
            .ok()?;
        let mut row: HashMap<usize, u32> = HashMap::new();
        for t in succ {
            *row.entry(id(&t, &mut states)).or_default() += 1;
        }
        let mut row: Vec<(usize, u32)> = row.into_iter().collect();
        row.sort();
        rows.push(row);
        i += 1;
    }
    Some(Explicit { states, rows, initial })
}

impl Explicit {
    pub(crate) fn n(&self) -> usize {
        self.states.len()
    }

    /// Whether `other` is the same chain over the same states (matched by value): the same
    /// initial distribution and the same probability of every step.
    pub(crate) fn same_chain(&self, other: &Explicit) -> bool {
        let at: HashMap<&Vec<i32>, usize> = other.states.iter().enumerate().map(|(i, s)| (s, i)).collect();
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12;
        let init = |x: &Explicit| -> HashMap<Vec<i32>, f64> {
            x.initial.iter().map(|&(s, w)| (x.states[s].clone(), w)).collect()
        };
        let (a, b) = (init(self), init(other));
        if self.n() != other.n()
            || a.len() != b.len()
            || a.iter().any(|(s, w)| !b.get(s).is_some_and(|v| close(*v, *w)))
        {
            return false;
        }
        (0..self.n()).all(|s| {
            let Some(&t) = at.get(&self.states[s]) else { return false };
            let mine: HashMap<&Vec<i32>, f64> = self.probs(s).into_iter().map(|(u, p)| (&self.states[u], p)).collect();
            let theirs = other.probs(t);
            mine.len() == theirs.len()
                && theirs.iter().all(|&(u, p)| mine.get(&other.states[u]).is_some_and(|q| close(*q, p)))
        })
    }

    /// Successors with probabilities (a deadlock: itself).
    fn probs(&self, s: usize) -> Vec<(usize, f64)> {
        let row = &self.rows[s];
        if row.is_empty() {
            return vec![(s, 1.0)];
        }
        let total: u32 = row.iter().map(|e| e.1).sum();
        row.iter().map(|&(t, c)| (t, c as f64 / total as f64)).collect()
    }

    /// States that reach `target` along paths through `through` (the target states count
    /// whatever `through` says of them).
    fn reach(&self, target: &[bool], through: &[bool]) -> Vec<bool> {
        let mut r = target.to_vec();
        loop {
            let mut changed = false;
            for s in 0..self.n() {
                if !r[s] && through[s] && self.probs(s).iter().any(|&(t, _)| r[t]) {
                    r[s] = true;
                    changed = true;
                }
            }
            if !changed {
                return r;
            }
        }
    }

    /// The probability from each state of reaching `target` through `through`-states, by
    /// Gaussian elimination on the states that can.
    fn reach_probability(&self, target: &[bool], through: &[bool]) -> Vec<f64> {
        let can = self.reach(target, through);
        let unknown: Vec<usize> = (0..self.n()).filter(|&s| can[s] && !target[s]).collect();
        let pos: HashMap<usize, usize> = unknown.iter().enumerate().map(|(i, &s)| (s, i)).collect();
        let k = unknown.len();
        let mut a = vec![vec![0.0; k + 1]; k];
        for (i, &s) in unknown.iter().enumerate() {
            a[i][i] += 1.0;
            for (t, p) in self.probs(s) {
                if target[t] {
                    a[i][k] += p;
                } else if let Some(&j) = pos.get(&t) {
                    a[i][j] -= p;
                }
            }
        }
        let x = gauss(a);
        (0..self.n()).map(|s| if target[s] { 1.0 } else { pos.get(&s).map_or(0.0, |&i| x[i]) }).collect()
    }

    /// The expected steps to `target` from the states that reach it with probability 1 (the
    /// others, `uncertain`, are left out: their steps are infinite, and no state left in can
    /// step to them).
    fn expected_steps(&self, target: &[bool], uncertain: &[bool]) -> Vec<f64> {
        let unknown: Vec<usize> = (0..self.n()).filter(|&s| !target[s] && !uncertain[s]).collect();
        let pos: HashMap<usize, usize> = unknown.iter().enumerate().map(|(i, &s)| (s, i)).collect();
        let k = unknown.len();
        let mut a = vec![vec![0.0; k + 1]; k];
        for (i, &s) in unknown.iter().enumerate() {
            a[i][i] += 1.0;
            a[i][k] = 1.0;
            for (t, p) in self.probs(s) {
                if let Some(&j) = pos.get(&t) {
                    a[i][j] -= p;
                }
            }
        }
        let x = gauss(a);
        (0..self.n()).map(|s| pos.get(&s).map_or(0.0, |&i| x[i])).collect()
    }

    /// The states of bottom strongly connected components, each with whether `good` holds at
    /// every (`all`) or some state of its component.
    fn bottom_target(&self, good: &[bool], all: bool) -> Vec<bool> {
        let n = self.n();
        let reach_from: Vec<Vec<bool>> = (0..n)
            .map(|s| {
                let mut t = vec![false; n];
                t[s] = true;
                // Forward closure.
                loop {
                    let mut ch = false;
                    for u in 0..n {
                        if t[u] {
                            for (v, _) in self.probs(u) {
                                if !t[v] {
                                    t[v] = true;
                                    ch = true;
                                }
                            }
                        }
                    }
                    if !ch {
                        break t;
                    }
                }
            })
            .collect();
        (0..n)
            .map(|s| {
                let bottom = (0..n).all(|u| !reach_from[s][u] || reach_from[u][s]);
                let members: Vec<usize> = (0..n).filter(|&u| reach_from[s][u]).collect();
                bottom && if all { members.iter().all(|&u| good[u]) } else { members.iter().any(|&u| good[u]) }
            })
            .collect()
    }

    fn at_initial(&self, v: &[f64]) -> f64 {
        self.initial.iter().map(|&(s, w)| w * v[s]).sum()
    }
}

/// Gaussian elimination with partial pivoting on the augmented matrix `a`.
fn gauss(mut a: Vec<Vec<f64>>) -> Vec<f64> {
    let k = a.len();
    for c in 0..k {
        let p = (c..k).max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs())).unwrap();
        a.swap(c, p);
        let d = a[c][c];
        assert!(d.abs() > 1e-12, "singular system");
        for x in &mut a[c][c..] {
            *x /= d;
        }
        let pivot = a[c].clone();
        for (i, row) in a.iter_mut().enumerate() {
            if i != c && row[c] != 0.0 {
                let f = row[c];
                for (x, p) in row[c..].iter_mut().zip(&pivot[c..]) {
                    *x -= f * p;
                }
            }
        }
    }
    a.into_iter().map(|r| r[k]).collect()
}

/// A propositional formula's value in a state (`None`: temporal).
fn prop(f: &Ltl<QPred>, st: &[i32], stepper: &Stepper) -> Option<Result<bool, String>> {
    Some(match f {
        Ltl::Atom(q) => stepper.predicate_holds(st, q),
        Ltl::Not(x) => prop(x, st, stepper)?.map(|b| !b),
        Ltl::And(x, y) | Ltl::Or(x, y) | Ltl::Implies(x, y) => {
            let (a, b) = (prop(x, st, stepper)?, prop(y, st, stepper)?);
            match (a, b) {
                (Ok(a), Ok(b)) => Ok(match f {
                    Ltl::And(..) => a && b,
                    Ltl::Or(..) => a || b,
                    _ => !a || b,
                }),
                (Err(e), _) | (_, Err(e)) => Err(e),
            }
        }
        _ => return None,
    })
}

/// The probability of a property on the explicit chain, when this oracle covers its form.
pub(crate) fn oracle(
    x: &Explicit,
    m: &Model,
    b: &[Behaviour],
    fair: bool,
    p: &labs::model::Property,
) -> Option<(f64, Option<f64>)> {
    let stepper = Stepper::new(m, b, fair);
    let on = |f: &Ltl<QPred>| -> Option<Vec<bool>> {
        x.states.iter().map(|s| prop(f, s, &stepper).and_then(Result::ok)).collect()
    };
    let atom = |q: &QPred| on(&Ltl::Atom(q.clone()));
    let all = vec![true; x.n()];
    let not = |v: &[bool]| v.iter().map(|b| !b).collect::<Vec<bool>>();
    let finally = |psi: &[bool]| -> (f64, Option<f64>) {
        let p = x.reach_probability(psi, &all);
        let certain = x.reach(&not(&x.reach(psi, &all)), &not(psi));
        let p1 = x.initial.iter().all(|&(s, _)| !certain[s]);
        (x.at_initial(&p), p1.then(|| x.at_initial(&x.expected_steps(psi, &certain))))
    };
    let bottom = |psi: &[bool], all_in: bool| x.at_initial(&x.reach_probability(&x.bottom_target(psi, all_in), &all));
    Some(match &p.modality {
        Modality::Finally | Modality::Fairly => finally(&atom(&p.pred)?),
        Modality::Always => (1.0 - x.at_initial(&x.reach_probability(&not(&atom(&p.pred)?), &all)), None),
        Modality::FairlyInf => (bottom(&atom(&p.pred)?, false), None),
        Modality::Ltl(f) => match f {
            Ltl::Finally(g) if matches!(&**g, Ltl::Always(_)) => {
                let Ltl::Always(a) = &**g else { unreachable!() };
                (bottom(&on(a)?, true), None)
            }
            Ltl::Always(g) if matches!(&**g, Ltl::Finally(_)) => {
                let Ltl::Finally(a) = &**g else { unreachable!() };
                (bottom(&on(a)?, false), None)
            }
            Ltl::Until(a, c) => (x.at_initial(&x.reach_probability(&on(c)?, &on(a)?)), None),
            Ltl::Unless(a, c) => {
                // a W c fails exactly when ¬c U (¬a ∧ ¬c).
                let (a, c) = (on(a)?, on(c)?);
                let bad: Vec<bool> = (0..x.n()).map(|s| !a[s] && !c[s]).collect();
                (1.0 - x.at_initial(&x.reach_probability(&bad, &not(&c))), None)
            }
            Ltl::Always(g) if matches!(&**g, Ltl::Implies(_, h) if matches!(&**h, Ltl::Finally(_))) => {
                // always (a implies finally c): a monitor pending since an unanswered a; the
                // formula fails exactly when the product ends pending forever.
                let Ltl::Implies(a, h) = &**g else { unreachable!() };
                let Ltl::Finally(c) = &**h else { unreachable!() };
                let (a, c) = (on(a)?, on(c)?);
                let pending = |s: usize, was: bool| !c[s] && (a[s] || was);
                // Product states (s, pending after s).
                let n = x.n();
                let id = |s: usize, q: bool| 2 * s + q as usize;
                let mut rows = vec![Vec::new(); 2 * n];
                for s in 0..n {
                    for q in [false, true] {
                        let succ = if x.rows[s].is_empty() { vec![(s, 1)] } else { x.rows[s].clone() };
                        rows[id(s, q)] = succ.iter().map(|&(t, k)| (id(t, pending(t, q)), k)).collect();
                    }
                }
                let mut initial: Vec<(usize, f64)> =
                    x.initial.iter().map(|&(s, w)| (id(s, pending(s, false)), w)).collect();
                initial.sort_by_key(|e| e.0);
                let prod = Explicit { states: vec![vec![]; 2 * n], rows, initial };
                let pend: Vec<bool> = (0..2 * n).map(|i| i % 2 == 1).collect();
                (
                    1.0 - prod
                        .at_initial(&prod.reach_probability(&prod.bottom_target(&pend, true), &vec![true; 2 * n])),
                    None,
                )
            }
            _ => return None,
        },
        _ => return None,
    })
}

/// The specs of the sample, with each spec's model when its state space is small.
fn sample(count: u64) -> Vec<(specgen::GenSpec, Model, Vec<Behaviour>)> {
    (0..count * 4)
        .filter_map(|seed| {
            let g = specgen::generate(seed);
            let (m, b) = load_text(&g.text, &g.externs).ok()?;
            Some((g, m, b))
        })
        .filter(|(_, m, b)| explicit(m, b, false).is_some() && explicit(m, b, true).is_some())
        .take(count as usize)
        .collect()
}

/// Checks the first `count` specs of the sample where the oracle finds a probability strictly
/// between 0 and 1 (most random specs decide everything with probability 0 or 1); returns
/// the probabilities checked, fractional ones first.
fn check_against_oracle(count: usize) -> (usize, usize) {
    let (mut checked, mut fractional, mut specs) = (0, 0, 0);
    for seed in 0..40 * count as u64 {
        if specs >= count {
            break;
        }
        let g = specgen::generate(seed);
        let Ok((m, b)) = load_text(&g.text, &g.externs) else { continue };
        let mut any_fraction = false;
        for fair in [false, true] {
            let Some(x) = explicit(&m, &b, fair) else { continue };
            let wanted: Vec<_> = m.properties.iter().map(|p| oracle(&x, &m, &b, fair, p)).collect();
            if !wanted.iter().flatten().any(|(p, _)| *p > 1e-9 && *p < 1.0 - 1e-9) {
                continue;
            }
            any_fraction = true;
            for (symmetry, threads) in [(false, 1), (true, 2)] {
                let opts = VerifyOptions { fair, symmetry, threads, ..with_probability(1e-8) };
                let Ok(r) = verify(&m, &b, &opts) else { continue };
                for (p, want) in m.properties.iter().zip(&wanted) {
                    let Some((want, steps)) = *want else { continue };
                    let got = prob(&r, &p.name);
                    let what = format!("seed {} fair={fair} reduced={symmetry} {}\n{}", g.seed, p.name, g.text);
                    let iv = got.probability.unwrap_or_else(|| panic!("{what}: {:?}", got.why_not));
                    assert!(iv.lower - 1e-9 <= want && want <= iv.upper + 1e-9, "{what}: {iv:?} misses {want}");
                    assert!(iv.width() <= 1e-8, "{what}: {iv:?}");
                    if let Some(e) = steps {
                        match got.expected_steps {
                            Some(Steps::Within(i)) => assert!(
                                i.lower <= e * (1.0 + 1e-9) + 1e-9 && e <= i.upper * (1.0 + 1e-9) + 1e-9,
                                "{what}: expected steps {i:?} miss {e}"
                            ),
                            other => panic!("{what}: expected steps {other:?}, want {e}"),
                        }
                    }
                    checked += 1;
                    fractional += usize::from(want > 1e-9 && want < 1.0 - 1e-9);
                }
            }
        }
        specs += usize::from(any_fraction);
    }
    assert!(specs >= count, "only {specs} specs with a fractional probability");
    (checked, fractional)
}

#[test]
fn random_specs_agree_with_gaussian_elimination_on_the_explicit_chain() {
    let (checked, fractional) = check_against_oracle(12);
    assert!(fractional >= 24, "{fractional} of {checked} probabilities strictly between 0 and 1");
}

#[test]
fn many_random_specs_agree_with_gaussian_elimination() {
    if !tier::slow("exact probabilities of 80 random specs against Gaussian elimination, about 30 s") {
        return;
    }
    check_against_oracle(80);
}

/// The exact curve (the probability of reaching ψ within `k` steps) and every formula's
/// probability against the estimates of `simulate --estimate`, which draw runs from the same
/// chain (the seeds are fixed, so the test is deterministic; the confidence is 0.999).
#[test]
fn random_specs_agree_with_the_simulation_estimates() {
    let (steps, epsilon) = (12, 0.04);
    let mut checked = 0;
    for (g, m, b) in sample(10) {
        for fair in [false, true] {
            let opts = VerifyOptions { fair, symmetry: true, ..with_probability(1e-7) };
            let Ok(r) = verify(&m, &b, &opts) else { continue };
            let eo = EstimateOptions {
                fair,
                steps,
                seed: g.seed,
                properties: None,
                method: Method::Interval { epsilon, confidence: 0.999, max_runs: None },
                threads: 2,
                limits: Limits::none(),
            };
            let Ok(est) = estimate(&m, &b, &eo) else { continue };
            for e in est.properties.iter().filter(|e| e.estimated) {
                let p = prob(&r, &e.property);
                let Some(iv) = p.probability else { continue };
                let what = format!("seed {} fair={fair} {} ({})\n{}", g.seed, e.property, e.modality, g.text);
                let frac = |k: u64| k as f64 / e.runs as f64;
                match e.modality.as_str() {
                    "finally" | "eventually" => {
                        let k = steps.min(p.within.len() - 1);
                        let exact = p.within[k];
                        assert!(
                            (frac(e.successes) - exact).abs() <= epsilon + 1e-4,
                            "{what}: {} vs {exact}",
                            frac(e.successes)
                        );
                    }
                    "always" | "between" | "from" => {
                        // Not violated within the bound is at least as likely as never.
                        assert!(frac(e.successes) >= iv.lower - epsilon, "{what}: {} vs {iv:?}", frac(e.successes));
                    }
                    _ => {
                        let not_refuted = frac(e.not_refuted.unwrap_or(e.runs));
                        assert!(
                            frac(e.successes) <= iv.upper + epsilon && iv.lower <= not_refuted + epsilon,
                            "{what}: guaranteed {}, not refuted {not_refuted}, exact {iv:?}",
                            frac(e.successes)
                        );
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 10, "only {checked} estimates compared");
}

/// A linear-time formula through the automaton product (`φ or φ` has the same runs, but is
/// no shape the engine solves without the product) gives the probability of the shape.
#[test]
fn the_automaton_product_agrees_with_the_shapes() {
    let mut checked = 0;
    for (g, _, _) in sample(24) {
        let mut text = g.text.clone();
        let mut dup = Vec::new();
        let ast = labs::syntax::parse(&g.text).spec.expect("a generated spec parses");
        for p in &ast.properties {
            if let labs::syntax::ast::Modality::Ltl(f) = &p.modality {
                let f = labs::syntax::printer::print_formula_full(f);
                dup.push((p.name.name.clone(), format!("    {}Dup = ({f}) or ({f})\n", p.name.name)));
            }
        }
        if dup.is_empty() {
            continue;
        }
        let at = text.rfind('}').unwrap();
        text.insert_str(at, &dup.iter().map(|d| d.1.clone()).collect::<String>());
        let (m2, b2) = load_text(&text, &g.externs).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        for fair in [false, true] {
            let Ok(r) = verify(&m2, &b2, &VerifyOptions { fair, ..with_probability(1e-8) }) else { continue };
            for (name, _) in &dup {
                let (a, b) = (prob(&r, name), prob(&r, &format!("{name}Dup")));
                let what = format!("seed {} fair={fair} {name}\n{text}", g.seed);
                let (Some(x), Some(y)) = (a.probability, b.probability) else {
                    panic!("{what}: {:?} / {:?}", a.why_not, b.why_not)
                };
                assert!(x.lower <= y.upper + 1e-9 && y.lower <= x.upper + 1e-9, "{what}: {x:?} vs {y:?}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 4, "only {checked} formulas compared");
}
