//! The view of the LNT program: everything `lnt-templates/program.lnt` lays out, computed from
//! the model, the compiled behaviours and the value analysis. See `docs/lnt-encoding.md`.

use super::domains::{self, Abs, DomainTable, int_lit, membership};
use super::expr::{Printer, Scope, conj};
use super::names;
use super::{Dialect, EmitError, EmitOptions};
use crate::analysis::IntervalSet;
use crate::analysis::values::ValueAnalysis;
use crate::behaviour::{Behaviour, Edge, Step};
use crate::model::{ActionKind, AgentRef, Assign, Expr, Init, Model, Stmt, Store, TypeId, VarId, print};
use std::collections::BTreeSet;

/// The whole program.
#[derive(Clone, Debug)]
pub struct Program {
    pub module: String,
    pub source: String,
    pub dialect: Dialect,
    pub fair: bool,
    pub n_agents: usize,
    /// Highest index of each array type (arrays have at least one element).
    pub attr_max: usize,
    pub stig_max: usize,
    pub env_max: usize,
    pub tuple_max: usize,
    pub local_max: usize,
    pub n_tuples: usize,
    pub undef: String,
    pub has_env: bool,
    pub has_tuples: bool,
    pub domains: Vec<DomainView>,
    /// Per tuple: which agents hold it (a condition on `a`).
    pub holds: Vec<HoldsView>,
    pub ranks_init: Vec<RanksInit>,
    /// The environment values carried by `TICK`, one per environment slot.
    pub env_params: Vec<EnvParam>,
    /// The remote-read slots of the steps (agent, location, value), and the number of
    /// locations of an agent's stores (`lab_own`).
    pub remote: Vec<RemoteParam>,
    pub locs: usize,
    /// The read gates `RD_r_o` (reader `r` reads owner `o`), one per pair that can occur.
    pub rd_gates: Vec<String>,
    /// `rdloc (r, o, l)`: reader `r` can read location `l` of owner `o` (one disjunct per kind
    /// of read of the reader's type).
    pub rdloc: Vec<String>,
    pub env: Option<EnvView>,
    pub assume: Option<AssumeView>,
    pub steps: Vec<StepFn>,
    pub agents: Vec<AgentView>,
    /// The gates of `MAIN` (`DONE` and the observation gates) and the gates it hides.
    pub main_gates: Vec<String>,
    pub hidden_gates: Vec<String>,
    pub components: Vec<Component>,
}

#[derive(Clone, Debug)]
pub struct DomainView {
    pub name: String,
    pub cond: String,
}

#[derive(Clone, Debug)]
pub struct HoldsView {
    pub k: usize,
    pub cond: String,
}

#[derive(Clone, Debug)]
pub struct RanksInit {
    pub k: usize,
    /// (agent, initial dense rank), D2: holders in id order.
    pub ranks: Vec<(usize, usize)>,
}

#[derive(Clone, Debug)]
pub struct RemoteParam {
    pub k: usize,
    /// The values of every location read remotely (a bound for `rv_k`).
    pub dom: String,
    /// `rsa_k (ra)`: the agents slot `k` can name (or `N_AGENTS`: unused).
    pub agents: Vec<String>,
    /// `rs_k (ra, rl)`: the slot unused, or one of the reads the steps make in it (its agents
    /// and its locations), one disjunct per kind of read.
    pub shapes: Vec<String>,
}

/// One remote read of a step, as the acting agent performs it before its `TICK`: the agent and
/// location are chosen among the slot's kinds of read (`rsa_k`, `rs_k`) and checked, then the
/// value is asked from the owner on `RD` (read locally for the agent's own location).
#[derive(Clone, Debug)]
pub struct ReadSlot {
    pub k: usize,
    /// The agents that can own the location (an `RDO_j` gate each).
    pub owners: Vec<usize>,
    /// The enabling conditions decided once the agent and location are chosen, and once the
    /// value is read (empty: none); see `early_checks`.
    pub guess_check: String,
    pub read_check: String,
}

#[derive(Clone, Debug)]
pub struct EnvParam {
    pub name: String,
    pub slot: usize,
    pub dom: String,
}

/// An observation label emitted when a slot changed: `GATE (!agent, !elem, !ARR[slot])`.
#[derive(Clone, Debug)]
pub struct ObsDiff {
    pub arr: &'static str,
    pub slot: usize,
    pub gate: String,
    pub elem: usize,
}

/// The `Assumptions` process: it receives the initial values the `assume` predicates read (`AINIT`
/// from agents, `AENV` from the environment) and takes part in the last `INIT` only if they
/// hold, so initial states violating an assumption never complete their initialisation.
#[derive(Clone, Debug)]
pub struct AssumeView {
    pub names: Vec<String>,
    pub gates: Vec<String>,
    pub q_max: usize,
    pub stages: Vec<StageView>,
    pub cond: String,
}

/// The values received before `INIT !j` (from the environment for `j = 0`, else agent `j-1`).
#[derive(Clone, Debug)]
pub struct StageView {
    pub j: usize,
    pub last: bool,
    pub reads: Vec<ReadView>,
}

#[derive(Clone, Debug)]
pub struct ReadView {
    pub q: usize,
    /// The agent id (`None`: an environment value, received on `AENV`).
    pub agent: Option<usize>,
    pub slot: usize,
    pub dom: String,
    pub comment: String,
}

/// The initialisation of one variable element.
#[derive(Clone, Debug)]
pub struct InitView {
    pub comment: String,
    /// A deterministic value, or the condition of a nondeterministic choice `any Int where`.
    pub value: Option<String>,
    pub cond: Option<String>,
    pub arr: &'static str,
    pub slot: usize,
    pub obs: Option<(String, usize)>,
    /// The agents (of this type) for which an `assume` predicate reads this element: they
    /// send it to `Assumptions` (for the environment: non-empty when it is read).
    pub ainit: Vec<usize>,
}

#[derive(Clone, Debug)]
pub struct SetEnvView {
    pub comment: String,
    pub lo: usize,
    pub hi: usize,
    pub dom: String,
}

#[derive(Clone, Debug)]
pub struct EnvView {
    pub gates: Vec<String>,
    pub inits: Vec<InitView>,
    pub setenv: Vec<SetEnvView>,
}

#[derive(Clone, Debug)]
pub struct SetEnvDiff {
    pub slot: usize,
    pub obs: Option<(String, usize)>,
}

/// One statement of a step function: if `cond` holds, the assignments in order, else the step
/// is disabled (`ok := false`).
#[derive(Clone, Debug)]
pub struct StmtView {
    pub comment: String,
    pub cond: String,
    pub assigns: Vec<(String, String)>,
}

/// The functions `en_<name>` (enabled?) and `st_<name>` (effect) of one edge.
#[derive(Clone, Debug)]
pub struct StepFn {
    pub name: String,
    pub comment: String,
    pub nd: Vec<String>,
    /// The enabling conditions checked one after the other (choices in range, remote reads,
    /// then each guard, outermost first): a later one is not evaluated when an earlier fails.
    pub guards: Vec<String>,
    /// Whether the step has an effect (`false` for `Skip`: no `st_` function).
    pub effect: bool,
    pub stmts: Vec<StmtView>,
    pub temps: Vec<String>,
    pub slots: Vec<String>,
    /// The remote reads of the step (`ra_k`, `rl_k`, `rv_k` parameters).
    pub remote: Vec<usize>,
}

#[derive(Clone, Debug)]
pub struct NdView {
    pub name: String,
    pub dom: String,
}

#[derive(Clone, Debug)]
pub struct EdgeView {
    pub comment: String,
    pub source: u32,
    pub target: u32,
    pub func: String,
    pub nd: Vec<NdView>,
    pub has_effect: bool,
    /// Environment slots the step may write: `SETENV` and, if observed, the observation label
    /// (emitted by the actor, before its `DONE`).
    pub setenv: Vec<SetEnvDiff>,
    pub writes: Vec<usize>,
    pub confirms: Vec<usize>,
    pub obs: Vec<ObsDiff>,
    /// The remote-read slots the step uses (`en_`/`st_` parameters), and how it reads them.
    pub remote: Vec<usize>,
    pub reads: Vec<ReadSlot>,
    /// The enabling conditions decided before any read (empty: none).
    pub start_check: String,
}

/// A value carried by a message: its offer variable, where the sender reads it, its domain.
#[derive(Clone, Debug)]
pub struct FieldView {
    pub name: String,
    pub src: String,
    pub slot: usize,
    pub dom: String,
}

