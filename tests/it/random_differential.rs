//! Random differential test of every route of `labs verify`: small random specs over the whole
//! language (`tests/it/specgen/`), each verified free and `--fair` by the native engine (every
//! state explored, the reference; and by default, stopping at the violations where no
//! run-time error can lie beyond them), the native engine without reductions
//! (`--no-reduction`), and the LNT program through labs's LNT interpreter in every workflow
//! (`--backend lnt --workflow monolithic|compositional|on-the-fly`).
//! Per property the verdicts must agree, or both runs meet the same kind of run-time error; an
//! LNT route may refuse a construct by name (counted, not compared). A spec on which some route
//! hits a bound is not compared on it. The value analysis is checked as an invariant on each
//! spec: every value the native engine reaches lies in the analysed set.
//!
//! Tiers: a fixed sample of seeds runs by default; `LABS_SLOW_TESTS=1` runs 100 more
//! (`LABS_GEN_FROM`, `LABS_GEN_COUNT`, `LABS_GEN_THREADS` choose which and how), minimising the
//! first spec of each class of disagreement (`LABS_GEN_BUDGET` checks and
//! `LABS_GEN_MINIMISE_SECONDS` at most);
//! `LABS_GEN_VERBOSE=1` prints a line per spec. `LABS_GEN_SEED=N` runs one seed and minimises
//! each of its disagreements.

use crate::specgen::routes::{
    Disagreement, Limits, Outcome, QUICK, SpecReport, THOROUGH, check_spec, command_line, still_disagrees,
};
use crate::specgen::{GenSpec, generate};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// What a batch of seeds gave.
#[derive(Default)]
struct Batch {
    specs: usize,
    compared: usize,
    bounded: usize,
    values_checked: usize,
    refusals: BTreeMap<String, usize>,
    /// Native outcomes (free and fair) that are run-time errors, and all native outcomes.
    native_errors: usize,
    natives: usize,
    seconds: BTreeMap<&'static str, f64>,
    /// The slowest spec: seconds, seed.
    slowest: (f64, u64),
    /// Per class: the seeds showing it, and the report of the first.
    classes: BTreeMap<String, (Vec<u64>, String)>,
    /// The classes (without the route) already minimised: the two LNT workflows usually share
    /// the cause.
    minimised: std::collections::BTreeSet<String>,
}

/// How one disagreement is shown: the spec, the seed, the routes and their outcomes, and the
/// commands that reproduce it.
fn describe(g: &GenSpec, rep: &SpecReport, d: &Disagreement, minimised: Option<&str>, limits: &Limits) -> String {
    let mut s = format!("seed {}: {}{}\n", g.seed, d.key(), if d.fair { " (--fair)" } else { "" });
    for (route, fair, props, outcome) in &rep.outcomes {
        if *fair == d.fair {
            s += &format!("  {:<24} {outcome}\n", route.name());
            let _ = props;
        }
    }
    if let Some(r) = d.route {
        let props = match (&rep.outcomes.iter().find(|(x, f, ..)| *x == r && *f == d.fair), r) {
            (Some((_, _, p, _)), _) => p.clone(),
            _ => vec![],
        };
        s += &format!("  reproduce: {}\n", command_line(r, d.fair, &g.externs, &props, limits));
        let native = crate::specgen::routes::Route::Native;
        s += &format!("      against: {}\n", command_line(native, d.fair, &g.externs, &props, limits));
    } else if let Outcome::Failed(detail) = &d.got {
        s += &format!("  {detail} (labs values SPEC.labs {})\n", g.externs.join(" "));
    }
    s += &format!("--- spec (seed {}):\n{}", g.seed, g.text);
    if let Some(m) = minimised {
        s += &format!("--- minimised:\n{m}");
    }
    s
}

