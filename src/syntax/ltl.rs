//! Linear-time formulas over state predicates (`check { P = finally always ψ }`), an
//! extension of LAbS (docs/semantics.md, D14). The same tree serves the syntax (atoms are
//! `ast::QPred`) and the model (atoms are resolved `model::QPred`).

/// A linear-time formula; `A` is the atom (a quantified state predicate).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ltl<A> {
    Atom(A),
    Not(Box<Ltl<A>>),
    And(Box<Ltl<A>>, Box<Ltl<A>>),
    Or(Box<Ltl<A>>, Box<Ltl<A>>),
    Implies(Box<Ltl<A>>, Box<Ltl<A>>),
    /// `always φ`: φ holds at every position of the run.
    Always(Box<Ltl<A>>),
    /// `finally φ` / `eventually φ`: φ holds at some position.
    Finally(Box<Ltl<A>>),
    /// `φ until ψ` (strong): ψ holds at some position and φ at every one before.
    Until(Box<Ltl<A>>, Box<Ltl<A>>),
    /// `φ unless ψ` (weak until): φ until ψ, or φ forever.
    Unless(Box<Ltl<A>>, Box<Ltl<A>>),
}

impl<A> Ltl<A> {
    /// The atoms, left to right.
    pub fn atoms(&self) -> Vec<&A> {
        let mut out = Vec::new();
        self.visit_atoms(&mut |a| out.push(a));
        out
    }

    fn visit_atoms<'a>(&'a self, f: &mut dyn FnMut(&'a A)) {
        match self {
            Ltl::Atom(a) => f(a),
            Ltl::Not(x) | Ltl::Always(x) | Ltl::Finally(x) => x.visit_atoms(f),
            Ltl::And(x, y) | Ltl::Or(x, y) | Ltl::Implies(x, y) | Ltl::Until(x, y) | Ltl::Unless(x, y) => {
                x.visit_atoms(f);
                y.visit_atoms(f);
            }
        }
    }

    /// The same formula with every atom mapped (`None` if any atom maps to `None`; every
    /// atom is still visited, so that each reports its own errors).
    pub fn try_map<B>(&self, f: &mut dyn FnMut(&A) -> Option<B>) -> Option<Ltl<B>> {
        let bx = |x: &Ltl<A>, f: &mut dyn FnMut(&A) -> Option<B>| x.try_map(f).map(Box::new);
        Some(match self {
            Ltl::Atom(a) => Ltl::Atom(f(a)?),
            Ltl::Not(x) => Ltl::Not(bx(x, f)?),
            Ltl::Always(x) => Ltl::Always(bx(x, f)?),
            Ltl::Finally(x) => Ltl::Finally(bx(x, f)?),
            Ltl::And(x, y) | Ltl::Or(x, y) | Ltl::Implies(x, y) | Ltl::Until(x, y) | Ltl::Unless(x, y) => {
                let (x, y) = (bx(x, f), bx(y, f));
                let (x, y) = (x?, y?);
                match self {
                    Ltl::And(..) => Ltl::And(x, y),
                    Ltl::Or(..) => Ltl::Or(x, y),
                    Ltl::Implies(..) => Ltl::Implies(x, y),
                    Ltl::Until(..) => Ltl::Until(x, y),
                    _ => Ltl::Unless(x, y),
                }
            }
        })
    }
}
