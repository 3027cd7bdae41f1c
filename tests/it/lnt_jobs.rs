//! `verify --backend lnt --jobs N` (issue 24): the compositional script's leaves generated and
//! its properties checked on N threads give the native engine's verdicts on every instance of
//! the differential tests, and exactly the report of `--jobs 1` (verdicts, counterexamples and
//! LTS sizes, gathered in script order).

use crate::fixtures;
use crate::tier;

use serde_json::Value;
use std::process::Output;

fn labs(args: &[&str]) -> Output {
    fixtures::labs_command().args(args).output().expect("run labs")
}

fn json(args: &[&str]) -> Value {
    let o = labs(args);
    assert!(matches!(o.status.code(), Some(0 | 10)), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

/// (property, verdict) of a `verify --json` document.
fn verdicts(doc: &Value) -> Vec<(String, String)> {
    doc["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| (r["property"].as_str().unwrap().to_string(), r["verdict"].as_str().unwrap().to_string()))
        .collect()
}

/// The document without what differs between two runs of the same work: times and memory.
fn without_timing(mut doc: Value) -> Value {
    if let Some(stats) = doc.get_mut("stats").and_then(Value::as_object_mut) {
        stats.remove("seconds");
        stats.remove("peak_rss_mib");
    }
    doc
}

#[test]
fn two_jobs_give_the_native_verdicts_and_the_one_job_report() {
    let mut compositional = 0;
    let mut instances = fixtures::lnt_instances();
    // The first five: counter, leader, philosophers, twophase and majority of the examples.
    if !tier::slow("the five larger instances, about 8 s") {
        instances.truncate(5);
    }
    for (spec, externs, workflow) in instances {
        for fair in [false, true] {
            let mut args: Vec<&str> = vec!["verify", &spec];
            args.extend(&externs);
            args.push("--json");
            if fair {
                args.push("--fair");
            }
            let native = verdicts(&json(&args));
            args.extend(["--backend", "lnt", "--workflow", workflow]);
            let one = json(&[args.as_slice(), &["--jobs", "1"]].concat());
            let two = json(&[args.as_slice(), &["--jobs", "2"]].concat());
            assert_eq!(verdicts(&two), native, "{args:?} --jobs 2");
            assert_eq!(without_timing(two), without_timing(one), "{args:?}: --jobs 2 and --jobs 1 differ");
        }
        compositional += usize::from(workflow == "compositional");
    }
    assert!(compositional >= 3, "the jobs only change the compositional workflow");
}

#[test]
fn jobs_are_refused_where_they_mean_nothing() {
    let spec = fixtures::path_str("examples/leader.labs");
    let o = labs(&["verify", &spec, "n=3", "--jobs", "0", "--backend", "lnt"]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    let o = labs(&["verify", &spec, "n=3", "--jobs", "2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("`--jobs` applies to --backend cadp and --backend lnt, not to the native engine")
    );
}
