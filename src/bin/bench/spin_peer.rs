//! `labs-bench --peer spin`: SPIN on the Promela peer model of the philosophers benchmark
//! (`benchmarks/peers/philosophers.pml`, one Promela statement per LAbS action, so that SPIN
//! explores exactly labs's state space), next to labs on the same instance, as an expert runs
//! SPIN for a full search: breadth-first, no partial-order reduction (it reduces nothing
//! here), a 2^25-slot hash table, and `-DBFS_PAR -u2` for its multi-core BFS. Benchmark only:
//! never run by the tests or CI.
//!
//! Then liveness: the linear-time property `always finally status of 0 = 2` (philosopher 0
//! eats again and again), SPIN's acceptance-cycle search (a never claim from the same formula,
//! nested depth-first search) next to labs's check of the formula (docs/language.md §6.1) on
//! the same instance. Without fairness, philosopher 0 can starve, so both must find it
//! violated.
//!
//! Then weak fairness (`fair_liveness`): SPIN's process-level weak fairness (`pan -a -f`, the
//! verifier compiled with `-DNFAIR` large enough for its processes) next to `labs verify
//! --fairness weak`, on `Live` and on `Release = always (status of 0 = 2 implies finally
//! status of 0 = 0)`, at n = 7 at most (SPIN's fair search copies the state space once per
//! process and twice more). The notions are the same: the model's processes are the LAbS
//! agents, one each (philosopher `_pid` is agent `_pid`), with no other process and no
//! message (`status` is an attribute, `fork` the environment: no stigmergy), and in both
//! tools a process is enabled exactly where it has a step, the never claim being no process
//! of the system. `Live` is violated either way (a deadlock: all hold their left fork);
//! `Release` is violated free and holds under weak fairness.
//!
//! Every run is a child process whose wall time and peak resident memory (`wait4`'s
//! `ru_maxrss`) are measured the same way for both tools. The state counts must be equal.

use labs::stdout::outln;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// One measured run.
struct Run {
    tool: String,
    states: u64,
    wall: f64,
    peak_mib: f64,
}

/// Why the comparison could not run.
pub enum PeerError {
    /// SPIN or a C compiler is missing (exit 2).
    Missing(String),
    /// A run failed or the counts differ (exit 1).
    Failed(String),
}

