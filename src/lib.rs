//! `labs`: verification and simulation of LAbS specifications.
//!
//! Data flows one way through the stages (`ARCHITECTURE.md` has the map and the layer
//! order): `syntax` (text → syntax tree) → `model` (names resolved, externs substituted) →
//! `behaviour` (processes → automata) → the back ends: `engine` (the native explicit-state
//! engine) and `lnt` (LNT, MCL and SVL for CADP), both using `analysis` (the value analysis);
//! the emitted files run in `lntcheck` (labs's own LNT and SVL interpreter, with the MCL
//! evaluator `mcl`) or through `cadp` (the CADP driver) → `trace` (every trace a user sees,
//! replayed) → `report` (the HTML page) → `explore` (the interactive simulator's server) → `cli`
//! (the only printer). `limits` (the bounds of a
//! run) and `diagnostics` (spans and messages) serve every stage.

/// Declares a module that the tests name: `pub` with the `test-support` feature (which the tests
/// enable), `pub(crate)` in the tool's build, where rustc's dead-code lint then covers its items.
macro_rules! test_visible_mod {
    ($name:ident) => {
        #[cfg(feature = "test-support")]
        pub mod $name;
        #[cfg(not(feature = "test-support"))]
        pub(crate) mod $name;
    };
}

pub mod analysis;
pub mod behaviour;
test_visible_mod!(cadp);
pub mod cli;
pub mod diagnostics;
pub mod engine;
pub mod explore;
pub mod limits;
pub mod lnt;
pub mod lntcheck;
pub mod lts_backend;
pub mod mcl;
pub mod model;
pub mod report;
pub mod stdout;
pub mod syntax;
pub mod trace;
