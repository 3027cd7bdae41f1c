//! Every kind of JSON document the CLI prints read into typed structs that refuse unknown
//! fields: the schemas of docs/json.md written as types. A field added to the output without
//! its place here (and in docs/json.md) fails; so does one missing or of another type.

use crate::fixtures::{self, labs_command};
use crate::scratch::Scratch;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use std::collections::BTreeMap;

type Externs = BTreeMap<String, i64>;

/// A value: an integer, or "undef" for ⊥.
#[derive(Deserialize, Debug)]
#[serde(untagged)]
#[allow(dead_code)]
enum Val {
    Int(i64),
    Undef(Undef),
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "lowercase")]
enum Undef {
    Undef,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct State {
    environment: BTreeMap<String, Val>,
    agents: Vec<Agent>,
    turn: Option<i32>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Agent {
    id: usize,
    agent_type: String,
    attributes: BTreeMap<String, Val>,
    stigmergy: BTreeMap<String, Stig>,
    pending_propagate: Vec<String>,
    pending_confirm: Vec<String>,
    control: i32,
    control_point: String,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Stig {
    value: Val,
    timestamp: i64,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Event {
    kind: EventKind,
    agent: usize,
    agent_type: String,
    text: String,
    assignments: Option<Vec<Assignment>>,
    tuple: Option<String>,
    receivers: Option<Vec<usize>>,
    repropagating: Option<Vec<usize>>,
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "lowercase")]
enum EventKind {
    Agent,
    Skip,
    Propagate,
    Confirm,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Assignment {
    variable: String,
    store: StoreKind,
    value: Val,
    timestamp: Option<i64>,
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "lowercase")]
enum StoreKind {
    Environment,
    Interface,
    Stigmergy,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Mark {
    at: usize,
    property: String,
    status: String,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Trace {
    initial: State,
    steps: Vec<Step>,
    loop_start: Option<usize>,
    ends_in_deadlock: bool,
    marks: Vec<Mark>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Step {
    event: Event,
    state: State,
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "lowercase")]
enum Verdict {
    Holds,
    Violated,
    Unknown,
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "snake_case")]
enum Stopped {
    Timeout,
    Interrupted,
    Memory,
    MaxStates,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct VerifyDoc {
    spec: String,
    externs: Externs,
    backend: String,
    fair: bool,
    results: Vec<VerifyResult>,
    stats: Stats,
    stopped: Option<Stopped>,
    lnt: Option<LntRun>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct VerifyResult {
    property: String,
    modality: String,
    verdict: Verdict,
    reason: Option<String>,
    trace: Option<Trace>,
    mcl: Option<String>,
    lts: Option<LtsSize>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct LtsSize {
    file: String,
    states: u64,
    transitions: u64,
}

#[derive(Deserialize, Debug)]
#[serde(untagged)]
#[allow(dead_code)]
enum Stats {
    Native(Box<NativeStats>),
    Lts(LtsStats),
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct NativeStats {
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
    decided_early: bool,
    went_on: Option<WentOn>,
    reduction: Option<String>,
    edges: Edges,
    store_form: String,
    compacted_at: Option<u64>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct WentOn {
    violated_at: u64,
    reason: String,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Edges {
    lists: String,
    reason: String,
    kept: Option<bool>,
    budget_bytes: Option<u64>,
    at_states: Option<u64>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct LtsStats {
    seconds: f64,
    peak_rss_mib: u64,
    lts: Vec<LtsSize>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct LntRun {
    workflow: String,
    lnt_dialect: String,
    script: String,
    files: Option<String>,
}

#[derive(Deserialize, Debug)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
#[allow(dead_code)]
enum SimulateLine {
    Run {
        run: usize,
        seed: u64,
        steps: usize,
        deadlock: bool,
        properties: Vec<SimProperty>,
        trace: Option<RunTrace>,
    },
    Summary {
        spec: String,
        externs: Externs,
        backend: String,
        fair: bool,
        seed: u64,
        steps: usize,
        runs_planned: u64,
        runs: u64,
        deadlocks: u64,
        no_initial_state: bool,
        properties: Vec<PropertyCounts>,
        stopped: Option<Stopped>,
    },
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct SimProperty {
    property: String,
    modality: String,
    status: String,
    at_step: Option<usize>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct PropertyCounts {
    property: String,
    modality: String,
    satisfied: u64,
    violated: u64,
    undecided: u64,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct RunTrace {
    initial: State,
    steps: Vec<ChangeStep>,
    loop_start: Option<usize>,
    ends_in_deadlock: bool,
    marks: Vec<Mark>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct ChangeStep {
    event: Event,
    changes: Changes,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Changes {
    environment: Option<BTreeMap<String, Val>>,
    agents: Option<Vec<AgentChanges>>,
    turn: Option<i32>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct AgentChanges {
    id: usize,
    attributes: Option<BTreeMap<String, Val>>,
    stigmergy: Option<BTreeMap<String, Stig>>,
    pending_propagate: Option<Vec<String>>,
    pending_confirm: Option<Vec<String>>,
    control: Option<i32>,
    control_point: Option<String>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct EstimateDoc {
    spec: String,
    externs: Externs,
    backend: String,
    fair: bool,
    seed: u64,
    steps: usize,
    method: Method,
    runs_planned: Option<u64>,
    runs: u64,
    epsilon_achieved: Option<f64>,
    deadlocks: u64,
    no_initial_state: bool,
    stopped: Option<Stopped>,
    properties: Vec<PropertyEstimate>,
}

#[derive(Deserialize, Debug)]
#[serde(tag = "method", rename_all = "lowercase", deny_unknown_fields)]
#[allow(dead_code)]
enum Method {
    Interval { epsilon: f64, confidence: f64, max_runs: Option<u64> },
    Sprt { theta: f64, indifference: f64, alpha: f64, beta: f64, max_runs: Option<u64> },
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct PropertyEstimate {
    property: String,
    modality: String,
    estimated: bool,
    runs: u64,
    successes: u64,
    estimate: Option<f64>,
    interval: Option<(f64, f64)>,
    decision: Option<String>,
    reached: Vec<u64>,
    not_refuted: Option<u64>,
    not_refuted_interval: Option<(f64, f64)>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct InfoDoc {
    spec: String,
    externs: Externs,
    agents: usize,
    agent_types: Vec<AgentType>,
    value_symmetries: Both<ValueSymmetry>,
    variables: Vec<Variable>,
    stigmergies: Vec<Stigmergy>,
    assumptions: Vec<Named>,
    properties: Vec<InfoProperty>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Both<T> {
    free: T,
    fair: T,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct AgentType {
    name: String,
    count: usize,
    ids: Option<[usize; 2]>,
    attributes: Vec<String>,
    stigmergies: Vec<String>,
    behaviour: Behaviour,
    symmetry: Both<SchedulingSymmetry>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Behaviour {
    control_states: usize,
    actions: usize,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct SchedulingSymmetry {
    status: String,
    reasons: Vec<Reason>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Reason {
    text: String,
    line: Option<usize>,
    column: Option<usize>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct ValueSymmetry {
    order: usize,
    generators: Vec<String>,
    note: Option<String>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Variable {
    name: String,
    store: StoreKind,
    stigmergy: Option<StigmergyRef>,
    shape: Vec<usize>,
    initialisers: Vec<Initialiser>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct StigmergyRef {
    name: String,
    tuple: usize,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Initialiser {
    agent_type: Option<String>,
    init: String,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Stigmergy {
    name: String,
    link: String,
    tuples: Vec<Vec<String>>,
    holders: Vec<String>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Named {
    name: String,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct InfoProperty {
    name: String,
    modality: String,
    text: String,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct ValuesDoc {
    spec: String,
    externs: Externs,
    variables: Vec<ValueSet>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct ValueSet {
    name: String,
    agent_type: Option<String>,
    store: StoreKind,
    intervals: Vec<Interval>,
    widened: bool,
}

#[derive(Deserialize, Debug)]
#[serde(untagged)]
#[allow(dead_code)]
enum Interval {
    Range([Bound; 2]),
    Undef(Undef),
}

#[derive(Deserialize, Debug)]
#[serde(untagged)]
#[allow(dead_code)]
enum Bound {
    Finite(i64),
    Infinite(String),
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct TranslatedDoc {
    spec: String,
    externs: Externs,
    labels: usize,
    ignored_labels: usize,
    trailing_labels: usize,
    observed: Vec<String>,
    property: Option<String>,
    shows: Option<Shows>,
    trace: Trace,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Shows {
    violation: bool,
    at: Option<usize>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct MclDoc {
    query: String,
    lts: String,
    states: usize,
    transitions: usize,
    verdict: String,
    holds: bool,
    pairs_explored: usize,
    diagnostic: Option<Diagnostic>,
    unmatched: Vec<Unmatched>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Diagnostic {
    states: Vec<u32>,
    labels: Vec<String>,
    loop_start: Option<usize>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Unmatched {
    gate: String,
    line: usize,
    column: usize,
    reason: String,
}

/// `labs ARGS` with its exit code checked, its standard output read as one `T`.
fn doc<T: DeserializeOwned>(args: &[&str], code: i32) -> T {
    let o = labs_command().args(args).output().expect("run labs");
    assert_eq!(o.status.code(), Some(code), "labs {args:?}: {}", fixtures::stderr(&o));
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("labs {args:?}: not the documented schema: {e}\n{}", fixtures::stdout(&o)))
}

#[test]
fn verify_documents_follow_their_schema() {
    let leader = fixtures::example("leader.labs");
    let native: VerifyDoc = doc(&["verify", &leader, "n=3", "--json"], 10);
    assert!(matches!(native.stats, Stats::Native(_)), "{native:?}");
    assert!(native.results.iter().any(|r| r.trace.is_some()), "a counterexample is checked too");
    let fair: VerifyDoc = doc(&["verify", &leader, "n=3", "--fair", "--exhaustive", "--json"], 10);
    assert!(fair.fair);
    let lnt: VerifyDoc = doc(&["verify", &leader, "n=3", "--backend", "lnt", "--json"], 10);
    assert!(matches!(lnt.stats, Stats::Lts(_)) && lnt.lnt.is_some(), "{lnt:?}");
    let ltl = fixtures::path_str("tests/cases/ltl_deadlock.labs");
    let _: VerifyDoc = doc(&["verify", &ltl, "--json"], 10);
    let stopped: VerifyDoc =
        doc(&["verify", &leader, "n=3", "--max-states", "5", "--property", "LeaderIsMax", "--json"], 5);
    assert!(matches!(stopped.stopped, Some(Stopped::MaxStates)), "{stopped:?}");
}

#[test]
fn simulate_documents_follow_their_schema() {
    let leader = fixtures::example("leader.labs");
    for extra in [&[][..], &["--fair"], &["--traces", "none"]] {
        let args =
            [&["simulate", leader.as_str(), "n=3", "--runs", "3", "--steps", "20", "--json"][..], extra].concat();
        let o = labs_command().args(&args).output().expect("run labs");
        assert_eq!(o.status.code(), Some(0), "{}", fixtures::stderr(&o));
        let lines: Vec<SimulateLine> = fixtures::stdout(&o)
            .lines()
            .map(|l| {
                serde_json::from_str(l).unwrap_or_else(|e| panic!("{args:?}: not the documented schema: {e}\n{l}"))
            })
            .collect();
        assert_eq!(lines.len(), 4);
        assert!(matches!(lines[3], SimulateLine::Summary { runs: 3, .. }));
    }
    let est: EstimateDoc = doc(&["simulate", &leader, "n=3", "--estimate", "--max-runs", "20", "--json"], 0);
    assert!(matches!(est.method, Method::Interval { .. }) && est.runs == 20, "{est:?}");
    let sprt: EstimateDoc = doc(&["simulate", &leader, "n=3", "--sprt", "0.5", "--max-runs", "20", "--json"], 0);
    assert!(matches!(sprt.method, Method::Sprt { .. }), "{sprt:?}");
}

#[test]
fn info_values_translate_trace_and_mcl_documents_follow_their_schema() {
    let leader = fixtures::example("leader.labs");
    let _: InfoDoc = doc(&["info", &leader, "n=3", "--json"], 0);
    let _: InfoDoc = doc(&["info", &fixtures::bench("flock.labs"), "birds=3", "grid=5", "delta=5", "--json"], 0);
    let _: ValuesDoc = doc(&["values", &leader, "n=3", "--json"], 0);
    let counter = fixtures::example("counter.labs");
    let seq = Scratch::file(
        "json-schema",
        "lost_update.seq",
        "\"E_C !0 !0\"\n\"DONE\"\n\"DONE\"\n\"DONE\"\n\"E_C !0 !1\"\n\"DONE\"\n\"DONE\"\n<deadlock>\n",
    );
    let t: TranslatedDoc =
        doc(&["translate-trace", &counter, "n=2", "atomic=0", seq.as_str(), "--property", "AllCounted", "--json"], 0);
    assert_eq!((t.spec.as_str(), t.externs.get("_n")), ("counter.labs", Some(&2)));
    let dir = Scratch::path("json-schema-mcl", "emitted");
    let d = dir.to_str().unwrap();
    let o = fixtures::labs(&["emit", &leader, "n=3", "-o", d]);
    assert_eq!(o.status.code(), Some(0), "{}", fixtures::stderr(&o));
    let aut = dir.with_file_name("leader.aut");
    let o = fixtures::labs(&["lts", &leader, "n=3", "-o", aut.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", fixtures::stderr(&o));
    let query = dir.join("leader_LeaderIsZero.mcl");
    let m: MclDoc = doc(&["mcl", query.to_str().unwrap(), aut.to_str().unwrap(), "--json"], 10);
    assert!(!m.holds && m.diagnostic.is_some(), "{m:?}");
}
