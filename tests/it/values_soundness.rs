//! End-to-end soundness of the value analysis: every value the native engine reaches (every
//! variable, every agent, every reachable state) lies inside the analysed set.

use crate::fixtures;

use labs::analysis::values::analyse;
use labs::behaviour::compile_all;
use labs::engine::reachable_values;
use labs::model::externs::parse_externs;
use labs::model::{Store, resolve};
use labs::syntax::parse;
use std::path::Path;

/// (file, externs, fair) from the `# case:` lines of a file (one run without externs if none).
fn runs(path: &Path) -> Vec<(Vec<String>, bool)> {
    let src = std::fs::read_to_string(path).unwrap();
    let mut out = vec![];
    for l in src.lines() {
        if let Some(c) = l.strip_prefix("# case:") {
            let args = c.split("=>").next().unwrap_or("");
            let fair = args.split_whitespace().any(|w| w == "--fair");
            let ex = args.split_whitespace().filter(|w| !w.starts_with("--")).map(String::from).collect();
            if !c.contains("exit=") {
                out.push((ex, fair));
            }
        }
    }
    out
}

fn check(path: &Path, externs: &[String], fair: bool) -> usize {
    let src = std::fs::read_to_string(path).unwrap();
    let spec = parse(&src).spec.unwrap();
    let (model, _) = resolve(&spec, &src, &parse_externs(externs).unwrap()).unwrap();
    let (behs, _) = compile_all(&model).unwrap();
    let a = analyse(&model, &behs);
    let Some(reached) = reachable_values(&model, &behs, fair, Some(3_000_000)) else { return 0 };
    let mut checked = 0;
    for ((v, t), vals) in &reached {
        let key = if model.vars[*v].store == Store::Env { None } else { *t };
        let set = a.get(*v, key).unwrap_or_else(|| panic!("{}: no set for {}", path.display(), model.vars[*v].name));
        for x in vals {
            let inside = match x {
                Some(x) => set.contains(*x),
                None => set.contains_undef(),
            };
            assert!(inside, "{} {externs:?}: {} reaches {x:?}, outside {set}", path.display(), model.vars[*v].name);
            checked += 1;
        }
    }
    checked
}

#[test]
fn semantics_cases_and_examples() {
    let mut n = 0;
    for d in [fixtures::cases(), fixtures::examples()] {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "labs") {
                for (ex, fair) in runs(&p) {
                    n += check(&p, &ex, fair);
                }
            }
        }
    }
    assert!(n > 200, "only {n} values checked");
}

#[test]
fn benchmarks_at_small_parameters() {
    let b = |f: &str| fixtures::benchmarks().join(f);
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let mut n = 0;
    n += check(&b("leader.labs"), &s(&["n=4"]), false);
    n += check(&b("philosophers.labs"), &s(&["n=3"]), false);
    n += check(&b("twophase.labs"), &s(&["workers=2"]), false);
    n += check(&b("twophasecommit.labs"), &s(&["workers=2"]), false);
    n += check(&b("formation.labs"), &s(&["n=2", "size=5", "range=2"]), false);
    n += check(&b("flock.labs"), &s(&["birds=2", "grid=3", "delta=2"]), true);
    assert!(n > 30, "only {n} values checked");
}
