//! Linear-time formulas of `check`, an extension of LAbS (docs/language.md §6.1).
//!
//! Precedence, tightest first: prefixes (`always`, `finally`/`eventually`, `not`/`!`,
//! quantifiers), `until`/`unless` (right-associative), `and`, `or`, `implies`
//! (right-associative). `and` and `or` between two unquantified state predicates make one
//! predicate, so an atom is as large as the precedence lets it be. A prefix followed by a state
//! predicate takes the longest one: its operand extends over every `and` and `or` whose right
//! operand, read with the precedence above, is a state predicate too.

use super::*;
use crate::syntax::printer::{print_formula, print_qpred};

/// The words of temporal operators: an operand or a group holding one is not a state predicate
/// (`implies`, like `and`, `or` and `not`, is not one: it joins state predicates into one).
const TEMPORAL_WORDS: &[&str] = &["always", "finally", "eventually", "until", "unless"];

/// The keywords a misspelt word is compared with where an operand starts.
const OPERAND_WORDS: &[&str] = &["always", "finally", "eventually", "fairly", "fairly_inf", "forall", "exists"];

/// The keywords a misspelt word is compared with where a connective may come.
const CONNECTIVE_WORDS: &[&str] = &["until", "unless", "implies"];

impl Parser {
    /// A property that is not branching (`fairly`, `fairly_inf`) nor scoped: `always ψ` and
    /// `finally ψ` over one predicate keep their own modality; any other linear-time formula
    /// is `Modality::Ltl` (its first atom is the property's predicate).
    pub(super) fn linear_time_property(&mut self) -> PResult<(Modality, QPred)> {
        let eventually = self.is_word("eventually");
        let start = self.span();
        if let Some(e) = self.stray_word(true) {
            return Err(e);
        }
        let f = self.ltl()?;
        self.end_of_formula()?;
        Ok(match f {
            Ltl::Always(x) if matches!(*x, Ltl::Atom(_)) => {
                let Ltl::Atom(q) = *x else { unreachable!() };
                (Modality::Always, q)
            }
            Ltl::Finally(x) if matches!(*x, Ltl::Atom(_)) => {
                let Ltl::Atom(q) = *x else { unreachable!() };
                (if eventually { Modality::Eventually } else { Modality::Finally }, q)
            }
            f => {
                if is_state_formula(&f) {
                    let shown = match &f {
                        Ltl::Atom(q) => print_qpred(q),
                        other => format!("({})", print_formula(other)),
                    };
                    self.warnings.push(
                        Diagnostic::warning(
                            start.to(self.prev_span()),
                            "this property has no temporal operator: it is checked on the initial states only",
                        )
                        .with_hint(format!("for an invariant write `always {shown}`")),
                    );
                }
                let pred = (*f.atoms()[0]).clone();
                (Modality::Ltl(f), pred)
            }
        })
    }

    fn end_of_formula(&self) -> PResult<()> {
        if self.is_sym(Sym::RBrace) || self.is_upper_def_at(0) {
            return Ok(());
        }
        if let Some(e) = self.misspelt(CONNECTIVE_WORDS) {
            return Err(e);
        }
        Err(self.unexpected(
            "`}` or a new definition `Name = …` (or a temporal connective: `and`, `or`, `implies`, `until`, `unless`)",
        ))
    }

    /// `φ implies ψ` (right-associative), the loosest connective.
    fn ltl(&mut self) -> PResult<Ltl<QPred>> {
        let base = self.depth;
        let mut items = vec![self.ltl_or()?];
        while self.is_word("implies") {
            self.chain_link()?;
            self.bump();
            items.push(self.ltl_or()?);
        }
        self.depth = base;
        let mut f = items.pop().expect("one operand");
        while let Some(l) = items.pop() {
            f = Ltl::Implies(Box::new(l), Box::new(f));
        }
        Ok(f)
    }

    fn ltl_or(&mut self) -> PResult<Ltl<QPred>> {
        let base = self.depth;
        let mut mixed = None;
        let mut l = self.ltl_and()?;
        while self.is_word("or") {
            self.chain_link()?;
            self.bump();
            let r = self.ltl_and()?;
            l = self.join(BoolOp::Or, l, r, &mut mixed)?;
        }
        self.depth = base;
        if let Some(span) = mixed {
            self.warnings.push(and_or_mix(span));
        }
        Ok(l)
    }

