//! Agent steps and link predicates compiled to slot operations, for the explorer's hot path.
//!
//! The model is compiled once per agent (not per agent type): `id` is then a constant, so
//! `fork[(id + 1) % n]` is one slot, and every variable of the agent, of the environment
//! and (in links, per sender and receiver) of `c1` and `c2` is an absolute slot position
//! (`expr`). A compiled edge evaluates its guards and assignments over the `i32` slots
//! without the evaluator's name resolution, agent references or index checks; a compiled
//! link does the same for one (sender, receiver) pair (`link`), and a property's quantified
//! predicate for every tuple of its quantified agents (`pred`).
//!
//! Edges with nondeterminism (`[a..b]`), blocks, or an agent or index that is not constant
//! for the agent have no compiled form and go through the evaluator. A compiled piece that
//! meets a run-time error returns `Fallback`, and the caller evaluates the original, which
//! reports the error with its message. Only `Stepper::successors_packed` uses the steps and
//! links, and only `engine::eval_all` the predicates; the reference successor function
//! (`Stepper::successors`) always evaluates, and the tests compare the two.

mod expr;
mod link;
mod pred;

pub(crate) use expr::Fallback;
use expr::{Binding, CBExpr, Compiler, Prog};
pub(crate) use link::Links;
pub(crate) use pred::FastPred;

use super::state::{BOT, Layout, encode_slot, width_of};
use crate::behaviour::{Edge, Step};
use crate::model::{ActionKind, Expr, Model, Store, TupleId};

/// One assignment of a compiled edge: the slot it writes, its value, and whether the value
/// is a plain copy of a variable (which may copy ⊥, D10).
#[derive(Clone, Debug)]
struct Assignment {
    pos: u32,
    value: Prog,
    plain_copy: bool,
}

/// An edge of one agent with its guards and simultaneous assignment compiled.
#[derive(Clone, Debug)]
pub(crate) struct FastEdge {
    guards: Vec<CBExpr>,
    assigns: Vec<Assignment>,
    /// Every tuple the step stamps (those of the assigned stigmergic variables and the
    /// edge's `writes`), sorted, each once.
    pub(crate) stamps: Vec<TupleId>,
    /// The tuples the step adds to `Zc` (the edge's `confirms` not stamped), sorted.
    pub(crate) confirms: Vec<TupleId>,
    /// The control state the step goes to.
    pub(crate) target: i32,
}

/// Why `FastEdge::apply_packed` wrote no successor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PackedApply {
    /// A value other than a plain copy is ⊥: the step is disabled.
    Disabled,
    /// A run-time error: the caller evaluates the edge, which reports it.
    Fallback,
    /// A value needs this many bytes per slot.
    Widen(usize),
}

impl FastEdge {
    /// The compiled form of `edge` for agent `a`, if it has one.
    pub(crate) fn compile(model: &Model, lay: &Layout, a: usize, edge: &Edge) -> Option<FastEdge> {
        let cx = Compiler { model, lay, bind: Binding { me: Some(a), ..Binding::default() }, quants: &[] };
        let mut f = FastEdge {
            guards: Vec::new(),
            assigns: Vec::new(),
            stamps: Vec::new(),
            confirms: Vec::new(),
            target: edge.target as i32,
        };
        for g in &edge.guards {
            match cx.bexpr(g)? {
                expr::CBExpr::Const(true) => {}
                g => f.guards.push(g),
            }
        }
        if let Step::Act(action) = &edge.step {
            let ActionKind::Assign(asg) = &action.kind else { return None };
            for (t, e) in asg.targets.iter().zip(&asg.values) {
                let var = &model.vars[t.var];
                let slot = var.offset + cx.element(&var.dims, &t.indices)?;
                let pos = match var.store {
                    Store::Env => slot,
                    Store::Attr => lay.attr(a, slot),
                    Store::Stig { tuple, .. } => {
                        f.stamps.push(tuple);
                        lay.stig(a, slot)
                    }
                };
                let plain_copy = matches!(e, Expr::Var(_) | Expr::Local { .. });
                f.assigns.push(Assignment { pos: pos as u32, value: Prog::of(&cx.expr(e)?)?, plain_copy });
            }
        }
        f.stamps.extend_from_slice(&edge.writes);
        f.stamps.sort_unstable();
        f.stamps.dedup();
        f.confirms = edge.confirms.iter().copied().filter(|k| !f.stamps.contains(k)).collect();
        f.confirms.sort_unstable();
        f.confirms.dedup();
        Some(f)
    }

    /// Whether the guards hold in `st`, evaluated in order as the evaluator does.
    #[inline]
    pub(crate) fn enabled(&self, st: &[i32]) -> Result<bool, Fallback> {
        for g in &self.guards {
            if !g.eval(st)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Applies the simultaneous assignment to `out`, which holds `st` packed with `W` bytes
    /// per slot: every value is read in `st`, and only the assigned slots are written. A
    /// value other than a plain copy that is ⊥ disables the step. Values are computed in
    /// the evaluator's order, so a step it disables is never a `Fallback`, and the reverse;
    /// a wider store is asked for only when the step happens. `out` may be partly written
    /// when it returns an error.
    #[inline]
    pub(crate) fn apply_packed<const W: usize>(&self, st: &[i32], out: &mut [u8]) -> Result<(), PackedApply> {
        let mut wide = 0;
        for asg in &self.assigns {
            let v = match asg.value.eval(st) {
                expr::FAIL => return Err(PackedApply::Fallback),
                expr::NONE if !asg.plain_copy => return Err(PackedApply::Disabled),
                expr::NONE => BOT,
                x => x as i32,
            };
            if !encode_slot::<W>(out, asg.pos as usize, v) {
                wide = wide.max(width_of(v));
            }
        }
        if wide > 0 { Err(PackedApply::Widen(wide)) } else { Ok(()) }
    }
}
