//! Explicit labelled transition systems: Aldebaran `.aut` output and the SVL-level operators
//! used by the generated scripts (parallel composition of leaves, `hide all but`, `total prio`).

pub use crate::mcl::Lts;
use rustc_hash::FxHashMap;

/// A `total prio` pattern: a regular expression matching a whole label.
pub fn prio_pattern(p: &str) -> Result<regex::Regex, super::LntcheckError> {
    regex::Regex::new(&format!("^(?:{p})$"))
        .map_err(|e| super::LntcheckError::Syntax(format!("priority pattern \"{p}\": {e}")))
}

/// The SVL-level operators on the interpreter's LTSs, whose initial state is 0.
impl Lts {
    /// Whether `reachable` would give this LTS back as it is (the label numbering aside): its
    /// states are numbered in the order a breadth-first search from state 0 meets them, all
    /// reachable, and its transitions are listed by source in that order.
    pub(crate) fn is_breadth_first(&self) -> bool {
        if self.initial != 0 || self.nstates == 0 {
            return false;
        }
        let mut met = 1u32;
        let mut last = 0u32;
        for &(s, _, t) in &self.trans {
            if s < last || s >= met || t > met {
                return false;
            }
            last = s;
            if t == met {
                met += 1;
            }
        }
        met as usize == self.nstates
    }

