//! Running one CADP command: no shell (arguments are passed as they are), output to a file,
//! its own process group so that a time limit or Ctrl-C ends the tool and everything it
//! started (svl runs a shell script that runs compilers, generators and Evaluator).

use super::CadpError;
use crate::limits::Limits;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// How a command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ended {
    /// Its exit code (`None`: ended by a signal).
    Exited(Option<i32>),
    TimedOut,
    Interrupted,
}

const POLL: Duration = Duration::from_millis(20);

/// A command: the program, its arguments, the variables set for it.
pub(crate) struct Tool<'a> {
    pub(crate) program: &'a Path,
    pub(crate) args: &'a [&'a str],
    pub(crate) env: &'a [(&'static str, std::ffi::OsString)],
}

/// Runs the tool in `dir`, stdout and stderr into `output`, calling `poll` about every 20 ms
/// while it runs (progress).
pub(crate) fn run(
    tool: &Tool,
    dir: &Path,
    output: &Path,
    limits: &Limits,
    mut poll: impl FnMut(),
) -> Result<Ended, CadpError> {
    use std::os::unix::process::CommandExt;
    let program = tool.program;
    let mut cmd = duct::cmd(program, tool.args);
    for (k, v) in tool.env {
        cmd = cmd.env(k, v);
    }
    let handle = cmd
        .dir(dir)
        .stdin_null()
        .stderr_to_stdout()
        .stdout_path(output)
        .unchecked()
        .before_spawn(|c| {
            c.process_group(0);
            Ok(())
        })
        .start()
        .map_err(|e| CadpError::Io(format!("cannot run `{}`: {e}", program.display())))?;
    loop {
        match handle.try_wait() {
            Ok(Some(out)) => return Ok(Ended::Exited(out.status.code())),
            Ok(None) => {}
            Err(e) => return Err(CadpError::Io(format!("waiting for `{}`: {e}", program.display()))),
        }
        let stop = if limits.interrupt().is_some_and(|c| c.load(Ordering::SeqCst)) {
            Some(Ended::Interrupted)
        } else if limits.deadline().is_some_and(|d| Instant::now() >= d) {
            Some(Ended::TimedOut)
        } else {
            None
        };
        if let Some(ended) = stop {
            for pid in handle.pids() {
                // The group the command leads: the tool and everything it started.
                // SAFETY: kill has no memory effects; a stale group id only makes it fail.
                unsafe { libc::kill(-(pid as libc::pid_t), libc::SIGKILL) };
            }
            let _ = handle.kill();
            let _ = handle.wait();
            return Ok(ended);
        }
        poll();
        std::thread::sleep(POLL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh<'a>(args: &'a [&'a str]) -> Tool<'a> {
        Tool { program: Path::new("/bin/sh"), args, env: &[] }
    }

    #[test]
    fn time_limit_ends_the_whole_group() {
        let dir = std::env::temp_dir().join(format!("labs-process-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("out.txt");
        // The shell starts a child that would outlive a kill of the shell alone and write `late`.
        let script = "(sleep 2; echo late > late.txt) & echo started; wait";
        let limits = Limits::new(Some(Duration::from_millis(300)), None, None, None);
        let t = Instant::now();
        let ended = run(&sh(&["-c", script]), &dir, &out, &limits, || {}).unwrap();
        assert_eq!(ended, Ended::TimedOut);
        assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
        std::thread::sleep(Duration::from_millis(2500));
        assert!(!dir.join("late.txt").exists(), "the background child survived");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "started\n");
        let ended = run(&sh(&["-c", "exit 3"]), &dir, &out, &Limits::default(), || {}).unwrap();
        assert_eq!(ended, Ended::Exited(Some(3)));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
