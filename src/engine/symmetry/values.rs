//! Symmetries of values (docs/reductions.md): maps of states that mirror some variables'
//! values about the centre of their domain (`x ↦ c - x`) and exchange variables of equal
//! domains, in every agent's copy alike, and that map steps to steps and keep every predicate
//! of the properties.
//!
//! Candidates are all such maps over the scalar variables whose domain (from the value
//! analysis, a sound superset of the values they take) is small; they form a group (signed
//! permutations). Each candidate is checked exhaustively: every agent step, link predicate and
//! property predicate is evaluated on every assignment of the variables it depends on, over
//! their domains, in a state and in its image, and must agree. Message steps copy values and
//! compare timestamps only, so they commute with any such map that keeps each variable in its
//! tuple. The candidates that pass form a subgroup, since automorphisms compose.

use crate::analysis::IntervalSet;
use crate::analysis::values::ValueAnalysis;
use crate::behaviour::{Behaviour, Step};
use crate::engine::eval::Scratch;
use crate::engine::state::{BOT, Layout};
use crate::engine::step::{RuntimeError, Stepper, Work};
use crate::model::{ActionKind, AgentRef, Assign, BExpr, Expr, Model, QPred, Stmt, Store, TupleId, VarId};
use std::collections::{BTreeSet, HashSet};

/// A predicate evaluated on a state (a property's or a link's), as both sides of a check see it.
type Evaluation<'e> = dyn Fn(&Stepper, &[i32], &mut Scratch) -> Result<bool, RuntimeError> + 'e;

/// One slot of a mapped state: slot `to` takes the value of slot `from`, mirrored about
/// `mirror / 2` (`v ↦ mirror - v`) when set; ⊥ stays ⊥.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotMove {
    pub to: u32,
    pub from: u32,
    pub mirror: Option<i32>,
}

impl SlotMove {
    #[inline]
    pub(crate) fn value(&self, v: i32) -> i32 {
        match self.mirror {
            Some(c) if v != BOT => c - v,
            _ => v,
        }
    }
}

/// A symmetry of values acting on states, and in words (`x, dirx := 4 - x, -dirx`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueMap {
    /// Every slot the map changes (all others keep their value).
    pub moves: Vec<SlotMove>,
    pub text: String,
    /// `moves` within the environment.
    pub(crate) env: Vec<SlotMove>,
    /// Per agent, per slot of its block: where the slot's image comes from (relative to the
    /// block) and whether it is mirrored (the identity for slots the map leaves alone).
    pub(crate) blocks: Vec<Vec<SlotMove>>,
}

impl ValueMap {
    fn new(moves: Vec<SlotMove>, text: String, lay: &Layout) -> ValueMap {
        let env = moves.iter().filter(|m| (m.to as usize) < lay.env_len).copied().collect();
        let blocks = (0..lay.n_agents)
            .map(|a| {
                let lo = lay.base(a) as u32;
                let mut dense: Vec<SlotMove> =
                    (0..lay.agent_stride as u32).map(|i| SlotMove { to: i, from: i, mirror: None }).collect();
                for m in moves.iter().filter(|m| (lo..lo + lay.agent_stride as u32).contains(&m.to)) {
                    debug_assert!(m.from >= lo && m.from - lo < lay.agent_stride as u32, "a map stays within a block");
                    dense[(m.to - lo) as usize] = SlotMove { to: m.to - lo, from: m.from - lo, mirror: m.mirror };
                }
                dense
            })
            .collect();
        ValueMap { moves, text, env, blocks }
    }

    /// `out` := the image of `s`.
    pub fn apply(&self, s: &[i32], out: &mut [i32]) {
        out.copy_from_slice(s);
        for m in &self.moves {
            out[m.to as usize] = m.value(s[m.from as usize]);
        }
    }
}

/// The symmetries of values found, and what limited them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ValueSymmetries {
    /// The group's elements other than the identity.
    pub maps: Vec<ValueMap>,
    /// A generating set, in words.
    pub generators: Vec<String>,
    /// Why there are none (or not all that were found), when something stood in the way.
    pub note: Option<String>,
}

