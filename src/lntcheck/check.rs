//! Static checks of the LNT subset, with located messages: expression types (numerals take the
//! type the context expects), function signatures and parameter modes, gate declarations,
//! consistent offer arity per gate, and variables assigned before use on every path.

use super::ast::*;
use super::lexer::Diag;
use super::sem::{Program, Ty, TyKind};
use std::collections::{BTreeSet, HashMap};

struct Ck<'a> {
    p: &'a Program,
    diags: Vec<Diag>,
    vars: Vec<HashMap<String, Ty>>,
    ret: Option<Ty>,
    gates: Vec<String>,
    arity: HashMap<String, (usize, Pos)>,
}

/// Assigned variables; `None` = unreachable (after `stop`, `return`, an endless loop).
type Asg = Option<BTreeSet<String>>;

fn meet(a: Asg, b: Asg) -> Asg {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(a), Some(b)) => Some(a.intersection(&b).cloned().collect()),
    }
}

impl Ck<'_> {
    fn err(&mut self, pos: Pos, m: impl Into<String>) {
        self.diags.push(Diag::new(pos, m));
    }
    fn var(&self, n: &str) -> Option<Ty> {
        self.vars.iter().rev().find_map(|f| f.get(n).copied())
    }
    fn ty(&mut self, n: &str, pos: Pos) -> Option<Ty> {
        match self.p.type_ids.get(n) {
            Some(t) => Some(*t),
            None => {
                self.err(pos, format!("undeclared type `{n}`"));
                None
            }
        }
    }
    fn name(&self, t: Ty) -> String {
        self.p.ty_name(t)
    }
    fn expect(&mut self, pos: Pos, got: Option<Ty>, want: Option<Ty>) {
        if let (Some(g), Some(w)) = (got, want)
            && g != w
        {
            let m = format!("type mismatch: expected {}, found {}", self.name(w), self.name(g));
            self.err(pos, m);
        }
    }
    fn use_var(&mut self, n: &str, pos: Pos, asg: &Asg) {
        if let Some(a) = asg
            && self.var(n).is_some()
            && !a.contains(n)
        {
            self.err(pos, format!("variable `{n}` may be used before being assigned"));
        }
    }

    fn expr(&mut self, e: &Expr, want: Option<Ty>, asg: &Asg) -> Option<Ty> {
        match &e.k {
            ExprK::Num(_) => match want {
                Some(Ty::Int) => Some(Ty::Int),
                _ => Some(Ty::Nat),
            },
            ExprK::Name(n) => {
                if let Some(t) = self.var(n) {
                    self.use_var(n, e.pos, asg);
                    Some(t)
                } else if n == "true" || n == "false" || n == "TRUE" || n == "FALSE" {
                    Some(Ty::Bool)
                } else if let Some((_, t)) = self.p.ctor_ids.get(n) {
                    Some(*t)
                } else if let Some(f) = self.p.module.funcs.iter().find(|f| &f.name == n) {
                    if !f.params.is_empty() {
                        self.err(e.pos, format!("function `{n}` takes {} arguments, 0 given", f.params.len()));
                    }
                    f.ret.as_ref().and_then(|r| self.p.type_ids.get(r).copied())
                } else {
                    self.err(e.pos, format!("undeclared variable `{n}`"));
                    None
                }
            }
            ExprK::Call(n, args) => {
                if n == "NatToInt" || n == "IntToNat" {
                    let (from, to) = if n == "NatToInt" { (Ty::Nat, Ty::Int) } else { (Ty::Int, Ty::Nat) };
                    if args.len() != 1 {
                        self.err(e.pos, format!("`{n}` takes 1 argument, {} given", args.len()));
                    }
                    for a in args {
                        let t = self.expr(a, Some(from), asg);
                        self.expect(a.pos, t, Some(from));
                    }
                    Some(to)
                } else if let Some(f) = self.p.module.funcs.iter().find(|f| &f.name == n).cloned() {
                    if args.len() != f.params.len() {
                        self.err(
                            e.pos,
                            format!("function `{n}` takes {} arguments, {} given", f.params.len(), args.len()),
                        );
                    }
                    for (a, prm) in args.iter().zip(&f.params) {
                        if prm.mode != Mode::In {
                            self.err(a.pos, format!("parameter `{}` of `{n}` is not `in`: use `eval`", prm.name));
                        }
                        let w = self.p.type_ids.get(&prm.ty).copied();
                        let t = self.expr(a, w, asg);
                        self.expect(a.pos, t, w);
                    }
                    f.ret.as_ref().and_then(|r| self.p.type_ids.get(r).copied())
                } else if let Some(Ty::User(t)) = self.p.type_ids.get(n).copied() {
                    match self.p.types[t as usize].kind.clone() {
                        TyKind::Array { elem, .. } => {
                            for a in args {
                                let g = self.expr(a, Some(elem), asg);
                                self.expect(a.pos, g, Some(elem));
                            }
                            Some(Ty::User(t))
                        }
                        TyKind::Enum { .. } => {
                            self.err(e.pos, format!("`{n}` is not a function"));
                            None
                        }
                    }
                } else {
                    self.err(e.pos, format!("undeclared function `{n}`"));
                    None
                }
            }
            ExprK::Index(a, i) => {
                let at = self.expr(a, None, asg);
                let it = self.expr(i, Some(Ty::Nat), asg);
                if let Some(t) = it
                    && t != Ty::Nat
                    && t != Ty::Int
                {
                    let m = format!("array index of type {}", self.name(t));
                    self.err(i.pos, m);
                }
                match at {
                    Some(Ty::User(t)) => match self.p.types[t as usize].kind {
                        TyKind::Array { elem, .. } => Some(elem),
                        _ => {
                            self.err(e.pos, "indexing a value that is not an array");
                            None
                        }
                    },
                    Some(_) => {
                        self.err(e.pos, "indexing a value that is not an array");
                        None
                    }
                    None => None,
                }
            }
            ExprK::Bin(op, a, b) => match op {
                BinOp::And | BinOp::Or => {
                    for x in [a, b] {
                        let t = self.expr(x, Some(Ty::Bool), asg);
                        self.expect(x.pos, t, Some(Ty::Bool));
                    }
                    Some(Ty::Bool)
                }
                _ => {
                    let arith = matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod);
                    let w = if arith { want } else { None };
                    let lit = matches!(a.k, ExprK::Num(_));
                    let (ta, tb) = if lit {
                        let tb = self.expr(b, w, asg);
                        (self.expr(a, tb.or(w), asg), tb)
                    } else {
                        let ta = self.expr(a, w, asg);
                        (ta, self.expr(b, ta.or(w), asg))
                    };
                    if let (Some(x), Some(y)) = (ta, tb)
                        && x != y
                    {
                        let m = format!("type mismatch: `{}` on {} and {}", op.text(), self.name(x), self.name(y));
                        self.err(e.pos, m);
                    }
                    if arith {
                        if let Some(x) = ta
                            && x != Ty::Nat
                            && x != Ty::Int
                        {
                            let m = format!("`{}` on {}", op.text(), self.name(x));
                            self.err(e.pos, m);
                        }
                        ta
                    } else {
                        Some(Ty::Bool)
                    }
                }
            },
            ExprK::Neg(a) => {
                let t = self.expr(a, Some(Ty::Int), asg);
                self.expect(a.pos, t, Some(Ty::Int));
                Some(Ty::Int)
            }
            ExprK::Not(a) => {
                let t = self.expr(a, Some(Ty::Bool), asg);
                self.expect(a.pos, t, Some(Ty::Bool));
                Some(Ty::Bool)
            }
            ExprK::Of(a, t) => {
                let w = self.ty(t, e.pos);
                let g = self.expr(a, w, asg);
                self.expect(a.pos, g, w);
                w
            }
        }
    }

    fn lvalue(&mut self, lv: &LValue, asg: &Asg) -> Option<Ty> {
        let Some(t) = self.var(&lv.name) else {
            self.err(lv.pos, format!("undeclared variable `{}`", lv.name));
            return None;
        };
        match &lv.index {
            None => Some(t),
            Some(i) => {
                self.use_var(&lv.name, lv.pos, asg);
                self.expr(i, Some(Ty::Nat), asg);
                match t {
                    Ty::User(u) => match self.p.types[u as usize].kind {
                        TyKind::Array { elem, .. } => Some(elem),
                        _ => None,
                    },
                    _ => {
                        self.err(lv.pos, format!("`{}` is not an array", lv.name));
                        None
                    }
                }
            }
        }
    }

    fn assign(asg: &mut Asg, n: &str) {
        if let Some(a) = asg {
            a.insert(n.to_string());
        }
    }

    fn args(&mut self, f: &str, args: &[Arg], pos: Pos, asg: &mut Asg) {
        let Some(fd) = self.p.module.funcs.iter().find(|x| x.name == f).cloned() else {
            self.err(pos, format!("undeclared function `{f}`"));
            return;
        };
        if fd.params.len() != args.len() {
            self.err(pos, format!("function `{f}` takes {} arguments, {} given", fd.params.len(), args.len()));
        }
        for (a, prm) in args.iter().zip(&fd.params) {
            let w = self.p.type_ids.get(&prm.ty).copied();
            match (a, prm.mode) {
                (Arg::In(e), Mode::In) => {
                    let t = self.expr(e, w, asg);
                    self.expect(e.pos, t, w);
                }
                (Arg::InOut(n, p), Mode::InOut) | (Arg::Out(n, p), Mode::Out) => {
                    if prm.mode == Mode::InOut {
                        self.use_var(n, *p, asg);
                    }
                    let t = self.var(n);
                    if t.is_none() {
                        self.err(*p, format!("undeclared variable `{n}`"));
                    }
                    self.expect(*p, t, w);
                }
                (a, m) => {
                    let p = match a {
                        Arg::In(e) => e.pos,
                        Arg::InOut(_, p) | Arg::Out(_, p) => *p,
                    };
                    self.err(
                        p,
                        format!("parameter `{}` of `{f}` is {m:?}: the actual parameter does not match", prm.name),
                    );
                }
            }
        }
        for a in args {
            if let Arg::InOut(n, _) | Arg::Out(n, _) = a {
                Self::assign(asg, n);
            }
        }
    }

    fn stmt(&mut self, s: &Stmt, asg: Asg) -> Asg {
        let mut asg = asg;
        match &s.k {
            StmtK::Seq(v) => {
                for x in v {
                    asg = self.stmt(x, asg);
                }
                asg
            }
            StmtK::Null => asg,
            StmtK::Stop => None,
            StmtK::Var(decls, b) => {
                let mut f = HashMap::new();
                for (n, t, pos) in decls {
                    if let Some(t) = self.ty(t, *pos) {
                        f.insert(n.clone(), t);
                    }
                    if let Some(a) = &mut asg {
                        a.remove(n);
                    }
                }
                let names: Vec<String> = decls.iter().map(|d| d.0.clone()).collect();
                self.vars.push(f);
                let mut out = self.stmt(b, asg);
                self.vars.pop();
                if let Some(a) = &mut out {
                    for n in names {
                        a.remove(&n);
                    }
                }
                out
            }
            StmtK::Assign(lv, e) => {
                let w = self.lvalue(lv, &asg);
                let t = self.expr(e, w, &asg);
                self.expect(e.pos, t, w);
                Self::assign(&mut asg, &lv.name);
                asg
            }
            StmtK::Any(lv, t, w) => {
                let want = self.lvalue(lv, &asg);
                let t = self.ty(t, s.pos);
                self.expect(s.pos, t, want);
                Self::assign(&mut asg, &lv.name);
                if let Some(w) = w {
                    let g = self.expr(w, Some(Ty::Bool), &asg);
                    self.expect(w.pos, g, Some(Ty::Bool));
                }
                asg
            }
            StmtK::If(arms, els) => {
                let mut out: Asg = None;
                for (c, b) in arms {
                    let g = self.expr(c, Some(Ty::Bool), &asg);
                    self.expect(c.pos, g, Some(Ty::Bool));
                    let r = self.stmt(b, asg.clone());
                    out = meet(out, r);
                }
                let r = match els {
                    Some(b) => self.stmt(b, asg.clone()),
                    None => asg.clone(),
                };
                meet(out, r)
            }
            StmtK::OnlyIf(c) => {
                let g = self.expr(c, Some(Ty::Bool), &asg);
                self.expect(c.pos, g, Some(Ty::Bool));
                asg
            }
            StmtK::While(c, b) => {
                let g = self.expr(c, Some(Ty::Bool), &asg);
                self.expect(c.pos, g, Some(Ty::Bool));
                self.stmt(b, asg.clone());
                asg
            }
            StmtK::Loop(b) => {
                self.stmt(b, asg);
                None
            }
            StmtK::Return(e) => {
                match (e, self.ret) {
                    (Some(e), r) => {
                        let t = self.expr(e, r, &asg);
                        self.expect(e.pos, t, r);
                    }
                    (None, Some(_)) => self.err(s.pos, "`return` without a value in a function with a result"),
                    (None, None) => {}
                }
                None
            }
            StmtK::Eval(f, args) => {
                self.args(f, args, s.pos, &mut asg);
                asg
            }
            StmtK::Alt(bs) => {
                let mut out: Asg = None;
                for b in bs {
                    let r = self.stmt(b, asg.clone());
                    out = meet(out, r);
                }
                out
            }
            StmtK::Comm(g, offers, w) => {
                if g != "i" && !self.gates.contains(g) {
                    self.err(s.pos, format!("undeclared gate `{g}`"));
                }
                match self.arity.get(g) {
                    Some((n, p)) if *n != offers.len() => {
                        let m = format!("gate `{g}` used with {} offers, but with {n} at {p}", offers.len());
                        self.err(s.pos, m);
                    }
                    None => {
                        self.arity.insert(g.clone(), (offers.len(), s.pos));
                    }
                    _ => {}
                }
                let mut recv = vec![];
                for o in offers {
                    match o {
                        Offer::Send(e) => {
                            if self.expr(e, None, &asg).is_none() {
                                continue;
                            }
                        }
                        Offer::Recv(lv) => {
                            self.lvalue(lv, &asg);
                            recv.push(lv.name.clone());
                        }
                    }
                }
                for n in recv {
                    Self::assign(&mut asg, &n);
                }
                if let Some(w) = w {
                    let t = self.expr(w, Some(Ty::Bool), &asg);
                    self.expect(w.pos, t, Some(Ty::Bool));
                }
                asg
            }
            StmtK::Hide(gs, b) => {
                let saved = self.gates.clone();
                self.gates.extend(gs.iter().map(|g| g.0.clone()));
                let r = self.stmt(b, asg);
                self.gates = saved;
                r
            }
            StmtK::Par(global, bs) => {
                for (g, p) in global {
                    if !self.gates.contains(g) {
                        self.err(*p, format!("undeclared gate `{g}`"));
                    }
                }
                let mut out: Asg = Some(BTreeSet::new());
                for b in bs {
                    let b = match b {
                        ParBranch::Plain(b) => b,
                        ParBranch::Synced(gs, b) => {
                            for (g, p) in gs {
                                if !self.gates.contains(g) {
                                    self.err(*p, format!("undeclared gate `{g}`"));
                                }
                            }
                            b
                        }
                    };
                    let r = self.stmt(b, asg.clone());
                    out = match (out, r) {
                        (Some(_), None) | (None, _) => None,
                        (Some(x), Some(_)) => Some(x),
                    };
                }
                asg
            }
            StmtK::Call(n, gs, args) => {
                for (g, p) in gs {
                    if !self.gates.contains(g) {
                        self.err(*p, format!("undeclared gate `{g}`"));
                    }
                }
                match self.p.module.procs.iter().find(|x| &x.name == n).cloned() {
                    None => self.err(s.pos, format!("undeclared process `{n}`")),
                    Some(pr) => {
                        if pr.gates.len() != gs.len() {
                            self.err(s.pos, format!("process `{n}` has {} gates, {} given", pr.gates.len(), gs.len()));
                        }
                        if pr.params.len() != args.len() {
                            self.err(
                                s.pos,
                                format!("process `{n}` has {} parameters, {} given", pr.params.len(), args.len()),
                            );
                        }
                        for (a, prm) in args.iter().zip(&pr.params) {
                            if let Arg::In(e) = a {
                                let w = self.p.type_ids.get(&prm.ty).copied();
                                let t = self.expr(e, w, &asg);
                                self.expect(e.pos, t, w);
                            }
                        }
                    }
                }
                asg
            }
        }
    }
}

