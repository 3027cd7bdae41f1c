//! The documents of `--json` (docs/json.md, a public interface) as serialisable types, one per
//! command, so a back end's extra fields are fields of the type rather than patches.
//! `print` writes a document with its keys sorted, as docs/json.md and the snapshots show
//! them: the field order of these types does not matter.

use super::load::Loaded;
use crate::engine::VerifyReport;
use crate::engine::probability::{Interval, Steps};
use crate::engine::symmetry::TypeSymmetry;
use crate::limits::StopReason;
use crate::model::{Store, print};
use crate::stdout::outln;
use crate::trace;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// `doc` on standard output, pretty-printed with sorted keys.
pub(crate) fn print_pretty(doc: &impl Serialize) {
    outln!("{}", serde_json::to_string_pretty(&sorted(doc)).expect("JSON of a value"));
}

/// `doc` on one line with sorted keys.
pub(crate) fn print_compact(doc: &impl Serialize) {
    outln!("{}", sorted(doc));
}

/// A `Value`'s maps are sorted (serde_json without `preserve_order`).
fn sorted(doc: &impl Serialize) -> Value {
    serde_json::to_value(doc).expect("JSON of a value")
}

/// The size of one LTS of a script (LNT interpreter or CADP).
#[derive(Serialize)]
pub(crate) struct LtsDoc {
    pub(crate) file: String,
    pub(crate) states: u64,
    pub(crate) transitions: u64,
}

/// `labs verify --json`.
#[derive(Serialize)]
pub(crate) struct VerifyDoc<'a> {
    pub(crate) spec: &'a str,
    pub(crate) externs: &'a BTreeMap<String, i64>,
    pub(crate) backend: &'static str,
    pub(crate) fair: bool,
    /// `--fairness` (`weak`, `strong`, `almost-sure`); absent without it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) fairness: Option<&'static str>,
    pub(crate) results: Vec<ResultDoc>,
    pub(crate) stats: StatsDoc,
    pub(crate) stopped: Option<StopReason>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) lnt: Option<LntDoc>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) cadp: Option<CadpDoc>,
    /// `--probability`: the precision asked for and how the chain was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) probability: Option<ProbabilityRunDoc>,
}

/// One property's verdict.
#[derive(Serialize)]
pub(crate) struct ResultDoc {
    pub(crate) property: String,
    pub(crate) modality: String,
    pub(crate) verdict: &'static str,
    /// Why this property alone is `unknown` (docs/json.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) trace: Option<crate::trace::TraceJson>,
    /// `--backend lnt`: the `verify` statement's query and the LTS it was evaluated on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) mcl: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) lts: Option<LtsDoc>,
    /// `--probability`: the property's probability and, for `finally`, expected steps.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub(crate) probability: Option<ResultProbabilityDoc>,
    /// Under `--fairness`, a counterexample's loop: the agents acting and enabled in it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) fair_loop: Option<FairLoopDoc>,
}

/// `results[].fair_loop` (docs/json.md): agent ids; all empty for a run into a deadlock.
#[derive(Serialize)]
pub(crate) struct FairLoopDoc {
    pub(crate) acting: Vec<usize>,
    pub(crate) enabled_throughout: Vec<usize>,
    pub(crate) enabled_somewhere: Vec<usize>,
}

impl FairLoopDoc {
    pub(crate) fn new(a: &crate::engine::LoopAgents) -> FairLoopDoc {
        FairLoopDoc {
            acting: a.acting.clone(),
            enabled_throughout: a.enabled_throughout.clone(),
            enabled_somewhere: a.enabled_somewhere.clone(),
        }
    }
}

