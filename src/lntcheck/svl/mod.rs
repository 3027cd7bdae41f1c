//! The SVL scripts `labs emit` writes (`X.svl`, `X_mono.svl`): a parser for exactly the subset
//! the templates `svl/compositional.svl` and `svl/monolithic.svl` produce, and, for the
//! compositional script's `root leaf` statements, an
//! evaluator that generates every leaf alone with the LNT interpreter and combines the explicit
//! LTSs with the operators of `lts.rs` (per-leaf `hide`, label-synchronised `par`, `total prio`,
//! `hide all but`). The block's reduction (`root leaf divsharp reduction` with its `hold`
//! gates, or `divbranching`) is applied by `reduce.rs` when the composer is asked to reduce.
//! `check_script` checks the native verdicts on each block's LTS before reduction, whose states
//! each have one LAbS valuation; `files.rs` executes a whole script as SVL would, reductions
//! included, and evaluates the MCL queries its `verify` statements name.
//!
//! The subset:
//!
//! ```text
//! script ::= { "% DEFAULT_PROCESS_FILE=" string | block | derived | property }
//! block  ::= string "=" "root" "leaf" ID "reduction" [ "hold" string {"," string} ] "of" "(" beh ")" ";"
//! derived ::= string "=" "generation" "of" string ";"
//!           | string "=" ID "reduction" [ "hold" string {"," string} ] "of" ["hide" "all" "but" gates "in"] string ";"
//! property ::= "property" ID [string] "is" string "=" verify ";" "expected" ID [";"] "end" "property"
//! verify ::= "verify" string "with" evaluator "in" string | string "|=" "with" evaluator string
//! evaluator ::= "evaluator4" | "evaluator"
//! beh    ::= "hide" "all" "but" gates "in" beh "end" "hide"
//!          | "hide" gates "in" beh "end" "hide"
//!          | "par" [gates "in"] branch {"||" branch} "end" "par"      branch ::= [gates "->"] beh
//!          | "total" "prio" chain {chain} "in" beh "end" "prio"       chain ::= string {">" string}
//!          | ID "[" gates "]" ["(" num {"," num} ")"]
//!          | "(" beh ")"
//! ```
//!
//! One file per job: `ast.rs` (the statements and behaviours, and queries on them),
//! `lexer.rs`, `parser.rs`, `compose.rs` (the `Composer`: leaves generated, cached, reduced and
//! combined), `product.rs` (the network explored on the fly from its root), `driver.rs`
//! (a whole script checked against the native verdicts).

mod ast;
mod compose;
mod driver;
mod lexer;
mod parser;
mod product;

pub use ast::{Beh, agent_leaf, calls};
pub(crate) use ast::{Block, Derived, Script, Verify, call_text, files};
pub use compose::Composer;
#[cfg(feature = "test-support")]
pub use driver::strip_hides;
pub use driver::{check_script, emit_program};
pub use parser::parse;
pub(crate) use parser::parse_named;
