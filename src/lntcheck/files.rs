//! The emitted files executed as a CADP user runs them, with labs's tools in place of CADP's:
//! an SVL script read from a directory and executed from its text (leaves or `MAIN` generated
//! from the `.lnt` file it names by the interpreter, the script's reductions, composition,
//! priorities, hiding), and the MCL query each `verify` statement names read from the same
//! directory and evaluated on the LTS that statement names. The verdict is the evaluator's; no
//! LAbS state is rebuilt here.

use super::LntcheckError;
use super::interp::{self, GenOptions};
use super::lts::Lts;
use super::reduce::{Reduction, minimise};
use super::sem::Program;
use super::svl::{self, Beh, Composer, Derived, Script};
use crate::engine::StopReason;
use crate::lts_backend::LtsSize;
use crate::mcl;
use crate::trace::cadp::{LabelPath, parse_aut_path};
use std::collections::HashMap;
use std::path::Path;

/// What an MCL evaluator says about a query on an LTS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryOutcome {
    pub holds: bool,
    /// The evaluator's diagnostic as a path of visible labels (a counterexample when the query
    /// does not hold).
    pub(crate) diagnostic: Option<LabelPath>,
    /// The same diagnostic as the evaluator writes it (`.aut`, hidden steps included).
    pub(crate) diagnostic_aut: Option<String>,
}

/// Why a script run ended without its verdicts.
#[derive(Clone, Debug)]
pub enum RunError {
    /// A file, a statement or a query that cannot be executed (the message says which).
    Failed(LntcheckError),
    /// A bound of the evaluation (`Limits`) was reached.
    Stopped(StopReason),
}

impl From<LntcheckError> for RunError {
    fn from(e: LntcheckError) -> RunError {
        RunError::Failed(e)
    }
}

/// An MCL evaluator: the text of a query, evaluated on an LTS (its initial state is 0).
pub(crate) type Evaluator<'a> = dyn Fn(&str, &Lts) -> Result<QueryOutcome, RunError> + Sync + 'a;

/// The MCL evaluator of `crate::mcl` (evaluator4's syntax) within `limits`. A diagnostic that
/// ends in a state without successors is a path to a deadlock.
pub fn mcl_evaluator(limits: crate::limits::Limits) -> impl Fn(&str, &Lts) -> Result<QueryOutcome, RunError> + Sync {
    move |text, lts| {
        let query = parse_query(text)?;
        let succ = lts.adjacency();
        let mut view = lts.view(&succ);
        let out = mcl::evaluate_on(&query, &mut view, &limits).map_err(eval_error).and_then(|ev| outcome(&ev, &mut view));
        limits.discard(succ);
        out
    }
}

/// The query of `text`, or its first error located `line:col`.
pub(crate) fn parse_query(text: &str) -> Result<mcl::Query, RunError> {
    mcl::parse(text).map_err(|errs| RunError::Failed(LntcheckError::Syntax(errs[0].in_text(text).to_string())))
}

/// Why an evaluation ended without a verdict: a bound of the run, or a failure.
pub(crate) fn eval_error(e: mcl::EvalError) -> RunError {
    match e {
        mcl::EvalError::Timeout => RunError::Stopped(StopReason::Timeout),
        mcl::EvalError::Interrupted => RunError::Stopped(StopReason::Interrupted),
        mcl::EvalError::StateLimit { .. } => RunError::Stopped(StopReason::MaxStates),
        mcl::EvalError::Memory => RunError::Stopped(StopReason::Memory),
        mcl::EvalError::Generation { message } => RunError::Failed(LntcheckError::Program(message)),
        e => RunError::Failed(LntcheckError::Unsupported(e.to_string())),
    }
}

