//! `translate-trace`: label paths of the LNT program (as CADP would print them) turned back into
//! LAbS traces by replaying them in the native engine.
//!
//! The label paths come from the LNT interpreter (`lntcheck`), not from the native engine: for
//! every property the `lnt` back end finds violated, its counterexample is read off the LNT LTS
//! as the labels CADP would show (only `DONE` and the property's observation gates visible),
//! written as Executor output or as an `.aut` lasso, parsed, translated, replayed by the
//! independent checker, and must show the violation.

use crate::fixtures;

use crate::engine_common;
use crate::lnt_paths;
use engine_common::*;
use labs::analysis::values::analyse;
use labs::behaviour::Behaviour;
use labs::engine::Verdict;
use labs::lnt::{Dialect, domains::undef_value, mcl, names::obs_gate};
use labs::lntcheck::backend::{check_properties, emit_lnt, explore};
use labs::model::Model;
use labs::trace::cadp::parse_trace;
use labs::trace::from_labels::{Shows, translate};
use labs::trace::{ReplayError, TranslateError, from_labels, replay};
use lnt_paths::{aut_text, executor_text, lts_labels};
use std::collections::BTreeSet;

use fixtures::EXAMPLES;

fn case(path: &str, externs: &[&str], fair: bool) -> (usize, usize) {
    let (m, b) = load(path, externs);
    let analysis = analyse(&m, &b);
    let undef = undef_value(&m, &analysis);
    let src = emit_lnt(&m, &b, &analysis, "spec", fair, Dialect::FALLBACK).unwrap();
    let view = explore(&m, &src, fair, Some(2_000_000)).unwrap();
    let results = check_properties(&m, &b, fair, &view).unwrap();
    let mut translated = 0;
    let mut lassos = 0;
    for r in results.iter().filter(|r| r.verdict == Verdict::Violated) {
        let prop = m.properties.iter().find(|p| p.name == r.property).unwrap();
        let observed = mcl::build(&m, &analysis, prop).unwrap().vars;
        let keep: BTreeSet<String> = observed.iter().map(|&v| obs_gate(&m, v)).collect();
        let lpath = r.path.as_ref().unwrap();
        let labels = lts_labels(&view, lpath, &keep);
        let what = format!("{path} {externs:?} fair={fair} {}", r.property);
        let text = match r.loop_start {
            // The lasso closes on the LTS state of the loop's first LAbS state.
            Some(k) => aut_text(&labels, Some(view.real[lpath[k] as usize])),
            None => executor_text(&labels, r.deadlock),
        };
        let lp = parse_trace(&text).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
        let t = translate(&m, &b, fair, undef, &lp, Some(&observed)).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
        replay(&m, &b, &t.trace).unwrap_or_else(|e| panic!("{what}: replay: {e}"));
        assert_eq!(t.trace.len() + 1, lpath.len(), "{what}: one LAbS step per DONE after the first");
        assert_eq!(t.trace.loop_start.is_some(), r.loop_start.is_some(), "{what}");
        let shown = from_labels::shows(&m, &b, &t.trace, prop).unwrap();
        if matches!(prop.modality, labs::model::Modality::Always | labs::model::Modality::Finally) {
            assert!(matches!(shown, Shows::Violation { .. }), "{what}: the translated trace shows {shown:?}\n{text}");
        }
        translated += 1;
        lassos += usize::from(t.trace.loop_start.is_some());
    }
    (translated, lassos)
}

fn total(cases: &[(String, Vec<&str>)]) -> (usize, usize) {
    let (mut n, mut l) = (0, 0);
    for (p, e) in cases {
        for fair in [false, true] {
            let (a, b) = case(p, e, fair);
            n += a;
            l += b;
        }
    }
    (n, l)
}

