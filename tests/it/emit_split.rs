//! `labs emit --split` (issue 24): the compositional script split into one job per leaf and one
//! per property, with a Makefile. The files of a small spec are snapshots (reviewed by hand:
//! each leaf job reduces one instance of the single script's block, with that block's hides
//! and `hold` gates; each property job composes the leaves' files as the block composes the
//! instances); and labs's own SVL interpreter, running the jobs in the Makefile's order, each
//! in its own directory as the Makefile prepares it, gives the single script's verdicts.

use crate::fixtures;
use crate::scratch;

use labs::cadp::split::{self, Job};
use labs::lntcheck::files::{RunOptions, mcl_evaluator, run_script};
use scratch::Scratch;
use std::path::Path;

fn emit_split(spec: &str, externs: &[&str], out: &Path) {
    let o = fixtures::labs_command()
        .arg("emit")
        .arg(spec)
        .args(externs)
        .args(["--split", "--lnt-dialect", "2025", "-o"])
        .arg(out)
        .output()
        .expect("run labs");
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
}

/// The jobs in the order of the Makefile's rules (`NAME/TARGET: …`).
fn makefile_order(makefile: &str) -> Vec<String> {
    makefile
        .lines()
        .filter(|l| !l.starts_with('\t') && !l.starts_with('#') && !l.starts_with('.'))
        .filter_map(|l| l.split_once('/').filter(|(_, rest)| rest.contains(": ")).map(|(j, _)| j.to_string()))
        .collect()
}

#[test]
fn the_split_files_of_a_small_spec() {
    let out = Scratch::path("split-snap", "out");
    emit_split(&fixtures::path_str("examples/leader.labs"), &["n=2"], &out);
    let mut names: Vec<String> = std::fs::read_dir(&*out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n == "Makefile" || n.contains("_leaf_") || n.contains("_prop_"))
        .collect();
    names.sort();
    // Timestamps and the two agents, each with the same hides in all four properties
    // (leader's queries all read L_LEADER), hence three leaf jobs; one job per property.
    assert_eq!(names.iter().filter(|n| n.contains("_leaf_")).count(), 3, "{names:?}");
    assert_eq!(names.iter().filter(|n| n.contains("_prop_")).count(), 4, "{names:?}");
    for n in &names {
        let text = std::fs::read_to_string(out.join(n)).unwrap();
        insta::assert_snapshot!(format!("emit_split_leader_{n}"), text);
    }
}

#[test]
fn the_jobs_in_makefile_order_give_the_single_scripts_verdicts() {
    let instances: &[(&str, &[&str])] = &[
        ("examples/leader.labs", &["n=2"]),
        ("examples/philosophers.labs", &["n=3", "asym=0"]),
        ("examples/majority.labs", &["yes=1", "no=2"]),
        ("tests/specs/majority_pick.labs", &[]),
    ];
    for (spec, externs) in instances {
        let out = Scratch::path("split-run", "out");
        emit_split(&fixtures::path_str(spec), externs, &out);
        let stem = Path::new(spec).file_stem().unwrap().to_str().unwrap().to_string();
        let evaluate = mcl_evaluator(Default::default());
        let single = run_script(&out, &format!("{stem}.svl"), &RunOptions::default(), &evaluate)
            .unwrap_or_else(|e| panic!("{spec}: {e:?}"));
        let text = std::fs::read_to_string(out.join(format!("{stem}.svl"))).unwrap();
        let plan = split::split(&stem, &format!("{stem}.svl"), &text).unwrap();
        let makefile = std::fs::read_to_string(out.join("Makefile")).unwrap();
        let order: Vec<String> = plan.jobs().map(|j| j.name.clone()).collect();
        assert_eq!(makefile_order(&makefile), order, "{spec}: the Makefile runs the jobs in another order");
        let jobs: Vec<&Job> = plan.jobs().collect();
        let opts = RunOptions { write_aut: true, ..Default::default() };
        let mut verdicts = vec![];
        for job in jobs {
            let dir = split::prepare(&out, job).unwrap_or_else(|e| panic!("{spec}: {}: {e}", job.name));
            let run = run_script(&dir, Job::SCRIPT, &opts, &evaluate).unwrap_or_else(|e| panic!("{}: {e:?}", job.name));
            match &job.property {
                Some((p, _)) => {
                    assert_eq!(run.verifies.len(), 1, "{}", job.name);
                    verdicts.push((p.clone(), run.verifies[0].outcome.holds));
                }
                None => assert!(dir.join(format!("{}.aut", job.name)).is_file(), "{}: no LTS written", job.name),
            }
        }
        let expected: Vec<(String, bool)> =
            single.verifies.iter().map(|v| (v.property.clone(), v.outcome.holds)).collect();
        assert_eq!(verdicts, expected, "{spec}");
        // Not all true or all false: the comparison can tell verdicts apart.
        if *spec == "examples/leader.labs" {
            assert!(expected.iter().any(|v| v.1) && expected.iter().any(|v| !v.1), "{expected:?}");
        }
    }
}

#[test]
fn each_property_job_quotes_its_property() {
    let out = Scratch::path("split-text", "out");
    emit_split(&fixtures::path_str("examples/leader.labs"), &["n=2"], &out);
    // The property lines of the spec's check section, as the single script quotes them.
    let spec = fixtures::read("examples/leader.labs");
    let mut seen = 0;
    for line in spec.lines().map(str::trim) {
        let Some((name, text)) = line.split_once(" = ") else { continue };
        let job = out.join(format!("leader_prop_{name}.svl"));
        let Ok(script) = std::fs::read_to_string(&job) else { continue };
        let text = text.split('#').next().unwrap().trim();
        assert!(script.contains(&format!("(* property {name}: {text} *)")), "{}:\n{script}", job.display());
        seen += 1;
    }
    assert_eq!(seen, 4, "leader.labs has four properties");
}
