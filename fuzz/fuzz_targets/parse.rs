//! `cargo fuzz run parse`: the parser must never panic, and a parsed tree must print to text
//! that parses back to the same tree.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    let out = labs::syntax::parse(src);
    if let Some(spec) = out.spec {
        let printed = labs::syntax::printer::print_spec(&spec);
        let again = labs::syntax::parse(&printed).spec.expect("printed text parses");
        assert_eq!(labs::syntax::printer::erase_spans(&spec), labs::syntax::printer::erase_spans(&again));
    }
});
