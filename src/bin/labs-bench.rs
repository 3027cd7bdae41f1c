//! The benchmark: runs the published instances of `benchmarks/README.md` with the native
//! engine and prints one table (system, externs, fair, property, verdict, states, transitions,
//! seconds, peak memory, states/s per thread), then the value-analysis table (abstract vs
//! reached values per spec, analysis time). See `USAGE` for the options.
//!
//! Each instance runs in its own `labs verify --json` process, so peak memory is per instance.
//! An instance fails when `labs` fails or its verdict is not the known one; the benchmark then
//! lists the failures on stderr and exits with 1, so a regression cannot pass unnoticed.
//!
//! With `--lts-table`, prints instead the LTS sizes of the compositional workflow executed by
//! labs's LNT interpreter (`src/lntcheck/svl.rs`): every leaf of the emitted SVL script with
//! and without the value-analysis constraints, the whole `MAIN`, and the LTS each property's
//! block builds, before and after its reduction (with the verdict checked on it and the native
//! verdict, which must agree).
//!
//! Each instance runs `--runs N` times (default 3): "seconds" is the fastest run's, and
//! "states/s/thread" comes from the fastest exploration; an instance whose first run takes
//! over `LONG_RUN_SECONDS` runs once. The machine's noise is one-sided (a run is slowed, never
//! sped up), so the fastest run is the best estimate of the program's own speed.

use labs::analysis::values::analyse;
use labs::behaviour::compile_all;
use labs::engine::reachable_values;
use labs::lntcheck::svl::{self, Beh, Composer};
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
    /// The verdict expected (`benchmarks/README.md`, "Verdicts `labs-bench` expects").
    verdict: &'static str,
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
        verdict: "holds",
        paper_seconds: 4461.0,
        heavy: true,
    },
    Instance {
        name: "flock",
        file: "flock.labs",
        externs: &["birds=3", "grid=5", "delta=5"],
        fair: false,
        property: "Consensus",
        verdict: "violated",
        paper_seconds: 4071.0,
        heavy: true,
    },
    Instance {
        name: "formation-rr",
        file: "formation.labs",
        externs: &["n=3", "size=10", "range=2"],
        fair: true,
        property: "P1",
        verdict: "violated",
        paper_seconds: 2511.0,
        heavy: false,
    },
    Instance {
        name: "leader5",
        file: "leader.labs",
        externs: &["n=5"],
        fair: false,
        property: "LeaderIs0",
        verdict: "holds",
        paper_seconds: 34.0,
        heavy: false,
    },
    Instance {
        name: "leader6",
        file: "leader.labs",
        externs: &["n=6"],
        fair: false,
        property: "LeaderIs0",
        verdict: "holds",
        paper_seconds: 104.0,
        heavy: false,
    },
    Instance {
        name: "leader7",
        file: "leader.labs",
        externs: &["n=7"],
        fair: false,
        property: "LeaderIs0",
        verdict: "holds",
        paper_seconds: 374.0,
        heavy: false,
    },
    Instance {
        name: "twophase2",
        file: "twophase.labs",
        externs: &["workers=2"],
        fair: false,
        property: "InfCommits",
        verdict: "holds",
        paper_seconds: 67.0,
        heavy: false,
    },
    Instance {
        name: "twophase3",
        file: "twophase.labs",
        externs: &["workers=3"],
        fair: false,
        property: "InfCommits",
        verdict: "holds",
        paper_seconds: 233.0,
        heavy: false,
    },
    Instance {
        name: "philosophers5",
        file: "philosophers.labs",
        externs: &["n=5"],
        fair: false,
        property: "P1",
        verdict: "violated",
        paper_seconds: 0.0,
        heavy: false,
    },
    Instance {
        name: "twophasecommit3",
        file: "twophasecommit.labs",
        externs: &["workers=3"],
        fair: false,
        property: "NeverRollback",
        verdict: "holds",
        paper_seconds: 0.0,
        heavy: false,
    },
];

const USAGE: &str = "\
labs-bench: the native engine on the published benchmark instances

