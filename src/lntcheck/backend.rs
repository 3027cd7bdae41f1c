//! The `lnt` back end: the emitted LNT program run by the interpreter, LAbS valuations
//! reconstructed from the observation labels, properties checked by the native checker.
//!
//! LAbS states are the LTS states reached by a `DONE` transition ("real" states). A LAbS step
//! from real state `r` is any sequence of non-`DONE` transitions from `r` followed by one
//! `DONE` (docs/lntcheck.md, "From LTS to LAbS states").

use super::LntcheckError;
#[cfg(feature = "test-support")]
use super::interp::{self, GenOptions, Net, SysState};
use super::lts::Lts;
use super::sem::{Program, Value};
use crate::analysis::values::ValueAnalysis;
use crate::behaviour::Behaviour;
use crate::engine::check::Outcome;
use crate::engine::explore::{Graph, NO_PARENT};
use crate::engine::state::{BOT, Layout, StateStore};
use crate::engine::step::Stepper;
use crate::engine::{Verdict, eval_pred};
use crate::lnt::{self, Dialect, EmitOptions};
use crate::model::{Model, Store};
use std::collections::HashMap;
#[cfg(feature = "test-support")]
use std::collections::BTreeSet;

/// Emits the LNT program of a model (all properties), as text.
pub fn emit_lnt(
    model: &Model,
    behs: &[Behaviour],
    analysis: &ValueAnalysis,
    stem: &str,
    fair: bool,
    dialect: Dialect,
) -> Result<String, LntcheckError> {
    let opts = EmitOptions {
        fair,
        properties: vec![],
        dialect,
        dialect_reason: String::new(),
        base: lnt::names::module_name(stem),
        source: stem.to_string(),
        usage: None,
    };
    let files = lnt::emit(model, behs, analysis, &opts).map_err(|e| LntcheckError::Program(e.message))?;
    files
        .into_iter()
        .find(|f| f.name.ends_with(".lnt"))
        .map(|f| f.contents)
        .ok_or_else(|| LntcheckError::Program("no .lnt file".into()))
}

/// The LTS of `MAIN` seen as a LAbS state graph. The fields only the differential tests read
/// (the LTS itself, `from_vars`, `errors`, `observed`) exist with the `test-support` feature.
pub struct LabsView {
    #[cfg(feature = "test-support")]
    pub lts: Lts,
    /// LTS state of each real state (real states numbered in BFS order of the LAbS graph).
    pub real: Vec<u32>,
    pub(crate) n_initial: usize,
    /// Successor real states (sorted, distinct).
    pub(crate) succ: Vec<Vec<u32>>,
    /// BFS parent in the LAbS graph.
    pub(crate) parent: Vec<u32>,
    /// Valuation (native layout) of each real state from the observation labels (unobserved
    /// slots 0).
    pub(crate) from_labels: Vec<Vec<i32>>,
    /// Valuation (native layout) read from the processes' variables (`I`, `L`, `E`).
    #[cfg(feature = "test-support")]
    pub(crate) from_vars: Vec<Vec<i32>>,
    /// LTS states with no outgoing transition that are not real states and that no `ERR`
    /// label reaches (a step that cannot complete: an encoding error).
    pub(crate) stuck: Vec<u32>,
    /// The real states (numbers) from which a step reaches an `ERR` label (a run-time error
    /// of the model), with that label.
    #[cfg(feature = "test-support")]
    pub errors: Vec<(u32, String)>,
    /// The observed variables (from `MAIN`'s gates).
    #[cfg(feature = "test-support")]
    pub observed: BTreeSet<usize>,
}

#[cfg(feature = "test-support")]
fn to_i32(v: &Value, undef: i64) -> i32 {
    match v {
        Value::I(i) if *i == undef => BOT,
        Value::I(i) => *i as i32,
        Value::B(b) => *b as i32,
        _ => 0,
    }
}

