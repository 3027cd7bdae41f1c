//! `labs verify --fairness weak|strong|almost-sure` (docs/semantics.md, D15).
//!
//! - the hand-derived verdicts of the `# fairness:` lines of `tests/cases/fairness_*.labs`,
//!   with and without the symmetry reduction, on 1 and 2 threads;
//! - every fair counterexample replayed, shown to violate its property, and its loop checked
//!   fair here, from the successors of its states (not from the engine's fair check);
//! - almost-sure `finally ψ` against `fairly ψ`, which is its definition on a finite chain
//!   (every state reached through ψ-free paths can reach ψ), computed by another check;
//! - random specs: the inclusions almost-sure ⇒ strong ⇒ weak ⇒ free between violations;
//! - the command line: the refusals with `--fair` and the LNT back ends, the JSON fields.

use crate::engine_common::{load, load_text, replay_all};
use crate::fixtures::CASES;
use crate::tier;
use labs::behaviour::Behaviour;
use labs::engine::fairness::{LoopAgents, enabled_agents};
use labs::engine::step::{Event, Stepper};
use labs::engine::{Fairness, Verdict, VerifyOptions, VerifyReport, verify};
use labs::model::{Modality, Model, Property};
use labs::syntax::Ltl;
use std::process::Command;

fn notion(name: &str) -> Fairness {
    match name {
        "weak" => Fairness::Weak,
        "strong" => Fairness::Strong,
        "almost-sure" => Fairness::AlmostSure,
        other => panic!("unknown notion {other}"),
    }
}

fn run(m: &Model, b: &[Behaviour], fairness: Option<Fairness>, symmetry: bool, threads: usize) -> VerifyReport {
    let opts = VerifyOptions {
        fairness,
        symmetry,
        threads,
        check_analysis: true,
        exhaustive: true,
        max_states: Some(20_000),
        ..Default::default()
    };
    verify(m, b, &opts).unwrap_or_else(|e| panic!("verify: {e}"))
}

/// The agent a step is made by.
fn actor(e: &Event) -> usize {
    match e {
        Event::Agent { agent, .. } => *agent,
        Event::Message { sender, .. } => *sender,
    }
}

/// Every counterexample replayed and shown to violate its property; under weak or strong
/// fairness its loop is fair, judged from the successors of its states.
pub(crate) fn judge(m: &Model, b: &[Behaviour], rep: &VerifyReport, f: Fairness, tag: &str) {
    replay_all(m, b, rep);
    let stepper = Stepper::new(m, b, false);
    for r in rep.results.iter().filter(|r| r.verdict == Verdict::Violated) {
        let p = m.properties.iter().find(|p| p.name == r.property).expect("the property");
        if !on_runs(p) {
            assert!(r.fair_loop.is_none(), "{tag}: {}: a loop summary for a property not on runs", r.property);
            continue;
        }
        let t = r.trace.as_ref().expect("a counterexample");
        let shown = r.fair_loop.as_ref().unwrap_or_else(|| panic!("{tag}: {} has no loop summary", r.property));
        let Some(ls) = t.loop_start else {
            assert!(t.ends_in_deadlock, "{tag}: {}: neither a lasso nor a deadlock", r.property);
            let last = t.steps.last().map_or(&t.initial, |s| &s.state);
            assert!(enabled_agents(&stepper, last).expect("no error").is_empty(), "{tag}: not a deadlock");
            continue;
        };
        // The loop's states: the one before step `ls` up to the last but one.
        let state = |i: usize| if i == 0 { &t.initial } else { &t.steps[i - 1].state };
        let mut enabled: Vec<Vec<usize>> = Vec::new();
        for i in ls..t.steps.len() {
            let mut who = Vec::new();
            stepper
                .successors(state(i), &mut Default::default(), true, &mut |e, _| who.push(actor(&e.expect("events"))))
                .expect("no error along a counterexample");
            who.sort_unstable();
            who.dedup();
            enabled.push(who);
        }
        let acting: Vec<usize> = t.steps[ls..].iter().map(|s| actor(&s.event)).collect();
        let starved: Vec<usize> = (0..m.n_agents())
            .filter(|a| !acting.contains(a))
            .filter(|a| match f {
                Fairness::Weak => enabled.iter().all(|e| e.contains(a)),
                Fairness::Strong => enabled.iter().any(|e| e.contains(a)),
                Fairness::AlmostSure => false,
            })
            .collect();
        assert!(starved.is_empty(), "{tag}: {}: the loop starves agents {starved:?}", r.property);
        let mut summary = LoopAgents::of(&enabled, &acting);
        summary.notion = Some(f);
        assert_eq!(&summary, shown, "{tag}: {}: the loop summary", r.property);
    }
}

