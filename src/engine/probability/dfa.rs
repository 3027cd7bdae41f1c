//! A deterministic automaton of a linear-time formula, for products with a Markov chain
//! (docs/probability.md, "Linear-time formulas"): its states are what the formula still
//! demands of the rest of the run after the states read so far, obtained by formula
//! progression (the "after" function: `a U b` read on a state is `b`'s progression, or `a`'s
//! and `a U b` again), kept in disjunctive normal form over the formula's subformulas, so that
//! there are finitely many. `true` and `false` are two of them: the formula is then decided.
//!
//! A run that never reaches either ends in a bottom component of the product, where the
//! demand's truth is the same, 0 or 1, from every state of the component (a bounded harmonic
//! function on an irreducible chain is constant, and by Lévy's 0-1 law its values tend to the
//! indicator of the event): `Generic` decides it, for the formulas it can, from which values
//! the component's states give the atoms.

use crate::syntax::ltl::Ltl;
use std::collections::HashMap;

pub(crate) use crate::engine::ltl_formula::Node;
use crate::engine::ltl_formula::Table;

/// A formula's negation normal form, its nodes shared (the linear-time checker's table, with
/// one literal per occurrence of an atom).
#[derive(Default)]
pub(crate) struct Formula {
    pub(crate) nodes: Vec<Node>,
    pub(crate) root: u32,
    pub(crate) atoms: usize,
}

impl Formula {
    /// `f` in negation normal form; atom `k` of `f.atoms()` is index `k`.
    pub(crate) fn of<A>(f: &Ltl<A>) -> Formula {
        let mut table = Table::default();
        let mut atoms = 0;
        let root = table.nnf(f, false, &mut atoms);
        Formula { nodes: table.nodes, root, atoms }
    }

    /// Whether node `i` has no temporal operator (a state predicate).
    pub(crate) fn propositional(&self, i: u32) -> bool {
        match self.nodes[i as usize] {
            Node::True | Node::False | Node::Lit(..) => true,
            Node::And(a, b) | Node::Or(a, b) => self.propositional(a) && self.propositional(b),
            Node::Until(..) | Node::Release(..) => false,
        }
    }

    /// The value of the state predicate `i` on a state whose atoms are `letter`'s bits.
    pub(crate) fn eval(&self, i: u32, letter: u64) -> bool {
        match self.nodes[i as usize] {
            Node::True => true,
            Node::False => false,
            Node::Lit(k, pos) => (letter >> k & 1 == 1) == pos,
            Node::And(a, b) => self.eval(a, letter) && self.eval(b, letter),
            Node::Or(a, b) => self.eval(a, letter) || self.eval(b, letter),
            Node::Until(..) | Node::Release(..) => unreachable!("a state predicate"),
        }
    }
}

/// A demand on a run: a disjunction of conjunctions of nodes (each conjunction sorted and
/// without repetition, no conjunction containing another). `[[]]` is `true`, `[]` `false`.
pub(crate) type Dnf = Vec<Vec<u32>>;

/// The most conjunctions a demand may have, and the most automaton states: beyond them the
/// formula is refused (its automaton would not be small).
const MAX_CLAUSES: usize = 4096;
pub(crate) const MAX_STATES: usize = 4096;

/// The automaton got too large.
#[derive(Debug)]
pub(crate) struct TooLarge;

fn normalise(mut d: Dnf) -> Dnf {
    for c in &mut d {
        c.sort_unstable();
        c.dedup();
    }
    d.sort_unstable_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
    d.dedup();
    // Absorption: a conjunction implied by a shorter one goes.
    let mut out: Dnf = Vec::with_capacity(d.len());
    for c in d {
        if !out.iter().any(|k| k.iter().all(|x| c.binary_search(x).is_ok())) {
            out.push(c);
        }
    }
    out.sort_unstable();
    out
}

fn and(a: &Dnf, b: &Dnf) -> Result<Dnf, TooLarge> {
    if a.len().saturating_mul(b.len()) > MAX_CLAUSES * 4 {
        return Err(TooLarge);
    }
    let mut out = Vec::with_capacity(a.len() * b.len());
    for x in a {
        for y in b {
            let mut c = x.clone();
            c.extend_from_slice(y);
            out.push(c);
        }
    }
    let out = normalise(out);
    if out.len() > MAX_CLAUSES { Err(TooLarge) } else { Ok(out) }
}

