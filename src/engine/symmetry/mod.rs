//! Symmetry reduction (docs/reductions.md): which agents are interchangeable (`analysis`),
//! one representative per class of states equal up to a permutation of interchangeable
//! agents (`canon`, on packed states), and concrete counterexamples from the representatives'
//! paths (`lift`).
//!
//! Without `--fair`, the agents of a symmetric type may be permuted in any way: a state's
//! representative has that type's agent blocks sorted. With `--fair`, the turn passes in id
//! order, so only rotations of all agents preserve the steps, and only when all agents are of
//! one type: the representative is the rotation whose turn is agent 0.

mod analysis;
pub(crate) mod canon;
pub(crate) mod element;
pub(crate) mod lift;
mod values;

pub(crate) use analysis::Asymmetry;
pub use values::ValueMap;
pub(crate) use values::{SlotMove, ValueSymmetries};

use crate::analysis::fallible::Fallibility;
use crate::behaviour::Behaviour;
use crate::model::Model;
use std::ops::Range;

/// What the analysis concluded for one agent type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeSymmetry {
    /// Any permutation of its agents maps steps to steps.
    Interchangeable,
    /// With `--fair`: rotations of all agents (of this, the only type) do.
    Rotations,
    /// No agents, or one: nothing to permute.
    Trivial,
    /// Not reduced, and why.
    Broken(Vec<Asymmetry>),
}

/// The permutations the explorer quotients by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// Agent id ranges whose blocks may be permuted freely (each of 2 agents or more).
    pub classes: Vec<Range<usize>>,
    /// Rotations of all agents instead (`--fair`, one type).
    pub rotations: Option<usize>,
    /// Symmetries of values (the group's elements other than the identity), which commute
    /// with the permutations of agents.
    pub values: Vec<ValueMap>,
}

impl Group {
    /// The number of permutations in the group (saturating): the largest reduction factor.
    pub(crate) fn order(&self) -> u64 {
        let values = self.values.len() as u64 + 1;
        if let Some(n) = self.rotations {
            return n as u64 * values;
        }
        self.classes
            .iter()
            .map(|c| (1..=c.len() as u64).fold(1u64, |a, b| a.saturating_mul(b)))
            .fold(values, u64::saturating_mul)
    }
}

/// The analysis of a model under one scheduling.
#[derive(Clone, Debug)]
pub struct Symmetry {
    /// One entry per agent type.
    pub types: Vec<TypeSymmetry>,
    /// Symmetries of values, whatever the types.
    pub values: ValueSymmetries,
    /// `None` when nothing can be reduced.
    pub group: Option<Group>,
}

impl Symmetry {
    /// `stats.reduction` and the human statistics line: `symmetry (Bird: 3 interchangeable
    /// agents)`.
    pub(crate) fn describe(&self, model: &Model) -> Option<String> {
        let g = self.group.as_ref()?;
        let parts: Vec<String> = model
            .agent_types
            .iter()
            .zip(&self.types)
            .filter_map(|(t, s)| match s {
                TypeSymmetry::Interchangeable => Some(format!("{}: {} interchangeable agents", t.name, t.count)),
                TypeSymmetry::Rotations => Some(format!("{}: rotations of {} agents", t.name, t.count)),
                _ => None,
            })
            .chain((!g.values.is_empty()).then(|| format!("{} symmetries of values", g.values.len() + 1)))
            .collect();
        debug_assert!(!parts.is_empty() && g.order() > 1);
        Some(format!("symmetry ({})", parts.join("; ")))
    }
}

/// Which agent types are symmetric, with and without round-robin scheduling (`fair`), and
/// which maps of values are symmetries.
pub fn analyse(model: &Model, behs: &[Behaviour], fair: bool) -> Symmetry {
    let va = crate::analysis::values::analyse(model, behs);
    analyse_with(model, behs, fair, &va, &crate::analysis::fallible::analyse(model, behs, &va), false)
}

/// `analyse` with the value analysis `va` of the model and where it may fail, `fallible`;
/// with `counted`, only the maps of values that keep the number of transitions into each
/// successor too (for the probabilities of `verify --probability`; permutations of agents
/// always do).
pub(crate) fn analyse_with(
    model: &Model,
    behs: &[Behaviour],
    fair: bool,
    va: &crate::analysis::values::ValueAnalysis,
    fallible: &Fallibility,
    counted: bool,
) -> Symmetry {
    let stepper = crate::engine::step::Stepper::new(model, behs, fair);
    let values = values::find(model, behs, &stepper, va, counted);
    let mut broken = analysis::asymmetries(model, behs);
    // A quantifier stops at the first agent that decides it, in id order: where its body may
    // fail, whether it fails depends on which agent comes first.
    for (t, site) in &fallible.quantified {
        broken[*t].push(Asymmetry {
            text: format!(
                "{} quantifies over {} in id order with a body that may meet a run-time error ({}), so which agent \
                 comes first may decide whether the error is met",
                capitalised(&site.place),
                model.agent_types[*t].name,
                site.what
            ),
            span: site.span,
        });
    }
    let populated = model.agent_types.iter().filter(|t| t.count > 0).count();
    let mut types = Vec::new();
    for (t, reasons) in model.agent_types.iter().zip(broken) {
        types.push(if t.count <= 1 {
            TypeSymmetry::Trivial
        } else if fair && populated > 1 {
            let mut r = vec![Asymmetry {
                text: "--fair gives the turn to the agents of every type in one id order".into(),
                span: None,
            }];
            r.extend(reasons);
            TypeSymmetry::Broken(r)
        } else if !reasons.is_empty() {
            TypeSymmetry::Broken(reasons)
        } else if fair {
            TypeSymmetry::Rotations
        } else {
            TypeSymmetry::Interchangeable
        });
    }
    let classes: Vec<Range<usize>> = model
        .agent_types
        .iter()
        .zip(&types)
        .filter(|(_, s)| **s == TypeSymmetry::Interchangeable)
        .map(|(t, _)| t.ids())
        .collect();
    let rotations = types.contains(&TypeSymmetry::Rotations).then(|| model.n_agents());
    let group = (!classes.is_empty() || rotations.is_some() || !values.maps.is_empty()).then(|| Group {
        classes,
        rotations,
        values: values.maps.clone(),
    });
    Symmetry { types, values, group }
}

/// `text` with its first letter in upper case.
fn capitalised(text: &str) -> String {
    let mut c = text.chars();
    c.next().map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}
