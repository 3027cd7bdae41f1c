//! The compositional script split into independent jobs (`labs emit --split`, and `--jobs` /
//! `--hosts` with `--backend cadp`): one job per distinct leaf (the leaf instance with its
//! per-leaf `hide`, reduced as the block's `root leaf` reduction reduces it, with its `hold`
//! gates), then one job per property that composes its leaves' `.bcg` files as the block
//! composes the leaves (`par`, `total prio`, `hide all but`), reduces the result and verifies
//! the query. Reducing each leaf, composing and reducing the whole is what `root leaf`
//! reduction does, so the verdicts are the single script's.
//!
//! Each job runs in a directory of its own, `NAME/`, beside the single script: CADP compiles
//! the program (`generator`, `*.o`, `*.err`) into the current directory, so concurrent jobs
//! must not share one. A job's directory holds its script as `job.svl`, its inputs copied from
//! the output directory (the program; the query), and, for a property job, the `.bcg` of each
//! leaf it reads, copied from that leaf's directory.
//!
//! The split is made from the single script's text (parsed by `lntcheck::svl`), so the two
//! cannot drift apart.

use crate::lnt::{EmittedFile, svl::script_file};
use crate::lntcheck::LntcheckError;
use crate::lntcheck::svl::{self, Beh};
use std::fmt::Write;

/// One job of a split script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// Its script is `NAME.svl` beside the single script; it runs in the directory `NAME/`.
    pub name: String,
    /// The text of `NAME.svl`.
    pub(crate) script: String,
    /// Files of the output directory the job reads (copied into its directory).
    pub(crate) inputs: Vec<String>,
    /// The leaf jobs whose LTS (`L/L.bcg`) it reads (copied into its directory).
    pub(crate) needs: Vec<String>,
    /// A property job: the property (its identifier in the script) and the diagnostic file
    /// Evaluator writes into the job's directory.
    pub property: Option<(String, String)>,
}

impl Job {
    /// The LTS a leaf job writes into its directory.
    pub(crate) fn output(&self) -> String {
        format!("{}.bcg", self.name)
    }

    /// The log svl writes for the job's script, in its directory.
    pub(crate) const LOG: &'static str = "job.log";
    /// The name of the job's script inside its directory.
    pub const SCRIPT: &'static str = "job.svl";
    /// The `Makefile`'s target for a property job: written only once svl succeeded, since svl
    /// writes its log also when the job fails (a failed job is then run again).
    pub(crate) const STAMP: &'static str = "job.done";
}

/// The jobs of a compositional script: the leaves first (independent of each other), then the
/// properties (each reading some leaves), both in script order.
#[derive(Clone, Debug, Default)]
pub struct Split {
    pub(crate) leaves: Vec<Job>,
    pub(crate) properties: Vec<Job>,
}

impl Split {
    /// Every job, in an order that runs each after the jobs it needs.
    pub fn jobs(&self) -> impl Iterator<Item = &Job> {
        self.leaves.iter().chain(&self.properties)
    }
}

/// Splits the compositional script `text` (named `script_name`, emitted with base name
/// `base`).
pub fn split(base: &str, script_name: &str, text: &str) -> Result<Split, LntcheckError> {
    let script = svl::parse_named(text, script_name)?;
    let lnt = script
        .process_file
        .clone()
        .ok_or_else(|| LntcheckError::Syntax(format!("{script_name}: no DEFAULT_PROCESS_FILE")))?;
    if !script.derived.is_empty() {
        return Err(LntcheckError::Unsupported(format!("{script_name}: only the compositional script can be split")));
    }
    let mut out = Split::default();
    // (reduction, hold, leaf text) of each leaf job, to share identical leaves between properties
    let mut keys: Vec<(String, Vec<String>, String)> = vec![];
    for v in &script.verifies {
        let b = script.blocks.iter().find(|b| b.bcg == v.bcg).ok_or_else(|| {
            LntcheckError::Unsupported(format!("{script_name}: property {} verifies no `root leaf` block", v.property))
        })?;
        let mut needs = vec![];
        let composed = replace_leaves(&b.beh, &mut |leaf| {
            let key = (b.reduction.clone(), b.hold.clone(), print(leaf));
            let k = match keys.iter().position(|k| *k == key) {
                Some(k) => k,
                None => {
                    let name = format!("{base}_leaf_{}", keys.len() + 1);
                    out.leaves.push(Job {
                        script: leaf_script(script_name, &lnt, &name, &b.reduction, &b.hold, leaf),
                        name,
                        inputs: vec![lnt.clone()],
                        needs: vec![],
                        property: None,
                    });
                    keys.push(key);
                    keys.len() - 1
                }
            };
            let job = &out.leaves[k];
            if !needs.contains(&job.name) {
                needs.push(job.name.clone());
            }
            Beh::File(job.output())
        });
        let name = format!("{base}_prop_{}", v.property);
        let mut s = String::new();
        let _ = writeln!(
            s,
            "(* Generated by labs emit --split from {script_name}: property {}, the LTSs of its leaves\n   \
             (computed by the jobs {}) composed as in {script_name}, reduced and verified.\n   \
             Run in its own directory, with those LTSs and the files it names beside it: svl {} *)\n",
            v.property,
            needs.join(", "),
            Job::SCRIPT
        );
        let _ = writeln!(s, "% DEFAULT_PROCESS_FILE={}\n", quote(&lnt));
        if let Some(c) = property_comment(text, &v.property).or_else(|| block_comment(text, &quote(&b.bcg))) {
            let _ = writeln!(s, "{c}");
        }
        let _ = writeln!(
            s,
            "{} = {}\n   of\n   (\n   {}\n   );\n",
            quote(&b.bcg),
            reduction_text(&b.reduction, &b.hold),
            indent(&print(&composed), "   ")
        );
        let _ = writeln!(
            s,
            "property {}\nis\n   {};\n   expected {}\nend property",
            v.property,
            v.statement(quote),
            v.expected
        );
        out.properties.push(Job {
            name,
            script: s,
            inputs: vec![lnt.clone(), v.mcl.clone()],
            needs,
            property: Some((v.property.clone(), v.diag.clone())),
        });
    }
    Ok(out)
}

