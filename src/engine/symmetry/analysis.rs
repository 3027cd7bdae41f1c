//! Which agents are interchangeable: a syntactic analysis of the behaviours, the link
//! predicates and the properties (docs/reductions.md gives the argument).
//!
//! An *agent expression* denotes an agent: `id`, `id of c1`, a quantified agent, a picked
//! agent. Permuting the agents of a type maps the states of a system to states of the same
//! system, and its steps to steps, as long as an agent expression of that type is only ever
//! used to name whose variable is read (`x of e`) or compared for equality with another agent
//! expression (a permutation is a bijection). Any other use (arithmetic, an order, an index,
//! a stored value) and any agent named by a constant or a computed number break the symmetry
//! of the types concerned. Initialisers and assumptions only choose the initial states, which
//! the reduction canonicalises, so they may use ids freely.

use crate::behaviour::{Behaviour, Step};
use crate::model::{ActionKind, AgentRef, BExpr, Expr, Model, QPred, Stmt, TypeId};
use crate::syntax::ast::CmpOp;
use crate::syntax::span::Span;

/// Why agents of a type are not interchangeable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Asymmetry {
    pub text: String,
    /// Where, when one place is to blame.
    pub(crate) span: Option<Span>,
}

/// A set of agent types (by id), as a bit set: few types per model.
type Types = Vec<bool>;

/// Where an expression is: what `id`, `c1`, `c2`, quantified and picked agents stand for.
struct Ctx<'a> {
    /// The acting agent's type (behaviours only).
    own: Option<TypeId>,
    c1: Types,
    c2: Types,
    /// The type of each quantified agent in scope.
    quants: Vec<TypeId>,
    /// Per block-local slot, the types of the agent it holds at this point of the block
    /// (written by `pick` or copied from an agent expression); `None`: it holds a number.
    slots: Vec<Option<Types>>,
    /// What is being read, for messages (`the behaviour of Bird`).
    place: &'a str,
    span: Option<Span>,
}

impl<'a> Ctx<'a> {
    /// Local slots `slot .. slot + len` now hold an agent of these types (`None`: a number).
    fn hold(&mut self, slot: usize, len: usize, held: Option<Types>) {
        for s in &mut self.slots[slot..slot + len] {
            *s = held.clone();
        }
    }

    /// The same place, inside a quantifier over agents of these types.
    fn quantifying(&self, quants: Vec<TypeId>) -> Ctx<'a> {
        Ctx {
            own: self.own,
            c1: self.c1.clone(),
            c2: self.c2.clone(),
            quants,
            slots: self.slots.clone(),
            place: self.place,
            span: self.span,
        }
    }
}

struct Finder<'m> {
    model: &'m Model,
    /// Per type: the reasons found so far.
    broken: Vec<Vec<Asymmetry>>,
}

