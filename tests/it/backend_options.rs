//! Options that belong to some back ends only (README, "Options and back ends"): given with
//! another back end, each is a usage error (exit 2) that names the back ends it belongs to,
//! before anything runs; turned on by its environment variable, it is left alone.

use crate::fixtures;
use crate::scratch::Scratch;

/// Runs `labs` without the tests' `LABS_CHECK_ANALYSIS`, so that only the command line counts.
fn labs(args: &[&str]) -> std::process::Output {
    fixtures::labs_command().env_remove("LABS_CHECK_ANALYSIS").args(args).output().expect("run labs")
}

#[test]
fn an_option_of_another_back_end_is_a_usage_error_naming_its_owner() {
    let spec = fixtures::example("leader.labs");
    let dir = Scratch::path("backend-options", "kept");
    let gcf = Scratch::file("backend-options", "grid.gcf", "");
    let hosts = Scratch::file("backend-options", "hosts", "localhost\n");
    // (command, back end, the option and its value, what the message must name)
    let cases: &[(&str, &str, &[&str], &str)] = &[
        ("verify", "native", &["--workflow", "monolithic"], "applies to --backend cadp and --backend lnt"),
        ("verify", "native", &["--keep-files", dir.as_str()], "applies to --backend cadp and --backend lnt"),
        ("verify", "native", &["--cross-check"], "applies to --backend cadp, not"),
        ("verify", "native", &["--lnt-dialect", "2025"], "applies to --backend lnt, not"),
        ("verify", "native", &["--jobs", "2"], "applies to --backend cadp and --backend lnt"),
        ("verify", "native", &["--hosts", hosts.as_str()], "applies to --backend cadp, not"),
        ("verify", "native", &["--distributor", gcf.as_str()], "applies to --backend cadp, not"),
        ("verify", "lnt", &["--threads", "1"], "applies to the native engine (--backend native), not to --backend lnt"),
        ("verify", "lnt", &["--no-reduction"], "applies to the native engine (--backend native), not"),
        ("verify", "lnt", &["--cross-check"], "applies to --backend cadp, not to --backend lnt"),
        ("verify", "lnt", &["--check-analysis"], "applies to the native engine (--backend native), not"),
        (
            "verify",
            "cadp",
            &["--threads", "2"],
            "applies to the native engine (--backend native), not to --backend cadp",
        ),
        ("verify", "cadp", &["--max-states", "9"], "applies to the native engine (--backend native) and --backend lnt"),
        ("verify", "cadp", &["--lnt-dialect", "2023"], "applies to --backend lnt, not to --backend cadp"),
        (
            "simulate",
            "cadp",
            &["--check-analysis"],
            "applies to the native engine (--backend native) and --backend lnt",
        ),
    ];
    for (cmd, backend, option, owner) in cases {
        let args = [&[*cmd, spec.as_str(), "n=3", "--backend", backend][..], option].concat();
        let o = labs(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(&format!("`{}` {owner}", option[0])), "{args:?}: {err}");
        assert!(o.stdout.is_empty() && !err.contains("warning"), "{args:?}: nothing runs: {err}");
    }
}

#[test]
fn options_of_the_chosen_back_end_are_accepted() {
    let spec = fixtures::example("leader.labs");
    for args in [
        &["verify", &spec, "n=3", "--threads", "1", "--no-reduction", "--check-analysis", "--max-states", "100000"][..],
        &["verify", &spec, "n=3", "--backend", "lnt", "--workflow", "monolithic", "--max-states", "100000"],
        &["simulate", &spec, "n=3", "--backend", "lnt", "--check-analysis", "-q"],
    ] {
        let o = labs(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(matches!(o.status.code(), Some(0 | 10)), "{args:?}: {err}");
        assert!(!err.contains("applies to") && !err.contains("warning"), "{args:?}: {err}");
    }
}

/// The environment variable turns the self-check on where it applies and is no error elsewhere
/// (the tests set it for every command).
#[test]
fn the_check_analysis_variable_is_no_error_where_it_does_not_apply() {
    let spec = fixtures::example("leader.labs");
    let o = fixtures::labs(&["verify", &spec, "n=3", "--backend", "lnt", "--property", "LeaderIsMax"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
}
