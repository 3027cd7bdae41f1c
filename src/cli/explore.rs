//! `labs explore`: the interactive simulator's server, started on the loopback address; its
//! address (with the session's token) is printed, and it serves until Ctrl-C or SIGTERM.

use super::load::Loaded;
use super::{Failure, exit};
use crate::explore::{Api, LoadError, Server, Session, Setup};
use crate::stdout::outln;
use crate::trace::from_json::JsonTraceError;
use std::path::PathBuf;

pub(crate) struct ExploreArgs {
    pub(crate) fair: bool,
    pub(crate) trace: Option<PathBuf>,
    pub(crate) port: Option<u16>,
    pub(crate) view: Option<String>,
}

pub(crate) fn run(l: &Loaded, a: &ExploreArgs) -> Result<i32, Failure> {
    let analysis = crate::analysis::values::analyse(&l.model, &l.behaviours);
    let view = crate::explore::choose_grid(&l.model, &analysis, &l.file.text, a.view.as_deref())
        .map_err(|e| Failure::new(exit::USAGE, e))?;
    let trace_text = match &a.trace {
        Some(f) => Some(super::load::read_text(f, exit::USAGE)?),
        None => None,
    };
    let session = Session::new(&l.model, &l.behaviours, a.fair).map_err(|e| Failure::new(exit::BACKEND, e))?;
    let stop = super::bounds::interrupt_flag();
    let setup = Setup {
        spec_name: l.name().to_string(),
        source: l.file.text.clone(),
        trace_file: a.trace.clone(),
        view,
        version: env!("CARGO_PKG_VERSION").to_string(),
        stop: stop.clone(),
    };
    let mut api = Api::new(session, setup);
    if let (Some(f), Some(text)) = (&a.trace, &trace_text) {
        api.load_document(text).map_err(|e| {
            let file = f.display();
            match e {
                LoadError::Document(
                    JsonTraceError::NotJson(_) | JsonTraceError::NoTrace | JsonTraceError::Shape { .. },
                ) => Failure::new(exit::USAGE, format!("--trace `{file}`: {e}")),
                _ => Failure::new(exit::BACKEND, format!("--trace `{file}`: {e}")),
            }
        })?;
    }
    let server = Server::bind(a.port).map_err(|e| {
        let at = a.port.map_or_else(|| "a free port".to_string(), |p| format!("port {p}"));
        Failure::new(exit::USAGE, format!("cannot listen on 127.0.0.1, {at}: {e}"))
    })?;
    outln!("labs explore: open {}", server.url());
    outln!("(serving {} until Ctrl-C)", l.name());
    server.serve(&mut api, &stop).map_err(|e| Failure::new(exit::BACKEND, format!("the server failed: {e}")))?;
    eprintln!("labs explore: stopped");
    Ok(exit::OK)
}
