//! A structural check of every emitted LNT program and MCL query (CADP is not available to the
//! test suite): balanced parentheses and brackets, block keywords closed by the matching `end`,
//! no `;` before a closing keyword, `[]` only inside a choice, no empty parenthesised group;
//! and the names every emitted file declares: none is a keyword or predefined name of LNT, MCL
//! or SVL (any case), and no two names of one scope differ only by case.

use crate::emit_lint;
use crate::fixtures;
use fixtures::emit_files;

use labs::lnt::{Dialect, names};
use std::collections::{BTreeMap, BTreeSet};

/// Removes `--` and `(* … *)` comments and string literals.
fn strip(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    let mut depth = 0;
    while let Some(c) = chars.next() {
        if depth > 0 {
            if c == '*' && chars.peek() == Some(&')') {
                chars.next();
                depth -= 1;
            }
            continue;
        }
        match c {
            '(' if chars.peek() == Some(&'*') => {
                chars.next();
                depth += 1;
            }
            '-' if chars.peek() == Some(&'-') => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '"' => {
                for d in chars.by_ref() {
                    if d == '"' {
                        break;
                    }
                }
                out.push_str(" STR ");
            }
            _ => out.push(c),
        }
    }
    out
}

fn tokens(text: &str) -> Vec<String> {
    let mut out = vec![];
    let mut cur = String::new();
    let flush = |cur: &mut String, out: &mut Vec<String>| {
        if !cur.is_empty() {
            out.push(std::mem::take(cur));
        }
    };
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' {
            cur.push(c);
        } else {
            flush(&mut cur, &mut out);
            if c == '[' && chars.get(i + 1) == Some(&']') {
                out.push("[]".into());
                i += 1;
            } else if !c.is_whitespace() {
                out.push(c.to_string());
            }
        }
        i += 1;
    }
    flush(&mut cur, &mut out);
    out
}

fn check_lnt(name: &str, text: &str, dialect: Dialect) {
    let toks = tokens(&strip(text));
    let choice = dialect.alt();
    let mut stack: Vec<String> = vec![];
    let mut parens: Vec<&str> = vec![];
    let mut pending_while = 0;
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i].as_str();
        let next = toks.get(i + 1).map(String::as_str).unwrap_or("");
        match t {
            "(" | "[" => parens.push(t),
            ")" => assert_eq!(parens.pop(), Some("("), "{name}: unbalanced ) at token {i}"),
            "]" => assert_eq!(parens.pop(), Some("["), "{name}: unbalanced ] at token {i}"),
            "end" => {
                let open = stack.pop().unwrap_or_else(|| panic!("{name}: `end {next}` closes nothing"));
                assert_eq!(open, next, "{name}: `end {next}` closes `{open}` (token {i})");
                i += 2;
                continue;
            }
            "module" | "function" | "process" | "type" | "if" | "par" | "hide" | "var" | "case" => {
                stack.push(t.to_string())
            }
            "while" => pending_while += 1,
            "loop" => {
                if pending_while > 0 {
                    pending_while -= 1;
                }
                stack.push("loop".into());
            }
            "alt" | "select" => {
                assert_eq!(t, choice, "{name}: `{t}` in the {} dialect", dialect.name());
                stack.push(t.to_string());
            }
            "[]" => assert!(
                stack.iter().rev().find(|b| *b != "if" && *b != "var").is_some_and(|b| b == choice),
                "{name}: `[]` outside a choice (token {i})"
            ),
            ";" => assert!(
                !matches!(next, "end" | "else" | "elsif" | "[]" | ")" | "in" | "then"),
                "{name}: `;` before `{next}` (token {i})"
            ),
            _ => {}
        }
        if t == "(" {
            assert_ne!(next, ")", "{name}: empty () at token {i}");
        }
        i += 1;
    }
    assert!(stack.is_empty(), "{name}: unclosed {stack:?}");
    assert!(parens.is_empty(), "{name}: unclosed {parens:?}");
    let other = if dialect.range() == "..." { " .. " } else { " ... " };
    assert!(!text.contains(&format!("[0{other}")), "{name}: wrong range symbol");
    assert!(text.contains(&format!("[0 {} ", dialect.range())), "{name}: no array type");
    // In-out actuals: `!?x` up to 2025-e, `x?` from 2025-f (CADP HISTORY #3148).
    let old_inout = dialect.inout("x").starts_with("!?");
    let new_seen = text.contains("(id, I1?,") || text.contains("(id, I?,");
    assert!(!(if old_inout { new_seen } else { text.contains("!?") }), "{name}: in-out spelling");
}