    fn ltl_and(&mut self) -> PResult<Ltl<QPred>> {
        let base = self.depth;
        let mut l = self.ltl_until()?;
        while self.is_word("and") {
            self.chain_link()?;
            self.bump();
            let r = self.ltl_until()?;
            l = self.join(BoolOp::And, l, r, &mut None)?;
        }
        self.depth = base;
        Ok(l)
    }

    /// `φ until ψ` and `φ unless ψ`, right-associative.
    fn ltl_until(&mut self) -> PResult<Ltl<QPred>> {
        let base = self.depth;
        let mut items = vec![self.ltl_unary()?];
        let mut strong = Vec::new();
        loop {
            let until = self.is_word("until");
            if !until && !self.is_word("unless") {
                break;
            }
            self.chain_link()?;
            self.bump();
            strong.push(until);
            items.push(self.ltl_unary()?);
        }
        self.depth = base;
        let mut f = items.pop().expect("one operand");
        while let Some(l) = items.pop() {
            let (l, r) = (Box::new(l), Box::new(f));
            f = if strong.pop().expect("an operator between operands") { Ltl::Until(l, r) } else { Ltl::Unless(l, r) };
        }
        Ok(f)
    }

    /// A prefix with its operand, a parenthesised formula, or a state predicate at the level of
    /// a comparison (`x = 1`, `(x = 1 or y = 2)`, `!(x = 1)`, `true`).
    fn ltl_unary(&mut self) -> PResult<Ltl<QPred>> {
        let base = self.depth;
        self.chain_link()?;
        let f = self.ltl_unary_inner()?;
        self.depth = base;
        Ok(f)
    }

    fn ltl_unary_inner(&mut self) -> PResult<Ltl<QPred>> {
        if let Some(e) = self.stray_word(false) {
            return Err(e);
        }
        if ["always", "finally", "eventually"].iter().any(|w| self.is_word(w)) {
            let always = self.is_word("always");
            self.bump();
            let x = Box::new(if self.temporal_at(0) { self.ltl_unary()? } else { self.longest_predicate()? });
            return Ok(if always { Ltl::Always(x) } else { Ltl::Finally(x) });
        }
        let negation = self.is_sym(Sym::Bang) || self.is_not_keyword(Fl::Q, 0);
        if negation && self.formula_at(1) {
            let word = if self.is_sym(Sym::Bang) { "!" } else { "not" };
            self.bump();
            if self.is_word("forall") || self.is_word("exists") {
                return Err(self.err_hint(
                    self.span(),
                    format!("`{word}` before a quantifier needs parentheses"),
                    format!("write `{word} ({} …)`", if self.is_word("forall") { "forall" } else { "exists" }),
                ));
            }
            return Ok(Ltl::Not(Box::new(self.ltl_unary()?)));
        }
        if self.is_sym(Sym::LParen) && self.group_holds(0, true) {
            self.bump();
            let f = self.nested(|p| p.ltl())?;
            if let Some(e) = self.misspelt(CONNECTIVE_WORDS) {
                return Err(e);
            }
            self.expect_sym(Sym::RParen, " closing the formula")?;
            return Ok(f);
        }
        if self.is_word("forall") || self.is_word("exists") {
            return self.quantified();
        }
        let body = match self.b_atom(Fl::Q)? {
            Mixed::A(e) => BExpr::Truthy(e),
            Mixed::B(b) => b,
        };
        let span = body.span();
        Ok(Ltl::Atom(QPred { quants: Vec::new(), body, span }))
    }

    /// The operand of a prefix (`always`, `finally`, quantifiers) that starts with a state
    /// predicate: the longest one, over each `and` and `or` whose right operand is a state
    /// predicate too (`always x = 1 and y = 2` is `always (x = 1 and y = 2)`, but
    /// `always x = 1 and y = 2 until z = 3` is `(always x = 1) and (y = 2 until z = 3)`).
    fn longest_predicate(&mut self) -> PResult<Ltl<QPred>> {
        let base = self.depth;
        let mut mixed = None;
        let mut l = self.predicate_conjunction()?;
        while self.is_word("or") && self.predicate_follows(true) {
            self.chain_link()?;
            self.bump();
            let r = self.predicate_conjunction()?;
            l = self.join(BoolOp::Or, l, r, &mut mixed)?;
        }
        self.depth = base;
        if let Some(span) = mixed {
            self.warnings.push(and_or_mix(span));
        }
        Ok(l)
    }

