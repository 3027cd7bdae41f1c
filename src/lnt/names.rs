//! Names of the emitted LNT entities (modules, processes, gates), shared by the LNT, MCL and
//! SVL views so that they always agree, and the words CADP reserves.
//!
//! Generated identifiers must be distinct from the reserved words below and unique regardless
//! of case within their scope: LNT identifiers end up upper-cased in LOTOS, C and labels
//! (docs/cadp-driver.md, "Reserved words"), MCL and SVL keywords are case-insensitive.

use crate::model::{Model, Store, VarId};

/// LNT keywords: CADP's LNT editor syntax file (`lnt.vim` 1.25, "Syntax Editor Configuration
/// Tool"), plus those added later by CADP HISTORY items: `alt` (reserved since 2020, #2633;
/// a statement since 2024-d, #2982), `exit` (channel of exceptions, #2983), `none` (channel).
pub(crate) const LNT_KEYWORDS: &[&str] = &[
    "access", "alt", "any", "array", "as", "assert", "break", "by", "case", "channel", "disrupt", "else", "elsif",
    "end", "ensure", "eval", "exit", "for", "function", "hide", "if", "in", "is", "list", "loop", "module", "none",
    "null", "of", "only", "out", "par", "process", "raise", "range", "require", "result", "return", "select", "set",
    "sorted", "stop", "then", "type", "use", "var", "where", "while", "with",
];

/// LNT predefined types, constants and functions (`lnt.vim` 1.25), plus the nullary `FIRST` and
/// `LAST` (Bool and Char since 2023-12, #2948; Nat, Int since 2025-g, #3168).
pub(crate) const LNT_PREDEFINED: &[&str] = &[
    "bool", "nat", "int", "real", "char", "string", "false", "true", "abs", "and", "and_then", "append", "card",
    "cons", "delete", "diff", "div", "element", "empty", "eq", "first", "gcd", "ge", "get", "gt", "head", "iff",
    "implies", "index", "insert", "inter", "inttonat", "is_empty", "islower", "isupper", "isalpha", "isalnum",
    "isdigit", "isxdigit", "last", "le", "length", "lt", "max", "member", "min", "minus", "mod", "nattoint", "ne",
    "neg", "nil", "not", "nth", "or", "ord", "or_else", "pos", "pred", "prefix", "rem", "remove", "reverse", "rindex",
    "scm", "sign", "substr", "succ", "suffix", "tail", "tolower", "toupper", "union", "update", "val", "xor",
];

/// MCL (evaluator4) keywords, types and predefined functions (CADP's `mcl.vim` 1.8, see
/// docs/cadp-driver.md, "Reserved words"), and the fixpoint and modality words of MCL v4.
pub(crate) const MCL_RESERVED: &[&str] = &[
    "among",
    "any",
    "case",
    "choice",
    "continue",
    "do",
    "else",
    "elsif",
    "end",
    "end_library",
    "end_macro",
    "exists",
    "exit",
    "export",
    "for",
    "forall",
    "from",
    "if",
    "in",
    "let",
    "library",
    "loop",
    "macro",
    "mu",
    "nil",
    "nu",
    "of",
    "on",
    "repeat",
    "step",
    "tau",
    "then",
    "to",
    "until",
    "where",
    "while",
    "bool",
    "nat",
    "natset",
    "int",
    "real",
    "char",
    "string",
    "abs",
    "and",
    "concat",
    "diff",
    "empty",
    "equ",
    "implies",
    "index",
    "insert",
    "isin",
    "isalnum",
    "isalpha",
    "isdigit",
    "islower",
    "isupper",
    "isxdigit",
    "inter",
    "length",
    "not",
    "nth",
    "or",
    "prefix",
    "remove",
    "rindex",
    "sign",
    "substr",
    "succ",
    "suffix",
    "tolower",
    "toupper",
    "union",
    "xor",
    "true",
    "false",
    "deadlock",
    "livelock",
];