/// Elements of the group of values the explorer uses at most (each state is mapped by all).
const MAX_GROUP: usize = 64;
/// Candidates checked at most.
const MAX_CANDIDATES: usize = 4096;
/// Exchanges of variables (products of permutations within classes) tried at most.
const MAX_PERMUTATIONS: usize = 48;
/// Values per variable domain at most, for a candidate variable and for enumeration.
const MAX_DOMAIN: u64 = 64;
/// States one check may enumerate, and all checks together.
const MAX_CHECK_STATES: u64 = 1 << 16;
const MAX_TOTAL_STATES: u64 = 1 << 18;

/// A map of values at the level of variables: variable `v`'s values go to variable `to[v]`,
/// mirrored when `mirror[v]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct VarMap {
    to: Vec<VarId>,
    mirror: Vec<bool>,
}

impl VarMap {
    fn identity(n: usize) -> VarMap {
        VarMap { to: (0..n).collect(), mirror: vec![false; n] }
    }
    fn is_identity(&self) -> bool {
        self.to.iter().enumerate().all(|(v, &t)| v == t) && !self.mirror.iter().any(|&m| m)
    }
    /// `self` then `b`.
    fn then(&self, b: &VarMap) -> VarMap {
        VarMap {
            to: self.to.iter().map(|&t| b.to[t]).collect(),
            mirror: self.to.iter().enumerate().map(|(v, &t)| self.mirror[v] ^ b.mirror[t]).collect(),
        }
    }
    fn support(&self) -> BTreeSet<VarId> {
        (0..self.to.len()).filter(|&v| self.to[v] != v || self.mirror[v]).collect()
    }
    /// The variables whose values flow into `vars`.
    fn preimage(&self, vars: &BTreeSet<VarId>) -> BTreeSet<VarId> {
        (0..self.to.len()).filter(|&v| vars.contains(&self.to[v])).collect()
    }
}

/// The variables an expression reads: in the acting agent's or the pair's copies (`own`), in
/// other agents' copies (`others`), and whether it reads an agent id.
#[derive(Default, Clone)]
struct Reads {
    own: BTreeSet<VarId>,
    others: BTreeSet<VarId>,
    ids: bool,
    /// Whether a copy is named by an expression (`x of e`): in a link, a third agent's.
    named: bool,
}

impl Reads {
    fn expr(&mut self, e: &Expr) {
        e.walk(&mut |x| match x {
            Expr::Var(v) => {
                self.named |= matches!(v.owner, AgentRef::Of(_));
                let other = matches!(v.owner, AgentRef::Of(_) | AgentRef::C2);
                if other { &mut self.others } else { &mut self.own }.insert(v.var);
            }
            Expr::AgentId(_) | Expr::QVar(_) => self.ids = true,
            _ => {}
        });
    }
    fn bexpr(&mut self, b: &BExpr) {
        b.walk_exprs(&mut |e| self.expr(e));
    }
    fn all(&self) -> BTreeSet<VarId> {
        self.own.union(&self.others).copied().collect()
    }
    fn assign(&mut self, a: &Assign, writes: &mut BTreeSet<VarId>) {
        for t in &a.targets {
            writes.insert(t.var);
            t.indices.iter().for_each(|i| self.expr(i));
        }
        a.values.iter().for_each(|v| self.expr(v));
    }
}

/// What the steps of one agent type read and write.
struct TypeAccess {
    reads: Reads,
    writes: BTreeSet<VarId>,
}

fn type_access(b: &Behaviour) -> TypeAccess {
    let mut r = Reads::default();
    let mut writes = BTreeSet::new();
    for e in b.edges.iter().flatten() {
        e.guards.iter().for_each(|g| r.bexpr(g));
        let Step::Act(a) = &e.step else { continue };
        match &a.kind {
            ActionKind::Assign(asg) => r.assign(asg, &mut writes),
            ActionKind::Block { stmts, .. } => {
                for s in stmts {
                    match s {
                        Stmt::Assign(asg) => r.assign(asg, &mut writes),
                        Stmt::Local { slots, values } => {
                            values.iter().for_each(|v| r.expr(v));
                            slots.iter().filter_map(|t| t.index.as_ref()).for_each(|i| r.expr(i));
                        }
                        Stmt::Pick { filter, .. } => {
                            // The candidates' copies are read: other agents.
                            r.ids = true;
                            filter.iter().for_each(|f| r.bexpr(f));
                        }
                        Stmt::Quant { pred, .. } => {
                            r.ids = true;
                            r.bexpr(&pred.body);
                        }
                        Stmt::Count { pred, .. } => {
                            r.ids = true;
                            r.bexpr(pred);
                        }
                    }
                }
            }
        }
    }
    // Quantified and picked agents' copies are read through `Of`: `others` has them.
    TypeAccess { reads: r, writes }
}

