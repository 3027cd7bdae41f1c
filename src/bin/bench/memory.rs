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

/// One instance of the table.
struct Row {
    name: &'static str,
    /// From the repository root.
    file: &'static str,
    externs: &'static [&'static str],
    /// The property checked (`None`: all of them).
    property: Option<&'static str>,
}

/// flock is measured twice: with its linear-time property, whose search keeps a mark per
/// state and automaton state, and with its `finally` property alone.
const ROWS: &[Row] = &[
    Row { name: "philosophers9", file: "benchmarks/philosophers.labs", externs: &["n=9"], property: None },
    Row { name: "leader9", file: "benchmarks/leader.labs", externs: &["n=9"], property: None },
    Row { name: "flock", file: "benchmarks/flock.labs", externs: &["birds=3", "grid=5", "delta=5"], property: None },
    Row {
        name: "flock",
        file: "benchmarks/flock.labs",
        externs: &["birds=3", "grid=5", "delta=5"],
        property: Some("Consensus"),
    },
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

fn run(labs: &Path, root: &Path, row: &Row, threads: usize, reduce: bool) -> Result<Run, String> {
    let mut extra = vec![
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
    if let Some(p) = row.property {
        extra.extend(["--property", p]);
    }
    let (doc, seconds) =
        super::reduction::verify_json(labs, root, row.file, row.externs, false, threads, reduce, &extra)?;
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
        "| system | externs | properties | reduction | states | state bytes | store MiB | store B/state | peak MiB | peak B/state | seconds |"
    );
    outln!("|---|---|---|---|---|---|---|---|---|---|---|");
    for row in ROWS {
        let name = row.name;
        for reduce in [false, true] {
            let r = match run(labs, root, row, threads, reduce) {
                Ok(r) => r,
                Err(e) => {
                    outln!("| {name} | failed: {e} |");
                    failures.push(format!("{name}: {e}"));
                    continue;
                }
            };
            let per = |bytes: f64| bytes / r.states.max(1) as f64;
            outln!(
                "| {name} | {} | {} | {} | {}{} | {} | {:.0} | {:.1} | {} | {:.1} | {:.1} |",
                row.externs.join(" "),
                row.property.unwrap_or("all"),
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
