//! The command line as users run it: exit codes, messages, JSON, and snapshots of `info`.

use crate::fixtures;
use fixtures::{labs, stderr, stdout};

use crate::scratch;
use scratch::Scratch;

fn shared(rel: &str) -> String {
    fixtures::path_str(rel)
}

fn write_temp(name: &str, text: &str) -> Scratch {
    Scratch::file("cli-test", name, text)
}

#[test]
fn info_describes_the_model() {
    let o = labs(&["info", &shared("benchmarks/twophase.labs"), "workers=3"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("Coord        ids 0..0"), "{out}");
    assert!(out.contains("Worker       ids 1..3"), "{out}");
    assert!(out.contains("InfCommits"), "{out}");
}

#[test]
fn info_json_is_one_document() {
    let o = labs(&["info", &shared("benchmarks/leader.labs"), "_n=4", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["externs"]["_n"], 4);
    assert_eq!(v["agent_types"][0]["ids"], serde_json::json!([0, 3]));
    assert_eq!(v["properties"].as_array().unwrap().len(), 3);
    assert_eq!(v["properties"][2]["modality"], "always");
}

#[test]
fn missing_extern_is_exit_2_with_the_names() {
    let o = labs(&["info", &shared("benchmarks/flock.labs"), "birds=3"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("`_delta`") && err.contains("`_grid`"), "{err}");
    assert!(err.contains("grid=VALUE"), "{err}");
}

#[test]
fn extern_value_making_the_spec_invalid_is_exit_2() {
    // The spec is valid for n >= 1: a zero-size array or a negative spawn count comes from the
    // command line, so it is an argument error (2), with the value named, not a spec error (6).
    let spec = "system {\n  extern = _n\n  spawn = A: 2\n}\nagent A {\n  interface = x[_n]: 0\n  Behavior = x[0] <- 1\n}\ncheck {\n  P = always forall A a, x[0] of a = 0\n}\n";
    let path = write_temp("zero_array.labs", spec);
    let o = labs(&["verify", path.as_str(), "n=0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("array `x` must have a positive size (got 0)"), "{err}");
    assert!(err.contains("`_n=0`"), "{err}");
    assert!(err.contains(":6:17"), "{err}");
    let o = labs(&["verify", path.as_str(), "n=1"]);
    assert_eq!(o.status.code(), Some(10), "{}", stderr(&o));
    let neg = "system {\n  extern = _n\n  spawn = A: _n\n}\nagent A {\n  Behavior = Skip\n}\ncheck {\n}\n";
    let o = labs(&["info", write_temp("neg_spawn.labs", neg).as_str(), "n=-2"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot spawn a negative number (-2)"), "{}", stderr(&o));
    // A literal zero size is a spec error.
    let lit = "system {\n  environment = a[0]: 1\n  spawn = A: 1\n}\nagent A {\n  Behavior = Skip\n}\ncheck {\n}\n";
    let o = labs(&["info", write_temp("lit_zero.labs", lit).as_str()]);
    assert_eq!(o.status.code(), Some(6), "{}", stderr(&o));
}

#[test]
fn malformed_extern_is_exit_2() {
    let o = labs(&["info", &shared("benchmarks/leader.labs"), "n=three"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("`n=three` is not an extern value"));
}

#[test]
fn unreadable_file_is_exit_2() {
    let o = labs(&["info", "no/such/file.labs"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot read `no/such/file.labs`"));
}

#[test]
fn syntax_error_is_exit_6_with_location_and_snippet() {
    let path =
        write_temp("pipe.labs", "system {\n  spawn = A: 1\n}\nagent A {\n  Behavior = Skip | Skip\n}\ncheck {\n}\n");
    let o = labs(&["info", path.as_str()]);
    assert_eq!(o.status.code(), Some(6));
    let err = stderr(&o);
    assert!(err.starts_with("error: a single `|` is not an operator"), "{err}");
    assert!(err.contains("pipe.labs:5:19"), "{err}");
    assert!(err.contains("  Behavior = Skip | Skip\n"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn static_error_is_exit_6() {
    let o = labs(&["info", &shared("tests/cases/wrongarrow.labs")]);
    assert_eq!(o.status.code(), Some(6));
    let err = stderr(&o);
    assert!(err.contains("wrongarrow.labs:9:16"), "{err}");
    assert!(err.contains("hint: use `<--`"), "{err}");
}

#[test]
fn bad_arguments_are_exit_2() {
    assert_eq!(labs(&["info"]).status.code(), Some(2));
    assert_eq!(labs(&["frobnicate"]).status.code(), Some(2));
}

#[test]
fn values_json_leader() {
    let o = labs(&["values", &shared("benchmarks/leader.labs"), "n=3", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let leader = &v["variables"][0];
    assert_eq!(leader["name"], "leader");
    assert_eq!(leader["agent_type"], "Node");
    assert_eq!(leader["store"], "stigmergy");
    assert_eq!(leader["intervals"], serde_json::json!([[0, 3]]));
}

#[test]
fn values_lists_array_elements_and_undef() {
    let o = labs(&["values", &shared("tests/cases/undef.labs"), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let names: Vec<&str> = v["variables"].as_array().unwrap().iter().map(|x| x["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"arr[0]") && names.contains(&"arr[1]"), "{names:?}");
    let u = v["variables"].as_array().unwrap().iter().find(|x| x["name"] == "u").unwrap();
    assert_eq!(u["intervals"], serde_json::json!(["undef"]));
}

/// Snapshots of `labs info --json` on the benchmarks (reviewed by hand against the specs:
/// id ranges by name order, stores, tuples, links and property texts).
#[test]
fn info_json_snapshots() {
    let runs: &[(&str, &[&str])] = &[
        ("flock", &["birds=3", "grid=5", "delta=5"]),
        ("formation", &["n=3", "size=10", "range=2"]),
        ("leader", &["n=3"]),
        ("philosophers", &["n=3"]),
        ("twophase", &["workers=2"]),
        ("twophasecommit", &["workers=2"]),
    ];
    for (name, externs) in runs {
        let path = shared(&format!("benchmarks/{name}.labs"));
        let mut args = vec!["info", path.as_str(), "--json"];
        args.extend_from_slice(externs);
        let o = labs(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let mut v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["spec"] = serde_json::json!(format!("{name}.labs"));
        insta::assert_json_snapshot!(format!("info_{name}"), v);
    }
}

#[test]
fn verify_reports_each_property_and_exit_10() {
    let o = labs(&["verify", &shared("benchmarks/leader.labs"), "n=3", "-q"]);
    assert_eq!(o.status.code(), Some(10), "{}", stderr(&o));
    let out = stdout(&o);
    // Known verdicts: benchmarks/README.md.
    assert!(out.contains("LeaderIs0    holds\n"), "{out}");
    assert!(out.contains("LeaderIs100  violated\n"), "{out}");
    assert!(out.contains("LeaderNot0   violated\n"), "{out}");
    assert!(out.contains("<deadlock>\n<property violated: LeaderIs100>"), "{out}");
}

#[test]
fn verify_holds_is_exit_0_and_selects_properties() {
    let o = labs(&["verify", &shared("benchmarks/leader.labs"), "n=3", "--property", "LeaderIs0", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["results"].as_array().unwrap().len(), 1);
    assert_eq!(v["results"][0]["verdict"], "holds");
    assert_eq!(v["backend"], "native");
    assert_eq!(v["fair"], false);
    assert!(v["stats"]["states"].as_u64().unwrap() > 10);
}

#[test]
fn verify_json_counterexample_has_states_and_events() {
    let o = labs(&[
        "verify",
        &shared("tests/cases/leader2.labs"),
        "n=2",
        "--property",
        "LeaderNot0",
        "--json",
        "--exhaustive",
    ]);
    assert_eq!(o.status.code(), Some(10));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let t = &v["results"][0]["trace"];
    // leader2.labs: the shortest counterexample has 2 steps (N0 writes 0, N0 propagates).
    assert_eq!(t["steps"].as_array().unwrap().len(), 2);
    assert_eq!(t["loop_start"], serde_json::Value::Null);
    assert_eq!(t["ends_in_deadlock"], false);
    assert_eq!(v["stats"]["states"], 11);
    assert_eq!(v["stats"]["transitions"], 15);
    assert_eq!(v["stats"]["complete"], true);
    assert_eq!(v["stats"]["decided_early"], false);
}

#[test]
fn unknown_property_is_exit_2() {
    let o = labs(&["verify", &shared("benchmarks/leader.labs"), "n=3", "--property", "Nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no property named `Nope`"), "{}", stderr(&o));
}

#[test]
fn runtime_error_is_exit_1_with_trace() {
    let o = labs(&["verify", &shared("tests/cases/divzero.labs")]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("division by zero"), "{err}");
    assert!(err.contains("P 0: a <-- 2"), "{err}");
    // The failing action, located: where `a <-- a / z` is in the file.
    let text = fixtures::read("tests/cases/divzero.labs");
    let (line, col) = text
        .lines()
        .enumerate()
        .find_map(|(i, l)| l.find("a <-- a / z").map(|c| (i + 1, c + 1)))
        .expect("the failing action in the spec");
    assert!(err.contains(&format!("divzero.labs:{line}:{col}\n")), "{err}");
}

#[test]
fn state_bound_is_exit_5_unknown() {
    let o = labs(&[
        "verify",
        &shared("benchmarks/leader.labs"),
        "n=5",
        "--max-states",
        "100",
        "--property",
        "LeaderIs0",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["results"][0]["verdict"], "unknown");
    assert_eq!(v["stopped"], "max_states");
}

#[test]
fn state_bound_applies_to_initial_states() {
    // 10^12 initial states: the bound must stop the enumeration itself.
    let spec = write_temp(
        "many-initial.labs",
        "system {\n    spawn = A: 4\n}\n\nagent A {\n    interface = x: 0..1000000\n    Behavior = x <- x\n}\n\ncheck {\n    P = always forall A a, x of a >= 0\n}\n",
    );
    let o = labs(&["verify", spec.as_str(), "--max-states", "100000", "--json"]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["results"][0]["verdict"], "unknown");
    assert_eq!(v["stopped"], "max_states");
}

#[test]
fn timeout_is_exit_124() {
    let o = labs(&[
        "verify",
        &shared("benchmarks/flock.labs"),
        "birds=3",
        "grid=5",
        "delta=5",
        "--timeout",
        "0.5",
        "--property",
        "Consensus",
        // Violated: found on the fly before the time limit, otherwise.
        "--exhaustive",
    ]);
    assert_eq!(o.status.code(), Some(124), "{}", stderr(&o));
    assert!(stdout(&o).contains("time limit"), "{}", stdout(&o));
}

#[test]
fn cadp_backend_without_cadp_is_exit_1() {
    for command in ["verify", "simulate"] {
        let o = fixtures::labs_command()
            .args([command, &shared("benchmarks/leader.labs"), "n=3", "--backend", "cadp"])
            .env_remove("CADP")
            .env("PATH", "/nonexistent")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1));
        assert!(stderr(&o).contains("CADP is not installed"), "{}", stderr(&o));
        if command == "verify" {
            assert!(stderr(&o).contains("hint: use `--backend native`"), "{}", stderr(&o));
            assert!(stderr(&o).contains("or `--backend lnt`"), "{}", stderr(&o));
        }
    }
}

#[test]
fn fair_scheduling_changes_the_leader_verdict() {
    // benchmarks/README.md: under --fair, LeaderIs0 is violated (a round blocks).
    let o = labs(&["verify", &shared("benchmarks/leader.labs"), "n=3", "--fair", "--property", "LeaderIs0", "-q"]);
    assert_eq!(o.status.code(), Some(10), "{}", stdout(&o));
}

#[test]
fn simulate_is_reproducible_from_the_seed() {
    let args =
        ["simulate", &shared("benchmarks/leader.labs"), "n=4", "--runs", "3", "--steps", "30", "--seed", "7", "--json"];
    let a = labs(&args);
    let b = labs(&args);
    assert_eq!(a.status.code(), Some(0), "{}", stderr(&a));
    assert_eq!(a.stdout, b.stdout);
    let v = crate::fixtures::simulate_doc(&a.stdout);
    assert_eq!(v["runs"].as_array().unwrap().len(), 3);
    let other = labs(&[
        "simulate",
        &shared("benchmarks/leader.labs"),
        "n=4",
        "--runs",
        "3",
        "--steps",
        "30",
        "--seed",
        "8",
        "--json",
    ]);
    assert_ne!(a.stdout, other.stdout, "different seeds should give different runs");
}

/// Each run's header names its own seed, and `--seed THAT --runs 1` draws that run alone.
#[test]
fn each_simulation_run_is_reproducible_alone_from_its_seed() {
    let spec = shared("benchmarks/leader.labs");
    let base = ["simulate", spec.as_str(), "n=4", "--steps", "30"];
    let all = labs(&[&base[..], &["--runs", "3", "--seed", "5"]].concat());
    assert_eq!(all.status.code(), Some(0), "{}", stderr(&all));
    let text = stdout(&all);
    for (i, seed) in [(1, 5), (2, 6), (3, 7)] {
        assert!(text.contains(&format!("=== run {i} of 3 (seed {seed},")), "{text}");
    }
    // The runs, without the summary that follows them.
    let body = &text[..text.find("3 of 3 runs (").expect("a summary")];
    let runs: Vec<&str> = body.split("=== run ").skip(1).map(|r| &r[r.find('\n').unwrap()..]).collect();
    assert_eq!(runs.len(), 3);
    assert!(runs[0] != runs[1] || runs[1] != runs[2], "the runs of one simulation differ");
    for (i, seed) in ["5", "6", "7"].iter().enumerate() {
        let one = labs(&[&base[..], &["--runs", "1", "--seed", seed]].concat());
        let alone = stdout(&one);
        assert!(alone.contains(&format!("=== run 1 of 1 (seed {seed},")), "{alone}");
        assert_eq!(&alone[alone.find('\n').unwrap()..], runs[i], "run {} alone from seed {seed}", i + 1);
    }
    let json = labs(&[&base[..], &["--runs", "3", "--seed", "5", "--json"]].concat());
    let v = crate::fixtures::simulate_doc(&json.stdout);
    let seeds: Vec<u64> = v["runs"].as_array().unwrap().iter().map(|r| r["seed"].as_u64().unwrap()).collect();
    assert_eq!(seeds, [5, 6, 7]);
}

/// docs/json.md: `spec` is the file name without its directory, in every document.
#[test]
fn every_json_document_names_the_spec_alike() {
    for cmd in ["verify", "simulate", "info", "values"] {
        let o = fixtures::labs_command()
            .current_dir(fixtures::root())
            .args([cmd, "examples/leader.labs", "n=3", "--json"])
            .output()
            .expect("run labs");
        let v: serde_json::Value = if cmd == "simulate" {
            fixtures::simulate_doc(&o.stdout)
        } else {
            serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{cmd}: {e}"))
        };
        assert_eq!(v["spec"], "leader.labs", "{cmd}");
    }
}

#[test]
fn simulate_needs_at_least_one_run() {
    let o = labs(&["simulate", &shared("examples/leader.labs"), "n=3", "--runs", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--runs"), "{}", stderr(&o));
    assert!(!stdout(&o).contains("no initial state"));
}

#[test]
fn simulate_human_output_marks_properties() {
    let o = labs(&["simulate", &shared("benchmarks/leader.labs"), "n=3", "--steps", "50", "--seed", "1"]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(out.contains("=== run 1 of 1 (seed 1"), "{out}");
    assert!(out.contains("<initialization>") && out.contains("<end initialization>"), "{out}");
    assert!(out.contains("LeaderNot0: violated"), "{out}");
}

#[test]
fn translate_trace_turns_executor_output_into_a_labs_trace() {
    let spec = fixtures::path_str("examples/counter.labs");
    // Executor output of the lost update (counter.labs's derivation: R, R, W, W).
    let seq = write_temp(
        "lost_update.seq",
        "lnt.open: running executor\n<initial state>\n\"E_C !0 !0\"\n\"DONE\"\n\"DONE\"\n\"DONE\"\n\"E_C !0 !1\"\n\"DONE\"\n\"DONE\"\n<deadlock>\n",
    );
    let o = labs(&["translate-trace", &spec, "n=2", "atomic=0", seq.as_str(), "--property", "AllCounted"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("a LAbS trace of 4 steps, ending in a deadlock"), "{out}");
    assert!(out.contains("Inc 1: c <-- 1"), "{out}");
    assert!(out.contains("the trace violates AllCounted (finally) at state 4"), "{out}");
    let o = labs(&["translate-trace", &spec, "n=2", "atomic=0", seq.as_str(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["trace"]["steps"].as_array().unwrap().len(), 4);
    assert_eq!(v["trace"]["ends_in_deadlock"], true);
    // A path this spec cannot take (c jumps from 0 to 2): an error of the encoding or of the input.
    let bad = write_temp("jump.seq", "\"E_C !0 !0\"\n\"DONE\"\n\"E_C !0 !2\"\n\"DONE\"\n");
    let o = labs(&["translate-trace", &spec, "n=2", "atomic=0", bad.as_str()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("step 1 of the path cannot be matched"), "{}", stderr(&o));
    // No trace file, or one that does not exist.
    let o = labs(&["translate-trace", &spec, "n=2", "atomic=0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = labs(&["translate-trace", &spec, "n=2", "atomic=0", "/nonexistent/x.seq"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot read"), "{}", stderr(&o));
    // A file that is not a trace: text, or the spec itself, refused at its first line.
    let text = write_temp("hello.txt", "\n  hello world\n");
    for (file, line) in [(text.as_str(), 2), (spec.as_str(), 1)] {
        let o = labs(&["translate-trace", &spec, "n=2", "atomic=0", file]);
        assert_eq!(o.status.code(), Some(2), "{file}: {}", stderr(&o));
        assert!(stderr(&o).contains("not a trace"), "{}", stderr(&o));
        assert!(stderr(&o).contains(&format!("--> {file}:{line}\n")), "{}", stderr(&o));
    }
}

#[test]
fn simulate_with_the_lnt_backend_prints_the_native_formats() {
    let args = [
        "simulate",
        &shared("benchmarks/leader.labs"),
        "n=3",
        "--backend",
        "lnt",
        "--runs",
        "2",
        "--steps",
        "20",
        "--seed",
        "4",
        "--json",
    ];
    let a = labs(&args);
    assert_eq!(a.status.code(), Some(0), "{}", stderr(&a));
    assert_eq!(a.stdout, labs(&args).stdout, "not reproducible");
    let v = crate::fixtures::simulate_doc(&a.stdout);
    assert_eq!(v["backend"], "lnt");
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    for r in runs {
        let t = &r["trace"];
        assert_eq!(t["initial"]["agents"].as_array().unwrap().len(), 3);
        // every agent starts with leader = _n = 3 (`leader: _n`) at timestamps 0, 1, 2 (D2)
        for (i, ag) in t["initial"]["agents"].as_array().unwrap().iter().enumerate() {
            assert_eq!(ag["stigmergy"]["leader"]["value"], 3);
            assert_eq!(ag["stigmergy"]["leader"]["timestamp"], i);
        }
        assert!(t["steps"].is_array() && r["properties"].is_array());
    }
    let o = labs(&["simulate", &shared("benchmarks/leader.labs"), "n=3", "--backend", "lnt", "--seed", "1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("=== run 1 of 1 (seed 1") && out.contains("<end initialization>"), "{out}");
    assert!(out.contains("LeaderNot0: violated"), "{out}");
}

/// The statistics give the whole run's wall-clock time, then the exploration's, named as such.
#[test]
fn verify_stats_show_the_whole_run_then_the_exploration() {
    let start = std::time::Instant::now();
    let o = labs(&["verify", &shared("benchmarks/leader.labs"), "n=4", "--property", "LeaderIs0", "--json"]);
    let outside = start.elapsed().as_secs_f64();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let whole = v["stats"]["seconds"].as_f64().expect("stats.seconds");
    let exploration = v["stats"]["exploration_seconds"].as_f64().expect("stats.exploration_seconds");
    // The run contains the exploration and lies within the process as this test timed it.
    assert!(0.0 < exploration && exploration <= whole && whole <= outside, "{exploration} {whole} {outside}");

    let o = labs(&["verify", &shared("benchmarks/leader.labs"), "n=4", "--property", "LeaderIs0"]);
    let out = stdout(&o);
    let last = out.lines().last().unwrap_or("");
    let re =
        regex::Regex::new(r" (\d+\.\d\d) s wall clock \(exploration (\d+\.\d\d) s\), peak memory \d+ MiB$").unwrap();
    let c = re.captures(last).unwrap_or_else(|| panic!("{out}"));
    let (whole, exploration): (f64, f64) = (c[1].parse().unwrap(), c[2].parse().unwrap());
    assert!(exploration <= whole, "{last}");
}

/// `labs lts` writes the LTS on standard output without `-o`, or with `-o -`; a wrong
/// `--leaf` or `--property` is a usage error that lists the valid ones.
#[test]
fn lts_writes_standard_output_and_lists_valid_leaves_and_properties() {
    let spec = shared("examples/leader.labs");
    let scratch = Scratch::path("lts-stdout", "x");
    let cwd = scratch.parent().unwrap();
    for dash in [&[][..], &["-o", "-"][..]] {
        let o = fixtures::labs_command()
            .current_dir(cwd)
            .args([&["lts", spec.as_str(), "n=2"][..], dash].concat())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let aut = stdout(&o);
        let header = aut.lines().next().unwrap_or_default();
        let transitions: usize = header.split(',').nth(1).and_then(|n| n.trim().parse().ok()).expect(header);
        assert!(header.starts_with("des (0,") && aut.lines().count() == transitions + 1, "{dash:?}: {header}");
        assert!(!cwd.join("-").exists(), "no file named `-`");
    }
    let o = labs(&["lts", &spec, "n=3", "--leaf", "7"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("no agent has this id (they are 0 to 2)"), "{}", stderr(&o));
    let o = labs(&["lts", &spec, "n=3", "--property", "Nope"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("LeaderIsMax, NeverAgreed, LeaderIsZero, Settles"), "{}", stderr(&o));
}

/// Counts in the output agree with their nouns (`1 agent`, `2 agents`).
#[test]
fn counts_of_one_are_singular() {
    let o = labs(&["info", &shared("examples/leader.labs"), "n=1"]);
    let out = stdout(&o);
    assert!(
        out.contains(": 1 agent\n") && out.contains("(1 agent); behaviour: 1 control state, 1 guarded action"),
        "{out}"
    );
    let o = labs(&["info", &shared("examples/leader.labs"), "n=2"]);
    assert!(stdout(&o).contains("(2 agents)"), "{}", stdout(&o));
    let o = labs(&["verify", &shared("examples/leader.labs"), "n=1", "--backend", "lnt"]);
    assert!(!stdout(&o).contains(" 1 LTSs") && !stdout(&o).contains("(1 states"), "{}", stdout(&o));
}

/// docs/trace-format.md: `ends_in_deadlock` is true when the last state has no successor,
/// whatever the property. In philosophers n=3 asym=0 three counterexamples end in the one
/// deadlock where every philosopher holds a fork (examples/philosophers.labs): all say so.
#[test]
fn every_counterexample_that_ends_in_a_deadlock_says_so() {
    let spec = shared("examples/philosophers.labs");
    let o = labs(&["verify", &spec, "n=3", "asym=0", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let traces: Vec<&serde_json::Value> =
        v["results"].as_array().unwrap().iter().filter_map(|r| r.get("trace").filter(|t| !t.is_null())).collect();
    let last = |t: &serde_json::Value| {
        t["steps"].as_array().and_then(|s| s.last()).map_or(t["initial"].clone(), |s| s["state"].clone())
    };
    let dead: Vec<serde_json::Value> =
        traces.iter().filter(|t| t["ends_in_deadlock"] == true).map(|t| last(t)).collect();
    assert!(!dead.is_empty(), "the `finally` counterexample ends in a deadlock");
    let mut flagged = 0;
    for t in traces.iter().filter(|t| t["loop_start"].is_null()) {
        if dead.contains(&last(t)) {
            assert_eq!(t["ends_in_deadlock"], true, "a trace ending in a deadlocked state: {t}");
            flagged += 1;
        }
    }
    assert!(flagged >= 3, "NoDeadlock, ZeroCanEat and ZeroEats end in the deadlock: {flagged}");
    let text = stdout(&labs(&["verify", &spec, "n=3", "asym=0"]));
    assert!(text.matches("<deadlock>").count() >= 3, "{text}");
}

/// `labs mcl --diag` on a violated `finally` writes a path to a deadlock (an `.aut` path cannot
/// say so); `translate-trace` shows it ending in the deadlock and, with `--property`, violating.
#[test]
fn a_finally_diagnostic_of_labs_mcl_translates_to_a_deadlocked_violation() {
    let spec = shared("examples/leader.labs");
    let dir = Scratch::path("mcl-diag-finally", "emitted");
    let emit = labs(&["emit", &spec, "n=3", "-o", dir.to_str().unwrap()]);
    assert_eq!(emit.status.code(), Some(0), "{}", stderr(&emit));
    let aut = dir.with_file_name("leader.aut");
    let diag = dir.with_file_name("d.aut");
    let lts = labs(&["lts", &spec, "n=3", "-o", aut.to_str().unwrap()]);
    assert_eq!(lts.status.code(), Some(0), "{}", stderr(&lts));
    let query = dir.join("leader_LeaderIsZero.mcl");
    let mcl = labs(&["mcl", query.to_str().unwrap(), aut.to_str().unwrap(), "--diag", diag.to_str().unwrap()]);
    assert_eq!(mcl.status.code(), Some(10), "FALSE: {}", stderr(&mcl));
    let d = diag.to_str().unwrap();
    let o = labs(&["translate-trace", &spec, "n=3", d, "--property", "LeaderIsZero"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("the trace violates LeaderIsZero (finally)"), "{}", stdout(&o));
    assert!(stdout(&o).contains("<deadlock>"), "{}", stdout(&o));
    let o = labs(&["translate-trace", &spec, "n=3", d, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["trace"]["ends_in_deadlock"], true, "{}", stderr(&o));
    // The same with the diagnostic `verify --backend lnt --keep-files` keeps.
    let kept = dir.with_file_name("kept");
    let o = labs(&["verify", &spec, "n=3", "--backend", "lnt", "--keep-files", kept.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(10), "{}", stderr(&o));
    let diag = kept.join("leader_LeaderIsZero_diag.aut");
    let o = labs(&["translate-trace", &spec, "n=3", diag.to_str().unwrap(), "--property", "LeaderIsZero"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("the trace violates LeaderIsZero (finally)"), "{}", stdout(&o));
}

/// `--help` describes what is accepted: every shell `completions` takes is named in its help,
/// and every option of `simulate` and `verify` has a description (the completions show it).
#[test]
fn help_describes_every_option_and_shell() {
    let help = stdout(&labs(&["completions", "--help"]));
    let about = help.lines().next().unwrap_or_default();
    for shell in ["bash", "elvish", "fish", "powershell", "zsh"] {
        assert_eq!(labs(&["completions", shell]).status.code(), Some(0), "{shell}");
        assert!(about.contains(shell), "{shell}: {about}");
    }
    for cmd in ["simulate", "verify"] {
        let help = stdout(&labs(&[cmd, "--help"]));
        let lines: Vec<&str> = help.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            let option = l.trim_start();
            if l.starts_with("  ") && option.starts_with("--") || option.starts_with("-q") {
                let next = lines.get(i + 1).map_or("", |n| n.trim());
                let bare = next.is_empty() || next.starts_with('[') || next.starts_with("Possible values");
                assert!(!bare, "{cmd} {option}: no description");
            }
        }
    }
    let verify = stdout(&labs(&["verify", "--help"]));
    assert!(verify.contains("2023, 2024-d, 2025-d, 2025-e, 2025, 2025-l, 2026 or a CADP release YYYY-x"), "{verify}");
}

#[test]
fn lnt_backend_at_a_bound_reports_every_property_unknown() {
    // leader n=5 has 3 properties and far more than 100 states in its first leaf or `MAIN`:
    // the bound stops the script before any `verify` statement is decided.
    let spec = shared("benchmarks/leader.labs");
    let report = Scratch::path("cli-test", "lnt-bound.html");
    let o = labs(&[
        "verify",
        &spec,
        "n=5",
        "--backend",
        "lnt",
        "--max-states",
        "100",
        "--json",
        "--report",
        report.as_str(),
    ]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let names: Vec<&str> = v["results"].as_array().unwrap().iter().map(|r| r["property"].as_str().unwrap()).collect();
    assert_eq!(names, ["LeaderIs0", "LeaderIs100", "LeaderNot0"]);
    assert!(v["results"].as_array().unwrap().iter().all(|r| r["verdict"] == "unknown"), "{v}");
    assert_eq!(v["stopped"], "max_states");
    assert_eq!(v["backend"], "lnt");
    let page = std::fs::read_to_string(report.as_str()).expect("the report is written");
    assert!(page.contains("LeaderNot0") && page.contains("unknown"), "report without the verdicts");
    // Text, stopped by the time limit: exit 124, one `unknown` line per property.
    let o = labs(&["verify", &spec, "n=7", "--backend", "lnt", "--timeout", "0.5", "--property", "LeaderNot0"]);
    assert_eq!(o.status.code(), Some(124), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("LeaderNot0  unknown\n"), "{out}");
    assert!(out.contains("the time limit (--timeout) was reached"), "{out}");
}

#[test]
fn lnt_backend_chooses_the_workflow_the_value_analysis_allows() {
    // examples/counter.labs: `c` grows without bound, so the compositional leaves cannot be
    // generated alone; without --workflow the monolithic one runs and is named.
    let spec = shared("examples/counter.labs");
    let report = Scratch::path("cli-test", "counter.html");
    let o = labs(&["verify", &spec, "n=2", "atomic=0", "--backend", "lnt", "--json", "--report", report.as_str()]);
    // The verdicts of the hand derivation in the example's header comment.
    assert_eq!(o.status.code(), Some(10), "{}", stderr(&o));
    assert!(stderr(&o).contains("note: the monolithic workflow runs"), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["lnt"]["workflow"], "monolithic");
    assert_eq!(v["lnt"]["script"], "counter_mono.svl");
    assert_eq!(v["results"][0]["verdict"], "violated");
    let page = std::fs::read_to_string(report.as_str()).expect("the report is written");
    assert!(page.contains("monolithic (counter_mono.svl)"), "the report does not name the workflow");
    let o = labs(&["verify", &spec, "n=2", "atomic=0", "--backend", "lnt"]);
    assert!(stdout(&o).contains("LNT interpreter, monolithic workflow"), "{}", stdout(&o));
    // Asked for explicitly, the compositional workflow is refused.
    let o = labs(&["verify", &spec, "n=2", "atomic=0", "--backend", "lnt", "--workflow", "compositional"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("hint: use `--workflow monolithic`"), "{}", stderr(&o));
    // A bounded spec keeps the compositional default.
    let o = labs(&["verify", &shared("benchmarks/leader.labs"), "n=3", "--backend", "lnt", "--json"]);
    assert_eq!(o.status.code(), Some(10), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["lnt"]["workflow"], "compositional");
}
