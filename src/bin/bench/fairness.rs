//! `labs-bench --fairness-table`: the linear-time checks under the fairness assumptions of
//! `labs verify --fairness` (docs/semantics.md, D15) next to the free check of the same
//! property on the same state space: verdicts, states, seconds, peak memory, and each time as
//! a multiple of the free check's. Every notion keeps the symmetry reduction (weak and strong
//! fairness follow each agent through its permutations), and so does the free baseline, which
//! runs with `--exhaustive` (the whole graph, as the fair checks read it), not stopped on the
//! fly.

use crate::reduction::verify_json;
use labs::stdout::outln;
use std::path::Path;

/// One row: the instance, the property, `--fairness` (`None`: free), whether the reduction is
/// on, and the verdict expected (hand-derived, below).
struct Row {
    name: &'static str,
    file: &'static str,
    externs: &'static [&'static str],
    property: &'static str,
    fairness: Option<&'static str>,
    reduce: bool,
    expected: &'static str,
    heavy: bool,
}

/// The philosophers' liveness properties, added to the benchmark's `check` section.
const PHIL_PROPERTIES: &str = "    Live = always finally status of 0 = 2\n    \
     Release = always (status of 0 = 2 implies finally status of 0 = 0)\n";

// The verdicts expected. Flock's `Consensus`: violated free (one bird alone flies forever)
// and under weak fairness (a loop in which every bird moves and they keep disagreeing: the
// counterexample shows it, checked fair by replay), and it holds almost surely (every bottom
// component of the chain agrees). Philosophers: `Live` is violated free and under weak
// fairness (all take their left fork: a deadlock, fair under every notion); `Release` is
// violated free (the others run while philosopher 0 holds both forks) and holds under weak and
// strong fairness (a philosopher holding both forks is enabled until it has put them down:
// its remaining steps have no guard).
const ROWS: &[Row] = &[
    Row {
        name: "flock",
        file: "benchmarks/flock.labs",
        externs: FLOCK,
        property: "Consensus",
        fairness: None,
        reduce: true,
        expected: "violated",
        heavy: true,
    },
    Row {
        name: "flock",
        file: "benchmarks/flock.labs",
        externs: FLOCK,
        property: "Consensus",
        fairness: Some("almost-sure"),
        reduce: true,
        expected: "holds",
        heavy: true,
    },
    Row {
        name: "flock",
        file: "benchmarks/flock.labs",
        externs: FLOCK,
        property: "Consensus",
        fairness: Some("weak"),
        reduce: true,
        expected: "violated",
        heavy: true,
    },
    Row {
        name: "philosophers7",
        file: PHIL,
        externs: &["n=7"],
        property: "Live",
        fairness: None,
        reduce: false,
        expected: "violated",
        heavy: true,
    },
    Row {
        name: "philosophers7",
        file: PHIL,
        externs: &["n=7"],
        property: "Live",
        fairness: Some("weak"),
        reduce: false,
        expected: "violated",
        heavy: true,
    },
    Row {
        name: "philosophers7",
        file: PHIL,
        externs: &["n=7"],
        property: "Release",
        fairness: None,
        reduce: false,
        expected: "violated",
        heavy: true,
    },
    Row {
        name: "philosophers7",
        file: PHIL,
        externs: &["n=7"],
        property: "Release",
        fairness: Some("weak"),
        reduce: false,
        expected: "holds",
        heavy: true,
    },
    Row {
        name: "philosophers5",
        file: PHIL,
        externs: &["n=5"],
        property: "Release",
        fairness: None,
        reduce: false,
        expected: "violated",
        heavy: false,
    },
    Row {
        name: "philosophers5",
        file: PHIL,
        externs: &["n=5"],
        property: "Release",
        fairness: Some("weak"),
        reduce: false,
        expected: "holds",
        heavy: false,
    },
    Row {
        name: "philosophers5",
        file: PHIL,
        externs: &["n=5"],
        property: "Release",
        fairness: Some("strong"),
        reduce: false,
        expected: "holds",
        heavy: false,
    },
];

