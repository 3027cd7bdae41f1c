//! `labs explore` as a user runs it: the server it starts answers only requests with its
//! token, from its own page's origin, naming it as their host; it reads no file but the one
//! named on its command line; it ends cleanly on Ctrl-C or SIGTERM; its export is read back
//! by `translate-trace`; bad command lines get their exit codes.

use crate::fixtures;
use crate::scratch::Scratch;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

/// A running `labs explore`, killed when dropped (unless it was stopped).
pub struct Running {
    child: Child,
    pub port: u16,
    pub token: String,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Running {
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/?token={}", self.port, self.token)
    }

    /// Sends `signal` and waits for the exit code (at most 10 s).
    fn stop(&mut self, signal: i32) -> Option<i32> {
        // SAFETY: kill(2) on the id of a child this test started and has not reaped.
        unsafe { libc::kill(self.child.id() as i32, signal) };
        for _ in 0..200 {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s.code();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("labs explore did not stop within 10 s");
    }
}

/// Starts `labs explore ARGS` and reads the address it prints.
pub fn start(args: &[&str]) -> Running {
    start_in(Path::new("."), args)
}

/// `start` in the directory `dir`.
pub fn start_in(dir: &Path, args: &[&str]) -> Running {
    let mut child = fixtures::labs_command()
        .current_dir(dir)
        .arg("explore")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start labs explore");
    let out = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut r = BufReader::new(out);
        let mut line = String::new();
        let _ = r.read_line(&mut line);
        let _ = tx.send(line);
        // Read on: a closed standard output would end labs as SIGPIPE does.
        let _ = std::io::copy(&mut r, &mut std::io::sink());
    });
    let line = rx.recv_timeout(Duration::from_secs(30)).expect("labs explore printed no address");
    let url =
        line.trim().strip_prefix("labs explore: open ").unwrap_or_else(|| panic!("unexpected first line: {line:?}"));
    let rest = url.strip_prefix("http://127.0.0.1:").expect("an address on 127.0.0.1");
    let (port, token) = rest.split_once("/?token=").expect("a token in the address");
    assert_eq!(token.len(), 32, "128 random bits");
    Running { child, port: port.parse().unwrap(), token: token.to_string() }
}

/// One HTTP/1.1 request with the given extra header lines; the status and the body.
pub fn request(port: u16, method: &str, target: &str, headers: &[&str], body: &str) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut req = format!("{method} {target} HTTP/1.1\r\nContent-Length: {}\r\n", body.len());
    if !headers.iter().any(|h| h.to_ascii_lowercase().starts_with("host:")) {
        req += &format!("Host: 127.0.0.1:{port}\r\n");
    }
    for h in headers {
        req += h;
        req += "\r\n";
    }
    req += "\r\n";
    req += body;
    s.write_all(req.as_bytes()).unwrap();
    let mut resp = String::new();
    s.read_to_string(&mut resp).unwrap();
    let status = resp.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = resp.split_once("\r\n\r\n").map_or(String::new(), |(_, b)| b.to_string());
    (status, body)
}

/// The flock counterexample of `ConsensusKept`, as `verify --json` prints it, in `dir`.
pub fn flock_counterexample(dir: &Path) -> String {
    let o = fixtures::labs(&[
        "verify",
        &fixtures::bench("flock.labs"),
        "birds=3",
        "grid=5",
        "delta=5",
        "--property",
        "ConsensusKept",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(10), "{}", fixtures::stderr(&o));
    let f = dir.join("cex.json");
    std::fs::write(&f, &o.stdout).unwrap();
    f.display().to_string()
}

const FLOCK: [&str; 3] = ["birds=3", "grid=5", "delta=5"];

fn flock_args<'a>(extra: &[&'a str], spec: &'a str) -> Vec<&'a str> {
    let mut v = vec![spec];
    v.extend(FLOCK);
    v.extend(extra);
    v
}

