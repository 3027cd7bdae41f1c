//! The page's API (docs/explore.md), without the network: a request (method, path, body)
//! gives a response. `server` checks who asks before it hands a request here.

use super::doc::{Frame, TraceEntry, ViewDoc, view};
use super::grid::GridView;
use super::session::{Session, Until};
use crate::report::Meta;
use crate::trace::from_json::{self, TitledTrace};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// What `labs explore` was started with, besides the model.
pub struct Setup {
    /// The spec's file name (`flock.labs`), for documents and downloads.
    pub spec_name: String,
    /// The spec's text: "run until" reads predicates against it.
    pub source: String,
    /// `--trace FILE`: the one file the server may read again.
    pub trace_file: Option<PathBuf>,
    pub view: Option<GridView>,
    /// The labs version and the clock's date, for the exported report's header.
    pub version: String,
    /// Set on Ctrl-C: a long run of random steps stops.
    pub stop: Arc<AtomicBool>,
}

/// Why a trace document was not loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// Not a trace document of this spec (not JSON, no trace, another spec or extern values).
    #[error("{0}")]
    Document(from_json::JsonTraceError),
    /// A trace that does not replay in the native engine.
    #[error("{0}")]
    Replay(String),
    #[error("{0}")]
    Index(String),
}

/// A response: status, content type, body, and a file name when it is a download.
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
    pub download: Option<String>,
}

impl Response {
    fn json<T: serde::Serialize>(status: u16, v: &T) -> Response {
        let body = serde_json::to_vec(v).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}").into_bytes());
        Response { status, content_type: "application/json", body, download: None }
    }

    pub(crate) fn error(status: u16, message: impl Into<String>) -> Response {
        #[derive(serde::Serialize)]
        struct ErrorDoc {
            error: String,
        }
        Response::json(status, &ErrorDoc { error: message.into() })
    }
}

/// The session and what the page shows around it.
pub struct Api<'m> {
    session: Session<'m>,
    setup: Setup,
    /// The traces of the last trace document read (`--trace`, or one the page sent).
    traces: Vec<TitledTrace>,
}

#[derive(Deserialize)]
struct StepReq {
    rev: u64,
    index: usize,
}

#[derive(Deserialize)]
struct GotoReq {
    at: usize,
}

#[derive(Deserialize)]
struct RandomReq {
    rev: u64,
    steps: usize,
    seed: u64,
}

#[derive(Deserialize)]
struct UntilReq {
    rev: u64,
    /// `predicate`, `violated` or `deadlock`.
    kind: String,
    #[serde(default)]
    predicate: Option<String>,
    #[serde(default)]
    property: Option<String>,
    max_steps: usize,
    seed: u64,
}

#[derive(Deserialize)]
struct RestartReq {
    /// `None`: the first initial state; otherwise one drawn with this seed.
    #[serde(default)]
    seed: Option<u64>,
}

#[derive(Deserialize)]
struct LoadReq {
    /// A file to read: only the `--trace` file is allowed.
    #[serde(default)]
    file: Option<String>,
    /// A trace document the page read from the user's disk.
    #[serde(default)]
    json: Option<String>,
    #[serde(default)]
    index: usize,
}

fn parse<T: DeserializeOwned>(body: &[u8]) -> Result<T, Response> {
    serde_json::from_slice(body).map_err(|e| Response::error(400, format!("bad request: {e}")))
}

impl<'m> Api<'m> {
    /// The API over `session` (the `--trace` file, if any, is loaded with `load_document`).
    pub fn new(session: Session<'m>, setup: Setup) -> Api<'m> {
        Api { session, setup, traces: vec![] }
    }

    /// Reads a trace document (the `--trace` file's text) and loads its first trace.
    pub fn load_document(&mut self, text: &str) -> Result<String, LoadError> {
        let from = self.setup.trace_file.as_ref().map_or_else(|| "a document".to_string(), |f| f.display().to_string());
        self.read_traces(text, 0, &from)
    }

    /// The session, for the tests.
    pub fn session(&self) -> &Session<'m> {
        &self.session
    }

