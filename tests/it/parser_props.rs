//! Property tests: (a) arbitrary token sequences never make the parser panic (and whatever
//! parses prints back to the same tree); (b) generated syntax trees print to text that parses
//! back to the same tree. (Print → parse → print idempotence on every corpus file is checked in
//! `parser_corpus.rs`.)

use labs::syntax::ast::*;
use labs::syntax::parse;
use labs::syntax::printer::{erase_spans, print_spec};
use labs::syntax::span::Span;
use proptest::prelude::*;

const VOCAB: &[&str] = &[
    "<--",
    "<-",
    "<~",
    ":=",
    "..",
    "->",
    "=>",
    "++",
    "||",
    "!=",
    "<=",
    ">=",
    "<",
    ">",
    "=",
    "+",
    "-",
    "*",
    "/",
    "%",
    ":",
    "!",
    ";",
    ",",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "|",
    "==",
    "$",
    "#",
    "\n",
    "abs",
    "and",
    "count",
    "else",
    "exists",
    "false",
    "forall",
    "id",
    "if",
    "max",
    "min",
    "of",
    "or",
    "pick",
    "Skip",
    "then",
    "true",
    "undef",
    "where",
    "system",
    "extern",
    "environment",
    "spawn",
    "stigmergy",
    "link",
    "agent",
    "interface",
    "stigmergies",
    "assume",
    "check",
    "always",
    "eventually",
    "finally",
    "fairly",
    "fairly_inf",
    "between",
    "from",
    "until",
    "unless",
    "implies",
    "not",
    "thereIs",
    "precedes",
    "c1",
    "c2",
    "Nil",
    "Behavior",
    "A",
    "x",
    "y",
    "_n",
    "0",
    "1",
    "2",
    "é",
    "99999999999",
];

const PREFIX: &str = "system { environment = x: 0 spawn = A: 1 } agent A { interface = y: 0 Behavior = ";

