//! The jobs of a split script (`split.rs`) run concurrently (`--jobs N`), or spread over
//! machines that share the working directory (`--hosts FILE`): every leaf job first, then
//! every property job, each in its own directory. A job that fails on a host is run again on
//! another; one that fails everywhere (or, on this machine, once) ends the run with an error
//! naming the job, where it failed and the end of its output.

use super::CadpError;
use super::process::{self, Ended, Tool};
use super::split::{Job, Split, prepare};
use crate::limits::Limits;
use crate::lts_backend::Runner;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Mutex;

/// The output file of a job's svl (stdout and stderr), in its directory.
pub(crate) const JOB_OUTPUT: &str = "labs-svl-output.txt";

/// A job waiting to run: its index, and the hosts it failed on with why.
type Pending = (usize, Vec<(String, String)>);

/// One slot: where a job runs.
#[derive(Clone, Debug)]
struct Slot {
    host: Option<String>,
}

/// Runs every job of `split` under `root` with `svl` (on this machine: the tool found; on a
/// host: `svl` from its `PATH`). `Ok(Some(_))`: the time limit or an interrupt stopped the
/// run (the jobs not finished have no result).
pub(crate) fn run(
    root: &Path,
    split: &Split,
    runner: &Runner,
    svl: &Path,
    env: &[(&'static str, std::ffi::OsString)],
    limits: &Limits,
) -> Result<Option<Ended>, CadpError> {
    let slots: Vec<Slot> = match runner {
        Runner::Local { jobs } => (0..(*jobs).max(1)).map(|_| Slot { host: None }).collect(),
        Runner::Hosts { hosts, .. } => {
            hosts.iter().flat_map(|h| (0..h.slots).map(move |_| Slot { host: Some(h.name.clone()) })).collect()
        }
    };
    let all_hosts: BTreeSet<String> = slots.iter().filter_map(|s| s.host.clone()).collect();
    for phase in [&split.leaves, &split.properties] {
        let queue: Mutex<Vec<Pending>> = Mutex::new((0..phase.len()).rev().map(|i| (i, vec![])).collect());
        let running = Mutex::new(0usize);
        let outcome: Mutex<Result<Option<Ended>, CadpError>> = Mutex::new(Ok(None));
        std::thread::scope(|scope| {
            for slot in &slots {
                let (queue, running, outcome, all_hosts) = (&queue, &running, &outcome, &all_hosts);
                scope.spawn(move || {
                    loop {
                        if !matches!(*outcome.lock().expect("not poisoned"), Ok(None)) {
                            return;
                        }
                        // A job this slot's host has not failed yet.
                        let next = {
                            let mut q = queue.lock().expect("not poisoned");
                            let mine = q.iter().rposition(|(_, failed)| {
                                slot.host.as_ref().is_none_or(|h| !failed.iter().any(|(f, _)| f == h))
                            });
                            match mine {
                                Some(k) => {
                                    *running.lock().expect("not poisoned") += 1;
                                    Some(q.remove(k))
                                }
                                None if q.is_empty() && *running.lock().expect("not poisoned") == 0 => return,
                                None => None,
                            }
                        };
                        let Some((i, mut failed)) = next else {
                            // Jobs are left that failed here: wait for another host to take them
                            // or for the running ones to end (they may fail back to us).
                            if queue.lock().expect("not poisoned").is_empty()
                                && *running.lock().expect("not poisoned") == 0
                            {
                                return;
                            }
                            std::thread::sleep(std::time::Duration::from_millis(20));
                            continue;
                        };
                        let job = &phase[i];
                        let result = run_one(root, job, slot, runner, svl, env, limits);
                        *running.lock().expect("not poisoned") -= 1;
                        match result {
                            Ok(JobEnd::Done) => {}
                            Ok(JobEnd::Stopped(e)) => {
                                let mut o = outcome.lock().expect("not poisoned");
                                if matches!(*o, Ok(None)) {
                                    *o = Ok(Some(e));
                                }
                            }
                            Ok(JobEnd::Failed(why)) => {
                                let here = slot.host.clone().unwrap_or_else(|| "this machine".to_string());
                                failed.push((here, why));
                                let tried: BTreeSet<String> = failed.iter().map(|(h, _)| h.clone()).collect();
                                if slot.host.is_some() && !all_hosts.is_subset(&tried) {
                                    queue.lock().expect("not poisoned").push((i, failed));
                                    continue;
                                }
                                let mut msg = format!("the job {} failed", job.name);
                                if slot.host.is_some() {
                                    msg.push_str(" on every host");
                                }
                                for (h, why) in &failed {
                                    msg.push_str(&format!("\n  {h}: {why}"));
                                }
                                let mut o = outcome.lock().expect("not poisoned");
                                if matches!(*o, Ok(None)) {
                                    *o = Err(CadpError::Failed { message: msg, work_dir: None });
                                }
                            }
                            Err(e) => {
                                let mut o = outcome.lock().expect("not poisoned");
                                if matches!(*o, Ok(None)) {
                                    *o = Err(e);
                                }
                            }
                        }
                    }
                });
            }
        });
        let o = outcome.into_inner().expect("not poisoned");
        if !matches!(o, Ok(None)) {
            return o;
        }
    }
    Ok(None)
}

enum JobEnd {
    Done,
    Stopped(Ended),
    /// Why, with the end of the job's output.
    Failed(String),
}

fn run_one(
    root: &Path,
    job: &Job,
    slot: &Slot,
    runner: &Runner,
    svl: &Path,
    env: &[(&'static str, std::ffi::OsString)],
    limits: &Limits,
) -> Result<JobEnd, CadpError> {
    let dir = prepare(root, job).map_err(|e| CadpError::Io(format!("cannot prepare the job {}: {e}", job.name)))?;
    let output = dir.join(JOB_OUTPUT);
    let ended = match (runner, &slot.host) {
        (Runner::Hosts { ssh, .. }, Some(host)) => {
            let command = format!("cd {} && svl {}", shell_quote(&dir.to_string_lossy()), Job::SCRIPT);
            let args = [host.as_str(), "sh", "-c", command.as_str()];
            process::run(&Tool { program: ssh, args: &args, env }, &dir, &output, limits, || {})?
        }
        _ => process::run(&Tool { program: svl, args: &[Job::SCRIPT], env }, &dir, &output, limits, || {})?,
    };
    if matches!(ended, Ended::TimedOut | Ended::Interrupted) {
        return Ok(JobEnd::Stopped(ended));
    }
    let wrote = if job.property.is_some() { dir.join(Job::LOG) } else { dir.join(job.output()) };
    if ended == Ended::Exited(Some(0)) && wrote.is_file() {
        return Ok(JobEnd::Done);
    }
    let out = std::fs::read_to_string(&output).unwrap_or_default();
    let status = match ended {
        Ended::Exited(Some(c)) => format!("exit status {c}"),
        _ => "killed".to_string(),
    };
    let missing = if wrote.is_file() { String::new() } else { format!(", no `{}`", wrote.display()) };
    Ok(JobEnd::Failed(format!("{status}{missing}\n{}", super::tail(&out, 8))))
}

/// `s` as one word of `sh`.
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}
