//! Strongly connected components (iterative Tarjan), shared by the property checks (the
//! cycles of a lasso) and the LTS reductions of labs's SVL interpreter (inert cycles).

/// `Components::comp` of a node the search did not reach.
pub(crate) const UNREACHED: u32 = u32::MAX;

/// The components of the part of a graph reached from the roots.
pub(crate) struct Components {
    /// Each node's component (`UNREACHED` for a node not reached). Components are numbered in
    /// reverse topological order: a component's number is above those of every other
    /// component it reaches.
    pub(crate) comp: Vec<u32>,
    pub(crate) count: u32,
}

impl Components {
    /// The members of each component, by component number.
    pub(crate) fn members(&self) -> Vec<Vec<u32>> {
        let mut out = vec![Vec::new(); self.count as usize];
        for (v, &c) in self.comp.iter().enumerate() {
            if c != UNREACHED {
                out[c as usize].push(v as u32);
            }
        }
        out
    }
}

/// The components of the graph on `0..n` reached from `roots` along the edges `succ` gives
/// (the caller leaves out the edges that do not count).
pub(crate) fn components(
    n: usize,
    roots: impl IntoIterator<Item = u32>,
    mut succ: impl FnMut(u32, &mut dyn FnMut(u32)),
) -> Components {
    let mut t = Tarjan {
        index: vec![NONE; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        kids: Vec::new(),
        call: Vec::new(),
    };
    let mut comp = vec![UNREACHED; n];
    let mut count = 0u32;
    for root in roots {
        if t.index[root as usize] != NONE {
            continue;
        }
        t.enter(root, &mut succ);
        while let Some(&(v, start, pos)) = t.call.last() {
            let v = v as usize;
            if pos < t.kids.len() {
                let w = t.kids[pos];
                t.call.last_mut().expect("a frame").2 += 1;
                if t.index[w as usize] == NONE {
                    t.enter(w, &mut succ);
                } else if t.on_stack[w as usize] {
                    t.low[v] = t.low[v].min(t.index[w as usize]);
                }
                continue;
            }
            t.kids.truncate(start);
            t.call.pop();
            if let Some(&(u, _, _)) = t.call.last() {
                t.low[u as usize] = t.low[u as usize].min(t.low[v]);
            }
            if t.low[v] == t.index[v] {
                loop {
                    let w = t.stack.pop().expect("Tarjan stack");
                    t.on_stack[w as usize] = false;
                    comp[w as usize] = count;
                    if w as usize == v {
                        break;
                    }
                }
                count += 1;
            }
        }
    }
    Components { comp, count }
}

const NONE: u32 = u32::MAX;

/// The search's state.
struct Tarjan {
    index: Vec<u32>,
    low: Vec<u32>,
    on_stack: Vec<bool>,
    stack: Vec<u32>,
    next: u32,
    /// Successors of the nodes on the call stack, each frame's after its parent's.
    kids: Vec<u32>,
    /// The frames: (node, start of its successors in `kids`, next one to visit).
    call: Vec<(u32, usize, usize)>,
}

impl Tarjan {
    fn enter(&mut self, v: u32, succ: &mut impl FnMut(u32, &mut dyn FnMut(u32))) {
        self.index[v as usize] = self.next;
        self.low[v as usize] = self.next;
        self.next += 1;
        self.stack.push(v);
        self.on_stack[v as usize] = true;
        let start = self.kids.len();
        let kids = &mut self.kids;
        succ(v, &mut |w| kids.push(w));
        self.call.push((v, start, start));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Components by brute force: `u` and `v` are together iff each reaches the other.
    fn reach(n: usize, edges: &[(u32, u32)]) -> Vec<Vec<bool>> {
        let mut r = vec![vec![false; n]; n];
        for (v, row) in r.iter_mut().enumerate() {
            row[v] = true;
        }
        for &(a, b) in edges {
            r[a as usize][b as usize] = true;
        }
        for k in 0..n {
            for i in 0..n {
                for j in 0..n {
                    if r[i][k] && r[k][j] {
                        r[i][j] = true;
                    }
                }
            }
        }
        r
    }

    #[test]
    fn components_are_mutual_reachability_in_reverse_topological_order() {
        // Graphs from a fixed LCG, with self-loops and repeated edges.
        let mut x = 7u64;
        for n in [1usize, 2, 5, 9, 17] {
            for density in [1usize, 2, 4] {
                let edges: Vec<(u32, u32)> = (0..n * density)
                    .map(|_| {
                        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        (((x >> 33) % n as u64) as u32, ((x >> 13) % n as u64) as u32)
                    })
                    .collect();
                let c = components(n, 0..n as u32, |v, f| {
                    for &(a, b) in &edges {
                        if a == v {
                            f(b)
                        }
                    }
                });
                let r = reach(n, &edges);
                for (u, row) in r.iter().enumerate() {
                    for (v, &uv) in row.iter().enumerate() {
                        assert_eq!(c.comp[u] == c.comp[v], uv && r[v][u], "n={n} {u} {v} {edges:?}");
                    }
                }
                for &(a, b) in &edges {
                    assert!(c.comp[a as usize] >= c.comp[b as usize], "an edge goes to a component numbered lower");
                }
                assert_eq!(c.members().iter().map(Vec::len).sum::<usize>(), n);
            }
        }
        // Only what the roots reach.
        let c = components(3, [1], |v, f| {
            if v == 1 {
                f(2)
            }
        });
        assert_eq!(c.comp[0], UNREACHED);
        assert_eq!(c.count, 2);
    }
}
