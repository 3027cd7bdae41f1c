//! The compositional SVL workflow executed by labs (`src/lntcheck/svl/`, `src/lntcheck/lts.rs`):
//! (a) the explicit-LTS operators on hand-made LTSs with hand-derived results; the parser of the
//! script subset; (b) the leaves of the emitted script composed with every gate visible give,
//! with the gates `MAIN` hides hidden, an LTS divbranching-bisimilar to the whole `MAIN`
//! (generated directly by the interpreter; the leaves take a `REQ` per receiver), or, where the value analysis leaves an input unbounded, the leaf is refused by name; (c)
//! every property checked on the LTS its SVL block builds (per-leaf hiding, `total prio`,
//! `hide all but`) has the native engine's verdict; (d) the root-level exploration equals the
//! nested composition, and `labs lts --property` (`--leaf`, `--reduce`, `--svl`) through the
//! binary.

use crate::fixtures;
use fixtures::{bench, example as ex};

use crate::engine_common;
use crate::tier;
use engine_common::*;
use labs::analysis::values::analyse;
use labs::engine::{VerifyOptions, verify};
use labs::lnt::Dialect;
use labs::lntcheck::lts::{Lts, prio_pattern};
use labs::lntcheck::svl::{self, Beh, Composer};
use std::collections::BTreeSet;

fn lts(n: usize, ts: &[(u32, &str, u32)]) -> Lts {
    let mut l = Lts::new();
    l.nstates = n;
    for (s, a, t) in ts {
        l.add(*s, a, *t);
    }
    l
}

fn set(l: &Lts) -> BTreeSet<(u32, String, u32)> {
    l.trans.iter().map(|(s, a, t)| (*s, l.label(*a).to_string(), *t)).collect()
}

fn s(x: &[&str]) -> Vec<String> {
    x.iter().map(|g| g.to_string()).collect()
}

// ---- (a) operators -------------------------------------------------------------------------

/// A = 0 -a-> 1 -c-> 2, B = 0 -a-> 1 -b-> 0, `par a in A || B`: a is taken together, b and c
/// interleave, and in (2,0) B's a is blocked (A no longer offers it).
#[test]
fn par_shared_gate() {
    let a = lts(3, &[(0, "A", 1), (1, "C", 2)]);
    let b = lts(2, &[(0, "A", 1), (1, "B", 0)]);
    let p = Lts::par(&[a, b], &s(&["A"]), &[None, None]);
    // (0,0) -A-> (1,1); (1,1) -C-> (2,1), -B-> (1,0); (2,1) -B-> (2,0); (1,0) -C-> (2,0)
    let want = lts(5, &[(0, "A", 1), (1, "C", 2), (1, "B", 3), (2, "B", 4), (3, "C", 4)]);
    assert_eq!((p.nstates, p.trans.len()), (5, 5));
    assert!(Lts::bisimilar(&p, &want));
    assert_eq!(p.adjacency()[4].len(), 0, "(2,0) has no move: B's A needs A");
}

/// The same gate outside the synchronisation set interleaves: 2 × 2 states.
#[test]
fn par_unshared_gate() {
    let a = lts(2, &[(0, "A", 1)]);
    let b = lts(2, &[(0, "A", 1)]);
    let p = Lts::par(&[a.clone(), b.clone()], &[], &[None, None]);
    assert_eq!((p.nstates, p.trans.len()), (4, 4));
    let q = Lts::par(&[a, b], &s(&["A"]), &[None, None]);
    assert_eq!((q.nstates, q.trans.len()), (2, 1));
}

/// Offers: labels synchronise only when gate and every offer are equal.
#[test]
fn par_offers() {
    let a = lts(3, &[(0, "G !1", 1), (0, "G !2", 2)]);
    let b = lts(2, &[(0, "G !2", 1), (0, "H !1", 0)]);
    let p = Lts::par(&[a, b], &s(&["G"]), &[None, None]);
    // (0,0) -G !2-> (2,1) and the H self-loop; G !1 finds no partner
    assert_eq!(set(&p), [(0, "G !2".to_string(), 1), (0, "H !1".to_string(), 0)].into_iter().collect());
    assert_eq!(p.nstates, 2);
}

