//! Program states per LAbS state (docs/lnt-encoding.md §7, "Program states per LAbS state"):
//! the states of the emitted program's `MAIN` (`labs lts`, what CADP's generator and the
//! on-the-fly workflow explore) against the states of the semantics (`verify --exhaustive
//! --no-reduction`, an independent count by the native engine), on the benchmark instances of
//! `labs-bench --lnt-table --quick`.

use crate::fixtures;
use crate::scratch::Scratch;

/// The states of `MAIN`'s LTS, from the header `des (initial, transitions, states)`.
fn program_states(args: &[&str], out: &Scratch) -> u64 {
    let path = out.to_string_lossy().into_owned();
    let o = fixtures::labs(&[&["lts"], args, &["-q", "-o", &path, "--max-states", "200000"]].concat());
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", fixtures::stderr(&o));
    let text = std::fs::read_to_string(&**out).unwrap();
    let header = text.lines().next().unwrap_or_default();
    let fields: Vec<&str> = header.trim_start_matches("des (").trim_end_matches(')').split(',').collect();
    assert_eq!(fields.len(), 3, "{header}");
    fields[2].trim().parse().unwrap_or_else(|e| panic!("{header}: {e}"))
}

/// The states of the semantics, from `verify`'s summary line `N states, …`.
fn labs_states(args: &[&str]) -> u64 {
    let o = fixtures::labs(&[&["verify"], args, &["--exhaustive", "--no-reduction"]].concat());
    assert!(matches!(o.status.code(), Some(0 | 10)), "{args:?}: {}", fixtures::stderr(&o));
    let text = format!("{}{}", fixtures::stdout(&o), fixtures::stderr(&o));
    let line = text.lines().find(|l| l.contains(" states, ")).unwrap_or_else(|| panic!("{args:?}: {text}"));
    line.split(' ').next().unwrap().parse().unwrap_or_else(|e| panic!("{line}: {e}"))
}

/// Each instance and the most program states per LAbS state its program may have. A message
/// is one rendezvous of every agent and its tuple's `Timestamps`, so after it only the
/// receivers' observation labels remain, whose intermediate states depend on the post-state
/// alone; an agent step is its `TICK`, a `REFRESH` per written tuple and its observation labels.
/// The target, at most 4, holds where the steps are messages and agent steps, but for leader
/// n=4, whose agent steps keep a state after `TICK` (before `REFRESH`) and after `REFRESH`
/// (before the write's label) per step; with environment writes (`SETENV`, then the write's
/// label) and remote reads (`TRY`, then a rendezvous per location read, before `TICK`) each
/// step keeps more intermediate states (docs/lnt-encoding.md §7): these bounds are the ones
/// reached, which a change of the encoding must not exceed. With a rendezvous per receiver
/// after each message, leader n=4 had 22.3, twophase 12.5, leader n=3 9.1.
const INSTANCES: &[(&str, &[&str], f64)] = &[
    ("benchmarks/leader.labs", &["n=3"], 4.0),
    ("benchmarks/leader.labs", &["n=4"], 4.4),
    ("benchmarks/twophase.labs", &["workers=2"], 4.0),
    ("benchmarks/flock.labs", &["birds=2", "delta=1", "grid=3"], 4.0),
    ("benchmarks/philosophers.labs", &["n=3"], 4.7),
    ("examples/majority.labs", &["yes=1", "no=2"], 21.5),
];

#[test]
fn program_states_per_labs_state_stay_within_their_bounds() {
    let mut failures = vec![];
    for (i, (spec, externs, bound)) in INSTANCES.iter().enumerate() {
        let spec = fixtures::path_str(spec);
        let args: Vec<&str> = std::iter::once(spec.as_str()).chain(externs.iter().copied()).collect();
        let out = Scratch::path("lnt-state-ratio", &format!("main{i}.aut"));
        let program = program_states(&args, &out);
        let labs = labs_states(&args);
        assert!(program >= labs, "{args:?}: {program} program states, fewer than the {labs} LAbS states");
        let ratio = program as f64 / labs as f64;
        if ratio > *bound {
            failures.push(format!("{args:?}: {program} / {labs} = {ratio:.2} > {bound}"));
        }
    }
    assert!(failures.is_empty(), "program states per LAbS state:\n{}", failures.join("\n"));
}