#[test]
fn requests_without_the_token_from_another_origin_or_host_are_refused() {
    let spec = fixtures::bench("flock.labs");
    let s = start(&flock_args(&[], &spec));
    let p = s.port;
    let t = format!("/api/state?token={}", s.token);
    let own = format!("Origin: http://127.0.0.1:{p}");
    assert_eq!(request(p, "GET", &t, &[], "").0, 200);
    assert_eq!(request(p, "GET", &t, &[&own], "").0, 200);
    let header = format!("X-Labs-Token: {}", s.token);
    assert_eq!(request(p, "GET", "/api/state", &[&header], "").0, 200);
    let (status, body) = request(p, "GET", &format!("/?token={}", s.token), &[], "");
    assert_eq!(status, 200);
    assert!(body.contains(&format!("/explore.js?token={}", s.token)), "the page's script carries the token");
    for (what, target, headers) in [
        ("no token", "/api/state".to_string(), vec![]),
        ("no token (page)", "/".to_string(), vec![]),
        ("no token (script)", "/explore.js".to_string(), vec![]),
        ("a wrong token", format!("/api/state?token={}", "0".repeat(32)), vec![]),
        ("a short token", format!("/api/state?token={}", &s.token[..31]), vec![]),
        ("another origin", t.clone(), vec!["Origin: http://evil.example".to_string()]),
        ("another port's origin", t.clone(), vec![format!("Origin: http://127.0.0.1:{}", p.wrapping_add(1))]),
        ("a cross-site fetch", t.clone(), vec!["Sec-Fetch-Site: cross-site".to_string()]),
        ("another host (DNS rebinding)", t.clone(), vec![format!("Host: evil.example:{p}")]),
    ] {
        let h: Vec<&str> = headers.iter().map(String::as_str).collect();
        let (status, body) = request(p, "GET", &target, &h, "");
        assert_eq!(status, 403, "{what}: {body}");
        assert!(body.contains("error"), "{what}: {body}");
    }
    // A POST of another origin is refused before it acts: the session is unchanged.
    let (status, _) = request(
        p,
        "POST",
        &format!("/api/step?token={}", s.token),
        &["Origin: http://evil.example", "Content-Type: application/json"],
        r#"{"rev":0,"index":0}"#,
    );
    assert_eq!(status, 403);
    let (_, state) = request(p, "GET", &t, &[], "");
    assert!(state.contains("\"length\":0"), "{}", &state[..200]);
    // Not JSON: refused (a form cannot post to the API).
    let (status, _) = request(p, "POST", &format!("/api/step?token={}", s.token), &["Content-Type: text/plain"], "x");
    assert_eq!(status, 415);
    assert_eq!(request(p, "GET", &format!("/../../etc/passwd?token={}", s.token), &[], "").0, 404);
    assert_eq!(request(p, "DELETE", &t, &[], "").0, 405);
}

/// The listening socket of `port` as the kernel lists it (`/proc/net/tcp`, state 0A), and the
/// machine's IPv4 addresses other than the loopback ones.
fn listeners_and_addresses(port: u16) -> (Vec<String>, Vec<std::net::Ipv4Addr>) {
    let table = std::fs::read_to_string("/proc/net/tcp").unwrap();
    let listening: Vec<String> = table
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let (addr, p) = f.get(1)?.split_once(':')?;
            (u16::from_str_radix(p, 16).ok()? == port && f.get(3) == Some(&"0A")).then(|| addr.to_string())
        })
        .collect();
    let routes = std::fs::read_to_string("/proc/net/fib_trie").unwrap_or_default();
    let mut own = vec![];
    let mut last: Option<std::net::Ipv4Addr> = None;
    for l in routes.lines() {
        if let Some(a) = l.trim().strip_prefix("|-- ") {
            last = a.parse().ok();
        } else if l.contains("/32 host LOCAL")
            && let Some(a) = last
            && !a.is_loopback()
            && !own.contains(&a)
        {
            own.push(a);
        }
    }
    (listening, own)
}

/// Bound to 127.0.0.1 only: the kernel lists one listener on the port, at 0100007F (127.0.0.1
/// in the table's byte order), and connecting to any other address of the machine is refused.
#[test]
fn it_listens_on_the_loopback_address_only() {
    let spec = fixtures::bench("flock.labs");
    let s = start(&flock_args(&[], &spec));
    let (listening, own) = listeners_and_addresses(s.port);
    assert_eq!(listening, ["0100007F"], "the listening sockets of port {}", s.port);
    for a in own {
        let e = TcpStream::connect_timeout(&(a, s.port).into(), Duration::from_secs(5));
        assert!(e.is_err(), "{a}:{} accepted a connection", s.port);
    }
    assert_eq!(request(s.port, "GET", &format!("/api/state?token={}", s.token), &[], "").0, 200);
}

