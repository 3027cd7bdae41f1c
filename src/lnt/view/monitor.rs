//! The monitor of a linear-time property (docs/lnt-encoding.md §2, "Monitors"), and the
//! observers of its atoms. The observer `Observer_P` (a leaf of the compositional script) takes
//! part in `DONE` and in the observation labels its atoms read, keeps the values they carry,
//! and after a label that changes the atoms' truth values offers them, one Boolean per atom, on
//! the gate `ATOMS_P`. `MAIN` has one observer for every property, `Observers`, which after a
//! label makes the properties' offers one after the other in a fixed order (offering
//! independently, k observers in parallel would interleave into 2^k states per label); each
//! root hides the other properties' `ATOMS_Q`. The monitor takes part in `DONE` and `ATOMS_P`
//! only (so that, generated alone, it enumerates Booleans, never the values of the variables),
//! and in every state of the semantics (reached by `DONE`) steps the degeneralised Büchi
//! automaton of the formula's negation (`engine::ltl`), offering `ACC` after an accepting step
//! and, where a run ending in a deadlock there would be accepted (its last state repeated
//! forever, D14), the self-loop `STUCK`.

use super::code::{self, Gen, Ln, Source};
use super::lower::expand_quants;
use crate::analysis::IntervalSet;
use crate::analysis::values::ValueAnalysis;
use crate::engine::ltl::Automaton;
use crate::lnt::domains::{self, Abs, DomainTable};
use crate::lnt::mcl::TrackKey;
use crate::lnt::{EmitError, names};
use crate::model::{Model, QPred, Store};
use crate::syntax::ltl::Ltl;
use std::collections::{BTreeMap, BTreeSet};

/// The gate of an accepting step of a monitor.
pub(crate) const ACC: &str = "ACC";
/// The gate a monitor offers in a state where a run ending in a deadlock is accepted.
pub(crate) const STUCK: &str = "STUCK";

/// More distinct atoms than this are refused: the monitor's tables list every valuation.
const MAX_ATOMS: usize = 10;
/// More (monitor state, valuation) pairs than this are refused: the tables list every one.
pub(crate) const MAX_TABLE: usize = 1 << 16;

/// A linear-time property to monitor: its identifier ([`names::property_id`]) and formula.
pub(crate) struct MonitorSpec<'a> {
    pub(crate) id: String,
    pub(crate) property: String,
    pub(crate) formula: &'a Ltl<QPred>,
}

/// What `lnt-templates/program.lnt` lays out for one monitor and its observer.
#[derive(Clone, Debug)]
pub(crate) struct MonitorView {
    pub(crate) process: String,
    /// The root process: `MAIN` in parallel with the monitor.
    pub(crate) root: String,
    pub(crate) property: String,
    /// The monitor's formal gates: `DONE`, `ATOMS_P` (with an observer), `ACC`, `STUCK`.
    pub(crate) gates: Vec<String>,
    /// What it synchronises on with `MAIN`: `DONE` and `ATOMS_P`.
    pub(crate) sync: Vec<String>,
    /// The root's gates: `MAIN`'s but the other monitors' `ATOMS_Q`, which it hides, then
    /// `ACC` and `STUCK` (set once `MAIN`'s are known).
    pub(crate) root_gates: Vec<String>,
    pub(crate) root_hidden: Vec<String>,
    /// The observer, a component of `MAIN`; `None` when the atoms read no variable (their
    /// truth values never change).
    pub(crate) observer: Option<ObserverView>,
    /// Per tracked value (`V[i]`): its label's offers and domain.
    pub(crate) tracked: Vec<TrackedView>,
    /// Per observation gate read, the labels of elements it does not track (taken, ignored).
    pub(crate) ignored: Vec<IgnoredView>,
    /// Whether some of those carry an agent (the observer then receives its id).
    pub(crate) ignores_agents: bool,
    /// Per distinct atom: the function evaluating it (1 holds, 0 not, 3 and more an error).
    pub(crate) atoms: Vec<AtomFn>,
    /// `mon_ID_step (m, b, t)`: per automaton state `m`, the condition on the atoms' valuation
    /// `b` and the choice `t` (2 × next state, plus 1 when the step accepts).
    pub(crate) step: Vec<String>,
    /// `mon_ID_stuck (m, b)`: per automaton state, the valuations whose repetition is accepted.
    pub(crate) stuck: Vec<String>,
    /// The largest choice `t`.
    pub(crate) t_max: usize,
    pub(crate) states: usize,
    /// The function names.
    pub(crate) val_fn: String,
    pub(crate) step_fn: String,
    pub(crate) stuck_fn: String,
    /// `mon_ID_pack (x_0, …)`: the valuation of the atoms' truth values received.
    pub(crate) pack_fn: String,
}

