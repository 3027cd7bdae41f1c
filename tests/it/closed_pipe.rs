//! Standard output closed by its reader (`labs … | head -3`): every command ends quietly, as
//! SIGPIPE ends other Unix tools, and still writes the files its command line names.

use crate::fixtures;
use crate::scratch::Scratch;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};

/// Runs `cmd` with a standard output whose reader is gone before the program starts; returns
/// its exit status and stderr.
fn with_closed_stdout(mut cmd: Command) -> (std::process::ExitStatus, String) {
    let mut fds = [0; 2];
    // SAFETY: `pipe` fills the two descriptors it is given.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0, "pipe");
    // SAFETY: both descriptors were just opened and are owned here alone.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read);
    let out = cmd.stdout(Stdio::from(write)).stderr(Stdio::piped()).output().expect("run");
    (out.status, String::from_utf8_lossy(&out.stderr).into_owned())
}

fn assert_quiet_sigpipe(what: &str, status: std::process::ExitStatus, stderr: &str) {
    assert!(!stderr.contains("panicked") && !stderr.contains("Broken pipe"), "{what}: {stderr}");
    assert_eq!(status.signal(), Some(libc::SIGPIPE), "{what}: ended as SIGPIPE would, not {status:?}\n{stderr}");
}

fn labs(args: &[&str]) -> Command {
    let mut c = fixtures::labs_command();
    c.args(args);
    c
}

#[test]
fn every_command_ends_quietly_when_stdout_is_closed() {
    let leader = fixtures::example("leader.labs");
    let cases: &[&[&str]] = &[
        &["simulate", &leader, "n=3", "--runs", "200"],
        &["verify", &leader, "n=3"],
        &["verify", &leader, "n=3", "--json"],
        &["info", &leader, "n=3"],
        &["values", &leader, "n=3", "--json"],
        &["completions", "bash"],
        &["manpage"],
    ];
    for args in cases {
        let (status, stderr) = with_closed_stdout(labs(args));
        assert_quiet_sigpipe(&args.join(" "), status, &stderr);
    }
}

#[test]
fn a_report_is_written_whole_when_stdout_is_closed() {
    let leader = fixtures::example("leader.labs");
    for cmd in ["verify", "simulate"] {
        let report = Scratch::path("closed-pipe", "r.html");
        let (status, stderr) = with_closed_stdout(labs(&[cmd, &leader, "n=3", "--json", "--report", report.as_str()]));
        assert_quiet_sigpipe(cmd, status, &stderr);
        let page = std::fs::read_to_string(&report).unwrap_or_else(|e| panic!("{cmd}: no report: {e}"));
        assert!(page.trim_end().ends_with("</html>"), "{cmd}: the report is cut");
    }
}

#[test]
fn the_benchmark_ends_quietly_when_stdout_is_closed() {
    let mut c = Command::new(env!("CARGO_BIN_EXE_labs-bench"));
    c.arg("--help");
    let (status, stderr) = with_closed_stdout(c);
    assert_quiet_sigpipe("labs-bench --help", status, &stderr);
}
