//! Stage 2: syntax tree + extern values → resolved model.

pub mod arith;
