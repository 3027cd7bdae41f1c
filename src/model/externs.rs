//! Extern values from the command line: `n=3` and `_n=3` both set `_n`.

use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExternError {
    /// A word that is not `NAME=INTEGER`.
    Malformed(String),
    /// The same extern given twice with different values.
    Repeated(String),
}

impl std::fmt::Display for ExternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExternError::Malformed(w) => {
                write!(f, "`{w}` is not an extern value: write NAME=INTEGER, e.g. `n=3`")
            }
            ExternError::Repeated(n) => write!(f, "extern `{n}` is given more than once"),
        }
    }
}

/// Parses `NAME=VALUE` words into a map keyed by `_name`.
pub fn parse_externs<S: AsRef<str>>(words: &[S]) -> Result<BTreeMap<String, i64>, ExternError> {
    let mut out = BTreeMap::new();
    for w in words {
        let w = w.as_ref();
        let Some((name, value)) = w.split_once('=') else {
            return Err(ExternError::Malformed(w.to_string()));
        };
        let name = name.trim();
        let bare = name.strip_prefix('_').unwrap_or(name);
        let valid_name = bare.chars().next().is_some_and(|c| c.is_ascii_lowercase())
            && bare.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let value: Option<i64> = value.trim().parse().ok();
        let (true, Some(value)) = (valid_name, value) else {
            return Err(ExternError::Malformed(w.to_string()));
        };
        let key = format!("_{bare}");
        if out.insert(key, value).is_some_and(|old| old != value) {
            return Err(ExternError::Repeated(format!("_{bare}")));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_spellings() {
        let m = parse_externs(&["n=3", "_grid=5", "d=-2"]).unwrap();
        assert_eq!(m["_n"], 3);
        assert_eq!(m["_grid"], 5);
        assert_eq!(m["_d"], -2);
    }

    #[test]
    fn malformed() {
        assert!(matches!(parse_externs(&["n"]), Err(ExternError::Malformed(_))));
        assert!(matches!(parse_externs(&["n=x"]), Err(ExternError::Malformed(_))));
        assert!(matches!(parse_externs(&["N=3"]), Err(ExternError::Malformed(_))));
        assert!(matches!(parse_externs(&["n=1", "_n=2"]), Err(ExternError::Repeated(_))));
    }
}
