//! Linear-time formulas as the tableau of `ltl.rs` reads them: negation normal form over a
//! table of shared nodes, simplified by rewrites that keep the language and make the
//! automaton smaller (docs/semantics.md, D14), and, per node, the obligations its expansion
//! always meets (so that an automaton state keeps no obligation another one implies).
//!
//! The rewrites (each an equivalence of LTL; `G` is `false R ·`, `F` is `true U ·`):
//! constants fold (`a U true = true`, `false U b = b`, `a R false = false`, `true R b = b`,
//! `a U a = a R a = a`); conjunctions and disjunctions are flattened, sorted and deduplicated,
//! a literal and its complement meet (`p ∧ ¬p = false`, `p ∨ ¬p = true`); `F F a = F a`,
//! `G G a = G a`, `F G F a = G F a`, `G F G a = F G a`; and operands are merged:
//! `(a R x) ∧ (a R y) = a R (x ∧ y)` (so `G x ∧ G y = G (x ∧ y)`), `(x U b) ∧ (y U b) =
//! (x ∧ y) U b`, `F G x ∧ F G y = F G (x ∧ y)`; `(a U x) ∨ (a U y) = a U (x ∨ y)` (so `F x ∨
//! F y = F (x ∨ y)`), `(a R b) ∨ (c R b) = (a ∨ c) R b`, `G F x ∨ G F y = G F (x ∨ y)`. The
//! last two of each kind are what keeps a disjunction of recurrences (`G F x = 0 ∨ … ∨ G F
//! x = 12`), whose negation is a conjunction of stabilisations, at two automaton states
//! instead of 2¹³.