Usage: labs-bench [--quick] [--threads N] [--runs N] [--benchmarks DIR]
       labs-bench --lts-table [--benchmarks DIR]

Runs each instance of benchmarks/README.md in its own `labs verify --json` process (the
`labs` binary built beside this one) and prints one table: system, externs, fair, property,
verdict, states, transitions, seconds, peak memory, states/s per thread; then the
value-analysis table. Exits with 1 when an instance fails (an error, or a verdict other than
the known one), after listing the failures on stderr.

Options:
  --quick            skip the two flock instances (the others take a few seconds)
  --threads N        exploration threads (default: all cores)
  --runs N           runs per instance, the fastest reported (default 3; an instance whose
                     first run takes over 10 s runs once)
  --benchmarks DIR   where the .labs files are (default: the repository's benchmarks/)
  --lts-table        instead: the LTS sizes of the compositional SVL workflow run by labs's
                     LNT interpreter (docs/lntcheck.md)
  -h, --help         print this text
";

struct Options {
    quick: bool,
    lts_table: bool,
    threads: usize,
    runs: usize,
    benchmarks: PathBuf,
}

/// Instances whose first run takes longer are not repeated.
const LONG_RUN_SECONDS: f64 = 10.0;

/// The options, or `None` when `--help` asked for the usage text.
fn options(args: impl IntoIterator<Item = String>) -> Result<Option<Options>, String> {
    let mut o = Options {
        quick: false,
        lts_table: false,
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        runs: 3,
        benchmarks: Path::new(env!("CARGO_MANIFEST_DIR")).join("benchmarks"),
    };
    let mut args = args.into_iter();
    while let Some(a) = args.next() {
        match a.as_str() {
            "-h" | "--help" => return Ok(None),
            "--quick" => o.quick = true,
            "--lts-table" => o.lts_table = true,
            "--threads" => {
                o.threads = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or("--threads needs a positive number")?;
            }
            "--runs" => {
                o.runs = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or("--runs needs a positive number")?;
            }
            "--benchmarks" => o.benchmarks = PathBuf::from(args.next().ok_or("--benchmarks needs a directory")?),
            "--bench" => {} // passed by `cargo bench`
            other => return Err(format!("unknown argument `{other}` (see --help)")),
        }
    }
    if !o.benchmarks.is_dir() {
        return Err(format!("{}: no such directory (see --benchmarks)", o.benchmarks.display()));
    }
    Ok(Some(o))
}

/// The `labs` binary built beside this one.
fn labs_binary() -> PathBuf {
    let me = std::env::current_exe().expect("own path");
    me.with_file_name(if cfg!(windows) { "labs.exe" } else { "labs" })
}

fn main() {
    let o = match options(std::env::args().skip(1)) {
        Ok(Some(o)) => o,
        Ok(None) => {
            print!("{USAGE}");
            return;
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let failures = if o.lts_table {
        lts_table(&o)
    } else {
        let labs = labs_binary();
        if !labs.exists() {
            eprintln!("error: {} not found: build it first (`cargo build --release`)", labs.display());
            std::process::exit(2);
        }
        let mut failures = instances_table(&o, &labs);
        failures.extend(values_table(&o));
        failures
    };
    if !failures.is_empty() {
        eprintln!("\nerror: {} failure(s):", failures.len());
        for f in &failures {
            eprintln!("  {f}");
        }
        std::process::exit(1);
    }
}

/// The main table; returns the instances that failed, with why.
fn instances_table(o: &Options, labs: &Path) -> Vec<String> {
    println!(
        "native engine, {} thread(s); fastest of {} run(s) (runs over {LONG_RUN_SECONDS} s: one); peak memory per instance (separate processes)\n",
        o.threads, o.runs
    );
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
        [17, 24, 6, 15, 10, 12, 13, 10, 11, 17].iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>().join("|")
    );
    let mut failures = vec![];
    let mut total = 0.0;
    let mut paper_total = 0.0;
    'instances: for i in INSTANCES {
        if o.quick && i.heavy {
            continue;
        }
        let file = o.benchmarks.join(i.file);
        let mut cmd = Command::new(labs);
        cmd.arg("verify").arg(&file).args(i.externs).args(["--property", i.property, "--json", "-q"]);
        cmd.args(["--threads", &o.threads.to_string()]);
        if i.fair {
            cmd.arg("--fair");
        }
        // The fastest run (wall seconds, report), and the fastest exploration.
        let mut best: Option<(f64, serde_json::Value)> = None;
        let mut secs = f64::INFINITY;
        for run in 0..o.runs {
            let start = Instant::now();
            let out = match cmd.output() {
                Ok(out) => out,
                Err(e) => {
                    failures.push(format!("{}: cannot run {}: {e}", i.name, labs.display()));
                    continue 'instances;
                }
            };
            let wall = start.elapsed().as_secs_f64();
            let doc = serde_json::from_slice::<serde_json::Value>(&out.stdout).ok();
            // `labs verify` exits with 0 (holds) or 10 (violated) when it decides.
            let decided = matches!(out.status.code(), Some(0 | 10));
            let Some(doc) = doc.filter(|_| decided) else {
                let why = String::from_utf8_lossy(&out.stderr);
                let why = format!("{}, {}", out.status, why.lines().next().unwrap_or("no message"));
                println!("| {:<15} | failed: {why}", i.name);
                failures.push(format!("{}: {why}", i.name));
                continue 'instances;
            };
            secs = secs.min(doc["stats"]["exploration_seconds"].as_f64().unwrap_or(wall));
            if best.as_ref().is_none_or(|b| wall < b.0) {
                best = Some((wall, doc));
            }
            if run == 0 && wall > LONG_RUN_SECONDS {
                break;
            }
        }
        let (wall, doc) = best.expect("`--runs` is at least 1");
        let st = &doc["stats"];
        let states = st["states"].as_u64().unwrap_or(0);
        let rate = if secs > 0.0 { states as f64 / secs / o.threads as f64 } else { 0.0 };
        let verdict = doc["results"][0]["verdict"].as_str().unwrap_or("?");
        if verdict != i.verdict {
            failures.push(format!("{}: {} {verdict}, known to be {}", i.name, i.property, i.verdict));
        }
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
            verdict,
            states,
            st["transitions"].as_u64().unwrap_or(0),
            wall,
            st["peak_rss_mib"].as_u64().unwrap_or(0),
            rate
        );
    }
    if paper_total > 0.0 && !o.quick && failures.is_empty() {
        println!(
            "\ntotal {:.1} s for the VMCAI 2023 instances; paper's CADP compositional total {:.0} s (cross-machine): {:.0}x",
            total,
            paper_total,
            paper_total / total.max(1e-9)
        );
    }
    failures
}

