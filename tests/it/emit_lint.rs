//! What a real CADP installation reads beyond the grammar, checked on every emitted file
//! (`emit_lnt_syntax::check_all` calls these; docs/lnt-encoding.md §8, "What a CADP
//! installation reads"): no actual gate repeated in a process instantiation, no declared
//! variable, parameter or gate a function or process does not use (TRAIAN and lnt2lotos warn
//! on each), the widths and range pragmas of `Nat` and `Int`, send offers without `!` from
//! 2024-d (CADP HISTORY #3148), every loop body with an action on every path, MCL's
//! documented `not (< R > @)` rather than `[ R ] -|`, SVL property blocks of the form SLiVER
//! ran (`expected TRUE` then `end property`, no `;` between) with the verification statement
//! and model checker of the release (#3256, #3269, #3270), the on-the-fly command lines of the
//! release (`-main`, #3115), and every identifier written as it is declared (#3313–#3321).

use labs::lnt::Dialect;
use labs::lntcheck::unused::{Kind, unused_declarations};
use std::collections::BTreeSet;

/// The compiled regular expression `pattern` (compiled once per test run: the checks run on
/// thousands of files).
fn re(pattern: &str) -> regex::Regex {
    static CACHE: std::sync::LazyLock<std::sync::Mutex<std::collections::HashMap<String, regex::Regex>>> =
        std::sync::LazyLock::new(Default::default);
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    cache.entry(pattern.to_string()).or_insert_with(|| regex::Regex::new(pattern).expect("a valid pattern")).clone()
}