use crate::syntax::ltl::Ltl;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A formula in negation normal form; children are ids in `Table::nodes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Node {
    True,
    False,
    /// Atom `i` holds (`true`) or does not.
    Lit(usize, bool),
    And(u32, u32),
    Or(u32, u32),
    Until(u32, u32),
    /// `a R b`: `b` holds up to and including the first position where `a` does, or forever.
    Release(u32, u32),
}

/// The nodes of a formula, each interned once (children before their parents).
#[derive(Default)]
pub(crate) struct Table {
    pub(crate) nodes: Vec<Node>,
    ids: HashMap<Node, u32>,
    /// Per occurrence of an atom, the first occurrence of an equal atom: the literal both
    /// read, so that the tableau sees `p ∧ ¬p` and one valuation of `p` per state.
    classes: Vec<usize>,
}

impl Table {
    pub(super) fn intern(&mut self, n: Node) -> u32 {
        if let Some(&i) = self.ids.get(&n) {
            return i;
        }
        let i = self.nodes.len() as u32;
        self.nodes.push(n);
        self.ids.insert(n, i);
        i
    }

    fn t(&mut self) -> u32 {
        self.intern(Node::True)
    }

    fn f(&mut self) -> u32 {
        self.intern(Node::False)
    }

    /// The table of a formula whose atoms are `atoms` (`f.atoms()`), equal atoms sharing a
    /// literal.
    pub(super) fn for_atoms<A: PartialEq>(atoms: &[&A]) -> Table {
        let classes = (0..atoms.len()).map(|k| atoms.iter().position(|a| *a == atoms[k]).unwrap_or(k)).collect();
        Table { classes, ..Table::default() }
    }

    /// `f` (negated when `neg`) in negation normal form; atom `k` of `f.atoms()` is the
    /// literal of index `k`, or of the first occurrence of an equal atom (`for_atoms`).
    pub(crate) fn nnf<A>(&mut self, f: &Ltl<A>, neg: bool, next_atom: &mut usize) -> u32 {
        let n = match f {
            Ltl::Atom(_) => {
                *next_atom += 1;
                let k = *next_atom - 1;
                Node::Lit(self.classes.get(k).copied().unwrap_or(k), !neg)
            }
            Ltl::Not(x) => return self.nnf(x, !neg, next_atom),
            Ltl::And(x, y) | Ltl::Or(x, y) => {
                let (a, b) = (self.nnf(x, neg, next_atom), self.nnf(y, neg, next_atom));
                if matches!(f, Ltl::And(..)) != neg { Node::And(a, b) } else { Node::Or(a, b) }
            }
            Ltl::Implies(x, y) => {
                let (a, b) = (self.nnf(x, !neg, next_atom), self.nnf(y, neg, next_atom));
                if neg { Node::And(a, b) } else { Node::Or(a, b) }
            }
            Ltl::Always(x) | Ltl::Finally(x) => {
                let a = self.nnf(x, neg, next_atom);
                let (t, ff) = (self.t(), self.f());
                if matches!(f, Ltl::Always(_)) != neg { Node::Release(ff, a) } else { Node::Until(t, a) }
            }
            Ltl::Until(x, y) => {
                let (a, b) = (self.nnf(x, neg, next_atom), self.nnf(y, neg, next_atom));
                // ¬(a U b) = ¬a R ¬b.
                if neg { Node::Release(a, b) } else { Node::Until(a, b) }
            }
            Ltl::Unless(x, y) => {
                // a W b = b R (a ∨ b); ¬(a W b) = ¬b U (¬a ∧ ¬b).
                let (a, b) = (self.nnf(x, neg, next_atom), self.nnf(y, neg, next_atom));
                if neg {
                    let both = self.intern(Node::And(a, b));
                    Node::Until(b, both)
                } else {
                    let either = self.intern(Node::Or(a, b));
                    Node::Release(b, either)
                }
            }
        };
        self.intern(n)
    }

    /// `G x` as a node: `Some(x)` when `n` is `false R x`.
    fn globally(&self, n: u32) -> Option<u32> {
        match self.nodes[n as usize] {
            Node::Release(a, x) if self.nodes[a as usize] == Node::False => Some(x),
            _ => None,
        }
    }

    /// `Some(x)` when `n` is `F x`, i.e. `true U x`.
    fn eventually(&self, n: u32) -> Option<u32> {
        match self.nodes[n as usize] {
            Node::Until(a, x) if self.nodes[a as usize] == Node::True => Some(x),
            _ => None,
        }
    }

    /// The simplified form of node `n` (the rewrites of the module's documentation), equivalent
    /// to it. `memo` holds the nodes already simplified.
    pub(super) fn simplify(&mut self, n: u32, memo: &mut HashMap<u32, u32>) -> u32 {
        if let Some(&s) = memo.get(&n) {
            return s;
        }
        let s = match self.nodes[n as usize] {
            Node::True | Node::False | Node::Lit(..) => n,
            Node::And(..) | Node::Or(..) => self.junction(n, memo),
            Node::Until(a, b) => {
                let (a, b) = (self.simplify(a, memo), self.simplify(b, memo));
                self.until(a, b)
            }
            Node::Release(a, b) => {
                let (a, b) = (self.simplify(a, memo), self.simplify(b, memo));
                self.release(a, b)
            }
        };
        memo.insert(n, s);
        memo.insert(s, s);
        s
    }

    /// `a U b` for simplified `a`, `b`.
    fn until(&mut self, a: u32, b: u32) -> u32 {
        match (self.nodes[a as usize], self.nodes[b as usize]) {
            (_, Node::True | Node::False) => b,
            (Node::False, _) => b,
            _ if a == b => b,
            // F F x = F x; F G F x = G F x.
            (Node::True, _) if self.eventually(b).is_some() => b,
            (Node::True, _) if self.globally(b).and_then(|x| self.eventually(x)).is_some() => b,
            _ => self.intern(Node::Until(a, b)),
        }
    }

    /// `a R b` for simplified `a`, `b`.
    fn release(&mut self, a: u32, b: u32) -> u32 {
        match (self.nodes[a as usize], self.nodes[b as usize]) {
            (_, Node::True | Node::False) => b,
            (Node::True, _) => b,
            _ if a == b => b,
            // G G x = G x; G F G x = F G x.
            (Node::False, _) if self.globally(b).is_some() => b,
            (Node::False, _) if self.eventually(b).and_then(|x| self.globally(x)).is_some() => b,
            _ => self.intern(Node::Release(a, b)),
        }
    }

    /// A conjunction or disjunction, flattened, its operands simplified, merged, sorted and
    /// deduplicated.
    fn junction(&mut self, n: u32, memo: &mut HashMap<u32, u32>) -> u32 {
        let and = matches!(self.nodes[n as usize], Node::And(..));
        let mut raw = vec![];
        self.flatten(n, and, &mut raw);
        let mut parts = BTreeSet::new();
        for x in raw {
            let s = self.simplify(x, memo);
            self.flatten(s, and, &mut parts);
        }
        self.combine(and, parts, memo)
    }

    /// The operands of the chain of `And` (or `Or`) nodes from `n`.
    fn flatten<C: Extend<u32>>(&self, n: u32, and: bool, out: &mut C) {
        let mut todo = vec![n];
        while let Some(x) = todo.pop() {
            match self.nodes[x as usize] {
                Node::And(a, b) if and => todo.extend([a, b]),
                Node::Or(a, b) if !and => todo.extend([a, b]),
                _ => out.extend([x]),
            }
        }
    }

    /// The conjunction (`and`) or disjunction of simplified `parts`, merged.
    fn combine(&mut self, and: bool, parts: BTreeSet<u32>, memo: &mut HashMap<u32, u32>) -> u32 {
        let (unit, zero) = if and { (Node::True, Node::False) } else { (Node::False, Node::True) };
        let mut kept: Vec<u32> = vec![];
        // Operands merged by the rewrites, keyed by what they share.
        let mut by_left: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        let mut by_right: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        let mut nested: Vec<u32> = vec![];
        for &x in &parts {
            let node = self.nodes[x as usize];
            if node == zero {
                return self.intern(zero);
            }
            if node == unit {
                continue;
            }
            if let Node::Lit(i, b) = node
                && parts.contains(&self.intern_existing(Node::Lit(i, !b)))
            {
                return self.intern(zero);
            }
            // ∧: F G x (merged inside), a R x (by a), x U b (by b);
            // ∨: G F x (merged inside), a U x (by a), a R b (by b).
            let inner = if and {
                self.eventually(x).and_then(|g| self.globally(g))
            } else {
                self.globally(x).and_then(|f| self.eventually(f))
            };
            match (node, inner) {
                (_, Some(i)) => nested.push(i),
                (Node::Release(a, _), None) if and => by_left.entry(a).or_default().push(x),
                (Node::Until(_, b), None) if and => by_right.entry(b).or_default().push(x),
                (Node::Until(a, _), None) if !and => by_left.entry(a).or_default().push(x),
                (Node::Release(_, b), None) if !and => by_right.entry(b).or_default().push(x),
                _ => kept.push(x),
            }
        }
        let mut rebuilt = vec![];
        let sides = |t: &Table, x: u32| match t.nodes[x as usize] {
            Node::Until(a, b) | Node::Release(a, b) => (a, b),
            _ => unreachable!("only temporal operands are grouped"),
        };
        for (a, xs) in by_left {
            if let [x] = xs[..] {
                kept.push(x);
                continue;
            }
            let others: Vec<u32> = xs.iter().map(|&x| sides(self, x).1).collect();
            let joined = self.join(and, others);
            let temporal = self.nodes[xs[0] as usize];
            let j = self.simplify(joined, memo);
            rebuilt.push(if matches!(temporal, Node::Until(..)) { self.until(a, j) } else { self.release(a, j) });
        }
        for (b, xs) in by_right {
            if let [x] = xs[..] {
                kept.push(x);
                continue;
            }
            let others: Vec<u32> = xs.iter().map(|&x| sides(self, x).0).collect();
            let joined = self.join(and, others);
            let temporal = self.nodes[xs[0] as usize];
            let j = self.simplify(joined, memo);
            rebuilt.push(if matches!(temporal, Node::Until(..)) { self.until(j, b) } else { self.release(j, b) });
        }
        match nested.len() {
            0 => {}
            1 => kept.push(self.outer(and, nested[0])),
            _ => {
                let joined = self.join(and, nested);
                let j = self.simplify(joined, memo);
                rebuilt.push(self.outer(and, j));
            }
        }
        if rebuilt.is_empty() {
            let mut v: Vec<u32> = kept;
            v.sort_unstable();
            v.dedup();
            return match v.len() {
                0 => self.intern(unit),
                _ => self.join(and, v),
            };
        }
        // A merged operand may meet the others again (constants, further merges).
        let mut again = BTreeSet::new();
        for x in kept.into_iter().chain(rebuilt) {
            self.flatten(x, and, &mut again);
        }
        if again == parts {
            let v: Vec<u32> = again.into_iter().collect();
            return self.join(and, v);
        }
        self.combine(and, again, memo)
    }

    /// `F G x` (`and`) or `G F x`.
    fn outer(&mut self, and: bool, x: u32) -> u32 {
        let (t, ff) = (self.t(), self.f());
        if and {
            let g = self.release(ff, x);
            self.until(t, g)
        } else {
            let f = self.until(t, x);
            self.release(ff, f)
        }
    }

    /// The chain of `And` (or `Or`) nodes over `parts` (sorted, deduplicated; not empty).
    fn join(&mut self, and: bool, mut parts: Vec<u32>) -> u32 {
        parts.sort_unstable();
        parts.dedup();
        let mut it = parts.into_iter().rev();
        let mut acc = it.next().expect("at least one operand");
        for x in it {
            acc = self.intern(if and { Node::And(x, acc) } else { Node::Or(x, acc) });
        }
        acc
    }

    /// The id of `n` if it is in the table; else an id no node has.
    fn intern_existing(&self, n: Node) -> u32 {
        self.ids.get(&n).copied().unwrap_or(u32::MAX)
    }

    /// Per node, the `until` and `release` nodes that expanding it always meets, whichever
    /// way each choice goes (itself included): an obligation met by another one's expansion
    /// adds nothing to an automaton state. Sorted.
    pub(super) fn always_met(&self) -> Vec<Vec<u32>> {
        let mut must: Vec<Vec<u32>> = Vec::with_capacity(self.nodes.len());
        let inter =
            |x: &[u32], y: &[u32]| -> Vec<u32> { x.iter().copied().filter(|v| y.binary_search(v).is_ok()).collect() };
        let union = |x: &[u32], y: &[u32]| -> Vec<u32> {
            let mut v: Vec<u32> = x.iter().chain(y).copied().collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        for (i, n) in self.nodes.iter().enumerate() {
            let i = i as u32;
            let m = match *n {
                Node::True | Node::False | Node::Lit(..) => vec![],
                Node::And(a, b) => union(&must[a as usize], &must[b as usize]),
                Node::Or(a, b) => inter(&must[a as usize], &must[b as usize]),
                // Met now (b) or postponed (a, and itself next).
                Node::Until(a, b) => union(&[i], &inter(&must[a as usize], &must[b as usize])),
                // b now in either case (with a, or postponed).
                Node::Release(_, b) => union(&[i], &must[b as usize]),
            };
            must.push(m);
        }
        must
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn atom(i: usize) -> Ltl<usize> {
        Ltl::Atom(i)
    }
    fn b(f: Ltl<usize>) -> Box<Ltl<usize>> {
        Box::new(f)
    }
    fn gf(x: Ltl<usize>) -> Ltl<usize> {
        Ltl::Always(b(Ltl::Finally(b(x))))
    }

    /// The simplified negation normal form of `f` (negated when `neg`), and its table.
    fn simplified(f: &Ltl<usize>, neg: bool) -> (Table, u32) {
        let mut t = Table::default();
        let root = t.nnf(f, neg, &mut 0);
        let s = t.simplify(root, &mut HashMap::new());
        (t, s)
    }

    #[test]
    fn a_disjunction_of_recurrences_is_one_recurrence() {
        let f = (1..4).fold(gf(atom(0)), |acc, i| Ltl::Or(b(acc), b(gf(atom(i)))));
        let (t, s) = simplified(&f, false);
        let inner = t.globally(s).and_then(|x| t.eventually(x)).expect("G F of a disjunction");
        let mut lits = vec![];
        t.flatten(inner, false, &mut lits);
        assert_eq!(lits.len(), 4, "{:?}", t.nodes);
        // Its negation: one stabilisation of a conjunction.
        let (t, s) = simplified(&f, true);
        let inner = t.eventually(s).and_then(|x| t.globally(x)).expect("F G of a conjunction");
        assert!(matches!(t.nodes[inner as usize], Node::And(..)));
    }

    #[test]
    fn nested_recurrences_and_stabilisations_collapse() {
        let g = |x: Ltl<usize>| Ltl::Always(b(x));
        let f = |x: Ltl<usize>| Ltl::Finally(b(x));
        // F G F a = G F a, G F G a = F G a, F F a = F a, G G a = G a: the same node as the
        // shorter form's.
        let same = |long: Ltl<usize>, short: Ltl<usize>| {
            let mut t = Table::default();
            let (l, s) = (t.nnf(&long, false, &mut 0), t.nnf(&short, false, &mut 0));
            let mut memo = HashMap::new();
            assert_eq!(t.simplify(l, &mut memo), t.simplify(s, &mut memo), "{long:?}");
        };
        same(f(g(f(atom(0)))), g(f(atom(0))));
        same(g(f(g(atom(0)))), f(g(atom(0))));
        same(f(f(atom(0))), f(atom(0)));
        same(g(g(atom(0))), g(atom(0)));
    }

    #[test]
    fn constants_and_complements_fold() {
        // p ∧ ¬p: the same atom twice is two atoms; only a literal met with its complement
        // folds, as in `x and not x` after negation normal form of one occurrence.
        let mut t = Table::default();
        let p = t.intern(Node::Lit(0, true));
        let np = t.intern(Node::Lit(0, false));
        let both = t.intern(Node::And(p, np));
        let either = t.intern(Node::Or(p, np));
        let ff = t.intern(Node::False);
        let tt = t.intern(Node::True);
        let mut memo = HashMap::new();
        assert_eq!(t.simplify(both, &mut memo), ff);
        assert_eq!(t.simplify(either, &mut memo), tt);
        let u = t.intern(Node::Until(p, tt));
        assert_eq!(t.simplify(u, &mut memo), tt);
        let r = t.intern(Node::Release(tt, np));
        assert_eq!(t.simplify(r, &mut memo), np);
    }
}
