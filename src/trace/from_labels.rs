//! Turning a path of LNT labels (from CADP or from our LNT interpreter) back into a LAbS
//! trace by replaying it in the native engine.
//!
//! The labels that carry LAbS meaning are `DONE` (the end of the initialisation, then of
//! every step) and the observation labels `E_x !elem !v`, `A_x`/`L_x !agent !elem !v`
//! (docs/lnt-encoding.md): during the initialisation every observed element is labelled, and
//! a step labels the observed elements it changes. So after the `k`-th `DONE` the observed
//! valuation is known exactly. The replay searches the native successor relation for a path
//! whose `k`-th state has that observed valuation, for every `k`, depth first with memoised
//! dead ends; the native steps then give the events, timestamps and every unobserved value.
//! Other labels (gates the program hides, `i`, a linear-time monitor's `ACC` and `STUCK`) are
//! passed over; all but the monitor's are counted as ignored. A lasso must close on an equal
//! native state; a path marked `<deadlock>` must end in a native deadlock.

use super::cadp::{LabelPath, split_label};
use super::{ReplayError, Trace, TraceStep, TranslateError};
use crate::behaviour::Behaviour;
use crate::engine::bad_prefix::{self, Prefixes};
use crate::engine::state::BOT;
use crate::engine::step::{Event, RuntimeError, Stepper, Work};
use crate::lnt::names::obs_gate;
use crate::lnt::view::monitor;
use crate::model::{Model, Store, VarId};
use std::collections::{BTreeSet, HashMap, HashSet};

/// How many successor expansions the search may make before giving up.
const SEARCH_BUDGET: usize = 2_000_000;

/// The result of a translation.
#[derive(Debug)]
pub struct Translated {
    pub trace: Trace,
    /// The variables whose observation labels constrained the search.
    pub(crate) observed: Vec<VarId>,
    /// Labels that are neither `DONE`, an observation, nor a monitor's mark (ignored).
    pub(crate) ignored_labels: usize,
    /// Observation labels after the last `DONE` (a step that the path does not finish).
    pub(crate) trailing_labels: usize,
}

/// One observed slot of the native layout and the value a label gives it.
type Update = (usize, i32);

/// Reads the labels: the updates between consecutive `DONE`s.
struct Segments {
    /// `segments[0]`: the initialisation; `segments[k]`: the updates of step `k`.
    segments: Vec<Vec<Update>>,
    trailing: usize,
    ignored: usize,
    gates_seen: BTreeSet<VarId>,
}

fn read_segments(model: &Model, stepper: &Stepper, undef: i64, labels: &[String]) -> Result<Segments, TranslateError> {
    let gates: HashMap<String, VarId> = (0..model.vars.len()).map(|v| (obs_gate(model, v), v)).collect();
    let mut segments = vec![];
    let mut cur = vec![];
    let mut ignored = 0;
    let mut gates_seen = BTreeSet::new();
    for label in labels {
        let (gate, offers) = split_label(label);
        if gate == "DONE" {
            segments.push(std::mem::take(&mut cur));
            continue;
        }
        let Some(&v) = gates.get(gate) else {
            // The monitor's marks of a linear-time property's root (`ACC`, `STUCK`) are known
            // labels: the property check finds what they mark again.
            if gate != monitor::ACC && gate != monitor::STUCK {
                ignored += 1;
            }
            continue;
        };
        gates_seen.insert(v);
        let nums: Vec<i64> = offers
            .iter()
            .map(|o| {
                o.parse::<i64>()
                    .map_err(|_| TranslateError::NotAnInteger { label: label.clone(), offer: o.to_string() })
            })
            .collect::<Result<_, _>>()?;
        let var = &model.vars[v];
        let bad = || TranslateError::WrongOffers { label: label.clone(), variable: var.name.clone() };
        let value = |x: i64| -> Result<i32, TranslateError> {
            if x == undef { Ok(BOT) } else { i32::try_from(x).ok().filter(|&y| y != BOT).ok_or_else(bad) }
        };
        let elem = |e: i64| -> Result<usize, TranslateError> {
            usize::try_from(e).ok().filter(|&e| e < var.len).map(|e| var.offset + e).ok_or_else(bad)
        };
        let agent = |a: i64| -> Result<usize, TranslateError> {
            usize::try_from(a).ok().filter(|&a| a < stepper.lay.n_agents).ok_or_else(bad)
        };
        let slot = match (var.store, nums.as_slice()) {
            (Store::Env, [e, x]) => (elem(*e)?, value(*x)?),
            (Store::Attr, [a, e, x]) => (stepper.lay.attr(agent(*a)?, elem(*e)?), value(*x)?),
            (Store::Stig { .. }, [a, e, x]) => (stepper.lay.stig(agent(*a)?, elem(*e)?), value(*x)?),
            _ => return Err(bad()),
        };
        cur.push(slot);
    }
    Ok(Segments { segments, trailing: cur.len(), ignored, gates_seen })
}