fn check_mcl(name: &str, text: &str) {
    let toks = tokens(&strip(text));
    let mut depth: i64 = 0;
    for (i, t) in toks.iter().enumerate() {
        match t.as_str() {
            "(" => {
                assert_ne!(toks.get(i + 1).map(String::as_str), Some(")"), "{name}: empty ()");
                depth += 1
            }
            ")" => depth -= 1,
            _ => {}
        }
        assert!(depth >= 0, "{name}: unbalanced )");
    }
    assert_eq!(depth, 0, "{name}: unbalanced (");
    assert!(!text.contains("--"), "{name}: MCL has no `--` comments");
}

/// The identifiers declared in a region of tokens: a name followed by `,` or `:` and not
/// itself after `:` (a type). Covers parameter lists, gate lists and `var … in` declarations.
fn declared_in(toks: &[String]) -> Vec<String> {
    let mut out = vec![];
    for i in 0..toks.len() {
        let t = toks[i].as_str();
        let is_ident = t.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
        let next = toks.get(i + 1).map(String::as_str);
        let prev = if i > 0 { toks[i - 1].as_str() } else { "" };
        // (`true`/`false` before a comma are actual parameters: `R (v_0, false, false)`)
        let literal = matches!(t, "true" | "false");
        if is_ident && !literal && matches!(next, Some("," | ":")) && prev != ":" && !matches!(t, "in" | "out") {
            out.push(t.to_string());
        }
    }
    out
}

/// Fails if a name is reserved or two distinct names of one scope are equal regardless of case.
fn check_scope(name: &str, what: &str, names: &BTreeSet<String>) {
    let mut by_lower: BTreeMap<String, &String> = BTreeMap::new();
    for n in names {
        assert!(!names::is_reserved(n), "{name}: {what} declares `{n}`, a reserved word of CADP");
        if let Some(other) = by_lower.insert(n.to_ascii_lowercase(), n) {
            panic!("{name}: {what} declares `{other}` and `{n}`, equal regardless of case");
        }
    }
}

/// LNT: the module's global names (module, types, constructors, functions, processes), then
/// each function and process: its parameters, gates and variables with the global names.
fn check_lnt_names(name: &str, text: &str) {
    let toks = tokens(&strip(text));
    let mut globals = BTreeSet::new();
    let mut scopes: Vec<(String, Vec<String>)> = vec![];
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i].as_str();
        let prev = if i > 0 { toks[i - 1].as_str() } else { "" };
        if matches!(t, "module" | "type" | "function" | "process") && prev != "end" {
            let n = toks[i + 1].clone();
            globals.insert(n.clone());
            if t == "type" && toks[i + 3] != "array" {
                // an enumeration: its constructors up to `with`
                let mut j = i + 3;
                while toks[j] != "with" {
                    if toks[j] != "," {
                        globals.insert(toks[j].clone());
                    }
                    j += 1;
                }
            }
            if matches!(t, "function" | "process") {
                let close = toks[i..].windows(2).position(|w| w[0] == "end" && w[1] == t).expect("end") + i;
                let body = &toks[i + 2..close];
                let header_end = body.iter().position(|x| x == "is").expect("is");
                let mut decl = declared_in(&body[..header_end]);
                let mut k = header_end;
                while k < body.len() {
                    if body[k] == "var" && body[k - 1] != "end" {
                        let end = body[k..].iter().position(|x| x == "in").expect("var … in") + k;
                        decl.extend(declared_in(&body[k..end]));
                        k = end;
                    }
                    k += 1;
                }
                scopes.push((format!("{t} {n}"), decl));
            }
        }
        i += 1;
    }
    check_scope(name, "the module", &globals);
    for (what, decl) in scopes {
        let mut all = globals.clone();
        all.extend(decl);
        check_scope(name, &what, &all);
    }
}