    fn predicate_conjunction(&mut self) -> PResult<Ltl<QPred>> {
        let base = self.depth;
        let mut l = self.ltl_unary()?;
        while self.is_word("and") && self.predicate_follows(false) {
            self.chain_link()?;
            self.bump();
            let r = self.ltl_unary()?;
            l = self.join(BoolOp::And, l, r, &mut None)?;
        }
        self.depth = base;
        Ok(l)
    }

    /// `forall T x, …, ψ` in a formula: the quantifiers scope over the longest state predicate
    /// that follows, never over a temporal operator.
    fn quantified(&mut self) -> PResult<Ltl<QPred>> {
        let start = self.span();
        let mut quants = Vec::new();
        while self.is_word("forall") || self.is_word("exists") {
            let q = self.quantifier()?;
            self.expect_quant_comma(&q)?;
            quants.push(q);
        }
        if self.temporal_at(0) {
            return Err(self.err_hint(
                self.span(),
                "a quantifier cannot scope over a temporal operator",
                "quantify inside the temporal operator (`always forall A a, …`), or split the property",
            ));
        }
        let body_start = self.span();
        match self.longest_predicate()? {
            Ltl::Atom(q) => {
                quants.extend(q.quants);
                Ok(Ltl::Atom(QPred { quants, body: q.body, span: start.to(q.span) }))
            }
            _ => Err(self.err_hint(
                body_start.to(self.prev_span()),
                "a quantified predicate can hold other quantifiers only at its front",
                "write every quantifier first: `forall A a, exists B b, …`",
            )),
        }
    }

    /// `l and r` / `l or r`: one state predicate when both are unquantified predicates. A bare
    /// arithmetic operand is an error, as in conditions; `mixed` records where an `or` joins
    /// an unparenthesised `and` (the warning of D11).
    fn join(&self, op: BoolOp, l: Ltl<QPred>, r: Ltl<QPred>, mixed: &mut Option<Span>) -> PResult<Ltl<QPred>> {
        let word = match op {
            BoolOp::And => "and",
            BoolOp::Or => "or",
        };
        for side in [&l, &r] {
            if let Ltl::Atom(QPred { quants, body: BExpr::Truthy(e), .. }) = side
                && quants.is_empty()
            {
                return Err(self.err_hint(
                    e.span(),
                    format!("a bare arithmetic expression cannot be an operand of `{word}`"),
                    format!("compare it explicitly, e.g. `{} != 0`", print_expr(e)),
                ));
            }
        }
        Ok(match (l, r) {
            (Ltl::Atom(a), Ltl::Atom(b)) if a.quants.is_empty() && b.quants.is_empty() => {
                let span = a.span.to(b.span);
                let is_and = |b: &BExpr| matches!(b, BExpr::Logic(BoolOp::And, ..));
                if op == BoolOp::Or && (mixed.is_some() || is_and(&a.body) || is_and(&b.body)) {
                    *mixed = Some(span);
                }
                let body = BExpr::Logic(op, Box::new(a.body), Box::new(b.body), span);
                Ltl::Atom(QPred { quants: Vec::new(), body, span })
            }
            (l, r) => match op {
                BoolOp::And => Ltl::And(Box::new(l), Box::new(r)),
                BoolOp::Or => Ltl::Or(Box::new(l), Box::new(r)),
            },
        })
    }

    /// Whether the word at offset `k` is a temporal operator: `always`, `finally` and
    /// `eventually` always are; `until` and `unless` only after an operand (before one they
    /// name a variable).
    fn temporal_word_at(&self, k: usize) -> bool {
        ["always", "finally", "eventually"].iter().any(|w| self.is_word_at(k, w))
            || (["until", "unless"].iter().any(|w| self.is_word_at(k, w)) && self.after_operand(k))
    }

    /// Whether the word at offset `k` is the connective `implies` (after an operand).
    fn implies_at(&self, k: usize) -> bool {
        self.is_word_at(k, "implies") && self.after_operand(k)
    }

    /// Whether the token before offset `k` ends an operand.
    fn after_operand(&self, k: usize) -> bool {
        k > 0
            && matches!(
                self.peek_at(k - 1),
                TokKind::Lower(_)
                    | TokKind::Upper(_)
                    | TokKind::Int(_)
                    | TokKind::Extern(_)
                    | TokKind::Sym(Sym::RParen | Sym::RBracket)
            )
    }