/// Runs the seeds on `threads` threads; minimises the first spec of each new class when
/// `minimise` is set (at most `budget` checks each).
fn run_seeds(seeds: &[u64], threads: usize, limits: &Limits, minimise: bool, budget: usize) -> Batch {
    let batch = Mutex::new(Batch::default());
    let verbose = std::env::var("LABS_GEN_VERBOSE").is_ok();
    let minimise_seconds = env_number("LABS_GEN_MINIMISE_SECONDS", 240);
    let next = AtomicU64::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                    let Some(&seed) = seeds.get(i) else { break };
                    let g = generate(seed);
                    let rep = check_spec(&g.text, &g.externs, limits);
                    if verbose {
                        let total: f64 = rep.seconds.values().sum();
                        let classes: Vec<String> = rep.disagreements.iter().map(|d| d.key()).collect();
                        println!(
                            "seed {seed}: {total:.1} s, {} compared, {} bounded, {} refused {classes:?}",
                            rep.compared,
                            rep.bounded,
                            rep.refusals.len()
                        );
                    }
                    let mut new_classes = vec![];
                    {
                        let mut b = batch.lock().unwrap();
                        b.specs += 1;
                        b.compared += rep.compared;
                        b.bounded += rep.bounded;
                        b.values_checked += rep.values_checked.unwrap_or(0);
                        for (route, fair, props, o) in &rep.outcomes {
                            if *route == crate::specgen::routes::Route::Native && props.is_empty() {
                                b.natives += 1;
                                b.native_errors += matches!(o, Outcome::Error(..)) as usize;
                                let _ = fair;
                            }
                        }
                        let total: f64 = rep.seconds.values().sum();
                        for (r, t) in &rep.seconds {
                            *b.seconds.entry(r.name()).or_default() += t;
                        }
                        if total > b.slowest.0 {
                            b.slowest = (total, seed);
                        }
                        for r in &rep.refusals {
                            *b.refusals.entry(crate::specgen::routes::normalise(r)).or_default() += 1;
                        }
                        for d in &rep.disagreements {
                            match b.classes.get_mut(&d.key()) {
                                Some((seeds, _)) => {
                                    if !seeds.contains(&seed) {
                                        seeds.push(seed)
                                    }
                                }
                                None => {
                                    b.classes.insert(d.key(), (vec![seed], String::new()));
                                    new_classes.push(d.clone());
                                }
                            }
                        }
                    }
                    for d in new_classes {
                        let first = batch.lock().unwrap().minimised.insert(d.class.clone());
                        let m = (minimise && first).then(|| {
                            // Each check runs two routes; a spec that stays slow to check is not
                            // worth more than a few minutes.
                            let deadline = Instant::now() + Duration::from_secs(minimise_seconds);
                            crate::specgen::minimise::minimise(&g.text, &g.externs, budget, &mut |t| {
                                Instant::now() < deadline && still_disagrees(t, &g.externs, &d, limits)
                            })
                        });
                        let text = describe(&g, &rep, &d, m.as_deref(), limits);
                        if minimise {
                            println!("=== new class\n{text}");
                        }
                        batch.lock().unwrap().classes.get_mut(&d.key()).unwrap().1 = text;
                    }
                }
            });
        }
    });
    batch.into_inner().unwrap()
}

fn summary(b: &Batch) -> String {
    let mut s = format!(
        "{} specs: {} comparisons, {} skipped at a bound, {} values checked against the analysis\n",
        b.specs, b.compared, b.bounded, b.values_checked
    );
    s += &format!("  native runs meeting a run-time error: {} of {}\n", b.native_errors, b.natives);
    let times: Vec<String> = b.seconds.iter().map(|(r, t)| format!("{r} {t:.0} s")).collect();
    s += &format!("  time: {}; slowest spec: seed {} ({:.1} s)\n", times.join(", "), b.slowest.1, b.slowest.0);
    for (r, n) in &b.refusals {
        s += &format!("  refused {n}×: {r}\n");
    }
    for (class, (seeds, _)) in &b.classes {
        let shown: Vec<String> = seeds.iter().take(12).map(|x| x.to_string()).collect();
        s += &format!("  DISAGREEMENT {}× {class}: seeds {}\n", seeds.len(), shown.join(" "));
    }
    s
}

fn failure_text(b: &Batch) -> String {
    let mut s = summary(b);
    for (_, text) in b.classes.values() {
        s += &format!("\n{text}");
    }
    s
}

/// The default tier: a fixed sample of seeds. Each must give the same outcome on every route.
#[test]
fn fixed_sample_agrees_on_every_route() {
    // Seeds 40 and 70: a run-time error (a division by zero in a link predicate, an index out
    // of range) lies beyond the violations of every property, where a run stopped at the
    // violations would answer with them (docs/semantics.md, D9).
    let seeds: Vec<u64> = (0..40).chain([40, 70]).collect();
    let b = run_seeds(&seeds, 2, &QUICK, false, 0);
    println!("{}", summary(&b));
    // A generator whose specs all hit the bounds or are all refused would test nothing.
    assert!(b.compared >= 4 * seeds.len(), "too few comparisons: {}", summary(&b));
    assert!(b.values_checked > 0, "no value checked against the analysis");
    assert!(b.classes.is_empty(), "{}", failure_text(&b));
}

/// The slow tier: thousands of seeds (`LABS_SLOW_TESTS=1`), the first spec of each class of
/// disagreement minimised.
#[test]
fn long_run_agrees_on_every_route() {
    if !crate::tier::slow("the long random differential run, minutes") {
        return;
    }
    let from = env_number("LABS_GEN_FROM", 1000);
    let count = env_number("LABS_GEN_COUNT", 100);
    let threads = env_number("LABS_GEN_THREADS", 2) as usize;
    let seeds: Vec<u64> = (from..from + count).collect();
    let b = run_seeds(&seeds, threads, &THOROUGH, true, env_number("LABS_GEN_BUDGET", 300) as usize);
    println!("{}", summary(&b));
    assert!(b.classes.is_empty(), "{}", failure_text(&b));
}

