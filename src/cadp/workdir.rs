//! The directory a CADP run works in: a fresh temporary one, removed when dropped unless
//! kept, or the user's `--keep-files` directory, never removed.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

#[derive(Debug)]
pub struct WorkDir {
    path: PathBuf,
    remove: bool,
}

impl WorkDir {
    /// A new directory under the system's temporary directory (`$CADP_TMP` if set): the
    /// process id and a counter make concurrent runs use different ones.
    pub fn temporary() -> Result<WorkDir, String> {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let base = std::env::var_os("CADP_TMP").map(PathBuf::from).unwrap_or_else(std::env::temp_dir);
        for _ in 0..100 {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let path = base.join(format!("labs-cadp-{}-{n}", std::process::id()));
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(WorkDir { path, remove: true }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(format!("cannot create a working directory in `{}`: {e}", base.display())),
            }
        }
        Err(format!("cannot create a working directory in `{}`", base.display()))
    }

    /// The user's directory (created if needed), kept.
    pub fn kept(dir: &Path) -> Result<WorkDir, String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
        Ok(WorkDir { path: dir.to_path_buf(), remove: false })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Keeps the directory (to show the files behind an error); returns its path.
    pub fn keep(&mut self) -> PathBuf {
        self.remove = false;
        self.path.clone()
    }

    pub fn is_kept(&self) -> bool {
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
