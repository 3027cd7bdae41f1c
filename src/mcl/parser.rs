//! The MCL parser: precedence climbing with loops for left-associative operators and a
//! nesting limit, so that hostile input can neither overflow the stack nor take more than
//! linear time. Keywords are case-insensitive.

use super::Located;
use super::ast::{BinOp, Expr, ExprKind, Name, Offer, Param, Pattern, Reg, RegKind, Sign, Type};
use super::lexer::{Tok, Token};
use crate::syntax::span::Span;

/// Deeper nesting (parentheses, modalities, fixpoints, prefix operators) is refused.
pub(crate) const MAX_NESTING: usize = 200;

/// Words that cannot name a variable. MCL's keywords, plus the operators spelt as words.
const RESERVED: &[&str] = &[
    "among",
    "and",
    "any",
    "case",
    "choice",
    "continue",
    "div",
    "do",
    "else",
    "elsif",
    "end",
    "end_library",
    "end_macro",
    "equ",
    "exists",
    "exit",
    "export",
    "false",
    "for",
    "forall",
    "from",
    "if",
    "implies",
    "in",
    "let",
    "library",
    "loop",
    "macro",
    "mod",
    "mu",
    "nil",
    "not",
    "nu",
    "of",
    "on",
    "or",
    "repeat",
    "step",
    "tau",
    "then",
    "to",
    "true",
    "until",
    "where",
    "while",
    "xor",
];

/// Constructs of MCL that this evaluator refuses by name.
const UNSUPPORTED: &[(&str, &str)] = &[
    ("exists", "`exists` (data quantifiers)"),
    ("forall", "`forall` (data quantifiers)"),
    ("loop", "`loop` (the infinite looping operator)"),
    ("let", "`let` (local data definitions)"),
    ("case", "`case`"),
    ("if", "`if` (conditional formulas and expressions)"),
    ("macro", "`macro` (definitions)"),
    ("library", "`library` (inclusion)"),
    ("repeat", "`repeat` (counted regular formulas)"),
    ("for", "`for` (counted regular formulas)"),
    ("while", "`while`"),
    ("choice", "`choice`"),
    ("continue", "`continue`"),
    ("exit", "`exit`"),
];

pub(crate) fn parse(tokens: &[Token]) -> Result<Expr, Vec<Located>> {
    let mut p = Parser { toks: tokens, pos: 0, depth: 0 };
    let e = p.formula().map_err(|e| vec![e])?;
    if !matches!(p.peek(), Tok::Eof) {
        return Err(vec![p.unexpected("the end of the query")]);
    }
    Ok(e)
}

struct Parser<'t> {
    toks: &'t [Token],
    pos: usize,
    depth: usize,
}

type PResult<T> = Result<T, Located>;

fn kw(tok: &Tok, word: &str) -> bool {
    matches!(tok, Tok::Ident(s) if s.eq_ignore_ascii_case(word))
}

fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Ident(s) => format!("`{s}`"),
        Tok::Num(n) => format!("`{n}`"),
        Tok::Str(s) => format!("\"{s}\""),
        Tok::Regex => "a regular expression".into(),
        Tok::Sym(s) => format!("`{s}`"),
        Tok::Eof => "the end of the query".into(),
    }
}