#[test]
fn lnt_counterexamples_translate_to_violating_labs_traces() {
    let cases: Vec<(String, Vec<&str>)> = vec![
        (format!("{EXAMPLES}/counter.labs"), vec!["n=2", "atomic=0"]),
        (format!("{EXAMPLES}/leader.labs"), vec!["n=3"]),
        (format!("{EXAMPLES}/philosophers.labs"), vec!["n=3", "asym=0"]),
        (format!("{EXAMPLES}/twophase.labs"), vec!["workers=2"]),
        (format!("{EXAMPLES}/majority.labs"), vec!["yes=1", "no=2"]),
        (format!("{EXAMPLES}/line.labs"), vec!["n=3", "size=5", "gap=2"]),
        (format!("{BENCH}/leader.labs"), vec!["n=3"]),
        (format!("{BENCH}/formation.labs"), vec!["n=2", "range=2", "size=3"]),
    ];
    // Counterexamples exist (deadlocks, lassos and invariant violations among them).
    let (n, lassos) = total(&cases);
    eprintln!("{n} counterexamples translated, {lassos} of them lassos");
    assert!(n >= 8 && lassos >= 1, "{n} counterexamples, {lassos} lassos");
}

fn counter() -> (Model, Vec<Behaviour>) {
    load(&format!("{EXAMPLES}/counter.labs"), &["n=2", "atomic=0"])
}

#[test]
fn a_path_the_model_cannot_take_is_refused() {
    let (m, b) = counter();
    let undef = undef_value(&m, &analyse(&m, &b));
    // c can go 0 -> 1 -> 2, never 0 -> 2 in one step.
    let text = "<initial state>\n\"E_C !0 !0\"\n\"DONE\"\n\"E_C !0 !2\"\n\"DONE\"\n<goal state>\n";
    let e = translate(&m, &b, false, undef, &parse_trace(text).unwrap(), None).unwrap_err();
    assert_eq!(e, TranslateError::Unmatched { step: Some(1), fair: false });
    assert!(e.to_string().contains("step 1 of the path cannot be matched"), "{e}");
    // Without DONE nothing can be said.
    let e = translate(&m, &b, false, undef, &parse_trace("\"E_C !0 !0\"\n").unwrap(), None).unwrap_err();
    assert_eq!(e, TranslateError::NoDone);
    // A deadlock claimed too early: after both reads and one write, the other write is enabled.
    let text = "<initial state>\n\"E_C !0 !0\"\n\"DONE\"\n\"DONE\"\n\"DONE\"\n\"E_C !0 !1\"\n\"DONE\"\n<deadlock>\n";
    let e = translate(&m, &b, false, undef, &parse_trace(text).unwrap(), None).unwrap_err();
    assert_eq!(e, TranslateError::Unmatched { step: None, fair: false });
    assert!(e.to_string().contains("end of the path"), "{e}");
}

#[test]
fn the_lost_update_by_hand() {
    // Hand-written from counter.labs's derivation: S0 -R-> -R-> -W-> c=1 -W-> c=1 (S11).
    let (m, b) = counter();
    let undef = undef_value(&m, &analyse(&m, &b));
    let text =
        "<initial state>\n\"E_C !0 !0\"\n\"DONE\"\n\"DONE\"\n\"DONE\"\n\"E_C !0 !1\"\n\"DONE\"\n\"DONE\"\n<deadlock>\n";
    let t = translate(&m, &b, false, undef, &parse_trace(text).unwrap(), None).unwrap();
    replay(&m, &b, &t.trace).unwrap();
    assert_eq!(t.trace.len(), 4);
    assert!(t.trace.ends_in_deadlock);
    let c = m.vars.iter().position(|v| v.name == "c").unwrap();
    assert_eq!(t.trace.last()[m.vars[c].offset], 1, "the lost update leaves c = 1");
    let all_counted = m.properties.iter().find(|p| p.name == "AllCounted").unwrap();
    assert_eq!(from_labels::shows(&m, &b, &t.trace, all_counted).unwrap(), Shows::Violation { at: 4 });
    let never_too_many = m.properties.iter().find(|p| p.name == "NeverTooMany").unwrap();
    assert_eq!(from_labels::shows(&m, &b, &t.trace, never_too_many).unwrap(), Shows::NoViolation);
}

