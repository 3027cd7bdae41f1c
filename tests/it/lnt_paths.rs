//! The label paths CADP would print for a counterexample of the LNT interpreter (`lntcheck`):
//! the test data of the trace translation and of the CADP driver, produced independently of
//! both.

use labs::lntcheck::backend::LabsView;
use labs::lntcheck::lts::Lts;
use std::collections::{BTreeSet, HashMap, VecDeque};

/// The visible labels CADP would print for the LAbS path `path` of the view (every gate but
/// `DONE` and `keep` hidden), as `(label, target LTS state)`.
pub fn lts_labels(v: &LabsView, path: &[u32], keep: &BTreeSet<String>) -> Vec<(String, u32)> {
    let adj = v.lts.adjacency();
    let mut out = vec![];
    let mut from = 0;
    for &x in path {
        let to = v.real[x as usize];
        out.extend(step_path(v, &adj, from, to));
        from = to;
    }
    out.into_iter()
        .map(|(l, t)| if l == "DONE" || keep.contains(Lts::gate(&l)) { (l, t) } else { ("i".into(), t) })
        .collect()
}

/// A shortest LTS path from `from` to the real state `to` that ends with its only `DONE`, as
/// (label, target LTS state) pairs; `adj` is `v.lts.adjacency()`.
fn step_path(v: &LabsView, adj: &[Vec<(u32, u32)>], from: u32, to: u32) -> Vec<(String, u32)> {
    let mut prev: HashMap<u32, (u32, u32)> = HashMap::new();
    let mut queue = VecDeque::from([from]);
    while let Some(s) = queue.pop_front() {
        for &(l, t) in &adj[s as usize] {
            let label = v.lts.label(l);
            if label == "DONE" {
                if t == to {
                    let mut out = vec![(label.to_string(), t)];
                    let mut c = s;
                    while c != from {
                        let (p, pl) = prev[&c];
                        out.push((v.lts.label(pl).to_string(), c));
                        c = p;
                    }
                    out.reverse();
                    return out;
                }
            } else if t != from && !prev.contains_key(&t) {
                prev.insert(t, (s, l));
                queue.push_back(t);
            }
        }
    }
    panic!("no LTS step from state {from} to the real state {to}")
}

pub fn executor_text(labels: &[(String, u32)], deadlock: bool) -> String {
    let mut s = String::from("lnt.open: running ``executor 100 2''\n<initial state>\n");
    for (l, _) in labels {
        if l != "i" {
            s += &format!("\"{l}\"\n");
        }
    }
    s += if deadlock { "<deadlock>\n" } else { "<goal state>\n" };
    s
}

/// The path as an `.aut` file; with `loop_target` (an LTS state), the last transition goes back
/// to the `.aut` state of that LTS state (a lasso).
pub fn aut_text(labels: &[(String, u32)], loop_target: Option<u32>) -> String {
    // .aut state of each LTS state on the path (state i + 1 is reached by transition i).
    let mut ids: HashMap<u32, usize> = HashMap::from([(0, 0)]);
    let mut lines = vec![];
    for (i, (l, t)) in labels.iter().enumerate() {
        let to = match loop_target {
            Some(target) if i + 1 == labels.len() => ids[&target],
            _ => i + 1,
        };
        ids.entry(*t).or_insert(to);
        lines.push(format!("({i}, \"{l}\", {to})"));
    }
    format!("des (0, {}, {})\n{}\n", lines.len(), lines.len() + 1, lines.join("\n"))
}
