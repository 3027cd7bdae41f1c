//! `cargo fuzz run mcl`: the MCL reader (lexer, parser, typing) must never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    let _ = labs::mcl::parse(src);
});
