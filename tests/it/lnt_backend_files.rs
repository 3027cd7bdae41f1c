//! `verify --backend lnt` as users run it (`lntcheck::verify`): the files of `labs emit`
//! written into a directory, the workflow's SVL script executed from its text, each `verify`
//! statement's MCL query evaluated by `crate::mcl`, each counterexample translated, replayed
//! and required to show the violation. The
//! native engine is the oracle: every property's verdict must be its verdict, on every
//! benchmark and example at small parameters and every semantics case, free and fair, every
//! workflow (compositional, monolithic, on the fly), the newest and the oldest dialect.
//!
//! Parameters: the smallest instances that still exercise what each spec is about (two or
//! three agents, messages to propagate and confirm, a violated property with a counterexample
//! where the spec has one). Each spec runs twelve times (fair × workflow × dialect), in process;
//! the dialects give the same LTS (only the program's syntax differs), so they double the
//! parsing, not the state spaces. Larger instances belong to the benchmark, not to CI (2 cores,
//! 30 minutes for everything): the whole file takes about two minutes, so the default tier runs
//! the smaller specs and the slow tier (`tier`) the others.

use crate::fixtures;

use crate::engine_common;
use crate::tier;
use engine_common::*;
use labs::analysis::values::analyse;
use labs::behaviour::Behaviour;
use labs::engine::Verdict;
use labs::limits::Limits;
use labs::lnt::{Dialect, names};
use labs::lntcheck;
use labs::lts_backend::{Options, Workflow};
use labs::model::Model;
use std::path::Path;

use fixtures::{BENCH, CASES, EXAMPLES};

/// Bound on each generated LTS: far above what these instances need, so that an encoding error
/// that blows a state space up fails the test instead of running on.
const MAX_STATES: u64 = 2_000_000;

/// Runs one workflow of the emitted files as `labs verify --backend lnt` does
/// (`lntcheck::verify`): per property its verdict, with every counterexample translated,
/// replayed and checked to show the violation (a counterexample that fails is an error).
fn run_files(
    m: &Model,
    b: &[Behaviour],
    stem: &str,
    fair: bool,
    dialect: Dialect,
    workflow: Workflow,
) -> Result<Vec<(String, Verdict)>, String> {
    let opts = Options {
        fair,
        workflow,
        dialect: Some(dialect),
        limits: Limits::new(None, Some(MAX_STATES), None, None),
        base: names::module_name(stem),
        source: stem.to_string(),
        ..Default::default()
    };
    let report = lntcheck::verify(m, b, &analyse(m, b), &opts).map_err(|e| e.to_string())?;
    if !report.warnings.is_empty() {
        return Err(format!("{:?}", report.warnings));
    }
    if let Some(r) = report.verify.results.iter().find(|r| (r.verdict == Verdict::Violated) != r.trace.is_some()) {
        return Err(format!("{}: {:?} with a counterexample: {}", r.property, r.verdict, r.trace.is_some()));
    }
    if report.dialect != dialect || report.workflow != opts.workflow {
        return Err(format!("ran {:?} in {}", report.workflow, report.dialect.name()));
    }
    Ok(report.verify.results.iter().map(|r| (r.property.clone(), r.verdict)).collect())
}

/// Every workflow (the compositional one only when the value analysis bounds every input of
/// the leaves), both dialects, free and fair: the native verdicts, and every counterexample
/// translated, replayed and showing the violation.
fn agree(path: &str, externs: &[&str]) {
    agree_on(path, externs, &[Workflow::Compositional, Workflow::Monolithic, Workflow::OnTheFly]);
}

/// The workflows that generate whole LTSs.
const STORED_LTS: [Workflow; 2] = [Workflow::Compositional, Workflow::Monolithic];

/// `agree` on `workflows` only: the slow tier's larger instances leave out the on-the-fly
/// workflow, whose evaluation generates the program's LTS about 5,000 states a second and
/// meets every instance of the default tier and every semantics case.
fn agree_on(path: &str, externs: &[&str], workflows: &[Workflow]) {
    let (m, b) = load(path, externs);
    let stem = Path::new(path).file_stem().unwrap().to_string_lossy().into_owned();
    let bounded = labs::lts_backend::unbounded_inputs(&analyse(&m, &b)).is_empty();
    for fair in [false, true] {
        let native = run(&m, &b, fair, 1).unwrap_or_else(|e| panic!("{path} {externs:?}: native: {e:?}"));
        let want: Vec<(String, Verdict)> = native.results.iter().map(|r| (r.property.clone(), r.verdict)).collect();
        for &workflow in workflows {
            if workflow == Workflow::Compositional && !bounded {
                continue;
            }
            // the newest forms (`x?`, `...`, SVL's `|=`, `evaluator`, `-main`) and the oldest
            for dialect in [Dialect::V2026, Dialect::V2023] {
                let what = format!("{stem} {externs:?} fair={fair} {workflow:?} dialect={}", dialect.name());
                let got = run_files(&m, &b, &stem, fair, dialect, workflow).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(got, want, "{what}");
            }
        }
    }
}