/// The native engine's counts, or a script's LTSs (whose states are not LAbS states).
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum StatsDoc {
    Native {
        states: u64,
        transitions: u64,
        deadlocks: u64,
        initial_states: u64,
        seconds: f64,
        exploration_seconds: f64,
        peak_rss_mib: u64,
        graph_bytes: u64,
        store_bytes: u64,
        state_bytes: u64,
        complete: bool,
        /// The exploration stopped as soon as every property was decided (each violated).
        decided_early: bool,
        /// Every property was violated early, but a run-time error may lie beyond: the
        /// exploration went on (docs/semantics.md, D9). Absent otherwise.
        #[serde(skip_serializing_if = "Option::is_none")]
        went_on: Option<crate::engine::WentOn>,
        /// The reduction the counts are of (absent: every state counted).
        #[serde(skip_serializing_if = "Option::is_none")]
        reduction: Option<String>,
        /// Whether the checks read kept successor lists, and why (`--edges`).
        edges: EdgesDoc,
        /// `fast` or `compact`: the form the states were stored in at the end (`--store`).
        store_form: &'static str,
        /// The states stored when the store turned compact (absent: it did not switch).
        #[serde(skip_serializing_if = "Option::is_none")]
        compacted_at: Option<u64>,
    },
    Lts {
        seconds: f64,
        peak_rss_mib: u64,
        lts: Vec<LtsDoc>,
    },
}

/// `probability` of `verify --probability --json`: how the chain was read.
#[derive(Serialize)]
pub(crate) struct ProbabilityRunDoc {
    pub(crate) chain: crate::engine::probability::ChainStats,
    /// `--backend lnt`: the LNT program's chain, and whether it is the native engine's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) lnt: Option<crate::engine::probability::LntChain>,
}

/// `--probability`: one property's figures (docs/json.md, "Probabilities").
#[derive(Serialize)]
pub(crate) struct ResultProbabilityDoc {
    /// `{"lower", "upper"}`, or null when not computed (`probability_note` says why).
    probability: Option<Interval>,
    /// For `finally`: `{"lower", "upper"}`, `"infinite"`, or null (other modalities).
    expected_steps: Option<StepsDoc>,
    /// For `finally`: the same among the runs that reach ψ; null when none does.
    expected_steps_if_reached: Option<StepsDoc>,
    /// The linear-time formula whose probability is given, for `fairly` and `fairly_inf`.
    probability_reading: Option<&'static str>,
    probability_note: Option<String>,
    /// Whether every interval reached the precision (false: the run was stopped first).
    probability_converged: bool,
    probability_sweeps: u64,
    /// With `--report`, for `finally`: the probability of reaching ψ within k steps, k = 0, 1, …
    #[serde(skip_serializing_if = "Vec::is_empty")]
    within_steps: Vec<f64>,
}

