//! The SVL scripts `labs emit` writes (`X.svl`, `X_mono.svl`): a parser for exactly the subset
//! the templates `svl/compositional.svl` and `svl/monolithic.svl` produce, and, for the
//! compositional script's `root leaf` statements, an
//! evaluator that generates every leaf alone with the LNT interpreter and combines the explicit
//! LTSs with the operators of `lts.rs` (per-leaf `hide`, label-synchronised `par`, `total prio`,
//! `hide all but`). The block's reduction (`root leaf divsharp reduction` with its `hold`
//! gates, or `divbranching`) is applied by `reduce.rs` when the composer is asked to reduce.
//! `check_script` checks the native verdicts on each block's LTS before reduction, whose states
//! each have one LAbS valuation; `files.rs` executes a whole script as SVL would, reductions
//! included, and evaluates the MCL queries its `verify` statements name.
//!
//! The subset:
//!
//! ```text
//! script ::= { "% DEFAULT_PROCESS_FILE=" string | block | derived | property }
//! block  ::= string "=" "root" "leaf" ID "reduction" [ "hold" string {"," string} ] "of" "(" beh ")" ";"
//! derived ::= string "=" "generation" "of" string ";"
//!           | string "=" ID "reduction" [ "hold" string {"," string} ] "of" ["hide" "all" "but" gates "in"] string ";"
//! property ::= "property" ID [string] "is" string "=" "verify" string "with" ID "in" string ";"
//!              "expected" ID ";" "end" "property"
//! beh    ::= "hide" "all" "but" gates "in" beh "end" "hide"
//!          | "hide" gates "in" beh "end" "hide"
//!          | "par" [gates "in"] branch {"||" branch} "end" "par"      branch ::= [gates "->"] beh
//!          | "total" "prio" chain {chain} "in" beh "end" "prio"       chain ::= string {">" string}
//!          | ID "[" gates "]" ["(" num {"," num} ")"]
//!          | "(" beh ")"
//! ```

use super::backend;
use super::interp::{self, GenOptions, TNode};
use super::lts::Lts;
use super::reduce::{Reduction, minimise};
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

/// A statement of the monolithic script: `"F.bcg" = generation of "P.lnt";` or
/// `"F.bcg" = R reduction [hold …] of [hide all but G… in] "E.bcg";`.
#[derive(Clone, Debug, PartialEq)]
pub enum Derived {
    Generation { lnt: String },
    Reduction { reduction: String, hold: Vec<String>, keep: Option<Vec<String>>, of: String },
}

/// A `property NAME … is "D.bcg" = verify "Q.mcl" with E in "F.bcg"; expected V; end property`.
#[derive(Clone, Debug, PartialEq)]
pub struct Verify {
    pub property: String,
    pub diag: String,
    pub mcl: String,
    pub evaluator: String,
    pub bcg: String,
    pub expected: String,
}

#[derive(Clone, Debug, Default)]
pub struct Script {
    pub process_file: Option<String>,
    /// The `root leaf` statements (compositional script).
    pub blocks: Vec<Block>,
    /// The other LTS-defining statements (monolithic script), in script order.
    pub derived: Vec<(String, Derived)>,
    /// The `verify` statements, in script order.
    pub verifies: Vec<Verify>,
}

impl Script {
    pub fn block(&self, property: &str) -> Option<&Block> {
        self.blocks.iter().find(|b| b.property.as_deref() == Some(property))
    }

    /// Whether some statement defines `bcg`.
    pub fn defines(&self, bcg: &str) -> bool {
        self.blocks.iter().any(|b| b.bcg == bcg) || self.derived.iter().any(|(f, _)| f == bcg)
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

/// The line (from 1) of byte offsets asked in increasing order: counts each newline once,
/// so that lexing stays linear.
struct Lines<'s> {
    src: &'s [u8],
    at: usize,
    line: usize,
}

impl Lines<'_> {
    fn of(&mut self, i: usize) -> usize {
        if i > self.at {
            self.line += self.src[self.at..i].iter().filter(|&&c| c == b'\n').count();
            self.at = i;
        }
        self.line
    }
}

