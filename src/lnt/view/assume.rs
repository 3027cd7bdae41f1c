//! The `assume` predicates as the `Assumptions` process checks them: a function `lab_assume`
//! evaluating them in order on the initial values they read (`A[q]`), as the native engine
//! does (D10 in predicates, D9: a run-time error is reported).

use super::code::{self, Gen, Ln, Source};
use super::lower::expand_quants;
use crate::analysis::values::ValueAnalysis;
use crate::lnt::EmitError;
use crate::lnt::domains::Abs;
use crate::lnt::mcl::{TrackKey, init_order};
use crate::model::Model;
use std::collections::BTreeMap;

/// The function's body and what it reads.
pub(super) struct AssumeCode {
    /// The initial values read, in initialisation order (`A[q]` is the `q`-th).
    pub(crate) keys: Vec<TrackKey>,
    pub(crate) body: Vec<String>,
    pub(crate) decls: String,
    pub(crate) may_fail: bool,
}

/// `None` when the model has no `assume` predicate.
pub(super) fn assume_code(model: &Model, analysis: &ValueAnalysis) -> Result<Option<AssumeCode>, EmitError> {
    if model.assumptions.is_empty() {
        return Ok(None);
    }
    let abs = Abs { model, analysis, ty: 0, locals: vec![] };
    type Run = (Vec<Ln>, Vec<TrackKey>, String);
    let run = |names: &BTreeMap<TrackKey, String>| -> Result<Run, EmitError> {
        let mut g = Gen::new(model, code::Mode::Pred, Source::Assume { names });
        g.abs = Some(&abs);
        let mut body = vec![];
        for a in &model.assumptions {
            body.push(Ln::Comment(a.name.clone()));
            let pred = expand_quants(model, &a.pred, 0, &mut vec![]);
            let b = g.bexpr(&mut body, &pred)?;
            body.push(Ln::If(vec![(format!("not ({b})"), vec![Ln::Exit(code::R_OFF)])], vec![]));
        }
        body.push(Ln::Exit(code::R_OK));
        let keys = g.keys_read.iter().copied().collect();
        Ok((body, keys, g.decls(None)))
    };
    // A first pass finds the values read, a second one names them.
    let (_, keys, _) = run(&BTreeMap::new())?;
    let mut keys = keys;
    keys.sort_by_key(|k| init_order(model, k));
    let names: BTreeMap<TrackKey, String> = keys.iter().enumerate().map(|(q, k)| (*k, format!("A[{q}]"))).collect();
    let (body, _, decls) = run(&names)?;
    Ok(Some(AssumeCode {
        keys,
        may_fail: code::has_error_exit(&body),
        body: code::print(&body, 6, code::ExitStyle::Func),
        decls,
    }))
}
