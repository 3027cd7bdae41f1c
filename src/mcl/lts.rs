//! The one explicit LTS type: what the `.aut` reader returns, the LNT interpreter generates and
//! the SVL operators (`lntcheck::lts`) transform, and what the evaluator reads through a
//! `LtsView` of its successor lists.

use rustc_hash::FxHashMap;
use std::fmt::Write;

/// An explicit LTS as the evaluator sees it: states `0..succ.len()`, the initial state,
/// labels by index, and the outgoing edges of each state as (label index, target).
#[derive(Clone, Copy, Debug)]
pub struct LtsView<'a> {
    pub(crate) initial: u32,
    pub(crate) labels: &'a [String],
    pub(crate) succ: &'a [Vec<(u32, u32)>],
}

#[derive(Clone, Debug, Default)]
pub struct Lts {
    /// The initial state (0 for every LTS the interpreter builds).
    pub initial: u32,
    /// States are `0..nstates`.
    pub nstates: usize,
    /// (source, label index, target).
    pub trans: Vec<(u32, u32, u32)>,
    pub labels: Vec<String>,
    label_ids: FxHashMap<String, u32>,
}

impl Lts {
    pub fn new() -> Lts {
        Lts::default()
    }

    pub(crate) fn label_id(&mut self, l: &str) -> u32 {
        if let Some(i) = self.label_ids.get(l) {
            return *i;
        }
        let i = self.labels.len() as u32;
        self.labels.push(l.to_string());
        self.label_ids.insert(l.to_string(), i);
        i
    }

    /// `add(s, labels[l], t)`, where `map[l]` remembers the number of `labels[l]` here: a label
    /// is looked up once, not hashed for every transition.
    pub(crate) fn add_mapped(&mut self, map: &mut [Option<u32>], labels: &[String], s: u32, l: u32, t: u32) {
        let id = match map[l as usize] {
            Some(i) => i,
            None => {
                let i = self.label_id(&labels[l as usize]);
                map[l as usize] = Some(i);
                i
            }
        };
        self.trans.push((s, id, t));
    }

    pub fn add(&mut self, s: u32, label: &str, t: u32) {
        let l = self.label_id(label);
        self.trans.push((s, l, t));
    }

    /// The bytes the next transition would allocate at once when the list is full (0
    /// otherwise).
    pub(crate) fn growth_bytes(&self) -> u64 {
        if self.trans.len() < self.trans.capacity() {
            return 0;
        }
        (self.trans.capacity().max(4) * 2 * std::mem::size_of::<(u32, u32, u32)>()) as u64
    }

    pub fn label(&self, i: u32) -> &str {
        &self.labels[i as usize]
    }

    /// Gate of a label (`i` for the internal action).
    pub fn gate(label: &str) -> &str {
        label.split(' ').next().unwrap_or("")
    }

    /// Aldebaran format: `des (0, T, S)` then `(s, "label", t)` per transition. The text is
    /// measured first and written into a string of exactly its size: on a large LTS it is most
    /// of the memory a generation takes.
    pub fn to_aut(&self) -> String {
        let header = format!("des ({}, {}, {})\n", self.initial, self.trans.len(), self.nstates.max(1));
        let shown: Vec<String> = self
            .labels
            .iter()
            .map(|l| if l == "i" { "i".to_string() } else { format!("\"{}\"", l.replace('"', "\\\"")) })
            .collect();
        let digits = |x: u32| x.checked_ilog10().unwrap_or(0) as usize + 1;
        // `(s, LABEL, t)\n`: the numbers, the label, `(`, `, ` twice, `)` and the newline.
        let size = header.len()
            + self.trans.iter().map(|&(s, l, t)| digits(s) + shown[l as usize].len() + digits(t) + 7).sum::<usize>();
        let mut out = String::with_capacity(size);
        out.push_str(&header);
        for &(s, l, t) in &self.trans {
            let _ = writeln!(out, "({s}, {}, {t})", shown[l as usize]);
        }
        debug_assert_eq!(out.len(), size);
        out
    }

    /// Successor lists (by source state).
    pub fn adjacency(&self) -> Vec<Vec<(u32, u32)>> {
        let mut adj = vec![vec![]; self.nstates];
        for (s, l, t) in &self.trans {
            adj[*s as usize].push((*l, *t));
        }
        adj
    }

    /// The evaluator's view of this LTS, over its successor lists `succ` (`adjacency`).
    pub fn view<'a>(&'a self, succ: &'a [Vec<(u32, u32)>]) -> LtsView<'a> {
        LtsView { initial: self.initial, labels: &self.labels, succ }
    }
}
