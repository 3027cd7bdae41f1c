//! The initial states of the model (docs/semantics.md, D2 and "Steps in detail"): listed in a
//! deterministic order, or drawn one at a time for a simulation.
//!
//! Every slot's initialiser gives a list of choices; the slots are grouped by owner (the
//! environment, then each agent in id order, which is the order of the state's slots). The
//! assumptions' conjuncts that read one owner only (`local_assume`) filter that owner's
//! combinations before the product of the owners is formed, so an assumption excluding every
//! value of one agent is found after listing that agent's combinations, not the product.

use super::local_assume::{Bounds, LocalCheck, Owner, local_checks};
use super::*;
use crate::engine::rng::SplitMix64;

/// A group of slots whose combined choices are listed for a sampler only up to this many.
const SAMPLER_LIST_LIMIT: u64 = 1 << 16;

/// How many draws (of a whole state, or of one owner's values checked on their own) a sampler
/// makes before it gives up finding a state the assumptions admit.
pub(crate) const INITIAL_DRAWS: u64 = 1_000_000;

/// An initialised slot: its owner (0 the environment, `1 + a` agent `a`), variable, position
/// and choices.
type InitSlot = (usize, VarId, usize, Vec<i32>);

/// One position of the odometer over the initial states.
enum Digit {
    /// One slot, with its initialiser's choices.
    Slot { pos: usize, choices: Vec<i32> },
    /// An owner's slots, with their combinations the local checks admit (`combos`, `pos.len()`
    /// values each, in odometer order: last slot fastest); `count` combinations.
    Listed { pos: Vec<usize>, combos: Vec<i32>, count: usize },
    /// An owner's slots with too many combinations to list: drawn, then checked (samplers only).
    Checked { slots: Vec<(usize, Vec<i32>)>, checks: Vec<LocalCheck> },
}

/// The initial states as the product of `digits` over `base` (the slots no initialiser sets),
/// filtered by the assumptions.
pub(crate) struct InitialSampler {
    base: Vec<i32>,
    digits: Vec<Digit>,
}

/// The outcome of one `InitialSampler::draw`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Drawn {
    State(Vec<i32>),
    /// No initial state exists (a slot without choices, or an owner the local checks exclude
    /// whole).
    NoneExists,
    /// `INITIAL_DRAWS` draws found no state the assumptions admit.
    GaveUp,
}