#[derive(Clone, Debug)]
pub struct MsgView {
    pub k: usize,
    pub put: String,
    pub qry: String,
    pub comment: String,
    pub values: Vec<FieldView>,
    pub fields: Vec<FieldView>,
    pub link: String,
    pub obs: Vec<ObsDiff>,
}

#[derive(Clone, Debug)]
pub struct AgentView {
    pub process: String,
    pub type_name: String,
    pub first_id: usize,
    pub last_id: usize,
    pub gates: Vec<String>,
    pub initial: u32,
    pub inits: Vec<InitView>,
    pub edges: Vec<EdgeView>,
    pub held: Vec<MsgView>,
    pub not_held: Vec<MsgView>,
    /// Int variables for choices and message offers; Nat variables for remote reads.
    pub int_vars: Vec<String>,
    pub nat_vars: Vec<String>,
    /// Whether the loop body is a choice (false when yielding is all the agent can do).
    pub choice: bool,
    /// The readers that can read this type's agents (an `RDI_j` branch each).
    pub serves: Vec<usize>,
}

/// A process instance of the composition.
#[derive(Clone, Debug)]
pub struct Instance {
    pub process: String,
    /// The instance's own synchronisation interface in its `par` (empty: none; used when the
    /// agents' `par` synchronises the read gates pairwise).
    pub iface: Vec<String>,
    pub gates: Vec<String>,
    pub arg: Option<usize>,
    /// Observation gates this instance emits (hidden per leaf by the SVL scripts).
    pub obs_gates: Vec<String>,
}

/// A branch of the top-level parallel composition: its synchronisation interface, and either a
/// single instance or an inner `par` of instances synchronised on `inner_sync`.
#[derive(Clone, Debug)]
pub struct Component {
    pub comment: String,
    pub sync: Vec<String>,
    pub inner_sync: Vec<String>,
    pub instances: Vec<Instance>,
    /// The agents' component (receives the priority operator in the compositional script).
    pub agents: bool,
}

struct Ctx<'a> {
    model: &'a Model,
    analysis: &'a ValueAnalysis,
    undef: bool,
    observed: &'a BTreeSet<VarId>,
    doms: DomainTable,
    /// The values the `assume` predicates read.
    assumed: Vec<super::mcl::TrackKey>,
    /// Variables read from another agent (`x of e`) by some step, and the most reads a step makes.
    remote_vars: BTreeSet<VarId>,
    max_remote: usize,
    /// Per remote-read slot, the kinds of reads made in it: (agents, first location, end of the
    /// locations, values), deduplicated.
    remote_shapes: Vec<Vec<(IntervalSet, usize, usize, IntervalSet)>>,
    /// Per agent type, the kinds of reads its steps make: (agents, first location, end).
    type_reads: Vec<Vec<(IntervalSet, usize, usize)>>,
}

impl Ctx<'_> {
    fn dom(&mut self, s: &IntervalSet) -> String {
        self.doms.name(s)
    }
}

const INT_CHOICE: &str = "v";

fn store_array(s: Store) -> &'static str {
    match s {
        Store::Env => "E",
        Store::Attr => "I",
        Store::Stig { .. } => "L",
    }
}

/// Builds the program view. `observed` are the variables some emitted property reads.
pub fn build(
    model: &Model,
    behaviours: &[Behaviour],
    analysis: &ValueAnalysis,
    opts: &EmitOptions,
    observed: &BTreeSet<VarId>,
) -> Result<Program, EmitError> {
    let n = model.n_agents();
    if n == 0 {
        return Err(EmitError::unsupported("a system without agents", "every type is spawned 0 times"));
    }
    let assume_spec = super::mcl::assumptions(model, analysis)?;
    let assumed: Vec<super::mcl::TrackKey> = assume_spec.as_ref().map(|a| a.keys.clone()).unwrap_or_default();
    let mut cx = Ctx {
        model,
        analysis,
        undef: domains::model_has_undef(model),
        observed,
        doms: DomainTable::default(),
        assumed,
        remote_vars: BTreeSet::new(),
        max_remote: 0,
        remote_shapes: vec![],
        type_reads: vec![vec![]; model.agent_types.len()],
    };
    let has_env = model.env_len > 0;
    let has_tuples = !model.tuples.is_empty();

    // Environment values offered at TICK.
    let mut env_params = vec![];
    for (v, var) in model.vars.iter().enumerate() {
        if var.store == Store::Env {
            let set = domains::var_set(model, analysis, v, None);
            for k in 0..var.len {
                let dom = cx.dom(&set);
                env_params.push(EnvParam { name: format!("e_{}", var.offset + k), slot: var.offset + k, dom });
            }
        }
    }
    env_params.sort_by_key(|p| p.slot);
    let env_names: Vec<String> = env_params.iter().map(|p| p.name.clone()).collect();

    let env = if has_env { Some(env_view(&mut cx)?) } else { None };
    let assume = match &assume_spec {
        None => None,
        Some(a) => {
            let mut stages: Vec<StageView> = (0..=n).map(|j| StageView { j, last: j == n, reads: vec![] }).collect();
            for (q, k) in a.keys.iter().enumerate() {
                let var = &model.vars[k.1];
                let set = domains::var_set(model, analysis, k.1, k.0.map(|x| model.type_of(x)));
                let stage = k.0.map_or(0, |x| x + 1);
                stages[stage].reads.push(ReadView {
                    q,
                    agent: k.0,
                    slot: var.offset + k.2,
                    dom: cx.dom(&set),
                    comment: super::mcl::describe(model, k),
                });
            }
            Some(AssumeView {
                names: a.names.clone(),
                gates: vec![],
                q_max: a.keys.len().max(1) - 1,
                stages,
                cond: a.cond.clone(),
            })
        }
    };

    let mut steps = vec![];
    let mut agents = vec![];
    let mut local_max = 0;
    for (ty, b) in behaviours.iter().enumerate() {
        if model.agent_types[ty].count == 0 {
            continue;
        }
        let (a, s, lm) = agent_view(&mut cx, ty, b, &env_names, has_tuples)?;
        local_max = local_max.max(lm);
        agents.push(a);
        steps.extend(s);
    }

    let mut remote_set = IntervalSet::empty();
    for &v in &cx.remote_vars {
        remote_set.join_assign(&domains::var_set(model, analysis, v, None));
    }
    let remote: Vec<RemoteParam> = if cx.max_remote == 0 {
        vec![]
    } else {
        let dom = cx.dom(&remote_set.join(&IntervalSet::singleton(0)));
        let mut params = vec![];
        for k in 0..cx.max_remote {
            let mut shapes = vec![];
            let mut agent_conds = vec![];
            for (agents, lo, hi, _) in cx.remote_shapes[k].clone() {
                let ra = agent_cond(&mut cx, "ra", &agents);
                let rl = if hi == lo + 1 { format!("(rl == {lo})") } else { format!("(rl >= {lo}) and (rl < {hi})") };
                shapes.push(format!("({ra} and {rl})"));
                if !agent_conds.contains(&ra) {
                    agent_conds.push(ra);
                }
            }
            params.push(RemoteParam { k, dom: dom.clone(), agents: agent_conds, shapes });
        }
        params
    };
    // The read gates: a reader and an owner synchronise alone on `RD_r_o`, so the other agents
    // neither take part in a read nor enumerate its values.
    let mut rd_pairs: BTreeSet<(usize, usize)> = BTreeSet::new();
    let mut rdloc = vec![];
    for (ty, reads) in cx.type_reads.clone().iter().enumerate() {
        let t = &model.agent_types[ty];
        for (agents, lo, hi) in reads {
            for r in t.ids() {
                for o in 0..n {
                    if o != r && agents.contains(o as i64) {
                        rd_pairs.insert((r, o));
                    }
                }
            }
            let ro = format!("((r >= {}) and (r <= {}))", t.first_id, t.first_id + t.count - 1);
            let oc = agent_cond(&mut cx, "o", agents);
            let lc = if *hi == lo + 1 { format!("(l == {lo})") } else { format!("(l >= {lo}) and (l < {hi})") };
            let d = format!("({ro} and {oc} and {lc})");
            if !rdloc.contains(&d) {
                rdloc.push(d);
            }
        }
    }
    let rd_gates: Vec<String> = rd_pairs.iter().map(|&(r, o)| names::read_gate(r, o)).collect();
    for a in agents.iter_mut() {
        for k in 0..remote.len() {
            a.nat_vars.push(format!("ra_{k}"));
            a.nat_vars.push(format!("rl_{k}"));
            a.int_vars.push(format!("rv_{k}"));
        }
        if remote.is_empty() {
            continue;
        }
        a.nat_vars.push("rdl".into());
        a.gates.push(names::ABANDON.into());
        a.gates.push(TRY.into());
        a.gates.extend((0..n).map(|j| format!("RDO_{j}")));
        a.gates.extend((0..n).map(|j| format!("RDI_{j}")));
        let ids = a.first_id..=a.last_id;
        a.serves = (0..n).filter(|&r| ids.clone().any(|o| rd_pairs.contains(&(r, o)))).collect();
        a.choice |= !a.serves.is_empty();
        for e in a.edges.iter_mut() {
            for r in e.reads.iter_mut() {
                r.owners = (0..n)
                    .filter(|&o| {
                        cx.remote_shapes[r.k].iter().any(|(ag, ..)| ag.contains(o as i64))
                            && ids.clone().any(|i| rd_pairs.contains(&(i, o)))
                    })
                    .collect();
            }
        }
    }

    let mut holds = vec![];
    let mut ranks_init = vec![];
    for (k, t) in model.tuples.iter().enumerate() {
        let mut parts = vec![];
        let mut holders = vec![];
        for (ty, at) in model.agent_types.iter().enumerate() {
            if at.count > 0 && model.holds(ty, t.stigmergy) {
                parts.push(format!("((a >= {}) and (a <= {}))", at.first_id, at.first_id + at.count - 1));
                holders.extend(at.ids());
            }
        }
        let cond = match parts.len() {
            0 => "false".to_string(),
            1 => parts.pop().expect("one"),
            _ => format!("({})", parts.join(" or ")),
        };
        holds.push(HoldsView { k, cond });
        holders.sort_unstable();
        let base = usize::from(holders.len() < n);
        ranks_init.push(RanksInit { k, ranks: holders.iter().enumerate().map(|(i, &a)| (a, i + base)).collect() });
    }

    let obs_gates: Vec<String> = observed.iter().map(|&v| names::obs_gate(model, v)).collect();
    let mut main_gates = vec!["DONE".to_string()];
    if !remote.is_empty() {
        main_gates.push(names::ABANDON.into());
    }
    main_gates.extend(obs_gates.iter().cloned());
    let mut hidden_gates = vec!["TICK".to_string(), "INIT".to_string()];
    if assume.is_some() {
        hidden_gates.push("AINIT".into());
        if env.as_ref().is_some_and(|e| e.gates.iter().any(|g| g == "AENV")) {
            hidden_gates.push("AENV".into());
        }
    }
    if has_env {
        hidden_gates.push("SETENV".into());
    }
    if !remote.is_empty() {
        hidden_gates.push(TRY.into());
        hidden_gates.extend(rd_gates.iter().cloned());
        hidden_gates.push(RD_NONE.into());
    }
    if has_tuples {
        hidden_gates.push("REFRESH".into());
        hidden_gates.push("REQ".into());
        for k in 0..model.tuples.len() {
            hidden_gates.push(names::put_gate(k));
            hidden_gates.push(names::qry_gate(k));
        }
    }

    let mut components = components(model, &agents, env.as_ref(), assume.is_some(), opts.fair, has_env, has_tuples);
    if !remote.is_empty() {
        pair_read_gates(&mut components, &rd_pairs);
        add_lock(&mut components);
    }
    let mut assume = assume;
    if let Some(a) = assume.as_mut() {
        a.gates = components
            .iter()
            .flat_map(|c| &c.instances)
            .find(|i| i.process == "Assumptions")
            .map(|i| i.gates.clone())
            .unwrap_or_default();
    }
    let domains = cx
        .doms
        .sets
        .iter()
        .enumerate()
        .map(|(i, s)| DomainView { name: format!("dom_{i}"), cond: membership("v", s) })
        .collect();
    Ok(Program {
        module: opts.base.clone(),
        source: opts.source.clone(),
        dialect: opts.dialect,
        fair: opts.fair,
        n_agents: n,
        attr_max: model.attr_len.max(1) - 1,
        stig_max: model.stig_len.max(1) - 1,
        env_max: model.env_len.max(1) - 1,
        tuple_max: model.tuples.len().max(1) - 1,
        local_max: local_max.max(1) - 1,
        n_tuples: model.tuples.len(),
        undef: int_lit(domains::undef_value(model, analysis)),
        has_env,
        has_tuples,
        domains,
        holds,
        ranks_init,
        env_params,
        remote,
        locs: model.attr_len.max(1) + model.stig_len.max(1),
        rd_gates,
        rdloc,
        env,
        assume,
        steps,
        agents,
        main_gates,
        hidden_gates,
        components,
    })
}

