//! `labs verify --probability` (issue 58) on systems whose answers are known in closed form or
//! by hand: a fair gambler's ruin (the probability of winning from `i` is `i/N`, the expected
//! duration `i(N − i)`, and `(N² − i²)/3` among the runs that win), a coin (`1 − 2^−k` within
//! `k` steps, 2 steps expected), and `examples/counter.labs` (derived in its header); the
//! readings of `fairly` and `fairly_inf` against their verdicts, reduced against
//! `--no-reduction`, the CLI's text, JSON and errors, and a run cut short by `--timeout`.

use crate::engine_common::{load, load_text};
use crate::fixtures;
use labs::engine::probability::{Interval, ProbabilityOptions, PropertyProbability, Steps};
use labs::engine::{VerifyOptions, VerifyReport, verify};
use labs::model::Modality;

/// A fair gambler's ruin: `x` starts at `_i` and moves up or down by one, each with
/// probability 1/2, while `0 < x < _n`; at 0 and `_n` the system deadlocks.
pub const RUIN: &str = r#"
system {
    extern = _n, _i
    environment = x: _i
    spawn = Walker: 1
}
agent Walker {
    Behavior = x > 0 and x < _n -> (x <-- x + 1 ++ x <-- x - 1); Behavior
}
check {
    Wins = finally x = _n
    Ends = finally x = 0 or x = _n
    NeverRuined = always x > 0
    WinsForGood = finally always x = _n
    EndsFairly = fairly x = 0 or x = _n
}
"#;

/// A fair coin tossed forever; heads (1) is reached within `k` tosses with probability
/// `1 − 2^−k`.
pub const COIN: &str = r#"
system {
    environment = heads: 0
    spawn = Coin: 1
}
agent Coin {
    Behavior = (heads <-- 1 ++ heads <-- 0); Behavior
}
check {
    Heads = finally heads = 1
    Tails = always heads = 0
    Again = always finally heads = 0
    Forever = fairly_inf heads = 1
}
"#;

pub fn run(text: &str, externs: &[&str], opts: VerifyOptions) -> VerifyReport {
    let ext: Vec<String> = externs.iter().map(|s| s.to_string()).collect();
    let (m, b) = load_text(text, &ext).unwrap_or_else(|e| panic!("{e:?}"));
    verify(&m, &b, &opts).unwrap()
}

pub fn with_probability(precision: f64) -> VerifyOptions {
    VerifyOptions {
        threads: 2,
        probability: Some(ProbabilityOptions { precision, curve: true, progress: None }),
        ..Default::default()
    }
}

pub fn prob<'a>(r: &'a VerifyReport, name: &str) -> &'a PropertyProbability {
    r.probabilities.as_ref().expect("probabilities").properties.iter().find(|p| p.property == name).expect(name)
}

/// `i` lies in `iv` (up to `slack`) and `iv` is at most `width` wide.
pub fn within(iv: &Interval, v: f64, width: f64, what: &str) {
    assert!(iv.lower <= v + 1e-12 && v <= iv.upper + 1e-12, "{what}: {iv:?} misses {v}");
    assert!(iv.upper - iv.lower <= width, "{what}: {iv:?} wider than {width}");
}

fn steps(s: &Option<Steps>) -> Interval {
    match s {
        Some(Steps::Within(i)) => *i,
        other => panic!("expected steps: {other:?}"),
    }
}

