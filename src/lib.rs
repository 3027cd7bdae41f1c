//! `labs`: verification and simulation of LAbS specifications.
//!
//! Data flows one way through the stages (see `ARCHITECTURE.md`):
//! syntax → model → behaviour → {analysis, engine} → trace → cli.

pub mod analysis;
pub mod behaviour;
pub mod cadp;
pub mod cli;
pub mod diagnostics;
pub mod engine;
pub mod limits;
pub mod lnt;
pub mod lntcheck;
pub mod mcl;
pub mod model;
pub mod report;
pub mod stdout;
pub mod syntax;
pub mod trace;