/// The verdict of `ev` with its diagnostic as a label path (ending in a deadlock when it ends
/// where no `DONE` can be reached) and as the evaluator writes it.
pub(crate) fn outcome<L: mcl::Successors>(ev: &mcl::Evaluation, lts: &mut L) -> Result<QueryOutcome, RunError> {
    let (diagnostic, diagnostic_aut) = match &ev.diagnostic {
        Some(d) => {
            let aut = d.to_aut();
            let mut path = parse_aut_path(&aut)
                .map_err(|m| LntcheckError::Encoding(format!("the evaluator's diagnostic: {m}")))?;
            let last = d.states.last().copied().unwrap_or(0);
            path.deadlock = d.loop_start.is_none() && stuck(lts, last).map_err(eval_error)?;
            (Some(path), Some(aut))
        }
        None => (None, None),
    };
    Ok(QueryOutcome { holds: ev.holds, diagnostic, diagnostic_aut })
}

/// Whether no `DONE` is reachable from `state` without an `ABANDON` step: a state without
/// successors, or a real state from which every way on is an abandoned read attempt (an
/// attempt returns to the state it started from, so the semantics has no step there: a
/// deadlock, as the `finally` queries read it).
fn stuck<L: mcl::Successors>(lts: &mut L, state: u32) -> Result<bool, mcl::EvalError> {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut todo = vec![state];
    while let Some(s) = todo.pop() {
        if !seen.insert(s) {
            continue;
        }
        for i in 0..lts.expand(s)? {
            let (l, t) = lts.edge(s, i);
            match lts.label(l) {
                "DONE" => return Ok(false),
                "ABANDON" => {}
                _ => todo.push(t),
            }
        }
    }
    Ok(true)
}

/// One `verify` statement executed.
#[derive(Clone, Debug)]
pub struct VerifyRun {
    pub property: String,
    /// The query file, as the script names it.
    pub(crate) mcl: String,
    /// The LTS it was evaluated on, as the script names it, and its size.
    pub(crate) bcg: String,
    pub(crate) states: usize,
    pub(crate) transitions: usize,
    /// `expected TRUE` in the emitted scripts: the property holds when the query does.
    pub(crate) expected: bool,
    pub outcome: QueryOutcome,
}

#[derive(Clone, Debug, Default)]
pub struct ScriptRun {
    /// The `verify` statements executed, in script order (those executed before a stop).
    pub verifies: Vec<VerifyRun>,
    /// Every LTS computed, in the order it was finished.
    pub(crate) lts: Vec<LtsSize>,
    /// A bound of the run (`RunOptions::limits`) stopped the script: the statements after
    /// `verifies` were not executed.
    pub stopped: Option<StopReason>,
}

impl ScriptRun {
    /// A run stopped by `r` before any statement was executed.
    pub(crate) fn stopped_by(r: StopReason) -> ScriptRun {
        ScriptRun { stopped: Some(r), ..Default::default() }
    }
}

#[derive(Clone, Default)]
pub struct RunOptions {
    /// Bound on the states of each generated LTS (leaf or `MAIN`).
    pub max_states: Option<u64>,
    /// Also write each LTS (`F.bcg` as `F.aut`) and each counterexample (the `verify`
    /// statement's diagnostic file, as `.aut`) into the directory.
    pub write_aut: bool,
    /// The run's bounds, polled while each LTS is generated.
    pub limits: crate::limits::Limits,
    /// Threads for a compositional script (`--jobs`): its leaves generated, then its
    /// properties composed and evaluated, that many at a time; 0 or 1: one after another.
    /// The results are the same whatever the number (gathered in script order).
    pub jobs: usize,
    /// Called as each generation, composition or on-the-fly evaluation advances.
    pub progress: Option<crate::lts_backend::PhaseProgressFn>,
}