/// Runs SPIN (1 and 2 cores) and labs (1 and 2 threads) on philosophers with `n`
/// philosophers, `runs` times each (the fastest kept), and prints the table.
pub fn run(benchmarks: &Path, labs: &Path, n: usize, runs: usize) -> Result<(), PeerError> {
    for (tool, arg) in [("spin", "-V"), ("cc", "--version")] {
        let ok = Command::new(tool).arg(arg).output().is_ok_and(|o| o.status.success());
        if !ok {
            return Err(PeerError::Missing(format!(
                "`{tool}` is not installed: --peer spin needs SPIN and a C compiler (Debian: apt-get install spin gcc)"
            )));
        }
    }
    let model = benchmarks.join("peers/philosophers.pml");
    let spec = benchmarks.join("philosophers.labs");
    for f in [&model, &spec] {
        if !f.is_file() {
            return Err(PeerError::Failed(format!("{}: not found", f.display())));
        }
    }
    let dir = std::env::temp_dir().join(format!("labs-bench-spin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| PeerError::Failed(format!("{}: {e}", dir.display())))?;
    let result = compare(&model, &spec, labs, &dir, n, runs);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn compare(model: &Path, spec: &Path, labs: &Path, dir: &Path, n: usize, runs: usize) -> Result<(), PeerError> {
    let pans = build_pans(model, dir, n)?;
    let mut rows = Vec::new();
    for (cores, pan) in [1, 2].iter().zip(&pans) {
        let mut args = vec!["-E".to_string(), "-w25".to_string()];
        if *cores > 1 {
            args.push(format!("-u{cores}"));
        }
        let tool =
            if *cores == 1 { "SPIN BFS, 1 core".to_string() } else { format!("SPIN multi-core BFS, {cores} cores") };
        rows.push(fastest(runs, || spin_run(&tool, pan, &args, dir))?);
    }
    for threads in [1, 2] {
        // The whole state space, as SPIN's full search (not stopped at the violation).
        let args = verify_args(spec, n, "P1", threads, &["--exhaustive"]);
        let tool = labs_tool(threads);
        rows.push(fastest(runs, || labs_run(&tool, labs, &args))?);
    }
    print_table(n, runs, &rows);
    let spin_states = rows[0].states;
    if let Some(r) = rows.iter().find(|r| r.states != spin_states) {
        return Err(PeerError::Failed(format!("{}: {} states, SPIN: {spin_states}", r.tool, r.states)));
    }
    liveness(model, spec, labs, dir, n, runs)?;
    fair_liveness(model, spec, labs, dir, n.min(7), runs)
}

/// `Release`: a philosopher that eats puts its forks down, in LAbS and in SPIN's syntax.
const RELEASE_LABS: &str = "Release = always (status of 0 = 2 implies finally status of 0 = 0)";
const RELEASE_SPIN: &str = "ltl release { [] ((status[0] == 2) -> <> (status[0] == 0)) }";

/// The weak-fairness table: per property, SPIN's nested search without and with `-f`, and
/// labs free and `--fairness weak` on 1 and 2 threads; the verdicts must agree.
fn fair_liveness(model: &Path, spec: &Path, labs: &Path, dir: &Path, n: usize, runs: usize) -> Result<(), PeerError> {
    let io = |e: std::io::Error| PeerError::Failed(format!("{}: {e}", dir.display()));
    let text = std::fs::read_to_string(model).map_err(io)?;
    let labs_text = std::fs::read_to_string(spec).map_err(io)?;
    let Some(at) = labs_text.rfind("check {") else {
        return Err(PeerError::Failed(format!("{}: no check section", spec.display())));
    };
    let live_spec = dir.join("fair.labs");
    let with = format!(
        "{}check {{\n    {LIVE_LABS}\n    {RELEASE_LABS}\n{}",
        &labs_text[..at],
        &labs_text[at + "check {".len()..]
    );
    std::fs::write(&live_spec, with).map_err(io)?;
    outln!(
        "\nweak fairness, philosophers n={n}: SPIN `pan -a` and `pan -a -f` next to labs free and `--fairness weak`, fastest of {runs} run(s) each\n"
    );
    outln!(
        "| {:<9} | {:<30} | {:<6} | {:>10} | {:>8} | {:>8} | {:>8} |",
        "property",
        "tool",
        "fair",
        "states",
        "wall s",
        "peak MiB",
        "verdict"
    );
    outln!("|{}|", [11, 32, 8, 12, 10, 10, 10].iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>().join("|"));
    // (property, its never claim, the verdicts expected free and weakly fair: violated?)
    for (name, ltl, free_violated, weak_violated) in
        [("Live", LIVE_SPIN, true, true), ("Release", RELEASE_SPIN, true, false)]
    {
        let sub = dir.join(name);
        std::fs::create_dir_all(&sub).map_err(io)?;
        std::fs::write(sub.join("p.pml"), format!("{text}\n{ltl}\n")).map_err(io)?;
        checked(Command::new("spin").arg(format!("-DN={n}")).args(["-a", "p.pml"]).current_dir(&sub), "spin -a")?;
        // SPIN's fairness needs a bit per process (the philosophers and the never claim).
        let nfair = format!("-DNFAIR={}", (n + 3).div_ceil(8) + 1);
        let pan = sub.join("pan");
        let mut cc = Command::new("cc");
        cc.args(["-O3", "-DNOREDUCE", &nfair, "-DMEMLIM=16000", "-o"]).arg(&pan).arg("pan.c");
        checked(cc.current_dir(&sub), "cc pan.c")?;
        let mut rows = Vec::new();
        for fair in [false, true] {
            let tool = "SPIN nested DFS (never claim)";
            rows.push((
                fair,
                fastest(runs, || {
                    let mut cmd = Command::new(&pan);
                    cmd.args(["-a", "-E", "-w25", "-m1000000"]).current_dir(&sub);
                    if fair {
                        cmd.arg("-f");
                    }
                    let (out, wall, peak_mib) = measured(&mut cmd, tool)?;
                    if !out.contains("errors: ") {
                        return Err(PeerError::Failed(format!("{tool}: no `errors:` in its output")));
                    }
                    let violated = !out.contains("errors: 0");
                    let states = out
                        .lines()
                        .find_map(|l| l.trim().split(" states, stored").next().filter(|_| l.contains("states, stored")))
                        .and_then(|s| s.trim().parse().ok())
                        .unwrap_or(0);
                    Ok((Run { tool: tool.into(), states, wall, peak_mib }, violated))
                })?,
            ));
        }
        for fair in [false, true] {
            for threads in [1, 2] {
                let extra: &[&str] = if fair { &["--fairness", "weak"] } else { &[] };
                let args = verify_args(&live_spec, n, name, threads, extra);
                let tool = labs_tool(threads);
                rows.push((
                    fair,
                    fastest(runs, || {
                        let (out, wall, peak_mib) = measured(Command::new(labs).args(&args), &tool)?;
                        let doc: serde_json::Value = serde_json::from_str(&out)
                            .map_err(|e| PeerError::Failed(format!("{tool}: not JSON: {e}")))?;
                        let states = doc["stats"]["states"].as_u64().unwrap_or(0);
                        let violated = doc["results"][0]["verdict"].as_str() == Some("violated");
                        Ok((Run { tool: tool.clone(), states, wall, peak_mib }, violated))
                    })?,
                ));
            }
        }
        for (fair, (r, violated)) in &rows {
            let verdict = if *violated { "violated" } else { "holds" };
            let f = if *fair { "weak" } else { "free" };
            outln!(
                "| {:<9} | {:<30} | {:<6} | {:>10} | {:>8.2} | {:>8.0} | {:>8} |",
                name,
                r.tool,
                f,
                r.states,
                r.wall,
                r.peak_mib,
                verdict
            );
        }
        for (fair, (r, violated)) in &rows {
            let expected = if *fair { weak_violated } else { free_violated };
            if *violated != expected {
                let f = if *fair { "weak" } else { "free" };
                return Err(PeerError::Failed(format!("{name}, {f}: {} disagrees (violated: {violated})", r.tool)));
            }
        }
    }
    outln!(
        "(SPIN's states: those its nested search stored, up to the first acceptance cycle; under -f, in its fair product, which copies the states per process.)"
    );
    Ok(())
}

/// The liveness property, in LAbS and in SPIN's LTL syntax.
const LIVE_LABS: &str = "Live = always finally status of 0 = 2";
const LIVE_SPIN: &str = "ltl live { [] <> (status[0] == 2) }";

/// SPIN's acceptance-cycle search and labs's linear-time check of the liveness property, side
/// by side; both must find it violated.
fn liveness(model: &Path, spec: &Path, labs: &Path, dir: &Path, n: usize, runs: usize) -> Result<(), PeerError> {
    let text = std::fs::read_to_string(model).map_err(|e| PeerError::Failed(format!("{}: {e}", model.display())))?;
    std::fs::write(dir.join("live.pml"), format!("{text}\n{LIVE_SPIN}\n"))
        .map_err(|e| PeerError::Failed(format!("{}: {e}", dir.display())))?;
    checked(Command::new("spin").arg(format!("-DN={n}")).args(["-a", "live.pml"]).current_dir(dir), "spin -a")?;
    let pan = dir.join("pan_live");
    let mut cc = Command::new("cc");
    cc.args(["-O3", "-DNOREDUCE", "-DMEMLIM=16000", "-o"]).arg(&pan).arg("pan.c");
    checked(cc.current_dir(dir), "cc pan.c")?;
    let spin = fastest(runs, || {
        let tool = "SPIN nested DFS (never claim)";
        let mut cmd = Command::new(&pan);
        cmd.args(["-a", "-E", "-w25", "-m1000000"]).current_dir(dir);
        let (out, wall, peak_mib) = measured(&mut cmd, tool)?;
        let violated = out.contains("acceptance cycle") && !out.contains("errors: 0");
        let states = out
            .lines()
            .find_map(|l| l.trim().strip_suffix("states, stored").and_then(|s| s.trim().parse().ok()))
            .unwrap_or(0);
        Ok((Run { tool: tool.into(), states, wall, peak_mib }, violated))
    })?;
    let text = std::fs::read_to_string(spec).map_err(|e| PeerError::Failed(format!("{}: {e}", spec.display())))?;
    let Some(at) = text.rfind("check {") else {
        return Err(PeerError::Failed(format!("{}: no check section", spec.display())));
    };
    let live_spec = dir.join("live.labs");
    let with_live = format!("{}check {{\n    {LIVE_LABS}\n{}", &text[..at], &text[at + "check {".len()..]);
    std::fs::write(&live_spec, with_live).map_err(|e| PeerError::Failed(format!("{}: {e}", dir.display())))?;
    let mut labs_rows = Vec::new();
    for threads in [1, 2] {
        let args = verify_args(&live_spec, n, "Live", threads, &[]);
        let tool = labs_tool(threads);
        labs_rows.push(fastest(runs, || {
            let (out, wall, peak_mib) = measured(Command::new(labs).args(&args), &tool)?;
            let doc: serde_json::Value =
                serde_json::from_str(&out).map_err(|e| PeerError::Failed(format!("{tool}: not JSON: {e}")))?;
            let states = doc["stats"]["states"].as_u64().unwrap_or(0);
            let violated = doc["results"][0]["verdict"].as_str() == Some("violated");
            Ok((Run { tool: tool.clone(), states, wall, peak_mib }, violated))
        })?);
    }
    outln!("\nliveness, `{LIVE_LABS}` (SPIN: `{LIVE_SPIN}`), fastest of {runs} run(s) each\n");
    outln!("| {:<30} | {:>10} | {:>8} | {:>8} | {:>8} |", "tool", "states", "wall s", "peak MiB", "verdict");
    outln!("|{}|", [32, 12, 10, 10, 10].iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>().join("|"));
    for (r, violated) in std::iter::once(&spin).chain(&labs_rows) {
        let verdict = if *violated { "violated" } else { "holds" };
        outln!("| {:<30} | {:>10} | {:>8.2} | {:>8.0} | {:>8} |", r.tool, r.states, r.wall, r.peak_mib, verdict);
    }
    outln!("(SPIN's states: those its nested search stored before the first acceptance cycle.)");
    if let Some((r, _)) = std::iter::once(&spin).chain(&labs_rows).find(|(_, v)| !v) {
        return Err(PeerError::Failed(format!("{}: the liveness property was not found violated", r.tool)));
    }
    Ok(())
}

/// Generates the verifier with `spin -a` and compiles it twice: BFS (1 core) and
/// multi-core BFS.
fn build_pans(model: &Path, dir: &Path, n: usize) -> Result<[PathBuf; 2], PeerError> {
    std::fs::copy(model, dir.join("m.pml")).map_err(|e| PeerError::Failed(format!("{}: {e}", model.display())))?;
    checked(Command::new("spin").arg(format!("-DN={n}")).args(["-a", "m.pml"]).current_dir(dir), "spin -a")?;
    let mut pans = [dir.join("pan1"), dir.join("pan2")];
    for (bfs, pan) in ["-DBFS", "-DBFS_PAR"].iter().zip(&mut pans) {
        let mut cc = Command::new("cc");
        cc.args(["-O3", bfs, "-DNOREDUCE", "-DSAFETY", "-DMEMLIM=16000", "-o"]).arg(&*pan).arg("pan.c");
        checked(cc.current_dir(dir), "cc pan.c")?;
    }
    Ok(pans)
}

fn checked(cmd: &mut Command, what: &str) -> Result<(), PeerError> {
    let out = cmd.output().map_err(|e| PeerError::Failed(format!("{what}: {e}")))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(PeerError::Failed(format!("{what}: {}, {}", out.status, err.lines().next().unwrap_or(""))));
    }
    Ok(())
}

fn fastest<R: Timed>(runs: usize, mut f: impl FnMut() -> Result<R, PeerError>) -> Result<R, PeerError> {
    let mut best: Option<R> = None;
    for _ in 0..runs {
        let r = f()?;
        if best.as_ref().is_none_or(|b| r.wall() < b.wall()) {
            best = Some(r);
        }
    }
    Ok(best.expect("at least one run"))
}

/// A measured run, or one with its verdict.
trait Timed {
    fn wall(&self) -> f64;
}

impl Timed for Run {
    fn wall(&self) -> f64 {
        self.wall
    }
}

impl Timed for (Run, bool) {
    fn wall(&self) -> f64 {
        self.0.wall
    }
}

fn spin_run(tool: &str, pan: &Path, args: &[String], dir: &Path) -> Result<Run, PeerError> {
    let mut cmd = Command::new(pan);
    cmd.args(args).current_dir(dir);
    let (out, wall, peak_mib) = measured(&mut cmd, tool)?;
    // SPIN prints `    12544 states, stored` and `errors: 0`.
    let states = out
        .lines()
        .find_map(|l| l.trim().strip_suffix("states, stored").and_then(|s| s.trim().parse().ok()))
        .ok_or_else(|| PeerError::Failed(format!("{tool}: no `states, stored` in its output")))?;
    if !out.contains("errors: 0") {
        return Err(PeerError::Failed(format!("{tool}: the search reported errors")));
    }
    Ok(Run { tool: tool.into(), states, wall, peak_mib })
}

fn labs_run(tool: &str, labs: &Path, args: &[String]) -> Result<Run, PeerError> {
    let (out, wall, peak_mib) = measured(Command::new(labs).args(args), tool)?;
    let doc: serde_json::Value =
        serde_json::from_str(&out).map_err(|e| PeerError::Failed(format!("{tool}: not JSON: {e}")))?;
    let states = doc["stats"]["states"].as_u64().ok_or_else(|| PeerError::Failed(format!("{tool}: no state count")))?;
    Ok(Run { tool: tool.into(), states, wall, peak_mib })
}

/// Runs `cmd` to the end: its standard output, wall seconds and peak resident MiB. Exit
/// codes 0 and 10 (labs: property violated) are success.
fn measured(cmd: &mut Command, tool: &str) -> Result<(String, f64, f64), PeerError> {
    use std::io::Read;
    let start = Instant::now();
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| PeerError::Failed(format!("{tool}: {e}")))?;
    let mut out = String::new();
    let read = child.stdout.take().expect("piped").read_to_string(&mut out);
    let mut status = 0;
    // SAFETY: an all-zero `rusage` (integers and timevals) is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `wait4` reaps our own child, which `Child::wait` is then never asked to do, and
    // writes only into `status` and `usage`, which outlive the call.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    let wall = start.elapsed().as_secs_f64();
    read.map_err(|e| PeerError::Failed(format!("{tool}: {e}")))?;
    if pid < 0 {
        return Err(PeerError::Failed(format!("{tool}: wait4 failed")));
    }
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    if !matches!(code, Some(0 | 10)) {
        return Err(PeerError::Failed(format!("{tool}: exit status {status}")));
    }
    // `ru_maxrss` is in KiB on Linux.
    Ok((out, wall, usage.ru_maxrss as f64 / 1024.0))
}

fn print_table(n: usize, runs: usize, rows: &[Run]) {
    outln!("philosophers n={n}: SPIN and labs side by side, fastest of {runs} run(s) each\n");
    outln!(
        "| {:<28} | {:>10} | {:>8} | {:>8} | {:>17} | {:>17} |",
        "tool",
        "states",
        "wall s",
        "peak MiB",
        "time / SPIN 2 co.",
        "mem. / SPIN 2 co."
    );
    outln!("|{}|", [30, 12, 10, 10, 19, 19].iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>().join("|"));
    let base = &rows[1];
    for r in rows {
        outln!(
            "| {:<28} | {:>10} | {:>8.2} | {:>8.0} | {:>17.2} | {:>17.2} |",
            r.tool,
            r.states,
            r.wall,
            r.peak_mib,
            r.wall / base.wall,
            r.peak_mib / base.peak_mib
        );
    }
    let labs2 = &rows[3];
    outln!("\nlabs 2 threads vs SPIN multi-core BFS on 2 cores: {:.2}x faster", base.wall / labs2.wall);
}

/// `labs verify SPEC n=N --property PROPERTY --threads T EXTRA… --json -q`.
fn verify_args(spec: &Path, n: usize, property: &str, threads: usize, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["verify".to_string(), spec.display().to_string(), format!("n={n}")];
    args.extend(["--property".to_string(), property.to_string(), "--threads".to_string(), threads.to_string()]);
    args.extend(extra.iter().map(|a| a.to_string()));
    args.extend(["--json".to_string(), "-q".to_string()]);
    args
}

/// The row name of labs on `threads` threads.
fn labs_tool(threads: usize) -> String {
    if threads == 1 { "labs, 1 thread".to_string() } else { format!("labs, {threads} threads") }
}
