//! Process terms → control-state automata.
use super::Behaviour;
use crate::model::{Model, TypeId};

#[derive(Clone, Debug)]
pub struct CompileError {
    pub message: String,
    pub span: crate::syntax::span::Span,
}

/// Compiles the behaviour of agent type `ty`.
pub fn compile(_model: &Model, _ty: TypeId) -> Result<Behaviour, CompileError> {
    Err(CompileError {
        message: "not yet".into(),
        span: Default::default(),
    })
}
