//! Differential comparison of the native engine and the `lnt` back end on one spec: verdicts,
//! reachable LAbS valuations, and counterexamples replayed on the other side.

use super::LntcheckError;
use super::backend::{self, LabsView};
use crate::analysis::values::analyse;
use crate::behaviour::Behaviour;
use crate::engine::explore::{ExploreOptions, Graph, explore};
use crate::engine::state::Layout;
use crate::engine::step::Stepper;
use crate::engine::{Verdict, VerifyOptions, verify};
use crate::lnt::Dialect;
use crate::model::{Model, Store};
use std::collections::BTreeSet;

#[derive(Debug, Default)]
pub struct DiffReport {
    pub native: Vec<(String, Verdict)>,
    pub lnt: Vec<(String, Verdict)>,
    pub native_states: usize,
    pub lnt_lts_states: usize,
    pub lnt_labs_states: usize,
    pub native_valuations: usize,
    pub lnt_valuations: usize,
    /// Every disagreement found (empty: the back ends agree).
    pub problems: Vec<String>,
}

/// Masks the slots a valuation comparison ignores (variables a type does not have, control).
fn valuation_mask(model: &Model, lay: &Layout) -> Vec<bool> {
    let mut m = vec![false; lay.len];
    for v in 0..model.vars.len() {
        for (k, b) in valuation_mask_var(model, lay, v).into_iter().enumerate() {
            m[k] |= b;
        }
    }
    m
}

/// The slots of variable `v` (in every agent whose type has it).
fn valuation_mask_var(model: &Model, lay: &Layout, v: usize) -> Vec<bool> {
    let mut m = vec![false; lay.len];
    {
        let var = &model.vars[v];
        for e in 0..var.len {
            match var.store {
                Store::Env => m[var.offset + e] = true,
                Store::Attr | Store::Stig { .. } => {
                    for (t, ty) in model.agent_types.iter().enumerate() {
                        let has = match var.store {
                            Store::Attr => ty.attrs.contains(&v),
                            Store::Stig { stigmergy, .. } => model.holds(t, stigmergy),
                            Store::Env => false,
                        };
                        if has {
                            for a in ty.ids() {
                                let at = if var.store == Store::Attr {
                                    lay.attr(a, var.offset + e)
                                } else {
                                    lay.stig(a, var.offset + e)
                                };
                                m[at] = true;
                            }
                        }
                    }
                }
            }
        }
    }
    m
}

fn masked(v: &[i32], m: &[bool]) -> Vec<i32> {
    v.iter().zip(m).map(|(x, k)| if *k { *x } else { 0 }).collect()
}

/// Whether `seq` (masked valuations) is a path of `succ` from one of `init`.
fn accepts(seq: &[Vec<i32>], init: &[u32], succ: &dyn Fn(u32) -> Vec<u32>, val: &dyn Fn(u32) -> Vec<i32>) -> bool {
    let Some(first) = seq.first() else { return true };
    let mut cur: BTreeSet<u32> = init.iter().copied().filter(|s| &val(*s) == first).collect();
    for v in &seq[1..] {
        let mut next = BTreeSet::new();
        for s in &cur {
            for t in succ(*s) {
                if &val(t) == v {
                    next.insert(t);
                }
            }
        }
        cur = next;
        if cur.is_empty() {
            return false;
        }
    }
    !cur.is_empty()
}

