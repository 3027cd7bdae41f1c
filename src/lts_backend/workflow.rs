//! Which workflow runs a spec when the user does not say: the back end's decision, shared by
//! `labs verify --backend lnt|cadp`, `labs emit` (its warning) and the library's callers. The
//! compositional script generates every leaf alone, enumerating its input offers over the
//! value analysis' domains (only `MAIN` as a whole bounds them by the partners' offers): a
//! variable whose analysed set is too large makes such a leaf unusable, and the spec needs the
//! monolithic script.

use super::Workflow;
use crate::analysis::values::ValueAnalysis;

/// Above this many values, a leaf's input offer over a variable's domain cannot be enumerated.
pub(crate) const LEAF_INPUT_LIMIT: u64 = 1 << 16;

/// The variables whose analysed set is too large for leaves generated alone, with their range
/// (`lo..hi` or `unbounded`), each once, in variable order.
pub fn unbounded_inputs(analysis: &ValueAnalysis) -> Vec<(usize, String)> {
    let mut keys: Vec<_> = analysis.sets.iter().collect();
    keys.sort_by_key(|((v, t), _)| (*v, *t));
    let mut out = vec![];
    let mut seen = std::collections::BTreeSet::new();
    for ((v, _), set) in keys {
        let too_big = set.cardinality().is_none_or(|n| n > LEAF_INPUT_LIMIT);
        if too_big && seen.insert(*v) {
            let range = match (set.min(), set.max()) {
                (Some(lo), Some(hi)) => format!("{lo}..{hi}"),
                _ => "unbounded".into(),
            };
            out.push((*v, range));
        }
    }
    out
}

/// The workflow that runs, and the variables that rule the compositional one out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkflowChoice {
    pub workflow: Workflow,
    /// `unbounded_inputs`: when no workflow was asked for and this is not empty, the
    /// monolithic workflow was chosen because of them.
    pub unbounded: Vec<(usize, String)>,
    /// The workflow was asked for, not chosen.
    pub asked: bool,
}

/// The workflow asked for, else compositional where the value analysis bounds every leaf's
/// inputs, else monolithic.
pub fn choose_workflow(asked: Option<Workflow>, analysis: &ValueAnalysis) -> WorkflowChoice {
    let unbounded = unbounded_inputs(analysis);
    let workflow = match asked {
        Some(w) => w,
        None if unbounded.is_empty() => Workflow::Compositional,
        None => Workflow::Monolithic,
    };
    WorkflowChoice { workflow, unbounded, asked: asked.is_some() }
}
