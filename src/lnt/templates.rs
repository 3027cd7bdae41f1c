//! The Askama templates (`lnt-templates/`, `svl/`), rendered without HTML escaping.

use super::EmitOptions;
use super::mcl::{Query, TrackKey};
use super::svl::Scripts;
use super::view::{AgentView, MsgView, Program};
use askama::Template;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Template)]
#[template(path = "program.lnt", escape = "none")]
struct LntTemplate<'a> {
    p: &'a Program,
    /// What opens a send offer in the program's dialect (`!`, or nothing).
    snd: &'static str,
    /// Per agent process, the variables it never reads: left out of its declarations, with
    /// the assignments that only initialise them.
    unused: &'a BTreeMap<String, BTreeSet<String>>,
}

impl LntTemplate<'_> {
    /// 2^k, for the bits of a monitor's valuation.
    fn pow2(&self, k: &usize) -> u64 {
        1u64 << *k
    }

    /// Whether agent process `process` keeps variable `var`.
    fn keeps(&self, process: &str, var: &str) -> bool {
        !self.unused.get(process).is_some_and(|u| u.contains(var))
    }

    /// The conditions every party but `Timestamps` puts on the masks of a message of `m`'s
    /// tuple from sender `s` (docs/lnt-encoding.md §3, Propagation): the receivers older than
    /// the sender `gm` (and newer, `lm`, for a confirmation) and the linked ones `ln` are
    /// receivers; with the link `true`, every receiver is linked.
    fn masks(&self, m: &MsgView, s: &str, qry: bool) -> String {
        let k = m.k;
        let mut c = format!("(gm < N_MASKS) and sub_mask (gm, rcv_mask ({k}, {s}))");
        if qry {
            c += &format!(" and (lm < N_MASKS) and sub_mask (lm, rcv_mask ({k}, {s}))");
        }
        if m.link_const {
            // both inclusions rather than `==`: no bound of the input reads the sender
            c += &format!(
                " and (ln < N_MASKS) and sub_mask (ln, rcv_mask ({k}, {s})) and sub_mask (rcv_mask ({k}, {s}), ln)"
            );
        } else {
            c += &format!(" and (ln < N_MASKS) and sub_mask (ln, rcv_mask ({k}, {s}))");
        }
        c
    }

    /// The variables of agent process `a` it reads, declared by type: `I, I0: Attrs, …`.
    fn agent_vars(&self, a: &AgentView) -> String {
        let mut vars: Vec<(&str, &str)> = vec![
            ("I", "Attrs"),
            ("I0", "Attrs"),
            ("L", "Stigs"),
            ("L0", "Stigs"),
            ("E", "Envs"),
            ("E0", "Envs"),
            ("Zp", "Tuples"),
            ("Zc", "Tuples"),
        ];
        vars.extend(["pc", "t", "s", "j", "r"].map(|v| (v, "Nat")));
        vars.extend([("v", "Int"), ("U", "Used")]);
        if !self.p.remote.is_empty() {
            vars.extend(["go", "got", "stepped"].map(|v| (v, "Bool")));
        }
        vars.extend(["gm", "lm", "ln"].map(|v| (v, "Nat")));
        vars.push(("c", "Cmp"));
        vars.extend(a.int_vars.iter().map(|v| (v.as_str(), "Int")));
        vars.extend(a.nat_vars.iter().map(|v| (v.as_str(), "Nat")));
        let mut groups: Vec<(Vec<&str>, &str)> = vec![];
        for (v, t) in vars.into_iter().filter(|(v, _)| self.keeps(&a.process, v)) {
            match groups.last_mut() {
                Some((names, ty)) if *ty == t => names.push(v),
                _ => groups.push((vec![v], t)),
            }
        }
        groups.iter().map(|(names, t)| format!("{}: {t}", names.join(", "))).collect::<Vec<_>>().join(", ")
    }
}

#[derive(Template)]
#[template(path = "query.mcl", escape = "none")]
struct MclTemplate<'a> {
    q: &'a Query,
    source: &'a str,
    base: &'a str,
    descriptions: Vec<String>,
}

impl MclTemplate<'_> {
    /// What a tracked parameter stands for.
    fn describe(&self, k: &TrackKey) -> String {
        let i = self.q.keys.iter().position(|x| x == k).expect("tracked key");
        self.descriptions[i].clone()
    }

    /// ` (n_0: Int := i_0, …[, extra])`, or nothing without parameters.
    fn formals(&self, names: &[String], inits: &[String], extra: Option<&str>) -> String {
        let mut d: Vec<String> = names.iter().zip(inits).map(|(n, i)| format!("{n}: Int := {i}")).collect();
        if let Some(e) = extra {
            d.push(e.to_string());
        }
        if d.is_empty() { String::new() } else { format!(" ({})", d.join(", ")) }
    }

    /// ` (a, b[, extra])`, or nothing without arguments.
    fn args(&self, xs: &[String], extra: Option<&str>) -> String {
        let mut d: Vec<String> = xs.to_vec();
        if let Some(e) = extra {
            d.push(e.to_string());
        }
        if d.is_empty() { String::new() } else { format!(" ({})", d.join(", ")) }
    }
}