/// Executes the script `script_file` of `dir`: every `verify` statement, each LTS computed
/// once, in script order.
pub fn run_script(
    dir: &Path,
    script_file: &str,
    opts: &RunOptions,
    evaluate: &Evaluator,
) -> Result<ScriptRun, RunError> {
    let read = |f: &str| read_file(dir, f);
    let script = svl::parse_named(&read(script_file)?, script_file)?;
    if opts.jobs > 1
        && let Some(f) = &script.process_file
        && script.derived.is_empty()
        && script.verifies.iter().all(|v| script.blocks.iter().any(|b| b.bcg == v.bcg))
    {
        return run_concurrently(dir, &script, &read(f)?, f, opts, evaluate);
    }
    // The programs the script reads: its default process file and any `generation of`.
    let mut programs: HashMap<String, Program> = HashMap::new();
    let mut files: Vec<&str> = script.process_file.iter().map(String::as_str).collect();
    for (_, d) in &script.derived {
        if let Derived::Generation { lnt } = d {
            files.push(lnt);
        }
    }
    for f in files {
        if !programs.contains_key(f) {
            programs.insert(f.to_string(), load_program(&read(f)?, f)?);
        }
    }
    let composer = script.process_file.as_ref().map(|f| composer(&programs[f.as_str()], opts));
    let mut exec =
        Execution { dir, script: &script, programs: &programs, composer, opts, done: HashMap::new(), sizes: vec![] };
    let mut verifies = vec![];
    for v in &script.verifies {
        let expected = expected(v)?;
        let run = exec.lts(&v.bcg).map_err(RunError::from).and_then(|lts| verify_run(dir, v, lts, expected, opts, evaluate));
        match run {
            Ok(r) => verifies.push(r),
            Err(e) => {
                // The statements executed so far keep their verdicts.
                let stopped = stop_of(e, &opts.limits)?;
                opts.limits.discard(std::mem::take(&mut exec.done));
                return Ok(ScriptRun { verifies, lts: exec.sizes, stopped: Some(stopped) });
            }
        }
    }
    // The statements no `verify` reads (a split script's leaf job): computed and written too.
    let defined: Vec<String> =
        script.blocks.iter().map(|b| b.bcg.clone()).chain(script.derived.iter().map(|(f, _)| f.clone())).collect();
    for bcg in &defined {
        if let Err(e) = exec.lts(bcg) {
            let stopped = stop_of(e.into(), &opts.limits)?;
            opts.limits.discard(std::mem::take(&mut exec.done));
            return Ok(ScriptRun { verifies, lts: exec.sizes, stopped: Some(stopped) });
        }
    }
    Ok(ScriptRun { verifies, lts: exec.sizes, stopped: None })
}

/// The bound behind `e`, when a bound of the run (`limits`) stopped it: a statement cut short
/// by a stop fails however it was cut. Otherwise the failure itself.
pub(crate) fn stop_of(e: RunError, limits: &crate::limits::Limits) -> Result<StopReason, LntcheckError> {
    match (e, limits.stopped()) {
        (RunError::Stopped(s), _) => Ok(s),
        (RunError::Failed(_), Some(s)) => Ok(s),
        (RunError::Failed(m), None) => Err(m),
    }
}

/// A file of the script's directory.
pub(crate) fn read_file(dir: &Path, f: &str) -> Result<String, LntcheckError> {
    std::fs::read_to_string(dir.join(f))
        .map_err(|e| LntcheckError::reading(dir.join(f), e))
}

/// The LNT program of `file` (its text), parsed and checked.
pub(crate) fn load_program(text: &str, file: &str) -> Result<Program, RunError> {
    let prog = super::load(text, None).map_err(|d| LntcheckError::Program(format!("{file}:{}", d.in_text(text))))?;
    if let Some(d) = super::check::check(&prog).into_iter().next() {
        return Err(LntcheckError::Program(format!("{file}:{}", d.in_text(text))).into());
    }
    Ok(prog)
}

/// A composer of `prog`'s processes within the run's bounds.
fn composer<'p>(prog: &'p Program, opts: &RunOptions) -> Composer<'p> {
    let mut c = Composer::new(prog, opts.max_states);
    c.limits = opts.limits.clone();
    c.progress = opts.progress.clone();
    c.threads = opts.jobs.max(1);
    c
}