#[test]
fn a_gamblers_ruin_matches_its_closed_forms() {
    for (n, i) in [(4, 1), (6, 2), (10, 5), (15, 4)] {
        let (ns, is) = (format!("n={n}"), format!("i={i}"));
        let r = run(RUIN, &[&ns, &is], with_probability(1e-7));
        let (nf, ifl) = (n as f64, i as f64);
        let what = |p: &str| format!("{p}, N={n}, i={i}");
        let wins = prob(&r, "Wins");
        within(&wins.probability.unwrap(), ifl / nf, 1e-7, &what("P(Wins)"));
        // Losing is possible: the expected steps to winning are infinite; among the runs that
        // win, (N² − i²)/3.
        assert_eq!(wins.expected_steps, Some(Steps::Infinite), "{}", what("E(Wins)"));
        let c = steps(&wins.expected_steps_if_reached);
        within(&c, (nf * nf - ifl * ifl) / 3.0, 2e-6 * c.upper, &what("E(Wins | won)"));
        let ends = prob(&r, "Ends");
        within(&ends.probability.unwrap(), 1.0, 0.0, &what("P(Ends)"));
        let e = steps(&ends.expected_steps);
        within(&e, ifl * (nf - ifl), 2e-7 * e.upper, &what("E(Ends)"));
        assert_eq!(ends.expected_steps_if_reached, ends.expected_steps);
        let fairly = prob(&r, "EndsFairly");
        assert_eq!(fairly.reading, Some("finally"));
        within(&fairly.probability.unwrap(), 1.0, 0.0, &what("P(EndsFairly)"));
        let e = steps(&fairly.expected_steps);
        within(&e, ifl * (nf - ifl), 2e-7 * e.upper, &what("E(EndsFairly)"));
        // Never ruined: the walk is ruined exactly when it does not win.
        within(&prob(&r, "NeverRuined").probability.unwrap(), ifl / nf, 1e-7, &what("P(NeverRuined)"));
        within(&prob(&r, "WinsForGood").probability.unwrap(), ifl / nf, 1e-7, &what("P(WinsForGood)"));
        // The curve rises to the probability.
        let curve = &wins.within;
        assert!(curve.windows(2).all(|w| w[0] <= w[1] + 1e-15), "the curve of Wins decreases");
        assert!((curve.last().unwrap() - ifl / nf).abs() <= 1e-4 + 1e-9 || curve.len() == 1001);
    }
}

#[test]
fn a_coin_reaches_heads_within_k_steps_with_probability_one_minus_two_to_the_minus_k() {
    let r = run(COIN, &[], with_probability(1e-9));
    let heads = prob(&r, "Heads");
    within(&heads.probability.unwrap(), 1.0, 0.0, "P(Heads)");
    within(&steps(&heads.expected_steps), 2.0, 1e-8, "E(Heads)");
    let curve = &heads.within;
    assert!(curve.len() > 10, "{curve:?}");
    for (k, p) in curve.iter().enumerate() {
        assert!((p - (1.0 - 0.5f64.powi(k as i32))).abs() < 1e-12, "P(heads within {k}) = {p}");
    }
    within(&prob(&r, "Tails").probability.unwrap(), 0.0, 0.0, "P(Tails)");
    within(&prob(&r, "Again").probability.unwrap(), 1.0, 0.0, "P(Again)");
    let forever = prob(&r, "Forever");
    assert_eq!(forever.reading, Some("always finally"));
    within(&forever.probability.unwrap(), 1.0, 0.0, "P(Forever)");
}

/// `examples/counter.labs`, n=2 atomic=0 (its header derives the graph): the two reads come
/// before both writes with probability 1/2 (the lost update), after which `c` stays 1; the
/// runs that count both take 4 steps; the first write comes after 2 or 3 steps, each with
/// probability 1/2.
#[test]
fn the_lost_update_has_the_probabilities_derived_by_hand() {
    for symmetry in [false, true] {
        let (m, b) = load(&fixtures::example("counter.labs"), &["n=2", "atomic=0"]);
        let r = verify(&m, &b, &VerifyOptions { symmetry, ..with_probability(1e-9) }).unwrap();
        let all = prob(&r, "AllCounted");
        within(&all.probability.unwrap(), 0.5, 1e-9, "P(AllCounted)");
        assert_eq!(all.expected_steps, Some(Steps::Infinite));
        within(&steps(&all.expected_steps_if_reached), 4.0, 1e-8, "E(AllCounted | counted)");
        within(&prob(&r, "NeverTooMany").probability.unwrap(), 1.0, 0.0, "P(NeverTooMany)");
        let some = prob(&r, "SomeCount");
        within(&some.probability.unwrap(), 1.0, 0.0, "P(SomeCount)");
        within(&steps(&some.expected_steps), 2.5, 1e-8, "E(SomeCount)");
        // The curve: c = 2 comes after exactly 4 steps.
        assert_eq!(&all.within[..4], &[0.0; 4]);
        assert!((all.within[4] - 0.5).abs() < 1e-12);
    }
}