#[derive(Template)]
#[template(path = "errors.mcl", escape = "none")]
struct ErrorsTemplate<'a> {
    source: &'a str,
    base: &'a str,
}

#[derive(Template)]
#[template(path = "compositional.svl", escape = "none")]
struct CompTemplate<'a> {
    s: &'a Scripts,
}

#[derive(Template)]
#[template(path = "monolithic.svl", escape = "none")]
struct MonoTemplate<'a> {
    s: &'a Scripts,
}

#[derive(Template)]
#[template(path = "on_the_fly.sh", escape = "none")]
struct OnTheFlyTemplate<'a> {
    s: &'a Scripts,
}

#[derive(Template)]
#[template(path = "README.txt", escape = "none")]
struct ReadmeTemplate<'a> {
    s: &'a Scripts,
}

fn finish(r: askama::Result<String>) -> String {
    let mut s = r.expect("templates render infallibly");
    if !s.ends_with('\n') {
        s.push('\n');
    }
    s
}

/// The program, its agent processes declaring only the variables they read: rendered again
/// until no agent process has a variable it never reads (leaving out an assignment that only
/// initialised one may leave another unread).
pub(crate) fn render_lnt(p: &Program) -> String {
    let mut unused: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    loop {
        let text = finish(LntTemplate { p, snd: p.dialect.send(), unused: &unused }.render());
        let mut more = false;
        for a in &p.agents {
            let Some(body) = process_body(&text, &a.process) else { continue };
            let declared = declared_variables(body);
            for v in declared.into_iter().filter(|v| !is_read(body, v)) {
                more |= unused.entry(a.process.clone()).or_default().insert(v);
            }
        }
        if !more {
            return text;
        }
    }
}

/// The text of process `name` from its `var` line to its `end process`, without comments.
fn process_body<'t>(text: &'t str, name: &str) -> Option<&'t str> {
    let start = text.find(&format!("process {name} ["))?;
    let rest = &text[start..];
    let var = rest.find("\n   var ")?;
    let end = rest.find("\nend process")?;
    Some(&rest[var..end])
}

/// The variables of a process's outer `var … in` line (`I, I0: Attrs, pc: Nat`).
fn declared_variables(body: &str) -> Vec<String> {
    let line = body.trim_start().lines().next().unwrap_or("").trim();
    let list = line.strip_prefix("var ").and_then(|l| l.strip_suffix(" in")).unwrap_or("");
    list.split(", ").filter_map(|part| part.split(':').next()).map(|n| n.trim().to_string()).collect()
}

/// Whether `var` is read in `body` (after its declaration line): an occurrence that is neither
/// the target of `:=` nor a received offer `?var`; an element write `var[i] := …` reads the
/// rest of the array. Comments are skipped. (The text-level counterpart of
/// `lntcheck::unused`, which the tests run on every emitted program.)
fn is_read(body: &str, var: &str) -> bool {
    for line in body.trim_start().lines().skip(1) {
        let code = line.split("--").next().unwrap_or("");
        let bytes = code.as_bytes();
        let mut from = 0;
        while let Some(k) = code[from..].find(var) {
            let at = from + k;
            let end = at + var.len();
            from = end;
            let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
            if (at > 0 && ident(bytes[at - 1])) || (end < bytes.len() && ident(bytes[end])) {
                continue;
            }
            // `?var` receives; `!?var` (an in-out actual) reads too
            let received = at > 0 && bytes[at - 1] == b'?' && !(at > 1 && bytes[at - 2] == b'!');
            let assigned = code[end..].trim_start().starts_with(":=");
            if !received && !assigned {
                return true;
            }
        }
    }
    false
}

pub(crate) fn render_mcl(q: &Query, opts: &EmitOptions, descriptions: Vec<String>) -> String {
    finish(MclTemplate { q, source: &opts.source, base: &opts.base, descriptions }.render())
}

pub(crate) fn render_errors_mcl(opts: &EmitOptions) -> String {
    finish(ErrorsTemplate { source: &opts.source, base: &opts.base }.render())
}

pub(crate) fn render_svl_comp(s: &Scripts) -> String {
    finish(CompTemplate { s }.render())
}

pub(crate) fn render_svl_mono(s: &Scripts) -> String {
    finish(MonoTemplate { s }.render())
}

pub(crate) fn render_on_the_fly(s: &Scripts) -> String {
    finish(OnTheFlyTemplate { s }.render())
}

pub(crate) fn render_readme(s: &Scripts) -> String {
    finish(ReadmeTemplate { s }.render())
}
