//! What a real CADP installation reads beyond the grammar, checked on every emitted file
//! (`emit_lnt_syntax::check_all` calls these; docs/lnt-encoding.md, "What CADP reads"):
//! no actual gate repeated in a process instantiation, no declared variable, parameter or
//! gate a function or process does not use (TRAIAN and lnt2lotos warn on each), the range
//! pragmas that fix the enumerated values of `Nat` and `Int`, no `!` on send offers in the
//! 2025 dialect (CADP HISTORY #3148), and SVL property blocks of the form SLiVER ran
//! (`expected TRUE` then `end property`, no `;` between).

use labs::lnt::Dialect;
use labs::lntcheck::unused::{Kind, unused_declarations};
use std::collections::BTreeSet;

/// Every `NAME [G1, G2, …]` of the text (a process instantiation in LNT or SVL): fails when a
/// gate appears twice in one list.
pub fn no_repeated_actual_gate(name: &str, text: &str) {
    let re = regex::Regex::new(r"\b([A-Za-z]\w*) \[([A-Za-z_][\w, ]*)\]").unwrap();
    for c in re.captures_iter(text) {
        let gates: Vec<&str> = c[2].split(',').map(str::trim).collect();
        let mut seen = BTreeSet::new();
        for g in &gates {
            assert!(seen.insert(g.to_ascii_uppercase()), "{name}: `{}` instantiated with gate `{g}` twice", &c[1]);
        }
    }
}

/// Fails on a variable (of a function or process) that is never read, and on a process's
/// parameter or gate it never uses. (Functions keep the uniform parameters their callers pass:
/// docs/lnt-encoding.md, "What CADP reads".)
pub fn no_unused_declaration(name: &str, text: &str) {
    let m = labs::lntcheck::parse(text).unwrap_or_else(|e| panic!("{name}: {}", e.message));
    let unused: Vec<String> = unused_declarations(&m)
        .into_iter()
        .filter(|u| u.in_process || u.kind == Kind::Variable)
        .map(|u| format!("{}: {:?} {}", u.scope, u.kind, u.name))
        .collect();
    assert!(unused.is_empty(), "{name}: declared and never used: {}", unused.join("; "));
}

/// The module opens with the pragmas that fix the enumerated ranges of `Nat` and `Int`, so that
/// a leaf generated alone never depends on the installation's defaults.
pub fn range_pragmas(name: &str, text: &str) {
    let start = text.find("module ").expect("a module");
    let first_def =
        ["\ntype ", "\nfunction ", "\nprocess "].iter().filter_map(|d| text.find(d)).min().expect("definitions");
    let head = &text[start..first_def];
    for p in ["!nat_inf", "!nat_sup", "!int_inf", "!int_sup"] {
        let re = regex::Regex::new(&format!(r"(?m)^\s*{p} -?\d+\s*$")).unwrap();
        assert!(re.is_match(head), "{name}: no `{p} N` before the first definition");
    }
}

/// In the 2025 dialect a send offer is written `G (X)`: `!` is reserved for pragmas (CADP
/// HISTORY #3148).
pub fn send_offers_of_the_dialect(name: &str, text: &str, dialect: Dialect) {
    if dialect != Dialect::V2025 {
        return;
    }
    let code: String = text.lines().map(|l| l.split("--").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    let re = regex::Regex::new(r"!([^=a-z]|$)").unwrap();
    if let Some(m) = re.find(&code) {
        let line = code[..m.start()].lines().count();
        panic!("{name}: a `!` offer in the 2025 dialect (line {line})");
    }
}

/// An SVL property block ends `expected TRUE` then `end property`, with no `;` between (the
/// form SLiVER's scripts ran with).
pub fn svl_property_blocks(name: &str, text: &str) {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let mut blocks = 0;
    for (i, l) in lines.iter().enumerate() {
        if l.starts_with("expected") {
            assert_eq!(*l, "expected TRUE", "{name}: line {}", i + 1);
            assert_eq!(lines.get(i + 1), Some(&"end property"), "{name}: line {}", i + 2);
            blocks += 1;
        }
    }
    let opened = lines.iter().filter(|l| l.strip_prefix("property ").is_some_and(|n| !n.contains(' '))).count();
    assert_eq!(blocks, opened, "{name}: property blocks");
}

/// No identifier of the program has `_` at either end or two `_` in a row.
pub fn identifiers(name: &str, text: &str) {
    let code: String = text.lines().map(|l| l.split("--").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    let code = regex::Regex::new(r"(?s)\(\*.*?\*\)").unwrap().replace_all(&code, "");
    for w in regex::Regex::new(r"[A-Za-z_][A-Za-z0-9_]*").unwrap().find_iter(&code) {
        let w = w.as_str();
        assert!(!w.contains("__") && !w.ends_with('_') && !w.starts_with('_'), "{name}: identifier `{w}`");
    }
}
