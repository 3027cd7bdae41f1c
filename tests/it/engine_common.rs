//! Shared helpers of the engine tests: load a spec (parse → resolve → compile).

use labs::behaviour::{Behaviour, compile_all};
use labs::engine::{EngineError, VerifyOptions, VerifyReport, verify};
use labs::model::externs::parse_externs;
use labs::model::{Model, ResolveError, resolve};

pub use crate::fixtures::{BENCH, CASES};

/// Why a spec did not load: a static error (exit 6) or anything else.
#[derive(Debug)]
pub enum LoadError {
    Static(String),
    Other(String),
}

pub fn load_text(text: &str, externs: &[String]) -> Result<(Model, Vec<Behaviour>), LoadError> {
    let ext = parse_externs(externs).map_err(|e| LoadError::Other(format!("{e:?}")))?;
    let parsed = labs::syntax::parse(text);
    let spec = match parsed.spec {
        Some(s) if !parsed.diagnostics.has_errors() => s,
        _ => return Err(LoadError::Static(format!("{:?}", parsed.diagnostics))),
    };
    let (model, _) = match resolve(&spec, text, &ext) {
        Ok(r) => r,
        Err(ResolveError::Invalid(d)) => return Err(LoadError::Static(format!("{d:?}"))),
        Err(e) => return Err(LoadError::Other(format!("{e:?}"))),
    };
    let behs = compile_all(&model).map_err(|d| LoadError::Static(format!("{d:?}")))?.0;
    Ok((model, behs))
}

pub fn load(path: &str, externs: &[&str]) -> (Model, Vec<Behaviour>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let ext: Vec<String> = externs.iter().map(|s| s.to_string()).collect();
    load_text(&text, &ext).unwrap_or_else(|e| panic!("{path}: {e:?}"))
}

/// `run` with the symmetry reduction on or off.
pub fn run_with(
    model: &Model,
    behs: &[Behaviour],
    fair: bool,
    symmetry: bool,
    threads: usize,
) -> Result<VerifyReport, EngineError> {
    verify(
        model,
        behs,
        &VerifyOptions { fair, threads, symmetry, check_analysis: true, exhaustive: true, ..Default::default() },
    )
}

pub fn run(model: &Model, behs: &[Behaviour], fair: bool, threads: usize) -> Result<VerifyReport, EngineError> {
    verify(model, behs, &VerifyOptions { fair, threads, check_analysis: true, exhaustive: true, ..Default::default() })
}

/// Replays every counterexample of the report with the independent checker.
pub fn replay_all(model: &Model, behs: &[Behaviour], rep: &VerifyReport) {
    for r in &rep.results {
        if let Some(t) = &r.trace {
            labs::trace::replay(model, behs, t).unwrap_or_else(|e| panic!("{}: replay failed: {e}", r.property));
            // The trace must show the violation where one trace can (`always`, `finally`,
            // linear-time formulas), judged on its states alone.
            let p = model.properties.iter().find(|p| p.name == r.property).expect("the property");
            use labs::trace::from_labels::{Shows, shows};
            match shows(model, behs, t, p) {
                Ok(Shows::Violation { .. } | Shows::NotDecidable) => {}
                other => panic!("{}: the counterexample does not show a violation: {other:?}", r.property),
            }
            // Rendering must not panic.
            let _ = labs::trace::render(model, behs, t);
            let _ = labs::trace::to_json(model, behs, t);
        }
    }
}

pub fn verdict(rep: &VerifyReport, name: &str) -> &'static str {
    rep.results.iter().find(|r| r.property == name).unwrap_or_else(|| panic!("no property {name}")).verdict.as_str()
}
