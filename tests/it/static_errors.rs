//! Static errors and warnings of the front end (labs-language.md §4, §4.3): each case asserts
//! the message, the line and the column.

use crate::fixtures;

use labs::behaviour::compile_all;
use labs::diagnostics::{Diagnostic, Severity};
use labs::model::externs::parse_externs;
use labs::model::{ResolveError, resolve};
use labs::syntax::parse;
use labs::syntax::span::SourceFile;

/// All diagnostics of loading `src` (parse, resolve, compile), as (severity, message, line, col).
fn diagnostics(src: &str, externs: &[&str]) -> Vec<(Severity, String, usize, usize)> {
    let file = SourceFile::new("t.labs", src);
    let parsed = parse(src);
    let fmt = |d: &Diagnostic| {
        let (l, c) = d.location(&file).unwrap_or((0, 0));
        (d.severity, d.message.clone(), l, c)
    };
    let spec = match parsed.spec {
        Some(s) if !parsed.diagnostics.has_errors() => s,
        _ => return parsed.diagnostics.items.iter().map(fmt).collect(),
    };
    let externs = parse_externs(externs).unwrap();
    match resolve(&spec, src, &externs) {
        Err(ResolveError::Invalid(d) | ResolveError::BadExternValues(d)) => d.items.iter().map(fmt).collect(),
        Err(ResolveError::MissingExterns(names)) => vec![(Severity::Error, format!("missing {names:?}"), 0, 0)],
        Ok((model, warnings)) => {
            let mut out: Vec<_> = warnings.items.iter().map(fmt).collect();
            match compile_all(&model) {
                Ok((_, w)) => out.extend(w.items.iter().map(fmt)),
                Err(d) => out.extend(d.items.iter().map(fmt)),
            }
            out
        }
    }
}

#[track_caller]
fn expect(src: &str, externs: &[&str], severity: Severity, message: &str, line: usize, col: usize) {
    let all = diagnostics(src, externs);
    assert!(
        all.iter().any(|(s, m, l, c)| *s == severity && m.contains(message) && *l == line && *c == col),
        "expected {severity:?} containing {message:?} at {line}:{col}, got {all:#?}"
    );
}

#[track_caller]
fn error(src: &str, message: &str, line: usize, col: usize) {
    expect(src, &[], Severity::Error, message, line, col);
}

#[track_caller]
fn warning(src: &str, message: &str, line: usize, col: usize) {
    expect(src, &[], Severity::Warning, message, line, col);
}

const CHECK: &str = "check {\n}\n";

fn spec(body: &str) -> String {
    format!("{body}\n{CHECK}")
}

#[test]
fn undefined_variable() {
    error(&spec("system {\n  spawn = A: 1\n}\nagent A {\n  Behavior = y <- 1\n}"), "undefined variable `y`", 5, 14);
}

#[test]
fn arrow_must_match_store() {
    let src = spec("system {\n  environment = a: 1\n  spawn = P: 1\n}\nagent P {\n  Behavior = a <- 2\n}");
    error(&src, "`a` is an environment variable: it cannot be assigned with `<-`", 6, 14);
    let src = spec("system {\n  spawn = P: 1\n}\nagent P {\n  interface = a: 1\n  Behavior = a <-- 2\n}");
    error(&src, "`a` is an attribute: it cannot be assigned with `<--`", 6, 14);
}

#[test]
fn duplicate_agent_type() {
    let src = spec("system {\n  spawn = A: 1\n}\nagent A {\n  Behavior = Skip\n}\nagent A {\n  Behavior = Skip\n}");
    error(&src, "duplicate definition of agent type `A`", 7, 7);
}

#[test]
fn spawned_but_not_defined() {
    error(
        &spec("system {\n  spawn = A: 1, B: 2\n}\nagent A {\n  Behavior = Skip\n}"),
        "agent type `B` is spawned but not defined",
        2,
        17,
    );
}

#[test]
fn missing_behavior() {
    error(&spec("system {\n  spawn = A: 1\n}\nagent A {\n  Foo = Skip\n}"), "agent `A` has no `Behavior`", 4, 7);
}

#[test]
fn undefined_process() {
    error(
        &spec("system {\n  spawn = A: 1\n}\nagent A {\n  Behavior = Skip; Foo\n}"),
        "process `Foo` is not defined",
        5,
        20,
    );
}

