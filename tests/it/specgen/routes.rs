//! One spec on every route `labs verify` offers, as users run them (the `labs` binary with
//! `--json`), and the comparison of their outcomes: verdicts per property, the same kind of
//! run-time error, or a refusal by name of an LNT route. Plus the value analysis as an
//! invariant: every value the native engine reaches lies in the analysed set.

use crate::engine_common::load_text;
use crate::scratch::Scratch;
use std::collections::BTreeMap;
use std::fmt;

/// The bounds of the runs; a spec on which a route reaches one is not compared on that route.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// `--max-states` of the native routes.
    pub native_states: u64,
    /// `--max-states` of each LTS an LNT route generates (its states include the steps'
    /// intermediate states: tens of times the LAbS states).
    pub lnt_states: u64,
    /// The LNT routes are not run on specs with more LAbS states than this (counted by
    /// `--no-reduction`): their LTSs would reach the bound, after a long time.
    pub lnt_labs_states: u64,
    /// `--timeout` of every run, in seconds.
    pub seconds: u64,
}

/// For the default tier: a short run per spec.
pub const QUICK: Limits = Limits { native_states: 2000, lnt_states: 15000, lnt_labs_states: 150, seconds: 6 };
/// For the slow tier.
pub const THOROUGH: Limits = Limits { native_states: 4000, lnt_states: 40000, lnt_labs_states: 400, seconds: 20 };

/// The memory bound of every run, in MiB.
const MEMORY: &str = "1500";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Route {
    Native,
    /// The default run, as users run it: reduced and stopped at the violations where no
    /// run-time error can lie beyond them (docs/semantics.md, D9).
    OnTheFly,
    NoReduction,
    LntMonolithic,
    LntCompositional,
    LntOnTheFly,
}

impl Route {
    /// The options selecting the route.
    pub fn args(self) -> &'static [&'static str] {
        match self {
            // The reference: every state explored, for the full counts and shortest
            // counterexamples of the LNT routes' comparisons.
            Route::Native => &["--threads", "1", "--exhaustive"],
            // It stops at the violations only where no run-time error can lie beyond them: a
            // run-time error the exhaustive run meets must be its too.
            Route::OnTheFly => &["--threads", "1"],
            // Exhaustive, so that its state count says how large the LNT routes' LTSs are.
            Route::NoReduction => &["--threads", "1", "--no-reduction", "--exhaustive"],
            Route::LntMonolithic => &["--backend", "lnt", "--workflow", "monolithic"],
            Route::LntCompositional => &["--backend", "lnt", "--workflow", "compositional"],
            // Its first check, that no run-time error is reachable, explores every state
            // unless it finds one: it meets the errors the exhaustive runs meet.
            Route::LntOnTheFly => &["--backend", "lnt", "--workflow", "on-the-fly"],
        }
    }

    pub fn is_lnt(self) -> bool {
        matches!(self, Route::LntMonolithic | Route::LntCompositional | Route::LntOnTheFly)
    }

    pub fn name(self) -> &'static str {
        match self {
            Route::Native => "native",
            Route::OnTheFly => "native on the fly",
            Route::NoReduction => "native --no-reduction",
            Route::LntMonolithic => "lnt monolithic",
            Route::LntCompositional => "lnt compositional",
            Route::LntOnTheFly => "lnt on-the-fly",
        }
    }
}

/// Run-time errors of the model (semantics D9), by kind: the routes word them differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ErrorKind {
    DivisionByZero,
    Overflow,
    Index,
    AgentId,
    /// A `[a..b]` with more values than a step may enumerate (the native engine's limit).
    TooManyChoices,
}

/// The kind of run-time error a message reports, if it reports one.
pub fn error_kind(message: &str) -> Option<ErrorKind> {
    let m = message.to_lowercase();
    if m.contains("division by zero") || m.contains("modulo by zero") {
        Some(ErrorKind::DivisionByZero)
    } else if m.contains("overflow") {
        Some(ErrorKind::Overflow)
    } else if m.contains("a step may enumerate") {
        Some(ErrorKind::TooManyChoices)
    } else if m.contains("agent id") && m.contains("out of range") {
        Some(ErrorKind::AgentId)
    } else if (m.contains("index") && m.contains("out of range")) || m.contains("inttonat of a negative") {
        // The LNT program's index check fails in `IntToNat` (docs/lnt-encoding.md §1).
        Some(ErrorKind::Index)
    } else {
        None
    }
}

