//! One exploration: a history of states (a `Trace`) and a cursor in it. Every step comes from
//! the engine's reference successors (`Stepper::successors`), the steps `verify` and
//! `simulate` take; the properties are marked along the history by the marks of `simulate`,
//! and a history that closes a loop or ends in a deadlock is judged as the complete run it is
//! (`trace::from_labels::shows`, the check of translated counterexamples).

use crate::behaviour::Behaviour;
use crate::engine::SimStatus;
use crate::engine::simulate::{Marks, SimProperty, SplitMix64};
use crate::engine::step::{Drawn, Event, Stepper, Work};
use crate::model::{Model, QPred};
use crate::trace::from_labels::{Shows, shows};
use crate::trace::{Mark, Trace, TraceStep};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The longest history: random runs stop there (its chart would grow past what a page shows
/// comfortably, about 1 KB per step).
pub const MAX_HISTORY: usize = 5000;

/// How long one request may run random steps.
const MAX_RUN_TIME: Duration = Duration::from_secs(10);

/// Where the history came from, while it is a loaded trace.
#[derive(Clone, Debug)]
pub(crate) struct Origin {
    pub(crate) title: String,
    /// The history is still exactly the loaded trace (its loop, deadlock and marks hold).
    pub(crate) intact: bool,
    /// The state the history branched off the loaded trace at.
    pub(crate) branched_at: Option<usize>,
}

/// What "run until" waits for.
pub(crate) enum Until {
    /// A state predicate, with its text.
    Predicate(QPred, String),
    /// The violation of a property (index in the model's properties).
    Violated(usize),
    Deadlock,
}

/// A property's status along the history.
#[derive(Clone, Debug)]
pub(crate) struct Status {
    pub(crate) now: SimProperty,
    /// Where its check stands at the cursor (a monitor's state, a formula's prefix).
    pub(crate) progress: Option<&'static str>,
    /// On the whole history; for a history that closes a loop or ends in a deadlock, the
    /// verdict on that complete run.
    pub(crate) run: SimProperty,
}

/// The enabled steps of a state: each event with the state it leads to, and the run-time
/// error the state's steps meet, if any (the steps listed are then those that meet none).
pub(crate) struct Enabled {
    pub(crate) steps: Vec<(Event, Vec<i32>)>,
    pub(crate) error: Option<String>,
}

pub struct Session<'m> {
    pub(crate) model: &'m Model,
    pub(crate) behs: &'m [Behaviour],
    pub(crate) stepper: Stepper<'m>,
    /// The history: its states and steps; a loaded trace's loop, deadlock and marks while it
    /// is intact.
    pub(crate) run: Trace,
    pub(crate) cursor: usize,
    pub(crate) origin: Option<Origin>,
    /// Bumped by every change, so that a page acting on an old view is refused.
    pub(crate) rev: u64,
    w: Work,
}

