//! `labs simulate --json` as JSON Lines (docs/json.md): one line per run, each step as its
//! changes, then a summary; and a thousand large runs within a small memory bound.

use crate::engine_common::load;
use crate::fixtures::{self, labs_command};
use crate::tier;
use serde_json::{Map, Value};
use std::io::{BufRead, BufReader};

/// The STATE after a step: the one before with the step's changes applied, as docs/json.md
/// tells a reader to (written here from the docs, not from labs's own code).
fn apply(before: &Value, changes: &Value) -> Value {
    let mut state = before.clone();
    for (key, change) in changes.as_object().expect("changes are an object") {
        match key.as_str() {
            "environment" => merge(&mut state[key], change),
            "agents" => {
                for a in change.as_array().expect("agents: an array") {
                    let agents = state["agents"].as_array_mut().unwrap();
                    let old = agents.iter_mut().find(|x| x["id"] == a["id"]).expect("a known agent id");
                    for (field, v) in a.as_object().unwrap() {
                        if field == "attributes" || field == "stigmergy" {
                            merge(&mut old[field], v);
                        } else {
                            old[field] = v.clone();
                        }
                    }
                }
            }
            _ => state[key] = change.clone(),
        }
    }
    state
}

fn merge(into: &mut Value, entries: &Value) {
    let into: &mut Map<String, Value> = into.as_object_mut().expect("a map");
    for (k, v) in entries.as_object().expect("a map of changed entries") {
        assert!(into.contains_key(k), "a change to an entry the state does not have: {k}");
        into.insert(k.clone(), v.clone());
    }
}

#[test]
fn each_line_parses_alone_and_the_lines_equal_the_runs() {
    let spec = fixtures::example("leader.labs");
    let out = labs_command()
        .args(["simulate", &spec, "n=3", "--runs", "4", "--steps", "15", "--seed", "3", "--json"])
        .output()
        .expect("run labs");
    assert_eq!(out.status.code(), Some(0), "{}", fixtures::stderr(&out));
    let lines: Vec<Value> = fixtures::stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: one line is not one JSON value: {l}")))
        .collect();
    assert_eq!(lines.len(), 5, "four runs and the summary");
    // The same runs drawn by the library, with whole states (docs/json.md's trace form).
    let (m, b) = load(&spec, &["n=3"]);
    let opts = labs::engine::SimulateOptions { runs: 4, steps: 15, seed: 3, ..Default::default() };
    let report = labs::engine::simulate(&m, &b, &opts).expect("runs");
    let mut counts = std::collections::BTreeMap::<String, [u64; 3]>::new();
    let mut deadlocks = 0;
    for (i, (line, run)) in lines.iter().zip(&report.runs).enumerate() {
        assert_eq!(line["kind"], "run");
        assert_eq!(line["run"], i + 1);
        assert_eq!(line["seed"], 3 + i as u64);
        assert_eq!(line["deadlock"], run.deadlock);
        deadlocks += u64::from(run.deadlock);
        let whole = serde_json::to_value(labs::trace::to_json(&m, &b, &run.trace)).unwrap();
        let t = &line["trace"];
        assert_eq!(t["initial"], whole["initial"], "run {}", i + 1);
        let steps = t["steps"].as_array().unwrap();
        assert_eq!(steps.len(), run.trace.steps.len());
        assert_eq!(line["steps"], steps.len());
        let mut state = t["initial"].clone();
        for (k, (step, want)) in steps.iter().zip(whole["steps"].as_array().unwrap()).enumerate() {
            assert_eq!(step["event"], want["event"], "run {} step {k}", i + 1);
            let before = state.clone();
            state = apply(&state, &step["changes"]);
            assert_eq!(state, want["state"], "run {} step {k}", i + 1);
            // Only what changed is listed.
            for a in step["changes"]["agents"].as_array().into_iter().flatten() {
                let id = a["id"].as_u64().unwrap() as usize;
                assert_ne!(before["agents"][id], state["agents"][id], "{step}");
                for (field, v) in a.as_object().unwrap() {
                    assert!(field == "id" || before["agents"][id][field] != *v || v.is_object(), "{step}");
                }
            }
        }
        assert_eq!(t["marks"], whole["marks"]);
        for p in line["properties"].as_array().unwrap() {
            let c = counts.entry(p["property"].as_str().unwrap().to_string()).or_default();
            c[["satisfied", "violated", "undecided"].iter().position(|s| p["status"] == *s).unwrap()] += 1;
        }
    }
    let summary = &lines[4];
    assert_eq!(summary["kind"], "summary");
    assert_eq!((summary["runs"].as_u64(), summary["runs_planned"].as_u64()), (Some(4), Some(4)));
    assert_eq!(summary["deadlocks"], deadlocks);
    assert_eq!(summary["externs"]["_n"], 3);
    for p in summary["properties"].as_array().unwrap() {
        let c = counts[p["property"].as_str().unwrap()];
        assert_eq!([&p["satisfied"], &p["violated"], &p["undecided"]].map(Value::as_u64), c.map(Some), "{p}");
    }
    // --traces none: the same lines without `trace`.
    let out = labs_command()
        .args(["simulate", &spec, "n=3", "--runs", "4", "--steps", "15", "--seed", "3", "--json", "--traces", "none"])
        .output()
        .expect("run labs");
    for (line, full) in fixtures::stdout(&out).lines().zip(&lines) {
        let mut full = full.clone();
        full.as_object_mut().unwrap().remove("trace");
        assert_eq!(serde_json::from_str::<Value>(line).unwrap(), full);
    }
}

