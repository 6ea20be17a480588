//! Bridge benchmark, run on demand (`cargo bench --bench bridge`), never in `cargo test`:
//! a real `sendledger serve` child on loopback, measured from outside over HTTP.
//!
//! - queue → `next` hand-off: a lease's long-poll is parked; a client queues a send; the
//!   time from the queue request leaving the client to the long-poll's answer arriving
//!   (p50, p99, max). Target p50 ≤ 5 ms.
//! - dispatch grant round trip (committed `dispatched` → answer).
//! - queue requests per second: one client in sequence, then four at once.
//!
//! Figures and the machine they came from go in docs/performance.md ("Bridge").

#[path = "../tests/support/bridge.rs"]
mod harness;

use harness::*;
use std::sync::mpsc;
use std::time::{Duration, Instant};

const HANDOFFS: usize = 1_000;
const WARM_UP: usize = 50;
const QUEUES: usize = 2_000;
const CONCURRENT_CLIENTS: usize = 4;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn report(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    println!(
        "{name:<28} n={:<5} p50 {:>9}  p99 {:>9}  max {:>9}",
        samples.len(),
        ms(percentile(&samples, 0.50)),
        ms(percentile(&samples, 0.99)),
        ms(*samples.last().unwrap())
    );
}

/// queue → next hand-off, and the dispatch grant's round trip.
fn handoff(serve: &Serve) {
    let client = serve.client();
    let ext = serve.pair();
    let lease = ext.lease("bench-tab");
    let (ready_tx, ready) = mpsc::channel::<()>();
    let (got_tx, got) = mpsc::channel::<(Instant, Duration)>();
    let poller = {
        let ext = ext.fresh();
        std::thread::spawn(move || {
            for _ in 0..HANDOFFS + WARM_UP {
                ready_tx.send(()).unwrap();
                let send = ext.next(&lease, 25_000).expect("a send within 25 s");
                let arrived = Instant::now();
                let op = send["op_id"].as_str().unwrap().to_string();
                let t = Instant::now();
                let g = ext.dispatch(&lease, &op);
                let grant = t.elapsed();
                assert_eq!(g.status, 200, "{}", g.body);
                let f = ext.fail(&lease, &op, "after_dispatch", "benchmark");
                assert_eq!(f.status, 200, "{}", f.body);
                got_tx.send((arrived, grant)).unwrap();
            }
        })
    };
    let (mut handoffs, mut grants) = (Vec::new(), Vec::new());
    for i in 0..HANDOFFS + WARM_UP {
        ready.recv().unwrap();
        // Let the long-poll reach the owner and park (a benchmark may wait; tests may not).
        std::thread::sleep(Duration::from_millis(2));
        let sent = Instant::now();
        client.queue(&format!("handoff-{i}"), "benchmark hand-off");
        let (arrived, grant) = got.recv().unwrap();
        if i >= WARM_UP {
            handoffs.push(arrived - sent);
            grants.push(grant);
        }
    }
    poller.join().unwrap();
    report("queue -> next hand-off", handoffs);
    report("dispatch grant round trip", grants);
}

/// Queue requests per second, from `clients` clients at once.
fn queue_rate(serve: &Serve, clients: usize, tag: &str) {
    let per = QUEUES / clients;
    let start = Instant::now();
    let threads: Vec<_> = (0..clients)
        .map(|c| {
            let client = serve.client();
            let tag = tag.to_string();
            std::thread::spawn(move || {
                let mut lat = Vec::with_capacity(per);
                for i in 0..per {
                    let t = Instant::now();
                    client.queue(&format!("{tag}-{c}-{i}"), "benchmark queue");
                    lat.push(t.elapsed());
                }
                lat
            })
        })
        .collect();
    let lat: Vec<Duration> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    let secs = start.elapsed().as_secs_f64();
    println!(
        "queue, {clients} client(s)           {} requests in {secs:.2} s = {:.0} requests/s",
        lat.len(),
        lat.len() as f64 / secs
    );
    report(&format!("  queue latency, {clients} client(s)"), lat);
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{cpu}, {cores} cores")
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing: run only
    // when asked to benchmark.
    if !std::env::args().any(|a| a == "--bench") {
        println!("bridge benchmark: run with `cargo bench --bench bridge`");
        return;
    }
    println!("machine: {}", machine());
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    handoff(&serve);
    queue_rate(&serve, 1, "seq");
    queue_rate(&serve, CONCURRENT_CLIENTS, "par");
}