/// `par G -> A || G -> B || H -> C`: G is a rendezvous of A and B, C's G interleaves.
#[test]
fn par_interfaces() {
    let one = lts(2, &[(0, "G", 1)]);
    let p = Lts::par(&[one.clone(), one.clone(), one], &[], &[Some(s(&["G"])), Some(s(&["G"])), Some(s(&["H"]))]);
    // (000) -G-> (110), (001); (110) -G-> (111); (001) -G-> (111)
    assert_eq!((p.nstates, p.trans.len()), (4, 4));
    let want = lts(4, &[(0, "G", 1), (0, "G", 2), (1, "G", 3), (2, "G", 3)]);
    assert!(Lts::bisimilar(&p, &want));
}

/// Nondeterministic partners: one transition per combination; `i` never synchronises.
#[test]
fn par_nondeterminism_and_tau() {
    let a = lts(3, &[(0, "A", 1), (0, "A", 2), (0, "i", 0)]);
    let b = lts(2, &[(0, "A", 1), (1, "i", 1)]);
    let p = Lts::par(&[a, b], &s(&["A"]), &[None, None]);
    // (0,0) -i-> (0,0), -A-> (1,1), (2,1); each then has B's i loop
    assert_eq!((p.nstates, p.trans.len()), (3, 5));
}

#[test]
fn hide_by_gate() {
    let l = lts(3, &[(0, "G !1", 1), (1, "GX !1", 2), (2, "H", 0), (2, "i", 1)]);
    let h = l.hide(&["G", "H"]);
    let want: BTreeSet<_> =
        [(0, "i".to_string(), 1), (1, "GX !1".to_string(), 2), (2, "i".to_string(), 0), (2, "i".to_string(), 1)]
            .into_iter()
            .collect();
    assert_eq!(set(&h), want);
    assert_eq!(h.nstates, 3);
    let k = l.hide_all_but(&["GX", "DONE"]);
    let want: BTreeSet<_> =
        [(0, "i".to_string(), 1), (1, "GX !1".to_string(), 2), (2, "i".to_string(), 0), (2, "i".to_string(), 1)]
            .into_iter()
            .collect();
    assert_eq!(set(&k), want);
}

fn chains(cs: &[&[&str]]) -> Vec<Vec<regex::Regex>> {
    cs.iter().map(|c| c.iter().map(|p| prio_pattern(p).unwrap()).collect()).collect()
}

/// `total prio "REQ !0 .*" > "REQ !1 .*" > "REQ !2 .*"  "L !0 .*" > "L !1 .*"`: a transition is
/// cut only in a state that offers a higher label of the same chain; patterns match whole labels
/// (`REQ !1 .*` does not match `REQ !10 !0`, nor `XREQ !0 1`); the targets of cut transitions
/// become unreachable and disappear.
#[test]
fn prio_chains_and_anchoring() {
    let l = lts(
        9,
        &[
            (0, "REQ !1 !1", 1),
            (0, "REQ !0 !1", 2),
            (0, "REQ !2 !0", 3),
            (0, "REQ !10 !0", 4),
            (0, "XREQ !0 1", 5),
            (0, "L !1 !0", 6),
            (2, "REQ !2 !0", 7),
            (2, "REQ !1 !3", 8),
            (2, "L !1 !0", 0),
        ],
    );
    let p = l.prio(&chains(&[&["REQ !0 .*", "REQ !1 .*", "REQ !2 .*"], &["L !0 .*", "L !1 .*"]]));
    let labels_from = |p: &Lts, s: u32| -> BTreeSet<String> {
        p.adjacency()[s as usize].iter().map(|(l, _)| p.label(*l).to_string()).collect()
    };
    // state 0: REQ !1 and REQ !2 cut by REQ !0; L !1 kept (no L !0 there); REQ !10, XREQ kept
    assert_eq!(
        labels_from(&p, 0),
        ["REQ !0 !1", "REQ !10 !0", "XREQ !0 1", "L !1 !0"].iter().map(|x| x.to_string()).collect()
    );
    // state 2 (renumbered 1 in BFS order): REQ !1 beats REQ !2, L kept (other chain)
    let two = p.trans.iter().find(|(s, l, _)| *s == 0 && p.label(*l) == "REQ !0 !1").unwrap().2;
    assert_eq!(labels_from(&p, two), ["REQ !1 !3", "L !1 !0"].iter().map(|x| x.to_string()).collect());
    // reachable: 0, 2, 4, 5, 6, 8 (1, 3, 7 only by cut transitions)
    assert_eq!(p.nstates, 6);
    assert_eq!(p.trans.len(), 6);
}

