//! Process terms → control-state automata.
//!
//! First the agent's `Behavior` is expanded into a tree of nodes: calls that are not
//! recursive are inlined, a call to a process under expansion becomes a jump to its entry.
//! Then the reachable control states are enumerated from the entry: a control state is a
//! node about to run, or a parallel composition with the control state of each branch still
//! running. The moves of a control state are derived structurally, conjoining guards with the
//! first action they guard (docs/semantics.md, "Steps in detail").

use super::{Behaviour, CtlId, Edge, Step};
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::model::{
    Action, ActionKind, AgentRef, Assign, BExpr, Expr, Model, Proc, Stmt, Store, TupleId, TypeId, VarRef,
};
use crate::syntax::ast::GuardKind;
use crate::syntax::span::Span;
use std::collections::{BTreeSet, HashMap, VecDeque};

#[derive(Clone, Debug)]
pub(crate) struct CompileError {
    pub(crate) message: String,
    pub(crate) span: Span,
}

impl CompileError {
    pub(crate) fn into_diagnostic(self) -> Diagnostic {
        Diagnostic::error(self.span, self.message)
    }
}

/// Limits that keep compilation finite on pathological specifications.
const MAX_NODES: usize = 200_000;
const MAX_CONTROL_STATES: usize = 200_000;

type NodeId = usize;

#[derive(Clone, Debug)]
enum Node {
    Seq(Vec<NodeId>),
    Choice(Vec<NodeId>),
    Par(Vec<NodeId>),
    Guard {
        cond: BExpr,
        kind: GuardKind,
        body: NodeId,
    },
    Skip,
    Nil,
    Act(Action),
    /// A recursive call: a jump to the entry of the named process (an `Entry` node).
    Jump {
        entry: NodeId,
        name: String,
        span: Span,
    },
    /// The entry of an inlined process body.
    Entry {
        body: NodeId,
    },
}

/// What follows a node once it has completed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Next {
    Node(NodeId),
    /// The enclosing parallel branch (or the whole behaviour) completes.
    ScopeEnd,
}

/// A move: conjoined guards, the step, and the next state (`None`: the scope completes).
type Move = (Vec<BExpr>, Step, Option<Ctl>);

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Ctl {
    At(NodeId),
    /// A parallel composition under way: each branch's state, `None` once terminated.
    Par(NodeId, Vec<Option<Ctl>>),
    Terminated,
}

struct Tree<'m> {
    model: &'m Model,
    ty: TypeId,
    nodes: Vec<Node>,
    next: Vec<Next>,
    /// The innermost parallel branch each node belongs to: (par node, branch), or None.
    scope: Vec<Option<(NodeId, usize)>>,
    warnings: Vec<Diagnostic>,
}

/// Compiles every agent type; errors and warnings as located diagnostics.
pub fn compile_all(model: &Model) -> Result<(Vec<Behaviour>, Diagnostics), Diagnostics> {
    let mut out = vec![];
    let mut diags = Diagnostics::default();
    for ty in 0..model.agent_types.len() {
        match compile_with_warnings(model, ty) {
            Ok((b, w)) => {
                out.push(b);
                diags.items.extend(w);
            }
            Err(e) => diags.push(e.into_diagnostic()),
        }
    }
    if diags.has_errors() { Err(diags) } else { Ok((out, diags)) }
}

pub(crate) fn compile_with_warnings(model: &Model, ty: TypeId) -> Result<(Behaviour, Vec<Diagnostic>), CompileError> {
    let agent = &model.agent_types[ty];
    let Some(def) = agent.processes.get("Behavior") else {
        return Err(CompileError { message: format!("agent `{}` has no `Behavior`", agent.name), span: agent.span });
    };
    let mut t = Tree { model, ty, nodes: vec![], next: vec![], scope: vec![], warnings: vec![] };
    let root = t.alloc(Node::Nil);
    let mut stack = vec![("Behavior".to_string(), root)];
    let body = t.expand(&def.body, &mut stack)?;
    t.nodes[root] = Node::Entry { body };
    t.next = vec![Next::ScopeEnd; t.nodes.len()];
    t.scope = vec![None; t.nodes.len()];
    t.link(root, Next::ScopeEnd, None)?;
    let behaviour = t.enumerate(root)?;
    Ok((behaviour, t.warnings))
}