/// One seed (`LABS_GEN_SEED=N`), each disagreement minimised: for reproducing a failure.
#[test]
fn one_seed_agrees_on_every_route() {
    let Ok(seed) = std::env::var("LABS_GEN_SEED") else {
        println!("skipped: LABS_GEN_SEED=N runs seed N");
        return;
    };
    let seed: u64 = seed.parse().expect("LABS_GEN_SEED is a number");
    let g = generate(seed);
    println!("--- spec (seed {seed}, externs {:?}):\n{}", g.externs, g.text);
    let b = run_seeds(&[seed], 1, &THOROUGH, true, env_number("LABS_GEN_BUDGET", 600) as usize);
    println!("{}", summary(&b));
    assert!(b.classes.is_empty(), "{}", failure_text(&b));
}

/// Every generated spec parses, resolves and compiles (an invalid spec is a bug of the
/// generator), and together the specs use every construct the generator promises.
#[test]
fn generated_specs_load_and_cover_the_language() {
    let constructs = [
        "environment",
        "interface",
        "stigmergy",
        "link = ",
        " of c1",
        " of c2",
        "[2]",
        "undef",
        "<-",
        "<~",
        "<--",
        " / ",
        " % ",
        " : ",
        "abs(",
        "min(",
        "max(",
        "2147483646",
        "-2147483647",
        "..",
        "pick ",
        " where ",
        "count ",
        "exists ",
        "forall ",
        ":= ",
        " => ",
        " -> ",
        "!(",
        " ++ ",
        " || ",
        "; ",
        "Skip",
        "Nil",
        "Loop",
        "Proc0",
        "assume",
        "always ",
        "finally ",
        "eventually ",
        "fairly ",
        "fairly_inf ",
        "between (",
        "from (",
        "thereIs",
        "precedes",
        ") until ",
        ") unless ",
        "finally always ",
        "always finally ",
        "extern",
        "if ",
        " of [0..",
        "id % 2",
    ];
    let mut seen: BTreeMap<&str, usize> = constructs.iter().map(|c| (*c, 0)).collect();
    for seed in 0..1500 {
        let g = generate(seed);
        if let Err(e) = crate::engine_common::load_text(&g.text, &g.externs) {
            panic!("seed {seed}: the generated spec does not load: {e:?}\n{}", g.text);
        }
        for c in constructs {
            if g.text.contains(c) {
                *seen.get_mut(c).unwrap() += 1;
            }
        }
    }
    let missing: Vec<&&str> = seen.iter().filter(|(_, n)| **n == 0).map(|(c, _)| c).collect();
    assert!(missing.is_empty(), "constructs never generated: {missing:?}");
}

/// The comparison of outcomes sees every kind of difference, and only those.
#[test]
fn comparison_sees_every_kind_of_difference() {
    use crate::specgen::routes::{Compared, ErrorKind, compare};
    let mods: BTreeMap<String, String> =
        [("A", "always"), ("F", "eventually")].iter().map(|(p, m)| (p.to_string(), m.to_string())).collect();
    let verdicts = |a: &str, f: &str| {
        Outcome::Verdicts([("A", a), ("F", f)].iter().map(|(p, v)| (p.to_string(), v.to_string())).collect())
    };
    let holds = verdicts("holds", "violated");
    assert_eq!(compare(&holds, &holds.clone(), &mods), Compared::Agree);
    assert_eq!(
        compare(&holds, &verdicts("holds", "holds"), &mods),
        Compared::Differ("verdict of `finally`: violated natively, holds on the route".into())
    );
    // A route given fewer properties is compared on those.
    let only_a = Outcome::Verdicts([("A".to_string(), "holds".to_string())].into_iter().collect());
    assert!(matches!(compare(&holds, &only_a, &mods), Compared::Differ(_)));
    assert_eq!(compare(&only_a, &only_a, &mods), Compared::Agree);
    let div = Outcome::Error(ErrorKind::DivisionByZero, "division by zero".into());
    let ovf = Outcome::Error(ErrorKind::Overflow, "integer overflow".into());
    assert_eq!(compare(&div, &div.clone(), &mods), Compared::Agree);
    // Two errors of different kinds: both reachable, each route reports the first it meets.
    assert_eq!(compare(&div, &ovf, &mods), Compared::Agree);
    assert!(matches!(compare(&div, &holds, &mods), Compared::Differ(_)));
    assert!(matches!(compare(&holds, &div, &mods), Compared::Differ(_)));
    assert!(matches!(compare(&holds, &Outcome::Failed("panic".into()), &mods), Compared::Differ(_)));
    assert!(matches!(compare(&holds, &Outcome::Refused("x".into()), &mods), Compared::Refused(_)));
    assert_eq!(compare(&holds, &Outcome::Bound("t".into()), &mods), Compared::Bounded);
    assert_eq!(compare(&Outcome::Bound("t".into()), &div, &mods), Compared::Bounded);
}