#[test]
fn examples() {
    let agree = |p: &str, e: &[&str]| agree(&format!("{EXAMPLES}/{p}"), e);
    agree("counter.labs", &["n=2", "atomic=0"]);
    agree("leader.labs", &["n=3"]);
    agree("philosophers.labs", &["n=3", "asym=0"]);
    agree("twophase.labs", &["workers=2"]);
    agree("majority.labs", &["yes=1", "no=2"]);
    if tier::slow("line and flocking, about 20 s") {
        let larger = |p: &str, e: &[&str]| agree_on(&format!("{EXAMPLES}/{p}"), e, &STORED_LTS);
        larger("line.labs", &["n=3", "size=5", "gap=2"]);
        larger("flocking.labs", &["birds=2", "grid=3", "delta=1"]);
    }
}

#[test]
fn benchmarks() {
    let agree = |p: &str, e: &[&str]| agree(&format!("{BENCH}/{p}"), e);
    agree("leader.labs", &["n=3"]);
    agree("philosophers.labs", &["n=3"]);
    if tier::slow("twophase, twophasecommit, formation and flock, about a minute") {
        let larger = |p: &str, e: &[&str]| agree_on(&format!("{BENCH}/{p}"), e, &STORED_LTS);
        larger("twophase.labs", &["workers=2"]);
        larger("twophasecommit.labs", &["workers=2"]);
        larger("formation.labs", &["n=2", "range=2", "size=3"]);
        larger("flock.labs", &["birds=2", "delta=1", "grid=3"]);
    }
}

/// Every semantics case with the externs of its `# case:` line (free and fair whatever its
/// flags say); the cases that must stop with an error (`exit=`) have no verdicts to compare.
#[test]
fn semantics_cases() {
    let mut ran = 0;
    for f in fixtures::labs_files(&fixtures::cases()) {
        let text = std::fs::read_to_string(&f).unwrap();
        let line = text.lines().find_map(|l| l.strip_prefix("# case:")).unwrap_or_else(|| panic!("{}", f.display()));
        let (args, expect) = line.split_once("=>").unwrap();
        if expect.contains("exit=") {
            continue;
        }
        if f.ends_with("zc_mentions.labs") && !tier::slow("zc_mentions.labs, about 20 s") {
            continue;
        }
        let externs: Vec<&str> = args.split_whitespace().filter(|a| !a.starts_with("--")).collect();
        agree(&format!("{CASES}/{}", f.file_name().unwrap().to_string_lossy()), &externs);
        ran += 1;
    }
    assert!(ran >= 20, "only {ran} semantics cases ran");
}

/// The on-the-fly workflow stops with the verdict: leader n=7's `LeaderNot0` is violated a few
/// steps from the initial state, and the states it generates of the program's LTS are far fewer
/// than the LAbS states of the whole system (each of which is a state of that LTS, reached by
/// `DONE`). The counterexample replays (the CLI checks it before printing it).
#[test]
fn on_the_fly_stops_early() {
    let spec = format!("{BENCH}/leader.labs");
    let run = |extra: &[&str]| {
        let o = fixtures::labs_command()
            .args(["verify", &spec, "n=7", "--property", "LeaderNot0", "--json", "-q"])
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(10), "{extra:?}: {}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    let whole = run(&["--exhaustive", "--no-reduction"])["stats"]["states"].as_u64().unwrap();
    // The bound makes an evaluation that does not stop fail at once instead of running on.
    let doc = run(&["--backend", "lnt", "--workflow", "on-the-fly", "--max-states", "200000"]);
    let r = &doc["results"][0];
    assert_eq!(r["verdict"], "violated");
    assert!(r["trace"].is_object(), "{doc}");
    assert_eq!(r["lts"]["file"], "leader.lnt");
    let generated = r["lts"]["states"].as_u64().unwrap();
    assert!(generated * 10 < whole, "{generated} states generated, {whole} LAbS states in all");
}

/// Long phases report their progress through `Options::phase_progress` (the CLI shows it on
/// stderr): the monolithic generation of philosophers n=4's `MAIN` (10,282 states) reports
/// every 8,192 new states, naming the LTS it generates, with counts that grow.
#[test]
fn long_phases_report_progress() {
    use std::sync::{Arc, Mutex};
    let (m, b) = load(&format!("{BENCH}/philosophers.labs"), &["n=4"]);
    let seen: Arc<Mutex<Vec<labs::lts_backend::PhaseProgress>>> = Arc::default();
    let sink = seen.clone();
    let opts = Options {
        workflow: Workflow::Monolithic,
        limits: Limits::new(None, Some(MAX_STATES), None, None),
        base: "philosophers".into(),
        source: "philosophers.labs".into(),
        phase_progress: Some(Arc::new(move |p: &labs::lts_backend::PhaseProgress| {
            sink.lock().unwrap().push(p.clone())
        })),
        ..Default::default()
    };
    lntcheck::verify(&m, &b, &analyse(&m, &b), &opts).unwrap();
    let seen = seen.lock().unwrap();
    let generation: Vec<_> = seen.iter().filter(|p| p.phase == "generating philosophers_mono.bcg").collect();
    assert!(!generation.is_empty(), "{seen:?}");
    assert!(generation.iter().all(|p| p.states >= 8192 && p.states <= 10_282 && p.transitions > 0), "{seen:?}");
    assert!(generation.windows(2).all(|w| w[0].states < w[1].states && w[0].seconds <= w[1].seconds), "{seen:?}");
}