fn or(a: &Dnf, b: &Dnf) -> Result<Dnf, TooLarge> {
    let out = normalise(a.iter().chain(b).cloned().collect());
    if out.len() > MAX_CLAUSES { Err(TooLarge) } else { Ok(out) }
}

fn truth(b: bool) -> Dnf {
    if b { vec![vec![]] } else { vec![] }
}

impl Formula {
    /// What node `i`, demanded of the run from the state read now (whose atoms are
    /// `letter`), demands of the rest of the run.
    fn after(&self, i: u32, letter: u64) -> Result<Dnf, TooLarge> {
        Ok(match self.nodes[i as usize] {
            Node::True => truth(true),
            Node::False => truth(false),
            Node::Lit(k, pos) => truth((letter >> k & 1 == 1) == pos),
            Node::And(a, b) => and(&self.after(a, letter)?, &self.after(b, letter)?)?,
            Node::Or(a, b) => or(&self.after(a, letter)?, &self.after(b, letter)?)?,
            // a U b = b ∨ (a ∧ X(a U b)).
            Node::Until(a, b) => or(&self.after(b, letter)?, &and(&self.after(a, letter)?, &vec![vec![i]])?)?,
            // a R b = b ∧ (a ∨ X(a R b)).
            Node::Release(a, b) => and(&self.after(b, letter)?, &or(&self.after(a, letter)?, &vec![vec![i]])?)?,
        })
    }

    /// What the demand `d` on the run from the state read now demands of the rest of it.
    pub(crate) fn step(&self, d: &Dnf, letter: u64) -> Result<Dnf, TooLarge> {
        let mut out = truth(false);
        for c in d {
            let mut conj = truth(true);
            for &i in c {
                conj = and(&conj, &self.after(i, letter)?)?;
                if conj.is_empty() {
                    break;
                }
            }
            out = or(&out, &conj)?;
            if out == truth(true) {
                break;
            }
        }
        Ok(out)
    }
}

/// State ids of the automaton that are decided.
pub(crate) const ACCEPT: u32 = 0;
pub(crate) const REJECT: u32 = 1;

/// The automaton over the letters that occur: `delta[d * letters + l]` is the state after
/// state `d` reads letter number `l`. State 2 is the formula itself, before any state is read.
pub(crate) struct Dfa {
    pub(crate) states: Vec<Dnf>,
    pub(crate) delta: Vec<u32>,
    pub(crate) letters: Vec<u64>,
}

impl Dfa {
    /// The automaton of `f` over `letters` (the atoms' values that occur, as bit sets).
    pub(crate) fn build(f: &Formula, letters: Vec<u64>) -> Result<Dfa, TooLarge> {
        let mut states: Vec<Dnf> = vec![truth(true), truth(false), vec![vec![f.root]]];
        let mut index: HashMap<Dnf, u32> = states.iter().cloned().enumerate().map(|(i, d)| (d, i as u32)).collect();
        let mut delta = Vec::new();
        let mut d = 0;
        while d < states.len() {
            for &l in &letters {
                let next = match d as u32 {
                    ACCEPT | REJECT => d as u32,
                    _ => {
                        let s = f.step(&states[d], l)?;
                        match index.get(&s) {
                            Some(&i) => i,
                            None => {
                                if states.len() >= MAX_STATES {
                                    return Err(TooLarge);
                                }
                                let i = states.len() as u32;
                                index.insert(s.clone(), i);
                                states.push(s);
                                i
                            }
                        }
                    }
                };
                delta.push(next);
            }
            d += 1;
        }
        Ok(Dfa { states, delta, letters })
    }

    #[inline]
    pub(crate) fn next(&self, d: u32, letter_index: u32) -> u32 {
        self.delta[d as usize * self.letters.len() + letter_index as usize]
    }
}

/// What is known, almost surely, of a formula on the runs inside a bottom component `B` of
/// the chain (every state of `B` visited infinitely often): `all` whether it holds at every
/// position, `none` at no position, `inf` at infinitely many, `finf` fails at infinitely many
/// (`None`: not known). `inf` and `finf` are 0-1 events (invariant under shifts), so their
/// negations are known with them; `all` and `none` are not, and are never negated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Generic {
    pub(crate) all: Option<bool>,
    pub(crate) none: Option<bool>,
    pub(crate) inf: Option<bool>,
    pub(crate) finf: Option<bool>,
}

