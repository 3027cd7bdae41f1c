//! What a report shows of one trace, decoded from the model: lifelines, the event of each
//! step with its concrete timestamps, and every variable's value after each step. The chart
//! and the step table are drawn from this alone, so they can be tested on hand-made views.

use crate::behaviour::Behaviour;
use crate::engine::state::BOT;
use crate::engine::step::{Event, Stepper};
use crate::model::{Model, Store};
use crate::trace::{self, Clock, Mark, Trace};

/// Whose variable a table column is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    Env,
    Agent(usize),
}

/// One column of the step table: a variable element of the environment or of one agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Column {
    pub(crate) owner: Owner,
    pub(crate) name: String,
    /// Stigmergic variables carry a timestamp.
    pub(crate) stigmergic: bool,
}

/// A value as shown: `None` is `undef`.
pub(crate) type Shown = Option<i32>;

/// The values of every column in one state; `stamps[c]` is the timestamp of a stigmergic column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Row {
    pub(crate) values: Vec<Shown>,
    pub(crate) stamps: Vec<Option<i64>>,
}

/// One assignment as shown on a lifeline, e.g. `x <~ 3 @5`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Assignment {
    pub(crate) var: String,
    pub(crate) store: Store,
    pub(crate) value: Shown,
    pub(crate) stamp: Option<i64>,
}

impl Assignment {
    pub(crate) fn text(&self) -> String {
        let op = match self.store {
            Store::Env => "<--",
            Store::Attr => "<-",
            Store::Stig { .. } => "<~",
        };
        let at = self.stamp.map_or(String::new(), |t| format!(" @{t}"));
        format!("{} {op} {}{at}", self.var, shown(self.value))
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum StepView {
    /// An agent step: its assignments (environment ones included), or a `Skip`/empty step.
    Agent { agent: usize, assignments: Vec<Assignment>, skip: bool },
    /// A put (`confirm = false`) or qry of `tuple`, with the timestamp the receivers copied.
    Message { sender: usize, tuple: String, confirm: bool, stamp: i64, copied: Vec<usize>, refreshed: Vec<usize> },
}

/// A trace as the report shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceView {
    /// Lifeline names, one per agent (`Leader 0`).
    pub(crate) agents: Vec<String>,
    /// Whether the model has an environment (it then gets a lifeline, the rightmost).
    pub(crate) env: bool,
    pub(crate) columns: Vec<Column>,
    /// `rows[i]`: the state after `i` steps (0 = initial).
    pub(crate) rows: Vec<Row>,
    pub(crate) steps: Vec<StepView>,
    pub(crate) loop_start: Option<usize>,
    pub(crate) deadlock: bool,
    pub(crate) marks: Vec<Mark>,
}

/// The (agent, tuple) whose timestamp a stigmergic column shows.
type Stamped = (usize, usize);

pub(crate) fn shown(v: Shown) -> String {
    v.map_or_else(|| "undef".to_string(), |x| x.to_string())
}

fn value(v: i32) -> Shown {
    (v != BOT).then_some(v)
}

impl TraceView {
    pub fn new(model: &Model, behs: &[Behaviour], t: &Trace) -> TraceView {
        let stepper = Stepper::new(model, behs, t.fair);
        let lay = &stepper.lay;
        // Columns with the state slot of each and, for stigmergic ones, (agent, tuple).
        // Each agent's columns in id order, then the environment's: the chart's lifelines' order.
        let mut cols: Vec<(Column, usize, Option<Stamped>)> = vec![];
        for a in 0..lay.n_agents {
            let ty = stepper.type_of[a];
            for &vi in &model.agent_types[ty].attrs {
                let v = &model.vars[vi];
                for e in 0..v.len {
                    let c = Column { owner: Owner::Agent(a), name: v.element_name(e), stigmergic: false };
                    cols.push((c, lay.attr(a, v.offset + e), None));
                }
            }
            for v in &model.vars {
                if let Store::Stig { stigmergy, tuple } = v.store
                    && model.holds(ty, stigmergy)
                {
                    for e in 0..v.len {
                        let c = Column { owner: Owner::Agent(a), name: v.element_name(e), stigmergic: true };
                        cols.push((c, lay.stig(a, v.offset + e), Some((a, tuple))));
                    }
                }
            }
        }
        for v in model.vars.iter().filter(|v| v.store == Store::Env) {
            for e in 0..v.len {
                let c = Column { owner: Owner::Env, name: v.element_name(e), stigmergic: false };
                cols.push((c, v.offset + e, None));
            }
        }
        let mut clock = Clock::new(&stepper);
        let row = |st: &[i32], clock: &Clock| Row {
            values: cols.iter().map(|(_, slot, _)| value(st[*slot])).collect(),
            stamps: cols.iter().map(|(_, _, at)| at.map(|(a, k)| clock.ts[a][k])).collect(),
        };
        let mut rows = vec![row(&t.initial, &clock)];
        let mut steps = vec![];
        for s in &t.steps {
            clock.apply(&s.event);
            rows.push(row(&s.state, &clock));
            steps.push(StepView::of(model, &clock, &s.event));
        }
        TraceView {
            agents: (0..lay.n_agents).map(|a| trace::agent_name(model, a)).collect(),
            env: model.env_len > 0,
            columns: cols.into_iter().map(|(c, _, _)| c).collect(),
            rows,
            steps,
            loop_start: t.loop_start,
            deadlock: t.ends_in_deadlock,
            marks: t.marks.clone(),
        }
    }

