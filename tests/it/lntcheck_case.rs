//! `case` statements in hand-written LNT (`labs lts --lnt FILE`): read as `if` chains over
//! value patterns, `where` guards and `any`, in functions and in processes.

use labs::lntcheck::interp::{GenOptions, build_net, generate};
use labs::lntcheck::{check::check, load};

const PROGRAM: &str = "module m is
type Color is
   red, green, blue
   with ==, !=
end type
function code (c: Color) : Nat is
   case c in
      red -> return 0
   |  green -> return 1
   |  any -> return 2
   end case
end function
process MAIN [G: any] is
   var x: Nat in
      x := 0;
      loop
         case x in
            0 -> G (!code (red)); x := 1
         |  1 where code (green) == 1 -> G (!code (blue)); x := 2
         |  any Nat -> G (!x + 10); x := 0
         end case
      end loop
   end var
end process
end module
";

fn aut(src: &str) -> String {
    let p = load(src, None).unwrap_or_else(|d| panic!("{}", d.in_text(src)));
    let diags = check(&p);
    assert!(diags.is_empty(), "{diags:?}");
    let net = build_net(&p, "MAIN").unwrap();
    let (lts, _) = generate(&p, &net, &GenOptions { max_states: Some(100), ..Default::default() }).unwrap();
    lts.to_aut()
}

#[test]
fn case_branches_in_functions_and_processes() {
    // x = 0: G !0 (code(red)); x = 1: guard true, G !2 (code(blue) is `any`); x = 2: G !12.
    let out = aut(PROGRAM);
    let mut lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.remove(0), "des (0, 3, 3)");
    lines.sort_unstable();
    assert_eq!(lines, ["(0, \"G !0\", 1)", "(1, \"G !2\", 2)", "(2, \"G !12\", 0)"]);
}

#[test]
fn a_false_guard_falls_through_to_the_next_branch() {
    let src = PROGRAM.replace("code (green) == 1", "code (green) == 0");
    let out = aut(&src);
    // x = 1 now takes `any`: G !11, back to x = 0.
    assert!(out.contains("(1, \"G !11\", 0)"), "{out}");
    assert!(out.starts_with("des (0, 2, 2)"), "{out}");
}

#[test]
fn branches_after_a_bare_any_are_refused() {
    let src = PROGRAM.replace("|  any -> return 2", "|  any -> return 2\n   |  blue -> return 3");
    let e = load(&src, None).err().expect("an error").message;
    assert!(e.contains("unreachable `case` branch"), "{e}");
}
