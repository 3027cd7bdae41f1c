//! A minimal HTTP/1.1 server over `std::net` for the one page of `labs explore`: bound to the
//! loopback address, one request per connection (`Connection: close`), each connection read
//! and written on its own thread, the requests answered one at a time. Before a request reaches the API it must carry the session's token (query `token`
//! or header `X-Labs-Token`), name this server in `Host`, and come from this server's page
//! when it has an `Origin` (docs/explore.md, "Security").

use super::api::{Api, Response};
use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

const PAGE: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/explore.js");
const STYLE: &str = include_str!("page/explore.css");

/// The longest request head (request line and headers).
const MAX_HEAD: usize = 16 << 10;
/// The longest request body (a trace document sent by the page).
const MAX_BODY: usize = 64 << 20;
/// The most connections open at once (being read, or waiting for their answer).
const MAX_CONNECTIONS: usize = 64;
/// How long a connection may take to send its request (or to read its answer).
const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// What the browser may load and run on the page: only this server's own script and styles.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                   connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

pub struct Server {
    listener: TcpListener,
    port: u16,
    token: String,
}

/// A request as read from the connection.
struct Request {
    method: String,
    path: String,
    query: String,
    /// Header names in lower case.
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    fn query_param(&self, name: &str) -> Option<&str> {
        self.query.split('&').find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
    }
}

impl Server {
    /// Listens on 127.0.0.1, at `port` or a free one.
    pub fn bind(port: Option<u16>) -> std::io::Result<Server> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port.unwrap_or(0)))?;
        let port = listener.local_addr()?.port();
        Ok(Server { listener, port, token: new_token()? })
    }

    /// The page's address, with the token.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/?token={}", self.port, self.token)
    }

    /// Serves requests until `stop` is set (Ctrl-C). Each connection is read and written on
    /// its own thread, so that one that sends nothing (a browser's speculative connection) or
    /// reads slowly holds up no other; the requests read whole are answered here, one at a
    /// time, in the order they arrive.
    pub fn serve(&self, api: &mut Api, stop: &AtomicBool) -> std::io::Result<()> {
        self.listener.set_nonblocking(true)?;
        let (jobs, requests) = mpsc::channel::<Job>();
        let open = Arc::new(AtomicUsize::new(0));
        while !stop.load(Ordering::Relaxed) {
            let accepted = match self.listener.accept() {
                Ok((stream, peer)) => {
                    // Bound to the loopback address, only this machine can connect; a peer
                    // elsewhere would be a bug of the binding, not a client to serve. Past
                    // MAX_CONNECTIONS open at once, a new one is closed unread.
                    if peer.ip().is_loopback() && open.load(Ordering::SeqCst) < MAX_CONNECTIONS {
                        open.fetch_add(1, Ordering::SeqCst);
                        let (jobs, open) = (jobs.clone(), Arc::clone(&open));
                        std::thread::spawn(move || {
                            // A connection that fails (closed early, timed out) ends alone.
                            let _ = connection(stream, &jobs);
                            open.fetch_sub(1, Ordering::SeqCst);
                        });
                    }
                    true
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => false,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => false,
                Err(e) => return Err(e),
            };
            // Right after a connection, look for the next one at once; else wait a little.
            let job =
                if accepted { requests.try_recv().ok() } else { requests.recv_timeout(Duration::from_millis(20)).ok() };
            if let Some((request, reply)) = job {
                let response = match request {
                    Ok(req) => self.answer(&req, api),
                    Err(r) => r,
                };
                let _ = reply.send(response);
            }
        }
        Ok(())
    }

    /// The response to a request that was read whole: refused unless it is this session's.
    fn answer(&self, req: &Request, api: &mut Api) -> Response {
        if let Some(why) = self.refusal(req) {
            return Response::error(403, why);
        }
        match (req.method.as_str(), req.path.as_str()) {
            ("GET", "/") => self.page(PAGE.replace("{{TOKEN}}", &self.token), "text/html; charset=utf-8"),
            ("GET", "/explore.js") => self.page(SCRIPT.to_string(), "text/javascript; charset=utf-8"),
            ("GET", "/explore.css") => self.page(STYLE.to_string(), "text/css; charset=utf-8"),
            ("GET", "/report.css") => self.page(crate::report::STYLE.to_string(), "text/css; charset=utf-8"),
            ("POST", p) if p.starts_with("/api/") => {
                let json = req.header("content-type").is_some_and(|c| c.starts_with("application/json"));
                if !json {
                    return Response::error(415, "the API takes JSON bodies (Content-Type: application/json)");
                }
                api.handle("POST", p, &req.body)
            }
            (m @ ("GET" | "POST"), p) => api.handle(m, p, &req.body),
            (m, _) => Response::error(405, format!("method {m} is not served")),
        }
    }

    fn page(&self, text: String, content_type: &'static str) -> Response {
        Response { status: 200, content_type, body: text.into_bytes(), download: None }
    }

    /// Why a request is not this session's, if it is not.
    fn refusal(&self, req: &Request) -> Option<String> {
        let hosts = [format!("127.0.0.1:{}", self.port), format!("localhost:{}", self.port)];
        match req.header("host") {
            Some(h) if hosts.iter().any(|x| x == h) => {}
            h => {
                return Some(format!(
                    "the Host header must name this server ({}), not {:?}",
                    hosts[0],
                    h.unwrap_or("")
                ));
            }
        }
        if let Some(origin) = req.header("origin")
            && !hosts.iter().any(|h| origin == format!("http://{h}"))
        {
            return Some(format!("requests from another origin ({origin}) are refused"));
        }
        if req.header("sec-fetch-site").is_some_and(|s| s == "cross-site") {
            return Some("cross-site requests are refused".into());
        }
        let given = req.query_param("token").or_else(|| req.header("x-labs-token"));
        match given {
            Some(t) if same(t.as_bytes(), self.token.as_bytes()) => None,
            Some(_) => Some("wrong token: open the address `labs explore` printed".into()),
            None => Some("no token: open the address `labs explore` printed (it carries the session's token)".into()),
        }
    }
}

