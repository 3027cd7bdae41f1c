//! A bound that stops `verify --backend lnt` (the time limit, the memory bound, Ctrl-C) keeps
//! the verdicts the script decided before it, prints them with the others `unknown`, and
//! removes its temporary working directory (or keeps `--keep-files`, named in the output).
//! The spec puts first a property the on-the-fly workflow decides within a few hundred states
//! (`Quick`, violated: the native engine's verdict, checked here too) before one that needs the
//! whole LTS of leader n=8 (`Slow`, over a million program states).

use crate::fixtures::{self, BENCH, stderr};
use crate::scratch::Scratch;
use crate::tier;
use serde_json::Value;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The leader benchmark with its properties replaced by `Quick` then `Slow`.
fn spec() -> Scratch {
    let text = std::fs::read_to_string(format!("{BENCH}/leader.labs")).unwrap();
    let (head, _) = text.split_once("check {").expect("a check section");
    let check = "check {\n    Quick = always exists Node n, leader of n != 0\n    \
                 Slow = finally forall Node n, leader of n = 0\n}\n";
    Scratch::file("kept-verdicts", "leader_quick.labs", &format!("{head}{check}"))
}

fn on_the_fly(spec: &Scratch, tmp: &Scratch, extra: &[&str]) -> Command {
    let mut c = fixtures::labs_command();
    c.args(["verify", spec.as_str(), "n=8", "--backend", "lnt", "--workflow", "on-the-fly"])
        .args(extra)
        .env("CADP_TMP", &**tmp);
    c
}

fn scratch_tmp() -> Scratch {
    let tmp = Scratch::path("kept-verdicts-tmp", "tmp");
    std::fs::create_dir_all(&*tmp).unwrap();
    tmp
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", String::from_utf8_lossy(&o.stdout), stderr(o)))
}

/// The verdicts of the document, in order, and what stopped the run.
fn verdicts(doc: &Value) -> (Vec<(String, String)>, Value) {
    let v = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["property"].as_str().unwrap().to_string(), r["verdict"].as_str().unwrap().to_string()))
        .collect();
    (v, doc["stopped"].clone())
}

fn leftovers(tmp: &Scratch) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(&**tmp).unwrap().map(|e| e.unwrap().path()).collect()
}

/// What is expected of a run stopped by `stop` after `Quick` was decided: `Quick` violated
/// with its counterexample, `Slow` unknown, exit 10 (a violation, as natively).
fn assert_kept(o: &Output, stop: &str) {
    assert_eq!(o.status.code(), Some(10), "{}", stderr(o));
    let doc = json(o);
    let (v, stopped) = verdicts(&doc);
    assert_eq!(v, [("Quick".into(), "violated".into()), ("Slow".into(), "unknown".into())], "{doc}");
    assert_eq!(stopped, stop, "{doc}");
    assert!(doc["results"][0]["trace"].is_object(), "the counterexample of Quick is kept: {doc}");
    assert_eq!(doc["results"][0]["mcl"], "leader_quick_Quick.mcl", "{doc}");
    assert!(doc["results"][1]["mcl"].is_null(), "{doc}");
    assert!(!stderr(o).contains("before any result"), "{}", stderr(o));
}

#[test]
fn quick_is_violated_natively() {
    let s = spec();
    let o = fixtures::labs(&["verify", s.as_str(), "n=8", "--property", "Quick", "--json"]);
    assert_eq!(verdicts(&json(&o)).0, [("Quick".into(), "violated".into())]);
}

#[test]
fn the_time_limit_keeps_the_verdicts_decided() {
    let (s, tmp) = (spec(), scratch_tmp());
    let o = on_the_fly(&s, &tmp, &["--timeout", "4", "--json"]).output().unwrap();
    assert_kept(&o, "timeout");
    assert!(leftovers(&tmp).is_empty(), "{:?}", leftovers(&tmp));
    // The human output says the same.
    let o = on_the_fly(&s, &tmp, &["--timeout", "4"]).output().unwrap();
    assert_eq!(o.status.code(), Some(10), "{}", stderr(&o));
    let out = fixtures::stdout(&o);
    assert!(out.starts_with("Quick  violated\nSlow   unknown\n"), "{out}");
    assert!(out.contains("counterexample for Quick (always):"), "{out}");
    assert!(out.contains("the time limit (--timeout) was reached; undecided properties are `unknown`"), "{out}");
    assert!(leftovers(&tmp).is_empty(), "{:?}", leftovers(&tmp));
}

#[test]
fn the_memory_bound_keeps_the_verdicts_decided() {
    // labs starts within about 20 MiB; Slow's LTS needs far more.
    let (s, tmp) = (spec(), scratch_tmp());
    let o = on_the_fly(&s, &tmp, &["--memory", "60", "--timeout", "120", "--json"]).output().unwrap();
    assert_kept(&o, "memory");
    assert!(leftovers(&tmp).is_empty(), "{:?}", leftovers(&tmp));
}

#[test]
fn ctrl_c_keeps_the_verdicts_decided_and_the_kept_files() {
    let (s, tmp) = (spec(), scratch_tmp());
    let kept = Scratch::path("kept-verdicts-files", "files");
    let child = on_the_fly(&s, &tmp, &["--keep-files", kept.as_str(), "--timeout", "120", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Quick's diagnostic is written as soon as it is decided: then interrupt, as Ctrl-C does.
    let diag = kept.join("leader_quick_otf_Quick_diag.aut");
    let t = Instant::now();
    while !diag.is_file() && t.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(diag.is_file(), "Quick was not decided within a minute");
    // SAFETY: kill only sends a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let o = child.wait_with_output().unwrap();
    assert_kept(&o, "interrupted");
    assert_eq!(json(&o)["lnt"]["files"], kept.as_str());
    assert!(kept.join("leader_quick.lnt").is_file());
    assert!(leftovers(&tmp).is_empty(), "{:?}", leftovers(&tmp));
}

/// The monolithic workflow stopped by the memory bound while it generates the whole LTS of
/// leader n=8 (over a million program states; at 100 MiB the bound comes within seconds, long
/// before any property is decided): the report comes (no "stopped before any result could be reported", whose
/// exit leaves the working directory behind), every property `unknown`, exit 5.
#[test]
fn a_memory_stop_during_a_large_generation_reports() {
    if !tier::slow("leader n=8 monolithic up to --memory 100, about 10 s") {
        return;
    }
    let tmp = scratch_tmp();
    let o = fixtures::labs_command()
        .args(["verify", &format!("{BENCH}/leader.labs"), "n=8", "--backend", "lnt", "--workflow", "monolithic"])
        .args(["--memory", "100", "--json"])
        .env("CADP_TMP", &*tmp)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    let (v, stopped) = verdicts(&json(&o));
    assert!(v.iter().all(|(_, v)| v == "unknown"), "{v:?}");
    assert_eq!(stopped, "memory");
    assert!(leftovers(&tmp).is_empty(), "{:?}", leftovers(&tmp));
}
