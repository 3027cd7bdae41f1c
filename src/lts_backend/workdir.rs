//! The directory a CADP run works in: a fresh temporary one, removed when dropped unless
//! kept, or the user's `--keep-files` directory, never removed.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// A working directory that cannot be created under (or as) `dir`.
#[derive(Debug, thiserror::Error)]
#[error("{}", describe(self))]
pub struct WorkDirError {
    pub(crate) dir: PathBuf,
    /// `None` when every fresh name was taken.
    pub(crate) source: Option<std::io::Error>,
    /// The directory would have been created inside `dir` (a temporary one), not as `dir`.
    pub(crate) inside: bool,
}

fn describe(e: &WorkDirError) -> String {
    match (&e.source, e.inside) {
        (Some(s), true) => format!("cannot create a working directory in `{}`: {s}", e.dir.display()),
        (None, _) => format!("cannot create a working directory in `{}`", e.dir.display()),
        (Some(s), false) => format!("cannot create `{}`: {s}", e.dir.display()),
    }
}

/// For callers (tools, tests) that carry their errors as text.
impl From<WorkDirError> for String {
    fn from(e: WorkDirError) -> String {
        e.to_string()
    }
}

#[derive(Debug)]
pub(crate) struct WorkDir {
    path: PathBuf,
    remove: bool,
}

impl WorkDir {
    /// A new directory under the system's temporary directory (`$CADP_TMP` if set): the
    /// process id and a counter make concurrent runs use different ones.
    pub(crate) fn temporary() -> Result<WorkDir, WorkDirError> {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let base = std::env::var_os("CADP_TMP").map(PathBuf::from).unwrap_or_else(std::env::temp_dir);
        for _ in 0..100 {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let path = base.join(format!("labs-cadp-{}-{n}", std::process::id()));
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(WorkDir { path, remove: true }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(WorkDirError { dir: base, source: Some(e), inside: true }),
            }
        }
        Err(WorkDirError { dir: base, source: None, inside: true })
    }

    /// The user's directory (created if needed), kept.
    pub(crate) fn kept(dir: &Path) -> Result<WorkDir, WorkDirError> {
        std::fs::create_dir_all(dir).map_err(|e| WorkDirError {
            dir: dir.to_path_buf(),
            source: Some(e),
            inside: false,
        })?;
        Ok(WorkDir { path: dir.to_path_buf(), remove: false })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Keeps the directory (to show the files behind an error); returns its path.
    pub(crate) fn keep(&mut self) -> PathBuf {
        self.remove = false;
        self.path.clone()
    }

    pub(crate) fn is_kept(&self) -> bool {
        !self.remove
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if self.remove {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}
