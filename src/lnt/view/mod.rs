//! The view of the LNT program: everything `lnt-templates/program.lnt` lays out, computed from
//! the model, the compiled behaviours and the value analysis. See `docs/lnt-encoding.md`.

mod agent;
mod assume;
mod code;
mod compose;
mod lower;
pub(crate) mod monitor;
mod reads;
mod step;

use agent::{agent_view, env_view};
pub(crate) use compose::split_components;
use compose::{TRY, add_lock, agent_cond, components, pair_read_gates};

use crate::analysis::IntervalSet;
use crate::analysis::values::ValueAnalysis;
use crate::behaviour::Behaviour;
use crate::lnt::domains::{self, DomainTable, int_lit, membership};
use crate::lnt::names;
use crate::lnt::{Dialect, EmitError, EmitOptions};
use crate::model::{Model, Store, VarId};
use std::collections::BTreeSet;

/// The most agents a system with stigmergic variables may have: a message carries sets of
/// agents as masks (bit `a`: agent `a`) below 2^N, a 32-bit `Nat`.
const MAX_MASK_AGENTS: usize = 30;

/// The whole program.
#[derive(Clone, Debug)]
pub(crate) struct Program {
    pub(crate) module: String,
    pub(crate) source: String,
    pub(crate) dialect: Dialect,
    pub(crate) fair: bool,
    pub(crate) n_agents: usize,
    /// Highest index of each array type (arrays have at least one element).
    pub(crate) attr_max: usize,
    pub(crate) stig_max: usize,
    pub(crate) env_max: usize,
    pub(crate) tuple_max: usize,
    pub(crate) local_max: usize,
    pub(crate) undef: String,
    /// The module pragmas fixing the enumerated ranges (docs/lnt-encoding.md §6): `Nat` from 0
    /// to `nat_sup`, `Int` from `int_inf` to `int_sup`, bounds of every value an input offer or
    /// an `any` of the program can take.
    pub(crate) nat_sup: u64,
    pub(crate) int_inf: i64,
    pub(crate) int_sup: i64,
    pub(crate) has_env: bool,
    pub(crate) has_tuples: bool,
    /// 2^N: the masks of agents offered in a message (`gm`, `lm`, `ln`) lie below it.
    pub(crate) n_masks: u64,
    /// Per tuple, the shape of its messages (the values and fields offered, and whether the
    /// link is `true`), for `Timestamps`, which takes part in them.
    pub(crate) messages: Vec<MsgView>,
    /// The variables of `Timestamps` that receive the offers of a message (`Int`), and whether
    /// some tuple's link is not `true` (then it receives the linked receivers `ln`).
    pub(crate) ts_offers: Vec<String>,
    pub(crate) ts_ln: bool,
    pub(crate) domains: Vec<DomainView>,
    /// Which LAbS variable each store slot holds (`I[k]`, `L[k]`, `E[k]`), one line each.
    pub(crate) legend: Vec<String>,
    /// Per tuple: which agents hold it (a condition on `a`).
    pub(crate) holds: Vec<HoldsView>,
    pub(crate) ranks_init: Vec<RanksInit>,
    /// The environment values carried by `TICK`, one per environment slot.
    pub(crate) env_params: Vec<EnvParam>,
    /// The remote-read slots of the steps (agent, location, value), and the number of
    /// locations of an agent's stores (`lab_own`).
    pub(crate) remote: Vec<RemoteParam>,
    pub(crate) locs: usize,
    /// `rdloc (r, o, l)`: reader `r` can read location `l` of owner `o` (one disjunct per kind
    /// of read of the reader's type).
    pub(crate) rdloc: Vec<String>,
    pub(crate) env: Option<EnvView>,
    pub(crate) assume: Option<AssumeView>,
    pub(crate) steps: Vec<StepFn>,
    /// The link predicates other than `true`, per receiving type and tuple.
    pub(crate) links: Vec<LinkFn>,
    /// The highest index of `Used` (a flag per choice and read slot of a step).
    pub(crate) used_max: usize,
    /// Whether some run-time error can occur (then the program has the visible gate `ERR`).
    pub(crate) has_err: bool,
    pub(crate) agents: Vec<AgentView>,
    /// The gates of `MAIN` (`DONE` and the observation gates, and the observers' `ATOMS_P`)
    /// and the gates it hides.
    pub(crate) main_gates: Vec<String>,
    pub(crate) hidden_gates: Vec<String>,
    /// With observers (`system_sync` not empty): the gates of the process `System`, the
    /// composition of `components` that `MAIN` composes with `Observers` (`MAIN`'s gates but
    /// `ATOMS_P`, and those it hides), and what `System` synchronises on with it (`DONE` and
    /// the observation gates it reads).
    pub(crate) system_gates: Vec<String>,
    pub(crate) system_sync: Vec<String>,
    pub(crate) components: Vec<Component>,
    /// The monitors of the linear-time properties (docs/lnt-encoding.md §2), and the highest
    /// index of their array of tracked values (`Observed`).
    pub(crate) monitors: Vec<monitor::MonitorView>,
    pub(crate) observed_max: usize,
    /// The one observer of the monitors' atoms, a component of `MAIN`.
    pub(crate) observers: Option<monitor::ObserversView>,
}

