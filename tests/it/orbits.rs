//! Orbits of states under a symmetry group, computed by brute force over every element of the
//! group on the unreduced state graph: the independent side of the symmetry reduction's tests.

use labs::behaviour::Behaviour;
use labs::engine::explore::{ExploreOptions, explore_initial};
use labs::engine::step::{Stepper, Work};
use labs::engine::symmetry::{self, Group};
use labs::model::{Modality, Model, Pattern, Property, QPred};
use labs::trace::Trace;
use labs::trace::from_labels::{Shows, shows};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

/// All permutations of `0..n` (Heap's algorithm).
pub fn permutations(n: usize) -> Vec<Vec<usize>> {
    fn go(k: usize, a: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if k <= 1 {
            out.push(a.clone());
            return;
        }
        for i in 0..k {
            go(k - 1, a, out);
            let j = if k.is_multiple_of(2) { i } else { 0 };
            a.swap(j, k - 1);
        }
    }
    let mut out = Vec::new();
    go(n, &mut (0..n).collect(), &mut out);
    out
}

/// Every image of state `s` under the group, on the `i32` form: agent `pi[k]` of a class takes
/// the block of its `k`-th agent; a rotation by `r` also moves the turn; a map of values acts
/// on the slots it lists.
pub fn images(group: &Group, stepper: &Stepper, s: &[i32]) -> Vec<Vec<i32>> {
    let mut out = agent_images(group, stepper, s);
    for h in &group.values {
        let mut t = s.to_vec();
        h.apply(s, &mut t);
        out.extend(agent_images(group, stepper, &t));
    }
    out
}

/// Every image of `s` under the permutations of agents of the group.
pub fn agent_images(group: &Group, stepper: &Stepper, s: &[i32]) -> Vec<Vec<i32>> {
    let lay = &stepper.lay;
    let block = |st: &[i32], a: usize| st[lay.base(a)..lay.base(a) + lay.agent_stride].to_vec();
    if let Some(n) = group.rotations {
        return (0..n)
            .map(|r| {
                let mut t = s.to_vec();
                for a in 0..n {
                    let b = block(s, a);
                    let to = (a + r) % n;
                    t[lay.base(to)..lay.base(to) + lay.agent_stride].copy_from_slice(&b);
                }
                let turn = lay.turn();
                t[turn] = ((s[turn] as usize + r) % n) as i32;
                t
            })
            .collect();
    }
    let mut out = vec![s.to_vec()];
    for c in &group.classes {
        let perms = permutations(c.len());
        out = out
            .iter()
            .flat_map(|st| {
                perms.iter().map(move |p| {
                    let mut t = st.clone();
                    for (k, &to) in p.iter().enumerate() {
                        let b = block(st, c.start + k);
                        let to = c.start + to;
                        t[lay.base(to)..lay.base(to) + lay.agent_stride].copy_from_slice(&b);
                    }
                    t
                })
            })
            .collect();
    }
    out
}

/// The orbit of `s` named by its least image.
pub fn orbit_key(group: &Group, stepper: &Stepper, s: &[i32]) -> Vec<i32> {
    images(group, stepper, s).into_iter().min().unwrap()
}

/// Explores `model` without and with the reduction and checks the reduced graph against the
/// orbits of the full one: as many states, transitions, deadlocks and initial states as there
/// are orbits of states, of (state, successor) pairs, of deadlocks and of initial states; and
/// (without --fair) each stored representative is the least state of its orbit.
pub fn check_orbits(tag: &str, model: &Model, behs: &[Behaviour], fair: bool) -> bool {
    let sym = symmetry::analyse(model, behs, fair);
    let Some(group) = sym.group else { return false };
    let stepper = Stepper::new(model, behs, fair);
    let full =
        explore_initial(&stepper, &ExploreOptions { threads: 1, keep_edges: true, ..Default::default() }).unwrap();
    let opts =
        ExploreOptions { threads: 2, keep_edges: true, symmetry: Some(Arc::new(group.clone())), ..Default::default() };
    let red = explore_initial(&stepper, &opts).unwrap();
    let keys: Vec<Vec<i32>> =
        (0..full.states() as u32).map(|i| orbit_key(&group, &stepper, &full.store.get(i))).collect();
    let orbits: HashSet<&Vec<i32>> = keys.iter().collect();
    assert_eq!(red.states(), orbits.len(), "{tag}: reduced states vs orbits");
    let mut edges = HashSet::new();
    let mut dead = HashSet::new();
    for i in 0..full.states() as u32 {
        if full.succs(i).is_empty() {
            dead.insert(&keys[i as usize]);
        }
        for &j in full.succs(i) {
            edges.insert((&keys[i as usize], &keys[j as usize]));
        }
    }
    assert_eq!(red.transitions as usize, edges.len(), "{tag}: reduced transitions vs orbit pairs");
    assert_eq!(red.deadlocks as usize, dead.len(), "{tag}: reduced deadlocks vs deadlock orbits");
    let init: HashSet<&Vec<i32>> = keys[..full.n_initial].iter().collect();
    assert_eq!(red.n_initial, init.len(), "{tag}: initial orbits");
    if group.rotations.is_none() {
        for i in 0..red.states() as u32 {
            let s = red.store.get(i);
            assert_eq!(orbit_key(&group, &stepper, &s), s, "{tag}: a representative is not its orbit's least state");
        }
    }
    true
}