/// MCL: fixpoint names, their parameters and the variables bound in action patterns.
fn check_mcl_names(name: &str, text: &str) {
    let toks = tokens(&strip(text));
    let mut decl = BTreeSet::new();
    for i in 0..toks.len() {
        if matches!(toks[i].as_str(), "mu" | "nu") {
            decl.insert(toks[i + 1].clone());
        }
    }
    decl.extend(declared_in(&toks));
    check_scope(name, "the query", &decl);
}

/// SVL: the property blocks.
fn check_svl_names(name: &str, text: &str) {
    let toks = tokens(&strip(text));
    // `property NAME` opens a block (`end property` closes one).
    let decl: BTreeSet<String> = (1..toks.len())
        .filter(|&i| toks[i - 1] == "property" && (i < 2 || toks[i - 2] != "end"))
        .map(|i| toks[i].clone())
        .collect();
    assert!(!decl.is_empty(), "{name}: no property block");
    check_scope(name, "the script", &decl);
}

fn check_all(file: &str, externs: &[&str]) {
    // The dialects differ in some files only (the program is the same for 2024-d and 2025-d,
    // the queries for all): each distinct program and query is checked once.
    let mut checked = std::collections::BTreeSet::new();
    for fair in [false, true] {
        for dialect in Dialect::ALL {
            let mut files = emit_files(file, externs, fair, dialect).unwrap();
            // the jobs of `--split` (leaves generated alone, properties) are read by CADP too
            let base = files[0].name.trim_end_matches(".lnt").to_string();
            let emitted = files.len();
            files.extend(labs::cadp::split::split_files(&base, &files).unwrap());
            let program = files[0].contents.clone();
            for (i, f) in files.into_iter().enumerate() {
                let name = format!("{file} fair={fair} {} {}", dialect.name(), f.name);
                // (the program's header names its dialect)
                let body = f.contents.find("\nmodule ").map_or(f.contents.as_str(), |at| &f.contents[at..]);
                if (f.name.ends_with(".lnt") || f.name.ends_with(".mcl")) && !checked.insert(body.to_string()) {
                    continue;
                }
                if f.name.ends_with(".lnt") {
                    check_lnt(&name, &f.contents, dialect);
                    check_lnt_names(&name, &f.contents);
                    emit_lint::no_repeated_actual_gate(&name, &f.contents);
                    emit_lint::no_unused_declaration(&name, &f.contents);
                    emit_lint::range_pragmas(&name, &f.contents);
                    emit_lint::send_offers_of_the_dialect(&name, &f.contents, dialect);
                    emit_lint::loops_have_actions(&name, &f.contents);
                    emit_lint::consistent_letter_case(&name, &f.contents);
                    emit_lint::identifiers(&name, &f.contents);
                } else if f.name.ends_with(".mcl") {
                    check_mcl(&name, &f.contents);
                    check_mcl_names(&name, &f.contents);
                    emit_lint::no_saturation_operator(&name, &f.contents);
                } else if f.name.ends_with(".svl") {
                    if i < emitted {
                        // (a leaf job of the split script has no property block)
                        check_svl_names(&name, &f.contents);
                    }
                    emit_lint::no_repeated_actual_gate(&name, &f.contents);
                    emit_lint::svl_property_blocks(&name, &f.contents);
                    emit_lint::svl_verification_statements(&name, &f.contents, dialect);
                    emit_lint::process_names_as_declared(&name, &f.contents, &program);
                } else if f.name.ends_with(".sh") {
                    emit_lint::on_the_fly_commands(&name, &f.contents, dialect);
                    emit_lint::process_names_as_declared(&name, &f.contents, &program);
                }
            }
        }
    }
}

