//! `labs-bench --reduction-table`: each instance verified with the default symmetry reduction
//! and with `--no-reduction`, side by side: states, seconds and peak memory, and the verdicts,
//! which must be the same.

use labs::stdout::outln;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// (name, file in `benchmarks/` or from the repository root, externs, fair, heavy).
const ROWS: &[(&str, &str, &[&str], bool, bool)] = &[
    ("flock", "benchmarks/flock.labs", &["birds=3", "grid=5", "delta=5"], false, true),
    ("flock-rr", "benchmarks/flock.labs", &["birds=3", "grid=5", "delta=5"], true, true),
    ("flock4", "benchmarks/flock.labs", &["birds=4", "grid=3", "delta=2"], false, true),
    ("flock 3x3", "benchmarks/flock.labs", &["birds=3", "grid=3", "delta=2"], false, false),
    ("majority", "examples/majority.labs", &["yes=3", "no=4"], false, false),
    ("twophase (ex.)", "examples/twophase.labs", &["workers=5"], false, false),
    ("counter", "examples/counter.labs", &["n=6", "atomic=0"], false, false),
    ("leader9", "benchmarks/leader.labs", &["n=9"], false, true),
    ("leader7", "benchmarks/leader.labs", &["n=7"], false, false),
    ("twophase4", "benchmarks/twophase.labs", &["workers=4"], false, false),
    ("philosophers5", "benchmarks/philosophers.labs", &["n=5"], false, false),
];

/// Bounds of one run: a row that hits them shows `stopped` instead of a verdict.
const TIMEOUT_SECONDS: &str = "900";
const MEMORY_MIB: &str = "16000";

struct Run {
    states: u64,
    seconds: f64,
    mib: u64,
    verdicts: String,
    reduction: Option<String>,
}

/// `labs verify FILE EXTERNS --json -q`, with `--fair` and `--no-reduction` as asked and
/// `extra` arguments (the table's bounds among them): its JSON document and wall-clock seconds.
#[allow(clippy::too_many_arguments)]
pub fn verify_json(
    labs: &Path,
    root: &Path,
    file: &str,
    externs: &[&str],
    fair: bool,
    threads: usize,
    reduce: bool,
    extra: &[&str],
) -> Result<(serde_json::Value, f64), String> {
    let mut cmd = Command::new(labs);
    cmd.arg("verify").arg(root.join(file)).args(externs).args(["--json", "-q", "--threads", &threads.to_string()]);
    cmd.args(extra);
    if fair {
        cmd.arg("--fair");
    }
    if !reduce {
        cmd.arg("--no-reduction");
    }
    let start = Instant::now();
    let out = cmd.output().map_err(|e| e.to_string())?;
    let seconds = start.elapsed().as_secs_f64();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|_| String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("no output").to_string())?;
    Ok((doc, seconds))
}

fn run(
    labs: &Path,
    root: &Path,
    file: &str,
    externs: &[&str],
    fair: bool,
    threads: usize,
    reduce: bool,
) -> Result<Run, String> {
    let bounds = ["--timeout", TIMEOUT_SECONDS, "--memory", MEMORY_MIB];
    let (doc, seconds) = verify_json(labs, root, file, externs, fair, threads, reduce, &bounds)?;
    let st = &doc["stats"];
    let verdicts = if doc["stopped"].is_string() {
        format!("stopped ({})", doc["stopped"].as_str().unwrap_or("?"))
    } else {
        let rs = doc["results"].as_array().cloned().unwrap_or_default();
        rs.iter().map(|r| r["verdict"].as_str().unwrap_or("?").to_string()).collect::<Vec<_>>().join(" ")
    };
    Ok(Run {
        states: st["states"].as_u64().unwrap_or(0),
        seconds,
        mib: st["peak_rss_mib"].as_u64().unwrap_or(0),
        verdicts,
        reduction: st["reduction"].as_str().map(String::from),
    })
}

/// Prints the table; returns the rows whose verdicts differ or that failed.
pub fn reduction_table(labs: &Path, threads: usize, quick: bool) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut failures = vec![];
    outln!(
        "symmetry reduction: each instance with the default reduction and with --no-reduction, {threads} thread(s), \
         one run each, bounds {TIMEOUT_SECONDS} s and {MEMORY_MIB} MiB\n"
    );
    outln!(
        "| system | externs | fair | reduced types | states | reduced states | ratio | seconds | reduced s | MiB | reduced MiB | verdicts |"
    );
    outln!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for &(name, file, externs, fair, heavy) in ROWS {
        if quick && heavy {
            continue;
        }
        let (full, red) = match (
            run(labs, root, file, externs, fair, threads, false),
            run(labs, root, file, externs, fair, threads, true),
        ) {
            (Ok(f), Ok(r)) => (f, r),
            (Err(e), _) | (_, Err(e)) => {
                outln!("| {name} | failed: {e} |");
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let decided = !full.verdicts.starts_with("stopped") && !red.verdicts.starts_with("stopped");
        if decided && full.verdicts != red.verdicts {
            failures.push(format!("{name}: {} with the reduction, {} without", red.verdicts, full.verdicts));
        }
        let what =
            red.reduction.as_deref().map_or("none", |r| r.trim_start_matches("symmetry (").trim_end_matches(')'));
        let verdicts = if full.verdicts == red.verdicts {
            full.verdicts.clone()
        } else {
            format!("{} / {}", full.verdicts, red.verdicts)
        };
        outln!(
            "| {name} | {} | {} | {what} | {} | {} | {:.2} | {:.1} | {:.1} | {} | {} | {verdicts} |",
            externs.join(" "),
            if fair { "yes" } else { "no" },
            full.states,
            red.states,
            full.states as f64 / red.states.max(1) as f64,
            full.seconds,
            red.seconds,
            full.mib,
            red.mib,
        );
    }
    failures
}
