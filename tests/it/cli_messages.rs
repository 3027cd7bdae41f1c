//! What the commands print around their results, as a user meets it: the progress line where
//! a user waits (on a terminal, fitted to its width, cleared before any message), `-q` in every
//! command, statistics that say what was explored and what stopped, errors in source order,
//! and refusals that name what would work.

use crate::fixtures::{self, bench, example, stderr, stdout};
use crate::scratch::Scratch;
use crate::terminal::{self, segments};
use serde_json::Value;

fn labs_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    fixtures::labs_command().args(args).current_dir(dir).output().expect("run labs")
}

/// Every piece of the terminal's text fits in `cols - 1` columns: a progress line that wrapped
/// could not be rewritten or cleared in place.
fn assert_fits(text: &str, cols: usize) {
    for s in segments(text) {
        assert!(s.chars().count() < cols, "a line of {} columns on a {cols}-column terminal: {s:?}", s.chars().count());
    }
}

/// Millions of initial states (flock with `--fair`): a progress line while they are
/// enumerated, and a statistics line that says the stop came then.
#[test]
fn initial_states_show_progress_and_a_stop_among_them_is_named() {
    let mut cmd = fixtures::labs_command();
    cmd.args(["verify", &bench("flock.labs"), "birds=4", "grid=5", "delta=5", "--fair", "--max-states", "100000"]);
    let o = terminal::run(cmd, 70);
    assert_eq!(o.code, Some(5), "{}", o.terminal);
    assert!(o.terminal.contains(" initial states "), "{}", o.terminal);
    assert_fits(&o.terminal, 70);
    assert!(
        o.stdout.contains("exploration stopped while the initial states were enumerated")
            && o.stdout.contains("the state bound (--max-states) was reached"),
        "{}",
        o.stdout
    );
    // -q: nothing of it.
    let mut cmd = fixtures::labs_command();
    cmd.args([
        "verify",
        &bench("flock.labs"),
        "birds=4",
        "grid=5",
        "delta=5",
        "--fair",
        "--max-states",
        "100000",
        "-q",
    ]);
    let o = terminal::run(cmd, 70);
    assert!(!o.terminal.contains("initial states"), "{}", o.terminal);
}

/// `labs lts` shows its generation, and clears the line before its error (the state bound).
#[test]
fn lts_shows_progress_and_clears_it_before_an_error() {
    let out = Scratch::path("lts-progress", "l.aut");
    // n=6: about 30,000 program states (7,189 LAbS states, about 4.5 program states each)
    let args = ["lts", &bench("leader.labs") as &str, "n=6", "--max-states", "20000", "-o", out.as_str()];
    let mut cmd = fixtures::labs_command();
    cmd.args(args);
    let o = terminal::run(cmd, 80);
    assert_eq!(o.code, Some(5), "{}", o.terminal);
    assert!(o.terminal.contains("generating MAIN"), "{}", o.terminal);
    assert_fits(&o.terminal, 80);
    let at = o.terminal.find("error:").unwrap_or_else(|| panic!("{}", o.terminal));
    assert!(o.terminal[..at].ends_with('\r'), "the error starts within the progress line: {:?}", o.terminal);
    assert!(o.terminal[..at].trim_end_matches('\r').ends_with(' '), "cleared first: {:?}", o.terminal);
    assert!(!out.exists());
    let mut cmd = fixtures::labs_command();
    cmd.args(args).arg("-q");
    let o = terminal::run(cmd, 80);
    assert!(!o.terminal.contains("generating"), "{}", o.terminal);
    assert!(o.terminal.contains("error:"), "{}", o.terminal);
}

