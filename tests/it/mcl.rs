//! The MCL evaluator (`labs::mcl`) on hand-made LTSs whose verdicts are derived by hand.

use labs::limits::Limits;
use labs::mcl::{self, Lts};

fn lts(text: &str) -> Lts {
    mcl::read_aut(text).unwrap()
}

fn holds(query: &str, l: &Lts) -> bool {
    let q = mcl::parse(query).unwrap_or_else(|e| panic!("{query}: {e:?}"));
    // A bound, so that a wrong (infinite) equation system fails instead of hanging.
    let limits = Limits::new(None, Some(100_000), None, None);
    mcl::evaluate(&q, l.view(&l.adjacency()), &limits).unwrap().holds
}

/// 0 -A-> 1 -B-> 2 -A-> 0, and 1 -C-> 3 (3 is a deadlock).
const RING: &str = "des (0, 4, 4)\n(0, A, 1)\n(1, B, 2)\n(2, A, 0)\n(1, C, 3)\n";

#[test]
fn modalities_and_regular_formulas() {
    let l = lts(RING);
    assert!(holds("<\"A\"> true", &l));
    assert!(!holds("<\"B\"> true", &l));
    assert!(holds("[\"B\"] false", &l));
    assert!(holds("<\"A\" . \"B\"> true", &l));
    assert!(holds("<\"A\" . (\"B\" | \"C\")> [true] false", &l)); // C leads to the deadlock
    assert!(!holds("[true*] <true> true", &l)); // deadlock reachable (state 3)
    assert!(holds("<true*> [true] false", &l));
    assert!(holds("[true* . \"C\"] [true] false", &l));
    assert!(!holds("[true* . \"C\"] false", &l));
    assert!(holds("<(\"A\" . \"B\")+ . \"A\"> true", &l));
    assert!(holds("<\"A\" {1} . \"C\"> true", &l));
    assert!(holds("not <not (\"A\" or \"C\")> true", &l)); // only A leaves 0
}

#[test]
fn fixpoints_liveness_and_parameters() {
    let l = lts(RING);
    // Every path reaches C? No: A B A B ... avoids it.
    assert!(!holds("mu X . (<true> true and [not \"C\"] X)", &l));
    // Some path reaches the deadlock.
    assert!(holds("mu X . ([true] false or <true> X)", &l));
    // An infinite A/B path exists.
    assert!(holds("nu X . <\"A\" or \"B\"> X", &l));
    // Counting A's along the cycle: after two A steps from 0 we are in 0 again (A B A).
    assert!(holds("mu X (n: Nat := 0) . ((n = 2) or <\"A\"> X (n + 1) or <\"B\"> X (n))", &l));
    // With the count bounded (so that the equation system is finite): three A's never
    // lead to the deadlock, but one A then C does.
    assert!(!holds(
        "mu X (n: Nat := 0) . ((n < 3) and (((n = 3) and [true] false) or <\"A\"> X (n + 1) or <\"B\"> X (n)))",
        &l
    ));
    assert!(holds(
        "mu X (n: Nat := 0) . ((n < 3) and ([true] false or <\"A\"> X (n + 1) or <\"B\" or \"C\"> X (n)))",
        &l
    ));
}

#[test]
fn patterns_bind_offers() {
    // 0 -G !1 !-2-> 1 -G !2 !5-> 2 -H !TRUE-> 0
    let l = lts("des (0, 3, 3)\n(0, \"G !1 !-2\", 1)\n(1, \"G !2 !5\", 2)\n(2, \"H !TRUE\", 0)\n");
    assert!(holds("<{G !1 ?x:Int where x < 0}> true", &l));
    assert!(!holds("<{G !1 ?x:Nat}> true", &l)); // -2 is not a Nat
    assert!(holds("<{G ...}> true", &l));
    assert!(!holds("<{G !1}> true", &l)); // two offers, one given
    assert!(holds("<{G ?any ?y:Int}> <{G !(y + 4) ...}> true", &l));
    assert!(!holds("[true*] [{H !true}] false", &l));
    assert!(holds("nu Inv (s: Int := 0) . ((s >= 0 - 2) and [{G ?any ?w:Int}] Inv (w) and [not {G ...}] Inv (s))", &l));
    assert!(!holds("nu Inv (s: Int := 0) . ((s >= 0) and [{G ?any ?w:Int}] Inv (w) and [not {G ...}] Inv (s))", &l));
}

