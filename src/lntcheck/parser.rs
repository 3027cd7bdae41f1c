//! Recursive-descent parser for the LNT subset (`docs/lnt-encoding.md` §1), every dialect.

use super::ast::*;
use super::lexer::{Tok, lex};
use crate::diagnostics::Located;
use crate::diagnostics::span::SourceFile;

pub(crate) struct Parser {
    toks: Vec<(Tok, Span)>,
    i: usize,
    /// The dialect fixed by the caller, if any.
    pub(crate) dialect: Option<Dialect>,
    /// Per construct (`Spelling` order), the first spelling met: newer or not, where, what.
    fixed_by: [Option<(bool, Span, &'static str)>; 3],
    /// Expressions being read, nested (bounded by `MAX_EXPR_DEPTH`).
    depth: u32,
    /// Statements and behaviours being read, nested (bounded by `MAX_STMT_DEPTH`).
    stmt_depth: u32,
    /// The text, to name the position of an earlier construct in a message.
    file: SourceFile,
    /// The gates in scope (the process's, then those of enclosing `hide`s): `G (e)` is a
    /// communication with a send offer written without `!` (CADP HISTORY #3148) when `G` is
    /// one, a process call otherwise.
    gates: Vec<String>,
}

/// Nesting of expressions (parentheses, calls, indices, prefix operators) beyond which a
/// program is refused: the later passes recurse on the expression tree.
const MAX_EXPR_DEPTH: u32 = 200;

/// Nesting of statements and behaviours (`if`, `loop`, `alt`, `par`, `var` …) beyond which a
/// program is refused: the checker and the interpreter recurse on the statement tree.
const MAX_STMT_DEPTH: u32 = 200;

/// Operators in one chain (`a + b + …`) beyond which a program is refused: the chain is a
/// tree as deep as it is long.
const MAX_CHAIN: usize = 1000;

type R<T> = Result<T, Located>;

/// Parses a module. `dialect`: `None` to accept any dialect, but one spelling per construct
/// (CADP forbids mixing `select` and `alt`; mixing the others would only be warned about).
pub(crate) fn parse_module(src: &str, dialect: Option<Dialect>) -> R<Module> {
    let toks = lex(src)?;
    let file = SourceFile::new("", src);
    let mut p = Parser { toks, i: 0, dialect, fixed_by: [None; 3], depth: 0, stmt_depth: 0, gates: vec![], file };
    p.module()
}

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.i].0
    }
    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.i + k).min(self.toks.len() - 1)].0
    }
    fn pos(&self) -> Span {
        self.toks[self.i].1
    }
    fn bump(&mut self) -> Tok {
        let t = self.toks[self.i].0.clone();
        if self.i + 1 < self.toks.len() {
            self.i += 1;
        }
        t
    }
    fn is_kw(&self, k: &str) -> bool {
        matches!(self.peek(), Tok::Kw(x) if *x == k)
    }
    fn is_p(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::P(x) if *x == p)
    }
    fn eat_kw(&mut self, k: &str) -> bool {
        if self.is_kw(k) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn eat_p(&mut self, p: &str) -> bool {
        if self.is_p(p) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn err<T>(&self, what: &str) -> R<T> {
        Err(Located::new(self.pos(), format!("expected {what}, found {}", self.peek())))
    }
    fn kw(&mut self, k: &str) -> R<()> {
        if self.eat_kw(k) { Ok(()) } else { self.err(&format!("`{k}`")) }
    }
    fn p(&mut self, p: &str) -> R<()> {
        if self.eat_p(p) { Ok(()) } else { self.err(&format!("`{p}`")) }
    }
    fn ident(&mut self) -> R<(String, Span)> {
        let pos = self.pos();
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.bump();
                Ok((s, pos))
            }
            _ => self.err("an identifier"),
        }
    }
    fn end(&mut self, k: &str) -> R<()> {
        self.kw("end")?;
        self.kw(k)
    }
    /// Records a dialect-specific spelling (`newer`: the newer one of the construct).
    fn dialect_use(&mut self, construct: Spelling, newer: bool, pos: Span, what: &'static str) -> R<()> {
        if let Some(d) = self.dialect {
            if construct.newer_in(d) != newer {
                return Err(Located::new(pos, format!("{what} is not in the expected LNT dialect")));
            }
            return Ok(());
        }
        let slot = &mut self.fixed_by[construct as usize];
        match *slot {
            None => {
                *slot = Some((newer, pos, what));
                Ok(())
            }
            Some((n, _, _)) if n == newer => Ok(()),
            Some((_, p, w)) => {
                let (line, col) = self.file.line_col(p.start);
                Err(Located::new(pos, format!("{what} mixed with {w} (at {line}:{col})")))
            }
        }
    }

    fn module(&mut self) -> R<Module> {
        self.kw("module")?;
        self.ident()?;
        if self.eat_p("(") {
            return Err(Located::new(self.pos(), "imported modules are not part of the subset"));
        }
        self.kw("is")?;
        let mut pragmas = vec![];
        while self.is_p("!") {
            self.bump();
            let (pragma, pos) = self.ident()?;
            if !matches!(pragma.as_str(), "nat_inf" | "nat_sup" | "int_inf" | "int_sup" | "nat_bits" | "int_bits") {
                return Err(Located::new(pos, format!("the pragma `!{pragma}` is not part of the subset")));
            }
            let negative = self.eat_p("-");
            let n = i64::try_from(self.num()?).map_err(|_| Located::new(pos, "pragma value out of range"))?;
            // the interpreter computes on 32 bits (`eval::int`): the widths it can stand for
            if pragma.ends_with("_bits") && (negative || n != 32) {
                return Err(Located::new(pos, format!("`!{pragma}` other than 32 is not part of the subset")));
            }
            pragmas.push((pragma, if negative { -n } else { n }));
        }
        let mut m = Module { pragmas, types: vec![], funcs: vec![], procs: vec![] };
        loop {
            if self.is_kw("type") {
                m.types.push(self.type_decl()?);
            } else if self.is_kw("function") {
                m.funcs.push(self.func()?);
            } else if self.is_kw("process") {
                m.procs.push(self.proc()?);
            } else if self.is_kw("end") {
                self.end("module")?;
                break;
            } else {
                return self.err("`type`, `function`, `process` or `end module`");
            }
        }
        if *self.peek() != Tok::Eof {
            return self.err("end of file");
        }
        Ok(m)
    }

    fn type_decl(&mut self) -> R<TypeDecl> {
        let pos = self.pos();
        self.kw("type")?;
        let (name, _) = self.ident()?;
        self.kw("is")?;
        let def = if self.eat_kw("array") {
            self.p("[")?;
            let lo = self.num()?;
            let dpos = self.pos();
            if self.eat_p("...") {
                self.dialect_use(Spelling::Range, true, dpos, "array bounds `...`")?;
            } else if self.eat_p("..") {
                self.dialect_use(Spelling::Range, false, dpos, "array bounds `..`")?;
            } else {
                return self.err("`..` or `...`");
            }
            let hi = self.num()?;
            self.p("]")?;
            self.kw("of")?;
            let (elem, _) = self.ident()?;
            TypeDef::Array { lo, hi, elem }
        } else {
            let mut cs = vec![self.ident()?];
            while self.eat_p(",") {
                cs.push(self.ident()?);
            }
            TypeDef::Enum(cs)
        };
        // The predefined functions a type declares (`with "==", ...`): checked for syntax only,
        // the interpreter does not consult the list.
        if self.eat_kw("with") {
            loop {
                if !matches!(self.bump(), Tok::P(_) | Tok::Ident(_)) {
                    return Err(Located::new(self.toks[self.i - 1].1, "expected a predefined function name"));
                }
                if !self.eat_p(",") {
                    break;
                }
            }
        }
        self.end("type")?;
        Ok(TypeDecl { name, def, pos })
    }

    fn num(&mut self) -> R<u64> {
        match self.peek().clone() {
            Tok::Num(n) => {
                self.bump();
                Ok(n)
            }
            _ => self.err("a number"),
        }
    }

    fn params(&mut self, allow_modes: bool) -> R<Vec<Param>> {
        let mut out = vec![];
        if !self.eat_p("(") {
            return Ok(out);
        }
        if self.eat_p(")") {
            return Ok(out);
        }
        loop {
            let mpos = self.pos();
            let mode = if self.eat_kw("in") {
                if self.eat_kw("out") { Mode::InOut } else { Mode::In }
            } else if self.eat_kw("out") {
                Mode::Out
            } else {
                Mode::In
            };
            if mode != Mode::In && !allow_modes {
                return Err(Located::new(mpos, "processes of the subset take only `in` parameters"));
            }
            let mut names = vec![self.ident()?];
            while self.eat_p(",") {
                names.push(self.ident()?);
            }
            self.p(":")?;
            let (ty, _) = self.ident()?;
            for (n, pos) in names {
                out.push(Param { name: n, ty: ty.clone(), mode, pos });
            }
            if self.eat_p(")") {
                break;
            }
            if !self.eat_p(",") && !self.eat_p(";") {
                return self.err("`,` or `)`");
            }
        }
        Ok(out)
    }

    fn func(&mut self) -> R<Func> {
        let pos = self.pos();
        self.kw("function")?;
        let (name, _) = self.ident()?;
        let params = self.params(true)?;
        let ret = if self.eat_p(":") { Some(self.ident()?.0) } else { None };
        self.kw("is")?;
        let body = self.stmts()?;
        self.end("function")?;
        Ok(Func { name, params, ret, body, pos })
    }

    fn gate_list(&mut self) -> R<Vec<(String, Span)>> {
        let mut gs = vec![self.ident()?];
        while self.eat_p(",") {
            gs.push(self.ident()?);
        }
        Ok(gs)
    }

    /// `G, H: any` (the only gate type of the subset)
    fn typed_gates(&mut self) -> R<Vec<(String, Span)>> {
        let mut out = vec![];
        loop {
            out.extend(self.gate_list()?);
            self.p(":")?;
            if !self.eat_kw("any") {
                let (t, pos) = self.ident()?;
                return Err(Located::new(pos, format!("gate type `{t}`: only `any` is part of the subset")));
            }
            if !self.eat_p(",") {
                break;
            }
        }
        Ok(out)
    }

    fn proc(&mut self) -> R<Proc> {
        let pos = self.pos();
        self.kw("process")?;
        let (name, _) = self.ident()?;
        let gates = if self.eat_p("[") {
            let g = self.typed_gates()?;
            self.p("]")?;
            g
        } else {
            vec![]
        };
        let params = self.params(false)?;
        self.kw("is")?;
        self.gates = gates.iter().map(|(g, _)| g.clone()).collect();
        let body = self.stmts()?;
        self.gates.clear();
        self.end("process")?;
        Ok(Proc { name, gates, params, body, pos })
    }

    fn at_stmts_end(&self) -> bool {
        self.is_kw("end")
            || self.is_kw("elsif")
            || self.is_kw("else")
            || self.is_p("[]")
            || self.is_p("||")
            || self.is_p("|")
            || matches!(self.peek(), Tok::Eof)
    }

    /// A sequence `s1; s2; …` (possibly a single statement).
    fn stmts(&mut self) -> R<Stmt> {
        let pos = self.pos();
        let mut v = vec![self.stmt()?];
        while self.eat_p(";") {
            if self.at_stmts_end() {
                break;
            }
            v.push(self.stmt()?);
        }
        if !self.at_stmts_end() {
            return self.err("`;` or the end of the block");
        }
        Ok(if v.len() == 1 { v.pop().unwrap_or(Stmt { k: StmtK::Null, pos }) } else { Stmt { k: StmtK::Seq(v), pos } })
    }

    fn stmt(&mut self) -> R<Stmt> {
        self.nested(|p| &mut p.stmt_depth, MAX_STMT_DEPTH, "statements", Parser::stmt_inner)
    }

    fn stmt_inner(&mut self) -> R<Stmt> {
        let pos = self.pos();
        let k = match self.peek().clone() {
            Tok::Kw("null") => {
                self.bump();
                StmtK::Null
            }
            Tok::Kw("stop") => {
                self.bump();
                StmtK::Stop
            }
            Tok::Kw("var") => {
                self.bump();
                let mut decls = vec![];
                loop {
                    let mut names = vec![self.ident()?];
                    while self.eat_p(",") {
                        names.push(self.ident()?);
                    }
                    self.p(":")?;
                    let (ty, _) = self.ident()?;
                    for (n, p) in names {
                        decls.push((n, ty.clone(), p));
                    }
                    if !self.eat_p(",") {
                        break;
                    }
                }
                self.kw("in")?;
                let body = self.stmts()?;
                self.end("var")?;
                StmtK::Var(decls, Box::new(body))
            }
            Tok::Kw("if") => {
                self.bump();
                let mut arms = vec![];
                let c = self.expr()?;
                self.kw("then")?;
                arms.push((c, self.stmts()?));
                let mut els = None;
                loop {
                    if self.eat_kw("elsif") {
                        let c = self.expr()?;
                        self.kw("then")?;
                        arms.push((c, self.stmts()?));
                    } else if self.eat_kw("else") {
                        els = Some(Box::new(self.stmts()?));
                        self.end("if")?;
                        break;
                    } else {
                        self.end("if")?;
                        break;
                    }
                }
                StmtK::If(arms, els)
            }
            Tok::Kw("only") => {
                self.bump();
                self.kw("if")?;
                StmtK::OnlyIf(self.expr()?)
            }
            Tok::Kw("while") => {
                self.bump();
                let c = self.expr()?;
                self.kw("loop")?;
                let b = self.stmts()?;
                self.end("loop")?;
                StmtK::While(c, Box::new(b))
            }
            Tok::Kw("loop") => {
                self.bump();
                let b = self.stmts()?;
                self.end("loop")?;
                StmtK::Loop(Box::new(b))
            }
            Tok::Kw("return") => {
                self.bump();
                if self.at_stmts_end() || self.is_p(";") {
                    StmtK::Return(None)
                } else {
                    StmtK::Return(Some(self.expr()?))
                }
            }
            Tok::Kw("eval") => {
                self.bump();
                let (f, _) = self.ident()?;
                let args = self.args()?;
                StmtK::Eval(f, args)
            }
            Tok::Kw(k @ ("alt" | "select")) => {
                self.bump();
                if k == "alt" {
                    self.dialect_use(Spelling::Choice, true, pos, "`alt`")?;
                } else {
                    self.dialect_use(Spelling::Choice, false, pos, "`select`")?;
                }
                let mut bs = vec![self.stmts()?];
                while self.eat_p("[]") {
                    bs.push(self.stmts()?);
                }
                self.end(k)?;
                StmtK::Alt(bs)
            }
            Tok::Kw("hide") => {
                self.bump();
                let gs = self.typed_gates()?;
                self.kw("in")?;
                let outer = self.gates.len();
                self.gates.extend(gs.iter().map(|(g, _)| g.clone()));
                let b = self.stmts()?;
                self.gates.truncate(outer);
                self.end("hide")?;
                StmtK::Hide(gs, Box::new(b))
            }
            Tok::Kw("par") => {
                self.bump();
                let mut global = vec![];
                // `par G, H in`
                let save = self.i;
                if matches!(self.peek(), Tok::Ident(_)) {
                    let gs = self.gate_list()?;
                    if self.eat_kw("in") {
                        global = gs;
                    } else {
                        self.i = save;
                    }
                }
                let mut bs = vec![];
                loop {
                    let save = self.i;
                    let mut synced = None;
                    if matches!(self.peek(), Tok::Ident(_)) {
                        let gs = self.gate_list()?;
                        if self.eat_p("->") {
                            synced = Some(gs);
                        } else {
                            self.i = save;
                        }
                    }
                    let b = self.stmts()?;
                    bs.push(match synced {
                        Some(gs) => ParBranch::Synced(gs, b),
                        None => ParBranch::Plain(b),
                    });
                    if !self.eat_p("||") {
                        break;
                    }
                }
                self.end("par")?;
                StmtK::Par(global, bs)
            }
            Tok::Kw("case") => {
                // `case E in P [where G] -> S | … end case`, read as the `if` chain it means:
                // patterns are values (numerals, booleans, constructors, constants), compared
                // with `==`, or `any [T]`, which matches everything.
                self.bump();
                let scrutinee = self.expr()?;
                self.kw("in")?;
                if self.is_kw("var") {
                    return self.err("a pattern (`var` declarations in `case` are not supported)");
                }
                let mut arms: Vec<(Expr, Stmt)> = vec![];
                let mut default: Option<Box<Stmt>> = None;
                loop {
                    let ppos = self.pos();
                    let test = if self.eat_kw("any") {
                        if matches!(self.peek(), Tok::Ident(_)) {
                            self.ident()?;
                        }
                        None
                    } else {
                        let pat = self.expr()?;
                        let eq = ExprK::Bin(BinOp::Eq, Box::new(scrutinee.clone()), Box::new(pat));
                        Some(Expr { k: eq, pos: ppos })
                    };
                    let guard = if self.eat_kw("where") { Some(self.expr()?) } else { None };
                    self.p("->")?;
                    let body = self.stmts()?;
                    let cond = match (test, guard) {
                        (Some(t), Some(g)) => {
                            Some(Expr { k: ExprK::Bin(BinOp::And, Box::new(t), Box::new(g)), pos: ppos })
                        }
                        (t, g) => t.or(g),
                    };
                    match cond {
                        _ if default.is_some() => {
                            return Err(Located::new(ppos, "unreachable `case` branch after `any` without `where`"));
                        }
                        Some(c) => arms.push((c, body)),
                        None => default = Some(Box::new(body)),
                    }
                    if !self.eat_p("|") {
                        break;
                    }
                }
                self.end("case")?;
                if arms.is_empty() {
                    // Only `any`: the body always runs.
                    return Ok(*default.unwrap_or(Box::new(Stmt { k: StmtK::Null, pos })));
                }
                StmtK::If(arms, default)
            }
            Tok::Ident(name) => {
                // assignment, communication or process call
                match self.peek_at(1) {
                    Tok::P(":=") | Tok::P("[") if self.is_assignment() => {
                        let lv = self.lvalue()?;
                        self.p(":=")?;
                        if self.eat_kw("any") {
                            let (ty, _) = self.ident()?;
                            let w = if self.eat_kw("where") { Some(self.expr()?) } else { None };
                            StmtK::Any(lv, ty, w)
                        } else {
                            StmtK::Assign(lv, self.expr()?)
                        }
                    }
                    Tok::P("[") | Tok::P("[]") => {
                        self.bump();
                        let gates = if self.eat_p("[]") {
                            vec![]
                        } else {
                            self.p("[")?;
                            let g = self.gate_list()?;
                            self.p("]")?;
                            g
                        };
                        let args = if self.is_p("(") { self.args()? } else { vec![] };
                        StmtK::Call(name, gates, args)
                    }
                    Tok::P("(")
                        if !self.gates.contains(&name) && !matches!(self.peek_at(2), Tok::P("!") | Tok::P("?")) =>
                    {
                        self.bump();
                        let args = self.args()?;
                        StmtK::Call(name, vec![], args)
                    }
                    _ => {
                        self.bump();
                        let mut offers = vec![];
                        if self.eat_p("(") {
                            loop {
                                let opos = self.pos();
                                if self.eat_p("!") {
                                    offers.push(Offer::Send(self.expr()?));
                                } else if self.eat_p("?") {
                                    offers.push(Offer::Recv(self.lvalue()?));
                                } else if self.gates.contains(&name) {
                                    offers.push(Offer::Send(self.expr()?));
                                } else {
                                    return Err(Located::new(opos, "expected an offer `!e` or `?x`"));
                                }
                                if !self.eat_p(",") {
                                    break;
                                }
                            }
                            self.p(")")?;
                        }
                        let w = if self.eat_kw("where") { Some(self.expr()?) } else { None };
                        StmtK::Comm(name, offers, w)
                    }
                }
            }
            _ => return self.err("a statement"),
        };
        Ok(Stmt { k, pos })
    }

    /// Whether the statement at the cursor is an assignment `x := …` or `x[e] := …`.
    fn is_assignment(&self) -> bool {
        if matches!(self.peek_at(1), Tok::P(":=")) {
            return true;
        }
        // x [ … ] :=  (scan to the matching bracket)
        let mut depth = 0;
        let mut k = 1;
        loop {
            match self.peek_at(k) {
                Tok::P("[") => depth += 1,
                Tok::P("]") => {
                    depth -= 1;
                    if depth == 0 {
                        return matches!(self.peek_at(k + 1), Tok::P(":="));
                    }
                }
                Tok::Eof => return false,
                _ => {}
            }
            k += 1;
        }
    }

    fn lvalue(&mut self) -> R<LValue> {
        let (name, pos) = self.ident()?;
        let index = if self.eat_p("[") {
            let e = self.expr()?;
            self.p("]")?;
            Some(e)
        } else {
            None
        };
        Ok(LValue { name, index, pos })
    }

    fn args(&mut self) -> R<Vec<Arg>> {
        self.p("(")?;
        let mut out = vec![];
        if self.eat_p(")") {
            return Ok(out);
        }
        loop {
            let pos = self.pos();
            if self.eat_p("!?") {
                self.dialect_use(Spelling::InOut, false, pos, "in-out parameter `!?x`")?;
                let (n, p) = self.ident()?;
                out.push(Arg::InOut(n, p));
            } else if self.eat_p("?") {
                let (n, p) = self.ident()?;
                out.push(Arg::Out(n, p));
            } else if matches!(self.peek(), Tok::Ident(_)) && matches!(self.peek_at(1), Tok::P("?")) {
                let (n, p) = self.ident()?;
                let qpos = self.pos();
                self.bump();
                self.dialect_use(Spelling::InOut, true, qpos, "in-out parameter `x?`")?;
                out.push(Arg::InOut(n, p));
            } else {
                out.push(Arg::In(self.expr()?));
            }
            if !self.eat_p(",") {
                break;
            }
        }
        self.p(")")?;
        Ok(out)
    }

    pub(crate) fn expr(&mut self) -> R<Expr> {
        self.nested(|p| &mut p.depth, MAX_EXPR_DEPTH, "expression", Parser::expr_inner)
    }

    /// `read` one level deeper on the counter `level` selects, refused with a located error
    /// (`what` nested more than `max` levels deep) beyond `max`.
    fn nested<T>(
        &mut self,
        level: fn(&mut Parser) -> &mut u32,
        max: u32,
        what: &str,
        read: fn(&mut Parser) -> R<T>,
    ) -> R<T> {
        if *level(self) >= max {
            return Err(Located::new(self.pos(), format!("{what} nested more than {max} levels deep")));
        }
        *level(self) += 1;
        let r = read(self);
        *level(self) -= 1;
        r
    }

    fn expr_inner(&mut self) -> R<Expr> {
        let e = self.or_expr()?;
        if self.is_kw("of") {
            let pos = self.pos();
            self.bump();
            let (t, _) = self.ident()?;
            return Ok(Expr { k: ExprK::Of(Box::new(e), t), pos });
        }
        Ok(e)
    }

    fn bin(&mut self, level: usize) -> R<Expr> {
        const LEVELS: &[&[(&str, BinOp)]] = &[
            &[("or", BinOp::Or)],
            &[("and", BinOp::And)],
            &[
                ("==", BinOp::Eq),
                ("!=", BinOp::Ne),
                ("<>", BinOp::Ne),
                ("=", BinOp::Eq),
                ("<=", BinOp::Le),
                (">=", BinOp::Ge),
                ("<", BinOp::Lt),
                (">", BinOp::Gt),
            ],
            &[("+", BinOp::Add), ("-", BinOp::Sub)],
            &[("*", BinOp::Mul), ("div", BinOp::Div), ("mod", BinOp::Mod)],
        ];
        if level >= LEVELS.len() {
            return self.unary();
        }
        let mut e = self.bin(level + 1)?;
        let mut chain = 0;
        loop {
            let pos = self.pos();
            let op = LEVELS[level].iter().find(|(t, _)| self.is_kw(t) || self.is_p(t)).map(|(_, o)| *o);
            let Some(op) = op else { break };
            chain += 1;
            if chain > MAX_CHAIN {
                return Err(Located::new(pos, format!("more than {MAX_CHAIN} operators in one chain")));
            }
            self.bump();
            let r = self.bin(level + 1)?;
            e = Expr { k: ExprK::Bin(op, Box::new(e), Box::new(r)), pos };
        }
        Ok(e)
    }

    fn or_expr(&mut self) -> R<Expr> {
        self.bin(0)
    }

    fn unary(&mut self) -> R<Expr> {
        // Prefix operators read in a loop, bounded like nesting (the tree is as deep).
        let mut prefixes = vec![];
        loop {
            let pos = self.pos();
            let neg = if self.eat_p("-") {
                true
            } else if self.eat_kw("not") {
                false
            } else {
                break;
            };
            if self.depth as usize + prefixes.len() >= MAX_EXPR_DEPTH as usize {
                return Err(Located::new(pos, format!("expression nested more than {MAX_EXPR_DEPTH} levels deep")));
            }
            prefixes.push((neg, pos));
        }
        let mut e = self.postfix()?;
        while let Some((neg, pos)) = prefixes.pop() {
            let k = if neg { ExprK::Neg(Box::new(e)) } else { ExprK::Not(Box::new(e)) };
            e = Expr { k, pos };
        }
        Ok(e)
    }

    fn postfix(&mut self) -> R<Expr> {
        let mut e = self.primary()?;
        while self.is_p("[") {
            let pos = self.pos();
            self.bump();
            let i = self.expr()?;
            self.p("]")?;
            e = Expr { k: ExprK::Index(Box::new(e), Box::new(i)), pos };
        }
        Ok(e)
    }

    fn primary(&mut self) -> R<Expr> {
        let pos = self.pos();
        match self.peek().clone() {
            Tok::Num(n) => {
                self.bump();
                Ok(Expr { k: ExprK::Num(n), pos })
            }
            Tok::Ident(name) => {
                self.bump();
                if self.is_p("(") {
                    self.bump();
                    let mut args = vec![];
                    if !self.eat_p(")") {
                        loop {
                            args.push(self.expr()?);
                            if !self.eat_p(",") {
                                break;
                            }
                        }
                        self.p(")")?;
                    }
                    Ok(Expr { k: ExprK::Call(name, args), pos })
                } else {
                    Ok(Expr { k: ExprK::Name(name), pos })
                }
            }
            Tok::P("(") => {
                self.bump();
                let e = self.expr()?;
                self.p(")")?;
                Ok(e)
            }
            _ => self.err("an expression"),
        }
    }
}
