//! A depth-first search for a violation of `finally ψ` (a ψ-free path from an initial state
//! to a deadlock or around a cycle, D12) that does not wait for the breadth-first exploration:
//! the state a system settles in, or a loop it runs forever, often lies at the deepest level
//! of the breadth-first order, which reaches it last. The search follows ψ-free successors
//! from each ψ-free initial state, marks the states on its stack, and stops at the first
//! ψ-free deadlock or edge back to a state on the stack. It works on concrete states (no
//! symmetry reduction), so that what it finds is a concrete trace, and within a budget of
//! states: a property that holds is then left to the exhaustive check. The lasso found need
//! not be the shortest.

use super::eval::Scratch;
use super::step::{Stepper, Work};
use crate::limits::Limits;
use crate::model::QPred;
use rustc_hash::FxHashMap;

/// A violation: the states from an initial one, and where the loop starts (`None`: the last
/// state is a deadlock).
pub(super) struct Lasso {
    pub(crate) states: Vec<Vec<i32>>,
    pub(crate) loop_start: Option<usize>,
    /// The distinct states the search visited to find it (for the statistics: the
    /// exploration may have stored none).
    pub(crate) visited: usize,
}

/// Where a visited state is: on the stack (at this depth) or finished without a violation.
#[derive(Clone, Copy)]
enum Mark {
    OnStack(usize),
    Done,
}

/// One state on the stack with its ψ-free successors still to try.
struct Frame {
    state: Vec<i32>,
    todo: Vec<Vec<i32>>,
}

/// Looks for a violation of `finally q` among at most `budget` states. `None`: none found
/// within the budget, or the search met a run-time error or a stop of the run (the
/// exhaustive check then meets them where it would have).
pub(super) fn find(stepper: &Stepper, q: &QPred, budget: usize, limits: &Limits) -> Option<Lasso> {
    let mut search = Search { stepper, q, marks: FxHashMap::default(), work: Work::default(), sc: Scratch::default() };
    let mut found = None;
    // From each initial state as it is enumerated: there may be millions of them.
    stepper
        .for_each_initial(&mut |s| {
            if search.marks.contains_key(s) {
                return true;
            }
            match search.psi(s) {
                Some(true) => return true,
                Some(false) => {}
                None => return false,
            }
            match search.from(s.to_vec(), budget, limits) {
                Some(Some(l)) => {
                    found = Some(l);
                    false
                }
                Some(None) => search.marks.len() < budget,
                None => false,
            }
        })
        .ok()?;
    found.map(|l| Lasso { visited: search.marks.len(), ..l })
}

struct Search<'a> {
    stepper: &'a Stepper<'a>,
    q: &'a QPred,
    marks: FxHashMap<Vec<i32>, Mark>,
    work: Work,
    sc: Scratch,
}

impl Search<'_> {
    /// ψ at `s`; `None` on a run-time error.
    fn psi(&mut self, s: &[i32]) -> Option<bool> {
        self.stepper.eval_pred(s, &mut self.sc, self.q).ok()
    }

    /// The distinct successors of `s` where ψ fails, and whether `s` has any successor at all;
    /// `None` on a run-time error.
    fn psi_free_successors(&mut self, s: &[i32]) -> Option<(Vec<Vec<i32>>, bool)> {
        let mut all: Vec<Vec<i32>> = Vec::new();
        self.stepper.successors(s, &mut self.work, false, &mut |_, t| all.push(t.to_vec())).ok()?;
        let any = !all.is_empty();
        all.sort_unstable();
        all.dedup();
        let mut free = Vec::with_capacity(all.len());
        for t in all {
            if !self.psi(&t)? {
                free.push(t);
            }
        }
        // Popped from the end: keep the successors' order.
        free.reverse();
        Some((free, any))
    }

    /// The search from ψ-free `root`. `Some(None)`: no violation from it; `None`: budget,
    /// stop or run-time error.
    fn from(&mut self, root: Vec<i32>, budget: usize, limits: &Limits) -> Option<Option<Lasso>> {
        let mut stack: Vec<Frame> = Vec::new();
        let push = |this: &mut Self, stack: &mut Vec<Frame>, s: Vec<i32>| -> Option<Option<Lasso>> {
            // The limits read the process's memory use: not at every state.
            if this.marks.len() >= budget || (this.marks.len().is_multiple_of(1024) && limits.stopped().is_some()) {
                return None;
            }
            let (todo, any) = this.psi_free_successors(&s)?;
            this.marks.insert(s.clone(), Mark::OnStack(stack.len()));
            stack.push(Frame { state: s, todo });
            if !any {
                let states = stack.iter().map(|f| f.state.clone()).collect();
                return Some(Some(Lasso { states, loop_start: None, visited: 0 }));
            }
            Some(None)
        };
        if let Some(found) = push(self, &mut stack, root)? {
            return Some(Some(found));
        }
        while let Some(top) = stack.last_mut() {
            let Some(t) = top.todo.pop() else {
                let f = stack.pop().expect("a frame");
                self.marks.insert(f.state, Mark::Done);
                continue;
            };
            match self.marks.get(&t) {
                Some(Mark::Done) => {}
                Some(&Mark::OnStack(depth)) => {
                    let mut states: Vec<Vec<i32>> = stack.iter().map(|f| f.state.clone()).collect();
                    states.push(t);
                    return Some(Some(Lasso { states, loop_start: Some(depth), visited: 0 }));
                }
                None => {
                    if let Some(found) = push(self, &mut stack, t)? {
                        return Some(Some(found));
                    }
                }
            }
        }
        Some(None)
    }
}
