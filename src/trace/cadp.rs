//! Reading the label paths CADP prints or writes: Executor output and Evaluator's inline
//! diagnostics (the "full SEQ" format: `<initial state>`, one quoted label per line,
//! `<goal state>` or `<deadlock>`), plain `.seq` files, and a diagnostic converted to `.aut`
//! (a path or a lasso). Facts about the formats: shared/spec/reference/cadp-interfaces.md §2.2, §3.

use std::collections::HashMap;

/// A path of visible labels (hidden `i` steps are not part of it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelPath {
    pub labels: Vec<String>,
    /// A lasso: after the last label the path continues with `labels[loop_start..]` forever.
    /// Only an `.aut` file can say this.
    pub loop_start: Option<usize>,
    /// The file says the path ends in a deadlock (`<deadlock>`).
    pub deadlock: bool,
}

/// Reads any of the supported formats (an `.aut` file starts with `des`).
pub fn parse_trace(text: &str) -> Result<LabelPath, String> {
    if text.trim_start().starts_with("des") { parse_aut_path(text) } else { parse_seq(text) }
}

/// Executor / Evaluator output or a `.seq` file: the quoted labels, between `<initial state>`
/// and the first end marker when there is one. Tool preamble lines are skipped.
pub fn parse_seq(text: &str) -> Result<LabelPath, String> {
    let mut lines: Vec<&str> = text.lines().collect();
    if let Some(i) = lines.iter().position(|l| l.trim() == "<initial state>") {
        lines.drain(..=i);
    }
    let mut labels = Vec::new();
    let mut deadlock = false;
    for (n, line) in lines.iter().enumerate() {
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
            let end = after.find('"').ok_or_else(|| format!("line {}: unterminated label {t}", n + 1))?;
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
pub fn parse_aut_path(text: &str) -> Result<LabelPath, String> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let (_, header) = lines.next().ok_or("empty .aut file")?;
    let nums = header_numbers(header).ok_or_else(|| format!("line 1: not an .aut header: {header}"))?;
    let init = nums[0];
    let mut out: HashMap<u64, Vec<(String, u64)>> = HashMap::new();
    for (n, line) in lines {
        let (from, label, to) =
            aut_transition(line).ok_or_else(|| format!("line {}: not a transition: {line}", n + 1))?;
        out.entry(from).or_default().push((label, to));
    }
    let mut labels = Vec::new();
    // The position in `labels` at which each visited state is left.
    let mut left_at: HashMap<u64, usize> = HashMap::new();
    let mut state = init;
    let mut loop_start = None;
    loop {
        let succ = out.get(&state).map(Vec::as_slice).unwrap_or(&[]);
        if succ.len() > 1 {
            return Err(format!(
                "the .aut file is not a single path: state {state} has {} outgoing transitions",
                succ.len()
            ));
        }
        let Some((label, to)) = succ.first() else { break };
        left_at.insert(state, labels.len());
        if label != "i" && label != "tau" {
            labels.push(label.clone());
        }
        if let Some(&at) = left_at.get(to) {
            loop_start = Some(at);
            break;
        }
        state = *to;
    }
    Ok(LabelPath { labels, loop_start, deadlock: false })
}

fn header_numbers(line: &str) -> Option<[u64; 3]> {
    let inner = line.trim().strip_prefix("des")?.trim().strip_prefix('(')?.strip_suffix(')')?;
    let v: Vec<u64> = inner.split(',').map(|x| x.trim().parse().ok()).collect::<Option<_>>()?;
    (v.len() == 3).then(|| [v[0], v[1], v[2]])
}

/// `(from, "label", to)` or `(from, label, to)`.
fn aut_transition(line: &str) -> Option<(u64, String, u64)> {
    let inner = line.trim().strip_prefix('(')?.strip_suffix(')')?;
    let (from, rest) = inner.split_once(',')?;
    let (label, to) = rest.rsplit_once(',')?;
    let label = label.trim();
    let label = label.strip_prefix('"').and_then(|l| l.strip_suffix('"')).unwrap_or(label);
    Some((from.trim().parse().ok()?, label.to_string(), to.trim().parse().ok()?))
}

/// A label split into its gate and its offers (`GATE !v1 !v2`).
pub fn split_label(label: &str) -> (&str, Vec<&str>) {
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
        assert!(e.contains("not a single path"), "{e}");
    }

    #[test]
    fn labels_split_into_gate_and_offers() {
        assert_eq!(split_label("L_X !0 !1 !-2"), ("L_X", vec!["0", "1", "-2"]));
        assert_eq!(split_label("DONE"), ("DONE", vec![]));
    }
}
