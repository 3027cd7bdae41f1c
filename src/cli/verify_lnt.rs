//! `labs verify --backend lnt`: the emitted LNT program run by labs's LNT interpreter, the
//! properties checked on its LAbS states, and each counterexample translated back from its LNT
//! labels by the native replay, so the output (human and JSON) is that of the native back end.

use super::load::Loaded;
use super::verify::{verify_exit_code, verify_json, verify_text};
use super::{Failure, exit};
use crate::analysis::values::analyse;
use crate::engine::{PropertyResult, Stats, VerifyReport, peak_rss_mib};
use crate::lnt::{Dialect, mcl, view::undef_value};
use crate::lntcheck::{backend, paths};
use crate::trace::cadp::LabelPath;
use crate::trace::{self, from_labels};
use std::time::Instant;

pub struct LntVerifyArgs<'a> {
    pub properties: &'a [String],
    pub fair: bool,
    pub json: bool,
    pub max_states: Option<u64>,
    /// The run's bounds: polled while the interpreter generates the LTS and while the
    /// properties are checked.
    pub limits: crate::limits::Limits,
}

pub fn verify_lnt(l: &Loaded, spec_name: &str, a: &LntVerifyArgs) -> Result<i32, Failure> {
    let start = Instant::now();
    let backend_err = |m: String| Failure::new(exit::BACKEND, m);
    if let Some(p) = a.properties.iter().find(|p| !l.model.properties.iter().any(|x| &x.name == *p)) {
        return Err(super::load::unknown_property(l, p));
    }
    let stem = l.stem();
    let analysis = analyse(&l.model, &l.behaviours);
    let undef = undef_value(&l.model, &analysis);
    let src =
        backend::emit_lnt(&l.model, &l.behaviours, &analysis, &stem, a.fair, Dialect::CURRENT).map_err(backend_err)?;
    let stopped = |m: String| match a.limits.stopped() {
        Some(r) => Failure::new(
            super::bounds::stop_code(r),
            format!(
                "{} while the LNT interpreter generated the state space; no property was decided",
                super::bounds::stop_text(&a.limits, r)
            ),
        ),
        None => backend_err(m),
    };
    let view = backend::explore_within(&l.model, &src, a.fair, a.max_states, &a.limits).map_err(stopped)?;
    if let Some(s) = view.stuck.first() {
        return Err(backend_err(format!(
            "the LNT program blocks in the middle of a step (LTS state {s}, not reached by DONE)"
        )));
    }
    let checked =
        backend::check_properties_within(&l.model, &l.behaviours, a.fair, &view, &a.limits).map_err(backend_err)?;
    let mut results = vec![];
    for (r, prop) in checked.into_iter().zip(&l.model.properties) {
        if !a.properties.is_empty() && !a.properties.contains(&r.property) {
            continue;
        }
        let trace = match &r.path {
            None => None,
            Some(path) => {
                let (labels, loop_start) = paths::visible_labels(&view, path, r.loop_start).map_err(backend_err)?;
                let lp = LabelPath { labels, loop_start, deadlock: r.deadlock };
                let observed = mcl::build(&l.model, &analysis, prop).map_err(|e| backend_err(e.message))?.vars;
                let t = from_labels::translate(&l.model, &l.behaviours, a.fair, undef, &lp, Some(&observed)).map_err(
                    |m| backend_err(format!("internal error: the LNT counterexample of {}: {m}", r.property)),
                )?;
                trace::replay(&l.model, &l.behaviours, &t.trace).map_err(|m| {
                    backend_err(format!(
                        "internal error: the translated counterexample of {} does not replay: {m}",
                        r.property
                    ))
                })?;
                Some(t.trace)
            }
        };
        results.push(PropertyResult {
            property: r.property,
            modality: prop.keyword.clone(),
            verdict: r.verdict,
            trace,
        });
    }
    let transitions: usize = view.succ.iter().map(Vec::len).sum();
    let stats = Stats {
        states: view.real.len() as u64,
        transitions: transitions as u64,
        deadlocks: view.succ.iter().filter(|s| s.is_empty()).count() as u64,
        initial_states: view.n_initial as u64,
        seconds: start.elapsed().as_secs_f64(),
        peak_rss_mib: peak_rss_mib(),
        complete: true,
        ..Default::default()
    };
    let report = VerifyReport { results, stats, stopped: a.limits.stopped() };
    super::bounds::reporting();
    if a.json {
        let mut doc = verify_json(l, spec_name, a.fair, &report);
        doc["backend"] = "lnt".into();
        doc["lnt"] = serde_json::json!({"lts_states": view.lts.nstates, "lts_transitions": view.lts.trans.len()});
        println!("{}", serde_json::to_string_pretty(&doc).expect("JSON of a value"));
    } else {
        print!("{}", verify_text(l, &report));
        eprintln!(
            "lnt: the LTS of the emitted program has {} states and {} transitions",
            view.lts.nstates,
            view.lts.trans.len()
        );
    }
    Ok(verify_exit_code(&report))
}