/// The native slots of the observed variables (only agents that have them).
fn observed_slots(model: &Model, stepper: &Stepper, observed: &BTreeSet<VarId>) -> Vec<usize> {
    let mut out = vec![];
    for &v in observed {
        let var = &model.vars[v];
        for e in var.offset..var.offset + var.len {
            match var.store {
                Store::Env => out.push(e),
                Store::Attr => {
                    for t in model.agent_types.iter().filter(|t| t.attrs.contains(&v)) {
                        out.extend(t.ids().map(|a| stepper.lay.attr(a, e)));
                    }
                }
                Store::Stig { tuple, .. } => out.extend(stepper.holders[tuple].iter().map(|&a| stepper.lay.stig(a, e))),
            }
        }
    }
    out.sort_unstable();
    out
}

/// Replays `path` (labels of the LNT program of `model`, scheduling `fair`) in the native
/// engine. `undef` is the number the program uses for ⊥ (`UNDEF`); `observed` the variables
/// whose labels were visible (default: those whose gate occurs in the path).
pub fn translate(
    model: &Model,
    behs: &[Behaviour],
    fair: bool,
    undef: i64,
    path: &LabelPath,
    observed: Option<&BTreeSet<VarId>>,
) -> Result<Translated, TranslateError> {
    let stuck = ends_stuck(path);
    let path = stuck.as_ref().unwrap_or(path);
    let end = if path.deadlock { End::Deadlock } else { End::Any };
    translate_to(model, behs, fair, undef, path, observed, &end)
}

/// `path` as a path to a deadlock when it ends with the monitor's `STUCK` label (after its
/// last `DONE`, possibly as a loop on it: the self-loop the monitor offers where a run ending
/// in a deadlock there violates its formula, docs/lnt-encoding.md §2); `None` otherwise.
fn ends_stuck(path: &LabelPath) -> Option<LabelPath> {
    let after = path.labels.iter().rposition(|l| split_label(l).0 == "DONE").map_or(0, |i| i + 1);
    let tail = &path.labels[after..];
    if !tail.iter().any(|l| split_label(l).0 == crate::lnt::view::monitor::STUCK) {
        return None;
    }
    // A loop through a `DONE` is a lasso of the system, whatever follows.
    if path.loop_start.is_some_and(|l| l < after) {
        return None;
    }
    Some(LabelPath { labels: path.labels.clone(), loop_start: None, deadlock: true })
}

/// What the last state of a translated path must be.
pub(crate) enum End<'a> {
    Any,
    /// A native deadlock.
    Deadlock,
    /// A state whose steps or messages meet a run-time error, of the kind the code names when
    /// there is one (an earlier state of the path that meets one ends the path too: it is an
    /// error of the model as well). The kind matters when hidden variables leave several
    /// native states for one path: one may meet another error first (its steps' choices and
    /// branches are tried in order), and the path is the one that meets the error it reports.
    StepError(Option<u32>),
    /// A state where evaluating one of the property's predicates (a scope's, a pattern's, a
    /// formula's atoms included) meets a run-time error.
    PredError(&'a crate::model::Property),
}

/// The run-time error the native engine meets in the steps or messages from `st` that is of
/// the kind `code` names, if there is one (any error when `code` is `None`). Every error of
/// the state counts, not only the first: each route reports the first its own search meets.
fn step_error_of(stepper: &Stepper, st: &[i32], w: &mut Work, code: Option<u32>) -> Option<RuntimeError> {
    stepper
        .step_errors(st, w)
        .into_iter()
        .map(|e| e.error)
        .find(|e| code.is_none_or(|c| crate::lnt::errors::error_code(&e.0) == c))
}

