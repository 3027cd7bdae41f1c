//! The LTS of an LNT process network: a static tree of `par`/`hide` over sequential leaves,
//! explored breadth first with hashed states.

use super::ast::*;
use super::code::{NodeCode, Vm};
use super::eval::{Env, Ev, domain};
use super::lts::Lts;
use super::sem::*;
pub use super::store::StateStore;
use crate::analysis::intervals::IntervalSet;
use crate::diagnostics::Located;
use rustc_hash::FxHashMap;
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

type R<T> = Result<T, Located>;

pub(crate) struct LeafDef {
    pub(crate) proc: Arc<CProc>,
    /// Local gate index to global gate id.
    pub(crate) gmap: Vec<u32>,
    pub(crate) args: Vec<Value>,
    /// Text of the instance, e.g. `Agent_Node [...] (0)`.
    pub(crate) name: String,
}

#[derive(Clone, Debug)]
pub enum TNode {
    Leaf(usize),
    Par { global: Vec<u32>, iface: Vec<Option<Vec<u32>>>, kids: Vec<TNode> },
    Hide(Vec<u32>, Box<TNode>),
}

pub struct Net {
    pub(crate) gate_names: Vec<String>,
    pub(crate) leaves: Vec<LeafDef>,
    pub tree: TNode,
}

/// A leaf's local state at a choice point: its control node and its live variables. Shared
/// (the variables behind one reference count) and hashed once, when made: the states of a
/// network repeat each leaf state many times, and copying, hashing and comparing them is what
/// numbering the network's states costs.
#[derive(Clone, Debug)]
pub struct LeafState {
    pub(crate) node: u32,
    pub(crate) env: Arc<[Option<Value>]>,
    hash: u64,
}

impl LeafState {
    pub(crate) fn new(node: u32, env: Env) -> LeafState {
        use std::hash::{Hash, Hasher};
        let mut h = rustc_hash::FxHasher::default();
        node.hash(&mut h);
        env.hash(&mut h);
        LeafState { node, env: env.into(), hash: h.finish() }
    }
}

impl PartialEq for LeafState {
    fn eq(&self, other: &LeafState) -> bool {
        self.hash == other.hash && self.node == other.node && self.env == other.env
    }
}

impl Eq for LeafState {}

impl std::hash::Hash for LeafState {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

pub(crate) type SysState = Vec<LeafState>;

/// One transition: its visible label, its label before hiding, its target.
#[derive(Clone, Debug)]
pub(crate) struct Trans {
    pub(crate) label: String,
    pub(crate) orig: String,
    pub(crate) next: SysState,
    /// Each leaf taking part in it has this one transition as its only possible move (one
    /// ready communication, one way to take it): until it fires, no other transition
    /// involves these leaves, and it stays enabled (used to reduce interleavings).
    pub(crate) sole: bool,
}

fn is_structural(s: &Stmt) -> bool {
    matches!(s.k, StmtK::Hide(..) | StmtK::Par(..) | StmtK::Call(..))
}

struct Builder<'a> {
    p: &'a Program,
    gate_names: Vec<String>,
    leaves: Vec<LeafDef>,
    cache: HashMap<usize, Arc<CProc>>,
    depth: u32,
}

