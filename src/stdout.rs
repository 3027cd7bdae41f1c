//! Standard output of the binaries (`labs`, `labs-bench`): the one place they write it. The
//! library's stages never print; this module only carries the binaries' text to stdout.
//!
//! When the reader of standard output goes away (`labs simulate … | head -3`), a write fails
//! with a broken pipe. Unix tools then end quietly, killed by SIGPIPE; Rust ignores SIGPIPE
//! and `println!` panics instead. Here the first broken pipe marks standard output closed and
//! every later write is dropped, so the command finishes its work, including the files named
//! on its command line (`--report`, `-o`), and `finish` then ends the process as SIGPIPE
//! would. A program without such files (`labs-bench`) asks with `end_at_once_when_closed`
//! to end at the first broken pipe instead.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set at the first broken pipe on standard output.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Set by a program that has nothing left to do once its output has no reader.
static END_AT_ONCE: AtomicBool = AtomicBool::new(false);

/// Writes `text` to standard output; dropped once the reader has gone. A write error other
/// than a broken pipe (a full disk) is reported on stderr and ends the process (exit 1).
pub fn write(text: &str) {
    write_bytes(text.as_bytes());
}

/// `write` for bytes that need not be text (a generated manual page).
pub(crate) fn write_bytes(bytes: &[u8]) {
    if CLOSED.load(Ordering::SeqCst) {
        return;
    }
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            CLOSED.store(true, Ordering::SeqCst);
            if END_AT_ONCE.load(Ordering::SeqCst) {
                end_as_sigpipe();
            }
        }
        Err(e) => {
            eprintln!("error: cannot write standard output: {e}");
            std::process::exit(1);
        }
    }
}

/// Whether a write found standard output closed by its reader.
pub(crate) fn closed() -> bool {
    CLOSED.load(Ordering::SeqCst)
}

/// From now on, a broken pipe ends the process at once (as SIGPIPE would).
pub fn end_at_once_when_closed() {
    END_AT_ONCE.store(true, Ordering::SeqCst);
}

/// Called when the program's work is done, files written: if standard output was closed by
/// its reader, ends the process as SIGPIPE would, quietly; otherwise returns.
pub(crate) fn finish() {
    if closed() {
        end_as_sigpipe();
    }
}

/// Ends the process the way an unhandled SIGPIPE does (the shell's status 141, no message).
fn end_as_sigpipe() -> ! {
    // SAFETY: restoring the default action of one signal and raising it in this process;
    // neither call touches memory.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        libc::raise(libc::SIGPIPE);
    }
    std::process::exit(128 + libc::SIGPIPE);
}

/// `print!` through `write`.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::stdout::write(&format!($($arg)*)) };
}

/// `println!` through `write`.
#[macro_export]
macro_rules! outln {
    () => { $crate::stdout::write("\n") };
    ($($arg:tt)*) => { $crate::stdout::write(&format!("{}\n", format_args!($($arg)*))) };
}

// The macros by path, for `use crate::stdout::outln` (exported macros live at the crate root).
pub use super::{out, outln};
