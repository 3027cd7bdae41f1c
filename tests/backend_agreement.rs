//! `labs verify --backend lnt` and the native back end, as users run them: the same verdicts,
//! the same state, transition and deadlock counts (the LAbS graph read off the LNT LTS must be
//! the native graph), and counterexamples of the same shape, every one of them replayed.

mod fixtures;

use serde_json::Value;
use std::process::Command;

fn verify_json(args: &[&str]) -> Value {
    let o = Command::new(env!("CARGO_BIN_EXE_labs")).arg("verify").args(args).arg("--json").output().expect("run labs");
    assert!(matches!(o.status.code(), Some(0 | 10)), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

/// What must agree: counts, then per property the verdict and the counterexample's shape.
fn summary(v: &Value) -> Vec<String> {
    let st = &v["stats"];
    let mut out =
        vec![format!("states={} transitions={} deadlocks={}", st["states"], st["transitions"], st["deadlocks"])];
    for r in v["results"].as_array().unwrap() {
        let t = &r["trace"];
        out.push(format!(
            "{} {} steps={} loop={} deadlock={}",
            r["property"],
            r["verdict"],
            t["steps"].as_array().map_or(0, Vec::len),
            t["loop_start"],
            t["ends_in_deadlock"]
        ));
    }
    out
}

fn agree(spec: &str, externs: &[&str]) {
    for fair in [false, true] {
        let mut args: Vec<&str> = vec![spec];
        args.extend(externs);
        if fair {
            args.push("--fair");
        }
        let native = verify_json(&args);
        args.extend(["--backend", "lnt"]);
        let lnt = verify_json(&args);
        assert_eq!(lnt["backend"], "lnt");
        assert_eq!(summary(&native), summary(&lnt), "{args:?}");
    }
}

use fixtures::{BENCH, EXAMPLES as EX};

#[test]
fn examples() {
    agree(&format!("{EX}/counter.labs"), &["n=2", "atomic=0"]);
    agree(&format!("{EX}/leader.labs"), &["n=3"]);
    agree(&format!("{EX}/philosophers.labs"), &["n=3", "asym=0"]);
    agree(&format!("{EX}/twophase.labs"), &["workers=2"]);
    agree(&format!("{EX}/majority.labs"), &["yes=1", "no=2"]);
    // `pick`, then four reads of the picked agent's `state` in one assignment (issue 26)
    agree(&fixtures::path_str("tests/specs/majority_pick.labs"), &[]);
    agree(&format!("{EX}/line.labs"), &["n=3", "size=5", "gap=2"]);
    agree(&format!("{EX}/flocking.labs"), &["birds=2", "grid=3", "delta=1"]);
}

#[test]
fn benchmarks() {
    agree(&format!("{BENCH}/leader.labs"), &["n=3"]);
    agree(&format!("{BENCH}/philosophers.labs"), &["n=3"]);
    agree(&format!("{BENCH}/twophase.labs"), &["workers=2"]);
    agree(&format!("{BENCH}/formation.labs"), &["n=2", "range=2", "size=3"]);
    agree(&format!("{BENCH}/flock.labs"), &["birds=2", "delta=1", "grid=3"]);
}
