//! What a real CADP installation reads beyond the grammar, checked on every emitted file
//! (`emit_lnt_syntax::check_all` calls these; docs/lnt-encoding.md, "What CADP reads"):
//! no actual gate repeated in a process instantiation, no declared variable, parameter or
//! gate a function or process does not use (TRAIAN and lnt2lotos warn on each), the range
//! pragmas that fix the enumerated values of `Nat` and `Int`, no `!` on send offers in the
//! 2025 dialect (CADP HISTORY #3148), and SVL property blocks of the form SLiVER ran
//! (`expected TRUE` then `end property`, no `;` between).

use labs::lnt::Dialect;
use labs::lntcheck::ast::{Arg, Expr, ExprK, LValue, Mode, Offer, ParBranch, Stmt, StmtK};
use std::collections::BTreeSet;

/// Every `NAME [G1, G2, …]` of the text (a process instantiation in LNT or SVL): fails when a
/// gate appears twice in one list.
pub fn no_repeated_actual_gate(name: &str, text: &str) {
    let re = regex::Regex::new(r"\b([A-Za-z]\w*) \[([A-Za-z_][\w, ]*)\]").unwrap();
    for c in re.captures_iter(text) {
        let gates: Vec<&str> = c[2].split(',').map(str::trim).collect();
        let mut seen = BTreeSet::new();
        for g in &gates {
            assert!(seen.insert(g.to_ascii_uppercase()), "{name}: `{}` instantiated with gate `{g}` twice", &c[1]);
        }
    }
}

/// What a function or process body reads, writes and uses as gates.
#[derive(Default)]
struct Uses {
    read: BTreeSet<String>,
    written: BTreeSet<String>,
    gates: BTreeSet<String>,
}

