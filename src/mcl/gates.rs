//! The action formulas of a query that can match no label of an LTS (docs/mcl.md, "Labels the
//! LTS never carries"): a label in quotes or a pattern, outside any `not`, whose gate no label
//! of the LTS has, or has only with another number of offers. Such an action matches no
//! transition, so the query is evaluated as if it were `false`: true whatever the rest of the
//! query does, and what a query meant for another LTS (a monitor's `ACC` on the LTS of `MAIN`)
//! shows. Under a `not` it would make the action formula match every label instead (`(not
//! "ABANDON")*` where no attempt is abandoned), which is not reported.

use super::typing::{NamedAction, Query};
use crate::syntax::span::Span;
use std::collections::{BTreeMap, BTreeSet};

/// An action formula that no label of the LTS can match, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unmatched {
    /// Where the action is written in the query.
    pub span: Span,
    /// Its gate, as written.
    pub gate: String,
    /// Why no label matches it (a sentence without a final period).
    pub reason: String,
}

/// The gates of the labels of an LTS (`i` excepted), each with the numbers of offers it comes
/// with: by exact spelling, and upper-cased.
struct Gates {
    exact: BTreeMap<String, BTreeSet<usize>>,
    upper: BTreeMap<String, BTreeSet<usize>>,
}

fn gates_of(labels: &[String]) -> Gates {
    let mut g = Gates { exact: BTreeMap::new(), upper: BTreeMap::new() };
    for l in labels.iter().filter(|l| l.as_str() != "i") {
        let mut parts = l.split(" !");
        let gate = parts.next().unwrap_or("").trim();
        let n = parts.count();
        g.exact.entry(gate.to_string()).or_default().insert(n);
        g.upper.entry(gate.to_ascii_uppercase()).or_default().insert(n);
    }
    g
}

fn counts(set: &BTreeSet<usize>) -> String {
    let v: Vec<String> = set.iter().map(usize::to_string).collect();
    match v.as_slice() {
        [one] => one.clone(),
        _ => format!("{} or {}", v[..v.len() - 1].join(", "), v[v.len() - 1]),
    }
}

fn offers(n: usize) -> String {
    if n == 1 { "1 offer".into() } else { format!("{n} offers") }
}

/// Why `a` matches no label with these gates (`None`: some label may match it).
fn why(a: &NamedAction, g: &Gates) -> Option<String> {
    let found = if a.exact { g.exact.get(&a.gate) } else { g.upper.get(&a.gate.to_ascii_uppercase()) };
    let Some(ns) = found else {
        let other = g.exact.keys().find(|k| k.eq_ignore_ascii_case(&a.gate));
        return Some(match (a.exact, other) {
            (true, Some(k)) => format!(
                "no label of the LTS has gate `{}` (a label in quotes is compared exactly; the LTS has `{k}`)",
                a.gate
            ),
            _ => format!("no label of the LTS has gate `{}`", a.gate),
        });
    };
    let fits = if a.more { ns.iter().any(|&n| n >= a.offers) } else { ns.contains(&a.offers) };
    if fits {
        return None;
    }
    let wanted = if a.more { format!("{} or more", offers(a.offers)) } else { offers(a.offers) };
    Some(format!("the labels of gate `{}` in the LTS have {} offers, never {wanted}", a.gate, counts(ns)))
}

/// The actions of `q` that no label among `labels` (those of an LTS) can match, in the order
/// of the query's text.
pub fn unmatched_actions(q: &Query, labels: &[String]) -> Vec<Unmatched> {
    let g = gates_of(labels);
    q.named
        .iter()
        .filter_map(|a| why(a, &g).map(|reason| Unmatched { span: a.span, gate: a.gate.clone(), reason }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unmatched(query: &str, labels: &[&str]) -> Vec<(String, String)> {
        let q = crate::mcl::parse(query).unwrap_or_else(|e| panic!("{e:?}"));
        let labels: Vec<String> = labels.iter().map(|l| l.to_string()).collect();
        unmatched_actions(&q, &labels).into_iter().map(|u| (u.gate, u.reason)).collect()
    }

    #[test]
    fn a_gate_no_label_has() {
        let u = unmatched("[ true* . \"ACC\" ] false and < \"DONE\" > true", &["DONE", "E_X !0 !1", "i"]);
        assert_eq!(u, vec![("ACC".to_string(), "no label of the LTS has gate `ACC`".to_string())]);
        // Patterns compare the gate regardless of case; a label in quotes exactly.
        assert!(unmatched("< { done } > true", &["DONE"]).is_empty());
        let u = unmatched("< \"done\" > true", &["DONE"]);
        assert_eq!(u.len(), 1);
        assert!(u[0].1.contains("compared exactly; the LTS has `DONE`"), "{u:?}");
    }

    #[test]
    fn a_gate_with_other_numbers_of_offers() {
        let labels = ["E_X !0 !1", "E_X !0 !2", "DONE"];
        assert!(unmatched("< { E_X !0 ?v:Int } > true", &labels).is_empty());
        assert!(unmatched("< { E_X ... } > true", &labels).is_empty());
        assert!(unmatched("< { E_X !0 ... } > true", &labels).is_empty());
        let u = unmatched("< { E_X !0 } > true", &labels);
        assert_eq!(u[0].1, "the labels of gate `E_X` in the LTS have 2 offers, never 1 offer");
        let u = unmatched("< { E_X !0 !1 !2 ... } > true", &labels);
        assert_eq!(u[0].1, "the labels of gate `E_X` in the LTS have 2 offers, never 3 offers or more");
        let u = unmatched("< \"DONE !1\" > true", &labels);
        assert_eq!(u[0].1, "the labels of gate `DONE` in the LTS have 0 offers, never 1 offer");
        // A value the LTS never carries is no reason: the query may ask about it.
        assert!(unmatched("[ true* . \"E_X !0 !5\" ] false", &labels).is_empty());
    }

    #[test]
    fn every_occurrence_once_and_tau_never() {
        // `+` and `{n}` type their operand again; `tau` is the internal action.
        let u = unmatched("< \"A\"+ . tau . \"A\"{2} > true", &["DONE"]);
        assert_eq!(u.len(), 2, "{u:?}");
        assert!(unmatched("< tau > true and < \"i\" > true", &["DONE"]).is_empty());
        // Inside the infinite looping operator; not under `not`, where it makes the action
        // formula match every label (`(not "ABANDON")*` on an LTS without abandoned attempts).
        let u = unmatched("([ true* . \"ACC\" ] -|) and [ not \"STUCK\" ] true", &["DONE"]);
        let gates: Vec<&str> = u.iter().map(|(g, _)| g.as_str()).collect();
        assert_eq!(gates, ["ACC"]);
        let u = unmatched("< not (not \"A\" or \"B\") > true and < \"C\" implies \"D\" > true", &["DONE"]);
        let gates: Vec<&str> = u.iter().map(|(g, _)| g.as_str()).collect();
        assert_eq!(gates, ["A", "D"], "{u:?}");
    }
}