/// The outputs of `labs verify` read as outcomes: exit codes, the JSON report, run-time errors
/// as each route words them, refusals, internal errors.
#[test]
fn outcomes_are_read_from_what_labs_prints() {
    use crate::specgen::routes::{ErrorKind, classify};
    let report = r#"{"results": [{"property": "A", "verdict": "violated"}, {"property": "B", "verdict": "holds"}]}"#;
    match classify(Some(10), report, "") {
        Outcome::Verdicts(v) => assert_eq!(v.get("A").map(String::as_str), Some("violated")),
        o => panic!("{o}"),
    }
    let unknown = r#"{"results": [{"property": "A", "verdict": "unknown"}]}"#;
    assert!(matches!(classify(Some(5), unknown, ""), Outcome::Bound(_)));
    assert!(matches!(classify(Some(0), unknown, ""), Outcome::Bound(_)));
    let native_error = r#"{"error": "index 2 out of range for `ea` (size 2) (in a step of Q 0)", "trace": {}}"#;
    assert!(matches!(classify(Some(1), native_error, ""), Outcome::Error(ErrorKind::Index, _)));
    let wide = r#"{"error": "the nondeterministic value `[-5..3000000]` has 3000005 choices, more than the 1048576 a step may enumerate (in a step of P 0)"}"#;
    assert!(matches!(classify(Some(1), wide, ""), Outcome::Error(ErrorKind::TooManyChoices, _)));
    let lnt = |m: &str| classify(Some(1), "", &format!("error: x.svl: x_P0.bcg: Agent_P [TICK] (0): 74:24: {m}\n"));
    assert!(matches!(lnt("division by zero (in Agent_P (0))"), Outcome::Error(ErrorKind::DivisionByZero, _)));
    assert!(matches!(lnt("IntToNat of a negative number (-3)"), Outcome::Error(ErrorKind::Index, _)));
    assert!(matches!(lnt("integer overflow (2147483648)"), Outcome::Error(ErrorKind::Overflow, _)));
    assert!(matches!(lnt("unbounded input offer `?v` of gate SETENV"), Outcome::Failed(_)));
    let refusal = "error: the LNT encoding does not support arrays of arrays (in property `P`)\n";
    assert!(matches!(classify(Some(1), "", refusal), Outcome::Refused(_)));
    // An internal error quoting a run-time error met while replaying is not that error.
    let internal = "error: internal error of the LNT encoding: the counterexample of P0 cannot be replayed \
                    in the native engine: index 2 out of range for `ea` (size 2)\n";
    assert!(matches!(classify(Some(1), "", internal), Outcome::Failed(_)));
    assert!(matches!(classify(Some(101), "", "thread 'main' panicked at src/x.rs"), Outcome::Failed(_)));
    assert!(matches!(classify(None, "", ""), Outcome::Failed(_)));
}

/// The minimiser keeps what the failure needs and drops the rest (here the "failure" is a
/// syntactic one, so no `labs` run is needed).
#[test]
fn minimiser_keeps_only_what_fails() {
    let text = "system {\n    environment = ev: 3; ew: 0..2\n    spawn = P: 2, Q: 1\n}\n\n\
                stigmergy S { link = x of c1 < x of c2\n    s: id }\n\n\
                agent P {\n    interface = x: 1\n    stigmergies = S\n    \
                Behavior = (x < 2 -> { x <- x + 1; l := count Q q, true; ev <-- l }) ++ (s <~ s + 1); Behavior\n}\n\n\
                agent Q {\n    interface = x: 0\n    Behavior = ew <-- (ew + 1) % 3; Behavior\n}\n\n\
                check {\n    A = always ev < 5\n    Keep = always ew + 7 > 0\n    F = finally x of 0 = 2\n}\n";
    assert!(crate::engine_common::load_text(text, &[]).is_ok());
    let mut calls = 0;
    let mut fails = |t: &str| {
        calls += 1;
        t.contains("ew + 7 > 0")
    };
    let small = crate::specgen::minimise::minimise(text, &[], 2000, &mut fails);
    assert!(small.contains("ew + 7 > 0"), "{small}");
    assert!(crate::engine_common::load_text(&small, &[]).is_ok(), "{small}");
    let check = &small[small.find("check {").expect("a check section")..];
    assert_eq!(check.lines().count(), 3, "one property remains:\n{small}");
    assert!(!small.contains("stigmergy") && !small.contains("count") && !small.contains("ev"), "{small}");
    assert_eq!(small.matches("agent ").count(), 1, "{small}");
    assert!(calls > 0);
}
