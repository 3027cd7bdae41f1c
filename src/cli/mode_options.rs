//! The options of `labs simulate` that belong to one way of running it only: random runs shown
//! one by one, `--estimate` or `--sprt`. Given with another, such an option would be ignored;
//! it is a usage error (exit 2) that names the modes it belongs to, as an option of another
//! back end is (`backend_options.rs`). The table below is the one place that says which option
//! belongs where.

use super::backend_options::flag;
use super::{Failure, exit};
use clap::parser::ValueSource;

/// How `labs simulate` runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Runs printed one by one (no `--estimate`, no `--sprt`).
    Runs,
    Estimate,
    Sprt,
}

const RUNS: &[Mode] = &[Mode::Runs];
const ESTIMATE: &[Mode] = &[Mode::Estimate];
const SPRT: &[Mode] = &[Mode::Sprt];
const STATISTICAL: &[Mode] = &[Mode::Estimate, Mode::Sprt];

/// (option's argument id, the modes it belongs to). An option not listed applies to every
/// mode (`--runs` with `--estimate` or `--sprt` is refused by clap, which names both).
const OWNERS: &[(&str, &[Mode])] = &[
    ("epsilon", ESTIMATE),
    ("confidence", ESTIMATE),
    ("indifference", SPRT),
    ("alpha", SPRT),
    ("beta", SPRT),
    ("max_runs", STATISTICAL),
    ("threads", STATISTICAL),
    ("check_analysis", RUNS),
    ("traces", RUNS),
];

fn mode_name(m: Mode) -> &'static str {
    match m {
        Mode::Runs => "plain runs (without --estimate or --sprt)",
        Mode::Estimate => "--estimate",
        Mode::Sprt => "--sprt",
    }
}

/// The first option of `simulate` (its matches `sub`) given on the command line that does not
/// belong to the mode the command line chose, as a usage error. An option turned on by its
/// environment variable (`LABS_CHECK_ANALYSIS`) is left alone where it does not apply.
pub(crate) fn check(name: &str, sub: &clap::ArgMatches) -> Result<(), Failure> {
    if name != "simulate" {
        return Ok(());
    }
    let mode = if sub.get_flag("estimate") {
        Mode::Estimate
    } else if sub.value_source("sprt") == Some(ValueSource::CommandLine) {
        Mode::Sprt
    } else {
        Mode::Runs
    };
    for &(id, owners) in OWNERS {
        if owners.contains(&mode) || sub.value_source(id) != Some(ValueSource::CommandLine) {
            continue;
        }
        let list: Vec<&str> = owners.iter().map(|&m| mode_name(m)).collect();
        return Err(Failure::new(
            exit::USAGE,
            format!("`{}` applies to {}, not to {}", flag(id), list.join(" and "), mode_name(mode)),
        ));
    }
    Ok(())
}
