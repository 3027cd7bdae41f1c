//! Signature refinement block by block, the part of `reduce::minimise` that finds the classes.
//!
//! A state's signature is the set of (label, block of the target) it can do after inert steps
//! (internal steps that stay in its block), without the inert steps themselves, plus a mark
//! when it can follow inert steps forever; strong labels count only when the state itself
//! does them. Blocks keep their numbers when they split (the largest part keeps it, the others
//! get new ones), so a block needs refining again only when one of its states, or a target of
//! one of its transitions, changed block in the last round: every other block would find the
//! same signatures again. A block of one state is never refined again (it cannot split). The blocks of a round are refined independently (on several threads
//! when there are many states to refine), each against the blocks of the round before.

use crate::limits::{Limits, StopReason};
use rustc_hash::FxHashMap;

/// The transitions the refinement reads, by source (`off[s]..off[s + 1]` of `edges`), and
/// what it needs to know of their labels.
pub(crate) struct Graph {
    pub(crate) off: Vec<usize>,
    pub(crate) edges: Vec<(u32, u32)>,
    /// Sources of the transitions into each state (`pred_off[t]..pred_off[t + 1]` of `preds`).
    pred_off: Vec<usize>,
    preds: Vec<u32>,
    pub(crate) tau: Option<u32>,
    /// Labels matched by the state itself, never after inert steps.
    strong: Vec<bool>,
    /// Whether any label is strong (then signatures are per state, not per component).
    any_strong: bool,
    keep_divergence: bool,
}

impl Graph {
    /// The graph of `trans` on `n` states.
    pub(crate) fn new(
        n: usize,
        trans: &[(u32, u32, u32)],
        tau: Option<u32>,
        strong: Vec<bool>,
        keep_divergence: bool,
    ) -> Graph {
        let (off, edges) = by_first(n, trans.iter().map(|&(s, l, t)| (s, (l, t))));
        let (pred_off, preds) = by_first(n, trans.iter().map(|&(s, _, t)| (t, s)));
        let any_strong = strong.contains(&true);
        Graph { off, edges, pred_off, preds, tau, strong, any_strong, keep_divergence }
    }

    pub(crate) fn succ(&self, s: u32) -> &[(u32, u32)] {
        &self.edges[self.off[s as usize]..self.off[s as usize + 1]]
    }

    fn preds(&self, t: u32) -> &[u32] {
        &self.preds[self.pred_off[t as usize]..self.pred_off[t as usize + 1]]
    }
}

/// The pairs grouped by their first member (in their order within a group): offsets and values.
fn by_first<T: Copy + Default>(n: usize, pairs: impl Iterator<Item = (u32, T)> + Clone) -> (Vec<usize>, Vec<T>) {
    let mut off = vec![0usize; n + 1];
    for (s, _) in pairs.clone() {
        off[s as usize + 1] += 1;
    }
    for s in 0..n {
        off[s + 1] += off[s];
    }
    let mut fill = off.clone();
    let mut out = vec![T::default(); off[n]];
    for (s, x) in pairs {
        out[fill[s as usize]] = x;
        fill[s as usize] += 1;
    }
    (off, out)
}

/// The coarsest stable partition: each state's class, numbered in the order of their first
/// states (so state 0's class is 0), and whether each state diverges (can follow inert steps
/// forever, when divergence is kept).
pub(crate) struct Classes {
    pub(crate) class: Vec<u32>,
    pub(crate) count: usize,
    pub(crate) diverges: Vec<bool>,
}

/// The classes of `g`'s states, refining on up to `threads` threads.
pub(crate) fn refine(g: &Graph, n: usize, limits: &Limits, threads: usize) -> Result<Classes, StopReason> {
    refine_from(g, n, limits, threads, PARALLEL_FROM)
}

