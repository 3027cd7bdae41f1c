//! Static checks of the LNT subset (types, gates, offers, definite assignment).

use super::lexer::Diag;
use super::sem::Program;

pub fn check(_p: &Program) -> Vec<Diag> {
    vec![]
}
