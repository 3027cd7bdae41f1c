//! The on-the-fly workflow run by labs's interpreters (`--backend lnt --workflow on-the-fly`):
//! the emitted shell script (`BASE_on_the_fly.sh`) read from its text, one `lnt.open PROGRAM
//! evaluator -diag DIAG QUERY` line per check, and each query evaluated by `crate::mcl` on
//! `ProgramLts`, the LTS of the program's `MAIN` generated only where the evaluation goes.
//! The evaluation stops as soon as the verdict is known, so a violation near the initial state
//! costs a few states whatever the size of the whole LTS; the states generated for one check
//! serve the next ones.

use super::LntcheckError;
use super::files::{self, QueryOutcome, RunError, RunOptions, ScriptRun, VerifyRun};
use super::interp::{self, Explorer};
use super::sem::Program;
use super::store::StateStore;
use crate::limits::StopReason;
use crate::lts_backend::{LtsSize, PhaseReporter};
use crate::mcl::{self, EvalError, Successors};
use rustc_hash::FxHashMap;
use std::path::Path;

/// One line of the script: a check's query evaluated on the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Check {
    /// The check's name (`echo "property NAME"` before its line).
    pub(crate) property: String,
    pub(crate) program: String,
    /// The root process generated (`-main P` or `-root P`; else `MAIN`).
    pub(crate) root: String,
    pub(crate) diag: String,
    pub(crate) mcl: String,
}

/// The model checkers the script may name: `evaluator4`, or `evaluator` (EVALUATOR 5, from CADP
/// 2026-a).
const EVALUATORS: [&str; 2] = ["evaluator4", "evaluator"];

/// The checks of the on-the-fly script, in order. The script is what `labs emit` writes:
/// comments, `echo "property NAME"`, then `lnt.open [-main ROOT] "P.lnt" evaluator4 -diag
/// "D.bcg" "Q.mcl"` (`-root` for `-main` before CADP 2025-d, `evaluator` for `evaluator4` from
/// 2026-a); any other line is refused.
pub(crate) fn parse_script(text: &str) -> Result<Vec<Check>, LntcheckError> {
    let mut checks = vec![];
    let mut property: Option<String> = None;
    for (n, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = t.split_whitespace().map(|w| w.trim_matches('"')).collect();
        let bad = || LntcheckError::Syntax(format!("line {}: not a line of the on-the-fly script: {t}", n + 1));
        match words.as_slice() {
            ["echo", "property", name] => property = Some(name.to_string()),
            ["lnt.open", program, evaluator, "-diag", diag, mcl]
            | ["lnt.open", "-root" | "-main", _, program, evaluator, "-diag", diag, mcl]
                if EVALUATORS.contains(evaluator) =>
            {
                let property = property.take().ok_or_else(bad)?;
                let root = if words[1].starts_with('-') { words[2] } else { "MAIN" };
                checks.push(Check {
                    property,
                    program: program.to_string(),
                    root: root.to_string(),
                    diag: diag.to_string(),
                    mcl: mcl.to_string(),
                });
            }
            _ => return Err(bad()),
        }
    }
    Ok(checks)
}

