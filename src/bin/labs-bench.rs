//! The benchmark: runs the published instances of `../shared/benchmarks/README.md` with the
//! native engine and prints one table (system, externs, fair, property, verdict, states,
//! transitions, seconds, peak memory, states/s per thread), then the value-analysis table
//! (abstract vs reached values per spec, analysis time).
//!
//! Each instance runs in its own `labs verify --json` process, so peak memory is per instance.
//!
//! Usage: `cargo run --release --bin labs-bench -- [--quick] [--threads N] [--shared DIR]`

use labs::analysis::values::analyse;
use labs::behaviour::compile_all;
use labs::engine::reachable_values;
use labs::model::externs::parse_externs;
use labs::model::{Store, resolve};
use labs::syntax::parse;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

struct Instance {
    name: &'static str,
    file: &'static str,
    externs: &'static [&'static str],
    fair: bool,
    property: &'static str,
    /// The VMCAI 2023 compositional time (s), a cross-machine anchor; 0 when not published.
    paper_seconds: f64,
    heavy: bool,
}

const INSTANCES: &[Instance] = &[
    Instance {
        name: "flock-rr",
        file: "flock.labs",
        externs: &["birds=3", "grid=5", "delta=5"],
        fair: true,
        property: "Consensus",
        paper_seconds: 4461.0,
        heavy: true,
    },
    Instance {
        name: "flock",
        file: "flock.labs",
        externs: &["birds=3", "grid=5", "delta=5"],
        fair: false,
        property: "Consensus",
        paper_seconds: 4071.0,
        heavy: true,
    },
    Instance {
        name: "formation-rr",
        file: "formation.labs",
        externs: &["n=3", "size=10", "range=2"],
        fair: true,
        property: "P1",
        paper_seconds: 2511.0,
        heavy: false,
    },
    Instance {
        name: "leader5",
        file: "leader.labs",
        externs: &["n=5"],
        fair: false,
        property: "LeaderIs0",
        paper_seconds: 34.0,
        heavy: false,
    },
    Instance {
        name: "leader6",
        file: "leader.labs",
        externs: &["n=6"],
        fair: false,
        property: "LeaderIs0",
        paper_seconds: 104.0,
        heavy: false,
    },
    Instance {
        name: "leader7",
        file: "leader.labs",
        externs: &["n=7"],
        fair: false,
        property: "LeaderIs0",
        paper_seconds: 374.0,
        heavy: false,
    },
    Instance {
        name: "twophase2",
        file: "twophase.labs",
        externs: &["workers=2"],
        fair: false,
        property: "InfCommits",
        paper_seconds: 67.0,
        heavy: false,
    },
    Instance {
        name: "twophase3",
        file: "twophase.labs",
        externs: &["workers=3"],
        fair: false,
        property: "InfCommits",
        paper_seconds: 233.0,
        heavy: false,
    },
    Instance {
        name: "philosophers5",
        file: "philosophers.labs",
        externs: &["n=5"],
        fair: false,
        property: "P1",
        paper_seconds: 0.0,
        heavy: false,
    },
    Instance {
        name: "twophasecommit3",
        file: "twophasecommit.labs",
        externs: &["workers=3"],
        fair: false,
        property: "NeverRollback",
        paper_seconds: 0.0,
        heavy: false,
    },
];

struct Options {
    quick: bool,
    threads: usize,
    shared: PathBuf,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        quick: false,
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        shared: Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--quick" => o.quick = true,
            "--threads" => {
                o.threads = args.next().and_then(|v| v.parse().ok()).ok_or("--threads needs a number")?;
            }
            "--shared" => o.shared = PathBuf::from(args.next().ok_or("--shared needs a directory")?),
            "--bench" => {} // passed by `cargo bench`
            other => return Err(format!("unknown argument `{other}` (use --quick, --threads N, --shared DIR)")),
        }
    }
    Ok(o)
}

/// The `labs` binary built beside this one.
fn labs_binary() -> PathBuf {
    let me = std::env::current_exe().expect("own path");
    me.with_file_name(if cfg!(windows) { "labs.exe" } else { "labs" })
}

