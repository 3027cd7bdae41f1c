//! `labs-bench --lnt-table`: the LNT routes against the native engine on the same instance.
//! Per instance: the LAbS states (`verify --exhaustive --no-reduction`, the states of
//! docs/semantics.md, D13) and the native engine's time, states per second, peak memory and
//! bytes per state; then a row per LNT route: `labs lts` (the states of the emitted program's
//! `MAIN`, what `lnt.open`/`generator` would generate in CADP) and each workflow of `verify
//! --backend lnt` (monolithic, compositional, on the fly: the states of the LTSs its script
//! defines), with their ratio to the LAbS states, time, states per second, peak memory and
//! bytes per state. A workflow whose verdicts differ from the native engine's fails the row.
//!
//! Each command runs in its own process, reaped with `wait4` so that its peak resident memory
//! (`ru_maxrss`) is its own.

use labs::stdout::outln;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// The instances: (folder, file, externs, fair, heavy: left out by `--quick`, its program
/// taking more than a few seconds).
const ROWS: &[(&str, &str, &[&str], bool, bool)] = &[
    ("benchmarks", "leader.labs", &["n=3"], false, false),
    ("benchmarks", "leader.labs", &["n=4"], false, false),
    ("benchmarks", "leader.labs", &["n=5"], false, true),
    ("benchmarks", "twophase.labs", &["workers=2"], false, false),
    ("benchmarks", "philosophers.labs", &["n=3"], false, false),
    ("benchmarks", "flock.labs", &["birds=2", "delta=1", "grid=3"], false, false),
    ("examples", "majority.labs", &["yes=1", "no=2"], false, false),
    ("examples", "majority.labs", &["yes=2", "no=3"], true, true),
];

/// Each command's time bound.
const TIMEOUT_SECONDS: &str = "300";

pub struct Measured {
    pub seconds: f64,
    pub peak_mib: f64,
    pub stdout: Vec<u8>,
    /// Exit code 0 or 10 (a verdict).
    pub ok: bool,
    pub stderr: String,
}

/// Runs `cmd` to its end; its wall time and peak resident memory.
pub fn measure(cmd: &mut Command) -> Result<Measured, String> {
    let out = tempfile_path("out");
    let err = tempfile_path("err");
    let start = Instant::now();
    let child = cmd
        .stdout(std::fs::File::create(&out).map_err(|e| e.to_string())?)
        .stderr(std::fs::File::create(&err).map_err(|e| e.to_string())?)
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, which std has not reaped (`child` is dropped unwaited).
    let r = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    let seconds = start.elapsed().as_secs_f64();
    if r < 0 {
        return Err(std::io::Error::last_os_error().to_string());
    }
    let stdout = std::fs::read(&out).unwrap_or_default();
    let stderr = std::fs::read_to_string(&err).unwrap_or_default();
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(&err);
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    Ok(Measured {
        seconds,
        // Linux reports ru_maxrss in KiB.
        peak_mib: usage.ru_maxrss as f64 / 1024.0,
        stdout,
        ok: matches!(code, Some(0 | 10)),
        stderr,
    })
}

fn tempfile_path(what: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("labs-bench-lnt-{}-{what}", std::process::id()))
}

/// The states of an Aldebaran file, from its header `des (initial, transitions, states)`.
fn aut_states(path: &Path) -> Option<u64> {
    use std::io::BufRead;
    let f = std::fs::File::open(path).ok()?;
    let mut line = String::new();
    std::io::BufReader::new(f).read_line(&mut line).ok()?;
    line.trim()
        .strip_prefix("des")?
        .trim()
        .trim_matches(|c| c == '(' || c == ')')
        .split(',')
        .nth(2)?
        .trim()
        .parse()
        .ok()
}

/// The LNT routes of a row: `labs lts` (the whole `MAIN`), then each workflow of
/// `verify --backend lnt`.
pub const ROUTES: [&str; 4] = ["lts", "monolithic", "compositional", "on-the-fly"];

/// One run's figures: seconds, peak MiB, states.
struct Figures {
    seconds: f64,
    peak_mib: f64,
    states: u64,
}

impl Figures {
    fn per_second(&self) -> f64 {
        if self.seconds > 0.0 { self.states as f64 / self.seconds } else { 0.0 }
    }

    fn bytes_per_state(&self) -> f64 {
        self.peak_mib * 1048576.0 / self.states.max(1) as f64
    }
}