/// Executes the on-the-fly script `script_file` of `dir`: each check's query evaluated on the
/// program it names, generated as far as the evaluation goes.
pub(crate) fn run_script(dir: &Path, script_file: &str, opts: &RunOptions) -> Result<ScriptRun, RunError> {
    let text = files::read_file(dir, script_file)?;
    let checks = parse_script(&text).map_err(|e| e.prefixed(format!("{script_file}: ")))?;
    let mut programs: Vec<(String, Program)> = vec![];
    for c in &checks {
        if !programs.iter().any(|(f, _)| *f == c.program) {
            let p = files::load_program(&files::read_file(dir, &c.program)?, &c.program)?;
            programs.push((c.program.clone(), p));
        }
    }
    // One LTS per program and root process (a linear-time property's root adds its monitor).
    let mut roots: Vec<(usize, String)> = vec![];
    for c in &checks {
        let k = programs.iter().position(|(f, _)| *f == c.program).expect("loaded above");
        if !roots.contains(&(k, c.root.clone())) {
            roots.push((k, c.root.clone()));
        }
    }
    let mut nets = vec![];
    for (k, root) in &roots {
        let (f, p) = &programs[*k];
        let net = interp::build_net(p, root).map_err(|d| LntcheckError::Program(format!("{f}:{}", p.locate(&d))))?;
        nets.push(net);
    }
    let mut ltss: Vec<ProgramLts> = vec![];
    for ((k, _), net) in roots.iter().zip(&nets) {
        let (f, p) = &programs[*k];
        ltss.push(ProgramLts::new(f, p, net, opts)?);
    }
    let mut verifies = vec![];
    let mut stopped = None;
    for c in &checks {
        let k = programs.iter().position(|(f, _)| *f == c.program).expect("loaded above");
        let lts = &mut ltss[roots.iter().position(|r| *r == (k, c.root.clone())).expect("built above")];
        let query =
            files::parse_query(&files::read_file(dir, &c.mcl)?).map_err(|e| prefixed(e, &format!("{}: ", c.mcl)))?;
        lts.progress = PhaseReporter::new(format!("evaluating {} on {}", c.mcl, c.program), opts.progress.as_ref());
        let evaluated = mcl::evaluate_on(&query, lts, &opts.limits)
            .map_err(files::eval_error)
            .and_then(|ev| files::outcome(&ev, lts));
        let outcome: QueryOutcome = match evaluated {
            Ok(o) => o,
            Err(e) => {
                // The checks evaluated so far keep their verdicts.
                stopped = Some(files::stop_of(e, &opts.limits)?);
                break;
            }
        };
        if opts.write_aut
            && let Some(d) = &outcome.diagnostic_aut
        {
            files::write(dir, &c.diag, d)?;
        }
        verifies.push(VerifyRun {
            property: c.property.clone(),
            mcl: c.mcl.clone(),
            bcg: c.program.clone(),
            states: lts.states.len(),
            transitions: lts.transitions,
            expected: true,
            outcome,
        });
    }
    let lts = roots
        .iter()
        .zip(&ltss)
        .map(|((k, root), l)| LtsSize {
            file: if root == "MAIN" { programs[*k].0.clone() } else { format!("{}:{root}", programs[*k].0) },
            states: l.states.len() as u64,
            transitions: l.transitions as u64,
        })
        .collect();
    for l in ltss {
        l.discard();
    }
    Ok(ScriptRun { verifies, lts, stopped })
}

fn prefixed(e: RunError, prefix: &str) -> RunError {
    match e {
        RunError::Failed(m) => RunError::Failed(m.prefixed(prefix.to_string())),
        e => e,
    }
}

/// A state's outgoing edges: (label, target).
type Edges = Box<[(u32, u32)]>;

/// The LTS of a program's `MAIN`, generated state by state as the evaluator expands states:
/// states are numbered in the order they are met (0 the initial state), labels likewise.
pub(crate) struct ProgramLts<'p> {
    file: String,
    prog: &'p Program,
    explorer: Explorer<'p>,
    states: StateStore<interp::LeafState>,
    /// Per state, its edges once expanded.
    succ: Vec<Option<Edges>>,
    labels: Vec<String>,
    label_ids: FxHashMap<String, u32>,
    transitions: usize,
    opts: &'p RunOptions,
    /// Told of the states generated for the evaluation under way.
    progress: Option<PhaseReporter>,
}

impl<'p> ProgramLts<'p> {
    pub(crate) fn new(
        file: &str,
        prog: &'p Program,
        net: &'p interp::Net,
        opts: &'p RunOptions,
    ) -> Result<Self, LntcheckError> {
        let mut explorer = Explorer::new(prog, net);
        let init = explorer.initial().map_err(|d| LntcheckError::Program(format!("{file}:{}", prog.locate(&d))))?;
        Ok(ProgramLts {
            file: file.to_string(),
            prog,
            explorer,
            states: StateStore::new(&init),
            succ: vec![None],
            labels: vec![],
            label_ids: FxHashMap::default(),
            transitions: 0,
            opts,
            progress: None,
        })
    }

    /// Drops the states generated, on a thread of their own once the run has stopped
    /// (`Limits::discard`).
    fn discard(self) {
        self.opts.limits.discard((self.states, self.succ, self.labels, self.label_ids));
    }

