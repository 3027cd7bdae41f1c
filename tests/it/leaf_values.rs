//! An agent's leaf of the compositional script, generated alone (`labs lts --leaf ID`), stays
//! within the analysed sets (docs/lnt-encoding.md §4, "Leaves generated alone stay within the
//! analysed sets"): every value it shows on an observation label lies in the set `labs values`
//! gives for that variable and the agent's type. The leaf receives on its inputs every value
//! their domains allow, so a value outside the sets is one the composed system never has, and
//! the tests the emitter leaves out on the analysed values would not protect it (an overflow
//! stopping the leaf's generation where the system has no error).

use crate::fixtures;
use crate::scratch::Scratch;
use crate::specgen::generate;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// The analysed values of a variable: intervals, and whether ⊥ is among them.
#[derive(Debug, Default)]
struct Set {
    intervals: Vec<(i64, i64)>,
    undef: bool,
}

fn run(args: &[&str]) -> std::process::Output {
    fixtures::labs_command().args(args).output().expect("run labs")
}

/// Checks every agent's leaf of `spec`: the number of labelled values checked, or what broke
/// the invariant (a value outside its set, or a leaf that could not be generated).
fn check_leaves(spec: &Path, externs: &[String]) -> Result<usize, String> {
    let spec = spec.to_string_lossy().into_owned();
    let mut base: Vec<&str> = vec![spec.as_str()];
    base.extend(externs.iter().map(String::as_str));
    let json = |cmd: &str| -> Value {
        let mut args = vec![cmd];
        args.extend(&base);
        args.push("--json");
        serde_json::from_slice(&run(&args).stdout).unwrap_or_else(|e| panic!("{cmd} {spec}: {e}"))
    };
    // (type or None for the environment, upper-cased name) -> set
    let mut sets: BTreeMap<(Option<String>, String), Set> = BTreeMap::new();
    let mut lowest = 0i64;
    for v in json("values")["variables"].as_array().unwrap() {
        let mut s = Set::default();
        for i in v["intervals"].as_array().unwrap() {
            match i {
                Value::String(u) if u == "undef" => s.undef = true,
                Value::Array(b) => {
                    let (lo, hi) = (b[0].as_i64().unwrap(), b[1].as_i64().unwrap());
                    lowest = lowest.min(lo);
                    s.intervals.push((lo, hi));
                }
                other => panic!("{spec}: interval {other}"),
            }
        }
        let name = v["name"].as_str().unwrap().split('[').next().unwrap().to_ascii_uppercase();
        sets.insert((v["agent_type"].as_str().map(str::to_string), name), s);
    }
    // The program's ⊥ in the stores and labels: one less than every analysed value and 0.
    let undef = lowest.max(i32::MIN as i64 + 1) - 1;
    let mut types = vec![];
    for t in json("info")["agent_types"].as_array().unwrap() {
        let ids = t["ids"].as_array().unwrap();
        if t["count"].as_u64().unwrap() > 0 {
            types.push((t["name"].as_str().unwrap().to_string(), ids[0].as_u64().unwrap(), ids[1].as_u64().unwrap()));
        }
    }
    let type_of = |a: u64| types.iter().find(|(_, lo, hi)| (*lo..=*hi).contains(&a)).map(|(n, _, _)| n.clone());
    let mut checked = 0;
    for (_, lo, hi) in &types {
        for id in *lo..=*hi {
            let mut args = base.clone();
            let id_text = id.to_string();
            args = [vec!["lts"], args, vec!["--leaf", &id_text, "--max-states", "30000", "-o", "-"]].concat();
            let o = run(&args);
            match o.status.code() {
                Some(0) => {}
                // A leaf beyond the bound, one the encoding cannot generate alone (inputs the
                // analysis does not bound), or a spec it refuses: nothing to check.
                Some(5) => continue,
                Some(1)
                    if ["unbounded input offer", "does not support"]
                        .iter()
                        .any(|w| String::from_utf8_lossy(&o.stderr).contains(w)) =>
                {
                    continue;
                }
                _ => return Err(format!("leaf {id}: {}", String::from_utf8_lossy(&o.stderr))),
            }
            for line in String::from_utf8_lossy(&o.stdout).lines().skip(1) {
                let Some(label) = line.split('"').nth(1) else { continue };
                let parts: Vec<&str> = label.split(" !").collect();
                let (owner, value) = match parts[0].split_once('_') {
                    Some(("A" | "L", _)) if parts.len() == 4 => (type_of(parts[1].parse().unwrap()), parts[3]),
                    Some(("E", _)) if parts.len() == 3 => (None, parts[2]),
                    _ => continue,
                };
                let name = parts[0][2..].to_string();
                let Some(set) = sets.get(&(owner.clone(), name.clone())) else { continue };
                let v: i64 = value.parse().unwrap();
                let inside =
                    if v == undef { set.undef } else { set.intervals.iter().any(|(a, b)| (*a..=*b).contains(&v)) };
                if !inside {
                    return Err(format!(
                        "leaf {id}: `{label}`: {v} is outside the analysed set of {name} ({owner:?}): {set:?}"
                    ));
                }
                checked += 1;
            }
        }
    }
    Ok(checked)
}

/// The semantics case of the issue: agent 0 writes `(x of 1) - 1` where agent 1 (another
/// type) only holds 0; its leaf must not read -1 from agent 1 and store -2, ⊥'s value.
#[test]
fn a_reader_s_leaf_writes_only_analysed_values() {
    let checked = check_leaves(&fixtures::cases().join("leaf_read_owner.labs"), &[]).unwrap_or_else(|e| panic!("{e}"));
    assert!(checked > 0, "no observation label checked");
}

/// Random specs that write values read from agents of another type (`x <- (x of 3) - 1`).
#[test]
fn random_readers_leaves_write_only_analysed_values() {
    let mut failures = vec![];
    let (mut specs, mut checked) = (0, 0);
    for seed in (0..400).filter(|&s| generate(s).foreign_reads > 0).take(20) {
        let g = generate(seed);
        let file = Scratch::file("leaf-values", &format!("seed{seed}.labs"), &g.text);
        match check_leaves(&file, &g.externs) {
            Ok(n) => {
                specs += 1;
                checked += n;
            }
            Err(e) => failures.push(format!("seed {seed}: {e}\n{}", g.text)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(specs >= 10 && checked > 100, "{specs} specs, {checked} values checked");
}
