//! `labs completions SHELL` and `labs manpage`: both generated from the clap definitions of
//! the command line, so they list exactly the options `--help` does.

use super::{Failure, exit};
use std::path::Path;

/// The completion script for `shell`.
pub(crate) fn completions(shell: clap_complete::Shell) -> Vec<u8> {
    let mut out = vec![];
    clap_complete::generate(shell, &mut super::command(), "labs", &mut out);
    out
}

/// The manual pages: `labs.1`, then one per subcommand (`labs-verify.1`, …), with their text.
pub(crate) fn pages() -> Result<Vec<(String, Vec<u8>)>, std::io::Error> {
    fn walk(cmd: clap::Command, out: &mut Vec<(String, Vec<u8>)>) -> Result<(), std::io::Error> {
        let man = clap_mangen::Man::new(cmd.clone());
        let mut text = vec![];
        man.render(&mut text)?;
        out.push((man.get_filename(), text));
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned() {
            walk(sub, out)?;
        }
        Ok(())
    }
    let mut cmd = super::command().disable_help_subcommand(true);
    // Building names the subcommands `labs-verify`, … (their pages' names).
    cmd.build();
    let mut out = vec![];
    walk(cmd, &mut out)?;
    Ok(out)
}

fn stdout(bytes: &[u8]) -> Result<i32, Failure> {
    crate::stdout::write_bytes(bytes);
    Ok(exit::OK)
}

pub(crate) fn run_completions(shell: clap_complete::Shell) -> Result<i32, Failure> {
    stdout(&completions(shell))
}

/// `labs.1` on standard output, or every page written whole into `dir`.
pub(crate) fn run_manpage(dir: Option<&Path>) -> Result<i32, Failure> {
    let pages = pages().map_err(|e| Failure::new(exit::BACKEND, format!("cannot render the manual: {e}")))?;
    let Some(dir) = dir else {
        return stdout(&pages[0].1);
    };
    if !dir.is_dir() {
        return Err(Failure::new(exit::USAGE, format!("--dir {}: not a directory", dir.display())));
    }
    for (name, text) in &pages {
        let path = dir.join(name);
        super::write_whole(&path, text)
            .map_err(|e| Failure::new(exit::BACKEND, format!("cannot write `{}`: {e}", path.display())))?;
    }
    Ok(exit::OK)
}
