//! A diagnostic as evaluator4 gives one: a path from the initial state, possibly a lasso.

/// A counterexample (or witness): `states[0]` is the initial state, `labels[i]` leads from
/// `states[i]` to `states[i + 1]`. For a lasso, `loop_start = Some(k)`: after the last label
/// the path goes back to `states[k]` and repeats `labels[k..]` forever (the last target is not
/// repeated in `states`, so `states.len() == labels.len()`); otherwise
/// `states.len() == labels.len() + 1`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub states: Vec<u32>,
    pub labels: Vec<String>,
    pub loop_start: Option<usize>,
}

impl Diagnostic {
    /// The diagnostic as a single-path `.aut` file (states numbered by position along the path,
    /// so a state of the LTS visited twice outside the loop appears twice), the form
    /// `labs translate-trace` reads.
    pub fn to_aut(&self) -> String {
        let n = self.labels.len();
        let n_states = if self.loop_start.is_some() { n.max(1) } else { n + 1 };
        let mut out = format!("des (0, {n}, {n_states})\n");
        for (i, label) in self.labels.iter().enumerate() {
            let target = match self.loop_start {
                Some(k) if i + 1 == n => k,
                _ => i + 1,
            };
            let quoted = if label == "i" { "i".to_string() } else { format!("\"{label}\"") };
            out.push_str(&format!("({i}, {quoted}, {target})\n"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::cadp::parse_aut_path;

    #[test]
    fn a_lasso_reads_back_with_its_loop() {
        let d = Diagnostic {
            states: vec![4, 7, 9],
            labels: vec!["A".into(), "i".into(), "B !1".into()],
            loop_start: Some(1),
        };
        let text = d.to_aut();
        assert_eq!(text, "des (0, 3, 3)\n(0, \"A\", 1)\n(1, i, 2)\n(2, \"B !1\", 1)\n");
        let p = parse_aut_path(&text).unwrap();
        assert_eq!(p.labels, ["A", "B !1"]);
        assert_eq!(p.loop_start, Some(1));
    }

    #[test]
    fn a_path_reads_back() {
        let d = Diagnostic { states: vec![0, 0, 1], labels: vec!["A".into(), "A".into()], loop_start: None };
        let p = parse_aut_path(&d.to_aut()).unwrap();
        assert_eq!(p.labels, ["A", "A"]);
        assert_eq!(p.loop_start, None);
    }
}