/// `fairly ψ` holds exactly when `finally ψ` has probability 1, `fairly_inf ψ` exactly when
/// `always finally ψ` has; both readings are computed, on every example and benchmark small
/// enough, free and `--fair`.
#[test]
fn fairly_holds_exactly_when_its_reading_has_probability_one() {
    let cases: &[(&str, &[&str])] = &[
        ("examples/leader.labs", &["n=3"]),
        ("examples/line.labs", &["n=3", "size=5", "gap=2"]),
        ("examples/majority.labs", &["yes=1", "no=2"]),
        ("examples/philosophers.labs", &["n=3", "asym=0"]),
        ("examples/philosophers.labs", &["n=3", "asym=1"]),
        ("examples/twophase.labs", &["workers=2"]),
        ("examples/flocking.labs", &["birds=2", "grid=3", "delta=1"]),
        ("benchmarks/twophase.labs", &["workers=2"]),
    ];
    let mut seen = [0; 2];
    for &(file, externs) in cases {
        for fair in [false, true] {
            let (m, b) = load(&fixtures::path_str(file), externs);
            let r = verify(&m, &b, &VerifyOptions { fair, symmetry: true, ..with_probability(1e-6) }).unwrap();
            for res in &r.results {
                let prop = m.properties.iter().find(|p| p.name == res.property).unwrap();
                if !matches!(prop.modality, Modality::Fairly | Modality::FairlyInf) {
                    continue;
                }
                let p = prob(&r, &res.property);
                let iv = p.probability.unwrap_or_else(|| panic!("{file} {}: {:?}", res.property, p.why_not));
                let one = iv.lower == 1.0;
                assert_eq!(
                    one,
                    res.verdict == labs::engine::Verdict::Holds,
                    "{file} {externs:?} fair={fair} {}: {:?} with probability {iv:?}",
                    res.property,
                    res.verdict
                );
                seen[one as usize] += 1;
            }
        }
    }
    assert!(seen[0] > 0 && seen[1] > 0, "both verdicts met: {seen:?}");
}

/// The lumped chain of the symmetry reduction gives the probabilities of the whole chain:
/// on the examples and benchmarks with symmetric agents or symmetries of values, with one and
/// two threads, free and `--fair`.
#[test]
fn reduced_and_unreduced_chains_give_the_same_probabilities() {
    let cases: &[(&str, &[&str])] = &[
        ("examples/counter.labs", &["n=3", "atomic=0"]),
        ("examples/majority.labs", &["yes=2", "no=2"]),
        ("examples/twophase.labs", &["workers=3"]),
        ("examples/flocking.labs", &["birds=2", "grid=3", "delta=1"]),
        ("benchmarks/flock.labs", &["birds=2", "grid=3", "delta=2"]),
    ];
    for &(file, externs) in cases {
        for fair in [false, true] {
            let (m, b) = load(&fixtures::path_str(file), externs);
            let full = verify(&m, &b, &VerifyOptions { fair, threads: 1, ..with_probability(1e-8) }).unwrap();
            let red = verify(&m, &b, &VerifyOptions { fair, symmetry: true, ..with_probability(1e-8) }).unwrap();
            assert!(full.stats.reduction.is_none());
            let reduced = red.stats.reduction.is_some();
            for p in &full.probabilities.as_ref().unwrap().properties {
                let q = prob(&red, &p.property);
                let what = format!("{file} {externs:?} fair={fair} {} (reduced: {reduced})", p.property);
                match (&p.probability, &q.probability) {
                    (Some(a), Some(b)) => {
                        assert!(a.lower <= b.upper + 1e-12 && b.lower <= a.upper + 1e-12, "{what}: {a:?} vs {b:?}");
                        assert!(a.width() <= 1e-8 && b.width() <= 1e-8, "{what}: {a:?} {b:?}");
                    }
                    (a, b) => assert_eq!(a, b, "{what}: {:?} vs {:?}", p.why_not, q.why_not),
                }
                match (&p.expected_steps, &q.expected_steps) {
                    (Some(Steps::Within(a)), Some(Steps::Within(b))) => {
                        assert!(
                            a.lower <= b.upper * (1.0 + 1e-12) && b.lower <= a.upper * (1.0 + 1e-12),
                            "{what}: {a:?} vs {b:?}"
                        )
                    }
                    (a, b) => assert_eq!(a, b, "{what}"),
                }
            }
        }
    }
}