#[test]
fn the_server_reads_only_the_file_named_on_its_command_line() {
    let dir = Scratch::path("explore", "files");
    std::fs::create_dir_all(&*dir).unwrap();
    let cex = flock_counterexample(&dir);
    let other = dir.join("other.json");
    std::fs::copy(&cex, &other).unwrap();
    let spec = fixtures::bench("flock.labs");
    let s = start(&flock_args(&["--trace", &cex], &spec));
    let p = s.port;
    let load = format!("/api/load?token={}", s.token);
    let json = ["Content-Type: application/json"];
    for f in
        [other.display().to_string(), "/etc/passwd".to_string(), format!("{}/../other.json", dir.join("x").display())]
    {
        let (status, body) = request(p, "POST", &load, &json, &format!(r#"{{"file":{}}}"#, serde_json::json!(f)));
        assert_eq!(status, 403, "{f}: {body}");
        assert!(body.contains("not named on the command line"), "{body}");
    }
    let (status, body) = request(p, "POST", &load, &json, &format!(r#"{{"file":{}}}"#, serde_json::json!(cex)));
    assert_eq!(status, 200, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["length"], 17);
    assert_eq!(v["loop_start"], 7);
}

#[test]
fn ctrl_c_and_sigterm_end_it_with_exit_0() {
    let spec = fixtures::bench("flock.labs");
    for signal in [libc::SIGINT, libc::SIGTERM] {
        let mut s = start(&flock_args(&[], &spec));
        assert_eq!(request(s.port, "GET", &format!("/api/state?token={}", s.token), &[], "").0, 200);
        assert_eq!(s.stop(signal), Some(0), "signal {signal}");
    }
}

/// Connections that send nothing (as a browser's speculative ones) hold up no other request,
/// and Ctrl-C ends the server while they are open. The server waits 10 s for a request, so a
/// server that read them one at a time would answer after 10 s, past the 5 s allowed here.
#[test]
fn idle_connections_hold_up_no_request_nor_ctrl_c() {
    let spec = fixtures::bench("flock.labs");
    let mut s = start(&flock_args(&[], &spec));
    let idle: Vec<TcpStream> = (0..3).map(|_| TcpStream::connect(("127.0.0.1", s.port)).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(200));
    let mut c = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    write!(c, "GET /api/state?token={} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n", s.token, s.port).unwrap();
    let mut resp = String::new();
    c.read_to_string(&mut resp).expect("an answer while idle connections are open");
    assert!(resp.starts_with("HTTP/1.1 200 OK"), "{}", &resp[..resp.len().min(200)]);
    assert_eq!(s.stop(libc::SIGINT), Some(0));
    drop(idle);
}

#[test]
fn the_export_is_replayed_by_translate_trace() {
    let dir = Scratch::path("explore", "export");
    std::fs::create_dir_all(&*dir).unwrap();
    let cex = flock_counterexample(&dir);
    let spec = fixtures::bench("flock.labs");
    let s = start(&flock_args(&["--trace", &cex], &spec));
    let (status, body) = request(s.port, "GET", &format!("/api/export/trace.json?token={}", s.token), &[], "");
    assert_eq!(status, 200);
    let exported = dir.join("exported.json");
    std::fs::write(&exported, body).unwrap();
    let mut args = vec!["translate-trace", spec.as_str()];
    args.extend(FLOCK);
    let f = exported.display().to_string();
    args.extend([f.as_str(), "--property", "ConsensusKept"]);
    let o = fixtures::labs(&args);
    assert_eq!(o.status.code(), Some(0), "{}", fixtures::stderr(&o));
    let out = fixtures::stdout(&o);
    assert!(out.starts_with("a JSON trace (trace) → a LAbS trace of 17 steps, a lasso"), "{out}");
    assert!(out.contains("the trace violates ConsensusKept (ltl) at state 17"), "{out}");
    // The same through the report's page.
    let (status, page) = request(s.port, "GET", &format!("/api/export/report.html?token={}", s.token), &[], "");
    assert_eq!(status, 200);
    assert!(page.contains("ConsensusKept violated by the loop"), "the lasso's mark");
}

#[test]
fn bad_command_lines_get_their_exit_codes() {
    let dir = Scratch::path("explore", "bad");
    std::fs::create_dir_all(&*dir).unwrap();
    let cex = flock_counterexample(&dir);
    let spec = fixtures::bench("flock.labs");
    let garbage = dir.join("garbage.json");
    std::fs::write(&garbage, "{\"nothing\": 1}").unwrap();
    let g = garbage.display().to_string();
    let missing = dir.join("missing.json").display().to_string();
    let nowhere = dir.join("missing.labs").display().to_string();
    let broken = dir.join("broken.labs");
    std::fs::write(&broken, "system { garbage").unwrap();
    let broken = broken.display().to_string();
    let run = |args: Vec<&str>| {
        let mut all = vec!["explore"];
        all.extend(args);
        fixtures::labs(&all)
    };
    let cases: Vec<(Vec<&str>, i32, &str)> = vec![
        (flock_args(&["--trace", &missing], &spec), 2, "cannot read"),
        (flock_args(&["--trace", &g], &spec), 2, "no trace in this document"),
        (flock_args(&["--view", "x,zz"], &spec), 2, "no agent has a scalar variable `zz`"),
        (flock_args(&["--view", "x"], &spec), 2, "two variables"),
        (flock_args(&["--trace", &cex, "--fair"], &spec), 1, "without --fair"),
        (vec![&spec, "birds=3", "grid=4", "delta=5", "--trace", &cex], 1, "_grid=5"),
        (vec![&spec, "birds=3"], 2, "no value given"),
        (vec![&nowhere, "birds=3"], 2, "cannot read"),
        (vec![&broken], 6, "expected `spawn = …`"),
        (flock_args(&["--port", "0"], &spec), 2, "0 is not in 1..=65535"),
    ];
    for (args, code, says) in cases {
        let o = run(args.clone());
        assert_eq!(o.status.code(), Some(code), "{args:?}: {}", fixtures::stderr(&o));
        assert!(fixtures::stderr(&o).contains(says), "{args:?}: {}", fixtures::stderr(&o));
    }
    // A port in use is a usage error.
    let busy = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let port = busy.local_addr().unwrap().port().to_string();
    let o = run(flock_args(&["--port", &port], &spec));
    assert_eq!(o.status.code(), Some(2), "{}", fixtures::stderr(&o));
    assert!(fixtures::stderr(&o).contains("cannot listen on 127.0.0.1"), "{}", fixtures::stderr(&o));
    drop(busy);
    // `--port N` listens there.
    let free = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let port = free.local_addr().unwrap().port();
    drop(free);
    let p = port.to_string();
    let s = start(&flock_args(&["--port", &p], &spec));
    assert_eq!(s.port, port);
}

/// The grid: chosen by a `# labs: view` comment, overridden by `--view`, absent without
/// position variables; its extent from the value analysis (here derived by hand: `px` steps
/// through 0, 1, 2 modulo 3; `py` stays 1); a comment naming an unknown variable is refused.
#[test]
fn the_grid_follows_the_view_comment_and_option() {
    let dir = Scratch::path("explore", "grid");
    std::fs::create_dir_all(&*dir).unwrap();
    let spec = |pragma: &str| {
        format!(
            "# labs: view {pragma}\nsystem {{ spawn = A: 2 }}\n\
             agent A {{ interface = px: 0..3; py: 1\n Behavior = px <- (px + 1) % 3; Behavior }}\n\
             check {{ P = always forall A a, px of a < 3 }}\n"
        )
    };
    let good = dir.join("grid.labs");
    std::fs::write(&good, spec("px, py")).unwrap();
    let good = good.display().to_string();
    let view = |args: &[&str]| {
        let s = start(args);
        let (status, body) = request(s.port, "GET", &format!("/api/state?token={}", s.token), &[], "");
        assert_eq!(status, 200, "{body}");
        serde_json::from_str::<serde_json::Value>(&body).unwrap()["view"].clone()
    };
    let v = view(&[&good]);
    assert_eq!((v["x"].as_str(), v["y"].as_str()), (Some("px"), Some("py")), "{v}");
    assert_eq!((v["x_range"].clone(), v["y_range"].clone()), (serde_json::json!([0, 2]), serde_json::json!([1, 1])));
    assert!(v["chosen_by"].as_str().unwrap().contains("comment"), "{v}");
    let v = view(&[&good, "--view", "py,px"]);
    assert_eq!((v["x"].as_str(), v["y"].as_str(), v["chosen_by"].as_str()), (Some("py"), Some("px"), Some("--view")));
    let leader = fixtures::path_str("examples/leader.labs");
    assert!(view(&[&leader, "n=2"]).is_null(), "no position variables, no grid");
    let bad = dir.join("bad.labs");
    std::fs::write(&bad, spec("px, pz")).unwrap();
    let o = fixtures::labs(&["explore", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", fixtures::stderr(&o));
    assert!(fixtures::stderr(&o).contains("no agent has a scalar variable `pz`"), "{}", fixtures::stderr(&o));
}