/// The `# fairness: NOTION => NAME=VERDICT …` lines of a case file.
fn fairness_lines(text: &str) -> Vec<(Fairness, Vec<(String, String)>)> {
    text.lines()
        .filter_map(|l| l.strip_prefix("# fairness:"))
        .map(|rest| {
            let (n, exp) = rest.split_once("=>").expect("`=>` in a fairness line");
            let exp = exp
                .split_whitespace()
                .map(|e| {
                    let (k, v) = e.split_once('=').expect("NAME=VERDICT");
                    (k.to_string(), v.to_string())
                })
                .collect();
            (notion(n.trim()), exp)
        })
        .collect()
}

#[test]
fn hand_derived_verdicts_on_every_route() {
    let mut checked = 0;
    for name in ["fairness_weak.labs", "fairness_strong.labs", "fairness_rotation.labs"] {
        let path = format!("{CASES}/{name}");
        let text = std::fs::read_to_string(&path).expect("the case");
        let (m, b) = load(&path, &[]);
        let lines = fairness_lines(&text);
        assert_eq!(lines.len(), 3, "{name}: one line per notion");
        for (f, expect) in lines {
            for symmetry in [true, false] {
                for threads in [1, 2] {
                    let tag = format!("{name} --fairness {} (symmetry {symmetry}, {threads} threads)", f.as_str());
                    let rep = run(&m, &b, Some(f), symmetry, threads);
                    for (p, v) in &expect {
                        let r = rep.results.iter().find(|r| &r.property == p).expect("the property");
                        assert_eq!(r.verdict.as_str(), v, "{tag}: {p}");
                        checked += 1;
                    }
                    judge(&m, &b, &rep, f, &tag);
                }
            }
        }
    }
    assert_eq!(checked, 4 * 3 * (2 + 1 + 2));
}

/// Weak fairness ignores the loop that starves B in `fairness_weak.labs`, but not the one of
/// `fairness_strong.labs`, where B is enabled every other state: its counterexample is that
/// loop, A acting alone, B enabled somewhere but not throughout.
#[test]
fn weak_counterexample_names_who_acts_and_who_is_enabled() {
    let (m, b) = load(&format!("{CASES}/fairness_strong.labs"), &[]);
    let rep = run(&m, &b, Some(Fairness::Weak), true, 1);
    let f = rep.results[0].fair_loop.as_ref().expect("a fair loop");
    assert_eq!((f.acting.as_slice(), f.enabled_throughout.as_slice()), (&[0][..], &[0][..]));
    assert_eq!(f.enabled_somewhere, vec![0, 1]);
}

/// A run into a deadlock is fair: `finally done = 1` is violated under every notion when B
/// may stop A before done is set.
#[test]
fn a_deadlock_is_a_fair_end() {
    let text = "system {\n    environment = stop: 0; done: 0\n    spawn = A: 1, B: 1\n}\n\
                agent A {\n    Behavior = stop = 0 -> done <-- 1\n}\n\
                agent B {\n    Behavior = stop <-- 1\n}\n\
                check {\n    Done = finally done = 1\n}\n";
    let (m, b) = load_text(text, &[]).expect("loads");
    for f in [Fairness::Weak, Fairness::Strong, Fairness::AlmostSure] {
        let rep = run(&m, &b, Some(f), true, 1);
        assert_eq!(rep.results[0].verdict, Verdict::Violated, "{f:?}");
        let t = rep.results[0].trace.as_ref().expect("a trace");
        assert!(t.ends_in_deadlock && t.loop_start.is_none(), "{f:?}: a path into the deadlock");
        judge(&m, &b, &rep, f, &format!("{f:?}"));
    }
}