/// The observer of a monitor's atoms (a component of `MAIN`).
#[derive(Clone, Debug)]
pub(crate) struct ObserverView {
    pub(crate) process: String,
    /// `ATOMS_ID`: the atoms' truth values, one Boolean offer per atom.
    pub(crate) gate: String,
    /// Its formal gates: `DONE`, the observation gates it reads, `ATOMS_ID`.
    pub(crate) gates: Vec<String>,
    /// What it synchronises on with the rest of `MAIN`: `DONE` and the observation gates.
    pub(crate) sync: Vec<String>,
    /// Per atom `k`: the truth value of bit `k` of the valuation `c` (an LNT expression).
    pub(crate) bits: Vec<String>,
}

/// The one observer of every monitor's atoms in `MAIN`, `Observers`: it takes part in `DONE`
/// and in the observation labels any monitor's atoms read, keeps each monitor's tracked values
/// (`V_j`) and last valuation offered (`b_j`), and after each label offers the valuations that
/// changed one monitor after the other, in the monitors' order.
#[derive(Clone, Debug)]
pub(crate) struct ObserversView {
    pub(crate) process: String,
    /// Its formal gates: `DONE`, the observation gates read, each monitor's `ATOMS_ID`.
    pub(crate) gates: Vec<String>,
    /// What it synchronises on with the rest of `MAIN`: `DONE` and the observation gates.
    pub(crate) sync: Vec<String>,
    /// Per value some monitor tracks, its label (setting that value in each monitor's `V_j`).
    pub(crate) tracked: Vec<TrackedView>,
    /// Per observation gate read, the labels of elements no monitor tracks (taken, ignored).
    pub(crate) ignored: Vec<IgnoredView>,
    pub(crate) ignores_agents: bool,
    /// Per monitor with an observer, in order: its valuation and offer.
    pub(crate) offers: Vec<OfferView>,
}

/// What `Observers` keeps and offers for one monitor.
#[derive(Clone, Debug)]
pub(crate) struct OfferView {
    pub(crate) property: String,
    /// Its tracked values and last valuation offered (`V_j`, `b_j`).
    pub(crate) values: String,
    pub(crate) last: String,
    pub(crate) val_fn: String,
    pub(crate) gate: String,
    pub(crate) bits: Vec<String>,
}

#[derive(Clone, Debug)]
pub(crate) struct TrackedView {
    /// The variables a label of it sets (`V[i]`; in `Observers`, `V_j[i]` of each monitor `j`
    /// tracking it).
    pub(crate) targets: Vec<String>,
    pub(crate) key: TrackKey,
    pub(crate) gate: String,
    /// The agent offer (`None`: an environment variable).
    pub(crate) agent: Option<usize>,
    pub(crate) elem: usize,
    pub(crate) dom: String,
    pub(crate) about: String,
}

#[derive(Clone, Debug)]
pub(crate) struct IgnoredView {
    pub(crate) gate: String,
    /// Whether the label carries an agent (not an environment variable).
    pub(crate) agent: bool,
    /// The condition on `a` and `e` of the labels not tracked.
    pub(crate) cond: String,
    pub(crate) dom: String,
}

#[derive(Clone, Debug)]
pub(crate) struct AtomFn {
    pub(crate) name: String,
    pub(crate) text: String,
    pub(crate) decls: String,
    pub(crate) body: Vec<String>,
}

/// The distinct atoms of a formula, and for each occurrence (`Ltl::atoms` order) its index
/// among them.
fn distinct_atoms(f: &Ltl<QPred>) -> (Vec<&QPred>, Vec<usize>) {
    let mut distinct: Vec<&QPred> = vec![];
    let mut of = vec![];
    for a in f.atoms() {
        let k = distinct.iter().position(|d| *d == a).unwrap_or_else(|| {
            distinct.push(a);
            distinct.len() - 1
        });
        of.push(k);
    }
    (distinct, of)
}