fn main() {
    let o = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let labs = labs_binary();
    if !labs.exists() {
        eprintln!("error: {} not found: build it first (`cargo build --release`)", labs.display());
        std::process::exit(2);
    }
    println!("native engine, {} thread(s); peak memory per instance (separate processes)\n", o.threads);
    println!(
        "| {:<15} | {:<22} | {:<4} | {:<13} | {:<8} | {:>10} | {:>11} | {:>8} | {:>9} | {:>15} |",
        "system",
        "externs",
        "fair",
        "property",
        "verdict",
        "states",
        "transitions",
        "seconds",
        "peak MiB",
        "states/s/thread"
    );
    println!(
        "|{}|",
        ["-"; 10]
            .iter()
            .zip([17, 24, 6, 15, 10, 12, 13, 10, 11, 17])
            .map(|(_, w)| "-".repeat(w))
            .collect::<Vec<_>>()
            .join("|")
    );
    let mut total = 0.0;
    let mut paper_total = 0.0;
    for i in INSTANCES {
        if o.quick && i.heavy {
            continue;
        }
        let file = o.shared.join("benchmarks").join(i.file);
        let mut cmd = Command::new(&labs);
        cmd.arg("verify").arg(&file).args(i.externs).args(["--property", i.property, "--json", "-q"]);
        cmd.args(["--threads", &o.threads.to_string()]);
        if i.fair {
            cmd.arg("--fair");
        }
        let start = Instant::now();
        let out = cmd.output().expect("run labs");
        let wall = start.elapsed().as_secs_f64();
        let doc: serde_json::Value = match serde_json::from_slice(&out.stdout) {
            Ok(d) => d,
            Err(_) => {
                println!(
                    "| {:<15} | failed: {}",
                    i.name,
                    String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("")
                );
                continue;
            }
        };
        let st = &doc["stats"];
        let states = st["states"].as_u64().unwrap_or(0);
        let secs = st["seconds"].as_f64().unwrap_or(wall);
        let rate = if secs > 0.0 { states as f64 / secs / o.threads as f64 } else { 0.0 };
        total += wall;
        if i.paper_seconds > 0.0 {
            paper_total += i.paper_seconds;
        }
        println!(
            "| {:<15} | {:<22} | {:<4} | {:<13} | {:<8} | {:>10} | {:>11} | {:>8.2} | {:>9} | {:>15.0} |",
            i.name,
            i.externs.join(" "),
            if i.fair { "yes" } else { "no" },
            i.property,
            doc["results"][0]["verdict"].as_str().unwrap_or("?"),
            states,
            st["transitions"].as_u64().unwrap_or(0),
            wall,
            st["peak_rss_mib"].as_u64().unwrap_or(0),
            rate
        );
    }
    if paper_total > 0.0 && !o.quick {
        println!(
            "\ntotal {:.1} s for the VMCAI 2023 instances; paper's CADP compositional total {:.0} s (cross-machine): {:.0}x",
            total,
            paper_total,
            paper_total / total.max(1e-9)
        );
    }
    values_table(&o);
}

/// Per spec: how many values the analysis allows vs how many the engine reaches.
fn values_table(o: &Options) {
    println!(
        "\nvalue analysis (tightness: values allowed by the analysis / values reached, summed over variables and agent types)\n"
    );
    println!(
        "| {:<20} | {:<30} | {:>12} | {:>10} | {:>10} | {:>12} |",
        "spec", "externs", "analysis ms", "abstract", "reached", "widened vars"
    );
    println!("|{}|", [22, 32, 14, 12, 12, 14].iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>().join("|"));
    // (file, externs, fair): reached values come from the round-robin state space where the
    // free one is too large to enumerate here (a subset of it: tightness is then approximate).
    let specs: &[(&str, &[&str], bool)] = &[
        ("flock.labs", &["birds=3", "grid=5", "delta=5"], true),
        ("formation.labs", &["n=3", "size=10", "range=2"], true),
        ("leader.labs", &["n=5"], false),
        ("philosophers.labs", &["n=5"], false),
        ("twophase.labs", &["workers=3"], false),
        ("twophasecommit.labs", &["workers=3"], false),
    ];
    for (file, externs, fair) in specs {
        let path = o.shared.join("benchmarks").join(file);
        let Ok(src) = std::fs::read_to_string(&path) else { continue };
        let Some(spec) = parse(&src).spec else { continue };
        let Ok((model, _)) = resolve(&spec, &src, &parse_externs(externs).unwrap_or_default()) else { continue };
        let Ok((behs, _)) = compile_all(&model) else { continue };
        let start = Instant::now();
        let a = analyse(&model, &behs);
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        let abstract_count: u64 = a
            .sets
            .values()
            .map(|s| s.cardinality().unwrap_or(u64::MAX / 1024).saturating_add(u64::from(s.contains_undef())))
            .sum();
        let reached = if o.quick && file.starts_with("flock") {
            "skipped".to_string()
        } else {
            match reachable_values(&model, &behs, *fair, Some(30_000_000)) {
                Some(r) => {
                    // Soundness check on the way: every reached value is allowed.
                    for ((v, t), vals) in &r {
                        let key_t = if model.vars[*v].store == Store::Env { None } else { *t };
                        let set = a.get(*v, key_t);
                        for x in vals {
                            let ok = set.is_some_and(|s| match x {
                                Some(x) => s.contains(*x),
                                None => s.contains_undef(),
                            });
                            if !ok {
                                eprintln!("UNSOUND: {} value {x:?} not in the analysis", model.vars[*v].name);
                            }
                        }
                    }
                    r.values().map(|s| s.len() as u64).sum::<u64>().to_string()
                }
                None => "too many states".to_string(),
            }
        };
        println!(
            "| {:<20} | {:<30} | {:>12.2} | {:>10} | {:>10} | {:>12} |",
            file,
            format!("{}{}", externs.join(" "), if *fair { " --fair" } else { "" }),
            ms,
            abstract_count,
            reached,
            a.widened.len()
        );
    }
}
