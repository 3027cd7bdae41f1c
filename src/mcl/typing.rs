//! Typing and scoping of a parsed query, and its translation into the form `eval` runs: a
//! graph of positive formulas (negations pushed to the data predicates, fixed points dualised),
//! one-step modalities (regular formulas become fixed points), typed data expressions over
//! numbered slots, and fixed points grouped into blocks (the strongly connected components of
//! the call graph; a block mixing `mu` and `nu` is alternation, refused). Rules: docs/mcl.md.

use super::Located;
use super::ast::{ActId, BinOp, Expr, ExprKind, Name, Offer, Pattern, Reg, RegKind, Sign, Type};
use crate::syntax::span::Span;

pub(crate) type NodeId = u32;
pub(crate) type FixId = u32;

/// A typed data expression; slots index the environment (outer variables first).
#[derive(Clone, Debug)]
pub(crate) enum DExpr {
    Const(i64),
    Slot(u32),
    Not(Box<DExpr>),
    Neg(Box<DExpr>),
    Abs(Box<DExpr>),
    /// The operand type decides Nat (underflow is an error) or Int arithmetic.
    Arith(BinOp, Type, Box<DExpr>, Box<DExpr>),
    Cmp(BinOp, Box<DExpr>, Box<DExpr>),
    And(Vec<DExpr>),
    Or(Vec<DExpr>),
}

#[derive(Clone, Debug)]
pub(crate) enum Node {
    Const(bool),
    /// A Bool data expression.
    Data(DExpr),
    And(Vec<NodeId>),
    Or(Vec<NodeId>),
    /// One step: the environment is cut to `depth` slots, the action's bound values pushed.
    Diamond {
        act: ActId,
        depth: u32,
        target: NodeId,
    },
    Box {
        act: ActId,
        depth: u32,
        target: NodeId,
    },
    /// A fixed point (its definition or a recursive call): the environment becomes the first
    /// `outer` slots followed by the arguments.
    Call {
        fix: FixId,
        args: Vec<DExpr>,
    },
    /// `< R > @` (`exists`) or its dual `[ R ] -|`, with `R`'s automaton `loops[aut]`; its
    /// actions read the first `depth` slots of the environment.
    Loop {
        aut: u32,
        depth: u32,
        exists: bool,
    },
}

#[derive(Clone, Debug)]
pub(crate) struct Fix {
    pub(crate) name: String,
    pub(crate) span: Span,
    /// After dualisation under negation.
    pub(crate) sign: Sign,
    pub(crate) outer: u32,
    pub(crate) params: Vec<Type>,
    pub(crate) body: NodeId,
    pub(crate) block: u32,
}

#[derive(Clone, Debug)]
pub(crate) enum AOffer {
    Emit(DExpr, Type),
    Bind(Type),
    Any,
}

#[derive(Clone, Debug)]
pub(crate) enum Act {
    True,
    False,
    Label(String),
    /// Matches `gate` (case-insensitively) with these offers; binds go to slots `depth..`.
    Pattern {
        gate: String,
        offers: Vec<AOffer>,
        more: bool,
        guard: Option<DExpr>,
    },
    Not(ActId),
    And(Vec<ActId>),
    Or(Vec<ActId>),
}

/// A label in quotes or a pattern of the query, as written: what a label of an LTS needs for
/// the action to match it (`gates::unmatched_actions`).
#[derive(Clone, Debug)]
pub(crate) struct NamedAction {
    pub(crate) span: Span,
    pub(crate) gate: String,
    /// A label in quotes is compared exactly (gate included); a pattern's gate regardless of case.
    pub(crate) exact: bool,
    pub(crate) offers: usize,
    /// A pattern ending with `...`: `offers` or more.
    pub(crate) more: bool,
}

/// A parsed and typed query, ready for `evaluate`.
#[derive(Clone, Debug)]
pub struct Query {
    pub(crate) nodes: Vec<Node>,
    pub(crate) fixes: Vec<Fix>,
    pub(crate) acts: Vec<Act>,
    /// Whether an action reads the environment (else its match depends on the label only).
    pub(crate) act_reads_env: Vec<bool>,
    pub(crate) block_sign: Vec<Sign>,
    pub(crate) loops: Vec<super::looping::Loop>,
    pub(crate) root: NodeId,
    /// The labels in quotes and the patterns outside negations (in action formulas), once
    /// each, in the order of the text.
    pub(crate) named: Vec<NamedAction>,
}

