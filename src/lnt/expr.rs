//! Printing resolved LAbS expressions as LNT expressions (fully parenthesised).
//!
//! Agent state is held in arrays: `I` (attributes), `L` (own stigmergic copies), `E` (the
//! environment, as read at `TICK`), `LOC` (block locals), all indexed by the model's slots.
//! Arithmetic follows `semantics.md` §7 through the helper functions of the program
//! (`lab_div`, `lab_mod`, `lab_rdiv`, `lab_abs`, `lab_min`, `lab_max`, `lab_ite`, `lab_chk`).
//! With ⊥ in the model, a comparison is conjoined with the definedness of its operands
//! (D10: a comparison with ⊥ on either side is false).

use super::EmitError;
use super::domains::int_lit;
use crate::model::{AgentRef, BExpr, Expr, Model, Store, VarId};
use crate::syntax::ast::{BinOp, CmpOp, MinMax};

/// Where an expression is evaluated, which decides what `x`, `x of c1`, `id`… denote.
#[derive(Clone, Copy, Debug)]
pub enum Scope<'a> {
    /// An agent's own step or initialiser.
    Agent,
    /// A link predicate evaluated by the receiver (`c2`, its own state) on a message of
    /// sender `s` (`c1`), whose variables arrive as the named fields `(var, element, name)`.
    Link { fields: &'a [(VarId, usize, String)] },
    /// The environment's initialiser.
    EnvInit,
}

pub struct Printer<'a> {
    pub model: &'a Model,
    pub scope: Scope<'a>,
    /// The nondeterministic choices `[a..b]` of the step: node address → LNT variable.
    pub nd: &'a [(*const Expr, String)],
    /// Whether the model has ⊥ values (definedness checks are needed).
    pub undef: bool,
    /// Reads of another agent's variable (`x of e`) in a step: node address → the LNT
    /// variable (`rv_k`) holding the value received with `TICK`.
    pub remote: &'a [(*const Expr, String)],
}

pub fn cmp_op(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "==",
        CmpOp::Ne => "!=",
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
    }
}

/// Row-major strides of an array's dimensions.
pub fn strides(dims: &[usize]) -> Vec<usize> {
    let mut out = vec![1; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        out[i] = out[i + 1] * dims[i + 1];
    }
    out
}

