//! The SVL scripts: the compositional workflow (root leaf divsharp reduction of the
//! composition rebuilt from the program's leaves, with per-leaf hiding and the priority
//! operator) and the monolithic baseline (whole LTS, divbranching reduction), each with one
//! property block per query (`expected TRUE`).

use super::mcl::Query;
use super::view::monitor::{ACC, STUCK};
use super::view::{Component, Program};
use super::{Dialect, EmitOptions, names};
use crate::model::Model;

#[derive(Clone, Debug)]
pub(crate) struct Scripts {
    pub(crate) base: String,
    pub(crate) source: String,
    pub(crate) dialect: Dialect,
    /// Why that dialect (empty: chosen by the caller, not said).
    pub(crate) dialect_reason: String,
    pub(crate) fair: bool,
    pub(crate) lnt_file: String,
    pub(crate) comp_file: String,
    pub(crate) mono_file: String,
    /// The on-the-fly workflow's shell script and the log it is run into.
    pub(crate) otf_file: String,
    pub(crate) otf_log: String,
    pub(crate) mono_bcg: String,
    pub(crate) blocks: Vec<Block>,
    /// The composition: as in `MAIN`, but hiding per property and with priorities.
    pub(crate) components: Vec<Component>,
    /// The spec and extern words of the README's commands (placeholders without a usage).
    pub(crate) spec_args: String,
    /// `--fair` and `--property P` of the README's commands.
    pub(crate) run_options: String,
    /// The job scripts and `Makefile` of `--split` were written.
    pub(crate) split: bool,
}

/// One `verify` statement of a block, in a `property` of its own.
#[derive(Clone, Debug)]
pub(crate) struct Check {
    pub(crate) name: String,
    pub(crate) text: String,
    pub(crate) mcl: String,
    /// The query's file name, unquoted (for the README).
    pub(crate) mcl_name: String,
    pub(crate) diag: String,
    pub(crate) mono_diag: String,
    pub(crate) otf_diag: String,
    /// The root process `lnt.open` generates in the on-the-fly workflow (`None`: `MAIN`).
    pub(crate) root: Option<String>,
}

/// A linear-time property's monitor in its property's composition.
#[derive(Clone, Debug)]
pub(crate) struct MonitorLeaf {
    /// In the compositional script, with the agents' composition: the monitor and the observer
    /// of its atoms, `par DONE, ATOMS_P in Observer_P […] || Monitor_P […] end par`, and what
    /// they synchronise on with it (`DONE`, the observation gates the observer reads).
    pub(crate) call: String,
    pub(crate) sync: Vec<String>,
    /// In the monolithic script, with the LTS of `MAIN` (which has `Observers`): the monitor
    /// alone, `Monitor_P [DONE, ATOMS_P, …]`, on `DONE` and `ATOMS_P`.
    pub(crate) mono_call: String,
    pub(crate) mono_sync: Vec<String>,
}

/// What one property needs in the scripts: its LTS and the checks made on it (that no
/// run-time error is reachable, for the first block; that the predicate meets none; the
/// property itself).
#[derive(Clone, Debug)]
pub(crate) struct Block {
    /// The property's identifier (the LTS's name).
    pub(crate) name: String,
    pub(crate) text: String,
    pub(crate) checks: Vec<Check>,
    pub(crate) bcg: String,
    pub(crate) mono_bcg: String,
    /// The visible labels: `DONE`, `ABANDON` and `ERR` if the program has them, and the
    /// observation gates the query reads.
    pub(crate) keep: Vec<String>,
    /// Strong actions of the sharp reduction: the gates the priority operator orders.
    pub(crate) hold: Vec<String>,
    /// Priority chains over the receivers' private steps, lower id first.
    pub(crate) prio: Vec<Vec<String>>,
    /// Per instance of the agents' component (in order): the observation gates hidden inside
    /// the leaf because the query does not read them.
    pub(crate) leaf_hides: Vec<Vec<String>>,
    pub(crate) monitor: Option<MonitorLeaf>,
    /// The earlier property whose LTS is this one's (the same visible gates, priorities and
    /// monitor): the scripts build it once and verify this block's queries on it
    /// (`bcg` and `mono_bcg` are then that property's files).
    pub(crate) shared_with: Option<String>,
}

