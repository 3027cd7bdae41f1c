//! `labs explore`: an interactive simulator in the browser (docs/explore.md). A session
//! (`session`) keeps a history of states and a cursor in it, every step taken from the
//! engine's reference successors; `api` answers the page's requests with views of it (`doc`:
//! states and events in the JSON form of traces, the history as the report's
//! message-sequence chart); `server` serves the page and the API on the loopback address to
//! whoever has the session's token. `predicate` reads the predicates typed in the page;
//! `grid` chooses the 2-D view of the agents.
//!
//! The stage only serves: it prints nothing (the CLI prints the address) and reads no file
//! but the trace file named on the command line.

mod api;
mod doc;
mod grid;
mod predicate;
mod server;
mod session;

pub use api::{Api, LoadError, Response, Setup};
pub use doc::Change;
pub use grid::GridView;
pub(crate) use grid::choose as choose_grid;
pub use server::Server;
pub use session::{MAX_HISTORY, Session};
