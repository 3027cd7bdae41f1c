//! Linear-time formulas and scoped patterns decided on the fly: the native engine looks for an
//! accepting lasso of the product with the automaton of the formula's negation depth-first
//! before exploring, then among the expanded states as the exploration goes, and stops once
//! every property is violated. The verdicts are those of the exhaustive run (`--exhaustive`),
//! free and `--fair`, on 1 and 2 threads, on the semantics cases, the examples and benchmarks
//! that have such properties, and random formulas over the predicates of generated specs; every
//! counterexample replays and violates its formula (`holds_on_lasso`, through
//! `trace::from_labels::shows`); a violation the depth-first search finds stops the search
//! long before the whole space.

use crate::engine_common::{load, load_text, replay_all, verdict};
use crate::fixtures;
use labs::behaviour::Behaviour;
use labs::engine::{EngineError, Verdict, VerifyOptions, VerifyReport, verify};
use labs::model::scoped::as_ltl;
use labs::model::{Modality, Model, Property, QPred};
use labs::syntax::Ltl;
use labs::trace::from_labels::{Shows, shows};
use proptest::prelude::*;

fn is_linear(p: &Property) -> bool {
    matches!(p.modality, Modality::Ltl(_) | Modality::Between { .. } | Modality::FromUntil { .. })
}

/// Properties the watch can decide early: all but the branching ones.
fn decidable(m: &Model) -> Vec<String> {
    let branching = |p: &Property| matches!(p.modality, Modality::Fairly | Modality::FairlyInf);
    m.properties.iter().filter(|p| !branching(p)).map(|p| p.name.clone()).collect()
}

/// `props` verified within a state bound and a time limit, on the fly or exhaustively; `None`
/// when a bound stops the run or the model meets a run-time error (the exhaustive run then
/// reports it where the run on the fly, which stops at the violations, need not). The
/// exhaustive run, which decides whether a spec is compared at all, has 5 s; a run on the fly
/// has 30 s, since its searches may take up to a few times the exhaustive run's time on the
/// same states, and a spec whose successors are costly (seed 66568: 2,560 states in 2 to
/// 3 s) would otherwise fail on the machine's speed rather than on a verdict.
fn bounded(
    m: &Model,
    b: &[Behaviour],
    props: &[String],
    fair: bool,
    threads: usize,
    exhaustive: bool,
) -> Option<VerifyReport> {
    let seconds = if exhaustive { 5 } else { 30 };
    let limits = labs::limits::Limits::new(Some(std::time::Duration::from_secs(seconds)), None, None, None);
    let opts = VerifyOptions {
        properties: Some(props.to_vec()),
        fair,
        threads,
        check_analysis: true,
        exhaustive,
        max_states: Some(200_000),
        limits,
        ..Default::default()
    };
    match verify(m, b, &opts) {
        Ok(r) if r.stopped.is_none() => Some(r),
        Ok(_) | Err(EngineError::Runtime { .. }) => None,
        Err(e) => panic!("{e}"),
    }
}

/// The judge of every counterexample: replayed, and shown to violate its property
/// (`replay_all`: a linear-time formula is evaluated on the lasso by `holds_on_lasso`). A
/// scoped pattern's is evaluated the same way through its formula (`as_ltl`), a path that ends
/// where the pattern's monitor fails being read as the run that repeats its last state
/// (any run with that prefix violates the pattern).
fn judge(m: &Model, b: &[Behaviour], rep: &VerifyReport) {
    replay_all(m, b, rep);
    for r in rep.results.iter().filter(|r| r.verdict == Verdict::Violated) {
        let p = m.properties.iter().find(|p| p.name == r.property).expect("the property");
        let Some(f) = as_ltl(&p.modality, &p.pred) else { continue };
        let mut as_formula = p.clone();
        as_formula.pred = f.atoms()[0].clone();
        as_formula.modality = Modality::Ltl(f);
        let mut run = r.trace.clone().expect("a counterexample");
        run.ends_in_deadlock |= run.loop_start.is_none();
        let shown = shows(m, b, &run, &as_formula).expect("no run-time error along the counterexample");
        assert!(matches!(shown, Shows::Violation { .. }), "{}: the counterexample does not violate it", p.name);
    }
}