#[derive(Clone, Debug)]
pub(crate) struct DomainView {
    pub(crate) name: String,
    pub(crate) cond: String,
    /// What the set is and whose values it holds, for the comment above the function.
    pub(crate) about: String,
}

#[derive(Clone, Debug)]
pub(crate) struct HoldsView {
    pub(crate) k: usize,
    pub(crate) cond: String,
}

#[derive(Clone, Debug)]
pub(crate) struct RanksInit {
    pub(crate) k: usize,
    /// (agent, initial dense rank), D2: holders in id order.
    pub(crate) ranks: Vec<(usize, usize)>,
}

#[derive(Clone, Debug)]
pub(crate) struct RemoteParam {
    pub(crate) k: usize,
    /// The values of every location read remotely (a bound for `rv_k`).
    pub(crate) dom: String,
    /// `rsa_k (ra)`: the agents slot `k` can name (or `N_AGENTS`: unused).
    pub(crate) agents: Vec<String>,
    /// `rs_k (ra, rl)`: the slot unused, or one of the reads the steps make in it (its agents
    /// and its locations), one disjunct per kind of read.
    pub(crate) shapes: Vec<String>,
}

/// One remote read of a step, as the acting agent performs it before its `TICK`: the agent and
/// location are chosen among the slot's kinds of read (`rsa_k`, `rs_k`) and checked, then the
/// value is asked from the owner on `RD`.
#[derive(Clone, Debug)]
pub(crate) struct ReadSlot {
    pub(crate) k: usize,
    /// The agents that can own the location (an `RDO_j` gate each).
    pub(crate) owners: Vec<usize>,
    /// What the step's early checks know once the slot's agent and location are chosen, and
    /// once its value is read (the `kn` argument of `en_`).
    pub(crate) choice_kn: usize,
    pub(crate) read_kn: usize,
}

#[derive(Clone, Debug)]
pub(crate) struct EnvParam {
    pub(crate) name: String,
    pub(crate) slot: usize,
    pub(crate) dom: String,
}

/// An observation label emitted when a slot changed: `GATE (!agent, !elem, !ARR[slot])`.
#[derive(Clone, Debug)]
pub(crate) struct ObsDiff {
    pub(crate) arr: &'static str,
    pub(crate) slot: usize,
    pub(crate) gate: String,
    pub(crate) elem: usize,
}

/// The `Assumptions` process: it receives the initial values the `assume` predicates read (`AINIT`
/// from agents, `AENV` from the environment) and takes part in the last `INIT` only if they
/// hold, so initial states violating an assumption never complete their initialisation.
#[derive(Clone, Debug)]
pub(crate) struct AssumeView {
    pub(crate) names: Vec<String>,
    pub(crate) gates: Vec<String>,
    pub(crate) q_max: usize,
    pub(crate) stages: Vec<StageView>,
    /// The body of `lab_assume (A)`, its temporaries, and whether it can meet a run-time error.
    pub(crate) body: Vec<String>,
    pub(crate) decls: String,
    pub(crate) may_fail: bool,
}

/// The values received before `INIT !j` (from the environment for `j = 0`, else agent `j-1`).
#[derive(Clone, Debug)]
pub(crate) struct StageView {
    pub(crate) j: usize,
    pub(crate) last: bool,
    pub(crate) reads: Vec<ReadView>,
}

#[derive(Clone, Debug)]
pub(crate) struct ReadView {
    pub(crate) q: usize,
    /// The agent id (`None`: an environment value, received on `AENV`).
    pub(crate) agent: Option<usize>,
    pub(crate) slot: usize,
    pub(crate) dom: String,
    pub(crate) comment: String,
}

