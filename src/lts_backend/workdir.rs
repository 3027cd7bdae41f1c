//! The directory a run of the emitted files works in: a fresh temporary one, removed when
//! dropped unless kept, or the user's `--keep-files` directory, never removed.
//!
//! A `--keep-files` directory is labs's: it is created (its parent must exist), or it is empty,
//! or an earlier run marked it as its own (`MARKER`), and then it is emptied first, so that no
//! file in it after the run (an LTS, a diagnostic, a log) is older than the run. Any other
//! directory is refused: the run would mix its files with files it did not write.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

/// The file that marks a `--keep-files` directory as labs's.
pub(crate) const MARKER: &str = ".labs-kept";

const MARKER_TEXT: &str = "This directory holds the files of `labs verify --keep-files`.\n\
    The next `labs verify --keep-files` into it empties it first.\n";

/// A working directory that cannot be created under (or as) `dir`, or a `--keep-files`
/// directory refused.
#[derive(Debug, thiserror::Error)]
#[error("{}", describe(self))]
pub struct WorkDirError {
    pub(crate) dir: PathBuf,
    /// `None` when every fresh name was taken.
    pub(crate) source: Option<std::io::Error>,
    pub(crate) kind: WorkDirErrorKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WorkDirErrorKind {
    /// A temporary directory inside `dir` could not be made.
    Temporary,
    /// `dir` (`--keep-files`) could not be created, read or emptied.
    Kept,
    /// The parent of `dir` (`--keep-files`) does not exist.
    MissingParent,
    /// `dir` (`--keep-files`) exists and is not a directory, or holds files labs did not
    /// write.
    NotOurs,
}

impl WorkDirError {
    /// The user named a directory that cannot be used (rather than the system failing).
    pub(crate) fn is_usage(&self) -> bool {
        matches!(self.kind, WorkDirErrorKind::MissingParent | WorkDirErrorKind::NotOurs)
    }
}

fn describe(e: &WorkDirError) -> String {
    let dir = e.dir.display();
    match (&e.source, e.kind) {
        (None, WorkDirErrorKind::Temporary) => format!("cannot create a working directory in `{dir}`"),
        (Some(s), WorkDirErrorKind::Temporary) => format!("cannot create a working directory in `{dir}`: {s}"),
        (Some(s), WorkDirErrorKind::Kept) => format!("cannot prepare `{dir}` for the kept files: {s}"),
        (None, WorkDirErrorKind::Kept) => format!("cannot prepare `{dir}` for the kept files"),
        (_, WorkDirErrorKind::MissingParent) => {
            let parent = e.dir.parent().map(|p| p.display().to_string()).unwrap_or_default();
            format!(
                "--keep-files `{dir}`: the directory `{parent}` does not exist (labs creates the kept directory, \
                 not its parents)\n  = hint: create it first, or choose another directory"
            )
        }
        (_, WorkDirErrorKind::NotOurs) if e.dir.exists() && !e.dir.is_dir() => {
            format!("--keep-files `{dir}`: not a directory")
        }
        (_, WorkDirErrorKind::NotOurs) => format!(
            "--keep-files `{dir}`: the directory is not empty and was not written by `labs verify --keep-files` \
             (it has no `{MARKER}` file); labs keeps its files only in a new or empty directory, or in one it \
             wrote before (which it empties first)\n  = hint: choose a new directory"
        ),
    }
}

/// For callers (tools, tests) that carry their errors as text.
impl From<WorkDirError> for String {
    fn from(e: WorkDirError) -> String {
        e.to_string()
    }
}

/// The working directories of the runs under way, with whether each is removed at the end:
/// a process that must end before its report (`cli/bounds.rs`) removes the temporary ones and
/// names the kept ones (`abandon_all`).
static LIVE: Mutex<Vec<(PathBuf, bool)>> = Mutex::new(Vec::new());

fn live() -> std::sync::MutexGuard<'static, Vec<(PathBuf, bool)>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// For a process about to end without its report: removes the temporary working directories
/// of the runs under way and returns the kept ones.
pub(crate) fn abandon_all() -> Vec<PathBuf> {
    let mut kept = vec![];
    for (path, remove) in live().drain(..) {
        if remove {
            let _ = std::fs::remove_dir_all(&path);
        } else {
            kept.push(path);
        }
    }
    kept
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
        let error = |source| WorkDirError { dir: base.clone(), source, kind: WorkDirErrorKind::Temporary };
        for _ in 0..100 {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let path = base.join(format!("labs-cadp-{}-{n}", std::process::id()));
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(WorkDir::live(path, true)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(error(Some(e))),
            }
        }
        Err(error(None))
    }

    /// Whether `dir` can be the `--keep-files` directory (see the module's comment), without
    /// touching it: for the command line, before the run.
    pub(crate) fn check_kept(dir: &Path) -> Result<(), WorkDirError> {
        let error = |kind, source| WorkDirError { dir: dir.to_path_buf(), source, kind };
        match std::fs::symlink_metadata(dir) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let parent = dir.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
                if parent.is_dir() { Ok(()) } else { Err(error(WorkDirErrorKind::MissingParent, None)) }
            }
            Err(e) => Err(error(WorkDirErrorKind::Kept, Some(e))),
            Ok(_) if !dir.is_dir() => Err(error(WorkDirErrorKind::NotOurs, None)),
            Ok(_) => {
                let mut entries = std::fs::read_dir(dir).map_err(|e| error(WorkDirErrorKind::Kept, Some(e)))?;
                if dir.join(MARKER).is_file() || entries.next().is_none() {
                    Ok(())
                } else {
                    Err(error(WorkDirErrorKind::NotOurs, None))
                }
            }
        }
    }

    /// The user's directory, kept: created, or emptied when an earlier run kept its files
    /// there, then marked as labs's.
    pub(crate) fn kept(dir: &Path) -> Result<WorkDir, WorkDirError> {
        WorkDir::check_kept(dir)?;
        let error = |e| WorkDirError { dir: dir.to_path_buf(), source: Some(e), kind: WorkDirErrorKind::Kept };
        if dir.is_dir() {
            for entry in std::fs::read_dir(dir).map_err(error)? {
                let path = entry.map_err(error)?.path();
                let removed = match std::fs::symlink_metadata(&path) {
                    Ok(m) if m.is_dir() => std::fs::remove_dir_all(&path),
                    _ => std::fs::remove_file(&path),
                };
                removed.map_err(error)?;
            }
        } else {
            std::fs::create_dir(dir).map_err(error)?;
        }
        std::fs::write(dir.join(MARKER), MARKER_TEXT).map_err(error)?;
        Ok(WorkDir::live(dir.to_path_buf(), false))
    }

    fn live(path: PathBuf, remove: bool) -> WorkDir {
        live().push((path.clone(), remove));
        WorkDir { path, remove }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Keeps the directory (to show the files behind an error); returns its path.
    pub(crate) fn keep(&mut self) -> PathBuf {
        self.remove = false;
        if let Some(x) = live().iter_mut().find(|(p, _)| *p == self.path) {
            x.1 = false;
        }
        self.path.clone()
    }

    pub(crate) fn is_kept(&self) -> bool {
        !self.remove
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        live().retain(|(p, _)| *p != self.path);
        if self.remove {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}