impl<'m> Session<'m> {
    /// A session at the first initial state (in the engine's order), or why there is none.
    pub fn new(model: &'m Model, behs: &'m [Behaviour], fair: bool) -> Result<Session<'m>, String> {
        let stepper = Stepper::new(model, behs, fair);
        let initial = first_initial(&stepper)?;
        Ok(Session {
            model,
            behs,
            stepper,
            run: Trace::start(fair, initial),
            cursor: 0,
            origin: None,
            rev: 0,
            w: Work::default(),
        })
    }

    pub(crate) fn fair(&self) -> bool {
        self.run.fair
    }

    fn changed(&mut self) {
        self.rev += 1;
    }

    /// Starts again from the first initial state, or from one drawn with `seed` as `simulate`
    /// draws it.
    pub(crate) fn restart(&mut self, seed: Option<u64>) -> Result<(), String> {
        let initial = match seed {
            None => first_initial(&self.stepper)?,
            Some(s) => {
                let sampler = self.stepper.initial_sampler().map_err(|e| e.0)?;
                match sampler.draw(&self.stepper, &mut SplitMix64::new(s)).map_err(|e| e.0)? {
                    Drawn::State(st) => st,
                    Drawn::NoneExists => return Err("the spec has no initial state".into()),
                    Drawn::GaveUp => return Err("no initial state the assumptions admit was drawn".into()),
                }
            }
        };
        self.run = Trace::start(self.fair(), initial);
        self.cursor = 0;
        self.origin = None;
        self.changed();
        Ok(())
    }

    /// Replaces the history by a (replayed) trace, with the cursor at its initial state.
    pub(crate) fn load(&mut self, title: String, trace: Trace) {
        self.run = trace;
        self.cursor = 0;
        self.origin = Some(Origin { title, intact: true, branched_at: None });
        self.changed();
    }

    /// The state at the cursor.
    pub(crate) fn current(&self) -> &[i32] {
        self.run.state(self.cursor)
    }

    pub(crate) fn enabled(&mut self) -> Enabled {
        enabled_of(&self.stepper, &mut self.w, self.run.state(self.cursor))
    }

    /// Moves the cursor to state `at` of the history.
    pub(crate) fn goto(&mut self, at: usize) -> Result<(), String> {
        if at > self.run.len() {
            return Err(format!("the history has states 0 to {}, not {at}", self.run.len()));
        }
        self.cursor = at;
        self.changed();
        Ok(())
    }

    /// Takes enabled step `index` of the state at the cursor. The history's own next step
    /// moves the cursor forward and keeps the history; any other drops the history after the
    /// cursor (the new step branches off it).
    pub(crate) fn take(&mut self, index: usize) -> Result<(), String> {
        let mut en = self.enabled();
        if index >= en.steps.len() {
            return Err(format!("the state has {} enabled steps, not a step {index}", en.steps.len()));
        }
        let (ev, st) = en.steps.swap_remove(index);
        if self.run.steps.get(self.cursor).is_some_and(|next| next.event == ev && next.state == st) {
            self.cursor += 1;
        } else {
            self.push(ev, st);
        }
        self.changed();
        Ok(())
    }

    /// Appends a step at the cursor, dropping the history after it.
    fn push(&mut self, event: Event, state: Vec<i32>) {
        if let Some(o) = &mut self.origin
            && o.intact
        {
            o.intact = false;
            o.branched_at = Some(self.cursor);
        }
        self.run.steps.truncate(self.cursor);
        self.run.loop_start = None;
        self.run.ends_in_deadlock = false;
        self.run.marks.clear();
        self.run.steps.push(TraceStep { event, state });
        self.cursor += 1;
    }

    /// Up to `count` random steps from the cursor (uniform among the enabled steps, as
    /// `simulate` chooses), stopping at a deadlock; what happened, in words.
    pub(crate) fn random(&mut self, count: usize, seed: u64, stop: &AtomicBool) -> String {
        let mut rng = SplitMix64::new(seed);
        let started = Instant::now();
        let mut taken = 0;
        let why = loop {
            if taken == count {
                break String::new();
            }
            if let Some(why) = self.cut(started, stop) {
                break why;
            }
            let mut en = self.enabled();
            if en.steps.is_empty() {
                break format!(", then a deadlock (state {})", self.cursor);
            }
            let (ev, st) = en.steps.swap_remove(rng.below(en.steps.len() as u64) as usize);
            self.push(ev, st);
            taken += 1;
        };
        if taken > 0 {
            self.changed();
        }
        format!("{} (seed {seed}){why}", crate::diagnostics::plural(taken, "random step", "random steps"))
    }

    /// Why a run of random steps stops before its count: the history's length, the time a
    /// request may take, an interrupt.
    fn cut(&self, started: Instant, stop: &AtomicBool) -> Option<String> {
        if self.cursor >= MAX_HISTORY {
            Some(format!(", stopped at the longest history ({MAX_HISTORY} steps)"))
        } else if started.elapsed() > MAX_RUN_TIME {
            Some(format!(", stopped after {} s", MAX_RUN_TIME.as_secs()))
        } else if stop.load(Ordering::Relaxed) {
            Some(", interrupted".to_string())
        } else {
            None
        }
    }

    /// Random steps from the cursor until, after a step, `until` holds (at most `max` steps);
    /// whether it was met, and what happened in words. A property's violation is also found
    /// where the steps close a loop whose lasso violates it.
    pub(crate) fn until(&mut self, until: &Until, max: usize, seed: u64, stop: &AtomicBool) -> (bool, String) {
        let props: Vec<&Property> = self.model.properties.iter().collect();
        let mut marks = Marks::new(props);
        let mut sc = Default::default();
        // The states of the history so far, to notice a loop.
        let mut seen: HashMap<Vec<i32>, usize> = HashMap::new();
        for k in 0..=self.cursor {
            seen.insert(self.run.state(k).to_vec(), k);
            if let Err(e) = marks.observe(&self.stepper, self.run.state(k), k, &mut |_, _| {}) {
                return (false, format!("run-time error of the model in a property: {}", e.0));
            }
        }
        if let Until::Violated(i) = until
            && let Some(said) = settled(&marks, *i)
        {
            return (said.0, format!("{}; no step taken", said.1));
        }
        let mut rng = SplitMix64::new(seed);
        let started = Instant::now();
        let mut taken = 0;
        let (found, why) = loop {
            if taken == max {
                break (false, format!("not met within {max} steps"));
            }
            if let Some(why) = self.cut(started, stop) {
                break (false, format!("not met{why}"));
            }
            let mut en = self.enabled();
            if en.steps.is_empty() {
                let k = self.cursor;
                match until {
                    Until::Deadlock => break (true, format!("a deadlock at state {k}")),
                    Until::Violated(i) => {
                        let mut decided = None;
                        marks.deadlock(k, &mut |j, d| {
                            if j == *i {
                                decided = Some(d);
                            }
                        });
                        if decided == Some(SimStatus::Violated) {
                            break (
                                true,
                                format!("{} violated: the run ends in a deadlock at state {k}", name(&marks, *i)),
                            );
                        }
                        break (false, format!("a deadlock at state {k} does not violate {}", name(&marks, *i)));
                    }
                    Until::Predicate(..) => break (false, format!("a deadlock at state {k} first")),
                }
            }
            let (ev, st) = en.steps.swap_remove(rng.below(en.steps.len() as u64) as usize);
            self.push(ev, st);
            taken += 1;
            let k = self.cursor;
            let mut newly = None;
            if let Err(e) = marks.observe(&self.stepper, self.run.state(k), k, &mut |j, d| {
                if matches!(until, Until::Violated(i) if *i == j) && d == SimStatus::Violated {
                    newly = Some(j);
                }
            }) {
                break (false, format!("run-time error of the model in a property at state {k}: {}", e.0));
            }
            if let Some(j) = newly {
                break (true, format!("{} violated at state {k}", name(&marks, j)));
            }
            if let Until::Violated(i) = until
                && let Some(said) = settled(&marks, *i)
            {
                break said;
            }
            match until {
                Until::Predicate(q, text) => {
                    match crate::engine::eval_pred(&self.stepper, self.run.state(k), &mut sc, q) {
                        Ok(true) => break (true, format!("`{text}` holds at state {k}")),
                        Ok(false) => {}
                        Err(e) => {
                            break (
                                false,
                                format!("run-time error of the model in the predicate at state {k}: {}", e.0),
                            );
                        }
                    }
                }
                Until::Violated(i) => {
                    if let Some(&back) = seen.get(self.run.state(k)) {
                        // The steps closed a loop: the lasso is a complete run.
                        let mut lasso = self.run.clone();
                        lasso.loop_start = Some(back);
                        if let Ok(Shows::Violation { .. }) =
                            shows(self.model, self.behs, &lasso, &self.model.properties[*i])
                        {
                            break (
                                true,
                                format!("{} violated by the loop from state {back} to state {k}", name(&marks, *i)),
                            );
                        }
                    }
                }
                Until::Deadlock => {}
            }
            seen.insert(self.run.state(k).to_vec(), k);
        };
        if taken > 0 {
            self.changed();
        }
        let steps = crate::diagnostics::plural(taken, "random step", "random steps");
        (found, format!("{steps} (seed {seed}): {why}"))
    }

    /// The latest earlier state of the history equal to its last one: the history is then a
    /// lasso whose loop starts there.
    pub(crate) fn loop_back(&self) -> Option<usize> {
        let last = self.run.last();
        (0..self.run.len()).rev().find(|&j| self.run.state(j) == last)
    }

    /// The earliest state of the history before the cursor equal to the cursor's.
    pub(crate) fn same_as(&self) -> Option<usize> {
        let cur = self.current();
        (0..self.cursor).find(|&j| self.run.state(j) == cur)
    }

    /// Whether the history's last state has no enabled step.
    pub(crate) fn ends_in_deadlock(&mut self) -> bool {
        let last = self.run.last().to_vec();
        enabled_of(&self.stepper, &mut self.w, &last).steps.is_empty()
    }

    fn intact(&self) -> bool {
        self.origin.as_ref().is_some_and(|o| o.intact)
    }

    /// Each property's status along the history, and the marks to draw: a loaded trace's own
    /// while it is intact, with those the history decides for its other properties.
    pub(crate) fn statuses(&mut self) -> Result<(Vec<Status>, Trace), String> {
        let mut shown = self.run.clone();
        if !self.intact() {
            shown.loop_start = self.loop_back();
            shown.ends_in_deadlock = shown.loop_start.is_none() && self.ends_in_deadlock();
        }
        let props: Vec<&Property> = self.model.properties.iter().collect();
        let mut marks = Marks::new(props.clone());
        let mut now = vec![];
        let mut progress = vec![];
        let mut drawn: Vec<Mark> = vec![];
        for k in 0..=shown.len() {
            marks
                .observe(&self.stepper, shown.state(k), k, &mut |i, d| drawn.push(mark(&props, i, k, d)))
                .map_err(|e| format!("run-time error of the model in a property at state {k}: {}", e.0))?;
            if k == self.cursor {
                now = marks.status.clone();
                progress = (0..props.len()).map(|i| marks.progress(i)).collect();
            }
        }
        let n = shown.len();
        if shown.ends_in_deadlock {
            marks.deadlock(n, &mut |i, d| drawn.push(mark(&props, i, n, d)));
        } else if shown.loop_start.is_some() {
            for (i, p) in props.iter().enumerate() {
                if marks.status[i].status != SimStatus::Undecided {
                    continue;
                }
                let d = match shows(self.model, self.behs, &shown, p).map_err(|e| e.0)? {
                    Shows::Violation { .. } => SimStatus::Violated,
                    Shows::NoViolation if !matches!(p.modality, Modality::Always) => SimStatus::Satisfied,
                    _ => continue,
                };
                marks.status[i].status = d;
                marks.status[i].at_step = Some(n);
                drawn.push(mark(&props, i, n, d));
            }
        }
        if self.cursor == n {
            now = marks.status.clone();
        }
        let run = marks.status.clone();
        if self.intact() {
            // The loaded marks stand; the history adds those of properties they do not mark.
            let own: Vec<String> = shown.marks.iter().map(|m| m.property.clone()).collect();
            shown.marks.extend(drawn.into_iter().filter(|m| !own.contains(&m.property)));
        } else {
            shown.marks = drawn;
        }
        let statuses = now
            .into_iter()
            .zip(progress)
            .zip(run)
            .map(|((now, progress), run)| Status { now, progress, run })
            .collect();
        Ok((statuses, shown))
    }
}

