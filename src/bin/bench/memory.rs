//! `labs-bench --memory-table`: what a whole exploration costs in memory, per instance, with
//! and without symmetry reduction: states, bytes per packed state, the store (arena and
//! index), peak resident memory per state (the process's, so everything the run holds), and
//! wall time. Every state is explored (`--exhaustive`), so the figures are of the whole state
//! space, not of the part explored before a violation decided the run; no successor list is
//! kept (`--edges recompute`) and the store is compact from the start (`--store compact`),
//! so the memory is the store's and the checks' marks, which is what a run whose memory is
//! short holds.

use labs::stdout::outln;
use std::path::Path;

/// (name, file from the repository root, externs, fair).
const ROWS: &[(&str, &str, &[&str], bool)] = &[
    ("philosophers9", "benchmarks/philosophers.labs", &["n=9"], false),
    ("leader9", "benchmarks/leader.labs", &["n=9"], false),
    ("flock", "benchmarks/flock.labs", &["birds=3", "grid=5", "delta=5"], false),
];

/// Bounds of one run: a row that hits them says `stopped`.
const TIMEOUT_SECONDS: &str = "1800";
const MEMORY_MIB: &str = "16000";

/// One run's figures, from `labs verify --json`.
struct Run {
    states: u64,
    state_bytes: u64,
    store_bytes: u64,
    peak_mib: u64,
    seconds: f64,
    stopped: Option<String>,
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
    let extra = [
        "--exhaustive",
        "--edges",
        "recompute",
        "--store",
        "compact",
        "--timeout",
        TIMEOUT_SECONDS,
        "--memory",
        MEMORY_MIB,
    ];
    let (doc, seconds) = super::reduction::verify_json(labs, root, file, externs, fair, threads, reduce, &extra)?;
    let st = &doc["stats"];
    let n = |k: &str| st[k].as_u64().unwrap_or(0);
    Ok(Run {
        states: n("states"),
        state_bytes: n("state_bytes"),
        store_bytes: n("store_bytes"),
        peak_mib: n("peak_rss_mib"),
        seconds,
        stopped: doc["stopped"].as_str().map(String::from),
    })
}

/// Prints the table; returns the rows that failed.
pub fn memory_table(labs: &Path, threads: usize) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut failures = vec![];
    outln!(
        "memory of a whole exploration (--exhaustive --edges recompute --store compact), {threads} thread(s), one run \
         each, bounds \
         {TIMEOUT_SECONDS} s and {MEMORY_MIB} MiB; peak memory is the process's (VmHWM)\n"
    );
    outln!(
        "| system | externs | reduction | states | state bytes | store MiB | store B/state | peak MiB | peak B/state | seconds |"
    );
    outln!("|---|---|---|---|---|---|---|---|---|---|");
    for &(name, file, externs, fair) in ROWS {
        for reduce in [false, true] {
            let r = match run(labs, root, file, externs, fair, threads, reduce) {
                Ok(r) => r,
                Err(e) => {
                    outln!("| {name} | failed: {e} |");
                    failures.push(format!("{name}: {e}"));
                    continue;
                }
            };
            let per = |bytes: f64| bytes / r.states.max(1) as f64;
            outln!(
                "| {name} | {} | {} | {}{} | {} | {:.0} | {:.1} | {} | {:.1} | {:.1} |",
                externs.join(" "),
                if reduce { "default" } else { "none" },
                r.states,
                r.stopped.as_deref().map_or(String::new(), |s| format!(" (stopped: {s})")),
                r.state_bytes,
                r.store_bytes as f64 / (1 << 20) as f64,
                per(r.store_bytes as f64),
                r.peak_mib,
                per((r.peak_mib << 20) as f64),
                r.seconds,
            );
        }
    }
    failures
}
