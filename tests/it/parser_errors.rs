//! Malformed inputs: each must give an error whose message (or hint) contains a given text,
//! at a given line and column.

use labs::diagnostics::Diagnostic;
use labs::syntax::parse;
use labs::syntax::span::SourceFile;

/// A specification whose `Behavior` body is `body`, on line 7 starting at column 14.
fn with_behavior(body: &str) -> String {
    format!(
        "system {{\n  environment = e: 0\n  spawn = A: 1\n}}\nagent A {{\n  interface = x: 0; y: 0\n  Behavior = {body}\n}}\ncheck {{\n}}\n"
    )
}

/// The first error of `src`; asserts that its message or hint contains `text`, and its location.
#[track_caller]
fn check(src: &str, text: &str, line: usize, col: usize) -> Diagnostic {
    let out = parse(src);
    assert!(out.spec.is_none(), "expected an error for:\n{src}");
    let d = out.diagnostics.items.iter().find(|d| d.is_error()).expect("an error").clone();
    let file = SourceFile::new("t.labs", src);
    let all = format!("{} {}", d.message, d.hint.clone().unwrap_or_default());
    assert!(all.contains(text), "expected `{text}` in:\n{}", d.render(&file));
    assert_eq!(d.location(&file), Some((line, col)), "wrong location:\n{}", d.render(&file));
    // Rendering never panics and shows the location.
    assert!(d.render(&file).contains(&format!("t.labs:{line}:{col}")));
    d
}

#[track_caller]
fn check_b(body: &str, text: &str, offset: usize) -> Diagnostic {
    check(&with_behavior(body), text, 7, 14 + offset)
}

#[test]
fn the_template_parses() {
    let out = parse(&with_behavior("x <- 1; y <- 2"));
    assert!(out.spec.is_some(), "{:?}", out.diagnostics);
}

#[test]
fn single_bar() {
    let d = check_b("x <- 1 | y <- 2", "single `|`", 7);
    assert!(d.hint.unwrap().contains("`||`"));
}

#[test]
fn double_equals() {
    let d = check_b("x == 1 -> Skip", "`==` is not an operator", 2);
    assert!(d.hint.unwrap().contains("single `=`"));
}

#[test]
fn trailing_semicolon_in_process() {
    check_b("x <- 1;", "trailing `;`", 6);
}

#[test]
fn count_as_a_variable() {
    let d = check_b("count <- 1", "`count` is reserved since 2023; rename the variable (e.g. `counter`)", 0);
    assert!(d.message.contains("reserved"));
    check("system {\n  environment = count: 0\n  spawn = A: 1\n}\ncheck {}\n", "`counter`", 2, 17);
}

#[test]
fn bang_on_a_variable() {
    check_b("!x -> Skip", "write `!(a = b)` or `x = 0`", 0);
    check_b("!x = 1 -> Skip", "`!` applies only to `true`, `false` or a parenthesised condition", 0);
    check_b("!(x) -> Skip", "`!` applies only to a condition", 0);
}

#[test]
fn local_assignment_outside_a_block() {
    check_b("x := 1", "allowed only inside a block `{ … }`", 2);
    check_b("p[] := pick 1", "allowed only inside a block", 4);
}

#[test]
fn assignment_to_id_extern_and_of() {
    check_b("id <- 1", "cannot assign to `id`", 0);
    check_b("_n <- 1", "cannot assign to the external parameter `_n`", 0);
    check_b("x of 1 <- 2", "cannot assign to `x of …`", 2);
}

#[test]
fn multiple_assignment_arity() {
    check_b("x, y <- 1", "a multiple assignment needs as many expressions as variables (2 variables, 1 expression)", 0);
    check_b("{ x, y := 1, 2, 3 }", "(2 variables, 3 expressions)", 2);
}

#[test]
fn unbalanced_parentheses() {
    // Reported on the `}` that comes instead.
    let d = check(&with_behavior("(x <- 1; y <- 2"), "expected `)`", 8, 1);
    assert_eq!(d.message, "expected `)` to close the process, found `}`");
    check_b("x <- 1); y <- 2", "no matching `(`", 6);
}

#[test]
fn min_with_three_arguments() {
    check_b("x <- min(1, 2, 3)", "`min` takes exactly 2 arguments, found 3", 5);
    check_b("x <- max(1)", "`max` takes exactly 2 arguments, found 1", 5);
}

#[test]
fn chained_comparison() {
    let d = check_b("x < y < 1 -> Skip", "comparisons cannot be chained", 6);
    assert!(d.hint.unwrap().contains("and"));
}

#[test]
fn bare_arithmetic_operand_of_and() {
    check_b("x and y = 1 -> Skip", "a bare arithmetic expression cannot be an operand of `and`", 0);
    check_b("y = 1 or x + 1 -> Skip", "operand of `or`", 9);
}

#[test]
fn missing_separator_between_actions() {
    let d = check_b("x <- 1 y <- 2", "expected `;`, `++`, `||`, `}` or a new definition `Name = …`, found `y`", 7);
    assert!(d.hint.unwrap().contains("`;`"));
}

