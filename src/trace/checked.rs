//! The one way a back end's path of LNT labels (CADP's diagnostic or Executor run, the MCL
//! evaluator's diagnostic, a saved trace) becomes a trace a user sees: translated by
//! `from_labels`, replayed by the independent checker, and, for a counterexample, required to
//! show the violation. The CLI only formats what this returns.

use super::Trace;
use super::cadp::LabelPath;
use super::from_labels::{self, CheckedTrace, CounterexampleError};
use crate::analysis::values::ValueAnalysis;
use crate::behaviour::Behaviour;
use crate::model::{Model, Property, VarId};
use std::collections::BTreeSet;

/// What label paths of the LNT program of `model` (emitted with the value analysis
/// `analysis`, scheduling `fair`) are read against.
pub struct LabelReader<'a> {
    model: &'a Model,
    behs: &'a [Behaviour],
    analysis: &'a ValueAnalysis,
    fair: bool,
    /// The number the program uses for ⊥.
    undef: i64,
}

/// A back end's counterexample as the user sees it: translated, replayed, shown to violate
/// its property, cut at the first violating state of an `always` and marked as the native
/// engine marks its counterexamples. Only `LabelReader::counterexample` builds one.
#[derive(Debug)]
pub struct CheckedCounterexample {
    trace: Trace,
}

impl CheckedCounterexample {
    /// For the tests (the tool takes the trace with `into_trace`).
    #[cfg(feature = "test-support")]
    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    pub(crate) fn into_trace(self) -> Trace {
        self.trace
    }
}

impl<'a> LabelReader<'a> {
    pub fn new(model: &'a Model, behs: &'a [Behaviour], analysis: &'a ValueAnalysis, fair: bool) -> Self {
        let undef = crate::lnt::domains::undef_value(model, analysis);
        LabelReader { model, behs, analysis, fair, undef }
    }

    /// The variables whose observation labels the emitted query of `prop` keeps visible.
    pub(crate) fn observed(&self, prop: &Property) -> Result<BTreeSet<VarId>, CounterexampleError> {
        crate::lnt::mcl::build(self.model, self.analysis, prop)
            .map(|q| q.vars)
            .map_err(|e| CounterexampleError::Query(e.message))
    }

    /// `path` translated (constrained by the labels of `observed`, by default those that
    /// occur) and replayed; with `prop`, what the trace shows about it.
    pub fn check(
        &self,
        path: &LabelPath,
        observed: Option<&BTreeSet<VarId>>,
        prop: Option<&Property>,
    ) -> Result<CheckedTrace, CounterexampleError> {
        from_labels::checked(self.model, self.behs, self.fair, self.undef, path, observed, prop)
    }

    /// The run-time error of the model that `path` reaches (a diagnostic of an error check:
    /// the labels of `observed` visible; `prop`: the check of that property's predicate, else
    /// of the steps and messages), as the native engine reports it: its message, and the trace
    /// that reaches it (`None` for an error while computing the initial states).
    pub(crate) fn runtime_error(
        &self,
        path: &LabelPath,
        observed: &BTreeSet<VarId>,
        prop: Option<&Property>,
    ) -> Result<(String, Option<Trace>), CounterexampleError> {
        // The code of the path's `ERR !agent !code` label, if it reports one.
        let code = path.labels.iter().rev().find_map(|l| {
            let (gate, offers) = super::cadp::split_label(l);
            (gate == crate::lnt::names::ERR).then(|| offers.get(1)?.parse::<u32>().ok()).flatten()
        });
        let site = match prop {
            Some(p) => from_labels::End::PredError(&p.pred),
            None => from_labels::End::StepError(code),
        };
        from_labels::runtime_error(self.model, self.behs, self.fair, self.undef, path, observed, &site, code)
    }

    /// The counterexample of `prop` that `path` (from the program emitted for `prop`'s query)
    /// is, or why it cannot be shown.
    pub fn counterexample(
        &self,
        path: &LabelPath,
        prop: &Property,
    ) -> Result<CheckedCounterexample, CounterexampleError> {
        let observed = self.observed(prop)?;
        let trace = from_labels::counterexample(self.model, self.behs, self.fair, self.undef, path, &observed, prop)?;
        Ok(CheckedCounterexample { trace })
    }
}
