//! The report in a real browser: the page of `labs verify` on benchmarks' leader n=3 is
//! rendered by headless Chromium, which must build the charts (its DOM dump holds them), log
//! no console error and produce a screenshot of the expected size that is not blank (compared
//! with the screenshot of an empty page).
//!
//! In the slow tier only (`tier`): Chromium takes seconds to start and may not be installed.
//! Without Chromium the test fails under CI (`.ci/run` installs it) and is skipped otherwise.

use crate::fixtures;
use crate::scratch;
use crate::tier;

use scratch::Scratch;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const CHROMIUM: &str = "/usr/bin/chromium";
const WIDTH: u32 = 1280;
const HEIGHT: u32 = 1600;

fn chromium_or_skip() -> Option<PathBuf> {
    let p = Path::new(CHROMIUM);
    if p.is_file() {
        return Some(p.to_path_buf());
    }
    assert!(std::env::var_os("CI").is_none(), "{CHROMIUM} is missing under CI (.ci/run installs Debian's chromium)");
    println!("SKIPPED: {CHROMIUM} is not installed (apt-get install chromium); the report was not rendered");
    None
}

/// Chromium with a fresh profile and nothing that reaches the network, plus `extra`.
fn chromium(bin: &Path, profile: &Path, extra: &[String], page: &Path) -> Output {
    let mut cmd = Command::new(bin);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--enable-logging=stderr",
        "--v=0",
    ]);
    cmd.arg(format!("--user-data-dir={}", profile.display()));
    cmd.args(extra);
    cmd.arg(format!("file://{}", page.display()));
    cmd.output().expect("run chromium")
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert!(bytes.len() > 24 && bytes.starts_with(b"\x89PNG\r\n\x1a\n") && &bytes[12..16] == b"IHDR", "not a PNG");
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    (be(&bytes[16..20]), be(&bytes[20..24]))
}

fn console_errors(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stderr)
        .lines()
        // The page has no script: any console message (Chromium logs them as `INFO:CONSOLE`,
        // uncaught errors included) or failed load is an error.
        .filter(|l| l.contains(":CONSOLE") || l.contains("Uncaught") || l.contains("net::ERR_"))
        .map(str::to_string)
        .collect()
}

fn screenshot(bin: &Path, dir: &Path, page: &Path, name: &str) -> (Vec<u8>, Output) {
    let png = dir.join(name);
    let profile = dir.join(format!("profile-{name}"));
    let o = chromium(
        bin,
        &profile,
        &[format!("--screenshot={}", png.display()), format!("--window-size={WIDTH},{HEIGHT}")],
        page,
    );
    let bytes = std::fs::read(&png).unwrap_or_else(|e| {
        panic!("{name}: no screenshot ({e}); chromium said:\n{}", String::from_utf8_lossy(&o.stderr))
    });
    (bytes, o)
}

