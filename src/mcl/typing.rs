//! Typing and scoping of a parsed query (MCL's rules, see docs/mcl.md).

use super::MclError;
use super::ast::Expr;

/// A parsed and typed query, ready for `evaluate`.
#[derive(Clone, Debug)]
pub struct Query {
    pub(crate) formula: Expr,
}

pub(crate) fn check(formula: Expr) -> Result<Query, Vec<MclError>> {
    Ok(Query { formula })
}
