//! `labs-bench --probability-table`: `labs verify --probability` on the instances of the
//! probability targets (docs/probability.md): per property, the probability's interval and its
//! width, the expected steps to ψ for `finally`, and per run its wall time, peak memory and
//! states, beside the peak memory of `labs verify --exhaustive` (no probability) on the same
//! instance, which the chain and the value iteration should not exceed by more than half.
//!
//! Each command runs in its own process, reaped with `wait4` so that its peak resident memory
//! is its own (`lnt_scale::measure`).

use super::lnt_scale::measure;
use labs::stdout::outln;
use std::path::Path;
use std::process::Command;

/// One instance: every property of it is computed in one run.
struct Row {
    name: &'static str,
    /// From the repository root.
    file: &'static str,
    externs: &'static [&'static str],
    fair: bool,
    /// The wall-time target of the run, in seconds.
    target_seconds: f64,
}

/// The instances of the targets: approximate majority and leader with 7 agents, every
/// property within a minute; flock (3 birds on 5×5, δ 5), free and round-robin, within ten
/// minutes each.
const ROWS: &[Row] = &[
    Row {
        name: "majority",
        file: "examples/majority.labs",
        externs: &["yes=3", "no=4"],
        fair: false,
        target_seconds: 60.0,
    },
    Row { name: "leader7", file: "benchmarks/leader.labs", externs: &["n=7"], fair: false, target_seconds: 60.0 },
    Row {
        name: "flock",
        file: "benchmarks/flock.labs",
        externs: &["birds=3", "grid=5", "delta=5"],
        fair: false,
        target_seconds: 600.0,
    },
    Row {
        name: "flock-rr",
        file: "benchmarks/flock.labs",
        externs: &["birds=3", "grid=5", "delta=5"],
        fair: true,
        target_seconds: 600.0,
    },
];

/// `--quick`: the same systems at sizes that take a second or less.
const QUICK_ROWS: &[Row] = &[
    Row {
        name: "majority",
        file: "examples/majority.labs",
        externs: &["yes=1", "no=2"],
        fair: false,
        target_seconds: 60.0,
    },
    Row { name: "leader3", file: "benchmarks/leader.labs", externs: &["n=3"], fair: false, target_seconds: 60.0 },
    Row {
        name: "flock",
        file: "benchmarks/flock.labs",
        externs: &["birds=2", "grid=3", "delta=1"],
        fair: false,
        target_seconds: 60.0,
    },
    Row {
        name: "flock-rr",
        file: "benchmarks/flock.labs",
        externs: &["birds=2", "grid=3", "delta=1"],
        fair: true,
        target_seconds: 60.0,
    },
];

/// The widest interval a row may have.
const WIDTH: f64 = 1e-6;

/// Each command's bounds: a run that hits them fails the row.
const TIMEOUT_SECONDS: &str = "1800";

/// The memory target: the probability run's peak over the exhaustive run's.
const MEMORY_RATIO: f64 = 1.5;

/// `labs verify` on `row` with `extra` arguments: its JSON document, seconds and peak MiB.
fn verify(
    labs: &Path,
    root: &Path,
    row: &Row,
    threads: usize,
    extra: &[&str],
) -> Result<(serde_json::Value, f64, f64), String> {
    let mut cmd = Command::new(labs);
    cmd.arg("verify").arg(root.join(row.file)).args(row.externs);
    cmd.args(["--json", "-q", "--threads", &threads.to_string(), "--timeout", TIMEOUT_SECONDS]).args(extra);
    if row.fair {
        cmd.arg("--fair");
    }
    let m = measure(&mut cmd)?;
    if !m.ok {
        return Err(m.stderr.lines().next().unwrap_or("failed").to_string());
    }
    let doc: serde_json::Value = serde_json::from_slice(&m.stdout).map_err(|e| e.to_string())?;
    if let Some(stop) = doc["stopped"].as_str() {
        return Err(format!("stopped: {stop}"));
    }
    Ok((doc, m.seconds, m.peak_mib))
}

/// An interval `{"lower", "upper"}` of the JSON document.
fn interval(v: &serde_json::Value) -> Option<(f64, f64)> {
    Some((v["lower"].as_f64()?, v["upper"].as_f64()?))
}

