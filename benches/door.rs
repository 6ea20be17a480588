//! The OpenAI doors' benchmark, run on demand (`cargo bench --bench door`), never in
//! `cargo test`. Figures go in docs/performance.md ("The OpenAI doors").
//!
//! - The attach lookup (src/ledger/door.rs): the time of `door_attachable` for a request
//!   that matches nothing and for one that matches, with 1,000 and 100,000 fingerprints
//!   stored (p50 over 2,000 lookups); and a whole unkeyed `door_queue` transaction (lookup +
//!   queue + fsync) beside the native `queue` of the same size, with 100,000 stored.
//! - The Responses door over the chat door: a real `sendledger serve` child, the tab
//!   played over HTTP (claim, grant, the project's fixture traffic), one non-streamed
//!   request at a time through each door (p50 of 100 each; the ratio of the p50s).
//! - First delta: a streamed request through each door; from the page's first answer
//!   chunk reaching the owner to the first text delta reaching the client (p50 of 50).

#[path = "../tests/support/bridge.rs"]
mod harness;

use harness::*;
use rusqlite::params;
use sendledger::clock::SystemClock;
use sendledger::ledger::{fingerprint, DoorQueue, Ledger, QueueRequest};
use sendledger::profile::Profile;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

const LOOKUPS: usize = 2_000;
const ROUNDS: usize = 100;
const STREAM_ROUNDS: usize = 50;
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/chatgpt");
const URL: &str = "https://chatgpt.com/backend-api/f/conversation";
const TEXT: &str = "Draft a haiku about ledgers.\nKeep it short.";

