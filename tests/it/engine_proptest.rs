//! Random small specs (LAbS text from templates with random constants) never panic and give
//! the same counts and verdicts with 1 and 2 threads; counterexamples replay.

use crate::engine_common;
use engine_common::*;
use labs::engine::{EngineError, VerifyOptions, verify};
use proptest::prelude::*;

fn env_template(c0: i32, c1: i32, k: i32, d: i32, m: i32, md: i32, n: u8) -> String {
    format!(
        "system {{\n  environment = x: {c0}; y: {c1}\n  spawn = P: {n}\n}}\n\
         agent P {{\n  Behavior = ((x < {k} -> x <-- x + {d}) ++ (y > {m} -> y <-- (y * {d} + id) % {md})); Behavior\n}}\n\
         check {{\n  A = always x < {k} + {d}\n  F = finally x >= {k}\n  G = fairly_inf y = 0\n  H = fairly x = {k}\n}}\n"
    )
}

fn stig_template(n: u8, init: i32, lk: i32, w: i32) -> String {
    format!(
        "system {{\n  spawn = N: {n}\n}}\n\
         stigmergy S {{\n  link = id of c1 + id of c2 > {lk}\n  v, u: {init}, id\n}}\n\
         agent N {{\n  interface = seen: 0\n  stigmergies = S\n  \
         Behavior = (v > id -> v <~ id) ++ (v <= id and seen < {w} -> seen <- seen + 1 + u % 2); Behavior\n}}\n\
         check {{\n  Low = finally forall N a, v of a = 0\n  Inv = always exists N a, seen of a < {w}\n  \
         Fair = fairly exists N a, v of a = 0\n  Scope = between (v of 0 = 0) and (seen of 0 > 0), thereIs (v of 1 = 0)\n}}\n"
    )
}

fn block_template(a0: i32, b0: i32, k: i32, md: i32) -> String {
    format!(
        "system {{\n  environment = arr[3]: {a0}; t: {b0}\n  spawn = Q: 2\n}}\n\
         agent Q {{\n  interface = c: 0..2\n  \
         Behavior = (t < {k} -> {{ i := t % 3; arr[i] <-- (arr[i] + c + 1) % {md}; t <-- t + 1 }}) ++ \
         (t >= {k} => c <- [0..2]); Behavior\n}}\n\
         check {{\n  Bound = always arr[0] < {md}\n  Reach = finally t >= {k}\n  \
         Sc = from (t = 1) until (t = {k}), always arr[1] >= 0\n}}\n"
    )
}

/// The name of the spec's first `always` property (each template has one).
fn always_name(text: &str) -> String {
    let line = text.lines().find(|l| l.contains("= always")).expect("an always property");
    line.split('=').next().unwrap().split_whitespace().last().unwrap().to_string()
}

fn check_spec(text: &str) {
    let (m, b) = match load_text(text, &[]) {
        Ok(x) => x,
        Err(e) => panic!("template does not load: {e:?}\n{text}"),
    };
    let r1 = run(&m, &b, false, 1);
    let r2 = run(&m, &b, false, 2);
    match (r1, r2) {
        (Ok(a), Ok(c)) => {
            assert_eq!(
                (a.stats.states, a.stats.transitions, a.stats.deadlocks),
                (c.stats.states, c.stats.transitions, c.stats.deadlocks)
            );
            for (x, y) in a.results.iter().zip(&c.results) {
                assert_eq!(x.verdict, y.verdict, "{}\n{text}", x.property);
            }
            replay_all(&m, &b, &a);
            // `always` alone keeps no successor lists: transitions and deadlocks are then
            // counted while expanding, and must agree with the lists.
            let opts = VerifyOptions {
                properties: Some(vec![always_name(text)]),
                threads: 2,
                check_analysis: true,
                ..Default::default()
            };
            let inv = verify(&m, &b, &opts).expect("same run, one property");
            assert_eq!(
                (a.stats.states, a.stats.transitions, a.stats.deadlocks),
                (inv.stats.states, inv.stats.transitions, inv.stats.deadlocks),
                "counts without successor lists\n{text}"
            );
        }
        (Err(EngineError::Runtime { message: m1, .. }), Err(EngineError::Runtime { message: m2, .. })) => {
            assert_eq!(m1, m2)
        }
        (x, y) => panic!("different outcomes: {:?} / {:?}\n{text}", x.is_ok(), y.is_ok()),
    }
    // Round-robin scheduling: the same agreement between thread counts, and replayable
    // counterexamples.
    match (run(&m, &b, true, 1), run(&m, &b, true, 2)) {
        (Ok(a), Ok(c)) => {
            assert_eq!(
                (a.stats.states, a.stats.transitions, a.stats.deadlocks),
                (c.stats.states, c.stats.transitions, c.stats.deadlocks),
                "fair\n{text}"
            );
            for (x, y) in a.results.iter().zip(&c.results) {
                assert_eq!(x.verdict, y.verdict, "fair {}\n{text}", x.property);
            }
            replay_all(&m, &b, &a);
        }
        (Err(EngineError::Runtime { message: m1, .. }), Err(EngineError::Runtime { message: m2, .. })) => {
            assert_eq!(m1, m2, "fair\n{text}")
        }
        (x, y) => panic!("different fair outcomes: {:?} / {:?}\n{text}", x.is_ok(), y.is_ok()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn env_specs(c0 in -3i32..4, c1 in 0i32..6, k in 0i32..6, d in 1i32..3, m in -1i32..4, md in 1i32..6, n in 1u8..3) {
        check_spec(&env_template(c0, c1, k, d, m, md, n));
    }

    #[test]
    fn stig_specs(n in 2u8..4, init in 0i32..4, lk in -1i32..3, w in 1i32..3) {
        check_spec(&stig_template(n, init, lk, w));
    }

    #[test]
    fn block_specs(a0 in 0i32..3, b0 in 0i32..3, k in 0i32..4, md in 1i32..4) {
        check_spec(&block_template(a0, b0, k, md));
    }
}