/// The first run-time error that evaluating the predicates of `p` on `st` meets: the native
/// engine evaluates every one of them on every state.
fn pred_error_of(stepper: &Stepper, st: &[i32], p: &crate::model::Property) -> Option<RuntimeError> {
    let mut sc = Default::default();
    p.predicates().into_iter().find_map(|q| crate::engine::eval_pred(stepper, st, &mut sc, q).err())
}

impl End<'_> {
    /// Whether `st` ends a path here.
    fn accepts(&self, stepper: &Stepper, st: &[i32], w: &mut Work) -> Result<bool, TranslateError> {
        Ok(match self {
            End::Any => true,
            End::Deadlock => stepper.is_deadlock(st, w).map_err(|e| TranslateError::Runtime(e.0))?,
            End::StepError(code) => step_error_of(stepper, st, w, *code).is_some(),
            End::PredError(p) => pred_error_of(stepper, st, p).is_some(),
        })
    }
}

/// [`translate`], the last state satisfying `end`.
fn translate_to(
    model: &Model,
    behs: &[Behaviour],
    fair: bool,
    undef: i64,
    path: &LabelPath,
    observed: Option<&BTreeSet<VarId>>,
    end: &End,
) -> Result<Translated, TranslateError> {
    let stepper = Stepper::new(model, behs, fair);
    let seg = read_segments(model, &stepper, undef, &path.labels)?;
    if seg.segments.is_empty() {
        return Err(TranslateError::NoDone);
    }
    let observed_vars = observed.cloned().unwrap_or_else(|| seg.gates_seen.clone());
    let slots = observed_slots(model, &stepper, &observed_vars);
    let targets = observed_after_each_done(&seg.segments, &slots, observed.is_some())?;
    // A lasso: `labels[at..]` repeat forever. When the loop is entered right after a `DONE`,
    // the last state must equal the state that `DONE` reached; otherwise (or if that fails)
    // the loop is unrolled up to its first `DONE`, whose state must come back.
    let mut attempts: Vec<(Vec<Vec<i32>>, Option<usize>)> = vec![];
    match path.loop_start {
        None => attempts.push((targets, None)),
        Some(at) => {
            let dones_before = path.labels[..at].iter().filter(|l| split_label(l).0 == "DONE").count();
            if at > 0 && split_label(&path.labels[at - 1]).0 == "DONE" {
                attempts.push((targets, Some(dones_before - 1)));
            }
            let first_done = path.labels[at..]
                .iter()
                .position(|l| split_label(l).0 == "DONE")
                .ok_or(TranslateError::LoopInsideStep)?;
            let mut unrolled = path.labels.clone();
            unrolled.extend_from_slice(&path.labels[at..=at + first_done]);
            let unrolled = read_segments(model, &stepper, undef, &unrolled)?;
            let targets = observed_after_each_done(&unrolled.segments, &slots, observed.is_some())?;
            // The first `DONE` of the loop reaches state number `dones_before`.
            attempts.push((targets, Some(dones_before)));
            // The labels of the prefix's last step before the loop need not be those the loop
            // ends with (a reduced LTS may enter the loop in the initialisation): then only the
            // second time round does the loop's first `DONE` reach the state it comes back to.
            let mut twice = path.labels.clone();
            twice.extend_from_slice(&path.labels[at..]);
            twice.extend_from_slice(&path.labels[at..=at + first_done]);
            let twice = read_segments(model, &stepper, undef, &twice)?;
            let targets = observed_after_each_done(&twice.segments, &slots, observed.is_some())?;
            let in_loop = path.labels[at..].iter().filter(|l| split_label(l).0 == "DONE").count();
            attempts.push((targets, Some(dones_before + in_loop)));
        }
    }
    let mut last_err = None;
    for (targets, loop_state) in attempts {
        // The native loop of the observed loop's length first (the shortest trace), then one
        // that goes round the observed loop again before it closes.
        let found = search(&stepper, &slots, &targets, loop_state, end, false).or_else(|e| {
            if loop_state.is_some() { search(&stepper, &slots, &targets, loop_state, end, true) } else { Err(e) }
        });
        match found {
            Ok((initial, steps, loop_start)) => {
                let mut trace = Trace { fair, initial, steps, loop_start, ends_in_deadlock: false, marks: vec![] };
                // A path file need not say that it ends in a deadlock (an `.aut` diagnostic
                // cannot): the trace does when its last state has no successor.
                // (A path to a run-time error ends where the error is met, not in a deadlock.)
                trace.ends_in_deadlock = match end {
                    End::Deadlock => true,
                    End::Any if loop_start.is_none() => stepper
                        .is_deadlock(trace.last(), &mut Work::default())
                        .map_err(|e| TranslateError::Runtime(e.0))?,
                    _ => false,
                };
                return Ok(Translated {
                    trace,
                    observed: observed_vars.into_iter().collect(),
                    ignored_labels: seg.ignored,
                    trailing_labels: seg.trailing,
                });
            }
            Err(e) => last_err = Some(e),
        }
    }
    Err(last_err.expect("a path or a lasso gives at least one attempt"))
}

