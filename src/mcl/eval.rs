//! Local (on the fly) evaluation of a typed query on an LTS.
//!
//! The query is a boolean equation system over variables (fixed point, state, environment).
//! Each block of fixed points (one sign, see typing.rs) is solved on its own by a persistent
//! worklist: a variable's right-hand side is unfolded once into a small and/or graph over
//! the block's variables (other blocks are solved first, as constants), and values propagate
//! upwards by counters. A block of sign `mu` derives `true` values, one of sign `nu` derives
//! `false` values; what is never derived keeps the other value once the worklist is empty.
//! The order of derivations (ranks) makes diagnostics well-founded (diag.rs). No recursion
//! depends on the size of the LTS: only on the nesting of the formula.

use super::ast::ActId;
use super::ast::{BinOp, Sign, Type};
use super::diag::Diagnostic;
use super::lts::LtsView;
use super::typing::{AOffer, Act, DExpr, FixId, Node, NodeId, Query};
use crate::limits::{Limits, StopReason};
use rustc_hash::FxHashMap;

/// The verdict, the path that explains it (explain.rs) and the number of (state, valuation)
/// pairs explored (with the nodes of the products `< R > @` explores).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evaluation {
    pub holds: bool,
    pub diagnostic: Option<Diagnostic>,
    pub states_explored: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// The deadline of the limits passed.
    #[error("time limit reached")]
    Timeout,
    /// The run was interrupted (Ctrl-C, SIGTERM).
    #[error("interrupted")]
    Interrupted,
    /// The memory bound of the limits was reached.
    #[error("memory bound reached")]
    Memory,
    /// More (state, valuation) pairs than the limits' state bound.
    #[error("more than {limit} (state, valuation) pairs")]
    StateLimit { limit: u64 },
    /// A data error while evaluating (division by zero, Nat underflow, overflow), as
    /// evaluator4 stops on it.
    #[error("evaluation error: {message}")]
    Runtime { message: String },
    /// A construct the evaluator does not support, found at evaluation time.
    #[error("{message} is not supported")]
    Unsupported { message: String },
    /// A state of an LTS generated during the evaluation could not be expanded (the
    /// generator's message).
    #[error("{message}")]
    Generation { message: String },
}

/// What the evaluator reads of an LTS, one state at a time: an explicit one (`LtsView`) or one
/// whose states are generated only when the evaluation reaches them
/// (`lntcheck::on_the_fly`). Labels are numbered from 0 in the order they are met, and a
/// state's edges never change once it is expanded.
pub(crate) trait Successors {
    fn initial(&self) -> u32;
    /// The number of outgoing edges of `state`, generated first if they were not yet.
    fn expand(&mut self, state: u32) -> Result<usize, EvalError>;
    /// Edge `i` of `state` (expanded before): (label index, target).
    fn edge(&self, state: u32, i: usize) -> (u32, u32);
    /// The text of label `label` (met on an edge before).
    fn label(&self, label: u32) -> &str;
}

impl Successors for LtsView<'_> {
    fn initial(&self) -> u32 {
        self.initial
    }

    #[inline]
    fn expand(&mut self, state: u32) -> Result<usize, EvalError> {
        Ok(self.succ[state as usize].len())
    }

    #[inline]
    fn edge(&self, state: u32, i: usize) -> (u32, u32) {
        self.succ[state as usize][i]
    }

    fn label(&self, label: u32) -> &str {
        &self.labels[label as usize]
    }
}

/// Decides `q` on `lts` from its initial state.
pub fn evaluate(q: &Query, mut lts: LtsView, limits: &Limits) -> Result<Evaluation, EvalError> {
    evaluate_on(q, &mut lts, limits)
}

/// Decides `q` on `lts` from its initial state, expanding only the states the evaluation
/// reaches: on an LTS generated on demand, the states beyond are never generated.
pub(crate) fn evaluate_on<L: Successors>(q: &Query, lts: &mut L, limits: &Limits) -> Result<Evaluation, EvalError> {
    let init = lts.initial();
    let mut ev = Evaluator::new(q, lts, limits);
    let holds = ev.value(q.root, init, &[])?;
    let diagnostic = ev.explain(holds)?;
    Ok(Evaluation { holds, diagnostic: Some(diagnostic), states_explored: ev.explored })
}

/// A value in a label: an integer, a Boolean, or anything else (never equal to MCL data).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LabelValue {
    Int(i64),
    Bool(bool),
    Other,
}

