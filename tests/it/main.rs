//! The integration tests: one program, each test file a module of it (its tests are named
//! `MODULE::test`), so that the library and the binaries are linked into one test binary.
//! `cargo test --profile test-release` runs the default tier, `LABS_SLOW_TESTS=1` adds the
//! slow one (`tier`).
//!
//! A new test file is `tests/it/NAME.rs` with a `mod NAME;` line below, in alphabetical
//! order; it reaches the shared helpers through `crate::` (`use crate::fixtures;`).

// Helpers the test modules share.
mod cdp;
mod engine_common;
mod fixtures;
mod isolate;
mod lnt_paths;
mod orbits;
mod scoped_as_ltl;
mod scratch;
mod specgen;
mod terminal;
mod tier;

// The tests, one module per subject.
mod analysis_props;
mod backend_agreement;
mod backend_options;
mod behaviour;
mod bench_cli;
mod bench_fairness;
mod bench_peer;
mod cadp_driver;
mod cli;
mod cli_messages;
mod cli_symmetry;
mod closed_pipe;
mod corpus;
mod doc_paths;
mod emit_cli;
mod emit_fragments;
mod emit_lint;
mod emit_lnt_syntax;
mod emit_mcl;
mod emit_snapshots;
mod emit_split;
mod engine_benchmarks;
mod engine_edges;
mod engine_packed;
mod engine_predicates;
mod engine_proptest;
mod engine_semantics_cases;
mod engine_store;
mod engine_store_form;
mod engine_symmetry;
mod engine_value_symmetry;
mod estimate;
mod estimate_cli;
mod explore_api;
mod explore_browser;
mod explore_server;
mod fairness;
mod fairness_symmetry;
mod hidden_errors;
mod hostile;
mod hostile_input;
mod json_schema;
mod keep_files;
mod kept_verdicts;
mod layers;
mod leaf_values;
mod lnt_backend_files;
mod lnt_jobs;
mod lnt_observers;
mod lnt_remote_reads;
mod lnt_state_ratio;
mod lntcheck_case;
mod lntcheck_checker;
mod lntcheck_diff;
mod lntcheck_memo;
mod lntcheck_reduce;
mod lntcheck_simulate;
mod lntcheck_svl;
mod ltl_bad_prefix;
mod ltl_on_the_fly;
mod ltl_simulate;
mod ltl_translation;
mod lts_backend;
mod mcl;
mod mcl_diag;
mod mcl_looping;
mod model_expr;
mod mutation_fuzz;
mod on_the_fly;
mod parser_corpus;
mod parser_disambiguation;
mod parser_errors;
mod parser_formulas;
mod parser_props;
mod probability;
mod probability_lnt;
mod probability_random;
mod random_differential;
mod reader_limits;
mod readme;
mod report;
mod report_browser;
mod routes_agree;
mod sim_deadlock;
mod simulate_lines;
mod soundness;
mod static_errors;
mod translate_trace;
mod values;
mod values_soundness;
