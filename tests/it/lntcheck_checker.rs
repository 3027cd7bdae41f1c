//! The LNT checker on hand-written erroneous programs: each error is found, with its position.

use crate::fixtures;

use labs::lntcheck::{check::check, load};

const BASE: &str = "module m is
type Arr is
   array [0 ... 1] of Int
   with ==, !=, get, set
end type
function f (x: Int) : Int is
   return x + 1
end function
process P [G, H: any] (id: Nat) is
   var v: Int, a: Arr in
      BODY
   end var
end process
process MAIN [G: any] is
   hide H: any in
      par G in P [G, H] (0) || P [G, H] (1) end par
   end hide
end process
end module
";

fn msgs(body: &str) -> Vec<String> {
    let src = BASE.replace("BODY", body);
    match load(&src, None) {
        Err(d) => vec![d.in_text(&src).to_string()],
        Ok(p) => check(&p).into_iter().map(|d| d.in_text(&src).to_string()).collect(),
    }
}

#[test]
fn correct_program_passes() {
    assert_eq!(msgs("v := 1; a := Arr (0); a[0] := f (v); loop G (!id, !a[0]) end loop"), Vec::<String>::new());
}

#[test]
fn undeclared_gate() {
    assert_eq!(msgs("v := 1; K (!v)"), vec!["11:15: undeclared gate `K`"]);
}

#[test]
fn wrong_offer_arity() {
    assert_eq!(msgs("v := 1; G (!v); G (!v, !id)"), vec!["11:23: gate `G` used with 2 offers, but with 1 at 11:15"]);
}

#[test]
fn uninitialised_on_one_path() {
    assert_eq!(
        msgs("if id == 0 then v := 1 end if; G (!v)"),
        vec!["11:42: variable `v` may be used before being assigned"]
    );
    // assigned on every path: accepted
    assert_eq!(msgs("if id == 0 then v := 1 else v := 2 end if; G (!v)"), Vec::<String>::new());
    // a path ending in `stop` does not count
    assert_eq!(msgs("if id == 0 then v := 1 else stop end if; G (!v)"), Vec::<String>::new());
}

#[test]
fn type_mismatch() {
    assert_eq!(msgs("v := id; G (!v)"), vec!["11:12: type mismatch: expected Int, found Nat"]);
    assert_eq!(msgs("v := 1; G (!(v + id))"), vec!["11:22: type mismatch: `+` on Int and Nat"]);
}

#[test]
fn numerals_take_the_type_of_the_other_operand() {
    // Arithmetic on numerals alone is typed by the other side of a comparison, as a numeral is:
    // `1 * 1 > v` compares Ints.
    assert_eq!(msgs("v := 0; if (1 * 1) > v then G (!v) end if"), Vec::<String>::new());
    assert_eq!(msgs("v := 0; if ((2 + 3) - 1) == v then G (!v) end if"), Vec::<String>::new());
    // ... which must still agree with it.
    assert_eq!(msgs("v := 0; if (1 * 1) > id then G (!v) end if"), Vec::<String>::new());
    assert_eq!(msgs("v := 0; if (1 * v) > id then G (!v) end if"), vec!["11:26: type mismatch: `>` on Int and Nat"]);
}

#[test]
fn located_syntax_errors() {
    assert_eq!(msgs("v := 1;; G (!v)"), vec!["11:14: expected a statement, found `;`"]);
    // Both in-out spellings in one program.
    let src = "module m is
function g (in out x: Int) is
   x := x + 1
end function
function f (x: Int) : Int is
   var y: Int in
      y := x;
      eval g (!?y);
      eval g (y?);
      return y
   end var
end function
end module
";
    let e = load(src, None).err().map(|d| d.in_text(src).to_string()).unwrap_or_default();
    assert_eq!(e, "9:16: in-out parameter `x?` mixed with in-out parameter `!?x` (at 8:15)");
}

