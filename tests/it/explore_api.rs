//! `labs explore`'s API, called in the process (no network): the enabled steps it lists are
//! the engine's successors, rendered in the trace JSON form with the history's timestamps;
//! taking a counterexample's steps one by one reaches its violation, judged by the page's
//! own marks (not the loaded trace's).

use crate::engine_common::load;
use crate::fixtures;
use labs::behaviour::Behaviour;
use labs::engine::step::{Stepper, Work};
use labs::engine::{Verdict, VerifyOptions, verify};
use labs::explore::{Api, Session, Setup};
use labs::model::Model;
use labs::trace::{Trace, TraceStep, to_json};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

fn new_api<'m>(model: &'m Model, behs: &'m [Behaviour], fair: bool, source: &str) -> Api<'m> {
    let session = Session::new(model, behs, fair).expect("an initial state");
    Api::new(
        session,
        Setup {
            spec_name: "spec.labs".into(),
            source: source.to_string(),
            trace_file: None,
            view: None,
            version: "test".into(),
            stop: Arc::new(AtomicBool::new(false)),
        },
    )
}

fn call(api: &mut Api, method: &str, path: &str, body: Value) -> (u16, Value) {
    let r = api.handle(method, path, body.to_string().as_bytes());
    let v: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
    (r.status, v)
}

fn ok(api: &mut Api, method: &str, path: &str, body: Value) -> Value {
    let (status, v) = call(api, method, path, body);
    assert_eq!(status, 200, "{method} {path}: {v}");
    v
}

/// The last step of `t` (or its initial state) in the JSON form `to_json` gives.
fn last_json(model: &Model, behs: &[Behaviour], t: &Trace) -> (Option<Value>, Value) {
    let j = serde_json::to_value(to_json(model, behs, t)).unwrap();
    match j["steps"].as_array().and_then(|s| s.last()) {
        Some(step) => (Some(step["event"].clone()), step["state"].clone()),
        None => (None, j["initial"].clone()),
    }
}

/// The `# case:` lines of an example: its externs and whether it is `--fair`.
fn cases(path: &str) -> Vec<(Vec<String>, bool)> {
    let src = std::fs::read_to_string(path).unwrap();
    src.lines()
        .filter_map(|l| l.trim_start_matches('#').trim().strip_prefix("case:"))
        .map(|c| {
            let before = c.split("=>").next().unwrap_or("");
            let words: Vec<String> = before.split_whitespace().map(String::from).collect();
            let fair = words.iter().any(|w| w == "--fair");
            (words.into_iter().filter(|w| !w.starts_with("--")).collect(), fair)
        })
        .collect()
}

/// Along 50 steps of every example (each case, free and fair as its `# case:` lines say), the
/// page's state is the trace's, and its enabled steps are exactly the engine's successors of
/// that state, in the engine's order, each with the event and state `to_json` renders.
#[test]
fn enabled_steps_are_the_engines_successors_along_every_example() {
    let mut checked_states = 0;
    let mut files = 0;
    for path in fixtures::labs_files(&fixtures::examples()) {
        let path = path.display().to_string();
        let source = std::fs::read_to_string(&path).unwrap();
        files += 1;
        for (externs, fair) in cases(&path) {
            let ext: Vec<&str> = externs.iter().map(String::as_str).collect();
            let (model, behs) = load(&path, &ext);
            let stepper = Stepper::new(&model, &behs, fair);
            let mut api = new_api(&model, &behs, fair, &source);
            let first = stepper.initial_states().unwrap().remove(0);
            let mut t =
                Trace { fair, initial: first, steps: vec![], loop_start: None, ends_in_deadlock: false, marks: vec![] };
            let mut w = Work::default();
            for k in 0..50 {
                let doc = ok(&mut api, "GET", "/api/state", Value::Null);
                let (_, state) = last_json(&model, &behs, &t);
                assert_eq!(doc["state"], state, "{path} {externs:?}: state {k}");
                assert_eq!(doc["cursor"], k);
                let mut succ = vec![];
                stepper.successors(t.last(), &mut w, true, &mut |e, s| succ.push((e.unwrap(), s.to_vec()))).unwrap();
                let enabled = doc["enabled"].as_array().unwrap();
                assert_eq!(enabled.len(), succ.len(), "{path} {externs:?}: state {k}");
                for (i, (ev, st)) in succ.iter().enumerate() {
                    let mut next = t.clone();
                    next.steps.push(TraceStep { event: ev.clone(), state: st.clone() });
                    let (event, state) = last_json(&model, &behs, &next);
                    assert_eq!(enabled[i]["event"], event.unwrap(), "{path}: state {k}, step {i}");
                    assert_eq!(enabled[i]["state"], state, "{path}: state {k}, step {i}");
                    assert_eq!(enabled[i]["index"], i);
                }
                checked_states += 1;
                if succ.is_empty() {
                    break;
                }
                // A reproducible walk that does not always take the first step.
                let pick = (k * 7 + 3) % succ.len();
                let doc = ok(&mut api, "POST", "/api/step", json!({"rev": doc["rev"], "index": pick}));
                assert_eq!(doc["length"], k + 1);
                let (ev, st) = succ.swap_remove(pick);
                t.steps.push(TraceStep { event: ev, state: st });
            }
        }
    }
    assert!(files >= 7, "{files} examples");
    assert!(checked_states > 300, "{checked_states} states checked");
}

