//! Symmetry reduction as a user meets it: `labs info` says which types are symmetric and why
//! not, with places that point at the offending text; `labs verify` reduces by default, says
//! so in its statistics, and `--no-reduction` gives every state.

use crate::fixtures;
use crate::scratch;
use fixtures::{bench, example, labs, stderr, stdout};
use scratch::Scratch;

fn json(args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let o = labs(args);
    let v = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&o)));
    (o.status.code(), v)
}

#[test]
fn info_names_symmetric_types_and_points_at_what_breaks_symmetry() {
    let o = labs(&["info", &bench("flock.labs"), "birds=3", "grid=3", "delta=2"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("Bird         interchangeable (free interleaving), rotations (--fair)"), "{out}");

    let file = bench("leader.labs");
    let (code, v) = json(&["info", &file, "n=3", "--json"]);
    assert_eq!(code, Some(0));
    let free = &v["agent_types"][0]["symmetry"]["free"];
    assert_eq!(free["status"], "not symmetric");
    let reason = &free["reasons"][0];
    // The place must be where the spec writes `leader <~ id`.
    let line = reason["line"].as_u64().unwrap() as usize;
    let col = reason["column"].as_u64().unwrap() as usize;
    let text = std::fs::read_to_string(&file).unwrap();
    let src = text.lines().nth(line - 1).unwrap();
    assert!(src[col - 1..].starts_with("leader <~ id"), "{reason} points at `{src}`");
    assert!(reason["text"].as_str().unwrap().contains("`id` as a number"), "{reason}");
    // The text form names the same place.
    let o = labs(&["info", &file, "n=3"]);
    assert!(stdout(&o).contains(&format!("leader.labs:{line}:{col})")), "{}", stdout(&o));
}

#[test]
fn verify_reduces_by_default_and_no_reduction_counts_every_state() {
    let spec = example("twophase.labs");
    let (c1, reduced) = json(&["verify", &spec, "workers=3", "--json"]);
    let (c2, full) = json(&["verify", &spec, "workers=3", "--json", "--no-reduction"]);
    assert_eq!(c1, c2);
    assert_eq!(reduced["stats"]["reduction"], "symmetry (Worker: 3 interchangeable agents)");
    assert!(full["stats"].get("reduction").is_none(), "{}", full["stats"]);
    let (r, f) = (reduced["stats"]["states"].as_u64().unwrap(), full["stats"]["states"].as_u64().unwrap());
    assert!(r < f, "{r} vs {f}");
    let verdicts = |v: &serde_json::Value| -> Vec<String> {
        v["results"].as_array().unwrap().iter().map(|x| x["verdict"].to_string()).collect()
    };
    assert_eq!(verdicts(&reduced), verdicts(&full));

    let o = labs(&["verify", &spec, "workers=3"]);
    assert!(stdout(&o).contains("counts of representatives up to symmetry (Worker: 3 interchangeable agents)"));
    let o = labs(&["verify", &spec, "workers=3", "--no-reduction"]);
    assert!(!stdout(&o).contains("representatives"), "{}", stdout(&o));
    // The HTML report says what the counts are.
    let page = Scratch::path("symmetry", "twophase.html");
    let o = labs(&["verify", &spec, "workers=3", "-q", "--report", page.as_str()]);
    assert_eq!(o.status.code(), c1);
    let html = std::fs::read_to_string(page.as_str()).unwrap();
    assert!(html.contains("representatives up to</dt><dd>symmetry (Worker: 3 interchangeable agents)"));
}

#[test]
fn a_reduced_counterexample_is_printed_and_replayed_as_a_concrete_run() {
    // Consensus is violated (a lasso); the printed trace passed the independent replay
    // (`trace::replay_all`, which the command runs before printing anything).
    let (code, v) = json(&["verify", &bench("flock.labs"), "birds=3", "grid=3", "delta=2", "--json"]);
    assert_eq!(code, Some(10));
    assert!(v["stats"]["reduction"].is_string());
    let t = &v["results"][0]["trace"];
    assert!(t["loop_start"].is_u64(), "{t}");
}
