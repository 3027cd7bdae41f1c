//! The run-time errors of the model (D9) as the LNT program reports them: the code offered by
//! its visible gate `ERR !agent !code` (and the status of its evaluation functions).

/// Division or modulo by zero.
pub(crate) const E_DIV: u32 = 3;
/// A value outside the 32-bit range of LAbS.
pub(crate) const E_OVERFLOW: u32 = 4;
/// An array index out of range.
pub(crate) const E_INDEX: u32 = 5;
/// An agent id out of range in `x of e`.
pub(crate) const E_AGENT: u32 = 6;

/// The code of the run-time error a native engine message reports.
pub(crate) fn error_code(message: &str) -> u32 {
    if message.contains("division") {
        E_DIV
    } else if message.contains("overflow") {
        E_OVERFLOW
    } else if message.starts_with("agent id") {
        E_AGENT
    } else {
        E_INDEX
    }
}

/// What an `ERR` code stands for.
pub(crate) fn error_kind(code: u32) -> Option<&'static str> {
    match code {
        E_DIV => Some("division by zero"),
        E_OVERFLOW => Some("arithmetic overflow"),
        E_INDEX => Some("index out of range"),
        E_AGENT => Some("agent id out of range"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn native_messages_have_their_codes() {
        // The engine's wording (src/engine/eval.rs, src/model/arith.rs via arith_err).
        assert_eq!(error_code("division by zero (in a step of P 0)"), E_DIV);
        assert_eq!(error_code("arithmetic overflow"), E_OVERFLOW);
        assert_eq!(error_code("index 2 out of range for `ea` (size 2)"), E_INDEX);
        assert_eq!(error_code("index 3 out of range for a local array (size 2)"), E_INDEX);
        assert_eq!(error_code("agent id 5 out of range (0..2) (in a link predicate)"), E_AGENT);
        for c in [E_DIV, E_OVERFLOW, E_INDEX, E_AGENT] {
            assert!(error_kind(c).is_some());
        }
        assert_eq!(error_kind(1), None);
    }
}
