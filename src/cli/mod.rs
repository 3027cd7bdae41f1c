//! Stage last: the command line. The only module that prints and chooses exit codes.

mod info;
mod load;
mod values;

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// A failed command: its exit code (product.md) and what to print on stderr.
#[derive(Debug)]
pub struct Failure {
    pub code: i32,
    pub message: String,
}

impl Failure {
    pub fn new(code: i32, message: impl Into<String>) -> Failure {
        let mut message = message.into();
        if !message.starts_with("error") {
            message = format!("error: {message}");
        }
        if !message.ends_with('\n') {
            message.push('\n');
        }
        Failure { code, message }
    }
}

pub mod exit {
    pub const OK: i32 = 0;
    pub const VIOLATED: i32 = 10;
    pub const BACKEND: i32 = 1;
    pub const USAGE: i32 = 2;
    pub const INCONCLUSIVE: i32 = 5;
    pub const INVALID_SPEC: i32 = 6;
    pub const TIMEOUT: i32 = 124;
    pub const INTERRUPTED: i32 = 130;
}

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

#[derive(Subcommand, Debug)]
enum Command {
    /// Describe the resolved model: agent types and ids, variables, stigmergies, properties
    Info {
        #[command(flatten)]
        spec: SpecArgs,
        /// One JSON document on stdout
        #[arg(long)]
        json: bool,
    },
    /// Value analysis: the interval set of every variable per agent type
    Values {
        #[command(flatten)]
        spec: SpecArgs,
        /// One JSON document on stdout
        #[arg(long)]
        json: bool,
    },
}

/// Runs the command line; returns the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { exit::USAGE } else { exit::OK };
            let _ = e.print();
            return code;
        }
    };
    match run(cli) {
        Ok(code) => code,
        Err(f) => {
            eprint!("{}", f.message);
            f.code
        }
    }
}

fn print_warnings(w: &[String]) {
    for x in w {
        eprint!("{x}");
    }
}

fn run(cli: Cli) -> Result<i32, Failure> {
    match cli.command {
        Command::Info { spec, json } => {
            let mut warnings = vec![];
            let loaded = load::load("info", &spec.spec, &spec.externs, &mut warnings)?;
            print_warnings(&warnings);
            if json {
                println!("{}", serde_json::to_string_pretty(&info::info_json(&loaded)).expect("JSON of a value"));
            } else {
                print!("{}", info::info_text(&loaded));
            }
            Ok(exit::OK)
        }
        Command::Values { spec, json } => {
            let mut warnings = vec![];
            let loaded = load::load("values", &spec.spec, &spec.externs, &mut warnings)?;
            print_warnings(&warnings);
            let analysis = crate::analysis::values::analyse(&loaded.model, &loaded.behaviours);
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&values::values_json(&loaded, &analysis)).expect("JSON of a value")
                );
            } else {
                print!("{}", values::values_text(&loaded, &analysis));
            }
            Ok(exit::OK)
        }
    }
}