struct ParsedLabel {
    gate: String,
    offers: Vec<LabelValue>,
}

fn parse_label(label: &str) -> ParsedLabel {
    let mut parts = label.split(" !");
    let gate = parts.next().unwrap_or("").trim().to_ascii_uppercase();
    let offers = parts
        .map(|p| {
            let p = p.trim();
            if let Ok(n) = p.parse::<i64>() {
                LabelValue::Int(n)
            } else if p == "TRUE" {
                LabelValue::Bool(true)
            } else if p == "FALSE" {
                LabelValue::Bool(false)
            } else {
                LabelValue::Other
            }
        })
        .collect();
    ParsedLabel { gate, offers }
}

/// Values derived by a block of sign `mu` are `true`, by a block of sign `nu` `false`.
pub(super) fn derived_value(sign: Sign) -> bool {
    sign == Sign::Mu
}

pub(super) const NONE: u32 = u32::MAX;
/// `parent` of a node that is the right-hand side of variable `v`: `ROOT | v`.
const ROOT: u32 = 1 << 31;

/// A residual formula: a constant, or a node of the block's graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Res {
    Const(bool),
    Node(u32),
}

#[derive(Default)]
pub(super) struct Block {
    pub(super) index: FxHashMap<(FixId, u32, u32), u32>,
    /// Per variable: (fixed point, state, environment id).
    keys: Vec<(FixId, u32, u32)>,
    explored: Vec<bool>,
    /// Derivation order, `NONE` while not derived.
    pub(super) rank: Vec<u32>,
    occ_head: Vec<u32>,
    /// Per graph node.
    parent: Vec<u32>,
    need: Vec<u32>,
    occ_next: Vec<u32>,
    /// Unexplored variables.
    stack: Vec<u32>,
    next_rank: u32,
}

impl Block {
    fn derived(&self, v: u32) -> bool {
        self.rank[v as usize] != NONE
    }

    fn new_node(&mut self, need: u32) -> u32 {
        self.parent.push(NONE);
        self.need.push(need);
        self.occ_next.push(NONE);
        (self.parent.len() - 1) as u32
    }

    /// Marks `v` derived and propagates to every node that waits for it.
    fn derive(&mut self, v: u32) {
        let mut work = vec![v];
        while let Some(v) = work.pop() {
            if self.derived(v) {
                continue;
            }
            self.rank[v as usize] = self.next_rank;
            self.next_rank += 1;
            let mut leaf = self.occ_head[v as usize];
            while leaf != NONE {
                let mut n = leaf;
                loop {
                    if self.need[n as usize] == 0 {
                        break;
                    }
                    self.need[n as usize] -= 1;
                    if self.need[n as usize] > 0 {
                        break;
                    }
                    let p = self.parent[n as usize];
                    if p == NONE {
                        break;
                    }
                    if p & ROOT != 0 {
                        work.push(p & !ROOT);
                        break;
                    }
                    n = p;
                }
                leaf = self.occ_next[leaf as usize];
            }
        }
    }
}

/// Whether an action formula matches a label and, if so, the values it binds.
type ActMatch = Option<Box<[i64]>>;

pub(super) struct Evaluator<'q, 'l, L: Successors> {
    pub(super) q: &'q Query,
    pub(super) lts: &'l mut L,
    limits: &'l Limits,
    /// The labels met so far, parsed (label indices are dense, in the order they are met).
    labels: Vec<ParsedLabel>,
    /// Per action, per label met: the match and its bound values, for actions that do not
    /// read the environment.
    act_cache: Vec<Vec<Option<ActMatch>>>,
    envs: FxHashMap<Box<[i64]>, u32>,
    env_list: Vec<Box<[i64]>>,
    pub(super) blocks: Vec<Block>,
    /// The products explored for `@` (looping.rs), per (loop, environment).
    pub(super) loops: FxHashMap<(u32, Box<[i64]>), super::looping::Product>,
    pub(super) explored: usize,
}

impl<'q, 'l, L: Successors> Evaluator<'q, 'l, L> {
    fn new(q: &'q Query, lts: &'l mut L, limits: &'l Limits) -> Self {
        let act_cache = q.acts.iter().map(|_| vec![]).collect();
        let blocks = q.block_sign.iter().map(|_| Block::default()).collect();
        Evaluator {
            q,
            lts,
            limits,
            labels: vec![],
            act_cache,
            envs: FxHashMap::default(),
            env_list: Vec::new(),
            blocks,
            loops: FxHashMap::default(),
            explored: 0,
        }
    }

