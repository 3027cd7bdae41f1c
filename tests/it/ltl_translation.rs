//! The translation of linear-time formulas into automata, as a user meets it (docs/semantics.md,
//! D14): a disjunction of recurrences stays small (it is one recurrence), an automaton over the
//! documented bound is refused by name while the other properties are decided, and the LNT
//! monitor gets the same small automaton, or is refused by name when its tables would be too
//! large.

use crate::fixtures::{labs, stderr, stdout};
use crate::scratch::Scratch;
use serde_json::Value;

/// `x` counts 0, 1, 2, 0, … forever (3 states, one cycle); `y` stays 0.
fn counter_spec(checks: &str) -> String {
    format!(
        "system {{\n    environment = x: 0; y: 0\n    spawn = P: 1\n}}\n\
         agent P {{\n    Behavior = x <-- (x + 1) % 3; Behavior\n}}\n\
         check {{\n    Small = always x < 3\n{checks}\n}}\n"
    )
}

/// `(always finally x = v0) or (always finally x = v1) or …`.
fn recurrences(values: &[i32]) -> String {
    values.iter().map(|v| format!("(always finally x = {v})")).collect::<Vec<_>>().join(" or ")
}

fn verdict<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["results"].as_array().unwrap().iter().find(|r| r["property"] == name).unwrap_or_else(|| panic!("no {name}"))
}

/// The formula: 13 recurrences. Its negation is a conjunction of 13 stabilisations,
/// whose tableau has 2^13 states unless `F G a ∧ F G b` is merged into `F G (a ∧ b)`.
#[test]
fn a_disjunction_of_recurrences_is_decided_at_once() {
    let values = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 22];
    // x = 0 comes back every third step: the first disjunct holds on the only run.
    let holds = Scratch::file("ltl-or", "or.labs", &counter_spec(&format!("    Big = {}", recurrences(&values))));
    // x never takes a value in 3..=15: every disjunct fails on the cycle.
    let never: Vec<i32> = (3..16).collect();
    let fails = Scratch::file("ltl-or", "or.labs", &counter_spec(&format!("    Big = {}", recurrences(&never))));
    for extra in [&[][..], &["--exhaustive"][..]] {
        let mut args = vec!["verify", holds.as_str(), "--timeout", "20", "--json"];
        args.extend(extra);
        let o = labs(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(verdict(&v, "Small")["verdict"], "holds");
        assert_eq!(verdict(&v, "Big")["verdict"], "holds");

        let mut args = vec!["verify", fails.as_str(), "--timeout", "20", "--json"];
        args.extend(extra);
        let o = labs(&args);
        assert_eq!(o.status.code(), Some(10), "{}", stderr(&o));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(verdict(&v, "Small")["verdict"], "holds");
        let big = verdict(&v, "Big");
        assert_eq!(big["verdict"], "violated");
        // No finite prefix violates a recurrence: the counterexample is a lasso whose loop
        // goes round the cycle of three states.
        let t = &big["trace"];
        let steps = t["steps"].as_array().unwrap().len();
        let start = t["loop_start"].as_u64().expect("a lasso") as usize;
        assert!(steps > start && (steps - start).is_multiple_of(3), "{t}");
    }
}

/// 13 disjuncts `(always finally x = i) and y = i`: the negation's conjunction of
/// `F G x ≠ i ∨ y ≠ i` has 3^13 ways to meet its obligations from the first state alone, far
/// past the bound of 100,000 transitions. That property alone is `unknown`, with the reason in
/// the text and the JSON, and the other one is decided (exit 5).
#[test]
fn an_automaton_over_the_bound_is_refused_by_name() {
    let terms: Vec<String> = (0..13).map(|i| format!("((always finally x = {i}) and y = {i})")).collect();
    let spec = Scratch::file("ltl-cap", "cap.labs", &counter_spec(&format!("    Big = {}", terms.join(" or "))));
    let o = labs(&["verify", spec.as_str(), "--timeout", "20"]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.lines().any(|l| l.starts_with("Small") && l.ends_with("holds")), "{out}");
    let big = out.lines().find(|l| l.starts_with("Big")).expect("a verdict for Big");
    assert!(
        big.contains("unknown (not checked: its automaton passes the bound of 10000 states and 100000 transitions"),
        "{big}"
    );
    let o = labs(&["verify", spec.as_str(), "--timeout", "20", "--json"]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(verdict(&v, "Small")["verdict"], "holds");
    assert_eq!(verdict(&v, "Big")["verdict"], "unknown");
    assert!(verdict(&v, "Big")["reason"].as_str().unwrap().contains("100000 transitions"), "{v}");
    assert!(verdict(&v, "Small").get("reason").is_none(), "{v}");
    assert!(v["stopped"].is_null(), "{v}");
}

/// The LNT monitor runs the same automaton: 8 recurrences give a monitor of 3 states (2 and
/// the sink), not 2^8 × 8; and the property holds through `--backend lnt` as natively.
#[test]
fn the_monitor_of_a_disjunction_of_recurrences_is_small() {
    let spec = Scratch::file(
        "ltl-mon",
        "mon.labs",
        &counter_spec(&format!("    Big = {}", recurrences(&[0, 1, 2, 3, 4, 5, 6, 7]))),
    );
    let dir = spec.parent().unwrap().join("out");
    let o = labs(&["emit", spec.as_str(), "-o", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lnt = std::fs::read_to_string(dir.join("mon.lnt")).unwrap();
    assert!(lnt.contains("Büchi automaton of the property's negation (3 states"), "{}", lnt.len());
    let o = labs(&["verify", spec.as_str(), "--backend", "lnt", "--timeout", "60"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
}

/// 5 disjuncts `(always finally x = i) and y = i` read 10 atoms: the monitor's tables would
/// list 1024 valuations for each of its hundreds of states. Refused by name, before anything
/// is written.
#[test]
fn a_monitor_over_the_table_bound_is_refused_by_name() {
    let terms: Vec<String> = (0..5).map(|i| format!("((always finally x = {i}) and y = {i})")).collect();
    let spec = Scratch::file("ltl-mon-cap", "cap.labs", &counter_spec(&format!("    Big = {}", terms.join(" or "))));
    let dir = spec.parent().unwrap().join("out");
    let o = labs(&["emit", spec.as_str(), "-o", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("monitor tables exceed 65536 entries") && err.contains("property `Big`"), "{err}");
    assert!(!dir.join("cap.lnt").exists());
    // The native engine decides it: y = 0 and x = 0 recurs, so the first disjunct holds.
    let o = labs(&["verify", spec.as_str()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}