/// SVL keywords (SVL 1.8 editor files, docs/cadp-driver.md "Reserved words", plus `sharp`,
/// `divsharp`, `hold` used by newer releases).
pub(crate) const SVL_KEYWORDS: &[&str] = &[
    "abstraction",
    "all",
    "bag",
    "branching",
    "but",
    "chaos",
    "check",
    "comparison",
    "cut",
    "deadlock",
    "divbranching",
    "divsharp",
    "end",
    "expected",
    "fifo",
    "gate",
    "generation",
    "hide",
    "hold",
    "in",
    "is",
    "label",
    "labels",
    "leaf",
    "livelock",
    "multiple",
    "node",
    "observational",
    "of",
    "par",
    "partial",
    "prio",
    "probabilistic",
    "property",
    "reduction",
    "refined",
    "rename",
    "result",
    "root",
    "safety",
    "sharp",
    "single",
    "smart",
    "stochastic",
    "stop",
    "strong",
    "sync",
    "total",
    "trace",
    "user",
    "using",
    "verify",
    "weak",
    "with",
    "true",
    "false",
];

/// Whether `name` (any case) is a keyword or predefined name of LNT, MCL or SVL.
pub fn is_reserved(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [LNT_KEYWORDS, LNT_PREDEFINED, MCL_RESERVED, SVL_KEYWORDS].iter().any(|l| l.contains(&lower.as_str()))
}

/// The fixed names of the emitted module's processes, types, constructors and functions that a
/// module name must not equal (regardless of case), and the prefixes of the generated ones.
const GLOBAL_NAMES: &[&str] = &[
    "main",
    "env",
    "sched",
    "timestamps",
    "assumptions",
    "attrs",
    "stigs",
    "envs",
    "locals",
    "tuples",
    "ranks",
    "assumed",
    "cmp",
    "less",
    "same",
    "greater",
    "n_agents",
    "locs",
    "undef",
    "holds",
    "mk_env",
    "system",
    "observed",
    "observers",
];
const GLOBAL_PREFIXES: &[&str] =
    &["agent_", "st_", "en_", "dom_", "lab_", "ranks_", "mon_", "monitor_", "observer_", "root_", "atoms_"];

/// A valid LNT module (and file) name from a file stem: letters, digits and `_`, starting with
/// a letter, neither reserved nor a name of the module's entities; CADP requires the module
/// name to equal the file name.
pub fn module_name(stem: &str) -> String {
    let mut s = ident(stem);
    if !s.starts_with(|c: char| c.is_ascii_alphabetic())
        || is_reserved(&s)
        || GLOBAL_NAMES.contains(&s.to_ascii_lowercase().as_str())
        || GLOBAL_PREFIXES.iter().any(|p| s.to_ascii_lowercase().starts_with(p))
    {
        s.insert_str(0, "spec_");
    }
    s
}

/// An identifier fragment: ASCII letters and digits kept, anything else becomes `_`, with no
/// `_` at either end nor two in a row (LNT identifiers have neither: `Node_` would give
/// `Agent_Node_`, `x__y` `A_X__Y`); `X` when nothing is left.
pub(crate) fn ident(s: &str) -> String {
    let mapped: String = s.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    let parts: Vec<&str> = mapped.split('_').filter(|p| !p.is_empty()).collect();
    if parts.is_empty() { "X".to_string() } else { parts.join("_") }
}

/// The observation gate of a variable: `A_<NAME>` (attribute), `L_<NAME>` (stigmergic),
/// `E_<NAME>` (environment). CADP upper-cases gate names, so a variable whose upper-cased name
/// collides with another's gets its index appended.
pub fn obs_gate(m: &Model, v: VarId) -> String {
    let var = &m.vars[v];
    let prefix = match var.store {
        Store::Attr => "A",
        Store::Stig { .. } => "L",
        Store::Env => "E",
    };
    let upper = ident(&var.name).to_uppercase();
    let clash = m.vars.iter().enumerate().any(|(w, x)| w != v && ident(&x.name).to_uppercase() == upper);
    if clash { format!("{prefix}_{upper}_{v}") } else { format!("{prefix}_{upper}") }
}

/// The identifier fragment of agent type `ty`: its name, with the type's index appended when
/// another type's name is the same regardless of case (or of the characters `ident` replaces).
pub(crate) fn type_ident(m: &Model, ty: usize) -> String {
    let lower = ident(&m.agent_types[ty].name).to_ascii_lowercase();
    let clash = m.agent_types.iter().enumerate().any(|(u, t)| u != ty && ident(&t.name).to_ascii_lowercase() == lower);
    let id = ident(&m.agent_types[ty].name);
    if clash { format!("{id}_{ty}") } else { id }
}