/// What one run of `labs verify` ended with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Exit 0 or 10: the verdict of each property checked.
    Verdicts(BTreeMap<String, String>),
    /// Exit 1 with a run-time error of the model.
    Error(ErrorKind, String),
    /// Exit 1: an LNT route refusing a construct by name (or an unbounded compositional leaf).
    Refused(String),
    /// A bound was hit (states, time, memory): nothing to compare.
    Bound(String),
    /// Anything else: an internal error, a panic, a crash.
    Failed(String),
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Verdicts(v) => {
                let parts: Vec<String> = v.iter().map(|(p, x)| format!("{p}={x}")).collect();
                write!(f, "{}", parts.join(" "))
            }
            Outcome::Error(k, m) => write!(f, "run-time error {k:?}: {m}"),
            Outcome::Refused(m) => write!(f, "refused: {m}"),
            Outcome::Bound(m) => write!(f, "bound: {m}"),
            Outcome::Failed(m) => write!(f, "FAILED: {m}"),
        }
    }
}

/// The command line of one run (after `labs verify SPEC`), for running it and for reproducing
/// it by hand.
pub fn route_args(route: Route, fair: bool, externs: &[String], properties: &[String], limits: &Limits) -> Vec<String> {
    let mut args: Vec<String> = externs.to_vec();
    args.extend(["--json", "--quiet"].map(String::from));
    args.extend(route.args().iter().map(|s| s.to_string()));
    let bound = if route.is_lnt() { limits.lnt_states } else { limits.native_states };
    args.extend(["--max-states".into(), bound.to_string(), "--timeout".into(), limits.seconds.to_string()]);
    args.extend(["--memory", MEMORY].map(String::from));
    if fair {
        args.push("--fair".into());
    }
    for p in properties {
        args.extend(["--property".to_string(), p.clone()]);
    }
    args
}

/// Runs `labs verify` on `text` by one route. `properties` empty: all of them.
pub fn run_route(
    text: &str,
    externs: &[String],
    route: Route,
    fair: bool,
    properties: &[String],
    limits: &Limits,
) -> Outcome {
    run_route_counted(text, externs, route, fair, properties, limits).0
}

/// The same, with the number of states the run reports (LAbS states for the native routes).
pub fn run_route_counted(
    text: &str,
    externs: &[String],
    route: Route,
    fair: bool,
    properties: &[String],
    limits: &Limits,
) -> (Outcome, Option<u64>) {
    let file = Scratch::file("gen", "spec.labs", text);
    let args = route_args(route, fair, externs, properties, limits);
    // The LNT routes keep their files in a temporary directory on errors: put it in the
    // scratch directory, removed with it.
    let tmp = file.parent().expect("a scratch directory").to_path_buf();
    let out = crate::fixtures::labs_command()
        .arg("verify")
        .arg(&*file)
        .args(&args)
        .env("TMPDIR", &tmp)
        .output()
        .expect("run labs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let states = serde_json::from_str::<serde_json::Value>(&stdout).ok().and_then(|j| j["stats"]["states"].as_u64());
    (classify(out.status.code(), &stdout, &stderr), states)
}

/// The outcome of a run from its exit code and output.
pub fn classify(code: Option<i32>, stdout: &str, stderr: &str) -> Outcome {
    let json: Option<serde_json::Value> = serde_json::from_str(stdout).ok();
    let first_error = || {
        stderr
            .lines()
            .find(|l| l.starts_with("error"))
            .or_else(|| stderr.lines().find(|l| !l.starts_with("warning") && !l.trim().is_empty()))
            .unwrap_or("")
            .to_string()
    };
    match code {
        Some(0 | 10) => {
            let Some(results) = json.as_ref().and_then(|j| j["results"].as_array()) else {
                return Outcome::Failed(format!("exit {code:?} without a JSON report: {}", first_error()));
            };
            let mut v = BTreeMap::new();
            for r in results {
                let p = r["property"].as_str().unwrap_or("?").to_string();
                let verdict = r["verdict"].as_str().unwrap_or("?").to_string();
                if verdict == "unknown" {
                    return Outcome::Bound(format!("{p} unknown"));
                }
                v.insert(p, verdict);
            }
            Outcome::Verdicts(v)
        }
        Some(5) => Outcome::Bound(first_error()),
        Some(124) => Outcome::Bound("time limit".into()),
        Some(1) => {
            let message = json
                .as_ref()
                .and_then(|j| j["error"].as_str().map(String::from))
                .unwrap_or_else(|| stderr.lines().filter(|l| l.starts_with("error")).collect::<Vec<_>>().join(" | "));
            if message.contains("internal error") {
                // Its message may quote a run-time error met while checking a trace.
                Outcome::Failed(format!("exit 1: {message}"))
            } else if message.contains("does not support") || message.contains("does not bound") {
                Outcome::Refused(message)
            } else if message.contains("state bound") || message.contains("memory bound") {
                Outcome::Bound(message)
            } else if let Some(k) = error_kind(&message) {
                Outcome::Error(k, message)
            } else {
                Outcome::Failed(format!("exit 1: {message}"))
            }
        }
        other => Outcome::Failed(format!("exit {other:?}: {}", stderr.lines().take(6).collect::<Vec<_>>().join(" | "))),
    }
}

/// How a route's outcome compares with the reference's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Compared {
    Agree,
    /// A bound was hit on one side: not compared.
    Bounded,
    /// The route refused a construct by name.
    Refused(String),
    /// A disagreement, with its class (what differs, without the spec's particulars).
    Differ(String),
}

