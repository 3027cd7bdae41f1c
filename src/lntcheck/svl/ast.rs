//! The statements of a script and the behaviours of its `root leaf` blocks.

/// A behaviour of the script.
#[derive(Clone, Debug, PartialEq)]
pub enum Beh {
    /// A process instance `P [G1, …] (v1, …)`: a leaf.
    Call {
        process: String,
        gates: Vec<String>,
        args: Vec<i64>,
    },
    Hide {
        gates: Vec<String>,
        body: Box<Beh>,
    },
    HideAllBut {
        gates: Vec<String>,
        body: Box<Beh>,
    },
    /// `par G… in B1 || …` (`global`) or `par S1 -> B1 || …` (per-branch interfaces).
    Par {
        global: Vec<String>,
        branches: Vec<(Option<Vec<String>>, Beh)>,
    },
    /// `total prio P1 > P2 > … Q1 > … in B end prio` (one chain per `>`-sequence).
    Prio {
        chains: Vec<Vec<String>>,
        body: Box<Beh>,
    },
    /// `"F.bcg"`: an LTS read from a file (a leaf computed by another job of a split script).
    File(String),
}

/// One `"F.bcg" = root leaf … reduction of (…);` statement, with the properties that verify it.
#[derive(Clone, Debug)]
pub struct Block {
    pub(crate) bcg: String,
    pub reduction: String,
    pub hold: Vec<String>,
    pub beh: Beh,
    /// The `property NAME … verify … in "F.bcg"` blocks that read this LTS, in script order
    /// (properties that read the same gates share one LTS).
    pub properties: Vec<String>,
}

/// A statement of the monolithic script: `"F.bcg" = generation of "P.lnt";` or
/// `"F.bcg" = R reduction [hold …] of [hide all but G… in] "E.bcg";`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Derived {
    Generation {
        lnt: String,
    },
    Reduction {
        reduction: String,
        hold: Vec<String>,
        keep: Option<Vec<String>>,
        of: String,
    },
    /// `R reduction [hold …] of BEH`: a behaviour generated, then reduced (the split scripts'
    /// leaves and compositions, `labs emit --split`).
    ReductionOf {
        reduction: String,
        hold: Vec<String>,
        beh: Beh,
    },
}

/// A `property NAME … is "D.bcg" = verify "Q.mcl" with E in "F.bcg"; expected V; end property`,
/// or with the statement `"D.bcg" = "F.bcg" |= with E "Q.mcl";` (SVL from CADP 2025-l).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Verify {
    pub(crate) property: String,
    pub(crate) diag: String,
    pub(crate) mcl: String,
    pub(crate) evaluator: String,
    pub(crate) bcg: String,
    pub(crate) expected: String,
    /// Written with `|=` (else `verify … in`).
    pub(crate) models: bool,
}

impl Verify {
    /// The verification statement as the script writes it (file names quoted), without `;`.
    pub(crate) fn statement(&self, quote: impl Fn(&str) -> String) -> String {
        if self.models {
            format!("{} = {} |= with {} {}", quote(&self.diag), quote(&self.bcg), self.evaluator, quote(&self.mcl))
        } else {
            format!(
                "{} = verify {} with {} in {}",
                quote(&self.diag),
                quote(&self.mcl),
                self.evaluator,
                quote(&self.bcg)
            )
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Script {
    pub process_file: Option<String>,
    /// The `root leaf` statements (compositional script).
    pub blocks: Vec<Block>,
    /// The other LTS-defining statements (monolithic script), in script order.
    pub(crate) derived: Vec<(String, Derived)>,
    /// The `verify` statements, in script order.
    pub(crate) verifies: Vec<Verify>,
}

impl Script {
    pub fn block(&self, property: &str) -> Option<&Block> {
        self.blocks.iter().find(|b| b.properties.iter().any(|p| p == property))
    }

    /// Whether some statement defines `bcg`.
    pub(crate) fn defines(&self, bcg: &str) -> bool {
        self.blocks.iter().any(|b| b.bcg == bcg) || self.derived.iter().any(|(f, _)| f == bcg)
    }
}

/// A leaf's text with its per-leaf `hide`, as the script writes it.
pub(super) fn hidden_text(gates: &[String], leaf: &str) -> String {
    format!("hide {} in {} end hide", gates.join(", "), leaf)
}

/// A process instance as the script writes it.
pub(crate) fn call_text(b: &Beh) -> String {
    match b {
        Beh::Call { process, gates, args } if args.is_empty() => format!("{process} [{}]", gates.join(", ")),
        Beh::Call { process, gates, args } => format!(
            "{process} [{}] ({})",
            gates.join(", "),
            args.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", ")
        ),
        Beh::File(f) => format!("\"{f}\""),
        _ => String::new(),
    }
}

/// The leaves of a behaviour (process instances, in script order).
pub fn calls(b: &Beh) -> Vec<&Beh> {
    match b {
        Beh::Call { .. } => vec![b],
        Beh::Hide { body, .. } | Beh::HideAllBut { body, .. } | Beh::Prio { body, .. } => calls(body),
        Beh::Par { branches, .. } => branches.iter().flat_map(|(_, k)| calls(k)).collect(),
        Beh::File(_) => vec![],
    }
}

/// The gates a behaviour leaves visible at its root (what `hide all but` keeps).
pub(crate) fn kept_gates(b: &Beh) -> Option<Vec<String>> {
    match b {
        Beh::HideAllBut { gates, .. } => Some(gates.clone()),
        _ => None,
    }
}

/// The leaf of agent `id` in a behaviour (a call of a process `Agent_…` whose first argument
/// is `id`), with its per-leaf `hide` if it has one.
pub fn agent_leaf(b: &Beh, id: u32) -> Option<&Beh> {
    match b {
        Beh::Call { process, args, .. } => {
            (process.starts_with("Agent_") && args.first() == Some(&(id as i64))).then_some(b)
        }
        Beh::Hide { body, .. } if matches!(**body, Beh::Call { .. }) => agent_leaf(body, id).map(|_| b),
        Beh::Hide { body, .. } | Beh::HideAllBut { body, .. } | Beh::Prio { body, .. } => agent_leaf(body, id),
        Beh::Par { branches, .. } => branches.iter().find_map(|(_, k)| agent_leaf(k, id)),
        Beh::File(_) => None,
    }
}

/// The LTS files a behaviour reads (`"F.bcg"` leaves, in script order).
pub(crate) fn files(b: &Beh) -> Vec<&str> {
    match b {
        Beh::File(f) => vec![f.as_str()],
        Beh::Call { .. } => vec![],
        Beh::Hide { body, .. } | Beh::HideAllBut { body, .. } | Beh::Prio { body, .. } => files(body),
        Beh::Par { branches, .. } => branches.iter().flat_map(|(_, k)| files(k)).collect(),
    }
}