/// Every predicate of every property.
fn property_preds(model: &Model) -> Vec<&QPred> {
    model.properties.iter().flat_map(|p| p.predicates()).collect()
}

/// A variable's values when it can be enumerated: its domain's values, ⊥ first when it may
/// be undefined.
fn values_of(set: &IntervalSet) -> Option<Vec<i32>> {
    let it = set.iter_values(MAX_DOMAIN)?;
    let mut out: Vec<i32> = set.contains_undef().then_some(BOT).into_iter().collect();
    for v in it {
        out.push(i32::try_from(v).ok().filter(|&v| v != BOT)?);
    }
    Some(out)
}

struct Finder<'a> {
    model: &'a Model,
    stepper: &'a Stepper<'a>,
    /// Per variable: its values (all copies together), when few.
    domain: Vec<Option<Vec<i32>>>,
    /// Per variable: twice the centre of its domain, when it is symmetric about it.
    centre: Vec<Option<i32>>,
    /// A state to fill in: the first initial state.
    template: Vec<i32>,
    /// The slots of each variable in every agent (and the environment).
    all_slots: Vec<Vec<usize>>,
    /// Every property predicate, with the variables it reads.
    preds: Vec<(&'a QPred, BTreeSet<VarId>)>,
    /// Each stigmergy whose link is not constant: (stigmergy, its first tuple, what the link reads).
    links: Vec<(usize, TupleId, Reads)>,
    /// States enumerated so far, against `MAX_TOTAL_STATES`.
    spent: u64,
    /// Why a check could not be made.
    too_big: Option<String>,
    work: Work,
    sc: Scratch,
    /// Compare the steps from a state and from its image as lists with repetitions, not as
    /// sets: the symmetry then also keeps the number of transitions into each successor,
    /// which the probabilities of `verify --probability` count (docs/reductions.md).
    counted: bool,
}

