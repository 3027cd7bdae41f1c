//! A fair check's verdict as the report shows it: the counterexample as a trace whose steps
//! name their agents, its loop checked fair from the successors of its states.

use super::explore::Graph;
use super::fair_search::FairLasso;
use super::fairness::{self, FairOutcome, Fairness, LoopAgents};
use super::path::{Mark, Trace};
use super::step::{RuntimeError, Stepper};
use super::{EngineError, PropertyResult, Verdict, concrete_trace, symmetry};
use crate::model::Property;

/// The verdict of a lasso found by `fair_search`.
#[allow(clippy::type_complexity)]
pub(super) fn of_lasso(
    stepper: &Stepper,
    p: &Property,
    notion: Fairness,
    l: &FairLasso,
) -> Result<(Verdict, Option<Trace>, Option<String>, Option<LoopAgents>), EngineError> {
    let mut t = fairness::trace_with_actors(stepper, &l.states, &l.actors);
    t.loop_start = l.loop_start;
    t.ends_in_deadlock = l.loop_start.is_none();
    of_trace(stepper, p, notion, t)
}

/// A fair check's verdict, with its counterexample as a trace whose loop is checked fair;
/// `elements`: the group element of each labelled edge, under the reduction.
#[allow(clippy::type_complexity)]
pub(super) fn of_graph(
    stepper: &Stepper,
    g: &Graph,
    group: Option<&symmetry::Group>,
    elements: Option<&[symmetry::element::Element]>,
    p: &Property,
    notion: Fairness,
    fair: FairOutcome,
) -> Result<(Verdict, Option<Trace>, Option<String>, Option<LoopAgents>), EngineError> {
    let (c, actors, els) = match fair {
        FairOutcome::Holds => return Ok((Verdict::Holds, None, None, None)),
        FairOutcome::Unknown(why) => return Ok((Verdict::Unknown, None, why, None)),
        FairOutcome::Violated(c, actors, els) => (c, actors, els),
    };
    let lift_error = |e: symmetry::lift::LiftError| EngineError::Internal(format!("cannot lift a counterexample: {e}"));
    let mut t = match (group, c.loop_start, elements) {
        (None, _, _) => {
            let states: Vec<Vec<i32>> = c.path.iter().map(|&i| g.store.get(i)).collect();
            let mut t = fairness::trace_with_actors(stepper, &states, &actors);
            t.loop_start = c.loop_start;
            t
        }
        // Weak and strong fairness under the reduction: the prefix lifted as any path, the
        // loop edge by edge through the elements its check followed (docs/semantics.md, D15).
        (Some(gr), Some(_), Some(elements)) if !els.is_empty() => {
            fairness::lifted_trace(stepper, &g.store, gr, elements, &c, &actors, &els).map_err(lift_error)?
        }
        (Some(_), _, _) => {
            let mut t = concrete_trace(stepper, g, group, &c.path, c.loop_start)?;
            if c.loop_start.is_none() {
                t.loop_start = None;
            }
            t
        }
    };
    t.ends_in_deadlock = c.deadlock;
    of_trace(stepper, p, notion, t)
}

/// A fair counterexample's trace, its loop checked fair from the successors of its states.
#[allow(clippy::type_complexity)]
fn of_trace(
    stepper: &Stepper,
    p: &Property,
    notion: Fairness,
    mut t: Trace,
) -> Result<(Verdict, Option<Trace>, Option<String>, Option<LoopAgents>), EngineError> {
    let runtime_on =
        |t: &Trace, e: RuntimeError| EngineError::Runtime { message: e.0, trace: Some(Box::new(t.clone())) };
    let mut agents = fairness::loop_agents(stepper, &t).map_err(|e| runtime_on(&t, e))?;
    agents.notion = Some(notion);
    if !agents.fair(notion) {
        return Err(EngineError::Internal(format!(
            "the counterexample for {} is not a {} fair run: {agents:?}",
            p.name,
            notion.as_str()
        )));
    }
    t.marks.push(Mark { at: t.steps.len(), property: p.name.clone(), status: "violated".into() });
    Ok((Verdict::Violated, Some(t), None, Some(agents)))
}

/// A property's result from a fair check's verdict, trace, reason and loop.
pub(super) fn result(
    p: &Property,
    (verdict, trace, reason, fair_loop): (Verdict, Option<Trace>, Option<String>, Option<LoopAgents>),
) -> PropertyResult {
    PropertyResult { property: p.name.clone(), modality: p.keyword.clone(), verdict, trace, reason, fair_loop }
}
