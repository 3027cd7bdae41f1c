//! The scoped patterns as linear-time formulas (`labs::model::scoped::as_ltl`, derivation in
//! docs/semantics.md): on the semantics cases that have scoped properties and on generated
//! specs, the native engine's verdict of each scoped property (its interval monitor) equals its
//! verdict of the translated formula (the D14 check), free and `--fair`, and the formula's
//! counterexamples replay.

use crate::engine_common::{load_text, replay_all, run};
use labs::engine::Verdict;
use labs::engine::{VerifyOptions, VerifyReport, verify};
use labs::model::scoped::as_ltl;
use labs::model::{Modality, Model};

/// The model with only the scoped properties, and the same with each replaced by its formula.
fn both(model: &Model) -> Option<(Model, Model)> {
    let scoped: Vec<_> = model
        .properties
        .iter()
        .filter(|p| matches!(p.modality, Modality::Between { .. } | Modality::FromUntil { .. }))
        .cloned()
        .collect();
    if scoped.is_empty() {
        return None;
    }
    let mut native = model.clone();
    native.properties = scoped.clone();
    let mut ltl = model.clone();
    ltl.properties = scoped
        .into_iter()
        .map(|mut p| {
            let f = as_ltl(&p.modality, &p.pred).expect("a scoped property");
            p.pred = f.atoms()[0].clone();
            p.modality = Modality::Ltl(f);
            p
        })
        .collect();
    Some((native, ltl))
}

/// Compares the verdicts; `None` when the native engine cannot decide (a run-time error or an
/// unknown verdict).
fn compare(what: &str, model: &Model, behs: &[labs::behaviour::Behaviour]) -> Option<usize> {
    let (native, ltl) = both(model)?;
    let mut compared = 0;
    for fair in [false, true] {
        let Ok(a) = bounded(&native, behs, fair) else { return None };
        let b = match bounded(&ltl, behs, fair) {
            Ok(b) => b,
            // The product with the formula's automaton may take longer than the monitor.
            Err(labs::engine::EngineError::Internal(m)) if m.starts_with("stopped") => return None,
            Err(e) => panic!("{what}: the formula fails where the monitor does not: {e:?}"),
        };
        for (x, y) in a.results.iter().zip(&b.results) {
            if x.verdict == Verdict::Unknown {
                continue;
            }
            assert_eq!(x.verdict, y.verdict, "{what} (fair: {fair}): property {}", x.property);
            compared += 1;
        }
        replay_all(&ltl, behs, &b);
    }
    Some(compared)
}

/// A generated spec's check within bounds: a few have millions of states, or a choice among
/// two billion values (`[1..y + 1]` with `y` near the largest Int) in one step; a spec the
/// bounds stop is not compared.
fn bounded(
    model: &Model,
    behs: &[labs::behaviour::Behaviour],
    fair: bool,
) -> Result<VerifyReport, labs::engine::EngineError> {
    let limits = labs::limits::Limits::new(Some(std::time::Duration::from_secs(2)), None, None, None);
    let opts = VerifyOptions {
        fair,
        threads: 1,
        check_analysis: true,
        exhaustive: true,
        max_states: Some(100_000),
        limits,
        ..Default::default()
    };
    let report = verify(model, behs, &opts)?;
    match report.stopped {
        Some(r) => Err(labs::engine::EngineError::Internal(format!("stopped: {r:?}"))),
        None => Ok(report),
    }
}

/// Every run is x = 0 (1 3)^ω (ltl_cycle.labs); the verdicts derived by hand from the
/// intervals of docs/language.md §6.
const CYCLE: &str = "
system {
    environment = x: 0
    spawn = P: 1
    Ping = x <-- 1; Pong
    Pong = x <-- 2; Ping
}
agent P {
    Behavior = Ping
    Pong = x <-- 3; Ping
}
check {
    EachOneHasOne = between (x = 1) and (x = 3), thereIs x = 1
    NoThreeBeforeClose = between (x = 0) and (x = 3), thereIs x = 3
    SmallUntilThree = between (x = 0) and (x = 3), always x < 2
    NeverClosed = between (x = 0) and (x = 5), always x < 2
    OpenForever = from (x = 0) until (x = 5), always x < 2
    ThreeInOpen = from (x = 0) until (x = 5), thereIs x = 3
    ZeroFirst = between (x = 0) and (x = 3), (x = 1) precedes (x = 0)
    OneAfterZero = between (x = 0) and (x = 3), (x = 0) precedes (x = 1)
    SecondInterval = between (x < 2) and (x = 3), thereIs x = 0
}
";

#[test]
fn scoped_patterns_by_hand_agree_with_their_formulas() {
    let (model, behs) = load_text(CYCLE, &[]).expect("loads");
    let expected = [
        ("EachOneHasOne", Verdict::Holds),
        // The interval [0, 1] closes at 3 without a 3 inside.
        ("NoThreeBeforeClose", Verdict::Violated),
        ("SmallUntilThree", Verdict::Holds),
        // Never closed: `between` does not count it.
        ("NeverClosed", Verdict::Holds),
        ("OpenForever", Verdict::Violated),
        ("ThreeInOpen", Verdict::Holds),
        // P (x = 0) opens the interval, before S (x = 1).
        ("ZeroFirst", Verdict::Violated),
        ("OneAfterZero", Verdict::Holds),
        // The second interval, [x = 1], closes without a 0.
        ("SecondInterval", Verdict::Violated),
    ];
    let (native, ltl) = both(&model).expect("scoped properties");
    for fair in [false, true] {
        for m in [&native, &ltl] {
            let rep = run(m, &behs, fair, 1).expect("decided");
            for (r, (name, v)) in rep.results.iter().zip(expected) {
                assert_eq!((r.property.as_str(), r.verdict), (name, v), "fair: {fair}");
            }
            replay_all(m, &behs, &rep);
        }
    }
    assert_eq!(compare("cycle", &model, &behs), Some(2 * expected.len()));
}

#[test]
fn generated_scoped_properties_agree_with_their_formulas() {
    let (mut specs, mut compared) = (0, 0);
    for seed in 0..200 {
        let g = crate::specgen::generate(seed);
        if !g.text.contains("between (") && !g.text.contains("from (") {
            continue;
        }
        let Ok((model, behs)) = load_text(&g.text, &g.externs) else { continue };
        if let Some(n) = compare(&format!("seed {seed}:\n{}", g.text), &model, &behs) {
            specs += 1;
            compared += n;
        }
    }
    // Enough specs to mean something (the generator draws a scoped pattern in about one
    // property in eight).
    assert!(specs >= 10 && compared >= 20, "{specs} specs, {compared} verdicts");
}