/// The run on the fly of each selection (every decidable property on 1 and 2 threads, each
/// linear one alone) against the exhaustive run, free and fair: the same verdicts; stopped
/// early only with every property violated, having explored no more states; the whole space
/// otherwise; the same counterexamples and counts on 1 and 2 threads. How many verdicts were
/// compared.
fn agree(what: &str, m: &Model, b: &[Behaviour]) -> usize {
    let all = decidable(m);
    let linear: Vec<String> = m.properties.iter().filter(|p| is_linear(p)).map(|p| p.name.clone()).collect();
    let mut compared = 0;
    for fair in [false, true] {
        let Some(full) = bounded(m, b, &all, fair, 1, true) else { continue };
        let runs = [(all.clone(), 1), (all.clone(), 2)].into_iter().chain(linear.iter().map(|p| (vec![p.clone()], 1)));
        let mut one_thread: Option<VerifyReport> = None;
        for (props, threads) in runs {
            let tag = format!("{what} (fair: {fair}, {threads} threads, {props:?})");
            let otf = bounded(m, b, &props, fair, threads, false).unwrap_or_else(|| panic!("{tag}: stopped"));
            for y in &otf.results {
                let x = full.results.iter().find(|x| x.property == y.property).expect("checked exhaustively");
                assert_eq!(x.verdict, y.verdict, "{tag}: {}", y.property);
                compared += 1;
            }
            if otf.stats.decided_early {
                assert!(otf.results.iter().all(|r| r.verdict == Verdict::Violated), "{tag}");
                assert!(otf.stats.states <= full.stats.states, "{tag}");
            } else {
                assert!(otf.stats.complete && otf.stats.states == full.stats.states, "{tag}");
            }
            judge(m, b, &otf);
            match (&one_thread, threads) {
                (None, 1) => one_thread = Some(otf),
                (Some(one), 2) if props == all => {
                    assert_eq!(one.stats.states, otf.stats.states, "{tag}");
                    for (x, y) in one.results.iter().zip(&otf.results) {
                        assert_eq!(x.trace, y.trace, "{tag}: {}", y.property);
                    }
                }
                _ => {}
            }
        }
    }
    compared
}

#[test]
fn semantics_cases_with_linear_properties() {
    let mut compared = 0;
    for path in fixtures::labs_files(&fixtures::cases()) {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut externs: Vec<Vec<String>> = Vec::new();
        for case in crate::engine_semantics_cases::cases(&text) {
            // `agree` runs both schedulings.
            if externs.contains(&case.externs) {
                continue;
            }
            externs.push(case.externs.clone());
            let Ok((m, b)) = load_text(&text, &case.externs) else { continue };
            if m.properties.iter().any(is_linear) {
                compared += agree(&path.display().to_string(), &m, &b);
            }
        }
    }
    // ltl_cycle, ltl_deadlock and ltl_fair at least.
    assert!(compared >= 100, "{compared} verdicts compared");
}

#[test]
fn examples_and_benchmarks_with_linear_properties() {
    for (spec, externs, _) in fixtures::lnt_instances() {
        let (m, b) = load(&spec, &externs);
        if m.properties.iter().any(is_linear) {
            agree(&spec, &m, &b);
        }
    }
}

/// ltl_cycle.labs's run x = 0 (1 3)^ω with the scoped patterns of `scoped_as_ltl`, verdicts
/// derived there by hand: each violation is found on the fly, cut where the monitor fails.
#[test]
fn scoped_patterns_on_a_cycle() {
    let text = "system {\n  environment = x: 0\n  spawn = P: 1\n  Ping = x <-- 1; Pong\n  Pong = x <-- 2; Ping\n}\n\
        agent P {\n  Behavior = Ping\n  Pong = x <-- 3; Ping\n}\n\
        check {\n  NoThreeBeforeClose = between (x = 0) and (x = 3), thereIs x = 3\n  \
        OpenForever = from (x = 0) until (x = 5), always x < 2\n  \
        ZeroFirst = between (x = 0) and (x = 3), (x = 1) precedes (x = 0)\n  \
        SecondInterval = between (x < 2) and (x = 3), thereIs x = 0\n  \
        NeverAnswered = from (x = 3) until (x = 0), thereIs x = 0\n}\n";
    let (m, b) = load_text(text, &[]).expect("loads");
    assert!(agree("cycle", &m, &b) > 0);
    let r = bounded(&m, &b, &decidable(&m), false, 1, false).expect("decided");
    assert!(r.stats.decided_early);
    for res in &r.results {
        let t = res.trace.as_ref().expect("violated");
        // An interval opened at x = 3 is never closed: that violation is a lasso; the others
        // end where the monitor fails (x = 3 closes the interval [0, 1] without a 3, …).
        assert_eq!(t.loop_start.is_some(), res.property == "NeverAnswered", "{}", res.property);
    }
}

