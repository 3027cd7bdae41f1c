//! `labs verify --backend lnt` and the native back end, as users run them: the same report.
//! The human output must be the native one except for the body of each counterexample and the
//! statistics: the MCL evaluator's diagnostic is one counterexample among many (evaluator4 does
//! not promise a shortest one, the native engine does), and the LNT back end's LTSs, reduced by
//! the SVL script, are not LAbS state graphs, so their sizes are not the native counts. What
//! stays: the verdict table, each counterexample's header and its `<property violated: P>`
//! mark. Every counterexample is replayed before it is printed (`tests/it/lnt_backend_files.rs`
//! checks that on every spec). The JSON document names, per result, the query evaluated and the
//! LTS it was evaluated on.

use crate::fixtures;

use serde_json::Value;
use std::process::Output;

fn labs(args: &[&str]) -> Output {
    fixtures::labs_command().arg("verify").args(args).output().expect("run labs")
}

fn stdout(args: &[&str]) -> String {
    let o = labs(args);
    assert!(matches!(o.status.code(), Some(0 | 10)), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// The report without its statistics (the last paragraph) and with each counterexample reduced
/// to its header and its last line (the mark).
fn shape(out: &str) -> Vec<String> {
    let mut paras: Vec<&str> = out.trim_end().split("\n\n").collect();
    paras.pop();
    paras
        .iter()
        .map(|p| {
            let lines: Vec<&str> = p.lines().collect();
            if lines[0].starts_with("counterexample for ") {
                format!("{}\n{}", lines[0], lines[lines.len() - 1])
            } else {
                p.to_string()
            }
        })
        .collect()
}

fn agree(spec: &str, externs: &[&str], workflow: &str) {
    for fair in [false, true] {
        let mut args: Vec<&str> = vec![spec];
        args.extend(externs);
        if fair {
            args.push("--fair");
        }
        let native = stdout(&args);
        args.extend(["--backend", "lnt", "--workflow", workflow]);
        let lnt = stdout(&args);
        assert_eq!(shape(&lnt), shape(&native), "{args:?}\n--- native:\n{native}\n--- lnt:\n{lnt}");
        assert!(lnt.contains(&format!("LNT interpreter, {workflow} workflow")), "{lnt}");
    }
}

use fixtures::{BENCH, EXAMPLES as EX};

#[test]
fn shape_checks_the_marks() {
    // The comparison must see a missing mark: it keeps each counterexample's last line.
    let with = "A  violated\n\ncounterexample for A (always):\n<initialization>\nx\n<property violated: A>\n\nstats";
    let without = "A  violated\n\ncounterexample for A (always):\n<initialization>\nx\n\nstats";
    assert_ne!(shape(with), shape(without));
    assert_eq!(shape(with)[1], "counterexample for A (always):\n<property violated: A>");
}

#[test]
fn examples() {
    for (spec, externs, workflow) in fixtures::lnt_instances().iter().filter(|(s, ..)| !s.starts_with(BENCH)) {
        agree(spec, externs, workflow);
    }
}

#[test]
fn benchmarks() {
    for (spec, externs, workflow) in fixtures::lnt_instances().iter().filter(|(s, ..)| s.starts_with(BENCH)) {
        agree(spec, externs, workflow);
    }
}

/// Each result names its query (`BASE_P.mcl`, as the script's `verify` statement does) and
/// the LTS it was evaluated on (the script's name for it, as `.bcg`, and its size).
#[test]
fn json_names_queries_and_lts() {
    let spec = format!("{EX}/line.labs");
    for (workflow, lts) in [("compositional", "line_InBounds.bcg"), ("monolithic", "line_mono_InBounds.bcg")] {
        let args = [
            spec.as_str(),
            "n=2",
            "size=4",
            "gap=1",
            "--property",
            "InBounds",
            "--json",
            "--backend",
            "lnt",
            "--workflow",
        ];
        let mut args: Vec<&str> = args.to_vec();
        args.push(workflow);
        let o = labs(&args);
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["backend"], "lnt");
        assert_eq!(v["lnt"]["workflow"], workflow);
        let r = &v["results"][0];
        assert_eq!(r["property"], "InBounds");
        assert_eq!(r["mcl"], "line_InBounds.mcl");
        assert_eq!(r["lts"]["file"], lts);
        assert!(r["lts"]["states"].as_u64().unwrap() > 0);
    }
}

/// `examples/counter.labs`: the value analysis cannot bound `c`, so the compositional script's
/// leaves cannot be generated alone: an explicit `--workflow compositional` is refused at once
/// (exit 1) with the way out (without `--workflow`, the monolithic one runs: tests/it/cli.rs).
#[test]
fn unbounded_compositional_is_refused() {
    let o =
        labs(&[&format!("{EX}/counter.labs"), "n=2", "atomic=0", "--backend", "lnt", "--workflow", "compositional"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("does not bound `c`") && err.contains("--workflow monolithic"), "{err}");
}

/// `--keep-files DIR`: the emitted files and each LTS the script defines (as `.aut`) are left
/// in DIR.
#[test]
fn keep_files() {
    let dir = std::env::temp_dir().join(format!("labs-lnt-keep-{}", std::process::id()));
    let d = dir.to_string_lossy().into_owned();
    let spec = format!("{EX}/line.labs");
    let o = labs(&[&spec, "n=2", "size=4", "gap=1", "--property", "InBounds", "--backend", "lnt", "--keep-files", &d]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    for f in ["line.lnt", "line.svl", "line_InBounds.mcl", "line_InBounds.aut"] {
        assert!(dir.join(f).is_file(), "{f} missing in {d}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
