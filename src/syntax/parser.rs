//! placeholder
use super::ast::Spec;
use crate::diagnostics::Diagnostics;
pub struct ParseOutput {
    pub spec: Option<Spec>,
    pub diagnostics: Diagnostics,
}
pub fn parse(_src: &str) -> ParseOutput {
    ParseOutput { spec: None, diagnostics: Diagnostics::default() }
}
