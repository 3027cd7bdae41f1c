//! Reading the label paths CADP prints or writes: Executor output and Evaluator's inline
//! diagnostics (the "full SEQ" format: `<initial state>`, one quoted label per line,
//! `<goal state>` or `<deadlock>`), plain `.seq` files, and a diagnostic converted to `.aut`
//! (a path or a lasso). Facts about the formats: docs/cadp-driver.md, "What labs assumes of CADP".

use std::collections::HashMap;

/// A path of visible labels (hidden `i` steps are not part of it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelPath {
    pub labels: Vec<String>,
    /// A lasso: after the last label the path continues with `labels[loop_start..]` forever.
    /// Only an `.aut` file can say this.
    pub loop_start: Option<usize>,
    /// The file says the path ends in a deadlock (`<deadlock>`).
    pub(crate) deadlock: bool,
}

/// What is wrong with a trace file, and the line (from 1) at fault when there is one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", line.map(|n| format!("line {n}: ")).unwrap_or_default())]
pub struct TraceError {
    pub(crate) line: Option<usize>,
    pub(crate) message: String,
}

impl TraceError {
    fn at(line: usize, message: impl Into<String>) -> TraceError {
        TraceError { line: Some(line), message: message.into() }
    }
}

/// Reads any of the supported formats (an `.aut` file starts with `des`).
pub fn parse_trace(text: &str) -> Result<LabelPath, TraceError> {
    if text.trim_start().starts_with("des") { parse_aut_path(text) } else { parse_seq(text) }
}

/// Executor / Evaluator output or a `.seq` file: the quoted labels, between `<initial state>`
/// and the first end marker when there is one. Tool preamble lines are skipped, but a text
/// with neither `<initial state>` nor a quoted label is no trace: refused at its first line
/// that is not blank.
pub(crate) fn parse_seq(text: &str) -> Result<LabelPath, TraceError> {
    let lines: Vec<&str> = text.lines().collect();
    let marker = lines.iter().position(|l| l.trim() == "<initial state>");
    if marker.is_none() && !lines.iter().any(|l| l.trim_start().starts_with('"')) {
        let (n, line) = lines.iter().enumerate().find(|(_, l)| !l.trim().is_empty()).unwrap_or((0, &""));
        return Err(TraceError::at(
            n + 1,
            format!(
                "not a trace: `{}` is neither a quoted label, `<initial state>` (Executor or Evaluator \
                 output, .seq) nor an .aut header `des (…)`",
                shortened(line.trim())
            ),
        ));
    }
    let first = marker.map_or(0, |i| i + 1);
    let mut labels = Vec::new();
    let mut deadlock = false;
    for (n, line) in lines.iter().enumerate().skip(first) {
        let t = line.trim();
        match t {
            "<goal state>" | "<until state>" => break,
            "<deadlock>" => {
                deadlock = true;
                break;
            }
            "" | "[]" => continue,
            _ => {}
        }
        if !t.starts_with('"') || t.contains("invisible transition") {
            continue;
        }
        let mut rest = t;
        // Several quoted labels may share a line.
        while let Some(start) = rest.find('"') {
            let after = &rest[start + 1..];
            let end = after.find('"').ok_or_else(|| TraceError::at(n + 1, format!("unterminated label {t}")))?;
            let label = &after[..end];
            if label != "i" {
                labels.push(label.to_string());
            }
            rest = &after[end + 1..];
        }
    }
    Ok(LabelPath { labels, loop_start: None, deadlock })
}

/// An `.aut` file that is a single path from its initial state, possibly ending in a loop
/// back to an earlier state (a lasso), as `bcg_io` writes a counterexample diagnostic.
/// The header (`des (init, transitions, states)`) must agree with the body: as many
/// transitions as announced, every state number below the announced count.
pub fn parse_aut_path(text: &str) -> Result<LabelPath, TraceError> {
    // The one `.aut` reader checks the file; what is left is to follow its only path.
    let lts = crate::mcl::read_aut(text).map_err(|e| TraceError::at(e.line, e.message))?;
    let successors = lts.adjacency();
    let mut labels = Vec::new();
    // The position in `labels` at which each visited state is left.
    let mut left_at: HashMap<u32, usize> = HashMap::new();
    let mut state = lts.initial;
    let mut loop_start = None;
    loop {
        let succ = &successors[state as usize];
        if succ.len() > 1 {
            return Err(TraceError {
                line: None,
                message: format!(
                    "the .aut file is not a single path: state {state} has {} outgoing transitions",
                    succ.len()
                ),
            });
        }
        let Some(&(label, to)) = succ.first() else { break };
        let label = &lts.labels[label as usize];
        left_at.insert(state, labels.len());
        if label != "i" && label != "tau" {
            labels.push(label.clone());
        }
        if let Some(&at) = left_at.get(&to) {
            loop_start = Some(at);
            break;
        }
        state = to;
    }
    Ok(LabelPath { labels, loop_start, deadlock: false })
}