/// The observed valuation (of `slots`) after each `DONE`. Unlabelled observed slots start at 0,
/// as in the MCL queries; the initialisation labels every observed element anyway. With
/// `only_some` (the variables of one property), labels of other variables are ignored: the
/// program observes them for other properties.
fn observed_after_each_done(
    segments: &[Vec<Update>],
    slots: &[usize],
    only_some: bool,
) -> Result<Vec<Vec<i32>>, TranslateError> {
    let mut targets = vec![];
    let mut val: HashMap<usize, i32> = slots.iter().map(|&s| (s, 0)).collect();
    for (k, updates) in segments.iter().enumerate() {
        for &(s, x) in updates {
            match val.get_mut(&s) {
                Some(cur) => *cur = x,
                None if only_some => {}
                None => return Err(TranslateError::UnownedSlot { done: k }),
            }
        }
        targets.push(slots.iter().map(|s| val[s]).collect());
    }
    Ok(targets)
}

/// A native path found by `search`: the initial state, the steps, and the loop's start.
type NativePath = (Vec<i32>, Vec<TraceStep>, Option<usize>);

/// Depth-first search for native states `x_0 … x_m` with `x_0` initial, `x_{k+1}` a successor
/// of `x_k`, and `x_k` agreeing with the observed values `targets[k]` on `slots`:
/// - without a loop, `m = targets.len() - 1`, and `x_m` a deadlock if asked;
/// - for a lasso whose loop starts at `l` (`targets[l..]` repeat forever, `targets[last]` being
///   `targets[l]` again), the native path may go round the observed loop several times before
///   it closes: it ends as soon as some `x_m` equals an earlier `x_j` (`j ≥ l`) at the same
///   place in the observed loop. The observed LTS may be a reduction that merges native states,
///   so its loop need not be a native cycle of the same length; a native lasso that matches
///   the observed loop forever exists exactly when this product of native states and loop
///   positions has a cycle, which a depth-first search finds. Returns `x_0`, the steps and the
///   loop's start `j`.
fn search(
    stepper: &Stepper,
    slots: &[usize],
    targets: &[Vec<i32>],
    loop_state: Option<usize>,
    end: &End,
    round_again: bool,
) -> Result<NativePath, TranslateError> {
    let last = targets.len() - 1;
    // The place in `targets` of depth `k`: past the end, round the loop again.
    let place = |k: usize| match loop_state {
        Some(l) if k >= last && last > l => l + (k - l) % (last - l),
        _ => k,
    };
    let agrees = |st: &[i32], k: usize| slots.iter().zip(&targets[place(k)]).all(|(&s, &x)| st[s] == x);
    let mut w = Work::default();
    let inits: Vec<Vec<i32>> = stepper
        .initial_states()
        .map_err(|e| TranslateError::Runtime(e.0))?
        .into_iter()
        .filter(|s| agrees(s, 0))
        .collect();
    if inits.is_empty() {
        return Err(TranslateError::NoInitialMatch);
    }
    let mut budget = SEARCH_BUDGET;
    // (state, place) pairs from which no completion exists.
    let mut dead_ends: HashSet<(Vec<i32>, usize)> = HashSet::new();
    // Frames: the state at depth k and its not yet tried candidate successors.
    struct Frame {
        state: Vec<i32>,
        event: Option<Event>,
        candidates: Vec<(Event, Vec<i32>)>,
    }
    // The frames at or after the loop's start, by (state, place): where a lasso can close.
    let mut in_loop: HashMap<(Vec<i32>, usize), usize> = HashMap::new();
    let mut deepest = 0;
    for init in inits {
        let mut stack: Vec<Frame> = vec![];
        in_loop.clear();
        let mut next: Option<(Option<Event>, Vec<i32>)> = Some((None, init));
        loop {
            if let Some((event, state)) = next.take() {
                let k = stack.len();
                deepest = deepest.max(k.min(last));
                let closes = match loop_state {
                    Some(l) if k > l => in_loop.get(&(state.clone(), place(k))).copied(),
                    Some(l) if k == l && l == last => Some(k),
                    _ => None,
                };
                let ends = loop_state.is_none() && k == last && end.accepts(stepper, &state, &mut w)?;
                // A state before the end that meets a run-time error ends a path to an error.
                let fails_early = match end {
                    End::StepError(code) => k < last && step_error_of(stepper, &state, &mut w, *code).is_some(),
                    _ => false,
                };
                if closes.is_some() || ends || fails_early {
                    let initial = if stack.is_empty() { state.clone() } else { stack[0].state.clone() };
                    let mut steps: Vec<TraceStep> = stack
                        .iter()
                        .skip(1)
                        .map(|f| TraceStep { event: f.event.clone().expect("event"), state: f.state.clone() })
                        .collect();
                    if let Some(ev) = event {
                        steps.push(TraceStep { event: ev, state });
                    }
                    return Ok((initial, steps, closes));
                }
                let expand = k < last || (loop_state.is_some() && round_again);
                if !expand {
                    dead_ends.insert((state, place(k)));
                } else {
                    if budget == 0 {
                        return Err(TranslateError::SearchBudget { expansions: SEARCH_BUDGET });
                    }
                    budget -= 1;
                    let mut candidates = vec![];
                    // The path's step may leave a state where another step fails (D9).
                    stepper.successors_past_errors(&state, &mut w, &mut |ev, s| {
                        if agrees(s, k + 1) && !dead_ends.contains(&(s.to_vec(), place(k + 1))) {
                            candidates.push((ev.expect("event"), s.to_vec()));
                        }
                    });
                    candidates.reverse();
                    if loop_state.is_some_and(|l| k >= l) {
                        in_loop.insert((state.clone(), place(k)), k);
                    }
                    stack.push(Frame { state, event, candidates });
                }
            }
            let Some(top) = stack.last_mut() else { break };
            match top.candidates.pop() {
                Some((ev, s)) => {
                    if !dead_ends.contains(&(s.clone(), place(stack.len()))) {
                        next = Some((Some(ev), s));
                    }
                }
                None => {
                    let f = stack.pop().expect("non-empty");
                    let k = stack.len();
                    in_loop.remove(&(f.state.clone(), place(k)));
                    dead_ends.insert((f.state, place(k)));
                }
            }
        }
    }
    Err(TranslateError::Unmatched { step: (deepest != last).then_some(deepest + 1), fair: stepper.fair })
}