impl Tree<'_> {
    fn alloc(&mut self, n: Node) -> NodeId {
        self.nodes.push(n);
        self.nodes.len() - 1
    }

    fn expand(&mut self, p: &Proc, stack: &mut Vec<(String, NodeId)>) -> Result<NodeId, CompileError> {
        if self.nodes.len() > MAX_NODES {
            return Err(CompileError {
                message: format!(
                    "the behaviour of `{}` is too large once calls are inlined",
                    self.model.agent_types[self.ty].name
                ),
                span: self.model.agent_types[self.ty].span,
            });
        }
        let node = match p {
            Proc::Seq(items) => {
                let mut ids = vec![];
                for (i, item) in items.iter().enumerate() {
                    let id = self.expand(item, stack)?;
                    ids.push(id);
                    if let Node::Jump { name, span, .. } = &self.nodes[id]
                        && i + 1 < items.len()
                    {
                        self.warnings.push(Diagnostic::warning(
                            *span,
                            format!("the call to `{name}` jumps back to its start: what follows is unreachable"),
                        ));
                        break;
                    }
                }
                Node::Seq(ids)
            }
            Proc::Choice(items) => Node::Choice(items.iter().map(|x| self.expand(x, stack)).collect::<Result<_, _>>()?),
            Proc::Par(items) => Node::Par(items.iter().map(|x| self.expand(x, stack)).collect::<Result<_, _>>()?),
            Proc::Guard { cond, kind, body } => {
                let body = self.expand(body, stack)?;
                Node::Guard { cond: cond.clone(), kind: kind.clone(), body }
            }
            Proc::Skip => Node::Skip,
            Proc::Nil => Node::Nil,
            Proc::Action(a) => Node::Act(a.clone()),
            Proc::Call(name, span) => {
                if let Some(&(_, entry)) = stack.iter().find(|(n, _)| n == name) {
                    Node::Jump { entry, name: name.clone(), span: *span }
                } else {
                    let def = &self.model.agent_types[self.ty].processes[name];
                    let entry = self.alloc(Node::Nil);
                    stack.push((name.clone(), entry));
                    let body = self.expand(&def.body, stack);
                    stack.pop();
                    self.nodes[entry] = Node::Entry { body: body? };
                    return Ok(entry);
                }
            }
        };
        Ok(self.alloc(node))
    }

    /// Fills `next` and `scope` for the subtree at `n`.
    fn link(&mut self, n: NodeId, next: Next, scope: Option<(NodeId, usize)>) -> Result<(), CompileError> {
        self.next[n] = next;
        self.scope[n] = scope;
        match self.nodes[n].clone() {
            Node::Seq(items) => {
                for (i, &c) in items.iter().enumerate() {
                    let nx = items.get(i + 1).map_or(next, |&m| Next::Node(m));
                    self.link(c, nx, scope)?;
                }
            }
            Node::Choice(items) => {
                for c in items {
                    self.link(c, next, scope)?;
                }
            }
            Node::Par(items) => {
                for (i, c) in items.into_iter().enumerate() {
                    self.link(c, Next::ScopeEnd, Some((n, i)))?;
                }
            }
            Node::Guard { body, .. } | Node::Entry { body } => self.link(body, next, scope)?,
            Node::Skip | Node::Nil | Node::Act(_) | Node::Jump { .. } => {}
        }
        Ok(())
    }

    /// The control state at the start of node `n`; `seen` detects jumps without a step.
    fn start(&self, n: NodeId, seen: &mut Vec<NodeId>) -> Result<Ctl, CompileError> {
        match &self.nodes[n] {
            Node::Seq(items) => self.start(items[0], seen),
            Node::Entry { body } => self.start(*body, seen),
            Node::Jump { entry, name, span } => {
                if self.scope[*entry] != self.scope[n] {
                    return Err(CompileError {
                        message: format!("the call to `{name}` inside a parallel branch would jump out of the branch"),
                        span: *span,
                    });
                }
                if seen.contains(entry) {
                    return Err(CompileError {
                        message: format!("`{name}` calls itself without taking a step"),
                        span: *span,
                    });
                }
                seen.push(*entry);
                self.start(*entry, seen)
            }
            Node::Par(items) => {
                let mut bs = vec![];
                for &b in items {
                    bs.push(Some(self.start(b, seen)?));
                }
                Ok(Ctl::Par(n, bs))
            }
            _ => Ok(Ctl::At(n)),
        }
    }

    /// The control state after node `n` completes (`None`: its scope completes).
    fn after(&self, n: NodeId) -> Result<Option<Ctl>, CompileError> {
        match self.next[n] {
            Next::Node(m) => self.start(m, &mut vec![]).map(Some),
            Next::ScopeEnd => Ok(None),
        }
    }

    /// The moves from `c`: (guards, step, next state or `None` when its scope completes).
    fn moves(&self, c: &Ctl, visiting: &mut Vec<NodeId>) -> Result<Vec<Move>, CompileError> {
        let mut out = vec![];
        match c {
            Ctl::Terminated => {}
            Ctl::At(n) => {
                if visiting.contains(n) {
                    return Err(CompileError {
                        message: "a process can call itself without taking a step".into(),
                        span: self.model.agent_types[self.ty].span,
                    });
                }
                visiting.push(*n);
                match &self.nodes[*n] {
                    Node::Act(a) => out.push((vec![], Step::Act(a.clone()), self.after(*n)?)),
                    Node::Skip => out.push((vec![], Step::Skip, self.after(*n)?)),
                    Node::Nil => {}
                    Node::Choice(items) => {
                        for &i in items {
                            let s = self.start(i, &mut vec![])?;
                            out.extend(self.moves(&s, visiting)?);
                        }
                    }
                    Node::Guard { cond, kind, body } => {
                        let s = self.start(*body, &mut vec![])?;
                        for (mut g, st, nx) in self.moves(&s, visiting)? {
                            g.insert(0, cond.clone());
                            out.push((g, st, nx));
                        }
                        if *kind == GuardKind::Conditional {
                            out.push((vec![BExpr::Not(Box::new(cond.clone()))], Step::Skip, self.after(*n)?));
                        }
                    }
                    Node::Seq(_) | Node::Par(_) | Node::Jump { .. } | Node::Entry { .. } => {
                        let s = self.start(*n, &mut vec![])?;
                        out.extend(self.moves(&s, visiting)?);
                    }
                }
                visiting.pop();
            }
            Ctl::Par(p, branches) => {
                for (i, b) in branches.iter().enumerate() {
                    let Some(b) = b else { continue };
                    for (g, st, nx) in self.moves(b, visiting)? {
                        let mut bs = branches.clone();
                        bs[i] = nx;
                        let next =
                            if bs.iter().all(Option::is_none) { self.after(*p)? } else { Some(Ctl::Par(*p, bs)) };
                        out.push((g, st, next));
                    }
                }
            }
        }
        Ok(out)
    }

    fn describe(&self, c: &Ctl) -> String {
        match c {
            Ctl::At(n) => format!("@{n}"),
            Ctl::Terminated => "terminated".into(),
            Ctl::Par(p, bs) => {
                let parts: Vec<String> =
                    bs.iter().map(|b| b.as_ref().map_or("done".to_string(), |b| self.describe(b))).collect();
                format!("@{p}({})", parts.join(" || "))
            }
        }
    }

    fn enumerate(&mut self, root: NodeId) -> Result<Behaviour, CompileError> {
        let init = self.start(root, &mut vec![])?;
        let mut index: HashMap<Ctl, CtlId> = HashMap::new();
        let mut states = vec![init.clone()];
        index.insert(init, 0);
        let mut edges: Vec<Vec<Edge>> = vec![];
        let mut queue = VecDeque::from([0usize]);
        while let Some(s) = queue.pop_front() {
            let ctl = states[s].clone();
            let mut out = vec![];
            for (guards, step, next) in self.moves(&ctl, &mut vec![])? {
                let next = next.unwrap_or(Ctl::Terminated);
                let target = match index.get(&next) {
                    Some(&t) => t,
                    None => {
                        if states.len() >= MAX_CONTROL_STATES {
                            return Err(CompileError {
                                message: format!(
                                    "the behaviour of `{}` has more than {MAX_CONTROL_STATES} control states",
                                    self.model.agent_types[self.ty].name
                                ),
                                span: self.model.agent_types[self.ty].span,
                            });
                        }
                        let t = states.len() as CtlId;
                        states.push(next.clone());
                        index.insert(next, t);
                        queue.push_back(t as usize);
                        t
                    }
                };
                let (confirms, writes) = pending_sets(self.model, &guards, &step);
                out.push(Edge { guards, step, target, confirms, writes });
            }
            if edges.len() <= s {
                edges.resize_with(s + 1, Vec::new);
            }
            edges[s] = out;
        }
        edges.resize_with(states.len(), Vec::new);
        Ok(Behaviour { states: states.iter().map(|c| self.describe(c)).collect(), initial: 0, edges })
    }
}

