//! `--check-analysis`: every value of a reached state checked against the value analysis.
//!
//! The symmetries of values and the LNT encoding's input offers rest on the analysis' sets
//! containing every value a variable takes in a reachable state. This check turns that
//! assumption into an observed fact for the states a run meets: a value outside its set is a
//! bug of labs, reported with the variable, the agent, the value and the trace to the state.
//! The tests run every engine verification and simulation with it.

use super::state::{BOT, Layout};
use crate::analysis::IntervalSet;
use crate::analysis::values::ValueAnalysis;
use crate::model::{Model, Store, TypeId, VarId};

/// A slot of the state that holds a variable's value, with where it belongs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct VarSlot {
    /// Position in the flat state.
    pub(crate) pos: usize,
    pub(crate) var: VarId,
    /// The agent holding it and its type (`None`: the environment).
    pub(crate) agent: Option<(usize, TypeId)>,
    /// Element of an array (0 for a scalar).
    pub(crate) element: usize,
}

/// Every slot that holds a variable's value: the environment's, then each agent's attributes
/// and stigmergic copies of the stigmergies its type holds (other slots never change).
pub(crate) fn var_slots(model: &Model, lay: &Layout) -> Vec<VarSlot> {
    let mut out = Vec::new();
    for (v, var) in model.vars.iter().enumerate() {
        for element in 0..var.len {
            match var.store {
                Store::Env => out.push(VarSlot { pos: var.offset + element, var: v, agent: None, element }),
                Store::Attr | Store::Stig { .. } => {
                    for (t, ty) in model.agent_types.iter().enumerate() {
                        let used = match var.store {
                            Store::Stig { stigmergy, .. } => model.holds(t, stigmergy),
                            _ => ty.attrs.contains(&v),
                        };
                        for a in ty.ids().filter(|_| used) {
                            let pos = match var.store {
                                Store::Stig { .. } => lay.stig(a, var.offset + element),
                                _ => lay.attr(a, var.offset + element),
                            };
                            out.push(VarSlot { pos, var: v, agent: Some((a, t)), element });
                        }
                    }
                }
            }
        }
    }
    out
}

/// The check: each variable slot with the set its values must lie in.
#[derive(Clone, Debug)]
pub(crate) struct AnalysisCheck {
    slots: Vec<(VarSlot, IntervalSet)>,
}

/// A value the analysis does not contain (a bug of labs), described for a user.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct AnalysisMiss(pub(crate) String);

impl AnalysisCheck {
    pub(crate) fn new(model: &Model, lay: &Layout, analysis: &ValueAnalysis) -> AnalysisCheck {
        let slots = var_slots(model, lay)
            .into_iter()
            .map(|s| {
                let key = s.agent.map(|(_, t)| t).filter(|_| model.vars[s.var].store != Store::Env);
                (s, analysis.get(s.var, key).cloned().unwrap_or_default())
            })
            .collect();
        AnalysisCheck { slots }
    }

    /// The first value of `state` outside its analysed set, described.
    pub(crate) fn check(&self, model: &Model, state: &[i32]) -> Result<(), AnalysisMiss> {
        for (s, set) in &self.slots {
            let x = state[s.pos];
            let inside = if x == BOT { set.contains_undef() } else { set.contains(i64::from(x)) };
            if !inside {
                let var = &model.vars[s.var];
                let name = if var.dims.is_empty() { var.name.clone() } else { format!("{}[{}]", var.name, s.element) };
                let owner = match s.agent {
                    None => "the environment's".to_string(),
                    Some((a, t)) => format!("agent {a}'s ({})", model.agent_types[t].name),
                };
                let value = if x == BOT { "undef".to_string() } else { x.to_string() };
                return Err(AnalysisMiss(format!(
                    "the value analysis missed a reachable value: {owner} `{name}` holds {value}, outside its \
                     analysed set {set} (a bug of labs; the verdicts that rest on the analysis cannot be trusted)"
                )));
            }
        }
        Ok(())
    }
}
