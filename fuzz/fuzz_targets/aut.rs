//! `cargo fuzz run aut`: both `.aut` readers (the LTS of `labs mcl`, the path of
//! `translate-trace`) must never panic, on any bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = labs::mcl::read_aut_bytes(data);
    if let Ok(src) = std::str::from_utf8(data) {
        let _ = labs::trace::cadp::parse_aut_path(src);
    }
});