use crate::model::{Modality, Property};

/// Whether property `i` is decided along the run so far, and so can no longer be violated
/// by more steps (or already is): whether it is violated, and in words.
fn settled(marks: &Marks, i: usize) -> Option<(bool, String)> {
    let s = &marks.status[i];
    let at = s.at_step.unwrap_or(0);
    match s.status {
        SimStatus::Violated => Some((true, format!("{} is violated at state {at}", s.property))),
        SimStatus::Satisfied => {
            Some((false, format!("{} is satisfied at state {at}: no continuation of this run violates it", s.property)))
        }
        SimStatus::Undecided => None,
    }
}

fn name(marks: &Marks, i: usize) -> String {
    marks.status[i].property.clone()
}

fn mark(props: &[&Property], i: usize, at: usize, d: SimStatus) -> Mark {
    Mark {
        at,
        property: props[i].name.clone(),
        status: if d == SimStatus::Violated { "violated" } else { "satisfied" }.into(),
    }
}

/// The first initial state in the engine's order.
fn first_initial(stepper: &Stepper) -> Result<Vec<i32>, String> {
    let mut first = None;
    stepper
        .for_each_initial(&mut |s| {
            first = Some(s.to_vec());
            false
        })
        .map_err(|e| format!("run-time error of the model in the initial states: {}", e.0))?;
    first.ok_or_else(|| "the spec has no initial state (its assumptions admit none)".to_string())
}

/// The enabled steps of `st` by the reference successors; where one meets a run-time error,
/// that error and the steps that meet none.
fn enabled_of(stepper: &Stepper, w: &mut Work, st: &[i32]) -> Enabled {
    let mut steps = vec![];
    match stepper.successors(st, w, true, &mut |e, s| steps.push((e.expect("events asked for"), s.to_vec()))) {
        Ok(()) => Enabled { steps, error: None },
        Err(e) => {
            let mut steps = vec![];
            stepper.successors_past_errors(st, w, &mut |e, s| steps.push((e.expect("events asked for"), s.to_vec())));
            Enabled { steps, error: Some(e.0) }
        }
    }
}