/// (property, verdict) of a `verify --json` document.
fn verdicts(doc: &serde_json::Value) -> Vec<(String, String)> {
    doc["results"]
        .as_array()
        .map(|rs| {
            rs.iter()
                .map(|r| {
                    (r["property"].as_str().unwrap_or("").to_string(), r["verdict"].as_str().unwrap_or("").to_string())
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The first line of a failed run's error output.
fn why(what: &str, m: &Measured) -> String {
    format!("{what}: {}", m.stderr.lines().next().unwrap_or("failed"))
}

/// Each property's name and verdict, as a workflow reports them.
type Verdicts = Vec<(String, String)>;

/// Runs one LNT route on the instance; its figures, and its verdicts for a workflow.
fn run_route(
    labs: &Path,
    spec: &Path,
    externs: &[&str],
    fair: bool,
    route: &str,
) -> Result<(Figures, Option<Verdicts>), String> {
    let mut cmd = Command::new(labs);
    let aut = tempfile_path("main.aut");
    if route == "lts" {
        cmd.arg("lts").arg(spec).args(externs).arg("-o").arg(&aut);
    } else {
        cmd.arg("verify").arg(spec).args(externs).args(["--backend", "lnt", "--workflow", route, "--json"]);
    }
    cmd.args(["-q", "--timeout", TIMEOUT_SECONDS]);
    if fair {
        cmd.arg("--fair");
    }
    let m = measure(&mut cmd)?;
    if !m.ok {
        let _ = std::fs::remove_file(&aut);
        return Err(why(route, &m));
    }
    if route == "lts" {
        let states = aut_states(&aut).ok_or("lts: no Aldebaran header")?;
        let _ = std::fs::remove_file(&aut);
        return Ok((Figures { seconds: m.seconds, peak_mib: m.peak_mib, states }, None));
    }
    let doc: serde_json::Value = serde_json::from_slice(&m.stdout).map_err(|e| format!("{route}: {e}"))?;
    let states = doc["stats"]["lts"]
        .as_array()
        .ok_or_else(|| format!("{route}: no stats.lts"))?
        .iter()
        .map(|l| l["states"].as_u64().unwrap_or(0))
        .sum();
    Ok((Figures { seconds: m.seconds, peak_mib: m.peak_mib, states }, Some(verdicts(&doc))))
}

/// Prints the table; returns the instances that failed, with why.
pub fn lnt_table(labs: &Path, root: &Path, quick: bool) -> Vec<String> {
    outln!(
        "labs's LNT routes on the emitted files against the native engine's full state space (`verify \
         --exhaustive --no-reduction`, 1 thread), per instance: `labs lts` generates the program's MAIN \
         (states: its states); `verify --backend lnt --workflow W` runs each workflow (states: those of the \
         LTSs the script defines, `stats.lts`: MAIN and its reductions, the reduced compositions, or the \
         program states generated on the fly). One run each, its own process; s: wall time; MiB: peak \
         resident memory; B/state: peak memory over states; a workflow's verdicts must be the native ones\n"
    );
    outln!(
        "| {:<14} | {:<22} | {:<4} | {:<13} | {:>8} | {:>9} | {:>8} | {:>8} | {:>9} | {:>7} | {:>9} | {:>8} | {:>9} | {:>7} | {:>9} |",
        "system",
        "externs",
        "fair",
        "LNT route",
        "LAbS st.",
        "states",
        "per LAbS",
        "s",
        "st/s",
        "MiB",
        "B/state",
        "native s",
        "native st/s",
        "nat. MiB",
        "nat. B/st"
    );
    outln!(
        "|{}|",
        [16, 24, 6, 15, 10, 11, 10, 10, 11, 9, 11, 10, 11, 9, 11]
            .iter()
            .map(|w| "-".repeat(*w))
            .collect::<Vec<_>>()
            .join("|")
    );
    let mut failures = vec![];
    for (dir, file, externs, fair, heavy) in ROWS {
        if quick && *heavy {
            continue;
        }
        let spec = root.join(dir).join(file);
        let name = file.trim_end_matches(".labs");
        let instance = format!("{name} {}{}", externs.join(" "), if *fair { " --fair" } else { "" });
        let mut native = Command::new(labs);
        native.arg("verify").arg(&spec).args(*externs).args(["--exhaustive", "--no-reduction", "--threads", "1"]);
        native.args(["--json", "-q", "--timeout", TIMEOUT_SECONDS]);
        if *fair {
            native.arg("--fair");
        }
        let native = (|| -> Result<(Figures, Vec<(String, String)>), String> {
            let n = measure(&mut native)?;
            if !n.ok {
                return Err(why("verify", &n));
            }
            let doc: serde_json::Value = serde_json::from_slice(&n.stdout).map_err(|e| e.to_string())?;
            let states = doc["stats"]["states"].as_u64().ok_or("verify: no stats.states")?;
            let seconds = doc["stats"]["seconds"].as_f64().unwrap_or(n.seconds);
            Ok((Figures { seconds, peak_mib: n.peak_mib, states }, verdicts(&doc)))
        })();
        let (native, native_verdicts) = match native {
            Ok(n) => n,
            Err(e) => {
                outln!("| {:<14} | {:<22} | failed: {e}", name, externs.join(" "));
                failures.push(format!("{instance}: {e}"));
                continue;
            }
        };
        for route in ROUTES {
            let row = run_route(labs, &spec, externs, *fair, route).and_then(|(f, v)| {
                if let Some(v) = v
                    && v != native_verdicts
                {
                    return Err(format!("{route}: verdicts {v:?}, native {native_verdicts:?}"));
                }
                Ok(format!(
                    "| {:<14} | {:<22} | {:<4} | {:<13} | {:>8} | {:>9} | {:>8.1} | {:>8.2} | {:>9.0} | {:>7.0} | {:>9.0} | {:>8.3} | {:>9.0} | {:>7.0} | {:>9.0} |",
                    name,
                    externs.join(" "),
                    if *fair { "yes" } else { "no" },
                    route,
                    native.states,
                    f.states,
                    f.states as f64 / native.states.max(1) as f64,
                    f.seconds,
                    f.per_second(),
                    f.peak_mib,
                    f.bytes_per_state(),
                    native.seconds,
                    native.per_second(),
                    native.peak_mib,
                    native.bytes_per_state(),
                ))
            });
            match row {
                Ok(r) => outln!("{r}"),
                Err(e) => {
                    outln!("| {:<14} | {:<22} | {:<4} | {:<13} | failed: {e}", name, externs.join(" "), "", route);
                    failures.push(format!("{instance}: {e}"));
                }
            }
        }
    }
    failures
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_aldebaran_header_gives_the_states() {
        let p = super::tempfile_path("header-test.aut");
        std::fs::write(&p, "des (0, 7, 5)\n(0, \"a\", 1)\n").unwrap();
        assert_eq!(super::aut_states(&p), Some(5));
        std::fs::write(&p, "nonsense\n").unwrap();
        assert_eq!(super::aut_states(&p), None);
        let _ = std::fs::remove_file(&p);
    }
}