impl Builder<'_> {
    fn instantiate(&mut self, pi: usize, gates: Vec<u32>, args: Vec<Value>, pos: Span) -> R<TNode> {
        let p = self.p;
        let pr = &p.module.procs[pi];
        if gates.len() != pr.gates.len() {
            return Err(Located::new(
                pos,
                format!("process `{}` has {} gates, {} given", pr.name, pr.gates.len(), gates.len()),
            ));
        }
        if args.len() != pr.params.len() {
            return Err(Located::new(
                pos,
                format!("process `{}` has {} parameters, {} given", pr.name, pr.params.len(), args.len()),
            ));
        }
        self.depth += 1;
        if self.depth > 64 {
            return Err(Located::new(pos, "process network too deep (recursive instantiation?)"));
        }
        let r = if is_structural(&pr.body) {
            let gscope: HashMap<String, u32> = pr.gates.iter().map(|g| g.0.clone()).zip(gates).collect();
            let mut sc = Scope::default();
            sc.frames.push(HashMap::new());
            for prm in &pr.params {
                sc.declare(&prm.name, ty_of(p, &prm.ty, prm.pos)?);
            }
            let env: Env = args.into_iter().map(Some).collect();
            self.beh(&pr.body, &gscope, &sc, &env)
        } else {
            let cp = match self.cache.get(&pi) {
                Some(c) => c.clone(),
                None => {
                    let c = Arc::new(compile_proc(p, pi)?);
                    self.cache.insert(pi, c.clone());
                    c
                }
            };
            let gn: Vec<String> = gates.iter().map(|g| self.gate_names[*g as usize].clone()).collect();
            let an: Vec<String> = args.iter().map(|v| fmt_value(p, v)).collect();
            let name = format!("{} [{}] ({})", pr.name, gn.join(", "), an.join(", "));
            self.leaves.push(LeafDef { proc: cp, gmap: gates, args, name });
            Ok(TNode::Leaf(self.leaves.len() - 1))
        };
        self.depth -= 1;
        r
    }

    fn gates(&self, gs: &[(String, Span)], scope: &HashMap<String, u32>) -> R<Vec<u32>> {
        gs.iter()
            .map(|(g, pos)| scope.get(g).copied().ok_or_else(|| Located::new(*pos, format!("undeclared gate `{g}`"))))
            .collect()
    }

    fn beh(&mut self, s: &Stmt, gscope: &HashMap<String, u32>, sc: &Scope, env: &Env) -> R<TNode> {
        match &s.k {
            StmtK::Hide(gs, b) => {
                let mut scope = gscope.clone();
                let mut ids = vec![];
                for (g, _) in gs {
                    let id = self.gate_names.len() as u32;
                    self.gate_names.push(g.to_ascii_uppercase());
                    scope.insert(g.clone(), id);
                    ids.push(id);
                }
                Ok(TNode::Hide(ids, Box::new(self.beh(b, &scope, sc, env)?)))
            }
            StmtK::Par(global, bs) => {
                let global = self.gates(global, gscope)?;
                let mut iface = vec![];
                let mut kids = vec![];
                for b in bs {
                    match b {
                        ParBranch::Plain(b) => {
                            iface.push(None);
                            kids.push(self.beh(b, gscope, sc, env)?);
                        }
                        ParBranch::Synced(gs, b) => {
                            iface.push(Some(self.gates(gs, gscope)?));
                            kids.push(self.beh(b, gscope, sc, env)?);
                        }
                    }
                }
                Ok(TNode::Par { global, iface, kids })
            }
            StmtK::Call(name, gs, args) => {
                let pi = *self
                    .p
                    .proc_ids
                    .get(name)
                    .ok_or_else(|| Located::new(s.pos, format!("undeclared process `{name}`")))?;
                let gates = self.gates(gs, gscope)?;
                let mut vals = vec![];
                let mut ev = Ev { p: self.p, depth: 0 };
                for a in args {
                    match a {
                        Arg::In(e) => vals.push(ev.eval(env, &compile_expr(self.p, sc, e)?)?),
                        Arg::Out(_, pos) | Arg::InOut(_, pos) => {
                            return Err(Located::new(*pos, "out parameters of processes are not part of the subset"));
                        }
                    }
                }
                self.instantiate(pi, gates, vals, s.pos)
            }
            _ => Err(Located::new(
                s.pos,
                "expected a process network (`hide`, `par` or a process call) mixing with sequential code",
            )),
        }
    }
}

pub(crate) fn fmt_value(p: &Program, v: &Value) -> String {
    match v {
        Value::I(i) => i.to_string(),
        Value::B(b) => if *b { "TRUE" } else { "FALSE" }.into(),
        Value::E(c) => p.ctors[*c as usize].to_ascii_uppercase(),
        Value::A(xs) => format!("({})", xs.iter().map(|x| fmt_value(p, x)).collect::<Vec<_>>().join(", ")),
    }
}

/// Builds the network of process `root` (which must have no value parameters).
pub fn build_net(p: &Program, root: &str) -> R<Net> {
    let pi = *p.proc_ids.get(root).ok_or_else(|| {
        Located::new(Span::default(), format!("no process `{root}` (the roots it has: {})", roots(p).join(", ")))
    })?;
    let pr = &p.module.procs[pi];
    let mut b = Builder { p, gate_names: vec![], leaves: vec![], cache: HashMap::new(), depth: 0 };
    let gates: Vec<u32> = pr
        .gates
        .iter()
        .map(|(g, _)| {
            b.gate_names.push(g.to_ascii_uppercase());
            (b.gate_names.len() - 1) as u32
        })
        .collect();
    if !pr.params.is_empty() {
        return Err(Located::new(pr.pos, format!("the root process `{root}` must not have parameters")));
    }
    let tree = b.instantiate(pi, gates, vec![], pr.pos)?;
    Ok(Net { gate_names: b.gate_names, leaves: b.leaves, tree })
}

/// The processes that can be generated as the root of an LTS (`labs lts --root`, `lnt.open
/// -root`): those without value parameters, in the order declared.
pub(crate) fn roots(p: &Program) -> Vec<&str> {
    p.module.procs.iter().filter(|pr| pr.params.is_empty()).map(|pr| pr.name.as_str()).collect()
}

/// Builds the network of one process instance `proc [gates] (args)`, as a leaf of an SVL
/// composition names it: the process's gates are bound to the gates named `gates`.
pub(crate) fn build_call(p: &Program, proc_name: &str, gates: &[String], args: Vec<Value>) -> R<Net> {
    let pi =
        *p.proc_ids.get(proc_name).ok_or_else(|| Located::new(Span::default(), format!("no process `{proc_name}`")))?;
    let mut b = Builder { p, gate_names: vec![], leaves: vec![], cache: HashMap::new(), depth: 0 };
    let ids: Vec<u32> = gates
        .iter()
        .map(|g| {
            b.gate_names.push(g.to_ascii_uppercase());
            (b.gate_names.len() - 1) as u32
        })
        .collect();
    let tree = b.instantiate(pi, ids, args, p.module.procs[pi].pos)?;
    Ok(Net { gate_names: b.gate_names, leaves: b.leaves, tree })
}