impl Stepper<'_> {
    /// All initial states (docs/semantics.md, "Steps in detail"), in a deterministic order.
    pub fn initial_states(&self) -> Result<Vec<Vec<i32>>, RuntimeError> {
        let mut out = Vec::new();
        self.for_each_initial(&mut |s| {
            out.push(s.to_vec());
            true
        })?;
        Ok(out)
    }

    /// Calls `f` on each initial state, in the order of `initial_states`, until `f` returns
    /// false (so that a bound can stop the enumeration before it runs out of memory). The
    /// order is the odometer over every slot's choices (the last slot fastest), whatever the
    /// pruning.
    pub(crate) fn for_each_initial(&self, f: &mut dyn FnMut(&[i32]) -> bool) -> Result<(), RuntimeError> {
        let prep = self.prepare_initial(None)?;
        if prep.digits.iter().any(|d| d.count() == Some(0)) {
            return Ok(());
        }
        let mut idx = vec![0usize; prep.digits.len()];
        let mut st = prep.base.clone();
        let mut sc = Scratch::default();
        loop {
            for (d, &i) in prep.digits.iter().zip(&idx) {
                d.write(i, &mut st);
            }
            if self.assumptions_hold(&st, &mut sc)? && !f(&st) {
                return Ok(());
            }
            // Odometer (last digit fastest).
            let mut i = prep.digits.len();
            loop {
                if i == 0 {
                    return Ok(());
                }
                i -= 1;
                idx[i] += 1;
                if Some(idx[i]) < prep.digits[i].count() {
                    break;
                }
                idx[i] = 0;
            }
        }
    }

    /// Whether `st` is an initial state: the slots no initialiser sets as before
    /// initialisation, every other one among its initialiser's choices, and the assumptions
    /// hold (a membership test, without listing the initial states).
    pub fn is_initial(&self, st: &[i32]) -> Result<bool, RuntimeError> {
        let base = self.initial_base();
        if st.len() != base.len() {
            return Ok(false);
        }
        let slots = self.initial_slots(&base)?;
        let mut set = vec![false; base.len()];
        for (_, _, pos, choices) in &slots {
            if !choices.contains(&st[*pos]) {
                return Ok(false);
            }
            set[*pos] = true;
        }
        if st.iter().zip(&base).zip(&set).any(|((v, b), set)| !set && v != b) {
            return Ok(false);
        }
        self.assumptions_hold(st, &mut Scratch::default())
    }

    /// A sampler of the initial states, for simulations: it draws without listing them.
    pub(crate) fn initial_sampler(&self) -> Result<InitialSampler, RuntimeError> {
        self.prepare_initial(Some(SAMPLER_LIST_LIMIT))
    }

    /// Whether every assumption holds in `st`, evaluated in order, each only if the ones
    /// before hold.
    fn assumptions_hold(&self, st: &[i32], sc: &mut Scratch) -> Result<bool, RuntimeError> {
        for asm in &self.model.assumptions {
            match self.ctx(None, Mode::Pred).eval_q(st, sc, &asm.pred) {
                Ok(true) => {}
                Ok(false) | Err(Stop::Disabled) => return Ok(false),
                Err(Stop::Error(m)) => return Err(RuntimeError(format!("{m} (in assumption {})", asm.name))),
            }
        }
        Ok(true)
    }

    /// Whether a local check holds on `st` (a run-time error keeps the state: the full
    /// evaluation of the assumptions reports it).
    fn local_holds(&self, st: &[i32], sc: &mut Scratch, c: &LocalCheck) -> bool {
        sc.qvars.clear();
        sc.qvars.extend_from_slice(&c.qvars);
        let r = self.ctx(None, Mode::Pred).eval_b(st, sc, &c.body);
        sc.qvars.clear();
        !matches!(r, Ok(false) | Err(Stop::Disabled))
    }

    /// The state before initialisation (every slot an initialiser does not set).
    pub(crate) fn initial_base(&self) -> Vec<i32> {
        let lay = &self.lay;
        let mut base = vec![BOT; lay.len];
        for a in 0..lay.n_agents {
            for k in 0..lay.n_tuples {
                base[lay.rank(a, k)] = 0;
            }
            let p = lay.zp(a);
            for x in &mut base[p..p + 2 * lay.mask_words] {
                *x = 0;
            }
            base[lay.ctl(a)] = self.behs[self.type_of[a]].initial as i32;
        }
        if lay.fair {
            base[lay.turn()] = 0;
        }
        // D2: ranks in id order among holders.
        for (k, hs) in self.holders.iter().enumerate() {
            for (r, &h) in hs.iter().enumerate() {
                base[lay.rank(h, k)] = r as i32;
            }
        }
        base
    }

    /// Every initialised slot, in the order of the state's slots.
    fn initial_slots(&self, base: &[i32]) -> Result<Vec<InitSlot>, RuntimeError> {
        let model = self.model;
        let lay = &self.lay;
        let mut slots = Vec::new();
        let mut sc = Scratch::default();
        let err = |m: String, name: &str| RuntimeError(format!("{m} (in the initialiser of `{name}`)"));
        let mut add = |var_id: VarId, init: &Init, me: Option<usize>, pos: &dyn Fn(usize) -> usize| {
            let var = &model.vars[var_id];
            let cx = self.ctx(me, Mode::Pred);
            let mut ev = |e: &crate::model::Expr| -> Result<i32, RuntimeError> {
                match cx.eval(base, &mut sc, e) {
                    Ok(v) => to_slot(v).map_err(|_| err("arithmetic overflow".into(), &var.name)),
                    Err(Stop::Error(m)) => Err(err(m, &var.name)),
                    Err(Stop::Disabled) => Ok(BOT),
                }
            };
            let choices: Vec<i32> = match init {
                Init::Undef => vec![BOT],
                Init::Single(e) => vec![ev(e)?],
                Init::Choice(es) => es.iter().map(&mut ev).collect::<Result<_, _>>()?,
                Init::Range(a, b) => {
                    let (a, b) = (ev(a)?, ev(b)?);
                    if a == BOT || b == BOT { vec![BOT] } else { (a..b).collect() }
                }
            };
            let owner = me.map_or(0, |a| a + 1);
            for e in 0..var.len {
                slots.push((owner, var_id, pos(var.offset + e), choices.clone()));
            }
            Ok::<(), RuntimeError>(())
        };
        for (v, var) in model.vars.iter().enumerate() {
            if var.store == Store::Env
                && let Some(init) = var.init_for(None)
            {
                add(v, init, None, &|s| s)?;
            }
        }
        for a in 0..lay.n_agents {
            let ty = self.type_of[a];
            for &v in &model.agent_types[ty].attrs {
                if let Some(init) = model.vars[v].init_for(Some(ty)) {
                    add(v, init, Some(a), &|s| lay.attr(a, s))?;
                }
            }
            for (v, var) in model.vars.iter().enumerate() {
                if let Store::Stig { stigmergy, .. } = var.store
                    && model.holds(ty, stigmergy)
                    && let Some(init) = var.init_for(None)
                {
                    add(v, init, Some(a), &|s| lay.stig(a, s))?;
                }
            }
        }
        Ok(slots)
    }

    /// The digits of the initial states: one per slot, except for the owners with local
    /// checks, whose admitted combinations are listed (those with more than `list_limit`
    /// combinations are drawn and checked instead).
    fn prepare_initial(&self, list_limit: Option<u64>) -> Result<InitialSampler, RuntimeError> {
        let mut base = self.initial_base();
        let slots = self.initial_slots(&base)?;
        // The slots with one choice hold it whatever is drawn: a local check reading another
        // owner's fixed value (which `Bounds::varies` allows) reads it here.
        for (_, _, pos, ch) in &slots {
            if let [only] = ch[..] {
                base[*pos] = only;
            }
        }
        let mut bounds = Bounds {
            values: vec![None; self.model.vars.len()],
            varies: vec![false; self.model.vars.len()],
            n_agents: self.lay.n_agents,
        };
        for (_, v, _, ch) in &slots {
            bounds.varies[*v] |= ch.len() > 1;
            for &c in ch.iter().filter(|&&c| c != BOT) {
                let (lo, hi) = bounds.values[*v].unwrap_or((c as i64, c as i64));
                bounds.values[*v] = Some((lo.min(c as i64), hi.max(c as i64)));
            }
        }
        let mut checks: Vec<Vec<LocalCheck>> = vec![Vec::new(); self.lay.n_agents + 1];
        for c in local_checks(self.model, &bounds) {
            let g = match c.owner {
                Owner::Env => 0,
                Owner::Agent(a) => a + 1,
            };
            checks[g].push(c);
        }
        let mut digits = Vec::new();
        let mut sc = Scratch::default();
        let mut st = base.clone();
        // Each owner's slots, in slot order (one pass: a filter per owner would be quadratic
        // in the number of agents).
        let mut by_owner: Vec<Vec<(usize, Vec<i32>)>> = vec![Vec::new(); checks.len()];
        for (g, _, pos, ch) in slots {
            by_owner[g].push((pos, ch));
        }
        for (checks, mine) in checks.into_iter().zip(by_owner) {
            if checks.is_empty() {
                digits.extend(mine.into_iter().map(|(pos, choices)| Digit::Slot { pos, choices }));
                continue;
            }
            let product = mine.iter().fold(1u64, |n, (_, ch)| n.saturating_mul(ch.len() as u64));
            if list_limit.is_some_and(|l| product > l) {
                digits.push(Digit::Checked { slots: mine, checks });
                continue;
            }
            digits.push(self.list_owner(&mine, &checks, &mut st, &mut sc));
        }
        Ok(InitialSampler { base, digits })
    }

    /// The combinations of one owner's slots that its local checks admit.
    fn list_owner(
        &self,
        slots: &[(usize, Vec<i32>)],
        checks: &[LocalCheck],
        st: &mut [i32],
        sc: &mut Scratch,
    ) -> Digit {
        let pos: Vec<usize> = slots.iter().map(|s| s.0).collect();
        let (mut combos, mut count) = (Vec::new(), 0usize);
        if slots.iter().any(|s| s.1.is_empty()) {
            return Digit::Listed { pos, combos, count };
        }
        let mut idx = vec![0usize; slots.len()];
        loop {
            for ((p, ch), &i) in slots.iter().zip(&idx) {
                st[*p] = ch[i];
            }
            if checks.iter().all(|c| self.local_holds(st, sc, c)) {
                combos.extend(pos.iter().map(|&p| st[p]));
                count += 1;
            }
            let mut i = slots.len();
            loop {
                if i == 0 {
                    return Digit::Listed { pos, combos, count };
                }
                i -= 1;
                idx[i] += 1;
                if idx[i] < slots[i].1.len() {
                    break;
                }
                idx[i] = 0;
            }
        }
    }
}