#[test]
fn bisimilar_distinguishes() {
    let a = lts(3, &[(0, "A", 1), (1, "B", 2)]);
    let b = lts(4, &[(0, "A", 1), (0, "A", 2), (1, "B", 3)]);
    assert!(!Lts::bisimilar(&a, &b), "a.(b) vs a.b + a: different");
    let c = lts(4, &[(0, "A", 1), (0, "A", 2), (1, "B", 3), (2, "B", 3)]);
    assert!(Lts::bisimilar(&a, &c));
}

#[test]
fn parse_script_subset() {
    let src = r#"(* comment *)
% DEFAULT_PROCESS_FILE="x.lnt"
"x_P.bcg" = root leaf divsharp reduction
   hold "REQ", "L_X"
   of
   (
   hide all but DONE, L_X in
      par
         REFRESH, REQ ->
               Timestamps [REFRESH, REQ] (0)
         || TICK, REQ ->
            total prio
               "REQ !0 .*" > "REQ !1 .*"
               "L_X !0 .*" > "L_X !1 .*"
            in
               par TICK, DONE in
                  hide E_Y in Agent_A [TICK, DONE, REQ, E_Y, L_X] (0) end hide
                  || Agent_A [TICK, DONE, REQ, L_X] (1)
               end par
            end prio
      end par
   end hide
   );

property P
   "always x"
is
   "x_P_diag.bcg" = verify "x_P.mcl" with evaluator4 in "x_P.bcg";
   expected TRUE;
end property
"#;
    let sc = svl::parse(src).unwrap();
    assert_eq!(sc.process_file.as_deref(), Some("x.lnt"));
    let b = sc.block("P").unwrap();
    assert_eq!(b.reduction, "divsharp");
    assert_eq!(b.hold, s(&["REQ", "L_X"]));
    let call = |p: &str, g: &[&str], a: i64| Beh::Call { process: p.into(), gates: s(g), args: vec![a] };
    let want = Beh::HideAllBut {
        gates: s(&["DONE", "L_X"]),
        body: Box::new(Beh::Par {
            global: vec![],
            branches: vec![
                (Some(s(&["REFRESH", "REQ"])), call("Timestamps", &["REFRESH", "REQ"], 0)),
                (
                    Some(s(&["TICK", "REQ"])),
                    Beh::Prio {
                        chains: vec![s(&["REQ !0 .*", "REQ !1 .*"]), s(&["L_X !0 .*", "L_X !1 .*"])],
                        body: Box::new(Beh::Par {
                            global: s(&["TICK", "DONE"]),
                            branches: vec![
                                (
                                    None,
                                    Beh::Hide {
                                        gates: s(&["E_Y"]),
                                        body: Box::new(call("Agent_A", &["TICK", "DONE", "REQ", "E_Y", "L_X"], 0)),
                                    },
                                ),
                                (None, call("Agent_A", &["TICK", "DONE", "REQ", "L_X"], 1)),
                            ],
                        }),
                    },
                ),
            ],
        }),
    };
    assert_eq!(b.beh, want);
    assert!(matches!(svl::agent_leaf(&b.beh, 0), Some(Beh::Hide { .. })));
    assert!(matches!(svl::agent_leaf(&b.beh, 1), Some(Beh::Call { .. })));
    assert!(svl::agent_leaf(&b.beh, 2).is_none());
    assert!(svl::parse("\"x.bcg\" = root leaf divsharp reduction of ( par A in B [A] end );").is_err());
}

// ---- (b), (c) on the examples and benchmarks ------------------------------------------------

fn case(path: &str, externs: &[&str]) {
    run_case(path, externs, false)
}

/// A spec whose value analysis leaves an environment variable unbounded (`0 .. 2^31-1`): the
/// `Env` leaf of the script, generated alone, has a `SETENV (?k, ?v)` input (and, with
/// `--fair`, the `Sched` leaf a `TICK (…, ?e_0)` input) that only the other leaves' offers bound
/// in `MAIN`, so it cannot be generated on its own (by CADP either). The test pins that
/// diagnosis; it fails once the emitter bounds those inputs (then use `case`).
fn case_unbounded_env(path: &str, externs: &[&str]) {
    run_case(path, externs, true)
}