fn and3(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

fn or3(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    }
}

fn not3(a: Option<bool>) -> Option<bool> {
    a.map(|b| !b)
}

impl Generic {
    fn constant(b: bool) -> Generic {
        Generic { all: Some(b), none: Some(!b), inf: Some(b), finf: Some(!b) }
    }

    /// The formula's negation.
    fn neg(self) -> Generic {
        Generic { all: self.none, none: self.all, inf: self.finf, finf: self.inf }
    }

    fn and(a: Generic, b: Generic) -> Generic {
        let t = Some(true);
        Generic {
            all: and3(a.all, b.all),
            none: if a.none == t || b.none == t {
                t
            } else if a.all == t {
                b.none
            } else if b.all == t {
                a.none
            } else {
                None
            },
            inf: if a.all == t {
                b.inf
            } else if b.all == t {
                a.inf
            } else if a.inf == Some(false) || b.inf == Some(false) || a.none == t || b.none == t {
                Some(false)
            } else {
                None
            },
            finf: or3(a.finf, b.finf),
        }
    }

    fn or(a: Generic, b: Generic) -> Generic {
        Generic::and(a.neg(), b.neg()).neg()
    }

    /// `a U b`: at every position iff `a ∨ b` everywhere and `b` infinitely often; at none iff
    /// `b` at none; infinitely often iff `b` is; fails infinitely often iff `b` holds finitely
    /// often or `¬a ∧ ¬b` infinitely often. `either` and `neither` are `a ∨ b` and `¬a ∧ ¬b`, given exactly where `a` and `b` are
    /// state predicates (`Generic::or` and `Generic::and` alone lose what the letters tell).
    fn until(b: Generic, either: Generic, neither: Generic) -> Generic {
        Generic { all: and3(either.all, b.inf), none: b.none, inf: b.inf, finf: or3(not3(b.inf), neither.inf) }
    }

    /// A state predicate on a component whose states give the atoms the values `letters`.
    fn exact(letters: &[u64], holds: impl Fn(u64) -> bool) -> Generic {
        let any = letters.iter().any(|&l| holds(l));
        let all = letters.iter().all(|&l| holds(l));
        Generic { all: Some(all), none: Some(!any), inf: Some(any), finf: Some(!all) }
    }
}

/// `Generic` of every node of `f` on a bottom component whose states give the atoms the
/// values `letters` (the distinct ones).
pub(crate) fn generic(f: &Formula, letters: &[u64]) -> Vec<Generic> {
    let mut g: Vec<Generic> = Vec::with_capacity(f.nodes.len());
    // Children precede parents in `nodes` (interned bottom-up).
    for (i, n) in f.nodes.iter().enumerate() {
        let v = if f.propositional(i as u32) {
            Generic::exact(letters, |l| f.eval(i as u32, l))
        } else {
            // `a ∨ b` and `¬a ∧ ¬b` of an until's (or, negated, a release's) operands.
            let both = |a: u32, b: u32, na: bool, nb: bool| -> (Generic, Generic) {
                let (ga, gb) = (
                    if na { g[a as usize].neg() } else { g[a as usize] },
                    if nb { g[b as usize].neg() } else { g[b as usize] },
                );
                if f.propositional(a) && f.propositional(b) {
                    let ev = |x: u32, neg: bool, l: u64| f.eval(x, l) != neg;
                    (
                        Generic::exact(letters, |l| ev(a, na, l) || ev(b, nb, l)),
                        Generic::exact(letters, |l| !ev(a, na, l) && !ev(b, nb, l)),
                    )
                } else {
                    (Generic::or(ga, gb), Generic::and(ga.neg(), gb.neg()))
                }
            };
            match *n {
                Node::True => Generic::constant(true),
                Node::False => Generic::constant(false),
                Node::Lit(..) => unreachable!("propositional"),
                Node::And(a, b) => Generic::and(g[a as usize], g[b as usize]),
                Node::Or(a, b) => Generic::or(g[a as usize], g[b as usize]),
                Node::Until(a, b) => {
                    let (either, neither) = both(a, b, false, false);
                    Generic::until(g[b as usize], either, neither)
                }
                // a R b = ¬(¬a U ¬b).
                Node::Release(a, b) => {
                    let (either, neither) = both(a, b, true, true);
                    Generic::until(g[b as usize].neg(), either, neither).neg()
                }
            }
        };
        g.push(v);
    }
    g
}