/// Compares a route's outcome with the reference's; `modalities` gives each property's
/// modality keyword, for the class.
pub fn compare(reference: &Outcome, got: &Outcome, modalities: &BTreeMap<String, String>) -> Compared {
    use Outcome::*;
    match (reference, got) {
        (Bound(_), _) | (_, Bound(_)) => Compared::Bounded,
        (_, Refused(m)) => Compared::Refused(m.clone()),
        (Verdicts(a), Verdicts(b)) => {
            for (p, vb) in b {
                let va = a.get(p).map(String::as_str).unwrap_or("absent");
                if va != vb {
                    let m = match modalities.get(p).map(String::as_str).unwrap_or("?") {
                        "eventually" => "finally",
                        m => m,
                    };
                    return Compared::Differ(format!("verdict of `{m}`: {va} natively, {vb} on the route"));
                }
            }
            match a.keys().find(|p| !b.contains_key(*p)) {
                Some(p) => Compared::Differ(format!("no verdict for a property ({p})")),
                None => Compared::Agree,
            }
        }
        // A model may reach several run-time errors, and each route reports the first its
        // search meets (semantics D9): errors of different kinds agree. An LNT route prints an
        // error only once the native engine has met one of that kind at the end of the
        // route's path (otherwise it fails with an internal error), so its error is reachable.
        (Error(..), Error(..)) => Compared::Agree,
        (Error(k, _), Verdicts(_)) => Compared::Differ(format!("run-time error {k:?} only natively")),
        (Verdicts(_), Error(k, _)) => Compared::Differ(format!("run-time error {k:?} only on the route")),
        (_, Failed(m)) => Compared::Differ(format!("route failed: {}", normalise(m))),
        (Failed(m), _) | (Refused(m), _) => Compared::Differ(format!("native failed: {}", normalise(m))),
    }
}

/// A failure message without the spec's particulars (numbers, paths, names of instances), to
/// group failures of one cause.
pub fn normalise(m: &str) -> String {
    let m = m.split(" | ").next().unwrap_or(m);
    // What an internal error of the LNT route says went wrong comes after the failing step.
    let m = m.split(" (an encoding error").next().unwrap_or(m);
    // `(spec_P0.mcl on spec_mono_P0.bcg)`: the files differ between the workflows.
    let files = regex::Regex::new(r" \([^()]*\.bcg\)").expect("a regex");
    let m = &*files.replace_all(m, "");
    // `(in a step of P 0)`, `(in Agent_P [TICK, …] (0))`: where it happened.
    let place = regex::Regex::new(r" \(in .*\)$").expect("a regex");
    let m = &*place.replace(m, "");
    // Keep the last segment of `file: LTS: place: message` chains.
    let tail = m.rsplit(": ").find(|s| !s.trim().is_empty() && !s.contains('[')).unwrap_or(m);
    let mut out = String::new();
    let mut last_digit = false;
    let mut quoted = false;
    for c in tail.chars() {
        // Names in backquotes (`?e_0`, `nd_1`) and numbers are particulars of the spec.
        if c == '`' {
            if !quoted {
                out.push_str("`…`");
            }
            quoted = !quoted;
            continue;
        }
        if quoted {
            continue;
        }
        if c.is_ascii_digit() {
            if !last_digit {
                out.push('#');
            }
            last_digit = true;
        } else {
            out.push(c);
            last_digit = false;
        }
    }
    let out = out.replace("(eventually)", "(finally)");
    // `… of gate TICK`: the gate is a particular too.
    let out = match out.find(" of gate ") {
        Some(i) => format!("{} of a gate", &out[..i]),
        None => out,
    };
    out.chars().take(120).collect()
}