/// The process of agent type `ty`.
pub(crate) fn agent_process(m: &Model, ty: usize) -> String {
    format!("Agent_{}", type_ident(m, ty))
}

/// The identifier of property `prop` in the SVL script and the files named after it: its
/// name, with its index appended when it is a reserved word or another property's name is the
/// same regardless of case.
pub fn property_id(m: &Model, prop: &str) -> String {
    let id = ident(prop);
    let lower = id.to_ascii_lowercase();
    let k = m.properties.iter().position(|p| p.name == prop).unwrap_or(0);
    let clash = m.properties.iter().enumerate().any(|(j, p)| j != k && ident(&p.name).to_ascii_lowercase() == lower);
    if clash || is_reserved(&id) { format!("{id}_{k}") } else { id }
}

/// `candidate`, with `_1`, `_2`, … appended until it differs regardless of case from every
/// name of `taken` and is not reserved.
fn unique(candidate: String, taken: &[String]) -> String {
    let mut id = candidate.clone();
    let mut k = 0;
    while is_reserved(&id) || taken.iter().any(|t| t.eq_ignore_ascii_case(&id)) {
        k += 1;
        id = format!("{candidate}_{k}");
    }
    id
}

/// The identifier, in the SVL scripts and file names, of the check that no run-time error of
/// the model is reachable (D9): `RUNTIME_ERRORS`, unless a property's identifier or its own
/// error check takes that name.
pub(crate) fn errors_id(m: &Model) -> String {
    let mut taken: Vec<String> = m.properties.iter().map(|p| property_id(m, &p.name)).collect();
    taken.extend(m.properties.iter().map(|p| format!("{}_ERRORS", property_id(m, &p.name))));
    unique("RUNTIME_ERRORS".into(), &taken)
}

/// The identifier of the check that the predicate of property `prop` meets no run-time error
/// in a reachable state: `ID_ERRORS` (`ID` its [`property_id`]), made unique.
pub(crate) fn property_errors_id(m: &Model, prop: &str) -> String {
    let mut taken: Vec<String> = m.properties.iter().map(|p| property_id(m, &p.name)).collect();
    taken.push(errors_id(m));
    unique(format!("{}_ERRORS", property_id(m, prop)), &taken)
}

/// The visible gate of an abandoned read attempt (docs/lnt-encoding.md §3): the queries tell
/// it from steps.
pub(crate) const ABANDON: &str = "ABANDON";

/// The visible gate of a run-time error of the model (D9): `ERR !agent !code`
/// (`docs/lnt-encoding.md` §3, "Run-time errors").
pub(crate) const ERR: &str = "ERR";

/// The gate on which agent `r` reads a location of agent `o`.
pub(crate) fn read_gate(r: usize, o: usize) -> String {
    format!("RD_{r}_{o}")
}

pub(crate) fn put_gate(k: usize) -> String {
    format!("PUT_{k}")
}

pub(crate) fn qry_gate(k: usize) -> String {
    format!("QRY_{k}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_names() {
        assert_eq!(module_name("leader"), "leader");
        assert_eq!(module_name("two phase-commit"), "two_phase_commit");
        assert_eq!(module_name("3x"), "spec_3x");
        assert_eq!(module_name("module"), "spec_module");
        assert_eq!(module_name("Main"), "spec_Main");
        assert_eq!(module_name("first"), "spec_first");
        assert_eq!(module_name("undef"), "spec_undef");
        assert_eq!(module_name("st_x"), "spec_st_x");
        assert_eq!(module_name("a__b-"), "a_b");
    }

    /// LNT identifiers have no `_` at either end nor two in a row.
    #[test]
    fn identifier_fragments() {
        assert_eq!(ident("Node_"), "Node");
        assert_eq!(ident("x__y"), "x_y");
        assert_eq!(ident("_a.b_"), "a_b");
        assert_eq!(ident("__"), "X");
        assert_eq!(unique("R".into(), &["r".into(), "R_1".into()]), "R_2");
    }

    #[test]
    fn reserved_words_any_case() {
        for w in ["FIRST", "first", "Real", "module", "Nat", "alt", "select", "property", "nu", "Empty"] {
            assert!(is_reserved(w), "{w}");
        }
        for w in ["lab_empty", "settled", "unseen", "loc", "Agent_T", "x"] {
            assert!(!is_reserved(w), "{w}");
        }
    }
}
