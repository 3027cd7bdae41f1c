//! How linear-time formulas parse (docs/language.md §6.1): each binding level and the reading
//! of a prefix's state predicate, compared with the explicitly parenthesised text; the forms
//! that must parse; the errors that name the real problem; and random formulas printed with
//! the fewest parentheses, which must parse to the tree of their fully parenthesised print.
//! The verdicts of these readings, derived by hand, are the cases `tests/cases/ltl_*.labs`.

use crate::fixtures;
use crate::parser_props::{bexpr, expr_q, ident, strip_b, z};
use crate::scratch::Scratch;
use labs::diagnostics::Diagnostic;
use labs::syntax::Ltl;
use labs::syntax::ast::*;
use labs::syntax::parse;
use labs::syntax::printer::{erase_spans, print_formula, print_formula_full, print_spec};
use labs::syntax::span::SourceFile;
use proptest::prelude::*;

/// A specification whose only property is `P = {formula}`, on line 6 from column 7.
fn spec_text(formula: &str) -> String {
    format!("system {{\n  environment = x: 0; y: 0; z: 0\n  spawn = A: 2\n}}\ncheck {{\n  P = {formula}\n}}\n")
}

/// The property's formula, whatever modality the parser gave it.
fn formula_of(p: &Property) -> Ltl<QPred> {
    let atom = || Box::new(Ltl::Atom(p.pred.clone()));
    match &p.modality {
        Modality::Always => Ltl::Always(atom()),
        Modality::Finally | Modality::Eventually => Ltl::Finally(atom()),
        Modality::Ltl(f) => f.clone(),
        other => panic!("not a linear-time property: {other:?}"),
    }
}

fn parsed(formula: &str) -> Result<Ltl<QPred>, String> {
    let out = parse(&spec_text(formula));
    let spec = out.spec.ok_or_else(|| format!("`{formula}` does not parse: {:?}", out.diagnostics))?;
    Ok(formula_of(&erase_spans(&spec).properties[0]))
}

/// A formula up to spans and parentheses inside predicates, with `and`, `or` and `not` between
/// unquantified predicates made part of the predicate (as the parser reads them).
fn normal(f: &Ltl<QPred>) -> Ltl<QPred> {
    let b = |x: &Ltl<QPred>| Box::new(normal(x));
    let atom = |body: BExpr| Ltl::Atom(QPred { quants: vec![], body, span: z() });
    match f {
        Ltl::Atom(q) => Ltl::Atom(QPred {
            quants: q
                .quants
                .iter()
                .map(|q| Quantifier { kind: q.kind, agent: ident(&q.agent.name), var: ident(&q.var.name) })
                .collect(),
            body: strip_b(&erase_body(&q.body)),
            span: z(),
        }),
        Ltl::Not(x) => match normal(x) {
            Ltl::Atom(q) if q.quants.is_empty() => atom(BExpr::Not(Box::new(q.body), z())),
            x => Ltl::Not(Box::new(x)),
        },
        Ltl::And(x, y) | Ltl::Or(x, y) => {
            let op = if matches!(f, Ltl::And(..)) { BoolOp::And } else { BoolOp::Or };
            match (normal(x), normal(y)) {
                (Ltl::Atom(p), Ltl::Atom(q)) if p.quants.is_empty() && q.quants.is_empty() => {
                    atom(BExpr::Logic(op, Box::new(p.body), Box::new(q.body), z()))
                }
                (x, y) if op == BoolOp::And => Ltl::And(Box::new(x), Box::new(y)),
                (x, y) => Ltl::Or(Box::new(x), Box::new(y)),
            }
        }
        Ltl::Always(x) => Ltl::Always(b(x)),
        Ltl::Finally(x) => Ltl::Finally(b(x)),
        Ltl::Implies(x, y) => Ltl::Implies(b(x), b(y)),
        Ltl::Until(x, y) => Ltl::Until(b(x), b(y)),
        Ltl::Unless(x, y) => Ltl::Unless(b(x), b(y)),
    }
}

