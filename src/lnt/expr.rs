//! Small pieces of LNT expression text shared by the view: comparison operators and the
//! row-major layout of arrays in the stores.

use crate::syntax::ast::CmpOp;

pub(crate) fn cmp_op(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "==",
        CmpOp::Ne => "!=",
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
    }
}

/// Row-major strides of an array's dimensions.
pub(crate) fn strides(dims: &[usize]) -> Vec<usize> {
    let mut out = vec![1; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        out[i] = out[i + 1] * dims[i + 1];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strides_row_major() {
        assert_eq!(strides(&[2, 3, 4]), vec![12, 4, 1]);
        assert_eq!(strides(&[5]), vec![1]);
    }
}
