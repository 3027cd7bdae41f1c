//! `labs-bench` as a user runs it: its usage text, and a non-zero exit when an instance fails.

use crate::fixtures;
use crate::scratch;

use scratch::Scratch;
use std::process::{Command, Output};

fn bench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_labs-bench")).args(args).output().expect("run labs-bench")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn help_prints_the_usage_and_runs_nothing() {
    for flag in ["--help", "-h"] {
        let o = bench(&[flag]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let out = text(&o.stdout);
        assert!(out.contains("Usage: labs-bench"), "{out}");
        for option in
            ["--quick", "--threads N", "--runs N", "--benchmarks DIR", "--lts-table", "--mcl-table", "--lnt-table"]
        {
            assert!(out.contains(option), "{option} missing from:\n{out}");
        }
        assert!(!out.contains("| leader5"), "--help ran the benchmark:\n{out}");
    }
}

#[test]
fn bad_arguments_are_exit_2() {
    let o = bench(&["--frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("unknown argument `--frobnicate`"), "{}", text(&o.stderr));
    let o = bench(&["--benchmarks", "/nonexistent/labs-benchmarks"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("no such directory"), "{}", text(&o.stderr));
}

/// A folder holding only a leader.labs whose `LeaderIs0` is violated: the leader instances
/// report a verdict other than the known one, every other instance misses its file, and the
/// benchmark exits with 1 after listing each failure.
#[test]
fn a_wrong_verdict_or_a_missing_file_is_exit_1() {
    let leader = fixtures::read("benchmarks/leader.labs");
    let changed = leader.replace("leader of n = 0 # safe", "leader of n = 1");
    assert_ne!(changed, leader, "the benchmark's LeaderIs0 changed its text");
    let dir = Scratch::path("bench-test", "benchmarks");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("leader.labs"), changed).unwrap();
    let o = bench(&["--quick", "--runs", "1", "--threads", "1", "--benchmarks", dir.as_str()]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stdout));
    let err = text(&o.stderr);
    for n in [5, 6, 7] {
        assert!(err.contains(&format!("leader{n}: LeaderIs0 violated, known to be holds")), "{err}");
    }
    assert!(err.contains("twophase2: "), "{err}");
    assert!(err.contains("value analysis of twophase.labs: "), "{err}");
    // --quick runs no flock instance, in the value-analysis table either.
    assert!(!text(&o.stdout).contains("flock"), "{}", text(&o.stdout));
    assert!(!err.contains("flock"), "{err}");
}