fn run_case(path: &str, externs: &[&str], unbounded_env: bool) {
    let (m, b) = load(path, externs);
    let stem = std::path::Path::new(path).file_stem().unwrap().to_string_lossy().into_owned();
    let analysis = analyse(&m, &b);
    for fair in [false, true] {
        let what = format!("{stem} {externs:?} fair={fair}");
        let (lnt, script) = svl::emit_program(&m, &b, &analysis, &stem, fair, Dialect::V2025).unwrap();
        let prog = labs::lntcheck::load(&lnt, None).unwrap();
        // (b) every leaf composed with all gates visible == MAIN with its hide removed
        let sc = svl::parse(&script).unwrap_or_else(|e| panic!("{what}: {}", e.in_text(&script)));
        let first = &sc.blocks.first().unwrap_or_else(|| panic!("{what}: no block")).beh;
        let mut c = Composer::new(&prog, Some(3_000_000));
        let composed = c.compose(first, false);
        if unbounded_env {
            let e = composed.err().unwrap_or_else(|| panic!("{what}: the Env leaf is now bounded: use `case`"));
            let m = e.message();
            assert!(
                matches!(e, labs::lntcheck::LntcheckError::Program(_))
                    && (m.starts_with("Env [") || m.starts_with("Sched ["))
                    && m.contains("unbounded input offer"),
                "{what}: {e:?}"
            );
            continue;
        }
        let composed = composed.unwrap_or_else(|e| panic!("{what}: {e}"));
        // With linear-time properties, `MAIN` composes `System` with the observers of their
        // predicates, which only their own blocks compose: the blocks' system is `System`.
        let system = if lnt.contains("\nprocess System [") { "System" } else { "MAIN" };
        let mut net = labs::lntcheck::interp::build_net(&prog, system).unwrap();
        net.tree = svl::strip_hides(&net.tree);
        let (main, _) = labs::lntcheck::interp::generate(
            &prog,
            &net,
            &labs::lntcheck::interp::GenOptions { max_states: Some(3_000_000), ..Default::default() },
        )
        .unwrap();
        eprintln!(
            "{what}: leaves composed {} / {}, MAIN {} / {}",
            composed.nstates,
            composed.trans.len(),
            main.nstates,
            main.trans.len()
        );
        // The leaves take `split` 1 (a `REQ` per receiver, docs/lnt-encoding.md §3,
        // Propagation), MAIN `split` 0 (the timestamps in the message's one rendezvous): with
        // the gates MAIN hides hidden, both are the same modulo divbranching bisimulation.
        let internal = |l: &Lts| -> Vec<String> {
            let gates: BTreeSet<String> = l
                .labels
                .iter()
                .map(|s| s.split(' ').next().unwrap_or_default().to_string())
                .filter(|g| {
                    ["TICK", "INIT", "AINIT", "AENV", "SETENV", "TRY", "REFRESH", "REQ"].contains(&g.as_str())
                        || g.starts_with("RD")
                        || g.starts_with("PUT_")
                        || g.starts_with("QRY_")
                })
                .collect();
            gates.into_iter().collect()
        };
        let observed = |l: &Lts| {
            let hidden = internal(l);
            let hidden: Vec<&str> = hidden.iter().map(String::as_str).collect();
            let r = labs::lntcheck::reduce::Reduction::DivBranching;
            labs::lntcheck::reduce::minimise(&l.hide(&hidden), &r, &labs::limits::Limits::none()).unwrap()
        };
        assert!(
            Lts::bisimilar(&observed(&composed), &observed(&main)),
            "{what}: composed leaves not equivalent to MAIN"
        );
        // (c) verdicts on the per-property LTSs == native verdicts
        let runs =
            svl::check_script(&m, &b, fair, &lnt, &script, Some(3_000_000)).unwrap_or_else(|e| panic!("{what}: {e}"));
        let rep = verify(
            &m,
            &b,
            &VerifyOptions { fair, threads: 1, check_analysis: true, exhaustive: true, ..Default::default() },
        )
        .unwrap();
        assert_eq!(runs.len(), m.properties.len(), "{what}: one block per property");
        for r in &runs {
            let native = rep.results.iter().find(|x| x.property == r.property).unwrap().verdict;
            eprintln!(
                "  {}: {} states / {} transitions, {} LAbS states: {} (native {})",
                r.property,
                r.states,
                r.transitions,
                r.labs_states,
                r.verdict.as_str(),
                native.as_str()
            );
            assert_eq!(r.verdict, native, "{what}: property {}", r.property);
            // The block's reduction was applied (and checked to be a congruence by
            // `check_script`): it never grows an LTS.
            let (rs, rt) = r.reduced.unwrap_or_else(|| panic!("{what}: {} was not reduced", r.property));
            eprintln!("    reduced: {rs} states / {rt} transitions");
            assert!(rs <= r.states, "{what}: {rs} > {}", r.states);
            for leaf in &r.leaves {
                let (ls, _) = leaf.reduced.unwrap_or_else(|| panic!("{what}: leaf {} not reduced", leaf.text));
                assert!(ls <= leaf.states, "{what}: leaf {}", leaf.text);
            }
        }
    }
}