type AtomCode = (Vec<Vec<Ln>>, Vec<TrackKey>, Vec<String>);

/// The atoms' code reading the tracked values by the names `names`, and the keys read.
fn atom_code(
    model: &Model,
    analysis: &ValueAnalysis,
    atoms: &[&QPred],
    names: &BTreeMap<TrackKey, String>,
) -> Result<AtomCode, EmitError> {
    let abs = Abs { model, analysis, ty: 0, locals: vec![] };
    let mut bodies = vec![];
    let mut keys = BTreeSet::new();
    let mut decls = vec![];
    for a in atoms {
        let mut g = Gen::new(model, code::Mode::Pred, Source::Assume { names });
        g.abs = Some(&abs);
        let mut body = vec![];
        let pred = expand_quants(model, a, 0, &mut vec![]);
        let b = g.bexpr(&mut body, &pred)?;
        body.push(Ln::If(vec![(format!("not ({b})"), vec![Ln::Exit(code::R_OFF)])], vec![]));
        body.push(Ln::Exit(code::R_OK));
        keys.extend(g.keys_read.iter().copied());
        decls.push(g.decls(None));
        bodies.push(body);
    }
    Ok((bodies, keys.into_iter().collect(), decls))
}

/// The values a formula's atoms read, in the canonical order (environment first, then by
/// agent, variable and element).
pub(crate) fn tracked_keys(
    model: &Model,
    analysis: &ValueAnalysis,
    f: &Ltl<QPred>,
) -> Result<Vec<TrackKey>, EmitError> {
    let (atoms, _) = distinct_atoms(f);
    Ok(atom_code(model, analysis, &atoms, &BTreeMap::new())?.1)
}

