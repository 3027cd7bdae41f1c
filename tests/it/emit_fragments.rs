//! Template fragments against hand-written LNT for tiny specifications, and the constructs the
//! encoding refuses.

use labs::analysis::values::analyse;
use labs::behaviour::compile_all;
use labs::lnt::{Dialect, EmitError, EmitOptions, EmittedFile, emit};
use labs::model::externs::parse_externs;
use labs::model::resolve;
use labs::syntax::parse;

fn emit_src(src: &str, fair: bool) -> Result<Vec<EmittedFile>, EmitError> {
    let parsed = parse(src);
    let spec = parsed.spec.unwrap_or_else(|| panic!("parse errors: {:?}", parsed.diagnostics));
    let (model, _) = resolve(&spec, src, &parse_externs::<&str>(&[]).unwrap()).unwrap();
    let (b, _) = compile_all(&model).unwrap();
    let a = analyse(&model, &b);
    let opts = EmitOptions {
        fair,
        properties: vec![],
        dialect: Dialect::V2025,
        dialect_reason: String::new(),
        base: "t".into(),
        source: "t.labs".into(),
        usage: None,
    };
    emit(&model, &b, &a, &opts)
}

fn lnt(src: &str) -> String {
    emit_src(src, false).unwrap().remove(0).contents
}

