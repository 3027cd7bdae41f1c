//! The HTML report (`--report`): the page of small verifications (snapshot), the charts of
//! benchmark counterexamples checked against the traces they draw, the stage's invariant (no
//! I/O, a self-contained page), and the command-line flags, completions and manual pages.

use crate::fixtures;
use fixtures::labs;

use crate::engine_common;
use crate::scratch;
use engine_common::*;
use labs::engine::step::Event;
use labs::engine::{VerifyOptions, VerifyReport, verify};
use labs::report::{self, Meta};
use labs::trace::Trace;
use scratch::Scratch;

fn meta(spec: &str, externs: &[(&str, i64)], fair: bool) -> Meta {
    Meta {
        command: "verify".into(),
        spec: spec.into(),
        externs: externs.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        backend: "native".into(),
        fair,
        date: "2026-01-01 00:00 UTC".into(),
        version: "0.0.0-test".into(),
    }
}

fn run(
    path: &str,
    externs: &[&str],
    fair: bool,
) -> (labs::model::Model, Vec<labs::behaviour::Behaviour>, VerifyReport) {
    let (m, b) = load(path, externs);
    let opts = VerifyOptions { fair, threads: 1, check_analysis: true, exhaustive: true, ..Default::default() };
    let r = verify(&m, &b, &opts).unwrap();
    (m, b, r)
}

fn count(hay: &str, needle: &str) -> usize {
    hay.matches(needle).count()
}