impl Block {
    /// Whether the scripts build the same LTS for `self` and `other`.
    fn same_lts(&self, other: &Block) -> bool {
        self.keep == other.keep
            && self.hold == other.hold
            && self.prio == other.prio
            && self.leaf_hides == other.leaf_hides
            && self.monitor.as_ref().map(|m| (&m.call, &m.sync)) == other.monitor.as_ref().map(|m| (&m.call, &m.sync))
    }
}

/// What a `property` block of the emitted scripts checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CheckKind {
    /// No run-time error of the model is reachable (steps, messages, initialisation,
    /// assumptions).
    Errors,
    /// The predicate of this property meets no run-time error in a reachable state.
    PredicateErrors(String),
    /// This property.
    Property(String),
}

/// The checks of the emitted scripts, in script order, by the identifier of their `property`
/// block: the run-time errors first (if the program can meet any), then per property of
/// `selected`, its predicate's run-time errors (if it can meet any) and the property. `files`
/// are the emitted files (an error check has a query file when it is made).
pub(crate) fn checks(
    model: &Model,
    selected: &[&crate::model::Property],
    files: &[super::EmittedFile],
    base: &str,
) -> Vec<(String, CheckKind)> {
    let emitted = |id: &str| files.iter().any(|f| f.name == mcl_file(base, id));
    let mut out = vec![];
    let errors = names::errors_id(model);
    if emitted(&errors) {
        out.push((errors, CheckKind::Errors));
    }
    for p in selected {
        let e = names::property_errors_id(model, &p.name);
        if emitted(&e) {
            out.push((e, CheckKind::PredicateErrors(p.name.clone())));
        }
        out.push((names::property_id(model, &p.name), CheckKind::Property(p.name.clone())));
    }
    out
}

/// The query of the property whose identifier is `id` ([`names::property_id`]).
pub(crate) fn mcl_file(base: &str, id: &str) -> String {
    format!("{base}_{id}.mcl")
}

/// The script of a workflow: `BASE.svl` (compositional) or `BASE_mono.svl` (monolithic).
pub(crate) fn script_file(base: &str, monolithic: bool) -> String {
    if monolithic { format!("{base}_mono.svl") } else { format!("{base}.svl") }
}

/// The diagnostic Evaluator writes for the property whose identifier is `id`
/// ([`names::property_id`]) in a workflow's script.
pub(crate) fn diag_file(base: &str, id: &str, monolithic: bool) -> String {
    if monolithic { format!("{base}_mono_{id}_diag.bcg") } else { format!("{base}_{id}_diag.bcg") }
}

/// The on-the-fly workflow's script: one `lnt.open … evaluator` run per check.
pub(crate) fn otf_script_file(base: &str) -> String {
    format!("{base}_on_the_fly.sh")
}

/// The diagnostic Evaluator writes for check `id` in the on-the-fly workflow.
pub(crate) fn otf_diag_file(base: &str, id: &str) -> String {
    format!("{base}_otf_{id}_diag.bcg")
}

/// A double-quoted SVL string (file names are built from identifiers, so only `"` and `\`
/// could need escaping; they are escaped anyway).
pub(crate) fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// A `verify` statement of query `id` (a property's or a check's identifier).
fn check(base: &str, id: &str, text: String) -> Check {
    Check {
        name: id.to_string(),
        text,
        mcl: quote(&mcl_file(base, id)),
        mcl_name: mcl_file(base, id),
        diag: quote(&diag_file(base, id, false)),
        mono_diag: quote(&diag_file(base, id, true)),
        otf_diag: quote(&otf_diag_file(base, id)),
        root: None,
    }
}

/// The text of the check that no run-time error is reachable.
pub(crate) const ERRORS_TEXT: &str = "no run-time error is reachable (D9)";

