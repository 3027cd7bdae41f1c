//! Declarations a function or process never uses: TRAIAN and lnt2lotos warn on each, so the
//! emitter leaves them out (`lnt::templates`), and the tests check every emitted program.

use super::ast::{Arg, Expr, ExprK, LValue, Mode, Module, Offer, ParBranch, Stmt, StmtK};
use std::collections::BTreeSet;

/// What is declared and never used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// An `in` parameter never read, or an `in out` one neither read nor written.
    Parameter,
    /// A variable (`var … in`) never read.
    Variable,
    /// A gate (formal, or hidden) never used in a communication, a call or a `par`.
    Gate,
}

/// One unused declaration: in function or process `scope` (a process when `in_process`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Unused {
    pub scope: String,
    pub in_process: bool,
    pub kind: Kind,
    pub name: String,
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

/// A function or process: name, whether a process, parameters, formal gates, body.
type Body<'m> = (&'m str, bool, Vec<(String, Mode)>, Vec<String>, &'m Stmt);

/// Every declaration of `m` that its function or process never uses.
pub fn unused_declarations(m: &Module) -> Vec<Unused> {
    let mut bodies: Vec<Body> = vec![];
    for f in &m.funcs {
        bodies.push((&f.name, false, f.params.iter().map(|p| (p.name.clone(), p.mode)).collect(), vec![], &f.body));
    }
    for p in &m.procs {
        let gates = p.gates.iter().map(|(g, _)| g.clone()).collect();
        bodies.push((&p.name, true, p.params.iter().map(|p| (p.name.clone(), p.mode)).collect(), gates, &p.body));
    }
    let mut out = vec![];
    for (scope, in_process, params, mut gates, body) in bodies {
        let mut u = Uses::default();
        u.stmt(body);
        let mut vars = vec![];
        declared(body, &mut vars, &mut gates);
        let item = |kind, name: String| Unused { scope: scope.to_string(), in_process, kind, name };
        for (p, mode) in params {
            let used = match mode {
                Mode::In => u.read.contains(&p),
                _ => u.read.contains(&p) || u.written.contains(&p),
            };
            if !used {
                out.push(item(Kind::Parameter, p));
            }
        }
        out.extend(vars.into_iter().filter(|v| !u.read.contains(v)).map(|v| item(Kind::Variable, v)));
        out.extend(gates.into_iter().filter(|g| !u.gates.contains(g)).map(|g| item(Kind::Gate, g)));
    }
    out
}