#[test]
fn the_leader_report_renders_in_chromium() {
    if !tier::slow("rendering in headless Chromium") {
        return;
    }
    let Some(bin) = chromium_or_skip() else { return };
    let dir = Scratch::path("browser", "work");
    std::fs::create_dir_all(&*dir).unwrap();
    let page = dir.join("leader.html");
    let leader = format!("{}/leader.labs", fixtures::BENCH);
    let o = fixtures::labs_command()
        .args(["verify", &leader, "n=3", "-q", "--report", page.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(10), "{}", String::from_utf8_lossy(&o.stderr));

    // The DOM as the browser built it: the two counterexamples' charts and tables.
    let dom = chromium(&bin, &dir.join("profile-dom"), &["--dump-dom".to_string()], &page);
    let html = String::from_utf8_lossy(&dom.stdout);
    assert_eq!(html.matches("<svg class=\"msc-segment\"").count(), 2, "{html}");
    assert_eq!(html.matches("<table class=\"step-table\">").count(), 2);
    assert!(html.contains("Counterexample for LeaderNot0"));
    assert!(console_errors(&dom).is_empty(), "{:?}", console_errors(&dom));

    let (shot, o) = screenshot(&bin, &dir, &page, "leader.png");
    assert!(console_errors(&o).is_empty(), "{:?}", console_errors(&o));
    assert_eq!(png_size(&shot), (WIDTH, HEIGHT));
    // An empty page of the same size compresses to almost nothing; the report must not.
    let empty = dir.join("empty.html");
    std::fs::write(&empty, "<!DOCTYPE html><html><body></body></html>").unwrap();
    let (blank, _) = screenshot(&bin, &dir, &empty, "empty.png");
    assert_eq!(png_size(&blank), (WIDTH, HEIGHT));
    assert!(
        shot.len() > 10 * blank.len(),
        "the screenshot looks blank: {} bytes, an empty page {}",
        shot.len(),
        blank.len()
    );
}

/// Measures a report as Chromium lays it out: a copy of the page with a script added (the
/// report itself has none) that writes what it measured into the DOM, read back with
/// `--dump-dom`. One `name=value` line per measure.
fn layout(bin: &Path, dir: &Path, page: &Path) -> Vec<(String, String)> {
    const MEASURE: &str = r#"<script>
const out = [];
// Every row of every step table is inside the visible box (no scrolling box of its own).
for (const box of document.querySelectorAll('.steps')) {
  out.push('table-hidden-px=' + Math.max(0, box.scrollHeight - box.clientHeight));
}
// Every text of every chart lies inside its <svg>, which clips what overflows it.
for (const svg of document.querySelectorAll('svg')) {
  const s = svg.getBoundingClientRect();
  for (const t of svg.querySelectorAll('text')) {
    const r = t.getBoundingClientRect();
    if (r.width > 0 && (r.top < s.top - 1 || r.bottom > s.bottom + 1 || r.left < s.left - 1 || r.right > s.right + 1)) {
      out.push('clipped-text=' + t.textContent);
    }
  }
}
for (const tag of document.querySelectorAll('.tag.mark')) {
  out.push('pill=' + tag.textContent + '|' + getComputedStyle(tag).backgroundColor);
}
for (const svg of document.querySelectorAll('svg.msc-segment')) {
  out.push('boxes=' + svg.querySelectorAll('rect').length);
}
const pre = document.createElement('pre');
pre.id = 'layout';
pre.textContent = '\n' + out.join('\n') + '\n';
document.body.appendChild(pre);
</script></body>"#;
    let html = std::fs::read_to_string(page).expect("the report");
    assert!(!html.contains("<script"), "the report itself has no script");
    let measured = page.with_extension("measured.html");
    std::fs::write(&measured, html.replace("</body>", MEASURE)).unwrap();
    let profile = dir.join(format!("profile-{}", page.file_stem().unwrap().to_string_lossy()));
    let dom = chromium(bin, &profile, &["--window-size=1280,900".to_string(), "--dump-dom".to_string()], &measured);
    let text = String::from_utf8_lossy(&dom.stdout);
    let block = text.split(r#"<pre id="layout">"#).nth(1).and_then(|b| b.split("</pre>").next()).expect("measured");
    block.lines().filter_map(|l| l.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// Issue 38's rough edges, as the browser draws them: a one-step lasso's label is not clipped,
/// a 0-step counterexample's chart shows its initial state, a table of 40 rows is not cut by a
/// box of its own, and a satisfied pill is green, a violated one red.
#[test]
fn reports_lay_out_whole_in_chromium() {
    if !tier::slow("laying out reports in headless Chromium") {
        return;
    }
    let Some(bin) = chromium_or_skip() else { return };
    let dir = Scratch::path("browser-layout", "work");
    std::fs::create_dir_all(&*dir).unwrap();
    let run = |args: &[&str], name: &str| {
        let page = dir.join(name);
        let o = fixtures::labs_command().args(args).args(["--report", page.to_str().unwrap()]).output().unwrap();
        assert!(matches!(o.status.code(), Some(0 | 10)), "{}", String::from_utf8_lossy(&o.stderr));
        layout(&bin, &dir, &page)
    };
    let values = |m: &[(String, String)], key: &str| -> Vec<String> {
        m.iter().filter(|(k, _)| k == key).map(|(_, v)| v.clone()).collect()
    };

    // examples/line.labs: Spaced is violated by a one-step lasso, NeverSpaced in the initial state.
    let line = fixtures::example("line.labs");
    let m = run(
        &["verify", &line, "n=3", "size=5", "gap=2", "--property", "Spaced", "--property", "NeverSpaced"],
        "line.html",
    );
    assert!(values(&m, "clipped-text").is_empty(), "{m:?}");
    let boxes = values(&m, "boxes");
    assert_eq!(boxes.len(), 2, "{m:?}");
    // Lifeline heads (3) and the initial state's boxes (3) in the 0-step counterexample's chart.
    assert!(boxes.iter().all(|b| b.parse::<usize>().unwrap() >= 6), "{m:?}");

    // A 40-step run: every row of its table is in view of the page.
    let flock = fixtures::bench("flock.labs");
    let m = run(&["simulate", &flock, "_birds=3", "_grid=5", "_delta=5", "--steps", "40", "--seed", "3"], "flock.html");
    assert_eq!(values(&m, "table-hidden-px"), ["0"], "{m:?}");
    assert!(values(&m, "clipped-text").is_empty(), "{m:?}");

    // benchmarks/leader.labs n=3, seed 1: LeaderIs0 satisfied and LeaderNot0 violated at state 16.
    let leader = fixtures::bench("leader.labs");
    let m = run(&["simulate", &leader, "n=3", "--steps", "50", "--seed", "1"], "sim.html");
    let pills = values(&m, "pill");
    let colour =
        |name: &str| pills.iter().find(|p| p.starts_with(name)).map(|p| p.split('|').nth(1).unwrap().to_string());
    assert_eq!(colour("LeaderIs0 satisfied").as_deref(), Some("rgb(24, 128, 56)"), "green: {pills:?}");
    assert_eq!(colour("LeaderNot0 violated").as_deref(), Some("rgb(197, 34, 31)"), "red: {pills:?}");
}
