//! Stage last: the command line. The only module that prints and chooses exit codes.

mod backend_options;
mod bounds;
mod cadp;
mod emit;
mod estimate;
mod explore;
mod failure;
mod info;
mod json;
mod load;
mod lts;
mod manual;
mod mcl;
mod mode_options;
mod probability;
mod report;
mod simulate;
mod status;
mod translate;
mod values;
mod verify;
mod verify_files;

pub(crate) use failure::{Failure, exit};

use crate::engine::Workers;
use crate::engine::state::StorePolicy;
use crate::stdout::out;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Parser, Debug)]
#[command(name = "labs", version, about = "Verify and simulate LAbS multi-agent specifications")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args, Debug)]
struct SpecArgs {
    /// The LAbS specification (.labs)
    spec: PathBuf,
    /// Extern values: `n=3` or `_n=3`
    #[arg(value_name = "NAME=VALUE")]
    externs: Vec<String>,
}

/// `--fairness`: which runs the properties on runs must hold on (docs/semantics.md, D15).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum FairnessArg {
    /// Ignore runs in which an agent is enabled from some point on and never steps
    Weak,
    /// Ignore runs in which an agent is enabled infinitely often and steps finitely often
    Strong,
    /// Hold with probability 1 under the uniform random scheduler of `simulate`
    AlmostSure,
}

impl FairnessArg {
    fn notion(self) -> crate::engine::Fairness {
        match self {
            FairnessArg::Weak => crate::engine::Fairness::Weak,
            FairnessArg::Strong => crate::engine::Fairness::Strong,
            FairnessArg::AlmostSure => crate::engine::Fairness::AlmostSure,
        }
    }
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Backend {
    /// The embedded explicit-state engine
    Native,
    /// CADP (must be installed)
    Cadp,
    /// The emitted LNT program, run by labs's own LNT interpreter (no CADP needed)
    Lnt,
}

/// `verify --edges`: what the native engine does with the successor lists.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Edges {
    /// Keep them while the state graph takes at most half of the memory bound (--memory, or
    /// the memory available), then drop them and recompute successors
    Auto,
    /// Keep them whatever they cost (fastest checks)
    Keep,
    /// Never keep them: the checks recompute successors (least memory)
    Recompute,
}

