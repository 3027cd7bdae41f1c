//! The values variables actually take in the reachable states: the ground truth against which
//! the value analysis is measured (tightness) and tested (soundness).

use super::analysis_check::var_slots;
use super::explore::{ExploreOptions, explore};
use super::state::BOT;
use super::step::Stepper;
use crate::behaviour::Behaviour;
use crate::model::{Model, TypeId, VarId};
use std::collections::{BTreeSet, HashMap};

/// Per (variable, agent type; `None` for the environment), every value it holds in some
/// reachable state (`None` = ⊥). `None` when the state space exceeds `max_states` or the
/// exploration meets a run-time error.
pub(crate) type ReachedValues = HashMap<(VarId, Option<TypeId>), BTreeSet<Option<i64>>>;

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
    let slots = var_slots(model, &stepper.lay);
    let mut out: ReachedValues = HashMap::new();
    let mut st = Vec::new();
    for i in 0..g.states() {
        g.store.get_into(i as u32, &mut st);
        for s in &slots {
            let x = st[s.pos];
            out.entry((s.var, s.agent.map(|(_, t)| t))).or_default().insert((x != BOT).then_some(i64::from(x)));
        }
    }
    Some(out)
}
