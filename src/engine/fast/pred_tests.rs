//! Compiled quantified predicates against the evaluator in `Mode::Pred` (what
//! `engine::eval_pred`, which `eval_all` falls back to, runs) on random predicates over
//! random states: the same truth value, or a `Fallback` exactly where the evaluator reports
//! a run-time error.

use super::*;
use crate::engine::eval::{Ctx, Mode, Scratch, Stop};
use crate::engine::state::BOT;
use crate::model::externs::parse_externs;
use crate::model::{AgentRef, BExpr, Expr, VarRef};
use crate::syntax::ast::{BinOp, CmpOp, MinMax};
use proptest::prelude::*;
use proptest::strategy::{Union, ValueTree};

/// Two agent types, `A` (ids 0, 1) and `B` (ids 2, 3, 4), both with an attribute `a` and an
/// array `v[3]`; an environment array `e[2]`.
const SPEC: &str = "system {\n  environment = e[2]: 0\n  spawn = A: 2, B: 3\n}\n\
                    agent A {\n  interface = a: 0; v[3]: 0\n  Behavior = a <- 1\n}\n\
                    agent B {\n  interface = a: 0; v[3]: 0\n  Behavior = a <- 2\n}\ncheck {\n}\n";

fn model() -> Model {
    let spec = crate::syntax::parse(SPEC).spec.expect("parses");
    crate::model::resolve(&spec, SPEC, &parse_externs(&Vec::<String>::new()).unwrap()).expect("resolves").0
}

/// `engine::eval_pred`: the evaluator in `Mode::Pred` with nothing bound, a disabled
/// evaluation false. (It takes a `Stepper`, which this stage's files do not use.)
fn eval_pred(m: &Model, lay: &Layout, st: &[i32], q: &QPred) -> Result<bool, String> {
    let cx = Ctx { model: m, lay, me: None, c1: None, c2: None, mode: Mode::Pred };
    match cx.eval_q(st, &mut Scratch::default(), q) {
        Ok(b) => Ok(b),
        Err(Stop::Disabled) => Ok(false),
        Err(Stop::Error(e)) => Err(e),
    }
}

/// Variable ids of `a`, `v` and `e`.
fn vars(m: &Model) -> [usize; 3] {
    ["a", "v", "e"].map(|n| m.vars.iter().position(|v| v.name == n).expect("variable"))
}

fn var(var: usize, indices: Vec<Expr>, owner: AgentRef) -> Expr {
    Expr::Var(VarRef { var, indices, owner })
}

fn qv(i: usize) -> Expr {
    Expr::QVar(i)
}

/// Leaves over `nq` quantified variables: constants (one huge, to overflow), the quantified
/// agents as numbers and ids, their variables (indices folded from the agent, or
/// constant), variables of a constant agent and of the environment; rarely, an index or an
/// agent read from the state, which the compiler must refuse (a ⊥ there reads ⊥ in
/// `Mode::Pred`, out of range is an error).
fn leaf(nq: usize, [a, v, e]: [usize; 3]) -> BoxedStrategy<Expr> {
    let mut leaves: Vec<(u32, BoxedStrategy<Expr>)> = vec![
        (9, (-3i64..4).prop_map(Expr::Const).boxed()),
        (3, Just(Expr::Const(2_000_000_000)).boxed()),
        (6, (0usize..5).prop_map(move |k| var(a, vec![], AgentRef::Of(Box::new(Expr::Const(k as i64))))).boxed()),
        (6, (0i64..2).prop_map(move |i| var(e, vec![Expr::Const(i)], AgentRef::Own)).boxed()),
        (
            1,
            prop_oneof![
                (0usize..5).prop_map(move |k| var(
                    a,
                    vec![],
                    AgentRef::Of(Box::new(var(a, vec![], AgentRef::Of(Box::new(Expr::Const(k as i64))))))
                )),
                Just(var(v, vec![var(e, vec![Expr::Const(0)], AgentRef::Own)], AgentRef::Of(Box::new(Expr::Const(0))))),
            ]
            .boxed(),
        ),
    ];
    if nq > 0 {
        let q = move || 0..nq;
        let of = |i| AgentRef::Of(Box::new(qv(i)));
        leaves.extend([
            (6, q().prop_map(qv).boxed()),
            (3, q().prop_map(move |i| Expr::AgentId(of(i))).boxed()),
            (18, q().prop_map(move |i| var(a, vec![], of(i))).boxed()),
            (9, (q(), 0i64..3).prop_map(move |(i, k)| var(v, vec![Expr::Const(k)], of(i))).boxed()),
            (
                9,
                (q(), q())
                    .prop_map(move |(i, j)| {
                        var(v, vec![Expr::Bin(BinOp::Mod, Box::new(qv(j)), Box::new(Expr::Const(3)))], of(i))
                    })
                    .boxed(),
            ),
            (
                3,
                q().prop_map(move |i| {
                    var(e, vec![Expr::Bin(BinOp::Mod, Box::new(qv(i)), Box::new(Expr::Const(2)))], AgentRef::Own)
                })
                .boxed(),
            ),
        ]);
    }
    Union::new_weighted(leaves).boxed()
}

