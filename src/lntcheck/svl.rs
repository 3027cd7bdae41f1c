//! The compositional SVL script `labs emit` writes (`X.svl`), executed without minimisation:
//! a parser for exactly the subset the template `svl/compositional.svl` produces, and an
//! evaluator that generates every leaf alone with the LNT interpreter and combines the explicit
//! LTSs with the operators of `lts.rs` (per-leaf `hide`, label-synchronised `par`, `total prio`,
//! `hide all but`). Reductions (`root leaf divsharp reduction`, `hold`) are parsed and ignored:
//! verdicts do not depend on them.
//!
//! The subset:
//!
//! ```text
//! script ::= { "% DEFAULT_PROCESS_FILE=" string | block | property }
//! block  ::= string "=" "root" "leaf" ID "reduction" [ "hold" string {"," string} ] "of" "(" beh ")" ";"
//! property ::= "property" ID [string] "is" string "=" "verify" string "with" ID "in" string ";"
//!              "expected" ID ";" "end" "property"
//! beh    ::= "hide" "all" "but" gates "in" beh "end" "hide"
//!          | "hide" gates "in" beh "end" "hide"
//!          | "par" [gates "in"] branch {"||" branch} "end" "par"      branch ::= [gates "->"] beh
//!          | "total" "prio" chain {chain} "in" beh "end" "prio"       chain ::= string {">" string}
//!          | ID "[" gates "]" ["(" num {"," num} ")"]
//!          | "(" beh ")"
//! ```

use super::interp::{self, GenOptions};
use super::lts::Lts;
use super::sem::{Program, Value};
use std::collections::HashMap;

/// A behaviour of the script.
#[derive(Clone, Debug, PartialEq)]
pub enum Beh {
    /// A process instance `P [G1, …] (v1, …)`: a leaf.
    Call {
        process: String,
        gates: Vec<String>,
        args: Vec<i64>,
    },
    Hide {
        gates: Vec<String>,
        body: Box<Beh>,
    },
    HideAllBut {
        gates: Vec<String>,
        body: Box<Beh>,
    },
    /// `par G… in B1 || …` (`global`) or `par S1 -> B1 || …` (per-branch interfaces).
    Par {
        global: Vec<String>,
        branches: Vec<(Option<Vec<String>>, Beh)>,
    },
    /// `total prio P1 > P2 > … Q1 > … in B end prio` (one chain per `>`-sequence).
    Prio {
        chains: Vec<Vec<String>>,
        body: Box<Beh>,
    },
}

/// One `"F.bcg" = root leaf … reduction of (…);` statement, with the property that verifies it.
#[derive(Clone, Debug)]
pub struct Block {
    pub bcg: String,
    pub reduction: String,
    pub hold: Vec<String>,
    pub beh: Beh,
    /// The `property NAME … verify … in "F.bcg"` block that reads this LTS.
    pub property: Option<String>,
}

#[derive(Clone, Debug, Default)]
pub struct Script {
    pub process_file: Option<String>,
    pub blocks: Vec<Block>,
}