/// The initialisation of one variable element.
#[derive(Clone, Debug)]
pub(crate) struct InitView {
    pub(crate) comment: String,
    /// The statements giving `v` its initial value (or reporting the initialiser's run-time
    /// error), indented.
    pub(crate) lines: Vec<String>,
    pub(crate) may_fail: bool,
    pub(crate) arr: &'static str,
    pub(crate) slot: usize,
    pub(crate) obs: Option<(String, usize)>,
    /// The agents (of this type) for which an `assume` predicate reads this element: they
    /// send it to `Assumptions` (for the environment: non-empty when it is read).
    pub(crate) ainit: Vec<usize>,
}

#[derive(Clone, Debug)]
pub(crate) struct SetEnvView {
    pub(crate) comment: String,
    pub(crate) lo: usize,
    pub(crate) hi: usize,
    pub(crate) dom: String,
}

#[derive(Clone, Debug)]
pub(crate) struct EnvView {
    pub(crate) gates: Vec<String>,
    pub(crate) inits: Vec<InitView>,
    pub(crate) setenv: Vec<SetEnvView>,
}

#[derive(Clone, Debug)]
pub(crate) struct SetEnvDiff {
    pub(crate) slot: usize,
    pub(crate) obs: Option<(String, usize)>,
}

/// Whether the process of agent type `a` offers on gate `g` (CADP warns about a formal gate
/// a process never uses). The gates the agents synchronise on among themselves (`TICK`,
/// `DONE`, `INIT`, `PUT_k`, `QRY_k`) are used by every type.
fn agent_uses_gate(a: &AgentView, g: &str) -> bool {
    let effects = || a.edges.iter().filter(|e| e.has_effect);
    match g {
        "REFRESH" => effects().any(|e| !e.writes.is_empty()),
        // asked by a receiver of a tuple the type holds (the compositional leaves)
        "REQ" => !a.held.is_empty(),
        "SETENV" => effects().any(|e| !e.setenv.is_empty()),
        "AINIT" => a.inits.iter().any(|i| !i.ainit.is_empty()),
        _ if g == TRY || g == names::ABANDON => a.edges.iter().any(|e| !e.reads.is_empty()),
        _ if g.starts_with("E_") => {
            effects().any(|e| e.setenv.iter().any(|w| w.obs.as_ref().is_some_and(|(o, _)| o == g)))
        }
        _ => true,
    }
}

/// The procedure `st_<name>` (evaluates the step: guards, then statements, changing the
/// agent's stores; status `r`) and the function `en_<name>` (the status of the step, the
/// stores unchanged) of one edge.
#[derive(Clone, Debug)]
pub(crate) struct StepFn {
    pub(crate) name: String,
    pub(crate) comment: String,
    /// The parameters after `kn` (choices `nd_i`, read slots), and the same as arguments.
    pub(crate) params: String,
    pub(crate) args: String,
    /// The body of `st_`, indented, and its variables (`LOC` and the temporaries; empty:
    /// none).
    pub(crate) body: Vec<String>,
    pub(crate) decls: String,
    /// The body reads block locals (`LOC`, initialised to ⊥).
    pub(crate) uses_locals: bool,
    /// Conditions under which `en_` answers "disabled" although `st_` did not: a choice or a
    /// read slot the evaluation did not use does not have its unused value (so that each
    /// evaluation has one set of choices and reads).
    pub(crate) canon: Vec<String>,
}

/// A link predicate as a receiving type evaluates it: `lk_<T>_<k> (id, s, I, L, f…)`, the
/// status (1 linked, 0 not, or a run-time error).
#[derive(Clone, Debug)]
pub(crate) struct LinkFn {
    pub(crate) name: String,
    pub(crate) comment: String,
    /// The fields' parameters (`, f_0: Int`…).
    pub(crate) params: String,
    pub(crate) body: Vec<String>,
    /// Its temporaries (empty: none).
    pub(crate) decls: String,
}

#[derive(Clone, Debug)]
pub(crate) struct NdView {
    pub(crate) name: String,
    pub(crate) dom: String,
}