/// The page of the lost update (examples/counter.labs n=2 atomic=0): its `# case:` line
/// derives AllCounted violated by a 4-step trace ending in a deadlock.
#[test]
fn snapshot_of_the_lost_update_page() {
    let (m, b, mut r) = run(&format!("{}/counter.labs", fixtures::EXAMPLES), &["n=2", "atomic=0"], false);
    // The only run-dependent statistic besides the wall time.
    r.stats.peak_rss_mib = 0;
    let page = report::verify_page(&m, &b, &meta("counter.labs", &[("_atomic", 0), ("_n", 2)], false), &r, 0.0, vec![]);
    let t = r.results.iter().find(|x| x.property == "AllCounted").unwrap().trace.as_ref().unwrap();
    assert_eq!(t.len(), 4);
    assert!(t.ends_in_deadlock);
    // Two agents and the environment (`c`), one chart and one table.
    assert_eq!(count(&page, r#"<g class="lifeline""#), 2);
    assert_eq!(count(&page, r#"<g class="lifeline env""#), 1);
    assert_eq!(count(&page, r#"<g class="deadlock""#), 1);
    assert_eq!(count(&page, r#"<g class="mark violated""#), 1);
    assert!(page.contains("AllCounted violated here (state 4)"));
    // The style sheet is left out (it is not what the snapshot checks), and one tag per line
    // keeps the snapshot's diffs readable.
    let (head, rest) = page.split_once("<style>").unwrap();
    let (_, tail) = rest.split_once("</style>").unwrap();
    insta::assert_snapshot!(format!("{head}<style>…</style>{tail}").replace("><", ">\n<"));
}

/// For every counterexample of a benchmark, the chart has what the trace has: one lifeline per
/// agent in each segment, one arrow per receiver of each message, a loop bracket exactly for a
/// lasso, a deadlock band exactly for a trace ending in a deadlock, one band per mark.
fn check_charts(path: &str, externs: &[&str], fair: bool) -> usize {
    let (m, b, r) = run(path, externs, fair);
    let mut traces = 0;
    for x in &r.results {
        let Some(t) = &x.trace else { continue };
        traces += 1;
        let view = report::view::TraceView::new(&m, &b, t);
        let svg = report::chart::chart(&view, "t");
        let what = format!("{path} {externs:?} {}", x.property);
        check_chart(&svg, t, m.n_agents(), m.env_len > 0, &what);
        // One table row per state.
        let table = report::table::step_table(&view, "t");
        assert_eq!(count(&table, "<tr id="), t.len() + 1, "{what}");
    }
    traces
}

fn check_chart(svg: &str, t: &Trace, agents: usize, env: bool, what: &str) {
    let segments = t.len().div_ceil(report::chart::SEGMENT_STEPS).max(1);
    assert_eq!(count(svg, "<svg "), segments, "{what}");
    assert_eq!(count(svg, r#"<g class="lifeline"#), segments * (agents + usize::from(env)), "{what}");
    let (mut copied, mut refreshed, mut puts, mut qrys) = (0, 0, 0, 0);
    for s in &t.steps {
        if let Event::Message { confirm, copied: c, refreshed: f, .. } = &s.event {
            copied += c.len();
            refreshed += f.len();
            if *confirm { qrys += 1 } else { puts += 1 }
        }
    }
    assert_eq!(count(svg, r#"<g class="arrow""#), copied, "{what}");
    assert_eq!(count(svg, r#"<g class="arrow refreshed""#), refreshed, "{what}");
    assert_eq!(count(svg, r#"<g class="msg put""#), puts, "{what}");
    assert_eq!(count(svg, r#"<g class="msg qry""#), qrys, "{what}");
    // A number per state: the initial state's row, then each step's.
    assert_eq!(count(svg, r#"class="stepno""#), t.len() + 1, "{what}");
    assert!(count(svg, r#"<g class="initial""#) >= 1, "the initial state is drawn: {what}");
    assert_eq!(count(svg, r#"<g class="loop-bracket""#) > 0, t.loop_start.is_some(), "{what}");
    assert_eq!(count(svg, r#"<g class="loop-band""#), usize::from(t.loop_start.is_some()), "{what}");
    assert_eq!(count(svg, r#"<g class="deadlock""#), usize::from(t.ends_in_deadlock), "{what}");
    assert_eq!(count(svg, r#"<g class="mark "#), t.marks.len(), "{what}");
}

#[test]
fn charts_of_leader_counterexamples_draw_their_traces() {
    // benchmarks/README.md: LeaderNot0 and LeaderIs100 violated for n=3.
    assert_eq!(check_charts(&format!("{}/leader.labs", fixtures::BENCH), &["n=3"], false), 2);
}

#[test]
fn the_chart_of_the_formation_lasso_brackets_its_loop() {
    // benchmarks/README.md: formation-rr (n=3 size=10 range=2, --fair) violates P1 (finally)
    // on a lasso.
    let path = format!("{}/formation.labs", fixtures::BENCH);
    let (m, b, r) = run(&path, &["_n=3", "_size=10", "_range=2"], true);
    let t = r.results.iter().find(|x| x.property == "P1").unwrap().trace.clone().unwrap();
    let l = t.loop_start.expect("a lasso");
    let svg = report::chart::chart(&report::view::TraceView::new(&m, &b, &t), "t");
    check_chart(&svg, &t, 3, false, "formation-rr P1");
    assert!(svg.contains(&format!("loop: back to state {l}")), "{svg}");
}

#[test]
fn simulation_runs_are_drawn_whole_even_when_long() {
    // 130 steps: 4 segments; the chart's height stays bounded per segment.
    let (m, b) = load(&format!("{}/flock.labs", fixtures::BENCH), &["_birds=3", "_grid=5", "_delta=5"]);
    let opts = labs::engine::SimulateOptions { runs: 2, steps: 130, seed: 7, ..Default::default() };
    let r = labs::engine::simulate(&m, &b, &opts).unwrap();
    let mut meta = meta("flock.labs", &[], false);
    meta.command = "simulate".into();
    let page = report::simulate_page(&m, &b, &meta, &r, &|_| 7);
    assert_eq!(count(&page, r#"<section class="trace""#), 2);
    for run in &r.runs {
        let svg = report::chart::chart(&report::view::TraceView::new(&m, &b, &run.trace), "t");
        check_chart(&svg, &run.trace, 3, false, "flock run");
        for seg in svg.split("<svg ").skip(1) {
            let h: f64 = seg.split("height=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
            assert!(h < 3000.0, "a segment {h} px high");
        }
    }
}

/// ARCHITECTURE.md's invariant of `src/report/`: no I/O and no clock (the CLI writes the page
/// and gives the date), and a page that loads nothing from outside itself.
#[test]
fn the_report_stage_does_no_io_and_its_pages_are_self_contained() {
    let dir = fixtures::path("src/report");
    let mut files = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "rs") {
            files += 1;
            let text = std::fs::read_to_string(&p).unwrap();
            for banned in
                ["std::fs", "std::io", "print!", "println!", "std::process", "SystemTime::now", "Instant::now"]
            {
                assert!(!text.contains(banned), "{}: uses {banned}", p.display());
            }
        }
    }
    assert!(files >= 4);
    let (m, b, r) = run(&format!("{}/leader.labs", fixtures::BENCH), &["n=3"], false);
    let page = report::verify_page(&m, &b, &meta("leader.labs", &[("_n", 3)], false), &r, 0.0, vec![]);
    let lower = page.to_lowercase();
    for banned in ["http:", "https:", "//", "<script", "<link", "<img", "<iframe", "@import", "url(", "src="] {
        assert!(!lower.contains(banned), "the page contains {banned}");
    }
    // In-page links only: every href names an element of the page.
    for href in page.split("href=\"#").skip(1) {
        let id = href.split('"').next().unwrap();
        assert!(page.contains(&format!("id=\"{id}\"")), "no element {id}");
    }
}

#[test]
fn verify_simulate_and_translate_trace_write_reports() {
    let dir = Scratch::path("report", "out");
    std::fs::create_dir_all(&*dir).unwrap();
    let leader = format!("{}/leader.labs", fixtures::BENCH);
    let file = dir.join("leader.html");
    let o = labs(&["verify", &leader, "n=3", "-q", "--report", file.to_str().unwrap()]);
    // The verdicts decide the exit code, as without --report.
    assert_eq!(o.status.code(), Some(10), "{}", String::from_utf8_lossy(&o.stderr));
    let page = std::fs::read_to_string(&file).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("<dt>externs</dt><dd>_n=3</dd>"), "{page}");
    assert!(page.contains("Counterexample for LeaderNot0 (always)"));
    assert!(page.contains(&format!("<dt>labs</dt><dd>{}</dd>", env!("CARGO_PKG_VERSION"))));
    // No temporary file is left beside it.
    assert_eq!(std::fs::read_dir(&*dir).unwrap().count(), 1);

    let file = dir.join("flock.html");
    let flock = format!("{}/flock.labs", fixtures::BENCH);
    let o = labs(&[
        "simulate",
        &flock,
        "_birds=3",
        "_grid=5",
        "_delta=5",
        "--runs",
        "2",
        "--steps",
        "20",
        "--seed",
        "4",
        "--report",
        file.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let page = std::fs::read_to_string(&file).unwrap();
    assert!(page.contains("Run 2 of 2 (seed 5)"), "{page}");
    assert_eq!(count(&page, r#"<table class="step-table">"#), 2);

    // The lost update as CADP's Executor prints it (tests/it/cli.rs derives it: R, R, W, W).
    let seq = dir.join("lost_update.seq");
    std::fs::write(
        &seq,
        "\"E_C !0 !0\"\n\"DONE\"\n\"DONE\"\n\"DONE\"\n\"E_C !0 !1\"\n\"DONE\"\n\"DONE\"\n<deadlock>\n",
    )
    .unwrap();
    let file = dir.join("translated.html");
    let counter = fixtures::path_str("examples/counter.labs");
    let o = labs(&[
        "translate-trace",
        &counter,
        "n=2",
        "atomic=0",
        seq.to_str().unwrap(),
        "--property",
        "AllCounted",
        "--report",
        file.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let page = std::fs::read_to_string(&file).unwrap();
    assert!(page.contains("violates AllCounted (finally) at state 4"), "{page}");
    assert_eq!(count(&page, r#"<g class="mark violated""#), 1);
    assert_eq!(count(&page, r#"<g class="deadlock""#), 1);
    assert_eq!(count(&page, r#"<g class="lifeline env""#), 1);
    // The label path may be CADP's or `labs mcl`'s: the page does not claim a back end.
    assert!(!page.contains("<dd>cadp"), "{page}");
    // The environment is last in the table as in the chart (its lifeline is the rightmost).
    let groups: Vec<&str> = page.split(r#"<th colspan="#).skip(1).map(|g| g.split("</th>").next().unwrap()).collect();
    assert!(groups.last().is_some_and(|g| g.ends_with(">environment")), "{groups:?}");
}

/// A report of `--backend lnt` has what its text output has: each property's query and the
/// LTS it ran on, with its size, and the script's LTSs.
#[test]
fn a_report_of_the_lnt_back_end_shows_the_queries_and_lts_sizes() {
    let dir = Scratch::path("report-lnt", "d");
    std::fs::create_dir_all(&*dir).unwrap();
    let file = dir.join("lnt.html");
    let leader = fixtures::path_str("examples/leader.labs");
    let o = labs(&["verify", &leader, "n=2", "--backend", "lnt", "--report", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(10), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    let page = std::fs::read_to_string(&file).unwrap();
    // Each `P: QUERY on LTS (N states, M transitions)` line of the text is in the page.
    let lines: Vec<(&str, &str)> =
        text.lines().filter(|l| l.contains(".mcl on ")).filter_map(|l| l.trim().split_once(": ")).collect();
    assert_eq!(lines.len(), 4, "{text}");
    for (property, rest) in lines {
        assert!(page.contains(&format!("<dt>{property}</dt><dd>{rest}</dd>")), "{property}: {rest}\n{page}");
    }
    // Every property of leader reads the stigmergic `leader` alone: one LTS serves the four.
    assert!(page.contains("1 LTS</dt><dd>the largest "), "{page}");
}

/// The step table grows with the page (no box of its own to scroll), so that a whole-page view
/// or a print shows every row.
#[test]
fn the_step_table_is_not_a_scrolling_box() {
    let css = fixtures::read("src/report/report.css");
    let rule = css.lines().find(|l| l.starts_with(".steps ")).expect("the .steps rule");
    assert!(!rule.contains("max-height") && !rule.contains("overflow: auto"), "{rule}");
}

#[test]
fn a_report_that_cannot_be_written_is_refused_before_the_run() {
    let leader = format!("{}/leader.labs", fixtures::BENCH);
    let o = labs(&["verify", &leader, "n=3", "--report", "/nonexistent-dir/r.html"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--report /nonexistent-dir/r.html: no directory"), "{err}");
    // Nothing was verified: no verdict on stdout.
    assert!(o.stdout.is_empty());
    let dir = Scratch::path("report", "d");
    std::fs::create_dir_all(&*dir).unwrap();
    let o = labs(&["simulate", &leader, "n=3", "--report", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is a directory"));
}

#[test]
fn completions_and_manual_pages_cover_every_subcommand_and_option() {
    // The subcommands `labs --help` lists, which must include those the README documents.
    let help = fixtures::stdout(&labs(&["--help"]));
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    for c in ["verify", "simulate", "translate-trace", "explore", "completions", "manpage"] {
        assert!(commands.contains(&c), "`labs --help` lacks {c}: {commands:?}");
    }
    for shell in ["bash", "zsh", "fish"] {
        let o = labs(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}");
        let text = String::from_utf8_lossy(&o.stdout);
        // fish names long options `-l NAME`.
        let long = |o: &str| if shell == "fish" { format!("-l {o}") } else { format!("--{o}") };
        for word in ["translate-trace".to_string(), long("report"), long("fair"), "manpage".to_string()] {
            assert!(text.contains(&word), "{shell} completions lack {word}");
        }
        for c in &commands {
            assert!(text.contains(c), "{shell} completions lack the subcommand {c}");
        }
        for word in [long("trace"), long("port"), long("view")] {
            assert!(text.contains(&word), "{shell} completions lack explore's {word}");
        }
    }
    let o = labs(&["completions", "tcsh-not-a-shell"]);
    assert_eq!(o.status.code(), Some(2));
    let o = labs(&["manpage"]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.starts_with(".ie") || text.contains(".TH labs 1"), "{text}");
    assert!(text.contains("translate\\-trace"), "{text}");
    let dir = Scratch::path("manpage", "man1");
    std::fs::create_dir_all(&*dir).unwrap();
    let o = labs(&["manpage", "--dir", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let verify_page = std::fs::read_to_string(dir.join("labs-verify.1")).unwrap();
    assert!(verify_page.contains("\\-\\-report"), "{verify_page}");
    for page in ["labs.1", "labs-simulate.1", "labs-translate-trace.1", "labs-completions.1"] {
        assert!(dir.join(page).is_file(), "{page}");
    }
    for c in &commands {
        assert!(dir.join(format!("labs-{c}.1")).is_file(), "no manual page for {c}");
    }
    let explore_page = std::fs::read_to_string(dir.join("labs-explore.1")).unwrap();
    assert!(explore_page.contains("\\-\\-port") && explore_page.contains("127.0.0.1"), "{explore_page}");
    let o = labs(&["manpage", "--dir", "/nonexistent-dir"]);
    assert_eq!(o.status.code(), Some(2));
}