    pub(super) fn env_id(&mut self, env: &[i64]) -> u32 {
        if let Some(&id) = self.envs.get(env) {
            return id;
        }
        let id = self.env_list.len() as u32;
        self.env_list.push(env.into());
        self.envs.insert(env.into(), id);
        id
    }

    /// The run's bounds, as its other stages set them. `--max-states` bounds the LTSs
    /// generated (a generation on the fly stops the run through `limits`), not the pairs the
    /// evaluation explores on a finite LTS: those are bounded by the time and memory bounds.
    pub(super) fn check_limits(&self) -> Result<(), EvalError> {
        match self.limits.stopped() {
            None => Ok(()),
            Some(StopReason::Timeout) => Err(EvalError::Timeout),
            Some(StopReason::Interrupted) => Err(EvalError::Interrupted),
            Some(StopReason::Memory) => Err(EvalError::Memory),
            Some(StopReason::MaxStates) => Err(EvalError::StateLimit { limit: self.limits.max_states().unwrap_or(0) }),
        }
    }

    // ---- data ----

    pub(super) fn data(&self, d: &DExpr, env: &[i64]) -> Result<i64, EvalError> {
        let rt = |m: &str| EvalError::Runtime { message: m.to_string() };
        let overflow = || rt("integer overflow");
        Ok(match d {
            DExpr::Const(c) => *c,
            DExpr::Slot(s) => env[*s as usize],
            DExpr::Not(a) => (self.data(a, env)? == 0) as i64,
            DExpr::Neg(a) => self.data(a, env)?.checked_neg().ok_or_else(overflow)?,
            DExpr::Abs(a) => self.data(a, env)?.checked_abs().ok_or_else(overflow)?,
            DExpr::And(v) => {
                for x in v {
                    if self.data(x, env)? == 0 {
                        return Ok(0);
                    }
                }
                1
            }
            DExpr::Or(v) => {
                for x in v {
                    if self.data(x, env)? != 0 {
                        return Ok(1);
                    }
                }
                0
            }
            DExpr::Cmp(op, a, b) => {
                let (x, y) = (self.data(a, env)?, self.data(b, env)?);
                (match op {
                    BinOp::Eq => x == y,
                    BinOp::Ne => x != y,
                    BinOp::Lt => x < y,
                    BinOp::Le => x <= y,
                    BinOp::Gt => x > y,
                    _ => x >= y,
                }) as i64
            }
            DExpr::Arith(op, t, a, b) => {
                let (x, y) = (self.data(a, env)?, self.data(b, env)?);
                let r = match op {
                    BinOp::Add => x.checked_add(y),
                    BinOp::Sub => x.checked_sub(y),
                    BinOp::Mul => x.checked_mul(y),
                    BinOp::Div | BinOp::Mod if y == 0 => return Err(rt("division by zero")),
                    BinOp::Div => x.checked_div(y),
                    _ => x.checked_rem(y),
                }
                .ok_or_else(overflow)?;
                if *t == Type::Nat && r < 0 {
                    return Err(rt(&format!("Nat subtraction {x} - {y} is negative")));
                }
                r
            }
        })
    }

    // ---- actions ----

    /// Whether `act` matches `label` in `env`; the values bound by a pattern are appended to
    /// `binds`.
    pub(super) fn matches(
        &mut self,
        act: ActId,
        label: u32,
        env: &[i64],
        binds: &mut Vec<i64>,
    ) -> Result<bool, EvalError> {
        if label as usize >= self.labels.len() {
            self.learn_labels(label);
        }
        if !self.q.act_reads_env[act as usize] {
            if let Some(cached) = &self.act_cache[act as usize][label as usize] {
                if let Some(b) = cached {
                    binds.extend_from_slice(b);
                }
                return Ok(cached.is_some());
            }
            let mut b = Vec::new();
            let m = self.match_act(act, label, env, &mut b)?;
            let entry = m.then(|| b.clone().into_boxed_slice());
            self.act_cache[act as usize][label as usize] = Some(entry);
            binds.extend(b);
            return Ok(m);
        }
        self.match_act(act, label, env, binds)
    }

    /// Parses the labels up to `label` (the LTS numbers them densely as they are met).
    #[cold]
    fn learn_labels(&mut self, label: u32) {
        while self.labels.len() <= label as usize {
            let l = parse_label(self.lts.label(self.labels.len() as u32));
            self.labels.push(l);
        }
        for cache in &mut self.act_cache {
            cache.resize(self.labels.len(), None);
        }
    }

