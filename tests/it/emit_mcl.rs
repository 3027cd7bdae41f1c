//! MCL queries: parameter order, update clauses and parenthesisation for multi-variable,
//! multi-agent, array and environment properties (where the reference's queries are scrambled
//! or vacuous), deadlock semantics of `finally`, and the shape of `fairly`.

use crate::fixtures;

use labs::analysis::values::analyse;
use labs::behaviour::compile_all;
use labs::lnt::{Dialect, EmitOptions, emit};
use labs::model::externs::parse_externs;
use labs::model::resolve;
use labs::syntax::parse;

/// The MCL text of property `prop`.
fn query(src: &str, externs: &[&str], prop: &str) -> String {
    let spec = parse(src).spec.unwrap();
    let (model, _) = resolve(&spec, src, &parse_externs(externs).unwrap()).unwrap();
    let (b, _) = compile_all(&model).unwrap();
    let a = analyse(&model, &b);
    let opts = EmitOptions {
        fair: false,
        properties: vec![prop.to_string()],
        dialect: Dialect::V2025,
        dialect_reason: String::new(),
        base: "t".into(),
        source: "t.labs".into(),
        usage: None,
    };
    let files = emit(&model, &b, &a, &opts).unwrap();
    files.into_iter().find(|f| f.name.ends_with(&format!("_{prop}.mcl"))).unwrap().contents
}

fn fixture(file: &str) -> String {
    fixtures::read(file)
}

/// The `vN = description` lines of the header, in order.
fn tracked(q: &str) -> Vec<String> {
    q.lines().filter_map(|l| l.trim().strip_prefix("v_")).map(|l| format!("v_{l}")).collect()
}

/// The formal parameter names of the fixpoint declared on the line starting with `head`.
fn formals(q: &str, head: &str) -> Vec<String> {
    let l = q.lines().map(str::trim).find(|l| l.starts_with(head)).unwrap();
    let inner = &l[l.find('(').unwrap() + 1..l.find(") .").unwrap()];
    inner.split(", ").map(|p| p.split(':').next().unwrap().to_string()).collect()
}

/// Every update clause `[ {GATE !a !k ?w:Int} ] X (args)` of variable `x` as (pattern, args).
fn updates(q: &str, x: &str) -> Vec<(String, Vec<String>)> {
    let mut out = vec![];
    for l in q.lines() {
        let l = l.trim();
        if let Some(rest) = l.strip_prefix("([ {")
            && rest.contains("?w:Int")
            && rest.contains(&format!("] {x} ("))
        {
            let pat = rest[..rest.find('}').unwrap()].to_string();
            let args = &rest[rest.rfind('(').unwrap() + 1..rest.rfind("))").unwrap()];
            out.push((pat, args.split(", ").map(String::from).collect()));
        }
    }
    out
}

/// Fully parenthesised: in every parenthesised group, `and` and `or` never mix at the top
/// level, and there is no empty group.
fn fully_parenthesised(text: &str) -> bool {
    if text.contains("()") {
        return false;
    }
    let mut stack: Vec<(bool, bool)> = vec![(false, false)];
    let words: Vec<&str> = text.split(' ').collect();
    for w in words {
        for c in w.chars().filter(|c| *c == '(') {
            let _ = c;
            stack.push((false, false));
        }
        let t = w.trim_matches(|c| c == '(' || c == ')');
        if t == "and" {
            stack.last_mut().unwrap().0 = true;
        }
        if t == "or" {
            stack.last_mut().unwrap().1 = true;
        }
        for _ in w.chars().filter(|c| *c == ')') {
            let (a, o) = stack.pop().unwrap();
            if a && o {
                return false;
            }
        }
    }
    stack.len() == 1
}