pub(crate) fn check(formula: Expr) -> Result<Query, Vec<Located>> {
    let mut c = Checker {
        nodes: Vec::new(),
        fixes: Vec::new(),
        acts: Vec::new(),
        data: Vec::new(),
        fixvars: Vec::new(),
        loops: Vec::new(),
        named: Vec::new(),
        act_negated: false,
    };
    let root = c.formula(&formula, true).map_err(|e| vec![e])?;
    let (blocks, block_sign) = c.blocks().map_err(|e| vec![e])?;
    for (f, b) in c.fixes.iter_mut().zip(blocks) {
        f.block = b;
    }
    let act_reads_env = (0..c.acts.len()).map(|a| c.act_reads_env(a as ActId)).collect();
    let acts = c.acts.into_iter().map(|(a, _)| a).collect();
    let mut named = c.named;
    named.sort_by_key(|n| (n.span.start, n.span.end));
    named.dedup_by_key(|n| (n.span.start, n.span.end));
    Ok(Query { nodes: c.nodes, fixes: c.fixes, acts, act_reads_env, block_sign, loops: c.loops, root, named })
}

fn err(span: Span, message: impl Into<String>) -> Located {
    Located::new(span, message)
}

struct Checker {
    nodes: Vec<Node>,
    fixes: Vec<Fix>,
    /// Each action with the number of slots in scope where it occurs.
    acts: Vec<(Act, u32)>,
    /// Data variables in scope (slot = index).
    data: Vec<(String, Type)>,
    /// Fixed point variables in scope, with the polarity of their binder.
    fixvars: Vec<(String, FixId, bool)>,
    loops: Vec<super::looping::Loop>,
    /// Labels and patterns met outside negations (a regular formula repeated by `+` or `{n}`
    /// is typed again).
    named: Vec<NamedAction>,
    /// Whether the action formula being typed is under an odd number of `not` (the left side
    /// of `implies` counts as one).
    act_negated: bool,
}

type CResult<T> = Result<T, Located>;

fn dual(s: Sign) -> Sign {
    match s {
        Sign::Mu => Sign::Nu,
        Sign::Nu => Sign::Mu,
    }
}

fn sign_word(s: Sign) -> &'static str {
    match s {
        Sign::Mu => "mu",
        Sign::Nu => "nu",
    }
}

impl Checker {
    fn node(&mut self, n: Node) -> NodeId {
        self.nodes.push(n);
        (self.nodes.len() - 1) as NodeId
    }

    fn data_var(&self, name: &str) -> Option<(u32, Type)> {
        self.data.iter().rposition(|(n, _)| n == name).map(|i| (i as u32, self.data[i].1))
    }

    fn fix_var(&self, name: &str) -> Option<(FixId, bool)> {
        self.fixvars.iter().rev().find(|(n, _, _)| n == name).map(|&(_, f, p)| (f, p))
    }