impl Finder<'_> {
    /// The slots of variable `v` held by agent `a` (an environment variable's: its own).
    fn slots_in(&self, v: VarId, a: usize) -> Vec<usize> {
        let var = &self.model.vars[v];
        let lay = &self.stepper.lay;
        let ty = self.model.type_of(a);
        let range = var.offset..var.offset + var.len;
        match var.store {
            Store::Env => range.collect(),
            Store::Attr if self.model.agent_types[ty].attrs.contains(&v) => range.map(|o| lay.attr(a, o)).collect(),
            Store::Stig { stigmergy, .. } if self.model.holds(ty, stigmergy) => range.map(|o| lay.stig(a, o)).collect(),
            _ => Vec::new(),
        }
    }

    /// The slots of `v` in every agent (and the environment).
    fn slots_all(&self, v: VarId) -> Vec<usize> {
        self.all_slots[v].clone()
    }

    /// Whether `eval` has the same value (or fails alike) on every assignment of `slots`
    /// (`None`: a variable with too many values, in `what`) and on its image under `h`.
    fn values_agree(
        &mut self,
        slots: Option<Vec<(usize, Vec<i32>)>>,
        what: &str,
        h: &ValueMap,
        eval: &Evaluation<'_>,
    ) -> bool {
        let Some(slots) = slots else {
            self.too_big.get_or_insert_with(|| format!("{what} reads a variable with too many values"));
            return false;
        };
        let base = self.template.clone();
        let mut img = base.clone();
        self.for_all(&base, &slots, &mut |f, st| {
            h.apply(st, &mut img);
            same(&eval(f.stepper, st, &mut f.sc), &eval(f.stepper, &img, &mut f.sc))
        })
    }

    /// The state map of `m`.
    fn state_map(&self, m: &VarMap) -> Vec<SlotMove> {
        let mut moves = Vec::new();
        for v in m.support() {
            let mirror = m.mirror[v].then(|| self.centre[v].expect("a mirrored variable has a centre"));
            let (from, to) = (self.slots_all(v), self.slots_all(m.to[v]));
            debug_assert_eq!(from.len(), to.len());
            moves.extend(from.iter().zip(&to).map(|(&f, &t)| SlotMove { to: t as u32, from: f as u32, mirror }));
        }
        moves
    }

    /// Calls `f` on `base` with `slots` set to every combination of their variables'
    /// values; false at the first `f` that is false, or when there are too many.
    fn for_all(
        &mut self,
        base: &[i32],
        slots: &[(usize, Vec<i32>)],
        f: &mut dyn FnMut(&mut Self, &[i32]) -> bool,
    ) -> bool {
        let count = slots.iter().try_fold(1u64, |n, (_, vs)| n.checked_mul(vs.len() as u64));
        match count {
            Some(c) if c <= MAX_CHECK_STATES && self.spent + c <= MAX_TOTAL_STATES => self.spent += c,
            _ => {
                self.too_big.get_or_insert_with(|| "checking them would take too many evaluations".into());
                return false;
            }
        }
        if slots.iter().any(|(_, vs)| vs.is_empty()) {
            return true;
        }
        let mut st = base.to_vec();
        let mut digit = vec![0usize; slots.len()];
        for (i, (s, vs)) in slots.iter().enumerate() {
            st[*s] = vs[digit[i]];
        }
        loop {
            if !f(self, &st) {
                return false;
            }
            let mut i = 0;
            loop {
                if i == slots.len() {
                    return true;
                }
                digit[i] += 1;
                if digit[i] < slots[i].1.len() {
                    st[slots[i].0] = slots[i].1[digit[i]];
                    break;
                }
                digit[i] = 0;
                st[slots[i].0] = slots[i].1[0];
                i += 1;
            }
        }
    }

    /// `(slot, values)` for the given slots of `vars`; `None` when a variable cannot be
    /// enumerated.
    fn enumeration(
        &self,
        vars: &BTreeSet<VarId>,
        slots_of: &dyn Fn(VarId) -> Vec<usize>,
    ) -> Option<Vec<(usize, Vec<i32>)>> {
        let mut out = Vec::new();
        for &v in vars {
            let vals = self.domain[v].clone()?;
            out.extend(slots_of(v).into_iter().map(|s| (s, vals.clone())));
        }
        out.sort_by_key(|(s, _)| *s);
        out.dedup_by_key(|(s, _)| *s);
        Some(out)
    }

    /// Whether the property predicates have the same value (or both fail) in each state and
    /// its image.
    fn preds_agree(&mut self, m: &VarMap, h: &ValueMap, support: &BTreeSet<VarId>) -> bool {
        for i in 0..self.preds.len() {
            let (q, reads) = (self.preds[i].0, &self.preds[i].1);
            if reads.is_disjoint(support) {
                continue;
            }
            let vars: BTreeSet<VarId> = reads.union(&m.preimage(reads)).copied().collect();
            let slots = self.enumeration(&vars, &|v| self.slots_all(v));
            if !self.values_agree(slots, "a property", h, &|st, s, sc| st.eval_pred(s, sc, q)) {
                return false;
            }
        }
        true
    }

    /// Whether each link predicate has the same value (or both fail) in each state and its
    /// image, for every sender and receiver.
    fn links_agree(&mut self, m: &VarMap, h: &ValueMap, support: &BTreeSet<VarId>) -> bool {
        let model = self.model;
        let n = self.stepper.lay.n_agents;
        for i in 0..self.links.len() {
            let (si, k, r) = (self.links[i].0, self.links[i].1, self.links[i].2.clone());
            let reads = r.all();
            if reads.is_disjoint(support) {
                continue;
            }
            let vars: BTreeSet<VarId> = reads.union(&m.preimage(&reads)).copied().collect();
            let holders: Vec<usize> = (0..n).filter(|&a| model.holds(model.type_of(a), si)).collect();
            // `c2` is the receiver: only `x of e` names a third agent.
            let others = r.named;
            // Without ids or third agents, one pair per pair of types stands for all.
            let mut pairs = Vec::new();
            let mut seen = HashSet::new();
            for &a in &holders {
                for &b in &holders {
                    if a != b && (r.ids || others || seen.insert((model.type_of(a), model.type_of(b)))) {
                        pairs.push((a, b));
                    }
                }
            }
            for (a, b) in pairs {
                let slots = self.enumeration(&vars, &|v| {
                    if others {
                        return self.slots_all(v);
                    }
                    let mut x = self.slots_in(v, a);
                    x.extend(self.slots_in(v, b));
                    x
                });
                if !self.values_agree(slots, "a link predicate", h, &|st, s, sc| st.link_holds(s, k, a, b, sc)) {
                    return false;
                }
            }
        }
        true
    }

    /// Whether the agent steps from each state and from its image correspond: the image's
    /// successors are the images of the successors (or both fail).
    fn steps_agree(&mut self, m: &VarMap, h: &ValueMap, support: &BTreeSet<VarId>, access: &[TypeAccess]) -> bool {
        let model = self.model;
        let lay = self.stepper.lay.clone();
        for (t, ty) in model.agent_types.iter().enumerate() {
            if ty.count == 0 {
                continue;
            }
            let acc = &access[t];
            let touched: BTreeSet<VarId> = acc.reads.all().union(&acc.writes).copied().collect();
            if touched.is_disjoint(support) {
                continue;
            }
            let vars: BTreeSet<VarId> = touched.union(&m.preimage(&touched)).copied().collect();
            let others = !acc.reads.others.is_empty();
            let agents: Vec<usize> = if acc.reads.ids || others { ty.ids().collect() } else { vec![ty.first_id] };
            let n_ctl = self.stepper.behs[t].edges.len() as i32;
            for a in agents {
                let slots = self.enumeration(&vars, &|v| if others { self.slots_all(v) } else { self.slots_in(v, a) });
                let Some(mut slots) = slots else {
                    self.too_big.get_or_insert_with(|| "a behaviour reads a variable with too many values".into());
                    return false;
                };
                slots.push((lay.ctl(a), (0..n_ctl).collect()));
                let mut base = self.template.clone();
                let p = lay.zp(a);
                base[p..p + 2 * lay.mask_words].fill(0);
                if lay.fair {
                    base[lay.turn()] = a as i32;
                }
                let mut img = base.clone();
                let mut mapped = base.clone();
                let ok = self.for_all(&base, &slots, &mut |f, st| {
                    h.apply(st, &mut img);
                    let mut want: Vec<Vec<i32>> = Vec::new();
                    let x = f.stepper.agent_successors(st, a, &mut f.work, &mut |t| {
                        h.apply(t, &mut mapped);
                        want.push(mapped.clone());
                    });
                    let mut got: Vec<Vec<i32>> = Vec::new();
                    let y = f.stepper.agent_successors(&img, a, &mut f.work, &mut |t| got.push(t.to_vec()));
                    match (x, y) {
                        (Ok(()), Ok(())) => {
                            want.sort_unstable();
                            got.sort_unstable();
                            if !f.counted {
                                want.dedup();
                                got.dedup();
                            }
                            want == got
                        }
                        (Err(_), Err(_)) => true,
                        _ => false,
                    }
                });
                if !ok {
                    return false;
                }
            }
        }
        true
    }

    /// `x, dirx := 4 - x, -dirx`.
    fn describe(&self, m: &VarMap) -> String {
        let mut pairs: Vec<(VarId, String)> = m
            .support()
            .into_iter()
            .map(|v| {
                let name = &self.model.vars[v].name;
                let value = match (m.mirror[v], self.centre[v]) {
                    (true, Some(0)) => format!("-{name}"),
                    (true, Some(c)) => format!("{c} - {name}"),
                    _ => name.clone(),
                };
                (m.to[v], value)
            })
            .collect();
        pairs.sort();
        let lhs: Vec<&str> = pairs.iter().map(|(v, _)| self.model.vars[*v].name.as_str()).collect();
        let rhs: Vec<&str> = pairs.iter().map(|(_, x)| x.as_str()).collect();
        format!("{} := {}", lhs.join(", "), rhs.join(", "))
    }
}