use crate::fixtures;
use fixtures::labs_command as labs;

use std::process::Command;

/// Every semantics case: each emitted query, evaluated by `labs mcl` on the LTS of the LNT
/// interpreter (`labs lts`), gives the verdict derived by hand in the case's header.
#[test]
fn emitted_queries_agree_with_the_hand_derived_verdicts() {
    let dir = std::env::temp_dir().join(format!("labs-mcl-cases-{}", std::process::id()));
    let mut checked = 0;
    let mut no_lts = Vec::new();
    for entry in std::fs::read_dir(fixtures::cases()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "labs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for header in text.lines().filter_map(|l| l.strip_prefix("# case:")) {
            let (args, expect) = header.split_once("=>").unwrap();
            if expect.contains("exit=") {
                continue;
            }
            let args: Vec<&str> = args.split_whitespace().collect();
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            let out = labs().arg("emit").arg(&path).args(&args).arg("-o").arg(&dir).output().unwrap();
            assert!(out.status.success(), "emit {}: {}", path.display(), String::from_utf8_lossy(&out.stderr));
            let aut = dir.join("lts.aut");
            let out = labs().arg("lts").arg(&path).args(&args).arg("-o").arg(&aut).output().unwrap();
            if !out.status.success() {
                // The LNT interpreter cannot run this program (e.g. an unbounded `any Int`):
                // nothing to evaluate on; counted below.
                no_lts.push(path.display().to_string());
                continue;
            }
            for item in expect.split_whitespace() {
                let Some((prop, verdict)) = item.split_once('=') else { continue };
                if prop.contains('.') || !matches!(verdict, "holds" | "violated") {
                    continue;
                }
                let query = std::fs::read_dir(&dir)
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .find(|p| {
                        // A property whose name is reserved gets its index appended.
                        let name = p.file_name().unwrap().to_string_lossy().into_owned();
                        let stem = name.strip_suffix(".mcl").unwrap_or("");
                        stem.ends_with(&format!("_{prop}"))
                            || stem.rsplit_once('_').is_some_and(|(head, n)| {
                                n.chars().all(|c| c.is_ascii_digit()) && head.ends_with(&format!("_{prop}"))
                            })
                    })
                    .unwrap_or_else(|| panic!("{}: no query for {prop}", path.display()));
                // A linear-time or scoped property's query reads its monitor's labels: it is
                // evaluated on the LTS of its root process, `MAIN` with the monitor (the route
                // the README documents).
                let mut on = aut.clone();
                if std::fs::read_to_string(&query).unwrap().contains("\"ACC\"") {
                    // the property's identifier in the script: the query's name after `BASE_`
                    let lnt = std::fs::read_dir(&dir)
                        .unwrap()
                        .map(|e| e.unwrap().path())
                        .find(|p| p.extension().is_some_and(|e| e == "lnt"))
                        .unwrap();
                    let base = lnt.file_stem().unwrap().to_string_lossy().into_owned();
                    let stem = query.file_stem().unwrap().to_string_lossy().into_owned();
                    let id = stem.strip_prefix(&format!("{base}_")).unwrap().to_string();
                    on = dir.join(format!("lts_{id}.aut"));
                    let out = labs()
                        .arg("lts")
                        .arg(&path)
                        .args(&args)
                        .args(["--root", &format!("Root_{id}"), "-o"])
                        .arg(&on)
                        .output()
                        .unwrap();
                    assert!(out.status.success(), "lts --root Root_{id}: {}", String::from_utf8_lossy(&out.stderr));
                }
                let out = labs().arg("mcl").arg(&query).arg(&on).output().unwrap();
                // On the LTS it was written for, every gate the query names occurs, but for the
                // monitor's steps of a property that holds (no accepting step, no deadlock
                // where the automaton accepts).
                let err = String::from_utf8_lossy(&out.stderr);
                for w in err.lines().filter(|l| l.starts_with("warning:")) {
                    assert!(
                        verdict == "holds" && (w.contains("gate `ACC`") || w.contains("gate `STUCK`")),
                        "{} {prop} ({verdict}): {err}",
                        path.display()
                    );
                }
                let want = if verdict == "holds" { 0 } else { 10 };
                assert_eq!(
                    out.status.code(),
                    Some(want),
                    "{} {args:?} {prop}: {}{}",
                    path.display(),
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
                checked += 1;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(checked > 50 && no_lts.len() <= 4, "only {checked} verdicts checked; no LTS for {no_lts:?}");
}

/// Queries that do not lex, parse or type: exit 6, the error located at the offending token
/// (`file:line:col`), whatever the LTS.
#[test]
fn bad_queries_are_located_errors() {
    let dir = std::env::temp_dir().join(format!("labs-mcl-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let aut = dir.join("l.aut");
    std::fs::write(&aut, RING).unwrap();
    // (query, line:col of the error, a word of the message), each derived from the typing
    // rules of docs/mcl.md.
    let cases = [
        // Nat and Int are never mixed: the Int operand of a Nat addition.
        ("nu X (n: Nat := 0, i: Int := 0) .\n  ((n + i) = 0)", "2:9", "Int"),
        // An unbound data variable.
        ("<{G ?x:Nat}> (y = 1)", "1:15", "y"),
        // A call with the wrong number of arguments.
        ("mu X (n: Nat := 0) . <true> X (n, n)", "1:29", "argument"),
        // A fixed point variable under an odd number of negations.
        ("mu X . not <true> X", "1:19", "negation"),
        // Alternation, reported at the outer fixed point's name.
        ("mu X . nu Y . (<\"A\"> X and [\"B\"] Y)", "1:4", "alternat"),
        // A construct refused by name.
        ("exists x: Nat . true", "1:1", "exists"),
        // A parse error.
        ("<\"A\" true", "1:6", ">"),
    ];
    for (i, (query, at, word)) in cases.iter().enumerate() {
        let q = dir.join(format!("q{i}.mcl"));
        std::fs::write(&q, query).unwrap();
        let out = labs().arg("mcl").arg(&q).arg(&aut).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(6), "{query}: {err}");
        assert!(err.contains(&format!("q{i}.mcl:{at}")), "{query}: expected the error at {at}:\n{err}");
        assert!(err.to_lowercase().contains(&word.to_lowercase()), "{query}: `{word}` not in:\n{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `labs mcl --diag`: the counterexample of a violated emitted query, on the LTS `labs lts`
/// writes, is a path that `labs translate-trace` turns into a LAbS trace violating the
/// property (the native engine finds NeverAgreed of examples/leader.labs n=3 violated).
#[test]
fn a_diagnostic_translates_to_a_violating_trace() {
    let dir = std::env::temp_dir().join(format!("labs-mcl-diag-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let spec = std::path::PathBuf::from(format!("{}/leader.labs", fixtures::EXAMPLES));
    let ok = |c: &mut Command| {
        let o = c.output().unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let aut = dir.join("leader.aut");
    let (code, _, err) = ok(labs().arg("lts").arg(&spec).arg("n=3").arg("-o").arg(&aut));
    assert_eq!(code, Some(0), "{err}");
    let (code, _, err) = ok(labs().arg("emit").arg(&spec).arg("n=3").arg("-o").arg(&dir));
    assert_eq!(code, Some(0), "{err}");
    let diag = dir.join("diag.aut");
    let (code, out, err) =
        ok(labs().arg("mcl").arg(dir.join("leader_NeverAgreed.mcl")).arg(&aut).arg("--diag").arg(&diag));
    assert_eq!((code, out.trim()), (Some(10), "FALSE"), "{err}");
    let (code, out, err) =
        ok(labs().arg("translate-trace").arg(&spec).arg("n=3").arg(&diag).arg("--property").arg("NeverAgreed"));
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("the trace violates NeverAgreed"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The route the README documents, for a linear-time property and a scoped one, both violated
/// (their verdicts derived by hand in the cases' headers): on the LTS of `MAIN` the query's
/// monitor steps `ACC` and `STUCK` never occur, so it cannot see the violation: `labs mcl`
/// warns, naming both where the query writes them (and `--json` lists them in `unmatched`);
/// on the LTS of `Root_P` (`labs lts --root`) it finds the violation without a warning.
#[test]
fn a_query_naming_gates_the_lts_lacks_is_warned_about() {
    let dir = std::env::temp_dir().join(format!("labs-mcl-unmatched-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let run = |c: &mut Command| {
        let o = c.output().unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    for (case, prop) in [("ltl_cycle", "StabThree"), ("scoped_lnt", "ClosedMissing")] {
        let spec = fixtures::cases().join(format!("{case}.labs"));
        let header = std::fs::read_to_string(&spec).unwrap();
        assert!(header.contains(&format!(" {prop}=violated")), "{case}: {prop} is violated by hand");
        let (code, _, err) = run(labs().arg("emit").arg(&spec).arg("-o").arg(&dir).arg("--force"));
        assert_eq!(code, Some(0), "{err}");
        let query = dir.join(format!("{case}_{prop}.mcl"));
        let qtext = std::fs::read_to_string(&query).unwrap();
        let main = dir.join(format!("{case}.aut"));
        let (code, _, err) = run(labs().arg("lts").arg(&spec).arg("-o").arg(&main));
        assert_eq!(code, Some(0), "{err}");
        let (code, out, err) = run(labs().arg("mcl").arg(&query).arg(&main));
        // Without the monitor nothing is accepted: TRUE, but said to be about another LTS.
        assert_eq!((code, out.trim()), (Some(0), "TRUE"), "{err}");
        for gate in ["ACC", "STUCK"] {
            let at = qtext.lines().position(|l| l.contains(&format!("\"{gate}\""))).unwrap() + 1;
            assert!(
                err.contains(&format!("warning: no label of the LTS has gate `{gate}`"))
                    && err.contains(&format!("{}:{at}:", query.display())),
                "{case} {prop}: no warning about {gate} at line {at}:\n{err}"
            );
        }
        assert!(err.contains("--root Root_P"), "{err}");
        let (code, out, _) = run(labs().arg("mcl").arg(&query).arg(&main).arg("--json"));
        assert_eq!(code, Some(0));
        let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
        let gates: Vec<&str> =
            doc["unmatched"].as_array().unwrap().iter().map(|u| u["gate"].as_str().unwrap()).collect();
        assert_eq!(gates, ["ACC", "STUCK"], "{out}");
        // The root the README names: the violation, and nothing to warn about.
        let root = dir.join(format!("{case}_{prop}.aut"));
        let (code, _, err) =
            run(labs().arg("lts").arg(&spec).args(["--root", &format!("Root_{prop}"), "-o"]).arg(&root));
        assert_eq!(code, Some(0), "{err}");
        let (code, out, err) = run(labs().arg("mcl").arg(&query).arg(&root).arg("--json"));
        assert_eq!(code, Some(10), "{case} {prop}: {out}{err}");
        assert!(!err.contains("warning"), "{err}");
        let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!((doc["verdict"].as_str(), doc["unmatched"].as_array().map(Vec::len)), (Some("FALSE"), Some(0)));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
