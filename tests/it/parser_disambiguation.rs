//! Parenthesisation and precedence cases of `labs-language.md` §3.12.

use labs::syntax::ast::*;
use labs::syntax::parse;
use labs::syntax::printer::{erase_proc, print_proc};

/// The body of `Behavior` in a minimal specification.
fn behavior(body: &str) -> Proc {
    let src = format!(
        "system {{\n  environment = x: 0; state: 0\n  spawn = A: 2\n  P = Skip\n}}\nagent A {{\n  interface = p[1]: 0\n  Behavior = {body}\n}}\ncheck {{\n}}\n"
    );
    let out = parse(&src);
    let spec = out.spec.unwrap_or_else(|| panic!("{body}: {:?}", out.diagnostics));
    erase_proc(&spec.agents[0].processes[0].body)
}

fn property(body: &str) -> BExpr {
    let src =
        format!("system {{\n  environment = x: 0\n  spawn = A: 2\n}}\ncheck {{\n  Q = always forall A a, {body}\n}}\n");
    let out = parse(&src);
    let spec = out.spec.unwrap_or_else(|| panic!("{body}: {:?}", out.diagnostics));
    spec.properties[0].pred.body.clone()
}

fn is_call(p: &Proc, name: &str) -> bool {
    matches!(p, Proc::Call(i) if i.name == name)
}