fn p50(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn us(d: Duration) -> String {
    format!("{:.1} µs", d.as_secs_f64() * 1e6)
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn hex(i: usize) -> String {
    format!("{:0>64x}", i)
}

/// A ledger holding `n` settled (rejected) door sends, each with its own fingerprint,
/// seeded in one transaction through the raw connection.
fn seeded(dir: &std::path::Path, n: usize) -> Ledger {
    let profile = Profile::at(dir.join(format!("door-{n}"))).unwrap();
    let mut ledger = Ledger::open(&profile, Arc::new(SystemClock)).unwrap().0;
    ledger
        .queue(
            &QueueRequest {
                op_id: Some("seed".into()),
                text: "seed".into(),
                conversation_id: None,
                ..Default::default()
            },
            "bench",
        )
        .unwrap();
    let epoch: String = ledger
        .raw_connection()
        .query_row("SELECT epoch FROM sends WHERE op_id = 'seed'", [], |r| {
            r.get(0)
        })
        .unwrap();
    let conn = ledger.raw_connection();
    conn.execute_batch("BEGIN IMMEDIATE").unwrap();
    let t0: i64 = 1_600_000_000_000;
    let mut send = conn.prepare("INSERT INTO sends(op_id, text, epoch, created_at, state, updated_at, actor) VALUES ('old-' || ?1, 'an old message', ?2, ?3, 'queued', ?3, 'bench')").unwrap();
    let mut settle = conn
        .prepare("UPDATE sends SET state = 'rejected', updated_at = ?2 WHERE op_id = 'old-' || ?1")
        .unwrap();
    let mut door = conn.prepare("INSERT INTO door_requests(op_id, client, body_sha256, fingerprint, keyed, created_at) VALUES ('old-' || ?1, 'key:bench', ?2, ?3, 0, ?4)").unwrap();
    for i in 0..n {
        let at = t0 + i as i64;
        send.execute(params![i as i64, epoch, at]).unwrap();
        settle.execute(params![i as i64, at + 1]).unwrap();
        door.execute(params![
            i as i64,
            hex(i),
            fingerprint("key:bench", &hex(i)),
            at
        ])
        .unwrap();
    }
    drop((send, settle, door));
    conn.execute_batch("COMMIT").unwrap();
    ledger
}

fn attach_lookup(dir: &std::path::Path) {
    for n in [1_000, 100_000] {
        let mut ledger = seeded(dir, n);
        let miss = fingerprint("key:bench", &hex(n + 7));
        let hit = fingerprint("key:bench", &hex(n / 2));
        let time = |fp: &str, l: &Ledger| {
            (0..LOOKUPS)
                .map(|_| {
                    let t = Instant::now();
                    std::hint::black_box(l.door_attachable(fp).unwrap());
                    t.elapsed()
                })
                .collect::<Vec<_>>()
        };
        println!(
            "attach lookup, {n:>6} stored: no match p50 {}, settled long ago p50 {}",
            us(p50(time(&miss, &ledger))),
            us(p50(time(&hit, &ledger)))
        );
        if n == 100_000 {
            let door: Vec<_> = (0..200)
                .map(|i| {
                    let q = DoorQueue {
                        send: QueueRequest {
                            op_id: Some(format!("new-{i}")),
                            text: "a new message".into(),
                            conversation_id: None,
                            ..Default::default()
                        },
                        client: "key:bench".into(),
                        actor: "openai:key:bench".into(),
                        body_sha256: hex(n + 1000 + i),
                        keyed: false,
                    };
                    let t = Instant::now();
                    ledger.door_queue(&q).unwrap();
                    t.elapsed()
                })
                .collect();
            let native: Vec<_> = (0..200)
                .map(|i| {
                    let t = Instant::now();
                    ledger
                        .queue(
                            &QueueRequest {
                                op_id: Some(format!("native-{i}")),
                                text: "a new message".into(),
                                conversation_id: None,
                                ..Default::default()
                            },
                            "bench",
                        )
                        .unwrap();
                    t.elapsed()
                })
                .collect();
            println!(
                "queue transaction, {n} stored: unkeyed door_queue p50 {}, native queue p50 {}",
                ms(p50(door)),
                ms(p50(native))
            );
        }
    }
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURES}/{name}")).unwrap()
}

/// Opens a request on the door at `path` with `body`; returns the connection.
fn ask(port: u16, key: &str, path: &str, body: &Value) -> TcpStream {
    let body = serde_json::to_vec(body).unwrap();
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(BOUND)).unwrap();
    let head = format!("POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {key}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(&body).unwrap();
    s
}

/// The page's ids in the fixture traffic (user message, turn, assistant message): each
/// round's traffic gets its own, since one receipt belongs to one send.
const PAGE_IDS: [&str; 3] = [
    "5d1c0b7e-2f4a-4c61-9a0e-6b2d8e1f3a47",
    "a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d",
    "7c6b5a49-3827-4165-b0a9-f8e7d6c5b4a3",
];

/// `text` with the page's ids made those of round `round`.
fn round_ids(text: &str, round: usize) -> String {
    PAGE_IDS
        .iter()
        .enumerate()
        .fold(text.to_string(), |t, (k, id)| {
            t.replace(id, &format!("{}{:012x}", &id[..24], round * 3 + k))
        })
}

/// Plays the tab for the next send (round `round`); `chunks`: the answer stream in
/// pieces. Returns the instant the first piece was handed to the owner.
fn play(ext: &Extension, lease: &str, chunks: &[String], round: usize) -> Instant {
    let op = ext.next(lease, 10_000).expect("a send")["op_id"]
        .as_str()
        .unwrap()
        .to_string();
    ext.dispatch(lease, &op);
    let request = round_ids(&fixture("request_new_chat_f.json"), round);
    ext.observe(&json!({ "lease_id": lease, "op_id": op, "kind": "request", "stream_id": "s", "url": URL, "body": request }));
    let first = Instant::now();
    for (seq, c) in chunks.iter().enumerate() {
        let chunk = round_ids(c, round);
        ext.observe(&json!({ "lease_id": lease, "op_id": op, "kind": "stream_chunk", "stream_id": "s", "seq": seq, "chunk": chunk }));
    }
    ext.observe(&json!({ "lease_id": lease, "op_id": op, "kind": "stream_end", "stream_id": "s" }));
    first
}

fn body(path: &str, n: usize, stream: bool) -> Value {
    let text = TEXT;
    if path.ends_with("responses") {
        json!({ "model": "chatgpt-tab", "input": text, "stream": stream, "metadata": { "round": n.to_string() } })
    } else {
        json!({ "model": "chatgpt-tab", "messages": [{ "role": "user", "content": text }], "stream": stream, "user": n.to_string() })
    }
}

fn doors(serve: &Serve) {
    let ext = serve.pair();
    let lease = ext.lease("bench-tab");
    let key = bench_key(serve);
    let whole = vec![fixture("stream_delta_new_chat.sse")];
    let mut p = Vec::new();
    for path in ["/v1/chat/completions", "/v1/responses"] {
        let rounds: Vec<Duration> = (0..ROUNDS)
            .map(|i| {
                let t = Instant::now();
                let mut s = ask(serve.port, &key, path, &body(path, i, false));
                play(
                    &ext,
                    &lease,
                    &whole,
                    i + if path.ends_with("responses") {
                        ROUNDS
                    } else {
                        0
                    },
                );
                let mut out = Vec::new();
                s.read_to_end(&mut out).unwrap();
                t.elapsed()
            })
            .collect();
        let m = p50(rounds);
        println!("{path:<22} non-streamed round p50 {}", ms(m));
        p.push(m);
    }
    println!(
        "responses / chat p50: {:.2}",
        p[1].as_secs_f64() / p[0].as_secs_f64()
    );
    let text = fixture("stream_delta_new_chat.sse");
    let mid = text.len() / 2;
    let chunks = vec![text[..mid].to_string(), text[mid..].to_string()];
    for path in ["/v1/chat/completions", "/v1/responses"] {
        let firsts: Vec<Duration> = (0..STREAM_ROUNDS)
            .map(|i| {
                let s = ask(serve.port, &key, path, &body(path, 10_000 + i, true));
                let reader = std::thread::spawn(move || {
                    for line in BufReader::new(s).lines() {
                        let line = line.unwrap();
                        if line.contains("\"delta\"")
                            && (line.contains("output_text.delta")
                                || line.contains("\"content\":\"")
                                    && !line.contains("\"content\":\"\""))
                        {
                            return Instant::now();
                        }
                    }
                    panic!("no delta")
                });
                let first = play(
                    &ext,
                    &lease,
                    &chunks,
                    10_000
                        + i
                        + if path.ends_with("responses") {
                            STREAM_ROUNDS
                        } else {
                            0
                        },
                );
                reader.join().unwrap() - first
            })
            .collect();
        println!(
            "{path:<22} first delta after the page's first chunk p50 {}",
            ms(p50(firsts))
        );
    }
}

fn bench_key(serve: &Serve) -> String {
    let (code, v) = cli_json(
        &serve.profile,
        &["keys", "create", "bench", "--by", "bench"],
    );
    assert_eq!(code, 0, "{v}");
    v["secret"].as_str().unwrap().to_string()
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("door benchmark: run with `cargo bench --bench door`");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    attach_lookup(tmp.path());
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    doors(&serve);
}
