//! Recursive descent over the subset's grammar (`mod.rs`).

use super::ast::{Beh, Block, Derived, Script, Verify};
use super::lexer::{Tok, lex};
use crate::diagnostics::Located;
use crate::diagnostics::span::Span;

struct Parser {
    toks: Vec<(Tok, Span)>,
    i: usize,
    /// The length of the script: where "end of script" is.
    len: usize,
    /// Behaviours being parsed, one inside the other (at most `MAX_NESTING`).
    depth: usize,
}

/// Nesting of behaviours (`(`, `hide`, `par`, `total prio`) beyond this is refused: the parser
/// and every pass over a behaviour recurse once per level. The emitted scripts nest a few
/// levels.
const MAX_NESTING: usize = 200;

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.0)
    }
    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.i + k).map(|t| &t.0)
    }
    fn err<T>(&self, what: &str) -> Result<T, Located> {
        match self.toks.get(self.i) {
            Some((t, span)) => Err(Located::new(*span, format!("expected {what}, found {t}"))),
            None => Err(Located::new(self.here(), format!("expected {what}, found the end of the script"))),
        }
    }
    /// The span of the next token (the end of the script after the last one).
    fn here(&self) -> Span {
        self.toks.get(self.i).map_or(Span::new(self.len, self.len), |t| t.1)
    }
    fn is_kw(&self, k: &str) -> bool {
        matches!(self.peek(), Some(Tok::Id(x)) if x == k)
    }
    fn kw(&mut self, k: &str) -> Result<(), Located> {
        if self.is_kw(k) {
            self.i += 1;
            Ok(())
        } else {
            self.err(&format!("`{k}`"))
        }
    }
    fn is_sym(&self, s: &str) -> bool {
        matches!(self.peek(), Some(Tok::Sym(x)) if *x == s)
    }
    fn sym(&mut self, s: &str) -> Result<(), Located> {
        if self.is_sym(s) {
            self.i += 1;
            Ok(())
        } else {
            self.err(&format!("`{s}`"))
        }
    }
    fn id(&mut self) -> Result<String, Located> {
        match self.peek() {
            Some(Tok::Id(x)) => {
                let x = x.clone();
                self.i += 1;
                Ok(x)
            }
            _ => self.err("an identifier"),
        }
    }
    fn string(&mut self) -> Result<String, Located> {
        match self.peek() {
            Some(Tok::Str(x)) => {
                let x = x.clone();
                self.i += 1;
                Ok(x)
            }
            _ => self.err("a string"),
        }
    }
    fn gates(&mut self) -> Result<Vec<String>, Located> {
        let mut out = vec![self.id()?];
        while self.is_sym(",") {
            self.i += 1;
            out.push(self.id()?);
        }
        Ok(out)
    }

    fn beh(&mut self) -> Result<Beh, Located> {
        if self.depth >= MAX_NESTING {
            return Err(Located::new(self.here(), format!("the behaviour nests deeper than {MAX_NESTING} levels")));
        }
        self.depth += 1;
        let b = self.beh_at_depth();
        self.depth -= 1;
        b
    }

    fn beh_at_depth(&mut self) -> Result<Beh, Located> {
        if self.is_sym("(") {
            self.i += 1;
            let b = self.beh()?;
            self.sym(")")?;
            return Ok(b);
        }
        if self.is_kw("hide") {
            self.i += 1;
            let all_but = self.is_kw("all") && matches!(self.peek_at(1), Some(Tok::Id(x)) if x == "but");
            if all_but {
                self.i += 2;
            }
            let gates = self.gates()?;
            self.kw("in")?;
            let body = Box::new(self.beh()?);
            self.kw("end")?;
            self.kw("hide")?;
            return Ok(if all_but { Beh::HideAllBut { gates, body } } else { Beh::Hide { gates, body } });
        }
        if self.is_kw("par") {
            self.i += 1;
            // `par G, … in` (global) or a first branch
            let mut global = vec![];
            let save = self.i;
            if let Ok(gs) = self.gates()
                && self.is_kw("in")
            {
                self.i += 1;
                global = gs;
            } else {
                self.i = save;
            }
            let mut branches = vec![self.branch()?];
            while self.is_sym("||") {
                self.i += 1;
                branches.push(self.branch()?);
            }
            self.kw("end")?;
            self.kw("par")?;
            return Ok(Beh::Par { global, branches });
        }
        if self.is_kw("total") && matches!(self.peek_at(1), Some(Tok::Id(x)) if x == "prio") {
            self.i += 2;
            let mut chains = vec![];
            while let Some(Tok::Str(_)) = self.peek() {
                let mut ch = vec![self.string()?];
                while self.is_sym(">") {
                    self.i += 1;
                    ch.push(self.string()?);
                }
                chains.push(ch);
            }
            if chains.is_empty() {
                return self.err("a priority chain");
            }
            self.kw("in")?;
            let body = Box::new(self.beh()?);
            self.kw("end")?;
            self.kw("prio")?;
            return Ok(Beh::Prio { chains, body });
        }
        if let Some(Tok::Str(_)) = self.peek() {
            return Ok(Beh::File(self.string()?));
        }
        let process = self.id()?;
        self.sym("[")?;
        let gates = self.gates()?;
        self.sym("]")?;
        let mut args = vec![];
        if self.is_sym("(") {
            self.i += 1;
            loop {
                match self.peek() {
                    Some(Tok::Num(n)) => {
                        args.push(*n);
                        self.i += 1;
                    }
                    _ => return self.err("a number"),
                }
                if self.is_sym(",") {
                    self.i += 1;
                } else {
                    break;
                }
            }
            self.sym(")")?;
        }
        Ok(Beh::Call { process, gates, args })
    }

    fn branch(&mut self) -> Result<(Option<Vec<String>>, Beh), Located> {
        let save = self.i;
        if let Ok(gs) = self.gates()
            && self.is_sym("->")
        {
            self.i += 1;
            return Ok((Some(gs), self.beh()?));
        }
        self.i = save;
        Ok((None, self.beh()?))
    }

    /// `ID reduction [hold "G", …] of`: the reduction's name and its held gates.
    fn reduction(&mut self) -> Result<(String, Vec<String>), Located> {
        let name = self.id()?;
        self.kw("reduction")?;
        let mut hold = vec![];
        if self.is_kw("hold") {
            self.i += 1;
            hold.push(self.string()?);
            while self.is_sym(",") {
                self.i += 1;
                hold.push(self.string()?);
            }
        }
        self.kw("of")?;
        Ok((name, hold))
    }

    /// The right-hand side of a monolithic statement, after `=`.
    fn derived(&mut self) -> Result<Derived, Located> {
        if self.is_kw("generation") {
            self.i += 1;
            self.kw("of")?;
            let lnt = self.string()?;
            self.sym(";")?;
            return Ok(Derived::Generation { lnt });
        }
        let (reduction, hold) = self.reduction()?;
        // `[hide all but G… in] "E.bcg";` (the monolithic script), else a behaviour.
        let save = self.i;
        if self.derived_of_file().is_err() {
            self.i = save;
            let beh = self.beh()?;
            self.sym(";")?;
            return Ok(Derived::ReductionOf { reduction, hold, beh });
        }
        self.i = save;
        let mut keep = None;
        if self.is_kw("hide") {
            self.i += 1;
            self.kw("all")?;
            self.kw("but")?;
            keep = Some(self.gates()?);
            self.kw("in")?;
        }
        let of = self.string()?;
        self.sym(";")?;
        Ok(Derived::Reduction { reduction, hold, keep, of })
    }

    /// Whether `[hide all but G… in] "E.bcg";` follows (consumes it).
    fn derived_of_file(&mut self) -> Result<(), Located> {
        if self.is_kw("hide") {
            self.i += 1;
            self.kw("all")?;
            self.kw("but")?;
            self.gates()?;
            self.kw("in")?;
        }
        self.string()?;
        self.sym(";")
    }

    fn script(&mut self) -> Result<Script, Located> {
        let mut s = Script::default();
        while let Some(t) = self.peek().cloned() {
            match t {
                Tok::Directive(d) => {
                    self.i += 1;
                    if let Some(f) = d.strip_prefix("DEFAULT_PROCESS_FILE=") {
                        s.process_file = Some(f.trim().trim_matches('"').to_string());
                    }
                }
                Tok::Str(bcg) => {
                    self.i += 1;
                    self.sym("=")?;
                    if !self.is_kw("root") {
                        let d = self.derived()?;
                        s.derived.push((bcg, d));
                        continue;
                    }
                    self.kw("root")?;
                    self.kw("leaf")?;
                    let (reduction, hold) = self.reduction()?;
                    let beh = self.beh()?;
                    self.sym(";")?;
                    s.blocks.push(Block { bcg, reduction, hold, beh, properties: vec![] });
                }
                Tok::Id(k) if k == "property" => {
                    let at = self.here();
                    self.i += 1;
                    let name = self.id()?;
                    if let Some(Tok::Str(_)) = self.peek() {
                        self.i += 1;
                    }
                    self.kw("is")?;
                    let diag = self.string()?;
                    self.sym("=")?;
                    let models = !self.is_kw("verify");
                    let (mcl, evaluator, bcg) = if models {
                        // `"D.bcg" = "F.bcg" |= with E "Q.mcl"` (CADP 2025-l, HISTORY #3256)
                        let bcg = self.string()?;
                        self.sym("|=")?;
                        self.kw("with")?;
                        let evaluator = self.id()?;
                        (self.string()?, evaluator, bcg)
                    } else {
                        self.kw("verify")?;
                        let mcl = self.string()?;
                        self.kw("with")?;
                        let evaluator = self.id()?;
                        self.kw("in")?;
                        (mcl, evaluator, self.string()?)
                    };
                    if !matches!(evaluator.as_str(), "evaluator4" | "evaluator") {
                        return Err(Located::new(
                            at,
                            format!("property {name}: the model checker `{evaluator}` is not evaluator4 or evaluator"),
                        ));
                    }
                    self.sym(";")?;
                    self.kw("expected")?;
                    let expected = self.id()?;
                    // SLiVER's scripts, which ran on CADP, have no `;` here; accept both
                    if self.is_sym(";") {
                        self.i += 1;
                    }
                    self.kw("end")?;
                    self.kw("property")?;
                    if !s.defines(&bcg) {
                        return Err(Located::new(
                            at,
                            format!("property {name} verifies `{bcg}`, which no statement defines"),
                        ));
                    }
                    if let Some(b) = s.blocks.iter_mut().find(|b| b.bcg == bcg) {
                        b.properties.push(name.clone());
                    }
                    s.verifies.push(Verify { property: name, diag, mcl, evaluator, bcg, expected, models });
                }
                _ => return self.err("a statement"),
            }
        }
        Ok(s)
    }
}

/// Parses the script `text` read from `name`; an error names `name:line:col`.
pub(crate) fn parse_named(text: &str, name: &str) -> Result<Script, crate::lntcheck::LntcheckError> {
    parse(text).map_err(|e| crate::lntcheck::LntcheckError::Syntax(format!("{name}:{}", e.in_text(text))))
}

/// Parses a script.
pub fn parse(src: &str) -> Result<Script, Located> {
    let toks = lex(src)?;
    Parser { toks, i: 0, len: src.len(), depth: 0 }.script()
}
