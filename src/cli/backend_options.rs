//! One rule for options that belong to some back ends only: given on the command line with
//! another back end, such an option is a usage error (exit 2) naming the back ends it belongs
//! to. The table below is the one place that says which option belongs where.

use super::{Backend, Failure, exit};
use clap::parser::ValueSource;

const NATIVE: &[Backend] = &[Backend::Native];
const NATIVE_LNT: &[Backend] = &[Backend::Native, Backend::Lnt];
const FILES: &[Backend] = &[Backend::Cadp, Backend::Lnt];
const CADP: &[Backend] = &[Backend::Cadp];
const LNT: &[Backend] = &[Backend::Lnt];

/// (subcommand, option's argument id, the back ends it belongs to). An option not listed
/// applies to every back end of its subcommand.
pub(crate) const OWNERS: &[(&str, &str, &[Backend])] = &[
    ("verify", "threads", NATIVE),
    ("verify", "no_reduction", NATIVE),
    ("verify", "exhaustive", NATIVE),
    ("verify", "edges", NATIVE),
    ("verify", "store", NATIVE),
    ("verify", "check_analysis", NATIVE),
    ("verify", "max_states", NATIVE_LNT),
    ("verify", "workflow", FILES),
    ("verify", "keep_files", FILES),
    ("verify", "jobs", FILES),
    ("verify", "cross_check", CADP),
    ("verify", "hosts", CADP),
    ("verify", "distributor", CADP),
    ("verify", "lnt_dialect", LNT),
    ("simulate", "check_analysis", NATIVE_LNT),
];

/// The option's name on the command line: `--no-reduction` for `no_reduction`.
pub(crate) fn flag(id: &str) -> String {
    format!("--{}", id.replace('_', "-"))
}

/// How a message names a back end.
fn backend_name(b: Backend) -> &'static str {
    match b {
        Backend::Native => "the native engine (--backend native)",
        Backend::Cadp => "--backend cadp",
        Backend::Lnt => "--backend lnt",
    }
}

/// The first option of `sub` (the matches of subcommand `name`) given on the command line
/// that does not belong to the chosen back end, as a usage error. An option turned on by
/// its environment variable (`LABS_CHECK_ANALYSIS`) is left alone where it does not apply.
pub(crate) fn check(name: &str, sub: &clap::ArgMatches) -> Result<(), Failure> {
    let Ok(Some(&backend)) = sub.try_get_one::<Backend>("backend") else { return Ok(()) };
    for &(_, id, owners) in OWNERS.iter().filter(|(n, _, _)| *n == name) {
        if owners.contains(&backend) || sub.value_source(id) != Some(ValueSource::CommandLine) {
            continue;
        }
        let list: Vec<&str> = owners.iter().map(|&b| backend_name(b)).collect();
        return Err(Failure::new(
            exit::USAGE,
            format!("`{}` applies to {}, not to {}", flag(id), list.join(" and "), backend_name(backend)),
        ));
    }
    Ok(())
}
