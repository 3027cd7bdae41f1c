//! What the two back ends that run the emitted LNT program share: `lntcheck::verify` (labs's
//! own SVL, LNT and MCL interpreters) and `cadp::verify` (CADP) take the same `Options` and
//! return the same `Report`, run the workflow `choose_workflow` gives a spec (unless one is
//! asked for), work in a `WorkDir`, run their jobs where a `Runner` says, and
//! turn their label paths into traces only through `trace::checked`, so that every verdict
//! and counterexample they give reads as the native engine's `VerifyReport`.

mod runner;
mod workdir;
mod workflow;

use crate::engine::{PropertyResult, Verdict, VerifyReport};
use crate::limits::Limits;
use crate::lnt::Dialect;
use crate::model::Property;
pub(crate) use runner::read_hosts;
pub(crate) use runner::{Host, Runner};
use std::path::PathBuf;
use std::sync::Arc;
pub(crate) use workdir::{WorkDir, WorkDirError, abandon_all};
pub use workflow::{WorkflowChoice, choose_workflow, unbounded_inputs};

/// Which of the emitted SVL scripts runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Workflow {
    /// `root leaf` reduction of the composition, one LTS per property.
    #[default]
    Compositional,
    /// The whole LTS, then one reduction per property.
    Monolithic,
    /// Per check, the query evaluated while the LTS of the whole program is generated, only as
    /// far as the evaluation needs (CADP: `lnt.open … evaluator4`).
    OnTheFly,
}

impl Workflow {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Workflow::Compositional => "compositional",
            Workflow::Monolithic => "monolithic",
            Workflow::OnTheFly => "on-the-fly",
        }
    }
}

/// Shows one line of progress (svl's log lines worth showing while it runs).
pub(crate) type ProgressFn = Arc<dyn Fn(&str) + Send + Sync>;

/// Where a long phase of labs's LNT interpreters is (a leaf or `MAIN` generated, a composition
/// explored, a query evaluated on the fly): given to `Options::phase_progress` every few
/// thousand states; the CLI shows it on stderr.
#[derive(Clone, Debug)]
pub struct PhaseProgress {
    /// What runs, with the file or statement it works on (`generating leaf_P.bcg`).
    pub phase: String,
    pub states: u64,
    pub transitions: u64,
    /// Since the phase began.
    pub seconds: f64,
}

pub(crate) type PhaseProgressFn = Arc<dyn Fn(&PhaseProgress) + Send + Sync>;

/// Reports one phase to a `PhaseProgressFn` every `PROGRESS_EVERY` new states.
pub(crate) struct PhaseReporter {
    phase: String,
    sink: PhaseProgressFn,
    started: std::time::Instant,
    next: u64,
}

/// How often a phase reports: after every this many new states.
const PROGRESS_EVERY: u64 = 1 << 13;

impl PhaseReporter {
    /// A reporter of `phase` to `sink`, if there is one.
    pub(crate) fn new(phase: impl Into<String>, sink: Option<&PhaseProgressFn>) -> Option<PhaseReporter> {
        sink.map(|s| PhaseReporter {
            phase: phase.into(),
            sink: s.clone(),
            started: std::time::Instant::now(),
            next: PROGRESS_EVERY,
        })
    }

    /// The phase has `states` states and `transitions` transitions so far.
    pub(crate) fn report(&mut self, states: usize, transitions: usize) {
        if (states as u64) < self.next {
            return;
        }
        self.next = states as u64 + PROGRESS_EVERY;
        (self.sink)(&PhaseProgress {
            phase: self.phase.clone(),
            states: states as u64,
            transitions: transitions as u64,
            seconds: self.started.elapsed().as_secs_f64(),
        });
    }
}