impl Finder<'_> {
    fn all(&self) -> Types {
        vec![true; self.model.agent_types.len()]
    }

    fn one(&self, t: TypeId) -> Types {
        let mut v = vec![false; self.model.agent_types.len()];
        v[t] = true;
        v
    }

    fn blame(&mut self, types: &Types, text: String, span: Option<Span>) {
        for (t, &hit) in types.iter().enumerate() {
            let reasons = &mut self.broken[t];
            if hit && !reasons.iter().any(|r| r.text == text && r.span == span) {
                reasons.push(Asymmetry { text: text.clone(), span });
            }
        }
    }

    /// The types an agent expression may denote; `None` if `e` is not one.
    fn agent_types(&self, e: &Expr, cx: &Ctx) -> Option<Types> {
        match e {
            Expr::AgentId(AgentRef::Own) => cx.own.map(|t| self.one(t)),
            Expr::AgentId(AgentRef::C1) => Some(cx.c1.clone()),
            Expr::AgentId(AgentRef::C2) => Some(cx.c2.clone()),
            Expr::AgentId(AgentRef::Of(inner)) => self.agent_types(inner, cx),
            Expr::QVar(i) => cx.quants.get(*i).map(|&t| self.one(t)),
            Expr::Local { slot, len, .. } => {
                // A local is always written whole, so its slots agree; any of them tells.
                let mut types = None::<Types>;
                for held in cx.slots.get(*slot..slot + len)? {
                    let held = held.as_ref()?;
                    types = Some(match types {
                        None => held.clone(),
                        Some(t) => t.iter().zip(held).map(|(a, b)| *a || *b).collect(),
                    });
                }
                types
            }
            _ => None,
        }
    }

    /// Whether `e` is `[a..b]` over the ids of whole types: `x of [a..b]` reads a random agent
    /// of those types, a set every permutation of a type maps to itself.
    fn whole_types_choice(&self, e: &Expr) -> bool {
        let Expr::NonDet(a, b) = e else { return false };
        let (Some(a), Some(b)) = (constant(a), constant(b)) else { return false };
        let types = &self.model.agent_types;
        a < b && types.iter().any(|t| t.first_id as i64 == a) && types.iter().any(|t| t.ids().end as i64 == b)
    }

    fn expr(&mut self, e: &Expr, cx: &Ctx, as_agent: bool) {
        if !as_agent && let Some(types) = self.agent_types(e, cx) {
            let what = crate::model::print::expr(self.model, e);
            self.blame(&types, format!("{} uses the agent `{what}` as a number", cx.place), cx.span);
        }
        match e {
            Expr::Const(_) | Expr::QVar(_) => {}
            Expr::AgentId(owner) => self.owner(owner, cx),
            Expr::Var(v) => {
                for i in &v.indices {
                    self.expr(i, cx, false);
                }
                self.owner(&v.owner, cx);
            }
            Expr::Local { index, .. } => {
                if let Some(i) = index {
                    self.expr(i, cx, false);
                }
            }
            Expr::Neg(a) | Expr::Abs(a) => self.expr(a, cx, false),
            Expr::Bin(_, a, b) | Expr::MinMax(_, a, b) | Expr::NonDet(a, b) => {
                self.expr(a, cx, false);
                self.expr(b, cx, false);
            }
            Expr::If(c, a, b) => {
                self.bexpr(c, cx);
                self.expr(a, cx, false);
                self.expr(b, cx, false);
            }
        }
    }

    /// `x of e`: `e` must be an agent expression.
    fn owner(&mut self, owner: &AgentRef, cx: &Ctx) {
        let AgentRef::Of(e) = owner else { return };
        if self.agent_types(e, cx).is_some() {
            self.expr(e, cx, true);
            return;
        }
        if self.whole_types_choice(e) {
            return;
        }
        if let Expr::Const(k) = **e
            && k >= 0
            && (k as usize) < self.model.n_agents()
        {
            let t = self.model.type_of(k as usize);
            self.blame(&self.one(t), format!("{} names agent {k}", cx.place), cx.span);
            return;
        }
        let what = crate::model::print::expr(self.model, e);
        self.blame(&self.all(), format!("{} reads a variable of the agent numbered `{what}`", cx.place), cx.span);
        self.expr(e, cx, false);
    }

    fn bexpr(&mut self, b: &BExpr, cx: &Ctx) {
        match b {
            BExpr::Const(_) => {}
            BExpr::Not(a) => self.bexpr(a, cx),
            BExpr::And(a, c) | BExpr::Or(a, c) => {
                self.bexpr(a, cx);
                self.bexpr(c, cx);
            }
            BExpr::Cmp(op, a, c) => {
                // Equality of two agents is preserved by any permutation.
                let agents = matches!(op, CmpOp::Eq | CmpOp::Ne)
                    && self.agent_types(a, cx).is_some()
                    && self.agent_types(c, cx).is_some();
                self.expr(a, cx, agents);
                self.expr(c, cx, agents);
            }
        }
    }

    fn qpred(&mut self, q: &QPred, place: &str, span: Span) {
        let none = vec![false; self.model.agent_types.len()];
        let cx = Ctx {
            own: None,
            c1: none.clone(),
            c2: none,
            quants: q.quants.iter().map(|&(_, t)| t).collect(),
            slots: Vec::new(),
            place,
            span: Some(span),
        };
        self.bexpr(&q.body, &cx);
    }

    fn behaviour(&mut self, ty: TypeId, b: &Behaviour) {
        let place = format!("the behaviour of {}", self.model.agent_types[ty].name);
        let none = vec![false; self.model.agent_types.len()];
        for e in b.edges.iter().flatten() {
            let span = match &e.step {
                Step::Act(a) => Some(a.span),
                Step::Skip => None,
            };
            let locals = match &e.step {
                Step::Act(a) => match &a.kind {
                    ActionKind::Block { locals, .. } => *locals,
                    ActionKind::Assign(_) => 0,
                },
                Step::Skip => 0,
            };
            let mut cx = Ctx {
                own: Some(ty),
                c1: none.clone(),
                c2: none.clone(),
                quants: vec![],
                slots: vec![None; locals],
                place: &place,
                span,
            };
            for g in &e.guards {
                self.bexpr(g, &cx);
            }
            let Step::Act(a) = &e.step else { continue };
            match &a.kind {
                ActionKind::Assign(asg) => self.assign(asg, &cx),
                ActionKind::Block { stmts, .. } => {
                    for s in stmts {
                        self.stmt(ty, s, &mut cx);
                    }
                }
            }
        }
    }

    fn assign(&mut self, a: &crate::model::Assign, cx: &Ctx) {
        for t in &a.targets {
            for i in &t.indices {
                self.expr(i, cx, false);
            }
        }
        for v in &a.values {
            self.expr(v, cx, false);
        }
    }

    /// Every statement kind writes its whole local: the slots' contents follow each write.
    fn stmt(&mut self, ty: TypeId, s: &Stmt, cx: &mut Ctx) {
        match s {
            Stmt::Assign(a) => self.assign(a, cx),
            Stmt::Local { slots, values } => {
                // Simultaneous: every value is read before any local is written.
                let held: Vec<Option<Types>> = values
                    .iter()
                    .map(|v| {
                        let agent = self.agent_types(v, cx);
                        self.expr(v, cx, agent.is_some());
                        agent
                    })
                    .collect();
                for (t, h) in slots.iter().zip(held) {
                    cx.hold(t.slot, t.len, h);
                }
            }
            Stmt::Pick { slot, count, agent_type, filter } => {
                let cands = agent_type.map_or_else(|| self.all(), |t| self.one(t));
                if let Some(f) = filter {
                    let fcx = Ctx {
                        own: Some(ty),
                        c1: self.one(ty),
                        c2: cands.clone(),
                        quants: vec![],
                        slots: cx.slots.clone(),
                        place: cx.place,
                        span: cx.span,
                    };
                    self.bexpr(f, &fcx);
                }
                cx.hold(*slot, *count, Some(cands));
            }
            Stmt::Quant { slot, pred } => {
                self.bexpr(&pred.body, &cx.quantifying(pred.quants.iter().map(|&(_, t)| t).collect()));
                cx.hold(*slot, 1, None);
            }
            Stmt::Count { slot, agent_type, pred } => {
                self.bexpr(pred, &cx.quantifying(vec![*agent_type]));
                cx.hold(*slot, 1, None);
            }
        }
    }
}