/// The gate on which an agent takes the lock of read attempts.
const TRY: &str = "TRY";

/// The `Lock` process: one read attempt at a time, so that the attempts of different readers
/// do not interleave. It takes part in `TRY` (taken), `ABANDON` and every `DONE` (released).
fn add_lock(components: &mut Vec<Component>) {
    let gates: Vec<String> = vec![TRY.into(), names::ABANDON.into(), "DONE".into()];
    if let Some(c) = components.iter_mut().find(|c| c.agents) {
        for g in &gates {
            if !c.sync.contains(g) {
                c.sync.push(g.clone());
            }
        }
    }
    let at = components.iter().position(|c| c.agents).unwrap_or(components.len());
    components.insert(
        at,
        Component {
            comment: "one read attempt at a time".into(),
            sync: gates.clone(),
            inner_sync: vec![],
            instances: vec![Instance { process: "Lock".into(), iface: vec![], gates, arg: None, obs_gates: vec![] }],
            agents: false,
        },
    );
}

/// The gate an agent's unused read gates are bound to: no agent ever offers it.
const RD_NONE: &str = "RD_NONE";

/// `x` (a Nat variable) is one of `agents`.
fn agent_cond(cx: &mut Ctx, x: &str, agents: &IntervalSet) -> String {
    match agents.as_singleton() {
        Some(a) => format!("({x} == {a})"),
        None => format!("{} (NatToInt ({x}))", cx.dom(agents)),
    }
}

/// Binds each agent instance's read gates (`RDO_j`: it reads `j`; `RDI_j`: `j` reads it) to
/// the pairwise gates `RD_r_o`, and gives each instance its own interface: the agents'
/// common gates and its read gates, so that a read synchronises its two parties alone.
fn pair_read_gates(components: &mut [Component], pairs: &BTreeSet<(usize, usize)>) {
    let Some(c) = components.iter_mut().find(|c| c.agents) else { return };
    let alone = c.instances.len() == 1;
    let common = if alone { vec![] } else { std::mem::take(&mut c.inner_sync) };
    for inst in c.instances.iter_mut() {
        let Some(id) = inst.arg else { continue };
        let bind = |r: usize, o: usize| {
            if pairs.contains(&(r, o)) { names::read_gate(r, o) } else { RD_NONE.to_string() }
        };
        let mut own = vec![];
        for g in inst.gates.iter_mut() {
            let bound = if let Some(j) = g.strip_prefix("RDO_").and_then(|j| j.parse::<usize>().ok()) {
                bind(id, j)
            } else if let Some(j) = g.strip_prefix("RDI_").and_then(|j| j.parse::<usize>().ok()) {
                bind(j, id)
            } else {
                continue;
            };
            if bound != RD_NONE && !own.contains(&bound) {
                own.push(bound.clone());
            }
            *g = bound;
        }
        if !alone {
            inst.iface = common.iter().cloned().chain(own).collect();
        }
    }
}

fn init_view(
    cx: &mut Ctx,
    var: VarId,
    k: usize,
    init: &Init,
    ty: Option<TypeId>,
    obs: Option<(String, usize)>,
) -> Result<InitView, EmitError> {
    let m = cx.model;
    let v = &m.vars[var];
    let p = Printer {
        model: m,
        scope: if ty.is_none() { Scope::EnvInit } else { Scope::Agent },
        nd: &[],
        undef: false,
        remote: &[],
    };
    let (value, cond) = match init {
        Init::Undef => (Some("UNDEF".to_string()), None),
        Init::Single(e) => (Some(p.expr(e)?), None),
        Init::Choice(es) => {
            let parts = es
                .iter()
                .map(|e| Ok(format!("({INT_CHOICE} == {})", p.expr(e)?)))
                .collect::<Result<Vec<_>, EmitError>>()?;
            (None, Some(if parts.len() == 1 { parts[0].clone() } else { format!("({})", parts.join(" or ")) }))
        }
        Init::Range(a, b) => {
            (None, Some(format!("(({INT_CHOICE} >= {}) and ({INT_CHOICE} < {}))", p.expr(a)?, p.expr(b)?)))
        }
    };
    let ainit: Vec<usize> =
        cx.assumed.iter().filter(|(_, x, e)| *x == var && *e == k).map(|(a, _, _)| a.unwrap_or(0)).collect();
    let ainit = match ty {
        Some(t) => ainit.into_iter().filter(|a| m.agent_types[t].ids().contains(a)).collect(),
        None => ainit,
    };
    Ok(InitView {
        comment: format!("{} := {}", v.element_name(k), print::init(m, init)),
        value,
        cond,
        arr: store_array(v.store),
        slot: v.offset + k,
        obs,
        ainit,
    })
}