#[test]
fn emitted_programs_pass_the_checker() {
    // every emitted program parses and checks (both dialects, fair and not)
    for (spec, ext) in [
        ("leader.labs", vec!["n=3"]),
        ("twophase.labs", vec!["workers=2"]),
        ("flock.labs", vec!["birds=2", "delta=1", "grid=3"]),
        ("formation.labs", vec!["n=2", "range=2", "size=3"]),
        ("philosophers.labs", vec!["n=3"]),
        ("twophasecommit.labs", vec!["workers=2"]),
        ("examples/counter.labs", vec!["n=2", "atomic=0"]),
        ("examples/flocking.labs", vec!["birds=2", "delta=1", "grid=3"]),
        ("examples/leader.labs", vec!["n=3"]),
        ("examples/line.labs", vec!["n=3", "gap=2", "size=5"]),
        ("examples/majority.labs", vec!["yes=1", "no=2"]),
        ("examples/philosophers.labs", vec!["n=3", "asym=1"]),
        ("examples/twophase.labs", vec!["workers=2"]),
    ] {
        let path = if spec.starts_with("examples/") {
            fixtures::path_str(spec)
        } else {
            fixtures::path_str(&format!("benchmarks/{spec}"))
        };
        let text = std::fs::read_to_string(&path).unwrap();
        let ext: Vec<String> = ext.iter().map(|s| s.to_string()).collect();
        let externs = labs::model::externs::parse_externs(&ext).unwrap();
        let parsed = labs::syntax::parse(&text);
        let (model, _) = labs::model::resolve(parsed.spec.as_ref().unwrap(), &text, &externs).unwrap();
        let behs = labs::behaviour::compile_all(&model).unwrap().0;
        let a = labs::analysis::values::analyse(&model, &behs);
        for fair in [false, true] {
            for d in labs::lnt::Dialect::ALL {
                use labs::lntcheck::ast::Dialect as Spelled;
                let src = labs::lntcheck::backend::emit_lnt(&model, &behs, &a, "m", fair, d).unwrap();
                use labs::lnt::Dialect as D;
                let want = match d {
                    D::V2023 => Spelled::D2023,
                    D::V2024D | D::V2025D => Spelled::D2024D,
                    D::V2025E => Spelled::D2025E,
                    D::V2025 | D::V2025L | D::V2026 => Spelled::D2025,
                };
                let p = load(&src, Some(want)).unwrap_or_else(|e| panic!("{spec} fair={fair}: {}", e.in_text(&src)));
                let d = check(&p);
                assert!(d.is_empty(), "{spec} fair={fair}: {d:?}");
            }
        }
    }
}

#[test]
fn offer_types_within_a_process() {
    // the first use of a gate (program order) is the reference
    assert_eq!(msgs("v := 1; G (!v); G (!id)"), vec!["11:23: offer 1 of gate `G` has type Nat, but Int at 11:15"]);
    assert_eq!(msgs("G (?v); G (!id)"), vec!["11:15: offer 1 of gate `G` has type Nat, but Int at 11:7"]);
    // `of` fixes a numeral's type; a bare numeral matches any numeric type
    assert_eq!(
        msgs("v := 1; G (!v); G (!(2 of Nat))"),
        vec!["11:23: offer 1 of gate `G` has type Nat, but Int at 11:15"]
    );
    assert_eq!(msgs("v := 1; G (!v); G (!2)"), Vec::<String>::new());
}

/// Two processes sharing channels: `Q`'s formal gate `X` is given `G` by one call and the
/// hidden `H` by another, so `G`, `H` and `X` must all carry offers of one shape.
const TWO: &str = "module m is
process Q [X: any] (n: Nat) is
   X (!n)
end process
process P [G, H: any] (id: Nat) is
   var v: Int in
      BODY
   end var
end process
process MAIN [G: any] is
   hide H: any in
      par G in P [G, H] (0) || Q [G] (1) || Q [H] (2) end par
   end hide
end process
end module
";

fn msgs2(body: &str, main: Option<(&str, &str)>) -> Vec<String> {
    let mut src = TWO.replace("BODY", body);
    if let Some((a, b)) = main {
        src = src.replace(a, b);
    }
    match load(&src, None) {
        Err(d) => vec![d.in_text(&src).to_string()],
        Ok(p) => check(&p).into_iter().map(|d| d.in_text(&src).to_string()).collect(),
    }
}

#[test]
fn offers_agree_across_processes() {
    assert_eq!(msgs2("G (!id); H (!(1 of Nat)); G (?id)", None), Vec::<String>::new());
    // arity: G is Q's X, used with one offer at 3:4
    assert_eq!(
        msgs2("v := 1; G (!v, !id)", None),
        vec!["7:15: gate `G` used with 2 offers, but with 1 at 3:4 (as `X`)"]
    );
    // type, through a visible gate and through a hidden one
    assert_eq!(msgs2("v := 1; G (!v)", None), vec!["7:15: offer 1 of gate `G` has type Int, but Nat at 3:4 (as `X`)"]);
    assert_eq!(msgs2("v := 1; H (!v)", None), vec!["7:15: offer 1 of gate `H` has type Int, but Nat at 3:4 (as `X`)"]);
    // without the call `Q [H]`, H is a channel of its own
    assert_eq!(msgs2("v := 1; H (!v)", Some((" || Q [H] (2)", ""))), Vec::<String>::new());
}

#[test]
fn gates_of_par_sets_and_calls_must_exist() {
    assert_eq!(
        msgs2("G (!id)", Some(("par G in", "par K in"))),
        vec!["12:11: undeclared gate `K` in the synchronisation set of `par`"]
    );
    assert_eq!(
        msgs2("G (!id)", Some(("|| Q [G] (1)", "|| K -> Q [G] (1)"))),
        vec!["12:32: undeclared gate `K` in the synchronisation set of `par`"]
    );
    assert_eq!(msgs2("G (!id)", Some(("Q [G] (1)", "Q [K] (1)"))), vec!["12:35: undeclared gate `K`"]);
    assert_eq!(msgs2("G (!id)", Some(("Q [G] (1)", "Q [G, H] (1)"))), vec!["12:32: process `Q` has 1 gates, 2 given"]);
}
