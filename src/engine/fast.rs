//! Agent steps compiled to slot operations, for the explorer's hot path.
//!
//! Most steps of the benchmarks compare the agent's own scalar variables, `id` and
//! constants, then assign such operands to own scalars (`leader > id -> leader <~ id`).
//! `FastEdge` is that subset, with every variable resolved to a slot position, so that a
//! step needs neither the general evaluator nor its ⊥ and error plumbing. Any other edge
//! (arrays, arithmetic, `of`, nondeterminism, blocks, …) has no `FastEdge` and goes through
//! the evaluator. Only `Stepper::successors_packed` uses these; the reference successor
//! function (`Stepper::successors`) always evaluates, and the tests compare the two.

use super::state::{BOT, Layout};
use crate::behaviour::{Edge, Step};
use crate::model::arith::{MAX_VALUE, MIN_VALUE};
use crate::model::{ActionKind, AgentRef, BExpr, Expr, Model, Store, TupleId};
use crate::syntax::ast::CmpOp;

/// A slot: relative to the acting agent's first slot (`Layout::base`), or absolute for the
/// environment.
#[derive(Clone, Copy, Debug)]
enum Pos {
    Agent(u32),
    Env(u32),
}

impl Pos {
    #[inline]
    fn at(self, lay: &Layout, a: usize) -> usize {
        match self {
            Pos::Agent(p) => lay.base(a) + p as usize,
            Pos::Env(p) => p as usize,
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Operand {
    /// A constant within the slot range (never ⊥).
    Const(i32),
    /// `id`.
    Id,
    /// A scalar variable of the agent (or of the environment); may hold ⊥.
    Slot(Pos),
}

impl Operand {
    #[inline]
    fn value(self, st: &[i32], lay: &Layout, a: usize) -> i32 {
        match self {
            Operand::Const(c) => c,
            Operand::Id => a as i32,
            Operand::Slot(p) => st[p.at(lay, a)],
        }
    }
}

/// An edge whose guards are conjunctions of comparisons of operands, and whose step is
/// `Skip` or a simultaneous assignment of operands to scalar variables.
#[derive(Clone, Debug)]
pub struct FastEdge {
    guards: Vec<(CmpOp, Operand, Operand)>,
    assigns: Vec<(Pos, Operand)>,
    /// Tuples of the assigned stigmergic variables (each written once).
    pub written: Vec<TupleId>,
}

impl FastEdge {
    /// The compiled form of `edge`, if it is in the subset.
    pub fn compile(model: &Model, lay: &Layout, edge: &Edge) -> Option<FastEdge> {
        let mut f = FastEdge { guards: Vec::new(), assigns: Vec::new(), written: Vec::new() };
        for g in &edge.guards {
            guard(model, lay, g, &mut f.guards)?;
        }
        if let Step::Act(action) = &edge.step {
            let ActionKind::Assign(asg) = &action.kind else { return None };
            for (t, e) in asg.targets.iter().zip(&asg.values) {
                if !t.indices.is_empty() {
                    return None;
                }
                f.assigns.push((pos(model, lay, t.var)?, operand(model, lay, e)?));
                if let Store::Stig { tuple, .. } = model.vars[t.var].store
                    && !f.written.contains(&tuple)
                {
                    f.written.push(tuple);
                }
            }
        }
        Some(f)
    }

    /// Whether the guards of agent `a` hold in `st`. A comparison with ⊥ is false (D10).
    #[inline]
    pub fn enabled(&self, st: &[i32], lay: &Layout, a: usize) -> bool {
        self.guards.iter().all(|&(op, x, y)| {
            let (x, y) = (x.value(st, lay, a), y.value(st, lay, a));
            x != BOT && y != BOT && op.holds(x as i64, y as i64)
        })
    }

    /// Applies the assignments of agent `a` to `buf`, a copy of `st`: every operand is read
    /// in `st` (simultaneous assignment). A plain copy may copy ⊥ (D10); constants and `id`
    /// are never ⊥ and are within the slot range.
    #[inline]
    pub fn apply(&self, st: &[i32], buf: &mut [i32], lay: &Layout, a: usize) {
        for &(p, e) in &self.assigns {
            buf[p.at(lay, a)] = e.value(st, lay, a);
        }
    }
}

fn guard(model: &Model, lay: &Layout, g: &BExpr, out: &mut Vec<(CmpOp, Operand, Operand)>) -> Option<()> {
    match g {
        BExpr::Const(true) => Some(()),
        BExpr::And(x, y) => {
            guard(model, lay, x, out)?;
            guard(model, lay, y, out)
        }
        BExpr::Cmp(op, x, y) => {
            out.push((*op, operand(model, lay, x)?, operand(model, lay, y)?));
            Some(())
        }
        _ => None,
    }
}

fn operand(model: &Model, lay: &Layout, e: &Expr) -> Option<Operand> {
    match e {
        Expr::Const(c) if (MIN_VALUE..=MAX_VALUE).contains(c) => Some(Operand::Const(*c as i32)),
        Expr::AgentId(AgentRef::Own) => Some(Operand::Id),
        Expr::Var(r) if r.indices.is_empty() && matches!(r.owner, AgentRef::Own) => {
            Some(Operand::Slot(pos(model, lay, r.var)?))
        }
        _ => None,
    }
}

/// The slot of scalar variable `v` of the acting agent.
fn pos(model: &Model, lay: &Layout, v: usize) -> Option<Pos> {
    let var = &model.vars[v];
    if !var.dims.is_empty() {
        return None;
    }
    Some(match var.store {
        Store::Env => Pos::Env(var.offset as u32),
        Store::Attr => Pos::Agent((lay.attr(0, var.offset) - lay.base(0)) as u32),
        Store::Stig { .. } => Pos::Agent((lay.stig(0, var.offset) - lay.base(0)) as u32),
    })
}
