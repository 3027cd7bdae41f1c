//! Syntax tree + extern values → resolved model (the stage after `syntax`).
//!
//! The model is what every later stage consumes: agent types with their id ranges (D1),
//! variables with their store and layout, tuples, link predicates, resolved processes per
//! agent type, properties and assumptions. Nothing here refers back to names or the syntax
//! tree, except spans and names kept for messages and traces.

test_visible_mod!(arith);
pub(crate) mod expr;
pub mod externs;
pub(crate) mod print;
mod resolve;
pub mod scoped;

pub use expr::{AgentRef, BExpr, Expr, QPred, Rewrite, VarRef};
pub(crate) use expr::{StigId, TupleId, TypeId, VarId};
pub use resolve::{ResolveError, resolve};

use crate::syntax::ast::GuardKind;
use crate::syntax::span::Span;
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Store {
    /// Shared environment (`<--`).
    Env,
    /// Per-agent attribute (`<-`).
    Attr,
    /// Per-agent local copy of a stigmergic variable (`<~`), in tuple `tuple`.
    Stig { stigmergy: StigId, tuple: TupleId },
}

/// A resolved initialiser; its expressions may use `AgentRef::Own` ids (`id`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Init {
    Undef,
    Choice(Vec<Expr>),
    /// `a..b`: `a, …, b-1`.
    Range(Expr, Expr),
    Single(Expr),
}

#[derive(Clone, Debug)]
pub struct Variable {
    pub name: String,
    pub store: Store,
    /// Array dimensions (empty for scalars).
    pub(crate) dims: Vec<usize>,
    /// Product of `dims` (1 for scalars).
    pub(crate) len: usize,
    /// First slot in its store: the environment, the attribute array of every agent, or the
    /// stigmergic array of every agent (row-major for arrays).
    pub offset: usize,
    /// The initialiser, per declaring agent type for attributes (`None` key: environment and
    /// stigmergic variables, which have one declaration).
    pub(crate) inits: Vec<(Option<TypeId>, Init)>,
}

impl Variable {
    pub(crate) fn init_for(&self, ty: Option<TypeId>) -> Option<&Init> {
        self.inits.iter().find(|(t, _)| t.is_none() || *t == ty).map(|(_, i)| i)
    }

    /// `name[i]` / `name[i,j]` for element `k` of the variable, `name` for scalars.
    pub(crate) fn element_name(&self, k: usize) -> String {
        if self.dims.is_empty() {
            return self.name.clone();
        }
        let mut idx = Vec::with_capacity(self.dims.len());
        let mut rest = k;
        for d in self.dims.iter().rev() {
            idx.push(rest % d);
            rest /= d;
        }
        idx.reverse();
        let parts: Vec<String> = idx.iter().map(|i| i.to_string()).collect();
        format!("{}[{}]", self.name, parts.join(","))
    }
}

#[derive(Clone, Debug)]
pub struct Tuple {
    pub(crate) stigmergy: StigId,
    /// Its variables, in declaration order.
    pub vars: Vec<VarId>,
}

#[derive(Clone, Debug)]
pub struct Stigmergy {
    pub(crate) name: String,
    /// `link(c1 = sender, c2 = receiver)`.
    pub(crate) link: BExpr,
    pub(crate) tuples: Vec<TupleId>,
    pub(crate) span: Span,
}

#[derive(Clone, Debug)]
pub struct AgentType {
    pub name: String,
    /// Ids `first_id .. first_id + count` (D1: types laid out by byte-wise name order).
    pub first_id: usize,
    pub count: usize,
    /// Attributes declared by this type.
    pub(crate) attrs: Vec<VarId>,
    /// Stigmergies this type holds (listed, plus those it uses without listing: D7).
    pub(crate) stigmergies: Vec<StigId>,
    /// Process definitions visible to this type (its own, then the global ones), resolved in
    /// its context; the entry point is `Behavior`.
    pub(crate) processes: BTreeMap<String, ProcDef>,
    pub(crate) span: Span,
}

impl AgentType {
    pub fn ids(&self) -> std::ops::Range<usize> {
        self.first_id..self.first_id + self.count
    }
}

#[derive(Clone, Debug)]
pub(crate) struct ProcDef {
    pub(crate) body: Proc,
    pub(crate) span: Span,
}

/// A resolved process term.
#[derive(Clone, Debug)]
pub(crate) enum Proc {
    Par(Vec<Proc>),
    Choice(Vec<Proc>),
    Seq(Vec<Proc>),
    Guard {
        cond: BExpr,
        kind: GuardKind,
        body: Box<Proc>,
    },
    Skip,
    Nil,
    /// A call by name, resolved in the agent type's `processes`.
    Call(String, Span),
    Action(Action),
}

/// One atomic step of an agent.
#[derive(Clone, Debug)]
pub(crate) struct Action {
    pub(crate) kind: ActionKind,
    pub(crate) span: Span,
}

#[derive(Clone, Debug)]
pub(crate) enum ActionKind {
    /// Simultaneous assignment: all right-hand sides and indices in the pre-state.
    Assign(Assign),
    /// A block: statements in sequence, one atomic step; `locals` slots of temporaries.
    Block { stmts: Vec<Stmt>, locals: usize },
}

