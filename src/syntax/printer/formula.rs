//! Linear-time formulas as LAbS text (docs/language.md §6.1): with only the parentheses the
//! grammar needs to read the same tree back (`print_formula`), or with every operand
//! parenthesised (`print_formula_full`, for the precedence tests).

use super::qpred;
use crate::syntax::ast::{BExpr, BoolOp, QPred};
use crate::syntax::ltl::Ltl;

/// Binding levels, loosest first.
const IMPLIES: u8 = 0;
const OR: u8 = 1;
const AND: u8 = 2;
const UNTIL: u8 = 3;
const PREFIX: u8 = 4;
const ATOM: u8 = 5;

/// What follows a formula's text inside its group, as far as a prefix at its right end cares
/// (`always`, `finally` or a quantifier whose state predicate extends over `and` and `or`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Follow {
    /// The end of the group, `implies`, or `or` and a temporal operand: the prefix's
    /// predicate may show both `and` and `or`.
    Free,
    /// `and` and a temporal operand: the predicate may show `and` only.
    And,
    /// `until` or `unless`: the predicate may show neither.
    Until,
    /// `and` or `or` and a state predicate, which the prefix would take as well: the prefix
    /// must be parenthesised.
    Predicate,
}

/// A formula with the fewest parentheses it needs to parse back to the same tree (up to
/// `and`/`or` between unquantified predicates, which the parser joins into one predicate).
pub fn print_formula(f: &Ltl<QPred>) -> String {
    let mut s = String::new();
    formula(&mut s, f, IMPLIES, Follow::Free);
    s
}

/// A formula with every operand parenthesised.
#[cfg(feature = "test-support")]
pub fn print_formula_full(f: &Ltl<QPred>) -> String {
    let group = |x: &Ltl<QPred>| match x {
        Ltl::Atom(_) => print_formula_full(x),
        other => format!("({})", print_formula_full(other)),
    };
    match f {
        Ltl::Atom(q) => format!("({})", qpred(q)),
        Ltl::Not(x) => format!("not {}", group(x)),
        Ltl::Always(x) => format!("always {}", group(x)),
        Ltl::Finally(x) => format!("finally {}", group(x)),
        Ltl::And(x, y) => format!("{} and {}", group(x), group(y)),
        Ltl::Or(x, y) => format!("{} or {}", group(x), group(y)),
        Ltl::Implies(x, y) => format!("{} implies {}", group(x), group(y)),
        Ltl::Until(x, y) => format!("{} until {}", group(x), group(y)),
        Ltl::Unless(x, y) => format!("{} unless {}", group(x), group(y)),
    }
}

fn level(f: &Ltl<QPred>) -> u8 {
    match f {
        Ltl::Atom(q) if !q.quants.is_empty() => PREFIX,
        Ltl::Atom(q) => body_level(&q.body),
        Ltl::Not(_) | Ltl::Always(_) | Ltl::Finally(_) => PREFIX,
        Ltl::Until(..) | Ltl::Unless(..) => UNTIL,
        Ltl::And(..) => AND,
        Ltl::Or(..) => OR,
        Ltl::Implies(..) => IMPLIES,
    }
}

fn body_level(b: &BExpr) -> u8 {
    match b {
        BExpr::Logic(BoolOp::Or, ..) => OR,
        BExpr::Logic(BoolOp::And, ..) => AND,
        _ => ATOM,
    }
}

/// Whether a formula holds no temporal operator.
fn is_predicate(f: &Ltl<QPred>) -> bool {
    match f {
        Ltl::Atom(_) => true,
        Ltl::Not(x) => is_predicate(x),
        Ltl::And(x, y) | Ltl::Or(x, y) | Ltl::Implies(x, y) => is_predicate(x) && is_predicate(y),
        Ltl::Always(_) | Ltl::Finally(_) | Ltl::Until(..) | Ltl::Unless(..) => false,
    }
}

/// The loosest level a prefix's state predicate may show before what follows.
fn shown(follow: Follow) -> u8 {
    match follow {
        Follow::Free => OR,
        Follow::And => AND,
        Follow::Until | Follow::Predicate => UNTIL,
    }
}

/// What follows the left operand of `and` (`or` when `or`) whose right operand is `right`.
fn before(right: &Ltl<QPred>, or: bool) -> Follow {
    if is_predicate(right) {
        Follow::Predicate
    } else if or {
        Follow::Free
    } else {
        Follow::And
    }
}

/// Prints `f` where the grammar expects level `min` or tighter, followed by `follow`.
fn formula(s: &mut String, f: &Ltl<QPred>, min: u8, follow: Follow) {
    let quantified = matches!(f, Ltl::Atom(q) if !q.quants.is_empty());
    let prefix = quantified || matches!(f, Ltl::Always(_) | Ltl::Finally(_));
    let loose_body = matches!(f, Ltl::Atom(q) if quantified && body_level(&q.body) < shown(follow));
    if level(f) < min || (prefix && follow == Follow::Predicate) || loose_body {
        s.push('(');
        formula(s, f, IMPLIES, Follow::Free);
        s.push(')');
        return;
    }
    match f {
        Ltl::Atom(q) => s.push_str(&qpred(q)),
        Ltl::Not(x) => {
            s.push_str("not ");
            if is_predicate(x) {
                // `not` takes a parenthesised predicate, as `!` does.
                s.push('(');
                formula(s, x, IMPLIES, Follow::Free);
                s.push(')');
            } else {
                formula(s, x, PREFIX, follow);
            }
        }
        Ltl::Always(x) | Ltl::Finally(x) => {
            s.push_str(if matches!(f, Ltl::Always(_)) { "always " } else { "finally " });
            let min = if is_predicate(x) { shown(follow) } else { PREFIX };
            formula(s, x, min, follow);
        }
        Ltl::Until(x, y) | Ltl::Unless(x, y) => {
            formula(s, x, UNTIL + 1, Follow::Until);
            s.push_str(if matches!(f, Ltl::Until(..)) { " until " } else { " unless " });
            formula(s, y, UNTIL, follow);
        }
        Ltl::And(x, y) => {
            formula(s, x, AND, before(y, false));
            s.push_str(" and ");
            formula(s, y, AND + 1, follow);
        }
        Ltl::Or(x, y) => {
            formula(s, x, OR, before(y, true));
            s.push_str(" or ");
            formula(s, y, OR + 1, follow);
        }
        Ltl::Implies(x, y) => {
            formula(s, x, OR, Follow::Free);
            s.push_str(" implies ");
            formula(s, y, IMPLIES, follow);
        }
    }
}
