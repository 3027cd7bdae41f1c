//! Concrete integer arithmetic of LAbS (docs/semantics.md, D9). Every back end and the value
//! analysis's soundness tests use these functions, so there is one definition of `/`, `%`, `:`.

use crate::syntax::ast::BinOp;

/// Why an operation has no value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithError {
    DivisionByZero,
    Overflow,
}

/// The range every LAbS value must stay in (32-bit, as LNT and the C back ends assume).
pub const MIN_VALUE: i64 = i32::MIN as i64 + 1;
pub const MAX_VALUE: i64 = i32::MAX as i64;

/// The most values one `[a..b]` may choose among (a capacity limit of the native engine, D9):
/// a step enumerates every choice, so a wider range (typically a bound read from a variable
/// that grew far) would make one step run for minutes; it stops the run with an error naming
/// the range instead.
pub(crate) const MAX_RANGE_CHOICES: i64 = 1 << 20;

fn checked(v: i64) -> Result<i64, ArithError> {
    if (MIN_VALUE..=MAX_VALUE).contains(&v) { Ok(v) } else { Err(ArithError::Overflow) }
}

/// `/`: truncates toward zero.
pub fn div(a: i64, b: i64) -> Result<i64, ArithError> {
    if b == 0 {
        return Err(ArithError::DivisionByZero);
    }
    checked(a / b)
}

/// `%`: the remainder in `[0, |b|)`, whatever the signs (`(0 - 1) % 5 = 4`, `-7 % -3 = 2`).
pub fn modulo(a: i64, b: i64) -> Result<i64, ArithError> {
    if b == 0 {
        return Err(ArithError::DivisionByZero);
    }
    checked(a.rem_euclid(b))
}

/// `:`: division rounded to the nearest integer, ties away from zero (`-7 : 2 = -4`).
pub fn rdiv(a: i64, b: i64) -> Result<i64, ArithError> {
    if b == 0 {
        return Err(ArithError::DivisionByZero);
    }
    let (n, d) = (a as i128, b as i128);
    let q = n / d;
    let r = n % d;
    // |r| / |d| >= 1/2  <=>  2|r| >= |d|
    let q = if 2 * r.abs() >= d.abs() { if (n < 0) != (d < 0) { q - 1 } else { q + 1 } } else { q };
    checked(q as i64)
}

pub fn binary(op: BinOp, a: i64, b: i64) -> Result<i64, ArithError> {
    match op {
        BinOp::Add => checked(a + b),
        BinOp::Sub => checked(a - b),
        BinOp::Mul => a.checked_mul(b).ok_or(ArithError::Overflow).and_then(checked),
        BinOp::Div => div(a, b),
        BinOp::Mod => modulo(a, b),
        BinOp::RDiv => rdiv(a, b),
    }
}

pub fn neg(a: i64) -> Result<i64, ArithError> {
    checked(-a)
}

pub fn abs(a: i64) -> Result<i64, ArithError> {
    checked(a.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semantics_cases_arith() {
        // tests/cases/arith.labs, derived by hand there.
        assert_eq!(div(-7, 2), Ok(-3));
        assert_eq!(modulo(-7, 5), Ok(3));
        assert_eq!(modulo(-1, 5), Ok(4));
        assert_eq!(rdiv(-7, 2), Ok(-4));
        assert_eq!(rdiv(7, 2), Ok(4));
        assert_eq!(rdiv(5, 3), Ok(2));
        assert_eq!(modulo(7, -3), Ok(1));
        assert_eq!(modulo(-7, -3), Ok(2));
        assert_eq!(div(1, 0), Err(ArithError::DivisionByZero));
        assert_eq!(rdiv(4, 3), Ok(1));
        assert_eq!(rdiv(-5, 2), Ok(-3));
        assert_eq!(rdiv(5, -2), Ok(-3));
        assert_eq!(binary(BinOp::Mul, 1 << 20, 1 << 20), Err(ArithError::Overflow));
    }
}
