//! The command line as users run it: exit codes, messages, JSON, and snapshots of `info`.

use std::process::{Command, Output};

fn labs(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_labs")).args(args).output().expect("run labs")
}

fn shared(rel: &str) -> String {
    format!("{}/../shared/{rel}", env!("CARGO_MANIFEST_DIR"))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn write_temp(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("labs-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn info_describes_the_model() {
    let o = labs(&["info", &shared("benchmarks/twophase.labs"), "workers=3"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("Coord        ids 0..0"), "{out}");
    assert!(out.contains("Worker       ids 1..3"), "{out}");
    assert!(out.contains("InfCommits"), "{out}");
}

#[test]
fn info_json_is_one_document() {
    let o = labs(&["info", &shared("benchmarks/leader.labs"), "_n=4", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["externs"]["_n"], 4);
    assert_eq!(v["agent_types"][0]["ids"], serde_json::json!([0, 3]));
    assert_eq!(v["properties"].as_array().unwrap().len(), 3);
    assert_eq!(v["properties"][2]["modality"], "always");
}

#[test]
fn missing_extern_is_exit_2_with_the_names() {
    let o = labs(&["info", &shared("benchmarks/flock.labs"), "birds=3"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("`_delta`") && err.contains("`_grid`"), "{err}");
    assert!(err.contains("grid=VALUE"), "{err}");
}

#[test]
fn malformed_extern_is_exit_2() {
    let o = labs(&["info", &shared("benchmarks/leader.labs"), "n=three"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("`n=three` is not an extern value"));
}

#[test]
fn unreadable_file_is_exit_2() {
    let o = labs(&["info", "no/such/file.labs"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot read `no/such/file.labs`"));
}

#[test]
fn syntax_error_is_exit_6_with_location_and_snippet() {
    let path =
        write_temp("pipe.labs", "system {\n  spawn = A: 1\n}\nagent A {\n  Behavior = Skip | Skip\n}\ncheck {\n}\n");
    let o = labs(&["info", &path]);
    assert_eq!(o.status.code(), Some(6));
    let err = stderr(&o);
    assert!(err.starts_with("error: a single `|` is not an operator"), "{err}");
    assert!(err.contains("pipe.labs:5:19"), "{err}");
    assert!(err.contains("  Behavior = Skip | Skip\n"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn static_error_is_exit_6() {
    let o = labs(&["info", &shared("semantics-cases/wrongarrow.labs")]);
    assert_eq!(o.status.code(), Some(6));
    let err = stderr(&o);
    assert!(err.contains("wrongarrow.labs:9:16"), "{err}");
    assert!(err.contains("hint: use `<--`"), "{err}");
}

#[test]
fn bad_arguments_are_exit_2() {
    assert_eq!(labs(&["info"]).status.code(), Some(2));
    assert_eq!(labs(&["frobnicate"]).status.code(), Some(2));
}

#[test]
fn values_json_leader() {
    let o = labs(&["values", &shared("benchmarks/leader.labs"), "n=3", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let leader = &v["variables"][0];
    assert_eq!(leader["name"], "leader");
    assert_eq!(leader["agent_type"], "Node");
    assert_eq!(leader["store"], "stigmergy");
    assert_eq!(leader["intervals"], serde_json::json!([[0, 3]]));
}

#[test]
fn values_lists_array_elements_and_undef() {
    let o = labs(&["values", &shared("semantics-cases/undef.labs"), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let names: Vec<&str> = v["variables"].as_array().unwrap().iter().map(|x| x["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"arr[0]") && names.contains(&"arr[1]"), "{names:?}");
    let u = v["variables"].as_array().unwrap().iter().find(|x| x["name"] == "u").unwrap();
    assert_eq!(u["intervals"], serde_json::json!(["undef"]));
}

/// Snapshots of `labs info --json` on the benchmarks (reviewed by hand against the specs:
/// id ranges by name order, stores, tuples, links and property texts).
#[test]
fn info_json_snapshots() {
    let runs: &[(&str, &[&str])] = &[
        ("flock", &["birds=3", "grid=5", "delta=5"]),
        ("formation", &["n=3", "size=10", "range=2"]),
        ("leader", &["n=3"]),
        ("philosophers", &["n=3"]),
        ("twophase", &["workers=2"]),
        ("twophasecommit", &["workers=2"]),
    ];
    for (name, externs) in runs {
        let path = shared(&format!("benchmarks/{name}.labs"));
        let mut args = vec!["info", path.as_str(), "--json"];
        args.extend_from_slice(externs);
        let o = labs(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let mut v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["spec"] = serde_json::json!(format!("{name}.labs"));
        insta::assert_json_snapshot!(format!("info_{name}"), v);
    }
}