/// A predicate's body with its spans erased (through a one-property specification).
fn erase_body(body: &BExpr) -> BExpr {
    let pred = QPred { quants: vec![], body: body.clone(), span: z() };
    let spec = Spec {
        system: System { externs: vec![], environment: vec![], spawn: vec![], processes: vec![], span: z() },
        stigmergies: vec![],
        agents: vec![],
        assumptions: vec![Assumption { name: ident("H"), pred }],
        properties: vec![],
    };
    erase_spans(&spec).assumptions[0].pred.body.clone()
}

#[track_caller]
fn same(text: &str, parenthesised: &str) {
    let (a, b) = (parsed(text).unwrap(), parsed(parenthesised).unwrap());
    assert_eq!(normal(&a), normal(&b), "`{text}` should read `{parenthesised}`");
}

#[track_caller]
fn not_same(text: &str, other: &str) {
    let (a, b) = (parsed(text).unwrap(), parsed(other).unwrap());
    assert_ne!(normal(&a), normal(&b), "`{text}` should not read `{other}`");
}

#[test]
fn until_and_unless_bind_tighter_than_and_and_or() {
    // The example of issue 55: the `or` is the outer operator.
    same("(x = 0) or (y = 5) until (y = 1)", "(x = 0) or ((y = 5) until (y = 1))");
    not_same("(x = 0) or (y = 5) until (y = 1)", "((x = 0) or (y = 5)) until (y = 1)");
    same("x = 0 or y = 5 until y = 1", "x = 0 or (y = 5 until y = 1)");
    same("x = 0 and y = 5 until y = 1", "x = 0 and (y = 5 until y = 1)");
    not_same("x = 0 and y = 5 until y = 1", "(x = 0 and y = 5) until y = 1");
    same("x = 0 or y = 5 unless y = 1", "x = 0 or (y = 5 unless y = 1)");
    same("x = 0 and y = 5 unless y = 1", "x = 0 and (y = 5 unless y = 1)");
    same("x = 0 until y = 1 and z = 2", "(x = 0 until y = 1) and z = 2");
    same("x = 0 until y = 1 or z = 2", "(x = 0 until y = 1) or z = 2");
    // Several levels at once: `and` over `or`, both of predicates and of formulas.
    same("x = 0 and y = 1 or z = 2 until x = 3", "(x = 0 and y = 1) or (z = 2 until x = 3)");
    same("x = 0 or y = 1 and z = 2 until x = 3", "x = 0 or (y = 1 and (z = 2 until x = 3))");
}

#[test]
fn and_binds_tighter_than_or_which_binds_tighter_than_implies() {
    same(
        "finally x = 0 or finally y = 0 and finally z = 0",
        "(finally x = 0) or ((finally y = 0) and (finally z = 0))",
    );
    not_same("finally x = 0 or finally y = 0 and finally z = 0", "(finally x = 0 or finally y = 0) and finally z = 0");
    same(
        "finally x = 0 or finally y = 0 implies finally z = 0",
        "((finally x = 0) or (finally y = 0)) implies finally z = 0",
    );
    same(
        "finally x = 0 implies finally y = 0 or finally z = 0",
        "finally x = 0 implies ((finally y = 0) or (finally z = 0))",
    );
    same(
        "finally x = 0 and finally y = 0 implies finally z = 0",
        "((finally x = 0) and (finally y = 0)) implies finally z = 0",
    );
    same("x = 0 until y = 0 implies finally z = 0", "(x = 0 until y = 0) implies (finally z = 0)");
}

