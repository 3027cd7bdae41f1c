//! Canonical LAbS text for syntax trees.
//!
//! The output parses back to the same tree (modulo spans). `Paren` nodes print as parentheses;
//! other parentheses are added only where the tree could not be read back otherwise
//! (precedence, a greedy `if … else` or `x of e` that is not the last operand, a guard that is
//! not the last item of a sequence, choice or parallel composition).

use super::ast::*;
use super::span::Span;
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
                let _ = writeln!(out, "    {} = {}", p.name.name, f.print(&|q| qpred(q)));
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

fn quants(qs: &[Quantifier]) -> String {
    let mut s = String::new();
    for q in qs {
        let kw = match q.kind {
            QuantKind::Forall => "forall",
            QuantKind::Exists => "exists",
        };
        let _ = write!(s, "{kw} {} {}, ", q.agent.name, q.var.name);
    }
    s
}

/// Prints a quantified predicate.
pub(crate) fn print_qpred(q: &QPred) -> String {
    qpred(q)
}

fn qpred(q: &QPred) -> String {
    format!("{}{}", quants(&q.quants), Printer { q: true }.bexpr(&q.body))
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

/// Prints an arithmetic expression (process reading of `of`).
pub(crate) fn print_expr(e: &Expr) -> String {
    let mut s = String::new();
    Printer { q: false }.expr(&mut s, e, 0, true);
    s
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

/// Expression printer; `q` selects the property reading of `of` (a single name or number,
/// not greedy).
#[derive(Clone, Copy)]
struct Printer {
    q: bool,
}

fn bin_level(op: BinOp) -> u8 {
    match op {
        BinOp::Add | BinOp::Sub => 1,
        _ => 2,
    }
}

impl Printer {
    /// Precedence: 1 = sum, 2 = product, 3 = unary, 4 = primary.
    fn level(&self, e: &Expr) -> u8 {
        match e {
            Expr::Bin(op, ..) => bin_level(*op),
            Expr::Neg(..) => 3,
            Expr::Int(n, _) if *n < 0 => 3,
            _ => 4,
        }
    }

    /// Whether the expression extends greedily to the right (so it must be last).
    fn open_right(&self, e: &Expr) -> bool {
        match e {
            Expr::If { .. } => true,
            Expr::Var { owner: Some(Owner::Expr(_)), .. } => !self.q,
            Expr::Neg(inner, _) => self.open_right(inner),
            Expr::Bin(_, _, r, _) => self.open_right(r),
            _ => false,
        }
    }

    fn expr(&self, s: &mut String, e: &Expr, min: u8, tail: bool) {
        if self.level(e) < min || (!tail && self.open_right(e)) {
            s.push('(');
            self.expr(s, e, 0, true);
            s.push(')');
            return;
        }
        match e {
            Expr::Int(n, _) => {
                let _ = write!(s, "{n}");
            }
            Expr::Extern(i) => s.push_str(&i.name),
            Expr::Id { owner, .. } => {
                s.push_str("id");
                if let Some(o) = owner {
                    self.owner(s, o, tail);
                }
            }
            Expr::Var { name, indices, owner, .. } => {
                s.push_str(&name.name);
                if !indices.is_empty() {
                    s.push('[');
                    for (i, ix) in indices.iter().enumerate() {
                        if i > 0 {
                            s.push_str(", ");
                        }
                        self.expr(s, ix, 0, true);
                    }
                    s.push(']');
                }
                if let Some(o) = owner {
                    self.owner(s, o, tail);
                }
            }
            Expr::Neg(inner, _) => {
                s.push('-');
                let start = s.len();
                self.expr(s, inner, 3, tail);
                if s[start..].starts_with('-') {
                    s.insert(start, ' ');
                }
            }
            Expr::Abs(inner, _) => {
                s.push_str("abs(");
                self.expr(s, inner, 0, true);
                s.push(')');
            }
            Expr::Bin(op, l, r, _) => {
                let lvl = bin_level(*op);
                self.expr(s, l, lvl, false);
                let _ = write!(s, " {} ", op.as_str());
                self.expr(s, r, lvl + 1, tail);
            }
            Expr::MinMax(mm, a, b, _) => {
                s.push_str(match mm {
                    MinMax::Min => "min(",
                    MinMax::Max => "max(",
                });
                self.expr(s, a, 0, true);
                s.push_str(", ");
                self.expr(s, b, 0, true);
                s.push(')');
            }
            Expr::If { cond, then, els, .. } => {
                s.push_str("if ");
                s.push_str(&self.bexpr(cond));
                s.push_str(" then ");
                self.expr(s, then, 0, true);
                s.push_str(" else ");
                self.expr(s, els, 0, tail);
            }
            Expr::NonDet(a, b, _) => {
                s.push('[');
                self.expr(s, a, 0, true);
                s.push_str("..");
                self.expr(s, b, 0, true);
                s.push(']');
            }
            Expr::Paren(inner, _) => {
                s.push('(');
                self.expr(s, inner, 0, true);
                s.push(')');
            }
        }
    }

    fn owner(&self, s: &mut String, o: &Owner, tail: bool) {
        s.push_str(" of ");
        match o {
            Owner::C1(_) => s.push_str("c1"),
            Owner::C2(_) => s.push_str("c2"),
            Owner::Expr(e) => self.expr(s, e, if self.q { 4 } else { 0 }, tail),
        }
    }

    fn bexpr(&self, b: &BExpr) -> String {
        let mut s = String::new();
        self.b(&mut s, b, 0);
        s
    }

    /// Levels: 0 = `or`, 1 = `and`, 2 = atom.
    fn b(&self, s: &mut String, b: &BExpr, min: u8) {
        let lvl = match b {
            BExpr::Logic(BoolOp::Or, ..) => 0,
            BExpr::Logic(BoolOp::And, ..) => 1,
            _ => 2,
        };
        if lvl < min {
            s.push('(');
            self.b(s, b, 0);
            s.push(')');
            return;
        }
        match b {
            BExpr::Bool(v, _) => s.push_str(if *v { "true" } else { "false" }),
            BExpr::Not(inner, _) => {
                s.push('!');
                match inner.as_ref() {
                    BExpr::Bool(..) | BExpr::Paren(..) => self.b(s, inner, 2),
                    other => {
                        s.push('(');
                        self.b(s, other, 0);
                        s.push(')');
                    }
                }
            }
            BExpr::Cmp(op, l, r, _) => {
                self.expr(s, l, 0, true);
                let _ = write!(s, " {} ", op.as_str());
                self.expr(s, r, 0, true);
            }
            BExpr::Logic(op, l, r, _) => {
                self.b(s, l, lvl);
                s.push_str(match op {
                    BoolOp::And => " and ",
                    BoolOp::Or => " or ",
                });
                self.b(s, r, lvl + 1);
            }
            BExpr::Truthy(e) => self.expr(s, e, 0, true),
            BExpr::Paren(inner, _) => {
                s.push('(');
                self.b(s, inner, 0);
                s.push(')');
            }
        }
    }
}

// --------------------------------------------------------------------- span erasure

/// A copy of the tree with every span set to `Span::default()`, for comparing trees.
pub fn erase_spans(spec: &Spec) -> Spec {
    let sys = &spec.system;
    Spec {
        system: System {
            externs: sys.externs.iter().map(id).collect(),
            environment: sys.environment.iter().map(e_decl).collect(),
            spawn: sys.spawn.iter().map(|s| SpawnItem { agent: id(&s.agent), count: e_expr(&s.count) }).collect(),
            processes: sys.processes.iter().map(e_def).collect(),
            span: Span::default(),
        },
        stigmergies: spec
            .stigmergies
            .iter()
            .map(|s| Stigmergy {
                name: id(&s.name),
                link: e_bexpr(&s.link),
                tuples: s
                    .tuples
                    .iter()
                    .map(|t| TupleDecl {
                        vars: t.vars.iter().map(e_var_name).collect(),
                        inits: t.inits.iter().map(e_init).collect(),
                        span: Span::default(),
                    })
                    .collect(),
                span: Span::default(),
            })
            .collect(),
        agents: spec
            .agents
            .iter()
            .map(|a| Agent {
                name: id(&a.name),
                interface: a.interface.iter().map(e_decl).collect(),
                stigmergies: a.stigmergies.iter().map(id).collect(),
                processes: a.processes.iter().map(e_def).collect(),
                span: Span::default(),
            })
            .collect(),
        assumptions: spec
            .assumptions
            .iter()
            .map(|a| Assumption { name: id(&a.name), pred: e_qpred(&a.pred) })
            .collect(),
        properties: spec
            .properties
            .iter()
            .map(|p| Property {
                name: id(&p.name),
                modality: e_modality(&p.modality),
                pred: e_qpred(&p.pred),
                span: Span::default(),
            })
            .collect(),
    }
}

fn id(i: &Ident) -> Ident {
    Ident { name: i.name.clone(), span: Span::default() }
}

fn e_var_name(v: &VarName) -> VarName {
    VarName { name: id(&v.name), dims: v.dims.iter().map(e_expr).collect() }
}

fn e_decl(d: &VarDecl) -> VarDecl {
    VarDecl { var: e_var_name(&d.var), init: e_init(&d.init) }
}

fn e_init(i: &Init) -> Init {
    let z = Span::default();
    match i {
        Init::Undef(_) => Init::Undef(z),
        Init::Choice(es, _) => Init::Choice(es.iter().map(e_expr).collect(), z),
        Init::Range(a, b, _) => Init::Range(e_expr(a), e_expr(b), z),
        Init::Single(e) => Init::Single(e_expr(e)),
    }
}

fn e_def(d: &ProcDef) -> ProcDef {
    ProcDef { name: id(&d.name), body: erase_proc(&d.body) }
}

fn e_quant(q: &Quantifier) -> Quantifier {
    Quantifier { kind: q.kind, agent: id(&q.agent), var: id(&q.var) }
}

fn e_qpred(q: &QPred) -> QPred {
    QPred { quants: q.quants.iter().map(e_quant).collect(), body: e_bexpr(&q.body), span: Span::default() }
}

fn e_modality(m: &Modality) -> Modality {
    let pat = |p: &Pattern| match p {
        Pattern::ThereIs => Pattern::ThereIs,
        Pattern::Always => Pattern::Always,
        Pattern::Precedes(q) => Pattern::Precedes(e_qpred(q)),
    };
    match m {
        Modality::Between { open, close, pattern } => {
            Modality::Between { open: e_qpred(open), close: e_qpred(close), pattern: pat(pattern) }
        }
        Modality::FromUntil { open, close, pattern } => {
            Modality::FromUntil { open: e_qpred(open), close: e_qpred(close), pattern: pat(pattern) }
        }
        Modality::Ltl(f) => Modality::Ltl(f.try_map(&mut |q| Some(e_qpred(q))).expect("every atom maps")),
        other => other.clone(),
    }
}

fn e_lhs(l: &Lhs) -> Lhs {
    Lhs { name: id(&l.name), indices: l.indices.iter().map(e_expr).collect(), span: Span::default() }
}

fn e_action(a: &Action) -> Action {
    Action {
        lhs: a.lhs.iter().map(e_lhs).collect(),
        op: a.op,
        rhs: a.rhs.iter().map(e_expr).collect(),
        span: Span::default(),
    }
}

fn e_stmt(s: &Stmt) -> Stmt {
    let z = Span::default();
    match s {
        Stmt::Assign(a) => Stmt::Assign(e_action(a)),
        Stmt::Local { lhs, rhs, .. } => {
            Stmt::Local { lhs: lhs.iter().map(e_lhs).collect(), rhs: rhs.iter().map(e_expr).collect(), span: z }
        }
        Stmt::Pick { name, count, agent, filter, .. } => Stmt::Pick {
            name: id(name),
            count: e_expr(count),
            agent: agent.as_ref().map(id),
            filter: filter.as_ref().map(e_bexpr),
            span: z,
        },
        Stmt::Quant { name, quants, pred, .. } => {
            Stmt::Quant { name: id(name), quants: quants.iter().map(e_quant).collect(), pred: e_bexpr(pred), span: z }
        }
        Stmt::Count { name, agent, var, pred, .. } => {
            Stmt::Count { name: id(name), agent: id(agent), var: id(var), pred: e_bexpr(pred), span: z }
        }
    }
}

/// `erase_spans` for one process.
pub fn erase_proc(p: &Proc) -> Proc {
    let z = Span::default();
    match p {
        Proc::Par(v, _) => Proc::Par(v.iter().map(erase_proc).collect(), z),
        Proc::Choice(v, _) => Proc::Choice(v.iter().map(erase_proc).collect(), z),
        Proc::Seq(v, _) => Proc::Seq(v.iter().map(erase_proc).collect(), z),
        Proc::Guard { cond, kind, body, .. } => {
            Proc::Guard { cond: e_bexpr(cond), kind: kind.clone(), body: Box::new(erase_proc(body)), span: z }
        }
        Proc::Skip(_) => Proc::Skip(z),
        Proc::Nil(_) => Proc::Nil(z),
        Proc::Call(i) => Proc::Call(id(i)),
        Proc::Action(a) => Proc::Action(e_action(a)),
        Proc::Block(stmts, _) => Proc::Block(stmts.iter().map(e_stmt).collect(), z),
        Proc::Paren(inner, _) => Proc::Paren(Box::new(erase_proc(inner)), z),
    }
}

fn e_owner(o: &Owner) -> Owner {
    let z = Span::default();
    match o {
        Owner::Expr(e) => Owner::Expr(Box::new(e_expr(e))),
        Owner::C1(_) => Owner::C1(z),
        Owner::C2(_) => Owner::C2(z),
    }
}

fn e_expr(e: &Expr) -> Expr {
    erase_expr(e)
}

/// `erase_spans` for one expression.
pub(crate) fn erase_expr(e: &Expr) -> Expr {
    let z = Span::default();
    let bx = |e: &Expr| Box::new(erase_expr(e));
    match e {
        Expr::Int(n, _) => Expr::Int(*n, z),
        Expr::Extern(i) => Expr::Extern(id(i)),
        Expr::Id { owner, .. } => Expr::Id { owner: owner.as_ref().map(e_owner), span: z },
        Expr::Var { name, indices, owner, .. } => Expr::Var {
            name: id(name),
            indices: indices.iter().map(erase_expr).collect(),
            owner: owner.as_ref().map(e_owner),
            span: z,
        },
        Expr::Neg(a, _) => Expr::Neg(bx(a), z),
        Expr::Abs(a, _) => Expr::Abs(bx(a), z),
        Expr::Bin(op, a, b, _) => Expr::Bin(*op, bx(a), bx(b), z),
        Expr::MinMax(m, a, b, _) => Expr::MinMax(*m, bx(a), bx(b), z),
        Expr::If { cond, then, els, .. } => {
            Expr::If { cond: Box::new(e_bexpr(cond)), then: bx(then), els: bx(els), span: z }
        }
        Expr::NonDet(a, b, _) => Expr::NonDet(bx(a), bx(b), z),
        Expr::Paren(a, _) => Expr::Paren(bx(a), z),
    }
}

fn e_bexpr(b: &BExpr) -> BExpr {
    erase_bexpr(b)
}

/// `erase_spans` for one Boolean expression.
pub(crate) fn erase_bexpr(b: &BExpr) -> BExpr {
    let z = Span::default();
    match b {
        BExpr::Bool(v, _) => BExpr::Bool(*v, z),
        BExpr::Not(a, _) => BExpr::Not(Box::new(erase_bexpr(a)), z),
        BExpr::Cmp(op, l, r, _) => BExpr::Cmp(*op, erase_expr(l), erase_expr(r), z),
        BExpr::Logic(op, l, r, _) => BExpr::Logic(*op, Box::new(erase_bexpr(l)), Box::new(erase_bexpr(r)), z),
        BExpr::Truthy(e) => BExpr::Truthy(erase_expr(e)),
        BExpr::Paren(a, _) => BExpr::Paren(Box::new(erase_bexpr(a)), z),
    }
}
