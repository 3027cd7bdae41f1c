//! Symmetries of values (docs/reductions.md, `engine::symmetry::values`), checked from the
//! outside: every map of the group found is an automorphism of the full, unreduced state
//! graph (initial states to initial states, the successors of an image are the images of the
//! successors, every property predicate keeps its value), whatever way the analysis checked
//! it; the groups of the benchmarks and of small specs are the ones derived by hand; maps the
//! analysis refuses are really not automorphisms; and random walkers on a small grid get the
//! same verdicts, with counterexamples that replay, with and without the reduction.

use crate::engine_common;
use crate::fixtures;
use crate::tier;
use engine_common::*;
use labs::behaviour::Behaviour;
use labs::engine::explore::{ExploreOptions, explore_initial};
use labs::engine::step::{Stepper, Work};
use labs::engine::symmetry::{self, ValueMap};
use labs::engine::{EngineError, VerifyOptions, VerifyReport, verify};
use labs::model::{Modality, Model, Pattern, Property, QPred, Store};
use labs::trace::Trace;
use labs::trace::from_labels::{Shows, shows};
use proptest::prelude::*;
use std::collections::{BTreeSet, HashMap};

/// A map of states slot by slot: slot `i` of the image is `sign * s[from] + offset` (⊥ left
/// alone, which these specs never hold). Two maps are equal iff their tables are.
type Table = Vec<(usize, i32, i32)>;

fn identity(len: usize) -> Table {
    (0..len).map(|i| (i, 1, 0)).collect()
}

/// The table of a map the analysis produced.
fn table_of(h: &ValueMap, len: usize) -> Table {
    let mut t = identity(len);
    for m in &h.moves {
        t[m.to as usize] = match m.mirror {
            Some(c) => (m.from as usize, -1, c),
            None => (m.from as usize, 1, 0),
        };
    }
    t
}

fn apply(t: &Table, s: &[i32]) -> Vec<i32> {
    t.iter().map(|&(from, sign, off)| sign * s[from] + off).collect()
}

/// `a` then `b`.
fn compose(a: &Table, b: &Table) -> Table {
    b.iter().map(|&(from, sign, off)| (a[from].0, sign * a[from].1, sign * a[from].2 + off)).collect()
}

/// The group's elements, identity included, as tables.
fn group_tables(model: &Model, behs: &[Behaviour], fair: bool) -> (Vec<Table>, usize) {
    let stepper = Stepper::new(model, behs, fair);
    let len = stepper.lay.len;
    let sym = symmetry::analyse(model, behs, fair);
    let values = sym.group.map(|g| g.values).unwrap_or_default();
    assert_eq!(values, sym.values.maps, "the group carries the maps the analysis found");
    let mut out = vec![identity(len)];
    out.extend(values.iter().map(|h| table_of(h, len)));
    // The tables say what `ValueMap::apply` does, which the explorer runs.
    for s in stepper.initial_states().expect("initial states") {
        for (h, t) in values.iter().zip(&out[1..]) {
            let mut img = s.clone();
            h.apply(&s, &mut img);
            assert_eq!(img, apply(t, &s), "{}", h.text);
        }
    }
    (out, len)
}

