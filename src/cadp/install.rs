//! Finding CADP: the tools under `$CADP/com` when `$CADP` is set, else on `PATH`
//! (docs/cadp-driver.md, "What labs assumes of CADP": "Installation").

use super::CadpError;
use crate::lnt::Dialect;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The CADP commands the driver runs.
#[derive(Clone, Debug)]
pub(crate) struct Tools {
    /// `$CADP`, when set.
    pub(crate) root: Option<PathBuf>,
    pub(crate) svl: PathBuf,
    pub(crate) bcg_io: PathBuf,
    /// `lnt.open`, for Executor (simulation only; `None` when not found).
    pub(crate) lnt_open: Option<PathBuf>,
}

/// Locates the tools from this process's environment.
pub(crate) fn locate() -> Result<Tools, CadpError> {
    locate_in(std::env::var_os("CADP").as_deref(), std::env::var_os("PATH").as_deref())
}

/// Locates the tools given the values of `$CADP` and `$PATH`.
pub(crate) fn locate_in(cadp: Option<&OsStr>, path: Option<&OsStr>) -> Result<Tools, CadpError> {
    let root = cadp.filter(|c| !c.is_empty()).map(PathBuf::from);
    let find = |name: &str| -> Option<PathBuf> {
        if let Some(r) = &root {
            let p = r.join("com").join(name);
            if is_executable(&p) {
                return Some(p);
            }
        }
        path.into_iter().flat_map(std::env::split_paths).map(|d| d.join(name)).find(|p| is_executable(p))
    };
    let missing = |name: &str| {
        let where_ = match &root {
            Some(r) => format!("neither in `{}` nor on PATH", r.join("com").display()),
            None => "$CADP is not set and it is not on PATH".to_string(),
        };
        CadpError::NotInstalled(format!("CADP is not installed: its `{name}` was not found ({where_})"))
    };
    let svl = find("svl").ok_or_else(|| missing("svl"))?;
    let bcg_io = find("bcg_io").ok_or_else(|| missing("bcg_io"))?;
    let lnt_open = find("lnt.open");
    Ok(Tools { root, svl, bcg_io, lnt_open })
}

impl Tools {
    /// The installation's root: `$CADP`, else the folder above the `com/` that holds `svl`.
    pub(crate) fn root_dir(&self) -> Option<PathBuf> {
        self.root.clone().or_else(|| {
            let com = self.svl.parent()?;
            (com.file_name()? == "com").then(|| com.parent().map(Path::to_path_buf)).flatten()
        })
    }

    /// The environment CADP's tools run with: `$CADP` set (they refuse to run without it), and
    /// `$CADP/com` and `$CADP/bin.ARCH` (ARCH as `$CADP/com/arch` prints it) ahead on `PATH`, since
    /// the script svl generates calls the other tools by name.
    pub(crate) fn child_env(&self) -> Vec<(&'static str, std::ffi::OsString)> {
        let Some(root) = self.root_dir() else { return vec![] };
        let mut dirs = vec![root.join("com")];
        let arch = std::process::Command::new(root.join("com").join("arch"))
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .filter(|a| !a.is_empty() && !a.contains('/'));
        if let Some(a) = arch {
            dirs.push(root.join(format!("bin.{a}")));
        }
        dirs.extend(std::env::var_os("PATH").iter().flat_map(std::env::split_paths));
        let mut env = vec![("CADP", root.into_os_string())];
        if let Ok(path) = std::env::join_paths(dirs) {
            env.push(("PATH", path));
        }
        env
    }
}

/// The LNT dialect of the installed CADP, and where it was read: what `cadp_lib -1` prints
/// (its second word is the release, `2025-f`), else the installation's `VERSION` or `HISTORY`
/// file. `cadp` and `path` are the values of `$CADP` and `$PATH`; `cadp_lib` is looked up in
/// `$CADP/com`, else on `PATH` (the installation is then the folder above its `com/`).
/// `None`: no installation, or none that names its release.
pub(crate) fn installed_dialect(cadp: Option<&OsStr>, path: Option<&OsStr>) -> Option<(Dialect, String)> {
    let root = cadp.filter(|c| !c.is_empty()).map(PathBuf::from);
    let in_root = root.as_ref().map(|r| r.join("com").join("cadp_lib")).filter(|p| is_executable(p));
    let cadp_lib = in_root.or_else(|| {
        path.into_iter().flat_map(std::env::split_paths).map(|d| d.join("cadp_lib")).find(|p| is_executable(p))
    });
    let root = root.or_else(|| {
        let com = cadp_lib.as_ref()?.parent()?;
        (com.file_name()? == "com").then(|| com.parent().map(Path::to_path_buf)).flatten()
    });
    let from_tool = cadp_lib.as_ref().and_then(|tool| {
        let mut cmd = std::process::Command::new(tool);
        cmd.arg("-1").stdin(std::process::Stdio::null()).stderr(std::process::Stdio::null());
        if let Some(r) = &root {
            // CADP's tools refuse to run without $CADP
            cmd.env("CADP", r);
        }
        let out = cmd.output().ok().filter(|o| o.status.success())?;
        let text = String::from_utf8_lossy(&out.stdout);
        let release = crate::lnt::release_of_cadp_lib(&text)?;
        Some((Dialect::for_release(release), format!("release {}-{} printed by `cadp_lib -1`", release.0, release.1)))
    });
    from_tool.or_else(|| crate::lnt::dialect_of_installation(&root?))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn tool(dir: &Path, name: &str, mode: u32) {
        std::fs::create_dir_all(dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn prefers_cadp_com_and_falls_back_to_path() {
        let base = std::env::temp_dir().join(format!("labs-install-test-{}", std::process::id()));
        let root = base.join("cadp");
        let bin = base.join("bin");
        tool(&root.join("com"), "svl", 0o755);
        tool(&bin, "svl", 0o755);
        tool(&bin, "bcg_io", 0o755);
        let t = locate_in(Some(root.as_os_str()), Some(bin.as_os_str())).unwrap();
        assert_eq!(t.svl, root.join("com/svl"));
        assert_eq!(t.bcg_io, bin.join("bcg_io"));
        // A file that cannot be executed is not a tool.
        tool(&root.join("com"), "bcg_io", 0o644);
        let t = locate_in(Some(root.as_os_str()), Some(bin.as_os_str())).unwrap();
        assert_eq!(t.bcg_io, bin.join("bcg_io"));
        let e = locate_in(Some(root.as_os_str()), None).unwrap_err();
        assert!(matches!(&e, CadpError::NotInstalled(m) if m.contains("bcg_io")), "{e:?}");
        // Found on PATH, in an installation's com/: its root is the folder above.
        let path = std::env::join_paths([root.join("com"), bin.clone()]).unwrap();
        let t = locate_in(None, Some(path.as_os_str())).unwrap();
        assert_eq!(t.svl, root.join("com/svl"));
        assert_eq!(t.root_dir(), Some(root.clone()));
        let e = locate_in(None, Some(base.join("nowhere").as_os_str())).unwrap_err();
        assert!(matches!(&e, CadpError::NotInstalled(m) if m.contains("$CADP is not set")), "{e:?}");
        std::fs::remove_dir_all(&base).unwrap();
    }
}
