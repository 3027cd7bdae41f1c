//! What the graph alone decides (docs/probability.md, "Zero and one first"): the states from
//! which a target is reached with probability 0 (no path to it) and with probability 1 (no
//! path, avoiding it, to a state of probability 0), as PRISM's precomputation finds them,
//! and the bottom strongly connected components, where a run stays forever and visits every
//! state infinitely often with probability 1.

use super::super::scc;
use super::chain::{RowBuf, Rows};

/// Whether each state reaches a state of `target` along the rows, never leaving a state of
/// `stop` (whose row is then ignored).
fn reaching(rows: &dyn Rows, stop: &dyn Fn(usize) -> bool, target: &dyn Fn(usize) -> bool) -> Vec<bool> {
    let n = rows.len();
    let mut buf = RowBuf::default();
    scc::reaching(
        n,
        0..n as u32,
        |s, f| {
            if !stop(s as usize) {
                for e in rows.row(s as usize, &mut buf) {
                    f(e.to);
                }
            }
        },
        &|s| target(s as usize),
    )
}

/// The states whose probability of reaching `target` is 0 and those where it is 1.
pub(crate) fn zero_one(rows: &dyn Rows, target: &[bool]) -> (Vec<bool>, Vec<bool>) {
    let reach = reaching(rows, &|_| false, &|s| target[s]);
    let zero: Vec<bool> = reach.iter().map(|r| !r).collect();
    drop(reach);
    let may_fail = reaching(rows, &|s| target[s], &|s| zero[s] && !target[s]);
    let one = may_fail.iter().map(|r| !r).collect();
    (zero, one)
}

/// The bottom strongly connected components: each state's component, and whether each
/// component is bottom (no row leaves it; a deadlock is one, its own successor).
pub(crate) struct Bottoms {
    pub(crate) comp: Vec<u32>,
    pub(crate) bottom: Vec<bool>,
}

impl Bottoms {
    pub(crate) fn of(rows: &dyn Rows) -> Bottoms {
        let n = rows.len();
        let mut buf = RowBuf::default();
        let comps = scc::components(n, 0..n as u32, |s, f| {
            for e in rows.row(s as usize, &mut buf) {
                f(e.to);
            }
        });
        let comp = comps.comp;
        let count = comp.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
        let mut bottom = vec![true; count];
        for (s, &c) in comp.iter().enumerate() {
            if rows.row(s, &mut buf).iter().any(|e| comp[e.to as usize] != c) {
                bottom[c as usize] = false;
            }
        }
        Bottoms { comp, bottom }
    }

    /// Whether state `s` lies in a bottom component.
    pub(crate) fn in_bottom(&self, s: usize) -> bool {
        self.bottom[self.comp[s] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::super::chain::Csr;
    use super::*;
    use proptest::prelude::*;

    /// Brute force: reachability by fixpoint.
    fn reach_fix(rows: &[Vec<(u32, u32)>], stop: &dyn Fn(usize) -> bool, target: &dyn Fn(usize) -> bool) -> Vec<bool> {
        let mut r: Vec<bool> = (0..rows.len()).map(target).collect();
        loop {
            let mut changed = false;
            for s in 0..rows.len() {
                if !r[s] && !stop(s) && rows[s].iter().any(|&(t, _)| r[t as usize]) {
                    r[s] = true;
                    changed = true;
                }
            }
            if !changed {
                return r;
            }
        }
    }

    fn chain() -> impl Strategy<Value = (Vec<Vec<(u32, u32)>>, Vec<bool>)> {
        (1usize..12).prop_flat_map(|n| {
            (
                proptest::collection::vec(proptest::collection::vec((0..n as u32, 1u32..3), 0..4), n),
                proptest::collection::vec(any::<bool>(), n),
            )
        })
    }

    proptest! {
        #[test]
        fn zero_one_match_fixpoints((rows, target) in chain()) {
            let c = Csr::from_rows(&rows);
            let (zero, one) = zero_one(&c, &target);
            let reach = reach_fix(&rows, &|_| false, &|s| target[s]);
            let bad = reach_fix(&rows, &|s| target[s], &|s| !reach[s] && !target[s]);
            for s in 0..rows.len() {
                prop_assert_eq!(zero[s], !reach[s]);
                prop_assert_eq!(one[s], !bad[s]);
            }
        }

        #[test]
        fn bottoms_are_closed_and_strongly_connected((rows, _t) in chain()) {
            let c = Csr::from_rows(&rows);
            let b = Bottoms::of(&c);
            for s in 0..rows.len() {
                let from_s = reach_fix(&rows, &|_| false, &|t| t == s);
                // s is in a bottom component iff every state s reaches reaches s back.
                let mut fwd = vec![false; rows.len()];
                fwd[s] = true;
                loop {
                    let mut ch = false;
                    for u in 0..rows.len() {
                        if fwd[u] {
                            for &(t, _) in &rows[u] {
                                if !fwd[t as usize] { fwd[t as usize] = true; ch = true; }
                            }
                        }
                    }
                    if !ch { break; }
                }
                let bottom = (0..rows.len()).all(|u| !fwd[u] || from_s[u]);
                prop_assert_eq!(b.in_bottom(s), bottom, "state {}", s);
            }
        }
    }
}
