//! Bounds that hold and hostile input that does not crash, as a user meets them: each case
//! runs the binary with its own limits, and asserts the exit code the README lists, a clear
//! message, the memory, and (with generous margins, in the slow tier only: `tier`) the wall
//! time.

use crate::fixtures;
use fixtures::{example, stderr};

use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use crate::isolate;
use crate::scratch;
use crate::tier;
use scratch::Scratch;

fn labs(args: &[&str]) -> (Output, Duration) {
    let t = Instant::now();
    let o = fixtures::labs_command().args(args).output().expect("run labs");
    (o, t.elapsed())
}

#[test]
fn timeout_covers_exploration_and_check() {
    // Over a million states (without the symmetry reduction, which would divide them by 7!):
    // far more than 2 s of work on any machine we run on.
    let (o, t) =
        labs(&["verify", &example("twophase.labs"), "workers=7", "--timeout", "2", "--threads", "1", "--no-reduction"]);
    assert_eq!(o.status.code(), Some(124), "{}", stderr(&o));
    tier::assert_within(t, Duration::from_millis(3500), "verify --timeout 2");
    assert!(stderr(&o).contains("time limit"), "{}", stderr(&o));
}

fn interrupted_within_a_second(signal: i32) {
    let child = fixtures::labs_command()
        .args(["verify", &example("twophase.labs"), "workers=7", "--threads", "1", "--no-reduction"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run labs");
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: kill only sends a signal to our own child.
    unsafe { libc::kill(child.id() as i32, signal) };
    let sent = Instant::now();
    let o = child.wait_with_output().expect("wait");
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    tier::assert_within(sent.elapsed(), Duration::from_millis(1500), "stopping after the signal");
    // What it decided so far: the verdict lines are printed.
    assert!(String::from_utf8_lossy(&o.stdout).contains("unknown"));
}

#[test]
fn ctrl_c_stops_within_a_second() {
    interrupted_within_a_second(libc::SIGINT);
}

#[test]
fn sigterm_stops_within_a_second() {
    interrupted_within_a_second(libc::SIGTERM);
}

#[test]
fn memory_bound_holds_on_a_wide_state_space() {
    // leader n=300: thousands of successors per state.
    let (o, t) = labs(&["verify", &example("leader.labs"), "n=300", "--memory", "300", "--json", "--timeout", "60"]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let peak = doc["stats"]["peak_rss_mib"].as_u64().expect("peak");
    assert!(peak <= 330, "peak {peak} MiB for --memory 300");
    assert_eq!(doc["stopped"], "memory");
    tier::assert_within(t, Duration::from_secs(30), "reaching the memory bound");
}

#[test]
fn a_state_too_large_for_memory_is_a_clean_stop() {
    // 100,000 agents: one arena block would reserve terabytes.
    let (o, t) = labs(&["verify", &example("leader.labs"), "n=100000", "--memory", "4000"]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    assert!(stderr(&o).contains("memory"), "{}", stderr(&o));
    tier::assert_within(t, Duration::from_secs(10), "refusing the state");
}

#[test]
fn numbers_out_of_range_on_the_command_line_are_usage_errors() {
    for args in [
        ["--timeout", "1e20"],
        ["--timeout", "-1"],
        ["--timeout", "nan"],
        ["--memory", "0"],
        ["--max-states", "0"],
        ["--max-states", "-5"],
    ] {
        let (o, _) = labs(&["verify", &example("leader.labs"), "n=3", args[0], args[1]]);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn long_operator_chains_give_a_located_error_fast() {
    for (op, name) in [(" + ", "plus"), (" and ", "and")] {
        let terms = if op == " + " { vec!["1"; 10_000].join(op) + " > 0" } else { vec!["1 > 0"; 10_000].join(op) };
        let text = format!(
            "system {{ extern = _n spawn = Node: _n }}\nagent Node {{ Behavior = Skip }}\ncheck {{ P = always {terms} }}\n"
        );
        let f = Scratch::file("hostile", &format!("chain_{name}.labs"), &text);
        let (o, t) = labs(&["info", f.as_str(), "n=1"]);
        assert_eq!(o.status.code(), Some(6), "{name}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(
            (e.contains("expression too long") || e.contains("nesting too deep")) && e.contains(":3:"),
            "{name}: {e}"
        );
        tier::assert_within(t, Duration::from_secs(5), &format!("reading the {name} chain"));
    }
}

#[test]
fn unknown_extern_lists_the_declared_ones() {
    let (o, _) = labs(&["info", &example("leader.labs"), "n=3", "m=4"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("`_m`") && e.contains("declares `_n`"), "{e}");
}

#[test]
fn bad_extern_values_are_usage_errors_whatever_the_value() {
    // n=-1 (a negative spawn count) and n=0 (a quantifier over no agent) are both the
    // command line's fault: the spec is fine with n=3.
    for n in ["n=-1", "n=0"] {
        let (o, _) = labs(&["info", &example("leader.labs"), n]);
        assert_eq!(o.status.code(), Some(2), "{n}: {}", stderr(&o));
    }
}

#[test]
fn simulate_timeout_keeps_the_finished_runs() {
    let (o, t) =
        labs(&["simulate", &example("leader.labs"), "n=60", "--runs", "1000000", "--steps", "200", "--timeout", "1"]);
    assert_eq!(o.status.code(), Some(124), "{}", stderr(&o));
    tier::assert_within(t, Duration::from_millis(2500), "simulate --timeout 1");
    let out = String::from_utf8_lossy(&o.stdout);
    // Beyond 10 runs, one outcome line per run, then the summary of the runs made.
    assert!(out.starts_with("run 1 of 1000000 (seed 0): "), "{out:.300}");
    assert!(out.contains(" of 1000000 runs (at most 200 steps each)"), "{out:.300}");
    assert!(stderr(&o).contains("the finished runs are shown"), "{}", stderr(&o));
}

#[test]
fn lnt_backend_state_bound_is_inconclusive() {
    let (o, _) = labs(&["verify", &example("leader.labs"), "n=3", "--backend", "lnt", "--max-states", "10"]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("--max-states") && !e.contains("emitted LNT:0:0"), "{e}");
}

/// The state bound holds for the composition of a property's leaves too, not only for each
/// leaf: majority's leaves have 68 states each, and the bound is exact at the composition's
/// size (as written without a bound).
#[test]
fn lnt_state_bound_holds_for_the_composition() {
    let out = Scratch::path("hostile", "block.aut");
    let lts = |bound: Option<&str>| {
        let _ = std::fs::remove_file(out.as_str());
        let mut args = vec!["lts", "--property", "NeverAllBlank", "-o", out.as_str()];
        let spec = example("majority.labs");
        args.extend([spec.as_str(), "yes=2", "no=3"]);
        if let Some(b) = bound {
            args.extend(["--max-states", b]);
        }
        let (o, _) = labs(&args);
        (o.status.code(), stderr(&o), std::fs::read_to_string(out.as_str()).ok())
    };
    let (code, e, aut) = lts(None);
    assert_eq!(code, Some(0), "{e}");
    let states = aut_states(&aut.expect("the LTS written"));
    assert!(states > 1000, "{states} states: the composition is larger than every leaf");
    let (code, e, _) = lts(Some(&states.to_string()));
    assert_eq!(code, Some(0), "a bound of {states}: {e}");
    let (code, e, aut) = lts(Some(&(states - 1).to_string()));
    assert_eq!(code, Some(5), "a bound of {}: {e}", states - 1);
    assert!(e.contains("--max-states") && aut.is_none(), "{e}");
}

/// The number of states of an Aldebaran LTS.
fn aut_states(text: &str) -> u64 {
    labs::mcl::read_aut(text).expect("an .aut file").nstates as u64
}

/// `verify --backend lnt --max-states N` bounds the LTSs the script generates, not the pairs
/// the MCL evaluator explores on them (README: "bounds each generated LTS"): a bound equal to
/// the largest composition of majority's leaves (before any minimisation, so no LTS the
/// script generates is larger) decides every property as without a bound; a bound below a
/// leaf's size leaves them unknown (exit 5).
#[test]
fn lnt_state_bound_is_on_the_generated_lts() {
    let spec = example("majority.labs");
    let run = |bound: Option<String>| {
        let mut args = vec!["verify", spec.as_str(), "yes=2", "no=3", "--backend", "lnt", "--json", "-q"];
        let b;
        if let Some(x) = bound {
            b = x;
            args.extend(["--max-states", b.as_str()]);
        }
        let (o, _) = labs(&args);
        let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_default();
        (o.status.code(), stderr(&o), doc)
    };
    let (code, e, free) = run(None);
    assert!(matches!(code, Some(0 | 10)), "{e}");
    let verdicts = |d: &serde_json::Value| {
        d["results"].as_array().map(|r| r.iter().map(|x| x["verdict"].to_string()).collect::<Vec<_>>())
    };
    // The largest LTS generated: a property's composition before its minimisation (`labs lts
    // --property` writes it), larger than every leaf.
    let out = Scratch::path("hostile", "composition.aut");
    let largest = free["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            let p = r["property"].as_str().expect("a property name");
            let (o, _) = labs(&["lts", spec.as_str(), "yes=2", "no=3", "--property", p, "-o", out.as_str()]);
            assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
            aut_states(&std::fs::read_to_string(out.as_str()).expect("the composition written"))
        })
        .max()
        .expect("LTS sizes");
    let (code_at, e, at) = run(Some(largest.to_string()));
    assert_eq!(code_at, code, "a bound of {largest}: {e}");
    assert_eq!(verdicts(&at), verdicts(&free), "a bound of {largest}");
    assert!(verdicts(&at).is_some_and(|v| v.iter().all(|x| x != "\"unknown\"")), "{at}");
    // Below the size of a leaf (each has 68 states), the generation stops.
    let (code, e, below) = run(Some("10".to_string()));
    assert_eq!(code, Some(5), "a bound of 10: {e}");
    assert!(verdicts(&below).is_some_and(|v| v.iter().all(|x| x == "\"unknown\"")), "{below}");
}

/// Runs labs and waits for it with `wait4`, which reports the peak resident memory of that
/// child alone, once the test runs in a process of its own (`isolate`): (exit code, stderr,
/// peak MiB, wall time).
#[allow(clippy::zombie_processes)] // reaped by `wait4`, which `Child::wait` cannot replace
fn labs_peak(args: &[&str]) -> (Option<i32>, String, u64, Duration) {
    use std::io::Read;
    let t = Instant::now();
    let mut child =
        fixtures::labs_command().args(args).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("run labs");
    let mut err = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child; `status` and `usage` are valid for writes.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as libc::pid_t, "wait4");
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    (code, reader.join().expect("stderr reader"), usage.ru_maxrss as u64 / 1024, t.elapsed())
}

#[test]
fn memory_bound_holds_in_the_lnt_interpreter_and_the_composition() {
    if !isolate::in_own_process() {
        return;
    }
    // flock with 3 birds: the compositional workflow's product of the leaves and the monolithic
    // workflow's generation of the whole program, far beyond these bounds. On the fly, flock's
    // two properties are decided (violated) within about 80 MiB, a message being one
    // rendezvous of the program: leader n=8 instead, whose `LeaderIs0` holds and needs the
    // whole program (far beyond 100 MiB).
    let flock = fixtures::path_str("benchmarks/flock.labs");
    let leader = fixtures::path_str("benchmarks/leader.labs");
    let flock3: &[&str] = &[&flock, "birds=3", "delta=1", "grid=4"];
    let leader8: &[&str] = &[&leader, "n=8"];
    for (workflow, spec, bound) in
        [("compositional", flock3, 120u64), ("monolithic", flock3, 100), ("on-the-fly", leader8, 100)]
    {
        let b = bound.to_string();
        let args = [&["verify"], spec, &["--backend", "lnt", "--workflow", workflow, "--memory", &b]].concat();
        let (code, e, peak, t) = labs_peak(&args);
        // `LeaderNot0` is violated (the native verdict): the on-the-fly workflow may decide it
        // before the bound stops `LeaderIs0`, and a violation's exit 10 comes before the
        // bound's 5.
        let decided_first = workflow == "on-the-fly" && code == Some(10);
        assert!(code == Some(5) || decided_first, "{workflow}: exit {code:?}: {e}");
        assert!(e.contains("memory bound"), "{workflow}: {e}");
        assert!(peak <= bound + bound / 10, "{workflow}: peak {peak} MiB for --memory {bound}");
        tier::assert_within(t, Duration::from_secs(60), &format!("reaching the memory bound, {workflow}"));
    }
}

/// A range whose bound comes from a variable with a large value would make one step
/// enumerate millions of choices: `verify` and `simulate` stop at once with a run-time error
/// naming the range (exit 1, with the trace that reaches it).
#[test]
fn a_range_too_wide_to_enumerate_is_an_error_naming_it() {
    let wide = 1i64 << 21;
    let spec = Scratch::file(
        "hostile",
        "wide.labs",
        &format!(
            "system {{\n    environment = y: {wide}; x: 0\n    spawn = P: 1\n}}\n\nagent P {{\n    \
             Behavior = x <-- [0..y]\n}}\n\ncheck {{\n    Natural = always x >= 0\n}}\n"
        ),
    );
    // (`--threads` is an option of `verify` and of `simulate --estimate`/`--sprt` only.)
    for args in [&["verify", spec.as_str(), "--threads", "1"][..], &["simulate", spec.as_str()]] {
        let cmd = args[0];
        let (o, t) = labs(args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{cmd}: {e}");
        assert!(e.contains(&format!("`[0..{wide}]` has {wide} choices")), "{cmd}: {e}");
        tier::assert_within(t, Duration::from_secs(20), &format!("{cmd} of a too wide range"));
    }
}