/// Each property's modality keyword, from the spec's `check` section.
pub fn modalities(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let Some(i) = text.rfind("check {") else { return out };
    for l in text[i + 7..].lines() {
        if let Some((name, rest)) = l.trim().split_once(" = ") {
            out.insert(name.to_string(), rest.split_whitespace().next().unwrap_or("").to_string());
        }
    }
    out
}

/// The properties an LNT route is given: all of them (every modality, linear-time formulas and
/// scoped patterns included, is encoded); `None` when there are none.
pub fn lnt_properties(text: &str) -> Option<Vec<String>> {
    let kept: Vec<String> = modalities(text).into_keys().collect();
    if kept.is_empty() { None } else { Some(kept) }
}

/// One disagreement of a route with its reference (`route` None: of the value analysis with
/// the values the native engine reaches).
#[derive(Clone, Debug)]
pub struct Disagreement {
    pub route: Option<Route>,
    pub fair: bool,
    pub class: String,
    pub reference: Outcome,
    pub got: Outcome,
}

impl Disagreement {
    /// The class with the route, for grouping.
    pub fn key(&self) -> String {
        match self.route {
            None => format!("value analysis: {}", self.class),
            Some(r) => format!("{}: {}", r.name(), self.class),
        }
    }
}

/// Everything one spec gave.
#[derive(Clone, Debug, Default)]
pub struct SpecReport {
    /// Each run: route, `--fair`, the properties given (empty: all), outcome.
    pub outcomes: Vec<(Route, bool, Vec<String>, Outcome)>,
    /// Seconds spent per route.
    pub seconds: BTreeMap<Route, f64>,
    pub disagreements: Vec<Disagreement>,
    pub compared: usize,
    pub bounded: usize,
    pub refusals: Vec<String>,
    /// Values checked against the value analysis (None: exploration bounded or in error).
    pub values_checked: Option<usize>,
}

/// Runs every route on `text`, free and fair, and compares.
pub fn check_spec(text: &str, externs: &[String], limits: &Limits) -> SpecReport {
    let mut rep = SpecReport::default();
    let run = |route: Route, fair: bool, props: &[String], rep: &mut SpecReport| {
        let start = std::time::Instant::now();
        let (o, n) = run_route_counted(text, externs, route, fair, props, limits);
        *rep.seconds.entry(route).or_default() += start.elapsed().as_secs_f64();
        rep.outcomes.push((route, fair, props.to_vec(), o.clone()));
        (o, n)
    };
    let mods = modalities(text);
    let lnt_props = lnt_properties(text);
    let has_scoped = lnt_props.as_ref().map(|p| p.len()) != Some(mods.len());
    let mut explored = vec![];
    for fair in [false, true] {
        let (native, _) = run(Route::Native, fair, &[], &mut rep);
        let (on_the_fly, _) = run(Route::OnTheFly, fair, &[], &mut rep);
        rep.tally(Route::OnTheFly, fair, &native, &on_the_fly, &mods);
        let (noreduce, states) = run(Route::NoReduction, fair, &[], &mut rep);
        rep.tally(Route::NoReduction, fair, &native, &noreduce, &mods);
        if matches!(noreduce, Outcome::Verdicts(_)) {
            // The whole state space was explored within the bounds: so will the values be.
            explored.push(fair);
        }
        let Some(props) = &lnt_props else { continue };
        if states.unwrap_or(0) > limits.lnt_labs_states {
            rep.bounded += 3;
            continue;
        }
        // The LNT routes check fewer properties when some are scoped: their reference is the
        // native engine on the same ones (a property may be what meets a run-time error).
        let reference = if has_scoped { run(Route::Native, fair, props, &mut rep).0 } else { native };
        let given = if has_scoped { props.clone() } else { vec![] };
        for route in [Route::LntMonolithic, Route::LntCompositional, Route::LntOnTheFly] {
            let (got, _) = run(route, fair, &given, &mut rep);
            rep.tally(route, fair, &reference, &got, &mods);
        }
    }
    for fair in explored {
        match values_outside(text, externs, fair, limits) {
            Ok(n) => *rep.values_checked.get_or_insert(0) += n,
            Err(Some((class, detail))) => rep.disagreements.push(Disagreement {
                route: None,
                fair,
                class,
                reference: Outcome::Verdicts(BTreeMap::new()),
                got: Outcome::Failed(detail),
            }),
            Err(None) => {}
        }
    }
    rep
}