#[test]
fn extern_used_but_not_declared() {
    let src = spec("system {\n  spawn = A: _n\n}\nagent A {\n  Behavior = Skip\n}");
    expect(&src, &["n=2"], Severity::Error, "extern `_n` is used but not declared", 2, 14);
}

#[test]
fn unused_extern_is_a_warning() {
    let src = spec("system {\n  extern = _n, _m\n  spawn = A: _n\n}\nagent A {\n  Behavior = Skip\n}");
    expect(&src, &["n=2"], Severity::Warning, "extern `_m` is declared but never used", 2, 16);
}

#[test]
fn negative_spawn() {
    let src = spec("system {\n  extern = _n\n  spawn = A: _n\n}\nagent A {\n  Behavior = Skip\n}");
    expect(&src, &["n=-1"], Severity::Error, "cannot spawn a negative number (-1) of agents `A`", 3, 14);
}

#[test]
fn zero_spawn_is_a_warning() {
    let src =
        spec("system {\n  spawn = A: 1, B: 0\n}\nagent A {\n  Behavior = Skip\n}\nagent B {\n  Behavior = Skip\n}");
    warning(&src, "agent type `B` is spawned 0 times", 2, 20);
}

#[test]
fn array_size_must_be_positive() {
    let src = spec("system {\n  environment = a[0]: 1\n  spawn = A: 1\n}\nagent A {\n  Behavior = Skip\n}");
    error(&src, "array `a` must have a positive size (got 0)", 2, 19);
}

#[test]
fn scalar_is_not_an_array() {
    let src = spec("system {\n  environment = a: 1\n  spawn = A: 1\n}\nagent A {\n  Behavior = a[0] <-- 1\n}");
    error(&src, "`a` is not an array", 6, 14);
}

#[test]
fn array_needs_index() {
    let src = spec("system {\n  environment = a[2]: 1\n  spawn = A: 1\n}\nagent A {\n  Behavior = a <-- 1\n}");
    error(&src, "`a` needs 1 index(es), got 0", 6, 14);
}

#[test]
fn constant_index_out_of_bounds() {
    let src = spec("system {\n  environment = a[2]: 1\n  spawn = A: 1\n}\nagent A {\n  Behavior = a[2] <-- 1\n}");
    error(&src, "index 2 is out of bounds for `a` (size 2)", 6, 16);
}

#[test]
fn property_needs_owner_for_attributes() {
    let src = "system {\n  spawn = A: 1\n}\nagent A {\n  interface = x: 0\n  Behavior = Skip\n}\ncheck {\n  P = always x = 0\n}\n";
    error(src, "`x` is not an environment variable", 9, 14);
}

#[test]
fn quantifier_over_unknown_type() {
    let src = "system {\n  spawn = A: 1\n}\nagent A {\n  interface = x: 0\n  Behavior = Skip\n}\ncheck {\n  P = always forall B b, x of b = 0\n}\n";
    error(src, "agent type `B` is not spawned", 9, 21);
}

#[test]
fn duplicate_property() {
    let src = "system {\n  environment = e: 0\n  spawn = A: 1\n}\nagent A {\n  Behavior = Skip\n}\ncheck {\n  P = always e = 0\n  P = finally e = 0\n}\n";
    error(src, "duplicate definition of property `P`", 10, 3);
}

#[test]
fn local_used_before_assigned() {
    let src = spec("system {\n  environment = e: 0\n  spawn = A: 1\n}\nagent A {\n  Behavior = { e <-- t; t := 1 }\n}");
    error(&src, "local `t` is used before it is assigned in this block", 6, 22);
}

#[test]
fn undefined_stigmergy_listed() {
    let src = spec("system {\n  spawn = A: 1\n}\nagent A {\n  stigmergies = S\n  Behavior = Skip\n}");
    error(&src, "stigmergy `S` is not defined", 5, 17);
}

#[test]
fn other_types_attribute() {
    let src = spec(
        "system {\n  spawn = A: 1, B: 1\n}\nagent A {\n  interface = x: 0\n  Behavior = Skip\n}\nagent B {\n  interface = y: 0\n  Behavior = y <- x\n}",
    );
    error(&src, "`x` is not an attribute of agent type `B`", 10, 19);
}