/// Valuation in native layout from the processes' variables.
#[cfg(feature = "test-support")]
fn vars_valuation(_p: &Program, net: &Net, model: &Model, lay: &Layout, st: &SysState, undef: i64) -> Vec<i32> {
    let mut out = vec![0i32; lay.len];
    for (k, l) in net.leaves.iter().enumerate() {
        let slot = |n: &str| l.proc.slot_names.iter().position(|x| x == n);
        let arr = |n: &str| -> Option<Vec<Value>> {
            match slot(n).and_then(|s| st[k].env.get(s).cloned().flatten()) {
                Some(Value::A(xs)) => Some(xs.to_vec()),
                _ => None,
            }
        };
        if l.proc.name.starts_with("Agent_") {
            let Some(Value::I(id)) = l.args.first() else { continue };
            let a = *id as usize;
            let ty = model.agent_types.iter().position(|t| t.ids().contains(&a));
            let (iv, lv) = (arr("I"), arr("L"));
            for (v, var) in model.vars.iter().enumerate() {
                for e in 0..var.len {
                    match var.store {
                        Store::Attr if ty.is_some_and(|t| model.agent_types[t].attrs.contains(&v)) => {
                            if let Some(x) = iv.as_ref().and_then(|x| x.get(var.offset + e)) {
                                out[lay.attr(a, var.offset + e)] = to_i32(x, undef);
                            }
                        }
                        Store::Stig { stigmergy, .. } if ty.is_some_and(|t| model.holds(t, stigmergy)) => {
                            if let Some(x) = lv.as_ref().and_then(|x| x.get(var.offset + e)) {
                                out[lay.stig(a, var.offset + e)] = to_i32(x, undef);
                            }
                        }
                        _ => {}
                    }
                }
            }
        } else if l.proc.name == "Env"
            && let Some(ev) = arr("E")
        {
            for var in model.vars.iter().filter(|v| v.store == Store::Env) {
                for e in 0..var.len {
                    if let Some(x) = ev.get(var.offset + e) {
                        out[var.offset + e] = to_i32(x, undef);
                    }
                }
            }
        }
    }
    out
}

/// The value of the program's `UNDEF` constant (⊥), or `i64::MIN` without one.
pub(crate) fn undef_value(prog: &Program) -> i64 {
    match prog.func_ids.get("UNDEF") {
        Some(f) => match (super::eval::Ev { p: prog, depth: 0 }).call(*f, vec![], Default::default()) {
            Ok((Some(Value::I(u)), _)) => u,
            _ => i64::MIN,
        },
        None => i64::MIN,
    }
}

/// Runs the emitted program and builds the LAbS view of its LTS, with the valuations read
/// from the processes' variables (`from_vars`) beside those of the labels: the differential
/// tests' view of the whole program (the back end composes an SVL script instead).
#[cfg(feature = "test-support")]
pub fn explore(model: &Model, src: &str, fair: bool, max_states: Option<u64>) -> Result<LabsView, LntcheckError> {
    let emitted = |d: super::Located| LntcheckError::Program(format!("emitted LNT:{}", d.in_text(src)));
    let prog = super::load(src, None).map_err(emitted)?;
    if let Some(d) = super::check::check(&prog).into_iter().next() {
        return Err(emitted(d));
    }
    let net = interp::build_net(&prog, "MAIN").map_err(emitted)?;
    let (lts, states) =
        interp::generate(&prog, &net, &GenOptions { max_states, ..Default::default() })
            .map_err(emitted)?;
    let undef = undef_value(&prog);
    let main_gates: Vec<String> = prog
        .module
        .procs
        .iter()
        .find(|p| p.name == "MAIN")
        .map(|p| p.gates.iter().map(|g| g.0.to_ascii_uppercase()).collect())
        .unwrap_or_default();
    let mut v = labs_view(model, fair, lts, &main_gates, undef)?;
    let lay = Layout::new(model, fair);
    v.from_vars =
        v.real.iter().map(|&s| vars_valuation(&prog, &net, model, &lay, &states.get(s), undef)).collect();
    Ok(v)
}

