//! The value analysis on the shared benchmarks: results checked against hand analysis.

use crate::fixtures;

use labs::analysis::IntervalSet;
use labs::analysis::values::analyse;
use labs::behaviour::compile_all;
use labs::model::externs::parse_externs;
use labs::model::{Model, resolve};
use labs::syntax::parse;

fn analysed(file: &str, externs: &[&str]) -> (Model, labs::analysis::values::ValueAnalysis) {
    let path = fixtures::path_str(file);
    let src = std::fs::read_to_string(path).unwrap();
    let spec = parse(&src).spec.unwrap();
    let (model, _) = resolve(&spec, &src, &parse_externs(externs).unwrap()).unwrap();
    let (b, _) = compile_all(&model).unwrap();
    let a = analyse(&model, &b);
    (model, a)
}

fn set_of(m: &Model, a: &labs::analysis::values::ValueAnalysis, var: &str, ty: Option<&str>) -> IntervalSet {
    let v = m.vars.iter().position(|x| x.name == var).unwrap();
    let t = ty.map(|t| m.type_by_name(t).unwrap());
    a.get(v, t).unwrap().clone()
}

/// VMCAI 2023's worked example: `leader ∈ {[0, N-1], [N, N]}` (which normalises to [0, N]).
#[test]
fn leader_paper_example() {
    for n in 3..=7 {
        let (m, a) = analysed("benchmarks/leader.labs", &[&format!("n={n}")]);
        let expected = IntervalSet::from_intervals([(0, n - 1), (n, n)], false);
        assert_eq!(set_of(&m, &a, "leader", Some("Node")), expected, "n={n}");
        assert!(a.widened.is_empty());
    }
}

#[test]
fn formation_positions_stay_on_the_line() {
    // pos starts in 1..9; moves are clamped by guards to [0, size-1].
    let (m, a) = analysed("benchmarks/formation.labs", &["n=3", "size=10", "range=2"]);
    assert_eq!(set_of(&m, &a, "pos", Some("Robot")), IntervalSet::range(0, 9));
    assert_eq!(set_of(&m, &a, "idLeft", Some("Robot")), IntervalSet::range(0, 2));
}

#[test]
fn flock_directions_are_plus_or_minus_one() {
    let (m, a) = analysed("benchmarks/flock.labs", &["birds=3", "grid=5", "delta=5"]);
    assert_eq!(set_of(&m, &a, "dirx", Some("Bird")), IntervalSet::from_intervals([(-1, -1), (1, 1)], false));
    assert_eq!(set_of(&m, &a, "x", Some("Bird")), IntervalSet::range(0, 4));
}

#[test]
fn undef_is_kept_by_plain_copies_only() {
    // tests/cases/undef.labs: z <-- u copies ⊥; w <-- u + 1 is disabled when u = ⊥.
    let (m, a) = analysed("tests/cases/undef.labs", &[]);
    assert!(set_of(&m, &a, "z", None).contains_undef());
    assert!(!set_of(&m, &a, "w", None).contains_undef());
    assert_eq!(set_of(&m, &a, "u", None), IntervalSet::undef_only());
}

#[test]
fn growing_counters_are_widened_not_looped() {
    let src = "system {\n  environment = c: 0\n  spawn = A: 1\n}\nagent A {\n  Behavior = c <-- c + 1; Behavior\n}\ncheck {\n}\n";
    let spec = parse(src).spec.unwrap();
    let (model, _) = resolve(&spec, src, &Default::default()).unwrap();
    let (b, _) = compile_all(&model).unwrap();
    let a = analyse(&model, &b);
    let s = a.get(0, None).unwrap();
    assert!(s.contains(0) && s.contains(1_000_000) && !s.contains(-1));
    assert_eq!(a.widened, vec![(0, None)]);
}