/// Decided by the depth-first search before anything was stored: the statistics count the
/// states it visited, at least those of the counterexample it found, not `0 states`.
#[test]
fn a_run_decided_early_counts_what_it_explored() {
    let o = fixtures::labs(&["verify", &example("leader.labs"), "n=3", "--property", "LeaderIsZero"]);
    assert_eq!(o.status.code(), Some(10), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(!out.contains("0 states, 0 transitions"), "{out}");
    let line = out.lines().find(|l| l.contains("visited by the depth-first search")).unwrap_or_else(|| panic!("{out}"));
    let visited: usize = line.split_whitespace().next().unwrap().parse().unwrap();
    let j = fixtures::labs(&["verify", &example("leader.labs"), "n=3", "--property", "LeaderIsZero", "--json"]);
    let doc: Value = serde_json::from_slice(&j.stdout).unwrap();
    let trace_states = doc["results"][0]["trace"]["steps"].as_array().unwrap().len() + 1;
    assert!(visited >= trace_states, "{visited} visited, a trace of {trace_states} states: {out}");
}

/// A memory bound below what labs takes to start: the run stops before the first initial
/// state is stored. That is said, with the bound's exit code; no "no initial state" warning,
/// and no claim that the memory stayed within a budget.
#[test]
fn a_memory_bound_that_stops_the_enumeration_says_so() {
    let o = fixtures::labs(&["verify", &example("leader.labs"), "n=3", "--memory", "5"]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(!err.contains("no initial state") && !err.contains("vacuously"), "{err}");
    assert!(!out.contains("stayed within"), "{out}");
    assert!(
        out.contains("exploration stopped while the initial states were enumerated (0 stored): the memory bound"),
        "{out}"
    );
    assert_eq!(out.lines().take(4).filter(|l| l.ends_with("  unknown")).count(), 4, "{out}");
    assert!(err.contains("--memory 5"), "{err}");
}

/// `-q` (`--quiet`) is accepted by every command, with one meaning: no progress line and no
/// notes on stderr; standard output and the exit code are unchanged.
#[test]
fn quiet_is_accepted_everywhere_and_silences_the_notes() {
    let d = Scratch::path("quiet", "d");
    std::fs::create_dir_all(&*d).unwrap();
    let spec = example("leader.labs");
    let aut = d.join("leader.aut");
    let emitted = d.join("emitted");
    let diag = d.join("diag.aut");
    let query = emitted.join("leader_NeverAgreed.mcl");
    let commands: Vec<Vec<String>> = [
        vec!["info", &spec, "n=3"],
        vec!["values", &spec, "n=3"],
        vec!["emit", &spec, "n=3", "-o", emitted.to_str().unwrap()],
        vec!["lts", &spec, "n=3", "-o", aut.to_str().unwrap()],
        vec!["mcl", query.to_str().unwrap(), aut.to_str().unwrap(), "--diag", diag.to_str().unwrap()],
        vec!["translate-trace", &spec, "n=3", diag.to_str().unwrap()],
    ]
    .iter()
    .map(|c| c.iter().map(|s| s.to_string()).collect())
    .collect();
    for c in &commands {
        let args: Vec<&str> = c.iter().map(String::as_str).collect();
        let loud = fixtures::labs(&args);
        let quiet = fixtures::labs(&[&args[..], &["-q"]].concat());
        let what = &args[0];
        assert_ne!(quiet.status.code(), Some(2), "{what} -q: {}", stderr(&quiet));
        assert_eq!(quiet.status.code(), loud.status.code(), "{what}: {}", stderr(&quiet));
        assert_eq!(quiet.stdout, loud.stdout, "{what}: the same output");
        assert!(stderr(&quiet).is_empty(), "{what} -q: {}", stderr(&quiet));
        let long = fixtures::labs(&[&args[..], &["--quiet"]].concat());
        assert_eq!(long.status.code(), loud.status.code(), "{what} --quiet: {}", stderr(&long));
    }
    // The notes that -q silenced were there without it.
    let loud = fixtures::labs(&["emit", &spec, "n=3", "-o", emitted.to_str().unwrap()]);
    assert!(stderr(&loud).contains("note: LNT dialect"), "{}", stderr(&loud));
    let loud = fixtures::labs(&["lts", &spec, "n=3", "-o", aut.to_str().unwrap()]);
    assert!(stderr(&loud).contains(" states, "), "{}", stderr(&loud));
}

#[test]
fn emit_to_standard_output_is_refused() {
    let d = Scratch::path("emit-dash", "cwd");
    std::fs::create_dir_all(&*d).unwrap();
    let o = labs_in(&d, &["emit", &example("leader.labs"), "n=3", "-o", "-"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("-o -") && stderr(&o).contains("directory"), "{}", stderr(&o));
    assert!(!d.join("-").exists(), "a directory named `-` was made");
}

/// `labs lts --root` naming no process: a usage error listing the roots there are (MAIN, and a
/// linear-time property's `Root_P`), not an error located in the generated program.
#[test]
fn an_unknown_root_lists_the_roots() {
    let o = fixtures::labs(&["lts", &example("leader.labs"), "n=3", "--root", "Root_Nope"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("--root Root_Nope") && e.contains("MAIN"), "{e}");
    assert!(!e.contains("-->"), "located in the generated program: {e}");
    let o = fixtures::labs(&["lts", &example("philosophers.labs"), "n=3", "asym=0", "--root", "Root_Nope"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("Root_SomeoneEats"), "{}", stderr(&o));
}

/// Errors found by different passes (duplicate names, then array sizes) are listed in the
/// order of the file.
#[test]
fn errors_are_listed_in_source_order() {
    let text = "system {\n    extern = _n\n    environment = x[0]: 0\n    spawn = Node: _n\n}\n\
                stigmergy Election {\n    link = true\n    leader: 0\n}\n\
                agent Node {\n    Behavior = leader <~ 1; Behavior\n}\n\
                check {\n    P = always leader of 0 > 0\n    P = always leader of 0 > 1\n}\n";
    let f = Scratch::file("error-order", "errors.labs", text);
    let o = fixtures::labs(&["info", f.as_str(), "n=2"]);
    assert_eq!(o.status.code(), Some(6), "{}", stderr(&o));
    let lines: Vec<usize> = stderr(&o)
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("--> "))
        .map(|loc| loc.rsplit(':').nth(1).unwrap().parse().unwrap())
        .collect();
    assert_eq!(lines, [3, 15], "{}", stderr(&o));
}

/// A linear-time property's diagnostic (on its root, `Root_P`) carries the monitor's `ACC`
/// labels: `translate-trace` knows them, and does not report them as ignored.
#[test]
fn the_monitor_labels_are_not_reported_as_ignored() {
    let kept = Scratch::path("monitor-labels", "kept");
    let spec = example("philosophers.labs");
    let base = [&spec as &str, "n=3", "asym=0"];
    let o = fixtures::labs(
        &[
            &["verify"],
            &base[..],
            &["--property", "SomeoneEats", "--backend", "lnt", "--workflow", "on-the-fly", "--keep-files"],
            &[kept.as_str()],
        ]
        .concat(),
    );
    assert_eq!(o.status.code(), Some(10), "{}", stderr(&o));
    let diag = kept.join("philosophers_otf_SomeoneEats_diag.aut");
    let text = std::fs::read_to_string(&diag).unwrap();
    assert!(text.contains("\"ACC\""), "the test needs a diagnostic with the monitor's labels: {text}");
    let d = diag.to_str().unwrap();
    let o = fixtures::labs(&[&["translate-trace"], &base[..], &[d, "--property", "SomeoneEats"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stderr(&o).contains("ignored"), "{}", stderr(&o));
    let o = fixtures::labs(&[&["translate-trace"], &base[..], &[d, "--json"]].concat());
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["ignored_labels"], 0, "{doc}");
}