/// The block starting at the line containing `from` and ending at the first later line of the
/// same indentation that starts with `end` (`end function`, `end if`, …), dedented.
fn block(text: &str, from: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| l.contains(from)).unwrap_or_else(|| panic!("no `{from}` in\n{text}"));
    let ind = lines[start].len() - lines[start].trim_start().len();
    let end = start
        + 1
        + lines[start + 1..]
            .iter()
            .position(|l| l.len() - l.trim_start().len() == ind && l.trim_start().starts_with("end"))
            .unwrap_or_else(|| panic!("no end of block `{from}`"));
    lines[start..=end].iter().map(|l| l.get(ind..).unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// Strips the common indentation of an expected fragment (first and last blank lines dropped).
fn dedent(s: &str) -> String {
    let lines: Vec<&str> = s.lines().skip_while(|l| l.trim().is_empty()).collect();
    let ind = lines.iter().filter(|l| !l.trim().is_empty()).map(|l| l.len() - l.trim_start().len()).min().unwrap_or(0);
    lines.iter().map(|l| l.get(ind..).unwrap_or("")).collect::<Vec<_>>().join("\n").trim_end().to_string()
}

fn assert_block(text: &str, from: &str, expected: &str) {
    let got = block(text, from);
    let expected = dedent(expected);
    assert_eq!(got, expected, "\n--- got ---\n{got}\n--- expected ---\n{expected}");
}

const ONE: &str = "system { spawn = A: 1 }
agent A {
    interface = x: 0
    Behavior = x <- x + 1; Behavior
}
check { P = always x of 0 >= 0 }
";

#[test]
fn one_action() {
    let t = lnt(ONE);
    // The step evaluated in order: x read from the store (it cannot be ⊥: no ⊥ test), the
    // overflow tested before the addition (the analysis does not bound x), the value written.
    assert_block(
        &t,
        "function st_A_0_0",
        "
        function st_A_0_0 (id: Nat, in out I: Attrs, in out L: Stigs, in out E: Envs, in out r: Nat, in out U: Used, kn: Nat) is
           var x_0, x_1: Int in
              -- x <- x + 1
              x_0 := lab_in (I[0]);
              if not (lab_add_ok (x_0, 1)) then
                 r := 4;
                 return
              else
                 x_1 := x_0 + 1
              end if;
              I[0] := lab_out (x_1)
           end var
        end function",
    );
    // The act branch: only with empty pending sets in the edge's control state; the step's
    // status checked in the TICK offer (enabled or failing: no sink); the step evaluated again
    // on the agent's stores, its run-time error reported on ERR; the observation label of the
    // changed attribute; the next control state.
    assert_block(
        &t,
        "if lab_empty (Zp) and lab_empty (Zc) and (pc == 0) then",
        "
        if lab_empty (Zp) and lab_empty (Zc) and (pc == 0) then
           TICK (id) where (en_A_0_0 (id, I, L, E, 1) != 0);
           I0 := I;
           r := 1;
           U := Used (false);
           eval st_A_0_0 (id, I?, L?, E?, r?, U?, 1);
           if r != 1 then
              -- a run-time error (D9): reported, and the system stops
              ERR (id, r);
              stop
           end if;
           if I[0] != I0[0] then
              A_X (id, (0 of Nat), I[0])
           end if;
           pc := 0
        else
           stop
        end if",
    );
    // en_ gives the status of the step without changing the stores.
    assert_block(
        &t,
        "function en_A_0_0",
        "
        function en_A_0_0 (id: Nat, I: Attrs, L: Stigs, E: Envs, kn: Nat) : Nat is
           var I1: Attrs, L1: Stigs, E1: Envs, r: Nat, U: Used in
              I1 := I;
              L1 := L;
              E1 := E;
              r := 1;
              U := Used (false);
              eval st_A_0_0 (id, I1?, L1?, E1?, r?, U?, kn);
              if (r == 0) or (r == 2) then
                 return r
              end if;
              return r
           end var
        end function",
    );
    // Yield, initialisation in id order, DONE after initialisation and after each step.
    assert!(t.contains("TICK (?t) where (t != id) and (t < N_AGENTS)\n"));
    assert_block(
        &t,
        "while j <= N_AGENTS loop",
        "
        while j <= N_AGENTS loop
           if j == (id + 1) then
              -- x := 0
              v := 0;
              I[0] := v;
              A_X (id, (0 of Nat), v);
              null
           end if;
           INIT (j);
           j := j + 1
        end loop;",
    );
    assert!(t.contains("         end alt;\n         -- every agent synchronises at the end of each step: DONE marks the real states\n         DONE\n"));
    // ERR is visible in MAIN.
    assert!(t.contains("process MAIN [DONE, ERR, A_X: any] is"), "{t}");
    assert!(!t.contains("SPURIOUS") && !t.contains("spurious"));
}

#[test]
fn guard() {
    let t = lnt("system { spawn = A: 1 }
agent A {
    interface = x: 0
    Behavior = x < 3 -> x <- x * 2 - 1
}
check { }
");
    // The guard first (false: disabled, status 0), then the statement, each operation after
    // its overflow test (the analysis lets x be any value: the chaos automaton repeats the step).
    assert_block(
        &t,
        "function st_A_0_0",
        "
        function st_A_0_0 (id: Nat, in out I: Attrs, in out L: Stigs, in out E: Envs, in out r: Nat, in out U: Used, kn: Nat) is
           var x_0, x_1, x_2, x_3: Int, b_0: Bool in
              x_0 := lab_in (I[0]);
              b_0 := (x_0 < 3);
              if not (b_0) then
                 r := 0;
                 return
              end if;
              -- x <- (x * 2) - 1
              x_1 := lab_in (I[0]);
              if not (lab_mul_ok (x_1, 2)) then
                 r := 4;
                 return
              else
                 x_2 := x_1 * 2
              end if;
              if not (lab_sub_ok (x_2, 1)) then
                 r := 4;
                 return
              else
                 x_3 := x_2 - 1
              end if;
              I[0] := lab_out (x_3)
           end var
        end function",
    );
    // After the step the behaviour has terminated: control state 1 has no edge.
    assert!(t.contains("(pc == 0)") && !t.contains("(pc == 1)") && t.contains("pc := 1\n"));
}

#[test]
fn choice() {
    let t = lnt("system { spawn = A: 2 }
agent A {
    interface = x: 0
    Behavior = (x <- 1 ++ x <- 2); Behavior
}
check { }
");
    let branches: Vec<&str> = t
        .lines()
        .map(str::trim)
        .filter(|l| l.contains("(pc == ") || (l.starts_with("pc := ") && !l.ends_with(';')))
        .collect();
    assert_eq!(
        branches,
        [
            "if lab_empty (Zp) and lab_empty (Zc) and (pc == 0) then",
            "pc := 0",
            "if lab_empty (Zp) and lab_empty (Zc) and (pc == 0) then",
            "pc := 0",
        ]
    );
    assert!(t.contains("-- x <- 1\n") && t.contains("-- x <- 2\n"));
    assert!(
        t.contains("TICK (id) where (en_A_0_0 (id, I, L, E, 1) != 0);")
            && t.contains("TICK (id) where (en_A_0_1 (id, I, L, E, 1) != 0);")
    );
    assert_block(
        &t,
        "process MAIN",
        "
        process MAIN [DONE: any] is
           hide TICK, INIT: any in
              par TICK, DONE, INIT in
                 Agent_A [TICK, DONE, INIT] (0)
                 || Agent_A [TICK, DONE, INIT] (1)
              end par
           end hide
        end process",
    );
}

#[test]
fn parallel_three_branches() {
    let t = lnt("system { spawn = A: 1 }
agent A {
    interface = x: 0; y: 0; z: 0
    Behavior = x <- 1 || y <- 2 || z <- 3
}
check { }
");
    // (comment, source, target) of every act branch: the three branches interleave, and the
    // composition terminates with the last action of its last branch (state 7, no edge).
    let mut edges = vec![];
    let lines: Vec<&str> = t.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        if let Some(rest) = l.trim().strip_prefix("if lab_empty (Zp) and lab_empty (Zc) and (pc == ") {
            let src = rest.trim_end_matches(") then");
            let comment = lines[i - 1].trim().trim_start_matches("-- ");
            let tgt = lines[i..].iter().find_map(|x| x.trim().strip_prefix("pc := ")).unwrap();
            edges.push(format!("{src} {comment} {tgt}"));
        }
    }
    assert_eq!(
        edges,
        [
            "0 x <- 1 1",
            "0 y <- 2 2",
            "0 z <- 3 3",
            "1 y <- 2 4",
            "1 z <- 3 5",
            "2 x <- 1 4",
            "2 z <- 3 6",
            "3 x <- 1 5",
            "3 y <- 2 6",
            "4 z <- 3 7",
            "5 y <- 2 7",
            "6 x <- 1 7",
        ]
    );
}

#[test]
fn tuple_messages() {
    let t = lnt("system { spawn = A: 2 }
stigmergy S {
    link = p of c1 = p of c2
    a, b: 0, 1
}
agent A {
    interface = p: 0
    stigmergies = S
    Behavior = a, b <~ b, a
}
check { }
");
    // The writer refreshes the tuple's timestamp once and owes a propagation.
    assert!(t.contains("               REFRESH ((0 of Nat), id);\n               Zp[0] := true;\n"), "{t}");
    // The message carries the tuple's two values and the one sender field the link reads; in
    // MAIN (split 0) with the masks of Timestamps, in the compositional leaves with masks 0.
    assert_block(
        &t,
        "if Zp[0] then",
        "
        if Zp[0] then
           if split == 1 then
              PUT_0 (id, (0 of Nat), L[0], L[1], I[0], (0 of Nat))
           else
              PUT_0 (id, ?gm, L[0], L[1], I[0], ?ln) where (gm < N_MASKS) and sub_mask (gm, rcv_mask (0, id)) and (ln < N_MASKS) and sub_mask (ln, rcv_mask (0, id))
           end if;
           Zp[0] := false
        else
           stop
        end if",
    );
    // split 1: a receiver's leaf offers no mask bits; it asks Timestamps (0) for its
    // comparison and says whether it is linked (REQ).
    let leaf_recv = "PUT_0 (?s, (0 of Nat), ?x_0, ?x_1, ?f_0, (0 of Nat)) where (s != id) and (s < N_AGENTS) and dom_0 (x_0) and dom_0 (x_1) and dom_1 (f_0);\n               r := lk_A_0 (id, s, I, L, f_0);\n               REQ (id, (0 of Nat), s, ?c, (r == 1))";
    assert!(t.contains(leaf_recv), "{t}");
    // split 0: the sender and the receivers take from Timestamps the receivers older than the
    // sender (gm); each receiver fixes its own bit of the linked ones (ln) with its link.
    let recv = "PUT_0 (?s, ?gm, ?x_0, ?x_1, ?f_0, ?ln) where (s != id) and (s < N_AGENTS) and dom_0 (x_0) and dom_0 (x_1) and dom_1 (f_0) and (gm < N_MASKS) and sub_mask (gm, rcv_mask (0, s)) and (ln < N_MASKS) and sub_mask (ln, rcv_mask (0, s)) and (bit (ln, id) == (lk_A_0 (id, s, I, L, f_0) == 1));";
    assert!(t.contains(recv), "{t}");
    // The receiver evaluates the link (c1's p offered, c2's its own); it copies only a newer
    // value it is linked to. The link cannot fail: no ERR here.
    let after = &t[t.find(recv).unwrap() + recv.len()..];
    let expected = "
               r := lk_A_0 (id, s, I, L, f_0);
               if bit (gm, id) then
                  c := GREATER
               else
                  c := SAME
               end if
            end if;
            if c == GREATER then
               if r == 1 then
                  L[0] := x_0;
                  L[1] := x_1;
                  Zp[0] := true;
                  Zc[0] := false
               end if
            end if";
    // The first line is the end of the receive offer's.
    let got: Vec<&str> = after.lines().filter(|l| !l.trim_start().starts_with("--")).take(16).collect();
    assert_eq!(got.join("\n"), expected, "{t}");
    assert_block(
        &t,
        "function lk_A_0",
        "
        function lk_A_0 (id, s: Nat, I: Attrs, L: Stigs, f_0: Int) : Nat is
           var x_0, x_1: Int, b_0: Bool in
              x_0 := lab_in (f_0);
              x_1 := lab_in (I[0]);
              b_0 := (x_0 == x_1);
              if b_0 then
                 return 1
              else
                 return 0
              end if
           end var
        end function",
    );
    // Timestamps gives a newer sender's timestamp to the linked receivers only.
    assert!(
        t.contains(
            "PUT_0 (s, g, ?x_0, ?x_1, ?f_0, ?ln) where dom_0 (x_0) and dom_0 (x_1) and dom_1 (f_0) and (ln < N_MASKS) and sub_mask (ln, rcv_mask (k, s));\n               r := ranks_copy (r, s, g, ln)"
        ),
        "{t}"
    );
    // With split 1, it syncs a newer sender's timestamp to a linked receiver only.
    assert!(
        t.contains(
            "REQ (a, k, s, ranks_cmp (r, s, a), ?lk);\n               if (ranks_cmp (r, s, a) == GREATER) and lk then"
        ),
        "{t}"
    );
    // The domains come from the value analysis: a, b in {0, 1}; p in {0}.
    assert_block(
        &t,
        "function dom_0",
        "
        function dom_0 (v: Int) : Bool is
           return ((v >= 0) and (v <= 1))
        end function",
    );
    assert_block(
        &t,
        "function dom_1",
        "
        function dom_1 (v: Int) : Bool is
           return (v == 0)
        end function",
    );
    // D2: agent 1 holds the newest initial value.
    assert_block(
        &t,
        "function ranks_init",
        "
        function ranks_init (k: Nat) : Ranks is
           var r: Ranks in
              r := Ranks (0);
              if k == 0 then
                 r[0] := 0;
                 r[1] := 1;
                 null
              end if;
              return r
           end var
        end function",
    );
}

#[test]
fn environment_write() {
    let files = emit_src(
        "system {
    environment = e: 0
    spawn = A: 2
}
agent A {
    Behavior = e < 2 -> e <-- e + 1; Behavior
}
check { E2 = finally e = 2 }
",
        false,
    )
    .unwrap();
    let t = &files[0].contents;
    // The environment is read atomically with TICK, constrained by its analysed domain.
    assert!(t.contains("TICK (?t, ?e_0) where (t != id) and (t < N_AGENTS) and dom_0 (e_0)\n"));
    assert_block(
        t,
        "if lab_empty (Zp) and lab_empty (Zc) and (pc == 0) then",
        "
        if lab_empty (Zp) and lab_empty (Zc) and (pc == 0) then
           TICK (id, ?e_0) where dom_0 (e_0) and (en_A_0_0 (id, I, L, mk_env (e_0), 1) != 0);
           E := mk_env (e_0);
           E0 := E;
           r := 1;
           U := Used (false);
           eval st_A_0_0 (id, I?, L?, E?, r?, U?, 1);
           if E[0] != E0[0] then
              SETENV ((0 of Nat), E[0]);
              E_E ((0 of Nat), E[0])
           end if;
           pc := 0
        else
           stop
        end if",
    );
    assert!(t.contains("TICK (?t, E[0]) where (t < N_AGENTS)\n"));
    assert!(t.contains("SETENV (?k, ?v) where (k >= 0) and (k < 1) and dom_0 (v);\n            E[k] := v\n"));
    assert_block(
        t,
        "function dom_0",
        "
        function dom_0 (v: Int) : Bool is
           return ((v >= 0) and (v <= 2))
        end function",
    );
    // e < 2 bounds e by 2 (the analysis): e + 1 cannot overflow, so the step cannot fail (no
    // ERR); the environment is known at TICK only (kn 1), not in a read attempt's checks.
    assert!(!t.contains("ERR"), "{t}");
    assert!(
        t.contains(
            "      if kn < 1 then\n         r := 2;\n         return\n      end if;\n      x_0 := lab_in (E[0]);"
        ),
        "{t}"
    );
    assert!(t.contains("      x_2 := x_1 + 1;\n      E[0] := lab_out (x_2)\n"), "{t}");
    // The query tracks the environment variable through its observation label.
    let q = &files[1].contents;
    assert!(q.contains("([ {E_E !0 ?w:Int} ] R (w, false))"), "{q}");
}

#[test]
fn pick() {
    let t = lnt("system { spawn = A: 3 }
agent A {
    interface = x: 0
    Behavior = { p[] := pick 1 A; x <- p[0] }
}
check { }
");
    // The choice nd_0 is checked where the pick is evaluated: an id of the type, not the
    // picker's; it is marked used, stored in the local, copied.
    assert_block(
        &t,
        "function st_A_0_0",
        "
        function st_A_0_0 (id: Nat, in out I: Attrs, in out L: Stigs, in out E: Envs, in out r: Nat, in out U: Used, kn: Nat, nd_0: Int) is
           var LOC: Locals in
              LOC := Locals (LAB_BOT);
              -- pick 1 A
              if (nd_0 < 0) or (nd_0 > 2) or (nd_0 == NatToInt (id)) then
                 r := 0;
                 return
              end if;
              U[0] := true;
              LOC[0] := nd_0;
              -- x <- local0[0]
              I[0] := lab_out (LOC[0])
           end var
        end function",
    );
    // The choice is made before TICK; a choice the evaluation does not use must be 0.
    assert!(t.contains(
        "nd_0 := any Int where dom_0 (nd_0);\n               TICK (id) where (en_A_0_0 (id, I, L, E, 1, nd_0) != 0);"
    ));
    assert!(t.contains("      if (not (U[0])) and (nd_0 != 0) then\n         return 0\n      end if;"), "{t}");
}

#[test]
fn fair_scheduler() {
    let t = emit_src(ONE, true).unwrap().remove(0).contents;
    assert_block(
        &t,
        "process Sched",
        "
        process Sched [TICK: any] is
           var t: Nat in
              t := 0;
              loop
                 TICK (t);
                 t := (t + 1) mod N_AGENTS
              end loop
           end var
        end process",
    );
    assert!(t.contains("         TICK ->\n            Sched [TICK]\n"));
}

#[test]
fn arithmetic_helpers() {
    let t = lnt("system { spawn = A: 1 }
agent A {
    interface = x: 0
    Behavior = x <- (x - 7) / 2 + (x - 7) % 5 + (x - 7) : 2 + abs(x) + min(x, 1) + max(x, 2)
}
check { }
");
    // Each operation on the operands before it; the divisions by non-zero literals need no test;
    // the additions of bounded halves and remainders cannot overflow, the others are tested.
    for line in [
        "x_2 := lab_div (x_1, 2);",
        "x_5 := lab_mod (x_4, 5);",
        "x_6 := x_2 + x_5;",
        "x_9 := lab_rdiv (x_8, 2);",
        "x_12 := lab_abs (x_11);",
        "x_15 := lab_min (x_14, 1);",
        "x_18 := lab_max (x_17, 2);",
        "if not (lab_add_ok (x_16, x_18)) then",
    ] {
        assert!(t.contains(line), "{line}\n{t}");
    }
    assert!(t.contains("q := lab_abs (a) div lab_abs (b);"));
    // `:` rounds up when 2r >= |b|, written so that nothing overflows.
    assert!(t.contains("if r >= (lab_abs (b) - r) then"));
}

#[test]
fn undefined_values() {
    let t = lnt("system { spawn = A: 1 }
agent A {
    interface = u: undef; x: 0
    Behavior = u != 0 -> x <- u + 1
}
check { }
");
    // A comparison with ⊥ is false; ⊥ + 1 is ⊥; a value ⊥ that is not a plain copy disables
    // the step (status 0).
    assert_block(
        &t,
        "function st_A_0_0",
        "
        function st_A_0_0 (id: Nat, in out I: Attrs, in out L: Stigs, in out E: Envs, in out r: Nat, in out U: Used, kn: Nat) is
           var x_0, x_1, x_2: Int, b_0: Bool in
              x_0 := lab_in (I[0]);
              b_0 := (x_0 != LAB_BOT) and (x_0 != 0);
              if not (b_0) then
                 r := 0;
                 return
              end if;
              -- x <- u + 1
              x_1 := lab_in (I[0]);
              if (x_1 == LAB_BOT) then
                 x_2 := LAB_BOT
              else
                 x_2 := x_1 + 1
              end if;
              if x_2 == LAB_BOT then
                 r := 0;
                 return
              end if;
              I[1] := lab_out (x_2)
           end var
        end function",
    );
    assert!(t.contains("v := UNDEF;"));
    assert_block(
        &t,
        "function UNDEF",
        "
        function UNDEF : Int is
           return (-1)
        end function",
    );
}

fn refused(src: &str) -> String {
    emit_src(src, false).unwrap_err().message
}

#[test]
fn refusals_name_the_construct() {
    let m = refused(
        "system { spawn = A: 2 }
agent A {
    interface = x: 0
    Behavior = x <- 1
}
check { B = (finally x of 0 = 0) and (finally x of 0 = 1) and (finally x of 0 = 2) and (finally x of 0 = 3) and (finally x of 0 = 4) and (finally x of 0 = 5) and (finally x of 0 = 6) and (finally x of 0 = 7) and (finally x of 0 = 8) and (finally x of 0 = 9) and (finally x of 0 = 10) }
",
    );
    assert!(m.contains("more than 10 distinct state predicates") && m.contains("`B`"), "{m}");
}

/// A message carries sets of agents as masks of a 32-bit `Nat` (docs/lnt-encoding.md §3,
/// Propagation): 30 agents with a stigmergy are emitted, 31 refused by name; without a
/// stigmergy there is no mask.
#[test]
fn stigmergies_among_more_than_30_agents_are_refused() {
    let spec = |n: usize, stig: bool| {
        let (decl, uses) =
            if stig { ("stigmergy S {\n    link = true\n    v: 0\n}\n", "    stigmergies = S\n") } else { ("", "") };
        format!(
            "system {{ spawn = A: {n} }}\n{decl}agent A {{\n    interface = x: 0\n{uses}    Behavior = x <- 1\n}}\ncheck {{ }}\n"
        )
    };
    let m = refused(&spec(31, true));
    assert!(m.contains("stigmergic variables in a system of more than 30 agents") && m.contains("31 agents"), "{m}");
    let t = lnt(&spec(30, true));
    assert!(t.contains("return 1073741824\n"), "N_MASKS is 2^30");
    assert!(!lnt(&spec(31, false)).contains("N_MASKS"));
}

/// The choices of a step are chosen one after the other before it, every combination of their
/// analysed values (and 0, a choice not made) a path before the step's first action: more than
/// 2^20 combinations are refused by name, as one choice over more than 2^16 values is, rather
/// than emitted for an enumeration no LNT tool finishes. The native engine evaluates such a
/// step choice by choice (D9), so only the LNT route refuses it.
#[test]
fn steps_with_too_many_combinations_of_choices_are_refused() {
    let spec = |a: u32, b: u32| {
        format!(
            "system {{ spawn = A: 1 }}
agent A {{
    interface = x: 0
    Behavior = x <- [0..{a}] + [0..{b}]
}}
check {{ }}
"
        )
    };
    // {0..1023} twice: 1024 × 1024 = 2^20 combinations, the most a step may have.
    assert!(emit_src(&spec(1024, 1024), false).is_ok());
    let m = refused(&spec(1025, 1024));
    assert!(m.contains("more combinations of analysed values") && m.contains("1049600 combinations"), "{m}");
    // Random differential seed 3093, minimised: a guarded `Skip` whose guard makes five
    // choices (65537 × 4 × 2 × 4 combinations, `[id..1]` having none); the interpreter gave up
    // on its enumeration with a misleading "loop without any action".
    let m = refused(
        "system { spawn = B: 2, Q: 2 }
agent Q {
    Behavior = (((Skip || Skip) ++ Skip) || (!((([id..1] % [1..65536 + 1]) <= (if (if !(abs(3) = 0) then -1 else (x of 1)) <= (x of [0..4]) or ((x of (id + 1) % 4) : 2) > ([(x of (id + 1) % 4)..1] + (x of [0..4])) then 1 else 1)) or !(3 = (x of id))) -> Skip)); Behavior
}
agent B {
    interface = x: -1..2
    Behavior = x <- [x..1]
}
check { P1 = fairly exists B q6, !(!(x of q6 > min(x of 1, x of q6))) }
",
    );
    assert!(m.contains("2097184 combinations") && m.contains("in a step of Q"), "{m}");
}

#[test]
fn assumptions_filter_the_initialisation() {
    let t = lnt("system { spawn = A: 2 }
agent A {
    interface = x: 0..3
    Behavior = x <- 1
}
assume { Diff = x of 0 != x of 1 }
check { }
");
    // Each agent sends the values the assumptions read while it initialises them...
    assert!(t.contains("            I[0] := v;\n            if (id == 0) or (id == 1) then\n               AINIT (id, (0 of Nat), v)\n            end if;\n"));
    // ...and Assume takes part in the last INIT only if they hold: otherwise the
    // initialisation never completes (no DONE, no initial state of the semantics).
    assert_block(
        &t,
        "process Assumptions",
        "
        process Assumptions [INIT, AINIT: any] is
           var A: Assumed, v: Int, r: Nat in
              A := Assumed (0);
              INIT ((0 of Nat));
              -- x of agent 0
              AINIT ((0 of Nat), (0 of Nat), ?v) where dom_0 (v);
              A[0] := v;
              INIT ((1 of Nat));
              -- x of agent 1
              AINIT ((1 of Nat), (0 of Nat), ?v) where dom_0 (v);
              A[1] := v;
              r := lab_assume (A);
              if r == 1 then
                 INIT ((2 of Nat))
              else
                 stop
              end if
           end var
        end process",
    );
    assert_block(
        &t,
        "function lab_assume",
        "
        function lab_assume (A: Assumed) : Nat is
           var x_0, x_1: Int, b_0: Bool in
              -- Diff
              x_0 := lab_in (A[0]);
              x_1 := lab_in (A[1]);
              b_0 := (x_0 != x_1);
              if not (b_0) then
                 return 0
              end if;
              return 1
           end var
        end function",
    );
    assert!(t.contains("         INIT, AINIT ->\n            Assumptions [INIT, AINIT]\n"));
    assert!(t.contains("         || TICK, INIT, AINIT ->\n"));
}

#[test]
fn a_remote_read_is_a_rendezvous_of_reader_and_owner() {
    let t = lnt("system { spawn = A: 2 }
agent A {
    interface = x: 0; y: 5
    Behavior = x <- y of 1
}
check { }
");
    // The step reads y of 1: agent 1 reads its own current value; agent 0 the value of its slot
    // 0, whose agent and location must be 1 and 1 (y's location), once they are known (kn).
    assert_block(
        &t,
        "function st_A_0_0",
        "
        function st_A_0_0 (id: Nat, in out I: Attrs, in out L: Stigs, in out E: Envs, in out r: Nat, in out U: Used, kn: Nat, ra_0, rl_0: Nat, rv_0: Int) is
           var x_0: Int in
              -- x <- y of 1
              if 1 == NatToInt (id) then
                 x_0 := lab_in (lab_own (I, L, 1))
              else
                 if kn <= 0 then
                    r := 2;
                    return
                 end if;
                 if (NatToInt (ra_0) != 1) or (rl_0 != 1) then
                    r := 0;
                    return
                 end if;
                 if kn <= 1 then
                    r := 2;
                    return
                 end if;
                 if not (rv_0 == 5) then
                    r := 0;
                    return
                 end if;
                 x_0 := lab_in (rv_0);
                 U[0] := true
              end if;
              I[0] := lab_out (x_0)
           end var
        end function",
    );
    // The attempt checks the step as soon as the slot's agent and location are chosen (kn 1),
    // then once its value is read (kn 2), then at TICK (kn 3: the environment too).
    // The slot never names the reader itself, whose own locations are read locally.
    assert!(t.contains("ra_0 := any Nat where (ra_0 <= N_AGENTS) and (ra_0 != id) and rsa_0 (ra_0);"), "{t}");
    assert!(t.contains("rl_0 := any Nat where (rl_0 < LOCS) and rs_0 (ra_0, rl_0);\n                  go := (en_A_0_0 (id, I, L, E, 1, ra_0, rl_0, rv_0) != 0)"), "{t}");
    assert!(t.contains("go := (en_A_0_0 (id, I, L, E, 2, ra_0, rl_0, rv_0) != 0)"), "{t}");
    // A slot the evaluation does not use (agent 1 reads itself) must be the unused slot.
    assert!(
        t.contains("      if (not (U[0])) and (kn > 0) and (ra_0 != N_AGENTS) then\n         return 0\n      end if;"),
        "{t}"
    );
    // The value comes from agent 1 on the reader's RDO_1; agent 1 offers its location 1 (`y`;
    // `x` is 0) to reader 0 on RDI_0, the only reader of another agent.
    assert!(t.contains("RDO_1 (rl_0, ?rv_0) where dom_0 (rv_0)\n"), "{t}");
    // The attempt holds the lock of read attempts (one at a time) from its TRY to its DONE or
    // ABANDON.
    assert!(
        t.contains("if go then\n                  TRY (id);\n                  got := true\n               end if;"),
        "{t}"
    );
    assert!(t.contains("process Lock [TRY, ABANDON, DONE: any] is"), "{t}");
    assert!(t.contains("TRY, ABANDON, DONE ->\n            Lock [TRY, ABANDON, DONE]"), "{t}");
    assert!(t.contains("|| TICK, INIT, TRY, ABANDON, DONE ->\n            par"), "{t}");
    assert!(t.contains("rdl := any Nat where (id != 0) and (rdl < LOCS) and rdloc (0, id, rdl);\n            RDI_0 (rdl, lab_own (I, L, rdl));"), "{t}");
    assert!(!t.contains("RDI_1 ("), "{t}");
    assert!(t.contains("return (((r >= 0) and (r <= 1)) and (o == 1) and (l == 1))"), "{t}");
    assert!(t.contains("return ((ra == N_AGENTS) and (rl == 0)) or ((ra == 1) and (rl == 1))"), "{t}");
    // TICK carries the actor alone: yielding agents enumerate no value read.
    assert!(t.contains("TICK (?t) where (t != id) and (t < N_AGENTS)"), "{t}");
    assert!(t.contains("TICK (id) where (en_A_0_0 (id, I, L, E, 3, ra_0, rl_0, rv_0) != 0);"), "{t}");
    // An attempt given up after a read is a visible ABANDON step (MAIN keeps it).
    assert!(t.contains("if got then\n                     ABANDON;"), "{t}");
    assert!(t.contains("process MAIN [DONE, ABANDON: any] is"), "{t}");
    // The pair (0, 1) has its gate, bound to agent 0's RDO_1 and agent 1's RDI_0 and in those
    // two interfaces; the type declares only the read gates it uses (RDO_1, RDI_0), and an
    // instance's gate of a pair it cannot read keeps the formal's name (hidden, never offered):
    // no instantiation repeats an actual gate.
    assert!(
        t.contains("TICK, DONE, INIT, RD_0_1 -> Agent_A [TICK, DONE, INIT, ABANDON, TRY, RD_0_1, RDI_0] (0)"),
        "{t}"
    );
    assert!(
        t.contains("|| TICK, DONE, INIT, RD_0_1 -> Agent_A [TICK, DONE, INIT, ABANDON, TRY, RDO_1, RD_0_1] (1)"),
        "{t}"
    );
    assert!(t.contains("hide TICK, INIT, TRY, RD_0_1, RDI_0, RDO_1: any in"), "{t}");
    // The values agent 1's `y` can carry: 5 (or 0, the unused slot's).
    assert!(t.contains("function dom_0 (v: Int) : Bool is\n   return ((v == 0) or (v == 5))"), "{t}");
    assert_block(
        &t,
        "function lab_own",
        "
        function lab_own (I: Attrs, L: Stigs, loc: Nat) : Int is
           if loc <= 1 then
              return I[loc]
           elsif loc < LOCS then
              return L[loc - 2]
           else
              return 0
           end if
        end function",
    );
}

#[test]
fn quantified_and_count_statements_expand_over_the_agents() {
    let t = lnt("system { spawn = A: 3 }
agent A {
    interface = x: 0; c: 0
    Behavior = { b := forall A a, x of a = 0; n := count A a, x of a > id; c <- b + n }
}
check { }
");
    // Each agent's x is one remote read, shared by the two statements (constant agents).
    assert!(t.contains(
        "in out r: Nat, in out U: Used, kn: Nat, ra_0, rl_0: Nat, rv_0: Int, ra_1, rl_1: Nat, rv_1: Int, ra_2, rl_2: Nat, rv_2: Int) is"
    ));
    // forall: agent 0, then agent 1 only if it held, then agent 2 (short circuit, id order).
    assert!(
        t.contains(
            "      b_2 := (x_0 == 0);\n      b_1 := b_2;\n      if b_1 then\n         if 1 == NatToInt (id) then"
        ),
        "{t}"
    );
    assert!(t.contains("      b_0 := b_1;\n      if b_0 then\n         if 2 == NatToInt (id) then"), "{t}");
    assert!(
        t.contains(
            "      if b_0 then\n         x_3 := 1\n      else\n         x_3 := 0\n      end if;\n      LOC[0] := x_3;"
        ),
        "{t}"
    );
    // count: every agent, summed (no overflow test: at most 3).
    assert!(t.contains("      x_8 := x_5 + x_7;"), "{t}");
    assert!(t.contains("      x_11 := x_8 + x_10;\n      LOC[1] := x_11;"), "{t}");
    // The second statement reads slot 0 again (the same constant read).
    assert!(t.contains("         x_4 := lab_in (rv_0);"), "{t}");
}

#[test]
fn pick_filter_reads_the_candidate() {
    let t = lnt("system { spawn = A: 3 }
agent A {
    interface = x: 0..2
    Behavior = { p[] := pick 1 A where x of c2 = x of c1; x <- p[0] }
}
check { }
");
    // The filter is checked on the chosen candidate (it cannot fail), its variable read
    // remotely (or the picker's own, never: the candidate is another agent), a value x never
    // holds (0..2) not being this step.
    let from = t.find("      -- pick filter\n").expect("the filter");
    let filter: Vec<&str> = t[from..].lines().take(31).collect();
    assert_eq!(
        filter.join("\n"),
        "      -- pick filter
      if (LOC[0] == LAB_BOT) then
         r := 0;
         return
      end if;
      if LOC[0] == NatToInt (id) then
         x_0 := lab_in (lab_own (I, L, 0))
      else
         if kn <= 0 then
            r := 2;
            return
         end if;
         if (NatToInt (ra_0) != LOC[0]) or (rl_0 != 0) then
            r := 0;
            return
         end if;
         if kn <= 1 then
            r := 2;
            return
         end if;
         if not ((rv_0 >= 0) and (rv_0 <= 2)) then
            r := 0;
            return
         end if;
         x_0 := lab_in (rv_0);
         U[1] := true
      end if;
      x_1 := lab_in (I[0]);
      b_0 := (x_0 == x_1);
      if not (b_0) then
         r := 0;"
    );
}

#[test]
fn link_refusals() {
    let m = refused(
        "system {
    environment = e: 0
    spawn = A: 2
}
stigmergy S {
    link = e of c1 = 0
    v: 0
}
agent A {
    stigmergies = S
    Behavior = v <~ 1
}
check { }
",
    );
    assert!(m.contains("an environment variable in a link predicate"), "{m}");
}

#[test]
fn a_pick_filter_that_may_fail_is_refused() {
    // The program checks a filter on the chosen candidates; the native engine evaluates it on
    // every candidate, so a filter that can fail (10 / x of c2, x of c2 possibly 0) is refused.
    let m = refused(
        "system { spawn = A: 3 }
agent A {
    interface = x: 0..2
    Behavior = { p[] := pick 1 A where 10 / x of c2 > 1; x <- p[0] }
}
check { }
",
    );
    assert!(m.contains("a `pick … where` filter that may meet a run-time error"), "{m}");
}

#[test]
fn run_time_errors_are_reported_on_err() {
    let t = lnt("system {
    environment = z: 0..2; b: 0
    spawn = A: 1
}
agent A {
    Behavior = b <-- 10 / z
}
check { }
");
    // z may be 0: the division is tested first and the step fails with code 3.
    assert!(t.contains("      if x_0 == 0 then\n         r := 3;\n         return\n      else\n         x_1 := lab_div (10, x_0)\n      end if;"), "{t}");
    assert!(t.contains("process Agent_A [TICK, DONE, INIT, SETENV, ERR: any] (id: Nat) is"), "{t}");
    assert!(t.contains("process MAIN [DONE, ERR: any] is"), "{t}");
    // ERR is not synchronised: it is in no par's set.
    assert!(!t.contains("ERR ->") && !t.contains(", ERR in"), "{t}");
}

#[test]
fn agent_that_can_only_yield_has_no_choice() {
    let t = lnt("system { spawn = A: 2 }
agent A {
    interface = x: 0
    Behavior = Nil
}
check { Z = always x of 0 = 0 }
");
    assert!(!t.contains(" alt\n"), "{t}");
    assert!(t.contains(
        "      loop\n            -- another agent's step\n            TICK (?t) where (t != id) and (t < N_AGENTS);\n"
    ));
}

/// The legend's lines `X[k] name…` and `X[a..b] name…`: (store letter, first slot, last slot,
/// variable name).
fn legend(lnt: &str) -> Vec<(char, usize, usize, String)> {
    let mut out = vec![];
    for line in lnt.lines().filter_map(|l| l.strip_prefix("--    ")) {
        let mut words = line.split_whitespace();
        let (Some(slot), Some(name)) = (words.next(), words.next()) else { continue };
        let Some((store, range)) = slot.strip_suffix(']').and_then(|s| s.split_once('[')) else { continue };
        let (lo, hi) = range.split_once("..").unwrap_or((range, range));
        let name = name.split(['[', ':']).next().unwrap().to_string();
        out.push((store.chars().next().unwrap(), lo.parse().unwrap(), hi.parse().unwrap(), name));
    }
    out
}

#[test]
fn the_slot_legend_names_the_variable_each_observation_gate_reports() {
    // Cross-check with the observation gates, named after the variables: `A_X (…, I[k])`
    // reports attribute x from slot I[k], `L_X` a stigmergic copy from L[k], `E_X` the
    // environment from E[k]; the legend must say that slot holds x.
    let gate = regex::Regex::new(r"\b([ALE])_([A-Z0-9_]+) \([^;]*[ !]([ILE])\[(\d+)\]\)").unwrap();
    let mut checked = 0;
    for (spec, externs, _) in crate::fixtures::lnt_instances() {
        let files = crate::fixtures::emit_files(&spec, &externs, false, Dialect::V2025).expect("emitted");
        let lnt = &files[0].contents;
        let slots = legend(lnt);
        for c in gate.captures_iter(lnt) {
            let (store, k): (char, usize) = (c[3].chars().next().unwrap(), c[4].parse().unwrap());
            let expected_store = match &c[1] {
                "A" => 'I',
                "L" => 'L',
                _ => 'E',
            };
            assert_eq!(store, expected_store, "{spec}: {}", &c[0]);
            let holder = slots.iter().find(|(s, lo, hi, _)| *s == store && *lo <= k && k <= *hi);
            let holder = holder.unwrap_or_else(|| panic!("{spec}: no legend line for {store}[{k}]: {slots:?}"));
            assert_eq!(holder.3.to_uppercase(), c[2], "{spec}: {} but the legend says {holder:?}", &c[0]);
            checked += 1;
        }
    }
    assert!(checked > 20, "only {checked} gate offers checked");
}

#[test]
fn each_domain_says_whose_values_it_holds() {
    // `x: 0..3` is one of 0, 1, 2 (`a..b` excludes b) and `x <- x` keeps it there: the domain
    // of x's input offers is {0..2}, said above its function.
    let src = "system {\n  spawn = A: 2\n}\nstigmergy S {\n  link = true\n  x: 0..3\n}\nagent A {\n  stigmergies = S\n  Behavior = x <~ x; Behavior\n}\ncheck {\n  P = always forall A a, x of a < 3\n}\n";
    let text = lnt(src);
    assert!(
        text.contains(
            "-- {[0, 2]}: the values of x of A\nfunction dom_0 (v: Int) : Bool is\n   return ((v >= 0) and (v <= 2))"
        ),
        "{text}"
    );
}

#[test]
fn no_dead_forms_in_the_emitted_programs() {
    // Forms that compute nothing: a `false` disjunct, a constant condition, a loop over one
    // element; each is folded where the program is generated.
    let dead = ["return false or ", "if true then", "if false then", "while k <= 0 loop", " and true)", "(true and "];
    for (spec, externs, _) in crate::fixtures::lnt_instances() {
        for fair in [false, true] {
            let files = crate::fixtures::emit_files(&spec, &externs, fair, Dialect::V2025).expect("emitted");
            for d in dead {
                assert!(!files[0].contents.contains(d), "{spec} (fair {fair}) has `{d}`");
            }
        }
    }
}