fn roundtrip_if_parsed(src: &str) -> Result<(), TestCaseError> {
    let out = parse(src);
    prop_assert_eq!(out.spec.is_some(), !out.diagnostics.has_errors());
    if let Some(spec) = out.spec {
        let printed = print_spec(&spec);
        let again = parse(&printed);
        let spec2 =
            again.spec.ok_or_else(|| TestCaseError::fail(format!("printed text does not parse:\n{printed}")))?;
        prop_assert_eq!(erase_spans(&spec), erase_spans(&spec2), "{}", printed);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn random_tokens_never_panic(toks in prop::collection::vec(prop::sample::select(VOCAB), 0..60)) {
        roundtrip_if_parsed(&toks.join(" "))?;
    }

    /// Random token sequences as the body of a process, where they have a better chance of
    /// reaching deep into the grammar.
    #[test]
    fn random_process_bodies_never_panic(toks in prop::collection::vec(prop::sample::select(VOCAB), 0..40)) {
        roundtrip_if_parsed(&format!("{PREFIX}{} }} check {{ }}", toks.join(" ")))?;
    }

    #[test]
    fn random_text_never_panics(s in "\\PC{0,200}") {
        roundtrip_if_parsed(&s)?;
    }
}

// ------------------------------------------------------------------- tree generators

pub(crate) fn z() -> Span {
    Span::default()
}

pub(crate) fn ident(s: &str) -> Ident {
    Ident { name: s.to_string(), span: z() }
}

fn var(name: &str) -> Expr {
    Expr::Var { name: ident(name), indices: vec![], owner: None, span: z() }
}

fn level(e: &Expr) -> u8 {
    match e {
        Expr::Bin(BinOp::Add | BinOp::Sub, ..) => 1,
        Expr::Bin(..) => 2,
        Expr::Neg(..) => 3,
        _ => 4,
    }
}

/// Greedy on the right: `if … else e` and `x of e` (process reading).
fn open_right(e: &Expr) -> bool {
    matches!(e, Expr::If { .. } | Expr::Var { owner: Some(Owner::Expr(_)), .. })
}

fn paren(e: Expr) -> Expr {
    Expr::Paren(Box::new(e), z())
}

/// A binary operation with the parentheses its operands need, written as a user would.
fn bin(canon: bool, op: BinOp, l: Expr, r: Expr) -> Expr {
    if !canon {
        return Expr::Bin(op, Box::new(l), Box::new(r), z());
    }
    let lvl = if matches!(op, BinOp::Add | BinOp::Sub) { 1 } else { 2 };
    let l = if level(&l) < lvl || open_right(&l) { paren(l) } else { l };
    let r = if level(&r) <= lvl || open_right(&r) { paren(r) } else { r };
    Expr::Bin(op, Box::new(l), Box::new(r), z())
}

fn binop() -> impl Strategy<Value = BinOp> {
    prop::sample::select(vec![BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::Mod, BinOp::RDiv])
}

fn cmpop() -> impl Strategy<Value = CmpOp> {
    prop::sample::select(vec![CmpOp::Eq, CmpOp::Ne, CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge])
}

/// Process-flavour expressions.
fn expr_p(canon: bool) -> BoxedStrategy<Expr> {
    let leaf = prop_oneof![
        (0i64..1000).prop_map(|n| Expr::Int(n, z())),
        prop::sample::select(vec!["x", "y", "agent", "picked"]).prop_map(var),
        Just(Expr::Extern(ident("_n"))),
        Just(Expr::Id { owner: None, span: z() }),
    ];
    leaf.prop_recursive(4, 24, 3, move |inner| {
        prop_oneof![
            (binop(), inner.clone(), inner.clone()).prop_map(move |(op, l, r)| bin(canon, op, l, r)),
            inner.clone().prop_map(move |e| {
                let e = if canon && (level(&e) < 4 || open_right(&e)) { paren(e) } else { e };
                Expr::Neg(Box::new(e), z())
            }),
            inner.clone().prop_map(|e| Expr::Abs(Box::new(e), z())),
            inner.clone().prop_map(paren),
            (any::<bool>(), inner.clone(), inner.clone()).prop_map(|(min, a, b)| Expr::MinMax(
                if min { MinMax::Min } else { MinMax::Max },
                Box::new(a),
                Box::new(b),
                z()
            )),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::NonDet(Box::new(a), Box::new(b), z())),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|ix| Expr::Var {
                name: ident("b"),
                indices: ix,
                owner: None,
                span: z()
            }),
            inner.clone().prop_map(|o| Expr::Var {
                name: ident("x"),
                indices: vec![],
                owner: Some(Owner::Expr(Box::new(o))),
                span: z()
            }),
            (cmpop(), inner.clone(), inner.clone(), inner.clone(), inner).prop_map(|(op, a, b, t, e)| Expr::If {
                cond: Box::new(BExpr::Cmp(op, a, b, z())),
                then: Box::new(t),
                els: Box::new(e),
                span: z()
            }),
        ]
    })
    .boxed()
}

/// Property-flavour expressions: `x of a`, `x[i] of 3`, `id of a`, no `if`, no `[a..b]`.
pub(crate) fn expr_q() -> BoxedStrategy<Expr> {
    let owner = prop_oneof![
        Just(Owner::Expr(Box::new(var("a")))),
        (0i64..5).prop_map(|n| Owner::Expr(Box::new(Expr::Int(n, z())))),
    ];
    let leaf = prop_oneof![
        (0i64..1000).prop_map(|n| Expr::Int(n, z())),
        Just(var("x")),
        Just(Expr::Extern(ident("_n"))),
        owner.clone().prop_map(|o| Expr::Var { name: ident("y"), indices: vec![], owner: Some(o), span: z() }),
        owner.prop_map(|o| Expr::Id { owner: Some(o), span: z() }),
    ];
    leaf.prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            (binop(), inner.clone(), inner.clone()).prop_map(|(op, l, r)| {
                // In properties `x of a` is closed: only precedence needs parentheses.
                let lvl = if matches!(op, BinOp::Add | BinOp::Sub) { 1 } else { 2 };
                let l = if level(&l) < lvl { paren(l) } else { l };
                let r = if level(&r) <= lvl { paren(r) } else { r };
                Expr::Bin(op, Box::new(l), Box::new(r), z())
            }),
            inner.clone().prop_map(paren),
            inner.clone().prop_map(|e| Expr::Abs(Box::new(e), z())),
            (inner.clone(), inner.clone()).prop_map(|(i, o)| Expr::Var {
                name: ident("arr"),
                indices: vec![i],
                owner: Some(Owner::Expr(Box::new(if matches!(o, Expr::Int(..)) { o } else { var("a") }))),
                span: z()
            }),
        ]
    })
    .boxed()
}