/// `refine`, on several threads only in rounds that refine at least `parallel_from` states.
fn refine_from(
    g: &Graph,
    n: usize,
    limits: &Limits,
    threads: usize,
    parallel_from: usize,
) -> Result<Classes, StopReason> {
    let mut p = Partition { block: vec![0u32; n], elems: (0..n as u32).collect(), range: vec![(0, n)] };
    let mut diverges = vec![false; n];
    let mut touched: Vec<u32> = vec![0];
    let mut touched_in: Vec<u32> = vec![0];
    let mut round = 0u32;
    let mut scratch: Vec<Scratch> = vec![];
    while !touched.is_empty() {
        if let Some(r) = limits.stopped() {
            return Err(r);
        }
        let size: usize = touched.iter().map(|&b| p.len(b)).sum();
        // The signatures and new orders of the round's states, a few words each.
        if !limits.admit(size as u64 * 48) {
            return Err(StopReason::Memory);
        }
        let parts = if threads > 1 && size >= parallel_from { threads } else { 1 };
        let refined = refine_blocks(g, &p, &touched, size, parts, &mut scratch, limits)?;
        // The splits applied in the order of the round's blocks: new blocks numbered after the
        // existing ones; the states that changed block mark, for the next round, their new
        // blocks and the blocks of the states with a transition to them.
        round += 1;
        let mut changed: Vec<u32> = vec![];
        for r in refined {
            let (from, _) = p.range[r.block as usize];
            for (i, &s) in r.members.iter().enumerate() {
                diverges[s as usize] = r.diverges[i];
            }
            if r.ends.len() > 1 {
                p.elems[from..from + r.members.len()].copy_from_slice(&r.members);
                p.range[r.block as usize] = (from, from + r.ends[0]);
                for w in r.ends.windows(2) {
                    let id = p.range.len() as u32;
                    p.range.push((from + w[0], from + w[1]));
                    for &s in &r.members[w[0]..w[1]] {
                        p.block[s as usize] = id;
                        changed.push(s);
                    }
                }
            }
        }
        touched_in.resize(p.range.len(), 0);
        touched.clear();
        // A block of one state cannot split: only its divergence is left to find (below).
        let mut touch = |b: u32, touched: &mut Vec<u32>| {
            if touched_in[b as usize] != round + 1 && p.len(b) > 1 {
                touched_in[b as usize] = round + 1;
                touched.push(b);
            }
        };
        for &t in &changed {
            touch(p.block[t as usize], &mut touched);
            for &s in g.preds(t) {
                touch(p.block[s as usize], &mut touched);
            }
        }
    }
    // A state alone in its block diverges when it has an internal self-loop (its only inert
    // step possible); the divergence found while its block was larger may be stale.
    for &(from, to) in &p.range {
        if to - from == 1 {
            let s = p.elems[from];
            diverges[s as usize] = g.keep_divergence && g.succ(s).iter().any(|&(l, t)| t == s && Some(l) == g.tau);
        }
    }
    // Classes numbered in the order of their first states.
    let mut number = vec![u32::MAX; p.range.len()];
    let mut count = 0u32;
    for b in p.block.iter_mut() {
        if number[*b as usize] == u32::MAX {
            number[*b as usize] = count;
            count += 1;
        }
        *b = number[*b as usize];
    }
    Ok(Classes { class: p.block, count: count as usize, diverges })
}

/// The states' blocks: block b holds `elems[range[b].0..range[b].1]`.
struct Partition {
    block: Vec<u32>,
    elems: Vec<u32>,
    range: Vec<(usize, usize)>,
}

impl Partition {
    fn len(&self, b: u32) -> usize {
        self.range[b as usize].1 - self.range[b as usize].0
    }
}

