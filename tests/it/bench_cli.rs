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

/// `--probability-table --quick`: a row per property of each small instance, every interval at
/// most 1e-6 wide, and the values derived by hand: on majority (yes=1 no=2) NeverAllBlank and
/// the fairly readings hold with probability 1, so Consensus is reached with probability 1
/// (`fairly` holds) and MinorityNeverWins is violated by some runs only; on leader n=3 every run
/// elects 0 (LeaderIs0 holds), so LeaderNot0 has probability 0, and no state has leader 100;
/// on flock a consensus is never lost (a bird only copies a value all birds share), so
/// `finally always Consensus` is exactly as likely as `finally Consensus`.
#[test]
fn the_quick_probability_table_has_every_property_within_its_width() {
    let o = bench(&["--probability-table", "--quick", "--threads", "1"]);
    assert_eq!(o.status.code(), Some(0), "{}\n{}", text(&o.stdout), text(&o.stderr));
    let out = text(&o.stdout);
    // (system, fair, property) -> (probability interval, peak MiB, exhaustive MiB, states)
    let mut rows = std::collections::BTreeMap::new();
    for line in out.lines().filter(|l| l.starts_with("| ") && !l.starts_with("| system")) {
        let c: Vec<&str> = line.split('|').map(str::trim).collect();
        let iv = c[6].split('[').nth(1).unwrap_or_else(|| panic!("no interval in {line}"));
        let (lo, hi) = iv.trim_end_matches(']').split_once(", ").unwrap();
        let (lo, hi): (f64, f64) = (lo.parse().unwrap(), hi.parse().unwrap());
        let width: f64 = c[7].parse().unwrap();
        assert!(width <= 1e-6 && hi - lo <= 1e-6 + 2e-7, "{line}");
        let num = |i: usize| -> f64 { c[i].parse().unwrap_or_else(|_| panic!("column {i} of {line}")) };
        assert!(num(11) > 0.0 && num(12) > 0.0 && num(14) > 0.0, "{line}");
        rows.insert((c[1].to_string(), c[3].to_string(), c[4].to_string()), (lo, hi));
    }
    let p = |system: &str, fair: &str, property: &str| {
        *rows
            .get(&(system.into(), fair.into(), property.into()))
            .unwrap_or_else(|| panic!("no row {system} {property}:\n{out}"))
    };
    for one in ["NeverAllBlank", "Consensus", "ConsensusReachable", "ConsensusStays"] {
        assert_eq!(p("majority", "no", one), (1.0, 1.0), "{one}");
    }
    let (lo, hi) = p("majority", "no", "MinorityNeverWins");
    assert!(lo > 0.0 && hi < 1.0, "{lo} {hi}");
    assert_eq!(p("leader3", "no", "LeaderIs0"), (1.0, 1.0));
    assert_eq!(p("leader3", "no", "LeaderNot0"), (0.0, 0.0));
    assert_eq!(p("leader3", "no", "LeaderIs100"), (0.0, 0.0));
    for fair in ["no", "yes"] {
        let system = if fair == "yes" { "flock-rr" } else { "flock" };
        let (a, b) = (p(system, fair, "Consensus"), p(system, fair, "ConsensusKept"));
        assert!((a.0 - b.0).abs() <= 1e-6 && (a.1 - b.1).abs() <= 1e-6, "{system}: {a:?} {b:?}");
    }
    assert_eq!(rows.len(), 5 + 3 + 2 + 2, "{out}");
}