impl Digit {
    /// The number of options (`None`: not listed).
    fn count(&self) -> Option<usize> {
        match self {
            Digit::Slot { choices, .. } => Some(choices.len()),
            Digit::Listed { count, .. } => Some(*count),
            Digit::Checked { .. } => None,
        }
    }

    /// Writes option `i` into `st`.
    fn write(&self, i: usize, st: &mut [i32]) {
        match self {
            Digit::Slot { pos, choices } => st[*pos] = choices[i],
            Digit::Listed { pos, combos, .. } => {
                for (k, &p) in pos.iter().enumerate() {
                    st[p] = combos[i * pos.len() + k];
                }
            }
            Digit::Checked { .. } => unreachable!("only samplers draw checked owners"),
        }
    }
}

impl InitialSampler {
    /// An initial state drawn from the distribution of docs/semantics.md ("Simulation"): every
    /// slot's choice uniformly and independently, conditioned on the assumptions (each
    /// owner's local checks met by redrawing that owner, the rest by redrawing the state).
    pub(crate) fn draw(&self, stepper: &Stepper<'_>, rng: &mut SplitMix64) -> Result<Drawn, RuntimeError> {
        if self.digits.iter().any(|d| d.count() == Some(0)) {
            return Ok(Drawn::NoneExists);
        }
        let mut st = self.base.clone();
        let mut sc = Scratch::default();
        let mut draws = 0u64;
        while draws < INITIAL_DRAWS {
            for d in &self.digits {
                match d {
                    Digit::Checked { slots, checks } => loop {
                        draws += 1;
                        for (p, ch) in slots {
                            st[*p] = ch[rng.below(ch.len() as u64) as usize];
                        }
                        if checks.iter().all(|c| stepper.local_holds(&st, &mut sc, c)) {
                            break;
                        }
                        if draws >= INITIAL_DRAWS {
                            return Ok(Drawn::GaveUp);
                        }
                    },
                    listed => {
                        let n = listed.count().expect("a listed digit");
                        listed.write(rng.below(n as u64) as usize, &mut st);
                    }
                }
            }
            draws += 1;
            if stepper.assumptions_hold(&st, &mut sc)? {
                return Ok(Drawn::State(st));
            }
        }
        Ok(Drawn::GaveUp)
    }
}
