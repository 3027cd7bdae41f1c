//! Hand-written recursive-descent parser for LAbS (docs/language.md §3).
//!
//! Expressions of the five flavours (process, constant, spawn, link, property) share one
//! grammar and one syntax tree; the flavour decides which references and special terms are
//! admitted. Parentheses that may open either an arithmetic or a Boolean expression are parsed
//! without backtracking (the contents decide). Processes try a guard first and backtrack to an
//! action or a parenthesised process (docs/language.md §3.6). The first syntax error stops
//! the parse.
//!
//! One file, although long: it is one grammar, each production a method that calls the
//! others, and reads best in grammar order next to docs/language.md §3.

use super::ast::*;
use super::lexer::{Sym, TokKind, Token, is_reserved, tokenize};
use super::printer::print_expr;
use super::span::Span;
use crate::diagnostics::plural;
use crate::diagnostics::{Diagnostic, Diagnostics};

mod formula;

/// The result of parsing: a tree when there is no error, plus every diagnostic (warnings too).
#[derive(Debug)]
pub struct ParseOutput {
    pub spec: Option<Spec>,
    pub diagnostics: Diagnostics,
}

/// Parses a whole specification (on a large stack: nesting is bounded by `MAX_DEPTH`, but
/// deep).
pub fn parse(src: &str) -> ParseOutput {
    super::stack::on_large_stack("labs-parser", || parse_inline(src))
}

fn parse_inline(src: &str) -> ParseOutput {
    let (toks, lex_errors) = tokenize(src);
    let mut diagnostics = Diagnostics::default();
    if !lex_errors.is_empty() {
        for d in lex_errors {
            diagnostics.push(d);
        }
        return ParseOutput { spec: None, diagnostics };
    }
    let mut p = Parser::new(toks);
    let result = p.spec();
    for w in p.warnings.drain(..) {
        diagnostics.push(w);
    }
    match result {
        Ok(spec) => ParseOutput { spec: Some(spec), diagnostics },
        Err(e) => {
            diagnostics.push(e.diag);
            ParseOutput { spec: None, diagnostics }
        }
    }
}

/// The warning on an unparenthesised mix of `and` and `or` (docs/semantics.md, D11).
fn and_or_mix(span: Span) -> Diagnostic {
    Diagnostic::warning(
        span,
        "`and` binds tighter than `or` here; the reference tool reads it left to right: add parentheses",
    )
    .with_hint("`a or b and c` means `a or (b and c)` in this tool but `(a or b) and c` in SLiVER")
}

/// Maximum nesting of expressions, conditions and processes.
const MAX_DEPTH: u32 = 200;

/// A syntax error and the token index where the parse gave up (to pick the furthest error
/// among backtracking alternatives).
struct PErr {
    diag: Diagnostic,
    at: usize,
}

type PResult<T> = Result<T, PErr>;

/// Expression flavours (docs/language.md §3.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fl {
    /// Processes.
    P,
    /// Constants (initialisers, array sizes, `pick` counts).
    C,
    /// Spawn counts.
    S,
    /// Link predicates and `pick … where`.
    L,
    /// Properties and assumptions.
    Q,
}

impl Fl {
    fn place(self) -> &'static str {
        match self {
            Fl::P => "processes",
            Fl::C => "constant expressions",
            Fl::S => "spawn counts",
            Fl::L => "link predicates",
            Fl::Q => "properties",
        }
    }
}

/// An expression that may turn out to be arithmetic or Boolean.
enum Mixed {
    A(Expr),
    B(BExpr),
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    depth: u32,
    warnings: Vec<Diagnostic>,
}

struct Save {
    pos: usize,
    depth: u32,
    warnings: usize,
}

/// An "expected …, found …" error, less informative than a specific one at the same place.
fn is_generic(e: &PErr) -> bool {
    e.diag.message.starts_with("expected ")
}

const SECTION_WORDS: &[&str] = &["extern", "environment", "spawn", "interface", "stigmergies", "link"];

impl Parser {
    fn new(toks: Vec<Token>) -> Parser {
        Parser { toks, pos: 0, depth: 0, warnings: Vec::new() }
    }

    // ----------------------------------------------------------------- token helpers

