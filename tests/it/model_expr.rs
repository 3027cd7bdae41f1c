//! `Expr::map` and `Expr::fold`, the tree walks every rewriter of resolved expressions uses,
//! on hand-built expressions whose results are written out by hand.

use labs::model::{AgentRef, BExpr, Expr, Rewrite, VarRef};
use labs::syntax::ast::{BinOp, CmpOp};

fn bx(e: Expr) -> Box<Expr> {
    Box::new(e)
}

/// `x[q0] of q1 + (if q0 < 2 then -q1 else id of q0)`, with q0, q1 quantified variables.
fn sample() -> Expr {
    let x = Expr::Var(VarRef { var: 3, indices: vec![Expr::QVar(0)], owner: AgentRef::Of(bx(Expr::QVar(1))) });
    let cond = BExpr::Cmp(CmpOp::Lt, Expr::QVar(0), Expr::Const(2));
    let ite =
        Expr::If(Box::new(cond), bx(Expr::Neg(bx(Expr::QVar(1)))), bx(Expr::AgentId(AgentRef::Of(bx(Expr::QVar(0))))));
    Expr::Bin(BinOp::Add, bx(x), bx(ite))
}

struct Subst(Vec<i64>);

impl Rewrite for Subst {
    fn expr(&mut self, e: &Expr) -> Option<Expr> {
        match e {
            Expr::QVar(i) => Some(Expr::Const(self.0[*i])),
            _ => None,
        }
    }
}

#[test]
fn map_reaches_indices_owners_and_conditions() {
    let got = sample().map(&mut Subst(vec![5, 7]));
    let x = Expr::Var(VarRef { var: 3, indices: vec![Expr::Const(5)], owner: AgentRef::Of(bx(Expr::Const(7))) });
    let cond = BExpr::Cmp(CmpOp::Lt, Expr::Const(5), Expr::Const(2));
    let ite = Expr::If(
        Box::new(cond),
        bx(Expr::Neg(bx(Expr::Const(7)))),
        bx(Expr::AgentId(AgentRef::Of(bx(Expr::Const(5))))),
    );
    assert_eq!(got, Expr::Bin(BinOp::Add, bx(x), bx(ite)));
}

/// An owner rewriting (the receiver `c2` becoming a local slot) and a whole-node replacement
/// that stops the descent.
#[test]
fn map_rewrites_owners_and_stops_at_a_replaced_node() {
    struct Receiver;
    impl Rewrite for Receiver {
        fn expr(&mut self, e: &Expr) -> Option<Expr> {
            matches!(e, Expr::AgentId(AgentRef::C2)).then(|| Expr::Local { slot: 9, len: 1, index: None })
        }
        fn owner(&mut self, o: &AgentRef) -> Option<AgentRef> {
            matches!(o, AgentRef::C2).then(|| AgentRef::Of(bx(Expr::Local { slot: 9, len: 1, index: None })))
        }
    }
    let e = Expr::Bin(
        BinOp::Sub,
        bx(Expr::Var(VarRef { var: 0, indices: vec![], owner: AgentRef::C2 })),
        bx(Expr::AgentId(AgentRef::C2)),
    );
    let slot = || Expr::Local { slot: 9, len: 1, index: None };
    let want = Expr::Bin(
        BinOp::Sub,
        bx(Expr::Var(VarRef { var: 0, indices: vec![], owner: AgentRef::Of(bx(slot())) })),
        bx(slot()),
    );
    assert_eq!(e.map(&mut Receiver), want);
    // A replaced node is not visited further: replacing the whole sum leaves nothing to count.
    struct Whole(usize);
    impl Rewrite for Whole {
        fn expr(&mut self, _: &Expr) -> Option<Expr> {
            self.0 += 1;
            Some(Expr::Const(0))
        }
    }
    let mut w = Whole(0);
    assert_eq!(sample().map(&mut w), Expr::Const(0));
    assert_eq!(w.0, 1);
}

#[test]
fn fold_sees_every_arithmetic_node_bottom_up() {
    // Nodes: Bin, Var, QVar (index), QVar (owner), If, Neg, QVar, AgentId, QVar = 9; the
    // condition's operands are not arithmetic children of the `if`.
    let count = sample().fold(&mut |_, children: Vec<usize>| 1 + children.iter().sum::<usize>());
    assert_eq!(count, 9);
    // (1 + 2) * -3 evaluated by a fold.
    let e = Expr::Bin(
        BinOp::Mul,
        bx(Expr::Bin(BinOp::Add, bx(Expr::Const(1)), bx(Expr::Const(2)))),
        bx(Expr::Neg(bx(Expr::Const(3)))),
    );
    let value = e.fold(&mut |node, c: Vec<i64>| match node {
        Expr::Const(v) => *v,
        Expr::Neg(_) => -c[0],
        Expr::Bin(BinOp::Add, ..) => c[0] + c[1],
        Expr::Bin(BinOp::Mul, ..) => c[0] * c[1],
        other => panic!("unexpected {other:?}"),
    });
    assert_eq!(value, -9);
}
