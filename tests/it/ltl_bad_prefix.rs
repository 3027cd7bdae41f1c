//! Linear-time violations that a finite path shows (a bad prefix: every continuation violates
//! the formula) are reported as that path, with no loop, on every route: the native engine on
//! the fly and exhaustively, and `--backend lnt` in every workflow, whose diagnostics are
//! lassos of the monitor's automaton; and `translate-trace` reads the monitor's `STUCK` label as
//! the deadlock it marks. The expected lengths are derived by hand in each test.

use crate::fixtures::{labs, stderr, stdout};
use crate::scratch::Scratch;
use serde_json::Value;

/// `x` counts 0, 1, 2, 0, … forever (one cycle of 3 states).
/// - `U2 = x = 0 until x = 2`: state 1 (x = 1) has neither side: bad after 1 step.
/// - `B = between (x = 0) and (x = 2), thereIs x = 5`: the interval opened at state 0 closes at
///   state 2 without a 5: bad after 2 steps.
/// - `Stab = finally always x = 1`: violated by the cycle, and no finite path shows it.
const COUNTER: &str = "system {
    environment = x: 0
    spawn = P: 1
}
agent P {
    Behavior = x <-- (x + 1) % 3; Behavior
}
check {
    U2 = x = 0 until x = 2
    B = between (x = 0) and (x = 2), thereIs x = 5
    Stab = finally always x = 1
}
";

fn result<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["results"].as_array().unwrap().iter().find(|r| r["property"] == name).unwrap_or_else(|| panic!("no {name}: {v}"))
}

/// The values of `x` along a JSON trace, its initial state first.
fn xs(t: &Value) -> Vec<i64> {
    std::iter::once(&t["initial"])
        .chain(t["steps"].as_array().unwrap().iter().map(|s| &s["state"]))
        .map(|s| s["environment"]["x"].as_i64().unwrap())
        .collect()
}

fn assert_finite(v: &Value, name: &str, want: &[i64], route: &str) {
    let r = result(v, name);
    assert_eq!(r["verdict"], "violated", "{route}: {r}");
    let t = &r["trace"];
    assert!(t["loop_start"].is_null(), "{route}: {name} drawn as a loop: {t}");
    assert_eq!(xs(t), want, "{route}: {name}");
    assert_eq!(t["ends_in_deadlock"], false, "{route}");
    let marks = t["marks"].as_array().unwrap();
    assert_eq!(marks.len(), 1, "{route}");
    assert_eq!(marks[0]["at"], want.len() - 1, "{route}");
}

#[test]
fn a_bad_prefix_is_a_finite_path_on_every_route() {
    let spec = Scratch::file("ltl-bad", "counter.labs", COUNTER);
    let routes: Vec<Vec<&str>> = vec![
        vec![],
        vec!["--exhaustive"],
        vec!["--fair"],
        vec!["--backend", "lnt", "--workflow", "compositional"],
        vec!["--backend", "lnt", "--workflow", "monolithic"],
        vec!["--backend", "lnt", "--workflow", "on-the-fly"],
    ];
    for route in routes {
        let mut args = vec!["verify", spec.as_str(), "--json", "--timeout", "60"];
        args.extend(&route);
        let o = labs(&args);
        let name = format!("{route:?}");
        assert_eq!(o.status.code(), Some(10), "{name}: {}", stderr(&o));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_finite(&v, "U2", &[0, 1], &name);
        assert_finite(&v, "B", &[0, 1, 2], &name);
        let stab = &result(&v, "Stab")["trace"];
        assert!(stab["loop_start"].is_u64(), "{name}: a recurrence's violation is a lasso: {stab}");
    }
}