/// Every predicate of every property, as an `always` property (so that `shows` on a trace of
/// one state tells its value there).
fn predicates(model: &Model) -> Vec<Property> {
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
fn value_in(model: &Model, behs: &[Behaviour], p: &Property, s: &[i32]) -> Option<bool> {
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

/// The first way in which one of `maps` is not an automorphism of the unreduced state graph
/// of `model` under `fair`: an initial state whose image is not initial, a reachable state
/// whose image is not reachable, successors of an image that are not the images of the
/// successors, or a property predicate with different values in a state and its image.
fn first_failure(model: &Model, behs: &[Behaviour], fair: bool, maps: &[Table]) -> Option<String> {
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
            let img = apply(t, s);
            let Some(&j) = index.get(img.as_slice()) else {
                return Some(format!("map {mi}: the image of reachable state {i} is not reachable"));
            };
            if i < g.n_initial && (j as usize) >= g.n_initial {
                return Some(format!("map {mi}: the image of initial state {i} is not initial"));
            }
            // The explorer's successors of `s`, mapped, against the reference successors of
            // its image.
            let want: BTreeSet<Option<u32>> = g
                .succs(i as u32)
                .iter()
                .map(|&k| index.get(apply(t, &states[k as usize]).as_slice()).copied())
                .collect();
            let mut got = BTreeSet::new();
            stepper
                .successors(&img, &mut w, false, &mut |_, u| {
                    got.insert(index.get(u).copied());
                })
                .expect("no run-time error");
            if want != got {
                return Some(format!(
                    "map {mi}: the successors of the image of state {i} are not the images of its successors"
                ));
            }
            for (p, v) in preds.iter().zip(&values) {
                if v[i] != v[j as usize] {
                    return Some(format!(
                        "map {mi}: {} is {:?} in state {i} and {:?} in its image",
                        p.name, v[i], v[j as usize]
                    ));
                }
            }
        }
    }
    None
}

/// The subgroup of tables generated by `gens`.
fn generated(gens: &[Table], len: usize) -> BTreeSet<Table> {
    let mut all = BTreeSet::from([identity(len)]);
    let mut todo = vec![identity(len)];
    while let Some(a) = todo.pop() {
        for g in gens {
            let b = compose(&a, g);
            if all.insert(b.clone()) {
                todo.push(b);
            }
        }
    }
    all
}

/// The group of `model` under `fair` is a group (closed under composition, so every element's
/// inverse is in it too) and every element is an automorphism of the full state graph: it
/// suffices to check generators, since automorphisms compose. Returns the group's order.
fn check_group_is_sound(tag: &str, model: &Model, behs: &[Behaviour], fair: bool) -> usize {
    let (tables, len) = group_tables(model, behs, fair);
    for a in &tables {
        for b in &tables {
            assert!(tables.contains(&compose(a, b)), "{tag}: the maps are not closed under composition");
        }
    }
    let mut gens: Vec<Table> = Vec::new();
    for t in &tables {
        if !generated(&gens, len).contains(t) {
            gens.push(t.clone());
        }
    }
    assert_eq!(generated(&gens, len), as_set(tables.clone()), "{tag}");
    if let Some(why) = first_failure(model, behs, fair, &gens) {
        panic!("{tag}: {why}");
    }
    tables.len()
}

fn load_file(rel: &str, externs: &[&str]) -> (Model, Vec<Behaviour>) {
    load(&fixtures::path_str(rel), externs)
}

#[test]
fn every_map_found_is_an_automorphism_of_the_full_state_graph() {
    let mut instances: Vec<(&str, &[&str], usize)> = vec![
        // Orders derived by hand in `flock_has_the_symmetries_of_the_square` and
        // `flocking_has_the_diagonal_reflection`.
        ("benchmarks/flock.labs", &["birds=2", "grid=3", "delta=1"], 8),
        ("examples/flocking.labs", &["birds=2", "grid=3", "delta=1"], 2),
    ];
    if tier::slow("flock birds=3 grid=2 delta=1, about 20 s") {
        instances.push(("benchmarks/flock.labs", &["birds=3", "grid=2", "delta=1"], 64));
    }
    for (file, externs, order) in &instances {
        let (model, behs) = load_file(file, externs);
        for fair in [false, true] {
            let tag = format!("{file} {externs:?} fair={fair}");
            assert_eq!(check_group_is_sound(&tag, &model, &behs, fair), *order, "{tag}: order of the group");
        }
    }
}

/// The slot of variable `name` in agent `a`.
fn slot(model: &Model, lay: &labs::engine::state::Layout, name: &str, a: usize) -> usize {
    let v = model.vars.iter().find(|v| v.name == name).unwrap_or_else(|| panic!("no variable {name}"));
    match v.store {
        Store::Attr => lay.attr(a, v.offset),
        Store::Stig { .. } => lay.stig(a, v.offset),
        Store::Env => v.offset,
    }
}