    /// The one-line description of step `i` (0-based) used in the step table.
    pub(crate) fn step_text(&self, i: usize) -> String {
        self.steps[i].text(&self.agents)
    }
}

impl StepView {
    /// The step `ev`, with the timestamps of `clock` (applied to `ev` already).
    pub(crate) fn of(model: &Model, clock: &Clock, ev: &Event) -> StepView {
        match ev {
            Event::Agent { agent, assigned, skip, .. } => StepView::Agent {
                agent: *agent,
                assignments: assigned
                    .iter()
                    .map(|asd| {
                        let v = &model.vars[asd.var];
                        let stamp = match v.store {
                            Store::Stig { tuple, .. } => Some(clock.ts[*agent][tuple]),
                            _ => None,
                        };
                        Assignment { var: v.element_name(asd.elem), store: v.store, value: value(asd.value), stamp }
                    })
                    .collect(),
                skip: *skip,
            },
            Event::Message { sender, tuple, confirm, copied, refreshed } => StepView::Message {
                sender: *sender,
                tuple: trace::tuple_name(model, *tuple),
                confirm: *confirm,
                stamp: clock.ts[*sender][*tuple],
                copied: copied.clone(),
                refreshed: refreshed.clone(),
            },
        }
    }

    /// The one-line description used in the step table (`agents`: the lifelines' names).
    pub(crate) fn text(&self, agents: &[String]) -> String {
        match self {
            StepView::Agent { agent, assignments, skip } => {
                let who = &agents[*agent];
                if assignments.is_empty() {
                    return format!("{who}: {}", if *skip { "Skip" } else { "(no assignment)" });
                }
                let a: Vec<String> = assignments.iter().map(Assignment::text).collect();
                format!("{who}: {}", a.join("; "))
            }
            StepView::Message { sender, tuple, confirm, stamp, copied, refreshed } => {
                let kind = if *confirm { "qry" } else { "put" };
                let to: Vec<String> = copied.iter().map(|r| r.to_string()).collect();
                let to = if to.is_empty() {
                    "nobody".to_string()
                } else {
                    format!("{} {}", if to.len() == 1 { "agent" } else { "agents" }, to.join(", "))
                };
                let mut s = format!("{}: {kind} ({tuple}) @{stamp} → {to}", agents[*sender]);
                if !refreshed.is_empty() {
                    let r: Vec<String> = refreshed.iter().map(|r| r.to_string()).collect();
                    s += &format!("; newer at {}", r.join(", "));
                }
                s
            }
        }
    }
}