/// An expected number of steps: an interval, or `"infinite"`.
#[derive(Serialize)]
#[serde(untagged)]
enum StepsDoc {
    Within(Interval),
    Infinite(&'static str),
}

impl ResultProbabilityDoc {
    fn of(r: &VerifyReport, property: &str) -> Option<ResultProbabilityDoc> {
        let p = r.probabilities.as_ref()?.properties.iter().find(|p| p.property == property)?;
        let steps = |s: &Option<Steps>| match s {
            Some(Steps::Within(i)) => Some(StepsDoc::Within(*i)),
            Some(Steps::Infinite) => Some(StepsDoc::Infinite("infinite")),
            None => None,
        };
        Some(ResultProbabilityDoc {
            probability: p.probability,
            expected_steps: steps(&p.expected_steps),
            expected_steps_if_reached: steps(&p.expected_steps_if_reached),
            probability_reading: p.reading,
            probability_note: p.why_not.clone(),
            probability_converged: p.converged,
            probability_sweeps: p.sweeps,
            within_steps: p.within.clone(),
        })
    }
}

/// `stats.edges`: `lists` is `kept` or `recomputed`; `reason` and its fields say why.
#[derive(Serialize)]
pub(crate) struct EdgesDoc {
    pub(crate) lists: &'static str,
    #[serde(flatten)]
    pub(crate) why: crate::engine::EdgeUse,
}

/// `--backend lnt`: how the script was run.
#[derive(Serialize)]
pub(crate) struct LntDoc {
    pub(crate) workflow: &'static str,
    pub(crate) lnt_dialect: &'static str,
    pub(crate) script: String,
    pub(crate) files: Option<String>,
}

/// `--backend cadp`: how CADP was run.
#[derive(Serialize)]
pub(crate) struct CadpDoc {
    pub(crate) workflow: &'static str,
    pub(crate) lnt_dialect: &'static str,
    pub(crate) cross_checked: bool,
    pub(crate) files: Option<String>,
    /// Where each counterexample came from: "inline in the log" or the `.aut` file read.
    pub(crate) diagnostics: BTreeMap<String, String>,
}

impl<'a> VerifyDoc<'a> {
    /// The native back end's document; the other back ends replace `backend` and `stats` and
    /// add their fields.
    pub(crate) fn new(l: &'a Loaded, spec: &'a str, fair: bool, r: &VerifyReport) -> Self {
        let results = r
            .results
            .iter()
            .map(|x| ResultDoc {
                property: x.property.clone(),
                modality: x.modality.clone(),
                verdict: x.verdict.as_str(),
                reason: x.reason.clone(),
                trace: x.trace.as_ref().map(|t| trace::to_json(&l.model, &l.behaviours, t)),
                mcl: None,
                lts: None,
                probability: ResultProbabilityDoc::of(r, &x.property),
                fair_loop: x.fair_loop.as_ref().map(FairLoopDoc::new),
            })
            .collect();
        let st = &r.stats;
        VerifyDoc {
            spec,
            externs: &l.model.externs,
            backend: "native",
            fair,
            fairness: None,
            results,
            stats: StatsDoc::Native {
                states: st.states,
                transitions: st.transitions,
                deadlocks: st.deadlocks,
                initial_states: st.initial_states,
                seconds: super::run_seconds(),
                exploration_seconds: st.seconds,
                peak_rss_mib: st.peak_rss_mib,
                graph_bytes: st.graph_bytes,
                store_bytes: st.store_bytes,
                state_bytes: st.state_bytes,
                complete: st.complete,
                decided_early: st.decided_early,
                went_on: st.went_on.clone(),
                reduction: st.reduction.clone(),
                edges: EdgesDoc { lists: if st.edges.kept() { "kept" } else { "recomputed" }, why: st.edges },
                store_form: if st.compact_store { "compact" } else { "fast" },
                compacted_at: st.compacted_at,
            },
            stopped: r.stopped,
            lnt: None,
            cadp: None,
            probability: r
                .probabilities
                .as_ref()
                .map(|p| ProbabilityRunDoc { chain: p.chain.clone(), lnt: p.lnt.clone() }),
        }
    }
}

/// `labs simulate --json`: one line per run as it finishes (docs/json.md).
#[derive(Serialize)]
pub(crate) struct RunLine<'a> {
    pub(crate) kind: &'static str,
    /// From 1, as in the text header `run I of N`.
    pub(crate) run: usize,
    /// The seed that draws this run alone (`--seed SEED --runs 1`).
    pub(crate) seed: u64,
    pub(crate) deadlock: bool,
    pub(crate) steps: usize,
    pub(crate) properties: &'a [crate::engine::simulate::SimProperty],
    /// Absent with `--traces none`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) trace: Option<crate::trace::ChangesJson>,
}

/// `labs simulate --json`: the last line, after every run.
#[derive(Serialize)]
pub(crate) struct SummaryLine<'a> {
    pub(crate) kind: &'static str,
    pub(crate) spec: &'a str,
    pub(crate) externs: &'a BTreeMap<String, i64>,
    pub(crate) backend: &'static str,
    pub(crate) fair: bool,
    pub(crate) seed: u64,
    pub(crate) steps: usize,
    pub(crate) runs_planned: usize,
    pub(crate) runs: usize,
    pub(crate) deadlocks: usize,
    pub(crate) no_initial_state: bool,
    pub(crate) properties: Vec<PropertyCounts<'a>>,
    pub(crate) stopped: Option<StopReason>,
}