fn lex(src: &str) -> Result<Vec<(Tok, usize)>, String> {
    let b = src.as_bytes();
    let mut out = vec![];
    let mut i = 0;
    let mut lines = Lines { src: b, at: 0, line: 1 };
    let mut line = |i: usize| lines.of(i);
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
                        let ch = src[j + 1..].chars().next().expect("a char");
                        s.push(ch);
                        j += 1 + ch.len_utf8();
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
        if self.depth >= MAX_NESTING {
            let line = self.toks.get(self.i).map_or_else(|| "end of script".to_string(), |t| format!("line {}", t.1));
            return Err(format!("{line}: the behaviour nests deeper than {MAX_NESTING} levels"));
        }
        self.depth += 1;
        let b = self.beh_at_depth();
        self.depth -= 1;
        b
    }

    fn beh_at_depth(&mut self) -> Result<Beh, String> {
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

    /// `ID reduction [hold "G", …] of`: the reduction's name and its held gates.
    fn reduction(&mut self) -> Result<(String, Vec<String>), String> {
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
    fn derived(&mut self) -> Result<Derived, String> {
        if self.is_kw("generation") {
            self.i += 1;
            self.kw("of")?;
            let lnt = self.string()?;
            self.sym(";")?;
            return Ok(Derived::Generation { lnt });
        }
        let (reduction, hold) = self.reduction()?;
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
                    s.blocks.push(Block { bcg, reduction, hold, beh, property: None });
                }
                Tok::Id(k) if k == "property" => {
                    self.i += 1;
                    let name = self.id()?;
                    if let Some(Tok::Str(_)) = self.peek() {
                        self.i += 1;
                    }
                    self.kw("is")?;
                    let diag = self.string()?;
                    self.sym("=")?;
                    self.kw("verify")?;
                    let mcl = self.string()?;
                    self.kw("with")?;
                    let evaluator = self.id()?;
                    self.kw("in")?;
                    let bcg = self.string()?;
                    self.sym(";")?;
                    self.kw("expected")?;
                    let expected = self.id()?;
                    self.sym(";")?;
                    self.kw("end")?;
                    self.kw("property")?;
                    if !s.defines(&bcg) {
                        return Err(format!("property {name} verifies `{bcg}`, which no statement defines"));
                    }
                    if let Some(b) = s.blocks.iter_mut().find(|b| b.bcg == bcg) {
                        b.property = Some(name.clone());
                    }
                    s.verifies.push(Verify { property: name, diag, mcl, evaluator, bcg, expected });
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
    Parser { toks, i: 0, depth: 0 }.script()
}

/// Sizes of one generated leaf.
#[derive(Clone, Debug)]
pub struct LeafSize {
    /// The instance, as the script writes it (with its per-leaf `hide`, if any).
    pub text: String,
    pub states: usize,
    pub transitions: usize,
    /// States and transitions after the block's reduction (when the composer reduces).
    pub reduced: Option<(usize, usize)>,
}

/// Runs the behaviours of a script on one LNT program: leaves are generated by the interpreter
/// (each once, cached by instance text), then combined.
pub struct Composer<'a> {
    pub prog: &'a Program,
    pub max_states: Option<u64>,
    cache: HashMap<String, Lts>,
    /// Every leaf met by the last `compose`, in script order (after its per-leaf `hide`).
    pub leaves: Vec<LeafSize>,
    /// `compose` minimises every leaf (after its per-leaf `hide`) and the result modulo this,
    /// as `root leaf … reduction` does; `None`: no minimisation.
    pub reduction: Option<Reduction>,
    /// The run's bounds, polled while leaves are generated.
    pub limits: crate::limits::Limits,
}

impl<'a> Composer<'a> {
    pub fn new(prog: &'a Program, max_states: Option<u64>) -> Composer<'a> {
        let limits = crate::limits::Limits::none();
        Composer { prog, max_states, cache: HashMap::new(), leaves: vec![], reduction: None, limits }
    }

    /// Adds a leaf to the network (minimised first when the composer reduces).
    fn push_leaf(&mut self, l: Lts, text: String, net: &mut OnTheFly) -> Result<Node, String> {
        let (states, transitions) = (l.nstates, l.trans.len());
        let (l, reduced) = match &self.reduction {
            Some(r) => {
                let m = minimise(&l, r, &self.limits)?;
                let size = (m.nstates, m.trans.len());
                (m, Some(size))
            }
            None => (l, None),
        };
        self.leaves.push(LeafSize { text, states, transitions, reduced });
        let map: Vec<u32> = l.labels.iter().map(|x| net.id(x)).collect();
        let adj =
            l.adjacency().into_iter().map(|v| v.into_iter().map(|(x, t)| (map[x as usize], t)).collect()).collect();
        net.leaves.push(adj);
        Ok(Node::Leaf(net.leaves.len() - 1))
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
        let (lts, _) =
            interp::generate(self.prog, &net, &GenOptions { max_states: self.max_states, limits: self.limits.clone() })
                .map_err(|d| format!("{key}: {d}"))?;
        self.cache.insert(key, lts.clone());
        Ok(lts)
    }

    /// The LTS of a behaviour, as SVL's `root leaf` strategy builds it: every leaf generated
    /// alone (and hidden), then the whole network explored once from the root (states are
    /// vectors of leaf states; intermediate compositions are never built, `total prio` is
    /// applied to the transitions its operand offers in the current state). With
    /// `property_ops` false, the property-specific operators (`hide`, `hide all but`,
    /// `total prio`) are skipped: every label stays visible.
    pub fn compose(&mut self, b: &Beh, property_ops: bool) -> Result<Lts, String> {
        self.leaves.clear();
        let mut net = OnTheFly::default();
        net.labels.push("i".to_string());
        net.ids.insert("i".to_string(), 0);
        let root = self.build(b, property_ops, &mut net)?;
        let lts = net.explore(root, &self.limits)?;
        Ok(match &self.reduction {
            Some(r) => minimise(&lts, r, &self.limits)?,
            None => lts,
        })
    }

    fn build(&mut self, b: &Beh, property_ops: bool, net: &mut OnTheFly) -> Result<Node, String> {
        Ok(match b {
            Beh::Call { process, gates, args } => {
                let l = self.leaf(process, gates, args)?;
                self.push_leaf(l, call_text(b), net)?
            }
            // A leaf with its own `hide`: hidden, then minimised as one leaf when reducing.
            Beh::Hide { gates, body }
                if property_ops && self.reduction.is_some() && matches!(**body, Beh::Call { .. }) =>
            {
                let Beh::Call { process, gates: g, args } = &**body else { unreachable!("matched above") };
                let hidden: Vec<&str> = gates.iter().map(|s| s.as_str()).collect();
                let l = self.leaf(process, g, args)?.hide(&hidden);
                self.push_leaf(l, hidden_text(gates, &call_text(body)), net)?
            }
            Beh::Hide { gates, body } | Beh::HideAllBut { gates, body } if property_ops => {
                let inner = self.build(body, property_ops, net)?;
                if let (Beh::Hide { .. }, Beh::Call { .. }) = (b, &**body)
                    && let Some(last) = self.leaves.last_mut()
                {
                    last.text = hidden_text(gates, &last.text);
                }
                Node::Hide { gates: gates.clone(), all_but: matches!(b, Beh::HideAllBut { .. }), body: Box::new(inner) }
            }
            Beh::Prio { chains, body } if property_ops => {
                let inner = self.build(body, property_ops, net)?;
                let mut rs = vec![];
                for ch in chains {
                    rs.push(ch.iter().map(|p| super::lts::prio_pattern(p)).collect::<Result<Vec<_>, _>>()?);
                }
                Node::Prio { chains: rs, body: Box::new(inner), ranks: HashMap::new() }
            }
            Beh::Hide { body, .. } | Beh::HideAllBut { body, .. } | Beh::Prio { body, .. } => {
                self.build(body, property_ops, net)?
            }
            Beh::Par { global, branches } => {
                let mut kids = vec![];
                let mut iface = vec![];
                for (i, k) in branches {
                    kids.push(self.build(k, property_ops, net)?);
                    iface.push(i.clone());
                }
                Node::Par { global: global.clone(), iface, kids, parts: HashMap::new() }
            }
        })
    }

    /// The same LTS built bottom-up with the explicit operators of `lts.rs` (every intermediate
    /// composition generated: only for small networks; used to test `compose`).
    pub fn compose_nested(&mut self, b: &Beh, property_ops: bool) -> Result<Lts, String> {
        self.leaves.clear();
        self.eval(b, property_ops)
    }

    fn eval(&mut self, b: &Beh, property_ops: bool) -> Result<Lts, String> {
        Ok(match b {
            Beh::Call { process, gates, args } => {
                let l = self.leaf(process, gates, args)?;
                self.leaves.push(LeafSize {
                    text: call_text(b),
                    states: l.nstates,
                    transitions: l.trans.len(),
                    reduced: None,
                });
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
                    last.text = hidden_text(gates, &last.text);
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
                        c.push(super::lts::prio_pattern(p)?);
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

/// A network node over explicit leaves (label ids interned in `OnTheFly`).
enum Node {
    Leaf(usize),
    Hide {
        gates: Vec<String>,
        all_but: bool,
        body: Box<Node>,
    },
    /// `ranks`: per label id, its position in each chain.
    Prio {
        chains: Vec<Vec<regex::Regex>>,
        body: Box<Node>,
        ranks: HashMap<u32, Vec<Option<usize>>>,
    },
    /// `parts`: per label id, the kids that synchronise on it (computed once).
    Par {
        global: Vec<String>,
        iface: Vec<Option<Vec<String>>>,
        kids: Vec<Node>,
        parts: HashMap<u32, Vec<usize>>,
    },
}

/// A transition of a subnetwork: label id and the leaves it moves.
type Move = (u32, Vec<(usize, u32)>);

#[derive(Default)]
struct OnTheFly {
    labels: Vec<String>,
    ids: HashMap<String, u32>,
    /// Per leaf: successors (label id, target) by state.
    leaves: Vec<Vec<Vec<(u32, u32)>>>,
}

impl OnTheFly {
    fn id(&mut self, l: &str) -> u32 {
        if let Some(i) = self.ids.get(l) {
            return *i;
        }
        let i = self.labels.len() as u32;
        self.labels.push(l.to_string());
        self.ids.insert(l.to_string(), i);
        i
    }

    fn gate(&self, l: u32) -> &str {
        Lts::gate(&self.labels[l as usize])
    }

    fn moves(&self, n: &mut Node, st: &[u32]) -> Vec<Move> {
        match n {
            Node::Leaf(k) => self.leaves[*k][st[*k] as usize].iter().map(|(l, t)| (*l, vec![(*k, *t)])).collect(),
            Node::Hide { gates, all_but, body } => {
                let mut v = self.moves(body, st);
                for m in &mut v {
                    if m.0 != 0 && gates.iter().any(|g| g == self.gate(m.0)) != *all_but {
                        m.0 = 0;
                    }
                }
                v
            }
            Node::Prio { chains, body, ranks } => {
                let v = self.moves(body, st);
                for m in &v {
                    ranks.entry(m.0).or_insert_with(|| {
                        chains.iter().map(|ch| ch.iter().position(|r| r.is_match(&self.labels[m.0 as usize]))).collect()
                    });
                }
                let best: Vec<Option<usize>> =
                    (0..chains.len()).map(|c| v.iter().filter_map(|m| ranks[&m.0][c]).min()).collect();
                v.into_iter()
                    .filter(|m| {
                        ranks[&m.0].iter().zip(&best).all(|(r, b)| match (r, b) {
                            (Some(r), Some(b)) => r <= b,
                            _ => true,
                        })
                    })
                    .collect()
            }
            Node::Par { global, iface, kids, parts } => {
                let nk = kids.len();
                let mut kid_moves: Vec<Vec<Move>> = kids.iter_mut().map(|k| self.moves(k, st)).collect();
                let mut out = vec![];
                // The labels to synchronise, in the order first met (the order of the output).
                let mut sync: Vec<u32> = vec![];
                for (k, ms) in kid_moves.iter().enumerate() {
                    for m in ms {
                        let ps = parts.entry(m.0).or_insert_with(|| {
                            let g = self.gate(m.0);
                            if g == "i" {
                                vec![]
                            } else if global.iter().any(|x| x == g) {
                                (0..nk).collect()
                            } else {
                                (0..nk)
                                    .filter(|&k| iface[k].as_ref().is_some_and(|i| i.iter().any(|x| x == g)))
                                    .collect()
                            }
                        });
                        if ps.contains(&k) {
                            if !sync.contains(&m.0) {
                                sync.push(m.0);
                            }
                        } else {
                            out.push(m.clone());
                        }
                    }
                }
                // Each kid's moves by label, for the products below (stable: the order of the
                // moves of one label is kept).
                for ms in &mut kid_moves {
                    ms.sort_by_key(|m| m.0);
                }
                let of_label = |k: usize, l: u32| -> &[Move] {
                    let ms = &kid_moves[k];
                    let a = ms.partition_point(|m| m.0 < l);
                    let b = ms.partition_point(|m| m.0 <= l);
                    &ms[a..b]
                };
                for l in sync {
                    let mut acc: Vec<Vec<(usize, u32)>> = vec![vec![]];
                    for &k in &parts[&l] {
                        let mut next = vec![];
                        for a in &acc {
                            for m in of_label(k, l) {
                                let mut c = a.clone();
                                c.extend(&m.1);
                                next.push(c);
                            }
                        }
                        acc = next;
                        if acc.is_empty() {
                            break;
                        }
                    }
                    out.extend(acc.into_iter().map(|c| (l, c)));
                }
                out
            }
        }
    }

    /// The network's LTS from the root, within `limits` (polled for every state, and asked
    /// before the state table or the transition list doubles).
    fn explore(mut self, mut root: Node, limits: &crate::limits::Limits) -> Result<Lts, String> {
        let mut states = super::lts::Numbering::new(vec![0u32; self.leaves.len()]);
        let mut out = Lts::new();
        let mut i = 0;
        while i < states.len() {
            if let Some(r) = limits.stopped() {
                return Err(format!("stopped after {} states of the composition ({r:?})", states.len()));
            }
            let st = states.states[i].clone();
            for (l, ch) in self.moves(&mut root, &st) {
                let mut n = st.clone();
                for (k, t) in ch {
                    n[k] = t;
                }
                if !limits.admit(states.growth_bytes() + out.growth_bytes()) {
                    return Err(format!("stopped after {} states of the composition (Memory)", states.len()));
                }
                let (id, _) = states.number(n);
                out.add(i as u32, &self.labels[l as usize], id);
            }
            i += 1;
        }
        out.nstates = states.len();
        self.leaves.clear();
        Ok(out)
    }
}

/// A leaf's text with its per-leaf `hide`, as the script writes it.
fn hidden_text(gates: &[String], leaf: &str) -> String {
    format!("hide {} in {} end hide", gates.join(", "), leaf)
}

/// A process instance as the script writes it.
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

/// `tree` without its `hide` nodes (every gate visible).
pub fn strip_hides(t: &TNode) -> TNode {
    match t {
        TNode::Leaf(k) => TNode::Leaf(*k),
        TNode::Hide(_, b) => strip_hides(b),
        TNode::Par { global, iface, kids } => {
            TNode::Par { global: global.clone(), iface: iface.clone(), kids: kids.iter().map(strip_hides).collect() }
        }
    }
}

/// The emitted LNT program and compositional SVL script of a model (every property).
pub fn emit_program(
    model: &crate::model::Model,
    behs: &[crate::behaviour::Behaviour],
    analysis: &crate::analysis::values::ValueAnalysis,
    stem: &str,
    fair: bool,
    dialect: crate::lnt::Dialect,
) -> Result<(String, String), String> {
    let opts = crate::lnt::EmitOptions {
        fair,
        properties: vec![],
        dialect,
        base: crate::lnt::names::module_name(stem),
        source: stem.to_string(),
    };
    let files = crate::lnt::emit(model, behs, analysis, &opts).map_err(|e| e.message)?;
    let lnt = files.iter().find(|f| f.name.ends_with(".lnt")).ok_or("no .lnt file")?.contents.clone();
    let svl = files
        .iter()
        .find(|f| f.name.ends_with(".svl") && !f.name.ends_with("_mono.svl"))
        .ok_or("no compositional .svl file")?
        .contents
        .clone();
    Ok((lnt, svl))
}

/// One property checked on the LTS its SVL block builds.
#[derive(Clone, Debug)]
pub struct PropertyRun {
    pub property: String,
    pub verdict: crate::engine::Verdict,
    pub states: usize,
    pub transitions: usize,
    pub labs_states: usize,
    pub leaves: Vec<LeafSize>,
    /// States and transitions of the LTS after the block's `root leaf` reduction (`None`: a
    /// reduction this executor does not know).
    pub reduced: Option<(usize, usize)>,
}

/// Executes every property block of `svl` on `lnt` (no minimisation) and checks the property
/// on the resulting LTS: LAbS states and valuations are rebuilt from its `DONE` and observation
/// labels as `--backend lnt` does (`backend::labs_view`), then the native checker runs.
pub fn check_script(
    model: &crate::model::Model,
    behs: &[crate::behaviour::Behaviour],
    fair: bool,
    lnt: &str,
    svl: &str,
    max_states: Option<u64>,
) -> Result<Vec<PropertyRun>, String> {
    let prog = super::load(lnt, None).map_err(|d| format!("emitted LNT:{d}"))?;
    if let Some(d) = super::check::check(&prog).into_iter().next() {
        return Err(format!("emitted LNT:{d}"));
    }
    let undef = backend::undef_value(&prog);
    let script = parse(svl)?;
    let mut c = Composer::new(&prog, max_states);
    let mut out = vec![];
    for b in &script.blocks {
        let name = b.property.clone().ok_or_else(|| format!("`{}` is verified by no property", b.bcg))?;
        let p = model
            .properties
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| format!("the script's property {name} is not in the model"))?;
        let lts = c.compose(&b.beh, true)?;
        let (states, transitions) = (lts.nstates, lts.trans.len());
        let mut leaves = c.leaves.clone();
        let mut reduced = None;
        if let Some(r) = Reduction::from_svl(&b.reduction, &b.hold) {
            c.reduction = Some(r.clone());
            let composed = c.compose(&b.beh, true);
            c.reduction = None;
            let composed = composed?;
            leaves = c.leaves.clone();
            // The reduction is a congruence for the script's operators (that is why `hold`
            // keeps the prioritised gates strong): composing the minimised leaves and
            // minimising gives the whole LTS minimised.
            let whole = minimise(&lts, &r, &c.limits)?;
            if !Lts::bisimilar(&whole, &composed) {
                return Err(format!(
                    "property {name}: the leaves minimised modulo {} compose to {} states, not to the {} states of \
                     the whole LTS minimised",
                    b.reduction, composed.nstates, whole.nstates
                ));
            }
            reduced = Some((composed.nstates, composed.trans.len()));
        }
        let gates = kept_gates(&b.beh).unwrap_or_default();
        let view = backend::labs_view(model, fair, lts, &gates, undef)?;
        if let Some(s) = view.stuck.first() {
            return Err(format!("property {name}: LTS state {s} blocks in the middle of a step"));
        }
        let mut one = model.clone();
        one.properties = vec![p.clone()];
        let r = backend::check_properties(&one, behs, fair, &view)?;
        out.push(PropertyRun {
            property: name,
            verdict: r[0].verdict,
            states,
            transitions,
            labs_states: view.real.len(),
            leaves,
            reduced,
        });
    }
    Ok(out)
}
