//! Canonical LAbS text for syntax trees.
//!
//! The output parses back to the same tree (modulo spans). `Paren` nodes print as parentheses;
//! other parentheses are added only where the tree could not be read back otherwise
//! (precedence, a greedy `if … else` or `x of e` that is not the last operand, a guard that is
//! not the last item of a sequence, choice or parallel composition).

use super::ast::*;
use std::fmt::Write;

// Whole specifications and processes printed, and trees compared up to spans: what the
// round-trip tests and the fuzz target need, not the tool (which prints expressions and
// predicates in its messages).
mod formula;
pub use formula::print_formula;
#[cfg(feature = "test-support")]
pub use formula::print_formula_full;

#[cfg(feature = "test-support")]
mod erase;
#[cfg(feature = "test-support")]
mod whole;
#[cfg(feature = "test-support")]
pub use erase::{erase_proc, erase_spans};
#[cfg(feature = "test-support")]
pub use whole::{print_proc, print_spec};

fn quants(qs: &[Quantifier]) -> String {
    let mut s = String::new();
    for q in qs {
        let kw = match q.kind {
            QuantKind::Forall => "forall",
            QuantKind::Exists => "exists",
        };
        let _ = write!(s, "{kw} {} {}, ", q.agent.name, q.var.name);
    }
    s
}

/// Prints a quantified predicate.
pub(crate) fn print_qpred(q: &QPred) -> String {
    qpred(q)
}

fn qpred(q: &QPred) -> String {
    format!("{}{}", quants(&q.quants), Printer { q: true }.bexpr(&q.body))
}

/// Prints an arithmetic expression (process reading of `of`).
pub(crate) fn print_expr(e: &Expr) -> String {
    let mut s = String::new();
    Printer { q: false }.expr(&mut s, e, 0, true);
    s
}

/// Expression printer; `q` selects the property reading of `of` (a single name or number,
/// not greedy).
#[derive(Clone, Copy)]
struct Printer {
    q: bool,
}

fn bin_level(op: BinOp) -> u8 {
    match op {
        BinOp::Add | BinOp::Sub => 1,
        _ => 2,
    }
}

impl Printer {
    /// Precedence: 1 = sum, 2 = product, 3 = unary, 4 = primary.
    fn level(&self, e: &Expr) -> u8 {
        match e {
            Expr::Bin(op, ..) => bin_level(*op),
            Expr::Neg(..) => 3,
            Expr::Int(n, _) if *n < 0 => 3,
            _ => 4,
        }
    }

    /// Whether the expression extends greedily to the right (so it must be last).
    fn open_right(&self, e: &Expr) -> bool {
        match e {
            Expr::If { .. } => true,
            Expr::Var { owner: Some(Owner::Expr(_)), .. } => !self.q,
            Expr::Neg(inner, _) => self.open_right(inner),
            Expr::Bin(_, _, r, _) => self.open_right(r),
            _ => false,
        }
    }

    fn expr(&self, s: &mut String, e: &Expr, min: u8, tail: bool) {
        if self.level(e) < min || (!tail && self.open_right(e)) {
            s.push('(');
            self.expr(s, e, 0, true);
            s.push(')');
            return;
        }
        match e {
            Expr::Int(n, _) => {
                let _ = write!(s, "{n}");
            }
            Expr::Extern(i) => s.push_str(&i.name),
            Expr::Id { owner, .. } => {
                s.push_str("id");
                if let Some(o) = owner {
                    self.owner(s, o, tail);
                }
            }
            Expr::Var { name, indices, owner, .. } => {
                s.push_str(&name.name);
                if !indices.is_empty() {
                    s.push('[');
                    for (i, ix) in indices.iter().enumerate() {
                        if i > 0 {
                            s.push_str(", ");
                        }
                        self.expr(s, ix, 0, true);
                    }
                    s.push(']');
                }
                if let Some(o) = owner {
                    self.owner(s, o, tail);
                }
            }
            Expr::Neg(inner, _) => {
                s.push('-');
                let start = s.len();
                self.expr(s, inner, 3, tail);
                if s[start..].starts_with('-') {
                    s.insert(start, ' ');
                }
            }
            Expr::Abs(inner, _) => {
                s.push_str("abs(");
                self.expr(s, inner, 0, true);
                s.push(')');
            }
            Expr::Bin(op, l, r, _) => {
                let lvl = bin_level(*op);
                self.expr(s, l, lvl, false);
                let _ = write!(s, " {} ", op.as_str());
                self.expr(s, r, lvl + 1, tail);
            }
            Expr::MinMax(mm, a, b, _) => {
                s.push_str(match mm {
                    MinMax::Min => "min(",
                    MinMax::Max => "max(",
                });
                self.expr(s, a, 0, true);
                s.push_str(", ");
                self.expr(s, b, 0, true);
                s.push(')');
            }
            Expr::If { cond, then, els, .. } => {
                s.push_str("if ");
                s.push_str(&self.bexpr(cond));
                s.push_str(" then ");
                self.expr(s, then, 0, true);
                s.push_str(" else ");
                self.expr(s, els, 0, tail);
            }
            Expr::NonDet(a, b, _) => {
                s.push('[');
                self.expr(s, a, 0, true);
                s.push_str("..");
                self.expr(s, b, 0, true);
                s.push(']');
            }
            Expr::Paren(inner, _) => {
                s.push('(');
                self.expr(s, inner, 0, true);
                s.push(')');
            }
        }
    }

    fn owner(&self, s: &mut String, o: &Owner, tail: bool) {
        s.push_str(" of ");
        match o {
            Owner::C1(_) => s.push_str("c1"),
            Owner::C2(_) => s.push_str("c2"),
            Owner::Expr(e) => self.expr(s, e, if self.q { 4 } else { 0 }, tail),
        }
    }

    fn bexpr(&self, b: &BExpr) -> String {
        let mut s = String::new();
        self.b(&mut s, b, 0);
        s
    }

    /// Levels: 0 = `or`, 1 = `and`, 2 = atom.
    fn b(&self, s: &mut String, b: &BExpr, min: u8) {
        let lvl = match b {
            BExpr::Logic(BoolOp::Or, ..) => 0,
            BExpr::Logic(BoolOp::And, ..) => 1,
            _ => 2,
        };
        if lvl < min {
            s.push('(');
            self.b(s, b, 0);
            s.push(')');
            return;
        }
        match b {
            BExpr::Bool(v, _) => s.push_str(if *v { "true" } else { "false" }),
            BExpr::Not(inner, _) => {
                s.push('!');
                match inner.as_ref() {
                    BExpr::Bool(..) | BExpr::Paren(..) => self.b(s, inner, 2),
                    other => {
                        s.push('(');
                        self.b(s, other, 0);
                        s.push(')');
                    }
                }
            }
            BExpr::Cmp(op, l, r, _) => {
                self.expr(s, l, 0, true);
                let _ = write!(s, " {} ", op.as_str());
                self.expr(s, r, 0, true);
            }
            BExpr::Logic(op, l, r, _) => {
                self.b(s, l, lvl);
                s.push_str(match op {
                    BoolOp::And => " and ",
                    BoolOp::Or => " or ",
                });
                self.b(s, r, lvl + 1);
            }
            BExpr::Truthy(e) => self.expr(s, e, 0, true),
            BExpr::Paren(inner, _) => {
                s.push('(');
                self.b(s, inner, 0);
                s.push(')');
            }
        }
    }
}