    /// Reads a trace document, replays each trace, and loads trace `index`.
    fn read_traces(&mut self, text: &str, index: usize, from: &str) -> Result<String, LoadError> {
        let s = &self.session;
        let traces = from_json::read(s.model, s.behs, s.fair(), text).map_err(LoadError::Document)?;
        for t in &traces {
            crate::trace::replay(s.model, s.behs, &t.trace)
                .map_err(|e| LoadError::Replay(format!("{}: does not replay: {e}", t.title)))?;
        }
        let chosen = traces
            .get(index)
            .ok_or_else(|| {
                LoadError::Index(format!("the document holds {} traces, not a trace {index}", traces.len()))
            })?
            .clone();
        self.traces = traces;
        let message = format!("loaded {} ({} steps)", chosen.title, chosen.trace.len());
        self.session.load(format!("{} from {from}", chosen.title), chosen.trace);
        Ok(message)
    }

    fn view(&mut self) -> ViewDoc {
        let frame = Frame {
            spec: &self.setup.spec_name,
            trace_file: self.setup.trace_file.as_ref().map(|f| f.display().to_string()),
            traces: self
                .traces
                .iter()
                .enumerate()
                .map(|(index, t)| TraceEntry { index, title: t.title.clone() })
                .collect(),
            view: self.setup.view.clone(),
        };
        view(&mut self.session, frame)
    }

    fn answer(&mut self, message: String, found: Option<bool>) -> Response {
        let mut doc = self.view();
        doc.message = Some(message);
        doc.found = found;
        Response::json(200, &doc)
    }

    fn stale(&self, rev: u64) -> Option<Response> {
        (rev != self.session.rev).then(|| {
            Response::error(409, "the page is out of date (the session changed since it was drawn): reload it")
        })
    }

    /// Answers one request (the path without its query).
    pub fn handle(&mut self, method: &str, path: &str, body: &[u8]) -> Response {
        match (method, path) {
            ("GET", "/api/state") => {
                let doc = self.view();
                Response::json(200, &doc)
            }
            ("POST", "/api/step") => self.step(body).unwrap_or_else(|r| r),
            ("POST", "/api/goto") => self.goto(body).unwrap_or_else(|r| r),
            ("POST", "/api/random") => self.random(body).unwrap_or_else(|r| r),
            ("POST", "/api/until") => self.until(body).unwrap_or_else(|r| r),
            ("POST", "/api/restart") => self.restart(body).unwrap_or_else(|r| r),
            ("POST", "/api/load") => self.load(body).unwrap_or_else(|r| r),
            ("GET", "/api/export/trace.json") => self.export_trace(),
            ("GET", "/api/export/report.html") => self.export_report(),
            (_, p) if p.starts_with("/api/") => Response::error(404, format!("no {method} {p} in this API")),
            _ => Response::error(404, format!("no page {path}")),
        }
    }

    fn step(&mut self, body: &[u8]) -> Result<Response, Response> {
        let r: StepReq = parse(body)?;
        if let Some(stale) = self.stale(r.rev) {
            return Err(stale);
        }
        let from = self.session.cursor;
        self.session.take(r.index).map_err(|e| Response::error(400, e))?;
        Ok(self.answer(format!("took step {} from state {from}", r.index), None))
    }

    fn goto(&mut self, body: &[u8]) -> Result<Response, Response> {
        let r: GotoReq = parse(body)?;
        self.session.goto(r.at).map_err(|e| Response::error(400, e))?;
        Ok(self.answer(format!("at state {}", r.at), None))
    }

    fn random(&mut self, body: &[u8]) -> Result<Response, Response> {
        let r: RandomReq = parse(body)?;
        if let Some(stale) = self.stale(r.rev) {
            return Err(stale);
        }
        let message = self.session.random(r.steps, r.seed, &self.setup.stop);
        Ok(self.answer(message, None))
    }

