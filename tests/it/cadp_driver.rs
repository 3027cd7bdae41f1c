//! `labs verify --backend cadp` against a stand-in CADP installation: `svl` and `bcg_io`
//! scripts that write a log in svl's format (docs/cadp-driver.md, "svl and its log"). The
//! results and diagnostics they print come from labs's LNT interpreter run on the same spec
//! (`lntcheck`), not from the driver, so these tests check that the driver runs the right
//! script, reads every verdict, turns every diagnostic into a LAbS trace that replays and
//! shows the violation, and reports CADP's failures with the documented exit codes; and that
//! `--jobs` and `--hosts` run the split script's jobs concurrently, each in its own directory,
//! with the sequential verdicts (the stand-in logs when each job starts and ends, and where).

use crate::fixtures;

use crate::engine_common;
use crate::lnt_paths;
use crate::scratch;
use crate::tier;

use engine_common::*;
use labs::analysis::values::analyse;
use labs::engine::Verdict;
use labs::lnt::{Dialect, mcl, names::obs_gate};
use labs::lntcheck::backend::{check_properties, emit_lnt, explore};
use lnt_paths::{aut_text, executor_text, lts_labels};
use scratch::Scratch;
use serde_json::Value;
use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use fixtures::{CASES, EXAMPLES};

/// What the stand-ins share: the release they stand for (`$CADP/plan/release`, as the stand-in
/// `cadp_lib -1` prints it, else the first release named in `$CADP/VERSION`, else 2024-d, the
/// forms labs writes without an installation) and the forms of that release, which they
/// require of the files and command lines they are given and refuse otherwise (CADP HISTORY:
/// `alt` from 2024-d, #2982; `lnt.open -main` from 2025-d, #3115; `...` from 2025-e, #3133;
/// `x?` from 2025-f, #3148; SVL's `|=` from 2025-l, #3256; `evaluator` from 2026-a, #3269,
/// #3270).
const FORMS_SH: &str = r#"
release=$(cat "$CADP/plan/release" 2>/dev/null)
[ -n "$release" ] || release=$(grep -o -m1 '20[0-9][0-9]-[a-z]' "$CADP/VERSION" 2>/dev/null | head -n1)
[ -n "$release" ] || release=2024-d
# from RELEASE: whether the release stood for is RELEASE or a later one
from() { [ "$(printf '%s\n%s\n' "$1" "$release" | sort | head -n1)" = "$1" ]; }
refuse() { echo "stand-in for CADP $release: $*"; exit 2; }
if from 2026-a; then evaluator=evaluator; else evaluator=evaluator4; fi
if from 2025-d; then main=-main; else main=-root; fi
# the LNT forms of the release, in program FILE
check_lnt() {
  if from 2024-d; then grep -q -w select "$1" && refuse "select in $1"; else grep -q -w alt "$1" && refuse "alt in $1"; fi
  if from 2025-e; then grep -q '\[0 \.\. ' "$1" && refuse ".. in $1"; else grep -q '\[0 \.\.\. ' "$1" && refuse "... in $1"; fi
  if from 2025-f; then grep -q '!?' "$1" && refuse "!?x in $1"; else grep -q '[A-Za-z0-9]?[,)]' "$1" && refuse "x? in $1"; fi
  return 0
}
"#;

const FAKE_SVL: &str = r#"#!/bin/sh
# Stands in for CADP's svl: for each property block of the script, writes svl's log lines with
# the result planned in $CADP/plan/NAME (default TRUE), and copies $CADP/plan/NAME.bcg to the
# block's diagnostic file. Refuses a script or program not in the forms of its release.
script="$1"
case "$script" in *.svl) ;; *) script="$script.svl" ;; esac
log="${script%.svl}.log"
plan="$CADP/plan"
echo "$script" >> "$plan/ran"
printf '%s\n%s\n' "$CADP" "$PATH" > "$plan/env"
if [ -f "$plan/fail" ]; then cat "$plan/fail"; exit 1; fi
#FORMS
lnt=$(sed -n 's/^% DEFAULT_PROCESS_FILE="\(.*\)"$/\1/p' "$script")
[ -f "$lnt" ] && check_lnt "$lnt"
if from 2025-l; then
  form='^   "[^"]*[.]bcg" = "[^"]*[.]bcg" |= with '"$evaluator"' "[^"]*[.]mcl";$'
else
  form='^   "[^"]*[.]bcg" = verify "[^"]*[.]mcl" with '"$evaluator"' in "[^"]*[.]bcg";$'
fi
grep -E '^   "[^"]*" = ' "$script" | grep -v -E "$form" | grep -q . && refuse "not its verification statement: $(grep -E '^   "[^"]*" = ' "$script" | head -n1)"
echo "start $(pwd) $(date +%s.%N)" >> "$plan/times"
if [ -f "$plan/sleep" ]; then sleep "$(cat "$plan/sleep")"; fi
: > "$log"
# A job of a split script: the LTS files its statements define (the real svl writes BCG).
grep -E '^"[^"]*[.]bcg" = ' "$script" | sed 's/^"\([^"]*\)".*/\1/' | while read -r f; do : > "$f"; done
name=""
grep -E '^(property |   "[^"]*" = )' "$script" | while read -r first rest; do
  if [ "$first" = property ]; then
    name="$rest"
    printf 'info about "%s.bcg":\n    (* 10 states, 20 transitions, 1.0 Kbytes *)\n' "$name" >> "$log"
    printf 'property %s\n | description\n' "$name" >> "$log"
    continue
  fi
  diag=$(printf '%s' "$first" | tr -d '"')
  printf '"%s" = ...\n' "$diag" >> "$log"
  if [ -f "$plan/$name.bcg" ]; then cp "$plan/$name.bcg" "$diag"; fi
  if [ -f "$plan/$name" ]; then cat "$plan/$name" >> "$log"; else printf '\nTRUE\nPASS\n' >> "$log"; fi
done
cat "$log"
echo "end $(pwd) $(date +%s.%N)" >> "$plan/times"
"#;

const FAKE_LNT_OPEN: &str = r#"#!/bin/sh
# Stands in for `lnt.open M.lnt executor DEPTH 3 SEED`: prints $CADP/plan/executor-SEED.
echo "lnt.open $*" >> "$CADP/plan/ran"
#FORMS
# `lnt.open M.lnt distributor CONF.gcf RESULT.pbg` (the distributor manual page): a PBG file
# naming the GCF file, which must be there.
if [ "$2" = distributor ]; then
  [ -f "$3" ] && [ "$#" = 4 ] || { echo "distributor: unexpected arguments $*"; exit 2; }
  printf 'pbg of %s from %s\n' "$1" "$3" > "$4"; exit 0
fi
# `lnt.open [-main PROCESS] M.lnt evaluator4 -diag DIAG.bcg QUERY.mcl` (the on-the-fly
# workflow; `-root` before 2025-d, `evaluator` from 2026-a): answered by labs's own LNT
# interpreter and MCL evaluator ($CADP/plan/labs) on the LTS of the process generated from
# M.lnt (MAIN, or a linear-time property's Root_P: MAIN with its monitor), for the spec and
# options of $CADP/plan/spec; the diagnostic is written as .aut text.
root=MAIN
case "$1" in
  -main|-root)
    [ "$1" = "$main" ] || refuse "$1 instead of $main"
    [ "$4" = "$evaluator" ] || refuse "$1 without $evaluator: $*"
    root="$2"; shift 2 ;;
esac
# A check planned to take long: $CADP/plan/sleep-QUERY.mcl holds the seconds.
if [ "$2" = "$evaluator" ] && [ -f "$CADP/plan/sleep-$5" ]; then sleep "$(cat "$CADP/plan/sleep-$5")"; fi
case "$2" in evaluator|evaluator4|evaluator5)
  [ "$2" = "$evaluator" ] || refuse "$2 instead of $evaluator"
  [ "$3" = -diag ] && [ "$#" = 5 ] && [ -f "$1" ] && [ -f "$5" ] || { echo "$2: unexpected arguments $*"; exit 2; }
  check_lnt "$1"
  labs=$(cat "$CADP/plan/labs")
  [ -f "standin-$root.aut" ] || "$labs" lts $(cat "$CADP/plan/spec") --lnt "$1" --root "$root" -o "standin-$root.aut" 2>/dev/null || exit 2
  "$labs" mcl "$5" "standin-$root.aut" --diag "$4"
  exit 0 ;;
