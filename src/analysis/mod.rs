//! Value analysis (docs/semantics.md, "Value analysis").
//!
//! The abstract domain is [`IntervalSet`]: a normalised union of integer intervals plus a flag
//! for ⊥ (`undef`). A fixpoint keeps one `IntervalSet` per variable, grows it with
//! [`IntervalSet::join_assign`] (which reports whether anything changed), bounds its size with
//! [`IntervalSet::normalise_with_cap`], and after a fixed number of rounds switches to
//! [`IntervalSet::widen`], which guarantees termination. [`ops`] gives every expression
//! operator and guard filter on these sets, sound w.r.t. `model::arith`.

pub mod fallible;
pub(crate) mod intervals;
test_visible_mod!(ops);
pub mod values;

pub use intervals::{Interval, IntervalSet, NEG_INF, POS_INF, WidenBounds};
pub use ops::BoolSet;