/// The monitor of one property, with its observer.
pub(crate) fn monitor_view(
    model: &Model,
    analysis: &ValueAnalysis,
    spec: &MonitorSpec,
    doms: &mut DomainTable,
) -> Result<MonitorView, EmitError> {
    let id = &spec.id;
    let (atoms, of) = distinct_atoms(spec.formula);
    if atoms.len() > MAX_ATOMS {
        return Err(EmitError::unsupported(
            &format!("linear-time properties with more than {MAX_ATOMS} distinct state predicates"),
            format!("property `{}`", spec.property),
        ));
    }
    let keys = tracked_keys(model, analysis, spec.formula)?;
    let names: BTreeMap<TrackKey, String> = keys.iter().enumerate().map(|(i, k)| (*k, format!("V[{i}]"))).collect();
    let (bodies, _, decls) = atom_code(model, analysis, &atoms, &names)?;
    let atom_fns: Vec<AtomFn> = bodies
        .iter()
        .zip(decls)
        .enumerate()
        .map(|(k, (b, d))| AtomFn {
            name: format!("mon_{id}_atom_{k}"),
            text: comment_text(&crate::model::print::bexpr(model, &expand_quants(model, atoms[k], 0, &mut vec![]))),
            decls: d,
            body: code::print(b, 6, code::ExitStyle::Func),
        })
        .collect();

    // The automaton of the negation, degeneralised; `dead` (the last state) is where the
    // monitor goes when no transition reads the state: it never accepts, and keeps the monitor
    // from blocking the system.
    let aut = Automaton::of_negation(spec.formula).map_err(|r| {
        EmitError::unsupported(
            &format!("linear-time formulas whose automaton is refused ({r})"),
            format!("property `{}`", spec.property),
        )
    })?;
    let deg = aut.degeneralised();
    let dead = deg.trans.len();
    let n_vals = 1usize << atoms.len();
    if (dead + 1) * n_vals > MAX_TABLE {
        return Err(EmitError::unsupported(
            &format!(
                "linear-time formulas whose monitor tables exceed {MAX_TABLE} entries (here {} states × {n_vals} \
                 valuations of the atoms)",
                dead + 1
            ),
            format!("property `{}`", spec.property),
        ));
    }
    let bit = |b: usize, k: usize| b & (1 << of[k]) != 0;
    // Per valuation, the states of the generalised automaton that accept it repeated.
    let stuck_at: Vec<Vec<bool>> = (0..n_vals).map(|b| aut.accepting_constant(&|k| bit(b, k))).collect();
    let mut step = vec![];
    let mut stuck = vec![];
    for (m, ts) in deg.trans.iter().enumerate() {
        // per choice t, the valuations allowing it
        let mut allowed: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        let mut stuck_vals = vec![];
        for (b, stuck_here) in stuck_at.iter().enumerate() {
            let mut any = false;
            for s in ts {
                if s.lits.iter().all(|&(k, v)| bit(b, k) == v) {
                    let t = 2 * s.next as usize + usize::from(s.accepting);
                    let e = allowed.entry(t).or_default();
                    if e.last() != Some(&b) {
                        e.push(b);
                    }
                    any = true;
                }
            }
            if !any {
                allowed.entry(2 * dead).or_default().push(b);
            }
            if stuck_here[deg.origin[m] as usize] {
                stuck_vals.push(b);
            }
        }
        let cases: Vec<String> = allowed
            .iter()
            .map(|(t, bs)| match valuation_cond(bs, n_vals) {
                None => format!("(t == {t})"),
                Some(c) => format!("((t == {t}) and {c})"),
            })
            .collect();
        step.push(cases.join(" or "));
        stuck.push(valuation_cond(&stuck_vals, n_vals).unwrap_or_else(|| "true".into()));
    }

    // The labels: tracked elements, and the others of the same gates (taken, ignored).
    let targets: Vec<(TrackKey, Vec<String>)> =
        keys.iter().enumerate().map(|(i, k)| (*k, vec![format!("V[{i}]")])).collect();
    let (tracked, ignored) = labels(model, analysis, &targets, doms);
    let obs: BTreeSet<String> = tracked.iter().map(|x| x.gate.clone()).collect();
    let observer = (!tracked.is_empty()).then(|| {
        // Upper-case, as every gate of the program: CADP upper-cases them in labels, and the
        // scripts name them as the labels do.
        let gate = format!("ATOMS_{}", id.to_ascii_uppercase());
        let mut sync = vec!["DONE".to_string()];
        sync.extend(obs.iter().cloned());
        let mut gates = sync.clone();
        gates.push(gate.clone());
        let bits = (0..atoms.len())
            .map(|k| match k {
                0 => "(c mod 2) == 1".to_string(),
                _ => format!("((c div {}) mod 2) == 1", 1u64 << k),
            })
            .collect();
        ObserverView { process: format!("Observer_{id}"), gate, gates, sync, bits }
    });
    let ignores_agents = ignored.iter().any(|x| x.agent);
    let mut sync = vec!["DONE".to_string()];
    sync.extend(observer.as_ref().map(|o| o.gate.clone()));
    let mut gates = sync.clone();
    gates.extend([ACC.to_string(), STUCK.to_string()]);
    Ok(MonitorView {
        process: format!("Monitor_{id}"),
        root: format!("Root_{id}"),
        property: spec.property.clone(),
        gates,
        sync,
        root_gates: vec![],
        root_hidden: vec![],
        observer,
        tracked,
        ignored,
        ignores_agents,
        atoms: atom_fns,
        step,
        stuck,
        t_max: 2 * dead,
        states: dead + 1,
        val_fn: format!("mon_{id}_val"),
        step_fn: format!("mon_{id}_step"),
        stuck_fn: format!("mon_{id}_stuck"),
        pack_fn: format!("mon_{id}_pack"),
    })
}