/// `p` as `fairly ψ` of the same predicate.
fn as_fairly(p: &Property) -> Property {
    let mut q = p.clone();
    q.name = format!("{}Fairly", p.name);
    q.modality = Modality::Fairly;
    q.keyword = "fairly".into();
    q
}

fn on_runs(p: &Property) -> bool {
    matches!(p.modality, Modality::Finally | Modality::Ltl(_) | Modality::Between { .. } | Modality::FromUntil { .. })
}

/// What the random specs showed, so that the test can fail where fairness changed nothing.
#[derive(Default, Debug)]
struct Seen {
    compared: usize,
    free_only: usize,
    weak_only: usize,
    strong_only: usize,
    almost_sure_unknown: usize,
}

/// One generated spec: its properties on runs under each notion, the inclusions between the
/// violations, almost-sure `finally` against `fairly`, the fair counterexamples judged, and
/// almost-sure with and without the reduction, 1 and 2 threads.
fn check_spec(seed: u64, seen: &mut Seen) {
    let g = crate::specgen::generate(seed);
    let Ok((mut m, b)) = load_text(&g.text, &g.externs) else { return };
    // Every predicate of the spec also as `finally ψ` and `always finally ψ`, where fairness
    // more often changes the verdict.
    let mut added = Vec::new();
    for (i, p) in m.properties.iter().enumerate() {
        for (j, q) in p.predicates().into_iter().enumerate() {
            let mut f = p.clone();
            f.name = format!("Finally{i}x{j}");
            f.pred = q.clone();
            f.modality = Modality::Finally;
            f.keyword = "finally".into();
            let mut gf = f.clone();
            gf.name = format!("Recur{i}x{j}");
            gf.modality = Modality::Ltl(Ltl::Always(Box::new(Ltl::Finally(Box::new(Ltl::Atom(q.clone()))))));
            gf.keyword = "ltl".into();
            added.extend([f, gf]);
        }
    }
    m.properties.retain(on_runs);
    m.properties.extend(added);
    let fairly: Vec<Property> =
        m.properties.iter().filter(|p| matches!(p.modality, Modality::Finally)).map(as_fairly).collect();
    m.properties.extend(fairly);
    if m.properties.is_empty() {
        return;
    }
    let opts = |fairness, symmetry, threads| VerifyOptions {
        fairness,
        symmetry,
        threads,
        exhaustive: true,
        max_states: Some(3_000),
        ..Default::default()
    };
    let Ok(free) = verify(&m, &b, &opts(None, false, 1)) else { return };
    if !free.stats.complete {
        return;
    }
    let tag = |f: &str| format!("seed {seed} --fairness {f}:\n{}", g.text);
    let mut reps = Vec::new();
    for f in [Fairness::Weak, Fairness::Strong, Fairness::AlmostSure] {
        let r1 = verify(&m, &b, &opts(Some(f), true, 1)).unwrap_or_else(|e| panic!("{}: {e}", tag(f.as_str())));
        let r2 = verify(&m, &b, &opts(Some(f), false, 2)).unwrap_or_else(|e| panic!("{}: {e}", tag(f.as_str())));
        for (x, y) in r1.results.iter().zip(&r2.results) {
            assert_eq!(x.verdict, y.verdict, "{}: {} reduced, 1 thread / not, 2 threads", tag(f.as_str()), x.property);
        }
        judge(&m, &b, &r1, f, &tag(f.as_str()));
        judge(&m, &b, &r2, f, &tag(f.as_str()));
        reps.push(r1);
    }
    let v = |r: &VerifyReport, i: usize| r.results[i].verdict;
    for (i, p) in free.results.iter().enumerate() {
        if p.property.ends_with("Fairly") {
            continue;
        }
        let (free_v, weak, strong, sure) = (v(&free, i), v(&reps[0], i), v(&reps[1], i), v(&reps[2], i));
        let t = tag(&p.property);
        use Verdict::{Holds, Unknown, Violated};
        assert!(weak != Violated || free_v == Violated, "{t}: weak-fair violation, free holds");
        assert!(strong != Violated || weak == Violated, "{t}: strong-fair violation, weak holds");
        assert!(sure != Violated || strong == Violated, "{t}: almost-sure violation, strong holds");
        assert!(weak != Unknown && strong != Unknown, "{t}: weak or strong unknown");
        seen.compared += 1;
        seen.free_only += usize::from(free_v == Violated && weak == Holds);
        seen.weak_only += usize::from(weak == Violated && strong == Holds);
        seen.strong_only += usize::from(strong == Violated && sure == Holds);
        seen.almost_sure_unknown += usize::from(sure == Unknown);
        // Almost-sure `finally ψ` is `fairly ψ`.
        if let Some(j) = free.results.iter().position(|q| q.property == format!("{}Fairly", p.property)) {
            assert_eq!(sure, v(&free, j), "{t}: almost-sure finally against fairly");
        }
    }
}

