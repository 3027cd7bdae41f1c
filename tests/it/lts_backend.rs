//! What the back ends that run the emitted files share, below the command line: which
//! workflow a spec gets (`lts_backend::choose_workflow`, the one decision `verify --backend
//! lnt|cadp`, `emit` and library callers use), and the typed I/O errors of labs's
//! interpreters.

use crate::engine_common::load;
use crate::fixtures::example;
use crate::scratch::Scratch;
use labs::analysis::values::analyse;
use labs::lntcheck::LntcheckError;
use labs::lntcheck::files::{RunError, RunOptions, mcl_evaluator, run_script};
use labs::lts_backend::{Workflow, choose_workflow};

#[test]
fn the_workflow_is_compositional_where_the_analysis_bounds_every_leaf_input() {
    // leader: every variable is bounded by the number of nodes.
    let (m, b) = load(&example("leader.labs"), &["n=3"]);
    let c = choose_workflow(None, &analyse(&m, &b));
    assert_eq!((c.workflow, c.asked), (Workflow::Compositional, false));
    assert!(c.unbounded.is_empty());
    // counter: the counter grows without bound (examples/README.md), so its leaves could not be
    // generated alone.
    let (m, b) = load(&example("counter.labs"), &["n=2", "atomic=0"]);
    let a = analyse(&m, &b);
    let c = choose_workflow(None, &a);
    assert_eq!(c.workflow, Workflow::Monolithic);
    let names: Vec<&str> = c.unbounded.iter().map(|(v, _)| m.vars[*v].name.as_str()).collect();
    assert!(names.contains(&"c"), "{names:?}");
    // A workflow asked for is the one that runs (the back end refuses an unusable one).
    let c = choose_workflow(Some(Workflow::Compositional), &a);
    assert_eq!((c.workflow, c.asked), (Workflow::Compositional, true));
    assert!(!c.unbounded.is_empty());
}

#[test]
fn a_file_that_cannot_be_read_is_an_io_error_with_its_path() {
    let dir = Scratch::path("lntcheck-io", "empty");
    std::fs::create_dir_all(&*dir).unwrap();
    let evaluate = mcl_evaluator(labs::limits::Limits::none());
    let e = run_script(&dir, "missing.svl", &RunOptions::default(), &evaluate).expect_err("no script");
    let RunError::Failed(err) = &e else { panic!("{e:?}") };
    let LntcheckError::Io { path, source, .. } = err else { panic!("{err:?}") };
    assert_eq!(path, &dir.join("missing.svl"));
    assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
    assert!(err.to_string().starts_with(&format!("cannot read `{}`: ", path.display())), "{err}");
}
