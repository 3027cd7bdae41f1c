//! `verify --keep-files DIR` (`--backend lnt` and `cadp`): DIR is created if missing (its
//! parent must exist), used if empty, or emptied first when an earlier run kept its files
//! there (it holds `.labs-kept`), so that nothing in it is older than the run; any other
//! directory is refused (exit 2) and left as it was.

use crate::fixtures::{self, example, stderr};
use crate::scratch::Scratch;
use std::path::Path;

fn verify_lnt(dir: &str, extra: &[&str]) -> std::process::Output {
    let spec = example("leader.labs");
    let mut args = vec!["verify", spec.as_str(), "n=3", "--backend", "lnt", "--keep-files", dir];
    args.extend_from_slice(extra);
    fixtures::labs(&args)
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn a_reused_directory_keeps_nothing_of_the_earlier_run() {
    let d = Scratch::path("keep-files-reused", "kept");
    // Every property: NeverAgreed and LeaderIsZero are violated, their diagnostics written.
    let o = verify_lnt(d.as_str(), &[]);
    assert_eq!(o.status.code(), Some(10), "{}", stderr(&o));
    assert!(d.join("leader_NeverAgreed_diag.aut").is_file(), "{:?}", names(&d));
    assert!(d.join(".labs-kept").is_file(), "{:?}", names(&d));
    // Then LeaderIsMax alone: nothing of the earlier run's other properties is left.
    let o = verify_lnt(d.as_str(), &["--property", "LeaderIsMax"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let left = names(&d);
    assert!(!left.iter().any(|f| f.contains("NeverAgreed") || f.contains("LeaderIsZero")), "stale files: {left:?}");
    assert!(d.join("leader_LeaderIsMax.mcl").is_file(), "{left:?}");
}

#[test]
fn a_directory_labs_did_not_write_is_refused_untouched() {
    let d = Scratch::path("keep-files-foreign", "mine");
    std::fs::create_dir(&*d).unwrap();
    std::fs::write(d.join("leader.lnt"), "my own file\n").unwrap();
    let o = verify_lnt(d.as_str(), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not empty") && stderr(&o).contains(".labs-kept"), "{}", stderr(&o));
    assert_eq!(names(&d), ["leader.lnt"]);
    assert_eq!(std::fs::read_to_string(d.join("leader.lnt")).unwrap(), "my own file\n");
    // A file where the directory should be.
    let f = Scratch::file("keep-files-file", "f", "x");
    let o = verify_lnt(f.as_str(), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not a directory"), "{}", stderr(&o));
}

#[test]
fn missing_parents_are_not_created() {
    let d = Scratch::path("keep-files-parents", "a");
    let target = d.join("b").join("c");
    let o = verify_lnt(target.to_str().unwrap(), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("does not exist") && e.contains(&d.join("b").display().to_string()), "{e}");
    assert!(!d.exists(), "nothing is created");
    // The directory itself is created when its parent exists.
    std::fs::create_dir(&*d).unwrap();
    let o = verify_lnt(d.join("b").to_str().unwrap(), &["--property", "LeaderIsMax"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(d.join("b").join("leader.lnt").is_file());
}
