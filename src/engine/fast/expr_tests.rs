//! The compiled expressions against the evaluator (`Ctx::eval_b`, the reference) on random
//! expressions and random states: the same truth value, or a run-time error exactly where
//! the evaluator reports one (as `Fallback`).

use super::*;
use crate::engine::eval::{Ctx, Mode, Scratch, Stop};
use crate::model::externs::parse_externs;
use proptest::prelude::*;

/// Two agents with an attribute `a` and an array `v[3]`; an environment array `e[2]`.
const SPEC: &str = "system {\n  environment = e[2]: 0\n  spawn = A: 2\n}\n\
                    agent A {\n  interface = a: 0; v[3]: 0\n  Behavior = a <- 1\n}\ncheck {\n}\n";

fn model() -> Model {
    let parsed = crate::syntax::parse(SPEC);
    let spec = parsed.spec.expect("parses");
    crate::model::resolve(&spec, SPEC, &parse_externs(&Vec::<String>::new()).unwrap()).expect("resolves").0
}

fn var(m: &Model, name: &str) -> usize {
    m.vars.iter().position(|v| v.name == name).expect("variable")
}

/// Leaves: constants (some huge, to overflow), `id`, `id of c1`, variables of the acting
/// agent, of `c1`, of `c2` and of agent `Const(k)`, with constant or computed indices.
fn leaf(a: usize, v: usize, e: usize) -> impl Strategy<Value = Expr> {
    let owner = prop_oneof![
        Just(AgentRef::Own),
        Just(AgentRef::C1),
        Just(AgentRef::C2),
        (0i64..3).prop_map(|k| AgentRef::Of(Box::new(Expr::Const(k)))),
    ];
    prop_oneof![
        (-3i64..4).prop_map(Expr::Const),
        Just(Expr::Const(2_000_000_000)),
        Just(Expr::AgentId(AgentRef::Own)),
        Just(Expr::AgentId(AgentRef::C1)),
        owner.clone().prop_map(move |owner| Expr::Var(VarRef { var: a, indices: vec![], owner })),
        (owner, 0i64..4).prop_map(move |(owner, i)| Expr::Var(VarRef { var: v, indices: vec![Expr::Const(i)], owner })),
        (0i64..3).prop_map(move |i| Expr::Var(VarRef {
            var: e,
            indices: vec![Expr::Bin(BinOp::Sub, Box::new(Expr::Const(i)), Box::new(Expr::AgentId(AgentRef::Own)))],
            owner: AgentRef::Own,
        })),
    ]
}

fn expr(a: usize, v: usize, e: usize) -> impl Strategy<Value = Expr> {
    let ops = prop_oneof![
        Just(BinOp::Add),
        Just(BinOp::Sub),
        Just(BinOp::Mul),
        Just(BinOp::Div),
        Just(BinOp::Mod),
        Just(BinOp::RDiv)
    ];
    leaf(a, v, e).prop_recursive(4, 24, 2, move |inner| {
        prop_oneof![
            (ops.clone(), inner.clone(), inner.clone()).prop_map(|(op, x, y)| Expr::Bin(op, Box::new(x), Box::new(y))),
            (inner.clone(), inner.clone()).prop_map(|(x, y)| Expr::MinMax(MinMax::Min, Box::new(x), Box::new(y))),
            (inner.clone(), inner.clone()).prop_map(|(x, y)| Expr::MinMax(MinMax::Max, Box::new(x), Box::new(y))),
            inner.clone().prop_map(|x| Expr::Neg(Box::new(x))),
            inner.clone().prop_map(|x| Expr::Abs(Box::new(x))),
            (inner.clone(), inner.clone(), inner.clone()).prop_map(|(c, x, y)| Expr::If(
                Box::new(BExpr::Cmp(CmpOp::Lt, c, Expr::Const(1))),
                Box::new(x),
                Box::new(y)
            )),
        ]
    })
}

fn bexpr(a: usize, v: usize, e: usize) -> impl Strategy<Value = BExpr> {
    let cmp = prop_oneof![Just(CmpOp::Eq), Just(CmpOp::Ne), Just(CmpOp::Lt), Just(CmpOp::Ge)];
    let atom = (cmp, expr(a, v, e), expr(a, v, e)).prop_map(|(op, x, y)| BExpr::Cmp(op, x, y));
    atom.prop_recursive(2, 8, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(x, y)| BExpr::And(Box::new(x), Box::new(y))),
            (inner.clone(), inner.clone()).prop_map(|(x, y)| BExpr::Or(Box::new(x), Box::new(y))),
            inner.clone().prop_map(|x| BExpr::Not(Box::new(x))),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn compiled_predicates_agree_with_the_evaluator(
        b in { let m = model(); bexpr(var(&m, "a"), var(&m, "v"), var(&m, "e")) },
        slots in proptest::collection::vec(prop_oneof![Just(BOT), -3i32..4, Just(i32::MAX)], 64),
        me in 0usize..2, c1 in 0usize..2, c2 in 0usize..2, pred in any::<bool>(),
    ) {
        let m = model();
        let lay = Layout::new(&m, false);
        let st = &slots[..lay.len];
        // Steps bind `id`; links bind `c1` and `c2` and evaluate in `Pred` mode.
        let (bind, mode) = if pred {
            (Binding { me: None, c1: Some(c1), c2: Some(c2) }, Mode::Pred)
        } else {
            (Binding { me: Some(me), c1: None, c2: None }, Mode::Step)
        };
        let cx = Ctx { model: &m, lay: &lay, me: bind.me, c1: bind.c1, c2: bind.c2, mode };
        let reference = cx.eval_b(st, &mut Scratch::default(), &b);
        let compiled = Compiler { model: &m, lay: &lay, bind, quants: &[] }.bexpr(&b);
        if let Some(c) = compiled {
            match (c.eval(st), reference) {
                (Ok(x), Ok(y)) => prop_assert_eq!(x, y),
                (Err(Fallback), Err(Stop::Error(_))) => {}
                (got, want) => prop_assert!(false, "compiled {:?}, evaluator {:?}", got, want),
            }
        }
    }
}