impl Net {
    /// The network made of leaf `k` alone (every gate visible).
    pub(crate) fn single_leaf(&self, k: usize) -> Net {
        let l = &self.leaves[k];
        Net {
            gate_names: self.gate_names.clone(),
            leaves: vec![LeafDef {
                proc: l.proc.clone(),
                gmap: l.gmap.clone(),
                args: l.args.clone(),
                name: l.name.clone(),
            }],
            tree: TNode::Leaf(0),
        }
    }
}

#[derive(Clone, Debug)]
enum Slot {
    K(Value),
    /// A free input: the values its party's `where` clause allows.
    F {
        ty: Ty,
        set: IntervalSet,
        leaf: usize,
        name: Arc<str>,
        pos: Span,
    },
}

#[derive(Clone, Debug)]
struct Open {
    gate: u32,
    orig: u32,
    /// Shared: a leaf's offers are cloned into every system state's list, and merged only
    /// when leaves synchronise.
    slots: Arc<[Slot]>,
    /// (leaf, index in the leaf's ready list)
    parts: Arc<[(usize, usize)]>,
}

pub(crate) struct Explorer<'a> {
    pub(crate) p: &'a Program,
    pub(crate) net: &'a Net,
    ev: Ev<'a>,
    /// Runs the compiled expressions (`code.rs`); the reference explorer walks the syntax
    /// trees with `ev` instead.
    vm: Vm<'a>,
    compiled: bool,
    memo: Memo,
}

type Ready = (u32, Arc<[Option<Value>]>);

/// What a leaf can do from one of its local states: its ready communications, and the offers
/// they make (computed when first asked for: an error in them is reported only if reached).
struct LeafEntry {
    /// Number among the entries memoised (`u32::MAX` when not memoised).
    id: u32,
    /// Each ready communication's node and variables (shared with the local state's when the
    /// same: most are).
    readies: Vec<Ready>,
    opens: std::sync::OnceLock<R<Vec<Open>>>,
}

/// The explorer's memory of the leaves' local behaviour (`docs/lntcheck.md`, "Successor
/// function"): a leaf's entry depends on its local state alone, and a leaf's part in a
/// rendezvous on its entry, its ready communication and the values offered, so each is
/// computed once and reused by every system state that contains it.
#[derive(Default)]
struct Memo {
    /// Off for the reference explorer, which computes everything from the syntax each time.
    on: bool,
    /// Per leaf: its local states' entries.
    entries: Vec<FxHashMap<LeafState, Arc<LeafEntry>>>,
    /// Entries memoised in all.
    nentries: usize,
    /// (entry, ready index, offered values) → the leaf's next state, `None` when its `where`
    /// clause refuses the values.
    fired: FxHashMap<(u32, u32, u32), Option<LeafState>>,
    /// The lists of values offered in a rendezvous, numbered (used by both explorers).
    offers: Offers,
    /// (gate before hiding, offered values) → the label before hiding.
    labels: FxHashMap<(u32, u32), String>,
    /// Per leaf: the local states the firings reached, one copy each, so that equal states
    /// share their variables and compare by address when numbered.
    canon: Vec<rustc_hash::FxHashSet<LeafState>>,
}

/// Lists of offered values, each stored once and numbered: the memo's keys and the labels'
/// hold numbers, not lists.
#[derive(Default)]
struct Offers {
    ids: FxHashMap<Arc<[Value]>, u32>,
    lists: Vec<Arc<[Value]>>,
}

impl Offers {
    fn number(&mut self, vals: &[Value]) -> u32 {
        if let Some(&i) = self.ids.get(vals) {
            return i;
        }
        let i = self.lists.len() as u32;
        let list: Arc<[Value]> = vals.into();
        self.lists.push(list.clone());
        self.ids.insert(list, i);
        i
    }
}

/// Entries memoised before the memo starts again (it is a cache: a long simulation does not
/// grow it without bound).
const MEMO_CAP: usize = 1 << 18;

const STEP_LIMIT: u64 = 10_000_000;