#[test]
fn assigned_twice() {
    let src = spec("system {\n  spawn = A: 1\n}\nagent A {\n  interface = x: 0\n  Behavior = x, x <- 1, 2\n}");
    error(&src, "`x` is assigned twice in one assignment", 6, 17);
}

#[test]
fn id_in_environment_initialiser() {
    let src = spec("system {\n  environment = e: id\n  spawn = A: 1\n}\nagent A {\n  Behavior = Skip\n}");
    error(&src, "`id` is not allowed here", 2, 20);
}

#[test]
fn variable_in_initialiser() {
    let src = spec("system {\n  environment = e: 0; f: e\n  spawn = A: 1\n}\nagent A {\n  Behavior = Skip\n}");
    error(&src, "constant expression", 2, 26);
}

#[test]
fn recursion_without_a_step() {
    let src = spec("system {\n  spawn = A: 1\n}\nagent A {\n  Behavior = Behavior\n}");
    error(&src, "`Behavior` calls itself without taking a step", 5, 14);
}

#[test]
fn jump_out_of_a_parallel_branch() {
    let src = spec(
        "system {\n  environment = e: 0\n  spawn = A: 1\n}\nagent A {\n  Behavior = (e <-- 1; Behavior) || e <-- 2\n}",
    );
    error(&src, "would jump out of the branch", 6, 24);
}

#[test]
fn unreachable_after_recursive_call() {
    let src = spec(
        "system {\n  environment = e: 0\n  spawn = A: 1\n}\nagent A {\n  Behavior = e <-- 1; Behavior; e <-- 2\n}",
    );
    warning(&src, "what follows is unreachable", 6, 23);
}

#[test]
fn agent_id_out_of_range_in_property() {
    let src = "system {\n  spawn = A: 2\n}\nagent A {\n  interface = x: 0\n  Behavior = Skip\n}\ncheck {\n  P = always x of 2 = 0\n}\n";
    error(src, "there is no agent 2 (agent ids are 0..1)", 9, 19);
}

#[test]
fn unlisted_stigmergy_is_held_with_a_warning() {
    // D7, as in shared/semantics-cases/holders.labs.
    let src = spec(
        "system {\n  spawn = A: 1, B: 1\n}\nstigmergy S {\n  link = true\n  v: 0\n}\nagent A {\n  stigmergies = S\n  Behavior = v <~ 1\n}\nagent B {\n  Behavior = v <~ 2\n}",
    );
    warning(&src, "agent type `B` uses stigmergy `S` without listing it", 13, 3);
}

#[test]
fn missing_extern_values_are_listed() {
    let src = spec("system {\n  extern = _n, _k\n  spawn = A: _n + _k\n}\nagent A {\n  Behavior = Skip\n}");
    let all = diagnostics(&src, &["n=1"]);
    assert_eq!(all, vec![(Severity::Error, "missing [\"_k\"]".to_string(), 0, 0)]);
}

#[test]
fn several_errors_at_once() {
    let src = spec("system {\n  spawn = A: 1\n}\nagent A {\n  Behavior = y <- 1; z <- 2\n}");
    let all = diagnostics(&src, &[]);
    assert!(all.iter().any(|d| d.1.contains("`y`")) && all.iter().any(|d| d.1.contains("`z`")), "{all:#?}");
}

#[test]
fn semantics_case_wrongarrow_is_rejected() {
    let src = fixtures::read("tests/cases/wrongarrow.labs");
    let all = diagnostics(&src, &[]);
    assert!(all.iter().any(|d| d.0 == Severity::Error && d.1.contains("cannot be assigned with `<-`")), "{all:#?}");
}

/// The empty-range warning folds its bounds with the one constant folder, so `abs`, `min`/`max`
/// and negation count as constant there as everywhere else: abs(-3)..2 is 3..2.
#[test]
fn empty_range_with_abs_is_a_warning() {
    let src = spec("system {\n  spawn = A: 1\n}\nagent A {\n  interface = x: abs(-3)..2\n  Behavior = x <- 1\n}");
    warning(&src, "the range 3..2 is empty", 5, 18);
    let src = spec("system {\n  spawn = A: 1\n}\nagent A {\n  interface = x: -(-3)..min(2, 5)\n  Behavior = x <- 1\n}");
    warning(&src, "the range 3..2 is empty", 5, 18);
}