/// The observation labels of the values `targets` lists (each with the variables a label of it
/// sets), in the canonical order: per tracked value, its label; per gate read, the labels of
/// the elements not tracked (taken, ignored).
fn labels(
    model: &Model,
    analysis: &ValueAnalysis,
    targets: &[(TrackKey, Vec<String>)],
    doms: &mut DomainTable,
) -> (Vec<TrackedView>, Vec<IgnoredView>) {
    let mut tracked = vec![];
    let mut by_gate: BTreeMap<String, (crate::model::VarId, Vec<TrackKey>)> = BTreeMap::new();
    for (k, sets) in targets {
        let (agent, var, elem) = *k;
        let gate = names::obs_gate(model, var);
        let set = domains::var_set(model, analysis, var, agent.map(|a| model.type_of(a)));
        tracked.push(TrackedView {
            targets: sets.clone(),
            key: *k,
            gate: gate.clone(),
            agent,
            elem,
            dom: doms.name(&set),
            about: crate::lnt::mcl::describe(model, k),
        });
        by_gate.entry(gate).or_insert((var, vec![])).1.push(*k);
    }
    let mut ignored = vec![];
    for (gate, (var, ks)) in &by_gate {
        let v = &model.vars[*var];
        let env = v.store == Store::Env;
        let holders: Vec<usize> = if env {
            vec![]
        } else {
            (0..model.n_agents()).filter(|&a| model.type_has_var(model.type_of(a), *var)).collect()
        };
        let all = if env { v.len } else { holders.len() * v.len };
        if ks.len() == all {
            continue;
        }
        let mut parts = vec![format!("(e < {})", v.len)];
        if !env {
            parts.push(agent_cond(&holders));
        }
        let seen: Vec<String> = ks
            .iter()
            .map(|(a, _, e)| match a {
                Some(a) => format!("((a == {a}) and (e == {e}))"),
                None => format!("(e == {e})"),
            })
            .collect();
        parts.push(format!("(not ({}))", seen.join(" or ")));
        let set: IntervalSet = if env {
            domains::var_set(model, analysis, *var, None)
        } else {
            holders
                .iter()
                .map(|&a| domains::var_set(model, analysis, *var, Some(model.type_of(a))))
                .fold(IntervalSet::empty(), |x, y| x.join(&y))
        };
        ignored.push(IgnoredView { gate: gate.clone(), agent: !env, cond: parts.join(" and "), dom: doms.name(&set) });
    }
    (tracked, ignored)
}

/// The one observer of the monitors' atoms in `MAIN` (`None`: no atom reads a variable).
pub(crate) fn observers_view(
    model: &Model,
    analysis: &ValueAnalysis,
    monitors: &[MonitorView],
    doms: &mut DomainTable,
) -> Option<ObserversView> {
    let mut targets: BTreeMap<TrackKey, Vec<String>> = BTreeMap::new();
    let mut offers = vec![];
    for (j, m) in monitors.iter().enumerate() {
        let Some(ob) = &m.observer else { continue };
        let values = format!("V_{j}");
        for (i, x) in m.tracked.iter().enumerate() {
            targets.entry(x.key).or_default().push(format!("{values}[{i}]"));
        }
        offers.push(OfferView {
            property: m.property.clone(),
            values,
            last: format!("b_{j}"),
            val_fn: m.val_fn.clone(),
            gate: ob.gate.clone(),
            bits: ob.bits.clone(),
        });
    }
    if offers.is_empty() {
        return None;
    }
    let targets: Vec<(TrackKey, Vec<String>)> = targets.into_iter().collect();
    let (tracked, ignored) = labels(model, analysis, &targets, doms);
    let obs: BTreeSet<String> = tracked.iter().map(|x| x.gate.clone()).collect();
    let mut sync = vec!["DONE".to_string()];
    sync.extend(obs);
    let mut gates = sync.clone();
    gates.extend(offers.iter().map(|o| o.gate.clone()));
    let ignores_agents = ignored.iter().any(|x| x.agent);
    Some(ObserversView { process: "Observers".into(), gates, sync, tracked, ignored, ignores_agents, offers })
}

/// `b` among the valuations `bs` (`None`: every one of the `n` valuations; `false`: none).
fn valuation_cond(bs: &[usize], n: usize) -> Option<String> {
    if bs.len() == n {
        return None;
    }
    Some(match bs {
        [] => "false".into(),
        [b] => format!("(b == {b})"),
        _ => format!("({})", bs.iter().map(|b| format!("(b == {b})")).collect::<Vec<_>>().join(" or ")),
    })
}

/// `a` among the agents `ids` (ranges of consecutive ids).
fn agent_cond(ids: &[usize]) -> String {
    let mut parts = vec![];
    let mut i = 0;
    while i < ids.len() {
        let mut j = i;
        while j + 1 < ids.len() && ids[j + 1] == ids[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            format!("(a == {})", ids[i])
        } else {
            format!("((a >= {}) and (a <= {}))", ids[i], ids[j])
        });
        i = j + 1;
    }
    match parts.len() {
        0 => "false".into(),
        1 => parts.pop().expect("one"),
        _ => format!("({})", parts.join(" or ")),
    }
}

/// A predicate's text for a one-line comment: at most 100 characters.
fn comment_text(t: &str) -> String {
    let t = t.replace(['\n', '\r'], " ");
    match t.char_indices().nth(100) {
        Some((i, _)) => format!("{} …", &t[..i]),
        None => t,
    }
}
