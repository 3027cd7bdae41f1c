//! A set of node ids with one bit per node: the marks of the searches over all states,
//! where a byte or a word per state would be most of a check's memory.

pub(crate) struct NodeSet {
    words: Vec<u64>,
}

impl NodeSet {
    /// The empty set of the nodes `0..n`.
    pub(crate) fn new(n: usize) -> NodeSet {
        NodeSet { words: vec![0; n.div_ceil(64)] }
    }
    /// Empties the set and makes it a set of the nodes `0..n` (keeping its memory).
    pub(crate) fn reset(&mut self, n: usize) {
        self.words.clear();
        self.words.resize(n.div_ceil(64), 0);
    }
    pub(crate) fn contains(&self, v: u32) -> bool {
        self.words[v as usize / 64] >> (v % 64) & 1 == 1
    }
    pub(crate) fn insert(&mut self, v: u32) {
        self.words[v as usize / 64] |= 1 << (v % 64);
    }
}

#[cfg(test)]
mod tests {
    use super::NodeSet;

    #[test]
    fn holds_exactly_the_inserted_nodes() {
        let n = 200;
        let mut s = NodeSet::new(n);
        let inserted: Vec<u32> = (0..n as u32).filter(|v| v % 7 == 3 || *v == 63 || *v == 64 || *v == 199).collect();
        for &v in &inserted {
            s.insert(v);
        }
        for v in 0..n as u32 {
            assert_eq!(s.contains(v), inserted.contains(&v), "node {v}");
        }
    }
}
