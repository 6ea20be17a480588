//! Helpers of the bridge's integration tests (`tests/bridge_*.rs`): a real
//! `sendledger serve` child process, a blocking HTTP client of either token scope, a test
//! extension that speaks the extension routes, raw HTTP for requests a well-behaved client
//! never sends, a server-sent-events reader, the CLI as a child process, and a dump of
//! every ledger table (to prove a refusal wrote nothing).
//!
//! Nothing here sleeps to wait for an event: every wait is on a line, an HTTP answer or
//! an event, with a bound ([`BOUND`]) that only matters when something is broken.
#![allow(dead_code)] // each test binary uses its own subset

#[path = "dump.rs"]
mod dump_rows;
#[path = "kill.rs"]
mod kill_child;

pub use dump_rows::{dump_connection, Dump};
pub use kill_child::{os, sigkill_and_reap};

use rusqlite::{Connection, OpenFlags};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// Bound on any single wait (a line, an answer, an event, an exit).
pub const BOUND: Duration = Duration::from_secs(30);

/// The test extension's origin: `chrome-extension://` and 32 lowercase letters.
pub const EXTENSION_ORIGIN: &str = "chrome-extension://abcdefghijklmnopabcdefghijklmnop";

/// The `sendledger` binary under test.
pub fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_sendledger")
}

/// A fresh profile directory (0700) inside a temporary directory.
pub fn profile_dir() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let dir = tmp.path().join("profile");
    std::fs::create_dir(&dir).expect("the profile directory");
    os::make_private_dir(&dir);
    (tmp, dir)
}

/// A running `sendledger serve --profile DIR --port 0` child process.
pub struct Serve {
    child: Option<Child>,
    lines: mpsc::Receiver<String>,
    stderr: Arc<Mutex<String>>,
    /// The port it printed (`port N`).
    pub port: u16,
    /// Its profile directory.
    pub profile: PathBuf,
}

/// A serve process that exited before it was ready: its exit status and stderr.
#[derive(Debug)]
pub struct ServeFailed {
    pub status: ExitStatus,
    pub stderr: String,
}

impl Serve {
    /// Starts serve on `profile` with `--port 0` and `extra` arguments; waits for `port N`.
    pub fn start(profile: &Path, extra: &[&str]) -> Serve {
        let mut args = vec!["--port", "0"];
        args.extend_from_slice(extra);
        Self::try_start(profile, &args).unwrap_or_else(|f| {
            panic!(
                "serve exited before it was ready ({}): {}",
                f.status, f.stderr
            )
        })
    }

    /// Starts serve with exactly `args` after `serve`; `Err` when it exits before printing
    /// its port.
    pub fn try_start(profile: &Path, args: &[&str]) -> Result<Serve, ServeFailed> {
        Self::try_start_limited(profile, args, None, &[])
    }

    /// Starts serve on `profile` with `--port 0` and `env` set in its environment.
    pub fn start_with_env(profile: &Path, env: &[(&str, &str)]) -> Serve {
        Self::try_start_limited(profile, &["--port", "0"], None, env).unwrap_or_else(|f| {
            panic!(
                "serve exited before it was ready ({}): {}",
                f.status, f.stderr
            )
        })
    }

    /// Starts serve on `profile` with `--port 0`, `extra` arguments and `env` set in its
    /// environment.
    pub fn start_with_args_and_env(profile: &Path, extra: &[&str], env: &[(&str, &str)]) -> Serve {
        let mut args = vec!["--port", "0"];
        args.extend_from_slice(extra);
        Self::try_start_limited(profile, &args, None, env).unwrap_or_else(|f| {
            panic!(
                "serve exited before it was ready ({}): {}",
                f.status, f.stderr
            )
        })
    }

    /// Starts serve on `profile` with `--port 0`, its open-file limit set to
    /// `(soft, hard)` before it runs (`setrlimit` in the child, as a shell's `ulimit -n`).
    pub fn start_with_open_files(profile: &Path, soft: u64, hard: u64) -> Serve {
        Self::try_start_limited(profile, &["--port", "0"], Some((soft, hard)), &[]).unwrap_or_else(
            |f| {
                panic!(
                    "serve exited before it was ready ({}): {}",
                    f.status, f.stderr
                )
            },
        )
    }

