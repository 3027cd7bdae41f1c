//! `verify --backend lnt` as it runs the emitted files (`lntcheck::files`): the files of `labs
//! emit` written into a directory, the workflow's SVL script executed from its text, each
//! `verify` statement's MCL query evaluated by `crate::mcl`, each counterexample translated,
//! replayed and required to show the violation (`trace::from_labels::counterexample`). The
//! native engine is the oracle: every property's verdict must be its verdict, on every
//! benchmark and example at small parameters and every semantics case, free and fair, both
//! workflows, both LNT dialects.
//!
//! Parameters: the smallest instances that still exercise what each spec is about (two or
//! three agents, messages to propagate and confirm, a violated property with a counterexample
//! where the spec has one). Each spec runs eight times (fair × workflow × dialect), in process;
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
use labs::cadp::WorkDir;
use labs::engine::Verdict;
use labs::lnt::{self, Dialect, EmitOptions, names, svl};
use labs::lntcheck::files::{self, RunOptions};
use labs::model::Model;
use labs::trace::from_labels;
use std::path::Path;

use fixtures::{BENCH, CASES, EXAMPLES};

/// Bound on each generated LTS: far above what these instances need, so that an encoding error
/// that blows a state space up fails the test instead of running on.
const MAX_STATES: u64 = 2_000_000;

/// Per property its verdict, and the problems found with the counterexamples.
type FilesOutcome = (Vec<(String, Verdict)>, Vec<String>);

/// Runs one workflow of the emitted files: per property its verdict, and what went wrong with
/// each counterexample (translated, replayed and checked to show the violation).
fn run_files(
    m: &Model,
    b: &[Behaviour],
    stem: &str,
    fair: bool,
    dialect: Dialect,
    monolithic: bool,
) -> Result<FilesOutcome, String> {
    let analysis = analyse(m, b);
    let base = names::module_name(stem);
    let opts = EmitOptions {
        fair,
        properties: vec![],
        dialect,
        dialect_reason: String::new(),
        base: base.clone(),
        source: stem.to_string(),
        usage: None,
    };
    let emitted = lnt::emit(m, b, &analysis, &opts).map_err(|e| e.message)?;
    let dir = WorkDir::temporary()?;
    lnt::write_files(dir.path(), &emitted).map_err(|(p, e)| format!("{}: {e}", p.display()))?;
    let script = svl::script_file(&base, monolithic);
    let evaluate = files::mcl_evaluator(Default::default());
    let run = files::run_script(
        dir.path(),
        &script,
        &RunOptions { max_states: Some(MAX_STATES), ..Default::default() },
        &evaluate,
    )
    .map_err(|e| format!("{script}: {e:?}"))?;
    let undef = lnt::domains::undef_value(m, &analysis);
    let selected: Vec<&labs::model::Property> = m.properties.iter().collect();
    let checks = svl::checks(m, &selected, &emitted, &base);
    let mut out = vec![];
    let mut bad = vec![];
    for v in &run.verifies {
        let kind = checks.iter().find(|(id, _)| *id == v.property).map(|(_, k)| k.clone()).ok_or("unknown check")?;
        let svl::CheckKind::Property(name) = kind else {
            // These specs meet no run-time error: every error check holds.
            if v.outcome.holds != v.expected {
                bad.push(format!("{}: a run-time error the native engine does not meet", v.property));
            }
            continue;
        };
        let prop = m.properties.iter().find(|p| p.name == name).ok_or("unknown property")?;
        let verdict = if v.outcome.holds == v.expected { Verdict::Holds } else { Verdict::Violated };
        if verdict == Verdict::Violated {
            match v.outcome.diagnostic.as_ref() {
                None => bad.push(format!("{}: no diagnostic", prop.name)),
                Some(path) => {
                    let observed = lnt::mcl::build(m, &analysis, prop).map_err(|e| e.message)?.vars;
                    if let Err(e) = from_labels::counterexample(m, b, fair, undef, path, &observed, prop) {
                        bad.push(format!("{} ({} on {}): the counterexample {e}", prop.name, v.mcl, v.bcg));
                    }
                }
            }
        }
        out.push((prop.name.clone(), verdict));
    }
    Ok((out, bad))
}

/// Both workflows (the compositional one only when the value analysis bounds every input of
/// the leaves), both dialects, free and fair: the native verdicts, and every counterexample
/// translated, replayed and showing the violation.
fn agree(path: &str, externs: &[&str]) {
    let (m, b) = load(path, externs);
    let stem = Path::new(path).file_stem().unwrap().to_string_lossy().into_owned();
    let bounded = files::unbounded_inputs(&analyse(&m, &b)).is_empty();
    for fair in [false, true] {
        let native = run(&m, &b, fair, 1).unwrap_or_else(|e| panic!("{path} {externs:?}: native: {e:?}"));
        let want: Vec<(String, Verdict)> = native.results.iter().map(|r| (r.property.clone(), r.verdict)).collect();
        for monolithic in [false, true] {
            if !monolithic && !bounded {
                continue;
            }
            for dialect in [Dialect::V2025, Dialect::V2023] {
                let what = format!("{stem} {externs:?} fair={fair} monolithic={monolithic} dialect={}", dialect.name());
                let (got, bad) =
                    run_files(&m, &b, &stem, fair, dialect, monolithic).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(got, want, "{what}");
                assert!(bad.is_empty(), "{what}: {bad:#?}");
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
        agree("line.labs", &["n=3", "size=5", "gap=2"]);
        agree("flocking.labs", &["birds=2", "grid=3", "delta=1"]);
    }
}

#[test]
fn benchmarks() {
    let agree = |p: &str, e: &[&str]| agree(&format!("{BENCH}/{p}"), e);
    agree("leader.labs", &["n=3"]);
    agree("philosophers.labs", &["n=3"]);
    if tier::slow("twophase, twophasecommit, formation and flock, about a minute") {
        agree("twophase.labs", &["workers=2"]);
        agree("twophasecommit.labs", &["workers=2"]);
        agree("formation.labs", &["n=2", "range=2", "size=3"]);
        agree("flock.labs", &["birds=2", "delta=1", "grid=3"]);
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
        if expect.contains("exit=") || fixtures::lnt_refuses(&f) {
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
