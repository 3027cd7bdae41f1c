//! Where the jobs of a run go: on this machine, that many at a time, or on the machines of a
//! hosts file (`--hosts FILE`), which the CADP driver reaches through `ssh`.

use std::path::PathBuf;

/// A machine of `--hosts`: its name (as `ssh` takes it) and how many jobs it runs at a time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Host {
    pub(crate) name: String,
    pub(crate) slots: usize,
}

/// Where the jobs run.
#[derive(Clone, Debug)]
pub enum Runner {
    /// On this machine, this many at a time.
    Local { jobs: usize },
    /// Through `ssh` (`$LABS_SSH`) on these machines, which see the working directory at the
    /// same path: `SSH HOST sh -c 'cd DIR && svl job.svl'`.
    Hosts { ssh: PathBuf, hosts: Vec<Host> },
}

/// Why a hosts file cannot be read (`--hosts FILE`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum HostsError {
    /// A slot count that is not a positive integer, on this line (from 1).
    #[error("line {line}: `{word}` is not a number of jobs (a positive integer)")]
    BadSlots { line: usize, word: String },
    /// More than `HOST [SLOTS]` on this line.
    #[error("line {line}: unexpected `{word}` (expected `HOST [SLOTS]`)")]
    Unexpected { line: usize, word: String },
    #[error("no host in it")]
    NoHost,
}

/// Reads a hosts file: one host per line, optionally followed by its number of slots (default
/// 1); blank lines and `#` comments are skipped.
pub(crate) fn read_hosts(text: &str) -> Result<Vec<Host>, HostsError> {
    let mut hosts = vec![];
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let name = words.next().expect("a non-empty line has a word").to_string();
        let slots = match words.next() {
            None => 1,
            Some(w) => w
                .parse()
                .ok()
                .filter(|&n: &usize| n > 0)
                .ok_or_else(|| HostsError::BadSlots { line: i + 1, word: w.to_string() })?,
        };
        if let Some(extra) = words.next() {
            return Err(HostsError::Unexpected { line: i + 1, word: extra.to_string() });
        }
        hosts.push(Host { name, slots });
    }
    if hosts.is_empty() {
        return Err(HostsError::NoHost);
    }
    Ok(hosts)
}

#[cfg(test)]
mod tests {
    use super::{Host, HostsError, read_hosts};

    #[test]
    fn hosts_files() {
        let h = read_hosts("# cluster\nalpha 4\n\nbeta\n  gamma 2  # fast\n").unwrap();
        let want = [("alpha", 4), ("beta", 1), ("gamma", 2)];
        assert_eq!(h, want.map(|(n, s)| Host { name: n.to_string(), slots: s }).to_vec());
        assert_eq!(read_hosts("\n# nothing\n"), Err(HostsError::NoHost));
        assert_eq!(read_hosts("alpha zero\n"), Err(HostsError::BadSlots { line: 1, word: "zero".into() }));
        assert!(read_hosts("alpha 0\n").is_err());
        assert!(read_hosts("alpha 2 3\n").unwrap_err().to_string().contains("unexpected `3`"));
    }
}
