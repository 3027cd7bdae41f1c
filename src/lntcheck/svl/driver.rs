//! A whole compositional script checked against the native checker (`check_script`), and the
//! emitted program it runs on.

use super::ast::kept_gates;
use super::compose::{Composer, LeafSize};
use super::parser::parse_named;
use crate::lnt::view::monitor::{ACC, STUCK};
use crate::lntcheck::LntcheckError;
use crate::lntcheck::backend;
use crate::lntcheck::interp::TNode;
use crate::lntcheck::lts::Lts;
use crate::lntcheck::reduce::{Reduction, minimise};

/// `tree` without its `hide` nodes (every gate visible).
pub fn strip_hides(t: &TNode) -> TNode {
    match t {
        TNode::Leaf(k) => TNode::Leaf(*k),
        TNode::Hide(_, b) => strip_hides(b),
        TNode::Par { global, iface, kids } => {
            TNode::Par { global: global.clone(), iface: iface.clone(), kids: kids.iter().map(strip_hides).collect() }
        }
    }
}

/// The emitted LNT program and compositional SVL script of a model (every property).
pub fn emit_program(
    model: &crate::model::Model,
    behs: &[crate::behaviour::Behaviour],
    analysis: &crate::analysis::values::ValueAnalysis,
    stem: &str,
    fair: bool,
    dialect: crate::lnt::Dialect,
) -> Result<(String, String), LntcheckError> {
    let opts = crate::lnt::EmitOptions {
        fair,
        properties: vec![],
        dialect,
        dialect_reason: String::new(),
        base: crate::lnt::names::module_name(stem),
        source: stem.to_string(),
        usage: None,
    };
    let program = |m: &str| LntcheckError::Program(m.to_string());
    let files = crate::lnt::emit(model, behs, analysis, &opts).map_err(|e| LntcheckError::Program(e.message))?;
    let lnt = files.iter().find(|f| f.name.ends_with(".lnt")).ok_or_else(|| program("no .lnt file"))?.contents.clone();
    let svl = files
        .iter()
        .find(|f| f.name.ends_with(".svl") && !f.name.ends_with("_mono.svl"))
        .ok_or_else(|| program("no compositional .svl file"))?
        .contents
        .clone();
    Ok((lnt, svl))
}

/// One property checked on the LTS its SVL block builds.
#[derive(Clone, Debug)]
pub struct PropertyRun {
    pub property: String,
    pub verdict: crate::engine::Verdict,
    pub states: usize,
    pub transitions: usize,
    pub labs_states: usize,
    pub leaves: Vec<LeafSize>,
    /// States and transitions of the LTS after the block's `root leaf` reduction (`None`: a
    /// reduction this executor does not know).
    pub reduced: Option<(usize, usize)>,
}