fn expr(nq: usize, vs: [usize; 3]) -> impl Strategy<Value = Expr> {
    // Division by a constant 0 or a constant overflow do not compile: rarer.
    let ops = prop_oneof![
        3 => Just(BinOp::Add),
        3 => Just(BinOp::Sub),
        2 => Just(BinOp::Mul),
        1 => Just(BinOp::Div),
        1 => Just(BinOp::Mod)
    ];
    leaf(nq, vs).prop_recursive(3, 8, 2, move |inner| {
        prop_oneof![
            (ops.clone(), inner.clone(), inner.clone()).prop_map(|(op, x, y)| Expr::Bin(op, Box::new(x), Box::new(y))),
            (inner.clone(), inner.clone()).prop_map(|(x, y)| Expr::MinMax(MinMax::Max, Box::new(x), Box::new(y))),
            inner.clone().prop_map(|x| Expr::Abs(Box::new(x))),
            (inner.clone(), inner.clone(), inner.clone()).prop_map(|(c, x, y)| Expr::If(
                Box::new(BExpr::Cmp(CmpOp::Lt, c, Expr::Const(1))),
                Box::new(x),
                Box::new(y)
            )),
        ]
    })
}

fn bexpr(nq: usize, vs: [usize; 3]) -> impl Strategy<Value = BExpr> {
    let cmp = prop_oneof![Just(CmpOp::Eq), Just(CmpOp::Ne), Just(CmpOp::Lt), Just(CmpOp::Ge)];
    let atom = (cmp, expr(nq, vs), expr(nq, vs)).prop_map(|(op, x, y)| BExpr::Cmp(op, x, y));
    atom.prop_recursive(2, 6, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(x, y)| BExpr::And(Box::new(x), Box::new(y))),
            (inner.clone(), inner.clone()).prop_map(|(x, y)| BExpr::Or(Box::new(x), Box::new(y))),
            inner.clone().prop_map(|x| BExpr::Not(Box::new(x))),
        ]
    })
}

/// Up to three quantifiers of either kind over either type, and a body over them.
fn qpred() -> impl Strategy<Value = QPred> {
    let vs = vars(&model());
    let quant = (any::<bool>(), 0usize..2)
        .prop_map(|(exists, ty)| (if exists { QuantKind::Exists } else { QuantKind::Forall }, ty));
    proptest::collection::vec(quant, 0..4)
        .prop_flat_map(move |quants| (bexpr(quants.len(), vs), Just(quants)))
        .prop_map(|(body, quants)| QPred { quants, body })
}

/// The compiled form of `q` against the evaluator in `st`; the compiled result, if `q`
/// compiles.
fn agree(m: &Model, q: &QPred, st: &[i32]) -> Result<Option<Result<bool, Fallback>>, TestCaseError> {
    let lay = Layout::new(m, false);
    let reference = eval_pred(m, &lay, st, q);
    let Some(f) = FastPred::compile(m, &lay, q) else { return Ok(None) };
    let got = f.eval(st);
    match (got, reference) {
        (Ok(x), Ok(y)) => prop_assert_eq!(x, y),
        (Err(Fallback), Err(_)) => {}
        (got, want) => prop_assert!(false, "compiled {:?}, evaluator {:?}", got, want),
    }
    Ok(Some(got))
}

