//! `cargo fuzz run trace_json`: the reader of traces in their JSON form (what `verify --json`
//! prints, read back by `translate-trace` and `labs explore --trace`) must never panic.
#![no_main]

use labs::behaviour::{Behaviour, compile_all};
use labs::model::{Model, resolve};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

/// The two-agent counter example, without its extern parameters.
const SPEC: &str = "system { environment = c: 0 spawn = Inc: 2 }
agent Inc { interface = tmp: 0 Behavior = tmp <- c; c <-- tmp + 1 }
check { AllCounted = finally c = 2 }";

fn model() -> &'static (Model, Vec<Behaviour>) {
    static M: OnceLock<(Model, Vec<Behaviour>)> = OnceLock::new();
    M.get_or_init(|| {
        let spec = labs::syntax::parse(SPEC).spec.expect("the fixed spec parses");
        let (model, _) = resolve(&spec, SPEC, &Default::default()).expect("the fixed spec resolves");
        let behs = compile_all(&model).expect("the fixed spec compiles").0;
        (model, behs)
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (model, behs) = model();
    let _ = labs::trace::from_json::read(model, behs, false, text);
    let _ = labs::trace::from_json::read(model, behs, true, text);
});