/// Every `NAME [G1, G2, …]` of the text (a process instantiation in LNT or SVL): fails when a
/// gate appears twice in one list.
pub fn no_repeated_actual_gate(name: &str, text: &str) {
    let re = re(r"\b([A-Za-z]\w*) \[([A-Za-z_][\w, ]*)\]");
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

/// The module opens with the pragmas that fix the widths of `Nat` and `Int` (32 bits: the
/// program computes 32-bit values, and CADP's default width is 8 bits, as the VBPMN project's
/// LNT generator takes it) and their enumerated ranges, so that a leaf generated alone never
/// depends on the installation's defaults; a negative bound is written `-N`, the sign part of
/// the number (HISTORY #3241).
pub fn range_pragmas(name: &str, text: &str) {
    let start = text.find("module ").expect("a module");
    let first_def =
        ["\ntype ", "\nfunction ", "\nprocess "].iter().filter_map(|d| text.find(d)).min().expect("definitions");
    let head = &text[start..first_def];
    for p in ["!nat_bits 32", "!int_bits 32"] {
        let re = re(&format!(r"(?m)^\s*{p}\s*$"));
        assert!(re.is_match(head), "{name}: no `{p}` before the first definition");
    }
    for p in ["!nat_inf", "!nat_sup", "!int_inf", "!int_sup"] {
        let re = re(&format!(r"(?m)^\s*{p} -?\d+\s*$"));
        assert!(re.is_match(head), "{name}: no `{p} N` before the first definition");
    }
}

/// From 2024-d a send offer is written `G (X)`, valid since the 2022 revision of LNT (HISTORY
/// #3148, which reserves `!` for pragmas); only the 2023 dialect, for releases that may
/// predate that revision, writes `G (!X)`.
pub fn send_offers_of_the_dialect(name: &str, text: &str, dialect: Dialect) {
    if dialect == Dialect::V2023 {
        return;
    }
    let code: String = text.lines().map(|l| l.split("--").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    // `!` followed by anything but `=` (the operator `!=`), `?` (an in-out actual `!?x`
    // before 2025-f) or a pragma's name
    let re = re(r"!([^=?a-z]|$)");
    if let Some(m) = re.find(&code) {
        let line = code[..m.start()].lines().count();
        panic!("{name}: a `!` offer in the {} dialect (line {line})", dialect.name());
    }
}

/// Every path of every loop body of the program has an action: LNT2LOTOS makes a loop a
/// recursive process, whose recursion must be guarded.
pub fn loops_have_actions(name: &str, text: &str) {
    let m = labs::lntcheck::parse(text).unwrap_or_else(|e| panic!("{name}: {}", e.message));
    let bad = labs::lntcheck::guarded::unguarded_loops(&m);
    if let Some(u) = bad.first() {
        let line = text[..u.at as usize].lines().count();
        panic!("{name}: a loop of {} may repeat without an action (line {line})", u.process);
    }
}

/// The infinite looping operator is written `< R > @`, negated with `not`, as the MCL manual
/// describes it: no public text spells its dual `[ R ] -|`.
pub fn no_saturation_operator(name: &str, text: &str) {
    assert!(!text.contains("-|"), "{name}: `-|` instead of `not (< R > @)`");
}

/// The on-the-fly script runs `lnt.open [-main P] "X.lnt" EVALUATOR -diag "D.bcg" "Q.mcl"` with
/// the release's option (`-root` before 2025-d, HISTORY #3115) and model checker (`evaluator`
/// from 2026-a, #3269).
pub fn on_the_fly_commands(name: &str, text: &str, dialect: Dialect) {
    let re = re(&format!(
        r#"^lnt\.open (?:{} \w+ )?"[^"]+\.lnt" {} -diag "[^"]+\.bcg" "[^"]+\.mcl"$"#,
        dialect.main_option(),
        dialect.evaluator()
    ));
    let mut n = 0;
    for l in text.lines().filter(|l| l.starts_with("lnt.open")) {
        assert!(re.is_match(l), "{name}: not the {} dialect's command: {l}", dialect.name());
        n += 1;
    }
    assert!(n > 0, "{name}: no lnt.open command");
}

/// Every verification statement of an SVL script is the release's: `"D.bcg" = "M.bcg" |= with
/// E "Q.mcl";` from 2025-l (HISTORY #3256), `"D.bcg" = verify "Q.mcl" with E in "M.bcg";`
/// before, with `E` the release's model checker (`evaluator` from 2026-a, #3269, #3270).
pub fn svl_verification_statements(name: &str, text: &str, dialect: Dialect) {
    let e = dialect.evaluator();
    let form = if dialect.svl_models() {
        format!(r#"^   "[^"]+\.bcg" = "[^"]+\.bcg" \|= with {e} "[^"]+\.mcl";$"#)
    } else {
        format!(r#"^   "[^"]+\.bcg" = verify "[^"]+\.mcl" with {e} in "[^"]+\.bcg";$"#)
    };
    let re = re(&form);
    let lines: Vec<&str> = text.lines().collect();
    let mut statements = 0;
    for (i, l) in lines.iter().enumerate() {
        if l.contains(" = verify ") || l.contains(" |= ") {
            assert!(re.is_match(l), "{name}: line {} is not the {} dialect's statement: {l}", i + 1, dialect.name());
            statements += 1;
        }
    }
    let blocks = lines.iter().filter(|l| l.starts_with("property ")).count();
    assert_eq!(statements, blocks, "{name}: one verification statement per property block");
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
    let code = re(r"(?s)\(\*.*?\*\)").replace_all(&code, "");
    for w in re(r"[A-Za-z_][A-Za-z0-9_]*").find_iter(&code) {
        let w = w.as_str();
        assert!(!w.contains("__") && !w.ends_with('_') && !w.starts_with('_'), "{name}: identifier `{w}`");
    }
}

/// Every identifier of the program is written as it is declared, and every predefined one
/// (`Nat`, `true`, `NatToInt`…) the same way throughout: TRAIAN warns otherwise from 2026-c/d
/// (HISTORY #3313, #3315, #3317–#3321). Within a function or process, a name has one spelling
/// (its locals, parameters and gates, and what it reads of the module); across the module, so
/// do the types, functions, processes and constructors it declares and the predefined names.
pub fn consistent_letter_case(name: &str, text: &str) {
    let code: String = text.lines().map(|l| l.split("--").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    let code = re(r"(?s)\(\*.*?\*\)").replace_all(&code, "");
    let word = re(r"[A-Za-z][A-Za-z0-9_]*");
    let one_spelling = |what: &str, words: &mut dyn Iterator<Item = &str>| {
        let mut spelled: std::collections::BTreeMap<String, &str> = Default::default();
        for w in words {
            let first = *spelled.entry(w.to_ascii_lowercase()).or_insert(w);
            assert_eq!(first, w, "{name}: in {what}, `{w}` also written `{first}`");
        }
    };
    // the definitions, each from its `function`/`process` line to its `end`
    let def = re(r"(?ms)^(function|process) (\w+).*?^end (function|process)");
    for d in def.captures_iter(&code) {
        one_spelling(&d[2], &mut word.find_iter(d.get(0).unwrap().as_str()).map(|m| m.as_str()));
    }
    let declared: BTreeSet<String> = re(r"(?m)^(?:type|function|process) (\w+)")
        .captures_iter(&code)
        .map(|c| c[1].to_ascii_lowercase())
        .chain(["less", "same", "greater"].map(String::from))
        .chain(["nat", "int", "bool", "true", "false", "nattoint", "inttonat", "not", "and", "or"].map(String::from))
        .collect();
    one_spelling(
        "the module",
        &mut word.find_iter(&code).map(|m| m.as_str()).filter(|w| declared.contains(&w.to_ascii_lowercase())),
    );
}

/// The processes an SVL script or the on-the-fly script names are written as the program
/// declares them: SVL no longer upper-cases them from 2026-d (HISTORY #3320), and TRAIAN warns
/// about a `-main` argument written otherwise.
pub fn process_names_as_declared(name: &str, text: &str, program: &str) {
    let declared: BTreeSet<&str> =
        re(r"(?m)^process (\w+)").captures_iter(program).map(|c| c.get(1).unwrap().as_str()).collect();
    let lower: BTreeSet<String> = declared.iter().map(|d| d.to_ascii_lowercase()).collect();
    let used = re(r"(?:-main |-root |\b)([A-Za-z]\w*)(?: \[| \x22)");
    for c in used.captures_iter(text) {
        let p = c.get(1).unwrap().as_str();
        if lower.contains(&p.to_ascii_lowercase()) {
            assert!(declared.contains(p), "{name}: process `{p}` is not written as declared");
        }
    }
}