/// The `(* property P: … *)` line of property `property` (a property whose LTS is an earlier
/// one's has it above a comment instead of a block).
fn property_comment<'t>(text: &'t str, property: &str) -> Option<&'t str> {
    let start = format!("(* property {property}: ");
    text.lines().find(|l| l.starts_with(&start) && l.ends_with(" *)"))
}

/// The comment that introduces the block defining `bcg` (quoted) in the single script: the
/// property and its text, `(* property P: always … *)`.
fn block_comment<'t>(text: &'t str, bcg: &str) -> Option<&'t str> {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().position(|l| l.strip_prefix(bcg).is_some_and(|r| r.starts_with(" = ")))?;
    let above = *lines.get(at.checked_sub(1)?)?;
    (above.starts_with("(* property ") && above.ends_with(" *)")).then_some(above)
}

/// The script of one leaf job.
fn leaf_script(script_name: &str, lnt: &str, name: &str, reduction: &str, hold: &[String], leaf: &Beh) -> String {
    format!(
        "(* Generated by labs emit --split from {script_name}: one leaf, generated alone and reduced as\n   \
         the root leaf reduction of {script_name} reduces it. Run in its own directory, with {lnt}\n   \
         beside it: svl {} *)\n\n% DEFAULT_PROCESS_FILE={}\n\n{} = {}\n   of\n   {};\n",
        Job::SCRIPT,
        quote(lnt),
        quote(&format!("{name}.bcg")),
        reduction_text(reduction, hold),
        print(leaf)
    )
}

fn reduction_text(reduction: &str, hold: &[String]) -> String {
    if hold.is_empty() {
        format!("{reduction} reduction")
    } else {
        format!("{reduction} reduction\n   hold {}", hold.iter().map(|h| quote(h)).collect::<Vec<_>>().join(", "))
    }
}

/// `b` with each leaf (a process instance, with its per-leaf `hide` if it has one) replaced by
/// what `f` makes of it.
fn replace_leaves(b: &Beh, f: &mut dyn FnMut(&Beh) -> Beh) -> Beh {
    match b {
        Beh::Call { .. } | Beh::File(_) => f(b),
        Beh::Hide { body, .. } if matches!(**body, Beh::Call { .. }) => f(b),
        Beh::Hide { gates, body } => Beh::Hide { gates: gates.clone(), body: Box::new(replace_leaves(body, f)) },
        Beh::HideAllBut { gates, body } => {
            Beh::HideAllBut { gates: gates.clone(), body: Box::new(replace_leaves(body, f)) }
        }
        Beh::Prio { chains, body } => Beh::Prio { chains: chains.clone(), body: Box::new(replace_leaves(body, f)) },
        Beh::Par { global, branches } => Beh::Par {
            global: global.clone(),
            branches: branches.iter().map(|(i, k)| (i.clone(), replace_leaves(k, f))).collect(),
        },
    }
}

/// A double-quoted SVL string.
fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn indent(text: &str, by: &str) -> String {
    text.replace('\n', &format!("\n{by}"))
}

/// A behaviour in the SVL syntax `lntcheck::svl` reads (one operator per line).
fn print(b: &Beh) -> String {
    match b {
        Beh::Call { .. } => svl::call_text(b),
        Beh::File(f) => quote(f),
        Beh::Hide { gates, body } if matches!(**body, Beh::Call { .. }) => {
            format!("hide {} in {} end hide", gates.join(", "), print(body))
        }
        Beh::Hide { gates, body } => {
            format!("hide {} in\n   {}\nend hide", gates.join(", "), indent(&print(body), "   "))
        }
        Beh::HideAllBut { gates, body } => {
            format!("hide all but {} in\n   {}\nend hide", gates.join(", "), indent(&print(body), "   "))
        }
        Beh::Prio { chains, body } => {
            let chains: Vec<String> = chains
                .iter()
                .map(|c| format!("   {}", c.iter().map(|p| quote(p)).collect::<Vec<_>>().join(" > ")))
                .collect();
            format!("total prio\n{}\nin\n   {}\nend prio", chains.join("\n"), indent(&print(body), "   "))
        }
        Beh::Par { global, branches } => {
            let mut s = String::from("par");
            if !global.is_empty() {
                let _ = write!(s, " {} in", global.join(", "));
            }
            for (k, (iface, body)) in branches.iter().enumerate() {
                let sep = if k == 0 { "   " } else { "|| " };
                let branch = match iface {
                    Some(i) => format!("{} ->\n   {}", i.join(", "), indent(&print(body), "   ")),
                    None => print(body),
                };
                let _ = write!(s, "\n{sep}{}", indent(&branch, "   "));
            }
            s.push_str("\nend par");
            s
        }
    }
}