    pub fn try_start_limited(
        profile: &Path,
        args: &[&str],
        open_files: Option<(u64, u64)>,
        env: &[(&str, &str)],
    ) -> Result<Serve, ServeFailed> {
        let mut command = Command::new(binary());
        command.envs(env.iter().copied());
        command
            .arg("--profile")
            .arg(profile)
            .arg("serve")
            .args(args)
            .env("SENDLEDGER_LOG", "trace")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some((soft, hard)) = open_files {
            os::limit_open_files(&mut command, soft, hard);
        }
        let mut child = command.spawn().expect("sendledger serve starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr_pipe = child.stderr.take().expect("piped stderr");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        let (stderr_closed, stderr_drained) = mpsc::channel::<()>();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stderr_pipe);
            let mut line = String::new();
            while r.read_line(&mut line).map(|n| n > 0).unwrap_or(false) {
                sink.lock().unwrap().push_str(&line);
                line.clear();
            }
            let _ = stderr_closed.send(());
        });
        let mut serve = Serve {
            child: Some(child),
            lines,
            stderr,
            port: 0,
            profile: profile.to_path_buf(),
        };
        loop {
            match serve.lines.recv_timeout(BOUND) {
                Ok(line) => {
                    if let Some(p) = line.strip_prefix("port ") {
                        serve.port = p.trim().parse().expect("`port N` names a number");
                        return Ok(serve);
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let status = serve.wait_exit();
                    // Everything it wrote to stderr is read before it is reported.
                    let _ = stderr_drained.recv_timeout(BOUND);
                    return Err(ServeFailed {
                        status,
                        stderr: serve.stderr(),
                    });
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    panic!("serve printed no port within {BOUND:?}: {}", serve.stderr())
                }
            }
        }
    }

