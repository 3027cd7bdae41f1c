//! The initial states of the model (docs/semantics.md, D2 and "Steps in detail"), in a
//! deterministic order.

use super::*;

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
    /// false (so that a bound can stop the enumeration before it runs out of memory).
    pub(crate) fn for_each_initial(&self, f: &mut dyn FnMut(&[i32]) -> bool) -> Result<(), RuntimeError> {
        let model = self.model;
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
        // Choice lists per slot.
        let mut slots: Vec<(usize, Vec<i32>)> = Vec::new();
        let mut sc = Scratch::default();
        let err = |m: String, name: &str| RuntimeError(format!("{m} (in the initialiser of `{name}`)"));
        let mut add = |var: &crate::model::Variable,
                       init: &Init,
                       me: Option<usize>,
                       pos: &dyn Fn(usize) -> usize|
         -> Result<(), RuntimeError> {
            let cx = self.ctx(me, Mode::Pred);
            let mut ev = |e: &crate::model::Expr| -> Result<i32, RuntimeError> {
                match cx.eval(&base, &mut sc, e) {
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
            for e in 0..var.len {
                slots.push((pos(var.offset + e), choices.clone()));
            }
            Ok(())
        };
        for var in &model.vars {
            if var.store == Store::Env
                && let Some(init) = var.init_for(None)
            {
                add(var, init, None, &|s| s)?;
            }
        }
        for a in 0..lay.n_agents {
            let ty = self.type_of[a];
            for &v in &model.agent_types[ty].attrs {
                let var = &model.vars[v];
                if let Some(init) = var.init_for(Some(ty)) {
                    add(var, init, Some(a), &|s| lay.attr(a, s))?;
                }
            }
            for var in &model.vars {
                if let Store::Stig { stigmergy, .. } = var.store
                    && model.holds(ty, stigmergy)
                    && let Some(init) = var.init_for(None)
                {
                    add(var, init, Some(a), &|s| lay.stig(a, s))?;
                }
            }
        }
        if slots.iter().any(|(_, c)| c.is_empty()) {
            return Ok(());
        }
        let mut idx = vec![0usize; slots.len()];
        let mut st = base.clone();
        loop {
            for (i, (pos, ch)) in slots.iter().enumerate() {
                st[*pos] = ch[idx[i]];
            }
            let mut ok = true;
            for asm in &model.assumptions {
                let cx = self.ctx(None, Mode::Pred);
                match cx.eval_q(&st, &mut sc, &asm.pred) {
                    Ok(true) => {}
                    Ok(false) | Err(Stop::Disabled) => {
                        ok = false;
                        break;
                    }
                    Err(Stop::Error(m)) => {
                        return Err(RuntimeError(format!("{m} (in assumption {})", asm.name)));
                    }
                }
            }
            if ok && !f(&st) {
                return Ok(());
            }
            // Odometer (last slot fastest).
            let mut i = slots.len();
            loop {
                if i == 0 {
                    return Ok(());
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
