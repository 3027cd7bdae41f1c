//! The 2-D view of the agents: two variables read as a position (`x`, `y`) and, optionally,
//! two more as a heading drawn as an arrow. Chosen by `--view X,Y[,DX,DY]`, else by a
//! `# labs: view X, Y[, DX, DY]` comment in the spec, else by convention: agents with
//! variables named `x` and `y` (and `dirx`, `diry` or `dx`, `dy` for the heading).

use crate::analysis::values::ValueAnalysis;
use crate::model::{Model, Store, VarId};
use serde::Serialize;

/// The page draws a grid only this wide (cells per side) from the value analysis; a wider or
/// unbounded range is taken from the values along the run instead.
const MAX_CELLS: i64 = 60;

/// What the page's grid shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GridView {
    pub x: String,
    pub y: String,
    pub dx: Option<String>,
    pub dy: Option<String>,
    /// The range of `x` and `y` from the value analysis, when bounded and small.
    pub x_range: Option<[i64; 2]>,
    pub y_range: Option<[i64; 2]>,
    /// Where the choice comes from: `--view`, `the spec's "# labs: view" comment`, or
    /// `the variables' names`.
    pub chosen_by: &'static str,
}

/// The comment that chooses the view in a spec.
const PRAGMA: &str = "labs: view";

/// The grid of `model`: from `--view` (`option`), the spec's pragma, or the names; `None` when
/// no agent has such variables and nothing asked for a grid. A `--view` or a pragma naming
/// unknown variables is an error.
pub fn choose(
    model: &Model,
    analysis: &ValueAnalysis,
    source: &str,
    option: Option<&str>,
) -> Result<Option<GridView>, String> {
    if let Some(o) = option {
        return build(model, analysis, o, "--view").map(Some).map_err(|e| format!("--view {o}: {e}"));
    }
    if let Some(p) = pragma(source) {
        return build(model, analysis, &p, "the spec's `# labs: view` comment")
            .map(Some)
            .map_err(|e| format!("`# {PRAGMA} {p}` in the spec: {e}"));
    }
    if find(model, "x").is_none() || find(model, "y").is_none() {
        return Ok(None);
    }
    let heading = [("dirx", "diry"), ("dx", "dy")]
        .into_iter()
        .find(|(a, b)| find(model, a).is_some() && find(model, b).is_some())
        .map_or(String::new(), |(a, b)| format!(",{a},{b}"));
    build(model, analysis, &format!("x,y{heading}"), "the variables' names").map(Some).or(Ok(None))
}

/// The text after `# labs: view` on a comment line of the spec.
fn pragma(source: &str) -> Option<String> {
    source.lines().find_map(|l| {
        let rest = l.trim_start().strip_prefix('#')?.trim_start().strip_prefix(PRAGMA)?;
        Some(rest.trim().to_string())
    })
}

/// A scalar attribute or stigmergic variable of some agent type named `name`.
fn find(model: &Model, name: &str) -> Option<VarId> {
    model.vars.iter().position(|v| v.name == name && v.store != Store::Env && v.len == 1 && v.dims.is_empty())
}

fn build(model: &Model, analysis: &ValueAnalysis, spec: &str, chosen_by: &'static str) -> Result<GridView, String> {
    let names: Vec<&str> = spec.split(',').map(str::trim).collect();
    if names.len() != 2 && names.len() != 4 {
        return Err("give two variables (a position) or four (a position and a heading), separated by commas".into());
    }
    let mut ids = vec![];
    for n in &names {
        let v = find(model, n).ok_or_else(|| {
            let known: Vec<&str> = model
                .vars
                .iter()
                .filter(|v| v.store != Store::Env && v.dims.is_empty())
                .map(|v| v.name.as_str())
                .collect();
            format!("no agent has a scalar variable `{n}` (they have: {})", known.join(", "))
        })?;
        ids.push(v);
    }
    let range = |v: VarId| {
        let mut set = crate::analysis::IntervalSet::empty();
        for t in 0..model.agent_types.len() {
            if let Some(s) = analysis.get(v, Some(t)) {
                set = set.join(s);
            }
        }
        match (set.min(), set.max()) {
            (Some(lo), Some(hi)) if hi.checked_sub(lo).is_some_and(|w| (0..MAX_CELLS).contains(&w)) => Some([lo, hi]),
            _ => None,
        }
    };
    Ok(GridView {
        x: names[0].to_string(),
        y: names[1].to_string(),
        dx: names.get(2).map(|s| s.to_string()),
        dy: names.get(3).map(|s| s.to_string()),
        x_range: range(ids[0]),
        y_range: range(ids[1]),
        chosen_by,
    })
}
