//! The evaluator's side of the infinite looping operator (`looping.rs` builds the automaton
//! and the product's data): exploring the product of the LTS with `R`'s automaton as far as
//! the evaluation asks, and the lasso that explains a verdict.

use super::eval::{EvalError, Evaluator, Successors};
use super::looping::{Lasso, Product, bfs, components, solve};

/// The expansions before the product is first solved (then as many as it has nodes).
const FIRST_BUDGET: usize = 1024;

impl<L: Successors> Evaluator<'_, '_, L> {
    /// Whether `< R > @` (loop `id` at depth `env`) holds at `state`.
    pub(super) fn looping(&mut self, id: u32, state: u32, env: &[i64]) -> Result<bool, EvalError> {
        let x = self.product_from(id, state, env)?;
        Ok(self.loops[&(id, env.into())].good[x as usize])
    }

    /// Explores the product from `(state, start)` until `good` is sure at its node (an
    /// accepting cycle reached, or nothing left to expand), solving what is new each time the
    /// product doubles; its node. A loop near `state` is found after a few expansions
    /// whatever the size of the whole product.
    fn product_from(&mut self, id: u32, state: u32, env: &[i64]) -> Result<u32, EvalError> {
        let key: (u32, Box<[i64]>) = (id, env.into());
        let mut p = self.loops.remove(&key).unwrap_or_default();
        let root = p.node((state, 0));
        let r = loop {
            solve(&mut p);
            if p.good[root as usize] || p.pending.is_empty() {
                break Ok(root);
            }
            let budget = p.nodes.len().max(FIRST_BUDGET);
            if let Err(e) = self.explore(&mut p, id, env, budget) {
                break Err(e);
            }
        };
        self.loops.insert(key, p);
        r
    }

    /// Expands at most `budget` pending nodes of the product.
    fn explore(&mut self, p: &mut Product, id: u32, env: &[i64], budget: usize) -> Result<(), EvalError> {
        let aut = &self.q.loops[id as usize];
        let mut scratch = Vec::new();
        for _ in 0..budget {
            if p.expanded.is_multiple_of(4096) {
                self.check_limits()?;
            }
            let Some(x) = p.pending.pop() else { break };
            p.expanded += 1;
            // The product's nodes count as explored states (and so are bounded by the limits).
            self.explored += 1;
            let (s, q) = p.nodes[x as usize];
            let mut out = Vec::new();
            for i in 0..self.lts.expand(s)? {
                let (label, to) = self.lts.edge(s, i);
                for &(a, target, completes) in &aut.edges[q as usize] {
                    scratch.clear();
                    if !self.matches(a, label, env, &mut scratch)? {
                        continue;
                    }
                    if !aut.edges[target as usize].is_empty() {
                        out.push((label, p.node((to, target)), false));
                    }
                    if completes {
                        out.push((label, p.node((to, 0)), true));
                    }
                }
            }
            p.succ[x as usize] = out;
        }
        Ok(())
    }

    /// A lasso from `state` whose loop repeats `R`-paths forever, when `< R > @` holds there:
    /// (states, labels, position where the loop starts); the last label leads back to that
    /// position's state.
    pub(super) fn looping_witness(&mut self, id: u32, state: u32, env: &[i64]) -> Result<Option<Lasso>, EvalError> {
        let start = self.product_from(id, state, env)?;
        let p = &self.loops[&(id, env.into())];
        if !p.good[start as usize] {
            return Ok(None);
        }
        let comp = components(p);
        let cyclic: Vec<bool> = {
            let mut c = vec![false; comp.count];
            for (x, es) in p.succ.iter().enumerate() {
                for &(_, y, acc) in es {
                    if acc && comp.of[x] == comp.of[y as usize] {
                        c[comp.of[x]] = true;
                    }
                }
            }
            c
        };
        let in_good = |x: u32| cyclic[comp.of[x as usize]];
        // A shortest path to the accepting component, then around it.
        let prefix = bfs(p, start, &|_| true, &|_, y, _| in_good(y)).expect("a good node reaches its cycle");
        let entry = prefix.last().map_or(start, |e| e.1);
        let c = comp.of[entry as usize];
        let inside = |y: u32| comp.of[y as usize] == c;
        let mut cycle = bfs(p, entry, &inside, &|x, y, acc| acc && comp.of[x as usize] == c && inside(y))
            .expect("an accepting edge in the component");
        let back = cycle.last().expect("one edge").1;
        if back != entry {
            cycle.extend(bfs(p, back, &inside, &|_, y, _| y == entry).expect("a component is strongly connected"));
        }
        let mut states = vec![state];
        let mut labels = Vec::new();
        for &(label, y) in prefix.iter().chain(&cycle) {
            labels.push(self.lts.label(label).to_string());
            states.push(p.nodes[y as usize].0);
        }
        // The cycle's last target is its first state: not repeated.
        states.pop();
        Ok(Some((states, labels, prefix.len())))
    }
}
