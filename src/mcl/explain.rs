//! Diagnostics: the verdict of a solved query explained as one path of the LTS, as
//! evaluator4's `-diag` gives one (a path for a safety violation or a reachable witness, a
//! lasso for a violated liveness property).
//!
//! The explanation walks the formula from the root with the value to justify (`want`):
//! - a node whose value needs *one* child or successor (`or`/`<>` for true, `and`/`[]` for
//!   false) follows the best such child: the path takes that successor's label;
//! - a node whose value needs *all* of them follows the first child that takes steps (a path
//!   cannot show them all; `<R> F` false, `[R] F` true end the path where they stand);
//! - a fixed point is entered as its variable (state, fixed point, environment).
//!
//! Well-foundedness: a variable whose value was *derived* by the solver (true for `mu`, false
//! for `nu`) got it from variables derived before it (rank order). Among the children that
//! justify it, the one of least rank is followed, so ranks strictly decrease and the path
//! ends. A variable whose value is the block's default (false for `mu`, true for `nu`) holds
//! it on a cycle: the walk may come back to a variable it entered, and the path then closes
//! into a lasso at that point. Children that end the path at once (rank 0) are preferred, so
//! a deadlock ends a `finally` counterexample as soon as it is reached.
//!
//! The walk is a loop (one child followed at a time), so its stack does not grow with the
//! length of the path.

use super::diag::Diagnostic;
use super::eval::{EvalError, Evaluator, NONE, Successors, derived_value};
use super::typing::{Node, NodeId};
use rustc_hash::FxHashMap;

impl<L: Successors> Evaluator<'_, '_, L> {
    /// One path that shows `q.root` has value `want` at the initial state (the value it has).
    pub(super) fn explain(&mut self, want: bool) -> Result<Diagnostic, EvalError> {
        let q = self.q;
        let mut node = q.root;
        let mut state = self.lts.initial();
        let mut env: Vec<i64> = vec![];
        // The block of the innermost variable entered: ranks are compared within it.
        let mut ctx: Option<u32> = None;
        let mut states = vec![state];
        let mut labels: Vec<String> = vec![];
        // Variables entered, with the position on the path where they were entered.
        let mut entered: FxHashMap<(u32, u32), usize> = FxHashMap::default();
        let mut loop_start = None;
        loop {
            self.check_limits()?;
            match &q.nodes[node as usize] {
                Node::Const(_) | Node::Data(_) => break,
                Node::Loop { aut, depth, exists } => {
                    // A looping path: the lasso that shows it (its absence ends the path).
                    if *exists == want
                        && let Some((s, l, k)) = self.looping_witness(*aut, state, &env[..*depth as usize])?
                    {
                        let base = states.len() - 1;
                        states.pop();
                        states.extend(s);
                        labels.extend(l);
                        loop_start = Some(base + k);
                    }
                    break;
                }
                Node::And(kids) | Node::Or(kids) => {
                    let conj = matches!(q.nodes[node as usize], Node::And(_));
                    let next = if conj != want {
                        // One child suffices: the best one.
                        let mut best: Option<(u32, NodeId)> = None;
                        for &c in kids {
                            if let Some(r) = self.rank_of(c, state, &env, want, ctx)?
                                && best.is_none_or(|(b, _)| r < b)
                            {
                                best = Some((r, c));
                            }
                            // Nothing beats 0 (and the later children may not have been
                            // evaluated: a linear-time query's second conjunct needs the
                            // whole LTS when its first, a loop, is found early).
                            if best.is_some_and(|(b, _)| b == 0) {
                                break;
                            }
                        }
                        best.map(|(_, c)| c)
                    } else {
                        kids.iter().copied().find(|&c| self.takes_steps(c))
                    };
                    match next {
                        Some(c) => node = c,
                        None => break,
                    }
                }
                Node::Diamond { act, depth, target } | Node::Box { act, depth, target } => {
                    let diamond = matches!(q.nodes[node as usize], Node::Diamond { .. });
                    if diamond != want {
                        // Every successor would have to be shown: the path ends here.
                        break;
                    }
                    let (act, depth, target) = (*act, *depth as usize, *target);
                    let mut best: Option<(u32, u32, u32, Vec<i64>)> = None;
                    for i in 0..self.lts.expand(state)? {
                        let (label, to) = self.lts.edge(state, i);
                        let mut scope: Vec<i64> = env[..depth].to_vec();
                        if !self.matches(act, label, &env[..depth], &mut scope)? {
                            continue;
                        }
                        if let Some(r) = self.rank_of(target, to, &scope, want, ctx)?
                            && best.as_ref().is_none_or(|b| r < b.0)
                        {
                            best = Some((r, label, to, scope));
                        }
                    }
                    let Some((_, label, to, scope)) = best else {
                        return Err(EvalError::Runtime {
                            message: "internal error: no successor explains the verdict".into(),
                        });
                    };
                    labels.push(self.lts.label(label).to_string());
                    states.push(to);
                    state = to;
                    env = scope;
                    node = target;
                }
                Node::Call { fix, args } => {
                    let callee = self.call_env(*fix, args, &env)?;
                    let b = q.fixes[*fix as usize].block;
                    let env_id = self.env_id(&callee);
                    let v = self.var(b, *fix, state, env_id);
                    let here = states.len() - 1;
                    if let Some(&k) = entered.get(&(b, v)) {
                        if k < here {
                            // Back to a variable entered earlier on the path: a lasso.
                            states.pop();
                            loop_start = Some(k);
                        }
                        break;
                    }
                    entered.insert((b, v), here);
                    ctx = Some(b);
                    env = callee;
                    node = q.fixes[*fix as usize].body;
                }
            }
        }
        Ok(Diagnostic { states, labels, loop_start })
    }