#[derive(Clone, Debug)]
pub(crate) struct EdgeView {
    pub(crate) comment: String,
    pub(crate) source: u32,
    pub(crate) target: u32,
    pub(crate) func: String,
    pub(crate) nd: Vec<NdView>,
    pub(crate) has_effect: bool,
    /// Whether the step can meet a run-time error (its `TICK` may then lead to `ERR`).
    pub(crate) may_fail: bool,
    /// Environment slots the step may write: `SETENV` and, if observed, the observation label
    /// (emitted by the actor, before its `DONE`).
    pub(crate) setenv: Vec<SetEnvDiff>,
    pub(crate) writes: Vec<usize>,
    pub(crate) confirms: Vec<usize>,
    pub(crate) obs: Vec<ObsDiff>,
    /// How the step reads its remote-read slots.
    pub(crate) reads: Vec<ReadSlot>,
    /// The arguments of `st_`/`en_` after `kn`, and `kn` at `TICK` (everything known).
    pub(crate) args: String,
    pub(crate) kn_all: usize,
}

/// A value carried by a message: its offer variable, where the sender reads it, its domain.
#[derive(Clone, Debug)]
pub(crate) struct FieldView {
    pub(crate) name: String,
    pub(crate) src: String,
    pub(crate) slot: usize,
    pub(crate) dom: String,
}

#[derive(Clone, Debug)]
pub(crate) struct MsgView {
    pub(crate) k: usize,
    /// The condition a receiver puts on the sender `s` of a message.
    pub(crate) sender: String,
    pub(crate) put: String,
    pub(crate) qry: String,
    pub(crate) comment: String,
    pub(crate) values: Vec<FieldView>,
    pub(crate) fields: Vec<FieldView>,
    /// The status of the link for the received message (a call of its `LinkFn`, or `1`).
    pub(crate) link: String,
    pub(crate) link_may_fail: bool,
    /// The link is `true`: the linked receivers of a message are all of them (`ln` is
    /// `rcv_mask (k, s)`), so no party enumerates `ln`.
    pub(crate) link_const: bool,
    pub(crate) obs: Vec<ObsDiff>,
}

#[derive(Clone, Debug)]
pub(crate) struct AgentView {
    pub(crate) process: String,
    pub(crate) type_name: String,
    pub(crate) first_id: usize,
    pub(crate) last_id: usize,
    pub(crate) gates: Vec<String>,
    pub(crate) initial: u32,
    pub(crate) inits: Vec<InitView>,
    pub(crate) edges: Vec<EdgeView>,
    pub(crate) held: Vec<MsgView>,
    pub(crate) not_held: Vec<MsgView>,
    /// Int variables for choices and message offers; Nat variables for remote reads.
    pub(crate) int_vars: Vec<String>,
    pub(crate) nat_vars: Vec<String>,
    /// Whether the loop body is a choice (false when yielding is all the agent can do).
    pub(crate) choice: bool,
    /// The readers that can read this type's agents (an `RDI_j` branch each).
    pub(crate) serves: Vec<usize>,
}

/// A process instance of the composition.
#[derive(Clone, Debug)]
pub(crate) struct Instance {
    pub(crate) process: String,
    /// The instance's own synchronisation interface in its `par` (empty: none; used when the
    /// agents' `par` synchronises the read gates pairwise).
    pub(crate) iface: Vec<String>,
    pub(crate) gates: Vec<String>,
    pub(crate) arg: Option<usize>,
    /// The `split` argument of an agent or `Timestamps` when the spec has stigmergies: 0 in
    /// `MAIN` (a message carries the timestamps' comparisons), 1 in the compositional leaves
    /// (a `REQ` per receiver; docs/lnt-encoding.md §3, Propagation).
    pub(crate) split: Option<u8>,
    /// Observation gates this instance emits (hidden per leaf by the SVL scripts).
    pub(crate) obs_gates: Vec<String>,
}

impl Instance {
    /// The actual arguments of the instantiation: ` (id)`, ` (id, split)` or nothing.
    pub(crate) fn args(&self) -> String {
        match (self.arg, self.split) {
            (Some(x), Some(s)) => format!(" ({x}, {s})"),
            (Some(x), None) => format!(" ({x})"),
            _ => String::new(),
        }
    }
}

/// A branch of the top-level parallel composition: its synchronisation interface, and either a
/// single instance or an inner `par` of instances synchronised on `inner_sync`.
#[derive(Clone, Debug)]
pub(crate) struct Component {
    pub(crate) comment: String,
    pub(crate) sync: Vec<String>,
    pub(crate) inner_sync: Vec<String>,
    pub(crate) instances: Vec<Instance>,
    /// The agents' component (receives the priority operator in the compositional script).
    pub(crate) agents: bool,
}

