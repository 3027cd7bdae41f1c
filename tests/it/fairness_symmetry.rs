//! Weak and strong fairness under the symmetry reduction (docs/semantics.md, D15): the checks
//! follow each agent through the permutations that map successors to their representatives.
//!
//! - the hand-derived case where the roles rotate around a loop of representatives
//!   (`tests/cases/fairness_rotation.labs`: read without the permutations, its loop looks fair
//!   and `Done` would be violated), reduced to its orbits;
//! - random symmetric specs, built so that a leader loops while the others wait, roles swap in
//!   the representatives' order, and agents walk a line whose mirror is a symmetry of values:
//!   verdicts with the reduction equal those without it, and every counterexample found under
//!   the reduction is replayed and its loop judged fair from the successors of its states
//!   (`fairness::judge`, not the engine's fair check).

use crate::engine_common::load;
use crate::engine_common::load_text;
use crate::fairness::judge;
use crate::fixtures::CASES;
use crate::specgen::Rng;
use crate::tier;
use labs::engine::{Fairness, Verdict, VerifyOptions, VerifyReport, verify};

fn opts(fairness: Option<Fairness>, symmetry: bool, threads: usize) -> VerifyOptions {
    VerifyOptions {
        fairness,
        symmetry,
        threads,
        exhaustive: true,
        check_analysis: true,
        max_states: Some(20_000),
        ..Default::default()
    }
}

/// The rotation case is reduced (7 orbits: the initial state and, up to the swap of the
/// agents, the leader in {L0, L2} with the other in {I, W1, T}), and decided as by hand.
#[test]
fn the_rotating_roles_are_followed_under_the_reduction() {
    let (m, b) = load(&format!("{CASES}/fairness_rotation.labs"), &[]);
    for f in [Fairness::Weak, Fairness::Strong] {
        for threads in [1, 2] {
            let rep = verify(&m, &b, &opts(Some(f), true, threads)).expect("verifies");
            assert_eq!(rep.stats.states, 7, "{f:?}: orbits");
            assert!(rep.stats.reduction.as_deref().is_some_and(|r| r.contains("A: 2 interchangeable")), "{f:?}");
            let v: Vec<(&str, Verdict)> = rep.results.iter().map(|r| (r.property.as_str(), r.verdict)).collect();
            assert_eq!(v, [("Done", Verdict::Holds), ("Calm", Verdict::Violated)], "{f:?}");
            judge(&m, &b, &rep, f, &format!("rotation {f:?}"));
            // The counterexample of Calm loops with the leader alone, after the other agent
            // terminated: concrete agents, each state a step of the named one.
            let t = rep.results[1].trace.as_ref().expect("a counterexample");
            assert!(t.loop_start.is_some(), "{f:?}: a lasso");
        }
    }
}

/// One random spec of the families below.
fn rotating_spec(rng: &mut Rng) -> String {
    let n = 2 + rng.below(2);
    if rng.chance(30) {
        return walking_spec(rng, n);
    }
    const BRANCHES: [&str; 8] = [
        "(x < 2 -> x <- x + 1; Behavior)",
        "(x > 0 -> x <- x - 1; Behavior)",
        "(v <~ x; Behavior)",
        "(v = 1 -> x <- 1; Behavior)",
        "(done = 1 -> lock <-- 0; Behavior)",
        "(lock = 1 -> lock <-- 0; Behavior)",
        "(x = 1 -> done <-- 1; Behavior)",
        "(x = 2 -> x <- 0; Behavior)",
    ];
    const LOOPS: [&str; 5] = [
        "x <- 2; x <- 0; Loop",
        "x <- (x + 1) % 3; Loop",
        "(x <- 2; x <- 0; Loop) ++ (lock <-- 0; Behavior)",
        "lock = 1 -> x <- 2; x <- 0; Loop",
        "x <- 2; v <~ 1; x <- 0; Loop",
    ];
    const WAITS: [&str; 5] = [
        "x <- 1; done <-- 1",
        "x <- 1; done <-- 1; Behavior",
        "lock = 0 -> x <- 1; Behavior",
        "x <- 1; Wait",
        "v = 1 -> done <-- 1",
    ];
    const PROPS: [&str; 6] = [
        "finally done = 1",
        "finally always forall A a, x of a < 2",
        "always finally lock = 0",
        "finally exists A a, x of a = 1",
        "(lock = 0 or lock = 1) until done = 1",
        "always finally exists A a, v of a = 1",
    ];
    let mut branches = vec!["(lock = 0 -> lock <-- 1; Loop)", "(lock = 1 -> Wait)"];
    for _ in 0..rng.below(3) {
        branches.push(*rng.choose(&BRANCHES));
    }
    let link = rng.choose(&["true", "x of c1 = x of c2", "x of c1 != x of c2 or v of c2 = 0"]);
    let init = rng.choose(&["0", "0", "0..1"]);
    let props: Vec<String> = (0..1 + rng.below(3)).map(|i| format!("    P{i} = {}", rng.choose(&PROPS))).collect();
    format!(
        "system {{\n    environment = lock: 0; done: 0\n    spawn = A: {n}\n}}\n\
         stigmergy S {{\n    link = {link}\n    v: 0\n}}\n\
         agent A {{\n    interface = x: {init}\n    stigmergies = S\n    Behavior = {}\n    Loop = {}\n    Wait = {}\n}}\n\
         check {{\n{}\n}}\n",
        branches.join(" ++ "),
        rng.choose(&LOOPS),
        rng.choose(&WAITS),
        props.join("\n")
    )
}