fn blevel(b: &BExpr) -> u8 {
    match b {
        BExpr::Logic(BoolOp::Or, ..) => 0,
        BExpr::Logic(BoolOp::And, ..) => 1,
        _ => 2,
    }
}

/// Boolean expressions (never a bare arithmetic operand; see `top`).
pub(crate) fn bexpr(e: BoxedStrategy<Expr>, canon: bool) -> BoxedStrategy<BExpr> {
    let leaf = prop_oneof![
        any::<bool>().prop_map(|v| BExpr::Bool(v, z())),
        (cmpop(), e.clone(), e).prop_map(|(op, a, b)| BExpr::Cmp(op, a, b, z())),
    ];
    leaf.prop_recursive(3, 12, 2, move |inner| {
        prop_oneof![
            (any::<bool>(), inner.clone(), inner.clone()).prop_map(move |(and, l, r)| {
                let (op, lvl) = if and { (BoolOp::And, 1) } else { (BoolOp::Or, 0) };
                if !canon {
                    return BExpr::Logic(op, Box::new(l), Box::new(r), z());
                }
                let l = if blevel(&l) < lvl { BExpr::Paren(Box::new(l), z()) } else { l };
                let r = if blevel(&r) <= lvl { BExpr::Paren(Box::new(r), z()) } else { r };
                BExpr::Logic(op, Box::new(l), Box::new(r), z())
            }),
            inner.clone().prop_map(|b| BExpr::Paren(Box::new(b), z())),
            inner.prop_map(move |b| {
                let b = if canon { BExpr::Paren(Box::new(b), z()) } else { b };
                BExpr::Not(Box::new(b), z())
            }),
            any::<bool>().prop_map(|v| BExpr::Not(Box::new(BExpr::Bool(v, z())), z())),
        ]
    })
    .boxed()
}

/// A whole condition: a Boolean expression or a bare arithmetic one.
fn top(e: BoxedStrategy<Expr>, canon: bool) -> BoxedStrategy<BExpr> {
    prop_oneof![4 => bexpr(e.clone(), canon), 1 => e.prop_map(BExpr::Truthy)].boxed()
}

fn lhs(name: &str, indices: Vec<Expr>) -> Lhs {
    Lhs { name: ident(name), indices, span: z() }
}

fn action(canon: bool) -> BoxedStrategy<Action> {
    (
        prop::sample::select(vec![AssignOp::Attr, AssignOp::Stig, AssignOp::Env]),
        prop::collection::vec(expr_p(canon), 1..3),
        prop::option::of(expr_p(canon)),
    )
        .prop_map(|(op, rhs, ix)| {
            let names = ["x", "y", "z"];
            let lhs = rhs
                .iter()
                .enumerate()
                .map(|(i, _)| lhs(names[i], if i == 0 { ix.clone().into_iter().collect() } else { vec![] }))
                .collect();
            Action { lhs, op, rhs, span: z() }
        })
        .boxed()
}

fn stmt(canon: bool) -> BoxedStrategy<Stmt> {
    prop_oneof![
        action(canon).prop_map(Stmt::Assign),
        expr_p(canon).prop_map(|e| Stmt::Local { lhs: vec![lhs("t", vec![])], rhs: vec![e], span: z() }),
        (
            0i64..4,
            any::<bool>(),
            prop::option::of(bexpr(
                Just(Expr::Var { name: ident("x"), indices: vec![], owner: Some(Owner::C2(z())), span: z() }).boxed(),
                canon
            ))
        )
            .prop_map(|(k, typed, filter)| Stmt::Pick {
                name: ident("p"),
                count: Expr::Int(k, z()),
                agent: typed.then(|| ident("A")),
                filter,
                span: z()
            }),
        top(expr_p(canon), canon).prop_map(|pred| Stmt::Quant {
            name: ident("b"),
            quants: vec![Quantifier { kind: QuantKind::Forall, agent: ident("A"), var: ident("a") }],
            pred,
            span: z()
        }),
        top(expr_p(canon), canon).prop_map(|pred| Stmt::Count {
            name: ident("c"),
            agent: ident("A"),
            var: ident("a"),
            pred,
            span: z()
        }),
    ]
    .boxed()
}