struct Ctx<'a> {
    model: &'a Model,
    /// What opens a send offer in the dialect emitted (`Dialect::send`).
    snd: &'static str,
    analysis: &'a ValueAnalysis,
    observed: &'a BTreeSet<VarId>,
    doms: DomainTable,
    /// The values the `assume` predicates read.
    assumed: Vec<crate::lnt::mcl::TrackKey>,
    /// Variables read from another agent (`x of e`) by some step, and the most reads a step makes.
    remote_vars: BTreeSet<VarId>,
    max_remote: usize,
    /// The most choices and read slots a step has (the size of `Used`).
    used_max: usize,
    /// The link functions made so far.
    links: Vec<LinkFn>,
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

/// The observation labels a step emits for the observed agent variables of `vars` it changed.
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

const INT_CHOICE: &str = "v";

fn store_array(s: Store) -> &'static str {
    match s {
        Store::Env => "E",
        Store::Attr => "I",
        Store::Stig { .. } => "L",
    }
}

/// Builds the program view. `observed` are the variables some emitted property reads.
pub(crate) fn build(
    model: &Model,
    behaviours: &[Behaviour],
    analysis: &ValueAnalysis,
    opts: &EmitOptions,
    observed: &BTreeSet<VarId>,
    monitors: &[monitor::MonitorSpec],
) -> Result<Program, EmitError> {
    let n = model.n_agents();
    if n == 0 {
        return Err(EmitError::unsupported("a system without agents", "every type is spawned 0 times"));
    }
    // A message carries sets of agents as masks of a 32-bit `Nat` (§3, Propagation).
    if !model.tuples.is_empty() && n > MAX_MASK_AGENTS {
        return Err(EmitError::unsupported(
            "stigmergic variables in a system of more than 30 agents",
            format!("{n} agents: a message carries sets of agents as masks of a 32-bit Nat"),
        ));
    }
    let assume_spec = assume::assume_code(model, analysis)?;
    let assumed: Vec<crate::lnt::mcl::TrackKey> = assume_spec.as_ref().map(|a| a.keys.clone()).unwrap_or_default();
    let mut cx = Ctx {
        model,
        snd: opts.dialect.send(),
        analysis,
        observed,
        doms: DomainTable::default(),
        assumed,
        remote_vars: BTreeSet::new(),
        max_remote: 0,
        used_max: 0,
        links: vec![],
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
                names: model.assumptions.iter().map(|a| a.name.clone()).collect(),
                gates: vec![],
                q_max: a.keys.len().max(1) - 1,
                stages,
                body: a.body.clone(),
                decls: a.decls.clone(),
                may_fail: a.may_fail,
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
        let ids = a.first_id..=a.last_id;
        a.serves = (0..n).filter(|&r| ids.clone().any(|o| rd_pairs.contains(&(r, o)))).collect();
        a.choice |= !a.serves.is_empty();
        let mut owners = BTreeSet::new();
        for e in a.edges.iter_mut() {
            for r in e.reads.iter_mut() {
                r.owners = (0..n)
                    .filter(|&o| {
                        cx.remote_shapes[r.k].iter().any(|(ag, ..)| ag.contains(o as i64))
                            && ids.clone().any(|i| rd_pairs.contains(&(i, o)))
                    })
                    .collect();
                owners.extend(r.owners.iter().copied());
            }
        }
        // only the read gates the type's process uses (an unused formal gate is warned about)
        a.gates.extend(owners.iter().map(|o| format!("RDO_{o}")));
        a.gates.extend(a.serves.iter().map(|j| format!("RDI_{j}")));
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

    // The processes that can meet a run-time error report it on the visible gate `ERR`.
    let mut env = env;
    let env_err = env.as_ref().is_some_and(|e| e.inits.iter().any(|i| i.may_fail));
    if let (true, Some(e)) = (env_err, env.as_mut()) {
        e.gates.push(names::ERR.into());
    }
    let assume_err = assume.as_ref().is_some_and(|a| a.may_fail);
    let mut has_err = env_err || assume_err;
    for a in agents.iter_mut() {
        let fails = a.edges.iter().any(|e| e.may_fail)
            || a.held.iter().any(|m| m.link_may_fail)
            || a.inits.iter().any(|i| i.may_fail);
        if fails {
            a.gates.push(names::ERR.into());
            has_err = true;
        }
        let used: Vec<bool> = a.gates.iter().map(|g| agent_uses_gate(a, g)).collect();
        let mut keep = used.into_iter();
        a.gates.retain(|_| keep.next().unwrap_or(true));
    }
    let obs_gates: Vec<String> = observed.iter().map(|&v| names::obs_gate(model, v)).collect();
    let mut main_gates = vec!["DONE".to_string()];
    if !remote.is_empty() {
        main_gates.push(names::ABANDON.into());
    }
    if has_err {
        main_gates.push(names::ERR.into());
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
        let unbound = pair_read_gates(&mut components, &rd_pairs);
        let at = hidden_gates.iter().position(|g| *g == TRY).map_or(hidden_gates.len(), |i| i + 1 + rd_gates.len());
        hidden_gates.splice(at..at, unbound);
        add_lock(&mut components);
    }
    let mut assume = assume;
    if !cx.assumed.iter().any(|(a, _, _)| a.is_some()) {
        // no assumption reads an agent's initial value: AINIT is nobody's
        for c in components.iter_mut() {
            c.sync.retain(|g| g != "AINIT");
            for i in c.instances.iter_mut() {
                i.gates.retain(|g| g != "AINIT");
            }
        }
        hidden_gates.retain(|g| g != "AINIT");
    }
    if assume_err
        && let Some(i) = components.iter_mut().flat_map(|c| c.instances.iter_mut()).find(|i| i.process == "Assumptions")
    {
        i.gates.push(names::ERR.into());
    }
    if let Some(a) = assume.as_mut() {
        a.gates = components
            .iter()
            .flat_map(|c| &c.instances)
            .find(|i| i.process == "Assumptions")
            .map(|i| i.gates.clone())
            .unwrap_or_default();
    }
    let mut monitors = monitors
        .iter()
        .map(|m| monitor::monitor_view(model, analysis, m, &mut cx.doms))
        .collect::<Result<Vec<_>, _>>()?;
    // With observers, `MAIN` composes the one observer of every monitor's atoms with the
    // system, now a process of its own.
    let observers = monitor::observers_view(model, analysis, &monitors, &mut cx.doms);
    let mut system_gates = main_gates.clone();
    system_gates.extend(hidden_gates.iter().cloned());
    let system_sync = observers.as_ref().map(|o| o.sync.clone()).unwrap_or_default();
    let atoms: Vec<String> = observers.iter().flat_map(|o| &o.offers).map(|o| o.gate.clone()).collect();
    main_gates.extend(atoms.iter().cloned());
    // A root hides the other properties' `ATOMS_Q`: its monitor reads its own alone.
    for m in monitors.iter_mut() {
        let own = m.observer.as_ref().map(|o| o.gate.clone());
        m.root_hidden = atoms.iter().filter(|g| Some(*g) != own.as_ref()).cloned().collect();
        m.root_gates = main_gates
            .iter()
            .filter(|g| !m.root_hidden.contains(g))
            .cloned()
            .chain([monitor::ACC.to_string(), monitor::STUCK.to_string()])
            .collect();
    }
    let domains = cx
        .doms
        .sets
        .iter()
        .enumerate()
        .map(|(i, s)| DomainView {
            name: format!("dom_{i}"),
            cond: membership("v", s),
            about: domain_about(model, analysis, s),
        })
        .collect();
    let legend = slot_legend(model);
    let locs = model.attr_len.max(1) + model.stig_len.max(1);
    // Nat: agent ids and N_AGENTS, locations, control states, tuples (and loop counters to N + 1)
    let pcs = agents.iter().flat_map(|a| &a.edges).map(|e| e.source.max(e.target) as usize).max().unwrap_or(0);
    // (and a monitor's choices)
    let t_max = monitors.iter().map(|m| m.t_max).max().unwrap_or(0);
    // (and the masks of agents a message carries: below 2^N)
    let n_masks = if has_tuples { 1u64 << n } else { 0 };
    let nat_sup = [n + 1, locs, pcs + 1, model.tuples.len(), t_max, 255].into_iter().max().unwrap_or(255) as u64;
    let nat_sup = nat_sup.max(n_masks.saturating_sub(1));
    // The shape of each tuple's messages is the same for every type (only the link's call
    // differs, which Timestamps does not make).
    let messages: Vec<MsgView> = (0..model.tuples.len())
        .map(|k| {
            agents
                .iter()
                .flat_map(|a| a.held.iter().chain(&a.not_held))
                .find(|m| m.k == k)
                .cloned()
                .expect("every agent type takes part in every tuple's messages")
        })
        .collect();
    let ts_offers: Vec<String> = {
        let mut v: Vec<String> = vec![];
        for m in &messages {
            for f in m.values.iter().chain(&m.fields) {
                if !v.contains(&f.name) {
                    v.push(f.name.clone());
                }
            }
        }
        v
    };
    let ts_ln = messages.iter().any(|m| !m.link_const);
    // Int: ⊥ is below every analysed value; above, the largest analysed value (and 0)
    let undef = domains::undef_value(model, analysis);
    let int_sup = analysis
        .sets
        .values()
        .chain(&cx.doms.sets)
        .filter_map(|s| s.max())
        .fold(0, i64::max)
        .min(crate::model::arith::MAX_VALUE);
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
        undef: int_lit(undef),
        nat_sup,
        int_inf: undef,
        int_sup,
        has_env,
        has_tuples,
        n_masks,
        messages,
        ts_offers,
        ts_ln,
        domains,
        legend,
        holds,
        ranks_init,
        env_params,
        remote,
        locs,
        rdloc,
        env,
        assume,
        steps,
        links: cx.links,
        used_max: cx.used_max.max(1) - 1,
        has_err,
        agents,
        main_gates,
        hidden_gates,
        system_gates,
        system_sync,
        components,
        observed_max: monitors.iter().map(|m| m.tracked.len()).max().unwrap_or(1).max(1) - 1,
        monitors,
        observers,
    })
}