/// The blocks `touched` refined against the partition `p`, in their order, on `parts` threads
/// (each refining a run of blocks of about `size / parts` states).
fn refine_blocks(
    g: &Graph,
    p: &Partition,
    touched: &[u32],
    size: usize,
    parts: usize,
    scratch: &mut Vec<Scratch>,
    limits: &Limits,
) -> Result<Vec<Refined>, StopReason> {
    let mut cuts = vec![0usize];
    let mut acc = 0;
    for (i, &b) in touched.iter().enumerate() {
        acc += p.len(b);
        if acc * parts >= size * cuts.len() && cuts.len() < parts {
            cuts.push(i + 1);
        }
    }
    cuts.push(touched.len());
    cuts.dedup();
    while scratch.len() < cuts.len() - 1 {
        scratch.push(Scratch::new(p.block.len()));
    }
    let job = |part: usize, sc: &mut Scratch| -> Result<Vec<Refined>, StopReason> {
        let mut out = vec![];
        let mut since_poll = 0;
        for &b in &touched[cuts[part]..cuts[part + 1]] {
            let (from, to) = p.range[b as usize];
            since_poll += to - from;
            if since_poll >= 4096 {
                since_poll = 0;
                if let Some(r) = limits.stopped() {
                    return Err(r);
                }
            }
            out.push(refine_block(g, &p.block, b, &p.elems[from..to], sc));
        }
        Ok(out)
    };
    let (first, rest) = scratch.split_at_mut(1);
    let results = std::thread::scope(|scope| {
        let handles: Vec<_> = rest
            .iter_mut()
            .take(cuts.len() - 2)
            .enumerate()
            .map(|(i, sc)| {
                let job = &job;
                std::thread::Builder::new()
                    .name(format!("labs-refine-{}", i + 1))
                    .spawn_scoped(scope, move || job(i + 1, sc))
            })
            .collect();
        let mut all = vec![job(0, &mut first[0])];
        for h in handles {
            all.push(match h {
                Ok(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
                // No thread to spare: this one refines the part too.
                Err(_) => job(all.len(), &mut first[0]),
            });
        }
        all
    });
    let mut out = Vec::with_capacity(touched.len());
    for r in results {
        out.extend(r?);
    }
    Ok(out)
}

/// Below this many states to refine in a round, one thread refines them all.
const PARALLEL_FROM: usize = 16_384;

/// One block refined: its members grouped by signature (`ends`: where each group ends; the
/// first group, the largest, keeps the block's number) and whether each diverges.
struct Refined {
    block: u32,
    members: Vec<u32>,
    ends: Vec<usize>,
    diverges: Vec<bool>,
}

/// A thread's working memory for `refine_block` (kept between blocks and rounds).
struct Scratch {
    /// Each state's position in the block being refined (`NONE` outside it).
    local: Vec<u32>,
    scc: crate::engine::scc::ComponentSearch,
    /// Each member's inert component, components numbered sinks first.
    comp: Vec<u32>,
    /// The members of each component (`comp_start[c]..comp_start[c + 1]`).
    comp_members: Vec<u32>,
    comp_start: Vec<usize>,
    /// Each component's weak signature (`weak[c]`, a range of `flat`) and divergence.
    flat: Vec<(u32, u32)>,
    weak: Vec<(usize, usize)>,
    comp_diverges: Vec<bool>,
    /// Each member's whole signature (`whole[i]`, a range of `whole_flat`), with strong labels.
    whole_flat: Vec<(u32, u32)>,
    whole: Vec<(usize, usize)>,
    sig: Vec<(u32, u32)>,
    group: Vec<u32>,
}

const NONE: u32 = u32::MAX;

/// (label, block of the target): one element of a signature.
type Pair = (u32, u32);

impl Scratch {
    fn new(n: usize) -> Scratch {
        Scratch {
            local: vec![NONE; n],
            scc: crate::engine::scc::ComponentSearch::new(),
            comp: vec![],
            comp_members: vec![],
            comp_start: vec![],
            flat: vec![],
            weak: vec![],
            comp_diverges: vec![],
            whole_flat: vec![],
            whole: vec![],
            sig: vec![],
            group: vec![],
        }
    }
}

/// Splits block `b` (its states `members`) by signature against the partition `block`.
fn refine_block(g: &Graph, block: &[u32], b: u32, members: &[u32], sc: &mut Scratch) -> Refined {
    let k = members.len();
    for (i, &s) in members.iter().enumerate() {
        sc.local[s as usize] = i as u32;
    }
    let inert = |l: u32, t: u32| Some(l) == g.tau && block[t as usize] == b;
    // The components of the inert steps (they stay in the block), by the engine's search:
    // they complete sinks first, so a component's inert successors have their signatures
    // when it gets its own.
    sc.comp_members.clear();
    sc.comp_start.clear();
    sc.comp_start.push(0);
    let local = &sc.local;
    let (comp_members, comp_start) = (&mut sc.comp_members, &mut sc.comp_start);
    let comp = sc.scc.all_noting(
        k,
        |v, f| {
            for &(l, t) in g.succ(members[v as usize]) {
                if inert(l, t) {
                    f(local[t as usize]);
                }
            }
        },
        |own| {
            comp_members.extend_from_slice(own);
            comp_start.push(comp_members.len());
        },
    );
    sc.comp.clear();
    sc.comp.extend_from_slice(comp);
    // Each component's weak signature and divergence.
    let ncomp = sc.comp_start.len() - 1;
    sc.flat.clear();
    sc.weak.clear();
    sc.comp_diverges.clear();
    for c in 0..ncomp {
        sc.sig.clear();
        let own = &sc.comp_members[sc.comp_start[c]..sc.comp_start[c + 1]];
        let mut div = own.len() > 1;
        for &v in own {
            for &(l, t) in g.succ(members[v as usize]) {
                if inert(l, t) {
                    let d = sc.comp[sc.local[t as usize] as usize] as usize;
                    if d == c {
                        div = true;
                    } else {
                        let (from, to) = sc.weak[d];
                        sc.sig.extend_from_slice(&sc.flat[from..to]);
                        div |= sc.comp_diverges[d];
                    }
                } else if !g.strong[l as usize] {
                    sc.sig.push((l, block[t as usize]));
                }
            }
        }
        sc.sig.sort_unstable();
        sc.sig.dedup();
        sc.weak.push((sc.flat.len(), sc.flat.len() + sc.sig.len()));
        sc.flat.extend_from_slice(&sc.sig);
        sc.comp_diverges.push(div && g.keep_divergence);
    }
    // Each member's signature: its component's, with its own strong transitions.
    sc.whole_flat.clear();
    sc.whole.clear();
    if g.any_strong {
        for &s in members {
            let (from, to) = sc.weak[sc.comp[sc.local[s as usize] as usize] as usize];
            sc.sig.clear();
            sc.sig.extend_from_slice(&sc.flat[from..to]);
            sc.sig
                .extend(g.succ(s).iter().filter(|(l, _)| g.strong[*l as usize]).map(|&(l, t)| (l, block[t as usize])));
            sc.sig.sort_unstable();
            sc.sig.dedup();
            sc.whole.push((sc.whole_flat.len(), sc.whole_flat.len() + sc.sig.len()));
            sc.whole_flat.extend_from_slice(&sc.sig);
        }
    }
    let (comp_diverges, comp, weak, whole) = (&sc.comp_diverges, &sc.comp, &sc.weak, &sc.whole);
    let (flat, whole_flat) = (&sc.flat, &sc.whole_flat);
    let key = |i: usize| {
        let sig = if g.any_strong {
            &whole_flat[whole[i].0..whole[i].1]
        } else {
            let (from, to) = weak[comp[i] as usize];
            &flat[from..to]
        };
        (comp_diverges[comp[i] as usize], sig)
    };
    // Members grouped by signature, groups numbered as met (`firsts`: each group's first).
    sc.group.clear();
    let mut firsts: Vec<usize> = vec![];
    if k <= 16 {
        for i in 0..k {
            let group = firsts.iter().position(|&f| key(f) == key(i)).unwrap_or_else(|| {
                firsts.push(i);
                firsts.len() - 1
            });
            sc.group.push(group as u32);
        }
    } else {
        let mut ids: FxHashMap<(bool, &[Pair]), u32> = FxHashMap::default();
        for i in 0..k {
            let next = ids.len() as u32;
            let group = *ids.entry(key(i)).or_insert(next);
            if group == next {
                firsts.push(i);
            }
            sc.group.push(group);
        }
    }
    let diverges: Vec<bool> = (0..k).map(|i| comp_diverges[comp[i] as usize]).collect();
    for &s in members {
        sc.local[s as usize] = NONE;
    }
    if firsts.len() == 1 {
        return Refined { block: b, members: members.to_vec(), ends: vec![k], diverges };
    }
    // Groups laid out one after another, the largest first (it keeps the block's number, so
    // that the fewest states change block).
    let mut size = vec![0usize; firsts.len()];
    for &x in &sc.group {
        size[x as usize] += 1;
    }
    let largest = (0..size.len()).max_by_key(|&x| (size[x], std::cmp::Reverse(x))).expect("two groups");
    let mut order: Vec<usize> = (0..size.len()).collect();
    order.swap(0, largest);
    order[1..].sort_unstable();
    let mut start = vec![0usize; size.len()];
    let mut ends = Vec::with_capacity(size.len());
    let mut at = 0;
    for &x in &order {
        start[x] = at;
        at += size[x];
        ends.push(at);
    }
    let mut grouped = vec![0u32; k];
    let mut grouped_div = vec![false; k];
    for i in 0..k {
        let x = sc.group[i] as usize;
        grouped[start[x]] = members[i];
        grouped_div[start[x]] = diverges[i];
        start[x] += 1;
    }
    Refined { block: b, members: grouped, ends, diverges: grouped_div }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 1000, ..Default::default() })]

        /// The classes do not depend on the threads that refine them (every round on several
        /// threads here): the blocks of a round are refined against the partition before it.
        #[test]
        fn threads_refine_to_the_classes_of_one(
            n in 1usize..40,
            raw in proptest::collection::vec((0u32..40, 0u32..4, 0u32..40), 0..120),
            threads in 2usize..5,
            keep_divergence: bool,
        ) {
            // Labels: 0 internal, 1 and 2 weak, 3 strong.
            let trans: Vec<(u32, u32, u32)> = raw.iter().map(|&(s, l, t)| (s % n as u32, l, t % n as u32)).collect();
            let g = Graph::new(n, &trans, Some(0), vec![false, false, false, true], keep_divergence);
            let one = refine_from(&g, n, &Limits::none(), 1, usize::MAX).expect("no bound");
            let many = refine_from(&g, n, &Limits::none(), threads, 1).expect("no bound");
            proptest::prop_assert_eq!(&one.class, &many.class);
            proptest::prop_assert_eq!(one.count, many.count);
            proptest::prop_assert_eq!(&one.diverges, &many.diverges);
            proptest::prop_assert_eq!(one.class.first(), Some(&0));
        }
    }
}
