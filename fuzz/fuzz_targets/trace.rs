//! `cargo fuzz run trace`: the trace reader (Executor output, `.seq`, `.aut` paths) must never
//! panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    let _ = labs::trace::cadp::parse_trace(src);
});
