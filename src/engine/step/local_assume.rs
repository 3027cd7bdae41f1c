//! The conjuncts of the assumptions that read the initial values of one owner only (the
//! environment, or one agent): checked on that owner's values alone, they prune its choices
//! before the product of all owners is formed (enumeration) or reject its draw at once
//! (simulation).
//!
//! A conjunct prunes only where the full evaluation would also exclude the state without
//! meeting a run-time error: the assumptions are evaluated in order, each only if the ones
//! before hold (docs/semantics.md), so only the assumptions of the leading run that provably
//! cannot err on any initial state (`Bounds::infallible`) lend their conjuncts.

use crate::model::arith::{MAX_VALUE, MIN_VALUE};
use crate::model::{AgentRef, BExpr, Expr, Model, Store, VarId};
use crate::syntax::ast::{BinOp, QuantKind};

/// Whose initial values a local conjunct reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    Env,
    Agent(usize),
}

/// One conjunct of an assumption with its quantified variables bound (`qvars`), to check on
/// `owner`'s values alone.
#[derive(Clone, Debug)]
pub(crate) struct LocalCheck {
    pub(crate) owner: Owner,
    pub(crate) body: BExpr,
    pub(crate) qvars: Vec<i64>,
}

/// What the initialisers may give each variable: `values[v]` is the interval of every choice of
/// every element of `v` in every agent (`None`: no value but ⊥), `varies[v]` whether some
/// element has more than one choice.
pub(crate) struct Bounds {
    pub(crate) values: Vec<Option<(i64, i64)>>,
    pub(crate) varies: Vec<bool>,
    pub(crate) n_agents: usize,
}

impl Bounds {
    /// Whether evaluating `b` on any initial state, with any binding of its quantified
    /// variables, is free of run-time errors (interval arithmetic over the initial values).
    pub(crate) fn infallible(&self, model: &Model, b: &BExpr) -> bool {
        match b {
            BExpr::Const(_) => true,
            BExpr::Not(x) => self.infallible(model, x),
            BExpr::Cmp(_, x, y) => self.range(model, x).is_some() && self.range(model, y).is_some(),
            BExpr::And(x, y) | BExpr::Or(x, y) => self.infallible(model, x) && self.infallible(model, y),
        }
    }

    /// The interval of `e`'s values (⊥ aside) when its evaluation cannot err, else `None`.
    fn range(&self, model: &Model, e: &Expr) -> Option<(i64, i64)> {
        let agents = (0, self.n_agents as i64 - 1);
        let fits = |(lo, hi): (i64, i64)| (MIN_VALUE <= lo && hi <= MAX_VALUE).then_some((lo, hi));
        match e {
            Expr::Const(c) => Some((*c, *c)),
            Expr::QVar(_) => Some(agents),
            Expr::AgentId(o) => self.owner_ok(o).then_some(agents),
            Expr::Var(v) => {
                let var = &model.vars[v.var];
                let indices_ok = v.indices.iter().zip(&var.dims).all(|(i, d)| match i {
                    Expr::Const(k) => *k >= 0 && (*k as usize) < *d,
                    _ => false,
                });
                let owner_ok = var.store == Store::Env || self.owner_ok(&v.owner);
                // A variable that is never given a value reads ⊥, which no operator turns
                // into an error.
                (indices_ok && owner_ok).then(|| self.values[v.var].unwrap_or((0, 0)))
            }
            Expr::Local { .. } | Expr::NonDet(..) => None,
            Expr::Neg(a) => {
                let (lo, hi) = self.range(model, a)?;
                fits((-hi, -lo))
            }
            Expr::Abs(a) => {
                let (lo, hi) = self.range(model, a)?;
                let m = lo.abs().max(hi.abs());
                fits((if lo <= 0 && 0 <= hi { 0 } else { lo.abs().min(hi.abs()) }, m))
            }
            Expr::MinMax(_, a, b) => {
                let (x, y) = (self.range(model, a)?, self.range(model, b)?);
                Some((x.0.min(y.0), x.1.max(y.1)))
            }
            Expr::If(c, a, b) => {
                if !self.infallible(model, c) {
                    return None;
                }
                let (x, y) = (self.range(model, a)?, self.range(model, b)?);
                Some((x.0.min(y.0), x.1.max(y.1)))
            }
            Expr::Bin(op, a, b) => {
                let (x, y) = (self.range(model, a)?, self.range(model, b)?);
                // Values are 32-bit, so every product of two bounds fits an i64.
                let corners = |f: &dyn Fn(i64, i64) -> i64| {
                    let c = [f(x.0, y.0), f(x.0, y.1), f(x.1, y.0), f(x.1, y.1)];
                    (*c.iter().min().expect("four"), *c.iter().max().expect("four"))
                };
                match op {
                    BinOp::Add => fits((x.0 + y.0, x.1 + y.1)),
                    BinOp::Sub => fits((x.0 - y.1, x.1 - y.0)),
                    BinOp::Mul => fits(corners(&|p, q| p * q)),
                    BinOp::Div | BinOp::Mod | BinOp::RDiv => {
                        if y.0 <= 0 && 0 <= y.1 {
                            return None;
                        }
                        let m = x.0.abs().max(x.1.abs()).max(y.0.abs()).max(y.1.abs());
                        fits((-m, m))
                    }
                }
            }
        }
    }

