//! The Askama templates (`lnt-templates/`, `svl/`), rendered without HTML escaping.

use super::EmitOptions;
use super::mcl::{Query, TrackKey};
use super::svl::Scripts;
use super::view::Program;
use askama::Template;

#[derive(Template)]
#[template(path = "program.lnt", escape = "none")]
struct LntTemplate<'a> {
    p: &'a Program,
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

pub(crate) fn render_lnt(p: &Program) -> String {
    finish(LntTemplate { p }.render())
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

pub(crate) fn render_readme(s: &Scripts) -> String {
    finish(ReadmeTemplate { s }.render())
}