/// Checks that the update clauses of `x` replace exactly their own parameter (`prefix_i`) by
/// `w`, in formal order, and that the initialisation phase (`Start`) does the same with `s_i`.
fn check_updates(q: &str, n: usize, x: &str) {
    for (x, prefix) in [(x, "v"), ("Start", "s")] {
        let ups = updates(q, x);
        assert_eq!(ups.len(), n, "{x} in\n{q}");
        for (i, (_, args)) in ups.iter().enumerate() {
            for (j, a) in args.iter().take(n).enumerate() {
                let want = if i == j { "w".to_string() } else { format!("{prefix}_{j}") };
                assert_eq!(a, &want, "update {i} of {x} in\n{q}");
            }
        }
    }
}

#[test]
fn flock_two_variables_three_agents() {
    let q = query(&fixture("benchmarks/flock.labs"), &["birds=3", "grid=5", "delta=5"], "Consensus");
    // One consistent order: by agent, then by variable (dirx before diry).
    assert_eq!(
        tracked(&q),
        [
            "v_0 = dirx of agent 0",
            "v_1 = diry of agent 0",
            "v_2 = dirx of agent 1",
            "v_3 = diry of agent 1",
            "v_4 = dirx of agent 2",
            "v_5 = diry of agent 2",
        ]
    );
    assert_eq!(formals(&q, "nu Start"), ["s_0", "s_1", "s_2", "s_3", "s_4", "s_5"]);
    assert_eq!(formals(&q, "mu R"), ["v_0", "v_1", "v_2", "v_3", "v_4", "v_5", "settled"]);
    assert!(q.contains("mu R (v_0: Int := s_0, v_1: Int := s_1, v_2: Int := s_2, v_3: Int := s_3, v_4: Int := s_4, v_5: Int := s_5, settled: Bool := true)"));
    let ups = updates(&q, "R");
    let pats: Vec<&str> = ups.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        pats,
        [
            "L_DIRX !0 !0 ?w:Int",
            "L_DIRY !0 !0 ?w:Int",
            "L_DIRX !1 !0 ?w:Int",
            "L_DIRY !1 !0 ?w:Int",
            "L_DIRX !2 !0 ?w:Int",
            "L_DIRY !2 !0 ?w:Int",
        ]
    );
    check_updates(&q, 6, "R");
    // b1 = b2 pairs fold to true: no empty conjunction (the reference printed `()`).
    let pred = q.lines().find(|l| l.trim().starts_with("(settled and")).unwrap();
    assert!(fully_parenthesised(pred), "{pred}");
    assert!(pred.contains("(v_0 = v_2)") && pred.contains("(v_1 = v_3)"));
    assert!(!pred.contains("(v_0 = v_0)"));
    assert!(fully_parenthesised(&q));
    // finally: a deadlock without the predicate is a violation (D12).
    assert!(q.contains("            (< true > true)\n            and\n"));
}

#[test]
fn eleven_agents_keep_numeric_order() {
    let q = query(&fixture("benchmarks/leader.labs"), &["n=12"], "LeaderIs0");
    let t = tracked(&q);
    assert_eq!(t.len(), 12);
    assert_eq!(t[2], "v_2 = leader of agent 2");
    assert_eq!(t[10], "v_10 = leader of agent 10");
    let ups = updates(&q, "R");
    assert_eq!(ups[10].0, "L_LEADER !10 !0 ?w:Int");
    check_updates(&q, 12, "R");
}

#[test]
fn environment_array_and_attribute() {
    let q = query(&fixture("benchmarks/philosophers.labs"), &["n=3"], "P1");
    assert_eq!(tracked(&q), ["v_0 = status of agent 0", "v_1 = status of agent 1", "v_2 = status of agent 2"]);
    let src = "system {
    environment = fork[3]: 0
    spawn = Phil: 3
}
agent Phil {
    interface = status: 0
    Behavior = fork[id] = 0 -> fork[id] <-- 1; status <- 1
}
check {
    Mixed = always fork[2] = 0 or status of 1 != 1
}
";
    let q = query(src, &[], "Mixed");
    // The environment first, then agents; array elements by index.
    assert_eq!(tracked(&q), ["v_0 = fork[2] (environment)", "v_1 = status of agent 1"]);
    let pats: Vec<String> = updates(&q, "Inv").into_iter().map(|(p, _)| p).collect();
    assert_eq!(pats, ["E_FORK !2 ?w:Int", "A_STATUS !1 !0 ?w:Int"]);
    check_updates(&q, 2, "Inv");
    assert!(q.contains("((not settled) or ((v_0 = 0) or (v_1 <> 1)))"), "{q}");
    assert!(q.contains("([ (not (\"DONE\" or {E_FORK !2 ...} or {A_STATUS !1 !0 ...})) ] Inv (v_0, v_1, settled))"));
    assert!(q.contains("([ (not (\"DONE\" or {E_FORK !2 ...} or {A_STATUS !1 !0 ...})) ] Start (s_0, s_1))"));
}