fn env_view(cx: &mut Ctx) -> Result<EnvView, EmitError> {
    let m = cx.model;
    let mut gates = vec!["TICK".to_string(), "SETENV".into(), "INIT".into()];
    let mut inits = vec![];
    let mut setenv = vec![];
    for (v, var) in m.vars.iter().enumerate() {
        if var.store != Store::Env {
            continue;
        }
        let observed = cx.observed.contains(&v);
        let gate = names::obs_gate(m, v);
        if observed {
            gates.push(gate.clone());
        }
        let init = var.init_for(None).cloned().unwrap_or(Init::Single(Expr::Const(0)));
        for k in 0..var.len {
            inits.push(init_view(cx, v, k, &init, None, observed.then(|| (gate.clone(), k)))?);
        }
        let set = domains::var_set(m, cx.analysis, v, None);
        setenv.push(SetEnvView {
            comment: var.name.clone(),
            lo: var.offset,
            hi: var.offset + var.len,
            dom: cx.dom(&set),
        });
    }
    if inits.iter().any(|i| !i.ainit.is_empty()) {
        gates.push("AENV".into());
    }
    Ok(EnvView { gates, inits, setenv })
}

/// The variables an agent of type `ty` holds: its attributes, then the stigmergic variables of
/// the stigmergies it holds, each in slot order (this is also its initialisation order).
fn agent_vars(m: &Model, ty: TypeId) -> Vec<VarId> {
    let t = &m.agent_types[ty];
    let mut attrs: Vec<VarId> = t.attrs.clone();
    attrs.sort_by_key(|&v| m.vars[v].offset);
    let mut stigs: Vec<VarId> = (0..m.vars.len())
        .filter(|&v| matches!(m.vars[v].store, Store::Stig { stigmergy, .. } if t.stigmergies.contains(&stigmergy)))
        .collect();
    stigs.sort_by_key(|&v| m.vars[v].offset);
    attrs.extend(stigs);
    attrs
}

fn obs_diffs(cx: &Ctx, vars: &BTreeSet<VarId>) -> Vec<ObsDiff> {
    let m = cx.model;
    let mut out = vec![];
    let mut vs: Vec<VarId> =
        vars.iter().copied().filter(|v| cx.observed.contains(v) && m.vars[*v].store != Store::Env).collect();
    vs.sort_by_key(|&v| (store_array(m.vars[v].store), m.vars[v].offset));
    for v in vs {
        let var = &m.vars[v];
        for k in 0..var.len {
            out.push(ObsDiff {
                arr: store_array(var.store),
                slot: var.offset + k,
                gate: names::obs_gate(m, v),
                elem: k,
            });
        }
    }
    out
}

type AgentParts = (AgentView, Vec<StepFn>, usize);

fn agent_view(
    cx: &mut Ctx,
    ty: TypeId,
    b: &Behaviour,
    env_names: &[String],
    has_tuples: bool,
) -> Result<AgentParts, EmitError> {
    let has_env = !env_names.is_empty();
    let m = cx.model;
    let t = &m.agent_types[ty];
    let tname = names::type_ident(m, ty);
    let mut gates = vec!["TICK".to_string(), "DONE".into(), "INIT".into()];
    if !m.assumptions.is_empty() {
        gates.push("AINIT".into());
    }
    if has_env {
        gates.push("SETENV".into());
    }
    if has_tuples {
        gates.push("REFRESH".into());
        gates.push("REQ".into());
        for k in 0..m.tuples.len() {
            gates.push(names::put_gate(k));
            gates.push(names::qry_gate(k));
        }
    }
    for (v, var) in m.vars.iter().enumerate() {
        if var.store == Store::Env && cx.observed.contains(&v) {
            gates.push(names::obs_gate(m, v));
        }
    }
    let vars = agent_vars(m, ty);
    let mut inits = vec![];
    for &v in &vars {
        let var = &m.vars[v];
        let observed = cx.observed.contains(&v);
        let gate = names::obs_gate(m, v);
        if observed && !gates.contains(&gate) {
            gates.push(gate.clone());
        }
        let key = if var.store == Store::Attr { Some(ty) } else { None };
        let init = var.init_for(key).cloned().unwrap_or(Init::Single(Expr::Const(0)));
        for k in 0..var.len {
            inits.push(init_view(cx, v, k, &init, Some(ty), observed.then(|| (gate.clone(), k)))?);
        }
    }

    let mut int_vars: Vec<String> = env_names.to_vec();
    let mut steps = vec![];
    let mut edges = vec![];
    let mut local_max = 0;
    for (s, out) in b.edges.iter().enumerate() {
        for (i, e) in out.iter().enumerate() {
            let name = format!("{tname}_{s}_{i}");
            let (f, ev, locals) = step_fn(cx, ty, &name, s as u32, e)?;
            local_max = local_max.max(locals);
            for nd in &ev.nd {
                if !int_vars.contains(&nd.name) {
                    int_vars.push(nd.name.clone());
                }
            }
            steps.push(f);
            edges.push(ev);
        }
    }

    let mut held = vec![];
    let mut not_held = vec![];
    for (k, tuple) in m.tuples.iter().enumerate() {
        let msg = msg_view(cx, ty, k)?;
        for f in msg.values.iter().chain(&msg.fields) {
            if !int_vars.contains(&f.name) {
                int_vars.push(f.name.clone());
            }
        }
        if m.holds(ty, tuple.stigmergy) { held.push(msg) } else { not_held.push(msg) }
    }
    let choice = !(edges.is_empty() && held.is_empty() && not_held.is_empty());
    let view = AgentView {
        process: names::agent_process(m, ty),
        type_name: t.name.clone(),
        first_id: t.first_id,
        last_id: t.first_id + t.count - 1,
        gates,
        initial: b.initial,
        inits,
        edges,
        held,
        choice,
        not_held,
        int_vars,
        nat_vars: vec![],
        serves: vec![],
    };
    Ok((view, steps, local_max))
}

/// Collects the `[a..b]` nodes of an expression in evaluation order.
fn nondets<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::NonDet(a, b) => {
            nondets(a, out);
            nondets(b, out);
            out.push(e);
        }
        Expr::Const(_) | Expr::QVar(_) => {}
        Expr::AgentId(o) => {
            if let AgentRef::Of(x) = o {
                nondets(x, out)
            }
        }
        Expr::Var(r) => {
            r.indices.iter().for_each(|i| nondets(i, out));
            if let AgentRef::Of(x) = &r.owner {
                nondets(x, out)
            }
        }
        Expr::Local { index, .. } => {
            if let Some(i) = index {
                nondets(i, out)
            }
        }
        Expr::Neg(a) | Expr::Abs(a) => nondets(a, out),
        Expr::Bin(_, a, b) | Expr::MinMax(_, a, b) => {
            nondets(a, out);
            nondets(b, out);
        }
        Expr::If(c, a, b) => {
            bnondets(c, out);
            nondets(a, out);
            nondets(b, out);
        }
    }
}

fn bnondets<'e>(b: &'e crate::model::BExpr, out: &mut Vec<&'e Expr>) {
    use crate::model::BExpr;
    match b {
        BExpr::Const(_) => {}
        BExpr::Not(x) => bnondets(x, out),
        BExpr::Cmp(_, x, y) => {
            nondets(x, out);
            nondets(y, out);
        }
        BExpr::And(x, y) | BExpr::Or(x, y) => {
            bnondets(x, out);
            bnondets(y, out);
        }
    }
}

