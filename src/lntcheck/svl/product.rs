//! The product of a network of explicit leaves, explored once from its root: states are
//! rows of leaf-state numbers in the compact state store (`store.rs`), a state's moves
//! computed in one buffer without an allocation per move; `hide` and `total prio` act on the moves their operand offers.

use crate::lntcheck::LntcheckError;
use crate::lntcheck::lts::Lts;
use std::collections::HashMap;

/// A network node over explicit leaves (label ids interned in `OnTheFly`). The tables indexed
/// by label id are filled once every label is known (`OnTheFly::prepare`), so that a state's
/// moves compare no label text.
#[derive(Clone)]
pub(super) enum Node {
    Leaf(usize),
    /// `hidden`: per label id, whether it becomes `i`.
    Hide {
        gates: Vec<String>,
        all_but: bool,
        body: Box<Node>,
        hidden: Vec<bool>,
    },
    /// `ranks`: per label id, its position in each chain.
    Prio {
        chains: Vec<Vec<regex::Regex>>,
        body: Box<Node>,
        ranks: Vec<Vec<Option<usize>>>,
    },
    /// `parts`: per label id, the kids that synchronise on it.
    Par {
        global: Vec<String>,
        iface: Vec<Option<Vec<String>>>,
        kids: Vec<Node>,
        parts: Vec<Vec<usize>>,
    },
}

/// The states whose moves may be computed ahead of the numbering (when several threads
/// compose): few enough that the moves held outside the memory bound's account stay small.
const AHEAD: usize = 4096;

/// A transition of a subnetwork: its label id and the range of the leaf moves (leaf, target)
/// it makes in the buffer the moves of one state share (`moves`), so that no move allocates.
pub(super) type Move = (u32, u32, u32);

/// A leaf's transitions by source state, in one vector: those of state `s` are
/// `edges[start[s]..start[s + 1]]`, as (label id, target).
pub(super) struct LeafEdges {
    start: Vec<u32>,
    edges: Vec<(u32, u32)>,
}

impl LeafEdges {
    /// The transitions of `l` with their labels renamed by `map`, in the order `l` lists them.
    pub(super) fn new(l: &Lts, map: &[u32]) -> LeafEdges {
        let (start, edges) = l.by_source(|x| map[x as usize]);
        LeafEdges { start, edges }
    }

    fn of(&self, s: u32) -> &[(u32, u32)] {
        &self.edges[self.start[s as usize] as usize..self.start[s as usize + 1] as usize]
    }
}

/// The successors of one state: per transition its label, and its target as a row of
/// `width` leaf states in `rows`.
pub(super) struct Targets {
    labels: Vec<u32>,
    rows: Vec<u32>,
}

#[derive(Default)]
pub(super) struct OnTheFly {
    pub(super) labels: Vec<String>,
    pub(super) ids: HashMap<String, u32>,
    /// Per leaf: its transitions by state.
    pub(super) leaves: Vec<LeafEdges>,
}

impl OnTheFly {
    pub(super) fn id(&mut self, l: &str) -> u32 {
        if let Some(i) = self.ids.get(l) {
            return *i;
        }
        let i = self.labels.len() as u32;
        self.labels.push(l.to_string());
        self.ids.insert(l.to_string(), i);
        i
    }

    fn gate(&self, l: u32) -> &str {
        Lts::gate(&self.labels[l as usize])
    }

    /// Fills the tables of `n` and its operands for every label.
    pub(super) fn prepare(&self, n: &mut Node) {
        let labels = 0..self.labels.len() as u32;
        match n {
            Node::Leaf(_) => {}
            Node::Hide { gates, all_but, body, hidden } => {
                *hidden = labels.map(|l| l != 0 && gates.iter().any(|g| g == self.gate(l)) != *all_but).collect();
                self.prepare(body);
            }
            Node::Prio { chains, body, ranks } => {
                *ranks = labels
                    .map(|l| {
                        chains.iter().map(|ch| ch.iter().position(|r| r.is_match(&self.labels[l as usize]))).collect()
                    })
                    .collect();
                self.prepare(body);
            }
            Node::Par { global, iface, kids, parts } => {
                let nk = kids.len();
                *parts = labels
                    .map(|l| {
                        let g = self.gate(l);
                        if g == "i" {
                            vec![]
                        } else if global.iter().any(|x| x == g) {
                            (0..nk).collect()
                        } else {
                            (0..nk).filter(|&k| iface[k].as_ref().is_some_and(|i| i.iter().any(|x| x == g))).collect()
                        }
                    })
                    .collect();
                for k in kids {
                    self.prepare(k);
                }
            }
        }
    }

