//! Reading what `svl` logged: per property block the result Evaluator printed (`TRUE` /
//! `FALSE`), svl's `PASS` / `FAIL`, an inline diagnostic sequence, and the sizes of the LTSs
//! it generated. Formats: docs/cadp-driver.md, "svl and its log". Only lines whose
//! meaning is certain are used; anything else is ignored.

use crate::lts_backend::LtsSize;
use crate::trace::cadp::{LabelPath, parse_seq};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct SvlLog {
    /// The property blocks, in log order.
    pub(crate) properties: Vec<PropertyLog>,
    /// Every `info about FILE:` summary (an LTS that was generated or reduced).
    pub(crate) lts: Vec<LtsSize>,
    /// `svl: ERROR …` lines and the lines of tools reporting an error.
    pub(crate) errors: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PropertyLog {
    pub(crate) name: String,
    /// Evaluator's verdict on the query (`TRUE`: the property holds).
    pub(crate) result: Option<bool>,
    /// svl's comparison with `expected TRUE` (`PASS` / `FAIL`).
    pub(crate) passed: Option<bool>,
    /// The diagnostic, when Evaluator printed it inline (a single path).
    pub(crate) inline_diagnostic: Option<LabelPath>,
}

pub(crate) fn parse(text: &str) -> SvlLog {
    let mut log = SvlLog::default();
    let lines: Vec<&str> = text.lines().collect();
    let mut pending_info: Option<String> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let t = line.trim();
        i += 1;
        if let Some(name) = property_header(line) {
            log.properties.push(PropertyLog {
                name: name.to_string(),
                result: None,
                passed: None,
                inline_diagnostic: None,
            });
            continue;
        }
        if let Some(file) = t.strip_prefix("info about ").and_then(|r| r.strip_suffix(':')) {
            pending_info = Some(file.trim().trim_matches('"').to_string());
            continue;
        }
        if let Some((states, transitions)) = lts_size(t) {
            if let Some(file) = pending_info.take() {
                log.lts.push(LtsSize { file, states, transitions });
            }
            continue;
        }
        if t.starts_with("svl: ERROR") || t.starts_with("svl: error") {
            log.errors.push(t.to_string());
            continue;
        }
        let Some(current) = log.properties.last_mut() else { continue };
        match t {
            "TRUE" | "FALSE" if current.result.is_none() => current.result = Some(t == "TRUE"),
            "<initial state>" if current.inline_diagnostic.is_none() => {
                let end = lines[i..]
                    .iter()
                    .position(|l| matches!(l.trim(), "<goal state>" | "<deadlock>" | "<until state>"))
                    .map_or(lines.len(), |k| i + k + 1);
                let block = lines[i - 1..end].join("\n");
                current.inline_diagnostic = parse_seq(&block).ok();
                i = end;
            }
            _ => {
                if let Some(verdict) = pass_fail(t) {
                    current.passed = Some(verdict);
                }
            }
        }
    }
    log
}

/// `property NAME` (the header of a property block; the description follows on other lines).
fn property_header(line: &str) -> Option<&str> {
    let name = line.strip_prefix("property ")?.trim();
    let ok = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    ok.then_some(name)
}

/// `(* 12376 states, 146322 transitions, 271.7 Kbytes *)`.
fn lts_size(t: &str) -> Option<(u64, u64)> {
    let inner = t.strip_prefix("(*")?.strip_suffix("*)")?;
    let mut parts = inner.split(',').map(str::trim);
    let states = parts.next()?.strip_suffix(" states")?.trim().parse().ok()?;
    let transitions = parts.next()?.strip_suffix(" transitions")?.trim().parse().ok()?;
    Some((states, transitions))
}

/// `PASS`, `FAIL`, `PASS (2/2)`.
fn pass_fail(t: &str) -> Option<bool> {
    let word = t.split_whitespace().next()?;
    let rest = t[word.len()..].trim();
    let counted = rest.is_empty() || (rest.starts_with('(') && rest.ends_with(')') && rest.contains('/'));
    match word {
        "PASS" if counted => Some(true),
        "FAIL" if counted => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Line forms of real svl logs (docs/cadp-driver.md, "svl and its log").
    const LOG: &str = r#"
info about "leader_LeaderIs0.bcg":
    (* 12376 states, 146322 transitions, 271.7 Kbytes *)
property LeaderIs0
 | finally forall Node n, leader of n = 0
"leader_LeaderIs0_diag.bcg" = verify "leader_LeaderIs0.mcl" in "leader_LeaderIs0.bcg"
% bcg_open   "leader_LeaderIs0.bcg"  evaluator4 -source "leader.svl:34" -dfs -diag "svl000_output.bcg"  "leader_LeaderIs0.mcl"
bcg_open: running ``evaluator4 -source leader.svl:34 -dfs -diag svl000_output.bcg leader_LeaderIs0.mcl'' for ``./leader_LeaderIs0.bcg''

TRUE
command exit with status 0
PASS (1/1)
property LeaderNot0
 | always exists Node n, leader of n != 0

FALSE
*** diagnostic sequence found at depth 3

<initial state>
"DONE"
"L_LEADER !0 !0 !0"
"DONE"
<goal state>
command exit with status 0
FAIL (1/1)
"#;

    #[test]
    fn reads_results_diagnostics_and_sizes() {
        let log = parse(LOG);
        assert_eq!(log.lts, vec![LtsSize { file: "leader_LeaderIs0.bcg".into(), states: 12376, transitions: 146322 }]);
        assert_eq!(log.properties.len(), 2);
        let (a, b) = (&log.properties[0], &log.properties[1]);
        assert_eq!(
            (a.name.as_str(), a.result, a.passed, a.inline_diagnostic.is_some()),
            ("LeaderIs0", Some(true), Some(true), false)
        );
        assert_eq!((b.name.as_str(), b.result, b.passed), ("LeaderNot0", Some(false), Some(false)));
        let d = b.inline_diagnostic.as_ref().unwrap();
        assert_eq!(d.labels, ["DONE", "L_LEADER !0 !0 !0", "DONE"]);
        assert!(!d.deadlock && d.loop_start.is_none());
        assert!(log.errors.is_empty());
    }

    #[test]
    fn errors_and_missing_results() {
        let log = parse("property P1\n | text\nsvl: ERROR command failed\n");
        assert_eq!(log.errors, ["svl: ERROR command failed"]);
        assert_eq!(log.properties[0].result, None);
        // A description line that merely mentions a word is not a header or a verdict.
        let log = parse("property P1\n | TRUE means holds\n PASSWORD\nFALSE\n");
        assert_eq!(log.properties[0].result, Some(false));
        assert_eq!(log.properties[0].passed, None);
    }

    #[test]
    fn deadlock_ended_diagnostic() {
        let log = parse("property P\nFALSE\n<initial state>\n\"DONE\"\n<deadlock>\nFAIL\n");
        let d = log.properties[0].inline_diagnostic.as_ref().unwrap();
        assert!(d.deadlock);
        assert_eq!(log.properties[0].passed, Some(false));
    }
}