fn plevel(p: &Proc) -> u8 {
    match p {
        Proc::Par(..) => 0,
        Proc::Choice(..) => 1,
        Proc::Seq(..) => 2,
        _ => 3,
    }
}

fn pparen(p: Proc) -> Proc {
    Proc::Paren(Box::new(p), z())
}

/// Items of an n-ary composition at level `lvl`, parenthesised where a user must.
fn items(canon: bool, v: Vec<Proc>, lvl: u8) -> Vec<Proc> {
    if !canon {
        return v;
    }
    v.into_iter().map(|p| if plevel(&p) <= lvl || matches!(p, Proc::Guard { .. }) { pparen(p) } else { p }).collect()
}

fn proc_strategy(canon: bool) -> BoxedStrategy<Proc> {
    let leaf = prop_oneof![
        Just(Proc::Skip(z())),
        Just(Proc::Nil(z())),
        Just(Proc::Call(ident("Behavior"))),
        action(canon).prop_map(Proc::Action),
        prop::collection::vec(stmt(canon), 1..4).prop_map(|s| Proc::Block(s, z())),
    ];
    leaf.prop_recursive(4, 16, 3, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 2..4).prop_map(move |v| Proc::Seq(items(canon, v, 2), z())),
            prop::collection::vec(inner.clone(), 2..4).prop_map(move |v| Proc::Choice(items(canon, v, 1), z())),
            prop::collection::vec(inner.clone(), 2..4).prop_map(move |v| Proc::Par(items(canon, v, 0), z())),
            (top(expr_p(canon), canon), any::<bool>(), inner.clone()).prop_map(move |(cond, blocking, body)| {
                Proc::Guard {
                    cond,
                    kind: if blocking { GuardKind::Blocking } else { GuardKind::Conditional },
                    body: Box::new(body),
                    span: z(),
                }
            }),
            inner.prop_map(pparen),
        ]
    })
    .boxed()
}

fn qpred() -> BoxedStrategy<QPred> {
    (prop::collection::vec(any::<bool>(), 0..3), top(expr_q(), true))
        .prop_map(|(qs, body)| QPred {
            quants: qs
                .iter()
                .map(|f| Quantifier {
                    kind: if *f { QuantKind::Forall } else { QuantKind::Exists },
                    agent: ident("A"),
                    var: ident("a"),
                })
                .collect(),
            body,
            span: z(),
        })
        .boxed()
}

fn modality() -> BoxedStrategy<Modality> {
    let pattern = prop_oneof![Just(Pattern::ThereIs), Just(Pattern::Always), qpred().prop_map(Pattern::Precedes)];
    prop_oneof![
        Just(Modality::Always),
        Just(Modality::Eventually),
        Just(Modality::Finally),
        Just(Modality::Fairly),
        Just(Modality::FairlyInf),
        (qpred(), qpred(), pattern.clone()).prop_map(|(open, close, pattern)| Modality::Between {
            open,
            close,
            pattern
        }),
        (qpred(), qpred(), pattern).prop_map(|(open, close, pattern)| Modality::FromUntil { open, close, pattern }),
    ]
    .boxed()
}

fn init() -> BoxedStrategy<Init> {
    let c = prop_oneof![
        (0i64..100).prop_map(|n| Expr::Int(n, z())),
        Just(Expr::Extern(ident("_n"))),
        Just(Expr::Id { owner: None, span: z() }),
        (1i64..9).prop_map(|n| Expr::Neg(Box::new(Expr::Int(n, z())), z())),
    ];
    prop_oneof![
        Just(Init::Undef(z())),
        prop::collection::vec(c.clone(), 1..4).prop_map(|v| Init::Choice(v, z())),
        (c.clone(), c.clone()).prop_map(|(a, b)| Init::Range(a, b, z())),
        c.prop_map(Init::Single),
    ]
    .boxed()
}

fn link_expr() -> BoxedStrategy<Expr> {
    prop_oneof![
        (0i64..10).prop_map(|n| Expr::Int(n, z())),
        any::<bool>().prop_map(|c1| Expr::Var {
            name: ident("x"),
            indices: vec![],
            owner: Some(if c1 { Owner::C1(z()) } else { Owner::C2(z()) }),
            span: z()
        }),
        any::<bool>()
            .prop_map(|c1| Expr::Id { owner: Some(if c1 { Owner::C1(z()) } else { Owner::C2(z()) }), span: z() }),
    ]
    .boxed()
}