/// Every counterexample of every example's first case, loaded, then taken again step by
/// step from its initial state through the enabled steps: the page's own marks find the
/// violation (an `always` at its state, a `finally` or linear-time one on the loop or the
/// deadlock the steps end in).
#[test]
fn taking_a_counterexamples_steps_reaches_its_violation() {
    let mut shown = 0;
    for path in fixtures::labs_files(&fixtures::examples()) {
        let path = path.display().to_string();
        let source = std::fs::read_to_string(&path).unwrap();
        let (externs, fair) = cases(&path).remove(0);
        let ext: Vec<&str> = externs.iter().map(String::as_str).collect();
        let (model, behs) = load(&path, &ext);
        let report = verify(&model, &behs, &VerifyOptions { fair, threads: 1, ..Default::default() }).unwrap();
        for r in &report.results {
            let Some(cex) = &r.trace else { continue };
            assert_eq!(r.verdict, Verdict::Violated);
            let p = model.properties.iter().find(|p| p.name == r.property).unwrap();
            if matches!(p.keyword.as_str(), "fairly" | "fairly_inf") {
                continue; // one path cannot show these
            }
            let mut api = new_api(&model, &behs, fair, &source);
            let doc = serde_json::to_value(to_json(&model, &behs, cex)).unwrap();
            let loaded = ok(&mut api, "POST", "/api/load", json!({"json": json!({"trace": doc}).to_string()}));
            assert_eq!(loaded["length"], cex.len());
            assert_eq!(loaded["origin"]["intact"], true);
            let view = ok(&mut api, "POST", "/api/goto", json!({"at": 0}));
            if let Some(first) = doc["steps"].get(0) {
                // The loaded trace's next step is marked; taking it keeps the trace.
                let pick = view["enabled"].as_array().unwrap().iter().position(|s| s["event"] == first["event"]);
                assert_eq!(view["next_in_history"], json!(pick), "{path} {}", r.property);
                let on = ok(&mut api, "POST", "/api/step", json!({"rev": view["rev"], "index": pick}));
                assert_eq!(
                    (on["cursor"].as_u64(), on["length"].as_u64(), on["origin"]["intact"].as_bool()),
                    (Some(1), Some(cex.len() as u64), Some(true))
                );
            }
            // Taken anew from its initial state alone, judged by the page's own marks.
            let mut start = doc.clone();
            start["steps"] = json!([]);
            start["loop_start"] = Value::Null;
            start["ends_in_deadlock"] = json!(false);
            start["marks"] = json!([]);
            let mut view = ok(&mut api, "POST", "/api/load", json!({"json": json!({"trace": start}).to_string()}));
            assert_eq!(view["length"], 0);
            for i in 0..cex.len() {
                let target = &doc["steps"][i];
                let enabled = view["enabled"].as_array().unwrap();
                let pick = enabled
                    .iter()
                    .position(|s| s["state"] == target["state"] && s["event"] == target["event"])
                    .unwrap_or_else(|| panic!("{path} {}: step {} is not enabled", r.property, i + 1));
                view = ok(&mut api, "POST", "/api/step", json!({"rev": view["rev"], "index": pick}));
            }
            // (A counterexample of no step is its initial state: nothing to take anew.)
            assert_eq!(view["origin"]["intact"], cex.is_empty(), "the steps were taken anew");
            assert_eq!(view["length"], cex.len());
            let prop = view["properties"].as_array().unwrap().iter().find(|x| x["property"] == r.property).unwrap();
            assert_eq!(prop["run_status"], "violated", "{path} {}: {prop}", r.property);
            assert_eq!(prop["status"], "violated", "{path} {}: at the last state: {prop}", r.property);
            if cex.loop_start.is_some() {
                assert_eq!(view["loop_start"], json!(cex.loop_start), "{path} {}", r.property);
            }
            shown += 1;
        }
    }
    assert!(shown >= 8, "{shown} counterexamples taken again");
}

