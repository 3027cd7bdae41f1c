//! Names of the emitted LNT entities (modules, processes, gates), shared by the LNT, MCL and
//! SVL views so that they always agree.

use crate::model::{Model, Store, VarId};

/// A valid LNT module (and file) name from a file stem: letters, digits and `_`, starting with
/// a letter; CADP requires the module name to equal the file name.
pub fn module_name(stem: &str) -> String {
    let mut s: String = stem.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    if !s.starts_with(|c: char| c.is_ascii_alphabetic()) {
        s.insert_str(0, "spec_");
    }
    s
}

/// An identifier fragment: ASCII letters and digits kept, anything else becomes `_`.
pub fn ident(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect()
}

/// The observation gate of a variable: `A_<NAME>` (attribute), `L_<NAME>` (stigmergic),
/// `E_<NAME>` (environment). CADP upper-cases gate names, so a variable whose upper-cased name
/// collides with another's gets its index appended.
pub fn obs_gate(m: &Model, v: VarId) -> String {
    let var = &m.vars[v];
    let prefix = match var.store {
        Store::Attr => "A",
        Store::Stig { .. } => "L",
        Store::Env => "E",
    };
    let upper = ident(&var.name).to_uppercase();
    let clash = m.vars.iter().enumerate().any(|(w, x)| w != v && ident(&x.name).to_uppercase() == upper);
    if clash { format!("{prefix}_{upper}_{v}") } else { format!("{prefix}_{upper}") }
}

/// The process of agent type `name`.
pub fn agent_process(name: &str) -> String {
    format!("Agent_{}", ident(name))
}

pub fn put_gate(k: usize) -> String {
    format!("PUT_{k}")
}

pub fn qry_gate(k: usize) -> String {
    format!("QRY_{k}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_names() {
        assert_eq!(module_name("leader"), "leader");
        assert_eq!(module_name("two phase-commit"), "two_phase_commit");
        assert_eq!(module_name("3x"), "spec_3x");
    }
}
