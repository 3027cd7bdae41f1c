//! Whole specifications and processes as canonical LAbS text (feature `test-support`).

use super::{Printer, print_expr, print_formula, qpred, quants};
use crate::syntax::ast::*;
use std::fmt::Write;

/// Prints a whole specification.
pub fn print_spec(spec: &Spec) -> String {
    let mut out = String::new();
    let sys = &spec.system;
    out.push_str("system {\n");
    if !sys.externs.is_empty() {
        let names: Vec<&str> = sys.externs.iter().map(|e| e.name.as_str()).collect();
        let _ = writeln!(out, "    extern = {}", names.join(", "));
    }
    if !sys.environment.is_empty() {
        let _ = writeln!(out, "    environment = {}", decls(&sys.environment));
    }
    let spawn: Vec<String> = sys.spawn.iter().map(|s| format!("{}: {}", s.agent.name, print_expr(&s.count))).collect();
    let _ = writeln!(out, "    spawn = {}", spawn.join(", "));
    for d in &sys.processes {
        let _ = writeln!(out, "    {} = {}", d.name.name, print_proc(&d.body));
    }
    out.push_str("}\n");
    for s in &spec.stigmergies {
        let _ = writeln!(out, "\nstigmergy {} {{", s.name.name);
        let _ = writeln!(out, "    link = {}", Printer { q: false }.bexpr(&s.link));
        for (i, t) in s.tuples.iter().enumerate() {
            let vars: Vec<String> = t.vars.iter().map(var_name).collect();
            let inits: Vec<String> = t.inits.iter().map(init).collect();
            let sep = if i + 1 < s.tuples.len() { ";" } else { "" };
            let _ = writeln!(out, "    {}: {}{sep}", vars.join(", "), inits.join(", "));
        }
        out.push_str("}\n");
    }
    for a in &spec.agents {
        let _ = writeln!(out, "\nagent {} {{", a.name.name);
        if !a.interface.is_empty() {
            let _ = writeln!(out, "    interface = {}", decls(&a.interface));
        }
        if !a.stigmergies.is_empty() {
            let names: Vec<&str> = a.stigmergies.iter().map(|e| e.name.as_str()).collect();
            let _ = writeln!(out, "    stigmergies = {}", names.join("; "));
        }
        for d in &a.processes {
            let _ = writeln!(out, "    {} = {}", d.name.name, print_proc(&d.body));
        }
        out.push_str("}\n");
    }
    if !spec.assumptions.is_empty() {
        out.push_str("\nassume {\n");
        for a in &spec.assumptions {
            let _ = writeln!(out, "    {} = {}", a.name.name, qpred(&a.pred));
        }
        out.push_str("}\n");
    }
    out.push_str("\ncheck {\n");
    for p in &spec.properties {
        match &p.modality {
            Modality::Ltl(f) => {
                let _ = writeln!(out, "    {} = {}", p.name.name, print_formula(f));
            }
            m => {
                let _ = writeln!(out, "    {} = {} {}", p.name.name, modality(m), qpred(&p.pred));
            }
        }
    }
    out.push_str("}\n");
    out
}

fn decls(ds: &[VarDecl]) -> String {
    let v: Vec<String> = ds.iter().map(|d| format!("{}: {}", var_name(&d.var), init(&d.init))).collect();
    v.join("; ")
}

fn var_name(v: &VarName) -> String {
    if v.dims.is_empty() { v.name.name.clone() } else { format!("{}[{}]", v.name.name, exprs(&v.dims)) }
}

fn exprs(es: &[Expr]) -> String {
    let v: Vec<String> = es.iter().map(print_expr).collect();
    v.join(", ")
}

fn init(i: &Init) -> String {
    match i {
        Init::Undef(_) => "undef".to_string(),
        Init::Choice(es, _) => format!("[{}]", exprs(es)),
        Init::Range(a, b, _) => format!("{}..{}", print_expr(a), print_expr(b)),
        Init::Single(e) => print_expr(e),
    }
}

fn modality(m: &Modality) -> String {
    let scoped = |kw: &str, mid: &str, open: &QPred, close: &QPred, pattern: &Pattern| {
        let pat = match pattern {
            Pattern::ThereIs => "thereIs".to_string(),
            Pattern::Always => "always".to_string(),
            Pattern::Precedes(q) => format!("{} precedes", qpred(q)),
        };
        format!("{kw} ({}) {mid} ({}), {pat}", qpred(open), qpred(close))
    };
    match m {
        Modality::Between { open, close, pattern } => scoped("between", "and", open, close, pattern),
        Modality::FromUntil { open, close, pattern } => scoped("from", "until", open, close, pattern),
        other => other.keyword().to_string(),
    }
}

