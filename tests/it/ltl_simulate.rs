//! Linear-time formulas in `labs simulate` (semantics.md D14): a run that ends in a deadlock
//! is a whole run (its last state repeats forever), so each formula is decided on it; a run
//! cut by `--steps` decides nothing.

use crate::fixtures::{self, labs_command};
use serde_json::Value;

fn statuses(args: &[&str]) -> Vec<(String, String)> {
    let out = labs_command().arg("simulate").args(args).args(["--json", "-q"]).output().expect("run labs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = fixtures::simulate_doc(&out.stdout);
    doc["runs"][0]["properties"]
        .as_array()
        .expect("properties")
        .iter()
        .map(|p| (p["property"].as_str().unwrap().to_string(), p["status"].as_str().unwrap().to_string()))
        .collect()
}

/// ltl_deadlock.labs has one run, x = 0, 1, 2 and a deadlock; its header derives each verdict
/// by hand, and on the only run "holds" is "satisfied".
#[test]
fn a_run_ending_in_a_deadlock_decides_each_formula() {
    let spec = fixtures::path_str("tests/cases/ltl_deadlock.labs");
    let got = statuses(&[&spec, "--runs", "1", "--steps", "10"]);
    let want = [
        ("Stab", "satisfied"),
        ("Recur", "satisfied"),
        ("RecurOne", "violated"),
        ("Until", "satisfied"),
        ("Weak", "satisfied"),
        ("Strong", "violated"),
    ];
    let want: Vec<(String, String)> = want.iter().map(|(p, s)| (p.to_string(), s.to_string())).collect();
    assert_eq!(got, want);
}

#[test]
fn a_run_cut_by_the_step_bound_decides_nothing() {
    let spec = fixtures::path_str("tests/cases/ltl_deadlock.labs");
    let got = statuses(&[&spec, "--runs", "1", "--steps", "1"]);
    assert!(got.iter().all(|(_, s)| s == "undecided"), "{got:?}");
    assert_eq!(got.len(), 6);
}