fn flock() -> (Model, Vec<Behaviour>, String) {
    let path = fixtures::bench("flock.labs");
    let (m, b) = load(&path, &["birds=3", "grid=5", "delta=5"]);
    (m, b, std::fs::read_to_string(&path).unwrap())
}

/// Going back keeps the history; the history's next step taken there keeps it, another step
/// replaces what followed; a stale page is
/// refused; out-of-range requests are errors, not panics.
#[test]
fn back_branch_and_refusals() {
    let (model, behs, source) = flock();
    let mut api = new_api(&model, &behs, false, &source);
    let mut v = ok(&mut api, "GET", "/api/state", Value::Null);
    for _ in 0..3 {
        v = ok(&mut api, "POST", "/api/step", json!({"rev": v["rev"], "index": 0}));
    }
    assert_eq!((v["cursor"].as_u64(), v["length"].as_u64()), (Some(3), Some(3)));
    let third = v["last_step"].clone();
    v = ok(&mut api, "POST", "/api/goto", json!({"at": 1}));
    assert_eq!((v["cursor"].as_u64(), v["length"].as_u64()), (Some(1), Some(3)));
    assert_eq!(v["history"].as_array().unwrap().len(), 3);
    assert_eq!(v["next_in_history"], 0);
    // The history's own next step moves forward and keeps what follows.
    v = ok(&mut api, "POST", "/api/step", json!({"rev": v["rev"], "index": 0}));
    assert_eq!((v["cursor"].as_u64(), v["length"].as_u64()), (Some(2), Some(3)));
    v = ok(&mut api, "POST", "/api/goto", json!({"at": 1}));
    let stale = v["rev"].as_u64().unwrap() - 1;
    let (status, e) = call(&mut api, "POST", "/api/step", json!({"rev": stale, "index": 0}));
    assert_eq!(status, 409, "{e}");
    let n = v["enabled"].as_array().unwrap().len();
    let (status, _) = call(&mut api, "POST", "/api/step", json!({"rev": v["rev"], "index": n}));
    assert_eq!(status, 400);
    let (status, _) = call(&mut api, "POST", "/api/goto", json!({"at": 4}));
    assert_eq!(status, 400);
    v = ok(&mut api, "POST", "/api/step", json!({"rev": v["rev"], "index": n - 1}));
    assert_eq!((v["cursor"].as_u64(), v["length"].as_u64()), (Some(2), Some(2)));
    assert_ne!(v["last_step"], third);
    let (status, _) = call(&mut api, "POST", "/api/nothing", json!({}));
    assert_eq!(status, 404);
    let (status, _) = call(&mut api, "POST", "/api/step", json!({"rev": "x"}));
    assert_eq!(status, 400);
}

