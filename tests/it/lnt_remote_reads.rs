//! Remote reads in the LNT encoding (issue 26): a step's repeated reads of one location share a
//! slot, a leaf's offers stay small, and the whole program is generated and gives the native
//! graph. The population protocol `tests/specs/majority_pick.labs` picks another agent, then
//! reads its `state` four times in one assignment.

use crate::fixtures;
use crate::tier;

fn labs(args: &[&str]) -> std::process::Output {
    let o = fixtures::labs_command().args(args).output().expect("run labs");
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    o
}

/// (states, transitions, most transitions leaving one state) of an `.aut` file.
fn aut_sizes(path: &std::path::Path) -> (usize, usize, usize) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let nums: Vec<usize> = header
        .trim_start_matches("des (")
        .trim_end_matches(')')
        .split(',')
        .map(|x| x.trim().parse().unwrap())
        .collect();
    let mut out = vec![0usize; nums[2]];
    for l in lines {
        let src: usize = l.trim_start_matches('(').split(',').next().unwrap().trim().parse().unwrap();
        out[src] += 1;
    }
    (nums[2], nums[1], out.into_iter().max().unwrap_or(0))
}

const SPEC: &str = "tests/specs/majority_pick.labs";

/// A fresh directory for one test's files.
fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("labs-remote-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn four_reads_of_one_location_are_one_slot() {
    let dir = scratch("slot");
    let out = dir.to_string_lossy().into_owned();
    labs(&["emit", &fixtures::path_str(SPEC), "-o", &out]);
    let lnt = std::fs::read_to_string(dir.join("majority_pick.lnt")).unwrap();
    // one remote location (`state of p[0]`) read in one statement: one slot, named 0
    assert!(lnt.contains("ra_0"), "{lnt}");
    assert!(!lnt.contains("ra_1"), "a second slot: {lnt}");
    // the slot (agent, location) is chosen among `state` (attribute location 0) of agents 0 to 2
    assert!(lnt.contains("function rs_0 (ra, rl: Nat) : Bool is"), "{lnt}");
    // the value travels on a read gate, not on TICK, which carries the actor alone
    // (send offers without `!`: the 2024-d forms labs writes without an installation)
    assert!(lnt.contains("TICK (id) where"), "{lnt}");
    assert!(lnt.contains("RDO_1 (rl_0, ?rv_0)"), "{lnt}");
    // each reader-owner pair has its own gate, in the interfaces of those two agents alone
    for (r, o) in [(0, 1), (1, 2), (2, 0)] {
        let gate = format!("RD_{r}_{o}");
        let users: Vec<&str> = lnt
            .lines()
            .filter_map(|l| l.split_once("->").map(|(iface, _)| iface))
            .filter(|iface| iface.split([',', ' ', '|']).any(|g| g == gate))
            .collect();
        assert_eq!(users.len(), 2, "{gate}: {users:?}");
    }
}

/// A spec whose type `A` (agents 0 to 4) sums `v` of agents 0 to `reads - 1` in one step:
/// `reads` distinct remote locations. Agent 5 (type `B`) neither reads nor is read.
fn distinct_reads_spec(reads: usize) -> String {
    let sum: Vec<String> = (0..reads).map(|i| format!("(v of {i})")).collect();
    format!(
        "system {{\n    spawn = A: 5, B: 1\n}}\n\
         agent A {{\n    interface = v: 0..2; s: 0\n    Behavior = s <- ({}) % 2; Behavior\n}}\n\
         agent B {{\n    interface = w: 0\n    Behavior = w <- 1 - w; Behavior\n}}\n\
         check {{\n    S = always forall A a, s of a < 2\n}}\n",
        sum.join(" + ")
    )
}

#[test]
fn distinct_reads_cost_the_other_leaves_nothing() {
    let dir = scratch("distinct");
    let mut first: Option<Vec<(usize, usize, usize)>> = None;
    for reads in 1..=4 {
        let spec = dir.join(format!("reads{reads}.labs"));
        std::fs::write(&spec, distinct_reads_spec(reads)).unwrap();
        let spec = spec.to_string_lossy().into_owned();
        let sizes: Vec<(usize, usize, usize)> = ["0", "4", "5"]
            .iter()
            .map(|leaf| {
                let aut = dir.join(format!("r{reads}_{leaf}.aut"));
                labs(&["lts", &spec, "--leaf", leaf, "-o", &aut.to_string_lossy()]);
                aut_sizes(&aut)
            })
            .collect();
        let base = first.get_or_insert_with(|| sizes.clone());
        // Agent 5 takes part in no read: its leaf does not depend on how many locations the
        // others read (with the values on TICK it grew threefold per location read).
        assert_eq!(sizes[2], base[2], "agent 5's leaf with {reads} reads");
        // A read is a rendezvous of its reader and its owner: from one state, an agent offers
        // each value of one read at a time, never the combinations of several.
        for (leaf, (now, one)) in sizes.iter().zip(base.iter()).enumerate() {
            assert!(now.2 <= 2 * one.2, "leaf #{leaf}, {reads} reads: {now:?} against {one:?} for one read");
        }
        // the verdict is the native one (`s` is a remainder modulo 2)
        let out = labs(&["verify", &spec, "--backend", "lnt"]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.lines().any(|l| l.split_whitespace().collect::<Vec<_>>() == ["S", "holds"]), "{text}");
    }
}