/// How many runs satisfied, violated and left undecided one property.
#[derive(Serialize)]
pub(crate) struct PropertyCounts<'a> {
    pub(crate) property: &'a str,
    pub(crate) modality: &'a str,
    pub(crate) satisfied: usize,
    pub(crate) violated: usize,
    pub(crate) undecided: usize,
}

/// A run-time error of the model met by `verify` or `simulate`, with the trace reaching it.
#[derive(Serialize)]
pub(crate) struct RuntimeErrorDoc {
    pub(crate) error: String,
    pub(crate) trace: crate::trace::TraceJson,
}

/// `labs info --json`.
#[derive(Serialize)]
pub(crate) struct InfoDoc<'a> {
    pub(crate) spec: &'a str,
    pub(crate) externs: &'a BTreeMap<String, i64>,
    pub(crate) agents: usize,
    pub(crate) agent_types: Vec<AgentTypeDoc>,
    /// The symmetries of values `labs verify` reduces by, without and with `--fair`.
    pub(crate) value_symmetries: ValueSymmetryBothDoc,
    pub(crate) variables: Vec<VariableDoc>,
    pub(crate) stigmergies: Vec<StigmergyDoc>,
    pub(crate) assumptions: Vec<NameDoc>,
    pub(crate) properties: Vec<PropertyDoc>,
}

#[derive(Serialize)]
pub(crate) struct AgentTypeDoc {
    pub(crate) name: String,
    pub(crate) count: usize,
    /// The first and last id; `None` for a type without agents.
    pub(crate) ids: Option<[usize; 2]>,
    pub(crate) attributes: Vec<String>,
    pub(crate) stigmergies: Vec<String>,
    pub(crate) behaviour: BehaviourDoc,
    pub(crate) symmetry: SymmetryDoc,
}

/// What `labs verify` reduces for one agent type, without and with `--fair`.
#[derive(Serialize)]
pub(crate) struct SymmetryDoc {
    pub(crate) free: SchedulingSymmetryDoc,
    pub(crate) fair: SchedulingSymmetryDoc,
}

#[derive(Serialize)]
pub(crate) struct SchedulingSymmetryDoc {
    /// `interchangeable`, `rotations`, `trivial` (fewer than two agents) or `not symmetric`.
    pub(crate) status: &'static str,
    /// Why not.
    pub(crate) reasons: Vec<ReasonDoc>,
}

#[derive(Serialize)]
pub(crate) struct ValueSymmetryBothDoc {
    pub(crate) free: ValueSymmetryDoc,
    pub(crate) fair: ValueSymmetryDoc,
}

/// A group of symmetries of values (docs/reductions.md).
#[derive(Serialize)]
pub(crate) struct ValueSymmetryDoc {
    /// Its number of elements, the identity included (1: none).
    pub(crate) order: usize,
    /// Maps that generate it, as simultaneous assignments (`x, dirx := 4 - x, -dirx`).
    pub(crate) generators: Vec<String>,
    /// What limited the search, if anything.
    pub(crate) note: Option<String>,
}

impl ValueSymmetryDoc {
    fn new(v: &crate::engine::symmetry::ValueSymmetries) -> Self {
        ValueSymmetryDoc { order: v.maps.len() + 1, generators: v.generators.clone(), note: v.note.clone() }
    }
}

/// A reason, with its place in the spec where one place is to blame.
#[derive(Serialize)]
pub(crate) struct ReasonDoc {
    pub(crate) text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) column: Option<usize>,
}