fn spec_strategy(canon: bool) -> BoxedStrategy<Spec> {
    (
        proc_strategy(canon),
        proc_strategy(canon),
        top(link_expr(), canon),
        prop::collection::vec(prop::collection::vec(init(), 1..3), 1..3),
        prop::collection::vec((modality(), qpred()), 0..3),
        prop::collection::vec(qpred(), 0..2),
        init(),
    )
        .prop_map(|(behavior, global, link, tuples, props, assumes, env_init)| {
            let names = ["s", "t", "u"];
            let tuples = tuples
                .into_iter()
                .enumerate()
                .map(|(i, inits)| TupleDecl {
                    vars: (0..inits.len())
                        .map(|k| VarName { name: ident(&format!("{}{k}", names[i])), dims: vec![] })
                        .collect(),
                    inits,
                    span: z(),
                })
                .collect();
            Spec {
                system: System {
                    externs: vec![ident("_n"), ident("_m")],
                    environment: vec![
                        VarDecl { var: VarName { name: ident("e"), dims: vec![] }, init: env_init },
                        VarDecl {
                            var: VarName {
                                name: ident("arr"),
                                dims: vec![Expr::Int(3, z()), Expr::Extern(ident("_n"))],
                            },
                            init: Init::Single(Expr::Int(0, z())),
                        },
                    ],
                    spawn: vec![SpawnItem {
                        agent: ident("A"),
                        count: Expr::Bin(
                            BinOp::Mul,
                            Box::new(Expr::Extern(ident("_n"))),
                            Box::new(Expr::Int(2, z())),
                            z(),
                        ),
                    }],
                    processes: vec![ProcDef { name: ident("G"), body: global }],
                    span: z(),
                },
                stigmergies: vec![Stigmergy { name: ident("S"), link, tuples, span: z() }],
                agents: vec![Agent {
                    name: ident("A"),
                    interface: vec![VarDecl {
                        var: VarName { name: ident("x"), dims: vec![] },
                        init: Init::Undef(z()),
                    }],
                    stigmergies: vec![ident("S")],
                    processes: vec![ProcDef { name: ident("Behavior"), body: behavior }],
                    span: z(),
                }],
                assumptions: assumes
                    .into_iter()
                    .enumerate()
                    .map(|(i, pred)| Assumption { name: ident(&format!("H{i}")), pred })
                    .collect(),
                properties: props
                    .into_iter()
                    .enumerate()
                    .map(|(i, (modality, pred))| Property { name: ident(&format!("P{i}")), modality, pred, span: z() })
                    .collect(),
            }
        })
        .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn generated_trees_round_trip(spec in spec_strategy(true)) {
        let printed = print_spec(&spec);
        let out = parse(&printed);
        let parsed = out.spec.ok_or_else(|| TestCaseError::fail(format!("{printed}\n{:?}", out.diagnostics)))?;
        prop_assert_eq!(erase_spans(&parsed), erase_spans(&spec), "{}", printed);
        prop_assert_eq!(print_spec(&parsed), printed);
    }
}

// ------------------------------------------------------------------- trees without parentheses

fn strip_e(e: &Expr) -> Expr {
    let b = |e: &Expr| Box::new(strip_e(e));
    let o = |o: &Owner| match o {
        Owner::Expr(e) => Owner::Expr(b(e)),
        other => other.clone(),
    };
    match e {
        Expr::Paren(inner, _) => strip_e(inner),
        Expr::Neg(a, s) => Expr::Neg(b(a), *s),
        Expr::Abs(a, s) => Expr::Abs(b(a), *s),
        Expr::Bin(op, l, r, s) => Expr::Bin(*op, b(l), b(r), *s),
        Expr::MinMax(m, l, r, s) => Expr::MinMax(*m, b(l), b(r), *s),
        Expr::NonDet(l, r, s) => Expr::NonDet(b(l), b(r), *s),
        Expr::If { cond, then, els, span } => {
            Expr::If { cond: Box::new(strip_b(cond)), then: b(then), els: b(els), span: *span }
        }
        Expr::Var { name, indices, owner, span } => Expr::Var {
            name: name.clone(),
            indices: indices.iter().map(strip_e).collect(),
            owner: owner.as_ref().map(o),
            span: *span,
        },
        Expr::Id { owner, span } => Expr::Id { owner: owner.as_ref().map(o), span: *span },
        other => other.clone(),
    }
}