    /// `127.0.0.1:PORT`.
    pub fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// What serve wrote to stderr so far (its log).
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("running").id()
    }

    /// The client token serve wrote to the profile.
    pub fn client_token(&self) -> String {
        std::fs::read_to_string(self.profile.join("client.token"))
            .expect("serve wrote client.token")
            .trim()
            .to_string()
    }

    /// A client-scope HTTP client.
    pub fn client(&self) -> Http {
        Http::new(self.port, Some(self.client_token()), None)
    }

    /// Pairs a test extension (pairing code through the client scope, then `/v1/pair`).
    pub fn pair(&self) -> Extension {
        let code = self.client().post("/v1/pairing-code", &json!({}));
        assert_eq!(code.status, 200, "a pairing code is issued: {}", code.body);
        let anonymous = Http::new(self.port, None, Some(EXTENSION_ORIGIN.into()));
        let paired = anonymous.post("/v1/pair", &json!({ "code": code.body["code"] }));
        assert_eq!(paired.status, 200, "the code pairs: {}", paired.body);
        let token = paired.body["token"].as_str().expect("a token").to_string();
        Extension {
            http: Http::new(self.port, Some(token), Some(EXTENSION_ORIGIN.into())),
        }
    }

    /// The extension paired earlier (its token), against this serve's port.
    pub fn extension(&self, earlier: &Extension) -> Extension {
        Extension {
            http: Http::new(
                self.port,
                earlier.http.token.clone(),
                Some(EXTENSION_ORIGIN.into()),
            ),
        }
    }

    /// SIGKILLs serve and reaps it.
    pub fn kill(mut self) {
        let mut child = self.child.take().expect("running");
        sigkill_and_reap(&mut child, "serve");
    }

    /// Sends SIGTERM (the process keeps running until [`Self::wait_exit`]).
    pub fn terminate(&self) {
        self.signal(os::SIGTERM);
    }

    /// Sends `signal` to serve.
    pub fn signal(&self, signal: i32) {
        os::signal(self.pid(), signal);
    }

    /// Waits (bounded) for serve to exit; returns its status.
    pub fn wait_exit(&mut self) -> ExitStatus {
        let child = self.child.as_mut().expect("running");
        let deadline = Instant::now() + BOUND;
        loop {
            if let Some(status) = child.try_wait().expect("waitpid") {
                self.child = None;
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "serve did not exit within {BOUND:?}"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// An HTTP answer: status and JSON body (`Null` when the body was not JSON).
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub body: Value,
}

impl Answer {
    /// The error code of a refusal.
    pub fn code(&self) -> &str {
        self.body["code"].as_str().unwrap_or("")
    }

    /// Asserts a refusal with `status` and `code` (the body is shown when not).
    pub fn assert_refused(&self, status: u16, code: &str) {
        assert_eq!((self.status, self.code()), (status, code), "{}", self.body);
    }
}

/// A blocking client of the bridge, with an optional bearer token and Origin.
#[derive(Clone)]
pub struct Http {
    base: String,
    token: Option<String>,
    origin: Option<String>,
    agent: ureq::Agent,
}

impl Http {
    /// A client of `127.0.0.1:port`.
    pub fn new(port: u16, token: Option<String>, origin: Option<String>) -> Self {
        Self {
            base: format!("http://127.0.0.1:{port}"),
            token,
            origin,
            agent: ureq::AgentBuilder::new().timeout(BOUND).build(),
        }
    }

    /// The same client with its own connection pool.
    pub fn fresh(&self) -> Http {
        Http::new(
            self.base.rsplit(':').next().unwrap().parse().unwrap(),
            self.token.clone(),
            self.origin.clone(),
        )
    }

    fn request(&self, method: &str, path: &str) -> ureq::Request {
        let mut r = self.agent.request(method, &format!("{}{path}", self.base));
        if let Some(t) = &self.token {
            r = r.set("Authorization", &format!("Bearer {t}"));
        }
        if let Some(o) = &self.origin {
            r = r.set("Origin", o);
        }
        r
    }

    fn answer(r: Result<ureq::Response, ureq::Error>) -> Answer {
        let resp = match r {
            Ok(resp) => resp,
            Err(ureq::Error::Status(_, resp)) => resp,
            Err(e) => panic!("the bridge could not be reached: {e}"),
        };
        let status = resp.status();
        let text = resp.into_string().expect("a readable body");
        Answer {
            status,
            body: serde_json::from_str(&text).unwrap_or(Value::Null),
        }
    }

    /// `GET path`.
    pub fn get(&self, path: &str) -> Answer {
        Self::answer(self.request("GET", path).call())
    }

    /// `POST path` with a JSON body.
    pub fn post(&self, path: &str, body: &Value) -> Answer {
        Self::answer(self.request("POST", path).send_json(body))
    }

    /// `POST /v1/attachments?name=NAME` with the raw `bytes` (and `mime` as content-type).
    #[allow(dead_code)]
    pub fn upload(&self, name: &str, mime: Option<&str>, bytes: &[u8]) -> Answer {
        let mut r = self.request("POST", &format!("/v1/attachments?name={name}"));
        if let Some(m) = mime {
            r = r.set("Content-Type", m);
        }
        Self::answer(r.send_bytes(bytes))
    }

    /// `POST path` with the raw `bytes` (and `mime` as content-type).
    #[allow(dead_code)]
    pub fn post_bytes(&self, path: &str, mime: Option<&str>, bytes: &[u8]) -> Answer {
        let mut r = self.request("POST", path);
        if let Some(m) = mime {
            r = r.set("Content-Type", m);
        }
        Self::answer(r.send_bytes(bytes))
    }

    /// `GET path`, the raw answer: status, headers asked for, bytes.
    #[allow(dead_code)]
    pub fn get_with_headers(&self, path: &str, names: &[&str]) -> (u16, Vec<String>, Vec<u8>) {
        let resp = match self.request("GET", path).call() {
            Ok(resp) => resp,
            Err(ureq::Error::Status(_, resp)) => resp,
            Err(e) => panic!("the bridge could not be reached: {e}"),
        };
        let status = resp.status();
        let headers = names
            .iter()
            .map(|n| resp.header(n).unwrap_or_default().to_string())
            .collect();
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut resp.into_reader().take(64 << 20), &mut bytes)
            .expect("a readable body");
        (status, headers, bytes)
    }

    /// `GET path`, the raw answer: status, content-type, bytes.
    #[allow(dead_code)]
    pub fn get_bytes(&self, path: &str) -> (u16, String, Vec<u8>) {
        let resp = match self.request("GET", path).call() {
            Ok(resp) => resp,
            Err(ureq::Error::Status(_, resp)) => resp,
            Err(e) => panic!("the bridge could not be reached: {e}"),
        };
        let (status, mime) = (resp.status(), resp.content_type().to_string());
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut resp.into_reader().take(64 << 20), &mut bytes)
            .expect("a readable body");
        (status, mime, bytes)
    }

    /// `PUT path` with a JSON body.
    pub fn put(&self, path: &str, body: &Value) -> Answer {
        Self::answer(self.request("PUT", path).send_json(body))
    }

    /// `POST /v1/sends`; panics unless it was queued (201) or already was (200).
    pub fn queue(&self, op_id: &str, text: &str) -> Value {
        let a = self.post("/v1/sends", &json!({ "op_id": op_id, "text": text }));
        assert!(
            a.status == 201 || a.status == 200,
            "queue {op_id}: {} {}",
            a.status,
            a.body
        );
        a.body["send"].clone()
    }

    /// `GET /v1/sends/{op}`: `{send, timeline}`.
    pub fn show(&self, op_id: &str) -> Value {
        let a = self.get(&format!("/v1/sends/{op_id}"));
        assert_eq!(a.status, 200, "show {op_id}: {}", a.body);
        a.body
    }

    /// The state of `op_id`.
    pub fn state(&self, op_id: &str) -> String {
        self.show(op_id)["send"]["state"]
            .as_str()
            .expect("a state")
            .to_string()
    }

    /// A server-sent-events stream of `GET /v1/events` (`after` = `?after=ID`).
    pub fn events(&self, after: Option<i64>) -> EventStream {
        self.events_resuming(after, None)
    }

    /// A server-sent-events stream, resuming after `?after=ID` and/or `Last-Event-ID`.
    pub fn events_resuming(&self, after: Option<i64>, last_event_id: Option<i64>) -> EventStream {
        let path = match after {
            Some(id) => format!("/v1/events?after={id}"),
            None => "/v1/events".to_string(),
        };
        let agent = ureq::AgentBuilder::new()
            .timeout_connect(BOUND)
            .timeout_read(BOUND)
            .build();
        let mut r = agent.get(&format!("{}{path}", self.base));
        if let Some(t) = &self.token {
            r = r.set("Authorization", &format!("Bearer {t}"));
        }
        if let Some(id) = last_event_id {
            r = r.set("Last-Event-ID", &id.to_string());
        }
        let resp = r.call().expect("the event stream opens");
        assert_eq!(
            resp.header("content-type"),
            Some("text/event-stream"),
            "server-sent events"
        );
        EventStream {
            reader: BufReader::new(resp.into_reader()),
        }
    }
}

