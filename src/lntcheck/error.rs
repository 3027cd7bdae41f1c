//! The stage's typed error: what kind of failure, with the message that names the file,
//! statement or instance (the CLI prints the message; tests match on the kind).

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Clone, Debug, thiserror::Error)]
pub enum LntcheckError {
    /// An SVL script outside the subset the templates produce (`line N: …`).
    #[error("{0}")]
    Syntax(String),
    /// A file that cannot be read or written: the operating system's error, with the file
    /// (shared, so that the error can be cloned; `context` names the statement it served).
    #[error("{context}cannot {verb} `{}`: {source}", .path.display())]
    Io { context: String, verb: &'static str, path: PathBuf, source: Arc<std::io::Error> },
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
    /// `path` could not be read.
    pub(crate) fn reading(path: impl Into<PathBuf>, source: std::io::Error) -> LntcheckError {
        LntcheckError::Io { context: String::new(), verb: "read", path: path.into(), source: Arc::new(source) }
    }

    /// `path` could not be written.
    pub(crate) fn writing(path: impl Into<PathBuf>, source: std::io::Error) -> LntcheckError {
        LntcheckError::Io { context: String::new(), verb: "write", path: path.into(), source: Arc::new(source) }
    }

    /// The message, for the tests.
    #[cfg(feature = "test-support")]
    pub fn message(&self) -> String {
        self.to_string()
    }

    /// The same error with `prefix` written before its message (a file or statement name,
    /// with its separator).
    pub(crate) fn prefixed(self, prefix: impl fmt::Display) -> LntcheckError {
        let p = |m: String| format!("{prefix}{m}");
        match self {
            LntcheckError::Syntax(m) => LntcheckError::Syntax(p(m)),
            LntcheckError::Io { context, verb, path, source } => {
                LntcheckError::Io { context: p(context), verb, path, source }
            }
            LntcheckError::Program(m) => LntcheckError::Program(p(m)),
            LntcheckError::Unsupported(m) => LntcheckError::Unsupported(p(m)),
            LntcheckError::Stopped(m) => LntcheckError::Stopped(p(m)),
            LntcheckError::Encoding(m) => LntcheckError::Encoding(p(m)),
            LntcheckError::Native(m) => LntcheckError::Native(p(m)),
        }
    }
}