/// "Run until": a predicate typed in the page holds at the state it stops at (checked with the
/// engine's evaluator of the property that says the same); a violation is found on a lasso; a
/// predicate that does not parse or names an unknown variable is refused with a message.
#[test]
fn run_until_a_predicate_or_a_violation() {
    let (model, behs, source) = flock();
    let mut api = new_api(&model, &behs, false, &source);
    let v = ok(&mut api, "GET", "/api/state", Value::Null);
    let pred = "forall Bird b, x of b = 2";
    let v = ok(
        &mut api,
        "POST",
        "/api/until",
        json!({"rev": v["rev"], "kind": "predicate", "predicate": pred, "max_steps": 2000, "seed": 1}),
    );
    assert_eq!(v["found"], true, "{}", v["message"]);
    for a in v["state"]["agents"].as_array().unwrap() {
        assert_eq!(a["attributes"]["x"], 2, "{}", v["message"]);
    }
    let at = v["cursor"].as_u64().unwrap();
    assert!(v["message"].as_str().unwrap().contains(&format!("holds at state {at}")), "{}", v["message"]);
    // A lasso found by random steps: the votes of examples/majority.labs cycle without
    // consensus (its argument for `Consensus` being violated).
    let path = fixtures::example("majority.labs");
    let (m2, b2) = load(&path, &["yes=1", "no=2"]);
    let mut walk = new_api(&m2, &b2, false, &std::fs::read_to_string(&path).unwrap());
    let w = ok(&mut walk, "GET", "/api/state", Value::Null);
    let w = ok(
        &mut walk,
        "POST",
        "/api/until",
        json!({"rev": w["rev"], "kind": "violated", "property": "Consensus", "max_steps": 3000, "seed": 2}),
    );
    assert_eq!(w["found"], true, "{}", w["message"]);
    let l = w["loop_start"].as_u64().expect("a lasso");
    assert!(w["message"].as_str().unwrap().contains(&format!("loop from state {l}")), "{}", w["message"]);
    let p = w["properties"].as_array().unwrap().iter().find(|p| p["property"] == "Consensus").unwrap();
    assert_eq!(p["run_status"], "violated", "{p}");
    // The loop closes: the last state is the state the loop starts at.
    assert_eq!(w["same_as"], l);
    // A property this run satisfies can no longer be violated: said, and the steps stop there
    // (examples/flocking.labs: the two birds align).
    let path = fixtures::example("flocking.labs");
    let (m3, b3) = load(&path, &["birds=2", "grid=3", "delta=1"]);
    let mut sat = new_api(&m3, &b3, false, &std::fs::read_to_string(&path).unwrap());
    let s0 = ok(&mut sat, "GET", "/api/state", Value::Null);
    let s1 = ok(
        &mut sat,
        "POST",
        "/api/until",
        json!({"rev": s0["rev"], "kind": "violated", "property": "Aligned", "max_steps": 3000, "seed": 0}),
    );
    assert_eq!(s1["found"], false, "{}", s1["message"]);
    let at = s1["length"].as_u64().unwrap();
    assert!(s1["message"].as_str().unwrap().contains(&format!("satisfied at state {at}")), "{}", s1["message"]);
    let p = s1["properties"].as_array().unwrap().iter().find(|p| p["property"] == "Aligned").unwrap();
    assert_eq!((p["status"].as_str(), p["at"].as_u64()), (Some("satisfied"), Some(at)));
    for (bad, says) in [("x of b =", "predicate"), ("forall Bird b, z of b = 1", "z"), ("} check {", "braces")] {
        let (status, e) = call(
            &mut api,
            "POST",
            "/api/until",
            json!({"rev": v["rev"], "kind": "predicate", "predicate": bad, "max_steps": 5, "seed": 0}),
        );
        assert_eq!(status, 400, "{bad}");
        assert!(e["error"].as_str().unwrap().contains(says), "{bad}: {e}");
    }
}

/// The exported trace is read back by `--trace` (here: the load endpoint) and replays: the
/// same states; the exported report is a page of this run.
#[test]
fn export_reads_back() {
    let (model, behs, source) = flock();
    let mut api = new_api(&model, &behs, false, &source);
    let v = ok(&mut api, "GET", "/api/state", Value::Null);
    let v = ok(&mut api, "POST", "/api/random", json!({"rev": v["rev"], "steps": 12, "seed": 5}));
    assert_eq!(v["length"], 12);
    let r = api.handle("GET", "/api/export/trace.json", b"");
    assert_eq!((r.status, r.download.as_deref()), (200, Some("spec-explore.json")));
    let exported: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(exported["externs"]["_grid"], 5);
    let mut other = new_api(&model, &behs, false, &source);
    let w = ok(&mut other, "POST", "/api/load", json!({"json": String::from_utf8(r.body).unwrap()}));
    assert_eq!(w["history"], v["history"]);
    let w = ok(&mut other, "POST", "/api/goto", json!({"at": 12}));
    assert_eq!(w["state"], v["state"]);
    let page = api.handle("GET", "/api/export/report.html", b"");
    let html = String::from_utf8(page.body).unwrap();
    assert!(html.contains("<svg class=\"msc-segment\"") && html.contains("Explored run"), "{}", &html[..200]);
    // Another spec's trace is refused with what differs.
    let (m2, b2) = load(&fixtures::bench("flock.labs"), &["birds=3", "grid=4", "delta=5"]);
    let mut third = new_api(&m2, &b2, false, &source);
    let (status, e) = call(
        &mut third,
        "POST",
        "/api/load",
        json!({"json": String::from_utf8(api.handle("GET", "/api/export/trace.json", b"").body).unwrap()}),
    );
    assert_eq!(status, 400);
    assert!(e["error"].as_str().unwrap().contains("_grid=5"), "{e}");
}
