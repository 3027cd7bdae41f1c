//! Never a wrong "holds": the value analysis and the reductions against the unreduced engine.
//!
//! - The specs of `tests/specs/soundness/` each broke an analysis once (⊥ read through
//!   `x of e` from a type without `x`; a local holding a picked agent overwritten by `count`,
//!   `exists` or a second pick). Their verdict is derived by hand in their header; every route
//!   must give it, with every reached value inside the analysed sets (`--check-analysis`).
//! - Random specs built around the same shapes (two types, one lacking the attributes the other
//!   reads through `of`; negated comparisons in guards; block locals written by `pick`,
//!   `count`, `exists` and `:=` in any order, then used as an agent or as a number) get the same
//!   verdicts with and without the reduction, free and `--fair`, and never reach a value
//!   outside the analysed sets.

use crate::engine_common::*;
use crate::fixtures;
use crate::orbits::check_automorphisms;
use labs::engine::EngineError;
use proptest::prelude::*;

/// `(spec file, property, verdict)` from the `# verdict: P v` header of each regression spec.
fn regression_specs() -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for p in fixtures::labs_files(&fixtures::path("tests/specs/soundness")) {
        let text = std::fs::read_to_string(&p).unwrap();
        let line = text.lines().find_map(|l| l.strip_prefix("# verdict:")).expect("a `# verdict:` header");
        let mut words = line.split_whitespace();
        let (prop, verdict) = (words.next().unwrap().to_string(), words.next().unwrap().to_string());
        out.push((p.to_string_lossy().into_owned(), prop, verdict));
    }
    assert!(out.len() >= 5, "the regression specs are found");
    out
}

#[test]
fn regression_specs_get_their_verdict_on_every_route() {
    for (file, prop, want) in regression_specs() {
        let routes: [&[&str]; 5] = [
            &["--check-analysis"],
            &["--check-analysis", "--no-reduction"],
            &["--check-analysis", "--exhaustive"],
            &["--backend", "lnt", "--workflow", "monolithic"],
            &["--backend", "lnt"],
        ];
        for extra in routes {
            let mut args = vec!["verify", file.as_str(), "--json", "-q"];
            args.extend(extra);
            let o = fixtures::labs(&args);
            let doc: serde_json::Value = serde_json::from_slice(&o.stdout)
                .unwrap_or_else(|e| panic!("{file} {extra:?}: {e}\n{}", fixtures::stderr(&o)));
            let got = doc["results"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["property"] == prop.as_str())
                .map(|r| r["verdict"].as_str().unwrap().to_string());
            assert_eq!(got.as_deref(), Some(want.as_str()), "{file} {extra:?}: {}", fixtures::stderr(&o));
            assert_eq!(o.status.code(), Some(10), "{file} {extra:?}");
        }
    }
}

/// The analyses' regression specs, loaded in the library: the analysis' sets and the
/// reduction's verdicts, whatever the threads.
#[test]
fn regression_specs_pass_the_analysis_check_on_one_and_two_threads() {
    for (file, prop, want) in regression_specs() {
        let (model, behs) = load(&file, &[]);
        for threads in [1, 2] {
            for symmetry in [true, false] {
                let r = run_with(&model, &behs, false, symmetry, threads).unwrap_or_else(|e| panic!("{file}: {e}"));
                assert_eq!(verdict(&r, &prop), want, "{file} threads={threads} symmetry={symmetry}");
            }
        }
    }
}

/// An agent expression of A's or B's behaviour (`n` agents in all). Constants are rarer:
/// they name an agent, which leaves its type nothing to reduce.
fn agent_expr(n: usize) -> impl Strategy<Value = String> {
    prop_oneof![
        1 => (0..n).prop_map(|k| k.to_string()),
        3 => Just("id".to_string()),
        2 => Just(format!("[0..{n}]")),
    ]
}

/// A read of `q` (A only), `r` (B only) or `y` (both) through `of`.
fn read(n: usize) -> impl Strategy<Value = String> {
    (prop::sample::select(vec!["q", "r", "y"]), agent_expr(n)).prop_map(|(v, e)| format!("{v} of {e}"))
}

/// A guard over a read, negated comparisons included.
fn guard(n: usize) -> impl Strategy<Value = String> {
    (read(n), 0..3i32, 0..4usize).prop_map(|(r, c, k)| match k {
        0 => format!("!({r} = {c})"),
        1 => format!("{r} = {c}"),
        2 => format!("{r} < {c}"),
        _ => format!("!({r} < {c})"),
    })
}