impl<'a> Explorer<'a> {
    pub(crate) fn new(p: &'a Program, net: &'a Net) -> Explorer<'a> {
        Explorer {
            p,
            net,
            ev: Ev { p, depth: 0 },
            vm: Vm::new(p),
            compiled: true,
            memo: Memo { on: true, ..Memo::default() },
        }
    }

    /// An explorer that memoises nothing: every successor computed from the compiled syntax
    /// of the program (the reference the memoising explorer is tested against).
    #[cfg(feature = "test-support")]
    pub(crate) fn reference(p: &'a Program, net: &'a Net) -> Explorer<'a> {
        Explorer { p, net, ev: Ev { p, depth: 0 }, vm: Vm::new(p), compiled: false, memo: Memo::default() }
    }

    /// An explorer that runs the compiled code and memoises nothing: what the tests compare
    /// with the reference to check the compiled successor function alone.
    #[cfg(feature = "test-support")]
    pub(crate) fn compiled(p: &'a Program, net: &'a Net) -> Explorer<'a> {
        Explorer { p, net, ev: Ev { p, depth: 0 }, vm: Vm::new(p), compiled: true, memo: Memo::default() }
    }

    /// The entry of leaf `leaf` in local state `st`.
    fn entry(&mut self, leaf: usize, st: &LeafState) -> R<Arc<LeafEntry>> {
        if !self.memo.on {
            let readies = self.readies(leaf, st)?;
            return Ok(Arc::new(LeafEntry { id: u32::MAX, readies, opens: Default::default() }));
        }
        if self.memo.entries.len() <= leaf {
            self.memo.entries.resize_with(leaf + 1, FxHashMap::default);
        }
        if let Some(e) = self.memo.entries[leaf].get(st) {
            return Ok(e.clone());
        }
        let readies = self.readies(leaf, st)?;
        let e = Arc::new(LeafEntry { id: self.memo.nentries as u32, readies, opens: Default::default() });
        self.memo.nentries += 1;
        self.memo.entries[leaf].insert(st.clone(), e.clone());
        Ok(e)
    }

    fn leaf_err(&self, leaf: usize, d: Located) -> Located {
        Located::new(d.span, format!("{} (in {})", d.message, self.net.leaves[leaf].name))
    }

    /// Runs the deterministic nodes from `node`; the state is stable at a choice point.
    fn advance(&mut self, leaf: usize, mut node: u32, mut env: Env) -> R<LeafState> {
        let cp = self.net.leaves[leaf].proc.clone();
        let mut n = 0u64;
        loop {
            n += 1;
            if n > STEP_LIMIT {
                return Err(Located::new(Span::default(), format!("{}: loop without any action", cp.name)));
            }
            match &cp.nodes[node as usize] {
                Node::Assign { slot, idx, e, next, pos } => {
                    let r = match &cp.code[node as usize] {
                        NodeCode::Assign { e, idx } if self.compiled => {
                            self.vm.assign(&mut env, *slot, idx.as_ref(), e, *pos)
                        }
                        _ => self.ev.assign(&mut env, *slot, idx, e, *pos),
                    };
                    r.map_err(|d| self.leaf_err(leaf, d))?;
                    node = *next;
                }
                Node::Eval { f, args, next, pos } => {
                    let r = match &cp.code[node as usize] {
                        NodeCode::Eval(c) if self.compiled => self.vm.eval_stmt(&mut env, c),
                        _ => self.ev.eval_stmt(&mut env, *f, args, *pos),
                    };
                    r.map_err(|d| self.leaf_err(leaf, d))?;
                    node = *next;
                }
                Node::Cond { c, t, f } => {
                    let r = match &cp.code[node as usize] {
                        NodeCode::Cond(c) if self.compiled => self.vm.eval_bool(&env, c),
                        _ => self.ev.eval_bool(&env, c),
                    };
                    node = if r.map_err(|d| self.leaf_err(leaf, d))? { *t } else { *f };
                }
                Node::Reset { slots, next } => {
                    for s in slots {
                        env[*s as usize] = None;
                    }
                    node = *next;
                }
                Node::Goto(x) => node = *x,
                _ => break,
            }
        }
        for (s, v) in env.iter_mut().enumerate() {
            if !cp.live[node as usize][s] {
                *v = None;
            }
        }
        Ok(LeafState::new(node, env))
    }

    /// The communications a leaf can take from a stable state (through `alt`, `any`, …).
    fn readies(&mut self, leaf: usize, st: &LeafState) -> R<Vec<Ready>> {
        let cp = self.net.leaves[leaf].proc.clone();
        let mut out = vec![];
        let mut stack = vec![(st.node, st.env.to_vec())];
        let mut n = 0u64;
        while let Some((node, mut env)) = stack.pop() {
            n += 1;
            if n > STEP_LIMIT {
                // Paths through `alt` and `any` count too: many choices before an action also
                // end here.
                return Err(Located::new(
                    Span::default(),
                    format!(
                        "{}: more than {STEP_LIMIT} internal steps before an action (a loop without any action, or too many choices)",
                        cp.name
                    ),
                ));
            }
            match &cp.nodes[node as usize] {
                Node::Alt(bs) => {
                    for b in bs.iter().rev() {
                        stack.push((*b, env.clone()));
                    }
                }
                Node::Any { slot, ty, pred, bounds, next, pos, name } => {
                    let code = match &cp.code[node as usize] {
                        NodeCode::Any { pred, bounds } if self.compiled => Some((pred, bounds)),
                        _ => None,
                    };
                    let set = match code {
                        Some((_, b)) => self.vm.input_set(&env, b.as_ref()),
                        None => self.ev.input_set(&env, bounds),
                    };
                    let dom = domain(self.p, *ty, &set).map_err(|m| {
                        self.leaf_err(
                            leaf,
                            Located::new(*pos, format!("unbounded `{name} := any {}`: {m}", self.p.ty_name(*ty))),
                        )
                    })?;
                    let mut alts = vec![];
                    for v in dom {
                        env[*slot as usize] = Some(v);
                        let ok = match (pred, code) {
                            (Some(_), Some((Some(c), _))) => {
                                self.vm.eval_bool(&env, c).map_err(|d| self.leaf_err(leaf, d))?
                            }
                            (Some(pr), _) => self.ev.eval_bool(&env, pr).map_err(|d| self.leaf_err(leaf, d))?,
                            (None, _) => true,
                        };
                        if ok {
                            alts.push((*next, env.clone()));
                        }
                    }
                    stack.extend(alts.into_iter().rev());
                }
                Node::Comm { .. } => {
                    let env = if env[..] == st.env[..] { st.env.clone() } else { env.into() };
                    out.push((node, env))
                }
                Node::Stop | Node::End => {}
                _ => {
                    let s = self.advance(leaf, node, env)?;
                    // advance stops at a choice point; do not clear dead variables here
                    stack.push((s.node, s.env.to_vec()));
                }
            }
        }
        Ok(out)
    }

    /// The communications leaf `k` offers from its entry `e`.
    fn leaf_opens(&mut self, k: usize, e: &LeafEntry) -> R<Vec<Open>> {
        if let Some(o) = e.opens.get() {
            return o.clone();
        }
        let o = self.compute_leaf_opens(k, &e.readies);
        let _ = e.opens.set(o.clone());
        o
    }

    fn compute_leaf_opens(&mut self, k: usize, readies: &[Ready]) -> R<Vec<Open>> {
        let l = &self.net.leaves[k];
        let cp = l.proc.clone();
        let mut out = vec![];
        for (ri, (node, env)) in readies.iter().enumerate() {
            let Node::Comm { gate, offers, .. } = &cp.nodes[*node as usize] else { continue };
            let g = if *gate == TAU { TAU } else { l.gmap[*gate as usize] };
            let mut slots = vec![];
            let code = match &cp.code[*node as usize] {
                NodeCode::Comm { sends, bounds, .. } if self.compiled => Some((sends, bounds)),
                _ => None,
            };
            for (j, o) in offers.iter().enumerate() {
                slots.push(match o {
                    COffer::Send(e) => Slot::K(
                        match code {
                            Some((sends, _)) => self.vm.eval(env, sends[j].as_ref().expect("a sent offer")),
                            None => self.ev.eval(env, e),
                        }
                        .map_err(|d| self.leaf_err(k, d))?,
                    ),
                    COffer::Recv { ty, bounds, name, pos, .. } => Slot::F {
                        ty: *ty,
                        set: match code {
                            Some((_, bs)) => self.vm.input_set(env, bs[j].as_ref()),
                            None => self.ev.input_set(env, bounds),
                        },
                        leaf: k,
                        name: name.as_str().into(),
                        pos: *pos,
                    },
                });
            }
            out.push(Open { gate: g, orig: g, slots: slots.into(), parts: Arc::new([(k, ri)]) });
        }
        Ok(out)
    }

    fn opens(&mut self, t: &TNode, readies: &[Arc<LeafEntry>]) -> R<Vec<Open>> {
        Ok(match t {
            TNode::Leaf(k) => self.leaf_opens(*k, &readies[*k])?,
            TNode::Hide(gs, b) => {
                let mut v = self.opens(b, readies)?;
                for o in &mut v {
                    if gs.contains(&o.gate) {
                        o.gate = TAU;
                    }
                }
                v
            }
            TNode::Par { global, iface, kids } => {
                let mut kid_opens = vec![];
                for k in kids {
                    kid_opens.push(self.opens(k, readies)?);
                }
                // Whether kid `k` takes part in every rendezvous on `g`.
                let takes_part = |g: u32, k: usize| -> bool {
                    g != TAU && (global.contains(&g) || iface[k].as_ref().is_some_and(|i| i.contains(&g)))
                };
                let mut out = vec![];
                let mut sync_gates = vec![];
                for (k, os) in kid_opens.iter().enumerate() {
                    for o in os {
                        if takes_part(o.gate, k) {
                            if !sync_gates.contains(&o.gate) {
                                sync_gates.push(o.gate);
                            }
                        } else {
                            out.push(o.clone());
                        }
                    }
                }
                for g in sync_gates {
                    let mut acc: Vec<Open> = vec![];
                    for (n, k) in (0..kids.len()).filter(|&k| takes_part(g, k)).enumerate() {
                        let mine: Vec<&Open> = kid_opens[k].iter().filter(|o| o.gate == g).collect();
                        if n == 0 {
                            acc = mine.into_iter().cloned().collect();
                        } else {
                            let mut next = vec![];
                            for a in &acc {
                                for b in &mine {
                                    if let Some(m) = merge(a, b) {
                                        next.push(m);
                                    }
                                }
                            }
                            acc = next;
                        }
                        if acc.is_empty() {
                            break;
                        }
                    }
                    out.extend(acc);
                }
                out
            }
        })
    }

    pub(crate) fn initial(&mut self) -> R<SysState> {
        let mut st = vec![];
        for k in 0..self.net.leaves.len() {
            let l = &self.net.leaves[k];
            let mut env: Env = vec![None; l.proc.nslots];
            for (i, a) in l.args.iter().enumerate() {
                env[i] = Some(a.clone());
            }
            let entry = l.proc.entry;
            st.push(self.advance(k, entry, env)?);
        }
        Ok(st)
    }

    /// Successors of a state: (label, target).
    pub(crate) fn successors(&mut self, st: &SysState) -> R<Vec<(String, SysState)>> {
        Ok(self.transitions(st, false)?.into_iter().map(|t| (t.label, t.next)).collect())
    }

    /// Successors of a state with, for each, the label before hiding (the gate the leaves
    /// used, with its offers): what happens inside `hide` (used by `simulate --backend lnt`).
    pub(crate) fn successors_full(&mut self, st: &SysState) -> R<Vec<Trans>> {
        self.transitions(st, true)
    }

    /// The transitions of a state; their labels before hiding left empty unless `orig`.
    fn transitions(&mut self, st: &SysState, orig: bool) -> R<Vec<Trans>> {
        let want_orig = orig;
        if self.memo.nentries > MEMO_CAP || self.memo.offers.lists.len() > MEMO_CAP {
            self.memo.entries.clear();
            self.memo.nentries = 0;
            self.memo.fired.clear();
            self.memo.labels.clear();
            self.memo.canon.clear();
            self.memo.offers = Offers::default();
        }
        let mut readies = vec![];
        for (k, l) in st.iter().enumerate() {
            readies.push(self.entry(k, l)?);
        }
        let net: &'a Net = self.net;
        let opens = self.opens(&net.tree, &readies)?;
        let mut out = vec![];
        // leaves of each transition, and how many transitions each leaf takes part in
        let mut parts: Vec<Vec<usize>> = vec![];
        let mut involved = vec![0usize; st.len()];
        for o in opens {
            // The free slots' domains; one too large to enumerate is an error only if the
            // search reaches it (the offers bound before it may already exclude every value).
            let mut doms: Vec<R<Cow<[Value]>>> = vec![];
            for s in o.slots.iter() {
                doms.push(match s {
                    Slot::K(v) => Ok(Cow::Borrowed(std::slice::from_ref(v))),
                    Slot::F { ty, set, leaf, name, pos } => domain(self.p, *ty, set).map(Cow::Owned).map_err(|m| {
                        let g =
                            if o.orig == TAU { "i".to_string() } else { self.net.gate_names[o.orig as usize].clone() };
                        self.leaf_err(
                            *leaf,
                            Located::new(*pos, format!("unbounded input offer `?{name}` of gate {g}: {m}")),
                        )
                    }),
                });
            }
            if doms.iter().any(|d| d.as_ref().is_ok_and(|d| d.is_empty())) {
                continue;
            }
            let mut search = Search::new(self.net, &readies, &o, doms, self.compiled);
            let mut matches = vec![];
            if search.pre_holds(&mut self.ev, &mut self.vm) {
                search.run(&mut self.ev, &mut self.vm, &mut self.memo.offers, 0, &mut matches)?;
            }
            for vid in matches {
                let vals = self.memo.offers.lists[vid as usize].clone();
                if let Some(next) = self.fire(st, &readies, &o, vid, &vals)? {
                    let orig = if !want_orig && o.gate == TAU {
                        String::new()
                    } else if o.orig == TAU {
                        "i".to_string()
                    } else {
                        let (p, gate_names) = (self.p, &self.net.gate_names);
                        self.memo
                            .labels
                            .entry((o.orig, vid))
                            .or_insert_with(|| {
                                let mut l = gate_names[o.orig as usize].clone();
                                for v in vals.iter() {
                                    l.push_str(" !");
                                    l.push_str(&fmt_value(p, v));
                                }
                                l
                            })
                            .clone()
                    };
                    let (label, orig) = match (o.gate == TAU, want_orig) {
                        (true, true) => ("i".to_string(), orig),
                        (true, false) => ("i".to_string(), String::new()),
                        (false, true) => (orig.clone(), orig),
                        (false, false) => (orig, String::new()),
                    };
                    out.push(Trans { label, orig, next, sole: false });
                    let ps: Vec<usize> = o.parts.iter().map(|p| p.0).collect();
                    for &l in &ps {
                        involved[l] += 1;
                    }
                    parts.push(ps);
                }
            }
        }
        for (t, ps) in out.iter_mut().zip(&parts) {
            t.sole = ps.iter().all(|&l| involved[l] == 1 && readies[l].readies.len() == 1);
        }
        Ok(out)
    }

    fn fire(
        &mut self,
        st: &SysState,
        readies: &[Arc<LeafEntry>],
        o: &Open,
        vid: u32,
        vals: &[Value],
    ) -> R<Option<SysState>> {
        let mut next = st.clone();
        for &(leaf, ri) in o.parts.iter() {
            let e = &readies[leaf];
            if !self.memo.on {
                match self.fire_leaf(leaf, &e.readies[ri], vals)? {
                    Some(l) => next[leaf] = l,
                    None => return Ok(None),
                }
                continue;
            }
            let key = (e.id, ri as u32, vid);
            let l = match self.memo.fired.get(&key) {
                Some(l) => l.clone(),
                None => {
                    let l = self.fire_leaf(leaf, &e.readies[ri], vals)?.map(|l| {
                        if self.memo.canon.len() <= leaf {
                            self.memo.canon.resize_with(leaf + 1, Default::default);
                        }
                        let canon = &mut self.memo.canon[leaf];
                        match canon.get(&l) {
                            Some(c) => c.clone(),
                            None => {
                                canon.insert(l.clone());
                                l
                            }
                        }
                    });
                    self.memo.fired.insert(key, l.clone());
                    l
                }
            };
            match l {
                Some(l) => next[leaf] = l,
                None => return Ok(None),
            }
        }
        Ok(Some(next))
    }

    /// Leaf `leaf`'s next state after its ready communication `ready` with values `vals`,
    /// `None` when its `where` clause refuses them.
    fn fire_leaf(&mut self, leaf: usize, ready: &Ready, vals: &[Value]) -> R<Option<LeafState>> {
        let cp = self.net.leaves[leaf].proc.clone();
        let (node, env) = ready;
        let Node::Comm { offers, pred, next: nx, .. } = &cp.nodes[*node as usize] else {
            return Err(self.leaf_err(leaf, Located::new(Span::default(), "a ready node that is no communication")));
        };
        let mut env = env.to_vec();
        for (o, v) in offers.iter().zip(vals) {
            if let COffer::Recv { slot, .. } = o {
                env[*slot as usize] = Some(v.clone());
            }
        }
        if let Some(pr) = pred {
            let holds = match &cp.code[*node as usize] {
                NodeCode::Comm { pred: Some(c), .. } if self.compiled => self.vm.eval_bool(&env, c),
                _ => self.ev.eval_bool(&env, pr),
            };
            if !holds.map_err(|d| self.leaf_err(leaf, d))? {
                return Ok(None);
            }
        }
        Ok(Some(self.advance(leaf, *nx, env)?))
    }
}