/// A signed permutation of two variables `(p, q)` of every agent: `swap` exchanges them, then
/// `flip_p` / `flip_q` mirror the value landing in `p` / `q` about `centre / 2`.
fn signed_swap(
    model: &Model,
    lay: &labs::engine::state::Layout,
    (p, q): (&str, &str),
    centre: i32,
    (swap, flip_p, flip_q): (bool, bool, bool),
) -> Table {
    let mut t = identity(lay.len);
    for a in 0..lay.n_agents {
        let (sp, sq) = (slot(model, lay, p, a), slot(model, lay, q, a));
        let (into_p, into_q) = if swap { (sq, sp) } else { (sp, sq) };
        let entry = |from, flip: bool| if flip { (from, -1, centre) } else { (from, 1, 0) };
        t[sp] = entry(into_p, flip_p);
        t[sq] = entry(into_q, flip_q);
    }
    t
}

fn bits3() -> Vec<(bool, bool, bool)> {
    (0..8).map(|b| (b & 1 == 1, b & 2 == 2, b & 4 == 4)).collect()
}

fn as_set(v: Vec<Table>) -> BTreeSet<Table> {
    v.into_iter().collect()
}

#[test]
fn flock_has_the_symmetries_of_the_square() {
    // grid = 3: the torus Z3 x Z3 with headings in {-1, 1}^2. The 8 symmetries of the square
    // act on positions (x ↦ 2 - x, y ↦ 2 - y, x ↔ y) and, alike, on headings (dirx ↦ -dirx,
    // diry ↦ -diry, dirx ↔ diry): `%` is Euclidean, so 2 - (x + d) % 3 = ((2 - x) - d) % 3;
    // the squared Euclidean distance of the link and the consensus on both headings are
    // invariant. Nothing else is: mirroring a heading alone turns x + 1 into x - 1, which
    // differ modulo 3, and exchanging positions alone moves x by diry.
    let (model, behs) = load_file("benchmarks/flock.labs", &["birds=2", "grid=3", "delta=1"]);
    for fair in [false, true] {
        let (found, len) = group_tables(&model, &behs, fair);
        let lay = Stepper::new(&model, &behs, fair).lay;
        let want: Vec<Table> = bits3()
            .into_iter()
            .map(|b| {
                let pos = signed_swap(&model, &lay, ("x", "y"), 2, b);
                let dir = signed_swap(&model, &lay, ("dirx", "diry"), 0, b);
                compose(&pos, &dir)
            })
            .collect();
        assert_eq!(want.len(), 8);
        assert_eq!(found.len(), 8, "fair={fair}");
        assert_eq!(as_set(found), as_set(want), "fair={fair}");
        assert_eq!(len, lay.len);
    }
    // grid = 2: x + 1 and x - 1 agree modulo 2, so a bird's move is x ↦ 1 - x whatever its
    // heading: headings and positions are transformed independently, by any signed
    // permutation of (dirx, diry) and of (x, y): 8 x 8 = 64 maps.
    let (model, behs) = load_file("benchmarks/flock.labs", &["birds=3", "grid=2", "delta=1"]);
    let (found, _) = group_tables(&model, &behs, false);
    let lay = Stepper::new(&model, &behs, false).lay;
    let mut want = Vec::new();
    for bp in bits3() {
        for bd in bits3() {
            want.push(compose(
                &signed_swap(&model, &lay, ("x", "y"), 1, bp),
                &signed_swap(&model, &lay, ("dirx", "diry"), 0, bd),
            ));
        }
    }
    assert_eq!(found.len(), 64);
    assert_eq!(as_set(found), as_set(want));
}

