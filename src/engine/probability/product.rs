//! A linear-time formula's probability through the product of the chain with the formula's
//! deterministic automaton (`dfa`): a product state is a chain state and what the formula
//! still demands of the run after it; the two decided demands are absorbing (`ACCEPT`,
//! `REJECT`), and in every other bottom component the demand holds with probability 0 or 1,
//! which `dfa::generic` decides from the atoms' values in the component. The probability is
//! that of reaching `ACCEPT` or an accepting bottom component.

use super::chain::{Csr, Edge, RowBuf};
use super::dfa::{ACCEPT, Dfa, Formula, REJECT, decide, generic};
use super::graph::Bottoms;
use super::quantities::{Ctx, reach};
use super::{Interval, PropertyProbability};
use std::collections::HashMap;

/// Product ids of the two decided demands.
const ACC: u32 = 0;
const REJ: u32 = 1;
const NONE: u32 = u32::MAX;

/// The product, built breadth-first from the initial distribution.
struct Product {
    rows: Csr,
    /// Each product state's chain state and automaton state (the two decided ones: `NONE`).
    states: Vec<(u32, u32)>,
    initial: Vec<(u32, f64)>,
}

/// Why the product could not be used.
enum Refused {
    TooLarge,
    Stopped,
}

fn build(ctx: &Ctx, dfa: &Dfa, letter_of: &[u32]) -> Result<Product, Refused> {
    let n = ctx.rows.len();
    let k = dfa.states.len();
    let bytes = (n as u64).saturating_mul(k as u64).saturating_mul(4);
    if n.saturating_mul(k) >= NONE as usize || !ctx.limits.can_allocate(bytes) {
        return Err(Refused::TooLarge);
    }
    let mut index = vec![NONE; n * k];
    let mut states: Vec<(u32, u32)> = vec![(NONE, NONE), (NONE, NONE)];
    let mut id = |s: u32, d: u32, states: &mut Vec<(u32, u32)>| -> u32 {
        match d {
            ACCEPT => ACC,
            REJECT => REJ,
            _ => {
                let slot = &mut index[s as usize * k + d as usize];
                if *slot == NONE {
                    *slot = states.len() as u32;
                    states.push((s, d));
                }
                *slot
            }
        }
    };
    let mut init: HashMap<u32, f64> = HashMap::new();
    for &(s, w) in ctx.initial {
        let d = dfa.next(2, letter_of[s as usize]);
        *init.entry(id(s, d, &mut states)).or_default() += w;
    }
    let mut initial: Vec<(u32, f64)> = init.into_iter().collect();
    initial.sort_unstable_by_key(|x| x.0);
    let mut rows = Csr { off: vec![0, 0, 0], edges: Vec::new() };
    let mut buf = RowBuf::default();
    let mut row: Vec<Edge> = Vec::new();
    let mut next = 2;
    while next < states.len() {
        if next % 4096 == 0 && ctx.limits.stopped().is_some() {
            return Err(Refused::Stopped);
        }
        let (s, d) = states[next];
        row.clear();
        let chain_row = ctx.rows.row(s as usize, &mut buf);
        let self_loop = [Edge { to: s, count: 1 }];
        let chain_row = if chain_row.is_empty() { &self_loop[..] } else { chain_row };
        for e in chain_row {
            let to = id(e.to, dfa.next(d, letter_of[e.to as usize]), &mut states);
            row.push(Edge { to, count: e.count });
        }
        row.sort_unstable_by_key(|e| e.to);
        let mut merged: Vec<Edge> = Vec::with_capacity(row.len());
        for e in &row {
            match merged.last_mut() {
                Some(m) if m.to == e.to => m.count += e.count,
                _ => merged.push(*e),
            }
        }
        rows.edges.extend_from_slice(&merged);
        rows.off.push(rows.edges.len() as u64);
        next += 1;
    }
    Ok(Product { rows, states, initial })
}

/// The probability of the formula `form` whose atoms have the values `letters` (a bit per
/// atom) in each chain state.
pub(crate) fn probability(ctx: &Ctx, form: &Formula, letters: &[u64], r: &mut PropertyProbability) {
    let mut distinct: Vec<u64> = letters.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let index: HashMap<u64, u32> = distinct.iter().enumerate().map(|(i, &l)| (l, i as u32)).collect();
    let letter_of: Vec<u32> = letters.iter().map(|l| index[l]).collect();
    let Ok(dfa) = Dfa::build(form, distinct.clone()) else {
        r.why_not = Some(format!(
            "the formula's deterministic automaton has more than {} states (or too large a demand)",
            super::dfa::MAX_STATES
        ));
        return;
    };
    let p = match build(ctx, &dfa, &letter_of) {
        Ok(p) => p,
        Err(Refused::TooLarge) => {
            r.why_not = Some(format!(
                "the product of the states with the formula's automaton ({} states) does not fit the memory bound",
                dfa.states.len()
            ));
            return;
        }
        Err(Refused::Stopped) => {
            r.why_not = Some("the run was stopped while the product was built".into());
            return;
        }
    };
    // The bottom components: the letters and demands of each.
    let b = Bottoms::of(&p.rows);
    let mut parts: HashMap<u32, (Vec<u64>, Vec<u32>)> = HashMap::new();
    for (i, &(s, d)) in p.states.iter().enumerate().skip(2) {
        if b.in_bottom(i) {
            let e = parts.entry(b.comp[i]).or_default();
            e.0.push(distinct[letter_of[s as usize] as usize]);
            e.1.push(d);
        }
    }
    let mut accepting = vec![false; b.bottom.len()];
    accepting[b.comp[ACC as usize] as usize] = true;
    for (c, (mut ls, mut ds)) in parts {
        ls.sort_unstable();
        ls.dedup();
        ds.sort_unstable();
        ds.dedup();
        let g = generic(form, &ls);
        match ds.iter().find_map(|&d| decide(&dfa.states[d as usize], &g)) {
            Some(v) => accepting[c as usize] = v,
            None => {
                r.why_not = Some(
                    "labs cannot decide this formula on the runs that stay in a bottom strongly connected \
                     component (it nests until or unless under always or finally in a way the analysis of \
                     docs/probability.md does not cover)"
                        .into(),
                );
                return;
            }
        }
    }
    let target: Vec<bool> = (0..p.states.len()).map(|i| b.in_bottom(i) && accepting[b.comp[i] as usize]).collect();
    drop(b);
    let pctx = Ctx {
        rows: &p.rows,
        initial: &p.initial,
        workers: ctx.workers,
        limits: ctx.limits,
        precision: ctx.precision,
        report: ctx.report,
    };
    let reached = reach(&pctx, &target, false, ctx.precision);
    r.probability = Some(Interval { lower: reached.p.lower.max(0.0), upper: reached.p.upper.min(1.0) });
    r.sweeps += reached.sweeps;
    r.converged = reached.converged;
}