    /// An owner whose id is always in range: a quantified variable or a constant id.
    fn owner_ok(&self, o: &AgentRef) -> bool {
        match o {
            AgentRef::Of(e) => match **e {
                Expr::QVar(_) => true,
                Expr::Const(n) => n >= 0 && (n as usize) < self.n_agents,
                _ => false,
            },
            _ => false,
        }
    }
}

/// The local checks of the assumptions' leading infallible run, in the assumptions' order.
pub(crate) fn local_checks(model: &Model, bounds: &Bounds) -> Vec<LocalCheck> {
    let mut out = Vec::new();
    for asm in &model.assumptions {
        if !bounds.infallible(model, &asm.pred.body) {
            break;
        }
        let q = &asm.pred;
        let all_forall = q.quants.iter().all(|(k, _)| *k == QuantKind::Forall);
        let firsts: Option<Vec<i64>> =
            q.quants.iter().map(|(_, ty)| model.agent_types[*ty].ids().next().map(|a| a as i64)).collect();
        // A quantifier over an empty type makes the assumption vacuously true.
        let (true, Some(firsts)) = (all_forall, firsts) else { continue };
        let mut conjuncts = Vec::new();
        flatten_and(&q.body, &mut conjuncts);
        for c in conjuncts {
            let Some((owner, qvar)) = reads(model, bounds, c) else { continue };
            let bind = |qvar_value: Option<(usize, i64)>| {
                let mut qvars = firsts.clone();
                if let Some((i, a)) = qvar_value {
                    qvars[i] = a;
                }
                qvars
            };
            match qvar {
                None => {
                    let owner = owner.unwrap_or(Owner::Env);
                    out.push(LocalCheck { owner, body: c.clone(), qvars: bind(None) });
                }
                Some(i) => {
                    for a in model.agent_types[q.quants[i].1].ids() {
                        let owner = match owner {
                            None | Some(Owner::Agent(usize::MAX)) => Owner::Agent(a),
                            Some(o) => o,
                        };
                        out.push(LocalCheck { owner, body: c.clone(), qvars: bind(Some((i, a as i64))) });
                    }
                }
            }
        }
    }
    out
}

fn flatten_and<'b>(b: &'b BExpr, out: &mut Vec<&'b BExpr>) {
    match b {
        BExpr::And(x, y) => {
            flatten_and(x, out);
            flatten_and(y, out);
        }
        other => out.push(other),
    }
}

/// Whose varying initial values conjunct `c` reads and which quantified variable it uses:
/// `Some((owner, qvar))` when it reads at most one owner and uses at most one quantified
/// variable (`owner` `None`: it reads no varying value; `Agent(usize::MAX)`: the agent the
/// quantified variable names), `None` otherwise.
fn reads(model: &Model, bounds: &Bounds, c: &BExpr) -> Option<(Option<Owner>, Option<usize>)> {
    let mut qvars: Vec<usize> = Vec::new();
    let mut owners: Vec<Owner> = Vec::new();
    let mut other = false;
    let varies = |v: VarId| bounds.varies[v];
    c.walk_exprs(&mut |e| match e {
        Expr::QVar(i) => qvars.push(*i),
        Expr::Var(v) if varies(v.var) => match (model.vars[v.var].store, &v.owner) {
            (Store::Env, _) => owners.push(Owner::Env),
            (_, AgentRef::Of(o)) => match **o {
                Expr::QVar(_) => owners.push(Owner::Agent(usize::MAX)),
                Expr::Const(n) => owners.push(Owner::Agent(n as usize)),
                _ => other = true,
            },
            _ => other = true,
        },
        _ => {}
    });
    qvars.sort_unstable();
    qvars.dedup();
    owners.sort_unstable_by_key(|o| match o {
        Owner::Env => (0, 0),
        Owner::Agent(a) => (1, *a),
    });
    owners.dedup();
    if other || qvars.len() > 1 || owners.len() > 1 {
        return None;
    }
    let owner = owners.first().copied();
    // An owner named by the quantified variable needs that variable.
    if owner == Some(Owner::Agent(usize::MAX)) && qvars.is_empty() {
        return None;
    }
    Some((owner, qvars.first().copied()))
}