/// A back end's path to a run-time error of the model (its last `DONE` reaches the state
/// where the error is met; `site` says where), as the native engine reports it: the native
/// message, checked to be an error of the kind `code` names (the code of the path's `ERR`
/// label, when it has one), and the translated, replayed trace that reaches it (`None` for an error while
/// computing the initial states, where the path has no `DONE`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn runtime_error(
    model: &Model,
    behs: &[Behaviour],
    fair: bool,
    undef: i64,
    path: &LabelPath,
    observed: &BTreeSet<VarId>,
    site: &End,
    code: Option<u32>,
) -> Result<(String, Option<Trace>), CounterexampleError> {
    use crate::lnt::errors::{error_code, error_kind};
    let stepper = Stepper::new(model, behs, fair);
    let check_kind = |message: &str| match code {
        Some(c) if error_code(message) != c => Err(CounterexampleError::NoError {
            expected: format!("{}, but the native engine reports: {message}", error_kind(c).unwrap_or("an error")),
        }),
        _ => Ok(()),
    };
    if !path.labels.iter().any(|l| split_label(l).0 == "DONE") {
        return match stepper.initial_states() {
            Err(e) => {
                check_kind(&e.0)?;
                Ok((e.0, None))
            }
            Ok(_) => {
                Err(CounterexampleError::NoError { expected: "an error while computing the initial states".into() })
            }
        };
    }
    let mut path = path.clone();
    path.deadlock = false;
    path.loop_start = None;
    let t = translate_to(model, behs, fair, undef, &path, Some(observed), site)
        .map_err(CounterexampleError::Untranslatable)?
        .trace;
    super::replay(model, behs, &t).map_err(CounterexampleError::NoReplay)?;
    let message = match site {
        End::PredError(p) => pred_error_of(&stepper, t.last(), p),
        _ => step_error_of(&stepper, t.last(), &mut Work::default(), code),
    }
    .map(|e| e.0)
    .ok_or_else(|| CounterexampleError::NoError { expected: "a run-time error at the end of the path".into() })?;
    check_kind(&message)?;
    Ok((message, Some(t)))
}