/// A request read from a connection (or the response that refuses it unread), with the way
/// back to the connection's thread.
type Job = (Result<Request, Response>, mpsc::Sender<Response>);

/// One connection: reads its request, hands it to the serving loop, writes the answer. When
/// the server stops first, the connection is closed without an answer.
fn connection(mut stream: TcpStream, jobs: &mpsc::Sender<Job>) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    stream.set_write_timeout(Some(READ_TIMEOUT))?;
    let request = read_request(&mut stream);
    let (reply, answer) = mpsc::channel();
    if jobs.send((request, reply)).is_err() {
        return Ok(());
    }
    let Ok(response) = answer.recv() else { return Ok(()) };
    write_response(&mut stream, &response)?;
    stream.flush()?;
    let _ = stream.shutdown(std::net::Shutdown::Both);
    Ok(())
}

/// Compares two strings in time independent of where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// 128 random bits from the kernel, in hex.
fn new_token() -> std::io::Result<String> {
    let mut buf = [0u8; 16];
    let mut filled = 0;
    while filled < buf.len() {
        // SAFETY: the pointer and length describe the unfilled end of `buf`, which lives
        // through the call; getrandom writes at most that many bytes.
        let n = unsafe { libc::getrandom(buf[filled..].as_mut_ptr().cast(), buf.len() - filled, 0) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        filled += n as usize;
    }
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

/// Reads one request: the head up to the blank line, then `Content-Length` bytes of body.
fn read_request(stream: &mut TcpStream) -> Result<Request, Response> {
    let mut buf = Vec::with_capacity(4096);
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        if buf.len() > MAX_HEAD {
            return Err(Response::error(431, "request head too large"));
        }
        let n = stream.read(&mut chunk).map_err(|_| Response::error(408, "the request was not read in time"))?;
        if n == 0 {
            return Err(Response::error(400, "the connection closed before the request ended"));
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head =
        std::str::from_utf8(&buf[..head_end]).map_err(|_| Response::error(400, "the request head is not UTF-8"))?;
    let mut lines = head.split("\r\n");
    let line = lines.next().unwrap_or("");
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) = (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(Response::error(400, "malformed request line"));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(Response::error(505, "only HTTP/1.x is served"));
    }
    let mut headers = vec![];
    for l in lines {
        let (n, v) = l.split_once(':').ok_or_else(|| Response::error(400, "malformed header line"))?;
        headers.push((n.trim().to_ascii_lowercase(), v.trim().to_string()));
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let mut req =
        Request { method: method.to_string(), path: path.to_string(), query: query.to_string(), headers, body: vec![] };
    if req.header("transfer-encoding").is_some() {
        return Err(Response::error(411, "send a Content-Length, not a transfer encoding"));
    }
    let len = match req.header("content-length") {
        None => 0,
        Some(v) => v.parse::<usize>().map_err(|_| Response::error(400, "bad Content-Length"))?,
    };
    if len > MAX_BODY {
        return Err(Response::error(413, "request body too large"));
    }
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < len {
        let n = stream.read(&mut chunk).map_err(|_| Response::error(408, "the request body was not read in time"))?;
        if n == 0 {
            return Err(Response::error(400, "the connection closed before the body ended"));
        }
        body.extend_from_slice(&chunk[..n]);
    }
    body.truncate(len);
    req.body = body;
    Ok(req)
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Payload Too Large",
        415 => "Unsupported Media Type",
        431 => "Request Header Fields Too Large",
        505 => "HTTP Version Not Supported",
        _ => "Internal Server Error",
    }
}

fn write_response(stream: &mut TcpStream, r: &Response) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n\
         X-Frame-Options: DENY\r\nContent-Security-Policy: {CSP}\r\n",
        r.status,
        reason(r.status),
        r.content_type,
        r.body.len()
    );
    if let Some(name) = &r.download {
        head += &format!("Content-Disposition: attachment; filename=\"{name}\"\r\n");
    }
    head += "\r\n";
    stream.write_all(head.as_bytes())?;
    stream.write_all(&r.body)
}
