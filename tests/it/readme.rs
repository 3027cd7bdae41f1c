//! The README as a newcomer reads it: its synopses list exactly the options of each command's
//! `--help`, its first set-up command gives the verdicts and exit code it announces, and its
//! CADP walk-through's commands produce and accept the files the next ones read.

use crate::fixtures;

use crate::engine_common;
use crate::lnt_paths;
use crate::scratch;
use crate::tier;

use labs::analysis::values::analyse;
use labs::engine::Verdict;
use labs::lnt::{Dialect, mcl, names::obs_gate};
use labs::lntcheck::backend::{check_properties, emit_lnt, explore};
use scratch::Scratch;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Output;

fn labs_in(dir: &Path, args: &[String]) -> Output {
    fixtures::labs_command().current_dir(dir).args(args).output().expect("run labs")
}

fn readme() -> String {
    fixtures::read("README.md")
}

/// The text of every fenced block of the README, in order, with the heading it is under.
fn code_blocks(text: &str) -> Vec<(String, String)> {
    let mut out = vec![];
    let mut heading = String::new();
    let mut block: Option<String> = None;
    for line in text.lines() {
        if line.starts_with("```") {
            match block.take() {
                Some(b) => out.push((heading.clone(), b)),
                None => block = Some(String::new()),
            }
        } else if let Some(b) = &mut block {
            b.push_str(line);
            b.push('\n');
        } else if line.starts_with('#') {
            heading = line.trim_start_matches('#').trim().to_string();
        }
    }
    out
}

/// Per subcommand, the options its synopses list (a synopsis is a `labs CMD SPEC …` line, or
/// another upper-case placeholder or an option in brackets after CMD, of a
/// code block, with the indented lines that continue it).
fn synopsis_options(text: &str) -> BTreeMap<String, BTreeSet<String>> {
    let option = regex::Regex::new(r"(?:^|[\s\[(|])(--?[a-z][a-z-]*)").unwrap();
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (_, block) in code_blocks(text) {
        let mut current: Option<String> = None;
        for line in block.lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            if words.first() == Some(&"labs")
                && words.get(2).is_some_and(|w| w.starts_with(|c: char| c.is_ascii_uppercase() || c == '['))
            {
                current = Some(words[1].to_string());
            } else if !line.starts_with(' ') {
                current = None;
            }
            if let Some(cmd) = &current {
                let set = out.entry(cmd.clone()).or_default();
                set.extend(option.captures_iter(line).map(|c| c[1].to_string()));
            }
        }
    }
    out
}

/// The options `labs CMD --help` lists, each as its forms (`-q`, `--quiet`), without `--help`.
fn help_options(cmd: &str) -> Vec<Vec<String>> {
    let o = labs_in(fixtures::root(), &[cmd.to_string(), "--help".to_string()]);
    assert_eq!(o.status.code(), Some(0));
    let line = regex::Regex::new(r"^\s+(?:(-[A-Za-z])(?:, |\s|$))?(--[a-z][a-z0-9-]*)?").unwrap();
    let mut out = vec![];
    for l in String::from_utf8_lossy(&o.stdout).lines() {
        let Some(c) = line.captures(l) else { continue };
        let forms: Vec<String> = [c.get(1), c.get(2)].into_iter().flatten().map(|m| m.as_str().to_string()).collect();
        if !forms.is_empty() && !forms.iter().any(|f| f == "--help") {
            out.push(forms);
        }
    }
    out
}

/// The subcommands `labs --help` lists.
fn subcommands() -> Vec<String> {
    let o = labs_in(fixtures::root(), &["--help".to_string()]);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let section = text.split("Commands:").nth(1).expect("a Commands: section");
    let section = section.split("\n\n").next().unwrap_or("");
    section.lines().filter_map(|l| l.split_whitespace().next()).filter(|c| *c != "help").map(str::to_string).collect()
}

