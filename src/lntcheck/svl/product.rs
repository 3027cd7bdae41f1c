//! The product of a network of explicit leaves, explored once from its root: states are
//! vectors of leaf states; `hide` and `total prio` act on the moves their operand offers.

use crate::lntcheck::LntcheckError;
use crate::lntcheck::lts::Lts;
use std::collections::HashMap;

/// A network node over explicit leaves (label ids interned in `OnTheFly`).
#[derive(Clone)]
pub(super) enum Node {
    Leaf(usize),
    Hide {
        gates: Vec<String>,
        all_but: bool,
        body: Box<Node>,
    },
    /// `ranks`: per label id, its position in each chain.
    Prio {
        chains: Vec<Vec<regex::Regex>>,
        body: Box<Node>,
        ranks: HashMap<u32, Vec<Option<usize>>>,
    },
    /// `parts`: per label id, the kids that synchronise on it (computed once).
    Par {
        global: Vec<String>,
        iface: Vec<Option<Vec<String>>>,
        kids: Vec<Node>,
        parts: HashMap<u32, Vec<usize>>,
    },
}

/// The states whose moves may be computed ahead of the numbering (when several threads
/// compose): few enough that the moves held outside the memory bound's account stay small.
const AHEAD: usize = 4096;

/// A transition of a subnetwork: label id and the leaves it moves.
pub(super) type Move = (u32, Vec<(usize, u32)>);

#[derive(Default)]
pub(super) struct OnTheFly {
    pub(super) labels: Vec<String>,
    pub(super) ids: HashMap<String, u32>,
    /// Per leaf: successors (label id, target) by state.
    pub(super) leaves: Vec<Vec<Vec<(u32, u32)>>>,
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

    fn moves(&self, n: &mut Node, st: &[u32]) -> Vec<Move> {
        match n {
            Node::Leaf(k) => self.leaves[*k][st[*k] as usize].iter().map(|(l, t)| (*l, vec![(*k, *t)])).collect(),
            Node::Hide { gates, all_but, body } => {
                let mut v = self.moves(body, st);
                for m in &mut v {
                    if m.0 != 0 && gates.iter().any(|g| g == self.gate(m.0)) != *all_but {
                        m.0 = 0;
                    }
                }
                v
            }
            Node::Prio { chains, body, ranks } => {
                let v = self.moves(body, st);
                for m in &v {
                    ranks.entry(m.0).or_insert_with(|| {
                        chains.iter().map(|ch| ch.iter().position(|r| r.is_match(&self.labels[m.0 as usize]))).collect()
                    });
                }
                let best: Vec<Option<usize>> =
                    (0..chains.len()).map(|c| v.iter().filter_map(|m| ranks[&m.0][c]).min()).collect();
                v.into_iter()
                    .filter(|m| {
                        ranks[&m.0].iter().zip(&best).all(|(r, b)| match (r, b) {
                            (Some(r), Some(b)) => r <= b,
                            _ => true,
                        })
                    })
                    .collect()
            }
            Node::Par { global, iface, kids, parts } => {
                let nk = kids.len();
                let mut kid_moves: Vec<Vec<Move>> = kids.iter_mut().map(|k| self.moves(k, st)).collect();
                let mut out = vec![];
                // The labels to synchronise, in the order first met (the order of the output).
                let mut sync: Vec<u32> = vec![];
                for (k, ms) in kid_moves.iter().enumerate() {
                    for m in ms {
                        let ps = parts.entry(m.0).or_insert_with(|| {
                            let g = self.gate(m.0);
                            if g == "i" {
                                vec![]
                            } else if global.iter().any(|x| x == g) {
                                (0..nk).collect()
                            } else {
                                (0..nk)
                                    .filter(|&k| iface[k].as_ref().is_some_and(|i| i.iter().any(|x| x == g)))
                                    .collect()
                            }
                        });
                        if ps.contains(&k) {
                            if !sync.contains(&m.0) {
                                sync.push(m.0);
                            }
                        } else {
                            out.push(m.clone());
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
                for l in sync {
                    let mut acc: Vec<Vec<(usize, u32)>> = vec![vec![]];
                    for &k in &parts[&l] {
                        let mut next = vec![];
                        for a in &acc {
                            for m in of_label(k, l) {
                                let mut c = a.clone();
                                c.extend(&m.1);
                                next.push(c);
                            }
                        }
                        acc = next;
                        if acc.is_empty() {
                            break;
                        }
                    }
                    out.extend(acc.into_iter().map(|c| (l, c)));
                }
                out
            }
        }
    }

    /// The moves of state `st`, each as (label, target).
    fn targets_of(&self, root: &mut Node, st: &[u32]) -> Vec<(u32, Vec<u32>)> {
        self.moves(root, st)
            .into_iter()
            .map(|(l, ch)| {
                let mut n = st.to_vec();
                for (k, t) in ch {
                    n[k] = t;
                }
                (l, n)
            })
            .collect()
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
        root: Node,
        limits: &crate::limits::Limits,
        mut progress: Option<crate::lts_backend::PhaseReporter>,
        threads: usize,
    ) -> Result<Lts, LntcheckError> {
        let mut roots: Vec<Node> = (1..threads.max(1)).map(|_| root.clone()).collect();
        roots.insert(0, root);
        let initial = vec![0u32; self.leaves.len()];
        let mut states = crate::lntcheck::lts::Numbering::new(initial.clone());
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
            Some(_) => vec![],
            None => this.targets_of(root, st),
        };
        crate::lntcheck::jobs::explore_in_order(&mut roots, vec![initial], AHEAD, expand, |i, moves| {
            if let Some(e) = stopped(states.len()) {
                return Err(e);
            }
            let mut fresh = vec![];
            for (l, n) in moves {
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
                    fresh.push(states.states[id as usize].clone());
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