#[test]
fn parenthesised_condition_is_a_guard() {
    match behavior("(x = 1) -> P") {
        Proc::Guard { cond: BExpr::Paren(inner, _), body, kind: GuardKind::Blocking, .. } => {
            assert!(matches!(*inner, BExpr::Cmp(CmpOp::Eq, ..)));
            assert!(is_call(&body, "P"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn parenthesised_guarded_process() {
    match behavior("(x = 1 -> P)") {
        Proc::Paren(inner, _) => assert!(matches!(*inner, Proc::Guard { .. })),
        other => panic!("{other:?}"),
    }
}

#[test]
fn doubly_parenthesised_arithmetic_in_a_guard() {
    // ((1) = 1) -> P: a guard whose condition is a parenthesised comparison of `(1)` and `1`.
    match behavior("((1) = 1) -> P; P") {
        Proc::Guard { cond: BExpr::Paren(inner, _), body, .. } => {
            match *inner {
                BExpr::Cmp(CmpOp::Eq, Expr::Paren(one, _), Expr::Int(1, _), _) => {
                    assert!(matches!(*one, Expr::Int(1, _)))
                }
                other => panic!("{other:?}"),
            }
            assert!(matches!(*body, Proc::Seq(ref v, _) if v.len() == 2));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn paren_labs_cases() {
    // (P); P
    match behavior("(P); P") {
        Proc::Seq(v, _) => {
            assert!(matches!(&v[0], Proc::Paren(p, _) if is_call(p, "P")));
            assert!(is_call(&v[1], "P"));
        }
        other => panic!("{other:?}"),
    }
    // (true -> P); P
    match behavior("(true -> P); P") {
        Proc::Seq(v, _) => {
            assert!(
                matches!(&v[0], Proc::Paren(g, _) if matches!(g.as_ref(), Proc::Guard { cond: BExpr::Bool(true, _), .. }))
            );
            assert!(is_call(&v[1], "P"));
        }
        other => panic!("{other:?}"),
    }
    // (true) -> P; P: the guard's body is the whole sequence.
    match behavior("(true) -> P; P") {
        Proc::Guard { cond: BExpr::Paren(c, _), body, .. } => {
            assert!(matches!(*c, BExpr::Bool(true, _)));
            assert!(matches!(*body, Proc::Seq(ref v, _) if v.len() == 2));
        }
        other => panic!("{other:?}"),
    }
    // (1) = 1 -> P; P
    match behavior("(1) = 1 -> P; P") {
        Proc::Guard { cond: BExpr::Cmp(CmpOp::Eq, Expr::Paren(..), Expr::Int(1, _), _), body, .. } => {
            assert!(matches!(*body, Proc::Seq(ref v, _) if v.len() == 2));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn guard_body_extends_right() {
    // g -> P; Q ++ R || S  is  g -> (P; Q ++ R || S)
    match behavior("x = 1 -> P; P ++ P || P") {
        Proc::Guard { body, .. } => match *body {
            Proc::Par(v, _) => {
                assert_eq!(v.len(), 2);
                assert!(
                    matches!(&v[0], Proc::Choice(c, _) if c.len() == 2 && matches!(&c[0], Proc::Seq(s, _) if s.len() == 2))
                );
            }
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
    // Nested guards nest to the right.
    match behavior("x = 1 -> x = 2 => P") {
        Proc::Guard { kind: GuardKind::Blocking, body, .. } => {
            assert!(matches!(*body, Proc::Guard { kind: GuardKind::Conditional, .. }))
        }
        other => panic!("{other:?}"),
    }
    // A guard after `;` takes the rest of the sequence, not more.
    match behavior("P; x = 1 -> P; P") {
        Proc::Seq(v, _) => {
            assert_eq!(v.len(), 2);
            assert!(
                matches!(&v[1], Proc::Guard { body, .. } if matches!(body.as_ref(), Proc::Seq(s, _) if s.len() == 2))
            );
        }
        other => panic!("{other:?}"),
    }
}

fn action_rhs(p: &Proc) -> &Expr {
    match p {
        Proc::Action(a) => &a.rhs[0],
        other => panic!("{other:?}"),
    }
}

#[test]
fn of_is_greedy_in_processes_only() {
    let p = behavior("x <- state of p[0] + 1");
    match action_rhs(&p) {
        Expr::Var { name, owner: Some(Owner::Expr(o)), .. } => {
            assert_eq!(name.name, "state");
            assert!(
                matches!(o.as_ref(), Expr::Bin(BinOp::Add, l, _, _) if matches!(l.as_ref(), Expr::Var { indices, .. } if indices.len() == 1))
            );
        }
        other => panic!("{other:?}"),
    }
    match property("x of a + 1 = 2") {
        BExpr::Cmp(CmpOp::Eq, Expr::Bin(BinOp::Add, l, r, _), Expr::Int(2, _), _) => {
            assert!(
                matches!(l.as_ref(), Expr::Var { owner: Some(Owner::Expr(o)), .. } if matches!(o.as_ref(), Expr::Var { name, .. } if name.name == "a"))
            );
            assert!(matches!(r.as_ref(), Expr::Int(1, _)));
        }
        other => panic!("{other:?}"),
    }
    match property("x of 3 = 1") {
        BExpr::Cmp(_, Expr::Var { owner: Some(Owner::Expr(o)), .. }, _, _) => {
            assert!(matches!(o.as_ref(), Expr::Int(3, _)))
        }
        other => panic!("{other:?}"),
    }
    match property("id of a = 0") {
        BExpr::Cmp(_, Expr::Id { owner: Some(Owner::Expr(_)), .. }, _, _) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn greedy_of_warns() {
    let src = "system {\n  spawn = A: 2\n}\nagent A {\n  interface = v: 0\n  Behavior = v <- v of 0 + 1\n}\ncheck {}\n";
    let out = parse(src);
    assert!(out.spec.is_some());
    assert!(out.diagnostics.items.iter().any(|d| !d.is_error() && d.message.contains("`v of (0 + 1)`")));
}

#[test]
fn if_else_is_greedy() {
    // x + if c then 1 else 2 * 3  is  x + (if c then 1 else (2 * 3))
    let p = behavior("x <- x + if x = 0 then 1 else 2 * 3");
    match action_rhs(&p) {
        Expr::Bin(BinOp::Add, l, r, _) => {
            assert!(matches!(l.as_ref(), Expr::Var { .. }));
            match r.as_ref() {
                Expr::If { els, cond, .. } => {
                    assert!(matches!(els.as_ref(), Expr::Bin(BinOp::Mul, ..)));
                    assert!(matches!(cond.as_ref(), BExpr::Cmp(..)));
                }
                other => panic!("{other:?}"),
            }
        }
        other => panic!("{other:?}"),
    }
    // A bare arithmetic `if` condition.
    let p = behavior("x <- if x then 1 else 2");
    assert!(matches!(action_rhs(&p), Expr::If { cond, .. } if matches!(cond.as_ref(), BExpr::Truthy(_))));
}

#[test]
fn arithmetic_precedence() {
    // x -1 is x - 1; * binds tighter than +; - is left associative; unary minus binds tightest.
    let p = behavior("x <- x -1");
    assert!(matches!(action_rhs(&p), Expr::Bin(BinOp::Sub, _, r, _) if matches!(r.as_ref(), Expr::Int(1, _))));
    let p = behavior("x <- 1 + 2 * 3 % 4");
    match action_rhs(&p) {
        Expr::Bin(BinOp::Add, _, r, _) => {
            assert!(
                matches!(r.as_ref(), Expr::Bin(BinOp::Mod, l, _, _) if matches!(l.as_ref(), Expr::Bin(BinOp::Mul, ..)))
            )
        }
        other => panic!("{other:?}"),
    }
    let p = behavior("x <- 1 - 2 + 3");
    assert!(
        matches!(action_rhs(&p), Expr::Bin(BinOp::Add, l, _, _) if matches!(l.as_ref(), Expr::Bin(BinOp::Sub, ..)))
    );
    let p = behavior("x <- -x * 2 : 3");
    match action_rhs(&p) {
        Expr::Bin(BinOp::RDiv, l, _, _) => {
            assert!(matches!(l.as_ref(), Expr::Bin(BinOp::Mul, n, _, _) if matches!(n.as_ref(), Expr::Neg(..))))
        }
        other => panic!("{other:?}"),
    }
    let p = behavior("x<-1");
    assert!(matches!(p, Proc::Action(Action { op: AssignOp::Attr, .. })));
    let p = behavior("x <-- -1");
    assert!(matches!(p, Proc::Action(Action { op: AssignOp::Env, ref rhs, .. }) if matches!(rhs[0], Expr::Neg(..))));
}

#[test]
fn boolean_parentheses_backtrack() {
    // `(x + 1) * 2 > 3` and `(x > 1) and x = 2` both parse.
    match behavior("(x + 1) * 2 > 3 -> P") {
        Proc::Guard { cond: BExpr::Cmp(CmpOp::Gt, Expr::Bin(BinOp::Mul, l, _, _), _, _), .. } => {
            assert!(matches!(l.as_ref(), Expr::Paren(..)))
        }
        other => panic!("{other:?}"),
    }
    match behavior("(x > 1) and x = 2 -> P") {
        Proc::Guard { cond: BExpr::Logic(BoolOp::And, l, _, _), .. } => assert!(matches!(*l, BExpr::Paren(..))),
        other => panic!("{other:?}"),
    }
    // `and` binds tighter than `or`, also with parentheses around the `or`.
    match behavior("(x = 1 or x = 2) and x = 3 -> P") {
        Proc::Guard { cond: BExpr::Logic(BoolOp::And, l, _, _), .. } => {
            assert!(matches!(*l, BExpr::Paren(ref o, _) if matches!(o.as_ref(), BExpr::Logic(BoolOp::Or, ..))))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn blocks_and_block_statements() {
    let p = behavior(
        "{ q[] := pick 2 A where x of c1 != x of c2; t := q[0] + 1; b := forall A y, exists A z, b = t; c := count A w, x of w > 0; x <- t }",
    );
    let Proc::Block(stmts, _) = p else { panic!() };
    assert_eq!(stmts.len(), 5);
    assert!(
        matches!(&stmts[0], Stmt::Pick { agent: Some(a), filter: Some(_), count: Expr::Int(2, _), .. } if a.name == "A")
    );
    assert!(matches!(&stmts[1], Stmt::Local { lhs, .. } if lhs[0].name.name == "t"));
    match &stmts[2] {
        Stmt::Quant { quants, pred, .. } => {
            assert_eq!(quants.len(), 2);
            assert_eq!(quants[1].kind, QuantKind::Exists);
            // The bound name is a plain variable reference.
            assert!(matches!(pred, BExpr::Cmp(_, Expr::Var { name, owner: None, .. }, _, _) if name.name == "b"));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(&stmts[3], Stmt::Count { agent, var, .. } if agent.name == "A" && var.name == "w"));
    assert!(matches!(&stmts[4], Stmt::Assign(_)));
    // Word boundaries: `picked` is a name.
    let p = behavior("{ y := picked }");
    assert!(
        matches!(p, Proc::Block(ref s, _) if matches!(&s[0], Stmt::Local { rhs, .. } if matches!(&rhs[0], Expr::Var { name, .. } if name.name == "picked")))
    );
}

#[test]
fn contextual_keywords_are_names() {
    let p = behavior("agent, message, link, system <- 1, 2, 3, 4");
    assert!(matches!(p, Proc::Action(ref a) if a.lhs.len() == 4 && a.lhs[0].name.name == "agent"));
}

#[test]
fn printing_keeps_parentheses_and_adds_only_needed_ones() {
    for src in [
        "(x = 1) -> P",
        "(x = 1 -> P)",
        "((1) = 1) -> P; P",
        "(P); P",
        "(true -> P); P",
        "x <- x + if x = 0 then 1 else 2 * 3",
        "x <- state of p[0] + 1",
        "x <- (state of p[0]) + 1",
        "!(x = 1) => P ++ Skip || Nil",
        "x = 1 or x = 2 and x = 3 -> P",
    ] {
        assert_eq!(print_proc(&behavior(src)), src);
    }
    // Needed parentheses are added when the tree has none.
    let g = behavior("x = 1 -> P");
    let seq = Proc::Seq(
        vec![g.clone(), Proc::Call(Ident { name: "P".into(), span: Default::default() })],
        Default::default(),
    );
    assert_eq!(print_proc(&seq), "(x = 1 -> P); P");
}