/// The LAbS view of an explicit LTS whose visible observation gates are among `gates` (any
/// other label is not an observation); `from_vars` is left empty.
pub(crate) fn labs_view(
    model: &Model,
    fair: bool,
    lts: Lts,
    gates: &[String],
    undef: i64,
) -> Result<LabsView, LntcheckError> {
    let lay = Layout::new(model, fair);
    // observation gates
    let mut obs: HashMap<String, usize> = HashMap::new();
    for v in 0..model.vars.len() {
        let g = lnt::names::obs_gate(model, v);
        if gates.contains(&g) {
            obs.insert(g, v);
        }
    }
    #[cfg(feature = "test-support")]
    let observed: BTreeSet<usize> = obs.values().copied().collect();
    // real states: targets of DONE; LAbS steps: non-DONE paths ending with DONE. The observed
    // valuation is carried along the paths (an intermediate state may be reached with
    // different pending observations; a real state must not).
    let adj = lts.adjacency();
    let n = lts.nstates;
    let apply = |cur: &Vec<i32>, lab: &str| -> Result<Vec<i32>, LntcheckError> {
        let mut nv = cur.clone();
        if let Some(&v) = obs.get(Lts::gate(lab)) {
            let nums: Vec<i64> = lab.split(" !").skip(1).filter_map(|x| x.parse().ok()).collect();
            let var = &model.vars[v];
            let conv = |x: i64| if x == undef { BOT } else { x as i32 };
            match (var.store, nums.as_slice()) {
                (Store::Env, [e, x]) => nv[var.offset + *e as usize] = conv(*x),
                (Store::Attr, [a, e, x]) => nv[lay.attr(*a as usize, var.offset + *e as usize)] = conv(*x),
                (Store::Stig { .. }, [a, e, x]) => nv[lay.stig(*a as usize, var.offset + *e as usize)] = conv(*x),
                _ => return Err(LntcheckError::Encoding(format!("observation label `{lab}`: unexpected offers"))),
            }
        }
        Ok(nv)
    };
    let done_targets =
        |from: u32, val: &Vec<i32>, errs: &mut Vec<String>| -> Result<Vec<(u32, Vec<i32>)>, LntcheckError> {
            let mut stack = vec![(from, val.clone())];
            let mut out = vec![];
            let mut visited: std::collections::HashSet<(u32, Vec<i32>)> = [(from, val.clone())].into_iter().collect();
            while let Some((s, v)) = stack.pop() {
                for (l, t) in &adj[s as usize] {
                    let lab = lts.label(*l);
                    let nv = apply(&v, lab)?;
                    if Lts::gate(lab) == "ERR" && !errs.iter().any(|e| e == lab) {
                        errs.push(lab.to_string());
                    }
                    if lab == "DONE" {
                        out.push((*t, nv));
                    } else if visited.insert((*t, nv.clone())) {
                        stack.push((*t, nv));
                    }
                }
            }
            out.sort();
            out.dedup();
            Ok(out)
        };
    let mut index: HashMap<u32, u32> = HashMap::new();
    let mut real: Vec<u32> = vec![];
    let mut from_labels: Vec<Vec<i32>> = vec![];
    let mut parent = vec![];
    let mut add = |t: u32,
                   nv: Vec<i32>,
                   par: u32,
                   real: &mut Vec<u32>,
                   from_labels: &mut Vec<Vec<i32>>|
     -> Result<u32, LntcheckError> {
        match index.get(&t) {
            Some(x) => {
                if from_labels[*x as usize] != nv {
                    return Err(LntcheckError::Encoding(format!(
                        "LTS state {t} (reached by DONE) is reached with two different observed valuations"
                    )));
                }
                Ok(*x)
            }
            None => {
                let x = real.len() as u32;
                index.insert(t, x);
                real.push(t);
                from_labels.push(nv);
                parent.push(par);
                Ok(x)
            }
        }
    };
    let mut init_errs = vec![];
    for (t, nv) in done_targets(0, &vec![0; lay.len], &mut init_errs)? {
        add(t, nv, NO_PARENT, &mut real, &mut from_labels)?;
    }
    let n_initial = real.len();
    let mut succ: Vec<Vec<u32>> = vec![];
    let mut errors: Vec<(u32, String)> = vec![];
    let mut i = 0;
    while i < real.len() {
        let mut out = vec![];
        let mut errs = vec![];
        for (t, nv) in done_targets(real[i], &from_labels[i].clone(), &mut errs)? {
            out.push(add(t, nv, i as u32, &mut real, &mut from_labels)?);
        }
        out.sort_unstable();
        out.dedup();
        succ.push(out);
        errors.extend(errs.into_iter().map(|e| (i as u32, e)));
        i += 1;
    }
    let is_real: std::collections::HashSet<u32> = real.iter().copied().collect();
    let after_err: std::collections::HashSet<u32> =
        lts.trans.iter().filter(|(_, l, _)| Lts::gate(lts.label(*l)) == "ERR").map(|(_, _, t)| *t).collect();
    let stuck: Vec<u32> = (0..n as u32)
        .filter(|s| adj[*s as usize].is_empty() && !is_real.contains(s) && !after_err.contains(s))
        .collect();
    let _ = init_errs;
    Ok(LabsView {
        #[cfg(feature = "test-support")]
        lts,
        real,
        n_initial,
        succ,
        parent,
        from_labels,
        #[cfg(feature = "test-support")]
        from_vars: vec![],
        stuck,
        #[cfg(feature = "test-support")]
        errors,
        #[cfg(feature = "test-support")]
        observed,
    })
}