impl Uses {
    fn expr(&mut self, e: &Expr) {
        match &e.k {
            ExprK::Num(_) => {}
            ExprK::Name(n) => {
                self.read.insert(n.clone());
            }
            ExprK::Call(_, args) => args.iter().for_each(|a| self.expr(a)),
            ExprK::Index(a, b) | ExprK::Bin(_, a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprK::Neg(a) | ExprK::Not(a) | ExprK::Of(a, _) => self.expr(a),
        }
    }

    fn lvalue(&mut self, l: &LValue) {
        self.written.insert(l.name.clone());
        if let Some(i) = &l.index {
            // an element write reads the rest of the array
            self.read.insert(l.name.clone());
            self.expr(i);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.k {
            StmtK::Seq(xs) | StmtK::Alt(xs) => xs.iter().for_each(|x| self.stmt(x)),
            StmtK::Null | StmtK::Stop => {}
            StmtK::Var(_, b) | StmtK::Loop(b) | StmtK::Hide(_, b) => self.stmt(b),
            StmtK::Assign(l, e) => {
                self.lvalue(l);
                self.expr(e);
            }
            StmtK::Any(l, _, w) => {
                self.lvalue(l);
                w.iter().for_each(|e| self.expr(e));
            }
            StmtK::If(arms, els) => {
                for (c, b) in arms {
                    self.expr(c);
                    self.stmt(b);
                }
                els.iter().for_each(|b| self.stmt(b));
            }
            StmtK::OnlyIf(e) => self.expr(e),
            StmtK::While(c, b) => {
                self.expr(c);
                self.stmt(b);
            }
            StmtK::Return(e) => e.iter().for_each(|e| self.expr(e)),
            StmtK::Eval(_, args) | StmtK::Call(_, _, args) => {
                if let StmtK::Call(_, gates, _) = &s.k {
                    self.gates.extend(gates.iter().map(|(g, _)| g.clone()));
                }
                for a in args {
                    match a {
                        Arg::In(e) => self.expr(e),
                        Arg::Out(x, _) => {
                            self.written.insert(x.clone());
                        }
                        Arg::InOut(x, _) => {
                            self.read.insert(x.clone());
                            self.written.insert(x.clone());
                        }
                    }
                }
            }
            StmtK::Comm(g, offers, w) => {
                self.gates.insert(g.clone());
                for o in offers {
                    match o {
                        Offer::Send(e) => self.expr(e),
                        Offer::Recv(l) => self.lvalue(l),
                    }
                }
                w.iter().for_each(|e| self.expr(e));
            }
            StmtK::Par(sync, branches) => {
                self.gates.extend(sync.iter().map(|(g, _)| g.clone()));
                for b in branches {
                    match b {
                        ParBranch::Plain(x) => self.stmt(x),
                        ParBranch::Synced(gs, x) => {
                            self.gates.extend(gs.iter().map(|(g, _)| g.clone()));
                            self.stmt(x);
                        }
                    }
                }
            }
        }
    }
}

/// The variables a statement declares (`var … in`) and the gates it hides.
fn declared(s: &Stmt, vars: &mut Vec<String>, gates: &mut Vec<String>) {
    match &s.k {
        StmtK::Var(ds, b) => {
            vars.extend(ds.iter().map(|(n, _, _)| n.clone()));
            declared(b, vars, gates);
        }
        StmtK::Hide(gs, b) => {
            gates.extend(gs.iter().map(|(g, _)| g.clone()));
            declared(b, vars, gates);
        }
        StmtK::Seq(xs) | StmtK::Alt(xs) => xs.iter().for_each(|x| declared(x, vars, gates)),
        StmtK::Loop(b) | StmtK::While(_, b) => declared(b, vars, gates),
        StmtK::If(arms, els) => {
            arms.iter().for_each(|(_, b)| declared(b, vars, gates));
            els.iter().for_each(|b| declared(b, vars, gates));
        }
        StmtK::Par(_, branches) => {
            for b in branches {
                match b {
                    ParBranch::Plain(x) | ParBranch::Synced(_, x) => declared(x, vars, gates),
                }
            }
        }
        _ => {}
    }
}

/// Fails on an `in` parameter or a variable that is never read, an `in out` parameter neither
/// read nor written, or a gate (formal or hidden) never used, in any function or process.
pub fn no_unused_declaration(name: &str, text: &str) {
    let m = labs::lntcheck::parse(text).unwrap_or_else(|e| panic!("{name}: {}", e.message));
    let mut bodies: Vec<(String, Vec<(String, Mode)>, Vec<String>, &Stmt)> = vec![];
    for f in &m.funcs {
        bodies.push((format!("function {}", f.name), f.params.iter().map(|p| (p.name.clone(), p.mode)).collect(), vec![], &f.body));
    }
    for p in &m.procs {
        let gates = p.gates.iter().map(|(g, _)| g.clone()).collect();
        bodies.push((format!("process {}", p.name), p.params.iter().map(|p| (p.name.clone(), p.mode)).collect(), gates, &p.body));
    }
    let mut unused = vec![];
    for (what, params, mut gates, body) in bodies {
        let mut u = Uses::default();
        u.stmt(body);
        let mut vars = vec![];
        declared(body, &mut vars, &mut gates);
        for (p, mode) in params {
            let used = match mode {
                Mode::In => u.read.contains(&p),
                _ => u.read.contains(&p) || u.written.contains(&p),
            };
            if !used {
                unused.push(format!("{what}: parameter {p}"));
            }
        }
        unused.extend(vars.into_iter().filter(|v| !u.read.contains(v)).map(|v| format!("{what}: variable {v}")));
        unused.extend(gates.into_iter().filter(|g| !u.gates.contains(g)).map(|g| format!("{what}: gate {g}")));
    }
    assert!(unused.is_empty(), "{name}: declared and never used: {}", unused.join("; "));
}

/// The module opens with the pragmas that fix the enumerated ranges of `Nat` and `Int`, so that
/// a leaf generated alone never depends on the installation's defaults.
pub fn range_pragmas(name: &str, text: &str) {
    let start = text.find("module ").expect("a module");
    let first_def = ["\ntype ", "\nfunction ", "\nprocess "].iter().filter_map(|d| text.find(d)).min().expect("definitions");
    let head = &text[start..first_def];
    for p in ["!nat_inf", "!nat_sup", "!int_inf", "!int_sup"] {
        let re = regex::Regex::new(&format!(r"(?m)^\s*{p} -?\d+\s*$")).unwrap();
        assert!(re.is_match(head), "{name}: no `{p} N` before the first definition");
    }
}

/// In the 2025 dialect a send offer is written `G (X)`: `!` is reserved for pragmas (CADP
/// HISTORY #3148).
pub fn send_offers_of_the_dialect(name: &str, text: &str, dialect: Dialect) {
    if dialect != Dialect::V2025 {
        return;
    }
    let code: String = text.lines().map(|l| l.split("--").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    let re = regex::Regex::new(r"!([^=a-z]|$)").unwrap();
    if let Some(m) = re.find(&code) {
        let line = code[..m.start()].lines().count();
        panic!("{name}: a `!` offer in the 2025 dialect (line {line})");
    }
}

/// An SVL property block ends `expected TRUE` then `end property`, with no `;` between (the
/// form SLiVER's scripts ran with).
pub fn svl_property_blocks(name: &str, text: &str) {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let mut blocks = 0;
    for (i, l) in lines.iter().enumerate() {
        if l.starts_with("expected") {
            assert_eq!(*l, "expected TRUE", "{name}: line {}", i + 1);
            assert_eq!(lines.get(i + 1), Some(&"end property"), "{name}: line {}", i + 2);
            blocks += 1;
        }
    }
    assert_eq!(blocks, lines.iter().filter(|l| l.starts_with("property ")).count(), "{name}: property blocks");
}

/// No identifier of the program has `_` at either end or two `_` in a row.
pub fn identifiers(name: &str, text: &str) {
    let code: String = text.lines().map(|l| l.split("--").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    let code = regex::Regex::new(r"(?s)\(\*.*?\*\)").unwrap().replace_all(&code, "");
    for w in regex::Regex::new(r"[A-Za-z_][A-Za-z0-9_]*").unwrap().find_iter(&code) {
        let w = w.as_str();
        assert!(!w.contains("__") && !w.ends_with('_') && !w.starts_with('_'), "{name}: identifier `{w}`");
    }
}