    fn match_act(&self, act: ActId, label: u32, env: &[i64], binds: &mut Vec<i64>) -> Result<bool, EvalError> {
        Ok(match &self.q.acts[act as usize] {
            Act::True => true,
            Act::False => false,
            Act::Label(s) => self.lts.label(label) == s,
            Act::Not(a) => !self.match_act(*a, label, env, &mut Vec::new())?,
            Act::And(v) => {
                for a in v {
                    if !self.match_act(*a, label, env, &mut Vec::new())? {
                        return Ok(false);
                    }
                }
                true
            }
            Act::Or(v) => {
                for a in v {
                    if self.match_act(*a, label, env, &mut Vec::new())? {
                        return Ok(true);
                    }
                }
                false
            }
            Act::Pattern { gate, offers, more, guard } => {
                let l = &self.labels[label as usize];
                if !l.gate.eq_ignore_ascii_case(gate) {
                    return Ok(false);
                }
                if l.offers.len() < offers.len() || (!more && l.offers.len() != offers.len()) {
                    return Ok(false);
                }
                let mut scope: Vec<i64> = env.to_vec();
                let base = binds.len();
                for (o, v) in offers.iter().zip(&l.offers) {
                    match o {
                        AOffer::Any => {}
                        AOffer::Emit(e, t) => {
                            let want = self.data(e, &scope)?;
                            let ok = match (t, v) {
                                (Type::Bool, LabelValue::Bool(b)) => want == *b as i64,
                                (Type::Nat | Type::Int, LabelValue::Int(n)) => want == *n,
                                _ => false,
                            };
                            if !ok {
                                binds.truncate(base);
                                return Ok(false);
                            }
                        }
                        AOffer::Bind(t) => {
                            let x = match (t, v) {
                                (Type::Bool, LabelValue::Bool(b)) => *b as i64,
                                (Type::Int, LabelValue::Int(n)) => *n,
                                (Type::Nat, LabelValue::Int(n)) if *n >= 0 => *n,
                                _ => {
                                    binds.truncate(base);
                                    return Ok(false);
                                }
                            };
                            scope.push(x);
                            binds.push(x);
                        }
                    }
                }
                if let Some(g) = guard
                    && self.data(g, &scope)? == 0
                {
                    binds.truncate(base);
                    return Ok(false);
                }
                true
            }
        })
    }

    // ---- formulas ----

    /// The value of `node` at `state` in `env`, every fixed point solved as needed.
    fn value(&mut self, node: NodeId, state: u32, env: &[i64]) -> Result<bool, EvalError> {
        match self.residual(None, node, state, env)? {
            Res::Const(b) => Ok(b),
            Res::Node(_) => Err(EvalError::Unsupported { message: "an open formula".into() }),
        }
    }

    /// The environment of a call: the first `outer` slots, then the arguments.
    pub(super) fn call_env(&self, fix: FixId, args: &[DExpr], env: &[i64]) -> Result<Vec<i64>, EvalError> {
        let outer = self.q.fixes[fix as usize].outer as usize;
        let mut e = Vec::with_capacity(outer + args.len());
        e.extend_from_slice(&env[..outer]);
        for a in args {
            e.push(self.data(a, env)?);
        }
        Ok(e)
    }