impl<'t> Parser<'t> {
    fn peek(&self) -> &'t Tok {
        &self.toks[self.pos].tok
    }

    fn peek_at(&self, k: usize) -> &'t Tok {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].tok
    }

    fn span(&self) -> Span {
        self.toks[self.pos].span
    }

    fn bump(&mut self) -> &'t Token {
        let t = &self.toks[self.pos];
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn is_sym(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Sym(x) if *x == s)
    }

    fn eat_sym(&mut self, s: &str) -> bool {
        let yes = self.is_sym(s);
        if yes {
            self.bump();
        }
        yes
    }

    fn eat_kw(&mut self, w: &str) -> bool {
        let yes = kw(self.peek(), w);
        if yes {
            self.bump();
        }
        yes
    }

    fn unexpected(&self, expected: &str) -> Located {
        Located::new(self.span(), format!("expected {expected}, found {}", describe(self.peek())))
    }

    fn expect_sym(&mut self, s: &str) -> PResult<Span> {
        if self.is_sym(s) { Ok(self.bump().span) } else { Err(self.unexpected(&format!("`{s}`"))) }
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(Located::new(self.span(), format!("the query nests deeper than {MAX_NESTING} levels")));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn refuse_unsupported(&self) -> PResult<()> {
        if let Tok::Ident(s) = self.peek() {
            let lower = s.to_ascii_lowercase();
            if let Some((_, what)) = UNSUPPORTED.iter().find(|(w, _)| *w == lower) {
                return Err(Located::new(self.span(), format!("{what} is not supported")));
            }
        }
        match self.peek() {
            Tok::Sym("@") | Tok::Sym("-|") => {
                Err(Located::new(self.span(), "the infinite looping operator is not supported"))
            }
            _ => Ok(()),
        }
    }

    fn name(&mut self, what: &str) -> PResult<Name> {
        match self.peek() {
            Tok::Ident(s) if !RESERVED.contains(&s.to_ascii_lowercase().as_str()) => {
                let t = self.bump();
                Ok(Name { text: s.clone(), span: t.span })
            }
            Tok::Ident(s) => Err(Located::new(self.span(), format!("`{s}` is a keyword and cannot name {what}"))),
            _ => Err(self.unexpected(what)),
        }
    }

    fn ty(&mut self) -> PResult<Type> {
        let span = self.span();
        let Tok::Ident(s) = self.peek() else { return Err(self.unexpected("a type")) };
        let t = match s.to_ascii_lowercase().as_str() {
            "bool" => Type::Bool,
            "nat" => Type::Nat,
            "int" => Type::Int,
            "real" | "char" | "string" | "natset" => {
                return Err(Located::new(span, format!("type `{s}` is not supported (only Bool, Nat, Int)")));
            }
            _ => return Err(Located::new(span, format!("unknown type `{s}` (MCL has no user-defined types)"))),
        };
        self.bump();
        Ok(t)
    }

    // ---- state formulas and data expressions (one grammar, see ast.rs) ----

    /// Lowest level: `implies` and `equ` (right-associative).
    fn formula(&mut self) -> PResult<Expr> {
        self.enter()?;
        let mut operands = vec![self.disjunction()?];
        let mut ops = Vec::new();
        loop {
            let op = if kw(self.peek(), "implies") {
                BinOp::Implies
            } else if kw(self.peek(), "equ") {
                BinOp::Equ
            } else {
                break;
            };
            self.bump();
            ops.push(op);
            operands.push(self.disjunction()?);
        }
        let mut e = operands.pop().expect("one operand");
        while let Some(l) = operands.pop() {
            let op = ops.pop().expect("one operator per operand pair");
            let span = l.span.to(e.span);
            e = Expr { kind: ExprKind::Bin(op, Box::new(l), Box::new(e)), span };
        }
        self.leave();
        Ok(e)
    }

    /// Each operand nests the tree one level deeper, so it counts against `MAX_NESTING`.
    fn left_assoc(&mut self, next: fn(&mut Self) -> PResult<Expr>, ops: fn(&Tok) -> Option<BinOp>) -> PResult<Expr> {
        let depth = self.depth;
        let mut e = next(self)?;
        while let Some(op) = ops(self.peek()) {
            self.bump();
            self.enter()?;
            let r = next(self)?;
            let span = e.span.to(r.span);
            e = Expr { kind: ExprKind::Bin(op, Box::new(e), Box::new(r)), span };
        }
        self.depth = depth;
        Ok(e)
    }

    fn disjunction(&mut self) -> PResult<Expr> {
        let mut e = self.chain(Self::conjunction, "or", BinOp::Or)?;
        while self.eat_kw("xor") {
            self.enter()?;
            let r = self.chain(Self::conjunction, "or", BinOp::Or)?;
            let span = e.span.to(r.span);
            e = Expr { kind: ExprKind::Bin(BinOp::Xor, Box::new(e), Box::new(r)), span };
        }
        Ok(e)
    }

    fn conjunction(&mut self) -> PResult<Expr> {
        self.chain(Self::prefix, "and", BinOp::And)
    }

    /// `F word F word ...` as one flat node.
    fn chain(&mut self, next: fn(&mut Self) -> PResult<Expr>, word: &str, op: BinOp) -> PResult<Expr> {
        let first = next(self)?;
        if !kw(self.peek(), word) {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat_kw(word) {
            items.push(next(self)?);
        }
        let span = items[0].span.to(items[items.len() - 1].span);
        Ok(Expr { kind: ExprKind::Chain(op, items), span })
    }

    /// `not F`, `< R > F`, `[ R ] F`, or a comparison.
    fn prefix(&mut self) -> PResult<Expr> {
        let start = self.span();
        if self.eat_kw("not") {
            self.enter()?;
            let e = self.prefix()?;
            self.leave();
            let span = start.to(e.span);
            return Ok(Expr { kind: ExprKind::Not(Box::new(e)), span });
        }
        let diamond = self.is_sym("<");
        if diamond || self.is_sym("[") {
            self.bump();
            self.enter()?;
            let r = self.reg()?;
            self.expect_sym(if diamond { ">" } else { "]" })?;
            let looping = if diamond { "@" } else { "-|" };
            if self.is_sym(looping) {
                let end = self.bump().span;
                self.leave();
                return Ok(Expr { kind: ExprKind::Loop(Box::new(r), diamond), span: start.to(end) });
            }
            let f = self.prefix()?;
            self.leave();
            let span = start.to(f.span);
            let kind = if diamond {
                ExprKind::Diamond(Box::new(r), Box::new(f))
            } else {
                ExprKind::Box(Box::new(r), Box::new(f))
            };
            return Ok(Expr { kind, span });
        }
        self.comparison()
    }

    fn comparison(&mut self) -> PResult<Expr> {
        let l = self.additive()?;
        let op = match self.peek() {
            Tok::Sym("=") => BinOp::Eq,
            Tok::Sym("<>") => BinOp::Ne,
            Tok::Sym("<") => BinOp::Lt,
            Tok::Sym("<=") => BinOp::Le,
            Tok::Sym(">") => BinOp::Gt,
            Tok::Sym(">=") => BinOp::Ge,
            _ => return Ok(l),
        };
        self.bump();
        let r = self.additive()?;
        if matches!(self.peek(), Tok::Sym("=" | "<>" | "<" | "<=" | ">" | ">=")) {
            return Err(Located::new(self.span(), "comparisons do not chain: add parentheses"));
        }
        let span = l.span.to(r.span);
        Ok(Expr { kind: ExprKind::Bin(op, Box::new(l), Box::new(r)), span })
    }

    fn additive(&mut self) -> PResult<Expr> {
        self.left_assoc(Self::multiplicative, |t| match t {
            Tok::Sym("+") => Some(BinOp::Add),
            Tok::Sym("-") => Some(BinOp::Sub),
            _ => None,
        })
    }

    fn multiplicative(&mut self) -> PResult<Expr> {
        self.left_assoc(Self::unary, |t| match t {
            Tok::Sym("*") => Some(BinOp::Mul),
            Tok::Ident(s) if s.eq_ignore_ascii_case("div") => Some(BinOp::Div),
            Tok::Ident(s) if s.eq_ignore_ascii_case("mod") => Some(BinOp::Mod),
            _ => None,
        })
    }

    fn unary(&mut self) -> PResult<Expr> {
        let start = self.span();
        if self.eat_sym("-") {
            self.enter()?;
            let e = self.unary()?;
            self.leave();
            let span = start.to(e.span);
            return Ok(Expr { kind: ExprKind::Neg(Box::new(e)), span });
        }
        self.primary()
    }

    fn primary(&mut self) -> PResult<Expr> {
        self.refuse_unsupported()?;
        let start = self.span();
        match self.peek() {
            Tok::Num(n) => {
                self.bump();
                Ok(Expr { kind: ExprKind::Num(*n), span: start })
            }
            Tok::Sym("(") => {
                self.bump();
                let e = self.formula()?;
                let end = self.expect_sym(")")?;
                Ok(Expr { kind: e.kind, span: start.to(end) })
            }
            Tok::Sym("/") | Tok::Sym("%") => {
                Err(Located::new(start, "`/` and `%` are not MCL operators: write `div` and `mod`"))
            }
            Tok::Ident(s) if s.eq_ignore_ascii_case("true") || s.eq_ignore_ascii_case("false") => {
                self.bump();
                Ok(Expr { kind: ExprKind::Bool(s.eq_ignore_ascii_case("true")), span: start })
            }
            Tok::Ident(s) if s.eq_ignore_ascii_case("mu") || s.eq_ignore_ascii_case("nu") => {
                let sign = if s.eq_ignore_ascii_case("mu") { Sign::Mu } else { Sign::Nu };
                self.bump();
                self.fixpoint(sign, start)
            }
            Tok::Ident(_) => {
                let name = self.name("a variable")?;
                if self.is_sym("(") {
                    self.bump();
                    let mut args = Vec::new();
                    if !self.is_sym(")") {
                        loop {
                            args.push(self.formula()?);
                            if !self.eat_sym(",") {
                                break;
                            }
                        }
                    }
                    let end = self.expect_sym(")")?;
                    let span = start.to(end);
                    return Ok(Expr { kind: ExprKind::Call(name, args), span });
                }
                Ok(Expr { kind: ExprKind::Var(name.text), span: name.span })
            }
            Tok::Str(_) | Tok::Regex => {
                Err(Located::new(start, "an action formula is only allowed inside `< >` or `[ ]`"))
            }
            _ => Err(self.unexpected("a formula")),
        }
    }

    fn fixpoint(&mut self, sign: Sign, start: Span) -> PResult<Expr> {
        self.enter()?;
        let name = self.name("a fixed point variable")?;
        let mut params = Vec::new();
        if self.eat_sym("(") {
            loop {
                let pname = self.name("a parameter")?;
                self.expect_sym(":")?;
                let ty = self.ty()?;
                if !self.eat_sym(":=") {
                    return Err(self.unexpected("`:=` and the initial value of the parameter"));
                }
                let init = self.formula()?;
                params.push(Param { name: pname, ty, init });
                if !self.eat_sym(",") {
                    break;
                }
            }
            self.expect_sym(")")?;
        }
        self.expect_sym(".")?;
        let body = self.formula()?;
        self.leave();
        let span = start.to(body.span);
        Ok(Expr { kind: ExprKind::Fix { sign, name, params, body: Box::new(body) }, span })
    }

    // ---- regular formulas and action formulas ----

    fn reg_node(kind: RegKind, span: Span) -> Reg {
        Reg { kind, span }
    }

    /// `R | R` (lowest), `R . R`, postfix `*` `+` `{n}`, then action formulas.
    fn reg(&mut self) -> PResult<Reg> {
        let depth = self.depth;
        self.enter()?;
        let mut r = self.reg_seq()?;
        while self.eat_sym("|") {
            self.enter()?;
            let s = self.reg_seq()?;
            let span = r.span.to(s.span);
            r = Self::reg_node(RegKind::Alt(Box::new(r), Box::new(s)), span);
        }
        self.depth = depth;
        Ok(r)
    }

    fn reg_seq(&mut self) -> PResult<Reg> {
        let depth = self.depth;
        let mut r = self.reg_postfix()?;
        while self.eat_sym(".") {
            self.enter()?;
            let s = self.reg_postfix()?;
            let span = r.span.to(s.span);
            r = Self::reg_node(RegKind::Seq(Box::new(r), Box::new(s)), span);
        }
        self.depth = depth;
        Ok(r)
    }

    fn reg_postfix(&mut self) -> PResult<Reg> {
        let mut r = self.act_implies()?;
        loop {
            let end = self.span();
            if self.eat_sym("*") {
                let span = r.span.to(end);
                r = Self::reg_node(RegKind::Star(Box::new(r)), span);
            } else if self.eat_sym("+") {
                let span = r.span.to(end);
                r = Self::reg_node(RegKind::Plus(Box::new(r)), span);
            } else if self.is_sym("{") && matches!(self.peek_at(1), Tok::Num(_)) {
                self.bump();
                let n = if let Tok::Num(n) = self.peek() { *n } else { 0 };
                self.bump();
                if self.is_sym(",") || self.is_sym("...") {
                    return Err(Located::new(self.span(), "counted regular formulas with ranges are not supported"));
                }
                let end = self.expect_sym("}")?;
                if n > 64 {
                    return Err(Located::new(r.span.to(end), "a repetition count above 64 is not supported"));
                }
                let span = r.span.to(end);
                r = Self::reg_node(RegKind::Repeat(Box::new(r), n), span);
            } else {
                return Ok(r);
            }
        }
    }

    fn act_implies(&mut self) -> PResult<Reg> {
        let l = self.act_or()?;
        if self.eat_kw("implies") {
            self.enter()?;
            let r = self.act_implies()?;
            self.leave();
            let span = l.span.to(r.span);
            return Ok(Self::reg_node(RegKind::Implies(Box::new(l), Box::new(r)), span));
        }
        Ok(l)
    }

    fn act_or(&mut self) -> PResult<Reg> {
        self.act_chain(Self::act_and, "or", RegKind::Or)
    }

    fn act_and(&mut self) -> PResult<Reg> {
        self.act_chain(Self::act_not, "and", RegKind::And)
    }

    fn act_chain(
        &mut self,
        next: fn(&mut Self) -> PResult<Reg>,
        word: &str,
        make: fn(Vec<Reg>) -> RegKind,
    ) -> PResult<Reg> {
        let first = next(self)?;
        if !kw(self.peek(), word) {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat_kw(word) {
            items.push(next(self)?);
        }
        let span = items[0].span.to(items[items.len() - 1].span);
        Ok(Self::reg_node(make(items), span))
    }

    fn act_not(&mut self) -> PResult<Reg> {
        let start = self.span();
        if self.eat_kw("not") {
            self.enter()?;
            let a = self.act_not()?;
            self.leave();
            let span = start.to(a.span);
            return Ok(Self::reg_node(RegKind::Not(Box::new(a)), span));
        }
        self.act_atom()
    }

    fn act_atom(&mut self) -> PResult<Reg> {
        self.refuse_unsupported()?;
        let start = self.span();
        let kind = match self.peek() {
            Tok::Str(s) => {
                self.bump();
                RegKind::Label(s.clone())
            }
            Tok::Regex => {
                return Err(Located::new(start, "regular expressions over labels ('...') are not supported"));
            }
            Tok::Ident(s) if s.eq_ignore_ascii_case("true") => {
                self.bump();
                RegKind::True
            }
            Tok::Ident(s) if s.eq_ignore_ascii_case("false") => {
                self.bump();
                RegKind::False
            }
            Tok::Ident(s) if s.eq_ignore_ascii_case("nil") => {
                self.bump();
                RegKind::Nil
            }
            Tok::Ident(s) if s.eq_ignore_ascii_case("tau") => {
                self.bump();
                RegKind::Label("i".into())
            }
            Tok::Sym("(") => {
                self.bump();
                let r = self.reg()?;
                let end = self.expect_sym(")")?;
                return Ok(Reg { kind: r.kind, span: start.to(end) });
            }
            Tok::Sym("{") => {
                self.bump();
                return self.pattern(start);
            }
            _ => return Err(self.unexpected("an action formula")),
        };
        Ok(Self::reg_node(kind, start))
    }

    /// After `{`: `G !e ?x:T ?any ... where c }`.
    fn pattern(&mut self, start: Span) -> PResult<Reg> {
        let gate = match self.peek() {
            Tok::Ident(s) if s.eq_ignore_ascii_case("tau") || s == "i" => {
                Name { text: "i".into(), span: self.bump().span }
            }
            _ => self.name("a gate")?,
        };
        let paren = self.eat_sym("(");
        let mut offers = Vec::new();
        let mut more = false;
        loop {
            if self.eat_sym("!") {
                offers.push(Offer::Emit(self.additive()?));
            } else if self.eat_sym("?") {
                if self.eat_kw("any") {
                    offers.push(Offer::Any);
                } else {
                    let x = self.name("a variable")?;
                    self.expect_sym(":")?;
                    let ty = self.ty()?;
                    offers.push(Offer::Bind(x, ty));
                }
            } else if self.eat_sym("...") {
                more = true;
                break;
            } else {
                break;
            }
            if paren {
                self.eat_sym(",");
            }
        }
        if paren {
            self.expect_sym(")")?;
        }
        let guard = if self.eat_kw("where") { Some(self.formula()?) } else { None };
        let end = self.expect_sym("}")?;
        Ok(Self::reg_node(RegKind::Pattern(Pattern { gate, offers, more, guard }), start.to(end)))
    }
}