/// One server-sent event.
#[derive(Debug, Clone)]
pub struct SseEvent {
    pub event: String,
    pub id: String,
    pub data: Value,
}

/// A reader of `GET /v1/events` (every read bounded by [`BOUND`]).
pub struct EventStream {
    reader: BufReader<Box<dyn Read + Send + Sync + 'static>>,
}

impl EventStream {
    /// The next event (keep-alive comments skipped). Panics past the bound.
    pub fn next_event(&mut self) -> SseEvent {
        let (mut event, mut id, mut data) = (String::new(), String::new(), String::new());
        // Keep-alive comments arrive every 15 s, so each read returns; this bounds the whole.
        let deadline = Instant::now() + BOUND;
        loop {
            assert!(Instant::now() < deadline, "no event within {BOUND:?}");
            let mut line = String::new();
            let n = self
                .reader
                .read_line(&mut line)
                .expect("the event stream yields a line within the bound");
            assert!(n > 0, "the event stream ended");
            let line = line.trim_end_matches(['\r', '\n']);
            if line.is_empty() {
                if !data.is_empty() {
                    return SseEvent {
                        event,
                        id,
                        data: serde_json::from_str(&data).expect("event data is JSON"),
                    };
                }
                continue;
            }
            if let Some(v) = line.strip_prefix("event:") {
                event = v.trim().to_string();
            } else if let Some(v) = line.strip_prefix("id:") {
                id = v.trim().to_string();
            } else if let Some(v) = line.strip_prefix("data:") {
                data.push_str(v.trim_start());
            }
        }
    }