impl SchedulingSymmetryDoc {
    fn new(l: &Loaded, s: &TypeSymmetry) -> Self {
        let reasons = match s {
            TypeSymmetry::Broken(r) => r
                .iter()
                .map(|r| {
                    let at = r.span.map(|sp| l.file.line_col(sp.start));
                    ReasonDoc { text: r.text.clone(), line: at.map(|a| a.0), column: at.map(|a| a.1) }
                })
                .collect(),
            _ => Vec::new(),
        };
        SchedulingSymmetryDoc { status: super::info::symmetry_word(s), reasons }
    }
}

#[derive(Serialize)]
pub(crate) struct BehaviourDoc {
    pub(crate) control_states: usize,
    pub(crate) actions: usize,
}

#[derive(Serialize)]
pub(crate) struct VariableDoc {
    pub(crate) name: String,
    pub(crate) store: &'static str,
    pub(crate) stigmergy: Option<StigmergyRefDoc>,
    pub(crate) shape: Vec<usize>,
    pub(crate) initialisers: Vec<InitialiserDoc>,
}

#[derive(Serialize)]
pub(crate) struct StigmergyRefDoc {
    pub(crate) name: String,
    pub(crate) tuple: usize,
}

#[derive(Serialize)]
pub(crate) struct InitialiserDoc {
    pub(crate) agent_type: Option<String>,
    pub(crate) init: String,
}

#[derive(Serialize)]
pub(crate) struct StigmergyDoc {
    pub(crate) name: String,
    pub(crate) link: String,
    pub(crate) tuples: Vec<Vec<String>>,
    pub(crate) holders: Vec<String>,
}

#[derive(Serialize)]
pub(crate) struct NameDoc {
    pub(crate) name: String,
}

#[derive(Serialize)]
pub(crate) struct PropertyDoc {
    pub(crate) name: String,
    pub(crate) modality: String,
    pub(crate) text: String,
}

impl<'a> InfoDoc<'a> {
    pub(crate) fn new(l: &'a Loaded) -> Self {
        let m = &l.model;
        let [free, fair] = super::info::symmetry_both(l);
        let agent_types = m
            .agent_types
            .iter()
            .zip(&l.behaviours)
            .enumerate()
            .map(|(i, (t, b))| AgentTypeDoc {
                name: t.name.clone(),
                count: t.count,
                ids: (t.count > 0).then(|| [t.first_id, t.first_id + t.count - 1]),
                attributes: t.attrs.iter().map(|&v| m.vars[v].name.clone()).collect(),
                stigmergies: t.stigmergies.iter().map(|&s| m.stigmergies[s].name.clone()).collect(),
                behaviour: BehaviourDoc { control_states: b.states.len(), actions: b.edge_count() },
                symmetry: SymmetryDoc {
                    free: SchedulingSymmetryDoc::new(l, &free.types[i]),
                    fair: SchedulingSymmetryDoc::new(l, &fair.types[i]),
                },
            })
            .collect();
        let variables = m
            .vars
            .iter()
            .map(|v| {
                let (store, stigmergy) = match v.store {
                    Store::Env => ("environment", None),
                    Store::Attr => ("interface", None),
                    Store::Stig { stigmergy, tuple } => {
                        ("stigmergy", Some(StigmergyRefDoc { name: m.stigmergies[stigmergy].name.clone(), tuple }))
                    }
                };
                let initialisers = v
                    .inits
                    .iter()
                    .map(|(t, i)| InitialiserDoc {
                        agent_type: t.map(|t| m.agent_types[t].name.clone()),
                        init: print::init(m, i),
                    })
                    .collect();
                VariableDoc { name: v.name.clone(), store, stigmergy, shape: v.dims.clone(), initialisers }
            })
            .collect();
        let stigmergies = m
            .stigmergies
            .iter()
            .enumerate()
            .map(|(si, s)| StigmergyDoc {
                name: s.name.clone(),
                link: print::bexpr(m, &s.link),
                tuples: s
                    .tuples
                    .iter()
                    .map(|&t| m.tuples[t].vars.iter().map(|&v| m.vars[v].name.clone()).collect())
                    .collect(),
                holders: m.agent_types.iter().filter(|t| t.stigmergies.contains(&si)).map(|t| t.name.clone()).collect(),
            })
            .collect();
        InfoDoc {
            spec: l.name(),
            externs: &m.externs,
            agents: m.n_agents(),
            agent_types,
            value_symmetries: ValueSymmetryBothDoc {
                free: ValueSymmetryDoc::new(&free.values),
                fair: ValueSymmetryDoc::new(&fair.values),
            },
            variables,
            stigmergies,
            assumptions: m.assumptions.iter().map(|a| NameDoc { name: a.name.clone() }).collect(),
            properties: m
                .properties
                .iter()
                .map(|p| PropertyDoc { name: p.name.clone(), modality: p.keyword.clone(), text: p.text.clone() })
                .collect(),
        }
    }
}