#[test]
fn leaves_offer_few_transitions_per_state() {
    let dir = scratch("leaves");
    for leaf in ["0", "1", "2"] {
        let aut = dir.join(format!("leaf{leaf}.aut"));
        labs(&["lts", &fixtures::path_str(SPEC), "--leaf", leaf, "-o", &aut.to_string_lossy()]);
        let (states, _, most) = aut_sizes(&aut);
        // Yielding: 2 other actors × (unused slot, own state, 2 other agents × 3 values) = 16;
        // acting: 2 candidates × 3 values read; the target is 50.
        assert!(most <= 50, "leaf {leaf}: {most} transitions from one state ({states} states)");
        assert!(states > 1, "leaf {leaf}");
    }
}

#[test]
fn whole_program_is_generated() {
    let dir = scratch("main");
    for fair in [false, true] {
        let aut = dir.join("main.aut");
        let mut args = vec!["lts", SPEC, "-o"];
        let a = aut.to_string_lossy().into_owned();
        args.push(&a);
        if fair {
            args.push("--fair");
        }
        let spec = fixtures::path_str(SPEC);
        args[1] = &spec;
        let start = std::time::Instant::now();
        labs(&args);
        tier::assert_within(start.elapsed(), std::time::Duration::from_secs(60), &format!("labs lts, fair={fair}"));
        let (states, transitions, _) = aut_sizes(&aut);
        // at least the 26 (free) or 73 (round-robin) LAbS states of the native engine
        assert!(states >= if fair { 73 } else { 26 }, "fair={fair}: {states} states");
        assert!(transitions >= states, "fair={fair}");
    }
}

/// Every cycle of the program's LTS goes through `DONE` or `ABANDON`: the reads of an
/// abandoned attempt never loop on their own, which is what lets `finally` ignore attempts by
/// not following `ABANDON` (docs/lnt-encoding.md §3, §5).
#[test]
fn every_cycle_goes_through_done_or_abandon() {
    let dir = scratch("cycles");
    for (spec, fair) in [(SPEC, false), (SPEC, true)] {
        let aut = dir.join("main.aut");
        let spec = fixtures::path_str(spec);
        let a = aut.to_string_lossy().into_owned();
        let mut args = vec!["lts", spec.as_str(), "-o", a.as_str()];
        if fair {
            args.push("--fair");
        }
        labs(&args);
        let text = std::fs::read_to_string(&aut).unwrap();
        let (states, _, _) = aut_sizes(&aut);
        let mut succ = vec![vec![]; states];
        let mut indegree = vec![0usize; states];
        let mut abandons = 0;
        for l in text.lines().skip(1) {
            let inner = l.trim().trim_start_matches('(').trim_end_matches(')');
            let (src, rest) = inner.split_once(',').unwrap();
            let (label, dst) = rest.rsplit_once(',').unwrap();
            let label = label.trim().trim_matches('"');
            if label == "ABANDON" {
                abandons += 1;
            }
            if label == "DONE" || label == "ABANDON" {
                continue;
            }
            let (s, d): (usize, usize) = (src.trim().parse().unwrap(), dst.trim().parse().unwrap());
            succ[s].push(d);
            indegree[d] += 1;
        }
        // Kahn: the other transitions form no cycle iff every state gets removed.
        let mut ready: Vec<usize> = (0..states).filter(|&s| indegree[s] == 0).collect();
        let mut removed = 0;
        while let Some(s) = ready.pop() {
            removed += 1;
            for &d in &succ[s] {
                indegree[d] -= 1;
                if indegree[d] == 0 {
                    ready.push(d);
                }
            }
        }
        assert_eq!(removed, states, "{spec} fair={fair}: a cycle without DONE or ABANDON");
        // the specs do abandon attempts (a picked agent whose state disables nothing is read
        // and the attempt goes on; some attempt is given up)
        assert!(abandons > 0, "{spec} fair={fair}: no ABANDON");
    }
}