/// A statement writing the local `p`: a pick (of a type or any agent, maybe filtered), a
/// `count`, an `exists` or a plain `:=`.
fn local_write() -> impl Strategy<Value = String> {
    (0..6usize, 0..3i32, prop::sample::select(vec!["A", "B"])).prop_map(|(k, c, t)| match k {
        0 => format!("p[] := pick 1 {t}"),
        1 => format!("p[] := pick 1 {t} where y of c2 = {c}"),
        2 => "p[] := pick 1".to_string(),
        3 => format!("p := count {t} x, y of x = {c}"),
        4 => format!("p := exists {t} x, y of x = {c}"),
        _ => format!("p := {c}"),
    })
}

/// What the block does with `p` at the end: read through it, or store it as a number.
fn local_use(own_y: bool) -> impl Strategy<Value = String> {
    let target = if own_y { "y" } else { "w" };
    (0..4usize, prop::sample::select(vec!["q", "r", "y"])).prop_map(move |(k, v)| match k {
        0 => format!("{target} <- {v} of p"),
        1 => "w <- p".to_string(),
        2 => "w <- p + 1".to_string(),
        _ => format!("{target} <- {v} of p"),
    })
}

/// One guarded action of a behaviour whose own variables are `own` (each ranging over 0..3).
fn action(n: usize, own: &'static str) -> impl Strategy<Value = String> {
    let has_w = own == "A";
    let y = if has_w { "y" } else { "r" };
    prop_oneof![
        (guard(n), read(n)).prop_map(move |(g, r)| format!("{g} -> {y} <- {r}")),
        guard(n).prop_map(move |g| format!("{g} -> {y} <- ({y} + 1) % 3")),
        (prop::collection::vec(local_write(), 1..4), local_use(!has_w))
            .prop_map(|(ws, u)| format!("{{ {}; {u} }}", ws.join("; "))),
    ]
}

/// A whole spec: types A (`q`, `y`, `w`) and B (`r`, `y`), 1–2 agents each.
fn random_spec() -> impl Strategy<Value = String> {
    (1..=2usize, 1..=2usize).prop_flat_map(|(na, nb)| {
        let n = na + nb;
        (
            prop::collection::vec(action(n, "A"), 1..4),
            prop::collection::vec(action(n, "B"), 1..3),
            0..2i32,
            0..3i32,
            prop::bool::ANY,
        )
            .prop_map(move |(acts_a, acts_b, q0, k, loops)| {
                let rec = if loops { "; Behavior" } else { "" };
                let body = |acts: &[String]| {
                    let alts: Vec<String> = acts.iter().map(|a| format!("({a})")).collect();
                    format!("({}){rec}", alts.join(" ++ "))
                };
                // B's actions write `r`; the `w` of a B block is its `r` (B has no `w`).
                let acts_b: Vec<String> = acts_b.iter().map(|a| a.replace("w <-", "r <-")).collect();
                format!(
                    "system {{ spawn = A: {na}, B: {nb} }}\n\
                     agent A {{\n  interface = q: {q0}; y: 0..3; w: 0\n  Behavior = {}\n}}\n\
                     agent B {{\n  interface = r: 0..3; y: 0..3\n  Behavior = {}\n}}\n\
                     check {{\n  NotK = always forall A a, !(y of a = {k})\n  \
                     WSmall = always forall A a, w of a < 3\n  \
                     WLeY = always forall A a, w of a <= y of a\n  \
                     ReachK = finally forall A a, y of a = {k}\n}}\n",
                    body(&acts_a),
                    body(&acts_b),
                )
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn reductions_and_the_analysis_keep_the_verdicts_of_the_full_state_space(text in random_spec()) {
        let (model, behs) = load_text(&text, &[]).unwrap_or_else(|e| panic!("the generator wrote an invalid spec ({e:?}):\n{text}"));
        for fair in [false, true] {
            // Every element of the group maps the unreduced graph to itself.
            if let Err(why) = check_automorphisms(&model, &behs, fair) {
                panic!("fair={fair}: {why}\n{text}");
            }
            let plain = run_with(&model, &behs, fair, false, 1);
            let reduced = run_with(&model, &behs, fair, true, 2);
            for r in [&plain, &reduced] {
                if let Err(e @ (EngineError::AnalysisMissed { .. } | EngineError::Internal(_))) = r {
                    panic!("fair={fair}: {e}\n{text}");
                }
            }
            match (&plain, &reduced) {
                (Ok(p), Ok(r)) => {
                    let vp: Vec<_> = p.results.iter().map(|x| (&x.property, x.verdict)).collect();
                    let vr: Vec<_> = r.results.iter().map(|x| (&x.property, x.verdict)).collect();
                    prop_assert_eq!(vp, vr, "fair={}: verdicts differ with the reduction\n{}", fair, text);
                    replay_all(&model, &behs, r);
                }
                (Err(EngineError::Runtime { .. }), Err(EngineError::Runtime { .. })) => {}
                (p, r) => panic!("fair={fair}: outcomes differ: {:?} vs {:?}\n{text}", p.as_ref().err(), r.as_ref().err()),
            }
        }
    }
}