/// `verify --store`: the form the native engine's state store keeps states in.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Store {
    /// Fast, turning compact once no successor lists are kept and the process takes half of
    /// the memory bound (--memory, or the memory available)
    Auto,
    /// Every slot in 1, 2 or 4 bytes, as the exploration computes states (fastest)
    Fast,
    /// Every slot in the bits its values need (least memory; exploration a quarter to a half
    /// slower)
    Compact,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Workflow {
    Compositional,
    Monolithic,
    OnTheFly,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check every property (or those named with --property) on the whole state space
    Verify {
        #[command(flatten)]
        spec: SpecArgs,
        /// Check only this property (repeatable)
        #[arg(long = "property", value_name = "NAME")]
        properties: Vec<String>,
        /// Round-robin scheduling of agent steps, in id order
        #[arg(long)]
        fair: bool,
        /// With the native engine: check `finally`, scoped and linear-time properties only on
        /// the runs fair to every agent (weak, strong), or with probability 1 (almost-sure)
        #[arg(long, value_enum, value_name = "NOTION")]
        fairness: Option<FairnessArg>,
        /// Who decides the verdicts: the native engine, CADP, or labs's LNT interpreter on the
        /// emitted files; an option of another back end is an error
        #[arg(long, value_enum, default_value = "native")]
        backend: Backend,
        /// Workflow (with --backend cadp or lnt): compositional or monolithic SVL script, or
        /// on-the-fly (each query evaluated while the program's LTS is generated, stopping
        /// when its verdict is known); default: compositional where the value analysis bounds
        /// every variable, monolithic otherwise
        #[arg(long, value_enum)]
        workflow: Option<Workflow>,
        /// LNT dialect of the emitted files, with --backend lnt: 2023, 2024-d, 2025-d, 2025-e,
        /// 2025, 2025-l, 2026 or a CADP release YYYY-x (default: the installed CADP's, else 2024-d)
        #[arg(long, value_name = "D")]
        lnt_dialect: Option<String>,
        /// One JSON document on stdout
        #[arg(long)]
        json: bool,
        /// With the native engine: exploration threads (default: all cores)
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
        threads: Option<u64>,
        /// With --backend lnt or cadp and the compositional workflow: generate the leaves and
        /// check the properties N at a time (default 1)
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
        jobs: Option<u64>,
        /// With --backend cadp and the compositional workflow: run the jobs on the machines of
        /// FILE (one `HOST [SLOTS]` per line) through `$LABS_SSH` (default `ssh`); they must see
        /// the working directory (--keep-files) at the same path
        #[arg(long, value_name = "FILE", conflicts_with = "jobs")]
        hosts: Option<PathBuf>,
        /// With --backend cadp: generate the whole LTS with CADP's distributor over the machines
        /// of this grid configuration file, merge it with bcg_merge, then reduce and verify it
        /// (the monolithic workflow)
        #[arg(long, value_name = "FILE.gcf", conflicts_with_all = ["jobs", "hosts"])]
        distributor: Option<PathBuf>,
        /// Stop after this many seconds (verdicts not yet decided are `unknown`, exit 124)
        #[arg(long, value_name = "SECONDS", value_parser = bounds::parse_timeout)]
        timeout: Option<f64>,
        /// With the native engine or --backend lnt: stop after this many states (exit 5 if
        /// undecided)
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        max_states: Option<u64>,
        /// Stop when labs's resident memory reaches this many MiB (exit 5 if undecided;
        /// default: the memory available on the machine; CADP's tools are not bounded)
        #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=bounds::MAX_MEMORY_MIB))]
        memory: Option<u64>,
        /// Keep the generated files in this directory (with --backend cadp or lnt): a new one
        /// (its parent must exist), an empty one, or one an earlier --keep-files run wrote,
        /// which is emptied first
        #[arg(long, value_name = "DIR")]
        keep_files: Option<PathBuf>,
        /// With --backend cadp: also run the native engine and stop with an internal error
        /// (exit 1) if a verdict differs
        #[arg(long)]
        cross_check: bool,
        /// With the native engine: explore every state, no symmetry reduction (it reduces by
        /// default wherever agents are interchangeable, see `labs info`)
        #[arg(long)]
        no_reduction: bool,
        /// Explore every reachable state even when the verdicts are known earlier: full state
        /// counts and shortest counterexamples (the native engine otherwise stops as soon as
        /// every property is violated, where no run-time error can be met beyond)
        #[arg(long)]
        exhaustive: bool,
        /// With the native engine: whether the exploration keeps each state's successor list
        /// for the checks after it (finally, fairly, scoped and linear-time properties), which
        /// otherwise compute successors again
        #[arg(long, value_enum, value_name = "WHEN", default_value_t = Edges::Auto)]
        edges: Edges,
        /// With the native engine: the form in which the visited states are stored
        #[arg(long, value_enum, value_name = "FORM", default_value_t = Store::Auto)]
        store: Store,
        /// With the native engine: check every reached state against the value analysis and
        /// stop with an internal error if a value lies outside its analysed set (a self-check
        /// of labs; slower; also on, where it applies, when the environment variable
        /// LABS_CHECK_ANALYSIS is set to 1)
        #[arg(long, env = "LABS_CHECK_ANALYSIS", hide_env = true, value_parser = clap::builder::BoolishValueParser::new())]
        check_analysis: bool,
        /// No progress line or notes on stderr (warnings and errors are still shown)
        #[arg(long, short)]
        quiet: bool,
        /// Also write an HTML report: the verdicts, the statistics, a message-sequence chart and a step table per counterexample
        #[arg(long, value_name = "FILE.html")]
        report: Option<PathBuf>,
        /// Also the probability that a random run (drawn as `labs simulate` draws it) satisfies
        /// each property, as a guaranteed interval, and for finally ψ the expected steps to ψ
        /// (explores every state)
        #[arg(long)]
        probability: bool,
        /// With --probability: the width the intervals are narrowed to (absolute for
        /// probabilities, relative for expected steps; default 1e-6)
        #[arg(long, value_name = "E", requires = "probability", value_parser = probability::parse_precision)]
        precision: Option<f64>,
        /// With --probability and --report: the simulation runs (seed 0) whose estimate the
        /// report draws beside each exact curve of a finally property (default 1000; 0: none)
        #[arg(long, value_name = "N", requires = "probability", requires = "report")]
        estimate_runs: Option<u64>,
    },
    /// Random runs, reproducible from the seed (native engine; the LNT program with --backend lnt or cadp)
    Simulate {
        #[command(flatten)]
        spec: SpecArgs,
        /// Number of runs (at least 1)
        #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
        runs: u64,
        /// Maximum steps per run
        #[arg(long, value_name = "S", default_value_t = 100)]
        steps: usize,
        /// Seed of the random choices: run i (from 0) is drawn with seed K + i, the seed its
        /// header shows, so `--seed K+i --runs 1` repeats it alone
        #[arg(long, value_name = "K", default_value_t = 0)]
        seed: u64,
        /// Round-robin scheduling of agent steps, in id order
        #[arg(long)]
        fair: bool,
        /// Mark only this property (repeatable)
        #[arg(long = "property", value_name = "NAME")]
        properties: Vec<String>,
        /// Who draws the runs: the native engine, the emitted LNT program in labs's LNT
        /// interpreter (step by step; same output), or CADP's Executor
        #[arg(long, value_enum, default_value = "native")]
        backend: Backend,
        /// JSON on stdout: one line per run as it finishes, then a summary line (JSON Lines);
        /// with --estimate or --sprt, one document
        #[arg(long)]
        json: bool,
        /// Whether each run is printed with its whole trace: `auto` prints traces for up to 10
        /// runs in text (beyond, one outcome line per run) and always in JSON; `--traces`
        /// alone means `all`
        #[arg(long, value_enum, value_name = "WHEN", default_value = "auto", num_args = 0..=1, default_missing_value = "all")]
        traces: simulate::Traces,
        /// Stop after this many seconds and print the runs finished so far (exit 124)
        #[arg(long, value_name = "SECONDS", value_parser = bounds::parse_timeout)]
        timeout: Option<f64>,
        /// Stop when the process's resident memory reaches this many MiB (exit 5; default:
        /// the memory available on the machine)
        #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=bounds::MAX_MEMORY_MIB))]
        memory: Option<u64>,
        /// With --backend native or lnt: check every reached state against the value analysis
        /// and stop with an internal error if a value lies outside its analysed set (a
        /// self-check of labs; slower; also on, where it applies, when the environment
        /// variable LABS_CHECK_ANALYSIS is set to 1)
        #[arg(long, env = "LABS_CHECK_ANALYSIS", hide_env = true, value_parser = clap::builder::BoolishValueParser::new())]
        check_analysis: bool,
        /// No progress line or notes on stderr (warnings and errors are still shown)
        #[arg(long, short)]
        quiet: bool,
        /// Also write an HTML report: the runs' properties, a message-sequence chart and a step table per run; with
        /// --estimate or --sprt, the figures and each `finally` property's probability of being reached within k steps
        #[arg(long, value_name = "FILE.html")]
        report: Option<PathBuf>,
        /// Statistical model checking: estimate the probability that a run of at most --steps
        /// steps satisfies each property, within --epsilon at --confidence (the number of runs
        /// comes from the Okamoto bound; runs cut short give the interval they support; native
        /// engine or --backend lnt)
        #[arg(long, conflicts_with_all = ["runs", "sprt"])]
        estimate: bool,
        /// With --estimate: the largest error of the estimate once every planned run is made
        #[arg(long, value_name = "E", default_value_t = 0.01, value_parser = estimate::parse_open_unit)]
        epsilon: f64,
        /// With --estimate: the probability that each property's interval holds its probability
        #[arg(long, value_name = "C", default_value_t = 0.95, value_parser = estimate::parse_open_unit)]
        confidence: f64,
        /// Statistical model checking: test whether that probability is at least THETA (Wald's
        /// sequential test, stopping as soon as it can decide; native engine or --backend lnt)
        #[arg(long, value_name = "THETA", conflicts_with = "runs", value_parser = estimate::parse_open_unit)]
        sprt: Option<f64>,
        /// With --sprt: the half-width of the indifference region around THETA
        #[arg(long, value_name = "D", default_value_t = 0.01, value_parser = estimate::parse_open_unit)]
        indifference: f64,
        /// With --sprt: the bound on the probability of concluding below THETA when the
        /// probability is at least THETA + D
        #[arg(long, value_name = "A", default_value_t = 0.05, value_parser = estimate::parse_open_unit)]
        alpha: f64,
        /// With --sprt: the bound on the probability of concluding at least THETA when it is at
        /// most THETA - D
        #[arg(long, value_name = "B", default_value_t = 0.05, value_parser = estimate::parse_open_unit)]
        beta: f64,
        /// With --estimate or --sprt: stop after this many runs (--estimate: the intervals are
        /// those these runs support; --sprt: the properties the test has not decided by then are
        /// left undecided; default: no cap; --timeout also stops the runs)
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        max_runs: Option<u64>,
        /// With --estimate or --sprt: threads drawing the runs (default: all cores; the result
        /// depends on --seed only)
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
        threads: Option<u64>,
    },
    /// Describe the resolved model: agent types and ids, variables, stigmergies, properties
    Info {
        #[command(flatten)]
        spec: SpecArgs,
        /// One JSON document on stdout
        #[arg(long)]
        json: bool,
        /// No progress line or notes on stderr (warnings and errors are still shown)
        #[arg(long, short)]
        quiet: bool,
    },
    /// Value analysis: the interval set of every variable per agent type
    Values {
        #[command(flatten)]
        spec: SpecArgs,
        /// One JSON document on stdout
        #[arg(long)]
        json: bool,
        /// No progress line or notes on stderr (warnings and errors are still shown)
        #[arg(long, short)]
        quiet: bool,
    },
    /// Evaluate an MCL (evaluator4) query on an LTS in Aldebaran format: prints TRUE or FALSE
    Mcl {
        /// The query (.mcl)
        query: PathBuf,
        /// The LTS (.aut)
        lts: PathBuf,
        /// Write the path that explains the verdict (a counterexample when FALSE) as .aut
        #[arg(long, value_name = "FILE.aut")]
        diag: Option<PathBuf>,
        /// One JSON document on stdout
        #[arg(long)]
        json: bool,
        /// Stop after this many seconds (exit 124)
        #[arg(long, value_name = "SECONDS", value_parser = bounds::parse_timeout)]
        timeout: Option<f64>,
        /// Stop when the process's resident memory reaches this many MiB (exit 5; default: the
        /// memory available on the machine)
        #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=bounds::MAX_MEMORY_MIB))]
        memory: Option<u64>,
        /// No progress line or notes on stderr (warnings and errors are still shown)
        #[arg(long, short)]
        quiet: bool,
    },
    /// Write the LNT program, one MCL query per property and the SVL scripts for CADP
    Emit {
        #[command(flatten)]
        spec: SpecArgs,
        /// Round-robin scheduling of agent steps
        #[arg(long)]
        fair: bool,
        /// Emit a query for this property only (repeatable; default: all)
        #[arg(long = "property", value_name = "P")]
        property: Vec<String>,
        /// Output directory (created if missing; not `-`: emit writes several files)
        #[arg(short = 'o', long = "output", value_name = "DIR", default_value = ".")]
        output: PathBuf,
        /// Replace files of the same names in DIR even if `labs emit` did not write them (without it,
        /// such a file is an error and nothing is written)
        #[arg(long)]
        force: bool,
        /// LNT dialect: 2023, 2024-d, 2025-d, 2025-e, 2025, 2025-l, 2026 or a CADP release YYYY-x (default: the installed CADP's, else 2024-d)
        #[arg(long = "lnt-dialect", value_name = "D")]
        lnt_dialect: Option<String>,
        /// Also write the compositional script split into jobs (one script per leaf and per
        /// property) and a Makefile that runs them with `make -j N` (docs/scale-out.md)
        #[arg(long)]
        split: bool,
        /// No progress line or notes on stderr (warnings and errors are still shown)
        #[arg(long, short)]
        quiet: bool,
    },
    /// The LTS of the emitted LNT program (or of one agent's leaf), by labs's LNT interpreter, as .aut
    Lts {
        #[command(flatten)]
        spec: SpecArgs,
        /// Round-robin scheduling of agent steps
        #[arg(long)]
        fair: bool,
        /// Only the leaf of the agent with this id (inputs enumerated over their domains)
        #[arg(long, value_name = "ID")]
        leaf: Option<u32>,
        /// Replace the value-analysis domains by one common interval (the hull of all of them)
        #[arg(long)]
        no_value_analysis: bool,
        /// Stop with an error beyond this many states (exit 5)
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        max_states: Option<u64>,
        /// Stop after this many seconds (exit 124; no file is written)
        #[arg(long, value_name = "SECONDS", value_parser = bounds::parse_timeout)]
        timeout: Option<f64>,
        /// Stop when the process's resident memory reaches this many MiB (exit 5)
        #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=bounds::MAX_MEMORY_MIB))]
        memory: Option<u64>,
        /// LNT dialect of the emitted program: 2023, 2024-d, 2025-d, 2025-e, 2025, 2025-l, 2026 or a
        /// CADP release YYYY-x
        #[arg(long = "lnt-dialect", value_name = "D")]
        lnt_dialect: Option<String>,
        /// Interpret this LNT file instead of the program emitted for SPEC
        #[arg(long, value_name = "FILE.lnt")]
        lnt: Option<PathBuf>,
        /// Execute this property's block of the compositional SVL script (minimised with --reduce):
        /// every leaf generated alone, per-leaf hiding, par, total prio, hide all but; with
        /// --leaf, that agent's leaf with the property's hiding
        #[arg(long, value_name = "P")]
        property: Option<String>,
        /// Run this SVL script for --property instead of the one emitted for SPEC (with its
        /// DEFAULT_PROCESS_FILE, relative to the script, unless --lnt is given)
        #[arg(long, value_name = "FILE.svl", requires = "property")]
        svl: Option<PathBuf>,
        /// With --property: apply the block's reduction as SVL's `root leaf` does (every leaf,
        /// then the result, minimised modulo divsharp with the `hold` gates, or divbranching)
        #[arg(long, requires = "property")]
        reduce: bool,
        /// Generate this process instead of MAIN (as `lnt.open -root`: a linear-time
        /// property's `Root_P`, MAIN with the property's monitor)
        #[arg(long, value_name = "PROCESS", default_value = "MAIN", conflicts_with = "property")]
        root: String,
        /// Output file (Aldebaran format); `-`, the default, is standard output
        #[arg(short = 'o', long = "output", value_name = "FILE.aut", default_value = "-")]
        output: PathBuf,
        /// No progress line or notes on stderr (warnings and errors are still shown)
        #[arg(long, short)]
        quiet: bool,
    },
    /// Turn a CADP trace (Executor output, Evaluator diagnostic, .seq, or .aut path) into a LAbS trace
    TranslateTrace {
        /// The LAbS specification (.labs) the LNT program was emitted from
        spec: PathBuf,
        /// Extern values (`n=3`) and, last, the trace file
        #[arg(value_name = "NAME=VALUE… TRACE_FILE", required = true)]
        words: Vec<String>,
        /// The LNT program was emitted with --fair (round-robin)
        #[arg(long)]
        fair: bool,
        /// The property whose query produced the trace: its observed variables constrain the
        /// replay, and the trace is checked to violate it
        #[arg(long, value_name = "NAME")]
        property: Option<String>,
        /// One JSON document on stdout
        #[arg(long)]
        json: bool,
        /// Also write an HTML report: the trace's message-sequence chart and step table
        #[arg(long, value_name = "FILE.html")]
        report: Option<PathBuf>,
        /// No progress line or notes on stderr (warnings and errors are still shown)
        #[arg(long, short)]
        quiet: bool,
    },
    /// Step through the system in the browser: a local page showing the state, the enabled
    /// steps and the history as a message-sequence chart, served on 127.0.0.1 until Ctrl-C
    /// (which ends it with exit code 0)
    Explore {
        #[command(flatten)]
        spec: SpecArgs,
        /// Round-robin scheduling of agent steps, in id order
        #[arg(long)]
        fair: bool,
        /// Load the traces of this JSON document (what verify, simulate or translate-trace
        /// print with --json, or the page's export) to step through and branch off
        #[arg(long, value_name = "FILE.json")]
        trace: Option<PathBuf>,
        /// Listen on this port of 127.0.0.1 (default: a free port)
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
        port: Option<u16>,
        /// Draw the agents on a grid at the position given by two variables, with an arrow
        /// for the heading given by two more (default: the spec's `# labs: view` comment,
        /// else variables named x and y)
        #[arg(long, value_name = "X,Y[,DX,DY]")]
        view: Option<String>,
    },
    /// Print a shell completion script for labs on stdout (bash, elvish, fish, powershell or zsh)
    Completions {
        /// The shell
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page of labs (roff) on stdout, or write every page into a directory
    Manpage {
        /// Write labs.1 and one page per subcommand (labs-verify.1, …) into this directory
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

/// The command line's definition, with the exit codes after the help of every command (and
/// so in the manual pages).
fn command() -> clap::Command {
    let codes = exit::help_text();
    Cli::command().after_help(codes.clone()).mut_subcommands(|c| c.after_help(codes.clone()))
}

/// When the command line started running: the statistics report the whole run's wall-clock time.
static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// Wall-clock seconds since the command line started running.
fn run_seconds() -> f64 {
    STARTED.get_or_init(std::time::Instant::now).elapsed().as_secs_f64()
}

/// Runs the command line; returns the process exit code.
pub fn main() -> i32 {
    STARTED.get_or_init(std::time::Instant::now);
    let parsed = command().try_get_matches().and_then(|m| Cli::from_arg_matches(&m).map(|c| (m, c)));
    let (matches, cli) = match parsed {
        Ok(p) => p,
        Err(e) => {
            let code = if e.use_stderr() { exit::USAGE } else { exit::OK };
            let _ = e.print();
            return code;
        }
    };
    let checked = match matches.subcommand() {
        Some((name, sub)) => backend_options::check(name, sub).and_then(|()| mode_options::check(name, sub)),
        None => Ok(()),
    };
    let code = match checked.and_then(|()| run(cli)) {
        Ok(code) => code,
        Err(f) => {
            status::clear();
            eprint!("{}", f.message);
            f.code
        }
    };
    // The files the command line asked for are written: a closed stdout now ends the
    // process quietly, as SIGPIPE ends other Unix tools.
    crate::stdout::finish();
    code
}

fn print_warnings(w: &[String]) {
    status::clear();
    for x in w {
        eprint!("{x}");
    }
}

fn run(cli: Cli) -> Result<i32, Failure> {
    match cli.command {
        Command::Verify {
            spec,
            properties,
            fair,
            fairness,
            backend,
            workflow,
            lnt_dialect,
            json,
            threads,
            jobs,
            hosts,
            distributor,
            timeout,
            max_states,
            memory,
            keep_files,
            cross_check,
            no_reduction,
            exhaustive,
            edges,
            store,
            check_analysis,
            quiet,
            report,
            probability,
            precision,
            estimate_runs,
        } => {
            status::set_quiet(quiet);
            if let Some(p) = &report {
                report::check_target(p)?;
            }
            if probability && backend == Backend::Cadp {
                return Err(probability::cadp_refused());
            }
            if let Some(d) = &keep_files {
                crate::lts_backend::WorkDir::check_kept(d).map_err(|e| Failure::new(exit::USAGE, e.to_string()))?;
            }
            if let Some(f) = fairness {
                let name = f.notion().as_str();
                if fair {
                    return Err(Failure::new(
                        exit::USAGE,
                        format!(
                            "error: --fairness {name} cannot be combined with --fair: round-robin scheduling \
                             already decides who moves, so no run is left for a fairness assumption to exclude \
                             (docs/semantics.md, D15)\n"
                        ),
                    ));
                }
                if backend != Backend::Native {
                    let b = if backend == Backend::Lnt { "lnt" } else { "cadp" };
                    return Err(Failure::new(
                        exit::USAGE,
                        format!(
                            "error: --fairness {name} is not supported by --backend {b}: the LNT encoding and its \
                             queries assume no fairness; use the native engine (docs/semantics.md, D15)\n"
                        ),
                    ));
                }
            }
            let limits = bounds::limits(timeout, max_states, memory);
            // The native engine's threads start up while the model loads.
            let workers = (backend == Backend::Native).then(|| {
                let threads =
                    threads.map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), |t| t as usize);
                Arc::new(Workers::new(threads))
            });
            let mut warnings = vec![];
            let loaded = load::load("verify", &spec.spec, &spec.externs, &mut warnings)?;
            print_warnings(&warnings);
            // `None`: chosen by the back end from the value analysis (`lts_backend::choose_workflow`).
            let workflow = match workflow {
                _ if distributor.is_some() => Some(crate::lts_backend::Workflow::Monolithic),
                Some(Workflow::Compositional) => Some(crate::lts_backend::Workflow::Compositional),
                Some(Workflow::Monolithic) => Some(crate::lts_backend::Workflow::Monolithic),
                Some(Workflow::OnTheFly) => Some(crate::lts_backend::Workflow::OnTheFly),
                None => None,
            };
            if let Some(gcf) = &distributor {
                cadp::check_gcf(gcf)?;
            }
            if let Some(w @ (crate::lts_backend::Workflow::Monolithic | crate::lts_backend::Workflow::OnTheFly)) =
                workflow
                && jobs.is_some_and(|j| j > 1)
            {
                eprintln!(
                    "warning: --jobs applies to the compositional workflow; the {} one runs as one job",
                    w.as_str()
                );
            }
            if hosts.is_some() && keep_files.is_none() {
                eprintln!(
                    "warning: --hosts: the jobs run in a temporary directory of this machine; the hosts must see it \
                     at the same path (use --keep-files DIR on a shared file system)"
                );
            }
            let hosts = match &hosts {
                Some(f) => Some(cadp::read_hosts_file(f)?),
                None => None,
            };
            let runner = match (&hosts, jobs) {
                (Some(h), _) => Some(crate::lts_backend::Runner::Hosts { ssh: cadp::ssh_command(), hosts: h.clone() }),
                (None, Some(j)) if j > 1 => Some(crate::lts_backend::Runner::Local { jobs: j as usize }),
                _ => None,
            };
            if backend != Backend::Native {
                let dialect = match lnt_dialect.as_deref() {
                    Some(d) => Some(emit::choose_dialect(Some(d))?.0),
                    None => None,
                };
                let opts = crate::lts_backend::Options {
                    fair,
                    properties,
                    dialect,
                    keep_files,
                    limits,
                    runner,
                    distributor,
                    cross_check,
                    ..Default::default()
                };
                let args = verify_files::FilesVerifyArgs {
                    backend,
                    json,
                    workflow,
                    report,
                    probability: probability.then(|| precision.unwrap_or(probability::DEFAULT_PRECISION)),
                };
                return verify_files::verify_files(&loaded, loaded.name(), opts, &args);
            }
            let args = verify::VerifyArgs {
                properties,
                fair,
                fairness: fairness.map(FairnessArg::notion),
                json,
                workers,
                max_states,
                limits,
                report,
                symmetry: !no_reduction,
                exhaustive,
                edges: match edges {
                    Edges::Auto => crate::engine::EdgePolicy::Auto,
                    Edges::Keep => crate::engine::EdgePolicy::Keep,
                    Edges::Recompute => crate::engine::EdgePolicy::Recompute,
                },
                store: match store {
                    Store::Auto => StorePolicy::Auto,
                    Store::Fast => StorePolicy::Fast,
                    Store::Compact => StorePolicy::Compact,
                },
                check_analysis,
                probability: probability.then(|| precision.unwrap_or(probability::DEFAULT_PRECISION)),
                estimate_runs: estimate_runs.unwrap_or(probability::DEFAULT_ESTIMATE_RUNS),
            };
            verify::verify(&loaded, loaded.name(), &args)
        }
        Command::Simulate {
            spec,
            runs,
            steps,
            seed,
            fair,
            properties,
            backend,
            json,
            timeout,
            memory,
            check_analysis,
            quiet,
            report,
            traces,
            estimate,
            epsilon,
            confidence,
            sprt,
            indifference,
            alpha,
            beta,
            max_runs,
            threads,
        } => {
            status::set_quiet(quiet);
            if let Some(p) = &report {
                report::check_target(p)?;
            }
            let limits = bounds::limits(timeout, None, memory);
            let method = match (estimate, sprt) {
                (true, _) => Some(crate::engine::estimate::Method::Interval { epsilon, confidence, max_runs }),
                (false, Some(theta)) => {
                    Some(crate::engine::estimate::Method::Sprt { theta, indifference, alpha, beta, max_runs })
                }
                (false, None) => None,
            };
            if let Some(method) = method {
                let threads =
                    threads.map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), |t| t as usize);
                let mut warnings = vec![];
                let loaded = load::load("simulate", &spec.spec, &spec.externs, &mut warnings)?;
                print_warnings(&warnings);
                let args = estimate::EstimateArgs {
                    properties,
                    fair,
                    json,
                    steps,
                    seed,
                    method,
                    threads,
                    limits,
                    backend,
                    report,
                };
                return estimate::estimate(&loaded, loaded.name(), &args);
            }
            let mut warnings = vec![];
            let loaded = load::load("simulate", &spec.spec, &spec.externs, &mut warnings)?;
            print_warnings(&warnings);
            let backend = match backend {
                Backend::Native => simulate::SimBackend::Native,
                Backend::Lnt => simulate::SimBackend::Lnt,
                Backend::Cadp => simulate::SimBackend::Cadp,
            };
            let args = simulate::SimulateArgs {
                properties,
                fair,
                json,
                runs: runs as usize,
                steps,
                seed,
                backend,
                limits,
                report,
                check_analysis,
                traces,
            };
            simulate::simulate(&loaded, loaded.name(), &args)
        }
        Command::Info { spec, json, quiet } => {
            status::set_quiet(quiet);
            let mut warnings = vec![];
            let loaded = load::load("info", &spec.spec, &spec.externs, &mut warnings)?;
            print_warnings(&warnings);
            if json {
                json::print_pretty(&json::InfoDoc::new(&loaded));
            } else {
                out!("{}", info::info_text(&loaded));
            }
            Ok(exit::OK)
        }
        Command::Values { spec, json, quiet } => {
            status::set_quiet(quiet);
            let mut warnings = vec![];
            let loaded = load::load("values", &spec.spec, &spec.externs, &mut warnings)?;
            print_warnings(&warnings);
            let analysis = crate::analysis::values::analyse(&loaded.model, &loaded.behaviours);
            if json {
                json::print_pretty(&values::values_json(&loaded, &analysis));
            } else {
                out!("{}", values::values_text(&loaded, &analysis));
            }
            Ok(exit::OK)
        }
        Command::Emit { spec, fair, property, output, force, lnt_dialect, split, quiet } => {
            status::set_quiet(quiet);
            emit::choose_dialect(lnt_dialect.as_deref())?;
            let mut warnings = vec![];
            let loaded = load::load("emit", &spec.spec, &spec.externs, &mut warnings)?;
            print_warnings(&warnings);
            emit::run(&loaded, fair, &property, &output, force, lnt_dialect.as_deref(), split)
        }
        Command::Mcl { query, lts, diag, json, timeout, memory, quiet } => {
            status::set_quiet(quiet);
            let limits = bounds::limits(timeout, None, memory);
            mcl::run(&mcl::MclArgs { query, lts, json, diag, limits })
        }
        Command::Lts {
            spec,
            fair,
            leaf,
            no_value_analysis,
            max_states,
            timeout,
            memory,
            lnt_dialect,
            lnt,
            property,
            svl,
            reduce,
            root,
            output,
            quiet,
        } => {
            status::set_quiet(quiet);
            let limits = bounds::limits(timeout, max_states, memory);
            let args = lts::LtsArgs {
                limits,
                fair,
                leaf,
                value_analysis: !no_value_analysis,
                output,
                max_states,
                dialect: lnt_dialect,
                lnt_file: lnt.clone(),
                property,
                svl_file: svl.clone(),
                reduce,
                root,
            };
            if lnt.is_some() || svl.is_some() {
                return lts::run(None, &args);
            }
            let mut warnings = vec![];
            let loaded = load::load("lts", &spec.spec, &spec.externs, &mut warnings)?;
            print_warnings(&warnings);
            lts::run(Some(&loaded), &args)
        }
        Command::TranslateTrace { spec, words, fair, property, json, report, quiet } => {
            status::set_quiet(quiet);
            if let Some(p) = &report {
                report::check_target(p)?;
            }
            let (externs, file) = translate::split_words(&words)?;
            let mut warnings = vec![];
            let loaded = load::load("translate-trace", &spec, &externs, &mut warnings)?;
            print_warnings(&warnings);
            let args = translate::TranslateArgs {
                trace_file: Path::new(&file),
                fair,
                property,
                json,
                report: report.as_deref(),
            };
            translate::run(&loaded, &args)
        }
        Command::Explore { spec, fair, trace, port, view } => {
            let mut warnings = vec![];
            let loaded = load::load("explore", &spec.spec, &spec.externs, &mut warnings)?;
            print_warnings(&warnings);
            explore::run(&loaded, &explore::ExploreArgs { fair, trace, port, view })
        }
        Command::Completions { shell } => manual::run_completions(shell),
        Command::Manpage { dir } => manual::run_manpage(dir.as_deref()),
    }
}

/// Writes `bytes` to `path` whole or not at all: a temporary file beside it, then a rename.
fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path.file_name().map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let r = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if r.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    r
}
