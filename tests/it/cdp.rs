//! A minimal client of Chrome's DevTools protocol over `--remote-debugging-pipe`: headless
//! Chromium reads JSON commands on its file descriptor 3 and writes answers and events on 4,
//! each message ended by a NUL byte. Enough to open a page, run scripts in it (clicks, reading
//! the DOM) and take screenshots.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub struct Browser {
    child: Child,
    to: std::io::PipeWriter,
    from: BufReader<std::io::PipeReader>,
    next: u64,
    session: String,
    /// Uncaught exceptions and console errors seen so far.
    pub errors: Vec<String>,
    done: Arc<AtomicBool>,
}

impl Drop for Browser {
    fn drop(&mut self) {
        self.done.store(true, Ordering::SeqCst);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Browser {
    /// Headless Chromium with a fresh profile in `profile`, nothing that reaches the network,
    /// and a page of `width` × `height` attached; killed after `limit` whatever happens.
    pub fn start(bin: &Path, profile: &Path, width: u32, height: u32, limit: Duration) -> Browser {
        let (child_reads, to) = std::io::pipe().expect("pipe");
        let (from, child_writes) = std::io::pipe().expect("pipe");
        // The child's ends, moved above 4 so that placing them at 3 and 4 cannot overwrite one
        // with the other.
        let high = |fd: i32| -> OwnedFd {
            // SAFETY: fcntl(2) duplicates an open descriptor; the new one is owned here alone.
            let n = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 10) };
            assert!(n >= 10, "fcntl: {}", std::io::Error::last_os_error());
            // SAFETY: `n` is a fresh descriptor that nothing else owns.
            unsafe { OwnedFd::from_raw_fd(n) }
        };
        let (child_reads, child_writes) = (high(child_reads.as_raw_fd()), high(child_writes.as_raw_fd()));
        let (r, w) = (child_reads.as_raw_fd(), child_writes.as_raw_fd());
        let mut cmd = Command::new(bin);
        cmd.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--remote-debugging-pipe",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
        // SAFETY: between fork and exec the closure only calls dup2, which is
        // async-signal-safe, on descriptors that are open in the child (their originals are).
        unsafe {
            cmd.pre_exec(move || {
                if libc::dup2(r, 3) < 0 || libc::dup2(w, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().expect("start chromium");
        drop(child_reads);
        drop(child_writes);
        let done = Arc::new(AtomicBool::new(false));
        let (pid, stop) = (child.id() as i32, done.clone());
        std::thread::spawn(move || {
            let t = Instant::now();
            while t.elapsed() < limit {
                if stop.load(Ordering::SeqCst) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            // SAFETY: kill(2) on the browser this test started; it may have ended already.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        });
        let mut b =
            Browser { child, to, from: BufReader::new(from), next: 0, session: String::new(), errors: vec![], done };
        let target = b.command(None, "Target.createTarget", json!({"url": "about:blank"}));
        let id = target["targetId"].as_str().expect("a target").to_string();
        let attached = b.command(None, "Target.attachToTarget", json!({"targetId": id, "flatten": true}));
        b.session = attached["sessionId"].as_str().expect("a session").to_string();
        b.send("Page.enable", json!({}));
        b.send("Runtime.enable", json!({}));
        b.send(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}),
        );
        b
    }

    /// Sends a command to the page's session and returns its result.
    pub fn send(&mut self, method: &str, params: Value) -> Value {
        let s = self.session.clone();
        self.command(Some(&s), method, params)
    }

    fn command(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        let mut bytes = msg.to_string().into_bytes();
        bytes.push(0);
        self.to.write_all(&bytes).expect("write to chromium");
        loop {
            let mut buf = vec![];
            let n = self.from.read_until(0, &mut buf).expect("read from chromium");
            assert!(n > 0, "chromium closed its pipe (ended, or killed at the time limit) during {method}");
            buf.pop();
            let v: Value = serde_json::from_slice(&buf).expect("a JSON message");
            match v["method"].as_str() {
                Some("Runtime.exceptionThrown") => self.errors.push(v["params"]["exceptionDetails"].to_string()),
                Some("Runtime.consoleAPICalled") if v["params"]["type"] == "error" => {
                    self.errors.push(v["params"]["args"].to_string())
                }
                _ => {}
            }
            if v["id"] == id {
                assert!(v.get("error").is_none(), "{method}: {}", v["error"]);
                return v["result"].clone();
            }
        }
    }

    pub fn navigate(&mut self, url: &str) {
        self.send("Page.navigate", json!({"url": url}));
    }

    /// The value of a script's last expression (awaited if it is a promise).
    pub fn eval(&mut self, script: &str) -> Value {
        let r =
            self.send("Runtime.evaluate", json!({"expression": script, "awaitPromise": true, "returnByValue": true}));
        assert!(r.get("exceptionDetails").is_none(), "{script}: {}", r["exceptionDetails"]);
        r["result"]["value"].clone()
    }

    /// Waits until `script` is true (at most `secs` seconds).
    pub fn wait_for(&mut self, script: &str, secs: u64) {
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(secs) {
            if self.eval(script) == json!(true) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("not true within {secs} s: {script}");
    }

    /// A PNG of the viewport.
    pub fn screenshot(&mut self) -> Vec<u8> {
        let r = self.send("Page.captureScreenshot", json!({"format": "png"}));
        base64(r["data"].as_str().expect("screenshot data"))
    }
}

/// Decodes standard base64 (with padding).
fn base64(s: &str) -> Vec<u8> {
    let val = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a') as u32 + 26,
            b'0'..=b'9' => (c - b'0') as u32 + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let bytes: Vec<u8> = s.bytes().filter(|&c| c != b'=' && !c.is_ascii_whitespace()).collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= val(c) << (18 - 6 * i);
        }
        out.push((n >> 16) as u8);
        if chunk.len() > 2 {
            out.push((n >> 8) as u8);
        }
        if chunk.len() > 3 {
            out.push(n as u8);
        }
    }
    out
}

#[test]
fn base64_decodes_known_values() {
    assert_eq!(base64("TWFu"), b"Man");
    assert_eq!(base64("TWE="), b"Ma");
    assert_eq!(base64("TQ=="), b"M");
}