fn state() -> impl Strategy<Value = Vec<i32>> {
    proptest::collection::vec(prop_oneof![Just(BOT), -3i32..4, Just(i32::MAX)], 32)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn compiled_quantified_predicates_agree_with_the_evaluator(q in qpred(), slots in state()) {
        let m = model();
        let lay = Layout::new(&m, false);
        agree(&m, &q, &slots[..lay.len])?;
    }
}

/// The generator must mostly produce predicates that compile, and their values must cover
/// true, false and run-time errors, or the proptest above checks little.
#[test]
fn random_predicates_compile_and_cover_every_outcome() {
    let m = model();
    let lay = Layout::new(&m, false);
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut none, mut t, mut f, mut fallback) = (0, 0, 0, 0);
    for _ in 0..500 {
        let q = qpred().new_tree(&mut runner).unwrap().current();
        let st = state().new_tree(&mut runner).unwrap().current();
        match agree(&m, &q, &st[..lay.len]).unwrap() {
            None => none += 1,
            Some(Ok(true)) => t += 1,
            Some(Ok(false)) => f += 1,
            Some(Err(Fallback)) => fallback += 1,
        }
    }
    let counts = format!("{none} not compiled, {t} true, {f} false, {fallback} errors");
    assert!(none <= 250 && t >= 50 && f >= 50 && fallback >= 25, "{counts}");
}

/// `forall A x, 1 / a of x = 0` and its `exists` form, where agent 0 has `a = 2` or `1` and
/// agent 1 has `a = 0` (a division by zero): each quantifier stops where the evaluator
/// does, so the second instance is reached only when the first does not decide.
#[test]
fn quantifiers_stop_where_the_evaluator_does() {
    let m = model();
    let [a, ..] = vars(&m);
    let lay = Layout::new(&m, false);
    let body = BExpr::Cmp(
        CmpOp::Eq,
        Expr::Bin(BinOp::Div, Box::new(Expr::Const(1)), Box::new(var(a, vec![], AgentRef::Of(Box::new(qv(0)))))),
        Expr::Const(0),
    );
    assert_eq!(m.agent_types[0].ids(), 0..2, "A");
    let pred = |kind| FastPred::compile(&m, &lay, &QPred { quants: vec![(kind, 0)], body: body.clone() }).unwrap();
    let (forall, exists) = (pred(QuantKind::Forall), pred(QuantKind::Exists));
    let mut st = vec![0; lay.len];
    st[lay.attr(1, m.vars[a].offset)] = 0;
    // 1 / 2 = 0 holds: forall goes on to agent 1 (error), exists stops.
    st[lay.attr(0, m.vars[a].offset)] = 2;
    assert_eq!((forall.eval(&st), exists.eval(&st)), (Err(Fallback), Ok(true)));
    // 1 / 1 = 0 is false: forall stops, exists goes on (error).
    st[lay.attr(0, m.vars[a].offset)] = 1;
    assert_eq!((forall.eval(&st), exists.eval(&st)), (Ok(false), Err(Fallback)));
    // A ⊥ operand makes the comparison false (D10), with no error.
    st[lay.attr(0, m.vars[a].offset)] = BOT;
    assert_eq!((forall.eval(&st), exists.eval(&st)), (Ok(false), Err(Fallback)));
}

/// Every tuple is an instance: three quantifiers over the 3 `B` agents are 27 bodies, and a
/// predicate with more instances than `MAX_INSTANCES` is left to the evaluator.
#[test]
fn instances_are_capped() {
    let m = model();
    let lay = Layout::new(&m, false);
    let body = BExpr::Cmp(CmpOp::Eq, qv(0), qv(0));
    assert_eq!(m.agent_types[1].ids(), 2..5, "B");
    let q = |n| QPred { quants: vec![(QuantKind::Forall, 1); n], body: body.clone() };
    assert_eq!(FastPred::compile(&m, &lay, &q(3)).map(|f| f.bodies.len()), Some(27));
    // 3^7 = 2,187 instances compile; 3^8 = 6,561 exceed the cap.
    assert!(FastPred::compile(&m, &lay, &q(7)).is_some());
    assert!(FastPred::compile(&m, &lay, &q(8)).is_none());
}