#[test]
fn random_specs_keep_the_inclusions() {
    let mut seen = Seen::default();
    let count = if tier::slow("200 more generated specs under every notion, about a minute") { 240 } else { 40 };
    let count: u64 = std::env::var("LABS_FAIR_SEEDS").ok().and_then(|v| v.parse().ok()).unwrap_or(count);
    for seed in 0..count {
        check_spec(seed, &mut seen);
    }
    eprintln!("{seen:?}");
    assert!(seen.compared >= 20, "too few properties compared: {seen:?}");
    // Fairness must change some verdicts, or the comparison shows nothing.
    assert!(seen.free_only > 0, "no property violated freely and holding under weak fairness: {seen:?}");
}

fn labs() -> Command {
    Command::new(env!("CARGO_BIN_EXE_labs"))
}

#[test]
fn refused_with_round_robin_and_the_lnt_back_ends() {
    let spec = format!("{CASES}/fairness_strong.labs");
    let o = labs().args(["verify", &spec, "--fairness", "weak", "--fair"]).output().expect("runs");
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--fairness weak") && err.contains("--fair"), "{err}");
    for backend in ["lnt", "cadp"] {
        let o = labs().args(["verify", &spec, "--fairness", "strong", "--backend", backend]).output().expect("runs");
        assert_eq!(o.status.code(), Some(2), "{backend}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("--fairness strong") && err.contains(&format!("--backend {backend}")), "{err}");
    }
}

#[test]
fn json_names_the_notion_and_the_loop() {
    let spec = format!("{CASES}/fairness_strong.labs");
    let o = labs().args(["verify", &spec, "--fairness", "weak", "--json", "-q"]).output().expect("runs");
    assert_eq!(o.status.code(), Some(10));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(doc["fairness"], "weak");
    let l = &doc["results"][0]["fair_loop"];
    assert_eq!(l["acting"], serde_json::json!([0]));
    assert_eq!(l["enabled_throughout"], serde_json::json!([0]));
    assert_eq!(l["enabled_somewhere"], serde_json::json!([0, 1]));
    let o = labs().args(["verify", &spec, "--fairness", "strong", "--json", "-q"]).output().expect("runs");
    assert_eq!(o.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(doc["results"][0]["verdict"], "holds");
    let o = labs().args(["verify", &spec, "--json", "-q"]).output().expect("runs");
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert!(doc.get("fairness").is_none() && doc["results"][0].get("fair_loop").is_none());
}

/// The search for fair violations on the fly (`fair_search`, the default route without
/// `--exhaustive`) against the check on the whole graph (`--exhaustive`): the same verdict for
/// every property on runs under weak and strong fairness, on 1 and 2 threads, every
/// counterexample replayed and its loop judged fair here. Returns how many properties the
/// search decided before the exploration (so that the test can fail where it never runs).
fn on_the_fly_against_whole_graph(m: &Model, b: &[Behaviour], tag: &str) -> usize {
    let mut early = 0;
    for f in [Fairness::Weak, Fairness::Strong] {
        let opts = |exhaustive, threads| VerifyOptions {
            fairness: Some(f),
            symmetry: false,
            threads,
            exhaustive,
            max_states: Some(3_000),
            ..Default::default()
        };
        let Ok(whole) = verify(m, b, &opts(true, 1)) else { return early };
        if !whole.stats.complete {
            return early;
        }
        for threads in [1, 2] {
            let otf = verify(m, b, &opts(false, threads)).unwrap_or_else(|e| panic!("{tag}: {e}"));
            for (x, y) in whole.results.iter().zip(&otf.results) {
                assert_eq!(x.verdict, y.verdict, "{tag} --fairness {}: {}, {threads} threads", f.as_str(), x.property);
            }
            judge(m, b, &otf, f, &format!("{tag} on the fly, {threads} threads"));
            early += usize::from(otf.stats.decided_early && otf.stats.states == 0);
        }
    }
    early
}

#[test]
fn the_search_on_the_fly_agrees_with_the_whole_graph() {
    let mut early = 0;
    for name in ["fairness_weak.labs", "fairness_strong.labs"] {
        let (m, b) = load(&format!("{CASES}/{name}"), &[]);
        early += on_the_fly_against_whole_graph(&m, &b, name);
    }
    let text = "system {\n    environment = stop: 0; done: 0\n    spawn = A: 1, B: 1\n}\n\
                agent A {\n    Behavior = stop = 0 -> done <-- 1\n}\n\
                agent B {\n    Behavior = stop <-- 1\n}\n\
                check {\n    Done = finally done = 1\n}\n";
    let (m, b) = load_text(text, &[]).expect("loads");
    early += on_the_fly_against_whole_graph(&m, &b, "deadlock");
    let count = if tier::slow("100 more generated specs, about a minute") { 140 } else { 40 };
    for seed in 0..count {
        let g = crate::specgen::generate(seed);
        let Ok((mut m, b)) = load_text(&g.text, &g.externs) else { continue };
        let mut added = Vec::new();
        for (i, p) in m.properties.iter().enumerate() {
            for (j, q) in p.predicates().into_iter().enumerate() {
                let mut gf = p.clone();
                gf.name = format!("Recur{i}x{j}");
                gf.pred = q.clone();
                gf.modality = Modality::Ltl(Ltl::Always(Box::new(Ltl::Finally(Box::new(Ltl::Atom(q.clone()))))));
                gf.keyword = "ltl".into();
                added.push(gf);
            }
        }
        m.properties.retain(on_runs);
        m.properties.extend(added);
        if !m.properties.is_empty() {
            early += on_the_fly_against_whole_graph(&m, &b, &format!("seed {seed}:\n{}", g.text));
        }
    }
    assert!(early >= 10, "the search on the fly decided only {early} runs before the exploration");
}

/// A search cut by `--max-states` or `--timeout` leaves the property `unknown`, never a
/// verdict: philosophers (n = 5) holds `Release` under weak fairness only after the whole
/// product is searched.
#[test]
fn a_stopped_search_is_unknown() {
    let text = std::fs::read_to_string(format!("{}/benchmarks/philosophers.labs", env!("CARGO_MANIFEST_DIR")))
        .expect("the benchmark");
    let at = text.rfind("check {").expect("a check section");
    let with = format!(
        "{}check {{\n    Release = always (status of 0 = 2 implies finally status of 0 = 0)\n{}",
        &text[..at],
        &text[at + "check {".len()..]
    );
    let (m, b) = load_text(&with, &["n=5".to_string()]).expect("loads");
    let only = Some(vec!["Release".to_string()]);
    let opts = VerifyOptions {
        fairness: Some(Fairness::Weak),
        max_states: Some(500),
        properties: only.clone(),
        ..Default::default()
    };
    let rep = verify(&m, &b, &opts).expect("runs");
    assert_eq!(rep.results[0].verdict, Verdict::Unknown, "cut by --max-states");
    let limits = labs::limits::Limits::new(Some(std::time::Duration::ZERO), None, None, None);
    let opts = VerifyOptions { fairness: Some(Fairness::Weak), limits, properties: only.clone(), ..Default::default() };
    let rep = verify(&m, &b, &opts).expect("runs");
    assert_eq!(rep.results[0].verdict, Verdict::Unknown, "cut by --timeout");
    let opts = VerifyOptions { fairness: Some(Fairness::Weak), properties: only, ..Default::default() };
    let rep = verify(&m, &b, &opts).expect("runs");
    assert_eq!(rep.results[0].verdict, Verdict::Holds, "the whole search");
    assert!(rep.stats.decided_early && rep.stats.states == 0, "decided by the search");
}