/// Runs `verify` statement `v` on its LTS: the query read and evaluated, its diagnostic written
/// when asked.
fn verify_run(
    dir: &Path,
    v: &svl::Verify,
    lts: &Lts,
    expected: bool,
    opts: &RunOptions,
    evaluate: &Evaluator,
) -> Result<VerifyRun, RunError> {
    let query = read_file(dir, &v.mcl)?;
    let outcome = evaluate(&query, lts).map_err(|e| match e {
        RunError::Failed(m) => RunError::Failed(m.prefixed(format!("{}: ", v.mcl))),
        e => e,
    })?;
    if opts.write_aut
        && let Some(d) = &outcome.diagnostic_aut
    {
        write(dir, &v.diag, d)?;
    }
    Ok(VerifyRun {
        property: v.property.clone(),
        mcl: v.mcl.clone(),
        bcg: v.bcg.clone(),
        states: lts.nstates,
        transitions: lts.trans.len(),
        expected,
        outcome,
    })
}

/// The expected verdict of a `verify` statement (`expected TRUE` in the emitted scripts).
fn expected(v: &svl::Verify) -> Result<bool, RunError> {
    match v.expected.as_str() {
        "TRUE" => Ok(true),
        "FALSE" => Ok(false),
        x => Err(LntcheckError::Syntax(format!("property {}: expected {x}: not TRUE or FALSE", v.property)).into()),
    }
}

/// `run_script` for a compositional script on `opts.jobs` threads: every distinct leaf
/// generated once (each on all the threads), then every distinct block composed from those
/// leaves (several at a time, each on the threads the others leave), then each `verify`
/// statement's query evaluated (several at a time). The verdicts,
/// sizes and errors are those of the sequential run: results are taken in script order and
/// the first error in that order is the one returned.
fn run_concurrently(
    dir: &Path,
    script: &Script,
    lnt_text: &str,
    lnt_file: &str,
    opts: &RunOptions,
    evaluate: &Evaluator,
) -> Result<ScriptRun, RunError> {
    let prog = load_program(lnt_text, lnt_file)?;
    let verifies: Vec<(&svl::Verify, &svl::Block, bool)> = script
        .verifies
        .iter()
        .map(|v| Ok((v, script.blocks.iter().find(|b| b.bcg == v.bcg).expect("checked by the caller"), expected(v)?)))
        .collect::<Result<_, RunError>>()?;
    // The distinct leaves of the blocks verified, in script order, each generated on every
    // thread (one leaf, often the timestamps', can outweigh all the others together).
    let mut leaves = composer(&prog, opts);
    let mut lts_of_leaf: HashMap<String, Lts> = HashMap::new();
    for (_, b, _) in &verifies {
        for call in svl::calls(&b.beh) {
            if let Beh::Call { process, gates, args } = call {
                let key = Composer::leaf_key(process, gates, args);
                // A leaf that fails is the first error of the block that meets it first.
                if !lts_of_leaf.contains_key(&key)
                    && let Ok(l) = leaves.leaf(process, gates, args)
                {
                    lts_of_leaf.insert(key, l);
                }
            }
        }
    }
    // The blocks verified, each once (properties that read the same gates verify one block).
    let built: Vec<&svl::Block> = {
        let mut built: Vec<&svl::Block> = vec![];
        for (_, b, _) in &verifies {
            if !built.iter().any(|x| x.bcg == b.bcg) {
                built.push(b);
            }
        }
        built
    };
    let composed = super::jobs::on_threads(
        opts.jobs,
        built.len(),
        || Ok(()),
        |_, i| {
            let b = built[i];
            let mut c = composer(&prog, opts);
            // The threads the blocks leave idle explore each composition.
            c.threads = (opts.jobs / built.len()).max(1);
            for call in svl::calls(&b.beh) {
                if let Beh::Call { process, gates, args } = call {
                    let key = Composer::leaf_key(process, gates, args);
                    if let Some(l) = lts_of_leaf.get(key.as_str()) {
                        c.insert_leaf(key, l.clone());
                    }
                }
            }
            let r = Reduction::from_svl(&b.reduction, &b.hold).ok_or_else(|| {
                LntcheckError::Unsupported(format!("`{} reduction` is not supported", b.reduction))
                    .prefixed(format!("{}: ", b.bcg))
            })?;
            c.reduction = Some(r);
            c.compose(&b.beh, true).map_err(|e| RunError::from(e.prefixed(format!("{}: ", b.bcg))))
        },
    );
    let lts_of_block: HashMap<&str, &Result<Lts, RunError>> =
        built.iter().map(|b| b.bcg.as_str()).zip(composed.iter()).collect();
    let checked = super::jobs::on_threads(
        opts.jobs,
        verifies.len(),
        || Ok::<(), RunError>(()),
        |_, i| {
            let (v, b, expected) = verifies[i];
            let lts = match lts_of_block[b.bcg.as_str()] {
                Ok(l) => l,
                Err(e) => return Err(e.clone()),
            };
            // Written by the first check of the block only (the threads would write it at once).
            if opts.write_aut && verifies[..i].iter().all(|(w, _, _)| w.bcg != v.bcg) {
                write(dir, &b.bcg, &lts.to_aut())?;
            }
            let size = LtsSize { file: v.bcg.clone(), states: lts.nstates as u64, transitions: lts.trans.len() as u64 };
            Ok((verify_run(dir, v, lts, expected, opts, evaluate)?, size))
        },
    );
    let mut out = ScriptRun::default();
    for r in checked {
        // A statement a stop cut short is left out; the others keep their verdicts.
        let (run, size) = match r {
            Ok(x) => x,
            Err(e) => {
                out.stopped = Some(stop_of(e, &opts.limits)?);
                continue;
            }
        };
        out.verifies.push(run);
        // Properties that read the same gates verify one LTS: listed once, as sequentially.
        if !out.lts.iter().any(|l| l.file == size.file) {
            out.lts.push(size);
        }
    }
    Ok(out)
}