#[test]
fn leader3() {
    case(&bench("leader.labs"), &["n=3"]);
}
#[test]
fn philosophers3() {
    case(&bench("philosophers.labs"), &["n=3"]);
}
#[test]
fn twophase2() {
    if !tier::slow("twophase workers=2, about 8 s") {
        return;
    }
    case(&bench("twophase.labs"), &["workers=2"]);
}
#[test]
fn twophasecommit2() {
    if !tier::slow("twophasecommit workers=2, about 8 s") {
        return;
    }
    case(&bench("twophasecommit.labs"), &["workers=2"]);
}
#[test]
fn flock2() {
    if !tier::slow("flock birds=2 grid=3, about 17 s") {
        return;
    }
    case(&bench("flock.labs"), &["birds=2", "delta=1", "grid=3"]);
}
#[test]
fn formation2() {
    case(&bench("formation.labs"), &["n=2", "range=2", "size=3"]);
}
#[test]
fn ex_counter() {
    case_unbounded_env(&ex("counter.labs"), &["n=2", "atomic=0"]);
    case_unbounded_env(&ex("counter.labs"), &["n=2", "atomic=1"]);
}
#[test]
fn ex_leader() {
    case(&ex("leader.labs"), &["n=2"]);
}
#[test]
fn ex_majority() {
    case(&ex("majority.labs"), &["yes=1", "no=1"]);
}
#[test]
fn ex_philosophers() {
    case(&ex("philosophers.labs"), &["n=2", "asym=0"]);
    case(&ex("philosophers.labs"), &["n=2", "asym=1"]);
}
#[test]
fn ex_twophase() {
    case_unbounded_env(&ex("twophase.labs"), &["workers=2"]);
}
#[test]
fn ex_flocking() {
    if !tier::slow("flocking birds=2 grid=3, about 8 s") {
        return;
    }
    case(&ex("flocking.labs"), &["birds=2", "delta=1", "grid=3"]);
}
#[test]
fn ex_line() {
    case(&ex("line.labs"), &["n=2", "gap=1", "size=3"]);
}

/// The root-level exploration (`compose`, what `root leaf` does) equals the bottom-up
/// composition with the explicit operators (`compose_nested`), property operators included.
#[test]
fn root_exploration_equals_nested_operators() {
    for (path, externs, fair) in [
        (bench("leader.labs"), vec!["n=3"], false),
        (bench("leader.labs"), vec!["n=3"], true),
        (ex("philosophers.labs"), vec!["n=2", "asym=0"], false),
        (ex("leader.labs"), vec!["n=2"], true),
    ] {
        let (m, b) = load(&path, &externs);
        let analysis = analyse(&m, &b);
        let (lnt, script) = svl::emit_program(&m, &b, &analysis, "x", fair, Dialect::V2025).unwrap();
        let prog = labs::lntcheck::load(&lnt, None).unwrap();
        let sc = svl::parse(&script).unwrap();
        let mut c = Composer::new(&prog, Some(1_000_000));
        for blk in &sc.blocks {
            for ops in [false, true] {
                let a = c.compose(&blk.beh, ops).unwrap();
                let n = c.compose_nested(&blk.beh, ops).unwrap();
                let what = format!("{path} {externs:?} fair={fair} {:?} ops={ops}", blk.properties);
                assert_eq!((a.nstates, a.trans.len()), (n.nstates, n.trans.len()), "{what}");
                assert!(Lts::bisimilar(&a, &n), "{what}");
            }
        }
    }
}