/// Whether the demand `d` holds (almost surely) on the runs of a bottom component whose nodes
/// are known as `g` says: `None` when `g` does not tell.
pub(crate) fn decide(d: &Dnf, g: &[Generic]) -> Option<bool> {
    let mut out = Some(false);
    for c in d {
        let mut conj = Some(true);
        for &i in c {
            let v = &g[i as usize];
            let holds = if v.all == Some(true) {
                Some(true)
            } else if v.none == Some(true) {
                Some(false)
            } else {
                None
            };
            conj = and3(conj, holds);
        }
        out = or3(out, conj);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::ltl::Ltl;

    fn a(i: usize) -> Ltl<usize> {
        Ltl::Atom(i)
    }
    fn b(x: Ltl<usize>) -> Box<Ltl<usize>> {
        Box::new(x)
    }

    /// The letter of atom occurrences (`Formula`'s atoms) of a state whose atoms (by their
    /// ids, `f`'s atom values) are the bits of `w`.
    pub(crate) fn occurrences(f: &Ltl<usize>, w: u64) -> u64 {
        f.atoms().iter().enumerate().fold(0, |l, (k, &&a)| l | (w >> a & 1) << k)
    }

    /// What the automaton says of `prefix` followed by `tail` forever: the run ends in a cycle
    /// of automaton states reading `tail`, which `decide` judges with `tail` as the only letter
    /// of the component (a run that repeats one state is the only run of that component).
    fn dfa_on_constant_tail(f: &Ltl<usize>, prefix: &[u64], tail: u64) -> Option<bool> {
        let form = Formula::of(f);
        let occ = |w: u64| occurrences(f, w);
        let mut letters: Vec<u64> = prefix.iter().map(|&w| occ(w)).collect();
        letters.push(occ(tail));
        letters.sort_unstable();
        letters.dedup();
        let dfa = Dfa::build(&form, letters.clone()).ok()?;
        let li = |w: u64| letters.iter().position(|&x| x == occ(w)).unwrap() as u32;
        let mut d = 2;
        for &l in prefix {
            d = dfa.next(d, li(l));
        }
        let mut seen = Vec::new();
        while !seen.contains(&d) {
            seen.push(d);
            d = dfa.next(d, li(tail));
        }
        match d {
            ACCEPT => Some(true),
            REJECT => Some(false),
            _ => decide(&dfa.states[d as usize], &generic(&form, &[occ(tail)])),
        }
    }

    #[test]
    fn constant_tails_are_decided_as_lassos_judge_them() {
        use crate::engine::ltl::holds_on_lasso;
        let formulas = vec![
            Ltl::Finally(b(Ltl::Always(b(a(0))))),
            Ltl::Always(b(Ltl::Finally(b(a(0))))),
            Ltl::Until(b(a(0)), b(a(1))),
            Ltl::Unless(b(a(0)), b(a(1))),
            Ltl::Always(b(Ltl::Implies(b(a(0)), b(Ltl::Finally(b(a(1))))))),
            Ltl::Not(b(Ltl::Until(b(Ltl::Finally(b(a(0)))), b(Ltl::Always(b(a(1))))))),
            Ltl::Until(b(Ltl::Until(b(a(0)), b(a(1)))), b(Ltl::Unless(b(a(1)), b(a(0))))),
        ];
        for f in &formulas {
            for bits in 0u32..(1 << 8) {
                // Prefixes of up to 3 letters over 2 atoms, then a constant tail.
                let len = (bits & 3) as usize;
                let prefix: Vec<u64> = (0..len).map(|k| (bits >> (2 + 2 * k) & 3) as u64).collect();
                let tail = (bits >> 6 & 3) as u64;
                let mut word = prefix.clone();
                word.push(tail);
                let ids: Vec<usize> = f.atoms().into_iter().copied().collect();
                let want = holds_on_lasso(f, word.len(), None, &|at, k| word[k] >> ids[at] & 1 == 1);
                assert_eq!(dfa_on_constant_tail(f, &prefix, tail), Some(want), "{f:?} on {prefix:?} then {tail}^ω");
            }
        }
    }
}
