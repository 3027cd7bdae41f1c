//! The visited set must cost at most twice the packed state size per state (issue 3's
//! memory target), once the run is large enough for the minimum table sizes not to matter.

use crate::engine_common;
use engine_common::*;
use labs::engine::explore::{ExploreOptions, explore_initial};
use labs::engine::step::Stepper;

#[test]
fn the_store_costs_at_most_twice_the_packed_states() {
    let cases: &[(&str, &[&str], bool)] = &[
        ("leader.labs", &["n=7"], false),
        ("philosophers.labs", &["n=5"], false),
        ("philosophers.labs", &["n=6"], false),
        ("twophase.labs", &["workers=3"], false),
        ("formation.labs", &["n=3", "size=6", "range=2"], true),
    ];
    for (file, externs, fair) in cases {
        let (m, b) = load(&format!("{BENCH}/{file}"), externs);
        let stepper = Stepper::new(&m, &b, *fair);
        let g = explore_initial(&stepper, &ExploreOptions { threads: 2, ..Default::default() }).expect("explores");
        assert!(g.stopped.is_none() && g.error.is_none());
        let (states, sb) = (g.states(), g.store.state_bytes());
        assert!(states >= 10_000, "{file}: only {states} states, too few for the bound");
        let per_state = g.store.bytes() as f64 / states as f64;
        assert!(
            per_state <= 2.0 * sb as f64,
            "{file} {externs:?}: {per_state:.1} bytes per state for {sb}-byte states"
        );
    }
}