/// Collects the reads of another agent's variable (`x of e`, not environment variables) in an
/// expression, inner ones first.
fn remote_reads<'e>(m: &Model, e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::Var(r) => {
            r.indices.iter().for_each(|i| remote_reads(m, i, out));
            if let AgentRef::Of(x) = &r.owner {
                remote_reads(m, x, out);
                if m.vars[r.var].store != Store::Env {
                    out.push(e);
                }
            }
        }
        Expr::Const(_) | Expr::QVar(_) => {}
        Expr::AgentId(o) => {
            if let AgentRef::Of(x) = o {
                remote_reads(m, x, out)
            }
        }
        Expr::Local { index, .. } => {
            if let Some(i) = index {
                remote_reads(m, i, out)
            }
        }
        Expr::Neg(a) | Expr::Abs(a) => remote_reads(m, a, out),
        Expr::Bin(_, a, b) | Expr::MinMax(_, a, b) | Expr::NonDet(a, b) => {
            remote_reads(m, a, out);
            remote_reads(m, b, out);
        }
        Expr::If(c, a, b) => {
            bremote_reads(m, c, out);
            remote_reads(m, a, out);
            remote_reads(m, b, out);
        }
    }
}

fn bremote_reads<'e>(m: &Model, b: &'e crate::model::BExpr, out: &mut Vec<&'e Expr>) {
    use crate::model::BExpr;
    match b {
        BExpr::Const(_) => {}
        BExpr::Not(x) => bremote_reads(m, x, out),
        BExpr::Cmp(_, x, y) => {
            remote_reads(m, x, out);
            remote_reads(m, y, out);
        }
        BExpr::And(x, y) | BExpr::Or(x, y) => {
            bremote_reads(m, x, out);
            bremote_reads(m, y, out);
        }
    }
}

/// The conjuncts of a guard (`a and b` is checked as `a`, then `b`).
fn conjuncts(b: &crate::model::BExpr) -> Vec<&crate::model::BExpr> {
    match b {
        crate::model::BExpr::And(x, y) => {
            let mut out = conjuncts(x);
            out.extend(conjuncts(y));
            out
        }
        _ => vec![b],
    }
}

/// Where the acting agent checks each enabling condition while it reads: a condition is
/// checked as soon as the slots it names are chosen (`ra_k`, `rl_k`) or read (`rv_k`), so that
/// an attempt that cannot succeed stops before reading more; a condition on the environment
/// waits for `TICK`. `en_` checks them all again at `TICK`: these are early cuts, not the
/// definition. The guards' conjuncts keep their order (a conjunct may rely on the ones before
/// it for its definedness); the checks of the reads' agents and locations are placed alone.
/// Returns the checks made before any read and, per slot, after its choice and after its read.
fn early_checks(n_remote: usize, read_parts: &[String], guard_conjuncts: &[String]) -> (String, Vec<ReadSlot>) {
    // Position 0 is the start; 2k + 1 after slot k's choice; 2k + 2 after its read; None: at TICK.
    fn position(c: &str) -> Option<usize> {
        if c.contains("E[") || c.contains("LOC[") {
            return None;
        }
        let mut pos = 0;
        for (i, _) in c.match_indices('_') {
            let head = &c[..i];
            let kind = ["ra", "rl", "rv"].into_iter().find(|k| head.ends_with(k));
            let Some(kind) = kind else { continue };
            let before = head[..head.len() - 2].chars().next_back();
            if before.is_some_and(|b| b.is_alphanumeric() || b == '_') {
                continue;
            }
            let digits: String = c[i + 1..].chars().take_while(|d| d.is_ascii_digit()).collect();
            let Ok(k) = digits.parse::<usize>() else { continue };
            pos = pos.max(if kind == "rv" { 2 * k + 2 } else { 2 * k + 1 });
        }
        Some(pos)
    }
    let mut at: Vec<Vec<String>> = vec![vec![]; 2 * n_remote + 1];
    for c in read_parts {
        if let Some(p) = position(c) {
            at[p].push(c.clone());
        }
    }
    let mut floor = Some(0);
    for c in guard_conjuncts {
        floor = match (floor, position(c)) {
            (Some(f), Some(p)) => Some(f.max(p)),
            _ => None,
        };
        let Some(f) = floor else { break };
        at[f].push(c.clone());
    }
    let text = |cs: &[String]| if cs.is_empty() { String::new() } else { conj(cs) };
    let reads = (0..n_remote)
        .map(|k| ReadSlot { k, owners: vec![], guess_check: text(&at[2 * k + 1]), read_check: text(&at[2 * k + 2]) })
        .collect();
    (text(&at[0]), reads)
}

/// Whether a remote read's agent and indices are constant expressions of the step.
fn is_static_read(e: &Expr) -> bool {
    fn st(e: &Expr) -> bool {
        match e {
            Expr::Const(_) | Expr::AgentId(AgentRef::Own) => true,
            Expr::Neg(a) | Expr::Abs(a) => st(a),
            Expr::Bin(_, a, b) | Expr::MinMax(_, a, b) => st(a) && st(b),
            _ => false,
        }
    }
    match e {
        Expr::Var(r) => match &r.owner {
            AgentRef::Of(a) => st(a) && r.indices.iter().all(st),
            _ => false,
        },
        _ => false,
    }
}

/// Whether `e` is made of integer literals alone (no variable, agent or local).
fn is_literal(e: &Expr) -> bool {
    match e {
        Expr::Const(_) => true,
        Expr::Neg(a) | Expr::Abs(a) => is_literal(a),
        Expr::Bin(_, a, b) | Expr::MinMax(_, a, b) => is_literal(a) && is_literal(b),
        _ => false,
    }
}

/// The checks of remote reads: the value received as `rv_k` is agent `e`'s element (the
/// agent id and location offered with `TICK` are those the step computes), `e` defined.
fn remote_checks(p: &Printer, nodes: &[&Expr], names: &[(*const Expr, String)]) -> Result<Vec<String>, EmitError> {
    let mut out = vec![];
    for e in nodes {
        let Expr::Var(r) = e else { continue };
        let AgentRef::Of(a) = &r.owner else { continue };
        let name = &names.iter().find(|(q, _)| std::ptr::eq(*q, *e)).expect("named remote read").1;
        let k = name.trim_start_matches("rv_");
        out.extend(p.def(a)?);
        for i in &r.indices {
            out.extend(p.def(i)?);
        }
        // A read the step does not perform (e.g. short-circuited) may name no agent: the slot
        // is then offered unused, `(N_AGENTS, 0, 0)`, which is allowed only for such ids.
        // An agent id made of literals alone (`0 + 1`) is typed: Nat or Int would be ambiguous.
        let agent = if is_literal(a) { format!("({} of Int)", p.expr(a)?) } else { p.expr(a)? };
        out.push(format!(
            "((NatToInt (ra_{k}) == {agent}) or ((ra_{k} == N_AGENTS) and (({agent} < 0) or ({agent} >= NatToInt (N_AGENTS)))))"
        ));
        out.push(format!("((ra_{k} == N_AGENTS) or (rl_{k} == {}))", p.location(r.var, &r.indices)?));
    }
    let mut uniq = vec![];
    for c in out {
        if !uniq.contains(&c) {
            uniq.push(c);
        }
    }
    Ok(uniq)
}

/// `c` with the quantified variables replaced by the agent ids `qv`.
fn bsubst_q(c: &crate::model::BExpr, qv: &[i64]) -> crate::model::BExpr {
    c.map(&mut QuantIds(qv))
}

/// Replaces quantified variables by agent ids.
struct QuantIds<'a>(&'a [i64]);

impl crate::model::Rewrite for QuantIds<'_> {
    fn expr(&mut self, e: &Expr) -> Option<Expr> {
        match e {
            Expr::QVar(i) => Some(Expr::Const(self.0[*i])),
            _ => None,
        }
    }
}

/// A quantified predicate expanded over the agents of its types (textual nesting order).
fn expand_quants(m: &Model, q: &crate::model::QPred, i: usize, qv: &mut Vec<i64>) -> crate::model::BExpr {
    use crate::model::BExpr;
    use crate::syntax::ast::QuantKind;
    if i == q.quants.len() {
        return bsubst_q(&q.body, qv);
    }
    let (kind, ty) = q.quants[i];
    let mut acc: Option<BExpr> = None;
    for a in m.agent_types[ty].ids() {
        qv.push(a as i64);
        let x = expand_quants(m, q, i + 1, qv);
        qv.pop();
        acc = Some(match (acc, kind) {
            (None, _) => x,
            (Some(p), QuantKind::Forall) => BExpr::And(Box::new(p), Box::new(x)),
            (Some(p), QuantKind::Exists) => BExpr::Or(Box::new(p), Box::new(x)),
        });
    }
    acc.unwrap_or(BExpr::Const(kind == QuantKind::Forall))
}

/// A statement of a block after lowering.
enum Lowered {
    Stmt(Stmt),
    Check(crate::model::BExpr),
}