/// A line quoted in an error: at most 80 characters of it.
fn shortened(line: &str) -> String {
    let line = line.trim();
    match line.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}

/// A label split into its gate and its offers (`GATE !v1 !v2`).
pub(crate) fn split_label(label: &str) -> (&str, Vec<&str>) {
    let mut parts = label.split(" !");
    let gate = parts.next().unwrap_or("").trim();
    (gate, parts.map(str::trim).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn executor_output_with_preamble_and_deadlock() {
        let text = "lnt.open: running executor\n<initial state>\n\"DONE\"\n\"L_X !0 !0 !-1\"\n\"i\"\n\"DONE\"\n<deadlock>\n\"AFTER\"\n";
        let p = parse_trace(text).unwrap();
        assert_eq!(p.labels, ["DONE", "L_X !0 !0 !-1", "DONE"]);
        assert!(p.deadlock);
        assert_eq!(p.loop_start, None);
    }

    #[test]
    fn evaluator_inline_diagnostic_stops_at_goal_state() {
        let text = "FALSE\n*** diagnostic sequence found at depth 3\n\n<initial state>\n\"E_C !0 !0\"\n\"DONE\"\n<goal state>\n";
        let p = parse_trace(text).unwrap();
        assert_eq!(p.labels, ["E_C !0 !0", "DONE"]);
        assert!(!p.deadlock);
    }

    #[test]
    fn plain_seq_without_markers() {
        let p = parse_trace("\"A\"\n\"B !1\" \"C\"\n").unwrap();
        assert_eq!(p.labels, ["A", "B !1", "C"]);
    }

    #[test]
    fn aut_path_and_lasso() {
        // 0 -A-> 1 -i-> 2 -B-> 3 -C-> 1: the loop starts where state 1 is left (label index 1).
        let text = "des (0, 4, 4)\n(0, \"A\", 1)\n(1, i, 2)\n(2, \"B !1\", 3)\n(3, C, 1)\n";
        let p = parse_trace(text).unwrap();
        assert_eq!(p.labels, ["A", "B !1", "C"]);
        assert_eq!(p.loop_start, Some(1));
        let p = parse_trace("des (0, 1, 2)\n(0, \"A\", 1)\n").unwrap();
        assert_eq!((p.labels.len(), p.loop_start), (1, None));
    }

    #[test]
    fn aut_that_branches_is_refused() {
        let e = parse_trace("des (0, 2, 3)\n(0, A, 1)\n(0, B, 2)\n").unwrap_err();
        assert!(e.message.contains("not a single path"), "{e}");
    }

    #[test]
    fn aut_header_must_agree_with_the_body() {
        // Seven transitions announced, three present.
        let e = parse_trace("des (0, 7, 4)\n(0, A, 1)\n(1, B, 2)\n(2, C, 3)\n").unwrap_err();
        assert_eq!(e.line, Some(1), "{e}");
        assert!(e.message.contains("7 transitions") && e.message.contains("has 3"), "{e}");
        // One more than announced: the first one too many is at fault.
        let e = parse_trace("des (0, 1, 3)\n(0, A, 1)\n\n(1, B, 2)\n").unwrap_err();
        assert_eq!(e.line, Some(4), "{e}");
        // States numbered 0 to 2 only.
        let e = parse_trace("des (0, 2, 3)\n(0, A, 1)\n(1, B, 3)\n").unwrap_err();
        assert_eq!(e.line, Some(3), "{e}");
        assert!(e.message.contains("state 3 is not below the number of states 3"), "{e}");
        let e = parse_trace("des (5, 1, 3)\n(0, A, 1)\n").unwrap_err();
        assert_eq!(e.line, Some(1), "{e}");
        let e = parse_trace("des (0, 0, 0)\n").unwrap_err();
        assert_eq!(e.line, Some(1), "{e}");
    }

    #[test]
    fn seq_errors_are_located_in_the_whole_file() {
        let e = parse_trace("preamble\n<initial state>\n\"DONE\"\n\"A !1\n").unwrap_err();
        assert_eq!(e.line, Some(4), "{e}");
    }

    #[test]
    fn labels_split_into_gate_and_offers() {
        assert_eq!(split_label("L_X !0 !1 !-2"), ("L_X", vec!["0", "1", "-2"]));
        assert_eq!(split_label("DONE"), ("DONE", vec![]));
    }
}
