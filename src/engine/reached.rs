//! The values variables actually take in the reachable states: the ground truth against which
//! the value analysis is measured (tightness) and tested (soundness).

use super::explore::{ExploreOptions, explore};
use super::state::BOT;
use super::step::Stepper;
use crate::behaviour::Behaviour;
use crate::model::{Model, Store, TypeId, VarId};
use std::collections::{BTreeSet, HashMap};

/// Per (variable, agent type; `None` for the environment), every value it holds in some
/// reachable state (`None` = ⊥). `None` when the state space exceeds `max_states` or the
/// exploration meets a run-time error.
pub type ReachedValues = HashMap<(VarId, Option<TypeId>), BTreeSet<Option<i64>>>;

pub fn reachable_values(
    model: &Model,
    behs: &[Behaviour],
    fair: bool,
    max_states: Option<u64>,
) -> Option<ReachedValues> {
    let stepper = Stepper::new(model, behs, fair);
    let initial = stepper.initial_states().ok()?;
    let opts = ExploreOptions { threads: 1, max_states, ..Default::default() };
    let g = explore(&stepper, &initial, &opts);
    if g.stopped.is_some() || g.error.is_some() {
        return None;
    }
    let lay = &stepper.lay;
    let value = |x: i32| if x == BOT { None } else { Some(i64::from(x)) };
    let mut out: ReachedValues = HashMap::new();
    let mut st = Vec::new();
    for i in 0..g.states() {
        g.store.get_into(i as u32, &mut st);
        for (v, var) in model.vars.iter().enumerate() {
            match var.store {
                Store::Env => {
                    let set = out.entry((v, None)).or_default();
                    for k in 0..var.len {
                        set.insert(value(st[var.offset + k]));
                    }
                }
                Store::Attr | Store::Stig { .. } => {
                    for (t, ty) in model.agent_types.iter().enumerate() {
                        let used = match var.store {
                            Store::Attr => ty.attrs.contains(&v),
                            Store::Stig { stigmergy, .. } => model.holds(t, stigmergy),
                            Store::Env => false,
                        };
                        if !used {
                            continue;
                        }
                        let set = out.entry((v, Some(t))).or_default();
                        for a in ty.ids() {
                            for k in 0..var.len {
                                let at = match var.store {
                                    Store::Attr => lay.attr(a, var.offset + k),
                                    _ => lay.stig(a, var.offset + k),
                                };
                                set.insert(value(st[at]));
                            }
                        }
                    }
                }
            }
        }
    }
    Some(out)
}