#[test]
fn the_cli_prints_each_probability_beside_its_verdict() {
    let o =
        fixtures::labs(&["verify", &fixtures::path_str("examples/counter.labs"), "n=2", "atomic=0", "--probability"]);
    let out = fixtures::stdout(&o);
    assert_eq!(o.status.code(), Some(10), "{out}{}", fixtures::stderr(&o));
    let line = out.lines().find(|l| l.starts_with("AllCounted")).unwrap();
    assert!(line.contains("violated  probability 0.500000 ["), "{line}");
    assert!(out.contains("expected steps to ψ: infinite"), "{out}");
    assert!(out.contains("4.00000 ["), "{out}");
    assert!(out.contains("probabilities: a chain of"), "{out}");
    let o = fixtures::labs(&[
        "verify",
        &fixtures::path_str("examples/counter.labs"),
        "n=2",
        "atomic=0",
        "--probability",
        "--precision",
        "1e-9",
        "--json",
    ]);
    let doc: serde_json::Value = serde_json::from_str(&fixtures::stdout(&o)).unwrap();
    let res = doc["results"].as_array().unwrap();
    let all = res.iter().find(|r| r["property"] == "AllCounted").unwrap();
    let (lo, hi) = (all["probability"]["lower"].as_f64().unwrap(), all["probability"]["upper"].as_f64().unwrap());
    assert!(lo <= 0.5 && 0.5 <= hi && hi - lo <= 1e-9, "{all}");
    assert_eq!(all["expected_steps"], "infinite");
    assert!(all["expected_steps_if_reached"]["lower"].as_f64().unwrap() <= 4.0);
    let never = res.iter().find(|r| r["property"] == "NeverTooMany").unwrap();
    assert!(never["expected_steps"].is_null(), "{never}");
    assert_eq!(doc["probability"]["chain"]["stored"], true);
    // Without --probability the documents do not change.
    let o = fixtures::labs(&["verify", &fixtures::path_str("examples/counter.labs"), "n=2", "atomic=0", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&fixtures::stdout(&o)).unwrap();
    assert!(doc.get("probability").is_none() && doc["results"][0].get("probability").is_none());
}

#[test]
fn bad_precisions_and_cadp_are_refused_by_name() {
    let spec = fixtures::path_str("examples/counter.labs");
    for bad in ["0", "-1", "1", "abc", "1e-13", "nan"] {
        let o = fixtures::labs(&["verify", &spec, "n=2", "atomic=0", "--probability", &format!("--precision={bad}")]);
        assert_eq!(o.status.code(), Some(2), "--precision {bad}: {}", fixtures::stderr(&o));
        assert!(fixtures::stderr(&o).contains("precision"), "{}", fixtures::stderr(&o));
    }
    let o = fixtures::labs(&["verify", &spec, "n=2", "atomic=0", "--precision", "1e-3"]);
    assert_eq!(o.status.code(), Some(2), "--precision without --probability");
    let o = fixtures::labs(&["verify", &spec, "n=2", "atomic=0", "--probability", "--backend", "cadp"]);
    assert_eq!(o.status.code(), Some(2));
    let err = fixtures::stderr(&o);
    assert!(err.contains("--probability") && err.contains("bcg_transient"), "{err}");
}

/// A gambler's ruin on 2,000 values needs millions of sweeps: a timeout stops the iteration
/// with an interval that is wider than asked for but still contains the value. The verdict
/// (violated: the walk may lose) was decided before, so it stands, with its exit code.
#[test]
fn a_timeout_leaves_an_honest_interval() {
    let spec = crate::scratch::Scratch::file("probability", "ruin.labs", RUIN);
    let o = fixtures::labs(&[
        "verify",
        spec.as_str(),
        "n=2000",
        "i=700",
        "--property",
        "Wins",
        "--probability",
        "--timeout",
        "2",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(10), "{}", fixtures::stderr(&o));
    assert!(fixtures::stderr(&o).contains("time limit"), "{}", fixtures::stderr(&o));
    let doc: serde_json::Value = serde_json::from_str(&fixtures::stdout(&o)).unwrap();
    let r = &doc["results"][0];
    assert_eq!(r["verdict"], "violated");
    assert_eq!(r["probability_converged"], false, "{r}");
    let (lo, hi) = (r["probability"]["lower"].as_f64().unwrap(), r["probability"]["upper"].as_f64().unwrap());
    assert!(lo <= 0.35 && 0.35 <= hi && hi - lo > 1e-6, "[{lo}, {hi}]");
}

/// The run stopped during the expected steps of a property that holds: the exit code is the
/// stop's (124 for `--timeout`, 130 for Ctrl-C), and the interval reached is kept. The walk
/// from 700 on 0..2000 takes 700 × 1300 = 910,000 steps on average; a few seconds of sweeps
/// give a lower bound of at least as many steps as sweeps made (each sweep adds a step to
/// every run not yet ended), while the upper bound may not exist yet (`null`).
fn stopped_expected_steps(o: &std::process::Output, code: i32) {
    assert_eq!(o.status.code(), Some(code), "{}", fixtures::stderr(o));
    let doc: serde_json::Value = serde_json::from_str(&fixtures::stdout(o)).unwrap();
    let r = &doc["results"][0];
    assert_eq!(r["verdict"], "holds", "{r}");
    assert_eq!(r["probability_converged"], false, "{r}");
    assert_eq!(r["probability"]["lower"], 1.0, "{r}");
    let e = &r["expected_steps"];
    let lo = e["lower"].as_f64().unwrap();
    let sweeps = r["probability_sweeps"].as_u64().unwrap();
    assert!(sweeps >= 100, "{r}");
    assert!(lo >= (sweeps / 2) as f64 && lo <= 910_000.0, "{r}");
    assert!(e["upper"].is_null() || e["upper"].as_f64().unwrap() >= 910_000.0, "{r}");
}

#[test]
fn a_timeout_keeps_the_expected_steps_reached_so_far() {
    let spec = crate::scratch::Scratch::file("probability", "ruin.labs", RUIN);
    let args = ["verify", spec.as_str(), "n=2000", "i=700", "--property", "EndsFairly", "--probability", "--json"];
    let o = fixtures::labs(&[&args[..], &["--timeout", "2"]].concat());
    assert!(fixtures::stderr(&o).contains("time limit"), "{}", fixtures::stderr(&o));
    stopped_expected_steps(&o, 124);
}

#[test]
fn ctrl_c_keeps_the_expected_steps_reached_so_far() {
    let spec = crate::scratch::Scratch::file("probability", "ruin.labs", RUIN);
    let child = fixtures::labs_command()
        .args(["verify", spec.as_str(), "n=2000", "i=700", "--property", "EndsFairly", "--probability", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run labs");
    std::thread::sleep(std::time::Duration::from_millis(2000));
    // SAFETY: kill only sends a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let o = child.wait_with_output().expect("wait");
    stopped_expected_steps(&o, 130);
}

/// Edges: no initial state (no run: the probability is not defined, said so), a deadlock at
/// the start (half the initial states deadlock at once: every property's probability is 1/2,
/// decided by the graph, and the runs that reach ψ do so in exactly 0 steps), and a
/// predicate that fails at run time (the run-time error of the model, exit 1, as without
/// `--probability`).
#[test]
fn no_initial_state_a_deadlock_at_the_start_and_a_failing_predicate() {
    let none = r#"
system {
    environment = x: [0, 1]
    spawn = A: 1
}
agent A {
    Behavior = x <-- 1 - x; Behavior
}
assume {
    Never = x > 5
}
check {
    P = finally x = 1
}
"#;
    let r = run(none, &[], with_probability(1e-6));
    let p = prob(&r, "P");
    assert_eq!(p.probability, None);
    assert!(p.why_not.as_deref().unwrap().contains("no initial state"), "{:?}", p.why_not);
    let spec = crate::scratch::Scratch::file("probability", "none.labs", none);
    let o = fixtures::labs(&["verify", spec.as_str(), "--probability"]);
    assert_eq!(o.status.code(), Some(0), "{}", fixtures::stderr(&o));
    assert!(fixtures::stdout(&o).contains("probability not computed: not defined"), "{}", fixtures::stdout(&o));

    let dead = r#"
system {
    environment = x: [0, 1]
    spawn = A: 1
}
agent A {
    Behavior = x > 3 -> x <-- 1
}
check {
    F = finally x = 1
    G = always x = 0
    FG = finally always x = 1
    GF = always finally x = 0
    U = x = 0 until x = 1
    W = x = 0 unless x = 1
}
"#;
    for fair in [false, true] {
        let r = run(dead, &[], VerifyOptions { fair, ..with_probability(1e-6) });
        for name in ["F", "G", "FG", "GF", "U"] {
            let p = prob(&r, name);
            assert_eq!(p.probability, Some(Interval { lower: 0.5, upper: 0.5 }), "{name}: {p:?}");
            assert!(p.converged, "{name}");
        }
        assert_eq!(prob(&r, "W").probability, Some(Interval { lower: 1.0, upper: 1.0 }));
        let f = prob(&r, "F");
        assert_eq!(f.expected_steps, Some(Steps::Infinite));
        assert_eq!(f.expected_steps_if_reached, Some(Steps::Within(Interval { lower: 0.0, upper: 0.0 })));
    }

    let failing = r#"
system {
    environment = x: 0; a[2]: 0
    spawn = A: 1
}
agent A {
    Behavior = x < 3 -> x <-- x + 1; Behavior
}
check {
    Bad = finally a[x] = 5
}
"#;
    let spec = crate::scratch::Scratch::file("probability", "failing.labs", failing);
    let o = fixtures::labs(&["verify", spec.as_str(), "--probability"]);
    assert_eq!(o.status.code(), Some(1), "{}", fixtures::stderr(&o));
    assert!(fixtures::stderr(&o).contains("index 2 out of range"), "{}", fixtures::stderr(&o));
}

/// Mirroring `x` (0 ↔ 2) maps the agent's steps to steps as sets, but not with their
/// multiplicities: from `x = 0`, `y` becomes 2 with probability 1/3, from `x = 2` with 2/3.
/// A reduction by that mirror would lump the two initial states and give 1/3 (its
/// representative's) instead of 1/2; `--probability` keeps only the symmetries that keep the
/// counts.
const LOPSIDED: &str = r#"
system {
    environment = x: [0, 2]; y: 0
    spawn = A: 1
}
agent A {
    Behavior = (x = 0 -> (y <-- 1 ++ y <-- 1 ++ y <-- 2)) ++ (x = 2 -> (y <-- 1 ++ y <-- 2 ++ y <-- 2))
}
check {
    Two = finally y = 2
}
"#;

#[test]
fn a_symmetry_of_the_steps_that_changes_their_counts_is_not_used() {
    let (m, b) = load_text(LOPSIDED, &[]).unwrap();
    // Without probabilities, the mirror is a symmetry (the verdicts only see sets of steps).
    let plain = labs::engine::symmetry::analyse(&m, &b, false);
    assert_eq!(plain.group.map(|g| g.values.len()), Some(1), "the mirror of x is found");
    let r = verify(&m, &b, &VerifyOptions { symmetry: true, ..with_probability(1e-9) }).unwrap();
    within(&prob(&r, "Two").probability.unwrap(), 0.5, 1e-9, "P(Two)");
    // Each count matters: from x = 0 alone, 1/3.
    let (m, b) = load_text(&LOPSIDED.replace("x: [0, 2]", "x: 0"), &[]).unwrap();
    let r = verify(&m, &b, &with_probability(1e-9)).unwrap();
    within(&prob(&r, "Two").probability.unwrap(), 1.0 / 3.0, 1e-9, "P(Two) from x = 0");
}

/// Linear-time formulas through the automaton product whose answers follow by hand: `x`
/// takes one of 0, 1, 2 uniformly at every step, so every value recurs with probability 1.
/// `x = 0 until x = 1` fails at every position where `x = 2` and holds at every one where
/// `x = 1`: both recur, so `finally always` of it has probability 0 and `always finally` of it
/// probability 1. The conjunction of two untils and the nested until are beyond what the
/// analysis of bottom components decides: they are refused by name, not guessed.
#[test]
fn formulas_through_the_automaton_have_their_hand_derived_probabilities_or_are_refused_by_name() {
    let tri = r#"
system {
    environment = x: 0
    spawn = A: 1
}
agent A {
    Behavior = (x <-- 0 ++ x <-- 1 ++ x <-- 2); Behavior
}
check {
    StableUntil = finally always (x = 0 until x = 1)
    RecurringUntil = always finally (x = 0 until x = 1)
    RecurringBoth = always finally ((x = 0 until x = 1) and (x = 2 until x = 0))
    Nested = finally always (x = 0 until (x = 1 until x = 2))
}
"#;
    for fair in [false, true] {
        let r = run(tri, &[], VerifyOptions { fair, ..with_probability(1e-9) });
        within(&prob(&r, "StableUntil").probability.unwrap(), 0.0, 1e-9, "P(StableUntil)");
        within(&prob(&r, "RecurringUntil").probability.unwrap(), 1.0, 1e-9, "P(RecurringUntil)");
        for name in ["RecurringBoth", "Nested"] {
            let p = prob(&r, name);
            assert_eq!(p.probability, None, "{name}");
            assert!(p.why_not.as_deref().unwrap().contains("cannot decide this formula"), "{name}: {:?}", p.why_not);
        }
    }
    let spec = crate::scratch::Scratch::file("probability", "tri.labs", tri);
    let o = fixtures::labs(&["verify", spec.as_str(), "--probability"]);
    let out = fixtures::stdout(&o);
    assert!(out.contains("probability not computed: labs cannot decide this formula"), "{out}");
    assert!(!out.contains("-0.0"), "{out}");
}

/// `--report` with `--probability`: the page has each probability and, for `AllCounted`, the
/// exact curve, which is 0 up to step 3 and 1/2 from step 4 (`examples/counter.labs`'s
/// derivation: both updates take 4 steps).
#[test]
fn the_report_plots_the_exact_curve() {
    let out = crate::scratch::Scratch::path("probability", "counter.html");
    let o = fixtures::labs(&[
        "verify",
        &fixtures::path_str("examples/counter.labs"),
        "n=2",
        "atomic=0",
        "--probability",
        "--report",
        out.as_str(),
        "--estimate-runs",
        "0",
    ]);
    assert_eq!(o.status.code(), Some(10), "{}", fixtures::stderr(&o));
    let html = std::fs::read_to_string(out.as_str()).unwrap();
    assert!(html.contains("<h2>Probabilities</h2>"), "no table of probabilities");
    assert!(!html.contains("simulation estimate"), "--estimate-runs 0 drew an estimate");
    let at = html.find("Exact probability of reaching AllCounted within k steps").expect("the curve of AllCounted");
    let part = &html[at..];
    assert!(part.contains("<svg"), "no plot");
    // The table lists the values where they change: 0 from step 0, 1/2 from step 4.
    assert!(part.contains("<tr><td>0</td><td>0.0000</td></tr><tr><td>4</td><td>0.5000</td></tr>"), "{part}");
}

/// The rows of the values table of `property`'s curve on a `verify --probability --report`
/// page with an estimate: `(k, exact, estimate, interval)`.
fn compared_rows(html: &str, property: &str) -> Vec<(usize, f64, f64, (f64, f64))> {
    let at = html
        .find(&format!("Exact probability of reaching {property} within k steps"))
        .unwrap_or_else(|| panic!("no curve of {property}"));
    let part = &html[at..];
    let part = &part[..part.find("</table>").expect("a values table")];
    assert!(part.contains("simulation estimate (1000 runs)"), "no estimate in the legend: {part}");
    part.split("<tr><td>")
        .skip(1)
        .map(|row| {
            let c: Vec<&str> = row.split("</td>").map(|c| c.trim_start_matches("<td>")).collect();
            let (lo, hi) = c[3].trim_matches(|ch| ch == '[' || ch == ']').split_once(", ").unwrap();
            (
                c[0].parse().unwrap(),
                c[1].parse().unwrap(),
                c[2].parse().unwrap(),
                (lo.parse().unwrap(), hi.parse().unwrap()),
            )
        })
        .collect()
}

/// `verify --probability --report` draws, beside the exact curve, the estimate of 1000 runs
/// (seed 0) with its exact interval at each k. On the coin (exact curve `1 − 2^−k`) and a
/// gambler's ruin the estimate must agree with the exact curve: at every k at once within the
/// Dvoretzky–Kiefer–Wolfowitz bound (the estimate is the empirical distribution of the first
/// step at ψ, so `sup_k |estimate − exact| ≤ ε` with probability `1 − 2e^{−2nε²}`; ε for
/// 1 − 1e-9), and at the curve's last step inside the estimate's own 95% interval. A curve
/// shifted by one step, or runs drawn from another chain, fails both.
#[test]
fn the_report_draws_the_estimate_beside_the_exact_curve() {
    let coin = crate::scratch::Scratch::file("probability", "coin.labs", COIN);
    let ruin = crate::scratch::Scratch::file("probability", "ruin.labs", RUIN);
    let eps = ((2.0f64 / 1e-9).ln() / (2.0 * 1000.0)).sqrt();
    for (spec, externs, property) in [
        (coin.as_str(), &[][..], "Heads"),
        (ruin.as_str(), &["n=6", "i=2"][..], "Wins"),
        (ruin.as_str(), &["n=6", "i=2"][..], "Ends"),
    ] {
        let out = crate::scratch::Scratch::path("probability", "estimate.html");
        let mut args = vec!["verify", spec];
        args.extend(externs);
        args.extend(["--probability", "--report", out.as_str(), "-q"]);
        let o = fixtures::labs(&args);
        assert!(matches!(o.status.code(), Some(0 | 10)), "{}", fixtures::stderr(&o));
        let html = std::fs::read_to_string(out.as_str()).unwrap();
        let rows = compared_rows(&html, property);
        assert!(rows.len() > 2, "{rows:?}");
        for &(k, exact, estimate, (lo, hi)) in &rows {
            if property == "Heads" {
                assert!((exact - (1.0 - 0.5f64.powi(k as i32))).abs() < 1e-4, "exact at {k}: {exact}");
            }
            assert!((estimate - exact).abs() <= eps, "{property} at {k}: estimate {estimate}, exact {exact}");
            assert!(lo <= estimate && estimate <= hi, "{property} at {k}: {estimate} outside [{lo}, {hi}]");
        }
        let &(k, exact, _, (lo, hi)) = rows.last().unwrap();
        assert!(lo - 1e-4 <= exact && exact <= hi + 1e-4, "{property} at {k}: exact {exact} outside [{lo}, {hi}]");
    }
}

/// `--estimate-runs` needs `--probability` and `--report`.
#[test]
fn estimate_runs_needs_a_report() {
    let spec = fixtures::path_str("examples/counter.labs");
    let o = fixtures::labs(&["verify", &spec, "n=2", "atomic=0", "--probability", "--estimate-runs", "10"]);
    assert_eq!(o.status.code(), Some(2), "{}", fixtures::stderr(&o));
    assert!(fixtures::stderr(&o).contains("--report"), "{}", fixtures::stderr(&o));
}