/// What a trace shows about one property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shows {
    /// A violation: of `always` at state `at` (0 = initial); of `finally` by a lasso or a
    /// deadlock whose states never satisfy the predicate (`at` = the last state).
    Violation { at: usize },
    /// The trace does not show a violation.
    NoViolation,
    /// One path cannot show a violation of this modality (`fairly`, `fairly_inf` need the
    /// states reachable from the path; a finite path that is not a run decides no linear-time
    /// property).
    NotDecidable,
}

/// Evaluates `p` along `trace` (the check a counterexample from CADP must pass).
pub fn shows(
    model: &Model,
    behs: &[Behaviour],
    trace: &Trace,
    p: &crate::model::Property,
) -> Result<Shows, RuntimeError> {
    use crate::model::Modality;
    let stepper = Stepper::new(model, behs, trace.fair);
    let mut sc = Default::default();
    let holds = |k: usize, sc: &mut _| crate::engine::eval_pred(&stepper, trace.state(k), sc, &p.pred);
    match p.modality {
        Modality::Always => {
            for k in 0..=trace.len() {
                if !holds(k, &mut sc)? {
                    return Ok(Shows::Violation { at: k });
                }
            }
            Ok(Shows::NoViolation)
        }
        Modality::Finally => {
            for k in 0..=trace.len() {
                if holds(k, &mut sc)? {
                    return Ok(Shows::NoViolation);
                }
            }
            let complete = trace.loop_start.is_some() || trace.ends_in_deadlock;
            Ok(if complete { Shows::Violation { at: trace.len() } } else { Shows::NoViolation })
        }
        Modality::Ltl(_) | Modality::Between { .. } | Modality::FromUntil { .. } => {
            let f = formula_of(p).expect("a linear-time property");
            let f = &f;
            let atoms = f.atoms();
            // A bad prefix within the trace: a violation whatever follows it.
            if let Some(pre) = Prefixes::new(f, crate::engine::ltl::Watch::NONE) {
                let mut t = trace.clone();
                let mut sc = Default::default();
                let bad = bad_prefix::cut(&pre, &mut t, &mut |k, st| crate::engine::eval_pred(&stepper, st, &mut sc, atoms[k]))?;
                if let Some(at) = bad.filter(|&at| at <= trace.len()) {
                    return Ok(Shows::Violation { at });
                }
            }
            // A run: a lasso (its last state is the loop's first) or a run ending in a
            // deadlock (its last state repeats); another finite trace decides nothing.
            let (n, loop_start) = match trace.loop_start {
                Some(l) => (trace.len(), Some(l)),
                None if trace.ends_in_deadlock => (trace.len() + 1, None),
                None => return Ok(Shows::NotDecidable),
            };
            let mut bits = vec![Vec::with_capacity(n); atoms.len()];
            for (q, v) in atoms.iter().zip(&mut bits) {
                for k in 0..n {
                    v.push(crate::engine::eval_pred(&stepper, trace.state(k), &mut sc, q)?);
                }
            }
            let holds = crate::engine::ltl::holds_on_lasso(f, n, loop_start, &|a, k| bits[a][k]);
            Ok(if holds { Shows::NoViolation } else { Shows::Violation { at: trace.len() } })
        }
        _ => Ok(Shows::NotDecidable),
    }
}

/// Why a back end's counterexample cannot be shown to the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CounterexampleError {
    /// No native path has the observed values of the labels.
    Untranslatable(TranslateError),
    /// The translated trace fails the independent replay.
    NoReplay(ReplayError),
    /// The trace replays but does not violate the property.
    NoViolation { property: String, modality: String },
    /// Evaluating the property along the trace raised a run-time error of the model.
    Runtime(RuntimeError),
    /// The property's query cannot be built, so its observed variables are unknown.
    Query(String),
    /// A path to a run-time error reaches no native one (`expected` says which).
    NoError { expected: String },
}

