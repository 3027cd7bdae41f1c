//! Every `tests/cases/*.labs`: the hand-derived counts and verdicts of its
//! `# case:` lines, exactly; counterexamples replayed with the independent checker.

use crate::engine_common;
use engine_common::*;
use labs::engine::EngineError;

/// One `# case:` line: externs, scheduling, expected counts and verdicts.
pub struct Case {
    pub externs: Vec<String>,
    fair: bool,
    expect: Vec<(String, String)>,
}

/// The `# case:` lines of a case file's text.
pub fn cases(text: &str) -> Vec<Case> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("# case:") else { continue };
        let (args, exp) = rest.split_once("=>").expect("`=>` in a case line");
        let mut c = Case { externs: vec![], fair: false, expect: vec![] };
        for a in args.split_whitespace() {
            if a == "--fair" {
                c.fair = true;
            } else {
                c.externs.push(a.to_string());
            }
        }
        for e in exp.split_whitespace() {
            let (k, v) = e.split_once('=').expect("key=value");
            c.expect.push((k.to_string(), v.to_string()));
        }
        out.push(c);
    }
    out
}

fn check_file(path: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let mut failures = Vec::new();
    let cs = cases(&text);
    assert!(!cs.is_empty(), "{name}: no case line");
    for c in cs {
        let tag = format!("{name} [{} {}]", c.externs.join(" "), if c.fair { "--fair" } else { "" });
        let get = |k: &str| c.expect.iter().find(|(a, _)| a == k).map(|(_, v)| v.clone());
        let exit = get("exit");
        let loaded = load_text(&text, &c.externs);
        let (model, behs) = match loaded {
            Ok(x) => x,
            Err(LoadError::Static(d)) => {
                if exit.as_deref() != Some("6") {
                    failures.push(format!("{tag}: rejected statically: {d}"));
                }
                continue;
            }
            Err(LoadError::Other(d)) => {
                failures.push(format!("{tag}: load failed: {d}"));
                continue;
            }
        };
        if exit.as_deref() == Some("6") {
            failures.push(format!("{tag}: expected a static error"));
            continue;
        }
        let mut reports = Vec::new();
        for threads in [1, 2] {
            reports.push(run(&model, &behs, c.fair, threads));
        }
        let rep = match reports.swap_remove(0) {
            Ok(r) => r,
            Err(EngineError::Runtime { message, trace }) => {
                if exit.as_deref() != Some("1") {
                    failures.push(format!("{tag}: unexpected run-time error {message}"));
                } else if let Some(kw) = get("error")
                    && !kw.split('|').any(|k| message.contains(k))
                {
                    failures.push(format!("{tag}: error `{message}` does not mention {kw}"));
                }
                if let Some(t) = trace {
                    labs::trace::replay(&model, &behs, &t).unwrap_or_else(|e| panic!("{tag}: error trace: {e}"));
                }
                continue;
            }
            Err(e) => {
                failures.push(format!("{tag}: {e}"));
                continue;
            }
        };
        if exit.is_some() {
            failures.push(format!("{tag}: expected exit {exit:?}, the run succeeded"));
            continue;
        }
        // Two threads: same counts and verdicts.
        let rep2 = reports.swap_remove(0).expect("second run");
        assert_eq!(
            (rep.stats.states, rep.stats.transitions, rep.stats.deadlocks),
            (rep2.stats.states, rep2.stats.transitions, rep2.stats.deadlocks),
            "{tag}: thread count changes counts"
        );
        replay_all(&model, &behs, &rep);
        for (k, v) in &c.expect {
            let got = match k.as_str() {
                "states" => rep.stats.states.to_string(),
                "transitions" => rep.stats.transitions.to_string(),
                "deadlocks" => rep.stats.deadlocks.to_string(),
                _ if k.ends_with(".len") => {
                    let p = k.trim_end_matches(".len");
                    match rep.results.iter().find(|r| r.property == p) {
                        Some(r) => r.trace.as_ref().map_or("none".into(), |t| t.steps.len().to_string()),
                        None => format!("no property {p}"),
                    }
                }
                _ => match rep.results.iter().find(|r| &r.property == k) {
                    Some(r) => r.verdict.as_str().to_string(),
                    None => format!("no property {k}"),
                },
            };
            if &got != v {
                failures.push(format!("{tag}: {k} = {got}, expected {v}"));
            }
        }
        for r in &rep2.results {
            let v1 = rep.results.iter().find(|x| x.property == r.property).unwrap();
            assert_eq!(v1.verdict, r.verdict, "{tag}: {} differs with 2 threads", r.property);
        }
    }
    failures
}

#[test]
fn semantics_cases() {
    let mut files: Vec<_> = std::fs::read_dir(CASES)
        .expect("tests/cases")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "labs"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let mut failures = Vec::new();
    for f in &files {
        failures.extend(check_file(f));
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
}