esac
[ "$2" = executor ] && [ "$4" = 3 ] || { echo "lnt.open: unexpected arguments $*"; exit 2; }
[ -f "$1" ] || { echo "lnt.open: no file $1"; exit 2; }
check_lnt "$1"
echo "lnt.open: running \`\`executor $3 3 $5'' for \`\`$1''"
cat "$CADP/plan/executor-$5"
"#;

/// Stands in for `bcg_merge INPUT.pbg OUTPUT.bcg` (the bcg_merge manual page).
const FAKE_BCG_MERGE: &str = "#!/bin/sh\necho \"bcg_merge $*\" >> \"$CADP/plan/ran\"\n\
[ -f \"$1\" ] && [ \"$#\" = 2 ] || { echo \"bcg_merge: unexpected arguments $*\"; exit 2; }\n\
printf 'merged %s\\n' \"$1\" > \"$2\"\n";

const FAKE_BCG_IO: &str = "#!/bin/sh\n# The stand-in's diagnostics are already .aut text.\ncp \"$1\" \"$2\"\n";

/// A stand-in CADP installation (`$CADP`) and a scratch `$CADP_TMP`.
struct FakeCadp {
    root: Scratch,
    tmp: Scratch,
}

impl FakeCadp {
    fn new() -> FakeCadp {
        let root = Scratch::path("fake-cadp", "cadp");
        let arch = "#!/bin/sh\necho x64\n";
        for (name, text) in [
            ("svl", FAKE_SVL),
            ("bcg_io", FAKE_BCG_IO),
            ("lnt.open", FAKE_LNT_OPEN),
            ("bcg_merge", FAKE_BCG_MERGE),
            ("arch", arch),
        ] {
            let p = root.join("com").join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, text.replace("#FORMS\n", FORMS_SH)).unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::fs::create_dir_all(root.join("plan")).unwrap();
        let tmp = Scratch::path("fake-cadp-tmp", "tmp");
        std::fs::create_dir_all(&*tmp).unwrap();
        FakeCadp { root, tmp }
    }

    fn plan(&self, name: &str, text: &str) {
        std::fs::write(self.root.join("plan").join(name), text).unwrap();
    }

    fn scripts_run(&self) -> Vec<String> {
        std::fs::read_to_string(self.root.join("plan/ran")).unwrap_or_default().lines().map(String::from).collect()
    }

    fn labs(&self, args: &[&str]) -> Output {
        fixtures::labs_command()
            .args(args)
            .env("CADP", &*self.root)
            .env("CADP_TMP", &*self.tmp)
            .output()
            .expect("run labs")
    }

    /// What is left in `$CADP_TMP`.
    fn leftovers(&self) -> Vec<PathBuf> {
        std::fs::read_dir(&*self.tmp).unwrap().map(|e| e.unwrap().path()).collect()
    }
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", String::from_utf8_lossy(&o.stdout), stderr(o)))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn verdicts(doc: &Value) -> Vec<(String, String)> {
    doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["property"].as_str().unwrap().to_string(), r["verdict"].as_str().unwrap().to_string()))
        .collect()
}

/// Plans the stand-in's answers from the LNT interpreter: for every property, its verdict on
/// the LNT program, and for a violation the diagnostic Evaluator would give: printed inline
/// for a path, a BCG file (here `.aut` text) for a lasso. Returns the lassos' names.
fn plan_from_lnt(cadp: &FakeCadp, spec: &str, externs: &[&str], fair: bool) -> BTreeSet<String> {
    let (m, b) = load(spec, externs);
    let analysis = analyse(&m, &b);
    let src = emit_lnt(&m, &b, &analysis, "spec", fair, Dialect::FALLBACK).unwrap();
    let view = explore(&m, &src, fair, Some(2_000_000)).unwrap();
    let mut lassos = BTreeSet::new();
    for r in check_properties(&m, &b, fair, &view).unwrap() {
        if r.verdict != Verdict::Violated {
            cadp.plan(&r.property, "\nTRUE\nPASS (1/1)\n");
            continue;
        }
        let prop = m.properties.iter().find(|p| p.name == r.property).unwrap();
        let observed = mcl::build(&m, &analysis, prop).unwrap().vars;
        let keep: BTreeSet<String> = observed.iter().map(|&v| obs_gate(&m, v)).collect();
        let path = r.path.as_ref().unwrap();
        let labels = lts_labels(&view, path, &keep);
        match r.loop_start {
            Some(k) => {
                let aut = aut_text(&labels, Some(view.real[path[k] as usize]));
                std::fs::write(cadp.root.join("plan").join(format!("{}.bcg", r.property)), aut).unwrap();
                cadp.plan(&r.property, "\nFALSE\n(consult diagnostic in file ``svl000_output.bcg'')\nFAIL (1/1)\n");
                lassos.insert(r.property.clone());
            }
            None => {
                let seq = executor_text(&labels, r.deadlock);
                let seq = seq.split_once('\n').unwrap().1;
                cadp.plan(
                    &r.property,
                    &format!("\nFALSE\n*** diagnostic sequence found at depth {}\n\n{seq}FAIL (1/1)\n", labels.len()),
                );
            }
        }
    }
    lassos
}

fn native(args: &[&str]) -> Output {
    fixtures::labs_command().args(args).arg("--json").output().unwrap()
}

#[test]
fn verdicts_and_counterexamples_come_from_the_log() {
    let cases: &[(String, &[&str], bool)] = &[
        (format!("{BENCH}/leader.labs"), &["n=3"], false),
        (format!("{BENCH}/leader.labs"), &["n=3"], true),
        (format!("{EXAMPLES}/counter.labs"), &["n=2", "atomic=0"], false),
        (format!("{EXAMPLES}/philosophers.labs"), &["n=3", "asym=0"], false),
        (format!("{BENCH}/formation.labs"), &["n=2", "range=2", "size=3"], true),
        // linear-time formulas and scoped patterns: their blocks compose the monitor
        (format!("{CASES}/ltl_cycle.labs"), &[], false),
        (format!("{CASES}/scoped_lnt.labs"), &[], true),
    ];
    let mut traces = 0;
    let mut lasso_traces = 0;
    for (spec, externs, fair) in cases {
        let cadp = FakeCadp::new();
        let lassos = plan_from_lnt(&cadp, spec, externs, *fair);
        let mut args = vec!["verify", spec.as_str()];
        args.extend(externs.iter());
        if *fair {
            args.push("--fair");
        }
        let expected = native(&args);
        args.extend(["--backend", "cadp", "--json"]);
        let o = cadp.labs(&args);
        let what = format!("{spec} {externs:?} fair={fair}");
        assert_eq!(o.status.code(), expected.status.code(), "{what}: {}", stderr(&o));
        let doc = json(&o);
        assert_eq!(verdicts(&doc), verdicts(&json(&expected)), "{what}");
        assert_eq!(doc["backend"], "cadp");
        // counter.labs's counter is unbounded by the value analysis: the monolithic default.
        let mono = spec.ends_with("counter.labs");
        assert_eq!(doc["cadp"]["workflow"], if mono { "monolithic" } else { "compositional" }, "{what}");
        assert_eq!(cadp.scripts_run().len(), 1, "{what}: one svl run");
        assert!(cadp.scripts_run()[0].ends_with(".svl"));
        assert_eq!(cadp.scripts_run()[0].ends_with("_mono.svl"), mono, "{what}");
        assert!(!doc["stats"]["lts"].as_array().unwrap().is_empty(), "{what}: the LTS sizes of the log");
        for r in doc["results"].as_array().unwrap().iter().filter(|r| r["verdict"] == "violated") {
            let t = &r["trace"];
            assert!(t.is_object(), "{what}: {} has no trace", r["property"]);
            let is_lasso = lassos.contains(r["property"].as_str().unwrap());
            assert_eq!(!t["loop_start"].is_null(), is_lasso, "{what}: {}", r["property"]);
            // Lassos came through bcg_io's .aut, paths inline from the log.
            let source = doc["cadp"]["diagnostics"][r["property"].as_str().unwrap()].as_str().unwrap();
            assert_eq!(source.ends_with("_diag.aut"), is_lasso, "{what}: {source}");
            traces += 1;
            lasso_traces += usize::from(is_lasso);
        }
        assert!(cadp.leftovers().is_empty(), "{what}: the working directory was not removed: {:?}", cadp.leftovers());
    }
    assert!(traces >= 5 && lasso_traces >= 1, "{traces} traces, {lasso_traces} lassos");
}