impl std::fmt::Display for CounterexampleError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            CounterexampleError::Untranslatable(m) => write!(f, "cannot be replayed in the native engine: {m}"),
            CounterexampleError::NoReplay(m) => write!(f, "translates to a trace that does not replay: {m}"),
            CounterexampleError::NoViolation { property, modality } => {
                write!(f, "does not show a violation of {property} ({modality})")
            }
            CounterexampleError::Runtime(m) => write!(f, "run-time error of the model: {}", m.0),
            CounterexampleError::Query(m) => write!(f, "{m}"),
            CounterexampleError::NoError { expected } => {
                write!(f, "does not reach a run-time error: expected {expected}")
            }
        }
    }
}

/// A label path translated into a LAbS trace that passed `replay`, and what it shows about
/// the property it was read for.
#[derive(Debug)]
pub struct CheckedTrace {
    pub translated: Translated,
    /// `None` when no property was given.
    pub shows: Option<Shows>,
}

/// `path` translated (see `translate`), replayed by the independent checker, and with `prop`
/// evaluated along it.
pub(crate) fn checked(
    model: &Model,
    behs: &[Behaviour],
    fair: bool,
    undef: i64,
    path: &LabelPath,
    observed: Option<&BTreeSet<VarId>>,
    prop: Option<&crate::model::Property>,
) -> Result<CheckedTrace, CounterexampleError> {
    let translated =
        translate(model, behs, fair, undef, path, observed).map_err(CounterexampleError::Untranslatable)?;
    super::replay(model, behs, &translated.trace).map_err(CounterexampleError::NoReplay)?;
    let shows = match prop {
        None => None,
        Some(p) => Some(shows(model, behs, &translated.trace, p).map_err(CounterexampleError::Runtime)?),
    };
    Ok(CheckedTrace { translated, shows })
}

/// A back end's counterexample of `prop` (a path of LNT labels in which the variables
/// `observed` are labelled) as the LAbS trace the user sees: translated, replayed by the
/// independent checker, required to show the violation, and marked as the native engine marks
/// its counterexamples (`<property violated: P>` after the last state). An `always`
/// counterexample is cut at its first violating state.
pub(crate) fn counterexample(
    model: &Model,
    behs: &[Behaviour],
    fair: bool,
    undef: i64,
    path: &LabelPath,
    observed: &BTreeSet<VarId>,
    prop: &crate::model::Property,
) -> Result<Trace, CounterexampleError> {
    let c = checked(model, behs, fair, undef, path, Some(observed), Some(prop))?;
    let mut t = c.translated.trace;
    match c.shows {
        Some(Shows::NoViolation) => {
            return Err(CounterexampleError::NoViolation {
                property: prop.name.clone(),
                modality: prop.keyword.clone(),
            });
        }
        Some(Shows::Violation { at }) if at < t.len() => {
            t.steps.truncate(at);
            t.loop_start = None;
            t.ends_in_deadlock = false;
        }
        _ => {}
    }
    // A linear-time violation with a bad prefix is that finite path (a lasso unrolled when
    // the prefix turns bad in a later round of its loop).
    if let Some(f) = formula_of(prop)
        && let Some(pre) = Prefixes::new(&f, crate::engine::ltl::Watch::NONE)
    {
        let stepper = Stepper::new(model, behs, fair);
        let atoms = f.atoms();
        let mut sc = Default::default();
        bad_prefix::cut(&pre, &mut t, &mut |k, st| crate::engine::eval_pred(&stepper, st, &mut sc, atoms[k]))
            .map_err(CounterexampleError::Runtime)?;
    }
    t.marks.push(super::Mark { at: t.len(), property: prop.name.clone(), status: "violated".into() });
    Ok(t)
}

/// The linear-time formula of a property: its own, or a scoped pattern's (docs/semantics.md,
/// "Scoped patterns as linear-time formulas"); `None` for the other modalities.
fn formula_of(p: &crate::model::Property) -> Option<crate::syntax::ltl::Ltl<crate::model::QPred>> {
    use crate::model::Modality;
    match &p.modality {
        Modality::Ltl(f) => Some(f.clone()),
        m @ (Modality::Between { .. } | Modality::FromUntil { .. }) => crate::model::scoped::as_ltl(m, &p.pred),
        _ => None,
    }
}
