//! An independent front end and interpreter for the LNT programs `labs emit` writes
//! (`docs/lntcheck.md`): parser and checks for the emitted subset (both dialects), an
//! LTS generator for process networks, the SVL-level operators of the generated scripts, and
//! the `lnt` verification back end.

test_visible_mod!(ast);
test_visible_mod!(backend);
pub(crate) mod code;
mod error;
pub(crate) mod eval;
test_visible_mod!(files);
pub mod interp;
pub(crate) mod jobs;
pub(crate) mod lexer;
test_visible_mod!(lts);
pub(crate) mod on_the_fly;
pub(crate) mod parser;
test_visible_mod!(probability);
test_visible_mod!(reduce);
mod refine;
pub(crate) mod sem;
test_visible_mod!(simulate);
pub(crate) mod store;
pub mod svl;
mod verify;

pub(crate) use crate::diagnostics::Located;
pub use error::LntcheckError;
pub use verify::{VerifyError, verify};

/// Parses an LNT module (any dialect, one spelling per construct) without compiling it: its
/// syntax tree, for the tests' checks of the emitted text.
#[cfg(feature = "test-support")]
pub fn parse(src: &str) -> Result<ast::Module, Located> {
    crate::syntax::stack::on_large_stack("labs-lnt-parser", || parser::parse_module(src, None))
}

/// Parses and compiles an LNT module.
pub fn load(src: &str, dialect: Option<ast::Dialect>) -> Result<sem::Program, Located> {
    // On a large stack: nesting is bounded (200 levels of expressions), but a level takes
    // several frames of the recursive descent.
    let m = crate::syntax::stack::on_large_stack("labs-lnt-parser", || parser::parse_module(src, dialect))?;
    let mut program = sem::Program::build(m)?;
    program.file = crate::diagnostics::span::SourceFile::new("", src);
    Ok(program)
}

test_visible_mod!(check);
/// Test oracle (feature `test-support`): the differential comparison with the native engine.
#[cfg(feature = "test-support")]
pub mod diff;
/// Test oracle (feature `test-support`): the loops of an emitted LNT program whose body may
/// complete without an action.
#[cfg(feature = "test-support")]
pub mod guarded;
/// Test oracle (feature `test-support`): the declarations of an emitted LNT program that nothing uses.
#[cfg(feature = "test-support")]
pub mod unused;

/// The leaf of the network that is the agent with id `id` (a process `Agent_…` whose first
/// parameter is `id`).
pub(crate) fn agent_leaf(_p: &sem::Program, net: &interp::Net, id: u32) -> Option<usize> {
    net.leaves
        .iter()
        .position(|l| l.proc.name.starts_with("Agent_") && l.args.first() == Some(&sem::Value::I(id as i64)))
}