#[test]
fn flocking_has_the_diagonal_reflection() {
    // examples/flocking.labs: a bird flies east (h = 0: x + 1) or north (h = 1: y + 1).
    // Exchanging x and y with h ↦ 1 - h maps one move to the other; the Manhattan link and
    // the properties are invariant. A mirror of x would turn x + 1 into x - 1 (modulo 3).
    let (model, behs) = load_file("examples/flocking.labs", &["birds=2", "grid=3", "delta=1"]);
    let (found, _) = group_tables(&model, &behs, false);
    let lay = Stepper::new(&model, &behs, false).lay;
    let mut want = signed_swap(&model, &lay, ("x", "y"), 0, (true, false, false));
    for a in 0..lay.n_agents {
        let h = slot(&model, &lay, "h", a);
        want[h] = (h, -1, 1);
    }
    assert_eq!(found, vec![identity(lay.len), want]);
}

/// A walker spec: `n` agents of type `W` on a `grid` x `grid` torus, with headings `dx, dy`
/// in a stigmergy.
fn walker(n: usize, grid: i32, moves: &str, link: &str, property: &str) -> String {
    format!(
        "system {{ spawn = W: {n} }}\n\
         stigmergy Dir {{ link = {link}\n dx, dy: [-1, 1], [-1, 1] }}\n\
         agent W {{ interface = x: 0..{grid}; y: 0..{grid}\n stigmergies = Dir\n Behavior = ({moves}); Behavior }}\n\
         check {{ P = {property} }}\n"
    )
    .replace("G", &grid.to_string())
}

const FLY: &str = "x, y <- (x + dx) % G, (y + dy) % G";
const EUCLID: &str = "(x of c1 - x of c2) * (x of c1 - x of c2) + (y of c1 - y of c2) * (y of c1 - y of c2) <= 1";
const CONSENSUS: &str = "finally forall W a, forall W b, dx of a = dx of b and dy of a = dy of b";

fn load_spec(text: &str) -> (Model, Vec<Behaviour>) {
    load_text(text, &[]).unwrap_or_else(|e| panic!("{e:?}\n{text}"))
}

/// The x-mirror with its heading, and the y-mirror with its heading, of a walker on a grid of
/// 3, derived by hand.
fn mirrors(model: &Model, behs: &[Behaviour]) -> (Table, Table) {
    let lay = Stepper::new(model, behs, false).lay;
    let mx = compose(
        &signed_swap(model, &lay, ("x", "y"), 2, (false, true, false)),
        &signed_swap(model, &lay, ("dx", "dy"), 0, (false, true, false)),
    );
    let my = compose(
        &signed_swap(model, &lay, ("x", "y"), 2, (false, false, true)),
        &signed_swap(model, &lay, ("dx", "dy"), 0, (false, false, true)),
    );
    (mx, my)
}

#[test]
fn a_flock_walker_on_its_own_has_the_square() {
    // The reference point of the asymmetric variants below: flock's move, link and property.
    let (model, behs) = load_spec(&walker(2, 3, FLY, EUCLID, CONSENSUS));
    let (found, _) = group_tables(&model, &behs, false);
    let (mx, my) = mirrors(&model, &behs);
    assert_eq!(found.len(), 8);
    assert!(found.contains(&mx) && found.contains(&my));
}

#[test]
fn a_property_naming_a_column_breaks_the_x_mirror() {
    // `x of b = 0` holds in a state with a bird at x = 0 and fails in its x-mirror (x = 2
    // there, the others elsewhere); the property does not read y, so the y-mirror stays;
    // exchanging x and y turns it into `y of b = 0`.
    let text = walker(2, 3, FLY, EUCLID, "finally exists W b, x of b = 0");
    let (model, behs) = load_spec(&text);
    let (found, len) = group_tables(&model, &behs, false);
    let (mx, my) = mirrors(&model, &behs);
    assert_eq!(found, vec![identity(len), my.clone()], "{text}");
    let why = first_failure(&model, &behs, false, &[mx]).expect("the x-mirror is not an automorphism");
    assert!(why.contains("P is"), "{why}");
    assert_eq!(first_failure(&model, &behs, false, &[my]), None);
}

