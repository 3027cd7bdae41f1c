//! `translate-trace`: label paths of the LNT program (as CADP would print them) turned back into
//! LAbS traces by replaying them in the native engine.
//!
//! The label paths come from the LNT interpreter (`lntcheck`), not from the native engine: for
//! every property the `lnt` back end finds violated, its counterexample is read off the LNT LTS
//! as the labels CADP would show (only `DONE` and the property's observation gates visible),
//! written as Executor output or as an `.aut` lasso, parsed, translated, replayed by the
//! independent checker, and must show the violation.

mod engine_common;
use engine_common::*;
use labs::analysis::values::analyse;
use labs::behaviour::Behaviour;
use labs::engine::Verdict;
use labs::lnt::{Dialect, mcl, names::obs_gate, view::undef_value};
use labs::lntcheck::backend::{LabsView, check_properties, emit_lnt, explore};
use labs::lntcheck::lts::Lts;
use labs::lntcheck::paths::step_path;
use labs::model::Model;
use labs::trace::cadp::parse_trace;
use labs::trace::from_labels::{Shows, translate};
use labs::trace::{from_labels, replay};
use std::collections::{BTreeSet, HashMap};

const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples");

/// The visible labels CADP would print for the LAbS path `path` of the view (every gate but
/// `DONE` and `keep` hidden), as `(label, target LTS state)`.
fn lts_labels(v: &LabsView, path: &[u32], keep: &BTreeSet<String>) -> Vec<(String, u32)> {
    let adj = v.lts.adjacency();
    let mut out = vec![];
    let mut from = 0;
    for &x in path {
        let to = v.real[x as usize];
        out.extend(step_path(v, &adj, from, to).unwrap());
        from = to;
    }
    out.into_iter()
        .map(|(l, t)| if l == "DONE" || keep.contains(Lts::gate(&l)) { (l, t) } else { ("i".into(), t) })
        .collect()
}

fn executor_text(labels: &[(String, u32)], deadlock: bool) -> String {
    let mut s = String::from("lnt.open: running ``executor 100 2''\n<initial state>\n");
    for (l, _) in labels {
        if l != "i" {
            s += &format!("\"{l}\"\n");
        }
    }
    s += if deadlock { "<deadlock>\n" } else { "<goal state>\n" };
    s
}

/// The path as an `.aut` file; with `loop_target` (an LTS state), the last transition goes back
/// to the `.aut` state of that LTS state (a lasso).
fn aut_text(labels: &[(String, u32)], loop_target: Option<u32>) -> String {
    // .aut state of each LTS state on the path (state i + 1 is reached by transition i).
    let mut ids: HashMap<u32, usize> = HashMap::from([(0, 0)]);
    let mut lines = vec![];
    for (i, (l, t)) in labels.iter().enumerate() {
        let to = match loop_target {
            Some(target) if i + 1 == labels.len() => ids[&target],
            _ => i + 1,
        };
        ids.entry(*t).or_insert(to);
        lines.push(format!("({i}, \"{l}\", {to})"));
    }
    format!("des (0, {}, {})\n{}\n", lines.len(), lines.len() + 1, lines.join("\n"))
}

fn case(path: &str, externs: &[&str], fair: bool) -> (usize, usize) {
    let (m, b) = load(path, externs);
    let analysis = analyse(&m, &b);
    let undef = undef_value(&m, &analysis);
    let src = emit_lnt(&m, &b, &analysis, "spec", fair, Dialect::CURRENT).unwrap();
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
    assert!(e.contains("step 1 of the path cannot be matched"), "{e}");
    // Without DONE nothing can be said.
    let e = translate(&m, &b, false, undef, &parse_trace("\"E_C !0 !0\"\n").unwrap(), None).unwrap_err();
    assert!(e.contains("no `DONE`"), "{e}");
    // A deadlock claimed too early: after both reads and one write, the other write is enabled.
    let text = "<initial state>\n\"E_C !0 !0\"\n\"DONE\"\n\"DONE\"\n\"DONE\"\n\"E_C !0 !1\"\n\"DONE\"\n<deadlock>\n";
    let e = translate(&m, &b, false, undef, &parse_trace(text).unwrap(), None).unwrap_err();
    assert!(e.contains("end of the path"), "{e}");
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
