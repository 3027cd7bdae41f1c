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

/// `--lnt-table --quick`: for each small instance, one row per LNT route (`labs lts`, then the
/// monolithic, compositional and on-the-fly workflows, in that order), every workflow giving
/// the native verdicts (else the benchmark exits with 1), and each row's figures consistent:
/// the LAbS states shared by the instance's rows, states per LAbS state, states per second and
/// bytes per state the quotients of the columns they come from. The monolithic workflow's LTSs
/// include the whole MAIN that `labs lts` writes, so it counts at least as many states. On
/// majority yes=1 no=2 the LAbS states and the program states are those of `labs verify` and
/// `labs lts` run here.
#[test]
fn the_quick_lnt_table_has_a_row_per_route_and_consistent_figures() {
    let o = bench(&["--lnt-table", "--quick"]);
    assert_eq!(o.status.code(), Some(0), "{}\n{}", text(&o.stdout), text(&o.stderr));
    let out = text(&o.stdout);
    let num = |c: &str, line: &str| -> f64 { c.parse().unwrap_or_else(|_| panic!("`{c}` in {line}")) };
    // (system, externs) -> [(route, LAbS states, states)]
    // A route's name, LAbS states and states.
    type Row = (String, f64, f64);
    let mut instances: Vec<((String, String), Vec<Row>)> = vec![];
    for line in out.lines().filter(|l| l.starts_with("| ") && !l.starts_with("| system")) {
        let c: Vec<&str> = line.split('|').map(str::trim).collect();
        assert_eq!(c.len(), 17, "{line}");
        let (labs_states, states, per_labs) = (num(c[5], line), num(c[6], line), num(c[7], line));
        let (secs, rate, mib, per_state) = (num(c[8], line), num(c[9], line), num(c[10], line), num(c[11], line));
        assert!(labs_states > 0.0 && states > 0.0 && mib > 0.0, "{line}");
        assert!((per_labs - states / labs_states).abs() <= 0.051, "{line}");
        // Seconds are printed to 0.01 s: the rate is checked where that rounding is small.
        if secs >= 0.1 {
            assert!((rate * secs - states).abs() <= states * 0.006 / secs + secs, "{line}");
        }
        // MiB is printed rounded to a whole MiB.
        assert!((per_state * states / 1048576.0 - mib).abs() <= 0.51, "{line}");
        let (nsecs, nrate, nmib, nper) = (num(c[12], line), num(c[13], line), num(c[14], line), num(c[15], line));
        assert!(nmib > 0.0 && (nper * labs_states / 1048576.0 - nmib).abs() <= 0.51, "{line}");
        if nsecs >= 0.01 {
            assert!((nrate * nsecs - labs_states).abs() <= labs_states * 0.0006 / nsecs + nsecs, "{line}");
        }
        let key = (c[1].to_string(), c[2].to_string());
        if instances.last().is_none_or(|(k, _)| *k != key) {
            instances.push((key.clone(), vec![]));
        }
        instances.last_mut().unwrap().1.push((c[4].to_string(), labs_states, states));
    }
    let names: Vec<String> = instances.iter().map(|((s, e), _)| format!("{s} {e}")).collect();
    assert_eq!(
        names,
        [
            "leader n=3",
            "leader n=4",
            "twophase workers=2",
            "philosophers n=3",
            "flock birds=2 delta=1 grid=3",
            "majority yes=1 no=2"
        ],
        "{out}"
    );
    for ((system, _), rows) in &instances {
        let routes: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
        assert_eq!(routes, ["lts", "monolithic", "compositional", "on-the-fly"], "{system}");
        assert!(rows.iter().all(|r| r.1 == rows[0].1), "{system}: the LAbS states differ between rows");
        assert!(rows[1].2 >= rows[0].2, "{system}: the monolithic workflow counts MAIN's states");
    }
    let majority = &instances.last().unwrap().1;
    let spec = fixtures::path_str("examples/majority.labs");
    let o = crate::fixtures::labs_command()
        .args(["verify", &spec, "yes=1", "no=2", "--exhaustive", "--no-reduction", "--json", "-q"])
        .output()
        .expect("run labs");
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("a JSON document");
    assert_eq!(Some(majority[0].1 as u64), doc["stats"]["states"].as_u64(), "{out}");
    let aut = Scratch::path("bench-test", "majority.aut");
    let o = crate::fixtures::labs_command()
        .args(["lts", &spec, "yes=1", "no=2", "-q", "-o", aut.as_str()])
        .output()
        .expect("run labs");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let main = labs::mcl::read_aut(&std::fs::read_to_string(aut.as_str()).unwrap()).expect("an .aut file");
    assert_eq!(majority[0].2 as usize, main.nstates, "{out}");
}