/// Agents walking on 0..4 from its middle: the mirror `x ↦ 4 - x` is a symmetry of values
/// when the steps and the properties are symmetric about 2.
fn walking_spec(rng: &mut Rng, n: usize) -> String {
    const BRANCHES: [&str; 4] = [
        "(x = 0 -> done <-- 1; Behavior)",
        "(x = 4 -> done <-- 1; Behavior)",
        "(done = 1 -> x <- 2; Behavior)",
        "(x != 2 -> done <-- 0; Behavior)",
    ];
    const PROPS: [&str; 4] = [
        "finally done = 1",
        "always finally exists A a, x of a = 2",
        "finally always forall A a, x of a != 0 and x of a != 4",
        "finally forall A a, x of a = 2",
    ];
    let mut branches = vec!["(x < 4 -> x <- x + 1; Behavior)", "(x > 0 -> x <- x - 1; Behavior)"];
    // Both ends, or neither: the mirror maps one to the other.
    if rng.chance(60) {
        branches.extend(&BRANCHES[..2]);
    }
    for _ in 0..rng.below(2) {
        branches.push(*rng.choose(&BRANCHES[2..]));
    }
    let props: Vec<String> = (0..1 + rng.below(2)).map(|i| format!("    P{i} = {}", rng.choose(&PROPS))).collect();
    format!(
        "system {{\n    environment = done: 0\n    spawn = A: {n}\n}}\n\
         agent A {{\n    interface = x: 2\n    Behavior = {}\n}}\n\
         check {{\n{}\n}}\n",
        branches.join(" ++ "),
        props.join("\n")
    )
}

/// What the random specs showed, so that the test can fail where it compared nothing.
#[derive(Default, Debug)]
struct Seen {
    reduced_specs: usize,
    value_maps: usize,
    compared: usize,
    /// Violated freely, holding under weak fairness (fairness decided something).
    fairness_mattered: usize,
    /// Fair counterexamples found under the reduction (lifted and judged).
    lifted: usize,
}

fn check_spec(seed: u64, seen: &mut Seen) {
    let mut rng = Rng::new(seed ^ 0x5EED_FA1E);
    let text = rotating_spec(&mut rng);
    let (m, b) = load_text(&text, &[]).unwrap_or_else(|e| panic!("seed {seed}: {e:?}\n{text}"));
    let free = verify(&m, &b, &opts(None, false, 1)).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
    if !free.stats.complete {
        return;
    }
    let mut any_reduced = false;
    for f in [Fairness::Weak, Fairness::Strong] {
        let tag = format!("seed {seed} --fairness {}:\n{text}", f.as_str());
        let reduced: VerifyReport = verify(&m, &b, &opts(Some(f), true, 1)).unwrap_or_else(|e| panic!("{tag}: {e}"));
        let plain = verify(&m, &b, &opts(Some(f), false, 2)).unwrap_or_else(|e| panic!("{tag}: {e}"));
        let Some(how) = reduced.stats.reduction.clone() else { return };
        any_reduced = true;
        seen.value_maps += usize::from(how.contains("symmetries of values") && f == Fairness::Weak);
        for ((x, y), z) in reduced.results.iter().zip(&plain.results).zip(&free.results) {
            assert_eq!(x.verdict, y.verdict, "{tag}: {} reduced / not reduced", x.property);
            assert_ne!(x.verdict, Verdict::Unknown, "{tag}: {}", x.property);
            seen.compared += 1;
            seen.lifted +=
                usize::from(x.verdict == Verdict::Violated && x.trace.as_ref().is_some_and(|t| t.loop_start.is_some()));
            seen.fairness_mattered +=
                usize::from(f == Fairness::Weak && z.verdict == Verdict::Violated && x.verdict == Verdict::Holds);
        }
        judge(&m, &b, &reduced, f, &tag);
        judge(&m, &b, &plain, f, &tag);
    }
    seen.reduced_specs += usize::from(any_reduced);
}

#[test]
fn random_symmetric_specs_agree_with_no_reduction() {
    let count =
        if tier::slow("300 more symmetric specs under weak and strong fairness, about 2 minutes") { 360 } else { 60 };
    let count: u64 = std::env::var("LABS_FAIR_SYM_SEEDS").ok().and_then(|v| v.parse().ok()).unwrap_or(count);
    let mut seen = Seen::default();
    for seed in 0..count {
        check_spec(seed, &mut seen);
    }
    eprintln!("{seen:?}");
    assert!(seen.reduced_specs >= count as usize / 3, "too few specs reduced: {seen:?}");
    assert!(seen.fairness_mattered > 0 && seen.lifted > 0 && seen.value_maps > 0, "{seen:?}");
}