/// The state of one execution: LTSs computed so far, by file name.
struct Execution<'a> {
    dir: &'a Path,
    script: &'a Script,
    programs: &'a HashMap<String, Program>,
    /// Generates the leaves of `root leaf` statements (cached across statements).
    composer: Option<Composer<'a>>,
    opts: &'a RunOptions,
    done: HashMap<String, Lts>,
    sizes: Vec<LtsSize>,
}

impl Execution<'_> {
    fn lts(&mut self, bcg: &str) -> Result<&Lts, LntcheckError> {
        if !self.done.contains_key(bcg) {
            let lts = self.compute(bcg).map_err(|e| e.prefixed(format!("{bcg}: ")))?;
            self.sizes.push(LtsSize {
                file: bcg.to_string(),
                states: lts.nstates as u64,
                transitions: lts.trans.len() as u64,
            });
            if self.opts.write_aut {
                write(self.dir, bcg, &lts.to_aut())?;
            }
            self.done.insert(bcg.to_string(), lts);
        }
        Ok(&self.done[bcg])
    }

    fn compute(&mut self, bcg: &str) -> Result<Lts, LntcheckError> {
        let reduction = |name: &str, hold: &[String]| {
            Reduction::from_svl(name, hold)
                .ok_or_else(|| LntcheckError::Unsupported(format!("`{name} reduction` is not supported")))
        };
        let script = self.script;
        if let Some(b) = script.blocks.iter().find(|b| b.bcg == bcg) {
            let r = reduction(&b.reduction, &b.hold)?;
            let c = self
                .composer
                .as_mut()
                .ok_or_else(|| LntcheckError::Syntax("`root leaf` needs a DEFAULT_PROCESS_FILE".into()))?;
            c.reduction = Some(r);
            return c.compose(&b.beh, true);
        }
        let (_, d) = script
            .derived
            .iter()
            .find(|(f, _)| f == bcg)
            .ok_or_else(|| LntcheckError::Syntax("no statement of the script defines it".into()))?;
        match d {
            Derived::ReductionOf { reduction: name, hold, beh } => {
                let r = reduction(name, hold)?;
                let mut read = vec![];
                for f in svl::files(beh) {
                    let lts = if script.defines(f) { self.lts(f)?.clone() } else { read_lts(self.dir, f)? };
                    read.push((f.to_string(), lts));
                }
                let c = self.composer.as_mut().ok_or_else(|| {
                    LntcheckError::Syntax("a reduction of a behaviour needs a DEFAULT_PROCESS_FILE".into())
                })?;
                for (f, lts) in read {
                    c.insert_file(f, lts);
                }
                c.reduction = None;
                let lts = c.compose(beh, true)?;
                minimise(&lts, &r, &self.opts.limits)
            }
            Derived::Generation { lnt } => {
                let prog = &self.programs[lnt.as_str()];
                let program = |d: super::Located| LntcheckError::Program(format!("{lnt}:{}", prog.locate(&d)));
                let net = interp::build_net(prog, "MAIN").map_err(program)?;
                let gen_opts = GenOptions {
                    max_states: self.opts.max_states,
                    limits: self.opts.limits.clone(),
                    progress: self.opts.progress.clone(),
                    phase: format!("generating {bcg}"),
                    threads: self.opts.jobs,
                };
                Ok(interp::generate(prog, &net, &gen_opts).map_err(program)?.0)
            }
            Derived::Reduction { reduction: name, hold, keep, of } => {
                let r = reduction(name, hold)?;
                let limits = self.opts.limits.clone();
                let base = self.lts(of)?;
                let hidden;
                let base = match keep {
                    Some(keep) => {
                        let keep: Vec<&str> = keep.iter().map(String::as_str).collect();
                        hidden = base.hide_all_but(&keep);
                        &hidden
                    }
                    None => base,
                };
                minimise(base, &r, &limits)
            }
        }
    }
}