#[test]
fn an_ordered_link_breaks_the_x_mirror() {
    // `x of c1 < x of c2` between birds at x = 0 and x = 1 holds from the first to the
    // second; mirrored (x = 2 and x = 1) it holds the other way round, so a propagation
    // reaches the receiver in a state and not in its image. y is not read: the y-mirror
    // stays; the exchange of x and y turns the link into `y of c1 < y of c2`.
    let text = walker(2, 3, FLY, "x of c1 < x of c2", CONSENSUS);
    let (model, behs) = load_spec(&text);
    let (found, len) = group_tables(&model, &behs, false);
    let (mx, my) = mirrors(&model, &behs);
    assert_eq!(found, vec![identity(len), my.clone()], "{text}");
    let why = first_failure(&model, &behs, false, &[mx]).expect("the x-mirror is not an automorphism");
    assert!(why.contains("successors"), "{why}");
    assert_eq!(first_failure(&model, &behs, false, &[my]), None);
}

/// A spec of `n` agents moving on a line of 3 cells with the given moves.
fn line(n: usize, moves: &str) -> String {
    format!(
        "system {{ spawn = W: {n} }}\n\
         agent W {{ interface = x: 0..3\n Behavior = ({moves}); Behavior }}\n\
         check {{ P = always forall W a, x of a < 3 }}\n"
    )
}

#[test]
fn a_walker_going_one_way_has_no_mirror() {
    // x ↦ 2 - x maps (x + 1) % 3 to (x + 2) % 3: the image of a step is no step. The map a
    // mirror would be (the only candidate: x is the only variable) fails on the state graph.
    let (model, behs) = load_spec(&line(2, "x <- (x + 1) % 3"));
    let (found, len) = group_tables(&model, &behs, false);
    assert_eq!(found, vec![identity(len)]);
    let lay = Stepper::new(&model, &behs, false).lay;
    let mut mx = identity(len);
    for a in 0..lay.n_agents {
        let s = slot(&model, &lay, "x", a);
        mx[s] = (s, -1, 2);
    }
    let why = first_failure(&model, &behs, false, &[mx.clone()]).expect("the mirror is not an automorphism");
    assert!(why.contains("successors"), "{why}");
    // Going both ways, the mirror exchanges the two moves: 2 - (x + 1) % 3 = ((2 - x) + 2) % 3.
    let (model, behs) = load_spec(&line(2, "(x <- (x + 1) % 3) ++ (x <- (x + 2) % 3)"));
    let (found, len) = group_tables(&model, &behs, false);
    assert_eq!(found, vec![identity(len), mx]);
    check_group_is_sound("both ways", &model, &behs, false);
}

#[test]
fn leader_philosophers_and_twophase_have_no_symmetry_of_values() {
    // leader: one scalar, `leader` in 0..3, is all there is to map; LeaderIs0 reads
    // `leader = 0`, which the only mirror (leader ↦ 3 - leader) sends to `leader = 3`.
    // philosophers: `fork` is an array (never mapped); `status` is set to constants 1, 2, 3,
    // 0 in turn, and a mirror (status ↦ 3 - status) would reverse that cycle; P1 reads
    // `status != 1`.
    // twophase: `vote`, `commit` and `rollback` are set to the constant 1 (mirrors would
    // make that 0); the property reads `commit = 1` and not `rollback`, so they cannot be
    // exchanged; `agree` counts up to `_workers` and is compared with it.
    for (file, externs) in [
        ("benchmarks/leader.labs", &["n=3"][..]),
        ("benchmarks/philosophers.labs", &["n=3"][..]),
        ("benchmarks/twophase.labs", &["workers=2"][..]),
    ] {
        let (model, behs) = load_file(file, externs);
        for fair in [false, true] {
            let sym = symmetry::analyse(&model, &behs, fair);
            assert!(sym.values.maps.is_empty(), "{file} fair={fair}: {:?}", sym.values.generators);
            assert!(sym.group.as_ref().is_none_or(|g| g.values.is_empty()), "{file} fair={fair}");
        }
    }
}

fn verify_with(model: &Model, behs: &[Behaviour], fair: bool, symmetry: bool) -> Result<VerifyReport, EngineError> {
    verify(model, behs, &VerifyOptions { fair, threads: 1, symmetry, ..Default::default() })
}