/// A `pick … where` filter for the candidate stored in local slot `cand`: `c1` is the picker,
/// `c2` the candidate (whose variables become remote reads).
fn pick_filter(f: &crate::model::BExpr, cand: usize) -> crate::model::BExpr {
    f.map(&mut Candidate(cand))
}

/// Reads `c1` as the picker and `c2` as the candidate stored in a local slot.
struct Candidate(usize);

impl crate::model::Rewrite for Candidate {
    fn expr(&mut self, e: &Expr) -> Option<Expr> {
        match e {
            Expr::AgentId(AgentRef::C2) => Some(Expr::Local { slot: self.0, len: 1, index: None }),
            _ => None,
        }
    }
    fn owner(&mut self, o: &AgentRef) -> Option<AgentRef> {
        match o {
            AgentRef::C1 => Some(AgentRef::Own),
            AgentRef::C2 => Some(AgentRef::Of(Box::new(Expr::Local { slot: self.0, len: 1, index: None }))),
            _ => None,
        }
    }
}

/// `b := forall/exists …` and `c := count T x, φ` as local assignments: `if φ' then 1 else 0`
/// and a sum of those over the agents of `T`; `p[] := pick k T where φ` as the choice then one
/// check of `φ` per candidate. Other statements are unchanged.
fn lower_stmt(m: &Model, st: &Stmt) -> Vec<Lowered> {
    if let Stmt::Pick { slot, count, agent_type, filter: Some(f) } = st {
        let mut out =
            vec![Lowered::Stmt(Stmt::Pick { slot: *slot, count: *count, agent_type: *agent_type, filter: None })];
        out.extend((0..*count).map(|k| Lowered::Check(pick_filter(f, slot + k))));
        return out;
    }
    vec![Lowered::Stmt(lower_one(m, st))]
}

fn lower_one(m: &Model, st: &Stmt) -> Stmt {
    let one_if = |c: crate::model::BExpr| Expr::If(Box::new(c), Box::new(Expr::Const(1)), Box::new(Expr::Const(0)));
    let local = |slot: usize, value: Expr| Stmt::Local {
        slots: vec![crate::model::LocalTarget { slot, len: 1, index: None }],
        values: vec![value],
    };
    match st {
        Stmt::Quant { slot, pred } => local(*slot, one_if(expand_quants(m, pred, 0, &mut vec![]))),
        Stmt::Count { slot, agent_type, pred } => {
            let mut sum: Option<Expr> = None;
            for a in m.agent_types[*agent_type].ids() {
                let x = one_if(bsubst_q(pred, &[a as i64]));
                sum = Some(match sum {
                    None => x,
                    Some(s) => Expr::Bin(crate::syntax::ast::BinOp::Add, Box::new(s), Box::new(x)),
                });
            }
            local(*slot, sum.unwrap_or(Expr::Const(0)))
        }
        other => other.clone(),
    }
}

/// The statements of a step, as (statement, comment).
fn stmts_of(a: &crate::model::Action) -> Vec<&Stmt> {
    match &a.kind {
        ActionKind::Block { stmts, .. } => stmts.iter().collect(),
        ActionKind::Assign(_) => vec![],
    }
}

fn assign_text(m: &Model, a: &Assign) -> String {
    let lhs: Vec<String> = a
        .targets
        .iter()
        .map(|t| {
            let v = &m.vars[t.var];
            if t.indices.is_empty() {
                v.name.clone()
            } else {
                let idx: Vec<String> = t.indices.iter().map(|i| print::expr(m, i)).collect();
                format!("{}[{}]", v.name, idx.join(", "))
            }
        })
        .collect();
    let arrow = match a.targets.first().map(|t| m.vars[t.var].store) {
        Some(Store::Env) => "<--",
        Some(Store::Stig { .. }) => "<~",
        _ => "<-",
    };
    let rhs: Vec<String> = a.values.iter().map(|e| print::expr(m, e)).collect();
    format!("{} {arrow} {}", lhs.join(", "), rhs.join(", "))
}

/// The nondeterminism checks of the `[a..b]` nodes `nds`: bounds defined, choice in range.
fn nd_checks(p: &Printer, nds: &[&Expr], names: &[(*const Expr, String)]) -> Result<Vec<String>, EmitError> {
    let mut out = vec![];
    for e in nds {
        let Expr::NonDet(a, b) = e else { continue };
        let name = &names.iter().find(|(q, _)| std::ptr::eq(*q, *e)).expect("named choice").1;
        out.extend(p.def(a)?);
        out.extend(p.def(b)?);
        out.push(format!("({name} >= {})", p.expr(a)?));
        out.push(format!("({name} < {})", p.expr(b)?));
    }
    Ok(out)
}