impl Printer<'_> {
    fn own_var_ok(&self, var: VarId, what: &str) -> Result<(), EmitError> {
        match self.scope {
            Scope::EnvInit if self.model.vars[var].store != Store::Env => Err(EmitError::unsupported(
                "an environment initialiser reading an agent variable",
                format!("`{}` {what}", self.model.vars[var].name),
            )),
            _ => Ok(()),
        }
    }

    /// The LNT array holding a variable for the current scope.
    fn array_of(&self, var: VarId) -> &'static str {
        match self.model.vars[var].store {
            Store::Env => "E",
            Store::Attr => "I",
            Store::Stig { .. } => "L",
        }
    }

    /// The Nat index (slot) of an element: a literal when the indices are constants in range,
    /// otherwise `IntToNat (off + lab_chk (i, d) * stride + …)` (out of range: run-time error).
    pub fn slot(&self, var: VarId, indices: &[Expr]) -> Result<String, EmitError> {
        let v = &self.model.vars[var];
        if indices.is_empty() {
            return Ok(v.offset.to_string());
        }
        let st = strides(&v.dims);
        let consts: Option<Vec<i64>> =
            indices.iter().map(|e| if let Expr::Const(c) = e { Some(*c) } else { None }).collect();
        if let Some(cs) = consts
            && cs.iter().zip(&v.dims).all(|(c, d)| *c >= 0 && (*c as usize) < *d)
        {
            let flat: usize = cs.iter().zip(&st).map(|(c, s)| *c as usize * s).sum();
            return Ok((v.offset + flat).to_string());
        }
        let mut parts = vec![v.offset.to_string()];
        for ((i, d), s) in indices.iter().zip(&v.dims).zip(&st) {
            let chk = format!("lab_chk ({}, {d})", self.expr(i)?);
            parts.push(if *s == 1 { chk } else { format!("({chk} * {s})") });
        }
        Ok(format!("IntToNat ({})", parts.join(" + ")))
    }

    /// An lvalue or rvalue for a variable element of the acting agent (or the environment).
    pub fn element(&self, var: VarId, indices: &[Expr]) -> Result<String, EmitError> {
        Ok(format!("{}[{}]", self.array_of(var), self.slot(var, indices)?))
    }

    /// The location of a variable element in the agent's stores, as `lab_own` reads it:
    /// attribute slots first, then stigmergic slots after the attributes.
    pub fn location(&self, var: VarId, indices: &[Expr]) -> Result<String, EmitError> {
        let slot = self.slot(var, indices)?;
        Ok(match self.model.vars[var].store {
            Store::Stig { .. } => match slot.parse::<usize>() {
                Ok(s) => (s + self.model.attr_len.max(1)).to_string(),
                Err(_) => format!("({} + {slot})", self.model.attr_len.max(1)),
            },
            _ => slot,
        })
    }

    fn agent_var(&self, node: &Expr, r: &crate::model::VarRef) -> Result<String, EmitError> {
        let m = self.model;
        let v = &m.vars[r.var];
        if v.store == Store::Env {
            if let Scope::Link { .. } = self.scope {
                return Err(EmitError::unsupported(
                    "an environment variable in a link predicate",
                    format!("`{}`", v.name),
                ));
            }
            return self.element(r.var, &r.indices);
        }
        if let (AgentRef::Of(_), Scope::Agent) = (&r.owner, self.scope)
            && let Some((_, name)) = self.remote.iter().find(|(q, _)| std::ptr::eq(*q, node))
        {
            return Ok(name.clone());
        }
        match (&r.owner, self.scope) {
            (AgentRef::Of(_), _) => Err(EmitError::unsupported(
                "reading another agent's variable (`x of e`) in a process",
                format!("`{}`: the compositional program only gives an agent its own state", v.name),
            )),
            (AgentRef::C1, Scope::Link { fields }) => {
                let k = match self.slot(r.var, &r.indices)?.parse::<usize>() {
                    Ok(s) => s - v.offset,
                    Err(_) => {
                        return Err(EmitError::unsupported(
                            "a sender array element with a non-constant index in a link predicate",
                            format!("`{} of c1`", v.name),
                        ));
                    }
                };
                fields
                    .iter()
                    .find(|(var, e, _)| *var == r.var && *e == k)
                    .map(|(_, _, n)| n.clone())
                    .ok_or_else(|| EmitError { message: format!("internal: no message field for `{}`", v.name) })
            }
            (AgentRef::C1 | AgentRef::C2, Scope::Agent | Scope::EnvInit) => {
                Err(EmitError::unsupported("`of c1`/`of c2` outside a link predicate", format!("`{}`", v.name)))
            }
            _ => {
                self.own_var_ok(r.var, "")?;
                self.element(r.var, &r.indices)
            }
        }
    }

    fn agent_id(&self, o: &AgentRef) -> Result<String, EmitError> {
        match (o, self.scope) {
            (AgentRef::Of(e), _) => self.expr(e),
            (_, Scope::EnvInit) => Err(EmitError::unsupported("`id` in an environment initialiser", "")),
            (AgentRef::C1, Scope::Link { .. }) => Ok("NatToInt (s)".into()),
            _ => Ok("NatToInt (id)".into()),
        }
    }

    pub fn expr(&self, e: &Expr) -> Result<String, EmitError> {
        Ok(match e {
            Expr::Const(v) => int_lit(*v),
            Expr::AgentId(o) => self.agent_id(o)?,
            Expr::Var(r) => self.agent_var(e, r)?,
            Expr::Local { slot, len, index } => match index.as_deref() {
                None => format!("LOC[{slot}]"),
                Some(Expr::Const(c)) if *c >= 0 && (*c as usize) < *len => format!("LOC[{}]", slot + *c as usize),
                Some(i) => format!("LOC[IntToNat ({slot} + lab_chk ({}, {len}))]", self.expr(i)?),
            },
            Expr::QVar(_) => {
                return Err(EmitError::unsupported("quantified variables outside properties", ""));
            }
            Expr::Neg(a) => format!("(- {})", self.expr(a)?),
            Expr::Abs(a) => format!("lab_abs ({})", self.expr(a)?),
            Expr::Bin(op, a, b) => {
                let (a, b) = (self.expr(a)?, self.expr(b)?);
                match op {
                    BinOp::Add => format!("({a} + {b})"),
                    BinOp::Sub => format!("({a} - {b})"),
                    BinOp::Mul => format!("({a} * {b})"),
                    BinOp::Div => format!("lab_div ({a}, {b})"),
                    BinOp::Mod => format!("lab_mod ({a}, {b})"),
                    BinOp::RDiv => format!("lab_rdiv ({a}, {b})"),
                }
            }
            Expr::MinMax(mm, a, b) => {
                let f = if *mm == MinMax::Min { "lab_min" } else { "lab_max" };
                format!("{f} ({}, {})", self.expr(a)?, self.expr(b)?)
            }
            Expr::If(c, a, b) => format!("lab_ite ({}, {}, {})", self.bexpr(c)?, self.expr(a)?, self.expr(b)?),
            Expr::NonDet(..) => {
                let p = e as *const Expr;
                self.nd
                    .iter()
                    .find(|(q, _)| *q == p)
                    .map(|(_, n)| n.clone())
                    .ok_or_else(|| EmitError::unsupported("`[a..b]` in this position", "initialisers and links"))?
            }
        })
    }

    /// The definedness of an expression (D10): conjuncts that hold iff it is not ⊥.
    pub fn def(&self, e: &Expr) -> Result<Vec<String>, EmitError> {
        let mut out = vec![];
        if self.undef {
            self.def_into(e, &mut out)?;
        }
        out.dedup();
        Ok(out)
    }

    /// The definedness an assignment of `e` needs (D10): a plain copy of a variable may copy ⊥,
    /// but its indices and its owner (`x[i]`, `x of a`) must be defined; any other value must
    /// be defined as a whole.
    pub fn copy_def(&self, e: &Expr) -> Result<Vec<String>, EmitError> {
        let mut out = vec![];
        if self.undef {
            match e {
                Expr::Var(r) => {
                    for i in &r.indices {
                        self.def_into(i, &mut out)?;
                    }
                    if let AgentRef::Of(a) = &r.owner {
                        self.def_into(a, &mut out)?;
                    }
                }
                Expr::Local { index, .. } => {
                    if let Some(i) = index {
                        self.def_into(i, &mut out)?;
                    }
                }
                _ => self.def_into(e, &mut out)?,
            }
        }
        out.dedup();
        Ok(out)
    }

    fn def_into(&self, e: &Expr, out: &mut Vec<String>) -> Result<(), EmitError> {
        match e {
            Expr::Const(_) | Expr::AgentId(_) | Expr::QVar(_) | Expr::NonDet(..) => {}
            Expr::Var(r) => {
                for i in &r.indices {
                    self.def_into(i, out)?;
                }
                if let AgentRef::Of(a) = &r.owner {
                    self.def_into(a, out)?;
                }
                let x = format!("({} != UNDEF)", self.agent_var(e, r)?);
                if !out.contains(&x) {
                    out.push(x);
                }
            }
            Expr::Local { index, .. } => {
                if let Some(i) = index {
                    self.def_into(i, out)?;
                }
                let x = format!("({} != UNDEF)", self.expr(e)?);
                if !out.contains(&x) {
                    out.push(x);
                }
            }
            Expr::Neg(a) | Expr::Abs(a) => self.def_into(a, out)?,
            Expr::Bin(_, a, b) | Expr::MinMax(_, a, b) => {
                self.def_into(a, out)?;
                self.def_into(b, out)?;
            }
            Expr::If(c, a, b) => {
                let (da, db) = (self.def(a)?, self.def(b)?);
                if !da.is_empty() || !db.is_empty() {
                    let c = self.bexpr(c)?;
                    out.push(format!("(({c} and {}) or ((not {c}) and {}))", conj(&da), conj(&db)));
                }
            }
        }
        Ok(())
    }

    /// A step's guard: `bexpr`, and the step is disabled (D10) when evaluating it left to
    /// right, with `and`/`or` short-circuiting, meets ⊥ where a definite value is needed (an
    /// index, an agent of `x of a`, a bound of `[a..b]`); a comparison with ⊥ is only false.
    pub fn guard(&self, b: &BExpr) -> Result<String, EmitError> {
        let val = self.bexpr(b)?;
        if !self.undef {
            return Ok(val);
        }
        let ok = self.bok(b)?;
        Ok(if ok == "true" { val } else { format!("({ok} and {val})") })
    }

    /// Evaluating `b` in a step does not meet ⊥ where a definite value is needed.
    fn bok(&self, b: &BExpr) -> Result<String, EmitError> {
        Ok(match b {
            BExpr::Const(_) => "true".into(),
            BExpr::Not(x) => self.bok(x)?,
            BExpr::Cmp(_, x, y) => all(vec![self.ok(x)?, self.ok(y)?]),
            BExpr::And(x, y) | BExpr::Or(x, y) => {
                let (ox, oy) = (self.bok(x)?, self.bok(y)?);
                if oy == "true" {
                    ox
                } else {
                    // `y` is evaluated only when `x` does not decide.
                    let vx = self.bexpr(x)?;
                    let decides = if matches!(b, BExpr::And(..)) { format!("(not {vx})") } else { vx };
                    all(vec![ox, format!("({decides} or {oy})")])
                }
            }
        })
    }

    /// Evaluating `e` in a step does not meet ⊥ where a definite value is needed.
    fn ok(&self, e: &Expr) -> Result<String, EmitError> {
        let defined = |x: &Expr| -> Result<String, EmitError> {
            let mut parts = vec![self.ok(x)?];
            parts.extend(self.def(x)?);
            Ok(all(parts))
        };
        let parts: Vec<String> = match e {
            Expr::Const(_) | Expr::QVar(_) => vec![],
            Expr::AgentId(r) => match r {
                AgentRef::Of(a) => vec![defined(a)?],
                _ => vec![],
            },
            Expr::Var(r) => {
                let mut v = vec![];
                if let AgentRef::Of(a) = &r.owner
                    && !matches!(self.model.vars[r.var].store, crate::model::Store::Env)
                {
                    v.push(defined(a)?);
                }
                for i in &r.indices {
                    v.push(defined(i)?);
                }
                v
            }
            Expr::Local { index, .. } => match index {
                Some(i) => vec![defined(i)?],
                None => vec![],
            },
            Expr::Neg(a) | Expr::Abs(a) => vec![self.ok(a)?],
            Expr::Bin(_, a, b) | Expr::MinMax(_, a, b) => vec![self.ok(a)?, self.ok(b)?],
            Expr::NonDet(a, b) => vec![defined(a)?, defined(b)?],
            Expr::If(c, a, b) => {
                let (oc, oa, ob) = (self.bok(c)?, self.ok(a)?, self.ok(b)?);
                if oa == "true" && ob == "true" {
                    vec![oc]
                } else {
                    let c = self.bexpr(c)?;
                    vec![oc, format!("(({c} and {oa}) or ((not {c}) and {ob}))")]
                }
            }
        };
        Ok(all(parts))
    }

    pub fn bexpr(&self, b: &BExpr) -> Result<String, EmitError> {
        Ok(match b {
            BExpr::Const(v) => v.to_string(),
            BExpr::Not(x) => format!("(not {})", self.bexpr(x)?),
            BExpr::Cmp(op, x, y) => {
                let c = format!("({} {} {})", self.expr(x)?, cmp_op(*op), self.expr(y)?);
                let mut d = self.def(x)?;
                for t in self.def(y)? {
                    if !d.contains(&t) {
                        d.push(t);
                    }
                }
                if d.is_empty() {
                    c
                } else {
                    d.push(c);
                    format!("({})", d.join(" and "))
                }
            }
            BExpr::And(x, y) => format!("({} and {})", self.bexpr(x)?, self.bexpr(y)?),
            BExpr::Or(x, y) => format!("({} or {})", self.bexpr(x)?, self.bexpr(y)?),
        })
    }
}

/// The conjunction of the parts that are not `true`.
fn all(parts: Vec<String>) -> String {
    let parts: Vec<String> = parts.into_iter().filter(|p| p != "true").collect();
    conj(&parts)
}

/// A conjunction of LNT Boolean expressions (`true` when empty).
pub fn conj(parts: &[String]) -> String {
    match parts.len() {
        0 => "true".into(),
        1 => parts[0].clone(),
        _ => format!("({})", parts.join(" and ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strides_row_major() {
        assert_eq!(strides(&[2, 3, 4]), vec![12, 4, 1]);
        assert_eq!(strides(&[5]), vec![1]);
    }

    #[test]
    fn conjunctions() {
        assert_eq!(conj(&[]), "true");
        assert_eq!(conj(&["a".into()]), "a");
        assert_eq!(conj(&["a".into(), "b".into()]), "(a and b)");
    }
}