/// Executes every property block of `svl` on `lnt` (no minimisation) and checks the property
/// on the resulting LTS: LAbS states and valuations are rebuilt from its `DONE` and observation
/// labels as `--backend lnt` does (`backend::labs_view`), then the native checker runs.
pub fn check_script(
    model: &crate::model::Model,
    behs: &[crate::behaviour::Behaviour],
    fair: bool,
    lnt: &str,
    svl: &str,
    max_states: Option<u64>,
) -> Result<Vec<PropertyRun>, LntcheckError> {
    let prog = crate::lntcheck::load(lnt, None)
        .map_err(|d| LntcheckError::Program(format!("emitted LNT:{}", d.in_text(lnt))))?;
    if let Some(d) = crate::lntcheck::check::check(&prog).into_iter().next() {
        return Err(LntcheckError::Program(format!("emitted LNT:{}", d.in_text(lnt))));
    }
    let undef = backend::undef_value(&prog);
    let script = parse_named(svl, "the script")?;
    let mut c = Composer::new(&prog, max_states);
    let mut out = vec![];
    for b in &script.blocks {
        let name = b
            .property
            .clone()
            .ok_or_else(|| LntcheckError::Syntax(format!("`{}` is verified by no property", b.bcg)))?;
        // A model without properties gets a block for its run-time errors alone.
        let Some(p) = model.properties.iter().find(|p| p.name == name) else {
            if model.properties.is_empty() {
                continue;
            }
            return Err(LntcheckError::Syntax(format!("the script's property {name} is not in the model")));
        };
        let lts = c.compose(&b.beh, true)?;
        let (states, transitions) = (lts.nstates, lts.trans.len());
        let mut leaves = c.leaves.clone();
        let mut reduced = None;
        if let Some(r) = Reduction::from_svl(&b.reduction, &b.hold) {
            c.reduction = Some(r.clone());
            let composed = c.compose(&b.beh, true);
            c.reduction = None;
            let composed = composed?;
            leaves = c.leaves.clone();
            // The reduction is a congruence for the script's operators (that is why `hold`
            // keeps the prioritised gates strong): composing the minimised leaves and
            // minimising gives the whole LTS minimised.
            let whole = minimise(&lts, &r, &c.limits)?;
            if !Lts::bisimilar(&whole, &composed) {
                return Err(LntcheckError::Encoding(format!(
                    "property {name}: the leaves minimised modulo {} compose to {} states, not to the {} states of \
                     the whole LTS minimised",
                    b.reduction, composed.nstates, whole.nstates
                )));
            }
            reduced = Some((composed.nstates, composed.trans.len()));
        }
        let gates = kept_gates(&b.beh).unwrap_or_default();
        // A linear-time property's block composes its monitor: judged by the monitor's
        // acceptance (the monitor's own steps, `ACC` and `STUCK`, are no steps of the semantics).
        let monitored = gates.iter().any(|g| g == ACC);
        let by_monitor = monitored.then(|| monitor_verdict(&lts));
        let view = backend::labs_view(model, fair, lts, &gates, undef)?;
        if let (Some(s), false) = (view.stuck.first(), monitored) {
            return Err(LntcheckError::Encoding(format!(
                "property {name}: LTS state {s} blocks in the middle of a step"
            )));
        }
        let verdict = match by_monitor {
            Some(v) => v,
            None => {
                let mut one = model.clone();
                one.properties = vec![p.clone()];
                backend::check_properties(&one, behs, fair, &view)?[0].verdict
            }
        };
        out.push(PropertyRun {
            property: name,
            verdict,
            states,
            transitions,
            labs_states: view.real.len(),
            leaves,
            reduced,
        });
    }
    Ok(out)
}

/// The verdict of a monitored block's LTS (docs/lnt-encoding.md §5, Monitors): violated when a
/// cycle through an `ACC` transition is reachable (infinitely many accepting steps of the
/// automaton of the negation), or when a state reached by `DONE` offers `STUCK` and reaches no
/// `DONE` without `ABANDON` (a run ending in a deadlock that the automaton accepts).
fn monitor_verdict(lts: &Lts) -> crate::engine::Verdict {
    let label = |name: &str| lts.labels.iter().position(|l| l == name).map(|i| i as u32);
    let (acc, stuck, done, abandon) = (label(ACC), label(STUCK), label("DONE"), label("ABANDON"));
    let n = lts.nstates;
    let adj = lts.adjacency();
    let comp =
        crate::engine::scc::components(n, [lts.initial], |x, f| adj[x as usize].iter().for_each(|&(_, y)| f(y))).comp;
    let reached = |x: u32| comp[x as usize] != crate::engine::scc::UNREACHED;
    let accepting_cycle =
        lts.trans.iter().any(|&(s, l, t)| Some(l) == acc && reached(s) && comp[s as usize] == comp[t as usize]);
    // States that reach a DONE transition without ABANDON: backwards from the DONE sources.
    let mut back = vec![vec![]; n];
    for &(s, l, t) in &lts.trans {
        if Some(l) != abandon {
            back[t as usize].push(s);
        }
    }
    let mut reaches_done = vec![false; n];
    let mut todo: Vec<u32> = lts.trans.iter().filter(|&&(_, l, _)| Some(l) == done).map(|&(s, _, _)| s).collect();
    while let Some(x) = todo.pop() {
        if !std::mem::replace(&mut reaches_done[x as usize], true) {
            todo.extend(&back[x as usize]);
        }
    }
    let stuck_deadlock = lts.trans.iter().any(|&(s, l, t)| {
        Some(l) == done
            && reached(s)
            && !reaches_done[t as usize]
            && adj[t as usize].iter().any(|&(l2, _)| Some(l2) == stuck)
    });
    if accepting_cycle || stuck_deadlock { crate::engine::Verdict::Violated } else { crate::engine::Verdict::Holds }
}