impl Script {
    pub fn block(&self, property: &str) -> Option<&Block> {
        self.blocks.iter().find(|b| b.property.as_deref() == Some(property))
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Id(String),
    Str(String),
    Num(i64),
    Sym(&'static str),
    Directive(String),
}

fn lex(src: &str) -> Result<Vec<(Tok, usize)>, String> {
    let b = src.as_bytes();
    let mut out = vec![];
    let mut i = 0;
    let line = |i: usize| src[..i].matches('\n').count() + 1;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if src[i..].starts_with("(*") {
            let end = src[i + 2..].find("*)").ok_or_else(|| format!("line {}: unterminated comment", line(i)))?;
            i += end + 4;
        } else if c == b'%' && (i == 0 || b[i - 1] == b'\n') {
            let end = src[i..].find('\n').map_or(b.len(), |e| i + e);
            out.push((Tok::Directive(src[i + 1..end].trim().to_string()), line(i)));
            i = end;
        } else if c == b'"' {
            let mut s = String::new();
            let mut j = i + 1;
            loop {
                match b.get(j) {
                    None => return Err(format!("line {}: unterminated string", line(i))),
                    Some(b'"') => break,
                    Some(b'\\') if j + 1 < b.len() => {
                        s.push(b[j + 1] as char);
                        j += 2;
                    }
                    Some(_) => {
                        let ch = src[j..].chars().next().expect("a char");
                        s.push(ch);
                        j += ch.len_utf8();
                    }
                }
            }
            out.push((Tok::Str(s), line(i)));
            i = j + 1;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let mut j = i;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                j += 1;
            }
            out.push((Tok::Id(src[i..j].to_string()), line(i)));
            i = j;
        } else if c.is_ascii_digit() || (c == b'-' && b.get(i + 1).is_some_and(|d| d.is_ascii_digit())) {
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let n = src[i..j].parse().map_err(|_| format!("line {}: bad number", line(i)))?;
            out.push((Tok::Num(n), line(i)));
            i = j;
        } else {
            let sym = ["||", "->", "=", "(", ")", "[", "]", ",", ";", ">"]
                .into_iter()
                .find(|s| src[i..].starts_with(s))
                .ok_or_else(|| format!("line {}: unexpected character `{}`", line(i), c as char))?;
            out.push((Tok::Sym(sym), line(i)));
            i += sym.len();
        }
    }
    Ok(out)
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    i: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.0)
    }
    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.i + k).map(|t| &t.0)
    }
    fn err<T>(&self, what: &str) -> Result<T, String> {
        match self.toks.get(self.i) {
            Some((t, l)) => Err(format!("line {l}: expected {what}, found {t:?}")),
            None => Err(format!("end of script: expected {what}")),
        }
    }
    fn is_kw(&self, k: &str) -> bool {
        matches!(self.peek(), Some(Tok::Id(x)) if x == k)
    }
    fn kw(&mut self, k: &str) -> Result<(), String> {
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
    fn sym(&mut self, s: &str) -> Result<(), String> {
        if self.is_sym(s) {
            self.i += 1;
            Ok(())
        } else {
            self.err(&format!("`{s}`"))
        }
    }
    fn id(&mut self) -> Result<String, String> {
        match self.peek() {
            Some(Tok::Id(x)) => {
                let x = x.clone();
                self.i += 1;
                Ok(x)
            }
            _ => self.err("an identifier"),
        }
    }
    fn string(&mut self) -> Result<String, String> {
        match self.peek() {
            Some(Tok::Str(x)) => {
                let x = x.clone();
                self.i += 1;
                Ok(x)
            }
            _ => self.err("a string"),
        }
    }
    fn gates(&mut self) -> Result<Vec<String>, String> {
        let mut out = vec![self.id()?];
        while self.is_sym(",") {
            self.i += 1;
            out.push(self.id()?);
        }
        Ok(out)
    }

    fn beh(&mut self) -> Result<Beh, String> {
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

    fn branch(&mut self) -> Result<(Option<Vec<String>>, Beh), String> {
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

    fn script(&mut self) -> Result<Script, String> {
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
                    self.kw("root")?;
                    self.kw("leaf")?;
                    let reduction = self.id()?;
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
                    let beh = self.beh()?;
                    self.sym(";")?;
                    s.blocks.push(Block { bcg, reduction, hold, beh, property: None });
                }
                Tok::Id(k) if k == "property" => {
                    self.i += 1;
                    let name = self.id()?;
                    if let Some(Tok::Str(_)) = self.peek() {
                        self.i += 1;
                    }
                    self.kw("is")?;
                    self.string()?;
                    self.sym("=")?;
                    self.kw("verify")?;
                    self.string()?;
                    self.kw("with")?;
                    self.id()?;
                    self.kw("in")?;
                    let bcg = self.string()?;
                    self.sym(";")?;
                    self.kw("expected")?;
                    self.id()?;
                    self.sym(";")?;
                    self.kw("end")?;
                    self.kw("property")?;
                    let b = s
                        .blocks
                        .iter_mut()
                        .find(|b| b.bcg == bcg)
                        .ok_or_else(|| format!("property {name} verifies `{bcg}`, which no statement defines"))?;
                    b.property = Some(name);
                }
                _ => return self.err("a statement"),
            }
        }
        Ok(s)
    }
}

/// Parses the compositional script.
pub fn parse(src: &str) -> Result<Script, String> {
    let toks = lex(src)?;
    Parser { toks, i: 0 }.script()
}

/// Sizes of one generated leaf.
#[derive(Clone, Debug)]
pub struct LeafSize {
    /// The instance, as the script writes it (with its per-leaf `hide`, if any).
    pub text: String,
    pub states: usize,
    pub transitions: usize,
}

/// Runs the behaviours of a script on one LNT program: leaves are generated by the interpreter
/// (each once, cached by instance text), then combined.
pub struct Composer<'a> {
    pub prog: &'a Program,
    pub max_states: Option<u64>,
    cache: HashMap<String, Lts>,
    /// Every leaf met by the last `compose`, in script order (after its per-leaf `hide`).
    pub leaves: Vec<LeafSize>,
}