#[test]
fn associativity() {
    same("x = 0 until y = 0 until z = 0", "x = 0 until (y = 0 until z = 0)");
    not_same("x = 0 until y = 0 until z = 0", "(x = 0 until y = 0) until z = 0");
    same("x = 0 unless y = 0 until z = 0", "x = 0 unless (y = 0 until z = 0)");
    same("x = 0 until y = 0 unless z = 0", "x = 0 until (y = 0 unless z = 0)");
    same(
        "finally x = 0 implies finally y = 0 implies finally z = 0",
        "finally x = 0 implies (finally y = 0 implies finally z = 0)",
    );
    not_same(
        "finally x = 0 implies finally y = 0 implies finally z = 0",
        "(finally x = 0 implies finally y = 0) implies finally z = 0",
    );
    same(
        "finally x = 0 and finally y = 0 and finally z = 0",
        "((finally x = 0) and (finally y = 0)) and (finally z = 0)",
    );
    same("finally x = 0 or finally y = 0 or finally z = 0", "((finally x = 0) or (finally y = 0)) or (finally z = 0)");
}

#[test]
fn prefixes_bind_tightest() {
    same("always x = 0 until y = 1", "(always x = 0) until y = 1");
    not_same("always x = 0 until y = 1", "always (x = 0 until y = 1)");
    same("finally x = 0 unless y = 1", "(finally x = 0) unless y = 1");
    same("not (x = 0) until y = 1", "(not (x = 0)) until y = 1");
    same("not always x = 0 until y = 1", "(not (always x = 0)) until y = 1");
    same("x = 0 until always y = 1", "x = 0 until (always y = 1)");
    same("always finally x = 0 until y = 1", "(always (finally x = 0)) until y = 1");
    same("finally x = 0 and finally y = 0", "(finally x = 0) and (finally y = 0)");
    same("always x = 0 implies finally y = 1", "(always x = 0) implies (finally y = 1)");
}

#[test]
fn a_prefix_takes_the_longest_state_predicate() {
    // LAbS's reading: the predicate after `always`/`finally` extends over `and` and `or`.
    same("always x = 1 and y = 2", "always (x = 1 and y = 2)");
    not_same("always x = 1 and y = 2", "(always x = 1) and y = 2");
    same("always x = 1 or y = 2", "always (x = 1 or y = 2)");
    same("finally x = 1 and y = 2 or z = 3", "finally ((x = 1 and y = 2) or z = 3)");
    same("x = 0 and always y = 1 or z = 1", "x = 0 and always (y = 1 or z = 1)");
    same("always finally x = 1 and y = 2", "always (finally (x = 1 and y = 2))");
    same("always not (x = 1) and y = 2", "always ((not (x = 1)) and y = 2)");
    same("always x = 1 and y = 2 implies finally z = 3", "(always (x = 1 and y = 2)) implies finally z = 3");
    // ... but not over a connective whose right operand holds a temporal operator.
    same("always x = 1 and finally y = 2", "(always x = 1) and (finally y = 2)");
    same("always x = 1 and y = 2 until z = 3", "(always x = 1) and (y = 2 until z = 3)");
    same("always x = 1 or y = 2 until z = 3", "(always x = 1) or (y = 2 until z = 3)");
    same("always x = 1 or y = 2 and finally z = 3", "(always x = 1) or (y = 2 and finally z = 3)");
    same("always x = 1 and y = 2 or finally z = 3", "(always (x = 1 and y = 2)) or finally z = 3");
    same("always x = 1 and y = 2 and finally z = 3", "(always (x = 1 and y = 2)) and finally z = 3");
    same("always x = 1 or y = 2 or z = 3 until x = 2", "(always (x = 1 or y = 2)) or (z = 3 until x = 2)");
    same("always x = 1 and (y = 2 until z = 3)", "(always x = 1) and (y = 2 until z = 3)");
    same("always (x = 1) and y = 2", "always ((x = 1) and y = 2)");
}