/// `--workflow on-the-fly`: one `lnt.open BASE.lnt evaluator4 -diag DIAG.bcg QUERY.mcl` run per
/// check, in script order (the run-time errors first), each verdict read from evaluator4's
/// answer and each diagnostic from its `-diag` file; a linear-time property or a scoped
/// pattern is checked on its root process (`lnt.open -root Root_P`, the system with the
/// property's monitor; the stand-in generates that process). The verdicts, exit codes and
/// run-time errors are the native engine's, and every counterexample replays.
#[test]
fn on_the_fly_runs_evaluator4_once_per_check() {
    // The first checks in order: (property id, checked with a monitor).
    type Checks<'a> = &'a [(&'a str, bool)];
    let ltl_deadlock: Checks = &[("Stab", true), ("Recur", true), ("RecurOne", true)];
    let cases: &[(String, &[&str], bool, Checks)] = &[
        (
            format!("{BENCH}/leader.labs"),
            &["n=3"],
            false,
            &[("LeaderIs0", false), ("LeaderIs100", false), ("LeaderNot0", false)],
        ),
        (format!("{EXAMPLES}/philosophers.labs"), &["n=3", "asym=0"], true, &[]),
        (format!("{CASES}/divzero.labs"), &[], false, &[]),
        (format!("{CASES}/ltl_deadlock.labs"), &[], false, ltl_deadlock),
        (format!("{CASES}/ltl_deadlock.labs"), &[], true, ltl_deadlock),
        (format!("{CASES}/ltl_cycle.labs"), &[], false, &[("RecurThree", true), ("StabThree", true)]),
        (
            format!("{CASES}/scoped_lnt.labs"),
            &[],
            false,
            &[("ClosedThere", true), ("ClosedMissing", true), ("ClosedAlways", true), ("ClosedAlwaysBad", true)],
        ),
        (format!("{CASES}/modalities.labs"), &[], false, &[]),
    ];
    let mut traces = 0;
    for (spec, externs, fair, checks) in cases {
        let (cadp, o, expected, what) = on_the_fly_run(spec, externs, *fair);
        assert_eq!(o.status.code(), expected.status.code(), "{what}: {}", stderr(&o));
        let stem = Path::new(spec).file_stem().unwrap().to_string_lossy().into_owned();
        let ran = cadp.scripts_run();
        assert!(!ran.is_empty() && ran.iter().all(|r| r.starts_with("lnt.open ")), "{what}: {ran:?}");
        assert!(ran.len() >= checks.len(), "{what}: {ran:?}");
        for (line, (id, monitored)) in ran.iter().zip(checks.iter()) {
            let root = if *monitored { format!("-root Root_{id} ") } else { String::new() };
            assert_eq!(
                *line,
                format!("lnt.open {root}{stem}.lnt evaluator4 -diag {stem}_otf_{id}_diag.bcg {stem}_{id}.mcl"),
                "{what}: the documented command line"
            );
        }
        if expected.status.code() == Some(1) {
            // A run-time error: the first check, RUNTIME_ERRORS, finds it, as natively.
            assert!(ran[0].ends_with("_RUNTIME_ERRORS.mcl"), "{what}: {ran:?}");
            assert!(stderr(&o).contains("division by zero"), "{what}: {}", stderr(&o));
            assert!(stderr(&expected).contains("division by zero"), "{what}: {}", stderr(&expected));
            continue;
        }
        let doc = json(&o);
        assert_eq!(verdicts(&doc), verdicts(&json(&expected)), "{what}");
        assert_eq!(doc["cadp"]["workflow"], "on-the-fly", "{what}");
        assert_eq!(ran.len(), verdicts(&doc).len(), "{what}: one evaluator4 run per property: {ran:?}");
        for r in doc["results"].as_array().unwrap().iter().filter(|r| r["verdict"] == "violated") {
            assert!(r["trace"].is_object(), "{what}: {} has no trace", r["property"]);
            let source = doc["cadp"]["diagnostics"][r["property"].as_str().unwrap()].as_str().unwrap();
            assert!(source.starts_with(&format!("{stem}_otf_")) && source.ends_with("_diag.aut"), "{what}: {source}");
            traces += 1;
        }
        assert!(cadp.leftovers().is_empty(), "{what}: the working directory was not removed: {:?}", cadp.leftovers());
    }
    assert!(traces >= 10, "{traces} counterexamples");
}

#[test]
fn human_output_names_the_workflow_and_shows_the_counterexample() {
    let cadp = FakeCadp::new();
    let spec = format!("{BENCH}/leader.labs");
    plan_from_lnt(&cadp, &spec, &["n=3"], false);
    let o = cadp.labs(&["verify", &spec, "n=3", "--backend", "cadp", "--property", "LeaderNot0"]);
    assert_eq!(o.status.code(), Some(10), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.starts_with("LeaderNot0  violated\n"), "{out}");
    assert!(out.contains("counterexample for LeaderNot0 (always):"), "{out}");
    assert!(out.contains("CADP, compositional workflow: 1 LTS, "), "{out}");
    // Only the selected property was in the script.
    let o = cadp.labs(&["verify", &spec, "n=3", "--backend", "cadp", "--property", "LeaderIs0", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(verdicts(&json(&o)), [("LeaderIs0".to_string(), "holds".to_string())]);
}

#[test]
fn monolithic_workflow_and_kept_files_in_a_path_with_spaces() {
    let cadp = FakeCadp::new();
    let spec = format!("{BENCH}/leader.labs");
    plan_from_lnt(&cadp, &spec, &["n=3"], false);
    let keep = Scratch::path("cadp-keep", "files with \"quotes\" and spaces");
    let o = cadp.labs(&[
        "verify",
        &spec,
        "n=3",
        "--backend",
        "cadp",
        "--workflow",
        "monolithic",
        "--keep-files",
        keep.as_str(),
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(10), "{}", stderr(&o));
    let doc = json(&o);
    assert_eq!(doc["cadp"]["workflow"], "monolithic");
    assert_eq!(doc["cadp"]["files"], keep.as_str());
    assert_eq!(cadp.scripts_run(), ["leader_mono.svl"]);
    for f in ["leader.lnt", "leader_mono.svl", "leader.svl", "leader_LeaderNot0.mcl", "leader_mono.log"] {
        assert!(keep.join(f).is_file(), "{f} not kept");
    }
}

#[test]
fn cadp_failures_are_exit_1_with_the_log() {
    let spec = format!("{BENCH}/leader.labs");
    // svl fails: the end of its output is shown and the files are kept for the user.
    let cadp = FakeCadp::new();
    cadp.plan("fail", "lnt.open: error in leader.lnt\nsvl: ERROR command failed\n");
    let o = cadp.labs(&["verify", &spec, "n=3", "--backend", "cadp"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("svl failed (exit status 1) without a verdict for property"), "{e}");
    assert!(e.contains("svl: ERROR command failed"), "{e}");
    assert!(e.contains("are kept in"), "{e}");
    assert_eq!(cadp.leftovers().len(), 1, "the files behind the error are kept");
    assert!(!e.contains("panicked"), "{e}");
    // A licence refusal.
    let cadp = FakeCadp::new();
    cadp.plan("fail", "caesar: the license file has expired\n");
    let o = cadp.labs(&["verify", &spec, "n=3", "--backend", "cadp"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("licence check failed"), "{}", stderr(&o));
    assert!(stderr(&o).contains("--backend native"), "{}", stderr(&o));
    // (No CADP at all: tests/it/cli.rs.)
}

#[test]
fn the_time_limit_ends_svl() {
    let cadp = FakeCadp::new();
    cadp.plan("sleep", "30");
    let t = Instant::now();
    let spec = format!("{BENCH}/leader.labs");
    let o = cadp.labs(&["verify", &spec, "n=3", "--backend", "cadp", "--timeout", "0.5", "--json"]);
    tier::assert_within(t.elapsed(), Duration::from_secs(10), "verify --timeout 0.5");
    assert_eq!(o.status.code(), Some(124), "{}", stderr(&o));
    let doc = json(&o);
    assert!(verdicts(&doc).iter().all(|(_, v)| v == "unknown"), "{doc}");
    assert_eq!(doc["stopped"], "timeout");
    assert!(cadp.leftovers().is_empty(), "{:?}", cadp.leftovers());
}

#[test]
fn a_diagnostic_the_model_cannot_follow_is_an_internal_error() {
    let spec = format!("{BENCH}/leader.labs");
    // A path without the initial observations.
    let cadp = FakeCadp::new();
    cadp.plan("LeaderNot0", "\nFALSE\n<initial state>\n\"DONE\"\n<goal state>\nFAIL\n");
    let o = cadp.labs(&["verify", &spec, "n=3", "--backend", "cadp", "--property", "LeaderNot0"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("internal error of the LNT encoding"), "{e}");
    assert!(e.contains("cannot be replayed in the native engine"), "{e}");
    assert_eq!(cadp.leftovers().len(), 1, "the diagnostic is kept");
    // A real path of the program that stops before the violation (the first step only).
    let cadp = FakeCadp::new();
    plan_from_lnt(&cadp, &spec, &["n=3"], false);
    let full = std::fs::read_to_string(cadp.root.join("plan/LeaderNot0")).unwrap();
    let lines: Vec<&str> = full.lines().collect();
    let dones: Vec<usize> = (0..lines.len()).filter(|&i| lines[i] == "\"DONE\"").collect();
    assert!(dones.len() >= 3, "{full}");
    let cut = lines[..=dones[1]].join("\n") + "\n<goal state>\nFAIL\n";
    cadp.plan("LeaderNot0", &cut);
    let o = cadp.labs(&["verify", &spec, "n=3", "--backend", "cadp", "--property", "LeaderNot0"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("does not show a violation of LeaderNot0"), "{}", stderr(&o));
}

#[test]
fn no_file_of_the_installation_is_written() {
    let cadp = FakeCadp::new();
    let spec = format!("{BENCH}/leader.labs");
    let before: BTreeSet<PathBuf> = walk(&cadp.root);
    let o = cadp.labs(&["verify", &spec, "n=3", "--backend", "cadp", "--property", "LeaderIs0"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let after: BTreeSet<PathBuf> = walk(&cadp.root);
    let new: Vec<_> = after
        .difference(&before)
        .filter(|p| !p.ends_with("ran") && !p.ends_with("env") && !p.ends_with("times"))
        .collect();
    assert!(new.is_empty(), "{new:?}");
}

fn walk(dir: &Path) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        }
        out.insert(p);
    }
    out
}

/// Executor's output for a path of the LNT interpreter to a violation of `property`, every
/// observation visible (as in `MAIN`); and the number of LAbS steps of the path.
fn executor_output(spec: &str, externs: &[&str], property: &str) -> (String, usize) {
    let (m, b) = load(spec, externs);
    let analysis = analyse(&m, &b);
    let src = emit_lnt(&m, &b, &analysis, "spec", false, Dialect::FALLBACK).unwrap();
    let view = explore(&m, &src, false, Some(2_000_000)).unwrap();
    let r = check_properties(&m, &b, false, &view).unwrap().into_iter().find(|r| r.property == property).unwrap();
    let path = r.path.unwrap();
    let keep: BTreeSet<String> = (0..m.vars.len()).map(|v| obs_gate(&m, v)).collect();
    let labels = lts_labels(&view, &path, &keep);
    let text = executor_text(&labels, r.deadlock);
    (text.split_once('\n').unwrap().1.to_string(), path.len() - 1)
}

#[test]
fn simulation_runs_executor_with_one_seed_per_run() {
    let cadp = FakeCadp::new();
    let spec = format!("{BENCH}/leader.labs");
    let (text, steps) = executor_output(&spec, &["n=3"], "LeaderNot0");
    assert!(steps >= 2, "{steps}");
    for seed in [7, 8] {
        cadp.plan(&format!("executor-{seed}"), &text);
    }
    let o = cadp.labs(&["simulate", &spec, "n=3", "--backend", "cadp", "--runs", "2", "--seed", "7", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let ran = cadp.scripts_run();
    assert_eq!(ran.len(), 2, "{ran:?}");
    for (r, seed) in ran.iter().zip([7, 8]) {
        assert!(r.starts_with("lnt.open leader.lnt executor ") && r.ends_with(&format!(" 3 {seed}")), "{r}");
    }
    let doc = crate::fixtures::simulate_doc(&o.stdout);
    assert_eq!(doc["backend"], "cadp");
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    for run in runs {
        assert_eq!(run["trace"]["steps"].as_array().unwrap().len(), steps);
        let not0 = run["properties"].as_array().unwrap().iter().find(|p| p["property"] == "LeaderNot0").unwrap();
        assert_eq!((&not0["status"], &not0["at_step"]), (&Value::from("violated"), &Value::from(steps)), "{run}");
    }
    // Cut to --steps: the violation is not reached in one step.
    let o = cadp.labs(&["simulate", &spec, "n=3", "--backend", "cadp", "--seed", "7", "--steps", "1", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc = crate::fixtures::simulate_doc(&o.stdout);
    let run = &doc["runs"][0];
    assert_eq!(run["trace"]["steps"].as_array().unwrap().len(), 1);
    let not0 = run["properties"].as_array().unwrap().iter().find(|p| p["property"] == "LeaderNot0").unwrap();
    assert_eq!(not0["status"], "undecided");
    // Human output gives each run's seed.
    let o = cadp.labs(&["simulate", &spec, "n=3", "--backend", "cadp", "--runs", "2", "--seed", "7"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("=== run 2 of 2 (seed 8,"), "{out}");
    assert!(cadp.leftovers().is_empty(), "{:?}", cadp.leftovers());
}

#[test]
fn the_tools_run_with_cadp_set_and_its_directories_on_path() {
    let cadp = FakeCadp::new();
    let spec = format!("{BENCH}/leader.labs");
    let root = cadp.root.to_str().unwrap().to_string();
    // Found through PATH alone, without $CADP.
    let o = fixtures::labs_command()
        .args(["verify", &spec, "n=3", "--backend", "cadp", "--property", "LeaderIs0"])
        .env_remove("CADP")
        .env("PATH", format!("{root}/com:/usr/bin:/bin"))
        .env("CADP_TMP", &*cadp.tmp)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let env = std::fs::read_to_string(cadp.root.join("plan/env")).unwrap();
    let (cadp_var, path) = env.trim_end().split_once('\n').unwrap();
    assert_eq!(cadp_var, root);
    assert!(path.starts_with(&format!("{root}/com:{root}/bin.x64:")), "{path}");
}

#[test]
fn ctrl_c_stops_cadp_and_exits_130() {
    let cadp = FakeCadp::new();
    cadp.plan("sleep", "30");
    let spec = format!("{BENCH}/leader.labs");
    let child = fixtures::labs_command()
        .args(["verify", &spec, "n=3", "--backend", "cadp", "--json"])
        .env("CADP", &*cadp.root)
        .env("CADP_TMP", &*cadp.tmp)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until svl runs, then interrupt labs as a terminal's Ctrl-C would.
    let t = Instant::now();
    while cadp.scripts_run().is_empty() && t.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!cadp.scripts_run().is_empty(), "svl never ran");
    let killed = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let o = child.wait_with_output().unwrap();
    tier::assert_within(t.elapsed(), Duration::from_secs(15), "stopping after Ctrl-C");
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert!(verdicts(&json(&o)).iter().all(|(_, v)| v == "unknown"));
    assert!(cadp.leftovers().is_empty(), "{:?}", cadp.leftovers());
}

/// A stop after the on-the-fly script's first check was answered (the second one planned to
/// take long): the first verdict is kept, the second `unknown`; the diagnostic file of the
/// first, which `bcg_io` would have converted after the stop, is not read (a warning says so);
/// the working directory is removed. By the time limit, then by Ctrl-C.
#[test]
fn a_stop_keeps_the_verdicts_cadp_gave() {
    let text = std::fs::read_to_string(format!("{BENCH}/leader.labs")).unwrap();
    let (head, _) = text.split_once("check {").unwrap();
    let check = "check {\n    LeaderNot0 = always exists Node n, leader of n != 0\n    \
                 LeaderIs0 = finally forall Node n, leader of n = 0\n}\n";
    let spec = Scratch::file("cadp-stop", "leader.labs", &format!("{head}{check}"));
    for interrupt in [false, true] {
        let (cadp, _, _, _) = on_the_fly_run(spec.as_str(), &["n=3"], false);
        cadp.plan("sleep-leader_LeaderIs0.mcl", "60");
        let _ = std::fs::remove_file(cadp.root.join("plan/ran"));
        let mut args = vec!["verify", spec.as_str(), "n=3", "--backend", "cadp", "--workflow", "on-the-fly", "--json"];
        if !interrupt {
            args.extend(["--timeout", "10"]);
        }
        let child = fixtures::labs_command()
            .args(&args)
            .env("CADP", &*cadp.root)
            .env("CADP_TMP", &*cadp.tmp)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        if interrupt {
            // Once the second check runs (the first was answered), as a terminal's Ctrl-C.
            let t = Instant::now();
            while cadp.scripts_run().len() < 2 && t.elapsed() < Duration::from_secs(30) {
                std::thread::sleep(Duration::from_millis(20));
            }
            assert_eq!(cadp.scripts_run().len(), 2, "{:?}", cadp.scripts_run());
            std::thread::sleep(Duration::from_millis(200));
            let killed = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
            assert!(killed.success());
        }
        let o = child.wait_with_output().unwrap();
        let what = if interrupt { "Ctrl-C" } else { "--timeout" };
        assert_eq!(o.status.code(), Some(10), "{what}: {}", stderr(&o));
        let doc = json(&o);
        let want = [("LeaderNot0".to_string(), "violated".to_string()), ("LeaderIs0".into(), "unknown".into())];
        assert_eq!(verdicts(&doc), want, "{what}: {doc}");
        assert_eq!(doc["stopped"], if interrupt { "interrupted" } else { "timeout" }, "{what}");
        assert!(stderr(&o).contains("its diagnostic file was not converted"), "{what}: {}", stderr(&o));
        assert!(cadp.leftovers().is_empty(), "{what}: {:?}", cadp.leftovers());
    }
}

#[test]
fn unbounded_inputs_point_to_the_monolithic_workflow() {
    // examples/counter.labs: the value analysis cannot bound `c`, so the compositional
    // script's Env leaf cannot be generated alone (tests/it/lntcheck_svl.rs).
    let cadp = FakeCadp::new();
    let spec = format!("{EXAMPLES}/counter.labs");
    let o = cadp.labs(&["verify", &spec, "n=2", "atomic=0", "--backend", "cadp", "--workflow", "compositional"]);
    assert!(stderr(&o).contains("use `--workflow monolithic`"), "{}", stderr(&o));
    // Without --workflow, the monolithic one is chosen and said.
    let o = cadp.labs(&["verify", &spec, "n=2", "atomic=0", "--backend", "cadp", "--json"]);
    assert!(stderr(&o).contains("note: the monolithic workflow runs"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("warning: the value analysis does not bound"), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&o)));
    assert_eq!(v["cadp"]["workflow"], "monolithic");
    let o = cadp.labs(&["verify", &spec, "n=2", "atomic=0", "--backend", "cadp", "--workflow", "monolithic"]);
    assert!(!stderr(&o).contains("warning: the value analysis does not bound"), "{}", stderr(&o));
}

#[test]
fn cross_check_compares_with_the_native_verdicts() {
    let spec = format!("{BENCH}/leader.labs");
    let cadp = FakeCadp::new();
    plan_from_lnt(&cadp, &spec, &["n=3"], false);
    let o = cadp.labs(&["verify", &spec, "n=3", "--backend", "cadp", "--cross-check"]);
    assert_eq!(o.status.code(), Some(10), "{}", stderr(&o));
    assert!(stderr(&o).contains("cross-check: the native engine gives the same verdicts"), "{}", stderr(&o));
    // A wrong answer from CADP: LeaderIs100 does not hold (every run deadlocks before 100).
    cadp.plan("LeaderIs100", "\nTRUE\nPASS (1/1)\n");
    let o = cadp.labs(&["verify", &spec, "n=3", "--backend", "cadp", "--cross-check"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("CADP finds LeaderIs100 holds, the native engine violated"), "{}", stderr(&o));
    assert_eq!(cadp.leftovers().len(), 1, "the files behind the disagreement are kept");
    // Without --cross-check the wrong answer is CADP's to give.
    let o = cadp.labs(&["verify", &spec, "n=3", "--backend", "cadp", "--property", "LeaderIs100"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// The LNT dialect follows the release named in `$CADP/VERSION` (CADP HISTORY: `alt` from
/// 2024-d, #2982; `...` from 2025-e, #3133; `x?` from 2025-f, #3148; the scripts' forms:
/// `every_workflow_runs_the_forms_of_the_release`), and the files handed to svl are written in
/// it.
#[test]
fn the_dialect_follows_the_installed_release() {
    let spec = format!("{BENCH}/leader.labs");
    // (VERSION text, dialect, choice keyword, array range, in-out actual)
    let releases = [
        ("2023-k \"Pisa\"\n", "2023", "select", "[0 .. ", "!?I1"),
        ("2024-c\n", "2023", "select", "[0 .. ", "!?I1"),
        ("2024-d \"Eindhoven\"\n", "2024-d", "alt", "[0 .. ", "!?I1"),
        ("2025-d\n", "2025-d", "alt", "[0 .. ", "!?I1"),
        ("2025-e\n", "2025-e", "alt", "[0 ... ", "!?I1"),
        ("2025-f\n", "2025", "alt", "[0 ... ", "I1?"),
        ("2025-l\n", "2025-l", "alt", "[0 ... ", "I1?"),
        ("2026-b\n", "2026", "alt", "[0 ... ", "I1?"),
    ];
    for (version, dialect, choice, range, inout) in releases {
        let cadp = FakeCadp::new();
        std::fs::write(cadp.root.join("VERSION"), version).unwrap();
        plan_from_lnt(&cadp, &spec, &["n=3"], false);
        let keep = Scratch::path("cadp-dialect", "files");
        let o = cadp.labs(&["verify", &spec, "n=3", "--backend", "cadp", "--keep-files", keep.as_str(), "--json"]);
        assert_eq!(o.status.code(), Some(10), "{version}: {}", stderr(&o));
        assert_eq!(json(&o)["cadp"]["lnt_dialect"], dialect, "{version}");
        let lnt = std::fs::read_to_string(keep.join("leader.lnt")).unwrap();
        let words: BTreeSet<&str> = lnt.split(|c: char| !c.is_ascii_alphanumeric()).collect();
        let other = if choice == "alt" { "select" } else { "alt" };
        assert!(words.contains(choice) && !words.contains(other), "{version}: `{choice}` expected");
        assert!(lnt.contains(range), "{version}: `{range}` expected");
        assert!(lnt.contains(&format!("({inout},")) || lnt.contains(&format!(", {inout},")), "{version}: `{inout}`");
        // `labs emit` picks the same dialect from the same installation.
        let out = Scratch::path("cadp-dialect-emit", "out");
        let e = cadp.labs(&["emit", &spec, "n=3", "-o", out.as_str()]);
        assert!(e.status.success(), "{}", stderr(&e));
        assert!(stderr(&e).contains(&format!("LNT dialect {dialect} (detected: release named in")), "{}", stderr(&e));
        assert_eq!(std::fs::read_to_string(out.join("leader.lnt")).unwrap(), lnt, "{version}");
    }
}

/// Stands in for `cadp_lib -1`, which prints the release as its second word (the VBPMN
/// project's CADP-compliance procedure reads it there): `$CADP/plan/release`.
const FAKE_CADP_LIB: &str = "#!/bin/sh\n[ \"$1\" = -1 ] || exit 2\n[ -n \"$CADP\" ] || exit 3\n\
echo \"CADP $(cat \"$CADP/plan/release\") \\\"Stand-in\\\"\"\n";

/// The release `cadp_lib -1` prints decides the dialect, before the `VERSION` file (which no
/// public source shows); found through `$CADP` or, with `$CADP` unset, on `PATH`.
#[test]
fn the_dialect_follows_cadp_lib() {
    let spec = format!("{BENCH}/leader.labs");
    let cadp = FakeCadp::new();
    let tool = cadp.root.join("com/cadp_lib");
    std::fs::write(&tool, FAKE_CADP_LIB).unwrap();
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    // VERSION says otherwise: cadp_lib wins.
    std::fs::write(cadp.root.join("VERSION"), "2023-k\n").unwrap();
    for (release, dialect) in [("2025-f", "2025"), ("2024-k", "2024-d"), ("2025-e", "2025-e"), ("2023-c", "2023")] {
        cadp.plan("release", release);
        let out = Scratch::path("cadp-lib-emit", "out");
        let e = cadp.labs(&["emit", &spec, "n=3", "-o", out.as_str()]);
        assert!(e.status.success(), "{}", stderr(&e));
        let note = format!("LNT dialect {dialect} (detected: release {release} printed by `cadp_lib -1`)");
        assert!(stderr(&e).contains(&note), "{release}: {}", stderr(&e));
        let readme = std::fs::read_to_string(out.join("README.txt")).unwrap();
        assert!(readme.contains(&format!("LNT dialect {dialect}: detected: release {release}")), "{readme}");
        // The driver reads the same release.
        plan_from_lnt(&cadp, &spec, &["n=3"], false);
        let o = cadp.labs(&["verify", &spec, "n=3", "--backend", "cadp", "--json"]);
        assert_eq!(json(&o)["cadp"]["lnt_dialect"], dialect, "{release}");
    }
    // $CADP unset: cadp_lib on PATH, in an installation's com/.
    cadp.plan("release", "2025-e");
    let out = Scratch::path("cadp-lib-path", "out");
    let e = fixtures::labs_command()
        .args(["emit", &spec, "n=3", "-o", out.as_str()])
        .env_remove("CADP")
        .env("PATH", std::env::join_paths([cadp.root.join("com"), "/usr/bin".into(), "/bin".into()]).unwrap())
        .output()
        .unwrap();
    assert!(stderr(&e).contains("LNT dialect 2025-e (detected: release 2025-e"), "{}", stderr(&e));
    // A cadp_lib that fails: the installation's files decide.
    cadp.plan("release", "");
    std::fs::write(&tool, "#!/bin/sh\nexit 1\n").unwrap();
    let e = cadp.labs(&["emit", &spec, "n=3", "-o", out.as_str()]);
    assert!(stderr(&e).contains("LNT dialect 2023 (detected: release named in"), "{}", stderr(&e));
}

/// For each release, every workflow runs the forms of that release (the stand-ins refuse the
/// others): `lnt.open -main` from 2025-d (`-root` before), SVL's `"D.bcg" = "M.bcg" |= with E
/// "Q.mcl"` from 2025-l (`verify … in` before), the model checker `evaluator` from 2026-a
/// (`evaluator4` before), and the LNT forms of its dialect; the verdicts are the native ones.
#[test]
fn every_workflow_runs_the_forms_of_the_release() {
    let spec = format!("{CASES}/ltl_cycle.labs");
    // (release, dialect, root option, SVL statement, model checker)
    let releases = [
        ("2024-d", "2024-d", "-root", "= verify ", "evaluator4"),
        ("2025-d", "2025-d", "-main", "= verify ", "evaluator4"),
        ("2025-f", "2025", "-main", "= verify ", "evaluator4"),
        ("2026-a", "2026", "-main", " |= ", "evaluator"),
        ("2026-d", "2026", "-main", " |= ", "evaluator"),
    ];
    let props = ["--property", "StabThree", "--property", "Response"];
    let mut args = vec!["verify", spec.as_str()];
    args.extend(props);
    let expected = verdicts(&json(&native(&args)));
    assert!(expected.iter().any(|(_, v)| v == "violated") && expected.iter().any(|(_, v)| v == "holds"));
    for (release, dialect, root, statement, evaluator) in releases {
        let cadp = FakeCadp::new();
        let tool = cadp.root.join("com/cadp_lib");
        std::fs::write(&tool, FAKE_CADP_LIB).unwrap();
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        cadp.plan("release", release);
        cadp.plan("labs", env!("CARGO_BIN_EXE_labs"));
        cadp.plan("spec", &spec);
        plan_from_lnt(&cadp, &spec, &[], false);
        for workflow in [
            &["--workflow", "compositional"][..],
            &["--workflow", "compositional", "--jobs", "2"],
            &["--workflow", "monolithic"],
            &["--workflow", "on-the-fly"],
        ] {
            let keep = Scratch::path("cadp-forms", "files");
            let mut run = args.clone();
            run.extend(["--backend", "cadp", "--json", "--keep-files", keep.as_str()]);
            run.extend(workflow);
            let what = format!("{release} {workflow:?}");
            let o = cadp.labs(&run);
            assert_eq!(o.status.code(), Some(10), "{what}: {}{}", stderr(&o), String::from_utf8_lossy(&o.stdout));
            let doc = json(&o);
            assert_eq!(verdicts(&doc), expected, "{what}");
            assert_eq!(doc["cadp"]["lnt_dialect"], dialect, "{what}");
            // the files run are in the release's forms (which the stand-ins also required)
            let otf = std::fs::read_to_string(keep.join("ltl_cycle_on_the_fly.sh")).unwrap();
            assert!(otf.contains(&format!("lnt.open {root} Root_StabThree ")), "{what}: {otf}");
            assert!(otf.contains(&format!(" {evaluator} -diag ")), "{what}: {otf}");
            for svl in ["ltl_cycle.svl", "ltl_cycle_mono.svl"] {
                let text = std::fs::read_to_string(keep.join(svl)).unwrap();
                assert!(text.contains(statement) && text.contains(&format!("with {evaluator} ")), "{what}: {text}");
            }
        }
        let ran = cadp.scripts_run();
        let otf: Vec<&String> = ran.iter().filter(|r| r.starts_with("lnt.open ")).collect();
        assert!(
            !otf.is_empty() && otf.iter().all(|r| r.contains(&format!(" {evaluator} -diag "))),
            "{release}: {ran:?}"
        );
        assert!(otf.iter().any(|r| r.starts_with(&format!("lnt.open {root} Root_"))), "{release}: {ran:?}");
        assert!(ran.iter().filter(|r| *r == "job.svl").count() >= 4, "{release}: the jobs of --jobs ran: {ran:?}");
    }
    // The stand-ins refuse the forms of other releases.
    let cadp = FakeCadp::new();
    cadp.plan("release", "2026-d");
    std::fs::write(cadp.tmp.join("m.lnt"), "module m is\nend module\n").unwrap();
    std::fs::write(cadp.tmp.join("q.mcl"), "true\n").unwrap();
    let lnt_open = |words: &[&str]| {
        Command::new(cadp.root.join("com/lnt.open"))
            .args(words)
            .current_dir(&*cadp.tmp)
            .env("CADP", &*cadp.root)
            .output()
            .unwrap()
    };
    let o = lnt_open(&["-root", "Root_P", "m.lnt", "evaluator", "-diag", "d.bcg", "q.mcl"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stdout).contains("-root instead of -main"), "{:?}", o);
    let o = lnt_open(&["m.lnt", "evaluator4", "-diag", "d.bcg", "q.mcl"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("evaluator4 instead of evaluator"), "{:?}", o);
    std::fs::write(cadp.tmp.join("s.svl"), "property P\nis\n   \"d.bcg\" = verify \"q.mcl\" with evaluator in \"m.bcg\";\n   expected TRUE\nend property\n").unwrap();
    let o = Command::new(cadp.root.join("com/svl"))
        .arg("s.svl")
        .current_dir(&*cadp.tmp)
        .env("CADP", &*cadp.root)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stdout).contains("not its verification statement"), "{:?}", o);
}

/// Without an installation, `emit` writes the 2024-d forms (`alt`, `..`, `!?x`), which every
/// release from 2024-d accepts (HISTORY #3133 and #3148: `..` and `!?x` are still accepted),
/// and its README.txt says so and how to choose another dialect.
#[test]
fn without_an_installation_the_2024d_forms_are_emitted() {
    let spec = format!("{BENCH}/leader.labs");
    let empty = Scratch::path("no-cadp", "path");
    std::fs::create_dir_all(&*empty).unwrap();
    let out = Scratch::path("no-cadp-emit", "out");
    let e = fixtures::labs_command()
        .args(["emit", &spec, "n=3", "-o", out.as_str()])
        .env_remove("CADP")
        .env("PATH", &*empty)
        .output()
        .unwrap();
    assert!(e.status.success(), "{}", stderr(&e));
    assert!(stderr(&e).contains("LNT dialect 2024-d (no CADP installation detected"), "{}", stderr(&e));
    let lnt = std::fs::read_to_string(out.join("leader.lnt")).unwrap();
    assert!(lnt.contains("[0 .. ") && !lnt.contains("[0 ... "), "2024-d array bounds");
    assert!(lnt.contains("!?I1") && !lnt.contains("I1?"), "2024-d in-out actuals");
    assert!(lnt.contains(" alt\n") && !lnt.contains("select"), "2024-d choice");
    let readme = std::fs::read_to_string(out.join("README.txt")).unwrap();
    assert!(readme.contains("LNT dialect 2024-d: no CADP installation detected"), "{readme}");
    assert!(readme.contains("--lnt-dialect D"), "how to choose another: {readme}");
    // the warnings a 2026 installation prints for these forms, each with its HISTORY item
    let warned = readme.split("A CADP 2026 installation reads these files, with warnings").nth(1).expect("{readme}");
    for (form, item) in
        [("..", "#3133"), ("!?x", "#3148"), ("-root", "#3115"), ("verify ... in", "#3256"), ("evaluator4", "#3270")]
    {
        assert!(warned.lines().any(|l| l.contains(form) && warned.contains(item)), "{form} {item}: {readme}");
    }
    assert!(!readme.contains("not a drop-in replacement"), "{readme}");
    // send offers without `!` (the 2022 form; #3148 reserves `!` for pragmas)
    assert!(lnt.contains("INIT (j)") && !lnt.contains("(!"), "2024-d send offers");
}

/// (directory, start, end) of every svl run the stand-in logged since `plan/times` was removed.
fn job_times(cadp: &FakeCadp) -> Vec<(String, f64, f64)> {
    let text = std::fs::read_to_string(cadp.root.join("plan/times")).unwrap_or_default();
    let mut open: Vec<(String, f64)> = vec![];
    let mut out = vec![];
    for line in text.lines() {
        let w: Vec<&str> = line.split(' ').collect();
        let (dir, t) = (w[1..w.len() - 1].join(" "), w[w.len() - 1].parse::<f64>().unwrap());
        match w[0] {
            "start" => open.push((dir, t)),
            _ => {
                let k = open.iter().position(|(d, _)| *d == dir).expect("an end after its start");
                let (d, s) = open.remove(k);
                out.push((d, s, t));
            }
        }
    }
    assert!(open.is_empty(), "jobs that never ended: {open:?}");
    out
}

#[test]
fn jobs_overlap_in_their_own_directories_with_the_sequential_verdicts() {
    let spec = format!("{BENCH}/leader.labs");
    let cadp = FakeCadp::new();
    plan_from_lnt(&cadp, &spec, &["n=3"], false);
    cadp.plan("sleep", "0.3");
    let base = ["verify", spec.as_str(), "n=3", "--backend", "cadp", "--json"];
    let sequential = cadp.labs(&base);
    let expected = native(&["verify", spec.as_str(), "n=3"]);
    assert_eq!(sequential.status.code(), expected.status.code(), "{}", stderr(&sequential));
    assert_eq!(job_times(&cadp).len(), 1, "the single script is one svl run");
    std::fs::remove_file(cadp.root.join("plan/times")).unwrap();
    let kept = Scratch::path("split-jobs", "work");
    let o = cadp.labs(&[&base[..], &["--jobs", "2", "--keep-files", kept.as_str()]].concat());
    assert_eq!(o.status.code(), expected.status.code(), "{}", stderr(&o));
    assert_eq!(verdicts(&json(&o)), verdicts(&json(&sequential)));
    assert_eq!(verdicts(&json(&o)), verdicts(&json(&expected)));
    let times = job_times(&cadp);
    // leader n=3: the timestamps and three agents (four leaf jobs, the same for every
    // property), then one job per property
    assert_eq!(times.len(), 4 + verdicts(&json(&expected)).len(), "{times:?}");
    let dirs: BTreeSet<&String> = times.iter().map(|(d, ..)| d).collect();
    assert_eq!(dirs.len(), times.len(), "two jobs shared a directory: {times:?}");
    for (d, ..) in &times {
        assert!(Path::new(d).starts_with(&*kept) && Path::new(d) != &*kept, "{d} is not a job directory");
    }
    let overlap = |a: &(String, f64, f64), b: &(String, f64, f64)| a.1 < b.2 && b.1 < a.2;
    let pairs = times.iter().enumerate().flat_map(|(i, a)| times[i + 1..].iter().map(move |b| (a, b)));
    assert!(pairs.clone().any(|(a, b)| overlap(a, b)), "no two jobs ran at the same time: {times:?}");
    // never more than two at a time
    for (_, s, _) in &times {
        assert!(times.iter().filter(|t| t.1 <= *s && *s < t.2).count() <= 2, "{times:?}");
    }
}

/// A stand-in `ssh HOST COMMAND…`: logs the host and runs the command here; fails for the
/// host `down`.
const FAKE_SSH: &str = "#!/bin/sh\nhost=\"$1\"; shift\necho \"$host $*\" >> \"$CADP/plan/ssh\"\n\
[ \"$host\" = down ] && { echo \"ssh: connect to host down: Connection refused\"; exit 255; }\nexec \"$@\"\n";

#[test]
fn hosts_run_the_jobs_through_ssh_and_a_failing_host_is_replaced() {
    let spec = format!("{EXAMPLES}/leader.labs");
    let cadp = FakeCadp::new();
    plan_from_lnt(&cadp, &spec, &["n=3"], false);
    let ssh = cadp.root.join("ssh");
    std::fs::write(&ssh, FAKE_SSH).unwrap();
    std::fs::set_permissions(&ssh, std::fs::Permissions::from_mode(0o755)).unwrap();
    let expected = native(&["verify", spec.as_str(), "n=3"]);
    let hosts = Scratch::file("hosts", "hosts.txt", "# two machines\nup 2\ndown 1\n");
    let kept = Scratch::path("hosts-jobs", "work");
    let run = |hosts: &str| {
        fixtures::labs_command()
            .args(["verify", &spec, "n=3", "--backend", "cadp", "--json", "--hosts", hosts])
            .args(["--keep-files", kept.as_str()])
            .env("CADP", &*cadp.root)
            .env("CADP_TMP", &*cadp.tmp)
            .env("LABS_SSH", &ssh)
            .output()
            .unwrap()
    };
    let o = run(hosts.as_str());
    assert_eq!(o.status.code(), expected.status.code(), "{}", stderr(&o));
    assert_eq!(verdicts(&json(&o)), verdicts(&json(&expected)));
    let log = std::fs::read_to_string(cadp.root.join("plan/ssh")).unwrap();
    let on = |host: &str| -> BTreeSet<String> {
        log.lines()
            .filter(|l| l.starts_with(&format!("{host} ")))
            .map(|l| l.split_once(' ').unwrap().1.to_string())
            .collect()
    };
    assert!(log.lines().all(|l| l.contains("sh -c cd '") && l.ends_with("&& svl job.svl")), "{log}");
    assert!(!on("down").is_empty(), "the failing host got no job: {log}");
    assert!(on("down").is_subset(&on("up")), "a job failed on `down` was not run on `up`: {log}");
    // A job that fails on every host ends the run.
    let all_down = Scratch::file("hosts", "down.txt", "down 2\n");
    let o = run(all_down.as_str());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("failed on every host") && stderr(&o).contains("Connection refused"), "{}", stderr(&o));
}

#[test]
fn bad_jobs_and_hosts_are_usage_errors() {
    let spec = format!("{EXAMPLES}/leader.labs");
    let cadp = FakeCadp::new();
    let empty = Scratch::file("hosts", "empty.txt", "# nobody\n");
    let bad = Scratch::file("hosts", "bad.txt", "alpha many\n");
    for (extra, needle) in [
        (vec!["--jobs", "0"], "--jobs"),
        (vec!["--hosts", "/nonexistent/hosts.txt"], "cannot read"),
        (vec!["--hosts", empty.as_str()], "no host"),
        (vec!["--hosts", bad.as_str()], "line 1"),
    ] {
        let o = cadp.labs(&[&["verify", spec.as_str(), "n=3", "--backend", "cadp"][..], &extra].concat());
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{extra:?}: {}", stderr(&o));
    }
}

#[test]
fn the_distributor_generates_and_bcg_merge_merges_before_the_monolithic_verification() {
    let spec = format!("{EXAMPLES}/leader.labs");
    let cadp = FakeCadp::new();
    plan_from_lnt(&cadp, &spec, &["n=3"], false);
    let gcf = Scratch::file("gcf", "cluster.gcf", "(a grid configuration file, copied as it is)\n");
    let kept = Scratch::path("dist", "work");
    let expected = native(&["verify", spec.as_str(), "n=3"]);
    let o = cadp.labs(&[
        "verify",
        &spec,
        "n=3",
        "--backend",
        "cadp",
        "--json",
        "--distributor",
        gcf.as_str(),
        "--keep-files",
        kept.as_str(),
    ]);
    assert_eq!(o.status.code(), expected.status.code(), "{}", stderr(&o));
    assert_eq!(verdicts(&json(&o)), verdicts(&json(&expected)));
    // The commands of the manual pages, in this order, then svl on the script without its
    // generation statement.
    assert_eq!(
        cadp.scripts_run(),
        [
            "lnt.open leader.lnt distributor cluster.gcf leader_mono.pbg",
            "bcg_merge leader_mono.pbg leader_mono.bcg",
            "leader_dist.svl"
        ]
    );
    let dist = std::fs::read_to_string(kept.join("leader_dist.svl")).unwrap();
    let mono = std::fs::read_to_string(kept.join("leader_mono.svl")).unwrap();
    assert!(mono.contains("\"leader_mono.bcg\" = generation of") && !dist.contains("generation of"), "{dist}");
    assert_eq!(dist.matches(" = verify ").count(), mono.matches(" = verify ").count());
    assert_eq!(
        std::fs::read_to_string(kept.join("cluster.gcf")).unwrap(),
        "(a grid configuration file, copied as it is)\n"
    );
    // Bad paths are usage errors.
    for (bad, needle) in [("/nonexistent/c.gcf", "cannot read"), (spec.as_str(), "not a grid configuration file")] {
        let o = cadp.labs(&["verify", &spec, "n=3", "--backend", "cadp", "--distributor", bad]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{}", stderr(&o));
    }
}

/// `verify SPEC EXTERNS [--fair]` by the native engine, and on the CADP stand-in (kept, for
/// what it ran) with the on-the-fly workflow and `--json`; with a name for messages.
fn on_the_fly_run(spec: &str, externs: &[&str], fair: bool) -> (FakeCadp, Output, Output, String) {
    let cadp = FakeCadp::new();
    cadp.plan("labs", env!("CARGO_BIN_EXE_labs"));
    let mut args = vec!["verify", spec];
    args.extend(externs.iter());
    if fair {
        args.push("--fair");
    }
    cadp.plan("spec", &args[1..].join(" "));
    let expected = native(&args);
    args.extend(["--backend", "cadp", "--workflow", "on-the-fly", "--json"]);
    let o = cadp.labs(&args);
    (cadp, o, expected, format!("{spec} {externs:?} fair={fair}"))
}

/// The on-the-fly check of one instance through the stand-in: the verdicts must be the native
/// engine's (no property refused), and every violation must come with a counterexample that
/// the driver replayed. Returns the properties checked.
fn on_the_fly_agrees(spec: &str, externs: &[&str], fair: bool) -> usize {
    let (_cadp, o, expected, what) = on_the_fly_run(spec, externs, fair);
    assert_eq!(o.status.code(), expected.status.code(), "{what}: {}", stderr(&o));
    let doc = json(&o);
    let want = verdicts(&json(&expected));
    assert_eq!(verdicts(&doc), want, "{what}");
    for r in doc["results"].as_array().unwrap().iter().filter(|r| r["verdict"] == "violated") {
        assert!(r["trace"].is_object(), "{what}: {} has no trace", r["property"]);
    }
    want.len()
}

/// Every property of every example and benchmark (old modalities, linear-time formulas),
/// checked by the CADP back end's on-the-fly workflow against the stand-in, whose answers are
/// labs's MCL evaluator on the LTS `lnt.open` would generate (`Root_P` for a monitored
/// property): the native verdicts, none refused. Small externs; the larger instances in the
/// slow tier. (The native and `--backend lnt` routes: tests/it/lnt_backend_files.rs.)
#[test]
fn every_example_and_benchmark_property_on_the_fly() {
    let mut checked = 0;
    for (spec, externs, fair) in [
        (format!("{EXAMPLES}/philosophers.labs"), vec!["n=3", "asym=0"], false),
        (format!("{EXAMPLES}/philosophers.labs"), vec!["n=3", "asym=1"], true),
        (format!("{EXAMPLES}/twophase.labs"), vec!["workers=2"], false),
        (format!("{EXAMPLES}/leader.labs"), vec!["n=2"], false),
        (format!("{EXAMPLES}/counter.labs"), vec!["n=2", "atomic=0"], false),
        (format!("{BENCH}/leader.labs"), vec!["n=3"], true),
        (format!("{BENCH}/philosophers.labs"), vec!["n=3"], false),
    ] {
        checked += on_the_fly_agrees(&spec, &externs, fair);
    }
    assert!(checked >= 25, "{checked} properties");
    if tier::slow("the larger examples and benchmarks on the fly") {
        for (spec, externs, fair) in [
            (format!("{EXAMPLES}/flocking.labs"), vec!["birds=2", "grid=3", "delta=1"], false),
            (format!("{EXAMPLES}/majority.labs"), vec!["yes=1", "no=2"], false),
            (format!("{EXAMPLES}/line.labs"), vec!["n=2", "size=4", "gap=1"], true),
            (format!("{BENCH}/flock.labs"), vec!["birds=2", "grid=2", "delta=1"], false),
            (format!("{BENCH}/twophase.labs"), vec!["workers=2"], false),
            (format!("{BENCH}/twophasecommit.labs"), vec!["workers=2"], false),
            (format!("{BENCH}/formation.labs"), vec!["n=2", "range=2", "size=3"], true),
        ] {
            on_the_fly_agrees(&spec, &externs, fair);
        }
    }
}