/// Prints a Boolean expression (process reading of `of`).
pub(crate) fn print_bexpr(b: &BExpr) -> String {
    Printer { q: false }.bexpr(b)
}

/// Prints a process.
pub fn print_proc(p: &Proc) -> String {
    let mut s = String::new();
    proc(&mut s, p, 0, true);
    s
}

/// Precedence of process levels: 0 = `||`, 1 = `++`, 2 = `;`, 3 = base.
fn proc_level(p: &Proc) -> u8 {
    match p {
        Proc::Par(..) => 0,
        Proc::Choice(..) => 1,
        Proc::Seq(..) => 2,
        // A guard is a prefix whose body extends to the right: it can stand at any level
        // as long as nothing follows it (handled by `tail`).
        _ => 3,
    }
}

/// `min`: the lowest level allowed here; `tail`: nothing follows within the enclosing extent.
fn proc(s: &mut String, p: &Proc, min: u8, tail: bool) {
    let needs = proc_level(p) < min || (matches!(p, Proc::Guard { .. }) && !tail);
    if needs {
        s.push('(');
        proc(s, p, 0, true);
        s.push(')');
        return;
    }
    let list = |s: &mut String, items: &[Proc], sep: &str, lvl: u8| {
        for (i, it) in items.iter().enumerate() {
            if i > 0 {
                s.push_str(sep);
            }
            let last = i + 1 == items.len();
            proc(s, it, lvl + 1, tail && last);
        }
    };
    match p {
        Proc::Par(items, _) => list(s, items, " || ", 0),
        Proc::Choice(items, _) => list(s, items, " ++ ", 1),
        Proc::Seq(items, _) => list(s, items, "; ", 2),
        Proc::Guard { cond, kind, body, .. } => {
            s.push_str(&Printer { q: false }.bexpr(cond));
            s.push_str(match kind {
                GuardKind::Blocking => " -> ",
                GuardKind::Conditional => " => ",
            });
            proc(s, body, 0, true);
        }
        Proc::Skip(_) => s.push_str("Skip"),
        Proc::Nil(_) => s.push_str("Nil"),
        Proc::Call(i) => s.push_str(&i.name),
        Proc::Action(a) => action(s, &a.lhs, a.op.as_str(), &a.rhs),
        Proc::Block(stmts, _) => {
            s.push_str("{ ");
            for (i, st) in stmts.iter().enumerate() {
                if i > 0 {
                    s.push_str("; ");
                }
                stmt(s, st);
            }
            s.push_str(" }");
        }
        Proc::Paren(inner, _) => {
            s.push('(');
            proc(s, inner, 0, true);
            s.push(')');
        }
    }
}

fn lhs_list(ls: &[Lhs]) -> String {
    let v: Vec<String> =
        ls.iter()
            .map(|l| {
                if l.indices.is_empty() {
                    l.name.name.clone()
                } else {
                    format!("{}[{}]", l.name.name, exprs(&l.indices))
                }
            })
            .collect();
    v.join(", ")
}

fn action(s: &mut String, lhs: &[Lhs], op: &str, rhs: &[Expr]) {
    let _ = write!(s, "{} {op} {}", lhs_list(lhs), exprs(rhs));
}

fn stmt(s: &mut String, st: &Stmt) {
    match st {
        Stmt::Assign(a) => action(s, &a.lhs, a.op.as_str(), &a.rhs),
        Stmt::Local { lhs, rhs, .. } => action(s, lhs, ":=", rhs),
        Stmt::Pick { name, count, agent, filter, .. } => {
            let _ = write!(s, "{}[] := pick {}", name.name, print_expr(count));
            if let Some(a) = agent {
                let _ = write!(s, " {}", a.name);
            }
            if let Some(f) = filter {
                let _ = write!(s, " where {}", print_bexpr(f));
            }
        }
        Stmt::Quant { name, quants: qs, pred, .. } => {
            let _ = write!(s, "{} := {}{}", name.name, quants(qs), print_bexpr(pred));
        }
        Stmt::Count { name, agent, var, pred, .. } => {
            let _ = write!(s, "{} := count {} {}, {}", name.name, agent.name, var.name, print_bexpr(pred));
        }
    }
}