    /// Reads to the end of the stream: `true` when it ended cleanly (the server closed
    /// it), `false` when it was cut (a transport error).
    pub fn ended_cleanly(&mut self) -> bool {
        let deadline = Instant::now() + BOUND;
        loop {
            assert!(
                Instant::now() < deadline,
                "the stream did not end within {BOUND:?}"
            );
            let mut line = String::new();
            match self.reader.read_line(&mut line) {
                Ok(0) => return true,
                Ok(_) => {}
                Err(_) => return false,
            }
        }
    }

    /// Reads events until one about `op_id` reaches state `to`; returns it.
    pub fn wait_for(&mut self, op_id: &str, to: &str) -> Value {
        let deadline = Instant::now() + BOUND;
        loop {
            assert!(
                Instant::now() < deadline,
                "{op_id} did not reach {to} within {BOUND:?}"
            );
            let e = self.next_event();
            if e.data["op_id"] == op_id && e.data["to"] == to {
                return e.data;
            }
        }
    }
}

/// The test extension: the extension routes with its token and origin.
#[derive(Clone)]
pub struct Extension {
    pub http: Http,
}

impl Extension {
    /// Its bearer token.
    pub fn http_token(&self) -> Option<String> {
        self.http.token.clone()
    }

    /// The same extension with its own connection pool (its own keep-alive connection).
    pub fn fresh(&self) -> Extension {
        Extension {
            http: self.http.fresh(),
        }
    }

    /// `POST /v1/ext/lease` for `tab`; returns the lease id.
    pub fn lease(&self, tab: &str) -> String {
        let a = self.http.post("/v1/ext/lease", &json!({ "tab_id": tab }));
        assert_eq!(a.status, 200, "lease {tab}: {}", a.body);
        a.body["lease_id"].as_str().expect("a lease id").to_string()
    }

    /// `POST /v1/ext/next`; the send handed out, or `None` when none came within `wait_ms`.
    pub fn next(&self, lease: &str, wait_ms: u64) -> Option<Value> {
        let a = self.next_answer(lease, wait_ms);
        assert_eq!(a.status, 200, "next: {}", a.body);
        let send = a.body["send"].clone();
        (!send.is_null()).then_some(send)
    }

    /// `POST /v1/ext/next`, the raw answer.
    pub fn next_answer(&self, lease: &str, wait_ms: u64) -> Answer {
        self.http.post(
            "/v1/ext/next",
            &json!({ "lease_id": lease, "wait_ms": wait_ms }),
        )
    }

    /// `POST /v1/ext/dispatch`, the raw answer.
    pub fn dispatch(&self, lease: &str, op_id: &str) -> Answer {
        self.http.post(
            "/v1/ext/dispatch",
            &json!({ "lease_id": lease, "op_id": op_id }),
        )
    }

    /// `POST /v1/ext/fail` at `stage` (`before_dispatch` | `after_dispatch`).
    pub fn fail(&self, lease: &str, op_id: &str, stage: &str, reason: &str) -> Answer {
        self.http.post(
            "/v1/ext/fail",
            &json!({ "lease_id": lease, "op_id": op_id, "stage": stage, "reason": reason }),
        )
    }

    /// `POST /v1/ext/observations`, the raw answer.
    pub fn observe(&self, observation: &Value) -> Answer {
        self.http.post("/v1/ext/observations", observation)
    }
}

/// Runs the CLI (`sendledger --profile DIR ARGS…`) to completion.
pub fn cli(profile: &Path, args: &[&str]) -> Output {
    Command::new(binary())
        .arg("--profile")
        .arg(profile)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the CLI runs")
}

