//! `labs`: verification and simulation of LAbS specifications.
//!
//! Data flows one way through the stages (see `ARCHITECTURE.md`):
//! syntax → model → behaviour → {analysis, engine} → trace → cli.

pub mod behaviour;
pub mod diagnostics;
pub mod engine;
pub mod model;
pub mod syntax;
pub mod trace;
