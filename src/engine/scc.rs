//! Strongly connected components (Tarjan's search, one word per node), shared by the property checks (the
//! cycles of a lasso) and the LTS reductions of labs's SVL interpreter (inert cycles).

use super::node_set::NodeSet;

/// `Components::comp` of a node the search did not reach.
pub(crate) const UNREACHED: u32 = u32::MAX;

/// The components of the part of a graph reached from the roots.
pub(crate) struct Components {
    /// Each node's component (`UNREACHED` for a node not reached). Components are numbered in
    /// reverse topological order: a component's number is above those of every other
    /// component it reaches.
    pub(crate) comp: Vec<u32>,
}

/// The components of the graph on `0..n` reached from `roots` along the edges `succ` gives
/// (the caller leaves out the edges that do not count).
pub(crate) fn components(
    n: usize,
    roots: impl IntoIterator<Item = u32>,
    succ: impl FnMut(u32, &mut dyn FnMut(u32)),
) -> Components {
    components_noting(n, roots, succ, |_| {})
}

/// `components`, also calling `noted(members)` for each component as it is completed.
pub(crate) fn components_noting(
    n: usize,
    roots: impl IntoIterator<Item = u32>,
    succ: impl FnMut(u32, &mut dyn FnMut(u32)),
    mut noted: impl FnMut(&[u32]),
) -> Components {
    let (mut comp, done, _) = search(n, roots, succ, |_, _| {}, |_, members| noted(members));
    // The search's array becomes the result: it holds a completed node's component number.
    for (v, c) in comp.iter_mut().enumerate() {
        if !done.contains(v as u32) {
            *c = UNREACHED;
        }
    }
    Components { comp }
}

/// Which nodes reached from `roots` reach a node where `target` holds, found in the same
/// search: components are completed successors first, so a component reaches a target when
/// one of its nodes is one or has an edge to a completed component that reaches one.
pub(crate) fn reaching(
    n: usize,
    roots: impl IntoIterator<Item = u32>,
    succ: impl FnMut(u32, &mut dyn FnMut(u32)),
    target: &dyn Fn(u32) -> bool,
) -> Vec<bool> {
    // `reach[v]` for a completed node; before, whether v is a target or has an edge to a
    // completed node that reaches one.
    let reach = std::cell::RefCell::new(vec![false; n]);
    search(
        n,
        roots,
        succ,
        |v, w| {
            let mut r = reach.borrow_mut();
            if r[w as usize] {
                r[v as usize] = true;
            }
        },
        |_, members| {
            let mut r = reach.borrow_mut();
            let any = members.iter().any(|&w| r[w as usize] || target(w));
            for &w in members {
                r[w as usize] = any;
            }
        },
    );
    reach.into_inner()
}

/// Tarjan's search from `roots` in Pearce's space-efficient form (one word per node: the
/// index and the low link share it, and a node is a component's root when the search never
/// lowered it), so that the components of tens of millions of states cost 4 bytes and a bit
/// each. `done_edge(v, w)` for each edge to a node `w` already in a completed component, and
/// `completed(number, members)` for each component as it is completed (numbered from 0 in
/// that order). Returns each node's word (its component number once it is in `done`), the
/// completed nodes, and the number of components.
fn search(
    n: usize,
    roots: impl IntoIterator<Item = u32>,
    succ: impl FnMut(u32, &mut dyn FnMut(u32)),
    done_edge: impl FnMut(u32, u32),
    completed: impl FnMut(u32, &[u32]),
) -> (Vec<u32>, NodeSet, u32) {
    let mut t = Pearce::new(n);
    let count = search_in(&mut t, roots, succ, done_edge, completed);
    (t.rindex, t.done, count)
}

/// Many searches, each over all the nodes of a small graph, in the same memory: the
/// components of the inert steps of each block a minimisation refines.
pub(crate) struct ComponentSearch(Pearce);

impl ComponentSearch {
    pub(crate) fn new() -> ComponentSearch {
        ComponentSearch(Pearce::new(0))
    }

    /// The components of the graph on `0..n` (every node a root), each node's number as
    /// `components` numbers them, calling `noted(members)` for each as it is completed.
    pub(crate) fn all_noting(
        &mut self,
        n: usize,
        succ: impl FnMut(u32, &mut dyn FnMut(u32)),
        mut noted: impl FnMut(&[u32]),
    ) -> &[u32] {
        self.0.reset(n);
        search_in(&mut self.0, 0..n as u32, succ, |_, _| {}, |_, members| noted(members));
        &self.0.rindex
    }
}