    /// `Some(rank)` when `node` has value `want` at `state` in `env`, `None` otherwise. The
    /// rank orders justifications: 0 for one that ends the path here (data, constants,
    /// other blocks' fixed points), the variable's derivation rank + 1 for a variable of the
    /// block `ctx` holding its derived value, and 1 for one holding the block's default.
    fn rank_of(
        &mut self,
        node: NodeId,
        state: u32,
        env: &[i64],
        want: bool,
        ctx: Option<u32>,
    ) -> Result<Option<u32>, EvalError> {
        let q = self.q;
        Ok(match &q.nodes[node as usize] {
            Node::Const(b) => (*b == want).then_some(0),
            Node::Data(d) => ((self.data(d, env)? != 0) == want).then_some(0),
            Node::Loop { aut, depth, exists } => {
                ((self.looping(*aut, state, &env[..*depth as usize])? == *exists) == want).then_some(0)
            }
            Node::And(kids) | Node::Or(kids) => {
                let conj = matches!(q.nodes[node as usize], Node::And(_));
                // `one`: a single child with value `want` decides the node.
                let one = conj != want;
                let mut acc: Option<u32> = if one { None } else { Some(0) };
                for &c in kids {
                    let r = self.rank_of(c, state, env, want, ctx)?;
                    acc = fold(acc, r, one);
                    // Nothing beats 0 for one child; nothing saves a failed child for all.
                    if (one && acc == Some(0)) || (!one && acc.is_none()) {
                        break;
                    }
                }
                acc
            }
            Node::Diamond { act, depth, target } | Node::Box { act, depth, target } => {
                let diamond = matches!(q.nodes[node as usize], Node::Diamond { .. });
                let one = diamond == want;
                let (act, depth, target) = (*act, *depth as usize, *target);
                let mut acc: Option<u32> = if one { None } else { Some(0) };
                for i in 0..self.lts.expand(state)? {
                    let (label, to) = self.lts.edge(state, i);
                    let mut scope: Vec<i64> = env[..depth].to_vec();
                    if !self.matches(act, label, &env[..depth], &mut scope)? {
                        continue;
                    }
                    let r = self.rank_of(target, to, &scope, want, ctx)?;
                    acc = fold(acc, r, one);
                    if (one && acc == Some(0)) || (!one && acc.is_none()) {
                        break;
                    }
                }
                acc
            }
            Node::Call { fix, args } => {
                let callee = self.call_env(*fix, args, env)?;
                let b = q.fixes[*fix as usize].block;
                if Some(b) == ctx && want == derived_value(q.block_sign[b as usize]) {
                    // Justifying a derived value: only variables derived before count. Others
                    // are not solved here (an infinite system may have stopped early).
                    let env_id = self.env_id(&callee);
                    let rank = match self.blocks[b as usize].index.get(&(*fix, state, env_id)) {
                        Some(&v) => self.blocks[b as usize].rank[v as usize],
                        None => NONE,
                    };
                    // Lazily: `rank + 1` overflows for `NONE`.
                    return Ok((rank != NONE).then(|| rank + 1));
                }
                let value = self.solve(*fix, state, &callee)?;
                if value != want {
                    return Ok(None);
                }
                Some(if Some(b) == ctx { 1 } else { 0 })
            }
        })
    }

    /// Whether following `node` can take a step of the LTS (it contains a modality or a call).
    fn takes_steps(&self, node: NodeId) -> bool {
        match &self.q.nodes[node as usize] {
            Node::Const(_) | Node::Data(_) => false,
            Node::And(kids) | Node::Or(kids) => kids.iter().any(|&c| self.takes_steps(c)),
            Node::Diamond { .. } | Node::Box { .. } | Node::Call { .. } | Node::Loop { .. } => true,
        }
    }
}

/// Combines a child's rank into a node's: the least for a node decided by one child, the
/// greatest (and `None` as soon as one child fails) for a node that needs all of them.
fn fold(acc: Option<u32>, r: Option<u32>, one: bool) -> Option<u32> {
    if one {
        match (acc, r) {
            (Some(a), Some(r)) => Some(a.min(r)),
            (a, r) => a.or(r),
        }
    } else {
        Some(acc?.max(r?))
    }
}