/// The values of a rendezvous's offers that every party may accept: the offers are bound left to
/// right, and each conjunct of each party's `where` clause is checked as soon as the offers it
/// reads are bound. A party that fixes or constrains a value (an owner fixing the value it is
/// read at, an actor fixing the location it reads) prunes the others' choices at that offer
/// instead of multiplying them: the search visits the intersection of the parties' offers, not
/// the product of the offer domains. Whole clauses are checked again when the transition fires.
struct Search<'n> {
    doms: Vec<R<Cow<'n, [Value]>>>,
    /// per party: its environment while offers are bound
    envs: Vec<Env>,
    /// per offer: (party, variable) that receives it
    binds: Vec<Vec<(usize, u32)>>,
    /// per offer: (party, conjunct) whose last read offer it is
    checks: Vec<Vec<(usize, Check<'n>)>>,
    /// conjuncts that read no offer
    pre: Vec<(usize, Check<'n>)>,
    vals: Vec<Value>,
}

/// A conjunct of a `where` clause: its syntax (the reference explorer) or its code.
#[derive(Clone, Copy)]
enum Check<'n> {
    Tree(&'n CE),
    Code(&'n super::code::Code),
}

impl Check<'_> {
    /// Whether the conjunct does not exclude the values bound in `env` (an evaluation error
    /// excludes nothing: the firing evaluates the whole clause and reports it).
    fn admits(self, ev: &mut Ev, vm: &mut Vm, env: &Env) -> bool {
        let r = match self {
            Check::Tree(c) => ev.eval_bool(env, c),
            Check::Code(c) => vm.eval_bool(env, c),
        };
        !matches!(r, Ok(false))
    }
}

impl<'n> Search<'n> {
    fn new(
        net: &'n Net,
        readies: &[Arc<LeafEntry>],
        o: &Open,
        doms: Vec<R<Cow<'n, [Value]>>>,
        compiled: bool,
    ) -> Search<'n> {
        let n = doms.len();
        let mut s =
            Search { doms, envs: vec![], binds: vec![vec![]; n], checks: vec![vec![]; n], pre: vec![], vals: vec![] };
        for (party, &(leaf, ri)) in o.parts.iter().enumerate() {
            let cp: &'n CProc = &net.leaves[leaf].proc;
            let (node, env) = &readies[leaf].readies[ri];
            // A party's variables are copied only when its clause has something to check.
            s.envs.push(vec![]);
            let Node::Comm { offers, pred, .. } = &cp.nodes[*node as usize] else { continue };
            let mut recv = vec![];
            for (j, off) in offers.iter().enumerate() {
                if let COffer::Recv { slot, .. } = off
                    && j < n
                {
                    recv.push((j, *slot));
                }
            }
            let mut placed = false;
            let mut place = |c: Check<'n>, uses: &[u32]| {
                placed = true;
                match recv.iter().filter(|(_, sl)| uses.contains(sl)).map(|(j, _)| *j).max() {
                    Some(j) => s.checks[j].push((party, c)),
                    None => s.pre.push((party, c)),
                }
            };
            match &cp.code[*node as usize] {
                NodeCode::Comm { conjuncts, .. } if compiled => {
                    for c in conjuncts {
                        place(Check::Code(&c.code), &c.uses);
                    }
                }
                _ => {
                    let mut cs = vec![];
                    if let Some(pr) = pred {
                        conjuncts(pr, &mut cs);
                    }
                    for c in cs {
                        let mut uses = vec![];
                        ce_uses(c, &mut uses);
                        place(Check::Tree(c), &uses);
                    }
                }
            }
            if placed {
                s.envs[party] = env.to_vec();
                for &(j, slot) in &recv {
                    s.binds[j].push((party, slot));
                }
            }
        }
        s
    }

    /// Whether no party excludes the rendezvous whatever the offers. An evaluation error is
    /// left to the firing, which evaluates the whole clause in its own order.
    fn pre_holds(&self, ev: &mut Ev, vm: &mut Vm) -> bool {
        self.pre.iter().all(|(party, c)| c.admits(ev, vm, &self.envs[*party]))
    }

    fn run(&mut self, ev: &mut Ev, vm: &mut Vm, offers: &mut Offers, pos: usize, out: &mut Vec<u32>) -> R<()> {
        if pos == self.doms.len() {
            out.push(offers.number(&self.vals));
            return Ok(());
        }
        let n = self.doms[pos].as_ref().map_err(Clone::clone)?.len();
        for vi in 0..n {
            let v = self.doms[pos].as_ref().map_err(Clone::clone)?[vi].clone();
            for &(party, slot) in &self.binds[pos] {
                self.envs[party][slot as usize] = Some(v.clone());
            }
            let ok = self.checks[pos].iter().all(|(party, c)| c.admits(ev, vm, &self.envs[*party]));
            if ok {
                self.vals.push(v);
                self.run(ev, vm, offers, pos + 1, out)?;
                self.vals.pop();
            }
        }
        Ok(())
    }
}