#[test]
fn every_synopsis_lists_exactly_the_options_of_help() {
    let synopses = synopsis_options(&readme());
    let commands = subcommands();
    assert!(commands.len() >= 7, "{commands:?}");
    let mut problems = vec![];
    for cmd in &commands {
        let Some(listed) = synopses.get(cmd) else {
            problems.push(format!("labs {cmd}: no synopsis in the README"));
            continue;
        };
        let help = help_options(cmd);
        // A command without options (`labs completions SHELL`) has a synopsis without any.
        assert!(!help.is_empty() || listed.is_empty(), "labs {cmd} --help lists no options");
        for forms in &help {
            if !forms.iter().any(|f| listed.contains(f)) {
                problems.push(format!("labs {cmd}: {} is in --help, not in the README's synopsis", forms.join(", ")));
            }
        }
        for o in listed {
            if !help.iter().any(|forms| forms.contains(o)) {
                problems.push(format!("labs {cmd}: {o} is in the README's synopsis, not in --help"));
            }
        }
    }
    for cmd in synopses.keys() {
        if !commands.contains(cmd) {
            problems.push(format!("the README has a synopsis of `labs {cmd}`, which --help does not list"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The synopsis reader itself: it must see options, continuation lines and short forms.
#[test]
fn the_synopsis_reader_reads_options_of_continued_lines() {
    let text = "```sh\nlabs verify SPEC [NAME=VALUE…] [--fair] [-q]\n            [--backend native|lnt]\n\
                labs verify examples/x.labs --json\n```\n";
    let got = synopsis_options(text);
    let want: BTreeSet<String> = ["--fair", "-q", "--backend"].iter().map(|s| s.to_string()).collect();
    assert_eq!(got.get("verify"), Some(&want));
}

/// The set-up's first command, run as written: the verdicts the README announces (those the
/// example's own `# case:` line derives), and exit 10.
#[test]
fn the_first_set_up_command_gives_the_announced_verdicts_and_exit_10() {
    let text = readme();
    let (_, block) = code_blocks(&text)
        .into_iter()
        .find(|(h, _)| h.starts_with("Set-up"))
        .expect("a set-up section with a code block");
    let first = block.lines().next().unwrap().split('#').next().unwrap().trim().to_string();
    let args: Vec<String> = first
        .strip_prefix("cargo run --release -- ")
        .unwrap_or_else(|| panic!("the first command is not `cargo run --release -- …`: {first}"))
        .split_whitespace()
        .map(str::to_string)
        .collect();
    assert!(block.lines().next().unwrap().contains("exits 10"), "the command's comment announces exit 10");
    let o = labs_in(fixtures::root(), &args);
    assert_eq!(o.status.code(), Some(10), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let got: BTreeMap<String, String> = out
        .lines()
        .take_while(|l| !l.is_empty())
        .map(|l| {
            let mut w = l.split_whitespace();
            (w.next().unwrap().to_string(), w.next().unwrap().to_string())
        })
        .collect();
    // What the README says it prints.
    let set_up = text.split("## Set-up").nth(1).unwrap().split("\n## ").next().unwrap();
    let announced_re = regex::Regex::new(r"`(\w+)\s+(holds|violated)`").unwrap();
    let announced: BTreeMap<String, String> =
        announced_re.captures_iter(set_up).map(|c| (c[1].to_string(), c[2].to_string())).collect();
    assert_eq!(got, announced, "{out}");
    // What the example's author derived by hand.
    let spec = fixtures::read(&args[1]);
    let extern_words = &args[2..];
    let case = spec
        .lines()
        .filter_map(|l| l.strip_prefix("# case:"))
        .find(|c| {
            let (lhs, _) = c.split_once("=>").unwrap();
            lhs.split_whitespace().collect::<Vec<_>>() == extern_words
        })
        .unwrap_or_else(|| panic!("{}: no `# case:` line for {extern_words:?}", args[1]));
    let derived: BTreeMap<String, String> = case
        .split_once("=>")
        .unwrap()
        .1
        .split_whitespace()
        .filter_map(|w| w.split_once('='))
        .filter(|(_, v)| *v == "holds" || *v == "violated")
        .map(|(p, v)| (p.to_string(), v.to_string()))
        .collect();
    assert_eq!(got, derived, "{out}");
}

/// The set-up's test commands, the default tier's and both tiers', are the ones CI runs (with
/// `--locked`), in that order, and the second turns the slow tier on.
#[test]
fn the_set_up_test_commands_are_the_ones_ci_runs() {
    let text = readme();
    let set_up = text.split("## Set-up").nth(1).unwrap().split("\n## ").next().unwrap();
    let readme_commands: Vec<String> = code_blocks(set_up)
        .iter()
        .flat_map(|(_, b)| b.lines().map(|l| l.split(" #").next().unwrap().trim().to_string()).collect::<Vec<_>>())
        .filter(|l| l.contains("cargo test"))
        .collect();
    let ci = fixtures::read(".ci/run");
    // CI keeps the default tier's output (` 2>&1 | tee …`) and runs again, in the slow tier,
    // only the tests that said they left work to it (` -- --exact "${slow[@]}"`).
    let ci_commands: Vec<String> = ci
        .lines()
        .map(str::trim)
        .filter(|l| l.contains("cargo test"))
        .map(|l| l.split(" 2>&1").next().unwrap().split(" -- ").next().unwrap().replace(" --locked", ""))
        .collect();
    assert!(ci.contains(r#"-- --exact "${slow[@]}""#), "the slow tier runs the tests the default tier cut short");
    assert_eq!(readme_commands, ci_commands, "the README's test commands and those of .ci/run");
    assert_eq!(readme_commands.len(), 2, "{readme_commands:?}");
    assert_eq!(readme_commands[1], format!("{}=1 {}", tier::VARIABLE, readme_commands[0]));
}

/// One command of the walk-through, split into words (comments dropped).
fn words(line: &str) -> Vec<String> {
    line.split(" #").next().unwrap().split_whitespace().map(str::to_string).collect()
}

/// The walk-through run as written, from a directory standing for the clone's root: `labs`
/// commands run, `cd` moves, and for CADP's tools (not installed) the files they read must be
/// there and the files they write are named by the emitted script; the diagnostic CADP would
/// write is made from the LNT interpreter's counterexample.
#[test]
fn the_cadp_walk_through_works_as_written() {
    let text = readme();
    let (_, block) = code_blocks(&text)
        .into_iter()
        .find(|(h, b)| h.contains("translate-trace") && b.contains("svl "))
        .expect("a walk-through under `labs translate-trace`");
    let clone = Scratch::path("readme-test", "clone");
    // The clone's examples; the user stands at its root.
    std::fs::create_dir_all(clone.join("examples")).unwrap();
    for f in fixtures::labs_files(&fixtures::examples()) {
        std::fs::copy(&f, clone.join("examples").join(f.file_name().unwrap())).unwrap();
    }
    let mut cwd: PathBuf = clone.to_path_buf();
    let mut svl_script = String::new();
    let mut translated = false;
    for line in block.lines().filter(|l| !l.trim().is_empty()) {
        let w = words(line);
        match w[0].as_str() {
            "labs" => {
                if w[1] == "translate-trace" {
                    write_diagnostic(&cwd, &w);
                }
                let o = labs_in(&cwd, &w[1..]);
                let err = String::from_utf8_lossy(&o.stderr);
                assert_eq!(o.status.code(), Some(0), "{line}\n{err}");
                // The warning `emit` gives for a spec whose leaves would enumerate every value.
                if w[1] == "emit" {
                    assert!(
                        !err.contains("does not bound"),
                        "the walk-through's spec defeats the compositional script:\n{err}"
                    );
                }
                if w[1] == "translate-trace" {
                    let out = String::from_utf8_lossy(&o.stdout);
                    let p = w.iter().position(|x| x == "--property").map(|i| &w[i + 1]).unwrap();
                    assert!(out.contains(&format!("the trace violates {p} ")), "{out}");
                    translated = true;
                }
            }
            "cd" => {
                cwd = cwd.join(&w[1]);
                assert!(cwd.is_dir(), "{line}: no such directory");
            }
            "svl" => {
                let script = cwd.join(&w[1]);
                svl_script = std::fs::read_to_string(&script).unwrap_or_else(|e| panic!("{line}: {e}"));
                assert!(svl_script.contains("DEFAULT_PROCESS_FILE"), "{line}: not the emitted script");
            }
            "bcg_io" => {
                assert!(svl_script.contains(&format!("\"{}\"", w[1])), "{line}: the script does not write {}", w[1]);
                assert!(w[2].ends_with(".aut"), "{line}");
            }
            other => panic!("unexpected command `{other}` in the walk-through"),
        }
    }
    assert!(translated, "the walk-through ends with translate-trace");
}

/// The `labs mcl` section's example, run as written from a directory standing for the clone's
/// root: every command succeeds, and each `labs mcl` prints the verdict and exit code its
/// comment announces (the native verdicts of the examples' properties: NeverAgreed and
/// SomeoneEats are violated), without a warning: every gate its query names is in the LTS the
/// section tells to generate for it.
#[test]
fn the_mcl_example_works_as_written() {
    let text = readme();
    let (_, block) = code_blocks(&text)
        .into_iter()
        .find(|(h, b)| h.contains("labs mcl") && b.contains("labs mcl ") && !b.contains("QUERY.mcl"))
        .expect("an example under `labs mcl`");
    let clone = Scratch::path("readme-test", "mcl");
    std::fs::create_dir_all(clone.join("examples")).unwrap();
    for f in fixtures::labs_files(&fixtures::examples()) {
        std::fs::copy(&f, clone.join("examples").join(f.file_name().unwrap())).unwrap();
    }
    let mut queries = 0;
    for line in block.lines().filter(|l| !l.trim().is_empty()) {
        let w = words(line);
        assert_eq!(w[0], "labs", "{line}");
        let o = labs_in(&clone, &w[1..]);
        let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        let announced = line.split_once(" # ").map(|(_, c)| c.trim().to_string());
        match announced {
            Some(c) => {
                let (verdict, code) = c.split_once(", exit ").unwrap_or_else(|| panic!("{line}: `# VERDICT, exit N`"));
                assert_eq!((o.status.code(), out.trim()), (code.parse().ok(), verdict), "{line}\n{err}");
            }
            None => assert_eq!(o.status.code(), Some(0), "{line}\n{err}"),
        }
        if w[1] == "mcl" {
            assert!(!err.contains("warning"), "{line}\n{err}");
            queries += 1;
        }
    }
    assert!(queries >= 2, "the example evaluates a query of each kind");
    assert!(block.contains("--root Root_"), "the example generates a root process for a linear-time query");
}

/// Writes the `.aut` diagnostic the README's `translate-trace` command reads, as `bcg_io`
/// would convert Evaluator's: the LNT program's counterexample for the property, with only
/// `DONE` and the property's observations visible.
fn write_diagnostic(cwd: &Path, w: &[String]) {
    let spec = cwd.join(&w[2]).to_string_lossy().into_owned();
    let file = w.iter().skip(3).find(|x| x.ends_with(".aut")).expect("an .aut file");
    let externs: Vec<&str> = w.iter().skip(3).filter(|x| x.contains('=')).map(String::as_str).collect();
    let property = w.iter().position(|x| x == "--property").map(|i| w[i + 1].clone()).expect("--property");
    let (m, b) = engine_common::load(&spec, &externs);
    let analysis = analyse(&m, &b);
    let src = emit_lnt(&m, &b, &analysis, "spec", false, Dialect::FALLBACK).unwrap();
    let view = explore(&m, &src, false, Some(1_000_000)).unwrap();
    let r = check_properties(&m, &b, false, &view).unwrap().into_iter().find(|r| r.property == property).unwrap();
    assert_eq!(r.verdict, Verdict::Violated, "the walk-through's property is violated");
    let prop = m.properties.iter().find(|p| p.name == property).unwrap();
    let keep: BTreeSet<String> =
        mcl::build(&m, &analysis, prop).unwrap().vars.iter().map(|&v| obs_gate(&m, v)).collect();
    let path = r.path.as_ref().unwrap();
    let labels = lnt_paths::lts_labels(&view, path, &keep);
    let target = r.loop_start.map(|k| view.real[path[k] as usize]);
    std::fs::write(cwd.join(file), lnt_paths::aut_text(&labels, target)).unwrap();
}

/// The README's table of exit codes is the one after every command's `--help` and in the
/// manual pages, code for code and word for word.
#[test]
fn the_exit_codes_of_the_readme_are_those_of_help_and_the_manual() {
    let text = readme();
    let section = &text[text.find("### Exit codes").expect("an exit-code section")..];
    let rows: Vec<(String, String)> = section
        .lines()
        .skip_while(|l| !l.starts_with("| code"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
            (cells[0].to_string(), cells[1].to_string())
        })
        .collect();
    assert!(rows.len() >= 8, "{rows:?}");
    let stdout = |args: &[&str]| String::from_utf8_lossy(&fixtures::labs(args).stdout).into_owned();
    let manual = stdout(&["manpage"]).replace("\\-", "-");
    for help in [stdout(&["--help"]), stdout(&["verify", "--help"]), stdout(&["simulate", "--help"]), manual] {
        let listed: Vec<(String, String)> = help
            .lines()
            .skip_while(|l| !l.starts_with("Exit codes:"))
            .skip(1)
            .map_while(|l| {
                let (code, meaning) = l.trim().split_once("  ")?;
                Some((code.to_string(), meaning.trim().to_string()))
            })
            .collect();
        assert_eq!(listed, rows, "the exit codes after --help (or in the manual) and the README's differ");
    }
}

/// A command line quoted in a `console` block of the README or docs/*.md: `$ labs …`, then the
/// lines it prints (`…` for any text), `# exit N` (default 0) and `# slow`.
struct Quoted {
    file: String,
    command: Vec<String>,
    expected: Vec<String>,
    exit: i32,
    slow: bool,
}

fn quoted_commands(file: &str, text: &str) -> Vec<Quoted> {
    let mut out: Vec<Quoted> = vec![];
    let mut in_console = false;
    for line in text.lines() {
        if line.starts_with("```") {
            in_console = !in_console && line.trim() == "```console";
            continue;
        }
        if !in_console {
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ ") {
            assert!(!cmd.contains(['|', '>', '<', '\'', '"', '&', ';']), "{file}: not a plain command line: {cmd}");
            let words: Vec<String> = cmd.split_whitespace().map(String::from).collect();
            assert_eq!(words.first().map(String::as_str), Some("labs"), "{file}: {cmd}");
            out.push(Quoted {
                file: file.into(),
                command: words[1..].to_vec(),
                expected: vec![],
                exit: 0,
                slow: false,
            });
        } else {
            let q = out.last_mut().unwrap_or_else(|| panic!("{file}: output before any `$ labs` line: {line}"));
            if let Some(code) = line.strip_prefix("# exit ") {
                q.exit = code.trim().parse().unwrap_or_else(|_| panic!("{file}: {line}"));
            } else if line.trim() == "# slow" {
                q.slow = true;
            } else {
                q.expected.push(line.to_string());
            }
        }
    }
    out
}

/// Whether `got` is the quoted line `want`, where each `…` of `want` stands for any text.
fn line_matches(want: &str, got: &str) -> bool {
    let pattern: Vec<String> = want.split('…').map(regex::escape).collect();
    regex::Regex::new(&format!("^{}$", pattern.join(".*"))).unwrap().is_match(got.trim_end())
}

/// Every quoted line is a line of the output, in order (a lone `…` skips any lines).
fn check_output(q: &Quoted, got: &str) -> Result<(), String> {
    let lines: Vec<&str> = got.lines().collect();
    let mut at = 0;
    for want in q.expected.iter().filter(|w| w.trim() != "…") {
        match lines[at..].iter().position(|g| line_matches(want, g)) {
            Some(k) => at += k + 1,
            None => return Err(format!("line not printed (in this order): {want}")),
        }
    }
    Ok(())
}

fn all_quoted_commands() -> Vec<Quoted> {
    let mut files = vec![fixtures::root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(fixtures::root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    let mut out = vec![];
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let name = f.strip_prefix(fixtures::root()).unwrap().display().to_string();
        out.extend(quoted_commands(&name, &text));
    }
    out
}

/// The docs cannot drift from the tool: each quoted command line runs with the exit code and
/// prints the lines quoted beside it.
#[test]
fn every_quoted_command_line_prints_what_the_docs_say() {
    let all = all_quoted_commands();
    assert!(all.len() >= 3, "the console blocks were not found");
    let slow = all.iter().any(|q| q.slow) && tier::slow("the docs' command lines marked `# slow`, about a minute");
    let mut failures = vec![];
    for q in all.iter().filter(|q| slow || !q.slow) {
        let o = labs_in(fixtures::root(), &q.command);
        let got = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        let mut problems = vec![];
        if o.status.code() != Some(q.exit) {
            problems.push(format!("exit {:?}, the docs say {}", o.status.code(), q.exit));
        }
        if let Err(e) = check_output(q, &got) {
            problems.push(e);
        }
        if !problems.is_empty() {
            failures.push(format!("{}: labs {}: {}\n{got}", q.file, q.command.join(" "), problems.join("; ")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_quoted_output_reader_checks_lines_in_order_and_ellipses() {
    let q = quoted_commands(
        "t.md",
        "```console\n$ labs verify x\nfirst …\n…\nlast 3\n# exit 10\n# slow\n```\n```text\n$ labs no\n```\n",
    );
    assert_eq!(q.len(), 1);
    assert_eq!((q[0].exit, q[0].slow, q[0].command.clone()), (10, true, vec!["verify".to_string(), "x".to_string()]));
    assert!(check_output(&q[0], "first run\nmiddle\nlast 3\n").is_ok());
    assert!(check_output(&q[0], "last 3\nfirst run\n").is_err(), "order");
    assert!(check_output(&q[0], "first run\nlast 4\n").is_err(), "a figure that differs");
}

/// `simulate --help` names both back ends of `--estimate` and `--sprt`, and says the
/// confidence is per property, as docs/statistical.md does.
#[test]
fn the_statistical_options_help_matches_the_docs() {
    let help = fixtures::stdout(&fixtures::labs(&["simulate", "--help"]));
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(flat.matches("native engine or --backend lnt").count(), 2, "{help}");
    assert!(!flat.contains("native only") && !flat.contains("every estimate"), "{help}");
    assert!(flat.contains("the probability that each property's interval holds"), "{help}");
    let doc = fixtures::read("docs/statistical.md");
    assert!(doc.contains("The guarantee holds per property"), "docs/statistical.md");
}
