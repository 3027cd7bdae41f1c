//! What the commands write on stderr besides warnings and errors: the progress line (one
//! line rewritten in place while a long phase runs, only when stderr is a terminal) and
//! notes (sizes, choices made). `-q` turns both off, in every command. The progress line is
//! cleared before anything else is printed on stderr (a note, a warning, an error, the last
//! resort's message), so that no message starts in the middle of it.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

/// A progress line is on the screen.
static SHOWN: AtomicBool = AtomicBool::new(false);

/// `-q` was given.
static QUIET: AtomicBool = AtomicBool::new(false);

/// `-q`: no progress line, no notes.
pub(crate) fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::SeqCst);
}

/// Whether a command shows progress: stderr is a terminal, and neither `-q` nor `--json`.
pub(crate) fn wanted(json: bool) -> bool {
    !QUIET.load(Ordering::SeqCst) && !json && std::io::stderr().is_terminal()
}

/// Prints a note on stderr (a size, a choice labs made), unless `-q`.
pub(crate) fn note(text: impl std::fmt::Display) {
    if !QUIET.load(Ordering::SeqCst) {
        clear();
        eprintln!("{text}");
    }
}

/// Shows `line` (without a line break) in place of the previous progress line, cut to the
/// terminal's width: a line that wrapped could not be rewritten or cleared in place.
pub(crate) fn show(line: &str) {
    SHOWN.store(true, Ordering::SeqCst);
    let width = width();
    let line: String = line.chars().take(width).collect();
    eprint!("\r{line:<width$}");
}

/// Clears the progress line, if one is shown.
pub(crate) fn clear() {
    if SHOWN.swap(false, Ordering::SeqCst) {
        eprint!("\r{:w$}\r", "", w = width());
    }
}

/// The columns a progress line may take: one less than the terminal's width (80 when it
/// cannot be read), so that the cursor never wraps.
fn width() -> usize {
    let mut ws = libc::winsize { ws_row: 0, ws_col: 0, ws_xpixel: 0, ws_ypixel: 0 };
    // SAFETY: TIOCGWINSZ writes one `winsize` into `ws`, which lives across the call.
    let ok = unsafe { libc::ioctl(libc::STDERR_FILENO, libc::TIOCGWINSZ, &mut ws) } == 0;
    let cols = if ok && ws.ws_col > 0 { ws.ws_col as usize } else { 80 };
    cols.saturating_sub(1).max(20)
}