    /// `node` at `state` in `env` as a residual over the variables of block `block` (other
    /// blocks are solved); with `block = None`, fully evaluated.
    fn residual(&mut self, block: Option<u32>, node: NodeId, state: u32, env: &[i64]) -> Result<Res, EvalError> {
        let q = self.q;
        match &q.nodes[node as usize] {
            Node::Const(b) => Ok(Res::Const(*b)),
            Node::Data(d) => Ok(Res::Const(self.data(d, env)? != 0)),
            Node::And(v) | Node::Or(v) => {
                let conj = matches!(q.nodes[node as usize], Node::And(_));
                let mut kids = Vec::new();
                for &c in v {
                    match self.residual(block, c, state, env)? {
                        Res::Const(b) if b == conj => {}
                        Res::Const(b) => return Ok(Res::Const(b)),
                        r => kids.push(r),
                    }
                }
                Ok(self.combine(block, conj, kids))
            }
            Node::Diamond { act, depth, target } | Node::Box { act, depth, target } => {
                let conj = matches!(q.nodes[node as usize], Node::Box { .. });
                let mut kids = Vec::new();
                let mut scope: Vec<i64> = env[..*depth as usize].to_vec();
                for i in 0..self.lts.expand(state)? {
                    let (label, to) = self.lts.edge(state, i);
                    scope.truncate(*depth as usize);
                    if !self.matches(*act, label, &env[..*depth as usize], &mut scope)? {
                        continue;
                    }
                    match self.residual(block, *target, to, &scope)? {
                        Res::Const(b) if b == conj => {}
                        Res::Const(b) => return Ok(Res::Const(b)),
                        r => kids.push(r),
                    }
                }
                Ok(self.combine(block, conj, kids))
            }
            Node::Loop { aut, depth, exists } => {
                Ok(Res::Const(self.looping(*aut, state, &env[..*depth as usize])? == *exists))
            }
            Node::Call { fix, args } => {
                let callee = self.call_env(*fix, args, env)?;
                let b = q.fixes[*fix as usize].block;
                if Some(b) == block {
                    let env_id = self.env_id(&callee);
                    Ok(self.leaf(b, *fix, state, env_id))
                } else {
                    self.solve(*fix, state, &callee).map(Res::Const)
                }
            }
        }
    }

    fn combine(&mut self, block: Option<u32>, conj: bool, kids: Vec<Res>) -> Res {
        match kids.len() {
            0 => Res::Const(conj),
            1 => kids[0],
            _ => {
                let Some(b) = block else { return Res::Const(conj) };
                let derived = derived_value(self.q.block_sign[b as usize]);
                // A conjunction derives `true` when all its children do, `false` when one does.
                let need = if conj == derived { kids.len() as u32 } else { 1 };
                let blk = &mut self.blocks[b as usize];
                let n = blk.new_node(need);
                for k in kids {
                    if let Res::Node(c) = k {
                        blk.parent[c as usize] = n;
                    }
                }
                Res::Node(n)
            }
        }
    }

    /// A reference to variable (fix, state, env) of block `b`: its value if derived, else a
    /// leaf waiting for it.
    fn leaf(&mut self, b: u32, fix: FixId, state: u32, env: u32) -> Res {
        let derived = derived_value(self.q.block_sign[b as usize]);
        let v = self.var(b, fix, state, env);
        let blk = &mut self.blocks[b as usize];
        if blk.derived(v) {
            return Res::Const(derived);
        }
        let n = blk.new_node(1);
        blk.occ_next[n as usize] = blk.occ_head[v as usize];
        blk.occ_head[v as usize] = n;
        Res::Node(n)
    }

    pub(super) fn var(&mut self, b: u32, fix: FixId, state: u32, env: u32) -> u32 {
        let blk = &mut self.blocks[b as usize];
        let next = blk.keys.len() as u32;
        let v = *blk.index.entry((fix, state, env)).or_insert(next);
        if v == next {
            blk.keys.push((fix, state, env));
            blk.explored.push(false);
            blk.rank.push(NONE);
            blk.occ_head.push(NONE);
            blk.stack.push(v);
        }
        v
    }

    /// The value of fixed point `fix` at `state` with environment `env`.
    pub(super) fn solve(&mut self, fix: FixId, state: u32, env: &[i64]) -> Result<bool, EvalError> {
        let b = self.q.fixes[fix as usize].block;
        let derived = derived_value(self.q.block_sign[b as usize]);
        let env_id = self.env_id(env);
        let target = self.var(b, fix, state, env_id);
        loop {
            let blk = &mut self.blocks[b as usize];
            if blk.derived(target) {
                return Ok(derived);
            }
            let Some(v) = blk.stack.pop() else { return Ok(!derived) };
            if std::mem::replace(&mut blk.explored[v as usize], true) {
                continue;
            }
            let (f, s, e) = blk.keys[v as usize];
            self.explored += 1;
            self.check_limits()?;
            let env = self.env_list[e as usize].clone();
            match self.residual(Some(b), self.q.fixes[f as usize].body, s, &env)? {
                Res::Const(c) if c == derived => self.blocks[b as usize].derive(v),
                Res::Const(_) => {}
                Res::Node(n) => {
                    let blk = &mut self.blocks[b as usize];
                    blk.parent[n as usize] = ROOT | v;
                    if blk.need[n as usize] == 0 {
                        blk.derive(v);
                    }
                }
            }
        }
    }
}
