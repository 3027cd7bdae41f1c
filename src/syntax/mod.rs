//! Stage 1: source text → syntax tree (`ast`), with located diagnostics.

pub mod ast;
pub mod lexer;
pub mod parser;
pub mod printer;
pub mod span;
pub mod stack;

pub use parser::{ParseOutput, parse};