#[test]
fn quantifiers_scope_over_the_longest_state_predicate() {
    same("always forall A a, y of a = 1 and x = 2", "always (forall A a, (y of a = 1 and x = 2))");
    same("exists A a, y of a = 1 until x = 2", "(exists A a, y of a = 1) until x = 2");
    same("exists A a, y of a = 1 or x = 1 until x = 2", "(exists A a, y of a = 1) or (x = 1 until x = 2)");
    same("exists A a, y of a = 1 implies finally x = 2", "(exists A a, y of a = 1) implies finally x = 2");
    same("x = 1 until forall A a, y of a = 1 or x = 2", "x = 1 until (forall A a, (y of a = 1 or x = 2))");
    same("x = 1 and forall A a, y of a = 1 until x = 2", "x = 1 and ((forall A a, y of a = 1) until x = 2)");
    // A parenthesised quantified predicate is one atom; the quantifiers of a group at the
    // front of another quantifier's predicate join its list.
    let f = parsed("always (forall A a, y of a = 1) and x = 2").unwrap();
    match &f {
        Ltl::Always(x) => match x.as_ref() {
            Ltl::And(l, r) => {
                assert!(matches!(l.as_ref(), Ltl::Atom(q) if q.quants.len() == 1), "{f:?}");
                assert!(matches!(r.as_ref(), Ltl::Atom(q) if q.quants.is_empty()), "{f:?}");
            }
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
    same("always forall A a, (exists A b, y of a = y of b)", "always forall A a, exists A b, y of a = y of b");
}

/// Issue 55: forms that must parse (their verdicts: `tests/cases/ltl_forms.labs`).
#[test]
fn valid_forms_parse() {
    for text in [
        "x of 0 = 0 until x of 1 = 1",
        "y of 0 < 3 until y of 0 = 3",
        "not (x = 5)",
        "always not (x = 5)",
        "not (x = 1) until x = 2",
        "always (exists A a, d of a = 0)",
        "finally (forall A a, x of a = 2)",
        "((exists W w, s of w = 1) implies finally c >= 1)",
        "not always x = 1",
        "!(x = 1 until y = 2)",
        "always not (forall A a, x of a = 1)",
        "x until y",
    ] {
        parsed(text).unwrap_or_else(|e| panic!("{e}"));
    }
    // Their trees.
    same("not (x = 5)", "!(x = 5)");
    same("always not (x = 5)", "always !(x = 5)");
    same("not (x = 1) until x = 2", "(!(x = 1)) until (x = 2)");
    same("((exists A w, y of w = 1) implies finally x >= 1)", "(exists A w, y of w = 1) implies (finally x >= 1)");
    // `always (Q)` and `finally (Q)` keep their modalities, with the quantifiers.
    let spec = parse(&spec_text("always (exists A a, y of a = 0)")).spec.unwrap();
    assert_eq!(spec.properties[0].modality, Modality::Always);
    assert_eq!(spec.properties[0].pred.quants.len(), 1);
    let spec = parse(&spec_text("eventually (forall A a, y of a = 2)")).spec.unwrap();
    assert_eq!(spec.properties[0].modality, Modality::Eventually);
}

#[test]
fn until_names_a_variable_before_an_operand() {
    // The words of formulas stay usable as names where no connective can stand.
    same("always until = 1 and x = 2", "always (until = 1 and x = 2)");
    same("not = 1 until x = 2", "(not = 1) until (x = 2)");
}

#[test]
fn warnings() {
    let warned = |text: &str, what: &str| {
        let out = parse(&spec_text(text));
        assert!(out.spec.is_some(), "{text}: {:?}", out.diagnostics);
        out.diagnostics.items.iter().any(|d| !d.is_error() && d.message.contains(what))
    };
    // D11: an unparenthesised mix of `and` and `or` inside one predicate.
    assert!(warned("always x = 1 or y = 2 and z = 3", "binds tighter"));
    assert!(warned("x = 1 or y = 2 and z = 3 implies finally x = 2", "binds tighter"));
    // An `or` of formulas is no mix of predicates.
    assert!(!warned("x = 1 or y = 2 and z = 3 until x = 2", "binds tighter"));
    assert!(!warned("x = 1 or y = 2 until z = 3", "binds tighter"));
    assert!(!warned("x = 1 and y = 2 or finally z = 3", "binds tighter"));
    // A property without a temporal operator is about the initial states.
    assert!(warned("not (x = 5)", "initial states only"));
    assert!(warned("x = 1 implies y = 2", "initial states only"));
    assert!(!warned("x = 1 until y = 2", "initial states only"));
}

/// The first error of `P = {formula}`: its message or hint holds `text`, at column `col` of
/// the formula's line.
#[track_caller]
fn error(formula: &str, text: &str, col: usize) -> Diagnostic {
    let src = spec_text(formula);
    let out = parse(&src);
    assert!(out.spec.is_none(), "expected an error for `{formula}`");
    let d = out.diagnostics.items.iter().find(|d| d.is_error()).expect("an error").clone();
    let file = SourceFile::new("t.labs", &src);
    let all = format!("{} {}", d.message, d.hint.clone().unwrap_or_default());
    assert!(all.contains(text), "expected `{text}` in:\n{}", d.render(&file));
    assert_eq!(d.location(&file), Some((6, col)), "wrong location:\n{}", d.render(&file));
    d
}

#[test]
fn errors_name_the_real_problem() {
    // A misspelt keyword is named, not the token after it.
    error("always finaly x = 1", "did you mean `finally`?", 14);
    error("finaly x = 1", "did you mean `finally`?", 7);
    error("alwyas x = 1", "did you mean `always`?", 7);
    error("x = 1 untill y = 2", "did you mean `until`?", 13);
    error("(x = 1 unles y = 2) and finally z = 1", "did you mean `unless`?", 14);
    error("always (forall A a, y of a = 1 implis finally x = 1)", "did you mean `implies`?", 38);
    error("sometimes x = 1", "expected a modality", 7);
    // Issue 57: a branching modality or a scope inside a formula.
    let d = error("always fairly x = 1", "`fairly` cannot be an operand of a linear-time formula", 14);
    assert!(d.hint.unwrap().contains("a property of its own"));
    error("finally fairly_inf x = 1", "`fairly_inf` cannot be an operand", 15);
    error("always between (x = 1) and (x = 2), thereIs y = 1", "scoped pattern", 14);
    // Quantifiers and negation.
    error("forall A a, always y of a = 1", "a quantifier cannot scope over a temporal operator", 19);
    error("not forall A a, y of a = 1", "needs parentheses", 11);
    error("not x = 1 until y = 2", "`not` applies only to `true`, `false` or a parenthesised condition", 7);
    error("always x and y = 1", "a bare arithmetic expression cannot be an operand of `and`", 14);
    error("x and finally y = 1", "a bare arithmetic expression cannot be an operand of `and`", 7);
    error(
        "always forall A a, (exists A b, y of b = 1) and x = 1",
        "a quantified predicate can hold other quantifiers only at its front",
        26,
    );
}

#[test]
fn the_cli_names_a_misspelt_keyword_with_its_place() {
    let spec = Scratch::file("formula", "t.labs", &spec_text("always finaly x = 1"));
    let o = fixtures::labs(&["verify", spec.as_str()]);
    assert_eq!(o.status.code(), Some(6), "{}", fixtures::stderr(&o));
    let err = fixtures::stderr(&o);
    assert!(err.contains("did you mean `finally`?"), "{err}");
    assert!(err.contains("t.labs:6:14"), "{err}");
    // A quantified name used past the end of its predicate: the hint says where it ends.
    let text = "system {\n  spawn = A: 2\n}\nagent A {\n  interface = x: 0\n  Behavior = x <- 1\n}\ncheck {\n  \
                P = always forall A a, x of a < 3 and finally x of a = 2\n}\n";
    let spec = Scratch::file("formula", "t.labs", text);
    let o = fixtures::labs(&["verify", spec.as_str()]);
    assert_eq!(o.status.code(), Some(6), "{}", fixtures::stderr(&o));
    let err = fixtures::stderr(&o);
    assert!(err.contains("`a` is not a quantified agent here"), "{err}");
    assert!(err.contains("ends before a temporal operator"), "{err}");
    assert!(err.contains("t.labs:9:54"), "{err}");
}

// ------------------------------------------------------------------- random formulas

fn atom() -> BoxedStrategy<QPred> {
    let quants = prop_oneof![
        3 => Just(vec![]),
        1 => prop::collection::vec(any::<bool>(), 1..3),
    ];
    (quants, bexpr(expr_q(), true))
        .prop_map(|(qs, body)| QPred {
            quants: qs
                .iter()
                .map(|f| Quantifier {
                    kind: if *f { QuantKind::Forall } else { QuantKind::Exists },
                    agent: ident("A"),
                    var: ident("a"),
                })
                .collect(),
            body,
            span: z(),
        })
        .boxed()
}

fn formula() -> BoxedStrategy<Ltl<QPred>> {
    let b = Box::new;
    atom()
        .prop_map(Ltl::Atom)
        .prop_recursive(5, 24, 2, move |inner| {
            prop_oneof![
                inner.clone().prop_map(move |x| Ltl::Not(b(x))),
                inner.clone().prop_map(move |x| Ltl::Always(b(x))),
                inner.clone().prop_map(move |x| Ltl::Finally(b(x))),
                (inner.clone(), inner.clone()).prop_map(move |(x, y)| Ltl::And(b(x), b(y))),
                (inner.clone(), inner.clone()).prop_map(move |(x, y)| Ltl::Or(b(x), b(y))),
                (inner.clone(), inner.clone()).prop_map(move |(x, y)| Ltl::Implies(b(x), b(y))),
                (inner.clone(), inner.clone()).prop_map(move |(x, y)| Ltl::Until(b(x), b(y))),
                (inner.clone(), inner).prop_map(move |(x, y)| Ltl::Unless(b(x), b(y))),
            ]
        })
        .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// A random formula printed with the fewest parentheses parses to the tree of its fully
    /// parenthesised print, which is the formula itself; the whole specification printed
    /// back (`print_spec`, as the round-trip tests and the fuzz target print it) parses to
    /// the same tree.
    #[test]
    fn fewest_parentheses_read_as_every_parenthesis(f in formula()) {
        let fewest = print_formula(&f);
        let full = print_formula_full(&f);
        let (a, b) = (parsed(&fewest).map_err(TestCaseError::fail)?, parsed(&full).map_err(TestCaseError::fail)?);
        prop_assert_eq!(normal(&a), normal(&b), "\nfewest: {}\nfull:   {}", fewest, full);
        prop_assert_eq!(normal(&b), normal(&f), "\nfull: {}", full);
        let spec = parse(&spec_text(&fewest)).spec.expect("parsed above");
        let again = print_spec(&spec);
        let spec2 = parse(&again).spec.ok_or_else(|| TestCaseError::fail(format!("does not parse:\n{again}")))?;
        prop_assert_eq!(erase_spans(&spec2), erase_spans(&spec), "{}", again);
    }
}

#[test]
fn the_printer_uses_few_parentheses() {
    for text in [
        "x = 0 or y = 5 until y = 1",
        "always x = 1 and y = 2",
        "always x = 1 and finally y = 2",
        "(always x = 1) and y = 2",
        "always (x = 1 or y = 2) and finally z = 3",
        "x = 0 until y = 0 until z = 0",
        "(x = 0 until y = 0) until z = 0",
        "finally x = 0 implies finally y = 0 implies finally z = 0",
        "exists A a, y of a = 1 and x = 2 until z = 1",
        "exists A a, y of a = 1 until x = 2",
        "not always x = 1",
        "finally x = 1 and y = 2 implies z = 3",
    ] {
        assert_eq!(print_formula(&parsed(text).unwrap()), text);
    }
}