use super::code::conjuncts;

fn merge(a: &Open, b: &Open) -> Option<Open> {
    if a.slots.len() != b.slots.len()
        || a.slots.iter().zip(b.slots.iter()).any(|xy| matches!(xy, (Slot::K(u), Slot::K(v)) if u != v))
    {
        return None;
    }
    // Built in place (one allocation each): merging is what composing a rendezvous of many
    // parties costs, state after state.
    let slots: Arc<[Slot]> = a
        .slots
        .iter()
        .zip(b.slots.iter())
        .map(|xy| match xy {
            (Slot::K(u), _) | (Slot::F { .. }, Slot::K(u)) => Slot::K(u.clone()),
            (Slot::F { ty, set: s1, leaf, name, pos }, Slot::F { set: s2, .. }) => {
                Slot::F { ty: *ty, set: s1.meet(s2), leaf: *leaf, name: name.clone(), pos: *pos }
            }
        })
        .collect();
    let parts: Arc<[(usize, usize)]> = a.parts.iter().chain(b.parts.iter()).copied().collect();
    Some(Open { gate: a.gate, orig: a.orig, slots, parts })
}

#[derive(Default)]
pub struct GenOptions {
    pub max_states: Option<u64>,
    /// Polled for every state expanded; the state bound, when hit, is recorded there too, so
    /// that the caller can tell a bound from an error of the program.
    pub limits: crate::limits::Limits,
    /// Told of the states generated so far, every few thousand states, as phase `phase`.
    pub progress: Option<crate::lts_backend::PhaseProgressFn>,
    pub phase: String,
    /// Threads that compute successors (0 or 1: this thread alone). The LTS does not depend
    /// on their number.
    pub threads: usize,
}

