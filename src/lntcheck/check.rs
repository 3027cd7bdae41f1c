//! Static checks of the LNT subset, with located messages: expression types (numerals take the
//! type the context expects), function signatures and parameter modes, gate declarations,
//! channel typing (offers of one gate agree in arity and types across processes, through the gate
//! parameters of calls), and variables assigned before use on every path.

use super::ast::*;
use super::sem::{Program, Ty, TyKind};
use crate::diagnostics::Located;
use std::collections::{BTreeSet, HashMap};

struct Ck<'a> {
    p: &'a Program,
    diags: Vec<Located>,
    vars: Vec<HashMap<String, Ty>>,
    ret: Option<Ty>,
    /// Gates in scope, innermost last: (name, channel node).
    gates: Vec<(String, usize)>,
    /// Channels: union-find over the gate nodes (formal gates of every process, gates of every
    /// `hide`); a process call joins each actual gate with the callee's formal gate.
    uf: Vec<usize>,
    /// The nodes of each process's formal gates.
    formals: Vec<Vec<usize>>,
    /// Every communication: (node, gate name, offer types, position), in program order.
    uses: Vec<(usize, String, Vec<Option<Ty>>, Span)>,
}

fn find(uf: &mut [usize], mut x: usize) -> usize {
    while uf[x] != x {
        uf[x] = uf[uf[x]];
        x = uf[x];
    }
    x
}

