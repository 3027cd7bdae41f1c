//! A run that ends in a deadlock is a whole run: its last state repeats forever (semantics.md,
//! D14), so it decides every property but `fairly` and `fairly_inf` (issue 55: `from … until
//! …, thereIs` was left undecided by `simulate` and counted satisfied by `--estimate`). The
//! oracle is the hand-derived verdict in each case file's header (which `labs verify` checks on
//! every route): both cases have a single run, so "holds" is "satisfied" on it. Checked for
//! `simulate` (native and `--backend lnt`, free and `--fair`), `--estimate` and `--sprt`.

use crate::fixtures::{self, labs_command};
use serde_json::Value;

const FILES: [&str; 2] = ["tests/cases/deadlock_start.labs", "tests/cases/deadlock_scoped.labs"];

/// The header's verdicts of the case line with (`fair`) or without `--fair`, by property.
fn verdicts(rel: &str, fair: bool) -> Vec<(String, String)> {
    let text = fixtures::read(rel);
    let line = text
        .lines()
        .filter_map(|l| l.strip_prefix("# case:"))
        .find(|l| l.split("=>").next().unwrap().contains("--fair") == fair)
        .expect("a case line");
    line.split("=>")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .filter_map(|kv| kv.split_once('='))
        .filter(|(_, v)| *v == "holds" || *v == "violated")
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Whether property `name` of the case is `fairly`/`fairly_inf` (never decided by one run).
fn branching(rel: &str, name: &str) -> bool {
    fixtures::read(rel).lines().any(|l| {
        let l = l.trim();
        l.starts_with(&format!("{name} = fairly"))
    })
}

fn json(args: &[&str]) -> Value {
    let out = labs_command().args(args).args(["--json", "-q"]).output().expect("run labs");
    assert!(out.status.success(), "labs {args:?}: {}", fixtures::stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", fixtures::stderr(&out)))
}

#[test]
fn a_run_ending_in_a_deadlock_decides_every_property_as_verify_does() {
    for rel in FILES {
        let spec = fixtures::path_str(rel);
        for fair in [false, true] {
            for backend in ["native", "lnt"] {
                let mut args = vec!["simulate", &spec, "--steps", "10", "--backend", backend];
                if fair {
                    args.push("--fair");
                }
                let out = labs_command().args(&args).args(["--json", "-q"]).output().expect("run labs");
                assert!(out.status.success(), "labs {args:?}: {}", fixtures::stderr(&out));
                let doc = fixtures::simulate_doc(&out.stdout);
                let run = &doc["runs"][0];
                assert_eq!(run["deadlock"], true, "{rel} {backend}");
                for (name, verdict) in verdicts(rel, fair) {
                    let p = run["properties"].as_array().unwrap().iter().find(|p| p["property"] == name.as_str());
                    let status = p.unwrap_or_else(|| panic!("{rel}: no {name}"))["status"].as_str().unwrap();
                    let want = if branching(rel, &name) {
                        "undecided"
                    } else if verdict == "holds" {
                        "satisfied"
                    } else {
                        "violated"
                    };
                    assert_eq!(status, want, "{rel} {name} ({backend}, fair {fair}): verify says {verdict}");
                }
            }
        }
    }
}

#[test]
fn estimates_and_tests_count_a_deadlocked_run_as_verify_judges_it() {
    for rel in FILES {
        let spec = fixtures::path_str(rel);
        for backend in ["native", "lnt"] {
            let est =
                json(&["simulate", &spec, "--steps", "10", "--estimate", "--epsilon", "0.3", "--backend", backend]);
            let sprt = json(&[
                "simulate",
                &spec,
                "--steps",
                "10",
                "--sprt",
                "0.5",
                "--indifference",
                "0.2",
                "--backend",
                backend,
            ]);
            for (name, verdict) in verdicts(rel, false) {
                let find = |doc: &Value| {
                    doc["properties"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .find(|p| p["property"] == name.as_str())
                        .unwrap()
                        .clone()
                };
                let (e, s) = (find(&est), find(&sprt));
                if branching(rel, &name) {
                    assert_eq!(e["estimated"], false, "{rel} {name}");
                    continue;
                }
                let runs = e["runs"].as_u64().unwrap();
                assert!(runs > 0);
                let successes = if verdict == "holds" { runs } else { 0 };
                assert_eq!(e["successes"].as_u64(), Some(successes), "{rel} {name} ({backend}): verify says {verdict}");
                let decision = if verdict == "holds" { "above" } else { "below" };
                assert_eq!(s["decision"], decision, "{rel} {name} ({backend}): verify says {verdict}");
            }
        }
    }
}

/// On generated specs, every scoped property is simulated next to its linear-time formula
/// (`model::scoped::as_ltl`, docs/semantics.md), whose status at a deadlock is judged
/// independently, by fixpoints on the run with its last state repeated (`holds_on_lasso`): on
/// every run that ends in a deadlock both are decided and agree, and on every run no side is
/// decided against the other. `precedes` is left to the hand-derived cases above: the
/// automata of its formula take seconds to build, which the monitor does not need.
#[test]
fn generated_scoped_properties_at_a_deadlock_agree_with_their_formulas() {
    use labs::engine::{SimStatus, SimulateOptions, simulate};
    use labs::model::scoped::as_ltl;
    use labs::model::{Modality, Pattern};
    let (mut deadlocked, mut specs) = (0, 0);
    let seeds = if crate::tier::slow("generated specs 100 to 400, about 30 s") { 400 } else { 100 };
    for seed in 0..seeds {
        let g = crate::specgen::generate(seed);
        if !g.text.contains("between (") && !g.text.contains("from (") {
            continue;
        }
        let Ok((mut model, behs)) = crate::engine_common::load_text(&g.text, &g.externs) else { continue };
        let scoped: Vec<_> = model
            .properties
            .iter()
            .filter(|p| match &p.modality {
                Modality::Between { pattern, .. } | Modality::FromUntil { pattern, .. } => {
                    !matches!(pattern, Pattern::Precedes(_))
                }
                _ => false,
            })
            .cloned()
            .collect();
        let formulas = scoped.iter().map(|p| {
            let mut q = p.clone();
            let f = as_ltl(&p.modality, &p.pred).expect("a scoped property");
            q.name = format!("{}_as_ltl", p.name);
            q.pred = f.atoms()[0].clone();
            q.modality = Modality::Ltl(f);
            q
        });
        model.properties = scoped.iter().cloned().chain(formulas).collect();
        let n = scoped.len();
        let mut counted = false;
        for fair in [false, true] {
            let opts = SimulateOptions { fair, runs: 30, steps: 12, seed, ..Default::default() };
            // A run-time error in a step or a predicate: nothing to compare.
            let Ok(report) = simulate(&model, &behs, &opts) else { continue };
            for run in &report.runs {
                for (i, p) in scoped.iter().enumerate() {
                    let (a, b) = (run.properties[i].status, run.properties[n + i].status);
                    let what =
                        format!("seed {seed} (fair {fair}) {}: monitor {a:?}, formula {b:?}\n{}", p.name, g.text);
                    if run.deadlock {
                        assert!(a != SimStatus::Undecided && a == b, "{what}");
                        deadlocked += 1;
                        counted = true;
                    } else {
                        assert!(!(a == SimStatus::Violated && b == SimStatus::Satisfied), "{what}");
                        assert!(!(b == SimStatus::Violated && a == SimStatus::Satisfied), "{what}");
                    }
                }
            }
        }
        specs += counted as usize;
    }
    assert!(specs >= 8 && deadlocked >= 200, "{specs} specs, {deadlocked} deadlocked runs compared");
}
