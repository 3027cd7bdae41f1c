//! The observation of the linear-time properties' predicates in the LNT program
//! (docs/lnt-encoding.md §2, Monitors): after a label, the truth values of the properties whose
//! predicates it changes are offered one property after the other, so that the states `MAIN`
//! and a property's root add per property grow linearly with the number of properties, not
//! with the subsets of them (`tests/cases/ltl_precedence.labs`, 23 properties, ran for an
//! hour when every property's observer offered independently of the others).

use crate::fixtures;
use crate::scratch::Scratch;

/// The predicates every property reads: both change along the runs of [`spec`]'s system.
const A: &str = "(x of 0 = 1)";
const B: &str = "(x of 1 = 2)";

/// Two agents counting from 0 to 2, one step at a time, in any interleaving, and `k`
/// linear-time properties over the same two predicates (different formulas: the observer
/// and the monitor of each are its own).
fn spec(k: usize) -> String {
    let forms = [
        format!("{A} until {B}"),
        format!("{A} unless {B}"),
        format!("not {A} until {B}"),
        format!("not {A} unless {B}"),
        format!("{A} until not {B}"),
        format!("{A} unless not {B}"),
        format!("not {A} until not {B}"),
        format!("not {A} unless not {B}"),
    ];
    let props: Vec<String> = (0..k).map(|j| format!("    P{j} = {}\n", forms[j % forms.len()])).collect();
    format!(
        "system {{\n    spawn = A: 2\n}}\n\n\
         agent A {{\n    interface = x: 0\n    Behavior = x < 2 -> x <- x + 1; Behavior\n}}\n\n\
         check {{\n{}}}\n",
        props.concat()
    )
}

/// The number of states of the LTS of process `root` of the program emitted for `spec`.
fn states(spec: &Scratch, root: &str) -> u64 {
    let o = fixtures::labs(&["lts", &spec.to_string_lossy(), "--root", root, "--max-states", "200000"]);
    assert_eq!(o.status.code(), Some(0), "{root}: {}", fixtures::stderr(&o));
    let out = fixtures::stdout(&o);
    let header = out.lines().next().unwrap_or_default();
    // `des (initial, transitions, states)`
    let fields: Vec<&str> = header.trim_start_matches("des (").trim_end_matches(')').split(',').collect();
    assert_eq!(fields.len(), 3, "{header}");
    fields[2].trim().parse().unwrap_or_else(|e| panic!("{header}: {e}"))
}

/// `MAIN` and the root of the first property with k = 2, 3, 4, 8 properties over the same
/// predicates. The bound, from the encoding: after a label, the offers of the properties whose
/// predicates' truth values it changes come one after the other, in a fixed order, so the
/// states between them are the states where the offer of property j is the next one, per j.
/// Those of properties 1 to k - 2 are as many for every such j: the same labels change every
/// property's predicates (they read the same ones), and the same system, monitor and tracked
/// values are reached whatever j; the last property's are fewer or as many (its previous
/// valuation is read no more, and the generator, like CADP's, forgets dead variables). So each
/// property beyond the second adds the same number of states, Δ = states(3) - states(2), and
/// states(k) <= states(2) + (k - 2) Δ. (The root's monitor follows the first property's offers
/// alone, the others being hidden: it multiplies these states by the same monitor states
/// whatever k.) Where each property's observer offered independently, every subset of the
/// observers that had offered after a label was a state: 2^k - 1 of them per such label.
#[test]
fn states_grow_linearly_with_the_properties() {
    let ks = [2usize, 3, 4, 8];
    let files: Vec<Scratch> =
        ks.iter().map(|&k| Scratch::file("observers", &format!("obs{k}.labs"), &spec(k))).collect();
    for root in ["MAIN", "Root_P0"] {
        let n: Vec<u64> = files.iter().map(|f| states(f, root)).collect();
        let delta = n[1].checked_sub(n[0]).unwrap_or_else(|| panic!("{root}: {n:?}"));
        assert!(delta > 0, "{root}: a third property's observation adds no state: {n:?}");
        for (&k, &s) in ks.iter().zip(&n).skip(2) {
            let bound = n[0] + (k as u64 - 2) * delta;
            assert!(
                s <= bound,
                "{root} with {k} properties: {s} states, more than {bound} (states for k = {ks:?}: {n:?})"
            );
            assert!(s > n[1], "{root} with {k} properties: {s} states, no more than with 3: {n:?}");
        }
    }
}