/// A numeral without `of T` (its type comes from the context; gates are untyped).
fn bare_numeral(e: &Expr) -> bool {
    match &e.k {
        ExprK::Num(_) => true,
        ExprK::Neg(x) => bare_numeral(x),
        _ => false,
    }
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
    fn err(&mut self, pos: Span, m: impl Into<String>) {
        self.diags.push(Located::new(pos, m));
    }
    fn new_node(&mut self) -> usize {
        self.uf.push(self.uf.len());
        self.uf.len() - 1
    }
    /// The channel node of gate `g` in scope.
    fn gate(&self, g: &str) -> Option<usize> {
        self.gates.iter().rev().find(|x| x.0 == g).map(|x| x.1)
    }
    fn var(&self, n: &str) -> Option<Ty> {
        self.vars.iter().rev().find_map(|f| f.get(n).copied())
    }
    fn ty(&mut self, n: &str, pos: Span) -> Option<Ty> {
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
    fn expect(&mut self, pos: Span, got: Option<Ty>, want: Option<Ty>) {
        if let (Some(g), Some(w)) = (got, want)
            && g != w
        {
            let m = format!("type mismatch: expected {}, found {}", self.name(w), self.name(g));
            self.err(pos, m);
        }
    }
    fn use_var(&mut self, n: &str, pos: Span, asg: &Asg) {
        if let Some(a) = asg
            && self.var(n).is_some()
            && !a.contains(n)
        {
            self.err(pos, format!("variable `{n}` may be used before being assigned"));
        }
    }

    fn expr(&mut self, e: &Expr, want: Option<Ty>, asg: &Asg) -> Option<Ty> {
        fn numeral(e: &Expr) -> bool {
            match &e.k {
                ExprK::Num(_) => true,
                ExprK::Bin(BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod, a, b) => {
                    numeral(a) && numeral(b)
                }
                _ => false,
            }
        }
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
                    // Numerals, alone or combined, take the type of the other operand (LNT
                    // resolves `1 * 1 > x` by `x`).
                    let lit = numeral(a);
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

    fn args(&mut self, f: &str, args: &[Arg], pos: Span, asg: &mut Asg) {
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
                let node = self.gate(g);
                if g != "i" && node.is_none() {
                    self.err(s.pos, format!("undeclared gate `{g}`"));
                }
                let mut recv = vec![];
                let mut sig = vec![];
                for o in offers {
                    match o {
                        Offer::Send(e) => {
                            let t = self.expr(e, None, &asg);
                            sig.push(if bare_numeral(e) { None } else { t });
                        }
                        Offer::Recv(lv) => {
                            sig.push(self.lvalue(lv, &asg));
                            recv.push(lv.name.clone());
                        }
                    }
                }
                if let Some(n) = node {
                    self.uses.push((n, g.clone(), sig, s.pos));
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
                for (g, _) in gs {
                    let n = self.new_node();
                    self.gates.push((g.clone(), n));
                }
                let r = self.stmt(b, asg);
                self.gates = saved;
                r
            }
            StmtK::Par(global, bs) => {
                for (g, p) in global {
                    if self.gate(g).is_none() {
                        self.err(*p, format!("undeclared gate `{g}` in the synchronisation set of `par`"));
                    }
                }
                let mut out: Asg = Some(BTreeSet::new());
                for b in bs {
                    let b = match b {
                        ParBranch::Plain(b) => b,
                        ParBranch::Synced(gs, b) => {
                            for (g, p) in gs {
                                if self.gate(g).is_none() {
                                    self.err(*p, format!("undeclared gate `{g}` in the synchronisation set of `par`"));
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
                    if self.gate(g).is_none() {
                        self.err(*p, format!("undeclared gate `{g}`"));
                    }
                }
                match self.p.module.procs.iter().position(|x| &x.name == n) {
                    None => self.err(s.pos, format!("undeclared process `{n}`")),
                    Some(pi) => {
                        let pr = self.p.module.procs[pi].clone();
                        if pr.gates.len() != gs.len() {
                            self.err(s.pos, format!("process `{n}` has {} gates, {} given", pr.gates.len(), gs.len()));
                        }
                        // the actual gate and the formal one are one channel
                        for ((g, _), &f) in gs.iter().zip(&self.formals[pi].clone()) {
                            if let Some(a) = self.gate(g) {
                                let (ra, rf) = (find(&mut self.uf, a), find(&mut self.uf, f));
                                self.uf[ra] = rf;
                            }
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

/// Channel typing: all the communications on one channel (a gate, followed through the gate
/// parameters of process calls) have the same number of offers, and offers of the same rank
/// have the same type (a numeral without `of T` matches any numeric type). The first use of a
/// channel in program order is the reference; every disagreeing use is reported.
fn channel_types(ck: &mut Ck) {
    let mut first: HashMap<usize, (String, Vec<Option<Ty>>, Span)> = HashMap::new();
    let uses = std::mem::take(&mut ck.uses);
    for (node, g, sig, pos) in uses {
        let root = find(&mut ck.uf, node);
        let Some((g0, sig0, pos0)) = first.get(&root).cloned() else {
            first.insert(root, (g, sig, pos));
            continue;
        };
        let as_ = if g0 == g { String::new() } else { format!(" (as `{g0}`)") };
        if sig.len() != sig0.len() {
            ck.err(
                pos,
                format!("gate `{g}` used with {} offers, but with {} at {}{as_}", sig.len(), sig0.len(), ck.p.at(pos0)),
            );
            continue;
        }
        for (k, (a, b)) in sig.iter().zip(&sig0).enumerate() {
            if let (Some(a), Some(b)) = (a, b)
                && a != b
            {
                let m = format!(
                    "offer {} of gate `{g}` has type {}, but {} at {}{as_}",
                    k + 1,
                    ck.name(*a),
                    ck.name(*b),
                    ck.p.at(pos0)
                );
                ck.err(pos, m);
            }
        }
    }
}

/// Checks the whole module; returns every message (sorted by position).
pub fn check(p: &Program) -> Vec<Located> {
    let mut ck =
        Ck { p, diags: vec![], vars: vec![], ret: None, gates: vec![], uf: vec![], formals: vec![], uses: vec![] };
    for pr in &p.module.procs {
        let f: Vec<usize> = pr.gates.iter().map(|_| ck.new_node()).collect();
        ck.formals.push(f);
    }
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
    for (pi, pr) in p.module.procs.iter().enumerate() {
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
        ck.gates = pr.gates.iter().map(|g| g.0.clone()).zip(ck.formals[pi].clone()).collect();
        ck.stmt(&pr.body, Some(asg));
    }
    channel_types(&mut ck);
    ck.diags.sort_by_key(|d| d.span.start);
    ck.diags.dedup();
    ck.diags
}