/// The states whose successors may be computed ahead of the numbering (when several threads
/// generate): few, since their successors are held, outside the memory bound's account, until
/// they are numbered.
const AHEAD: usize = 128;

/// Generates the LTS; also returns the states (number = state number).
///
/// States are numbered in breadth-first order whatever `opts.threads`: successors are
/// computed on the threads ahead of the numbering, which takes them in state order on this
/// thread (an error is the one the first failing state gives, as in a sequential run).
pub fn generate(p: &Program, net: &Net, opts: &GenOptions) -> R<(Lts, StateStore<LeafState>)> {
    let mut progress = crate::lts_backend::PhaseReporter::new(opts.phase.clone(), opts.progress.as_ref());
    let mut explorers: Vec<Explorer> = (0..opts.threads.max(1)).map(|_| Explorer::new(p, net)).collect();
    let init = explorers[0].initial()?;
    // The frontier is state numbers: the expansions read their states from the store.
    let states = std::sync::RwLock::new(StateStore::new(&init));
    let read = || states.read().unwrap_or_else(|e| e.into_inner());
    let mut lts = Lts::new();
    let stopped = |n: usize| {
        opts.limits.stopped().map(|r| Located::new(Span::default(), format!("stopped after {n} states ({r:?})")))
    };
    // After a stop, no expansion: the numbering reports the stop first.
    let expand = |ex: &mut Explorer, &s: &u32| match opts.limits.stopped() {
        Some(_) => Ok(vec![]),
        None => {
            let st = read().get(s);
            ex.successors(&st)
        }
    };
    let explored = super::jobs::explore_in_order(&mut explorers, vec![0u32], AHEAD, expand, |s, succ| {
        let mut states = states.write().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = stopped(states.len()) {
            return Err(e);
        }
        let mut fresh = vec![];
        for (label, t) in succ? {
            if !opts.limits.admit(states.growth_bytes() + lts.growth_bytes()) {
                return Err(Located::new(Span::default(), format!("stopped after {} states (Memory)", states.len())));
            }
            let (id, new) = states.number(&t);
            if new {
                if opts.max_states.is_some_and(|m| states.len() as u64 > m)
                    || opts.limits.over_states(states.len() as u64)
                {
                    opts.limits.stop(crate::limits::StopReason::MaxStates);
                    let m = opts.max_states.or(opts.limits.max_states()).unwrap_or_default();
                    return Err(Located::new(Span::default(), format!("more than {m} states (--max-states)")));
                }
                fresh.push(id);
            }
            lts.add(s as u32, &label, id);
        }
        if let Some(r) = &mut progress {
            r.report(states.len(), lts.trans.len());
        }
        Ok(fresh)
    });
    let states = states.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Err(e) = explored {
        opts.limits.discard((states, lts));
        return Err(e);
    }
    lts.nstates = states.len();
    Ok((lts, states))
}