fn step_fn(
    cx: &mut Ctx,
    ty: TypeId,
    name: &str,
    source: u32,
    e: &Edge,
) -> Result<(StepFn, EdgeView, usize), EmitError> {
    let m = cx.model;
    let mut abs = Abs { model: m, analysis: cx.analysis, ty, locals: vec![] };
    // The choices of the step, in order: [a..b] in guards, then per statement.
    let mut guard_nd: Vec<&Expr> = vec![];
    for g in &e.guards {
        bnondets(g, &mut guard_nd);
    }
    let mut nd_names: Vec<(*const Expr, String)> = vec![];
    let mut nd_views: Vec<NdView> = vec![];
    for x in &guard_nd {
        let Expr::NonDet(a, b) = x else { continue };
        let nm = format!("nd_{}", nd_views.len());
        let dom = abs.nondet_domain(a, b);
        nd_views.push(NdView { name: nm.clone(), dom: cx.dom(&dom) });
        nd_names.push((*x as *const Expr, nm));
    }

    // Statements (an assignment is a one-statement block).
    enum S<'a> {
        Assign(&'a Assign),
        Stmt(&'a Stmt),
        /// A condition the step needs (a `pick … where` filter on a chosen candidate).
        Check(&'a crate::model::BExpr),
    }
    // `forall`/`exists`/`count` statements become local assignments of their expansion over
    // the agents of the type (their reads of other agents are remote reads); a `pick … where`
    // becomes the choice followed by one check of the filter per chosen candidate.
    let lowered: Vec<Lowered> = match &e.step {
        Step::Act(a) => stmts_of(a).into_iter().flat_map(|st| lower_stmt(m, st)).collect(),
        Step::Skip => vec![],
    };
    let (list, locals): (Vec<S>, usize) = match &e.step {
        Step::Skip => (vec![], 0),
        Step::Act(a) => match &a.kind {
            ActionKind::Assign(x) => (vec![S::Assign(x)], 0),
            ActionKind::Block { locals, .. } => (
                lowered
                    .iter()
                    .map(|l| match l {
                        Lowered::Stmt(st) => S::Stmt(st),
                        Lowered::Check(b) => S::Check(b),
                    })
                    .collect(),
                *locals,
            ),
        },
    };
    abs.locals = vec![IntervalSet::empty(); locals];
    // First pass: name the choices of each statement (domains from the abstract locals).
    let mut stmt_nd: Vec<Vec<&Expr>> = vec![];
    let mut stmt_rm: Vec<Vec<&Expr>> = vec![];
    let mut guard_rm: Vec<&Expr> = vec![];
    for g in &e.guards {
        bremote_reads(m, g, &mut guard_rm);
    }
    let mut pick_names: Vec<Vec<String>> = vec![];
    for s in &list {
        let mut nds = vec![];
        let mut rms = vec![];
        let mut picks = vec![];
        match *s {
            S::Assign(a) | S::Stmt(Stmt::Assign(a)) => {
                for t in &a.targets {
                    t.indices.iter().for_each(|i| nondets(i, &mut nds));
                    t.indices.iter().for_each(|i| remote_reads(m, i, &mut rms));
                }
                a.values.iter().for_each(|v| nondets(v, &mut nds));
                a.values.iter().for_each(|v| remote_reads(m, v, &mut rms));
            }
            S::Stmt(Stmt::Local { slots, values }) => {
                slots.iter().filter_map(|s| s.index.as_ref()).for_each(|i| nondets(i, &mut nds));
                values.iter().for_each(|v| nondets(v, &mut nds));
                slots.iter().filter_map(|s| s.index.as_ref()).for_each(|i| remote_reads(m, i, &mut rms));
                values.iter().for_each(|v| remote_reads(m, v, &mut rms));
                for (sl, v) in slots.iter().zip(values) {
                    let val = abs.expr(v);
                    for k in sl.slot..sl.slot + sl.len {
                        if let Some(x) = abs.locals.get_mut(k) {
                            x.join_assign(&val);
                        }
                    }
                }
            }
            S::Stmt(Stmt::Pick { slot, count, agent_type, .. }) => {
                let ids = domains::ids(m, *agent_type);
                for k in 0..*count {
                    let nm = format!("nd_{}", nd_views.len());
                    nd_views.push(NdView { name: nm.clone(), dom: cx.dom(&ids) });
                    picks.push(nm);
                    if let Some(x) = abs.locals.get_mut(slot + k) {
                        x.join_assign(&ids);
                    }
                }
            }
            S::Check(b) => {
                bnondets(b, &mut nds);
                bremote_reads(m, b, &mut rms);
            }
            S::Stmt(Stmt::Quant { .. } | Stmt::Count { .. }) => unreachable!("lowered to local assignments"),
        }
        for x in &nds {
            let Expr::NonDet(a, b) = x else { continue };
            let nm = format!("nd_{}", nd_views.len());
            let dom = abs.nondet_domain(a, b);
            nd_views.push(NdView { name: nm.clone(), dom: cx.dom(&dom) });
            nd_names.push((*x as *const Expr, nm));
        }
        stmt_nd.push(nds);
        stmt_rm.push(rms);
        pick_names.push(picks);
    }
    // One slot per location read: another agent's state does not change during the step, so
    // the same read written twice shares a slot when its agent and indices cannot change in
    // between: within the guards or within one statement (evaluated before any of its writes),
    // or anywhere in the step when they are constant expressions.
    let mut remote_names: Vec<(*const Expr, String)> = vec![];
    let mut seen: Vec<(&Expr, usize, String)> = vec![];
    let segments = std::iter::once(&guard_rm).chain(stmt_rm.iter()).enumerate();
    for (seg, x) in segments.flat_map(|(seg, rms)| rms.iter().map(move |x| (seg, x))) {
        let name = match seen.iter().find(|(y, s, _)| *y == *x && (*s == seg || is_static_read(x))) {
            Some((_, _, n)) => n.clone(),
            None => {
                let n = format!("rv_{}", seen.len());
                seen.push((x, seg, n.clone()));
                n
            }
        };
        remote_names.push((*x as *const Expr, name));
    }
    let n_remote = seen.len();
    // What each slot can carry: the agents the read can name, the locations of the variable
    // (the element when the indices are constant) and its values.
    // (Locals start at 0 in `st_E`, before any statement assigns them.)
    let n_agents = m.n_agents() as i64;
    let zero = IntervalSet::singleton(0);
    let abs_any =
        Abs { model: m, analysis: cx.analysis, ty, locals: abs.locals.iter().map(|l| l.join(&zero)).collect() };
    for (k, (x, _, _)) in seen.iter().enumerate() {
        let Expr::Var(r) = x else { continue };
        let AgentRef::Of(a) = &r.owner else { continue };
        let agents = abs_any.expr(a).defined().meet(&IntervalSet::range(0, n_agents - 1));
        let v = &m.vars[r.var];
        let base = match v.store {
            Store::Stig { .. } => m.attr_len.max(1) + v.offset,
            _ => v.offset,
        };
        let consts: Option<Vec<usize>> =
            r.indices.iter().map(|e| if let Expr::Const(c) = e { usize::try_from(*c).ok() } else { None }).collect();
        let (lo, hi) = match consts {
            Some(cs) if cs.iter().zip(&v.dims).all(|(c, d)| c < d) => {
                let mut flat = 0;
                let mut stride = v.len;
                for (c, d) in cs.iter().zip(&v.dims) {
                    stride /= d;
                    flat += c * stride;
                }
                (base + flat, base + flat + 1)
            }
            _ => (base, base + v.len.max(1)),
        };
        let values = domains::var_set(m, cx.analysis, r.var, None).join(&zero);
        if cx.remote_shapes.len() <= k {
            cx.remote_shapes.resize(k + 1, vec![]);
        }
        let read = (agents.clone(), lo, hi);
        if !cx.type_reads[ty].contains(&read) {
            cx.type_reads[ty].push(read);
        }
        let shape = (agents, lo, hi, values);
        if !cx.remote_shapes[k].contains(&shape) {
            cx.remote_shapes[k].push(shape);
        }
    }
    for x in guard_rm.iter().chain(stmt_rm.iter().flatten()) {
        if let Expr::Var(r) = x {
            cx.remote_vars.insert(r.var);
        }
    }
    cx.max_remote = cx.max_remote.max(n_remote);
    let remote: Vec<usize> = (0..n_remote).collect();

    let p = Printer { model: m, scope: Scope::Agent, nd: &nd_names, undef: cx.undef, remote: &remote_names };
    let nd_parts = nd_checks(&p, &guard_nd, &nd_names)?;
    let read_parts = remote_checks(&p, &guard_rm, &remote_names)?;
    let mut guard_parts = nd_parts.clone();
    guard_parts.extend(read_parts.iter().cloned());
    let mut guard_conjuncts = nd_parts;
    for g in &e.guards {
        guard_parts.push(p.guard(g)?);
        for c in conjuncts(g) {
            guard_conjuncts.push(p.guard(c)?);
        }
    }
    let guards = guard_parts;
    // A statement's read of a constant agent and location can be checked before `TICK` as
    // well (every statement is evaluated when the step is enabled).
    let static_reads: Vec<&Expr> = stmt_rm.iter().flatten().copied().filter(|x| is_static_read(x)).collect();
    let mut read_parts = read_parts;
    for c in remote_checks(&p, &static_reads, &remote_names)? {
        if !read_parts.contains(&c) {
            read_parts.push(c);
        }
    }
    let (start_check, reads) = early_checks(n_remote, &read_parts, &guard_conjuncts);

    let mut temps: Vec<String> = vec![];
    let mut slots: Vec<String> = vec![];
    let mut written: BTreeSet<VarId> = BTreeSet::new();
    let mut stmts = vec![];
    for (si, s) in list.iter().enumerate() {
        let mut cond = nd_checks(&p, &stmt_nd[si], &nd_names)?;
        cond.extend(remote_checks(&p, &stmt_rm[si], &remote_names)?);
        let mut assigns = vec![];
        let comment;
        match *s {
            S::Assign(a) | S::Stmt(Stmt::Assign(a)) => {
                comment = assign_text(m, a);
                let mut writes = vec![];
                for (j, (t, v)) in a.targets.iter().zip(&a.values).enumerate() {
                    let tmp = format!("t_{si}_{j}");
                    temps.push(tmp.clone());
                    cond.extend(p.copy_def(v)?);
                    for i in &t.indices {
                        cond.extend(p.def(i)?);
                    }
                    assigns.push((tmp.clone(), p.expr(v)?));
                    let slot = p.slot(t.var, &t.indices)?;
                    let arr = store_array(m.vars[t.var].store);
                    if slot.parse::<usize>().is_ok() {
                        writes.push((format!("{arr}[{slot}]"), tmp));
                    } else {
                        let sv = format!("s_{si}_{j}");
                        slots.push(sv.clone());
                        assigns.push((sv.clone(), slot));
                        writes.push((format!("{arr}[{sv}]"), tmp));
                    }
                    written.insert(t.var);
                }
                assigns.extend(writes);
            }
            S::Stmt(Stmt::Local { slots: targets, values }) => {
                comment = "local assignment".into();
                let mut writes = vec![];
                for (j, (t, v)) in targets.iter().zip(values).enumerate() {
                    let tmp = format!("t_{si}_{j}");
                    temps.push(tmp.clone());
                    cond.extend(p.copy_def(v)?);
                    assigns.push((tmp.clone(), p.expr(v)?));
                    match &t.index {
                        None => writes.push((format!("LOC[{}]", t.slot), tmp)),
                        Some(i) => {
                            cond.extend(p.def(i)?);
                            let sv = format!("s_{si}_{j}");
                            slots.push(sv.clone());
                            assigns.push((
                                sv.clone(),
                                format!("IntToNat ({} + lab_chk ({}, {}))", t.slot, p.expr(i)?, t.len),
                            ));
                            writes.push((format!("LOC[{sv}]"), tmp));
                        }
                    }
                }
                assigns.extend(writes);
            }
            S::Stmt(Stmt::Pick { slot, count, agent_type, filter }) => {
                comment = format!(
                    "pick {count}{}",
                    agent_type.map(|t| format!(" {}", m.agent_types[t].name)).unwrap_or_default()
                );
                let names = &pick_names[si];
                let ids = domains::ids(m, *agent_type);
                for (k, nm) in names.iter().enumerate() {
                    cond.push(format!(
                        "(({nm} >= {}) and ({nm} <= {}))",
                        int_lit(ids.min().unwrap_or(0)),
                        int_lit(ids.max().unwrap_or(-1))
                    ));
                    cond.push(format!("({nm} != NatToInt (id))"));
                    for other in &names[..k] {
                        cond.push(format!("({nm} != {other})"));
                    }
                    assigns.push((format!("LOC[{}]", slot + k), nm.clone()));
                }
                let _ = filter;
            }
            S::Check(b) => {
                comment = "pick filter".into();
                cond.push(p.bexpr(b)?);
            }
            S::Stmt(_) => unreachable!("lowered"),
        }
        cond.dedup();
        stmts.push(StmtView { comment, cond: conj(&cond), assigns });
    }

    let comment = match &e.step {
        Step::Skip => "Skip".to_string(),
        Step::Act(a) => match &a.kind {
            ActionKind::Assign(x) => assign_text(m, x),
            ActionKind::Block { .. } => "block".into(),
        },
    };
    let guard_text: Vec<String> = e.guards.iter().map(|g| print::bexpr(m, g)).collect();
    let comment = if guard_text.is_empty() { comment } else { format!("{} -> {comment}", guard_text.join(" -> ")) };
    let has_effect = !matches!(e.step, Step::Skip);
    let mut setenv = vec![];
    for &v in &written {
        let var = &m.vars[v];
        if var.store == Store::Env {
            let gate = cx.observed.contains(&v).then(|| names::obs_gate(m, v));
            for k in 0..var.len {
                setenv.push(SetEnvDiff { slot: var.offset + k, obs: gate.clone().map(|g| (g, k)) });
            }
        }
    }
    let f = StepFn {
        name: name.to_string(),
        comment: comment.clone(),
        nd: nd_views.iter().map(|n| n.name.clone()).collect(),
        guards,
        effect: has_effect,
        stmts,
        temps,
        slots,
        remote: remote.clone(),
    };
    let ev = EdgeView {
        comment,
        source,
        target: e.target,
        func: name.to_string(),
        nd: nd_views,
        has_effect,
        setenv,
        writes: e.writes.clone(),
        confirms: e.confirms.clone(),
        obs: obs_diffs(cx, &written),
        remote,
        reads,
        start_check,
    };
    Ok((f, ev, locals))
}

/// The sender variables a link predicate reads (`x of c1`), in variable order.
fn link_vars(m: &Model, s: usize) -> Vec<VarId> {
    let mut out = BTreeSet::new();
    m.stigmergies[s].link.walk_exprs(&mut |x| {
        if let Expr::Var(r) = x
            && r.owner == AgentRef::C1
        {
            out.insert(r.var);
        }
    });
    out.into_iter().collect()
}

fn msg_view(cx: &mut Ctx, ty: TypeId, k: usize) -> Result<MsgView, EmitError> {
    let m = cx.model;
    let tuple = &m.tuples[k];
    let s = tuple.stigmergy;
    let mut values = vec![];
    let mut copied = BTreeSet::new();
    for &v in &tuple.vars {
        let var = &m.vars[v];
        let set = domains::var_set(m, cx.analysis, v, None);
        copied.insert(v);
        for e in 0..var.len {
            let slot = var.offset + e;
            values.push(FieldView {
                name: format!("x_{}", values.len()),
                src: format!("L[{slot}]"),
                slot,
                dom: cx.dom(&set),
            });
        }
    }
    let mut fields = vec![];
    let mut field_names = vec![];
    for v in link_vars(m, s) {
        let var = &m.vars[v];
        if var.store == Store::Env {
            return Err(EmitError::unsupported(
                "an environment variable in a link predicate",
                format!("`{}` in stigmergy `{}`", var.name, m.stigmergies[s].name),
            ));
        }
        // The values senders of any holding type may have.
        let mut set = IntervalSet::empty();
        for (t, at) in m.agent_types.iter().enumerate() {
            if at.count > 0
                && m.holds(t, s)
                && let Some(x) = cx.analysis.get(v, Some(t))
            {
                set.join_assign(x);
            }
        }
        let arr = store_array(var.store);
        for e in 0..var.len {
            let slot = var.offset + e;
            let name = format!("f_{}", fields.len());
            field_names.push((v, e, name.clone()));
            fields.push(FieldView { name, src: format!("{arr}[{slot}]"), slot, dom: cx.dom(&set) });
        }
    }
    let p = Printer { model: m, scope: Scope::Link { fields: &field_names }, nd: &[], undef: cx.undef, remote: &[] };
    let link = p.bexpr(&m.stigmergies[s].link)?;
    let _ = ty;
    let names: Vec<String> = tuple.vars.iter().map(|&v| m.vars[v].name.clone()).collect();
    Ok(MsgView {
        k,
        put: names::put_gate(k),
        qry: names::qry_gate(k),
        comment: format!("tuple {k} ({}) of stigmergy {}", names.join(", "), m.stigmergies[s].name),
        values,
        fields,
        link,
        obs: obs_diffs(cx, &copied),
    })
}

fn components(
    model: &Model,
    agents: &[AgentView],
    env: Option<&EnvView>,
    assume: bool,
    fair: bool,
    has_env: bool,
    has_tuples: bool,
) -> Vec<Component> {
    let mut out = vec![];
    if fair {
        out.push(Component {
            comment: "round-robin scheduler (--fair)".into(),
            sync: vec!["TICK".into()],
            inner_sync: vec![],
            instances: vec![Instance {
                process: "Sched".into(),
                iface: vec![],
                gates: vec!["TICK".into()],
                arg: None,
                obs_gates: vec![],
            }],
            agents: false,
        });
    }
    if assume {
        out.push(Component {
            comment: "assumptions on the initial state".into(),
            sync: vec!["INIT".into(), "AINIT".into()],
            inner_sync: vec![],
            instances: vec![Instance {
                process: "Assumptions".into(),
                iface: vec![],
                gates: vec!["INIT".into(), "AINIT".into()],
                arg: None,
                obs_gates: vec![],
            }],
            agents: false,
        });
    }
    if let Some(e) = env {
        let obs: Vec<String> = e.gates.iter().filter(|g| is_obs_gate(g)).cloned().collect();
        let mut sync = vec!["TICK".to_string(), "SETENV".into(), "INIT".into()];
        if e.gates.iter().any(|g| g == "AENV") {
            sync.push("AENV".into());
            if let Some(a) = out.iter_mut().find(|c| c.instances[0].process == "Assumptions") {
                a.sync.push("AENV".into());
                a.instances[0].gates.push("AENV".into());
            }
        }
        out.push(Component {
            comment: "environment".into(),
            sync,
            inner_sync: vec![],
            instances: vec![Instance {
                process: "Env".into(),
                iface: vec![],
                gates: e.gates.clone(),
                arg: None,
                obs_gates: obs,
            }],
            agents: false,
        });
    }
    if has_tuples {
        out.push(Component {
            comment: "timestamps, one process per tuple".into(),
            sync: vec!["REFRESH".into(), "REQ".into()],
            inner_sync: vec![],
            instances: (0..model.tuples.len())
                .map(|k| Instance {
                    process: "Timestamps".into(),
                    iface: vec![],
                    gates: vec!["REFRESH".into(), "REQ".into()],
                    arg: Some(k),
                    obs_gates: vec![],
                })
                .collect(),
            agents: false,
        });
    }
    let mut sync = vec!["TICK".to_string(), "INIT".into()];
    if assume {
        sync.push("AINIT".into());
    }
    if has_env {
        sync.push("SETENV".into());
    }
    if has_tuples {
        sync.push("REFRESH".into());
        sync.push("REQ".into());
    }
    let mut inner = vec!["TICK".to_string(), "DONE".into(), "INIT".into()];
    for k in 0..model.tuples.len() {
        inner.push(names::put_gate(k));
        inner.push(names::qry_gate(k));
    }
    let mut instances = vec![];
    for a in agents {
        let obs: Vec<String> = a.gates.iter().filter(|g| is_obs_gate(g)).cloned().collect();
        for id in a.first_id..=a.last_id {
            instances.push(Instance {
                process: a.process.clone(),
                iface: vec![],
                gates: a.gates.clone(),
                arg: Some(id),
                obs_gates: obs.clone(),
            });
        }
    }
    out.push(Component { comment: "the agents".into(), sync, inner_sync: inner, instances, agents: true });
    out
}

/// Observation gates are `A_…`, `L_…`, `E_…`.
pub fn is_obs_gate(g: &str) -> bool {
    g.starts_with("A_") || g.starts_with("L_") || g.starts_with("E_")
}