/// The check the CLI runs on every trace it shows: a native counterexample passes, the same
/// trace with one value changed in its last state is refused, naming the trace.
#[test]
fn replay_all_names_the_trace_that_does_not_replay() {
    let (m, b) = load(&format!("{EXAMPLES}/leader.labs"), &["n=3"]);
    let r = run(&m, &b, false, 1).unwrap();
    let t = r.results.iter().find_map(|x| x.trace.clone()).expect("leader n=3 has a counterexample");
    assert!(!t.steps.is_empty());
    let name = || "counterexample for P".to_string();
    labs::trace::replay_all(&m, &b, [(name(), &t)]).expect("a native counterexample replays");
    let mut bad = t.clone();
    let last = bad.steps.len() - 1;
    bad.steps[last].state[0] += 1;
    let e = labs::trace::replay_all(&m, &b, [(name(), &t), (name(), &bad)]).unwrap_err();
    assert_eq!((e.name.as_str(), &e.error), ("counterexample for P", &ReplayError::NotSuccessor { step: last + 1 }));
    assert!(e.to_string().starts_with("the counterexample for P does not replay"), "{e}");
}

/// `SimulateOptions::check` sees every finished run, in order, and a refusal ends the
/// simulation with an internal error naming the run; the replay itself accepts every run.
#[test]
fn each_simulation_run_is_checked_as_it_ends() {
    use labs::engine::{RunCheck, SimulateOptions, simulate};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let (m, b) = load(&format!("{EXAMPLES}/leader.labs"), &["n=3"]);
    let seen = Arc::new(AtomicUsize::new(0));
    let s = seen.clone();
    let refuse_second = RunCheck(Arc::new(move |_| {
        if s.fetch_add(1, Ordering::SeqCst) == 1 {
            Err(Arc::new(std::io::Error::other("refused")) as _)
        } else {
            Ok(())
        }
    }));
    let opts = SimulateOptions { runs: 3, steps: 10, check: Some(refuse_second), ..Default::default() };
    let e = simulate(&m, &b, &opts).unwrap_err().to_string();
    assert!(e.contains("the trace of run 2 failed its check: refused"), "{e}");
    assert_eq!(seen.load(Ordering::SeqCst), 2, "the third run is not drawn");
    let (m2, b2) = (m.clone(), b.clone());
    let replay_check = RunCheck(Arc::new(move |t| replay(&m2, &b2, t).map_err(|e| Arc::new(e) as _)));
    let opts = SimulateOptions { runs: 5, steps: 30, check: Some(replay_check), ..Default::default() };
    assert_eq!(simulate(&m, &b, &opts).expect("every run replays").runs.len(), 5);
}

/// The library type every back end's counterexample goes through (`trace::checked`): the lost
/// update by hand is a counterexample of `AllCounted` (a `finally` violated by a deadlock,
/// marked after its last state as native counterexamples are), not of `NeverTooMany`, and a
/// path the model cannot take is refused before any property is looked at.
#[test]
fn label_reader_checks_counterexamples() {
    use labs::trace::checked::LabelReader;
    use labs::trace::from_labels::CounterexampleError;
    let (m, b) = counter();
    let analysis = analyse(&m, &b);
    let reader = LabelReader::new(&m, &b, &analysis, false);
    let text =
        "<initial state>\n\"E_C !0 !0\"\n\"DONE\"\n\"DONE\"\n\"DONE\"\n\"E_C !0 !1\"\n\"DONE\"\n\"DONE\"\n<deadlock>\n";
    let path = parse_trace(text).unwrap();
    let all_counted = m.properties.iter().find(|p| p.name == "AllCounted").unwrap();
    let c = reader.counterexample(&path, all_counted).unwrap();
    assert_eq!(c.trace().len(), 4);
    assert!(c.trace().ends_in_deadlock);
    let marks: Vec<(usize, &str, &str)> =
        c.trace().marks.iter().map(|k| (k.at, k.property.as_str(), k.status.as_str())).collect();
    assert_eq!(marks, [(4, "AllCounted", "violated")]);
    let never_too_many = m.properties.iter().find(|p| p.name == "NeverTooMany").unwrap();
    let e = reader.counterexample(&path, never_too_many).unwrap_err();
    assert_eq!(e, CounterexampleError::NoViolation { property: "NeverTooMany".into(), modality: "always".into() });
    let unchecked = reader.check(&path, None, None).unwrap();
    assert_eq!((unchecked.translated.trace.len(), unchecked.shows), (4, None));
    let impossible = parse_trace("<initial state>\n\"E_C !0 !0\"\n\"DONE\"\n\"E_C !0 !2\"\n\"DONE\"\n").unwrap();
    let e = reader.counterexample(&impossible, all_counted).unwrap_err();
    assert!(matches!(e, CounterexampleError::Untranslatable(_)), "{e:?}");
}