pub(crate) fn build(model: &Model, program: &Program, queries: &[Query], opts: &EmitOptions) -> Scripts {
    let base = &opts.base;
    let n = model.n_agents();
    let mut blocks = vec![];
    // With no query, the run-time errors still get an LTS of their own.
    let errors_only = [None];
    let items: Vec<Option<&Query>> =
        if queries.is_empty() && program.has_err { errors_only.to_vec() } else { queries.iter().map(Some).collect() };
    for (i, q) in items.into_iter().enumerate() {
        let id = match q {
            Some(q) => names::property_id(model, &q.name),
            None => names::errors_id(model),
        };
        let mut keep = vec!["DONE".to_string()];
        if !program.remote.is_empty() {
            // abandoned read attempts stay visible: the queries tell them from steps
            keep.push(names::ABANDON.to_string());
        }
        if program.has_err {
            keep.push(names::ERR.to_string());
        }
        let gates: &[String] = q.map(|q| q.gates.as_slice()).unwrap_or_default();
        keep.extend(gates.iter().cloned());
        let monitor = q.and_then(|q| q.monitor.as_ref());
        if monitor.is_some() {
            keep.extend([ACC.to_string(), STUCK.to_string()]);
        }
        let mut checks = vec![];
        if i == 0 && program.has_err {
            checks.push(check(base, &names::errors_id(model), ERRORS_TEXT.into()));
        }
        if let Some(q) = q {
            let text = q.text.replace(['"', '\n', '\r'], " ");
            if q.err_pred.is_some() {
                let eid = names::property_errors_id(model, &q.name);
                checks.push(check(base, &eid, format!("no run-time error in the predicate of {}", q.name)));
            }
            let mut c = check(base, &id, text);
            c.root = monitor.map(|m| m.root.clone());
            checks.push(c);
        }
        let mut hold = vec![];
        let mut prio = vec![];
        if program.has_tuples {
            // the leaves' receivers ask Timestamps (k) one by one (`split` 1): one order of
            // their requests, lower id first
            hold.push("REQ".to_string());
            prio.push((0..n).map(|i| format!("REQ !{i} .*")).collect());
            for g in gates.iter().filter(|g| g.starts_with("L_")) {
                hold.push(g.clone());
                prio.push((0..n).map(|i| format!("{g} !{i} .*")).collect());
            }
        }
        let agents = program.components.iter().find(|c| c.agents).expect("agents component");
        let leaf_hides = agents
            .instances
            .iter()
            .map(|i| i.obs_gates.iter().filter(|g| !keep.contains(g)).cloned().collect())
            .collect();
        let mut block = Block {
            name: id.clone(),
            text: checks.last().map(|c| c.text.clone()).unwrap_or_default(),
            checks,
            bcg: quote(&format!("{base}_{id}.bcg")),
            mono_bcg: quote(&format!("{base}_mono_{id}.bcg")),
            keep,
            hold: hold.iter().map(|h| quote(h)).collect(),
            prio: prio.into_iter().map(|c: Vec<String>| c.iter().map(|r| quote(r)).collect()).collect(),
            leaf_hides,
            monitor: monitor.map(|m| {
                let alone = format!("{} [{}]", m.process, m.gates.join(", "));
                let (call, sync) = match &m.observer {
                    Some((observer, sync)) => {
                        (format!("par {} in {observer} || {alone} end par", m.sync.join(", ")), sync.clone())
                    }
                    None => (alone.clone(), m.sync.clone()),
                };
                MonitorLeaf { call, sync, mono_call: alone, mono_sync: m.sync.clone() }
            }),
            shared_with: None,
        };
        if let Some(first) = blocks.iter().find(|e: &&Block| e.shared_with.is_none() && e.same_lts(&block)) {
            block.shared_with = Some(first.name.clone());
            block.bcg = first.bcg.clone();
            block.mono_bcg = first.mono_bcg.clone();
        }
        blocks.push(block);
    }
    Scripts {
        base: base.clone(),
        source: opts.source.clone(),
        spec_args: opts.usage.as_ref().map_or_else(|| "SPEC [NAME=VALUE…]".to_string(), |u| u.spec.clone()),
        run_options: opts.usage.as_ref().map_or_else(String::new, |u| u.options.clone()),
        split: opts.usage.as_ref().is_some_and(|u| u.split),
        dialect: opts.dialect,
        dialect_reason: opts.dialect_reason.clone(),
        fair: opts.fair,
        lnt_file: quote(&format!("{base}.lnt")),
        comp_file: script_file(base, false),
        mono_file: script_file(base, true),
        otf_file: otf_script_file(base),
        otf_log: format!("{base}_on_the_fly.log"),
        mono_bcg: quote(&format!("{base}_mono.bcg")),
        blocks,
        components: super::view::split_components(&program.components),
    }
}