#[test]
fn raw_calls_and_non_ascii() {
    check_b("x <- $f(1)", "raw external calls are not supported", 5);
    check_b("x <- é", "non-ASCII character `é`", 5);
    check_b("x <- 0x1F", "invalid number", 5);
}

#[test]
fn block_errors() {
    check_b("{ x <- 1; }", "trailing `;` in a block", 8);
    check_b("{ b := forall A a b = 1 }", "expected `,` after `forall A a`", 18);
    check_b("{ p := pick 1 }", "write `p[] := pick …`", 2);
    check_b("{ }", "empty block", 2);
    check_b("{ x > 0 -> y <- 1 }", "expected `<-`, `<~`, `<--`, `:=` or `,`", 4);
}

#[test]
fn missing_else() {
    check(&with_behavior("x <- if x = 1 then 1"), "expected `else`", 8, 1);
}

#[test]
fn empty_process_body() {
    check(&with_behavior(""), "empty process body", 8, 1);
    let src = "system {\n  spawn = A: 1\n}\nagent A {\n  Behavior =\n  Foo = Skip\n}\ncheck {}\n";
    let d = check(src, "empty process body: expected a process after `Behavior =`, found `Foo`", 6, 3);
    assert!(d.hint.unwrap().contains("Skip"));
    check(&with_behavior("x = 1 ->"), "expected a process after `->`, found `}`", 8, 1);
}

#[test]
fn comma_instead_of_semicolon() {
    let src = "system {\n  environment = a: 0, b: 0\n  spawn = A: 1\n}\ncheck {}\n";
    let d = check(src, "separated by `;`, not `,`", 2, 21);
    assert!(d.hint.unwrap().contains("`a: 0; b: 1`"));
    let src = "system {\n  spawn = A: 1; B: 2\n}\ncheck {}\n";
    check(src, "the items of `spawn` are separated by `,`, not `;`", 2, 15);
    let src = "system {\n  spawn = A: 1\n}\nagent A {\n  stigmergies = S, T\n  Behavior = Skip\n}\ncheck {}\n";
    check(src, "the items of `stigmergies` are separated by `;`", 5, 18);
}

#[test]
fn trailing_separators_in_lists() {
    let src = "system {\n  environment = a: 0;\n  spawn = A: 1\n}\ncheck {}\n";
    check(src, "trailing `;` in `environment`", 2, 21);
    let src = "system {\n  extern = _a,\n  spawn = A: 1\n}\ncheck {}\n";
    check(src, "trailing `,` in `extern`", 2, 14);
    let src = "system {\n  spawn = A: 1,\n}\ncheck {}\n";
    check(src, "trailing `,` in `spawn`", 2, 15);
    let src = "system {\n  spawn = A: 1\n}\nstigmergy S {\n  link = true\n  v: 0;\n}\ncheck {}\n";
    check(src, "trailing `;` in a stigmergy", 6, 7);
}

#[test]
fn range_in_brackets_as_initialiser() {
    let src = "system {\n  environment = x: [0..5]\n  spawn = A: 1\n}\ncheck {}\n";
    let d = check(src, "write `0..5`", 2, 22);
    assert!(d.message.contains("`[a..b]` cannot be used as an initialiser"));
}

#[test]
fn text_after_check() {
    let src = "system {\n  spawn = A: 1\n}\ncheck {\n}\nagent B { Behavior = Skip }\n";
    check(src, "unexpected text after the `check` section", 6, 1);
    let src = "system {\n  spawn = A: 1\n}\ncheck {\n}\nassume { }\n";
    check(src, "`assume` must come before `check`", 6, 1);
}

#[test]
fn missing_check_and_order() {
    check(
        "system {\n  spawn = A: 1\n}\n",
        "expected `stigmergy`, `agent`, `assume` or `check`, found end of input",
        4,
        1,
    );
    let src = "system {\n  spawn = A: 1\n}\nagent A {\n  Behavior = Skip\n}\nstigmergy S {\n  link = true\n  v: 0\n}\ncheck {}\n";
    check(src, "a stigmergy cannot be declared after an agent", 7, 1);
    check("system {\n  environment = a: 0\n}\ncheck {}\n", "expected `spawn = …`, found `}`", 3, 1);
    let src = "system {\n  spawn = A: 1\n  environment = a: 0\n}\ncheck {}\n";
    check(src, "inside `system` the order is", 3, 3);
    let src = "system {\n  spawn = A: 1\n}\nagent A {\n  stigmergies = S\n  interface = a: 0\n  Behavior = Skip\n}\ncheck {}\n";
    check(src, "inside an agent the order is `interface`, `stigmergies`", 6, 3);
}

#[test]
fn tuple_counts() {
    let src = "system {\n  spawn = A: 1\n}\nstigmergy S {\n  link = true\n  a, b: 0\n}\ncheck {}\n";
    check(src, "a tuple needs as many initialisers as variables (2 variables, 1 initialiser)", 6, 3);
    let src = "system {\n  spawn = A: 1\n}\nstigmergy S {\n  link = true\n  a: 0, 1, 2\n}\ncheck {}\n";
    check(src, "(1 variable, 3 initialisers)", 6, 3);
    let src = "system {\n  spawn = A: 1\n}\nstigmergy S {\n  link = true\n  a: 0, b: 1\n}\ncheck {}\n";
    check(src, "separate the tuples of a stigmergy with `;`", 6, 7);
}

