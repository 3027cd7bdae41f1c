//! Every `.labs` file of the benchmarks and semantics cases parses, prints and parses
//! back to the same tree; spot checks of the trees.
//!
//! The public corpus (`labs-lang/labs-examples`, `labs-lang/labs/examples`) is not part of the
//! repository: it was checked manually (every file the reference accepts parses;
//! `environment.labs`, `tsp.labs`, `voter.labs` and `aggregation.labs` are rejected with
//! located messages). Set `LABS_CORPUS=/path/to/dir` to run `extra_corpus_if_present` on it.

use crate::fixtures;

use labs::diagnostics::Severity;
use labs::syntax::ast::*;
use labs::syntax::parse;
use labs::syntax::printer::{erase_spans, print_spec};
use labs::syntax::span::SourceFile;
use std::path::{Path, PathBuf};

fn labs_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|e| e == "labs"))
        .collect();
    out.sort();
    out
}

fn shared_files() -> Vec<PathBuf> {
    let mut v = labs_files(&fixtures::benchmarks());
    v.extend(labs_files(&fixtures::cases()));
    v
}

fn parse_ok(path: &Path) -> (Spec, Vec<labs::diagnostics::Diagnostic>) {
    let text = std::fs::read_to_string(path).unwrap();
    let out = parse(&text);
    let file = SourceFile::new(path.display().to_string(), text);
    let rendered: Vec<String> = out.diagnostics.items.iter().map(|d| d.render(&file)).collect();
    assert!(!out.diagnostics.has_errors(), "{}:\n{}", path.display(), rendered.join("\n"));
    (out.spec.expect("a tree without errors"), out.diagnostics.items)
}

fn roundtrip(path: &Path, spec: &Spec) {
    let printed = print_spec(spec);
    let again = parse(&printed);
    let spec2 = again.spec.unwrap_or_else(|| {
        panic!("{}: printed text does not parse:\n{printed}\n{:?}", path.display(), again.diagnostics)
    });
    assert_eq!(erase_spans(spec), erase_spans(&spec2), "{}: round trip changed the tree:\n{printed}", path.display());
    assert_eq!(print_spec(&spec2), printed, "{}: printing is not idempotent", path.display());
}

#[test]
fn all_shared_files_parse_and_round_trip() {
    let files = shared_files();
    assert!(files.len() >= 30, "expected the shared corpus, found {} files", files.len());
    for f in &files {
        let (spec, _) = parse_ok(f);
        roundtrip(f, &spec);
    }
}

fn shared(rel: &str) -> PathBuf {
    fixtures::path(rel)
}

fn behavior<'a>(spec: &'a Spec, agent: &str) -> &'a Proc {
    let a = spec.agents.iter().find(|a| a.name.name == agent).expect("agent");
    &a.processes.iter().find(|d| d.name.name == "Behavior").expect("Behavior").body
}

#[test]
fn guard_scope_body_is_a_choice() {
    let (spec, _) = parse_ok(&shared("tests/cases/guard_scope.labs"));
    match behavior(&spec, "P") {
        Proc::Guard { kind: GuardKind::Blocking, body, cond, .. } => {
            assert!(matches!(cond, BExpr::Cmp(CmpOp::Eq, ..)));
            match body.as_ref() {
                Proc::Choice(items, _) => {
                    assert_eq!(items.len(), 2);
                    assert!(items.iter().all(|p| matches!(p, Proc::Action(a) if a.op == AssignOp::Env)));
                }
                other => panic!("guard body is not a choice: {other:?}"),
            }
        }
        other => panic!("not a guard: {other:?}"),
    }
}

fn is_cmp_var(b: &BExpr, var: &str, val: i64) -> bool {
    matches!(b, BExpr::Cmp(CmpOp::Eq, Expr::Var { name, owner: None, .. }, Expr::Int(v, _), _) if name.name == var && *v == val)
}

#[test]
fn precedence_and_binds_tighter_with_warning() {
    let (spec, diags) = parse_ok(&shared("tests/cases/precedence.labs"));
    let Proc::Seq(items, _) = behavior(&spec, "P") else { panic!("not a sequence") };
    assert_eq!(items.len(), 3);
    let Proc::Paren(inner, _) = &items[0] else { panic!("not parenthesised") };
    let Proc::Guard { cond, .. } = inner.as_ref() else { panic!("not a guard") };
    match cond {
        BExpr::Logic(BoolOp::Or, l, r, _) => {
            assert!(is_cmp_var(l, "a", 1));
            match r.as_ref() {
                BExpr::Logic(BoolOp::And, b, c, _) => {
                    assert!(is_cmp_var(b, "b", 1));
                    assert!(is_cmp_var(c, "c", 1));
                }
                other => panic!("right operand is not an `and`: {other:?}"),
            }
        }
        other => panic!("not an `or`: {other:?}"),
    }
    let warnings: Vec<_> = diags.iter().filter(|d| d.severity == Severity::Warning).collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].message.contains("`and` binds tighter than `or`"));
    // The third guard's condition is a bare arithmetic expression; `if b` too.
    let Proc::Paren(third, _) = &items[2] else { panic!() };
    let Proc::Guard { cond: BExpr::Truthy(Expr::Var { name, .. }), body, .. } = third.as_ref() else {
        panic!("{third:?}")
    };
    assert_eq!(name.name, "a");
    let Proc::Action(a) = body.as_ref() else { panic!() };
    assert!(matches!(&a.rhs[0], Expr::If { cond, .. } if matches!(cond.as_ref(), BExpr::Truthy(_))));
    // `!( … )`
    let Proc::Paren(second, _) = &items[1] else { panic!() };
    let Proc::Guard { cond: BExpr::Not(n, _), .. } = second.as_ref() else { panic!("{second:?}") };
    assert!(matches!(n.as_ref(), BExpr::Paren(..)));
}