    fn label_id(&mut self, label: String) -> u32 {
        if let Some(&i) = self.label_ids.get(&label) {
            return i;
        }
        let i = self.labels.len() as u32;
        self.labels.push(label.clone());
        self.label_ids.insert(label, i);
        i
    }

    /// The state bound (`--max-states`) or the memory bound stops the generation.
    fn bounded(&self, r: StopReason) -> EvalError {
        self.opts.limits.stop(r);
        match r {
            StopReason::Memory => EvalError::Memory,
            _ => EvalError::StateLimit {
                limit: self.opts.max_states.or(self.opts.limits.max_states()).unwrap_or_default(),
            },
        }
    }
}

impl Successors for ProgramLts<'_> {
    fn initial(&self) -> u32 {
        0
    }

    fn expand(&mut self, state: u32) -> Result<usize, EvalError> {
        if let Some(edges) = &self.succ[state as usize] {
            return Ok(edges.len());
        }
        let st = self.states.get(state);
        let next = self
            .explorer
            .successors(&st)
            .map_err(|d| EvalError::Generation { message: format!("{}:{}", self.file, self.prog.locate(&d)) })?;
        let mut edges = Vec::with_capacity(next.len());
        for (label, target) in next {
            if !self.opts.limits.admit(self.states.growth_bytes()) {
                return Err(self.bounded(StopReason::Memory));
            }
            let (id, new) = self.states.number(&target);
            if new {
                let n = self.states.len() as u64;
                if self.opts.max_states.is_some_and(|m| n > m) || self.opts.limits.over_states(n) {
                    return Err(self.bounded(StopReason::MaxStates));
                }
                self.succ.push(None);
            }
            edges.push((self.label_id(label), id));
        }
        self.transitions += edges.len();
        let n = edges.len();
        self.succ[state as usize] = Some(edges.into_boxed_slice());
        if let Some(r) = &mut self.progress {
            r.report(self.states.len(), self.transitions);
        }
        Ok(n)
    }

    fn edge(&self, state: u32, i: usize) -> (u32, u32) {
        self.succ[state as usize].as_ref().expect("expanded before")[i]
    }

    fn label(&self, label: u32) -> &str {
        &self.labels[label as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_emitted_form_and_refuses_others() {
        let text = "# Generated by labs emit\n\necho \"property A_ERRORS\"\nlnt.open \"m.lnt\" evaluator4 -diag \
                    \"m_otf_A_ERRORS_diag.bcg\" \"m_A_ERRORS.mcl\"\necho \"property A\"\nlnt.open \"m.lnt\" evaluator4 \
                    -diag \"m_otf_A_diag.bcg\" \"m_A.mcl\"\n";
        let checks = parse_script(text).unwrap();
        assert_eq!(checks.len(), 2);
        assert_eq!(
            checks[1],
            Check {
                property: "A".into(),
                program: "m.lnt".into(),
                root: "MAIN".into(),
                diag: "m_otf_A_diag.bcg".into(),
                mcl: "m_A.mcl".into()
            }
        );
        // A linear-time property's check names the root composing MAIN with its monitor.
        let ltl = parse_script("echo \"property B\"\nlnt.open -root Root_B \"m.lnt\" evaluator4 -diag d.bcg q.mcl\n");
        assert_eq!(ltl.unwrap()[0].root, "Root_B");
        // From CADP 2025-d `-main` names it, and from 2026-a the model checker is `evaluator`.
        let main = parse_script("echo \"property B\"\nlnt.open -main Root_B \"m.lnt\" evaluator -diag d.bcg q.mcl\n");
        assert_eq!(main.unwrap()[0].root, "Root_B");
        assert!(parse_script("echo \"property B\"\nlnt.open m.lnt evaluator5 -diag d.bcg q.mcl\n").is_err());
        assert!(parse_script("echo \"property B\"\nlnt.open -top R m.lnt evaluator -diag d.bcg q.mcl\n").is_err());
        assert!(parse_script("lnt.open m.lnt evaluator4 -diag d.bcg q.mcl\n").is_err(), "a check needs its name");
        assert!(parse_script("echo \"property A\"\nlnt.open m.lnt evaluator4 q.mcl\n").is_err());
        assert!(parse_script("rm -rf /\n").is_err());
    }
}