/// `labs lts --property` (whole block and one leaf with the property's hiding) and `--svl`.
#[test]
fn cli_lts_property() {
    let run = |args: &[&str]| fixtures::labs_command().args(args).output().unwrap();
    let dir = std::env::temp_dir().join(format!("labs-svl-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spec = ex("flocking.labs");
    let leader = bench("leader.labs");
    let out = dir.join("p.aut");
    let o = run(&["lts", &leader, "n=3", "--property", "LeaderIs0", "-o", out.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    // Timestamps (0), generated with `split` 1 as the compositional leaves are: 13 rank
    // vectors, each with 3 REFRESH (one per writer) and 6 REQ pairs (receiver, sender) × 2
    // (whether the receiver is linked): 13 × 15 transitions.
    assert!(err.contains("leaf Timestamps [REFRESH, REQ, PUT_0, QRY_0] (0, 1): 13 states, 195 transitions"), "{err}");
    assert!(err.ends_with("333 states, 416 transitions\n"), "{err}");
    let aut = std::fs::read_to_string(&out).unwrap();
    assert!(aut.starts_with("des (0, 416, 333)\n"));
    // only DONE and L_LEADER stay visible
    for l in aut.lines().skip(1) {
        let lab = l.split(", ").nth(1).unwrap();
        assert!(lab == "i" || lab == "\"DONE\"" || lab.starts_with("\"L_LEADER !"), "{l}");
    }
    // --reduce: the same block minimised (leaves, then the whole), written and measured; the
    // result is the unreduced LTS minimised (`check_script` checks it; here its size, and
    // that it is smaller).
    let reduced = dir.join("r.aut");
    let o = run(&["lts", &leader, "n=3", "--property", "LeaderIs0", "--reduce", "-o", reduced.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("(divsharp reduction: "), "{err}");
    let last = err.lines().last().unwrap();
    let n: usize = last.split(' ').next().unwrap().parse().unwrap();
    assert!(n < 333, "{err}");
    assert!(std::fs::read_to_string(&reduced).unwrap().starts_with("des (0, "));
    // a leaf with the property's hiding: A_X hidden in Agent_Bird 0 for Aligned (reads L_H)
    let ext = ["birds=2", "delta=1", "grid=3"];
    let o = run(&[
        &["lts", spec.as_str()][..],
        &ext,
        &["--property", "Aligned", "--leaf", "0", "-o", out.to_str().unwrap()],
    ]
    .concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let aut = std::fs::read_to_string(&out).unwrap();
    assert!(aut.contains("\"L_H !0"), "L_H read by Aligned stays visible");
    assert!(!aut.contains("\"A_X"), "A_X is hidden in the leaf for Aligned");
    let o = run(&[&["lts", spec.as_str()][..], &ext, &["--leaf", "0", "-o", out.to_str().unwrap()]].concat());
    assert!(o.status.success());
    assert!(std::fs::read_to_string(&out).unwrap().contains("\"A_X !0"), "without --property, every gate");
    // --svl with the script's DEFAULT_PROCESS_FILE
    let em = dir.join("em");
    assert!(run(&["emit", &leader, "n=3", "-o", em.to_str().unwrap()]).status.success());
    let o = run(&[
        "lts",
        &leader,
        "--svl",
        em.join("leader.svl").to_str().unwrap(),
        "--property",
        "LeaderNot0",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // the same block as LeaderIs0's: both read `leader` alone
    assert!(String::from_utf8_lossy(&o.stderr).ends_with("333 states, 416 transitions\n"));
    let o = run(&["lts", &leader, "n=3", "--property", "Nope", "-o", out.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no property `Nope`"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A script that is not SVL gets a message located at the offending token (line:column,
/// counted by hand below) and quoting its text as written, never an internal form.
#[test]
fn syntax_errors_quote_the_script_text() {
    for (src, at, quoted) in [
        ("the quick brown fox", "1:1: ", "found `the`"),
        ("\"x.bcg\" = 42;", "1:11: ", "found `42`"),
        ("\"x.bcg\" = \"y.lnt\";", "1:11: ", "found \"y.lnt\""),
        ("% DEFAULT_PROCESS_FILE=\"a.lnt\"\n\"x.bcg\" = ;", "2:11: ", "found `;`"),
        ("\"x.bcg\" = generation of", "1:24: ", "found the end of the script"),
    ] {
        let e = svl::parse(src).expect_err(src).in_text(src).to_string();
        assert!(e.starts_with(at), "{src}: {e}");
        assert!(e.contains(quoted), "{src}: {e}");
        for internal in ["Id(", "Num(", "Str(", "Sym(", "Directive("] {
            assert!(!e.contains(internal), "{src}: {e}");
        }
    }
}

/// The LTS as numbered: (initial, states, transitions with their label texts), for comparing
/// two generations state for state.
fn numbered(l: &Lts) -> (u32, usize, Vec<(u32, String, u32)>) {
    (l.initial, l.nstates, l.trans.iter().map(|&(s, a, t)| (s, l.labels[a as usize].clone(), t)).collect())
}

/// Generating `MAIN`, a leaf, or a block's composition on several threads numbers the states
/// exactly as one thread does (the chunks of states are expanded in parallel, then numbered in
/// order), also when the state bound stops the generation at the same state.
#[test]
fn several_threads_generate_and_compose_the_one_thread_lts() {
    for (path, externs) in [(bench("twophase.labs"), &["workers=2"][..]), (ex("majority.labs"), &["yes=2", "no=3"][..])]
    {
        let (m, b) = load(&path, externs);
        let analysis = analyse(&m, &b);
        let (lnt, script) = svl::emit_program(&m, &b, &analysis, "spec", false, Dialect::V2025).unwrap();
        let prog = labs::lntcheck::load(&lnt, None).unwrap();
        let net = labs::lntcheck::interp::build_net(&prog, "MAIN").unwrap();
        let generated = |threads: usize, max_states: Option<u64>| {
            let opts = labs::lntcheck::interp::GenOptions { max_states, threads, ..Default::default() };
            labs::lntcheck::interp::generate(&prog, &net, &opts).map(|(l, _)| numbered(&l)).map_err(|e| e.message)
        };
        let one = generated(1, None).unwrap();
        assert!(one.1 > 2_000, "{path}: {} states, too few for chunks on several threads", one.1);
        for threads in [2, 3] {
            assert!(generated(threads, None) == Ok(one.clone()), "{path}: MAIN on {threads} threads");
            let bound = Some(one.1 as u64 / 2);
            assert_eq!(generated(threads, bound), generated(1, bound), "{path}: bounded on {threads} threads");
        }
        let sc = svl::parse(&script).unwrap();
        for block in &sc.blocks {
            let compose = |threads: usize| {
                let mut c = Composer::new(&prog, None);
                c.threads = threads;
                numbered(&c.compose(&block.beh, true).unwrap())
            };
            let one = compose(1);
            assert!(one.1 > 1_000, "{path}: the block composes only {} states", one.1);
            for threads in [2, 3] {
                assert!(
                    compose(threads) == one,
                    "{path}: {} composed on {threads} threads",
                    block.properties.join(", ")
                );
            }
        }
    }
}

/// A receiver's leaf offers each message once per sender and values, never once per set of
/// the other receivers' comparisons or links (docs/lnt-encoding.md §3, Propagation: the
/// compositional leaves take `split` 1, the message's masks 0). flock birds=3 grid=4 delta=1:
/// senders 0 to 2, `dirx`, `diry` in {-1, 1}, the link fields `x`, `y` in 0..3 (moves modulo
/// 4): 3 × 2 × 2 × 4 × 4 = 192 labels per message gate. With the masks of `MAIN` in the
/// leaves, every reception was offered once per value of the other receivers' bits.
#[test]
fn an_agent_leaf_offers_each_message_once_per_sender_and_values() {
    let flock = bench("flock.labs");
    let out = std::env::temp_dir().join(format!("labs-svl-leaf-{}.aut", std::process::id()));
    let o = fixtures::labs_command()
        .args(["lts", &flock as &str, "birds=3", "grid=4", "delta=1", "--property", "Consensus", "--leaf", "1", "-q"])
        .args(["-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let aut = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    for (gate, masks) in [("PUT_0", &[2usize, 7][..]), ("QRY_0", &[2, 3, 8][..])] {
        let labels: BTreeSet<&str> =
            aut.lines().filter_map(|l| l.split('"').nth(1)).filter(|l| l.starts_with(&format!("{gate} "))).collect();
        assert_eq!(labels.len(), 192, "{gate}: {labels:?}");
        for l in &labels {
            let args: Vec<&str> = l.split(' ').collect();
            assert!(masks.iter().all(|&i| args.get(i) == Some(&"!0")), "{l}: a mask offered in a leaf");
        }
    }
}