impl<'a> Composer<'a> {
    pub fn new(prog: &'a Program, max_states: Option<u64>) -> Composer<'a> {
        Composer { prog, max_states, cache: HashMap::new(), leaves: vec![] }
    }

    /// The LTS of a process instance alone (inputs enumerated over their `where` bounds).
    pub fn leaf(&mut self, process: &str, gates: &[String], args: &[i64]) -> Result<Lts, String> {
        let key = format!(
            "{process} [{}] ({})",
            gates.join(", "),
            args.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", ")
        );
        if let Some(l) = self.cache.get(&key) {
            return Ok(l.clone());
        }
        let vals = args.iter().map(|a| Value::I(*a)).collect();
        let net = interp::build_call(self.prog, process, gates, vals).map_err(|d| format!("{key}: {d}"))?;
        let (lts, _) = interp::generate(self.prog, &net, &GenOptions { max_states: self.max_states })
            .map_err(|d| format!("{key}: {d}"))?;
        self.cache.insert(key, lts.clone());
        Ok(lts)
    }

    /// The LTS of a behaviour. With `property_ops` false, the property-specific operators
    /// (`hide`, `hide all but`, `total prio`) are skipped: every label stays visible.
    pub fn compose(&mut self, b: &Beh, property_ops: bool) -> Result<Lts, String> {
        self.leaves.clear();
        self.eval(b, property_ops)
    }

    fn eval(&mut self, b: &Beh, property_ops: bool) -> Result<Lts, String> {
        Ok(match b {
            Beh::Call { process, gates, args } => {
                let l = self.leaf(process, gates, args)?;
                self.leaves.push(LeafSize { text: call_text(b), states: l.nstates, transitions: l.trans.len() });
                l
            }
            Beh::Hide { gates, body } => {
                let inner = self.eval(body, property_ops)?;
                if !property_ops {
                    return Ok(inner);
                }
                let g: Vec<&str> = gates.iter().map(|s| s.as_str()).collect();
                let out = inner.hide(&g);
                if let Beh::Call { .. } = **body
                    && let Some(last) = self.leaves.last_mut()
                {
                    last.text = format!("hide {} in {} end hide", gates.join(", "), last.text);
                }
                out
            }
            Beh::HideAllBut { gates, body } => {
                let inner = self.eval(body, property_ops)?;
                if !property_ops {
                    return Ok(inner);
                }
                let g: Vec<&str> = gates.iter().map(|s| s.as_str()).collect();
                inner.hide_all_but(&g)
            }
            Beh::Prio { chains, body } => {
                let inner = self.eval(body, property_ops)?;
                if !property_ops {
                    return Ok(inner);
                }
                let mut rs = vec![];
                for ch in chains {
                    let mut c = vec![];
                    for p in ch {
                        c.push(
                            regex::Regex::new(&format!("^(?:{p})$"))
                                .map_err(|e| format!("priority pattern \"{p}\": {e}"))?,
                        );
                    }
                    rs.push(c);
                }
                inner.prio(&rs)
            }
            Beh::Par { global, branches } => {
                let mut kids = vec![];
                let mut iface = vec![];
                for (i, k) in branches {
                    kids.push(self.eval(k, property_ops)?);
                    iface.push(i.clone());
                }
                Lts::par(&kids, global, &iface)
            }
        })
    }
}

fn call_text(b: &Beh) -> String {
    match b {
        Beh::Call { process, gates, args } if args.is_empty() => format!("{process} [{}]", gates.join(", ")),
        Beh::Call { process, gates, args } => format!(
            "{process} [{}] ({})",
            gates.join(", "),
            args.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", ")
        ),
        _ => String::new(),
    }
}

/// The leaves of a behaviour (process instances, in script order).
pub fn calls(b: &Beh) -> Vec<&Beh> {
    match b {
        Beh::Call { .. } => vec![b],
        Beh::Hide { body, .. } | Beh::HideAllBut { body, .. } | Beh::Prio { body, .. } => calls(body),
        Beh::Par { branches, .. } => branches.iter().flat_map(|(_, k)| calls(k)).collect(),
    }
}

/// The gates a behaviour leaves visible at its root (what `hide all but` keeps).
pub fn kept_gates(b: &Beh) -> Option<Vec<String>> {
    match b {
        Beh::HideAllBut { gates, .. } => Some(gates.clone()),
        _ => None,
    }
}

/// The leaf of agent `id` in a behaviour (a call of a process `Agent_…` whose first argument
/// is `id`), with its per-leaf `hide` if it has one.
pub fn agent_leaf(b: &Beh, id: u32) -> Option<&Beh> {
    match b {
        Beh::Call { process, args, .. } => {
            (process.starts_with("Agent_") && args.first() == Some(&(id as i64))).then_some(b)
        }
        Beh::Hide { body, .. } if matches!(**body, Beh::Call { .. }) => agent_leaf(body, id).map(|_| b),
        Beh::Hide { body, .. } | Beh::HideAllBut { body, .. } | Beh::Prio { body, .. } => agent_leaf(body, id),
        Beh::Par { branches, .. } => branches.iter().find_map(|(_, k)| agent_leaf(k, id)),
    }
}
