//! Scratch files and directories of the CLI tests, removed when the test drops them, so
//! that test runs leave nothing behind in the system's temporary directory.

use std::ffi::OsStr;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A path under a directory of its own, unique to this process and call; the directory and
/// everything in it are removed on drop.
pub struct Scratch {
    root: PathBuf,
    path: PathBuf,
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

impl Scratch {
    /// A path named `name` (not created) inside a fresh, empty directory.
    pub fn path(prefix: &str, name: &str) -> Scratch {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let root = std::env::temp_dir().join(format!("labs-{prefix}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).expect("create a scratch directory");
        let path = root.join(name);
        Scratch { root, path }
    }

    /// A file named `name` holding `text`.
    pub fn file(prefix: &str, name: &str, text: &str) -> Scratch {
        let s = Scratch::path(prefix, name);
        std::fs::write(&s.path, text).expect("write a scratch file");
        s
    }

    pub fn as_str(&self) -> &str {
        self.path.to_str().expect("temporary paths are UTF-8 here")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

impl Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<OsStr> for Scratch {
    fn as_ref(&self) -> &OsStr {
        self.path.as_os_str()
    }
}