pub fn differential(
    model: &Model,
    behs: &[Behaviour],
    stem: &str,
    fair: bool,
    dialect: Dialect,
    max_states: Option<u64>,
) -> Result<DiffReport, LntcheckError> {
    let mut r = DiffReport::default();
    // native
    let opts = VerifyOptions {
        fair,
        properties: None,
        threads: 1,
        max_states,
        check_analysis: true,
        exhaustive: true,
        ..Default::default()
    };
    let rep = verify(model, behs, &opts).map_err(|e| LntcheckError::Native(format!("native: {e:?}")))?;
    let stepper = Stepper::new(model, behs, fair);
    let init = stepper.initial_states().map_err(|e| LntcheckError::Native(e.0))?;
    let g: Graph =
        explore(&stepper, &init, &ExploreOptions { threads: 1, max_states, keep_edges: true, ..Default::default() });
    let lay = Layout::new(model, fair);
    let mask = valuation_mask(model, &lay);
    r.native = rep.results.iter().map(|p| (p.property.clone(), p.verdict)).collect();
    r.native_states = g.states();
    // lnt
    let analysis = analyse(model, behs);
    let src = backend::emit_lnt(model, behs, &analysis, stem, fair, dialect)?;
    let view: LabsView = backend::explore(model, &src, fair, max_states)?;
    let res = backend::check_properties(model, behs, fair, &view)?;
    r.lnt = res.iter().map(|p| (p.property.clone(), p.verdict)).collect();
    r.lnt_lts_states = view.lts.nstates;
    r.lnt_labs_states = view.real.len();
    if !view.stuck.is_empty() {
        r.problems.push(format!(
            "{} LTS states block in the middle of a step (e.g. {})",
            view.stuck.len(),
            view.stuck[0]
        ));
    }
    if let Some((s, label)) = view.errors.first() {
        r.problems.push(format!("the LNT LTS reports a run-time error ({label}) from LAbS state {s}"));
    }
    for ((pn, vn), (_, vl)) in r.native.iter().zip(&r.lnt) {
        if vn != vl {
            r.problems.push(format!("property {pn}: native {} but lnt {}", vn.as_str(), vl.as_str()));
        }
    }
    // reachable valuations
    let nat: BTreeSet<Vec<i32>> = (0..g.states() as u32).map(|i| masked(&g.store.get(i), &mask)).collect();
    let lnt: BTreeSet<Vec<i32>> = view.from_vars.iter().map(|v| masked(v, &mask)).collect();
    r.native_valuations = nat.len();
    r.lnt_valuations = lnt.len();
    if let Some(v) = nat.difference(&lnt).next() {
        r.problems.push(format!("valuation reachable natively but not in the LNT LTS: {v:?}"));
    }
    if let Some(v) = lnt.difference(&nat).next() {
        r.problems.push(format!("valuation reachable in the LNT LTS but not natively: {v:?}"));
    }
    // the observation labels agree with the variables
    let mut omask = vec![false; lay.len];
    for v in &view.observed {
        let one = valuation_mask_var(model, &lay, *v);
        for (k, b) in one.iter().enumerate() {
            omask[k] |= *b;
        }
    }
    for (i, (a, b)) in view.from_labels.iter().zip(&view.from_vars).enumerate() {
        if masked(a, &omask) != masked(b, &omask) {
            r.problems.push(format!("LAbS state {i}: observation labels {a:?} disagree with the variables {b:?}"));
            break;
        }
    }
    // counterexamples, both ways
    let lnt_succ = |s: u32| view.succ[s as usize].clone();
    let lnt_val = |s: u32| masked(&view.from_vars[s as usize], &mask);
    let lnt_init: Vec<u32> = (0..view.n_initial as u32).collect();
    for p in &rep.results {
        if let Some(t) = &p.trace {
            let mut seq = vec![masked(&t.initial, &mask)];
            seq.extend(t.steps.iter().map(|s| masked(&s.state, &mask)));
            if !accepts(&seq, &lnt_init, &lnt_succ, &lnt_val) {
                r.problems.push(format!("native counterexample of {} is not a path of the LNT LTS", p.property));
            }
        }
    }
    let nat_succ = |s: u32| if g.is_expanded(s) { g.succs(s).to_vec() } else { vec![] };
    let nat_val = |s: u32| masked(&g.store.get(s), &mask);
    let nat_init: Vec<u32> = (0..g.n_initial as u32).collect();
    for p in &res {
        if let Some(path) = &p.path {
            let seq: Vec<Vec<i32>> = path.iter().map(|&s| lnt_val(s)).collect();
            if !accepts(&seq, &nat_init, &nat_succ, &nat_val) {
                r.problems.push(format!("LNT counterexample of {} is not a path of the native graph", p.property));
            }
        }
    }
    Ok(r)
}

/// Explores `root` of the LNT program `src` breadth first (at most `max_states` states) with
/// the memoising explorer of the back ends and, state by state, with the reference explorer,
/// which computes every successor from the compiled syntax: the number of states compared, or
/// the first state whose transitions (labels, targets, `sole` marks) or error differ.
pub fn memo_agrees_with_reference(src: &str, root: &str, max_states: usize) -> Result<usize, String> {
    agrees_with_reference(src, root, max_states, |p, n| super::interp::Explorer::new(p, n))
}

/// Whether the compiled successor function alone (`code.rs`, nothing memoised) gives, state by
/// state, the transitions (and errors) of the reference explorer, which walks the syntax trees:
/// the number of states compared, or the first difference.
pub fn compiled_agrees_with_reference(src: &str, root: &str, max_states: usize) -> Result<usize, String> {
    agrees_with_reference(src, root, max_states, |p, n| super::interp::Explorer::compiled(p, n))
}

type MakeExplorer = for<'p> fn(&'p super::sem::Program, &'p super::interp::Net) -> super::interp::Explorer<'p>;

fn agrees_with_reference(src: &str, root: &str, max_states: usize, tested: MakeExplorer) -> Result<usize, String> {
    use super::interp::{Explorer, build_net};
    use super::store::StateStore;
    let prog = super::load(src, None).map_err(|d| format!("load: {}", d.message))?;
    let net = build_net(&prog, root).map_err(|d| format!("network: {}", d.message))?;
    let (mut memo, mut reference) = (tested(&prog, &net), Explorer::reference(&prog, &net));
    let init = memo.initial().map_err(|d| format!("initial: {}", d.message))?;
    let mut store = StateStore::new(&init);
    let mut i = 0u32;
    while (i as usize) < store.len() && (i as usize) < max_states {
        let st = store.get(i);
        let (a, b) = (memo.successors_full(&st), reference.successors_full(&st));
        let show = |r: &Result<Vec<super::interp::Trans>, crate::diagnostics::Located>| match r {
            Ok(ts) => ts.iter().map(|t| format!("{} / {} sole={} -> {:?}", t.label, t.orig, t.sole, t.next)).collect(),
            Err(d) => vec![format!("error at {:?}: {}", d.span, d.message)],
        };
        let (sa, sb): (Vec<String>, Vec<String>) = (show(&a), show(&b));
        if sa != sb {
            return Err(format!(
                "state {i} {st:?}:\nmemoised:\n  {}\nreference:\n  {}",
                sa.join("\n  "),
                sb.join("\n  ")
            ));
        }
        if let Ok(ts) = a {
            for t in ts {
                store.number(&t.next);
            }
        }
        i += 1;
    }
    Ok(i as usize)
}
