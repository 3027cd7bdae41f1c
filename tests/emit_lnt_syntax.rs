//! A structural check of every emitted LNT program and MCL query (CADP is not available to the
//! test suite): balanced parentheses and brackets, block keywords closed by the matching `end`,
//! no `;` before a closing keyword, `[]` only inside a choice, no empty parenthesised group.

mod fixtures;

use labs::analysis::values::analyse;
use labs::behaviour::compile_all;
use labs::lnt::{Dialect, EmitOptions, EmittedFile, emit, names};
use labs::model::externs::parse_externs;
use labs::model::resolve;
use labs::syntax::parse;

fn emit_file(file: &str, externs: &[&str], fair: bool, dialect: Dialect) -> Vec<EmittedFile> {
    let path = fixtures::path_str(file);
    let src = std::fs::read_to_string(&path).unwrap();
    let spec = parse(&src).spec.unwrap();
    let (model, _) = resolve(&spec, &src, &parse_externs(externs).unwrap()).unwrap();
    let (b, _) = compile_all(&model).unwrap();
    let a = analyse(&model, &b);
    let stem = std::path::Path::new(file).file_stem().unwrap().to_string_lossy().into_owned();
    let opts = EmitOptions {
        fair,
        properties: vec![],
        dialect,
        base: names::module_name(&stem),
        source: format!("{stem}.labs"),
    };
    emit(&model, &b, &a, &opts).unwrap()
}

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

fn check_all(file: &str, externs: &[&str]) {
    for fair in [false, true] {
        for dialect in Dialect::ALL {
            for f in emit_file(file, externs, fair, dialect) {
                let name = format!("{file} fair={fair} {} {}", dialect.name(), f.name);
                if f.name.ends_with(".lnt") {
                    check_lnt(&name, &f.contents, dialect);
                } else if f.name.ends_with(".mcl") {
                    check_mcl(&name, &f.contents);
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