    fn until(&mut self, body: &[u8]) -> Result<Response, Response> {
        let r: UntilReq = parse(body)?;
        if let Some(stale) = self.stale(r.rev) {
            return Err(stale);
        }
        let model = self.session.model;
        let until = match r.kind.as_str() {
            "predicate" => {
                let text = r.predicate.unwrap_or_default();
                let q = super::predicate::resolve_predicate(&self.setup.source, model, &text)
                    .map_err(|e| Response::error(400, format!("the predicate: {e}")))?;
                Until::Predicate(q, text.trim().to_string())
            }
            "violated" => {
                let name = r.property.unwrap_or_default();
                let i = model
                    .properties
                    .iter()
                    .position(|p| p.name == name)
                    .ok_or_else(|| Response::error(400, format!("no property named `{name}`")))?;
                Until::Violated(i)
            }
            "deadlock" => Until::Deadlock,
            k => return Err(Response::error(400, format!("no condition `{k}` (predicate, violated, deadlock)"))),
        };
        let (found, message) = self.session.until(&until, r.max_steps, r.seed, &self.setup.stop);
        Ok(self.answer(message, Some(found)))
    }

    fn restart(&mut self, body: &[u8]) -> Result<Response, Response> {
        let r: RestartReq = parse(body)?;
        self.session.restart(r.seed).map_err(|e| Response::error(400, e))?;
        let message = match r.seed {
            None => "the first initial state".to_string(),
            Some(s) => format!("an initial state drawn with seed {s}"),
        };
        Ok(self.answer(message, None))
    }

    fn load(&mut self, body: &[u8]) -> Result<Response, Response> {
        let r: LoadReq = parse(body)?;
        let (text, from) = match (r.file, r.json) {
            (Some(f), None) => {
                // The server reads no file but the one named on its command line.
                let named = self.setup.trace_file.as_ref().is_some_and(|t| t.as_os_str() == f.as_str());
                if !named {
                    return Err(Response::error(
                        403,
                        format!("`{f}` was not named on the command line: the server reads only its --trace file"),
                    ));
                }
                let text =
                    std::fs::read_to_string(&f).map_err(|e| Response::error(400, format!("cannot read `{f}`: {e}")))?;
                (text, f)
            }
            (None, Some(j)) => (j, "a document from the page".to_string()),
            _ => {
                return Err(Response::error(400, "give either `file` (the --trace file) or `json` (a trace document)"));
            }
        };
        let message = self.read_traces(&text, r.index, &from).map_err(|e| Response::error(400, e.to_string()))?;
        Ok(self.answer(message, None))
    }

    /// The history as a document `translate-trace` and `--trace` read back.
    fn export_trace(&mut self) -> Response {
        #[derive(serde::Serialize)]
        struct ExportDoc<'a> {
            spec: &'a str,
            externs: &'a std::collections::BTreeMap<String, i64>,
            fair: bool,
            trace: crate::trace::TraceJson,
        }
        let shown = match self.session.statuses() {
            Ok((_, shown)) => shown,
            Err(e) => return Response::error(500, e),
        };
        let s = &self.session;
        let doc = ExportDoc {
            spec: &self.setup.spec_name,
            externs: &s.model.externs,
            fair: s.fair(),
            trace: crate::trace::to_json(s.model, s.behs, &shown),
        };
        let mut r = Response::json(200, &doc);
        r.download = Some(format!("{}-explore.json", self.stem()));
        r
    }

    /// The history as the HTML report `translate-trace --report` writes.
    fn export_report(&mut self) -> Response {
        let shown = match self.session.statuses() {
            Ok((_, shown)) => shown,
            Err(e) => return Response::error(500, e),
        };
        let s = &self.session;
        let meta = Meta {
            command: "explore".into(),
            spec: self.setup.spec_name.clone(),
            externs: s.model.externs.iter().map(|(k, v)| (k.clone(), *v)).collect(),
            backend: "native".into(),
            fair: s.fair(),
            date: crate::report::html::utc_text(std::time::SystemTime::now()),
            version: self.setup.version.clone(),
        };
        let title = match &s.origin {
            Some(o) if o.intact => format!("Explored: {}", o.title),
            Some(o) => format!("Explored, branched off {}", o.title),
            None => "Explored run".to_string(),
        };
        let page = crate::report::trace_page(s.model, s.behs, &meta, &shown, &title, vec![]);
        Response {
            status: 200,
            content_type: "text/html; charset=utf-8",
            body: page.into_bytes(),
            download: Some(format!("{}-explore.html", self.stem())),
        }
    }

    fn stem(&self) -> String {
        std::path::Path::new(&self.setup.spec_name)
            .file_stem()
            .map_or_else(|| "spec".to_string(), |s| s.to_string_lossy().into_owned())
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' })
            .collect()
    }
}