/// `search` in the memory of `t` (a new or reset search over its nodes); the number of
/// components.
fn search_in(
    t: &mut Pearce,
    roots: impl IntoIterator<Item = u32>,
    mut succ: impl FnMut(u32, &mut dyn FnMut(u32)),
    mut done_edge: impl FnMut(u32, u32),
    mut completed: impl FnMut(u32, &[u32]),
) -> u32 {
    let mut count = 0u32;
    for root in roots {
        if t.rindex[root as usize] != UNVISITED || t.done.contains(root) {
            continue;
        }
        t.enter(root, &mut succ);
        while let Some(frame) = t.call.last_mut() {
            let v = frame.node;
            if frame.next < t.kids.len() {
                let w = t.kids[frame.next];
                frame.next += 1;
                if t.done.contains(w) {
                    done_edge(v, w);
                } else if t.rindex[w as usize] == UNVISITED {
                    t.enter(w, &mut succ);
                } else {
                    t.lower(w);
                }
                continue;
            }
            let frame = t.call.pop().expect("a frame");
            t.kids.truncate(frame.start);
            if frame.root {
                let at = t.stack.iter().rposition(|&w| w == v).expect("v is on the stack");
                for &w in &t.stack[at..] {
                    t.rindex[w as usize] = count;
                    t.done.insert(w);
                }
                completed(count, &t.stack[at..]);
                t.stack.truncate(at);
                count += 1;
            }
            if let Some(parent) = t.call.last() {
                if t.done.contains(v) {
                    // The edge from the parent into a component just completed.
                    done_edge(parent.node, v);
                } else {
                    t.lower(v);
                }
            }
        }
    }
    count
}

/// The word of a node the search has not visited (indexes start at 1).
const UNVISITED: u32 = 0;

/// The search's state.
struct Pearce {
    /// Per node: `UNVISITED`; while the node is open, its index lowered to the least index it
    /// is known to reach among open nodes; once completed, its component number.
    rindex: Vec<u32>,
    /// The nodes whose component is completed.
    done: NodeSet,
    /// The open nodes, in the order they were visited.
    stack: Vec<u32>,
    next: u32,
    /// Successors of the nodes on the call stack, each frame's after its parent's.
    kids: Vec<u32>,
    call: Vec<Frame>,
}

/// A node on the call stack.
struct Frame {
    node: u32,
    /// Where its successors start in `kids`.
    start: usize,
    /// The next of them to visit.
    next: usize,
    /// Whether no edge from the node's subtree has reached an open node visited before it.
    root: bool,
}

impl Pearce {
    fn new(n: usize) -> Pearce {
        Pearce {
            rindex: vec![UNVISITED; n],
            done: NodeSet::new(n),
            stack: Vec::new(),
            next: 1,
            kids: Vec::new(),
            call: Vec::new(),
        }
    }

    /// A new search over the nodes `0..n`.
    fn reset(&mut self, n: usize) {
        self.rindex.clear();
        self.rindex.resize(n, UNVISITED);
        self.done.reset(n);
        self.next = 1;
        debug_assert!(self.stack.is_empty() && self.kids.is_empty() && self.call.is_empty());
    }

    fn enter(&mut self, v: u32, succ: &mut impl FnMut(u32, &mut dyn FnMut(u32))) {
        self.rindex[v as usize] = self.next;
        self.next += 1;
        self.stack.push(v);
        let start = self.kids.len();
        let kids = &mut self.kids;
        succ(v, &mut |w| kids.push(w));
        self.call.push(Frame { node: v, start, next: start, root: true });
    }

    /// The top frame's node has an edge to (or a returning child) `w`, open.
    fn lower(&mut self, w: u32) {
        let frame = self.call.last_mut().expect("a frame");
        let (v, w) = (frame.node as usize, w as usize);
        if self.rindex[w] < self.rindex[v] {
            self.rindex[v] = self.rindex[w];
            frame.root = false;
        }
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
        // One search reused for every graph, larger and smaller ones in turn.
        let mut reused = ComponentSearch::new();
        for n in [1usize, 2, 5, 9, 17, 3] {
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
                assert!(c.comp.iter().all(|&x| x != UNREACHED), "every node is a root");
                let mut noted = vec![];
                let again = reused.all_noting(
                    n,
                    |v, f| {
                        for &(a, b) in &edges {
                            if a == v {
                                f(b)
                            }
                        }
                    },
                    |m| noted.push(m.to_vec()),
                );
                assert_eq!(again, c.comp.as_slice(), "a reused search numbers as a new one");
                for (number, members) in noted.iter().enumerate() {
                    assert!(members.iter().all(|&v| c.comp[v as usize] == number as u32), "{noted:?}");
                }
                assert_eq!(noted.iter().map(Vec::len).sum::<usize>(), n);
                // Reaching a target: some target is reachable (in zero or more edges).
                let target = |v: u32| v % 3 == 1;
                let got = reaching(
                    n,
                    0..n as u32,
                    |v, f| {
                        for &(a, b) in &edges {
                            if a == v {
                                f(b)
                            }
                        }
                    },
                    &target,
                );
                for (u, row) in r.iter().enumerate() {
                    let want = row.iter().enumerate().any(|(v, &uv)| uv && target(v as u32));
                    assert_eq!(got[u], want, "reaching n={n} {u} {edges:?}");
                }
            }
        }
        // Only what the roots reach.
        let c = components(3, [1], |v, f| {
            if v == 1 {
                f(2)
            }
        });
        assert_eq!(c.comp[0], UNREACHED);
        assert_eq!((c.comp[1], c.comp[2]), (1, 0), "2 completes first");
    }
}