/// Generated specs with a random formula over their own properties' predicates (and their
/// scoped properties as generated).
fn random_formula() -> impl Strategy<Value = Ltl<usize>> {
    let atom = (0usize..4).prop_map(Ltl::Atom);
    atom.prop_recursive(3, 12, 2, |inner| {
        let b = Box::new;
        prop_oneof![
            inner.clone().prop_map(move |x| Ltl::Not(b(x))),
            inner.clone().prop_map(move |x| Ltl::Always(b(x))),
            inner.clone().prop_map(move |x| Ltl::Finally(b(x))),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| Ltl::And(b(x), b(y))),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| Ltl::Or(b(x), b(y))),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| Ltl::Implies(b(x), b(y))),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| Ltl::Until(b(x), b(y))),
            (inner.clone(), inner).prop_map(move |(x, y)| Ltl::Unless(b(x), b(y))),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, .. ProptestConfig::default() })]

    #[test]
    fn random_formulas_on_generated_specs(seed in 0u64..100_000, shapes in proptest::collection::vec(random_formula(), 2)) {
        let g = crate::specgen::generate(seed);
        let Ok((mut m, b)) = load_text(&g.text, &g.externs) else { return Ok(()) };
        let pool: Vec<QPred> = m.properties.iter().flat_map(|p| p.predicates()).cloned().collect();
        let Some(first) = m.properties.first().cloned() else { return Ok(()) };
        let mut added = Vec::new();
        for (i, shape) in shapes.iter().enumerate() {
            let f = shape.try_map(&mut |&a| Some(pool[a % pool.len()].clone())).expect("every atom maps");
            let mut p = first.clone();
            p.name = format!("Random{i}");
            p.pred = f.atoms()[0].clone();
            p.modality = Modality::Ltl(f);
            added.push(p);
        }
        m.properties.retain(is_linear);
        m.properties.extend(added);
        agree(&format!("seed {seed} with {shapes:?}:\n{}", g.text), &m, &b);
    }
}

/// flock.labs with "consensus reached and kept" (issue 42's property).
fn flock_kept() -> String {
    let bench = fixtures::read("benchmarks/flock.labs");
    let system = &bench[..bench.find("check {").expect("a check section")];
    format!(
        "{system}check {{\n    Kept = finally always forall Bird b1, forall Bird b2,\n        \
         dirx of b1 = dirx of b2 and diry of b1 = diry of b2\n}}\n"
    )
}

/// Birds that start without consensus and never exchange their directions (one keeps moving
/// while the others wait with messages pending) never reach it: the depth-first search finds
/// such a run before the exploration starts, so the watch stops it at once.
#[test]
fn flock_stops_long_before_the_whole_space() {
    let text = flock_kept();
    for externs in [["birds=2", "grid=4", "delta=2"], ["birds=3", "grid=2", "delta=1"]] {
        let ext: Vec<String> = externs.iter().map(|s| s.to_string()).collect();
        let (m, b) = load_text(&text, &ext).expect("loads");
        let props = vec!["Kept".to_string()];
        for fair in [false, true] {
            let full = bounded(&m, &b, &props, fair, 2, true).expect("within the bounds");
            assert_eq!(verdict(&full, "Kept"), "violated", "{externs:?} fair: {fair}");
            for threads in [1, 2] {
                let otf = bounded(&m, &b, &props, fair, threads, false).expect("within the bounds");
                assert_eq!(verdict(&otf, "Kept"), "violated");
                assert!(otf.stats.decided_early && !otf.stats.complete);
                assert!(
                    otf.stats.states * 100 <= full.stats.states,
                    "{externs:?} fair: {fair}: {} of {} states explored",
                    otf.stats.states,
                    full.stats.states
                );
                judge(&m, &b, &otf);
            }
        }
    }
}

/// P counts x up to 100,000 while Q sets y to 1 and then toggles z forever: a response to
/// y = 1 never comes. The depth-first search follows P's count first and spends its budget
/// before Q toggles; the search among the expanded states finds Q's loop within the first
/// levels of the breadth-first order, while the whole space has every value of x (200,002
/// states up to the mirror of z).
#[test]
fn the_search_among_expanded_states_decides_what_the_depth_first_one_misses() {
    const DEEP: &str = "system {\n  environment = x: 0; y: 0; z: 0\n  spawn = P: 1, Q: 1\n}\n\
        agent P {\n  Behavior = x < 100000 -> x <-- x + 1; Behavior\n}\n\
        agent Q {\n  Behavior = y <-- 1; Loop\n  Loop = z <-- 1 - z; Loop\n}\n\
        check {\n  Answered = always (y = 1 implies finally y = 2)\n}\n";
    let (m, b) = load_text(DEEP, &[]).expect("loads");
    // Free interleaving: with `--fair` Q's loop waits for P's turns, and P's count ends only
    // at x = 100,000.
    for threads in [1, 2] {
        let r = bounded(&m, &b, &["Answered".to_string()], false, threads, false).expect("decided");
        assert_eq!(verdict(&r, "Answered"), "violated");
        // Explored, so not decided before the exploration; far from x's 100,000 values.
        assert!(r.stats.decided_early && r.stats.states > 1 && r.stats.states < 1_000, "{} states", r.stats.states);
        judge(&m, &b, &r);
    }
}