    /// The transitions by source in one vector, labels renamed by `label` (a counting sort,
    /// stable: each source's transitions in the order listed), not a vector per state: state
    /// `s`'s are `edges[start[s]..start[s + 1]]`, each `(label, target)`.
    pub(crate) fn by_source(&self, label: impl Fn(u32) -> u32) -> (Vec<u32>, Vec<(u32, u32)>) {
        let mut start = vec![0u32; self.nstates + 1];
        for &(s, _, _) in &self.trans {
            start[s as usize + 1] += 1;
        }
        for i in 0..self.nstates {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut edges = vec![(0u32, 0u32); self.trans.len()];
        for &(s, l, t) in &self.trans {
            edges[fill[s as usize] as usize] = (label(l), t);
            fill[s as usize] += 1;
        }
        (start, edges)
    }

    /// The part reachable from state 0, renumbered in BFS order.
    pub fn reachable(&self) -> Lts {
        let (start, edges) = self.by_source(|l| l);
        let adj = |s: usize| &edges[start[s] as usize..start[s + 1] as usize];
        let mut id = vec![u32::MAX; self.nstates];
        let mut order = vec![0u32];
        if self.nstates > 0 {
            id[0] = 0;
        }
        let mut out = Lts::new();
        out.trans.reserve(self.trans.len());
        let mut labels = vec![None; self.labels.len()];
        let mut i = 0;
        while i < order.len() {
            let s = order[i];
            for &(l, t) in adj(s as usize) {
                if id[t as usize] == u32::MAX {
                    id[t as usize] = order.len() as u32;
                    order.push(t);
                }
                out.add_mapped(&mut labels, &self.labels, id[s as usize], l, id[t as usize]);
            }
            i += 1;
        }
        out.nstates = order.len();
        out
    }

    /// `hide all but G1, …`: every other label becomes `i`.
    pub fn hide_all_but(&self, keep: &[&str]) -> Lts {
        self.relabel(|l| if keep.contains(&Lts::gate(l)) { l.to_string() } else { "i".to_string() })
    }

    /// `hide G1, … in`.
    pub fn hide(&self, gates: &[&str]) -> Lts {
        self.relabel(|l| if gates.contains(&Lts::gate(l)) { "i".to_string() } else { l.to_string() })
    }

    pub(crate) fn relabel(&self, f: impl Fn(&str) -> String) -> Lts {
        let mut out = Lts::new();
        out.nstates = self.nstates;
        let names: Vec<String> = self.labels.iter().map(|l| f(l)).collect();
        let mut labels = vec![None; names.len()];
        for &(s, l, t) in &self.trans {
            out.add_mapped(&mut labels, &names, s, l, t);
        }
        out
    }

    /// `total prio P1 > P2 > … in` (one chain per element of `chains`): a transition whose
    /// label matches `Pj` is removed from a state that has a transition matching an earlier
    /// `Pi` of the same chain. Patterns are anchored regular expressions on whole labels.
    #[cfg(feature = "test-support")]
    pub fn prio(&self, chains: &[Vec<regex::Regex>]) -> Lts {
        let adj = self.adjacency();
        let rank = |l: &str, ch: &[regex::Regex]| ch.iter().position(|r| r.is_match(l));
        let mut out = Lts::new();
        out.nstates = self.nstates;
        for (s, succ) in adj.iter().enumerate() {
            for (l, t) in succ {
                let lab = &self.labels[*l as usize];
                let mut cut = false;
                for ch in chains {
                    if let Some(r) = rank(lab, ch)
                        && succ.iter().any(|(l2, _)| rank(&self.labels[*l2 as usize], ch).is_some_and(|r2| r2 < r))
                    {
                        cut = true;
                    }
                }
                if !cut {
                    out.add(s as u32, lab, *t);
                }
            }
        }
        out.reachable()
    }

    /// Parallel composition of explicit LTSs (`par G… in L1 || L2 … end par` when `global`,
    /// else `par S1 -> L1 || S2 -> L2 … end par`): labels synchronise on equality.
    #[cfg(feature = "test-support")]
    pub fn par(kids: &[Lts], global: &[String], iface: &[Option<Vec<String>>]) -> Lts {
        let adjs: Vec<_> = kids.iter().map(|k| k.adjacency()).collect();
        let participants = |g: &str| -> Vec<usize> {
            if g == "i" {
                return vec![];
            }
            if global.iter().any(|x| x == g) {
                return (0..kids.len()).collect();
            }
            (0..kids.len())
                .filter(|&k| iface.get(k).and_then(|x| x.as_ref()).is_some_and(|i| i.iter().any(|x| x == g)))
                .collect()
        };
        let mut out = Lts::new();
        let init = vec![0u32; kids.len()];
        let mut states = super::store::StateStore::new(&init);
        let mut i = 0;
        while i < states.len() {
            let st = states.get(i as u32);
            let mut succ: Vec<(String, Vec<u32>)> = vec![];
            let mut sync_labels: Vec<String> = vec![];
            for k in 0..kids.len() {
                for (l, t) in &adjs[k][st[k] as usize] {
                    let lab = &kids[k].labels[*l as usize];
                    let ps = participants(Lts::gate(lab));
                    if ps.contains(&k) {
                        if !sync_labels.contains(lab) {
                            sync_labels.push(lab.clone());
                        }
                    } else {
                        let mut n = st.clone();
                        n[k] = *t;
                        succ.push((lab.clone(), n));
                    }
                }
            }
            for lab in sync_labels {
                let ps = participants(Lts::gate(&lab));
                let mut acc = vec![st.clone()];
                for &k in &ps {
                    let ts: Vec<u32> = adjs[k][st[k] as usize]
                        .iter()
                        .filter(|(l, _)| kids[k].labels[*l as usize] == lab)
                        .map(|(_, t)| *t)
                        .collect();
                    let mut next = vec![];
                    for a in &acc {
                        for t in &ts {
                            let mut n = a.clone();
                            n[k] = *t;
                            next.push(n);
                        }
                    }
                    acc = next;
                }
                for n in acc {
                    succ.push((lab.clone(), n));
                }
            }
            for (lab, n) in succ {
                let (id, _) = states.number(&n);
                out.add(i as u32, &lab, id);
            }
            i += 1;
        }
        out.nstates = states.len();
        out
    }

    /// Whether the initial states of `a` and `b` are strongly bisimilar (signature refinement
    /// on the disjoint union).
    pub fn bisimilar(a: &Lts, b: &Lts) -> bool {
        let n = a.nstates + b.nstates;
        let mut labels: FxHashMap<&str, u32> = FxHashMap::default();
        let mut edges: Vec<Vec<(u32, u32)>> = vec![vec![]; n];
        for (off, l) in [(0, a), (a.nstates, b)] {
            for (s, x, t) in &l.trans {
                let k = labels.len() as u32;
                let id = *labels.entry(l.label(*x)).or_insert(k);
                edges[off + *s as usize].push((id, off as u32 + *t));
            }
        }
        let mut block = vec![0u32; n];
        let mut count = 1;
        loop {
            let mut sigs: FxHashMap<(u32, Vec<(u32, u32)>), u32> = FxHashMap::default();
            let mut next = vec![0u32; n];
            for s in 0..n {
                let mut sig: Vec<(u32, u32)> = edges[s].iter().map(|(l, t)| (*l, block[*t as usize])).collect();
                sig.sort_unstable();
                sig.dedup();
                let k = sigs.len() as u32;
                next[s] = *sigs.entry((block[s], sig)).or_insert(k);
            }
            let new_count = sigs.len();
            block = next;
            if new_count == count {
                break;
            }
            count = new_count;
        }
        a.nstates > 0 && b.nstates > 0 && block[0] == block[a.nstates]
    }
}