/// The LTS the script names `name` (`F.bcg`), read from its Aldebaran form `F.aut` in `dir`
/// (written by an earlier job of a split script, `RunOptions::write_aut`).
fn read_lts(dir: &Path, name: &str) -> Result<Lts, LntcheckError> {
    let file = dir.join(Path::new(name).with_extension("aut"));
    let text = std::fs::read_to_string(&file)
        .map_err(|e| LntcheckError::reading(&file, e))?;
    let aut = mcl::read_aut(&text).map_err(|e| LntcheckError::Syntax(format!("{}: {e}", file.display())))?;
    // Renumbered so that the initial state is 0, as everywhere in this stage.
    let n = aut.nstates;
    let init = aut.initial as usize;
    let id = |s: usize| -> u32 {
        if s == init {
            0
        } else if s == 0 {
            init as u32
        } else {
            s as u32
        }
    };
    let mut lts = Lts::new();
    for (s, out) in aut.adjacency().iter().enumerate() {
        for &(l, t) in out {
            lts.add(id(s), &aut.labels[l as usize], id(t as usize));
        }
    }
    lts.nstates = n.max(1);
    Ok(lts)
}

/// Writes `text` as the file the script names `name`, with the extension `.aut` (the script
/// names `.bcg` files, a binary format of CADP's).
pub(crate) fn write(dir: &Path, name: &str, text: &str) -> Result<(), LntcheckError> {
    let file = dir.join(Path::new(name).with_extension("aut"));
    std::fs::write(&file, text).map_err(|e| LntcheckError::writing(&file, e))
}
