//! The brake always gets through (issue 11): against a real `sendledger serve` child
//! with a lowered open-file limit, idle and byte-a-second connections cannot keep the
//! bridge from answering — `status` and `stop` answer while a thousand connections that
//! never send a byte are held; connections that send no complete request head in time
//! are closed; the owner raises its soft open-file limit to the hard limit at start.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

/// Idle connections the tests hold open (the figure: 1,100 against a soft 1024).
const IDLE: usize = 1_100;

/// The soft and hard open-file limits of process `pid`, from `/proc/<pid>/limits`.
fn open_file_limits(pid: u32) -> (String, String) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).expect("/proc limits");
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .expect("a Max open files line");
    let fields: Vec<&str> = line.split_whitespace().collect();
    (fields[3].to_string(), fields[4].to_string())
}

/// Lets this test process hold `n` more sockets (its soft limit up to its hard one).
fn room_for_sockets(n: usize) {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit read or write only the struct passed.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim), 0);
        lim.rlim_cur = lim.rlim_max;
        assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &lim), 0);
    }
    assert!(
        lim.rlim_cur as usize > n + 100,
        "this machine's hard open-file limit ({}) leaves no room for {n} sockets",
        lim.rlim_cur
    );
}

/// `sendledger ARGS…` against `profile`, its client timeout `timeout_ms`: (exit code,
/// stdout, how long it took).
fn timed_cli(profile: &std::path::Path, args: &[&str], timeout_ms: u64) -> (i32, String, Duration) {
    let started = Instant::now();
    let out = Command::new(binary())
        .arg("--profile")
        .arg(profile)
        .args(args)
        .env("SENDLEDGER_CLIENT_TIMEOUT_MS", timeout_ms.to_string())
        .output()
        .expect("the CLI runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        started.elapsed(),
    )
}

#[test]
fn the_owner_raises_its_soft_open_file_limit_to_the_hard_limit_at_start() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start_with_open_files(&profile, 128, 512);
    assert_eq!(
        open_file_limits(serve.pid()),
        ("512".to_string(), "512".to_string()),
        "the soft limit was raised to the hard one"
    );
}

#[test]
fn status_and_stop_answer_while_a_thousand_idle_connections_are_held_past_the_open_file_limit() {
    room_for_sockets(IDLE);
    let (_tmp, profile) = profile_dir();
    // Soft = hard = 128: raising cannot help; only the connection cap can.
    let serve = Serve::start_with_open_files(&profile, 128, 128);
    let idle: Vec<TcpStream> = (0..IDLE)
        .map(|i| {
            TcpStream::connect(("127.0.0.1", serve.port))
                .unwrap_or_else(|e| panic!("idle connection {i}: {e}"))
        })
        .collect();
    let (code, out, status_took) = timed_cli(&profile, &["status"], 10_000);
    assert_eq!(code, 0, "status answers: {out}");
    let (code, out, stop_took) = timed_cli(&profile, &["stop"], 10_000);
    assert_eq!(code, 0, "stop answers: {out}");
    assert!(out.contains("stopped"), "stop says it stopped: {out}");
    let a = serve.client().get("/v1/status");
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(
        a.body["status"]["gate_closed"], true,
        "the fence is committed: {}",
        a.body
    );
    eprintln!(
        "{} idle connections held: `status` took {} ms, `stop` {} ms",
        idle.len(),
        status_took.as_millis(),
        stop_took.as_millis()
    );
    drop(idle);
}

/// Whether the bridge closed `s` without answering (EOF or reset) within [`BOUND`].
fn closed_without_an_answer(mut s: TcpStream) -> Result<(), String> {
    s.set_read_timeout(Some(BOUND)).unwrap();
    let mut buf = [0u8; 256];
    match s.read(&mut buf) {
        Ok(0) => Ok(()),
        Ok(n) => Err(format!(
            "the bridge answered: {:?}",
            String::from_utf8_lossy(&buf[..n])
        )),
        Err(e) if e.kind() == ErrorKind::ConnectionReset => Ok(()),
        Err(e) => Err(format!("still open after {BOUND:?}: {e}")),
    }
}

#[test]
fn connections_that_send_no_complete_request_head_in_time_are_closed() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let silent = TcpStream::connect(("127.0.0.1", serve.port)).unwrap();
    let slow = TcpStream::connect(("127.0.0.1", serve.port)).unwrap();
    // A byte every 400 ms: the head would be complete after about 25 s.
    let head = format!(
        "GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nX-Slow: yes\r\n\r\n",
        serve.port
    );
    let mut writer = slow.try_clone().unwrap();
    let dripping = std::thread::spawn(move || {
        for b in head.bytes() {
            if writer.write_all(&[b]).is_err() {
                return true; // the bridge closed it
            }
            std::thread::sleep(Duration::from_millis(400));
        }
        false
    });
    assert_eq!(
        closed_without_an_answer(silent),
        Ok(()),
        "a silent connection"
    );
    assert_eq!(
        closed_without_an_answer(slow),
        Ok(()),
        "a byte-a-second connection"
    );
    assert!(
        dripping.join().unwrap(),
        "the slow head was cut before it was complete"
    );
    assert_eq!(serve.client().get("/v1/status").status, 200);
}

#[test]
fn a_body_that_does_not_arrive_in_time_is_refused_and_the_connection_freed() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    // The right token, so the guard lets it through to the body; then a byte a second.
    let mut s = TcpStream::connect(("127.0.0.1", serve.port)).unwrap();
    let head = format!(
        "POST /v1/stop HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {}\r\nContent-Length: 1000\r\n\r\n{{",
        serve.port,
        serve.client_token()
    );
    s.write_all(head.as_bytes()).unwrap();
    let mut writer = s.try_clone().unwrap();
    std::thread::spawn(move || {
        while writer.write_all(b" ").is_ok() {
            std::thread::sleep(Duration::from_millis(1_000));
        }
    });
    s.set_read_timeout(Some(BOUND)).unwrap();
    let mut answer = vec![0u8; 512];
    let n = s
        .read(&mut answer)
        .expect("an answer before the body would be complete (after 1,000 s)");
    let answer = String::from_utf8_lossy(&answer[..n]);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("too_slow"), "{answer}");
    assert_eq!(
        serve.client().get("/v1/status").body["status"]["gate_closed"],
        false,
        "nothing was stopped by half a body"
    );
}