/// Per spec: how many values the analysis allows vs how many the engine reaches. Returns the
/// specs that could not be analysed, and every reached value the analysis excludes.
fn values_table(o: &Options) -> Vec<String> {
    let mut failures = vec![];
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
        let path = o.benchmarks.join(file);
        let loaded = (|| {
            let src = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
            let spec = parse(&src).spec.ok_or("parse error")?;
            let externs = parse_externs(externs).map_err(|e| format!("{e:?}"))?;
            let (model, _) = resolve(&spec, &src, &externs).map_err(|e| format!("{e:?}"))?;
            let (behs, _) = compile_all(&model).map_err(|e| format!("{e:?}"))?;
            Ok::<_, String>((model, behs))
        })();
        let (model, behs) = match loaded {
            Ok(x) => x,
            Err(e) => {
                println!("| {file:<20} | failed: {e}");
                failures.push(format!("value analysis of {file}: {e}"));
                continue;
            }
        };
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
                                failures.push(format!(
                                    "value analysis of {file} is unsound: {} reaches {x:?}, which it excludes",
                                    model.vars[*v].name
                                ));
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
    failures
}

/// The compositional workflow's LTS sizes (see the module comment), on the repository's
/// benchmarks and examples at small parameters and on the test specifications with `pick` and
/// repeated remote reads. Returns the specs that failed and the properties whose verdict on the
/// composed LTS differs from the native one.
fn lts_table(o: &Options) -> Vec<String> {
    let mut failures = vec![];
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bench = o.benchmarks.clone();
    let examples = root.join("examples");
    let specs_dir = root.join("tests/specs");
    let cases = root.join("tests/cases");
    let specs: &[(&Path, &str, &[&str], bool)] = &[
        (&bench, "leader.labs", &["n=3"], false),
        (&bench, "philosophers.labs", &["n=3"], false),
        (&bench, "twophase.labs", &["workers=2"], false),
        (&bench, "twophasecommit.labs", &["workers=2"], false),
        (&bench, "flock.labs", &["birds=2", "delta=1", "grid=3"], false),
        (&bench, "flock.labs", &["birds=2", "delta=1", "grid=3"], true),
        (&bench, "formation.labs", &["n=2", "range=2", "size=3"], true),
        (&examples, "counter.labs", &["n=2", "atomic=0"], false),
        (&examples, "leader.labs", &["n=3"], false),
        (&examples, "majority.labs", &["yes=1", "no=2"], false),
        (&examples, "philosophers.labs", &["n=3", "asym=0"], false),
        (&examples, "twophase.labs", &["workers=2"], false),
        (&examples, "flocking.labs", &["birds=2", "delta=1", "grid=3"], false),
        (&examples, "line.labs", &["n=3", "gap=2", "size=5"], true),
        (&examples, "majority.labs", &["yes=2", "no=3"], false),
        (&specs_dir, "majority_pick.labs", &[], false),
        (&specs_dir, "majority_pick.labs", &[], true),
        (&cases, "of_read.labs", &[], false),
    ];
    let mut leaves_rows = vec![];
    let mut main_rows = vec![];
    let mut comp_rows = vec![];
    for (dir, file, externs, fair) in specs {
        let spec_name = format!(
            "{}{} {}{}",
            if dir.ends_with("examples") {
                "examples/"
            } else if dir.ends_with("specs") {
                "tests/specs/"
            } else if dir.ends_with("cases") {
                "tests/cases/"
            } else {
                ""
            },
            file.trim_end_matches(".labs"),
            externs.join(" "),
            if *fair { " --fair" } else { "" }
        );
        let r = (|| -> Result<(), String> {
            let path = dir.join(file);
            let src = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
            let spec = parse(&src).spec.ok_or("parse error")?;
            let (model, _) =
                resolve(&spec, &src, &parse_externs(externs).unwrap_or_default()).map_err(|e| format!("{e:?}"))?;
            let (behs, _) = compile_all(&model).map_err(|e| format!("{e:?}"))?;
            let stem = file.trim_end_matches(".labs");
            let analysis = analyse(&model, &behs);
            let coarse = labs::cli::lts::coarse_analysis(&analysis);
            let dialect = labs::lnt::Dialect::CURRENT;
            let (lnt, script) = svl::emit_program(&model, &behs, &analysis, stem, *fair, dialect)?;
            let (lnt_c, script_c) = svl::emit_program(&model, &behs, &coarse, stem, *fair, dialect)?;
            let leaf_sizes = |lnt: &str, script: &str| -> Result<Vec<(String, usize, usize, usize)>, String> {
                let prog = labs::lntcheck::load(lnt, None).map_err(|d| d.to_string())?;
                let sc = svl::parse(script)?;
                let first = &sc.blocks.first().ok_or("no block")?.beh;
                let mut c = Composer::new(&prog, Some(20_000_000));
                let mut out = vec![];
                for call in svl::calls(first) {
                    if let Beh::Call { process, gates, args } = call {
                        let l = c.leaf(process, gates, args)?;
                        let a: Vec<String> = args.iter().map(|a| a.to_string()).collect();
                        let name = if a.is_empty() { process.clone() } else { format!("{process} ({})", a.join(", ")) };
                        let mut per_state = vec![0usize; l.nstates];
                        for (s, _, _) in &l.trans {
                            per_state[*s as usize] += 1;
                        }
                        let most = per_state.into_iter().max().unwrap_or(0);
                        out.push((name, l.nstates, l.trans.len(), most));
                    }
                }
                Ok(out)
            };
            let with = leaf_sizes(&lnt, &script)?;
            // Without the analysis a leaf may have an unbounded input: its row says why.
            let without = leaf_sizes(&lnt_c, &script_c);
            for (i, (name, s, t, most)) in with.iter().enumerate() {
                let coarse = match &without {
                    Ok(w) => w.get(i).map_or("?".to_string(), |(_, s2, t2, _)| format!("{s2} / {t2}")),
                    Err(e) => format!("failed: {}", e.lines().next().unwrap_or("")),
                };
                leaves_rows.push(format!("| {spec_name} | {name} | {s} / {t} | {most} | {coarse} |"));
            }
            let prog = labs::lntcheck::load(&lnt, None).map_err(|d| d.to_string())?;
            let net = labs::lntcheck::interp::build_net(&prog, "MAIN").map_err(|d| d.to_string())?;
            let start = Instant::now();
            let (main, _) = labs::lntcheck::interp::generate(
                &prog,
                &net,
                &labs::lntcheck::interp::GenOptions { max_states: Some(20_000_000), ..Default::default() },
            )
            .map_err(|d| d.to_string())?;
            main_rows.push(format!(
                "| {spec_name} | {} / {} | {:.1} |",
                main.nstates,
                main.trans.len(),
                start.elapsed().as_secs_f64()
            ));
            let start = Instant::now();
            let runs = svl::check_script(&model, &behs, *fair, &lnt, &script, Some(20_000_000))?;
            let secs = start.elapsed().as_secs_f64();
            let native = labs::engine::verify(
                &model,
                &behs,
                &labs::engine::VerifyOptions { fair: *fair, threads: 1, ..Default::default() },
            )
            .map_err(|e| format!("{e:?}"))?;
            for r in &runs {
                let nv = native.results.iter().find(|x| x.property == r.property).map_or("?", |x| x.verdict.as_str());
                if nv != r.verdict.as_str() {
                    failures.push(format!(
                        "{spec_name}: {} is {} on the composed LTS, {nv} natively",
                        r.property,
                        r.verdict.as_str()
                    ));
                }
                let reduced = r.reduced.map_or("?".to_string(), |(s, t)| format!("{s} / {t}"));
                comp_rows.push(format!(
                    "| {spec_name} | {} / {} | {} | {} / {} | {reduced} | {} | {} | {} |",
                    main.nstates,
                    main.trans.len(),
                    r.property,
                    r.states,
                    r.transitions,
                    r.labs_states,
                    r.verdict.as_str(),
                    nv
                ));
            }
            eprintln!("{spec_name}: {:.1} s for the property blocks", secs);
            Ok(())
        })();
        if let Err(e) = r {
            leaves_rows.push(format!("| {spec_name} | failed: {e} | | | |"));
            failures.push(format!("{spec_name}: {e}"));
        }
    }
    println!("leaves of the compositional SVL script, generated alone (states / transitions)\n");
    println!("| spec | leaf | with value analysis | most transitions from one state | without |");
    println!("|---|---|---|---|---|");
    for r in &leaves_rows {
        println!("{r}");
    }
    println!("\nthe whole emitted program (MAIN), generated by the LNT interpreter\n");
    println!("| spec | states / transitions | seconds |");
    println!("|---|---|---|");
    for r in &main_rows {
        println!("{r}");
    }
    println!(
        "\nper property: the LTS its SVL block builds (per-leaf hide, par, total prio, hide all but), before and \
         after the block's root leaf reduction\n"
    );
    println!("| spec | MAIN | property | composed LTS | reduced | LAbS states | verdict on it | native verdict |");
    println!("|---|---|---|---|---|---|---|---|");
    for r in &comp_rows {
        println!("{r}");
    }
    failures
}