/// Every predicate of every property, as an `always` property (so that `shows` on a trace of
/// one state tells its value there).
pub fn predicates(model: &Model) -> Vec<Property> {
    let mut out = Vec::new();
    for p in &model.properties {
        let mut qs: Vec<&QPred> = vec![&p.pred];
        if let Modality::Between { open, close, pattern } | Modality::FromUntil { open, close, pattern } = &p.modality {
            qs.extend([open, close]);
            if let Pattern::Precedes(s) = pattern {
                qs.push(s);
            }
        }
        for q in qs {
            out.push(Property { modality: Modality::Always, keyword: "always".into(), pred: q.clone(), ..p.clone() });
        }
    }
    out
}

/// The value of an `always` property's predicate in `s` (`None`: a run-time error), by the
/// public checker of counterexamples.
pub fn value_in(model: &Model, behs: &[Behaviour], p: &Property, s: &[i32]) -> Option<bool> {
    let t = Trace {
        fair: false,
        initial: s.to_vec(),
        steps: vec![],
        loop_start: None,
        ends_in_deadlock: false,
        marks: vec![],
    };
    match shows(model, behs, &t, p) {
        Ok(Shows::NoViolation) => Some(true),
        Ok(Shows::Violation { at: 0 }) => Some(false),
        Ok(other) => panic!("{}: unexpected {other:?} on one state", p.name),
        Err(_) => None,
    }
}

/// Which states an automorphism must map where.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Closure {
    /// Initial states to initial states, reachable states to reachable states (symmetries of
    /// values, whose search checks the initial states too).
    Strict,
    /// Only steps and predicates (permutations of agents: the reduction canonicalises the
    /// initial states, which need not be symmetric, docs/reductions.md).
    Steps,
}

/// The first way in which one of `maps` is not an automorphism of the unreduced state graph
/// of `model` under `fair`: successors of the image of a reachable state that are not the
/// images of its successors, a property predicate with different values in a state and its
/// image, and under `Closure::Strict` an initial state whose image is not initial or a
/// reachable state whose image is not reachable.
pub fn first_failure(
    model: &Model,
    behs: &[Behaviour],
    fair: bool,
    closure: Closure,
    maps: &[impl Fn(&[i32]) -> Vec<i32>],
) -> Option<String> {
    let stepper = Stepper::new(model, behs, fair);
    let g = explore_initial(&stepper, &ExploreOptions { threads: 1, keep_edges: true, ..Default::default() })
        .expect("the instance explores");
    assert!(g.error.is_none() && g.stopped.is_none(), "the instance explores completely");
    let n = g.states();
    let states: Vec<Vec<i32>> = (0..n as u32).map(|i| g.store.get(i)).collect();
    let index: HashMap<&[i32], u32> = states.iter().enumerate().map(|(i, s)| (s.as_slice(), i as u32)).collect();
    let preds = predicates(model);
    let values: Vec<Vec<Option<bool>>> =
        preds.iter().map(|p| states.iter().map(|s| value_in(model, behs, p, s)).collect()).collect();
    let mut w = Work::default();
    for (mi, t) in maps.iter().enumerate() {
        for (i, s) in states.iter().enumerate() {
            let img = t(s);
            if closure == Closure::Strict {
                let Some(&j) = index.get(img.as_slice()) else {
                    return Some(format!("map {mi}: the image of reachable state {i} is not reachable"));
                };
                if i < g.n_initial && (j as usize) >= g.n_initial {
                    return Some(format!("map {mi}: the image of initial state {i} is not initial"));
                }
            }
            // The explorer's successors of `s`, mapped, against the reference successors of
            // its image.
            let want: BTreeSet<Vec<i32>> = g.succs(i as u32).iter().map(|&k| t(&states[k as usize])).collect();
            let mut got = BTreeSet::new();
            let stepped = stepper.successors(&img, &mut w, false, &mut |_, u| {
                got.insert(u.to_vec());
            });
            if stepped.is_err() {
                return Some(format!("map {mi}: the image of state {i} meets a run-time error"));
            }
            if want != got {
                return Some(format!(
                    "map {mi}: the successors of the image of state {i} are not the images of its successors"
                ));
            }
            for (p, v) in preds.iter().zip(&values) {
                let image_value = value_in(model, behs, p, &img);
                if v[i] != image_value {
                    return Some(format!(
                        "map {mi}: {} is {:?} in state {i} and {image_value:?} in its image",
                        p.name, v[i]
                    ));
                }
            }
        }
    }
    None
}

/// Whether every element of the group `symmetry::analyse` finds for `model` maps the steps and
/// predicates of its unreduced state graph to themselves (`first_failure` over each element;
/// `Ok(false)`: no group, or the graph meets a run-time error or a bound).
pub fn check_automorphisms(model: &Model, behs: &[Behaviour], fair: bool) -> Result<bool, String> {
    let Some(group) = symmetry::analyse(model, behs, fair).group else { return Ok(false) };
    let stepper = Stepper::new(model, behs, fair);
    let full = explore_initial(&stepper, &ExploreOptions { threads: 1, ..Default::default() }).expect("initial states");
    if full.error.is_some() || full.stopped.is_some() {
        return Ok(false);
    }
    let n = images(&group, &stepper, &vec![0; stepper.lay.len]).len();
    let (group, stepper) = (&group, &stepper);
    let maps: Vec<_> = (0..n).map(|k| move |s: &[i32]| images(group, stepper, s).swap_remove(k)).collect();
    first_failure(model, behs, fair, Closure::Steps, &maps).map_or(Ok(true), Err)
}