/// Observation gates are `A_…`, `L_…`, `E_…`.
pub(crate) fn is_obs_gate(g: &str) -> bool {
    g.starts_with("A_") || g.starts_with("L_") || g.starts_with("E_")
}

/// One line per variable: the slots of its store that hold it (`I` attributes, `L` stigmergic
/// copies, `E` the environment), in slot order.
fn slot_legend(model: &Model) -> Vec<String> {
    let store_rank = |s: &Store| match s {
        Store::Attr => 0,
        Store::Stig { .. } => 1,
        Store::Env => 2,
    };
    let mut ids: Vec<VarId> = (0..model.vars.len()).collect();
    ids.sort_by_key(|&i| (store_rank(&model.vars[i].store), model.vars[i].offset));
    ids.into_iter()
        .map(|i| {
            let v = &model.vars[i];
            let (array, what) = match v.store {
                Store::Attr => {
                    let types: Vec<&str> =
                        model.agent_types.iter().filter(|t| t.attrs.contains(&i)).map(|t| t.name.as_str()).collect();
                    ("I", format!("attribute of {}", types.join(", ")))
                }
                Store::Stig { stigmergy, tuple } => {
                    ("L", format!("stigmergic, {} (tuple {tuple})", model.stigmergies[stigmergy].name))
                }
                Store::Env => ("E", "environment".to_string()),
            };
            let slots = if v.len == 1 {
                format!("{array}[{}]", v.offset)
            } else {
                format!("{array}[{}..{}]", v.offset, v.offset + v.len - 1)
            };
            let dims: String = v.dims.iter().map(|d| format!("[{d}]")).collect();
            let order = if v.dims.len() > 1 { ", row-major" } else { "" };
            format!("{slots:<12} {}{dims}: {what}{order}", v.name)
        })
        .collect()
}

/// `{0..2}: the values of leader (Node)`: the set, and the variables whose analysed set it is
/// (other domains bound values the steps choose or compute).
fn domain_about(model: &Model, analysis: &ValueAnalysis, set: &IntervalSet) -> String {
    let mut keys: Vec<_> = analysis.sets.iter().filter(|(_, s)| *s == set).map(|(k, _)| *k).collect();
    keys.sort();
    let owners: Vec<String> = keys
        .iter()
        .map(|&(v, t)| match t {
            Some(t) => format!("{} of {}", model.vars[v].name, model.agent_types[t].name),
            None => model.vars[v].name.clone(),
        })
        .collect();
    if owners.is_empty() {
        format!("{set}: values chosen or computed by the steps")
    } else {
        format!("{set}: the values of {}", owners.join(", "))
    }
}