    /// A data expression: no modality, fixed point or fixed point variable inside.
    fn is_data(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Bool(_) | ExprKind::Num(_) => true,
            ExprKind::Var(x) => self.fix_var(x).is_none(),
            ExprKind::Call(f, args) => {
                is_function(&f.text) && self.fix_var(&f.text).is_none() && args.iter().all(|a| self.is_data(a))
            }
            ExprKind::Diamond(..) | ExprKind::Box(..) | ExprKind::Loop(..) | ExprKind::Fix { .. } => false,
            ExprKind::Not(a) | ExprKind::Neg(a) => self.is_data(a),
            ExprKind::Bin(_, a, b) => self.is_data(a) && self.is_data(b),
            ExprKind::Chain(_, items) => items.iter().all(|i| self.is_data(i)),
        }
    }

    /// A name may not be a data variable and a fixed point variable at once (a bare `X`
    /// would be ambiguous).
    fn fresh_data(&self, n: &Name) -> CResult<()> {
        if self.fix_var(&n.text).is_some() {
            return Err(err(n.span, format!("`{}` is already a fixed point variable in this scope", n.text)));
        }
        Ok(())
    }

    // ---- state formulas ----

    fn formula(&mut self, e: &Expr, pos: bool) -> CResult<NodeId> {
        if self.is_data(e) {
            let d = self.data_expr(e, Some(Type::Bool))?.0;
            return Ok(match d {
                DExpr::Const(v) => self.node(Node::Const((v != 0) == pos)),
                d => self.node(Node::Data(if pos { d } else { DExpr::Not(Box::new(d)) })),
            });
        }
        match &e.kind {
            ExprKind::Not(a) => self.formula(a, !pos),
            ExprKind::Chain(op, items) => {
                let mut ids = Vec::with_capacity(items.len());
                for i in items {
                    ids.push(self.formula(i, pos)?);
                }
                let conj = (*op == BinOp::And) == pos;
                Ok(self.node(if conj { Node::And(ids) } else { Node::Or(ids) }))
            }
            ExprKind::Bin(BinOp::Implies, a, b) => {
                let (na, nb) = (self.formula(a, !pos)?, self.formula(b, pos)?);
                Ok(self.node(if pos { Node::Or(vec![na, nb]) } else { Node::And(vec![na, nb]) }))
            }
            ExprKind::Bin(op @ (BinOp::Equ | BinOp::Xor), a, b) => {
                // a equ b = (a and b) or (not a and not b); xor is its negation.
                let pos = pos == (*op == BinOp::Equ);
                let (a1, b1, a0, b0) =
                    (self.formula(a, true)?, self.formula(b, pos)?, self.formula(a, false)?, self.formula(b, !pos)?);
                let l = self.node(Node::And(vec![a1, b1]));
                let r = self.node(Node::And(vec![a0, b0]));
                Ok(self.node(Node::Or(vec![l, r])))
            }
            ExprKind::Bin(op, a, _) => {
                let bad = if self.is_data(a) { e } else { a };
                Err(err(
                    bad.span,
                    format!("the operands of `{}` must be data expressions, not state formulas", op.text()),
                ))
            }
            ExprKind::Neg(_) | ExprKind::Num(_) | ExprKind::Bool(_) => Err(err(e.span, "expected a state formula")),
            ExprKind::Diamond(r, f) | ExprKind::Box(r, f) => {
                let diamond = matches!(e.kind, ExprKind::Diamond(..)) == pos;
                self.modality(r, f, diamond, pos)
            }
            ExprKind::Loop(r, diamond) => {
                if let Some(span) = super::looping::binder(r) {
                    return Err(err(
                        span,
                        "a value bound inside the regular formula of `@` or `-|` cannot reach the next iteration: not supported",
                    ));
                }
                let aut = super::looping::Loop::build(r, &mut |a| self.act(a))?;
                self.loops.push(aut);
                let (aut, depth) = (self.loops.len() as u32 - 1, self.data.len() as u32);
                Ok(self.node(Node::Loop { aut, depth, exists: *diamond == pos }))
            }
            ExprKind::Var(x) => self.call(x, e.span, &[], pos),
            ExprKind::Call(x, args) => self.call(&x.text, x.span, args, pos),
            ExprKind::Fix { sign, name, params, body } => {
                let mut inits = Vec::with_capacity(params.len());
                let mut types = Vec::with_capacity(params.len());
                for p in params {
                    inits.push(self.data_expr(&p.init, Some(p.ty))?.0);
                    types.push(p.ty);
                }
                if self.data_var(&name.text).is_some() {
                    return Err(err(name.span, format!("`{}` is already a data variable in this scope", name.text)));
                }
                for (i, p) in params.iter().enumerate() {
                    self.fresh_data(&p.name)?;
                    if params[..i].iter().any(|q| q.name.text == p.name.text) {
                        return Err(err(p.name.span, format!("parameter `{}` is declared twice", p.name.text)));
                    }
                }
                let fix = self.fixes.len() as FixId;
                let sign = if pos { *sign } else { dual(*sign) };
                self.fixes.push(Fix {
                    name: name.text.clone(),
                    span: name.span,
                    sign,
                    outer: self.data.len() as u32,
                    params: types,
                    body: 0,
                    block: 0,
                });
                let (nd, nf) = (self.data.len(), self.fixvars.len());
                self.data.extend(params.iter().map(|p| (p.name.text.clone(), p.ty)));
                self.fixvars.push((name.text.clone(), fix, pos));
                let body = self.formula(body, pos);
                self.data.truncate(nd);
                self.fixvars.truncate(nf);
                self.fixes[fix as usize].body = body?;
                Ok(self.node(Node::Call { fix, args: inits }))
            }
        }
    }

    fn call(&mut self, x: &str, span: Span, args: &[Expr], pos: bool) -> CResult<NodeId> {
        let Some((fix, bpos)) = self.fix_var(x) else {
            return Err(if self.data_var(x).is_some() {
                err(span, format!("`{x}` is a data variable, not a fixed point variable"))
            } else {
                err(span, format!("unbound variable `{x}`"))
            });
        };
        if bpos != pos {
            return Err(err(
                span,
                format!("`{x}` occurs under an odd number of negations (fixed point variables must be monotone)"),
            ));
        }
        let params = self.fixes[fix as usize].params.clone();
        if params.len() != args.len() {
            return Err(err(span, format!("`{x}` takes {} argument(s), {} given", params.len(), args.len())));
        }
        let mut out = Vec::with_capacity(args.len());
        for (a, t) in args.iter().zip(params) {
            out.push(self.data_expr(a, Some(t))?.0);
        }
        Ok(self.node(Node::Call { fix, args: out }))
    }

    // ---- modalities and regular formulas ----

    /// The variables a regular formula binds for what follows it: those of an action pattern,
    /// through sequences only.
    fn exported(r: &Reg) -> Vec<(Name, Type)> {
        match &r.kind {
            RegKind::Pattern(p) => p
                .offers
                .iter()
                .filter_map(|o| match o {
                    Offer::Bind(n, t) => Some((n.clone(), *t)),
                    _ => None,
                })
                .collect(),
            RegKind::Seq(a, b) => {
                let mut v = Self::exported(a);
                v.extend(Self::exported(b));
                v
            }
            _ => Vec::new(),
        }
    }

    fn modality(&mut self, r: &Reg, f: &Expr, diamond: bool, pos: bool) -> CResult<NodeId> {
        let exp = Self::exported(r);
        let nd = self.data.len();
        self.data.extend(exp.iter().map(|(n, t)| (n.text.clone(), *t)));
        let target = self.formula(f, pos);
        self.data.truncate(nd);
        self.reg(r, diamond, target?)
    }

    /// `<r> target` (or `[r] target`) with the environment as it is now.
    fn reg(&mut self, r: &Reg, diamond: bool, target: NodeId) -> CResult<NodeId> {
        let depth = self.data.len() as u32;
        let combine = |ids: Vec<NodeId>| if diamond { Node::Or(ids) } else { Node::And(ids) };
        match &r.kind {
            RegKind::Nil => Ok(target),
            RegKind::Seq(a, b) => {
                let nd = self.data.len();
                self.data.extend(Self::exported(a).into_iter().map(|(n, t)| (n.text, t)));
                let rest = self.reg(b, diamond, target);
                self.data.truncate(nd);
                self.reg(a, diamond, rest?)
            }
            RegKind::Alt(a, b) => {
                let (na, nb) = (self.reg(a, diamond, target)?, self.reg(b, diamond, target)?);
                Ok(self.node(combine(vec![na, nb])))
            }
            RegKind::Star(a) => self.star(a, diamond, target, r.span),
            RegKind::Plus(a) => {
                let star = self.star(a, diamond, target, r.span)?;
                self.reg(a, diamond, star)
            }
            RegKind::Repeat(a, n) => {
                let mut t = target;
                for _ in 0..*n {
                    t = self.reg(a, diamond, t)?;
                }
                Ok(t)
            }
            _ => {
                let act = self.act(r)?;
                Ok(self.node(if diamond {
                    Node::Diamond { act, depth, target }
                } else {
                    Node::Box { act, depth, target }
                }))
            }
        }
    }

    /// `<a*> F = mu Z . F or <a> Z`, `[a*] F = nu Z . F and [a] Z`.
    fn star(&mut self, a: &Reg, diamond: bool, target: NodeId, span: Span) -> CResult<NodeId> {
        let fix = self.fixes.len() as FixId;
        let sign = if diamond { Sign::Mu } else { Sign::Nu };
        let outer = self.data.len() as u32;
        self.fixes.push(Fix { name: "(R*)".into(), span, sign, outer, params: Vec::new(), body: 0, block: 0 });
        let again = self.node(Node::Call { fix, args: Vec::new() });
        let step = self.reg(a, diamond, again)?;
        let body = self.node(if diamond { Node::Or(vec![target, step]) } else { Node::And(vec![target, step]) });
        self.fixes[fix as usize].body = body;
        Ok(again)
    }

    fn push_act(&mut self, a: Act) -> ActId {
        self.acts.push((a, self.data.len() as u32));
        (self.acts.len() - 1) as ActId
    }

    fn act(&mut self, r: &Reg) -> CResult<ActId> {
        let a = match &r.kind {
            RegKind::True => Act::True,
            RegKind::False => Act::False,
            RegKind::Label(s) => {
                if s != "i" && !self.act_negated {
                    let mut parts = s.split(" !");
                    let gate = parts.next().unwrap_or("").trim().to_string();
                    let offers = parts.count();
                    self.named.push(NamedAction { span: r.span, gate, exact: true, offers, more: false });
                }
                Act::Label(s.clone())
            }
            RegKind::Pattern(p) => {
                if !self.act_negated {
                    let (gate, offers, more) = (p.gate.text.clone(), p.offers.len(), p.more);
                    self.named.push(NamedAction { span: r.span, gate, exact: false, offers, more });
                }
                return self.pattern(p);
            }
            RegKind::Not(a) => Act::Not(self.negated_act(a)?),
            RegKind::And(items) | RegKind::Or(items) => {
                let mut ids = Vec::with_capacity(items.len());
                for i in items {
                    ids.push(self.act(i)?);
                }
                if matches!(r.kind, RegKind::And(_)) { Act::And(ids) } else { Act::Or(ids) }
            }
            RegKind::Implies(a, b) => {
                let na = self.negated_act(a)?;
                let not_a = self.push_act(Act::Not(na));
                Act::Or(vec![not_a, self.act(b)?])
            }
            _ => {
                return Err(err(
                    r.span,
                    "a regular formula cannot be an operand of an action operator (`not`, `and`, `or`, `implies`): use `|` and `.`",
                ));
            }
        };
        Ok(self.push_act(a))
    }

    /// `act` under one more negation: an action in it that matches nothing makes the whole
    /// match more, not nothing, so it is not among the `named` ones.
    fn negated_act(&mut self, r: &Reg) -> CResult<ActId> {
        self.act_negated = !self.act_negated;
        let a = self.act(r);
        self.act_negated = !self.act_negated;
        a
    }

    fn pattern(&mut self, p: &Pattern) -> CResult<ActId> {
        let nd = self.data.len();
        let mut offers = Vec::with_capacity(p.offers.len());
        let result = (|| {
            for o in &p.offers {
                offers.push(match o {
                    Offer::Emit(e) => {
                        let (d, t) = self.data_expr(e, None)?;
                        AOffer::Emit(d, t)
                    }
                    Offer::Bind(n, t) => {
                        self.fresh_data(n)?;
                        self.data.push((n.text.clone(), *t));
                        AOffer::Bind(*t)
                    }
                    Offer::Any => AOffer::Any,
                });
            }
            match &p.guard {
                Some(g) => Ok(Some(self.data_expr(g, Some(Type::Bool))?.0)),
                None => Ok(None),
            }
        })();
        self.data.truncate(nd);
        let guard = result?;
        Ok(self.push_act(Act::Pattern { gate: p.gate.text.clone(), offers, more: p.more, guard }))
    }

    fn act_reads_env(&self, a: ActId) -> bool {
        let (act, depth) = &self.acts[a as usize];
        match act {
            Act::True | Act::False | Act::Label(_) => false,
            Act::Not(b) => self.act_reads_env(*b),
            Act::And(v) | Act::Or(v) => v.iter().any(|b| self.act_reads_env(*b)),
            Act::Pattern { offers, guard, .. } => {
                offers.iter().any(|o| matches!(o, AOffer::Emit(d, _) if reads_below(d, *depth)))
                    || guard.as_ref().is_some_and(|g| reads_below(g, *depth))
            }
        }
    }

    // ---- blocks ----

    /// Block of each fixed point (the smallest fixed point of its strongly connected
    /// component of the call graph) and the sign of each block.
    fn blocks(&self) -> CResult<(Vec<u32>, Vec<Sign>)> {
        let n = self.fixes.len();
        let reach: Vec<Vec<bool>> = (0..n).map(|f| self.reachable_fixes(f)).collect();
        let mut block = vec![u32::MAX; n];
        let mut signs = Vec::new();
        for f in 0..n {
            if block[f] != u32::MAX {
                continue;
            }
            let id = signs.len() as u32;
            signs.push(self.fixes[f].sign);
            for g in f..n {
                if g == f || (reach[f][g] && reach[g][f]) {
                    if self.fixes[g].sign != self.fixes[f].sign {
                        let (m, v) = if self.fixes[f].sign == Sign::Mu { (f, g) } else { (g, f) };
                        return Err(err(
                            self.fixes[m].span,
                            format!(
                                "alternating fixed points: `{} {}` and `{} {}` depend on each other (only alternation-free formulas are supported)",
                                sign_word(self.fixes[m].sign),
                                self.fixes[m].name,
                                sign_word(self.fixes[v].sign),
                                self.fixes[v].name
                            ),
                        ));
                    }
                    block[g] = id;
                }
            }
        }
        Ok((block, signs))
    }

    /// The fixed points called (transitively) from the body of `f`.
    fn reachable_fixes(&self, f: usize) -> Vec<bool> {
        let mut seen_fix = vec![false; self.fixes.len()];
        let mut seen_node = vec![false; self.nodes.len()];
        let mut stack = vec![self.fixes[f].body];
        while let Some(n) = stack.pop() {
            if std::mem::replace(&mut seen_node[n as usize], true) {
                continue;
            }
            match &self.nodes[n as usize] {
                Node::Const(_) | Node::Data(_) | Node::Loop { .. } => {}
                Node::And(v) | Node::Or(v) => stack.extend(v),
                Node::Diamond { target, .. } | Node::Box { target, .. } => stack.push(*target),
                Node::Call { fix, .. } => {
                    if !std::mem::replace(&mut seen_fix[*fix as usize], true) {
                        stack.push(self.fixes[*fix as usize].body);
                    }
                }
            }
        }
        seen_fix
    }

    // ---- data expressions ----

    /// The type an expression has on its own, when it says (a numeral alone does not).
    fn hint(&self, e: &Expr) -> Option<Type> {
        match &e.kind {
            ExprKind::Bool(_) | ExprKind::Not(_) | ExprKind::Chain(..) => Some(Type::Bool),
            ExprKind::Num(_) => None,
            ExprKind::Var(x) => self.data_var(x).map(|(_, t)| t),
            ExprKind::Neg(_) => Some(Type::Int),
            ExprKind::Call(f, args) if is_function(&f.text) => args.first().and_then(|a| self.hint(a)),
            ExprKind::Bin(op, a, b) => match op {
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod => self.hint(a).or_else(|| self.hint(b)),
                _ => Some(Type::Bool),
            },
            _ => None,
        }
    }

    fn data_expr(&self, e: &Expr, want: Option<Type>) -> CResult<(DExpr, Type)> {
        let check = |got: Type| -> CResult<Type> {
            match want {
                Some(w) if w != got => Err(err(
                    e.span,
                    format!("expected {}, found {} (MCL does not convert between types)", w.name(), got.name()),
                )),
                _ => Ok(got),
            }
        };
        Ok(match &e.kind {
            ExprKind::Bool(b) => (DExpr::Const(*b as i64), check(Type::Bool)?),
            ExprKind::Num(n) => {
                let t = match want {
                    Some(Type::Bool) => return Err(err(e.span, "expected Bool, found a number")),
                    Some(t) => t,
                    None => Type::Nat,
                };
                (DExpr::Const(*n as i64), t)
            }
            ExprKind::Var(x) => match self.data_var(x) {
                Some((slot, t)) => (DExpr::Slot(slot), check(t)?),
                None if self.fix_var(x).is_some() => {
                    return Err(err(e.span, format!("fixed point variable `{x}` used as a data expression")));
                }
                None => return Err(err(e.span, format!("unbound variable `{x}`"))),
            },
            ExprKind::Not(a) => (DExpr::Not(Box::new(self.data_expr(a, Some(Type::Bool))?.0)), check(Type::Bool)?),
            ExprKind::Neg(a) => {
                let t = check(Type::Int).map_err(|_| err(e.span, "unary `-` gives an Int"))?;
                (DExpr::Neg(Box::new(self.data_expr(a, Some(Type::Int))?.0)), t)
            }
            ExprKind::Chain(op, items) => {
                let t = check(Type::Bool)?;
                let mut v = Vec::with_capacity(items.len());
                for i in items {
                    v.push(self.data_expr(i, Some(Type::Bool))?.0);
                }
                (if *op == BinOp::And { DExpr::And(v) } else { DExpr::Or(v) }, t)
            }
            ExprKind::Bin(op, a, b) => match op {
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod => {
                    let t = match want {
                        Some(Type::Bool) => {
                            return Err(err(
                                e.span,
                                format!("expected Bool, found an arithmetic expression (`{}`)", op.text()),
                            ));
                        }
                        Some(t) => t,
                        None => self.hint(a).or_else(|| self.hint(b)).unwrap_or(Type::Nat),
                    };
                    if t == Type::Bool {
                        return Err(err(e.span, format!("`{}` needs Nat or Int operands", op.text())));
                    }
                    let (da, _) = self.data_expr(a, Some(t))?;
                    let (db, _) = self.data_expr(b, Some(t))?;
                    (DExpr::Arith(*op, t, Box::new(da), Box::new(db)), t)
                }
                BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                    let rt = check(Type::Bool)?;
                    let t = self.hint(a).or_else(|| self.hint(b)).unwrap_or(Type::Nat);
                    if t == Type::Bool && !matches!(op, BinOp::Eq | BinOp::Ne) {
                        return Err(err(e.span, format!("`{}` compares numbers, not Bool values", op.text())));
                    }
                    let (da, _) = self.data_expr(a, Some(t))?;
                    let (db, _) = self.data_expr(b, Some(t))?;
                    (DExpr::Cmp(*op, Box::new(da), Box::new(db)), rt)
                }
                BinOp::Implies | BinOp::Equ | BinOp::Xor | BinOp::And | BinOp::Or => {
                    let rt = check(Type::Bool)?;
                    let (da, _) = self.data_expr(a, Some(Type::Bool))?;
                    let (db, _) = self.data_expr(b, Some(Type::Bool))?;
                    let d = match op {
                        BinOp::Implies => DExpr::Or(vec![DExpr::Not(Box::new(da)), db]),
                        BinOp::Equ => DExpr::Cmp(BinOp::Eq, Box::new(da), Box::new(db)),
                        BinOp::Xor => DExpr::Cmp(BinOp::Ne, Box::new(da), Box::new(db)),
                        BinOp::And => DExpr::And(vec![da, db]),
                        _ => DExpr::Or(vec![da, db]),
                    };
                    (d, rt)
                }
            },
            ExprKind::Call(f, args) if is_function(&f.text) && self.fix_var(&f.text).is_none() => {
                if args.len() != 1 {
                    return Err(err(f.span, format!("`{}` takes 1 argument, {} given", f.text, args.len())));
                }
                let t = match want {
                    Some(Type::Bool) => return Err(err(e.span, "expected Bool, found `abs`")),
                    Some(t) => t,
                    None => self.hint(&args[0]).unwrap_or(Type::Int),
                };
                (DExpr::Abs(Box::new(self.data_expr(&args[0], Some(t))?.0)), t)
            }
            ExprKind::Call(..)
            | ExprKind::Diamond(..)
            | ExprKind::Box(..)
            | ExprKind::Loop(..)
            | ExprKind::Fix { .. } => {
                return Err(err(e.span, "a state formula cannot be used as a data expression"));
            }
        })
    }
}

/// Whether `d` reads a slot below `depth` (the environment outside an action pattern).
fn reads_below(d: &DExpr, depth: u32) -> bool {
    match d {
        DExpr::Const(_) => false,
        DExpr::Slot(s) => *s < depth,
        DExpr::Not(a) | DExpr::Neg(a) | DExpr::Abs(a) => reads_below(a, depth),
        DExpr::Arith(_, _, a, b) | DExpr::Cmp(_, a, b) => reads_below(a, depth) || reads_below(b, depth),
        DExpr::And(v) | DExpr::Or(v) => v.iter().any(|x| reads_below(x, depth)),
    }
}

/// The predefined data functions supported (`abs`, on Nat or Int).
fn is_function(name: &str) -> bool {
    name.eq_ignore_ascii_case("abs")
}
