//! Running `labs` with its standard error on a pseudo-terminal of a chosen width, as a user's
//! terminal: where the progress line shows (it is drawn only on a terminal).

use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::process::{Command, Stdio};

/// What a command printed: its exit code, its standard output (a pipe), and what its standard
/// error drew on the terminal (`\r` and all; the terminal turns `\n` into `\r\n`).
pub struct OnTerminal {
    pub code: Option<i32>,
    pub stdout: String,
    pub terminal: String,
}

/// Runs `cmd` with its standard error on a new pseudo-terminal `cols` columns wide.
pub fn run(mut cmd: Command, cols: u16) -> OnTerminal {
    let (mut master, mut slave) = (0, 0);
    let ws = libc::winsize { ws_row: 24, ws_col: cols, ws_xpixel: 0, ws_ypixel: 0 };
    // SAFETY: openpty writes the two descriptors it opens into `master` and `slave`; the name
    // and terminal settings may be null, and `ws` lives across the call.
    let r = unsafe { libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), &ws) };
    assert_eq!(r, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened, and nothing else owns them.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    cmd.stderr(Stdio::from(slave)).stdout(Stdio::piped());
    let child = cmd.spawn().expect("run labs");
    // The command holds the terminal's other end until it is dropped: then only the child
    // does, and reading ends when the child has exited.
    drop(cmd);
    let reader = std::thread::spawn(move || {
        let mut file = std::fs::File::from(master);
        let mut bytes = vec![];
        let mut buf = [0u8; 4096];
        // A read fails (EIO) once no process has the terminal open.
        while let Ok(n) = file.read(&mut buf) {
            if n == 0 {
                break;
            }
            bytes.extend_from_slice(&buf[..n]);
        }
        bytes
    });
    let out = child.wait_with_output().expect("wait for labs");
    let terminal = reader.join().expect("the terminal's reader");
    OnTerminal {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        terminal: String::from_utf8_lossy(&terminal).into_owned(),
    }
}

/// The pieces of the terminal's text between carriage returns and line breaks: each one was
/// drawn from the first column.
pub fn segments(text: &str) -> impl Iterator<Item = &str> {
    text.split(['\r', '\n']).filter(|s| !s.is_empty())
}
