//! `labs emit` on the command line: files written, byte-identical runs, atomic replacement,
//! unwritable output directory, dialect option.

use crate::fixtures;
use fixtures::labs_command as labs;

use std::path::{Path, PathBuf};

use crate::scratch;
use scratch::Scratch;

fn leader() -> PathBuf {
    fixtures::path("benchmarks/leader.labs")
}

fn tmp(name: &str) -> Scratch {
    Scratch::path("emit", name)
}

fn read_all(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap())
        })
        .collect();
    v.sort();
    v
}

#[test]
fn writes_every_file_identically_twice() {
    let dir = tmp("twice");
    let out = labs().arg("emit").arg(leader()).arg("n=3").arg("-o").arg(&dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let first = read_all(&dir);
    let names: Vec<&str> = first.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "README.txt",
            "leader.lnt",
            "leader.svl",
            "leader_LeaderIs0.mcl",
            "leader_LeaderIs100.mcl",
            "leader_LeaderNot0.mcl",
            "leader_mono.svl",
            "leader_on_the_fly.sh"
        ]
    );
    // A second run replaces the files with the same bytes, leaving no temporary behind.
    let out = labs().arg("emit").arg(leader()).arg("n=3").arg("-o").arg(&dir).output().unwrap();
    assert!(out.status.success());
    assert_eq!(read_all(&dir), first);
}

#[test]
fn property_selection_and_dialect() {
    let dir = tmp("select");
    let out = labs()
        .args(["emit"])
        .arg(leader())
        .args(["n=3", "--property", "LeaderIs0", "--lnt-dialect", "2023", "--fair", "-o"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let files = read_all(&dir);
    assert_eq!(files.len(), 6);
    let lnt = String::from_utf8(files.iter().find(|(n, _)| n == "leader.lnt").unwrap().1.clone()).unwrap();
    assert!(lnt.contains("end select;") && lnt.contains("process Sched"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("LNT dialect 2023"));
}

#[test]
fn unwritable_directory_is_a_clear_error() {
    let file = tmp("file");
    std::fs::write(&file, "not a directory").unwrap();
    let out = labs().arg("emit").arg(leader()).arg("n=3").arg("-o").arg(file.join("sub")).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: cannot write"), "{err}");
}

#[test]
fn unknown_property_and_dialect() {
    let out = labs()
        .arg("emit")
        .arg(leader())
        .args(["n=3", "--property", "Nope", "-o", "/nonexistent-dir-never"])
        .output()
        .unwrap();
    // As `verify --property Nope`: the command line's mistake.
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no property named `Nope`"));
    let out = labs().arg("emit").arg(leader()).args(["n=3", "--lnt-dialect", "2019"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown LNT dialect `2019`"));
}

#[test]
fn refusal_exits_1_naming_the_construct() {
    let dir = tmp("refused");
    let spec = tmp("refused-spec.labs");
    std::fs::write(
        &spec,
        "system { spawn = A: 2 }\nagent A {\n    interface = x: 0\n    Behavior = x <- 1\n}\ncheck { B = (finally x of 0 = 0) and (finally x of 0 = 1) and (finally x of 0 = 2) and (finally x of 0 = 3) and (finally x of 0 = 4) and (finally x of 0 = 5) and (finally x of 0 = 6) and (finally x of 0 = 7) and (finally x of 0 = 8) and (finally x of 0 = 9) and (finally x of 0 = 10) }\n",
    )
    .unwrap();
    let out = labs().arg("emit").arg(&spec).arg("-o").arg(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("more than 10 distinct state predicates"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!dir.exists() || read_all(&dir).is_empty());
}

#[test]
fn paths_with_spaces_and_quotes() {
    let dir = tmp("dir with 'quotes' and \"spaces\"");
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join("my leader's \"spec\".labs");
    std::fs::copy(leader(), &spec).unwrap();
    let out_dir = dir.join("out put");
    let out = labs().arg("emit").arg(&spec).arg("n=3").arg("-o").arg(&out_dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // File and module names are sanitised identifiers; the scripts quote them.
    let svl = std::fs::read_to_string(out_dir.join("my_leader_s_spec.svl")).unwrap();
    assert!(svl.contains("% DEFAULT_PROCESS_FILE=\"my_leader_s_spec.lnt\""));
    assert!(
        svl.contains(
            "verify \"my_leader_s_spec_LeaderIs0.mcl\" with evaluator4 in \"my_leader_s_spec_LeaderIs0.bcg\";"
        )
    );
    let lnt = std::fs::read_to_string(out_dir.join("my_leader_s_spec.lnt")).unwrap();
    assert!(lnt.contains("module my_leader_s_spec is"));
}

#[test]
fn warns_when_the_analysis_leaves_a_variable_unbounded() {
    // counter.labs: `c <-- tmp + 1` after `tmp <- c` widens c and tmp to 0..2^31-1, so the
    // compositional leaves would enumerate 2^31 input values; leader's values are bounded.
    let counter = fixtures::path_str("examples/counter.labs");
    let dir = tmp("unbounded");
    let out = labs().args(["emit", &counter, "n=2", "atomic=0", "-o"]).arg(&dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("does not bound `c` (0..2147483647)"), "{err}");
    assert!(err.contains("monolithic script"), "{err}");
    let dir = tmp("bounded");
    let out = labs().arg("emit").arg(leader()).arg("n=3").arg("-o").arg(&dir).output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("does not bound"));
}

/// The `labs …` command lines of a README.txt, as words (the paths here need no quoting).
fn readme_commands(readme: &str) -> Vec<Vec<String>> {
    readme
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("labs "))
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect()
}

#[test]
fn the_readme_gives_commands_that_run_as_pasted() {
    let dir = tmp("readme");
    let out = labs()
        .arg("emit")
        .arg(leader())
        .args(["n=3", "--property", "LeaderNot0", "--split", "-o"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let readme = std::fs::read_to_string(dir.join("README.txt")).unwrap();
    assert!(readme.contains("Makefile") && readme.contains("make -j"), "{readme}");
    assert!(readme.contains("labs translate-trace "), "{readme}");
    let commands = readme_commands(&readme);
    let lnt: Vec<&Vec<String>> = commands.iter().filter(|c| c.windows(2).any(|w| w == ["--backend", "lnt"])).collect();
    assert_eq!(lnt.len(), 3, "every workflow with --backend lnt: {readme}");
    assert!(commands.iter().any(|c| c.windows(2).any(|w| w == ["--backend", "cadp"])), "{readme}");
    // LeaderNot0 is marked `# unsafe` in benchmarks/leader.labs: violated, exit 10.
    for c in lnt {
        let o = labs().args(c).output().unwrap();
        assert_eq!(o.status.code(), Some(10), "{c:?}: {}", String::from_utf8_lossy(&o.stderr));
        assert!(String::from_utf8_lossy(&o.stdout).starts_with("LeaderNot0  violated"), "{c:?}");
    }
    // Without --split, no word of the jobs.
    let plain = tmp("readme-plain");
    let out = labs().arg("emit").arg(leader()).args(["n=3", "-o"]).arg(&plain).output().unwrap();
    assert!(out.status.success());
    let readme = std::fs::read_to_string(plain.join("README.txt")).unwrap();
    assert!(!readme.contains("Makefile"), "{readme}");
    assert!(readme.contains("--backend lnt"), "{readme}");
}
