//! The stage's typed error: what kind of failure, with the message that names the file,
//! statement or instance (the CLI prints the message; tests match on the kind).

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LntcheckError {
    /// An SVL script outside the subset the templates produce (`line N: …`).
    #[error("{0}")]
    Syntax(String),
    /// A file that cannot be read or written.
    #[error("{0}")]
    Io(String),
    /// The LNT program cannot be emitted, loaded, or a process instance not generated.
    #[error("{0}")]
    Program(String),
    /// A statement, reduction or input domain this executor does not support.
    #[error("{0}")]
    Unsupported(String),
    /// A bound of the run (`Limits`) was reached while generating, composing or reducing.
    #[error("{0}")]
    Stopped(String),
    /// An LTS or a program state that breaks the encoding (`docs/lnt-encoding.md`): a step
    /// that blocks midway, a label with unexpected offers, a missing process.
    #[error("{0}")]
    Encoding(String),
    /// The native engine, run as the oracle, failed.
    #[error("{0}")]
    Native(String),
}

impl LntcheckError {
    /// The message alone, for the tests.
    #[cfg(feature = "test-support")]
    pub fn message(&self) -> &str {
        match self {
            LntcheckError::Syntax(m)
            | LntcheckError::Io(m)
            | LntcheckError::Program(m)
            | LntcheckError::Unsupported(m)
            | LntcheckError::Stopped(m)
            | LntcheckError::Encoding(m)
            | LntcheckError::Native(m) => m,
        }
    }

    /// The same error with `prefix` written before its message (a file or statement name,
    /// with its separator).
    pub(crate) fn prefixed(self, prefix: impl fmt::Display) -> LntcheckError {
        let p = |m: String| format!("{prefix}{m}");
        match self {
            LntcheckError::Syntax(m) => LntcheckError::Syntax(p(m)),
            LntcheckError::Io(m) => LntcheckError::Io(p(m)),
            LntcheckError::Program(m) => LntcheckError::Program(p(m)),
            LntcheckError::Unsupported(m) => LntcheckError::Unsupported(p(m)),
            LntcheckError::Stopped(m) => LntcheckError::Stopped(p(m)),
            LntcheckError::Encoding(m) => LntcheckError::Encoding(p(m)),
            LntcheckError::Native(m) => LntcheckError::Native(p(m)),
        }
    }
}