/// The LAbS graph as the native engine's `Graph` (valuations from the labels; the last slot
/// holds the real-state number so that no two states merge).
pub(crate) fn to_graph(v: &LabsView, stride: usize) -> Graph {
    let mut store = StateStore::new(stride + 1);
    for (i, val) in v.from_labels.iter().enumerate() {
        let mut row = val.clone();
        row.resize(stride, 0);
        row.push(i as i32);
        store.insert(&row);
    }
    let mut succ_off = vec![0u64];
    let mut succ = vec![];
    let mut deadlocks = 0;
    for s in &v.succ {
        succ.extend(s);
        succ_off.push(succ.len() as u64);
        if s.is_empty() {
            deadlocks += 1;
        }
    }
    Graph {
        store,
        parent: v.parent.clone().into(),
        n_initial: v.n_initial,
        succ_off: succ_off.into(),
        transitions: succ.len() as u64,
        succ: succ.into(),
        deadlocks,
        expanded: v.real.len(),
        has_edges: true,
        edges_dropped_at: None,
        compacted_at: None,
        stopped: None,
        error: None,
        decided_early: false,
        seconds: 0.0,
        free: Vec::new(),
        lassos: 0,
    }
}

/// The native checker's outcome of each property of the model on the LAbS view.
fn outcomes(model: &Model, behs: &[Behaviour], fair: bool, v: &LabsView) -> Result<Vec<Outcome>, LntcheckError> {
    let stepper = Stepper::new(model, behs, fair);
    let g = to_graph(v, stepper.lay.len);
    let mut sc = Default::default();
    let mut ev = |q: &crate::model::QPred| -> Result<Vec<bool>, LntcheckError> {
        v.from_labels
            .iter()
            .map(|st| eval_pred(&stepper, st, &mut sc, q).map_err(|e| LntcheckError::Native(e.0)))
            .collect()
    };
    let none = crate::limits::Limits::none();
    model.properties.iter().map(|p| crate::engine::check_property(&g, p, &mut ev, &none)).collect()
}

/// The verdict of each property of the model on the LAbS view, by the native checker.
pub(crate) fn check_verdicts(
    model: &Model,
    behs: &[Behaviour],
    fair: bool,
    v: &LabsView,
) -> Result<Vec<Verdict>, LntcheckError> {
    let verdict = |o: &Outcome| match o {
        Outcome::Holds => Verdict::Holds,
        Outcome::Violated(_) => Verdict::Violated,
        Outcome::Unknown => Verdict::Unknown,
    };
    Ok(outcomes(model, behs, fair, v)?.iter().map(verdict).collect())
}

/// One property's verdict with the LAbS path of its counterexample (real-state numbers).
#[cfg(feature = "test-support")]
pub struct LntResult {
    pub property: String,
    pub verdict: Verdict,
    pub path: Option<Vec<u32>>,
    pub loop_start: Option<usize>,
    pub deadlock: bool,
}

/// Checks every property of the model on the LAbS view, with the native checker; the
/// counterexamples are the test data of the trace translation.
#[cfg(feature = "test-support")]
pub fn check_properties(
    model: &Model,
    behs: &[Behaviour],
    fair: bool,
    v: &LabsView,
) -> Result<Vec<LntResult>, LntcheckError> {
    let results = model.properties.iter().zip(outcomes(model, behs, fair, v)?);
    Ok(results
        .map(|(p, outcome)| {
            let property = p.name.clone();
            match outcome {
                Outcome::Holds => {
                    LntResult { property, verdict: Verdict::Holds, path: None, loop_start: None, deadlock: false }
                }
                Outcome::Unknown => {
                    LntResult { property, verdict: Verdict::Unknown, path: None, loop_start: None, deadlock: false }
                }
                Outcome::Violated(c) => LntResult {
                    property,
                    verdict: Verdict::Violated,
                    path: Some(c.path),
                    loop_start: c.loop_start,
                    deadlock: c.deadlock,
                },
            }
        })
        .collect())
}