/// Checks the whole module; returns every message (sorted by position).
pub fn check(p: &Program) -> Vec<Diag> {
    let mut ck = Ck { p, diags: vec![], vars: vec![], ret: None, gates: vec![], arity: HashMap::new() };
    for f in &p.module.funcs {
        let mut frame = HashMap::new();
        let mut asg = BTreeSet::new();
        for prm in &f.params {
            if let Some(t) = ck.ty(&prm.ty, prm.pos) {
                frame.insert(prm.name.clone(), t);
            }
            if prm.mode != Mode::Out {
                asg.insert(prm.name.clone());
            }
        }
        ck.vars = vec![frame];
        ck.ret = f.ret.as_ref().and_then(|r| ck.ty(r, f.pos));
        ck.gates = vec![];
        let end = ck.stmt(&f.body, Some(asg));
        if ck.ret.is_some() && end.is_some() {
            ck.err(f.pos, format!("function `{}` may end without returning a value", f.name));
        }
        if let Some(a) = end {
            for prm in f.params.iter().filter(|x| x.mode == Mode::Out) {
                if !a.contains(&prm.name) {
                    ck.err(f.pos, format!("out parameter `{}` of `{}` may not be assigned", prm.name, f.name));
                }
            }
        }
    }
    for pr in &p.module.procs {
        let mut frame = HashMap::new();
        let mut asg = BTreeSet::new();
        for prm in &pr.params {
            if let Some(t) = ck.ty(&prm.ty, prm.pos) {
                frame.insert(prm.name.clone(), t);
            }
            asg.insert(prm.name.clone());
        }
        ck.vars = vec![frame];
        ck.ret = None;
        ck.gates = pr.gates.iter().map(|g| g.0.clone()).collect();
        ck.arity = HashMap::new();
        ck.stmt(&pr.body, Some(asg));
    }
    ck.diags.sort_by_key(|d| (d.pos.line, d.pos.col));
    ck.diags.dedup();
    ck.diags
}