fn same<E>(a: &Result<bool, E>, b: &Result<bool, E>) -> bool {
    match (a, b) {
        (Ok(x), Ok(y)) => x == y,
        (Err(_), Err(_)) => true,
        _ => false,
    }
}

/// All permutations of `items`.
fn permutations(items: &[VarId]) -> Vec<Vec<VarId>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let x = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, x);
            out.push(p);
        }
    }
    out
}

/// The subgroup generated by `gens`, or `None` once it exceeds `MAX_GROUP` elements.
fn closure(gens: &[VarMap], n: usize) -> Option<Vec<VarMap>> {
    let mut all = vec![VarMap::identity(n)];
    let mut seen: HashSet<VarMap> = all.iter().cloned().collect();
    let mut i = 0;
    while i < all.len() {
        for g in gens {
            let x = all[i].then(g);
            if seen.insert(x.clone()) {
                if all.len() >= MAX_GROUP {
                    return None;
                }
                all.push(x);
            }
        }
        i += 1;
    }
    Some(all)
}

/// The symmetries of values of `model`, checked on `stepper`'s steps.
pub(crate) fn find(
    model: &Model,
    behs: &[Behaviour],
    stepper: &Stepper,
    values: &ValueAnalysis,
    counted: bool,
) -> ValueSymmetries {
    let n = model.vars.len();
    let domain_set = |v: VarId| -> IntervalSet {
        match model.vars[v].store {
            Store::Env => values.get(v, None).cloned().unwrap_or_else(IntervalSet::empty),
            _ => {
                let mut s = IntervalSet::empty();
                for (t, ty) in model.agent_types.iter().enumerate() {
                    if ty.count > 0
                        && let Some(x) = values.get(v, Some(t))
                    {
                        s.join_assign(x);
                    }
                }
                s
            }
        }
    };
    let sets: Vec<IntervalSet> = (0..n).map(domain_set).collect();
    let domain: Vec<Option<Vec<i32>>> = sets.iter().map(values_of).collect();
    // Mirrored values must fit one byte, as every packed width does.
    let centre: Vec<Option<i32>> = (0..n)
        .map(|v| {
            let d = sets[v].defined();
            let (lo, hi) = (d.min()?, d.max()?);
            let vals = domain[v].as_ref()?;
            let ok = lo < hi
                && lo >= -127
                && hi <= 127
                && model.vars[v].len == 1
                && vals.iter().all(|&x| x == BOT || d.contains(lo + hi - x as i64));
            ok.then_some((lo + hi) as i32)
        })
        .collect();
    let mut template = None;
    let _ = stepper.for_each_initial(&mut |s| {
        template = Some(s.to_vec());
        false
    });
    let Some(template) = template else {
        return ValueSymmetries { note: Some("no initial state to check them on".into()), ..Default::default() };
    };
    // Exchangeable variables: scalars of one store (one tuple, one set of declaring types)
    // and one domain, with few values.
    let declaring = |v: VarId| -> Vec<usize> {
        (0..model.agent_types.len()).filter(|&t| model.agent_types[t].attrs.contains(&v)).collect()
    };
    let mut classes: Vec<Vec<VarId>> = Vec::new();
    let mut keys: Vec<(String, IntervalSet)> = Vec::new();
    for v in 0..n {
        let var = &model.vars[v];
        if var.len != 1 || domain[v].is_none() {
            continue;
        }
        let kind = match var.store {
            Store::Env => "env".to_string(),
            Store::Attr => format!("attr {:?}", declaring(v)),
            Store::Stig { tuple, .. } => format!("tuple {tuple}"),
        };
        let key = (kind, sets[v].clone());
        match keys.iter().position(|k| *k == key) {
            Some(i) => classes[i].push(v),
            None => {
                keys.push(key);
                classes.push(vec![v]);
            }
        }
    }
    // Permutations of each class (classes of one variable have only the identity), at most
    // `MAX_PERMUTATIONS` in all: larger classes are not permuted.
    let mut note = None;
    let mut perms: Vec<VarMap> = vec![VarMap::identity(n)];
    for c in classes.iter().filter(|c| c.len() > 1) {
        let count: usize = (1..=c.len()).product();
        if c.len() > 4 || perms.len() * count > MAX_PERMUTATIONS {
            note.get_or_insert_with(|| "some variables of equal domains are too many to exchange".into());
            continue;
        }
        let ps = permutations(c);
        perms = perms
            .iter()
            .flat_map(|m| {
                ps.iter().map(move |p| {
                    let mut m = m.clone();
                    for (&from, &to) in c.iter().zip(p) {
                        m.to[from] = to;
                    }
                    m
                })
            })
            .collect();
    }
    let mirrorable: Vec<VarId> = (0..n).filter(|&v| centre[v].is_some()).collect();
    // Mirrors of the first variables only, when all would make too many candidates.
    let fit = (MAX_CANDIDATES / perms.len()).ilog2() as usize;
    let mut mirrorable = mirrorable;
    if mirrorable.len() > fit {
        note = Some(format!(
            "{} variables could be mirrored, too many to try all combinations: only the first {fit} are",
            mirrorable.len()
        ));
        mirrorable.truncate(fit);
    }
    let access: Vec<TypeAccess> = behs.iter().map(type_access).collect();
    let preds = property_preds(model)
        .into_iter()
        .map(|q| {
            let mut r = Reads::default();
            r.bexpr(&q.body);
            (q, r.all())
        })
        .collect();
    let links = model
        .stigmergies
        .iter()
        .enumerate()
        .filter(|(_, s)| !matches!(s.link, BExpr::Const(_)))
        .filter_map(|(si, s)| {
            let mut r = Reads::default();
            r.bexpr(&s.link);
            Some((si, *s.tuples.first()?, r))
        })
        .collect();
    let mut f = Finder {
        model,
        stepper,
        domain,
        centre,
        template,
        all_slots: Vec::new(),
        preds,
        links,
        spent: 0,
        too_big: None,
        work: Work::default(),
        sc: Scratch::default(),
        counted,
    };
    f.all_slots = (0..n)
        .map(|v| {
            let mut out: Vec<usize> = (0..stepper.lay.n_agents).flat_map(|a| f.slots_in(v, a)).collect();
            out.sort_unstable();
            out.dedup();
            out
        })
        .collect();
    // The subgroup generated by the maps accepted so far, kept small enough to map every
    // state by all its elements. Its elements need no check (automorphisms compose), and once
    // it cannot grow within `MAX_GROUP` (a larger group is at least twice as large), the
    // search stops.
    let mut gens: Vec<VarMap> = Vec::new();
    let mut group = vec![VarMap::identity(n)];
    'search: for p in &perms {
        for bits in 0..1u64 << mirrorable.len() {
            if 2 * group.len() > MAX_GROUP {
                break 'search;
            }
            let mut m = p.clone();
            for (i, &v) in mirrorable.iter().enumerate() {
                m.mirror[v] = bits >> i & 1 == 1;
            }
            if group.contains(&m) {
                continue;
            }
            let support = m.support();
            let h = ValueMap::new(f.state_map(&m), String::new(), &stepper.lay);
            if !(f.preds_agree(&m, &h, &support)
                && f.steps_agree(&m, &h, &support, &access)
                && f.links_agree(&m, &h, &support))
            {
                continue;
            }
            let mut g = gens.clone();
            g.push(m);
            match closure(&g, n) {
                Some(all) => {
                    gens = g;
                    group = all;
                }
                None => {
                    note.get_or_insert_with(|| format!("only a subgroup of at most {MAX_GROUP} maps is used"));
                }
            }
        }
    }
    if 2 * group.len() > MAX_GROUP {
        note.get_or_insert_with(|| format!("the search stops at a group of {} maps", group.len()));
    }
    if gens.is_empty() && note.is_none() {
        note = f.too_big.clone();
    }
    let maps = group
        .iter()
        .filter(|m| !m.is_identity())
        .map(|m| ValueMap::new(f.state_map(m), f.describe(m), &stepper.lay))
        .collect();
    ValueSymmetries { maps, generators: gens.iter().map(|m| f.describe(m)).collect(), note }
}
