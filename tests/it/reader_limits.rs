//! Every reader of user files in linear time and bounded stack: a 200,000-term flat chain and
//! 100,000-deep nesting, read on a thread with a 256 KiB stack, must come back (parsed, or a
//! located error) within a generous time. A reader that recursed once per term or level
//! would overflow that stack (the test process aborts); a quadratic one would time out.

use std::sync::mpsc;
use std::time::{Duration, Instant};

const TERMS: usize = 200_000;
const DEPTH: usize = 100_000;
const STACK: usize = 256 << 10;
/// Generous: each input is read in well under a second in a release build.
const TIME: Duration = Duration::from_secs(20);

/// Runs `read` on its own small-stack thread; `Ok(())` when the reader accepted the input,
/// `Err(location)` for a located error (the location must be non-empty).
fn within(what: &str, read: impl FnOnce() -> Result<(), String> + Send + 'static) {
    within_stack(what, STACK, read)
}

fn within_stack(what: &str, stack: usize, read: impl FnOnce() -> Result<(), String> + Send + 'static) {
    let (tx, rx) = mpsc::channel();
    let start = Instant::now();
    std::thread::Builder::new()
        .name(what.into())
        .stack_size(stack)
        .spawn(move || {
            let _ = tx.send(read());
        })
        .expect("spawn a reader thread");
    match rx.recv_timeout(TIME) {
        Ok(Ok(())) => {}
        Ok(Err(location)) => assert!(!location.is_empty(), "{what}: an error without a location"),
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("{what}: no answer within {TIME:?}"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("{what}: the reader panicked"),
    }
    eprintln!("{what}: {:?}", start.elapsed());
}

fn chain(term: &str, op: &str, n: usize) -> String {
    let mut s = String::with_capacity(n * (term.len() + op.len()));
    for i in 0..n {
        if i > 0 {
            s.push_str(op);
        }
        s.push_str(term);
    }
    s
}

fn nest(open: &str, inner: &str, close: &str, n: usize) -> String {
    let mut s = open.repeat(n);
    s.push_str(inner);
    s.push_str(&close.repeat(n));
    s
}

// ---------------------------------------------------------------- .labs

fn labs_reads(what: &str, text: String) {
    within(what, move || {
        let out = labs::syntax::parse(&text);
        match out.diagnostics.items.iter().find(|d| d.is_error()) {
            None => Ok(()),
            Some(d) => Err(d.span.map(|s| format!("{}", s.start)).unwrap_or_default()),
        }
    });
}

fn labs_spec(property: &str, behaviour: &str) -> String {
    format!(
        "system {{ extern = _n spawn = Node: _n }}\nagent Node {{ interface = x: 0\n Behavior = {behaviour} }}\ncheck {{ P = always {property} }}\n"
    )
}

#[test]
fn labs_parser() {
    labs_reads("labs + chain", labs_spec(&(chain("x", " + ", TERMS) + " > 0"), "Skip"));
    labs_reads("labs and chain", labs_spec(&chain("x > 0", " and ", TERMS), "Skip"));
    labs_reads("labs ; chain", labs_spec("x > 0", &chain("x <- 1", "; ", TERMS)));
    labs_reads("labs ++ chain", labs_spec("x > 0", &chain("x <- 1", " ++ ", TERMS)));
    labs_reads("labs nested ()", labs_spec(&(nest("(", "x", ")", DEPTH) + " > 0"), "Skip"));
    labs_reads("labs nested !", labs_spec(&nest("!", "x > 0", "", DEPTH), "Skip"));
    labs_reads("labs nested -", labs_spec(&(nest("-", "x", "", DEPTH) + " > 0"), "Skip"));
    labs_reads("labs nested processes", labs_spec("x > 0", &nest("(", "x <- 1", ")", DEPTH)));
    labs_reads("labs nested guards", labs_spec("x > 0", &nest("x > 0 -> ", "x <- 1", "", DEPTH)));
}

// ---------------------------------------------------------------- SVL

fn svl_reads(what: &str, text: String) {
    within(what, move || labs::lntcheck::svl::parse(&text).map(|_| ()).map_err(|e| e.message));
}

fn svl_script(behaviour: &str) -> String {
    format!("% DEFAULT_PROCESS_FILE=\"x.lnt\"\n\"x.bcg\" = root leaf strong reduction of\n{behaviour};\n")
}

#[test]
fn svl_parser() {
    svl_reads("svl || chain", svl_script(&format!("par {} end par", chain("A [G]", " || ", TERMS))));
    svl_reads("svl prio chain", svl_script(&format!("total prio {} in A [G] end prio", chain("\"G\"", " > ", TERMS))));
    svl_reads("svl gate list", svl_script(&format!("A [{}]", chain("G", ", ", TERMS))));
    svl_reads("svl nested ()", svl_script(&nest("(", "A [G]", ")", DEPTH)));
    svl_reads("svl nested hide", svl_script(&nest("hide G in ", "A [G]", " end hide", DEPTH)));
    svl_reads("svl nested par", svl_script(&nest("par ", "A [G]", " end par", DEPTH)));
}

// ---------------------------------------------------------------- MCL

/// `mcl::parse` reads on its own large-stack thread (a parenthesised level takes a few KiB and
/// nesting stops at 200 levels), so the caller's small stack is enough.
fn mcl_reads(what: &str, text: String) {
    within(what, move || match labs::mcl::parse(&text) {
        Ok(_) => Ok(()),
        Err(errors) => Err(errors.first().map(|e| format!("{}", e.span.start)).unwrap_or_default()),
    });
}

#[test]
fn mcl_parser() {
    mcl_reads("mcl and chain", chain("true", " and ", TERMS));
    mcl_reads("mcl or chain", chain("true", " or ", TERMS));
    mcl_reads("mcl . chain", format!("< {} > true", chain("\"A\"", " . ", TERMS)));
    mcl_reads("mcl | chain", format!("< {} > true", chain("\"A\"", " | ", TERMS)));
    mcl_reads("mcl nested ()", nest("(", "true", ")", DEPTH));
    mcl_reads("mcl nested not", nest("not ", "true", "", DEPTH));
    mcl_reads("mcl nested <>", nest("<\"A\"> ", "true", "", DEPTH));
    mcl_reads("mcl nested action ()", format!("< {} > true", nest("(", "\"A\"", ")", DEPTH)));
}

// ---------------------------------------------------------------- .aut, traces

fn path_aut(n: usize) -> String {
    let mut s = format!("des (0, {n}, {})\n", n + 1);
    for i in 0..n {
        s.push_str(&format!("({i}, \"DONE\", {})\n", i + 1));
    }
    s
}

#[test]
fn aut_readers() {
    let text = path_aut(TERMS);
    let t = text.clone();
    within("mcl aut path", move || labs::mcl::read_aut(&t).map(|_| ()).map_err(|e| e.line.to_string()));
    within("trace aut path", move || labs::trace::cadp::parse_trace(&text).map(|_| ()).map_err(|e| e.to_string()));
    // A lasso back to the initial state: states 0 to TERMS - 1, the last one leading to 0.
    let mut lasso = format!("des (0, {TERMS}, {TERMS})\n");
    for i in 0..TERMS {
        lasso.push_str(&format!("({i}, \"DONE\", {})\n", (i + 1) % TERMS));
    }
    within("trace aut lasso", move || {
        let p = labs::trace::cadp::parse_trace(&lasso).map_err(|e| e.to_string())?;
        assert_eq!((p.labels.len(), p.loop_start), (TERMS, Some(0)));
        Ok(())
    });
    let long_label = format!("des (0, 1, 2)\n(0, \"{}\", 1)\n", chain("G", " !", TERMS));
    within("trace aut long label", move || {
        labs::trace::cadp::parse_trace(&long_label).map(|_| ()).map_err(|e| e.to_string())
    });
}

#[test]
fn seq_reader() {
    let lines = format!("<initial state>\n{}\n<deadlock>\n", chain("\"DONE\"", "\n", TERMS));
    within("seq lines", move || {
        let p = labs::trace::cadp::parse_trace(&lines).map_err(|e| e.to_string())?;
        assert_eq!(p.labels.len(), TERMS);
        Ok(())
    });
    let one_line = format!("{}\n", chain("\"DONE\"", " ", TERMS));
    within("seq one line", move || {
        let p = labs::trace::cadp::parse_trace(&one_line).map_err(|e| e.to_string())?;
        assert_eq!(p.labels.len(), TERMS);
        Ok(())
    });
}

#[test]
fn svl_escapes_before_multibyte_characters_do_not_panic() {
    within("svl escape", || {
        labs::lntcheck::svl::parse("\"x.bcg\" = generation of \"a\\é\";\n").map(|_| ()).map_err(|e| e.message)
    });
}

// ---------------------------------------------------------------- LNT (`labs lts --lnt`)

/// An LNT module, read on a small stack.
fn lnt_module_reads(what: &str, text: String) {
    within(what, move || labs::lntcheck::load(&text, None).map(|_| ()).map_err(|d| d.in_text(&text).to_string()));
}

fn lnt_reads(what: &str, expr: String) {
    lnt_module_reads(what, format!("module M is\nfunction F : Int is\n   return {expr}\nend function\nend module\n"));
}

/// A module whose process `MAIN` is `body`.
fn process_module(body: &str) -> String {
    format!("module M is\nprocess MAIN [G: any] is\n   {body}\nend process\nend module\n")
}

#[test]
fn lnt_reader() {
    lnt_reads("lnt + chain", chain("1", " + ", TERMS));
    lnt_reads("lnt and chain", chain("true", " and ", TERMS));
    lnt_reads("lnt nested ()", nest("(", "1", ")", DEPTH));
    lnt_reads("lnt prefix -", format!("{}1", "- ".repeat(DEPTH)));
    lnt_reads("lnt nested calls", nest("F (", "1", ")", DEPTH));
}

fn lnt_process_reads(what: &str, body: String) {
    lnt_module_reads(what, process_module(&body));
}

#[test]
fn lnt_reader_statements() {
    lnt_process_reads("lnt nested if", nest("if true then ", "G", " end if", DEPTH));
    lnt_process_reads("lnt nested loop", nest("loop ", "G", " end loop", DEPTH));
    lnt_process_reads("lnt nested alt", nest("alt G [] ", "G", " end alt", DEPTH));
    lnt_process_reads("lnt nested par", nest("par G || ", "G", " end par", DEPTH));
    lnt_process_reads("lnt sequence", chain("G", "; ", TERMS));
}

/// Nesting within the bound is read, beyond it refused with the position where it stops.
#[test]
fn lnt_statement_nesting_bound() {
    let text = |n: usize| process_module(&nest("if true then ", "G", " end if", n));
    assert!(labs::lntcheck::load(&text(150), None).is_ok());
    let err = labs::lntcheck::load(&text(300), None).err().expect("300 nested `if`s are refused").message;
    assert!(err.contains("nested more than 200 levels"), "{err}");
}