    /// The moves of node `n` in state `st`; their leaf moves appended to `parts`.
    fn moves(&self, n: &Node, st: &[u32], parts: &mut Vec<(u32, u32)>) -> Vec<Move> {
        match n {
            Node::Leaf(k) => self.leaves[*k]
                .of(st[*k])
                .iter()
                .map(|&(l, t)| {
                    parts.push((*k as u32, t));
                    (l, parts.len() as u32 - 1, parts.len() as u32)
                })
                .collect(),
            Node::Hide { body, hidden, .. } => {
                let mut v = self.moves(body, st, parts);
                for m in &mut v {
                    if hidden[m.0 as usize] {
                        m.0 = 0;
                    }
                }
                v
            }
            Node::Prio { chains, body, ranks } => {
                let v = self.moves(body, st, parts);
                let best: Vec<Option<usize>> =
                    (0..chains.len()).map(|c| v.iter().filter_map(|m| ranks[m.0 as usize][c]).min()).collect();
                v.into_iter()
                    .filter(|m| {
                        ranks[m.0 as usize].iter().zip(&best).all(|(r, b)| match (r, b) {
                            (Some(r), Some(b)) => r <= b,
                            _ => true,
                        })
                    })
                    .collect()
            }
            Node::Par { kids, parts: sync_parts, .. } => {
                let mut kid_moves: Vec<Vec<Move>> = kids.iter().map(|k| self.moves(k, st, parts)).collect();
                let mut out = vec![];
                // The labels to synchronise, in the order first met (the order of the output).
                let mut sync: Vec<u32> = vec![];
                for (k, ms) in kid_moves.iter().enumerate() {
                    for m in ms {
                        if sync_parts[m.0 as usize].contains(&k) {
                            if !sync.contains(&m.0) {
                                sync.push(m.0);
                            }
                        } else {
                            out.push(*m);
                        }
                    }
                }
                // Each kid's moves by label, for the products below (stable: the order of the
                // moves of one label is kept).
                for ms in &mut kid_moves {
                    ms.sort_by_key(|m| m.0);
                }
                let of_label = |k: usize, l: u32| -> &[Move] {
                    let ms = &kid_moves[k];
                    let a = ms.partition_point(|m| m.0 < l);
                    let b = ms.partition_point(|m| m.0 <= l);
                    &ms[a..b]
                };
                // The combinations so far, as ranges of `parts`.
                let mut acc: Vec<(u32, u32)> = vec![];
                let mut next: Vec<(u32, u32)> = vec![];
                for l in sync {
                    let at = parts.len() as u32;
                    acc.clear();
                    acc.push((at, at));
                    for &k in &sync_parts[l as usize] {
                        next.clear();
                        for &(a0, a1) in &acc {
                            for m in of_label(k, l) {
                                let from = parts.len();
                                parts.extend_from_within(a0 as usize..a1 as usize);
                                parts.extend_from_within(m.1 as usize..m.2 as usize);
                                next.push((from as u32, parts.len() as u32));
                            }
                        }
                        std::mem::swap(&mut acc, &mut next);
                        if acc.is_empty() {
                            break;
                        }
                    }
                    out.extend(acc.iter().map(|&(a, b)| (l, a, b)));
                }
                out
            }
        }
    }

    /// The moves of state `st`, each as (label, target).
    fn targets_of(&self, root: &Node, st: &[u32]) -> Targets {
        let mut parts = vec![];
        let moves = self.moves(root, st, &mut parts);
        let mut t =
            Targets { labels: Vec::with_capacity(moves.len()), rows: Vec::with_capacity(moves.len() * st.len()) };
        for (l, a, b) in moves {
            t.labels.push(l);
            let row = t.rows.len();
            t.rows.extend_from_slice(st);
            for &(k, target) in &parts[a as usize..b as usize] {
                t.rows[row + k as usize] = target;
            }
        }
        t
    }

    /// The network's LTS from the root, within `limits` (polled for every state, and asked
    /// before the state table or the transition list doubles), on `threads` threads.
    ///
    /// States are numbered in the order of a sequential breadth-first search whatever the
    /// thread count: moves are computed on the threads ahead of the numbering (each thread
    /// with its own copy of the network, whose caches are its own), which takes them in state
    /// order on this thread.
    pub(super) fn explore(
        mut self,
        mut root: Node,
        limits: &crate::limits::Limits,
        mut progress: Option<crate::lts_backend::PhaseReporter>,
        threads: usize,
    ) -> Result<Lts, LntcheckError> {
        self.prepare(&mut root);
        let mut roots: Vec<Node> = (1..threads.max(1)).map(|_| root.clone()).collect();
        roots.insert(0, root);
        let initial = vec![0u32; self.leaves.len()];
        // The composition's states: rows of leaf-state numbers in the compact store.
        let mut states = crate::lntcheck::store::StateStore::new(&initial);
        let width = initial.len();
        let mut out = Lts::new();
        let mut out_label: Vec<Option<u32>> = vec![None; self.labels.len()];
        let stopped = |n: usize| {
            limits
                .stopped()
                .map(|r| LntcheckError::Stopped(format!("stopped after {n} states of the composition ({r:?})")))
        };
        let this = &self;
        // After a stop, no expansion: the numbering reports the stop first.
        let expand = |root: &mut Node, st: &Vec<u32>| match limits.stopped() {
            Some(_) => Targets { labels: vec![], rows: vec![] },
            None => this.targets_of(root, st),
        };
        crate::lntcheck::jobs::explore_in_order(&mut roots, vec![initial], AHEAD, expand, |i, moves| {
            if let Some(e) = stopped(states.len()) {
                return Err(e);
            }
            let mut fresh = vec![];
            for (j, &l) in moves.labels.iter().enumerate() {
                let n = &moves.rows[j * width..(j + 1) * width];
                if !limits.admit(states.growth_bytes() + out.growth_bytes()) {
                    return Err(LntcheckError::Stopped(format!(
                        "stopped after {} states of the composition (Memory)",
                        states.len()
                    )));
                }
                let (id, new) = states.number(n);
                if new {
                    if limits.over_states(states.len() as u64) {
                        limits.stop(crate::limits::StopReason::MaxStates);
                        return Err(LntcheckError::Stopped(format!(
                            "more than {} states in the composition (--max-states)",
                            limits.max_states().unwrap_or_default()
                        )));
                    }
                    fresh.push(n.to_vec());
                }
                out.add_mapped(&mut out_label, &this.labels, i as u32, l, id);
            }
            if let Some(r) = &mut progress {
                r.report(states.len(), out.trans.len());
            }
            Ok(fresh)
        })?;
        out.nstates = states.len();
        self.leaves.clear();
        Ok(out)
    }
}