impl SpecReport {
    fn tally(&mut self, route: Route, fair: bool, reference: &Outcome, got: &Outcome, mods: &BTreeMap<String, String>) {
        match compare(reference, got, mods) {
            Compared::Agree => self.compared += 1,
            Compared::Bounded => self.bounded += 1,
            Compared::Refused(m) => self.refusals.push(m),
            Compared::Differ(class) => {
                self.compared += 1;
                self.disagreements.push(Disagreement {
                    route: Some(route),
                    fair,
                    class,
                    reference: reference.clone(),
                    got: got.clone(),
                })
            }
        }
    }
}

/// Whether `route` still disagrees with its reference on `text` in the same class (for the
/// minimiser): two runs.
pub fn still_disagrees(text: &str, externs: &[String], d: &Disagreement, limits: &Limits) -> bool {
    let Some(route) = d.route else {
        // Explored in this process only when the native engine explores it within the bounds.
        let native = run_route(text, externs, Route::NoReduction, d.fair, &[], limits);
        return matches!(native, Outcome::Verdicts(_))
            && matches!(values_outside(text, externs, d.fair, limits), Err(Some((c, _))) if c == d.class);
    };
    let mods = modalities(text);
    let props = if route.is_lnt() {
        match lnt_properties(text) {
            Some(p) if p.len() != mods.len() => p,
            Some(_) => vec![],
            None => return false,
        }
    } else {
        vec![]
    };
    let reference = run_route(text, externs, Route::Native, d.fair, &props, limits);
    if matches!(reference, Outcome::Bound(_) | Outcome::Failed(_)) && !matches!(d.reference, Outcome::Failed(_)) {
        return false;
    }
    let got = run_route(text, externs, route, d.fair, &props, limits);
    compare(&reference, &got, &mods) == Compared::Differ(d.class.clone())
}

/// The value analysis as an invariant: `Ok(n)` when the `n` values the native engine reaches
/// all lie inside the analysed sets; `Err(Some((class, detail)))` for the first value outside
/// its set (the class says whether it is ⊥, the detail which variable and value);
/// `Err(None)` when the exploration is bounded or meets a run-time error.
pub fn values_outside(
    text: &str,
    externs: &[String],
    fair: bool,
    limits: &Limits,
) -> Result<usize, Option<(String, String)>> {
    use labs::model::Store;
    let (model, behs) = load_text(text, externs).map_err(|_| None)?;
    let a = labs::analysis::values::analyse(&model, &behs);
    let reached = labs::engine::reachable_values(&model, &behs, fair, Some(limits.native_states)).ok_or(None)?;
    let mut keys: Vec<_> = reached.keys().copied().collect();
    keys.sort();
    let mut n = 0;
    for (v, t) in keys {
        let key = if model.vars[v].store == Store::Env { None } else { t };
        let name = &model.vars[v].name;
        let Some(set) = a.get(v, key) else {
            return Err(Some(("a variable without an analysed set".into(), name.clone())));
        };
        for x in &reached[&(v, t)] {
            let inside = match x {
                Some(x) => set.contains(*x),
                None => set.contains_undef(),
            };
            if !inside {
                let shown = x.map(|x| x.to_string()).unwrap_or_else(|| "undef".into());
                let ty = t.map(|t| model.agent_types[t].name.clone()).unwrap_or_else(|| "environment".into());
                let class = if x.is_none() {
                    "⊥ reached outside the analysed set"
                } else {
                    "a value reached outside the analysed set"
                };
                return Err(Some((class.into(), format!("{name} reaches {shown} in {ty}, outside {set}"))));
            }
            n += 1;
        }
    }
    Ok(n)
}

/// The shell command reproducing one run, for failure messages.
pub fn command_line(route: Route, fair: bool, externs: &[String], properties: &[String], limits: &Limits) -> String {
    format!("labs verify SPEC.labs {}", route_args(route, fair, externs, properties, limits).join(" "))
}