/// `labs values --json`.
#[derive(Serialize)]
pub(crate) struct ValuesDoc<'a> {
    pub(crate) spec: &'a str,
    pub(crate) externs: &'a BTreeMap<String, i64>,
    pub(crate) variables: Vec<ValueSetDoc>,
}

/// The values of one element (of one agent type's copy).
#[derive(Serialize)]
pub(crate) struct ValueSetDoc {
    pub(crate) name: String,
    pub(crate) agent_type: Option<String>,
    pub(crate) store: &'static str,
    pub(crate) intervals: Vec<IntervalDoc>,
    pub(crate) widened: bool,
}

/// An interval `[lo, hi]` (bounds `"-inf"`/`"+inf"` when unbounded), or `"undef"` for ⊥.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum IntervalDoc {
    Interval([BoundDoc; 2]),
    Undef(&'static str),
}

#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum BoundDoc {
    Finite(i64),
    Infinite(&'static str),
}

impl BoundDoc {
    pub(crate) fn new(b: i64) -> Self {
        match b {
            crate::analysis::NEG_INF => BoundDoc::Infinite("-inf"),
            crate::analysis::POS_INF => BoundDoc::Infinite("+inf"),
            v => BoundDoc::Finite(v),
        }
    }
}

/// `labs translate-trace --json`.
#[derive(Serialize)]
pub(crate) struct TranslatedDoc<'a> {
    pub(crate) spec: &'a str,
    pub(crate) externs: &'a BTreeMap<String, i64>,
    pub(crate) labels: usize,
    pub(crate) ignored_labels: usize,
    pub(crate) trailing_labels: usize,
    pub(crate) observed: Vec<&'a str>,
    pub(crate) property: Option<&'a str>,
    /// `None` without a property or when one trace cannot decide it.
    pub(crate) shows: Option<ShowsDoc>,
    pub(crate) trace: crate::trace::TraceJson,
}

#[derive(Serialize)]
pub(crate) struct ShowsDoc {
    pub(crate) violation: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) at: Option<usize>,
}

/// `labs mcl --json`.
#[derive(Serialize)]
pub(crate) struct MclDoc {
    pub(crate) query: String,
    pub(crate) lts: String,
    pub(crate) states: usize,
    pub(crate) transitions: usize,
    pub(crate) verdict: &'static str,
    pub(crate) holds: bool,
    pub(crate) pairs_explored: usize,
    pub(crate) diagnostic: Option<DiagnosticDoc>,
    /// The labels in quotes and patterns of the query that no label of the LTS matches.
    pub(crate) unmatched: Vec<UnmatchedDoc>,
}

#[derive(Serialize)]
pub(crate) struct UnmatchedDoc {
    pub(crate) gate: String,
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) reason: String,
}

#[derive(Serialize)]
pub(crate) struct DiagnosticDoc {
    pub(crate) states: Vec<u32>,
    pub(crate) labels: Vec<String>,
    pub(crate) loop_start: Option<usize>,
}
