//! `labs-bench --peer spin` without SPIN: a clear message and exit 2 (usage), never a
//! panic; and its flags are checked before anything runs.

use std::process::Command;

fn bench(args: &[&str], path: &str) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_labs-bench")).args(args).env("PATH", path).output().expect("run");
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn without_spin_the_peer_comparison_says_so_and_exits_2() {
    // An empty PATH finds neither `spin` nor `cc`.
    let (code, err) = bench(&["--peer", "spin", "--n", "5"], "");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("`spin` is not installed"), "{err}");
}

#[test]
fn peer_flags_are_checked() {
    let path = std::env::var("PATH").unwrap_or_default();
    for (args, message) in [
        (&["--peer", "nusmv"][..], "--peer needs a peer: spin"),
        (&["--peer", "spin", "--n", "1"][..], "--n needs a number >= 2"),
        (&["--peer", "spin", "--n", "x"][..], "--n needs a number >= 2"),
    ] {
        let (code, err) = bench(args, &path);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: {err}");
    }
}
