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
    let opts =
        EmitOptions { fair, properties: vec![], dialect: Dialect::V2025, base: "t".into(), source: "t.labs".into() };
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
    assert_block(
        &t,
        "function st_A_0_0",
        "
        function st_A_0_0 (id: Nat, in out I: Attrs, in out L: Stigs, in out E: Envs, in out ok: Bool) is
           var LOC: Locals, t_0_0: Int in
              LOC := Locals (0);
              -- x <- x + 1
              if ok then
                 if true then
                    t_0_0 := (I[0] + 1);
                    I[0] := t_0_0
                 else
                    ok := false
                 end if
              end if
           end var
        end function",
    );
    // The act branch: only with empty pending sets in the edge's control state; the step's
    // enabledness is checked in the TICK offer; the effect; the observation label of the changed
    // attribute; the next control state. No sink: without an enabled step there is no TICK.
    assert_block(
        &t,
        "if lab_empty (Zp) and lab_empty (Zc) and (pc == 0) then",
        "
        if lab_empty (Zp) and lab_empty (Zc) and (pc == 0) then
           TICK (!id) where en_A_0_0 (id, I, L, E);
           I0 := I;
           L0 := L;
           E0 := E;
           eval st_A_0_0 (id, I?, L?, E?, ok?);
           if I[0] != I0[0] then
              A_X (!id, !(0 of Nat), !I[0])
           end if;
           pc := 0
        else
           stop
        end if",
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
              A_X (!id, !(0 of Nat), !v);
              null
           end if;
           INIT (!j);
           j := j + 1
        end loop;",
    );
    assert!(t.contains("         end alt;\n         -- every agent synchronises at the end of each step: DONE marks the real states\n         DONE\n"));
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
    assert_block(
        &t,
        "function en_A_0_0",
        "
        function en_A_0_0 (id: Nat, I: Attrs, L: Stigs, E: Envs) : Bool is
           var I1: Attrs, L1: Stigs, E1: Envs, ok: Bool in
              if not ((I[0] < 3)) then
                 return false
              end if;
              I1 := I;
              L1 := L;
              E1 := E;
              ok := true;
              eval st_A_0_0 (id, I1?, L1?, E1?, ok?);
              return ok
           end var
        end function",
    );
    assert!(t.contains("t_0_0 := ((I[0] * 2) - 1);"));
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
        t.contains("TICK (!id) where en_A_0_0 (id, I, L, E);")
            && t.contains("TICK (!id) where en_A_0_1 (id, I, L, E);")
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
    assert!(t.contains("               REFRESH (!(0 of Nat), !id);\n               Zp[0] := true;\n"));
    // The message carries the tuple's two values and the one sender field the link reads.
    assert_block(
        &t,
        "if Zp[0] then",
        "
        if Zp[0] then
           PUT_0 (!id, !L[0], !L[1], !I[0]);
           Zp[0] := false
        else
           stop
        end if",
    );
    let recv = "PUT_0 (?s, ?x_0, ?x_1, ?f_0) where (s != id) and (s < N_AGENTS) and dom_0 (x_0) and dom_0 (x_1) and dom_1 (f_0);";
    assert!(t.contains(recv), "{t}");
    assert_block(
        &t,
        "if (f_0 == I[0]) then",
        "
        if (f_0 == I[0]) then
           REQ (!id, !(0 of Nat), !s, ?c);
           if c == GREATER then
              L0 := L;
              L[0] := x_0;
              L[1] := x_1;
              Zp[0] := true;
              Zc[0] := false
           end if
        end if",
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
           TICK (!id, ?e_0) where dom_0 (e_0) and en_A_0_0 (id, I, L, mk_env (e_0));
           E := mk_env (e_0);
           I0 := I;
           L0 := L;
           E0 := E;
           eval st_A_0_0 (id, I?, L?, E?, ok?);
           if E[0] != E0[0] then
              SETENV (!(0 of Nat), !E[0]);
              E_E (!(0 of Nat), !E[0])
           end if;
           pc := 0
        else
           stop
        end if",
    );
    assert!(t.contains("TICK (?t, !E[0]) where (t < N_AGENTS)\n"));
    assert!(t.contains("SETENV (?k, ?v) where (k >= 0) and (k < 1) and dom_0 (v);\n            E[k] := v\n"));
    assert_block(
        t,
        "function dom_0",
        "
        function dom_0 (v: Int) : Bool is
           return ((v >= 0) and (v <= 2))
        end function",
    );
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
    assert_block(
        &t,
        "function st_A_0_0",
        "
        function st_A_0_0 (id: Nat, in out I: Attrs, in out L: Stigs, in out E: Envs, in out ok: Bool, nd_0: Int) is
           var LOC: Locals, t_1_0: Int in
              LOC := Locals (0);
              -- pick 1 A
              if ok then
                 if (((nd_0 >= 0) and (nd_0 <= 2)) and (nd_0 != NatToInt (id))) then
                    LOC[0] := nd_0
                 else
                    ok := false
                 end if
              end if;
              -- x <- local0[0]
              if ok then
                 if true then
                    t_1_0 := LOC[0];
                    I[0] := t_1_0
                 else
                    ok := false
                 end if
              end if
           end var
        end function",
    );
    // The choice is made before TICK, within the type's ids, and checked by en_.
    assert!(t.contains(
        "nd_0 := any Int where dom_0 (nd_0);\n               TICK (!id) where en_A_0_0 (id, I, L, E, nd_0);"
    ));
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
                 TICK (!t);
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
    assert!(t.contains(
        "t_0_0 := (((((lab_div ((I[0] - 7), 2) + lab_mod ((I[0] - 7), 5)) + lab_rdiv ((I[0] - 7), 2)) + lab_abs (I[0])) + lab_min (I[0], 1)) + lab_max (I[0], 2));"
    ), "{t}");
    assert!(t.contains("q := lab_abs (a) div lab_abs (b);"));
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
    // A comparison with ⊥ is false; a non-copy value must be defined.
    assert!(t.contains("if not (((I[0] != UNDEF) and (I[0] != 0))) then"), "{t}");
    assert!(t.contains("if (I[0] != UNDEF) then\n            t_0_0 := (I[0] + 1);"), "{t}");
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
check { B = between (x of 0 = 0) and (x of 0 = 1), thereIs x of 1 = 0 }
",
    );
    assert!(m.contains("`between`/`from`"), "{m}");
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
    assert!(t.contains("            I[0] := v;\n            if (id == 0) or (id == 1) then\n               AINIT (!id, !(0 of Nat), !v)\n            end if;\n"));
    // ...and Assume takes part in the last INIT only if they hold: otherwise the
    // initialisation never completes (no DONE, no initial state of the semantics).
    assert_block(
        &t,
        "process Assumptions",
        "
        process Assumptions [INIT, AINIT: any] is
           var A: Assumed, v: Int in
              A := Assumed (0);
              INIT (!(0 of Nat));
              -- x of agent 0
              AINIT (!(0 of Nat), !(0 of Nat), ?v) where dom_0 (v);
              A[0] := v;
              INIT (!(1 of Nat));
              -- x of agent 1
              AINIT (!(1 of Nat), !(0 of Nat), ?v) where dom_0 (v);
              A[1] := v;
              if (A[0] != A[1]) then
                 INIT (!(2 of Nat))
              else
                 stop
              end if
           end var
        end process",
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
    // The reader computes which agent and location it reads, checked in the step...
    // (the constant agent id typed: a literal alone is Nat or Int).
    assert!(t.contains("         if (((NatToInt (ra_0) == (1 of Int)) or ((ra_0 == N_AGENTS) and (((1 of Int) < 0) or ((1 of Int) >= NatToInt (N_AGENTS))))) and ((ra_0 == N_AGENTS) or (rl_0 == 1))) then\n            t_0_0 := rv_0;"), "{t}");
    // ...and, the read being constant, as soon as it has chosen them, before reading.
    assert!(t.contains("ra_0 := any Nat where (ra_0 <= N_AGENTS) and rsa_0 (ra_0);"), "{t}");
    assert!(t.contains("rl_0 := any Nat where (rl_0 < LOCS) and rs_0 (ra_0, rl_0);\n                  go := (((NatToInt (ra_0) == (1 of Int)) or ((ra_0 == N_AGENTS) and (((1 of Int) < 0) or ((1 of Int) >= NatToInt (N_AGENTS))))) and ((ra_0 == N_AGENTS) or (rl_0 == 1)))"), "{t}");
    // The value comes from agent 1 on the reader's RDO_1; agent 1 offers its location 1 (`y`;
    // `x` is 0) to reader 0 on RDI_0, the only reader of another agent.
    assert!(t.contains("RDO_1 (!rl_0, ?rv_0) where dom_0 (rv_0)\n"), "{t}");
    // The attempt holds the lock of read attempts (one at a time) from its TRY to its DONE or
    // ABANDON.
    assert!(
        t.contains("if go then\n                  TRY (!id);\n                  got := true\n               end if;"),
        "{t}"
    );
    assert!(t.contains("process Lock [TRY, ABANDON, DONE: any] is"), "{t}");
    assert!(t.contains("TRY, ABANDON, DONE ->\n            Lock [TRY, ABANDON, DONE]"), "{t}");
    assert!(t.contains("|| TICK, INIT, TRY, ABANDON, DONE ->\n            par"), "{t}");
    assert!(t.contains("rdl := any Nat where (id != 0) and (rdl < LOCS) and rdloc (0, id, rdl);\n            RDI_0 (!rdl, !lab_own (I, L, rdl));"), "{t}");
    assert!(!t.contains("RDI_1 ("), "{t}");
    assert!(t.contains("return false or (((r >= 0) and (r <= 1)) and (o == 1) and (l == 1))"), "{t}");
    assert!(t.contains("return ((ra == N_AGENTS) and (rl == 0)) or ((ra == 1) and (rl == 1))"), "{t}");
    // TICK carries the actor alone: yielding agents enumerate no value read.
    assert!(t.contains("TICK (?t) where (t != id) and (t < N_AGENTS)"), "{t}");
    assert!(t.contains("TICK (!id) where en_A_0_0 (id, I, L, E, ra_0, rl_0, rv_0);"), "{t}");
    // An attempt given up after a read is a visible ABANDON step (MAIN keeps it).
    assert!(t.contains("if got then\n                     ABANDON;"), "{t}");
    assert!(t.contains("process MAIN [DONE, ABANDON: any] is"), "{t}");
    // The pair (0, 1) has its gate, bound to agent 0's RDO_1 and agent 1's RDI_0 and in those
    // two interfaces; the gates of pairs that cannot read are bound to RD_NONE.
    assert!(
        t.contains(
            "TICK, DONE, INIT, RD_0_1 -> Agent_A [TICK, DONE, INIT, ABANDON, TRY, RD_NONE, RD_0_1, RD_NONE, RD_NONE] (0)"
        ),
        "{t}"
    );
    assert!(
        t.contains(
            "|| TICK, DONE, INIT, RD_0_1 -> Agent_A [TICK, DONE, INIT, ABANDON, TRY, RD_NONE, RD_NONE, RD_0_1, RD_NONE] (1)"
        ),
        "{t}"
    );
    assert!(t.contains("hide TICK, INIT, TRY, RD_0_1, RD_NONE: any in"), "{t}");
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
        "in out ok: Bool, ra_0, rl_0: Nat, rv_0: Int, ra_1, rl_1: Nat, rv_1: Int, ra_2, rl_2: Nat, rv_2: Int) is"
    ));
    assert!(t.contains("t_0_0 := lab_ite ((((rv_0 == 0) and (rv_1 == 0)) and (rv_2 == 0)), 1, 0);"), "{t}");
    assert!(t.contains(
        "t_1_0 := ((lab_ite ((rv_0 > NatToInt (id)), 1, 0) + lab_ite ((rv_1 > NatToInt (id)), 1, 0)) + lab_ite ((rv_2 > NatToInt (id)), 1, 0));"
    ), "{t}");
    // The constant agent ids are typed (`(0 of Int)`): a literal alone is Nat or Int.
    assert!(t.contains("if (((NatToInt (ra_0) == (0 of Int)) or ((ra_0 == N_AGENTS) and (((0 of Int) < 0) or ((0 of Int) >= NatToInt (N_AGENTS))))) and ((ra_0 == N_AGENTS) or (rl_0 == 0)) and ((NatToInt (ra_1) == (1 of Int)) or ((ra_1 == N_AGENTS) and (((1 of Int) < 0) or ((1 of Int) >= NatToInt (N_AGENTS))))) and ((ra_1 == N_AGENTS) or (rl_1 == 0)) and ((NatToInt (ra_2) == (2 of Int)) or ((ra_2 == N_AGENTS) and (((2 of Int) < 0) or ((2 of Int) >= NatToInt (N_AGENTS))))) and ((ra_2 == N_AGENTS) or (rl_2 == 0))) then"), "{t}");
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
    // The filter is checked on the chosen candidate, its variable read remotely.
    assert_block(
        &t,
        "-- pick filter",
        "
        -- pick filter
        if ok then
           if (((NatToInt (ra_0) == LOC[0]) or ((ra_0 == N_AGENTS) and ((LOC[0] < 0) or (LOC[0] >= NatToInt (N_AGENTS))))) and ((ra_0 == N_AGENTS) or (rl_0 == 0)) and (rv_0 == I[0])) then
              null
           else
              ok := false
           end if
        end if;",
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
