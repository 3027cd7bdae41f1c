//! Name resolution and static checks (labs-language.md §4).
use super::Model;
use crate::diagnostics::Diagnostics;
use crate::syntax::ast::Spec;
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
pub enum ResolveError {
    /// Externs used by the spec but not given (names with their leading `_`).
    MissingExterns(Vec<String>),
    /// Static errors (and the warnings found before them).
    Invalid(Diagnostics),
}

/// Resolves `spec` with the given extern values (keys with a leading `_`); on success also
/// returns the warnings.
pub fn resolve(
    _spec: &Spec,
    _externs: &BTreeMap<String, i64>,
) -> Result<(Model, Diagnostics), ResolveError> {
    Err(ResolveError::Invalid(Diagnostics::default()))
}