#[test]
fn dynamic_array_index() {
    let src = "system {
    environment = arr[2]: 0; u: 1
    spawn = A: 1
}
agent A {
    Behavior = u <-- 0
}
check {
    Dyn = always arr[u] = 0
}
";
    let q = query(src, &[], "Dyn");
    assert_eq!(tracked(&q), ["v_0 = arr[0] (environment)", "v_1 = arr[1] (environment)", "v_2 = u (environment)"]);
    assert!(q.contains("(((v_2 = 0) and (v_0 = 0)) or ((v_2 = 1) and (v_1 = 0)))"), "{q}");
    check_updates(&q, 3, "Inv");
}

#[test]
fn fairly_is_reach_and_predicate_or_boxes() {
    let q = query(&fixture("benchmarks/twophase.labs"), &["workers=2"], "InfCommits");
    // fairly_inf: Reach and boxes.
    assert!(q.contains(
        "      nu Inv (v_0: Int := s_0, settled: Bool := true) . (\n         (\n            mu R (r_0: Int := v_0, rsettled: Bool := settled) . ("
    ), "{q}");
    assert!(q.contains("         )\n         and\n         ([ \"DONE\" ] Inv (v_0, true))"), "{q}");
    let src = "system { spawn = A: 2 }
agent A {
    interface = x: 0
    Behavior = x < 2 -> x <- x + 1; Behavior
}
check { F = fairly exists A a, x of a = 2 }
";
    let q = query(src, &[], "F");
    let expected = "         and
         (
            (settled and ((v_0 = 2) or (v_1 = 2)))
            or
            (
               ([ \"DONE\" ] Inv (v_0, v_1, true))";
    assert!(q.contains(expected), "{q}");
    assert!(q.contains("(rsettled and ((r_0 = 2) or (r_1 = 2)))"));
    assert!(q.contains("(< {A_X !0 !0 ?w:Int} > R (w, r_1, false))"));
    assert!(fully_parenthesised(&q));
}

#[test]
fn undefined_values_in_properties() {
    let src = "system { spawn = A: 1 }
agent A {
    interface = u: undef; x: 0
    Behavior = x <- 1
}
check { U = always u of 0 != 5 or x of 0 = 1 }
";
    let q = query(src, &[], "U");
    // A comparison with ⊥ is false: u may be ⊥ (x may not).
    assert!(q.contains("(((v_0 <> (- 1)) and (v_0 <> 5)) or (v_1 = 1))"), "{q}");
}

#[test]
fn constant_predicates_fold() {
    let src = "system { spawn = A: 2 }
agent A {
    interface = x: 0
    Behavior = x <- 1
}
check { T = always forall A a, id of a = id of a }
";
    let q = query(src, &[], "T");
    assert!(q.contains("nu Start . (\n   ([ \"DONE\" ]"), "{q}");
    assert!(q.contains("nu Inv (settled: Bool := true) . (\n         ((not settled) or true)"), "{q}");
    assert!(!q.contains("()"));
}

#[test]
fn min_max_split_into_cases() {
    let src = "system { spawn = A: 2 }
agent A {
    interface = x: 0..3
    Behavior = x <- x + 1
}
check { M = always min(x of 0, x of 1) < 3 }
";
    let q = query(src, &[], "M");
    assert!(q.contains("((not settled) or (((v_0 <= v_1) and (v_0 < 3)) or ((v_0 > v_1) and (v_1 < 3))))"), "{q}");
    assert!(fully_parenthesised(&q));
}