/// A `Makefile` that runs the jobs with `make -j N`, each in its own directory, a property
/// job after the leaf jobs it reads. `SVL` names the svl command (`make SVL=...`). A failed
/// job leaves no target behind (`.DELETE_ON_ERROR:` removes a leaf's partial LTS; a property
/// job's target is a stamp made after svl succeeded), so the next `make` runs it again.
pub(crate) fn makefile(single: &str, split: &Split) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Generated by labs emit --split from {single}: its leaves and properties as independent jobs,\n\
         # each run by svl in a directory of its own. Run: make -j N\n\nSVL = svl\n\n.PHONY: all clean\n\
         .DELETE_ON_ERROR:\n"
    );
    let targets: Vec<String> = split.properties.iter().map(|p| format!("{}/{}", p.name, Job::STAMP)).collect();
    let _ = writeln!(s, "all: {}\n", targets.join(" "));
    for j in split.jobs() {
        let target = if j.property.is_some() { Job::STAMP.to_string() } else { j.output() };
        let needs: Vec<String> = j.needs.iter().map(|n| format!("{n}/{n}.bcg")).collect();
        let mut deps = vec![format!("{}.svl", j.name)];
        deps.extend(j.inputs.iter().cloned());
        deps.extend(needs.iter().cloned());
        let _ = writeln!(s, "{}/{target}: {}", j.name, deps.join(" "));
        let _ = writeln!(s, "\trm -rf {0} && mkdir {0}", j.name);
        let mut copies = vec![format!("cp {}.svl {}/{}", j.name, j.name, Job::SCRIPT)];
        copies.push(format!("cp {} {}/", j.inputs.iter().chain(&needs).cloned().collect::<Vec<_>>().join(" "), j.name));
        let _ = writeln!(s, "\t{}", copies.join(" && "));
        let stamp = if j.property.is_some() { format!(" && touch {}", Job::STAMP) } else { String::new() };
        let _ = writeln!(s, "\tcd {} && $(SVL) {}{stamp}\n", j.name, Job::SCRIPT);
    }
    let _ = writeln!(s, "clean:\n\trm -rf {}", split.jobs().map(|j| j.name.as_str()).collect::<Vec<_>>().join(" "));
    s
}

/// The files `labs emit --split` adds to the emitted ones (`files`, base name `base`): one
/// script per job and the `Makefile`.
pub fn split_files(base: &str, files: &[EmittedFile]) -> Result<Vec<EmittedFile>, LntcheckError> {
    let single = script_file(base, false);
    let text = files
        .iter()
        .find(|f| f.name == single)
        .ok_or_else(|| LntcheckError::Program(format!("no {single} was emitted")))?;
    let split = split(base, &single, &text.contents)?;
    let mut out: Vec<EmittedFile> =
        split.jobs().map(|j| EmittedFile { name: format!("{}.svl", j.name), contents: j.script.clone() }).collect();
    out.push(EmittedFile { name: "Makefile".to_string(), contents: makefile(&single, &split) });
    Ok(out)
}

/// Makes the directory of `job` under `root` (the output directory) as the `Makefile` does:
/// emptied, its script copied as `job.svl`, its inputs, and the LTS of each leaf job it needs
/// (`L/L.bcg`, and `L/L.aut` where a stand-in wrote that form instead). Returns the directory.
pub fn prepare(root: &std::path::Path, job: &Job) -> std::io::Result<std::path::PathBuf> {
    let dir = root.join(&job.name);
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir(&dir)?;
    std::fs::copy(root.join(format!("{}.svl", job.name)), dir.join(Job::SCRIPT))?;
    for f in &job.inputs {
        std::fs::copy(root.join(f), dir.join(f))?;
    }
    for n in &job.needs {
        let mut found = false;
        for ext in ["bcg", "aut"] {
            let from = root.join(n).join(format!("{n}.{ext}"));
            if from.is_file() {
                std::fs::copy(&from, dir.join(format!("{n}.{ext}")))?;
                found = true;
            }
        }
        if !found {
            let e = format!("`{}`: the job {n} wrote no LTS", root.join(n).join(format!("{n}.bcg")).display());
            return Err(std::io::Error::new(std::io::ErrorKind::NotFound, e));
        }
    }
    Ok(dir)
}