/// Text: whole traces up to 10 runs, an outcome line per run beyond, then the summary.
#[test]
fn many_runs_print_an_outcome_line_each_and_a_summary() {
    let spec = fixtures::example("leader.labs");
    let o = fixtures::labs(&["simulate", &spec, "n=3", "--runs", "11", "--steps", "5", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", fixtures::stderr(&o));
    let text = fixtures::stdout(&o);
    assert!(!text.contains("<initialization>"), "{text}");
    let outcomes: Vec<&str> = text.lines().filter(|l| l.starts_with("run ")).collect();
    assert_eq!(outcomes.len(), 11, "{text}");
    assert!(outcomes[10].starts_with("run 11 of 11 (seed 10): "), "{text}");
    assert!(text.contains("11 of 11 runs (at most 5 steps each)"), "{text}");
    let o = fixtures::labs(&["simulate", &spec, "n=3", "--runs", "11", "--steps", "5", "--traces"]);
    assert_eq!(fixtures::stdout(&o).matches("<initialization>").count(), 11);
    let o = fixtures::labs(&["simulate", &spec, "n=3", "--runs", "2", "--steps", "5"]);
    assert_eq!(fixtures::stdout(&o).matches("<initialization>").count(), 2);
}

/// The peak resident memory (KiB) of the running process `pid` so far: its `VmHWM`, which is
/// that of the program it runs. (`wait4`'s `ru_maxrss` is not: a child spawned by a test
/// process starts from the parent's resident memory, which it keeps across `exec`.) `None`
/// once the process has ended.
fn peak_kib_so_far(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The 1,000-run flock of issue 57: the lines stream out, and the process stays far within
/// `--memory 2000` whatever the output's size (it used to hold every run: 15 GB).
#[test]
fn a_thousand_large_runs_stay_within_the_memory_bound() {
    if !tier::slow("1,000 runs of flock with 10 birds, about 30 s") {
        return;
    }
    let spec = fixtures::bench("flock.labs");
    let mut child = labs_command()
        .args(["simulate", &spec, "birds=10", "grid=10", "delta=5", "--runs", "1000", "--steps", "200"])
        .args(["--memory", "2000", "--json", "-q"])
        .env_remove("LABS_CHECK_ANALYSIS")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run labs");
    let mut lines = 0u64;
    let mut last = String::new();
    // Sampled as the lines come: runs held in memory would make it grow run after run.
    let mut peak_kib = 0;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        last = line.expect("a line");
        let v: Value = serde_json::from_str(&last).expect("each line one JSON object");
        assert!(v["kind"] == "run" || v["kind"] == "summary");
        lines += 1;
        peak_kib = peak_kib.max(peak_kib_so_far(child.id()).unwrap_or(0));
    }
    assert_eq!(child.wait().expect("labs ends").code(), Some(0));
    assert_eq!(lines, 1001);
    let summary: Value = serde_json::from_str(&last).unwrap();
    assert_eq!((summary["runs"].as_u64(), summary["stopped"].is_null()), (Some(1000), true), "{summary}");
    assert!(peak_kib < 200 * 1024, "peak resident memory {peak_kib} KiB: the runs are held, not streamed");
}