    /// Whether a temporal formula starts at offset `k`: a temporal prefix, negated or not, or
    /// a parenthesised group holding a temporal operator.
    fn temporal_at(&self, mut k: usize) -> bool {
        while self.is_sym_at(k, Sym::Bang) || self.is_not_keyword(Fl::Q, k) {
            k += 1;
        }
        ["always", "finally", "eventually"].iter().any(|w| self.is_word_at(k, w))
            || (self.is_sym_at(k, Sym::LParen) && self.group_holds(k, false))
    }

    /// Whether a formula that is not a plain state predicate starts at offset `k`: a temporal
    /// one, a quantifier, or a parenthesised group holding either (negated or not).
    fn formula_at(&self, mut k: usize) -> bool {
        while self.is_sym_at(k, Sym::Bang) || self.is_not_keyword(Fl::Q, k) {
            k += 1;
        }
        ["always", "finally", "eventually", "forall", "exists"].iter().any(|w| self.is_word_at(k, w))
            || (self.is_sym_at(k, Sym::LParen) && self.group_holds(k, true))
    }

    /// Whether the group opened by the `(` at offset `k` holds a temporal operator (or, with
    /// `formula`, also `implies` or a quantifier, which no condition holds either): then it is
    /// a formula, not a condition or an expression.
    fn group_holds(&self, k: usize, formula: bool) -> bool {
        let mut depth = 0usize;
        let mut i = k;
        loop {
            match self.peek_at(i) {
                TokKind::Eof => return false,
                TokKind::Sym(Sym::LParen | Sym::LBracket | Sym::LBrace) => depth += 1,
                TokKind::Sym(Sym::RParen | Sym::RBracket | Sym::RBrace) => {
                    depth -= 1;
                    if depth == 0 {
                        return false;
                    }
                }
                _ if self.temporal_word_at(i) => return true,
                _ if formula
                    && (self.implies_at(i) || self.is_word_at(i, "forall") || self.is_word_at(i, "exists")) =>
                {
                    return true;
                }
                _ => {}
            }
            i += 1;
        }
    }

    /// Whether the operand right of the `and` (or, with `or_level`, the `or`) at the current
    /// token is a state predicate: whether it holds no temporal operator up to where it ends
    /// (the next `and` or `or` for `and`, the next `or` for `or`; `implies`, a closing bracket,
    /// the next definition or the end of the text for both).
    fn predicate_follows(&self, or_level: bool) -> bool {
        let mut depth = 0usize;
        let mut k = 1;
        loop {
            match self.peek_at(k) {
                TokKind::Eof => return true,
                TokKind::Sym(Sym::LParen | Sym::LBracket | Sym::LBrace) => depth += 1,
                TokKind::Sym(Sym::RParen | Sym::RBracket | Sym::RBrace) => {
                    if depth == 0 {
                        return true;
                    }
                    depth -= 1;
                }
                _ if depth == 0
                    && (self.is_word_at(k, "or")
                        || (!or_level && self.is_word_at(k, "and"))
                        || self.implies_at(k)
                        || self.is_upper_def_at(k)) =>
                {
                    return true;
                }
                _ if self.temporal_word_at(k) => return false,
                _ => {}
            }
            k += 1;
        }
    }