/// The expected steps as the table shows them: the middle of the interval, `infinite` (with
/// the expected steps of the runs that reach ψ), or `—` (not a `finally` property).
fn steps_text(r: &serde_json::Value) -> String {
    let one = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => Some(s.clone()),
        v => interval(v).map(|(lo, hi)| format!("{:.6}", (lo + hi) / 2.0)),
    };
    match (one(&r["expected_steps"]), one(&r["expected_steps_if_reached"])) {
        (Some(e), Some(c)) if e == "infinite" => format!("infinite ({c} if reached)"),
        (Some(e), _) => e,
        (None, _) => "—".into(),
    }
}

/// Prints the table; returns the rows that failed (a run that failed or stopped, an interval
/// wider than `WIDTH`, a probability not computed).
pub fn probability_table(labs: &Path, threads: usize, quick: bool) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    outln!(
        "labs verify --probability (precision 1e-6), {threads} thread(s), one run each, its own process; beside it \
         the peak memory of `verify --exhaustive` on the same instance (target: at most {MEMORY_RATIO}x); seconds and \
         peak MiB are the run's, shared by its properties\n"
    );
    outln!(
        "| system | externs | fair | property | verdict | probability [interval] | width | expected steps | sweeps | \
         seconds | peak MiB | exhaustive MiB | ratio | states | targets |"
    );
    outln!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut failures = vec![];
    for row in if quick { QUICK_ROWS } else { ROWS } {
        let externs = row.externs.join(" ");
        let fair = if row.fair { "yes" } else { "no" };
        let runs = verify(labs, root, row, threads, &["--probability"]).and_then(|p| {
            let e = verify(labs, root, row, threads, &["--exhaustive"]).map_err(|e| format!("--exhaustive: {e}"))?;
            Ok((p, e))
        });
        let ((doc, seconds, peak), (_, _, exhaustive_peak)) = match runs {
            Ok(r) => r,
            Err(e) => {
                outln!("| {} | {externs} | {fair} | failed: {e} |", row.name);
                failures.push(format!("{} {externs}: {e}", row.name));
                continue;
            }
        };
        let states = doc["stats"]["states"].as_u64().unwrap_or(0);
        let ratio = peak / exhaustive_peak.max(1.0);
        let mut targets = vec![];
        if !quick {
            if seconds > row.target_seconds {
                targets.push(format!("over {} s", row.target_seconds));
            }
            if ratio > MEMORY_RATIO {
                targets.push(format!("memory over {MEMORY_RATIO}x"));
            }
        }
        let targets = if quick {
            "—".to_string()
        } else if targets.is_empty() {
            "met".to_string()
        } else {
            targets.join(", ")
        };
        for r in doc["results"].as_array().into_iter().flatten() {
            let property = r["property"].as_str().unwrap_or("?");
            let (prob, width) = match interval(&r["probability"]) {
                Some((lo, hi)) => {
                    let w = hi - lo;
                    if w > WIDTH || r["probability_converged"] != true {
                        failures.push(format!(
                            "{} {externs}: {property}: interval [{lo}, {hi}] wider than {WIDTH}",
                            row.name
                        ));
                    }
                    // `+ 0.0`: a bound of -0 (one minus one) prints as 0.
                    (format!("{:.6} [{:.7}, {:.7}]", (lo + hi) / 2.0 + 0.0, lo + 0.0, hi + 0.0), format!("{w:.1e}"))
                }
                None => {
                    let why = r["probability_note"].as_str().unwrap_or("no probability");
                    failures.push(format!("{} {externs}: {property}: {why}", row.name));
                    (format!("not computed: {why}"), "—".into())
                }
            };
            outln!(
                "| {} | {externs} | {fair} | {property} | {} | {prob} | {width} | {} | {} | {seconds:.1} | {peak:.0} | \
                 {exhaustive_peak:.0} | {ratio:.2} | {states} | {targets} |",
                row.name,
                r["verdict"].as_str().unwrap_or("?"),
                steps_text(r),
                r["probability_sweeps"].as_u64().unwrap_or(0),
            );
        }
    }
    failures
}
