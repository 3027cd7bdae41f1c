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