    /// A word where an operand starts that cannot be a variable, since what follows it cannot
    /// follow a variable: a misspelt keyword (`always finaly x = 1`), a branching modality or
    /// a scope inside a formula (`always fairly x = 1`), or no keyword at all (`sometimes x = 1`).
    fn stray_word(&self, at_start: bool) -> Option<PErr> {
        let TokKind::Lower(w) = self.peek() else { return None };
        if is_reserved(w) || TEMPORAL_WORDS.contains(&w.as_str()) || w == "not" || w == "implies" {
            return None;
        }
        let continues = match self.peek_at(1) {
            TokKind::Lower(n) => ["of", "and", "or", "until", "unless", "implies"].contains(&n.as_str()),
            TokKind::Upper(_) => self.is_sym_at(2, Sym::Eq),
            TokKind::Int(_) | TokKind::Extern(_) | TokKind::Sym(Sym::LParen | Sym::Bang) => false,
            _ => true,
        };
        if continues {
            return None;
        }
        let span = self.span();
        if w == "fairly" || w == "fairly_inf" {
            return Some(self.err_hint(
                span,
                format!("`{w}` cannot be an operand of a linear-time formula: it is a branching modality of a whole property"),
                format!("write it as a property of its own (`P = {w} ψ`); linear-time operators cannot apply to it"),
            ));
        }
        if (w == "between" || w == "from") && self.is_sym_at(1, Sym::LParen) {
            return Some(self.err_hint(
                span,
                format!("a scoped pattern (`{w} (…)`) cannot be an operand of a linear-time formula"),
                "write it as a property of its own",
            ));
        }
        if let Some(e) = self.misspelt(OPERAND_WORDS) {
            return Some(e);
        }
        if at_start {
            return Some(self.unexpected(
                "a modality (`always`, `eventually`, `finally`, `fairly`, `fairly_inf`, `between` or `from`) or a \
                 temporal formula",
            ));
        }
        Some(self.err_hint(
            span,
            format!("unexpected word `{w}`: a variable cannot be followed by {}", self.peek_at(1)),
            "the temporal operators are `always`, `finally` (`eventually`), `until`, `unless`, `not`, `and`, `or` \
             and `implies`",
        ))
    }

    /// An error naming the connective (`until`, `unless`, `implies`) that the current word
    /// misspells, if any: where a predicate of a property may end.
    pub(super) fn misspelt_connective(&self) -> Option<PErr> {
        self.misspelt(CONNECTIVE_WORDS)
    }

    /// An error suggesting the keyword among `words` that the current word misspells, if any.
    fn misspelt(&self, words: &[&str]) -> Option<PErr> {
        let TokKind::Lower(w) = self.peek() else { return None };
        if is_reserved(w) {
            return None;
        }
        let keyword = closest_keyword(w, words)?;
        Some(self.err_hint(
            self.span(),
            format!("unknown word `{w}`: did you mean `{keyword}`?"),
            "the temporal operators are `always`, `finally` (`eventually`), `until`, `unless`, `not`, `and`, `or` \
             and `implies`; `fairly` and `fairly_inf` start a property",
        ))
    }
}

/// Whether a formula has no temporal operator (it says something of the first state only).
fn is_state_formula(f: &Ltl<QPred>) -> bool {
    match f {
        Ltl::Atom(_) => true,
        Ltl::Not(x) => is_state_formula(x),
        Ltl::And(x, y) | Ltl::Or(x, y) | Ltl::Implies(x, y) => is_state_formula(x) && is_state_formula(y),
        Ltl::Always(_) | Ltl::Finally(_) | Ltl::Until(..) | Ltl::Unless(..) => false,
    }
}

/// The keyword of `words` that `w` most likely misspells: one edit away for a keyword of up to
/// five letters, two for a longer one (a word of fewer than three letters matches none).
fn closest_keyword<'a>(w: &str, words: &[&'a str]) -> Option<&'a str> {
    if w.len() < 3 {
        return None;
    }
    words
        .iter()
        .map(|k| (edit_distance(w, k), *k))
        .filter(|(d, k)| *d > 0 && *d <= if k.len() <= 5 { 1 } else { 2 })
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// The number of insertions, deletions, substitutions and swaps of adjacent letters that turn
/// `a` into `b` (optimal string alignment).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut d: Vec<Vec<usize>> =
        (0..=a.len()).map(|i| (0..=b.len()).map(|j| if i == 0 { j } else { i }).collect()).collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::{closest_keyword, edit_distance};

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("finaly", "finally"), 1);
        assert_eq!(edit_distance("untli", "until"), 1);
        assert_eq!(edit_distance("always", "always"), 0);
        assert_eq!(edit_distance("", "and"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn suggestions() {
        let words = &["always", "finally", "until"];
        assert_eq!(closest_keyword("finaly", words), Some("finally"));
        assert_eq!(closest_keyword("alwyas", words), Some("always"));
        assert_eq!(closest_keyword("untl", words), Some("until"));
        // Too far, too short, or the keyword itself.
        assert_eq!(closest_keyword("unt", words), None);
        assert_eq!(closest_keyword("sometimes", words), None);
        assert_eq!(closest_keyword("al", words), None);
        assert_eq!(closest_keyword("until", words), None);
    }
}