#[derive(Clone, Debug)]
pub(crate) struct Assign {
    pub(crate) targets: Vec<Target>,
    pub(crate) values: Vec<Expr>,
}

/// An assigned variable element (own copy; the store comes from the variable).
#[derive(Clone, Debug)]
pub(crate) struct Target {
    pub(crate) var: VarId,
    pub(crate) indices: Vec<Expr>,
}

#[derive(Clone, Debug)]
pub(crate) enum Stmt {
    Assign(Assign),
    /// `x, y := e1, e2`: simultaneous assignment of local slots.
    Local {
        slots: Vec<LocalTarget>,
        values: Vec<Expr>,
    },
    /// `p[] := pick k [T] [where φ]`: `k` distinct ids other than the picker's, into slots
    /// `slot .. slot + count`; `filter` uses `C1` = picker, `C2` = candidate.
    Pick {
        slot: usize,
        count: usize,
        agent_type: Option<TypeId>,
        filter: Option<BExpr>,
    },
    /// `b := forall/exists …, φ` (1 or 0).
    Quant {
        slot: usize,
        pred: QPred,
    },
    /// `c := count T x, φ`.
    Count {
        slot: usize,
        agent_type: TypeId,
        pred: BExpr,
    },
}

#[derive(Clone, Debug)]
pub(crate) struct LocalTarget {
    pub(crate) slot: usize,
    pub(crate) len: usize,
    pub(crate) index: Option<Expr>,
}

#[derive(Clone, Debug)]
pub enum Modality {
    Always,
    /// `finally` and `eventually` (identical here).
    Finally,
    Fairly,
    FairlyInf,
    Between {
        open: QPred,
        close: QPred,
        pattern: Pattern,
    },
    FromUntil {
        open: QPred,
        close: QPred,
        pattern: Pattern,
    },
    /// A linear-time formula that is none of the above (docs/semantics.md, D14); the
    /// property's `pred` is its first atom.
    Ltl(crate::syntax::ltl::Ltl<QPred>),
}

impl Property {
    /// Every state predicate the property reads: its predicate, a scope's and a pattern's, a
    /// formula's atoms.
    pub fn predicates(&self) -> Vec<&QPred> {
        let mut out = vec![&self.pred];
        match &self.modality {
            Modality::Between { open, close, pattern } | Modality::FromUntil { open, close, pattern } => {
                out.push(open);
                out.push(close);
                if let Pattern::Precedes(s) = pattern {
                    out.push(s);
                }
            }
            Modality::Ltl(f) => out.extend(f.atoms().into_iter().skip(1)),
            _ => {}
        }
        out
    }
}

#[derive(Clone, Debug)]
pub enum Pattern {
    ThereIs,
    Always,
    Precedes(QPred),
}

#[derive(Clone, Debug)]
pub struct Property {
    pub name: String,
    /// The keyword as written (`eventually` stays `eventually` in output).
    pub keyword: String,
    pub modality: Modality,
    pub pred: QPred,
    /// The source text of the property, for messages.
    pub text: String,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Assumption {
    pub(crate) name: String,
    pub(crate) pred: QPred,
}

#[derive(Clone, Debug)]
pub struct Model {
    /// Extern values actually given (with their leading underscore).
    pub(crate) externs: BTreeMap<String, i64>,
    /// Sorted by name (D1).
    pub agent_types: Vec<AgentType>,
    pub vars: Vec<Variable>,
    pub tuples: Vec<Tuple>,
    pub stigmergies: Vec<Stigmergy>,
    /// Slots of the environment, of each agent's attribute array and stigmergic array.
    pub env_len: usize,
    pub(crate) attr_len: usize,
    pub stig_len: usize,
    pub assumptions: Vec<Assumption>,
    pub properties: Vec<Property>,
}

impl Model {
    pub fn n_agents(&self) -> usize {
        self.agent_types.iter().map(|t| t.count).sum()
    }

    /// The type of agent `id`.
    pub fn type_of(&self, id: usize) -> TypeId {
        self.agent_types.iter().position(|t| t.ids().contains(&id)).expect("agent id out of range")
    }

    /// For the tests.
    #[cfg(feature = "test-support")]
    pub fn type_by_name(&self, name: &str) -> Option<TypeId> {
        self.agent_types.iter().position(|t| t.name == name)
    }

    /// Whether agents of type `ty` hold stigmergy `s` (D7).
    pub(crate) fn holds(&self, ty: TypeId, s: StigId) -> bool {
        self.agent_types[ty].stigmergies.contains(&s)
    }

    /// Whether agents of type `ty` have variable `var`: every type has the environment, a
    /// type its own attributes and the variables of the stigmergies it holds.
    pub(crate) fn type_has_var(&self, ty: TypeId, var: VarId) -> bool {
        match self.vars[var].store {
            Store::Env => true,
            Store::Attr => self.agent_types[ty].attrs.contains(&var),
            Store::Stig { stigmergy, .. } => self.holds(ty, stigmergy),
        }
    }
}