/// Random walkers: moves, link and property drawn from menus that mix maps of values the
/// analysis should keep and maps it should refuse.
fn random_walker() -> impl Strategy<Value = (String, bool)> {
    let moves = prop::sample::select(vec![
        FLY,
        "x <- (x + dx) % G",
        "x <- (x + 1) % G",
        "(x <- (x + 1) % G) ++ (x <- (x + G - 1) % G)",
        "x > 0 -> x <- x - 1",
        "dx <~ -dx",
        "dx, dy <~ dy, dx",
        "x, y <- y, x",
    ]);
    let link = prop::sample::select(vec![
        "true",
        EUCLID,
        "abs(x of c1 - x of c2) + abs(y of c1 - y of c2) <= 1",
        "x of c1 < x of c2",
        "x of c1 = x of c2",
        "dx of c1 != dy of c2",
    ]);
    let property = prop::sample::select(vec![
        CONSENSUS,
        "always forall W a, x of a < G and y of a < G",
        "finally exists W a, x of a = 0",
        "fairly exists W a, x of a = y of a",
        "fairly_inf forall W a, dx of a = 1",
        "always exists W a, x of a != y of a or dx of a = dy of a",
    ]);
    (prop::collection::vec(moves, 1..3), link, property, 1usize..4, 2i32..4, any::<bool>()).prop_map(
        |(moves, link, property, n, grid, fair)| {
            // Three walkers on a grid of 3 are too many for a quick test.
            let grid = if n == 3 { 2 } else { grid };
            let body = moves.iter().map(|m| format!("({m})")).collect::<Vec<_>>().join(" ++ ");
            (walker(n, grid, &body, link, property), fair)
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if tier::slow("22 of 24 random walkers, about a minute") { 24 } else { 2 },
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_walkers_get_the_same_verdicts_with_and_without_the_reduction((text, fair) in random_walker()) {
        let (model, behs) = load_spec(&text);
        let plain = verify_with(&model, &behs, fair, false).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let reduced = verify_with(&model, &behs, fair, true).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let verdicts = |r: &VerifyReport| r.results.iter().map(|x| (x.property.clone(), x.verdict)).collect::<Vec<_>>();
        prop_assert_eq!(verdicts(&plain), verdicts(&reduced), "{}", text);
        prop_assert!(reduced.stats.states <= plain.stats.states, "{}", text);
        replay_all(&model, &behs, &reduced);
        // And the maps themselves, against the full state graph.
        check_group_is_sound(&text, &model, &behs, fair);
    }
}

/// Ten interchangeable, mirrorable bits: 10! exchanges and 2^10 mirrors are far more
/// candidates than the documented bounds (4,096 candidates, at most 48 exchanges, a group of
/// at most 64 maps, docs/reductions.md). The analysis stays within them, says so in its note,
/// and what it keeps is still a group of automorphisms.
#[test]
fn many_interchangeable_variables_stay_within_the_bounds() {
    let names: Vec<String> = (0..10).map(|i| format!("b{i}")).collect();
    let decls: Vec<String> = names.iter().map(|b| format!("{b}: 0..2")).collect();
    let flips: Vec<String> = names.iter().map(|b| format!("({b} <- 1 - {b})")).collect();
    let text = format!(
        "system {{ spawn = A: 1 }}\n\
         agent A {{ interface = {}\n Behavior = ({}); Behavior }}\n\
         check {{ P = always forall A a, b0 of a >= 0 }}\n",
        decls.join("; "),
        flips.join(" ++ ")
    );
    let (model, behs) = load_spec(&text);
    let sym = symmetry::analyse(&model, &behs, false);
    assert!(sym.values.maps.len() < 64, "{} maps", sym.values.maps.len());
    // Each bit's flip alone is a symmetry, so the bounds, not the check, stop the search.
    assert!(sym.values.maps.len() >= 31, "{} maps", sym.values.maps.len());
    assert!(sym.values.note.is_some(), "the bounds are not reported");
    check_group_is_sound("ten bits", &model, &behs, false);
}