const FLOCK: &[&str] = &["_birds=3", "_grid=5", "_delta=5"];
const PHIL: &str = "benchmarks/philosophers.labs";

/// Prints the table (`quick`: philosophers n=5 only); returns the rows that failed, with why.
pub fn fairness_table(labs: &Path, threads: usize, quick: bool) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("labs-bench-fairness-{}", std::process::id()));
    let mut failures = Vec::new();
    let phil = match phil_with_liveness(root, &dir) {
        Ok(p) => p,
        Err(e) => return vec![e],
    };
    outln!(
        "fairness assumptions (`labs verify --fairness`), {threads} thread(s); the free baselines with --exhaustive, on the same space (reduced or not) as the fair check; x free: seconds / the free check's\n"
    );
    outln!(
        "| {:<13} | {:<9} | {:<11} | {:<9} | {:<8} | {:>10} | {:>8} | {:>8} | {:>6} |",
        "system",
        "property",
        "fairness",
        "reduction",
        "verdict",
        "states",
        "seconds",
        "peak MiB",
        "x free"
    );
    outln!("|{}|", [15, 11, 13, 11, 10, 12, 10, 10, 8].iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>().join("|"));
    // The free check's seconds of the last free row (same instance, property and reduction).
    let mut free: Option<(&str, &str, bool, f64)> = None;
    for r in ROWS.iter().filter(|r| !quick || !r.heavy) {
        let file = if r.file == PHIL { phil.to_str().unwrap_or(PHIL) } else { r.file };
        let mut extra = vec!["--property", r.property, "--timeout", "1800", "--memory", "16000"];
        match r.fairness {
            Some(f) => extra.extend(["--fairness", f]),
            None => extra.push("--exhaustive"),
        }
        let (doc, seconds) = match verify_json(labs, root, file, r.externs, false, threads, r.reduce, &extra) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{} {} {:?}: {e}", r.name, r.property, r.fairness));
                continue;
            }
        };
        let verdict = doc["results"][0]["verdict"].as_str().unwrap_or("?").to_string();
        let states = doc["stats"]["states"].as_u64().unwrap_or(0);
        let mib = doc["stats"]["peak_rss_mib"].as_f64().unwrap_or(0.0);
        if r.fairness.is_none() {
            free = Some((r.name, r.property, r.reduce, seconds));
        }
        let ratio = match free {
            Some((n, p, red, s)) if n == r.name && p == r.property && red == r.reduce => format!("{:.2}", seconds / s),
            _ => "-".into(),
        };
        outln!(
            "| {:<13} | {:<9} | {:<11} | {:<9} | {:<8} | {:>10} | {:>8.2} | {:>8.0} | {:>6} |",
            r.name,
            r.property,
            r.fairness.unwrap_or("free"),
            if r.reduce { "symmetry" } else { "none" },
            verdict,
            states,
            seconds,
            mib,
            ratio
        );
        if verdict != r.expected {
            failures.push(format!(
                "{} {} ({}): {verdict}, known to be {}",
                r.name,
                r.property,
                r.fairness.unwrap_or("free"),
                r.expected
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    failures
}

/// benchmarks/philosophers.labs with the liveness properties `Live` and `Release` added to
/// its `check` section, written into `dir`.
fn phil_with_liveness(root: &Path, dir: &Path) -> Result<std::path::PathBuf, String> {
    let path = root.join(PHIL);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let at = text.rfind("check {").ok_or_else(|| format!("{}: no check section", path.display()))?;
    let with = format!("{}check {{\n{PHIL_PROPERTIES}{}", &text[..at], &text[at + "check {".len()..]);
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let out = dir.join("philosophers.labs");
    std::fs::write(&out, with).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(out)
}
