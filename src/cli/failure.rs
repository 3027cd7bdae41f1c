//! A failed command (`Failure`: exit code and message) and the exit codes (`exit::MEANINGS`,
//! shown after `--help`). The library's errors whose exit code does not depend on the command
//! are mapped here, once; the commands map the others where they know the context (a kept
//! directory, a property).

/// A failed command: its exit code (`exit`) and what to print on stderr.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) code: i32,
    pub(crate) message: String,
}

impl Failure {
    pub(crate) fn new(code: i32, message: impl Into<String>) -> Failure {
        let mut message = message.into();
        if !message.starts_with("error") {
            message = format!("error: {message}");
        }
        if !message.ends_with('\n') {
            message.push('\n');
        }
        Failure { code, message }
    }
}

/// The exit codes of the library's errors that mean the same wherever they occur; errors
/// whose message needs the command's context (a kept directory, the property) are mapped
/// where they are met.
impl From<crate::cadp::CadpError> for Failure {
    fn from(e: crate::cadp::CadpError) -> Failure {
        use crate::cadp::CadpError;
        let hint = match &e {
            CadpError::NotInstalled(_) | CadpError::Licence(_) => {
                "\n  = hint: use `--backend native` (the default), or `--backend lnt`: the same emitted files, run by \
                 labs's own LNT interpreter and MCL evaluator, without CADP"
            }
            CadpError::Emit(_) => "\n  = hint: `--backend native` supports the whole language",
            _ => "",
        };
        let note = match &e {
            CadpError::Failed { work_dir: Some(d), .. } => {
                format!("\n  = note: the generated files and CADP's log are kept in `{}`", d.display())
            }
            _ => String::new(),
        };
        Failure::new(exit::BACKEND, format!("{e}{note}{hint}"))
    }
}

impl From<crate::lts_backend::WorkDirError> for Failure {
    fn from(e: crate::lts_backend::WorkDirError) -> Failure {
        Failure::new(exit::BACKEND, e.to_string())
    }
}

impl From<crate::lntcheck::LntcheckError> for Failure {
    fn from(e: crate::lntcheck::LntcheckError) -> Failure {
        Failure::new(exit::BACKEND, e.to_string())
    }
}

/// A trace about to be shown that fails the independent replay is a bug of labs.
impl From<crate::trace::ShownTraceError> for Failure {
    fn from(e: crate::trace::ShownTraceError) -> Failure {
        Failure::new(exit::BACKEND, format!("internal error: {e}"))
    }
}

pub(crate) mod exit {
    pub(crate) const OK: i32 = 0;
    pub(crate) const VIOLATED: i32 = 10;
    pub(crate) const BACKEND: i32 = 1;
    pub(crate) const USAGE: i32 = 2;
    pub(crate) const INCONCLUSIVE: i32 = 5;
    pub(crate) const INVALID_SPEC: i32 = 6;
    pub(crate) const TIMEOUT: i32 = 124;
    pub(crate) const INTERRUPTED: i32 = 130;

    /// What each exit code means: the one table behind `--help`, the manual pages and the
    /// README's.
    pub(crate) const MEANINGS: &[(i32, &str)] = &[
        (OK, "every checked property holds / simulation done"),
        (VIOLATED, "at least one property is violated"),
        (
            BACKEND,
            "back-end or internal error, or a run-time error of the model (division by zero, index or agent id \
             out of range, overflow), reported with the trace that reaches it",
        ),
        (USAGE, "invalid command-line arguments (including missing extern values)"),
        (
            INCONCLUSIVE,
            "inconclusive: a state or memory bound was hit, or the automaton of a formula passed its size bound",
        ),
        (INVALID_SPEC, "the specification does not parse or fails the static checks"),
        (TIMEOUT, "time limit reached"),
        (INTERRUPTED, "interrupted"),
    ];

    /// The exit codes as the text after `--help` (and a section of the manual pages).
    pub(crate) fn help_text() -> String {
        let mut s = String::from("Exit codes:\n");
        for (code, meaning) in MEANINGS {
            s += &format!("  {code:>3}  {meaning}\n");
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cadp::CadpError;

    /// The library's error says what failed; where the files are kept is the CLI's note.
    #[test]
    fn a_failed_cadp_run_notes_where_its_files_are() {
        let e = CadpError::Failed { message: "svl failed".into(), work_dir: Some("/kept/here".into()) };
        assert_eq!(e.to_string(), "svl failed");
        let f = Failure::from(e);
        assert_eq!(f.code, exit::BACKEND);
        assert_eq!(
            f.message,
            "error: svl failed\n  = note: the generated files and CADP's log are kept in `/kept/here`\n"
        );
        let f = Failure::from(CadpError::Failed { message: "svl failed".into(), work_dir: None });
        assert_eq!(f.message, "error: svl failed\n");
    }
}
