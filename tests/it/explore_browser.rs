//! `labs explore`'s page in headless Chromium, driven through the DevTools protocol (`cdp`):
//! the flock counterexample of `ConsensusKept` loaded with `--trace`, stepped forward (the
//! birds move on the grid), back, branched off by an enabled step, loaded again and stepped
//! to its loop; the page's position, state cards, grid, properties and chart are checked at
//! each point, and no script error may occur. The screenshot in the loop is the README's
//! (`LABS_EXPLORE_SCREENSHOT=FILE` writes it there).
//!
//! Without Chromium the test fails under CI (`.ci/run` installs it) and is skipped otherwise.

use crate::cdp::Browser;
use crate::explore_server::{flock_counterexample, start_in};
use crate::fixtures;
use crate::scratch::Scratch;
use crate::tier;
use serde_json::json;
use std::path::Path;
use std::time::Duration;

const CHROMIUM: &str = "/usr/bin/chromium";
const WIDTH: u32 = 1360;
const HEIGHT: u32 = 940;

fn chromium_or_skip() -> Option<&'static Path> {
    let p = Path::new(CHROMIUM);
    if p.is_file() {
        return Some(p);
    }
    assert!(std::env::var_os("CI").is_none(), "{CHROMIUM} is missing under CI (.ci/run installs Debian's chromium)");
    println!("SKIPPED: {CHROMIUM} is not installed (apt-get install chromium); the page was not driven");
    None
}

fn text(b: &mut Browser, selector: &str) -> String {
    b.eval(&format!("document.querySelector({}).textContent", json!(selector))).as_str().unwrap_or("").to_string()
}

fn count(b: &mut Browser, selector: &str) -> u64 {
    b.eval(&format!("document.querySelectorAll({}).length", json!(selector))).as_u64().unwrap()
}

fn click(b: &mut Browser, selector: &str) {
    let done = b.eval(&format!(
        "(() => {{ const e = document.querySelector({}); if (!e) return false; \
         e.dispatchEvent(new MouseEvent('click', {{bubbles: true, cancelable: true}})); return true; }})()",
        json!(selector)
    ));
    assert_eq!(done, json!(true), "nothing to click at {selector}");
}

/// Waits until the page shows state `cursor` of a history of `length` steps.
fn at(b: &mut Browser, cursor: usize, length: usize) {
    b.wait_for(
        &format!(
            "document.querySelector('#cursor').textContent === '{cursor}' && \
             document.querySelector('#length').textContent === '{length}'"
        ),
        20,
    );
}

/// The centre of bird `i`'s disc on the grid.
fn bird(b: &mut Browser, i: usize) -> (f64, f64) {
    let v = b.eval(&format!(
        "(() => {{ const c = document.querySelector('#grid g.agent:not(.ghost)[data-agent=\"{i}\"] circle'); \
         return [Number(c.getAttribute('cx')), Number(c.getAttribute('cy'))]; }})()"
    ));
    (v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
}

#[test]
fn the_page_steps_through_and_branches_off_a_counterexample_in_chromium() {
    if !tier::slow("driving the explore page in headless Chromium") {
        return;
    }
    let Some(bin) = chromium_or_skip() else { return };
    let dir = Scratch::path("explore", "browser");
    std::fs::create_dir_all(&*dir).unwrap();
    flock_counterexample(&dir);
    let spec = fixtures::bench("flock.labs");
    // As the README runs it: the counterexample beside the user, named as given.
    let server = start_in(&dir, &[&spec, "birds=3", "grid=5", "delta=5", "--trace", "cex.json"]);
    let mut b = Browser::start(bin, &dir.join("profile"), WIDTH, HEIGHT, Duration::from_secs(120));
    b.navigate(&server.url());
    b.wait_for("document.querySelectorAll('#enabled button').length > 0", 30);

    // The counterexample, loaded at its initial state: three birds at (0, 0), 17 steps drawn,
    // a loop bracket, the step the counterexample takes next marked.
    at(&mut b, 0, 17);
    assert_eq!(text(&mut b, "#origin"), "counterexample for ConsensusKept (ltl) from cex.json");
    // One numbered row per state, the initial one included.
    assert_eq!(count(&mut b, "#chart svg.msc-segment a text.stepno"), 18);
    assert_eq!(count(&mut b, "#chart g.loop-bracket"), 1);
    assert_eq!(count(&mut b, "#grid g.agent:not(.ghost)"), 3);
    assert_eq!(count(&mut b, "#enabled li.next"), 1);
    assert_eq!(count(&mut b, ".agent-card"), 3);
    let start = bird(&mut b, 0);

    // Forward: Bird 0 flies from (0, 0) to (4, 4) (heading -1, -1 on the 5-torus): its disc
    // moves right and up, its card highlights x and y.
    click(&mut b, "#forward");
    at(&mut b, 1, 17);
    let moved = bird(&mut b, 0);
    assert!(moved.0 > start.0 && moved.1 < start.1, "{start:?} → {moved:?}");
    let changed =
        b.eval("[...document.querySelectorAll('.agent-card[data-agent=\"0\"] td.chg')].map(e => e.textContent)");
    assert_eq!(changed, json!(["4", "4"]));
    assert!(text(&mut b, "#last-step").contains("Bird 0: x <- 4; y <- 4"));
    assert_eq!(text(&mut b, "#chart text.stepno.current"), "1");

    // Back: the history stays, the bird returns.
    click(&mut b, "#back");
    at(&mut b, 0, 17);
    assert_eq!(bird(&mut b, 0), start);

    // Branch off: an enabled step the counterexample does not take replaces its history.
    click(&mut b, "#enabled li:not(.next) button");
    at(&mut b, 1, 1);
    assert!(text(&mut b, "#origin").starts_with("branched off counterexample for ConsensusKept"));
    assert_eq!(count(&mut b, "#chart svg.msc-segment a text.stepno"), 2);
    assert_eq!(count(&mut b, "#chart g.loop-bracket"), 0);
    click(&mut b, "#enabled button");
    at(&mut b, 2, 2);

    // Load the counterexample again and go to its end: the loop closes on state 7, and the
    // page says ConsensusKept is violated on this run.
    click(&mut b, "#trace-load");
    at(&mut b, 0, 17);
    click(&mut b, "#last");
    at(&mut b, 17, 17);
    assert_eq!(text(&mut b, "#same-as"), "↻ same as state 7");
    let verdict =
        b.eval("document.querySelector('#props tr[data-property=\"ConsensusKept\"] td:nth-child(3)').className");
    assert_eq!(verdict, json!("status violated"));
    assert!(text(&mut b, "#props tr[data-property=\"ConsensusKept\"]").contains("by the loop back to state 7"));
    assert_eq!(text(&mut b, "#chart text.stepno.current"), "17");

    // Jump into the loop from the chart, as a reader does.
    click(&mut b, "#chart a[href='#h-s12']");
    at(&mut b, 12, 17);
    assert_eq!(text(&mut b, "#chart text.stepno.current"), "12");
    b.eval("window.scrollTo(0, 0)");
    let shot = b.screenshot();
    assert!(shot.starts_with(b"\x89PNG") && shot.len() > 40_000, "a blank screenshot? {} bytes", shot.len());
    std::fs::write(dir.join("explore.png"), &shot).unwrap();
    if let Some(f) = std::env::var_os("LABS_EXPLORE_SCREENSHOT") {
        std::fs::write(f, &shot).unwrap();
    }
    assert!(b.errors.is_empty(), "script errors: {:?}", b.errors);
}