/// Runs the CLI with `--json`; returns (exit code, the JSON it printed).
pub fn cli_json(profile: &Path, args: &[&str]) -> (i32, Value) {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = cli(profile, &all);
    let text = String::from_utf8_lossy(&out.stdout);
    let v = serde_json::from_str(text.trim()).unwrap_or_else(|_| {
        panic!(
            "the CLI printed JSON; stdout {text:?}, stderr {:?}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), v)
}

/// A raw HTTP/1.1 exchange: writes `head` (request line and headers, CRLF-separated,
/// without the final blank line; `Content-Length` and `Connection: close` are added) and
/// `body`, reads the answer to the end. Returns (status, JSON body or `Null`, body text).
pub fn raw(port: u16, head: &str, body: &[u8]) -> (u16, Value, String) {
    let (status, _, json, body_text) = raw_with_head(port, head, body);
    (status, json, body_text)
}

/// [`raw`], with the answer's header lines too: (status, headers, JSON body, body text).
pub fn raw_with_head(port: u16, head: &str, body: &[u8]) -> (u16, String, Value, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect to the bridge");
    s.set_read_timeout(Some(BOUND)).expect("read timeout");
    s.set_write_timeout(Some(BOUND)).expect("write timeout");
    let request = format!(
        "{head}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    // The bridge may answer (413) before reading the whole body: a failed write is
    // fine as long as the answer arrives.
    let _ = s
        .write_all(request.as_bytes())
        .and_then(|_| s.write_all(body));
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).to_string();
    let (headers, body_text) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("an HTTP answer, got {text:?}"));
    let status: u16 = headers
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("a status line, got {headers:?}"));
    let json = serde_json::from_str(body_text).unwrap_or(Value::Null);
    (status, headers.to_string(), json, body_text.to_string())
}

/// The profile's ledger file.
pub fn ledger_file(profile: &Path) -> PathBuf {
    profile.join(sendledger::profile::LEDGER_FILE)
}

/// Opens the ledger read-only (works while serve owns it).
pub fn read_only(profile: &Path) -> Connection {
    let c = Connection::open_with_flags(
        ledger_file(profile),
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .expect("the ledger opens read-only");
    c.busy_timeout(BOUND).expect("busy timeout");
    c
}

/// A dump of every table of the profile's ledger.
pub fn dump(profile: &Path) -> Dump {
    dump_connection(&read_only(profile))
}

/// (from, to, actor) of every event of `op_id`, oldest first, from the ledger file.
pub fn events_of(profile: &Path, op_id: &str) -> Vec<(Option<String>, String, String)> {
    let conn = read_only(profile);
    let mut stmt = conn
        .prepare(
            "SELECT from_state, to_state, actor FROM events WHERE op_id = ?1 \
             AND kind = 'transition' ORDER BY id",
        )
        .expect("events readable");
    stmt.query_map([op_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("events readable")
        .collect::<rusqlite::Result<_>>()
        .expect("events readable")
}

/// Writes `config` as the profile's `config.json` (before the owner starts).
pub fn set_config(profile: &std::path::Path, config: &serde_json::Value) {
    std::fs::create_dir_all(profile).unwrap();
    std::fs::write(profile.join("config.json"), config.to_string()).unwrap();
}

/// A lease for `tab`, which shows `conversation`.
pub fn lease_in(ext: &Extension, tab: &str, conversation: &str) -> String {
    let a = ext.http.post(
        "/v1/ext/lease",
        &serde_json::json!({ "tab_id": tab, "conversation_id": conversation }),
    );
    assert_eq!(a.status, 200, "lease {tab}: {}", a.body);
    a.body["lease_id"].as_str().unwrap().to_string()
}

/// Queues `op` for `conversation`.
pub fn queue_to(client: &Http, op: &str, conversation: &str) {
    let a = client.post(
        "/v1/sends",
        &serde_json::json!({ "op_id": op, "text": format!("text of {op}"), "conversation_id": conversation }),
    );
    assert!(a.status == 200 || a.status == 201, "{}", a.body);
}