/// The value of a closed constant expression (extern arithmetic like `_yes + _no`).
fn constant(e: &Expr) -> Option<i64> {
    use crate::model::arith;
    match e {
        Expr::Const(k) => Some(*k),
        Expr::Neg(a) => arith::neg(constant(a)?).ok(),
        Expr::Bin(op, a, b) => arith::binary(*op, constant(a)?, constant(b)?).ok(),
        _ => None,
    }
}

/// Per agent type, why its agents are not interchangeable (empty: they are), looking at
/// every behaviour, link predicate and property of the model.
pub(crate) fn asymmetries(model: &Model, behs: &[Behaviour]) -> Vec<Vec<Asymmetry>> {
    let mut f = Finder { model, broken: vec![Vec::new(); model.agent_types.len()] };
    for (t, b) in behs.iter().enumerate() {
        f.behaviour(t, b);
    }
    for (si, s) in model.stigmergies.iter().enumerate() {
        let holders: Types = (0..model.agent_types.len()).map(|t| model.holds(t, si)).collect();
        let place = format!("the link predicate of {}", s.name);
        let cx = Ctx {
            own: None,
            c1: holders.clone(),
            c2: holders,
            quants: vec![],
            slots: vec![],
            place: &place,
            span: Some(s.span),
        };
        f.bexpr(&s.link, &cx);
    }
    for p in &model.properties {
        let place = format!("property {}", p.name);
        for q in p.predicates() {
            f.qpred(q, &place, p.span);
        }
    }
    f.broken
}