#[test]
fn benchmarks_are_well_formed() {
    check_all("benchmarks/leader.labs", &["n=3"]);
    check_all("benchmarks/flock.labs", &["birds=3", "grid=5", "delta=5"]);
    check_all("benchmarks/formation.labs", &["n=3", "size=10", "range=2"]);
    check_all("benchmarks/philosophers.labs", &["n=3"]);
    check_all("benchmarks/twophase.labs", &["workers=2"]);
    check_all("benchmarks/twophasecommit.labs", &["workers=2"]);
}

#[test]
fn examples_are_well_formed() {
    check_all("examples/counter.labs", &["n=2", "atomic=0"]);
    check_all("examples/flocking.labs", &["birds=2", "delta=1", "grid=3"]);
    check_all("examples/leader.labs", &["n=3"]);
    check_all("examples/line.labs", &["n=3", "gap=2", "size=5"]);
    check_all("examples/majority.labs", &["yes=1", "no=2"]);
    check_all("examples/philosophers.labs", &["n=3", "asym=1"]);
    check_all("examples/twophase.labs", &["workers=2"]);
}

/// The names of `tests/cases/names.labs` (reserved words, names equal regardless of case) are
/// renamed in what the files declare.
#[test]
fn user_names_are_renamed() {
    let files = emit_files("tests/cases/names.labs", &[], false, Dialect::V2025).unwrap();
    let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
    assert!(names.contains(&"names_Property_0.mcl") && names.contains(&"names_FIRST_1.mcl"), "{names:?}");
    assert!(names.contains(&"names_First_2.mcl"), "{names:?}");
    let lnt = &files[0].contents;
    assert!(lnt.contains("process Agent_NODE_0 [") && lnt.contains("process Agent_Node_1 ["));
    // the scanner finds what the renaming avoids
    let bad = "module m is\nfunction f (L: Nat, l: Nat) : Nat is\n   return l\nend function\nend module\n";
    let e = std::panic::catch_unwind(|| check_lnt_names("t", bad)).expect_err("L and l");
    assert!(e.downcast_ref::<String>().is_some_and(|m| m.contains("`L` and `l`")), "{e:?}");
    let bad = "module m is\nfunction f (x: Nat) : Bool is\n   var first: Bool in\n      first := true;\n      return first\n   end var\nend function\nend module\n";
    let e = std::panic::catch_unwind(|| check_lnt_names("t", bad)).expect_err("first");
    assert!(e.downcast_ref::<String>().is_some_and(|m| m.contains("`first`, a reserved word")), "{e:?}");
    let bad = "nu Inv (v_0: Int := 0, real: Bool := true) . (real or (v_0 = 0))";
    let e = std::panic::catch_unwind(|| check_mcl_names("t", bad)).expect_err("real");
    assert!(e.downcast_ref::<String>().is_some_and(|m| m.contains("`real`")), "{e:?}");
}

#[test]
fn semantics_cases_are_well_formed() {
    let dir = fixtures::cases();
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".labs") && n != "wrongarrow.labs")
        .collect();
    files.sort();
    for f in files {
        let externs: &[&str] = if f == "leader2.labs" { &["n=3"] } else { &[] };
        check_all(&format!("tests/cases/{f}"), externs);
    }
}

#[test]
#[should_panic(expected = "`;` before `end`")]
fn checker_catches_a_trailing_semicolon() {
    check_lnt(
        "t",
        "module t is\nfunction f : Nat is\n   if true then\n      return 1;\n   end if\nend function\nend module\n",
        Dialect::V2025,
    );
}

#[test]
#[should_panic(expected = "closes `loop`")]
fn checker_catches_a_mismatched_end() {
    check_lnt(
        "t",
        "module t is\nprocess P [G: any] is\n   loop\n      G\n   end if\nend process\nend module\n",
        Dialect::V2025,
    );
}