#[test]
fn if_in_property_and_link() {
    let src =
        "system {\n  environment = x: 0\n  spawn = A: 1\n}\ncheck {\n  P = always (if x = 1 then 1 else 2) = 1\n}\n";
    check(src, "`if` expressions are not allowed in properties", 6, 15);
    let src = "system {\n  spawn = A: 1\n}\nstigmergy S {\n  link = if true then 1 else 0\n  v: 0\n}\ncheck {}\n";
    check(src, "`if` expressions are not allowed in link predicates", 5, 10);
}

#[test]
fn bare_variable_in_link() {
    let src = "system {\n  spawn = A: 1\n}\nstigmergy S {\n  link = x of c1 = x\n  v: 0\n}\ncheck {}\n";
    let d = check(src, "the variable `x` in a link predicate must say whose copy it reads", 5, 20);
    assert!(d.hint.unwrap().contains("`x of c1`"));
    let src = "system {\n  spawn = A: 1\n}\nstigmergy S {\n  link = id = 1\n  v: 0\n}\ncheck {}\n";
    check(src, "write `id of c1` or `id of c2`", 5, 10);
    let src = "system {\n  spawn = A: 1\n}\nstigmergy S {\n  link = x of c3 = 1\n  v: 0\n}\ncheck {}\n";
    check(src, "expected `c1`, `c2`, `1` or `2` after `x of`, found `c3`", 5, 15);
}

#[test]
fn missing_comma_after_quantifier() {
    let src = "system {\n  spawn = A: 1\n}\ncheck {\n  P = always forall A a x of a = 0\n}\n";
    let d = check(src, "expected `,` after `forall A a`, found `x`", 5, 25);
    assert!(d.hint.unwrap().contains("`forall A a, …`"));
}

#[test]
fn property_errors() {
    let src = "system {\n  spawn = A: 1\n}\ncheck {\n  P = sometimes x = 1\n}\n";
    check(src, "expected a modality", 5, 7);
    let src = "system {\n  spawn = A: 1\n}\ncheck {\n  P = always forall A a, x of a + 1 = 0 x\n}\n";
    check(src, "expected `}` or a new definition", 5, 41);
    let src = "system {\n  spawn = A: 1\n}\ncheck {\n  P = always id = 0\n}\n";
    check(src, "`id` must say whose id it is in properties", 5, 14);
    let src = "system {\n  spawn = A: 1\n}\ncheck {\n  P = always x of (a) = 0\n}\n";
    check(src, "a quantified variable or an agent id after `x of`", 5, 19);
    let src = "system {\n  spawn = A: 1\n}\ncheck {\n  P = between (true) (false), thereIs true\n}\n";
    check(src, "expected `and`", 5, 22);
}

#[test]
fn constant_and_spawn_flavours() {
    let src = "system {\n  environment = a: b\n  spawn = A: 1\n}\ncheck {}\n";
    check(src, "unexpected variable `b` in a constant expression", 2, 20);
    check("system {\n  spawn = A: id\n}\ncheck {}\n", "`id` is not allowed in a spawn count", 2, 14);
    check("system {\n  spawn = A: [1..2]\n}\ncheck {}\n", "allowed only in processes", 2, 14);
    check("system {\n  spawn = A: n\n}\ncheck {}\n", "unexpected variable `n` in a spawn count", 2, 14);
}

#[test]
fn booleans_are_not_values() {
    check_b("x <- true", "`true` and `false` are conditions, not values", 5);
    check_b("x <- undef", "`undef` can only be used as an initialiser", 5);
    check_b("(x = 1) + 1 = 2 -> Skip", "a condition cannot be an operand of `+`", 8);
}

#[test]
fn lexical_errors() {
    check(
        "system {\n  spawn = A: _N\n}\ncheck {}\n",
        "an external parameter is `_` followed by a lowercase letter",
        2,
        14,
    );
    check("system {\n  spawn = A: 1 @\n}\ncheck {}\n", "unexpected character `@`", 2, 16);
    check_b("x = 1 && y = 1 -> Skip", "written `and`", 6);
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = format!("{}x <- 1{}", "(".repeat(5000), ")".repeat(5000));
    let out = parse(&with_behavior(&deep));
    let d = out.diagnostics.items.iter().find(|d| d.is_error()).expect("an error");
    assert!(d.message.contains("nesting too deep"), "{d:?}");
    let file = SourceFile::new("t.labs", with_behavior(&deep));
    assert_eq!(d.location(&file).map(|l| l.0), Some(7));
    let deep = format!("x <- {}1", "-".repeat(100_000));
    let out = parse(&with_behavior(&deep));
    assert!(out.diagnostics.items.iter().any(|d| d.message.contains("nesting too deep")));
}