#[test]
fn leader_properties() {
    let (spec, _) = parse_ok(&shared("benchmarks/leader.labs"));
    let names: Vec<(&str, &Modality)> = spec.properties.iter().map(|p| (p.name.name.as_str(), &p.modality)).collect();
    assert_eq!(names.len(), 3);
    assert_eq!(names[0].0, "LeaderIs0");
    assert_eq!(*names[0].1, Modality::Finally);
    assert_eq!(names[1].0, "LeaderIs100");
    assert_eq!(*names[1].1, Modality::Finally);
    assert_eq!(names[2].0, "LeaderNot0");
    assert_eq!(*names[2].1, Modality::Always);
    let q = &spec.properties[2].pred;
    assert_eq!(q.quants.len(), 1);
    assert_eq!(q.quants[0].kind, QuantKind::Exists);
    assert_eq!(q.quants[0].agent.name, "Node");
    match &q.body {
        BExpr::Cmp(CmpOp::Ne, Expr::Var { name, owner: Some(Owner::Expr(o)), .. }, Expr::Int(0, _), _) => {
            assert_eq!(name.name, "leader");
            assert!(matches!(o.as_ref(), Expr::Var { name, .. } if name.name == "n"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(spec.stigmergies.len(), 1);
    assert!(matches!(spec.stigmergies[0].link, BExpr::Bool(true, _)));
}

#[test]
fn twophase_tuples() {
    let (spec, _) = parse_ok(&shared("benchmarks/twophase.labs"));
    let s = &spec.stigmergies[0];
    assert_eq!(s.tuples.len(), 3);
    let names: Vec<&str> = s.tuples.iter().map(|t| t.vars[0].name.name.as_str()).collect();
    assert_eq!(names, ["vote", "agree", "disagree"]);
    assert_eq!(spec.system.spawn.len(), 2);
    assert_eq!(spec.properties[0].modality, Modality::FairlyInf);
}

#[test]
fn tuple_split_and_joint() {
    let (spec, _) = parse_ok(&shared("tests/cases/tuple_split.labs"));
    assert_eq!(spec.stigmergies[0].tuples.len(), 2);
    assert!(spec.stigmergies[0].tuples.iter().all(|t| t.vars.len() == 1 && t.inits.len() == 1));
    let (spec, _) = parse_ok(&shared("tests/cases/tuple_joint.labs"));
    assert_eq!(spec.stigmergies[0].tuples.len(), 1);
    assert_eq!(spec.stigmergies[0].tuples[0].vars.len(), 2);
    assert!(matches!(spec.stigmergies[0].tuples[0].inits[1], Init::Single(Expr::Id { owner: None, .. })));
}

#[test]
fn link_and_flock_shapes() {
    let (spec, _) = parse_ok(&shared("tests/cases/link.labs"));
    match &spec.stigmergies[0].link {
        BExpr::Cmp(
            CmpOp::Eq,
            Expr::Var { owner: Some(Owner::C1(_)), .. },
            Expr::Var { owner: Some(Owner::C2(_)), .. },
            _,
        ) => {}
        other => panic!("{other:?}"),
    }
    let (spec, _) = parse_ok(&shared("benchmarks/flock.labs"));
    let t = &spec.stigmergies[0].tuples[0];
    assert_eq!(t.vars.len(), 2);
    assert!(matches!(&t.inits[0], Init::Choice(v, _) if v.len() == 2));
    assert!(matches!(&spec.agents[0].interface[0].init, Init::Range(..)));
    let (spec, _) = parse_ok(&shared("tests/cases/recursion.labs"));
    assert_eq!(spec.system.processes.len(), 2);
    let (spec, _) = parse_ok(&shared("tests/cases/nil.labs"));
    let Proc::Seq(items, _) = behavior(&spec, "P") else { panic!() };
    let Proc::Paren(par, _) = &items[0] else { panic!() };
    assert!(matches!(par.as_ref(), Proc::Par(v, _) if matches!(v[0], Proc::Nil(_))));
    let (spec, _) = parse_ok(&shared("tests/cases/modalities.labs"));
    let m: Vec<&str> = spec.properties.iter().map(|p| p.modality.keyword()).collect();
    assert_eq!(m, ["finally", "fairly", "fairly_inf", "fairly", "fairly_inf", "eventually", "finally"]);
    let (spec, _) = parse_ok(&shared("tests/cases/undef_link.labs"));
    assert_eq!(spec.assumptions.len(), 1);
    assert!(matches!(spec.stigmergies[0].link, BExpr::Not(..)));
}

#[test]
fn extra_corpus_if_present() {
    let Ok(dir) = std::env::var("LABS_CORPUS") else {
        return;
    };
    let mut failures = Vec::new();
    for f in labs_files(Path::new(&dir)) {
        let text = std::fs::read_to_string(&f).unwrap();
        let out = parse(&text);
        let file = SourceFile::new(f.display().to_string(), text);
        match out.spec {
            Some(spec) => roundtrip(&f, &spec),
            None => failures.push(out.diagnostics.items.iter().map(|d| d.render(&file)).collect::<Vec<_>>().join("")),
        }
    }
    eprintln!("{}", failures.join("\n"));
}