#[test]
fn the_text_and_the_report_draw_no_loop_for_a_bad_prefix() {
    let spec = Scratch::file("ltl-bad-text", "counter.labs", COUNTER);
    let report = spec.parent().unwrap().join("r.html");
    let o = labs(&["verify", spec.as_str(), "--property", "U2", "--report", report.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(10), "{}", stderr(&o));
    let out = stdout(&o);
    let cex = &out[out.find("counterexample for U2").expect("a counterexample")..];
    let cex = &cex[..cex.find("<property violated: U2>").expect("marked") + 1];
    assert!(!cex.contains("<loop starts here>"), "{out}");
    assert_eq!(cex.matches("P 0: x <-- ").count(), 1, "one step, to x = 1: {out}");
    let page = std::fs::read_to_string(&report).unwrap();
    assert!(!page.contains("violated by the loop"), "the report draws a loop");
    assert!(page.contains("U2"), "the report names the property");
}

/// `--exhaustive` shows the shortest bad prefix, even where a shorter lasso violates the
/// formula without one. `(always finally x = 1) and (always y = 0)`: the branch `x <-- 7`
/// forever violates the recurrence (a lasso of 1 step, no bad prefix); the branch `x <-- 1;
/// y <-- 1` breaks `always y = 0` after 2 steps, the only bad prefix.
#[test]
fn the_exhaustive_check_shows_the_shortest_bad_prefix() {
    let spec = Scratch::file(
        "ltl-bad-short",
        "branches.labs",
        "system {
    environment = x: 0; y: 0
    spawn = P: 1
}
agent P {
    Behavior = (x <-- 7; Stay) ++ (x <-- 1; y <-- 1)
    Stay = x <-- 7; Stay
}
check {
    F = (always finally x = 1) and (always y = 0)
}
",
    );
    let o = labs(&["verify", spec.as_str(), "--exhaustive", "--json"]);
    assert_eq!(o.status.code(), Some(10), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let t = &result(&v, "F")["trace"];
    assert!(t["loop_start"].is_null(), "{t}");
    assert_eq!(xs(t), [0, 1, 1]);
    let y_last = t["steps"].as_array().unwrap().last().unwrap()["state"]["environment"]["y"].as_i64();
    assert_eq!(y_last, Some(1), "{t}");
}

/// `y` is chosen in 0..2; with `y = 1` the agent's guard never holds: a deadlock at the start,
/// where `x = 0` repeats forever and `finally always x = 1` fails. The monitor marks that run
/// with `STUCK`; `x` alone is observed, so only the label says the path ends in a deadlock
/// (the initial state with `y = 0`, which has the same `x`, is no deadlock).
const STUCK_SPEC: &str = "system {
    environment = x: 0; y: 0..2
    spawn = P: 1
}
agent P {
    Behavior = y = 0 -> x <-- 1; Behavior
}
check {
    FG = finally always x = 1
}
";

fn assert_deadlocked_start(o: &std::process::Output) {
    assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
    let out = stdout(o);
    assert!(out.contains("a LAbS trace of 0 steps, ending in a deadlock"), "{out}");
    assert!(out.contains("  y <-- 1"), "{out}");
    assert!(out.contains("the trace violates FG (ltl) at state 0"), "{out}");
}

#[test]
fn translate_trace_reads_the_monitors_deadlock_label() {
    let spec = Scratch::file("ltl-stuck", "stuck.labs", STUCK_SPEC);
    let dir = spec.parent().unwrap();
    let d = |f: &str| dir.join(f).to_str().unwrap().to_string();
    // The documented route: the monitor's root, its LTS, the query's diagnostic.
    let o = labs(&["emit", spec.as_str(), "-o", &d("emitted")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = labs(&["lts", spec.as_str(), "--root", "Root_FG", "-o", &d("fg.aut")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = labs(&["mcl", &d("emitted/stuck_FG.mcl"), &d("fg.aut"), "--diag", &d("diag.aut")]);
    assert_eq!(o.status.code(), Some(10), "{}", stderr(&o));
    let diag = std::fs::read_to_string(d("diag.aut")).unwrap();
    assert!(diag.contains("\"STUCK\""), "{diag}");
    assert_deadlocked_start(&labs(&["translate-trace", spec.as_str(), &d("diag.aut"), "--property", "FG"]));
    // The same path with the monitor's self-loop kept, as a lasso on `STUCK`, and as
    // Evaluator's inline sequence.
    let looped = "des (0, 3, 3)\n(0, \"E_X !0 !0\", 1)\n(1, \"DONE\", 2)\n(2, \"STUCK\", 2)\n";
    std::fs::write(d("loop.aut"), looped).unwrap();
    assert_deadlocked_start(&labs(&["translate-trace", spec.as_str(), &d("loop.aut"), "--property", "FG"]));
    let seq = "<initial state>\n\"E_X !0 !0\"\n\"DONE\"\n\"STUCK\"\n<goal state>\n";
    std::fs::write(d("diag.seq"), seq).unwrap();
    assert_deadlocked_start(&labs(&["translate-trace", spec.as_str(), &d("diag.seq"), "--property", "FG"]));
    let o = labs(&["translate-trace", spec.as_str(), &d("diag.seq"), "--property", "FG", "--json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["trace"]["ends_in_deadlock"], true, "{v}");
    assert_eq!(v["shows"]["violation"], true, "{v}");
}

/// A path that does not end with `STUCK` is read as before: the same labels without it are a
/// path whose end nothing says, and its first matching state (`y = 0`) decides nothing.
#[test]
fn a_path_without_the_label_stays_undecided() {
    let spec = Scratch::file("ltl-stuck-none", "stuck.labs", STUCK_SPEC);
    let seq = spec.parent().unwrap().join("plain.seq");
    std::fs::write(&seq, "<initial state>\n\"E_X !0 !0\"\n\"DONE\"\n<goal state>\n").unwrap();
    let o = labs(&["translate-trace", spec.as_str(), seq.to_str().unwrap(), "--property", "FG"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("cannot be decided on one trace"), "{}", stdout(&o));
}