/// How to verify a model by its emitted LNT program. Fields a back end does not use are
/// ignored by it (the CLI refuses them with that back end: `cli/backend_options.rs`).
#[derive(Clone, Default)]
pub struct Options {
    pub fair: bool,
    /// The properties to check (empty: all).
    pub properties: Vec<String>,
    /// The workflow that runs (`choose_workflow` gives the one for a spec).
    pub workflow: Workflow,
    /// The LNT dialect of the emitted program (`None`: the fallback every current release
    /// accepts; the CLI passes the installed CADP's); CADP always gets its own installation's.
    pub dialect: Option<Dialect>,
    /// Work in this directory and keep it (`--keep-files`); otherwise a fresh temporary one,
    /// removed at the end unless an internal error keeps it.
    pub keep_files: Option<PathBuf>,
    /// The run's bounds: time, interrupt, and for labs's interpreters the states of each LTS
    /// and the memory.
    pub limits: Limits,
    /// The base name of the files (a valid LNT module name).
    pub base: String,
    /// The spec's name and externs, for the generated files' header comments.
    pub source: String,
    /// Where the jobs of a compositional script run (`None`: one after another, in one
    /// process). The LNT interpreter runs `Runner::Local` jobs as threads.
    pub runner: Option<Runner>,
    /// CADP: the monolithic LTS generated by `distributor` over the grid of this `.gcf` file.
    pub distributor: Option<PathBuf>,
    /// CADP: called with each line of svl's log worth showing while it runs.
    pub progress: Option<ProgressFn>,
    /// labs's interpreters: called as each long phase advances.
    pub phase_progress: Option<PhaseProgressFn>,
    /// CADP: also run the native engine and require its verdicts.
    pub cross_check: bool,
}

/// One `verify` statement of the script, executed by labs's interpreters.
#[derive(Clone, Debug)]
pub(crate) struct Statement {
    /// The check's block name in the script (a property's name, or an error check's).
    pub(crate) check: String,
    /// The query file and the LTS it was evaluated on, as the script names them.
    pub(crate) mcl: String,
    pub(crate) bcg: String,
    pub(crate) states: u64,
    pub(crate) transitions: u64,
    /// The index in `Report::verify.results` of the property it decides (`None`: an error
    /// check).
    pub(crate) result: Option<usize>,
}

/// The size of one LTS a script defined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LtsSize {
    pub(crate) file: String,
    pub(crate) states: u64,
    pub(crate) transitions: u64,
}

/// What a verification by the emitted files found.
#[derive(Debug)]
pub struct Report {
    /// Verdicts and counterexamples (translated, replayed, showing the violation), as the
    /// native engine reports them; only `seconds` and `peak_rss_mib` of the statistics are set
    /// (the LTSs' states are not LAbS states: `lts` has their sizes).
    pub verify: VerifyReport,
    pub workflow: Workflow,
    pub dialect: Dialect,
    /// The SVL script that ran.
    pub(crate) script: String,
    /// The `verify` statements executed, in script order (labs's interpreters only).
    pub(crate) statements: Vec<Statement>,
    /// Every LTS the script defined.
    pub(crate) lts: Vec<LtsSize>,
    /// The working directory, when it is kept.
    pub(crate) kept_files: Option<PathBuf>,
    /// Per property, where CADP's diagnostic was read (inline in the log, or its file).
    pub(crate) diagnostic_sources: Vec<(String, String)>,
    /// The native engine was run and gave the same verdicts (`Options::cross_check`).
    pub(crate) cross_checked: bool,
    /// Things worth a warning that did not stop the run (a violation without a diagnostic).
    pub warnings: Vec<String>,
}

/// Every selected property `unknown`: a bound stopped the run before any was decided.
pub(crate) fn all_unknown(selected: &[&Property]) -> Vec<PropertyResult> {
    selected
        .iter()
        .map(|p| PropertyResult {
            property: p.name.clone(),
            modality: p.keyword.clone(),
            verdict: Verdict::Unknown,
            trace: None,
            reason: None,
            fair_loop: None,
        })
        .collect()
}