/// D3: the tuples a step adds to `Zc` (mentioned in the agent's own copy by the guards, the
/// right-hand sides and the indices, minus those written) and the tuples it writes.
fn pending_sets(model: &Model, guards: &[BExpr], step: &Step) -> (Vec<TupleId>, Vec<TupleId>) {
    let mut mentioned = BTreeSet::new();
    let mut written = BTreeSet::new();
    let mention = |e: &Expr, acc: &mut BTreeSet<TupleId>| e.walk(&mut |x| collect(model, x, acc));
    for g in guards {
        g.walk_exprs(&mut |x| collect(model, x, &mut mentioned));
    }
    let assign = |a: &Assign, mentioned: &mut BTreeSet<TupleId>, written: &mut BTreeSet<TupleId>| {
        for t in &a.targets {
            if let Store::Stig { tuple, .. } = model.vars[t.var].store {
                written.insert(tuple);
            }
            t.indices.iter().for_each(|e| mention(e, mentioned));
        }
        a.values.iter().for_each(|e| mention(e, mentioned));
    };
    if let Step::Act(Action { kind, .. }) = step {
        match kind {
            ActionKind::Assign(a) => assign(a, &mut mentioned, &mut written),
            ActionKind::Block { stmts, .. } => {
                for s in stmts {
                    match s {
                        Stmt::Assign(a) => assign(a, &mut mentioned, &mut written),
                        Stmt::Local { slots, values } => {
                            values.iter().for_each(|e| mention(e, &mut mentioned));
                            slots.iter().filter_map(|s| s.index.as_ref()).for_each(|e| mention(e, &mut mentioned));
                        }
                        Stmt::Quant { pred, .. } => pred.body.walk_exprs(&mut |x| collect(model, x, &mut mentioned)),
                        Stmt::Count { pred, .. } => pred.walk_exprs(&mut |x| collect(model, x, &mut mentioned)),
                        Stmt::Pick { .. } => {}
                    }
                }
            }
        }
    }
    let confirms = mentioned.difference(&written).copied().collect();
    (confirms, written.into_iter().collect())
}

fn collect(model: &Model, x: &Expr, acc: &mut BTreeSet<TupleId>) {
    if let Expr::Var(VarRef { var, owner: AgentRef::Own, .. }) = x
        && let Store::Stig { tuple, .. } = model.vars[*var].store
    {
        acc.insert(tuple);
    }
}
