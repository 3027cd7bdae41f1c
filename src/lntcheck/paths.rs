//! The LNT labels of a LAbS path of the `lnt` back end: what CADP would print for the same
//! counterexample (hidden steps omitted), to be translated back by `trace::from_labels`.

use super::LntcheckError;
use super::backend::LabsView;
use std::collections::{HashMap, VecDeque};

/// Visible labels along the LAbS path `path` (real-state numbers of `v`), from the LTS's
/// initial state; each LAbS step is a shortest LTS path whose only `DONE` is its last label.
/// With `loop_start = Some(k)` (the last state of `path` equals `path[k]`), also the index in
/// the returned labels at which the loop starts.
pub fn visible_labels(
    v: &LabsView,
    path: &[u32],
    loop_start: Option<usize>,
) -> Result<(Vec<String>, Option<usize>), LntcheckError> {
    let adj = v.lts.adjacency();
    let mut labels = vec![];
    let mut loop_at = None;
    let mut from = 0u32;
    for (k, &x) in path.iter().enumerate() {
        let to = v.real[x as usize];
        for (l, _) in step_path(v, &adj, from, to)? {
            if l != "i" {
                labels.push(l);
            }
        }
        // The loop starts where path[k] is left, after the labels that reach it.
        if loop_start == Some(k) {
            loop_at = Some(labels.len());
        }
        from = to;
    }
    Ok((labels, loop_at))
}

/// A shortest LTS path from `from` to the real state `to` that ends with its only `DONE`, as
/// (label, target LTS state) pairs; `adj` is `v.lts.adjacency()`.
pub fn step_path(
    v: &LabsView,
    adj: &[Vec<(u32, u32)>],
    from: u32,
    to: u32,
) -> Result<Vec<(String, u32)>, LntcheckError> {
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
                    return Ok(out);
                }
            } else if t != from && !prev.contains_key(&t) {
                prev.insert(t, (s, l));
                queue.push_back(t);
            }
        }
    }
    Err(LntcheckError::Encoding(format!("no LTS step from state {from} to the real state {to}")))
}