    fn tok_at(&self, k: usize) -> &Token {
        let i = (self.pos + k).min(self.toks.len() - 1);
        &self.toks[i]
    }
    fn peek(&self) -> &TokKind {
        &self.tok_at(0).kind
    }
    fn peek_at(&self, k: usize) -> &TokKind {
        &self.tok_at(k).kind
    }
    fn span(&self) -> Span {
        self.tok_at(0).span
    }
    fn prev_span(&self) -> Span {
        if self.pos == 0 { self.toks[0].span } else { self.toks[self.pos - 1].span }
    }
    fn bump(&mut self) -> Token {
        let t = self.tok_at(0).clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }
    fn is_sym(&self, s: Sym) -> bool {
        self.peek() == &TokKind::Sym(s)
    }
    fn is_sym_at(&self, k: usize, s: Sym) -> bool {
        self.peek_at(k) == &TokKind::Sym(s)
    }
    fn eat_sym(&mut self, s: Sym) -> bool {
        if self.is_sym(s) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn is_word_at(&self, k: usize, w: &str) -> bool {
        matches!(self.peek_at(k), TokKind::Lower(x) | TokKind::Upper(x) if x == w)
    }
    fn is_word(&self, w: &str) -> bool {
        self.is_word_at(0, w)
    }
    fn is_upper_def_at(&self, k: usize) -> bool {
        matches!(self.peek_at(k), TokKind::Upper(_)) && self.is_sym_at(k + 1, Sym::Eq)
    }
    fn is_eof(&self) -> bool {
        self.peek() == &TokKind::Eof
    }

    fn err(&self, span: Span, msg: impl Into<String>) -> PErr {
        PErr { diag: Diagnostic::error(span, msg), at: self.pos }
    }
    fn err_hint(&self, span: Span, msg: impl Into<String>, hint: impl Into<String>) -> PErr {
        PErr { diag: Diagnostic::error(span, msg).with_hint(hint), at: self.pos }
    }
    fn unexpected(&self, expected: &str) -> PErr {
        self.err(self.span(), format!("expected {expected}, found {}", self.peek()))
    }
    fn expect_sym(&mut self, s: Sym, context: &str) -> PResult<Span> {
        if self.is_sym(s) {
            Ok(self.bump().span)
        } else {
            let mut e = self.unexpected(&format!("`{}`{context}", s.as_str()));
            if s == Sym::RParen || s == Sym::RBracket || s == Sym::RBrace {
                e.diag = e.diag.with_hint("check that the brackets are balanced");
            }
            Err(e)
        }
    }
    fn expect_word(&mut self, w: &str, context: &str) -> PResult<Span> {
        if self.is_word(w) { Ok(self.bump().span) } else { Err(self.unexpected(&format!("`{w}`{context}"))) }
    }

    fn save(&self) -> Save {
        Save { pos: self.pos, depth: self.depth, warnings: self.warnings.len() }
    }
    fn restore(&mut self, s: Save) {
        self.pos = s.pos;
        self.depth = s.depth;
        self.warnings.truncate(s.warnings);
    }

    /// Counts one more operand of an operator chain (`a + b + …`, `p and q and …`) as one
    /// more level: a chain builds a tree as deep as it is long, which every later pass walks
    /// recursively. `base` is the depth where the chain started; the caller restores it.
    fn chain_link(&mut self) -> PResult<()> {
        if self.depth >= MAX_DEPTH {
            return Err(PErr {
                diag: Diagnostic::error(
                    self.span(),
                    format!("expression too long (more than {MAX_DEPTH} operands or levels of nesting)"),
                )
                .with_hint("split the expression into named parts"),
                at: usize::MAX,
            });
        }
        self.depth += 1;
        Ok(())
    }

    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_DEPTH {
            // `at: usize::MAX`: this error wins over every backtracking alternative.
            // `at: usize::MAX`: this error wins over every backtracking alternative.
            return Err(PErr {
                diag: Diagnostic::error(self.span(), format!("nesting too deep (more than {MAX_DEPTH} levels)"))
                    .with_hint("split the expression or process into named parts"),
                at: usize::MAX,
            });
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn keyword_error(&self, word: &str, span: Span) -> PErr {
        match word {
            "count" => self.err_hint(
                span,
                "`count` is a reserved word and cannot be used as a name",
                "`count` is reserved since 2023; rename the variable (e.g. `counter`)",
            ),
            "undef" => self.err_hint(span, "unexpected keyword `undef`", "`undef` can only be used as an initialiser"),
            "true" | "false" => self.err_hint(
                span,
                format!("unexpected keyword `{word}`"),
                "`true` and `false` are conditions, not values",
            ),
            _ => self.err(span, format!("unexpected keyword `{word}`: it is reserved and cannot be used as a name")),
        }
    }

    /// A lower-case name that is not reserved.
    fn lname(&mut self, what: &str) -> PResult<Ident> {
        match self.peek().clone() {
            TokKind::Lower(w) => {
                if is_reserved(&w) {
                    return Err(self.keyword_error(&w, self.span()));
                }
                let t = self.bump();
                Ok(Ident { name: w, span: t.span })
            }
            _ => Err(self.unexpected(what)),
        }
    }

    /// An upper-case name that is not reserved.
    fn uname(&mut self, what: &str) -> PResult<Ident> {
        match self.peek().clone() {
            TokKind::Upper(w) => {
                if is_reserved(&w) {
                    return Err(self.keyword_error(&w, self.span()));
                }
                let t = self.bump();
                Ok(Ident { name: w, span: t.span })
            }
            TokKind::Lower(_) => {
                let mut e = self.unexpected(what);
                e.diag = e.diag.with_hint("this name must start with an upper-case letter");
                Err(e)
            }
            _ => Err(self.unexpected(what)),
        }
    }

    /// A separated list: `item {sep item}`; a trailing separator and the wrong separator are
    /// errors. `starts(p, k)` says whether the token at offset `k` can start an item.
    fn sep_list<T>(
        &mut self,
        sep: Sym,
        wrong: Sym,
        list: &str,
        example: &str,
        starts: impl Fn(&Self, usize) -> bool,
        mut item: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        let mut items = vec![item(self)?];
        loop {
            if self.is_sym(sep) {
                let sep_span = self.span();
                if !starts(self, 1) {
                    let next = self.peek_at(1);
                    let ends = matches!(next, TokKind::Sym(Sym::RBrace) | TokKind::Eof)
                        || self.is_upper_def_at(1)
                        || (matches!(next, TokKind::Lower(_)) && self.is_sym_at(2, Sym::Eq));
                    if ends {
                        return Err(self.err_hint(
                            sep_span,
                            format!("trailing `{}` in {list}", sep.as_str()),
                            format!("remove the `{}`: it separates items, it does not end them", sep.as_str()),
                        ));
                    }
                }
                self.bump();
                items.push(item(self)?);
            } else if self.is_sym(wrong) && starts(self, 1) {
                return Err(self.err_hint(
                    self.span(),
                    format!("the items of {list} are separated by `{}`, not `{}`", sep.as_str(), wrong.as_str()),
                    format!("write `{example}`"),
                ));
            } else {
                return Ok(items);
            }
        }
    }

    // ----------------------------------------------------------------- sections

    fn spec(&mut self) -> PResult<Spec> {
        let system = self.system()?;
        let mut stigmergies = Vec::new();
        let mut agents: Vec<Agent> = Vec::new();
        loop {
            if self.is_word("stigmergy") && !self.is_sym_at(1, Sym::Eq) {
                if !agents.is_empty() {
                    return Err(self.err_hint(
                        self.span(),
                        "a stigmergy cannot be declared after an agent",
                        "declare every `stigmergy` before the first `agent`",
                    ));
                }
                stigmergies.push(self.stigmergy()?);
            } else if self.is_word("agent") && !self.is_sym_at(1, Sym::Eq) {
                agents.push(self.agent()?);
            } else {
                break;
            }
        }
        let assumptions = if self.is_word("assume") { self.assume()? } else { Vec::new() };
        if !self.is_word("check") {
            let expected = if self.is_word("assume") || !assumptions.is_empty() {
                "`check`"
            } else if agents.is_empty() {
                "`stigmergy`, `agent`, `assume` or `check`"
            } else {
                "`agent`, `assume` or `check`"
            };
            let mut e = self.unexpected(expected);
            if self.is_word("system") {
                e.diag = e.diag.with_hint("there must be exactly one `system` section, at the beginning");
            } else if self.is_eof() {
                e.diag = e.diag.with_hint("a specification ends with a `check { … }` section (it may be empty)");
            } else {
                e.diag =
                    e.diag.with_hint("the sections come in this order: system, stigmergies, agents, assume, check");
            }
            return Err(e);
        }
        let properties = self.check()?;
        if !self.is_eof() {
            let mut e = self.err(self.span(), format!("unexpected text after the `check` section: {}", self.peek()));
            e.diag = e.diag.with_hint(if self.is_word("assume") {
                "`assume` must come before `check`"
            } else {
                "the `check` section must be the last one"
            });
            return Err(e);
        }
        Ok(Spec { system, stigmergies, agents, assumptions, properties })
    }

    fn field(&self, w: &str) -> bool {
        self.is_word(w) && self.is_sym_at(1, Sym::Eq)
    }

    fn system(&mut self) -> PResult<System> {
        let start = self.span();
        if !self.is_word("system") {
            let mut e = self.unexpected("`system`");
            e.diag = e.diag.with_hint("a specification starts with `system { … }`");
            return Err(e);
        }
        self.bump();
        self.expect_sym(Sym::LBrace, " after `system`")?;
        let mut externs = Vec::new();
        if self.field("extern") {
            self.bump();
            self.bump();
            externs = self.sep_list(
                Sym::Comma,
                Sym::Semi,
                "`extern`",
                "extern = _a, _b",
                |p, k| matches!(p.peek_at(k), TokKind::Extern(_)),
                |p| match p.peek().clone() {
                    TokKind::Extern(name) => {
                        let t = p.bump();
                        Ok(Ident { name, span: t.span })
                    }
                    _ => Err(p.unexpected("an external parameter (`_name`)")),
                },
            )?;
        }
        let mut environment = Vec::new();
        if self.field("environment") {
            self.bump();
            self.bump();
            environment = self.decls("`environment`")?;
        }
        if !self.field("spawn") {
            let mut e = self.unexpected("`spawn = …`");
            if self.field("extern") || self.field("environment") {
                e.diag = e.diag.with_hint(
                    "inside `system` the order is `extern`, `environment`, `spawn`, then process definitions",
                );
            } else {
                e.diag = e.diag.with_hint("`system` must contain `spawn = Agent: count, …`");
            }
            return Err(e);
        }
        self.bump();
        self.bump();
        let spawn = self.sep_list(
            Sym::Comma,
            Sym::Semi,
            "`spawn`",
            "spawn = A: 1, B: 2",
            |p, k| matches!(p.peek_at(k), TokKind::Upper(_)) && p.is_sym_at(k + 1, Sym::Colon),
            |p| {
                let agent = p.uname("an agent type")?;
                p.expect_sym(Sym::Colon, &format!(" after `{}` in `spawn`", agent.name))?;
                let count = p.expr(Fl::S)?;
                Ok(SpawnItem { agent, count })
            },
        )?;
        let processes =
            self.proc_defs("inside `system` the order is `extern`, `environment`, `spawn`, then process definitions")?;
        let end = self.expect_sym(Sym::RBrace, " at the end of `system`")?;
        Ok(System { externs, environment, spawn, processes, span: start.to(end) })
    }

    fn decls(&mut self, list: &str) -> PResult<Vec<VarDecl>> {
        self.sep_list(
            Sym::Semi,
            Sym::Comma,
            list,
            "a: 0; b: 1",
            |p, k| {
                matches!(p.peek_at(k), TokKind::Lower(_))
                    && (p.is_sym_at(k + 1, Sym::Colon) || p.is_sym_at(k + 1, Sym::LBracket))
            },
            |p| {
                let var = p.var_name()?;
                if p.is_sym(Sym::Comma) {
                    return Err(p.err_hint(
                        p.span(),
                        format!("expected `:` after `{}`, found `,`", var.name.name),
                        "tuples `a, b: …` are allowed only in stigmergies; separate declarations with `;`",
                    ));
                }
                p.expect_sym(Sym::Colon, &format!(" after `{}`", var.name.name))?;
                let init = p.init()?;
                Ok(VarDecl { var, init })
            },
        )
    }

    fn var_name(&mut self) -> PResult<VarName> {
        let name = self.lname("a variable name")?;
        let mut dims = Vec::new();
        if self.eat_sym(Sym::LBracket) {
            dims.push(self.expr(Fl::C)?);
            while self.eat_sym(Sym::Comma) {
                dims.push(self.expr(Fl::C)?);
            }
            self.expect_sym(Sym::RBracket, " after the array sizes")?;
        }
        Ok(VarName { name, dims })
    }

    fn init(&mut self) -> PResult<Init> {
        if self.is_word("undef") {
            return Ok(Init::Undef(self.bump().span));
        }
        if self.is_sym(Sym::LBracket) {
            let start = self.bump().span;
            let first = self.expr(Fl::C)?;
            if self.is_sym(Sym::DotDot) {
                let dd = self.span();
                self.bump();
                let hint = match self.expr(Fl::C) {
                    Ok(b) => format!(
                        "write `{}..{}` (a range initialiser has no brackets)",
                        print_expr(&first),
                        print_expr(&b)
                    ),
                    Err(_) => "write `a..b` (a range initialiser has no brackets)".to_string(),
                };
                return Err(PErr {
                    diag: Diagnostic::error(dd, "`[a..b]` cannot be used as an initialiser").with_hint(hint),
                    at: self.pos,
                });
            }
            let mut items = vec![first];
            while self.eat_sym(Sym::Comma) {
                items.push(self.expr(Fl::C)?);
            }
            let end = self.expect_sym(Sym::RBracket, " or `,` in the list of initial values")?;
            return Ok(Init::Choice(items, start.to(end)));
        }
        let a = self.expr(Fl::C)?;
        if self.eat_sym(Sym::DotDot) {
            let b = self.expr(Fl::C)?;
            let span = a.span().to(b.span());
            return Ok(Init::Range(a, b, span));
        }
        Ok(Init::Single(a))
    }

    fn stigmergy(&mut self) -> PResult<Stigmergy> {
        let start = self.bump().span;
        let name = self.uname("a stigmergy name")?;
        self.expect_sym(Sym::LBrace, &format!(" after `stigmergy {}`", name.name))?;
        if !self.field("link") {
            let mut e = self.unexpected("`link = …`");
            e.diag = e.diag.with_hint("a stigmergy starts with its link predicate, e.g. `link = true`");
            return Err(e);
        }
        self.bump();
        self.bump();
        let link = self.bexpr_top(Fl::L)?;
        if self.is_sym(Sym::RBrace) {
            return Err(self.err_hint(
                self.span(),
                "a stigmergy needs at least one variable declaration",
                "declare its variables after the link, e.g. `x: 0`",
            ));
        }
        let mut tuples = vec![self.tuple()?];
        loop {
            if self.is_sym(Sym::Semi) {
                if self.is_sym_at(1, Sym::RBrace) {
                    return Err(self.err_hint(
                        self.span(),
                        "trailing `;` in a stigmergy",
                        "remove the `;`: it separates tuples, it does not end them",
                    ));
                }
                self.bump();
                tuples.push(self.tuple()?);
            } else if matches!(self.peek(), TokKind::Lower(_)) {
                tuples.push(self.tuple()?);
            } else if self.is_sym(Sym::RBrace) {
                break;
            } else {
                return Err(self.unexpected("`;`, a variable declaration or `}`"));
            }
        }
        let end = self.bump().span;
        Ok(Stigmergy { name, link, tuples, span: start.to(end) })
    }

    fn tuple(&mut self) -> PResult<TupleDecl> {
        let start = self.span();
        let mut vars = vec![self.var_name()?];
        while self.eat_sym(Sym::Comma) {
            vars.push(self.var_name()?);
        }
        self.expect_sym(Sym::Colon, " after the declared variables")?;
        let mut inits = vec![self.init()?];
        while self.is_sym(Sym::Comma) {
            // Every variable has its initialiser and a non-reserved name follows: the author
            // separated two tuples with `,`.
            if inits.len() >= vars.len()
                && matches!(self.peek_at(1), TokKind::Lower(w) if !super::lexer::is_reserved(w))
                && (self.is_sym_at(2, Sym::Colon) || self.is_sym_at(2, Sym::LBracket) || self.is_sym_at(2, Sym::Comma))
            {
                return Err(self.err_hint(
                    self.span(),
                    "expected an initialiser after `,`, found a new declaration",
                    "separate the tuples of a stigmergy with `;` (or a line break)",
                ));
            }
            self.bump();
            inits.push(self.init()?);
        }
        let span = start.to(self.prev_span());
        if vars.len() != inits.len() {
            return Err(self.err(
                span,
                format!(
                    "a tuple needs as many initialisers as variables ({}, {})",
                    plural(vars.len(), "variable", "variables"),
                    plural(inits.len(), "initialiser", "initialisers")
                ),
            ));
        }
        Ok(TupleDecl { vars, inits, span })
    }

    fn agent(&mut self) -> PResult<Agent> {
        let start = self.bump().span;
        let name = self.uname("an agent name")?;
        self.expect_sym(Sym::LBrace, &format!(" after `agent {}`", name.name))?;
        let mut interface = Vec::new();
        if self.field("interface") {
            self.bump();
            self.bump();
            interface = self.decls("`interface`")?;
        }
        let mut stigmergies = Vec::new();
        if self.field("stigmergies") {
            self.bump();
            self.bump();
            stigmergies = self.sep_list(
                Sym::Semi,
                Sym::Comma,
                "`stigmergies`",
                "stigmergies = A; B",
                |p, k| matches!(p.peek_at(k), TokKind::Upper(_)) && !p.is_sym_at(k + 1, Sym::Eq),
                |p| p.uname("a stigmergy name"),
            )?;
        }
        let processes =
            self.proc_defs("inside an agent the order is `interface`, `stigmergies`, then process definitions")?;
        let end = self.expect_sym(Sym::RBrace, &format!(" at the end of agent `{}`", name.name))?;
        Ok(Agent { name, interface, stigmergies, processes, span: start.to(end) })
    }

    fn proc_defs(&mut self, order_hint: &str) -> PResult<Vec<ProcDef>> {
        let mut defs = Vec::new();
        loop {
            match self.peek().clone() {
                TokKind::Sym(Sym::RBrace) | TokKind::Eof => return Ok(defs),
                TokKind::Upper(_) => {
                    let name = self.uname("a process name")?;
                    if !self.is_sym(Sym::Eq) {
                        return Err(self.unexpected(&format!("`=` after the process name `{}`", name.name)));
                    }
                    self.bump();
                    if self.ends_proc() {
                        return Err(self.err_hint(
                            self.span(),
                            format!(
                                "empty process body: expected a process after `{} =`, found {}",
                                name.name,
                                self.peek()
                            ),
                            "write `Skip` for a process that does nothing",
                        ));
                    }
                    let body = self.proc()?;
                    if !(self.is_sym(Sym::RBrace) || self.is_upper_def_at(0)) {
                        let mut e = self.unexpected("`;`, `++`, `||`, `}` or a new definition `Name = …`");
                        match self.peek() {
                            TokKind::Sym(Sym::RParen) => {
                                e.diag = e.diag.with_hint("this `)` has no matching `(`");
                            }
                            TokKind::Lower(_)
                            | TokKind::Upper(_)
                            | TokKind::Sym(Sym::LParen)
                            | TokKind::Sym(Sym::LBrace) => {
                                e.diag = e.diag.with_hint("separate the steps of a process with `;`");
                            }
                            _ => {}
                        }
                        return Err(e);
                    }
                    defs.push(ProcDef { name, body });
                }
                TokKind::Lower(w) if SECTION_WORDS.contains(&w.as_str()) && self.is_sym_at(1, Sym::Eq) => {
                    return Err(self.err_hint(self.span(), format!("`{w} = …` is out of place here"), order_hint));
                }
                _ => return Err(self.unexpected("a process definition `Name = …` or `}`")),
            }
        }
    }

    fn assume(&mut self) -> PResult<Vec<Assumption>> {
        self.bump();
        self.expect_sym(Sym::LBrace, " after `assume`")?;
        let mut out = Vec::new();
        while !self.is_sym(Sym::RBrace) {
            let name = self.uname("an assumption name `Name = …` or `}`")?;
            self.expect_sym(Sym::Eq, &format!(" after `{}`", name.name))?;
            let pred = self.qpred()?;
            self.end_of_property()?;
            out.push(Assumption { name, pred });
        }
        self.bump();
        Ok(out)
    }

    fn check(&mut self) -> PResult<Vec<Property>> {
        self.bump();
        self.expect_sym(Sym::LBrace, " after `check`")?;
        let mut out = Vec::new();
        while !self.is_sym(Sym::RBrace) {
            let name = self.uname("a property name `Name = …` or `}`")?;
            self.expect_sym(Sym::Eq, &format!(" after `{}`", name.name))?;
            let (modality, pred) = if ["fairly", "fairly_inf", "between", "from"].iter().any(|w| self.is_word(w)) {
                (self.modality()?, self.qpred()?)
            } else {
                self.linear_time_property()?
            };
            self.end_of_property()?;
            let span = name.span.to(self.prev_span());
            out.push(Property { name, modality, pred, span });
        }
        self.bump();
        Ok(out)
    }

    fn end_of_property(&mut self) -> PResult<()> {
        if self.is_sym(Sym::RBrace) || self.is_upper_def_at(0) {
            Ok(())
        } else {
            Err(self.unexpected("`}` or a new definition `Name = …`"))
        }
    }

    fn modality(&mut self) -> PResult<Modality> {
        let m = match self.peek() {
            TokKind::Lower(w) => match w.as_str() {
                "always" => Some(Modality::Always),
                "eventually" => Some(Modality::Eventually),
                "finally" => Some(Modality::Finally),
                "fairly" => Some(Modality::Fairly),
                "fairly_inf" => Some(Modality::FairlyInf),
                _ => None,
            },
            _ => None,
        };
        if let Some(m) = m {
            self.bump();
            return Ok(m);
        }
        let (between, close_word) = if self.is_word("between") {
            (true, "and")
        } else if self.is_word("from") {
            (false, "until")
        } else {
            return Err(self.unexpected(
                "a modality (`always`, `eventually`, `finally`, `fairly`, `fairly_inf`, `between` or `from`)",
            ));
        };
        let kw = if between { "between" } else { "from" };
        self.bump();
        self.expect_sym(Sym::LParen, &format!(" after `{kw}`"))?;
        let open = self.qpred()?;
        self.expect_sym(Sym::RParen, "")?;
        self.expect_word(close_word, &format!(" in `{kw} (…) {close_word} (…)`"))?;
        self.expect_sym(Sym::LParen, &format!(" after `{close_word}`"))?;
        let close = self.qpred()?;
        self.expect_sym(Sym::RParen, "")?;
        self.expect_sym(Sym::Comma, " after the scope")?;
        let pattern = if self.is_word("thereIs") {
            self.bump();
            Pattern::ThereIs
        } else if self.is_word("always") {
            self.bump();
            Pattern::Always
        } else {
            let q = self.qpred()?;
            self.expect_word("precedes", " (a pattern is `thereIs`, `always` or `… precedes`)")?;
            Pattern::Precedes(q)
        };
        Ok(if between {
            Modality::Between { open, close, pattern }
        } else {
            Modality::FromUntil { open, close, pattern }
        })
    }

    fn quantifier(&mut self) -> PResult<Quantifier> {
        let kind = if self.is_word("forall") { QuantKind::Forall } else { QuantKind::Exists };
        self.bump();
        let agent = self.uname("an agent type after the quantifier")?;
        let var = self.lname("a variable name after the agent type")?;
        Ok(Quantifier { kind, agent, var })
    }

    fn expect_quant_comma(&mut self, q: &Quantifier) -> PResult<()> {
        if self.eat_sym(Sym::Comma) {
            return Ok(());
        }
        let kw = match q.kind {
            QuantKind::Forall => "forall",
            QuantKind::Exists => "exists",
        };
        let mut e = self.unexpected(&format!("`,` after `{kw} {} {}`", q.agent.name, q.var.name));
        e.diag = e.diag.with_hint(format!(
            "write `{kw} {} {}, …`: each quantifier is followed by a comma",
            q.agent.name, q.var.name
        ));
        Err(e)
    }

    fn qpred(&mut self) -> PResult<QPred> {
        let start = self.span();
        let mut quants = Vec::new();
        while self.is_word("forall") || self.is_word("exists") {
            let q = self.quantifier()?;
            self.expect_quant_comma(&q)?;
            quants.push(q);
        }
        let body = self.bexpr_top(Fl::Q)?;
        let span = start.to(body.span());
        Ok(QPred { quants, body, span })
    }

    // ----------------------------------------------------------------- processes

    /// Whether the current token cannot start a process (end of a body).
    fn ends_proc(&self) -> bool {
        matches!(self.peek(), TokKind::Sym(Sym::RBrace) | TokKind::Sym(Sym::RParen) | TokKind::Eof)
            || self.is_upper_def_at(0)
    }

    fn proc(&mut self) -> PResult<Proc> {
        self.nested(|p| p.proc_par())
    }

    fn after_op(&self, op: &str) -> PResult<()> {
        if self.ends_proc() {
            Err(self.err(self.span(), format!("expected a process after `{op}`, found {}", self.peek())))
        } else {
            Ok(())
        }
    }

    fn proc_par(&mut self) -> PResult<Proc> {
        let mut items = vec![self.proc_choice()?];
        while self.is_sym(Sym::BarBar) {
            self.bump();
            self.after_op("||")?;
            items.push(self.proc_choice()?);
        }
        Ok(Self::flat(items, Proc::Par))
    }

    fn proc_choice(&mut self) -> PResult<Proc> {
        let mut items = vec![self.proc_seq()?];
        while self.is_sym(Sym::PlusPlus) {
            self.bump();
            self.after_op("++")?;
            items.push(self.proc_seq()?);
        }
        Ok(Self::flat(items, Proc::Choice))
    }

    fn proc_seq(&mut self) -> PResult<Proc> {
        let mut items = vec![self.base()?];
        while self.is_sym(Sym::Semi) {
            let semi = self.span();
            self.bump();
            if self.ends_proc() {
                return Err(self.err_hint(
                    semi,
                    format!("trailing `;`: expected a process after it, found {}", self.peek()),
                    "remove the `;`: it separates the steps of a process, it does not end them",
                ));
            }
            items.push(self.base()?);
        }
        Ok(Self::flat(items, Proc::Seq))
    }

    fn flat(mut items: Vec<Proc>, make: fn(Vec<Proc>, Span) -> Proc) -> Proc {
        if items.len() == 1 {
            return items.pop().expect("one item");
        }
        let span = items[0].span().to(items[items.len() - 1].span());
        make(items, span)
    }

    fn base(&mut self) -> PResult<Proc> {
        if self.ends_proc() {
            return Err(self.unexpected("a process"));
        }
        match self.peek().clone() {
            TokKind::Sym(Sym::LBrace) => return self.block(),
            TokKind::Upper(w) => {
                let t = self.bump();
                return Ok(match w.as_str() {
                    "Skip" => Proc::Skip(t.span),
                    "Nil" => Proc::Nil(t.span),
                    _ => Proc::Call(Ident { name: w, span: t.span }),
                });
            }
            _ => {}
        }
        // A guard `BExpr -> P` first; backtrack to a parenthesised process or an action.
        let save = self.save();
        let mut looks_like_action = false;
        let guard_err = match self.bexpr_top(Fl::P) {
            Ok(cond) => {
                let kind = if self.is_sym(Sym::Arrow) {
                    Some(GuardKind::Blocking)
                } else if self.is_sym(Sym::FatArrow) {
                    Some(GuardKind::Conditional)
                } else {
                    None
                };
                if let Some(kind) = kind {
                    let arrow = self.bump();
                    self.after_op(arrow.kind.to_string().trim_matches('`'))?;
                    let body = self.proc()?;
                    let span = cond.span().to(body.span());
                    return Ok(Proc::Guard { cond, kind, body: Box::new(body), span });
                }
                looks_like_action = matches!(
                    self.peek(),
                    TokKind::Sym(Sym::AttrAssign | Sym::StigAssign | Sym::EnvAssign | Sym::LocalAssign | Sym::Comma)
                );
                let mut e = self.unexpected("`->` or `=>` after a condition");
                if matches!(
                    self.peek(),
                    TokKind::Sym(Sym::Semi | Sym::RBrace | Sym::RParen | Sym::PlusPlus | Sym::BarBar)
                ) {
                    e.diag = e.diag.with_hint("a condition alone is not a process: write `condition -> P`");
                }
                e
            }
            Err(e) => e,
        };
        self.restore(save);
        let other = if self.is_sym(Sym::LParen) {
            let lp = self.bump().span;
            self.proc().and_then(|inner| {
                let rp = self.expect_sym(Sym::RParen, " to close the process")?;
                Ok(Proc::Paren(Box::new(inner), lp.to(rp)))
            })
        } else {
            self.stmt(false).map(|s| match s {
                Stmt::Assign(a) => Proc::Action(a),
                // stmt(false) only returns assignments.
                other => Proc::Block(vec![other.clone()], other.span()),
            })
        };
        match other {
            Ok(p) => Ok(p),
            // A condition followed by an assignment operator was meant as an action.
            Err(e) if looks_like_action => Err(e),
            Err(e) => {
                let guard_better =
                    guard_err.at > e.at || (guard_err.at == e.at && is_generic(&e) && !is_generic(&guard_err));
                Err(if guard_better { guard_err } else { e })
            }
        }
    }

    fn block(&mut self) -> PResult<Proc> {
        let start = self.bump().span;
        if self.is_sym(Sym::RBrace) {
            return Err(self.err_hint(self.span(), "empty block", "a block needs at least one statement"));
        }
        let mut stmts = vec![self.stmt(true)?];
        loop {
            if self.is_sym(Sym::Semi) {
                let semi = self.span();
                self.bump();
                if self.is_sym(Sym::RBrace) {
                    return Err(self.err_hint(
                        semi,
                        "trailing `;` in a block",
                        "remove the `;`: it separates statements, it does not end them",
                    ));
                }
                stmts.push(self.stmt(true)?);
            } else if self.is_sym(Sym::RBrace) {
                let end = self.bump().span;
                return Ok(Proc::Block(stmts, start.to(end)));
            } else {
                let mut e = self.unexpected("`;` or `}` in a block");
                if self.is_sym(Sym::Arrow) || self.is_sym(Sym::FatArrow) {
                    e.diag = e
                        .diag
                        .with_hint("statements in a block cannot be guarded; guard the whole block: `g -> { … }`");
                }
                return Err(e);
            }
        }
    }

    /// An assignment; inside a block also `:=`, `pick`, `forall`/`exists` and `count`.
    fn stmt(&mut self, in_block: bool) -> PResult<Stmt> {
        let start = self.span();
        // (lhs, written `p[]`)
        let mut lhs: Vec<(Lhs, bool)> = vec![self.lhs()?];
        while self.eat_sym(Sym::Comma) {
            lhs.push(self.lhs()?);
        }
        let op = match self.peek() {
            TokKind::Sym(Sym::AttrAssign) => Some(AssignOp::Attr),
            TokKind::Sym(Sym::StigAssign) => Some(AssignOp::Stig),
            TokKind::Sym(Sym::EnvAssign) => Some(AssignOp::Env),
            TokKind::Sym(Sym::LocalAssign) => None,
            _ => {
                let mut e = self.unexpected(if in_block {
                    "`<-`, `<~`, `<--`, `:=` or `,`"
                } else {
                    "`<-`, `<~`, `<--` or `,` in an assignment"
                });
                if self.is_sym(Sym::Eq) {
                    e.diag = e
                        .diag
                        .with_hint("assignments use `<-` (interface), `<~` (stigmergy) or `<--` (environment); a comparison needs a guard `x = e -> P`");
                }
                return Err(e);
            }
        };
        let op_span = self.span();
        if op.is_none() && !in_block {
            return Err(self.err_hint(
                op_span,
                "`:=` cannot be used outside a block",
                "`:=`, `pick`, `forall`, `exists` and `count` are allowed only inside a block `{ … }`",
            ));
        }
        self.bump();
        if op.is_none() && lhs.len() == 1 {
            let special = ["pick", "forall", "exists", "count"].into_iter().find(|w| self.is_word(w));
            if let Some(word) = special {
                let (target, empty) = lhs.pop().expect("one lhs");
                if word == "pick" {
                    if !empty {
                        return Err(self.err_hint(
                            target.span,
                            "`pick` needs an array target",
                            format!("write `{}[] := pick …`", target.name.name),
                        ));
                    }
                    return self.pick(target.name, start);
                }
                if !target.indices.is_empty() || empty {
                    return Err(self.err(target.span, format!("the target of `{word}` must be a plain variable name")));
                }
                if word == "count" {
                    self.bump();
                    let agent = self.uname("an agent type after `count`")?;
                    let var = self.lname("a variable name after the agent type")?;
                    if !self.eat_sym(Sym::Comma) {
                        let mut e = self.unexpected(&format!("`,` after `count {} {}`", agent.name, var.name));
                        e.diag = e.diag.with_hint(format!("write `count {} {}, <condition>`", agent.name, var.name));
                        return Err(e);
                    }
                    let pred = self.bexpr_top(Fl::P)?;
                    let span = start.to(pred.span());
                    return Ok(Stmt::Count { name: target.name, agent, var, pred, span });
                }
                let mut quants = Vec::new();
                while self.is_word("forall") || self.is_word("exists") {
                    let q = self.quantifier()?;
                    self.expect_quant_comma(&q)?;
                    quants.push(q);
                }
                let pred = self.bexpr_top(Fl::P)?;
                let span = start.to(pred.span());
                return Ok(Stmt::Quant { name: target.name, quants, pred, span });
            }
        }
        if let Some((l, _)) = lhs.iter().find(|(_, empty)| *empty) {
            return Err(self.err_hint(
                l.span,
                format!("`{}[]` needs an index", l.name.name),
                "only `p[] := pick …` may omit the index",
            ));
        }
        let mut rhs = vec![self.expr(Fl::P)?];
        while self.eat_sym(Sym::Comma) {
            rhs.push(self.expr(Fl::P)?);
        }
        let span = start.to(self.prev_span());
        let lhs: Vec<Lhs> = lhs.into_iter().map(|(l, _)| l).collect();
        if lhs.len() != rhs.len() {
            return Err(self.err(
                span,
                format!(
                    "a multiple assignment needs as many expressions as variables ({}, {})",
                    plural(lhs.len(), "variable", "variables"),
                    plural(rhs.len(), "expression", "expressions")
                ),
            ));
        }
        Ok(match op {
            Some(op) => Stmt::Assign(Action { lhs, op, rhs, span }),
            None => Stmt::Local { lhs, rhs, span },
        })
    }

    fn pick(&mut self, name: Ident, start: Span) -> PResult<Stmt> {
        self.bump();
        let count = self.expr(Fl::C)?;
        let agent = if matches!(self.peek(), TokKind::Upper(_)) { Some(self.uname("an agent type")?) } else { None };
        let filter = if self.is_word("where") {
            self.bump();
            Some(self.bexpr_top(Fl::L)?)
        } else {
            None
        };
        let span = start.to(self.prev_span());
        Ok(Stmt::Pick { name, count, agent, filter, span })
    }

    /// A left-hand side; the flag says it was written `p[]`.
    fn lhs(&mut self) -> PResult<(Lhs, bool)> {
        match self.peek().clone() {
            TokKind::Lower(w) if w == "id" => {
                return Err(self.err_hint(
                    self.span(),
                    "cannot assign to `id`",
                    "`id` is the agent's identifier, a constant",
                ));
            }
            TokKind::Extern(w) => {
                return Err(self.err_hint(
                    self.span(),
                    format!("cannot assign to the external parameter `{w}`"),
                    "external parameters are constants",
                ));
            }
            TokKind::Lower(_) => {}
            _ => return Err(self.unexpected("a process")),
        }
        let name = self.lname("a variable name")?;
        let mut indices = Vec::new();
        let mut empty = false;
        if self.eat_sym(Sym::LBracket) {
            if self.is_sym(Sym::RBracket) {
                empty = true;
            } else {
                indices.push(self.expr(Fl::P)?);
                while self.eat_sym(Sym::Comma) {
                    indices.push(self.expr(Fl::P)?);
                }
            }
            self.expect_sym(Sym::RBracket, " after the indices")?;
        }
        let span = name.span.to(self.prev_span());
        if self.is_word("of") {
            return Err(self.err_hint(
                self.span(),
                format!("cannot assign to `{} of …`", name.name),
                "an agent can only assign its own variables",
            ));
        }
        Ok((Lhs { name, indices, span }, empty))
    }

    // ----------------------------------------------------------------- Boolean expressions

    /// A whole condition: a bare arithmetic expression means `e != 0`.
    fn bexpr_top(&mut self, fl: Fl) -> PResult<BExpr> {
        Ok(match self.nested(|p| p.b_or(fl))? {
            Mixed::A(e) => BExpr::Truthy(e),
            Mixed::B(b) => b,
        })
    }

    fn as_bool(&self, m: Mixed, op: &str) -> PResult<BExpr> {
        match m {
            Mixed::B(b) => Ok(b),
            Mixed::A(e) => Err(self.err_hint(
                e.span(),
                format!("a bare arithmetic expression cannot be an operand of `{op}`"),
                format!("compare it explicitly, e.g. `{} != 0`", print_expr(&e)),
            )),
        }
    }

    fn b_or(&mut self, fl: Fl) -> PResult<Mixed> {
        let first = self.b_and(fl)?;
        if !self.is_word("or") {
            if matches!(first, Mixed::A(_)) && self.is_word("and") {
                // unreachable: b_and consumed every `and`
            }
            return Ok(first);
        }
        let mut l = self.as_bool(first, "or")?;
        let mut mixed = matches!(l, BExpr::Logic(BoolOp::And, ..));
        let base = self.depth;
        while self.is_word("or") {
            self.chain_link()?;
            self.bump();
            let r = self.b_and(fl)?;
            let r = self.as_bool(r, "or")?;
            mixed |= matches!(r, BExpr::Logic(BoolOp::And, ..));
            let span = l.span().to(r.span());
            l = BExpr::Logic(BoolOp::Or, Box::new(l), Box::new(r), span);
        }
        self.depth = base;
        if mixed {
            self.warnings.push(and_or_mix(l.span()));
        }
        Ok(Mixed::B(l))
    }

    fn b_and(&mut self, fl: Fl) -> PResult<Mixed> {
        let first = self.b_atom(fl)?;
        if !self.is_word("and") {
            return Ok(first);
        }
        let mut l = self.as_bool(first, "and")?;
        let base = self.depth;
        while self.is_word("and") {
            self.chain_link()?;
            self.bump();
            let r = self.b_atom(fl)?;
            let r = self.as_bool(r, "and")?;
            let span = l.span().to(r.span());
            l = BExpr::Logic(BoolOp::And, Box::new(l), Box::new(r), span);
        }
        self.depth = base;
        Ok(Mixed::B(l))
    }

    fn cmp_op(&self) -> Option<CmpOp> {
        match self.peek() {
            TokKind::Sym(Sym::Eq) => Some(CmpOp::Eq),
            TokKind::Sym(Sym::Ne) => Some(CmpOp::Ne),
            TokKind::Sym(Sym::Lt) => Some(CmpOp::Lt),
            TokKind::Sym(Sym::Le) => Some(CmpOp::Le),
            TokKind::Sym(Sym::Gt) => Some(CmpOp::Gt),
            TokKind::Sym(Sym::Ge) => Some(CmpOp::Ge),
            _ => None,
        }
    }

    fn arith_op(&self) -> bool {
        matches!(self.peek(), TokKind::Sym(Sym::Plus | Sym::Minus | Sym::Star | Sym::Slash | Sym::Percent | Sym::Colon))
    }

    /// After a Boolean operand: it cannot be compared or used in arithmetic.
    fn no_cmp_after_bool(&self) -> PResult<()> {
        if self.cmp_op().is_some() || self.arith_op() {
            return Err(self.err_hint(
                self.span(),
                format!("a condition cannot be an operand of {}", self.peek()),
                "comparisons and arithmetic apply to numbers only",
            ));
        }
        Ok(())
    }

    fn b_atom(&mut self, fl: Fl) -> PResult<Mixed> {
        match self.peek().clone() {
            TokKind::Lower(w) if w == "true" || w == "false" => {
                let t = self.bump();
                self.no_cmp_after_bool()?;
                Ok(Mixed::B(BExpr::Bool(w == "true", t.span)))
            }
            TokKind::Sym(Sym::Bang) => self.negation(fl, "!"),
            TokKind::Lower(w) if w == "not" && self.is_not_keyword(fl, 0) => self.negation(fl, "not"),
            TokKind::Sym(Sym::LParen) => {
                let lp = self.bump().span;
                let m = self.nested(|p| p.b_or(fl))?;
                if fl == Fl::Q
                    && let Some(e) = self.misspelt_connective()
                {
                    return Err(e);
                }
                let rp = self.expect_sym(Sym::RParen, "")?;
                match m {
                    Mixed::B(b) => {
                        self.no_cmp_after_bool()?;
                        Ok(Mixed::B(BExpr::Paren(Box::new(b), lp.to(rp))))
                    }
                    Mixed::A(e) => {
                        let e = Expr::Paren(Box::new(e), lp.to(rp));
                        let e = self.product_rest(fl, e)?;
                        let e = self.sum_rest(fl, e)?;
                        self.cmp_rest(fl, e)
                    }
                }
            }
            _ => {
                let e = self.expr(fl)?;
                self.cmp_rest(fl, e)
            }
        }
    }

    /// `!b` (or `not b` in properties): `b` is `true`, `false` or a parenthesised condition.
    fn negation(&mut self, fl: Fl, word: &str) -> PResult<Mixed> {
        let bang = self.bump().span;
        let inner = match self.peek().clone() {
            TokKind::Lower(w) if w == "true" || w == "false" => BExpr::Bool(w == "true", self.bump().span),
            TokKind::Sym(Sym::LParen) => {
                let lp = self.bump().span;
                let m = self.nested(|p| p.b_or(fl))?;
                let rp = self.expect_sym(Sym::RParen, "")?;
                match m {
                    Mixed::B(b) => BExpr::Paren(Box::new(b), lp.to(rp)),
                    Mixed::A(e) => {
                        return Err(self.err_hint(
                            bang,
                            format!("`{word}` applies only to a condition, not to a number"),
                            format!("write `{} = 0`", print_expr(&e)),
                        ));
                    }
                }
            }
            _ => {
                return Err(self.err_hint(
                    bang,
                    format!("`{word}` applies only to `true`, `false` or a parenthesised condition"),
                    format!("write `{}` or `x = 0`", if word == "!" { "!(a = b)" } else { "not (a = b)" }),
                ));
            }
        };
        self.no_cmp_after_bool()?;
        let span = bang.to(inner.span());
        Ok(Mixed::B(BExpr::Not(Box::new(inner), span)))
    }

    /// Whether the word `not` at offset `k` is the negation: in properties and assumptions,
    /// unless what follows reads it as a variable (`not of a = 1`, `not + 1 > 2`).
    fn is_not_keyword(&self, fl: Fl, k: usize) -> bool {
        fl == Fl::Q
            && self.is_word_at(k, "not")
            && !matches!(
                self.peek_at(k + 1),
                TokKind::Sym(
                    Sym::LBracket
                        | Sym::Eq
                        | Sym::Ne
                        | Sym::Lt
                        | Sym::Le
                        | Sym::Gt
                        | Sym::Ge
                        | Sym::Plus
                        | Sym::Minus
                        | Sym::Star
                        | Sym::Slash
                        | Sym::Percent
                        | Sym::Colon
                )
            )
            && !["of", "and", "or", "until", "unless", "implies"].iter().any(|w| self.is_word_at(k + 1, w))
    }

    fn cmp_rest(&mut self, fl: Fl, e: Expr) -> PResult<Mixed> {
        let Some(op) = self.cmp_op() else {
            return Ok(Mixed::A(e));
        };
        self.bump();
        let r = self.expr(fl)?;
        if self.cmp_op().is_some() {
            return Err(self.err_hint(self.span(), "comparisons cannot be chained", "write `a < b and b < c`"));
        }
        let span = e.span().to(r.span());
        Ok(Mixed::B(BExpr::Cmp(op, e, r, span)))
    }

    // ----------------------------------------------------------------- arithmetic

    fn expr(&mut self, fl: Fl) -> PResult<Expr> {
        self.nested(|p| {
            let l = p.unary(fl)?;
            let l = p.product_rest(fl, l)?;
            p.sum_rest(fl, l)
        })
    }

    fn sum_rest(&mut self, fl: Fl, mut l: Expr) -> PResult<Expr> {
        let base = self.depth;
        loop {
            let op = match self.peek() {
                TokKind::Sym(Sym::Plus) => BinOp::Add,
                TokKind::Sym(Sym::Minus) => BinOp::Sub,
                _ => {
                    self.depth = base;
                    return Ok(l);
                }
            };
            self.chain_link()?;
            self.bump();
            let r = self.unary(fl)?;
            let r = self.product_rest(fl, r)?;
            let span = l.span().to(r.span());
            l = Expr::Bin(op, Box::new(l), Box::new(r), span);
        }
    }

    fn product_rest(&mut self, fl: Fl, mut l: Expr) -> PResult<Expr> {
        let base = self.depth;
        loop {
            let op = match self.peek() {
                TokKind::Sym(Sym::Star) => BinOp::Mul,
                TokKind::Sym(Sym::Slash) => BinOp::Div,
                TokKind::Sym(Sym::Colon) => BinOp::RDiv,
                TokKind::Sym(Sym::Percent) => BinOp::Mod,
                _ => {
                    self.depth = base;
                    return Ok(l);
                }
            };
            self.chain_link()?;
            self.bump();
            let r = self.unary(fl)?;
            let span = l.span().to(r.span());
            l = Expr::Bin(op, Box::new(l), Box::new(r), span);
        }
    }

    fn unary(&mut self, fl: Fl) -> PResult<Expr> {
        if self.is_sym(Sym::Minus) {
            let m = self.bump().span;
            let e = self.nested(|p| p.unary(fl))?;
            let span = m.to(e.span());
            return Ok(Expr::Neg(Box::new(e), span));
        }
        self.primary(fl)
    }

    fn primary(&mut self, fl: Fl) -> PResult<Expr> {
        let start = self.span();
        match self.peek().clone() {
            TokKind::Int(n) => {
                self.bump();
                Ok(Expr::Int(n, start))
            }
            TokKind::Extern(name) => {
                self.bump();
                Ok(Expr::Extern(Ident { name, span: start }))
            }
            TokKind::Sym(Sym::LParen) => {
                self.bump();
                let e = self.expr(fl)?;
                let rp = self.expect_sym(Sym::RParen, "")?;
                Ok(Expr::Paren(Box::new(e), start.to(rp)))
            }
            TokKind::Sym(Sym::LBracket) => {
                if fl != Fl::P {
                    return Err(self.err(
                        start,
                        format!(
                            "a nondeterministic value `[a..b]` is allowed only in processes, not in {}",
                            fl.place()
                        ),
                    ));
                }
                self.bump();
                let a = self.expr(fl)?;
                self.expect_sym(Sym::DotDot, " in `[a..b]`")?;
                let b = self.expr(fl)?;
                let end = self.expect_sym(Sym::RBracket, " to close `[a..b]`")?;
                Ok(Expr::NonDet(Box::new(a), Box::new(b), start.to(end)))
            }
            TokKind::Lower(w) => match w.as_str() {
                "abs" => {
                    self.bump();
                    self.expect_sym(Sym::LParen, " after `abs`")?;
                    let e = self.expr(fl)?;
                    let end = self.expect_sym(Sym::RParen, "")?;
                    Ok(Expr::Abs(Box::new(e), start.to(end)))
                }
                "min" | "max" => {
                    self.bump();
                    self.expect_sym(Sym::LParen, &format!(" after `{w}`"))?;
                    let mut args = vec![self.expr(fl)?];
                    while self.eat_sym(Sym::Comma) {
                        args.push(self.expr(fl)?);
                    }
                    let end = self.expect_sym(Sym::RParen, " or `,`")?;
                    let span = start.to(end);
                    if args.len() != 2 {
                        return Err(self.err(span, format!("`{w}` takes exactly 2 arguments, found {}", args.len())));
                    }
                    let b = args.pop().expect("two");
                    let a = args.pop().expect("two");
                    let mm = if w == "min" { MinMax::Min } else { MinMax::Max };
                    Ok(Expr::MinMax(mm, Box::new(a), Box::new(b), span))
                }
                "if" => {
                    if fl != Fl::P {
                        return Err(self.err_hint(
                            start,
                            format!("`if` expressions are not allowed in {}", fl.place()),
                            "`if … then … else …` may appear only in process expressions",
                        ));
                    }
                    self.bump();
                    let cond = self.bexpr_top(fl)?;
                    self.expect_word("then", " after the condition of `if`")?;
                    let then = self.expr(fl)?;
                    self.expect_word("else", " (an `if` expression needs an `else` branch)")?;
                    let els = self.expr(fl)?;
                    let span = start.to(els.span());
                    Ok(Expr::If { cond: Box::new(cond), then: Box::new(then), els: Box::new(els), span })
                }
                "id" => self.id_term(fl),
                _ if is_reserved(&w) => Err(self.keyword_error(&w, start)),
                _ => self.var(fl),
            },
            TokKind::Upper(w) => Err(self.err(start, format!("expected an expression, found `{w}`"))),
            _ => Err(self.unexpected("an expression")),
        }
    }

    fn side(&mut self, what: &str) -> PResult<Owner> {
        let span = self.span();
        let owner = match self.peek() {
            TokKind::Lower(w) if w == "c1" => Owner::C1(span),
            TokKind::Lower(w) if w == "c2" => Owner::C2(span),
            TokKind::Int(1) => Owner::C1(span),
            TokKind::Int(2) => Owner::C2(span),
            _ => return Err(self.unexpected(&format!("`c1`, `c2`, `1` or `2` after `{what} of`"))),
        };
        self.bump();
        Ok(owner)
    }

    /// The owner in properties: a quantified variable or a number.
    fn q_owner(&mut self, what: &str) -> PResult<Owner> {
        let span = self.span();
        match self.peek().clone() {
            TokKind::Int(n) => {
                self.bump();
                Ok(Owner::Expr(Box::new(Expr::Int(n, span))))
            }
            TokKind::Lower(w) if !is_reserved(&w) => {
                self.bump();
                Ok(Owner::Expr(Box::new(Expr::Var {
                    name: Ident { name: w, span },
                    indices: Vec::new(),
                    owner: None,
                    span,
                })))
            }
            _ => {
                let mut e = self.unexpected(&format!("a quantified variable or an agent id after `{what} of`"));
                e.diag = e.diag.with_hint("in properties the agent after `of` is a single name or number");
                Err(e)
            }
        }
    }

    fn id_term(&mut self, fl: Fl) -> PResult<Expr> {
        let start = self.bump().span;
        match fl {
            Fl::P | Fl::C => {
                if self.is_word("of") {
                    return Err(self.err(self.span(), "`id of …` is allowed only in links and properties"));
                }
                Ok(Expr::Id { owner: None, span: start })
            }
            Fl::S => Err(self.err(start, "`id` is not allowed in a spawn count")),
            Fl::L | Fl::Q => {
                if !self.is_word("of") {
                    let hint = if fl == Fl::L {
                        "write `id of c1` or `id of c2`"
                    } else {
                        "write `id of a`, where `a` is a quantified variable"
                    };
                    return Err(self.err_hint(start, format!("`id` must say whose id it is in {}", fl.place()), hint));
                }
                self.bump();
                let owner = if fl == Fl::L { self.side("id")? } else { self.q_owner("id")? };
                Ok(Expr::Id { owner: Some(owner), span: start.to(self.prev_span()) })
            }
        }
    }

    fn var(&mut self, fl: Fl) -> PResult<Expr> {
        let name = self.lname("a variable name")?;
        if matches!(fl, Fl::C | Fl::S) {
            let hint = if fl == Fl::S {
                "only numbers and external parameters (`_n`) may appear here"
            } else {
                "only numbers, external parameters (`_n`) and `id` may appear here"
            };
            let place = if fl == Fl::S { "a spawn count" } else { "a constant expression" };
            return Err(PErr {
                diag: Diagnostic::error(name.span, format!("unexpected variable `{}` in {place}", name.name))
                    .with_hint(hint),
                at: self.pos,
            });
        }
        let mut indices = Vec::new();
        if self.eat_sym(Sym::LBracket) {
            indices.push(self.expr(fl)?);
            while self.eat_sym(Sym::Comma) {
                indices.push(self.expr(fl)?);
            }
            self.expect_sym(Sym::RBracket, " or `,` after the indices")?;
        }
        let owner = if self.is_word("of") {
            self.bump();
            Some(match fl {
                Fl::P => {
                    let e = self.expr(fl)?;
                    if matches!(e, Expr::Bin(..)) {
                        let shown = print_expr(&e);
                        self.warnings.push(
                            Diagnostic::warning(
                                e.span(),
                                format!("the operand of `of` extends as far right as possible: this reads `{} of ({shown})`", name.name),
                            )
                            .with_hint(format!("write `({} of …) …` if the operator should apply to the value read", name.name)),
                        );
                    }
                    Owner::Expr(Box::new(e))
                }
                Fl::L => self.side(&name.name)?,
                _ => self.q_owner(&name.name)?,
            })
        } else {
            if fl == Fl::L {
                return Err(PErr {
                    diag: Diagnostic::error(
                        name.span,
                        format!("the variable `{}` in a link predicate must say whose copy it reads", name.name),
                    )
                    .with_hint(format!(
                        "write `{0} of c1` (sender/picker) or `{0} of c2` (receiver/candidate)",
                        name.name
                    )),
                    at: self.pos,
                });
            }
            None
        };
        let span = name.span.to(self.prev_span());
        Ok(Expr::Var { name, indices, owner, span })
    }
}
