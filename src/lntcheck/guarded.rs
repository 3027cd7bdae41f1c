//! Loops of a process whose body may complete without an action: LNT2LOTOS translates a loop
//! into a recursive process, whose recursive call is then unguarded, a form the compilers of
//! CADP refuse. The emitter gives every path of every loop body an action (a monitor's step
//! that does not accept offers the internal action `i`), and the tests check every emitted
//! program (`tests/it/emit_lint.rs`).

use super::ast::{Module, ParBranch, Proc, Stmt, StmtK};

/// One loop (`loop` or `while`) of process `process` whose body may complete without an
/// action, at byte offset `at` of the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unguarded {
    pub process: String,
    pub at: u32,
}

/// Every loop of the module's processes whose body may complete without an action.
pub fn unguarded_loops(m: &Module) -> Vec<Unguarded> {
    let mut out = vec![];
    for p in &m.procs {
        let mut w = Walk { module: m, process: p, out: &mut out };
        w.may_skip(&p.body);
    }
    out
}

struct Walk<'a> {
    module: &'a Module,
    process: &'a Proc,
    out: &'a mut Vec<Unguarded>,
}

impl Walk<'_> {
    /// Whether `s` may complete without an action (reporting the unguarded loops inside it).
    fn may_skip(&mut self, s: &Stmt) -> bool {
        match &s.k {
            StmtK::Comm(..) | StmtK::Stop => false,
            StmtK::Null
            | StmtK::Assign(..)
            | StmtK::Any(..)
            | StmtK::OnlyIf(_)
            | StmtK::Return(_)
            | StmtK::Eval(..) => true,
            // (every part is walked, for the loops it holds)
            StmtK::Seq(xs) => xs.iter().map(|x| self.may_skip(x)).collect::<Vec<_>>().into_iter().all(|x| x),
            StmtK::Var(_, b) | StmtK::Hide(_, b) => self.may_skip(b),
            StmtK::If(arms, els) => {
                let mut any = els.as_ref().is_none_or(|e| self.may_skip(e));
                for (_, b) in arms {
                    any |= self.may_skip(b);
                }
                any
            }
            StmtK::Alt(bs) => bs.iter().map(|b| self.may_skip(b)).collect::<Vec<_>>().into_iter().any(|x| x),
            StmtK::Par(_, bs) => bs.iter().fold(true, |all, b| {
                let body = match b {
                    ParBranch::Plain(x) | ParBranch::Synced(_, x) => x,
                };
                self.may_skip(body) && all
            }),
            StmtK::While(_, b) => {
                self.body(b, s);
                true
            }
            StmtK::Loop(b) => {
                // a loop without `break` never completes
                self.body(b, s);
                false
            }
            // A call completes without an action when the process called may (the emitted
            // processes do not call themselves).
            StmtK::Call(name, ..) => {
                let callee = self.module.procs.iter().find(|q| q.name == *name);
                callee.is_some_and(|q| q.name != self.process.name && skips(self.module, q))
            }
        }
    }

    fn body(&mut self, b: &Stmt, lp: &Stmt) {
        if self.may_skip(b) {
            self.out.push(Unguarded { process: self.process.name.clone(), at: lp.pos.start });
        }
    }
}

/// Whether the body of process `p` may complete without an action.
fn skips(m: &Module, p: &Proc) -> bool {
    let mut sink = vec![];
    Walk { module: m, process: p, out: &mut sink }.may_skip(&p.body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loops(body: &str) -> usize {
        let src = format!(
            "module m is\nprocess MAIN [G: any] is\n   var b: Bool in\n{body}\n   end var\nend process\nend module\n"
        );
        let m = super::super::parser::parse_module(&src, None).unwrap();
        unguarded_loops(&m).len()
    }

    #[test]
    fn a_loop_body_needs_an_action_on_every_path() {
        assert_eq!(loops("b := true; loop G end loop"), 0);
        assert_eq!(loops("b := true; loop if b then G end if end loop"), 1);
        assert_eq!(loops("b := true; loop if b then G else i end if end loop"), 0);
        assert_eq!(loops("b := true; loop alt b := false [] G end alt end loop"), 1);
        assert_eq!(loops("b := true; loop alt stop [] G end alt end loop"), 0);
        // a `while` may be skipped: the actions after it guard the body
        assert_eq!(loops("b := true; loop while b loop G; b := false end loop end loop"), 1);
        assert_eq!(loops("b := true; loop while b loop G; b := false end loop; G end loop"), 0);
        // and its own body repeats too
        assert_eq!(loops("b := true; while b loop b := false end loop"), 1);
    }
}
