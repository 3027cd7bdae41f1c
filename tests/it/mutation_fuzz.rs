//! A bounded mutation fuzz run in the normal test suite: from a fixed seed, a few hundred byte
//! mutations of every example and benchmark spec, and of the files `labs emit` and `labs lts`
//! write (.svl, .mcl, .aut) and of a trace, each fed in-process to its reader, which must not
//! panic. (`fuzz/` has the cargo-fuzz targets for longer runs.)

use crate::fixtures;
use crate::scratch;

use scratch::Scratch;
use std::panic::{AssertUnwindSafe, catch_unwind};

const MUTANTS: usize = 300;

/// xorshift64*: a fixed, dependency-free sequence.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Bytes that matter to the readers: delimiters, operators, quotes, newlines, non-UTF-8.
const INTERESTING: &[u8] = b"(){}[]<>\"'*%,.;:|&!=-+/\\\n\t 0123456789\xff\xc3\x80";

/// One to four random edits: replace, insert, delete a byte, or duplicate/delete a chunk.
fn mutate(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
    let mut v = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(v.len() + 1);
        let byte = if rng.below(2) == 0 { INTERESTING[rng.below(INTERESTING.len())] } else { rng.next() as u8 };
        match rng.below(5) {
            0 if at < v.len() => v[at] = byte,
            1 => v.insert(at, byte),
            2 if at < v.len() => {
                v.remove(at);
            }
            3 => {
                let end = (at + 1 + rng.below(64)).min(v.len());
                let chunk = v[at..end].to_vec();
                v.splice(at..at, chunk);
            }
            _ => {
                let end = (at + 1 + rng.below(64)).min(v.len());
                v.drain(at..end);
            }
        }
    }
    v
}

fn fuzz(name: &str, seed: u64, original: &[u8], read: impl Fn(&[u8])) {
    let mut rng = Rng(seed);
    for i in 0..MUTANTS {
        let m = mutate(&mut rng, original);
        if catch_unwind(AssertUnwindSafe(|| read(&m))).is_err() {
            let path = std::env::temp_dir().join(format!("labs-mutant-{name}-{i}"));
            let _ = std::fs::write(&path, &m);
            panic!("{name}: mutant {i} panics the reader (saved to {})", path.display());
        }
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn labs_specs() {
    let mut files = fixtures::labs_files(&fixtures::examples());
    files.extend(fixtures::labs_files(&fixtures::benchmarks()));
    assert!(files.len() >= 10, "{files:?}");
    for (k, f) in files.iter().enumerate() {
        let original = std::fs::read(f).unwrap();
        fuzz(&f.file_name().unwrap().to_string_lossy(), 1 + k as u64, &original, |m| {
            let _ = labs::syntax::parse(&text(m));
        });
    }
}

#[test]
fn emitted_files_and_traces() {
    let dir = Scratch::path("mutation", "emitted");
    let labs = |args: &[&str]| {
        let o = fixtures::labs_command().args(args).output().unwrap();
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    };
    let leader = fixtures::path_str("examples/leader.labs");
    labs(&["emit", &leader, "n=2", "-o", dir.as_str()]);
    let aut = dir.join("leader.aut");
    labs(&["lts", &leader, "n=2", "-o", aut.to_str().unwrap()]);
    let read = |name: &str| std::fs::read(dir.join(name)).unwrap();

    for (k, svl) in ["leader.svl", "leader_mono.svl"].into_iter().enumerate() {
        fuzz(svl, 100 + k as u64, &read(svl), |m| {
            let _ = labs::lntcheck::svl::parse(&text(m));
        });
    }
    for (k, mcl) in ["leader_NeverAgreed.mcl", "leader_Settles.mcl", "leader_LeaderIsMax.mcl"].into_iter().enumerate() {
        fuzz(mcl, 200 + k as u64, &read(mcl), |m| {
            let _ = labs::mcl::parse(&text(m));
        });
    }
    let lts = read("leader.aut");
    fuzz("leader.aut", 300, &lts, |m| {
        let _ = labs::mcl::read_aut_bytes(m);
        let _ = labs::trace::cadp::parse_trace(&text(m));
    });
    // A diagnostic path as `.aut` and the same labels as Executor output.
    let path = b"des (0, 4, 4)\n(0, \"DONE\", 1)\n(1, \"L_LEADER !0 !1\", 2)\n(2, i, 3)\n(3, \"DONE\", 1)\n";
    let seq =
        b"lnt.open: running executor\n<initial state>\n\"DONE\"\n\"L_LEADER !0 !1\"\n\"i\"\n\"DONE\"\n<deadlock>\n";
    for (k, trace) in [&path[..], &seq[..]].into_iter().enumerate() {
        fuzz("trace", 400 + k as u64, trace, |m| {
            let _ = labs::trace::cadp::parse_trace(&text(m));
        });
    }
}

/// The JSON trace reader (`verify --json`'s traces, read back by `translate-trace` and
/// `labs explore --trace`) and the explore API's request bodies, mutated from a real
/// counterexample and real requests.
#[test]
fn json_traces_and_explore_requests() {
    let counter = fixtures::path_str("examples/counter.labs");
    let o = fixtures::labs(&["verify", &counter, "n=2", "atomic=0", "--json"]);
    assert_eq!(o.status.code(), Some(10), "{}", fixtures::stderr(&o));
    let doc = o.stdout;
    let (model, behs) = crate::engine_common::load(&counter, &["n=2", "atomic=0"]);
    assert!(!labs::trace::from_json::read(&model, &behs, false, &text(&doc)).unwrap().is_empty());
    fuzz("trace.json", 500, &doc, |m| {
        let _ = labs::trace::from_json::read(&model, &behs, false, &text(m));
        let _ = labs::trace::from_json::read(&model, &behs, true, &text(m));
    });
    let session = || labs::explore::Session::new(&model, &behs, false).unwrap();
    let setup = || labs::explore::Setup {
        spec_name: "counter.labs".into(),
        source: std::fs::read_to_string(&counter).unwrap(),
        trace_file: None,
        view: None,
        version: "test".into(),
        stop: std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)),
    };
    let load = serde_json::to_vec(&serde_json::json!({ "json": text(&doc) })).unwrap();
    let requests: [(&str, &[u8]); 6] = [
        ("/api/step", br#"{"rev":0,"index":1}"#),
        ("/api/goto", br#"{"at":0}"#),
        ("/api/random", br#"{"rev":0,"steps":20,"seed":7}"#),
        ("/api/until", br#"{"rev":0,"kind":"predicate","predicate":"c = 1","max_steps":50,"seed":1}"#),
        ("/api/restart", br#"{"seed":3}"#),
        ("/api/load", &load),
    ];
    for (k, (path, body)) in requests.into_iter().enumerate() {
        let api = std::cell::RefCell::new(labs::explore::Api::new(session(), setup()));
        assert_eq!(api.borrow_mut().handle("POST", path, body).status, 200, "{path}");
        fuzz(path, 600 + k as u64, body, |m| {
            let _ = api.borrow_mut().handle("POST", path, m);
        });
    }
}