pub(crate) fn strip_b(b: &BExpr) -> BExpr {
    match b {
        BExpr::Paren(inner, _) => strip_b(inner),
        BExpr::Not(a, s) => BExpr::Not(Box::new(strip_b(a)), *s),
        BExpr::Cmp(op, l, r, s) => BExpr::Cmp(*op, strip_e(l), strip_e(r), *s),
        BExpr::Logic(op, l, r, s) => BExpr::Logic(*op, Box::new(strip_b(l)), Box::new(strip_b(r)), *s),
        BExpr::Truthy(e) => BExpr::Truthy(strip_e(e)),
        other => other.clone(),
    }
}

fn strip_stmt(s: &Stmt) -> Stmt {
    let act = |a: &Action| Action {
        lhs: a.lhs.iter().map(|l| Lhs { indices: l.indices.iter().map(strip_e).collect(), ..l.clone() }).collect(),
        rhs: a.rhs.iter().map(strip_e).collect(),
        ..a.clone()
    };
    match s {
        Stmt::Assign(a) => Stmt::Assign(act(a)),
        Stmt::Local { lhs, rhs, span } => {
            Stmt::Local { lhs: lhs.clone(), rhs: rhs.iter().map(strip_e).collect(), span: *span }
        }
        Stmt::Pick { name, count, agent, filter, span } => Stmt::Pick {
            name: name.clone(),
            count: strip_e(count),
            agent: agent.clone(),
            filter: filter.as_ref().map(strip_b),
            span: *span,
        },
        Stmt::Quant { name, quants, pred, span } => {
            Stmt::Quant { name: name.clone(), quants: quants.clone(), pred: strip_b(pred), span: *span }
        }
        Stmt::Count { name, agent, var, pred, span } => {
            Stmt::Count { name: name.clone(), agent: agent.clone(), var: var.clone(), pred: strip_b(pred), span: *span }
        }
    }
}

fn strip_p(p: &Proc) -> Proc {
    match p {
        Proc::Paren(inner, _) => strip_p(inner),
        Proc::Par(v, s) => Proc::Par(v.iter().map(strip_p).collect(), *s),
        Proc::Choice(v, s) => Proc::Choice(v.iter().map(strip_p).collect(), *s),
        Proc::Seq(v, s) => Proc::Seq(v.iter().map(strip_p).collect(), *s),
        Proc::Guard { cond, kind, body, span } => {
            Proc::Guard { cond: strip_b(cond), kind: kind.clone(), body: Box::new(strip_p(body)), span: *span }
        }
        Proc::Action(a) => match strip_stmt(&Stmt::Assign(a.clone())) {
            Stmt::Assign(a) => Proc::Action(a),
            _ => unreachable!(),
        },
        Proc::Block(v, s) => Proc::Block(v.iter().map(strip_stmt).collect(), *s),
        other => other.clone(),
    }
}

/// The processes and link of a specification, without parentheses.
fn stripped(spec: &Spec) -> (Vec<Proc>, BExpr) {
    let spec = erase_spans(spec);
    let procs = spec.system.processes.iter().chain(spec.agents.iter().flat_map(|a| a.processes.iter()));
    (procs.map(|d| strip_p(&d.body)).collect(), strip_b(&spec.stigmergies[0].link))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Trees built without regard to precedence or greedy constructs: the printer must add
    /// the parentheses needed to read them back (compared modulo parentheses).
    #[test]
    fn raw_trees_round_trip_modulo_parentheses(spec in spec_strategy(false)) {
        let printed = print_spec(&spec);
        let out = parse(&printed);
        let parsed = out.spec.ok_or_else(|| TestCaseError::fail(format!("{printed}\n{:?}", out.diagnostics)))?;
        prop_assert_eq!(stripped(&parsed), stripped(&spec), "{}", printed);
        prop_assert_eq!(print_spec(&parsed), printed);
    }
}
