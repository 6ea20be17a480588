//! Ledger benchmarks; figures and the commands that produced them are in
//! docs/performance.md.
//!
//! - `durable_transition`: one committed transition (queue, claim, dispatch, accept,
//!   complete, in turn) next to `fsync_baseline`, a raw 256-byte write + fsync of a file in
//!   the same directory.
//! - `paired`: not a criterion benchmark: a loop timing a transition, a write+fsync, a
//!   write+fdatasync and `sqlite_floor` (the least any SQLite commit costs: one row's
//!   `UPDATE` in a one-table file with the ledger's pragmas, WAL and `synchronous=FULL`,
//!   no index, no trigger) back to back, 2,000 rounds (`SENDLEDGER_BENCH_PAIRS`), for the
//!   p50 ratios printed at the end (target ≤ 1.3).
//! - `transition_at_size/N`: the same transitions with N sends of history already in the
//!   ledger (target: flat within 1.2× from 10³ to 10⁶). `paired_size/N`: not criterion: the
//!   three sizes open at once, taking turns transition by transition, for the p50 spread.
//! - `owner_startup`: `Ledger::open` (migration check + recovery) with 10⁶ sends of history
//!   and 10³ in flight (999 queued, 1 dispatched); target ≤ 200 ms.
//!
//! History ledgers are built once and cached in `target/bench-ledgers/` (10⁶ sends take a
//! few minutes to build; every row goes through the ledger's triggers by legal edges).
//! `SENDLEDGER_BENCH_SIZES=1000,100000` limits the sizes. Criterion's filter works:
//! `cargo bench --bench ledger -- owner_startup`.

use criterion::{BenchmarkId, Criterion, SamplingMode};
use rusqlite::params;
use sendledger::clock::SystemClock;
use sendledger::ledger::{Ledger, QueueRequest, Receipt, TabBinding};
use sendledger::profile::{Profile, LEDGER_FILE};
use std::collections::BTreeMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Every individual timing taken inside criterion's routines, by benchmark id, so
/// percentiles (criterion reports means) can be printed at the end.
static SAMPLES: Mutex<BTreeMap<String, Vec<Duration>>> = Mutex::new(BTreeMap::new());

fn record(id: &str, d: Duration) {
    SAMPLES
        .lock()
        .unwrap()
        .entry(id.to_string())
        .or_default()
        .push(d);
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn open(profile: &Profile) -> Ledger {
    Ledger::open(profile, Arc::new(SystemClock))
        .expect("the bench ledger opens")
        .0
}

fn tab(id: &str) -> TabBinding {
    TabBinding {
        tab_id: id.into(),
        ..TabBinding::default()
    }
}

/// Drives sends through queue → claim → dispatch → accept → complete, one durable
/// transition per `step`.
struct Pipeline {
    ledger: Ledger,
    lease: String,
    run: String,
    n: u64,
    stage: u8,
}

impl Pipeline {
    fn new(mut ledger: Ledger) -> Self {
        let lease = ledger.lease(&tab("bench-tab")).unwrap().lease_id;
        let run = format!("{}-{}", std::process::id(), uuid::Uuid::new_v4().simple());
        Self {
            ledger,
            lease,
            run,
            n: 0,
            stage: 0,
        }
    }

    fn op(&self) -> String {
        format!("bench-{}-{}", self.run, self.n)
    }

    fn step(&mut self) {
        let op = self.op();
        let l = &mut self.ledger;
        match self.stage {
            0 => {
                let req = QueueRequest {
                    op_id: Some(op),
                    text: "a message of ordinary length for the benchmark".into(),
                    conversation_id: None,
                    ..Default::default()
                };
                l.queue(&req, "bench").unwrap();
            }
            1 => {
                l.claim_next(&self.lease).unwrap().expect("the queued send");
            }
            2 => {
                l.dispatch(&op, &self.lease).unwrap();
            }
            3 => {
                let r = Receipt {
                    conversation_id: "bench-conv".into(),
                    user_message_id: format!("user-{op}"),
                    turn_id: format!("turn-{op}"),
                };
                l.accept(&op, &r, "bench").unwrap();
            }
            _ => {
                l.complete(&op, &format!("answer-{op}"), "the answer", "bench")
                    .unwrap();
                self.n += 1;
            }
        }
        self.stage = (self.stage + 1) % 5;
    }
}

fn scratch_profile(root: &Path, name: &str) -> Profile {
    let dir = root.join(name);
    let _ = std::fs::remove_dir_all(&dir);
    Profile::at(dir).expect("a bench profile")
}

fn bench_root() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-ledgers");
    std::fs::create_dir_all(&root).unwrap();
    root
}

/// The ratio measured pairwise: each round times one ledger transition, one raw
/// write+fsync and one raw write+fdatasync back to back (order rotating), so all three
/// see the same disk weather; criterion's separate runs cannot promise that on a shared
/// machine.
fn paired_ratio(root: &Path) {
    let rounds: usize = std::env::var("SENDLEDGER_BENCH_PAIRS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000);
    let profile = scratch_profile(root, "paired");
    let mut pipeline = Pipeline::new(open(&profile));
    let raw = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(profile.dir().join("fsync-baseline"))
        .unwrap();
    let buf = [7u8; 256];
    let floor = sqlite_floor(profile.dir());
    let mut bump = floor
        .prepare("UPDATE floor SET n = n + 1 WHERE id = 1")
        .unwrap();
    for i in 0..rounds {
        for k in 0..4 {
            let t = Instant::now();
            match (i + k) % 4 {
                3 => {
                    bump.execute([]).unwrap();
                    record("paired/sqlite_floor", t.elapsed());
                }
                0 => {
                    pipeline.step();
                    record("paired/ledger_transition", t.elapsed());
                }
                1 => {
                    raw.write_all_at(&buf, 0).unwrap();
                    raw.sync_all().unwrap();
                    record("paired/write_fsync", t.elapsed());
                }
                _ => {
                    raw.write_all_at(&buf, 0).unwrap();
                    raw.sync_data().unwrap();
                    record("paired/write_fdatasync", t.elapsed());
                }
            }
        }
    }
    drop(bump);
    drop(floor);
    drop(pipeline);
    let _ = std::fs::remove_dir_all(profile.dir());
}

/// A one-table SQLite file beside the ledger, with the ledger's pragmas (`store.rs`): the
/// floor under any ledger made of SQLite commits.
fn sqlite_floor(dir: &Path) -> rusqlite::Connection {
    let conn = rusqlite::Connection::open(dir.join("sqlite-floor.db")).unwrap();
    let mode: String = conn
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    conn.execute_batch(
        "PRAGMA synchronous = FULL; \
         CREATE TABLE floor (id INTEGER PRIMARY KEY, n INTEGER NOT NULL); \
         INSERT INTO floor VALUES (1, 0);",
    )
    .unwrap();
    conn
}

/// Transition cost by ledger size, paired: one pipeline per size, open at the same time,
/// taking turns transition by transition (order rotating), so every size sees the same
/// disk weather.
fn paired_sizes(root: &Path) {
    let rounds: usize = std::env::var("SENDLEDGER_BENCH_PAIRS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000);
    let sizes = sizes();
    let profiles: Vec<Profile> = sizes
        .iter()
        .map(|n| profile_with_history(root, &format!("paired-size-{n}"), *n))
        .collect();
    let mut pipelines: Vec<Pipeline> = profiles.iter().map(|p| Pipeline::new(open(p))).collect();
    let ids: Vec<String> = sizes.iter().map(|n| format!("paired_size/{n}")).collect();
    for i in 0..rounds {
        for k in 0..pipelines.len() {
            let j = (i + k) % pipelines.len();
            let t = Instant::now();
            pipelines[j].step();
            record(&ids[j], t.elapsed());
        }
    }
    drop(pipelines);
    for p in profiles {
        let _ = std::fs::remove_dir_all(p.dir());
    }
}

fn durable_transition(c: &mut Criterion, root: &Path) {
    let profile = scratch_profile(root, "latency");
    let mut pipeline = Pipeline::new(open(&profile));
    let baseline_path = profile.dir().join("fsync-baseline");
    let baseline = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&baseline_path)
        .unwrap();
    let buf = [7u8; 256];
    let mut g = c.benchmark_group("durable_transition");
    g.sample_size(50)
        .measurement_time(Duration::from_secs(8))
        .warm_up_time(Duration::from_secs(1));
    g.bench_function("ledger", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let t = Instant::now();
                pipeline.step();
                let d = t.elapsed();
                record("durable_transition/ledger", d);
                total += d;
            }
            total
        })
    });
    g.bench_function("fsync_baseline", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let t = Instant::now();
                baseline.write_all_at(&buf, 0).unwrap();
                baseline.sync_all().unwrap();
                let d = t.elapsed();
                record("durable_transition/fsync_baseline", d);
                total += d;
            }
            total
        })
    });
    g.finish();
}

/// Builds (or reuses) a ledger file with `n` completed sends of history, each taken
/// through every legal edge (queued → claimed → dispatched → accepted → completed) with
/// its receipt, inside one transaction through the raw connection.
fn history_ledger(root: &Path, n: u64) -> PathBuf {
    let cached = root.join(format!("history-v1-{n}.sqlite3"));
    if cached.exists() {
        return cached;
    }
    let t = Instant::now();
    let profile = scratch_profile(root, &format!("build-{n}"));
    let mut ledger = open(&profile);
    let lease = ledger.lease(&tab("history-tab")).unwrap();
    {
        let conn = ledger.raw_connection();
        conn.execute_batch("BEGIN IMMEDIATE").unwrap();
        let t0: i64 = 1_600_000_000_000;
        conn.execute(
            "INSERT INTO sends(op_id, text, epoch, created_at, state, updated_at, actor) \
             WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < ?1 - 1) \
             SELECT 'hist-' || i, 'history message number ' || i || ', of ordinary length', \
                    ?2, ?3 + i * 10, 'queued', ?3 + i * 10, 'bench' FROM c",
            params![n as i64, lease.epoch, t0],
        )
        .unwrap();
        let first: i64 = conn
            .query_row("SELECT seq FROM sends WHERE op_id = 'hist-0'", [], |r| {
                r.get(0)
            })
            .unwrap();
        let mut claim = conn
            .prepare(
                "UPDATE sends SET state = 'claimed', lease_id = ?2, claimed_at = ?3, updated_at = ?3, \
                 actor = 'extension' WHERE seq = ?1",
            )
            .unwrap();
        let mut dispatch = conn
            .prepare(
                "UPDATE sends SET state = 'dispatched', dispatched_at = ?2, updated_at = ?2 WHERE seq = ?1",
            )
            .unwrap();
        let mut receipt = conn
            .prepare(
                "INSERT INTO receipts(op_id, conversation_id, user_message_id, turn_id, observed_at) \
                 VALUES ('hist-' || ?1, 'conv-history', 'user-' || ?1, 'turn-' || ?1, ?2)",
            )
            .unwrap();
        let mut accept = conn
            .prepare("UPDATE sends SET state = 'accepted', updated_at = ?2 WHERE seq = ?1")
            .unwrap();
        let mut complete = conn
            .prepare(
                "UPDATE sends SET state = 'completed', answer_message_id = 'answer-' || ?1, \
                 answer_text = 'an answer', answered_at = ?2, updated_at = ?2 WHERE seq = ?1",
            )
            .unwrap();
        for i in 0..n as i64 {
            let seq = first + i;
            let at = t0 + i * 10;
            claim.execute(params![seq, lease.lease_id, at + 1]).unwrap();
            dispatch.execute(params![seq, at + 2]).unwrap();
            receipt.execute(params![i, at + 3]).unwrap();
            accept.execute(params![seq, at + 3]).unwrap();
            complete.execute(params![seq, at + 4]).unwrap();
            if i > 0 && i % 100_000 == 0 {
                eprintln!("history {n}: {i} sends built");
            }
        }
        drop((claim, dispatch, receipt, accept, complete));
        conn.execute_batch("COMMIT").unwrap();
    }
    drop(ledger); // checkpoints the WAL into the file
    std::fs::rename(profile.dir().join(LEDGER_FILE), &cached).unwrap();
    let _ = std::fs::remove_dir_all(profile.dir());
    eprintln!(
        "history {n}: built in {:.1} s, {} MB",
        t.elapsed().as_secs_f64(),
        std::fs::metadata(&cached).unwrap().len() / 1_000_000
    );
    cached
}

/// A scratch profile holding a copy of the history ledger of `n` sends.
fn profile_with_history(root: &Path, name: &str, n: u64) -> Profile {
    let history = history_ledger(root, n);
    let profile = scratch_profile(root, name);
    std::fs::copy(&history, profile.dir().join(LEDGER_FILE)).unwrap();
    profile
}

fn sizes() -> Vec<u64> {
    match std::env::var("SENDLEDGER_BENCH_SIZES") {
        Ok(s) => s.split(',').map(|n| n.trim().parse().unwrap()).collect(),
        Err(_) => vec![1_000, 100_000, 1_000_000],
    }
}

fn transition_at_size(c: &mut Criterion, root: &Path) {
    let mut g = c.benchmark_group("transition_at_size");
    g.sample_size(30)
        .measurement_time(Duration::from_secs(6))
        .warm_up_time(Duration::from_secs(1));
    for n in sizes() {
        if !c_filter_matches(&format!("transition_at_size/{n}")) {
            continue;
        }
        let profile = profile_with_history(root, &format!("size-{n}"), n);
        let mut pipeline = Pipeline::new(open(&profile));
        let id = format!("transition_at_size/{n}");
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let t = Instant::now();
                    pipeline.step();
                    let d = t.elapsed();
                    record(&id, d);
                    total += d;
                }
                total
            })
        });
        drop(pipeline);
        let _ = std::fs::remove_dir_all(profile.dir());
    }
    g.finish();
}

/// Leaves 999 queued sends and one dispatched send for the next start-up to recover.
fn put_in_flight(ledger: &mut Ledger, round: u64) {
    {
        let conn = ledger.raw_connection();
        conn.execute_batch("BEGIN IMMEDIATE").unwrap();
        conn.execute(
            "INSERT INTO sends(op_id, text, epoch, created_at, state, updated_at, actor) \
             WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < 999) \
             SELECT 'flight-' || ?1 || '-' || i, 'in flight ' || i, \
                    ?2, 1, 'queued', 1, 'bench' FROM c",
            params![round as i64, sendledger::ledger::unbound_epoch(0)],
        )
        .unwrap();
        conn.execute_batch("COMMIT").unwrap();
    }
    let lease = ledger.lease(&tab("flight-tab")).unwrap().lease_id;
    let send = ledger.claim_next(&lease).unwrap().expect("a queued send");
    ledger.dispatch(&send.op_id, &lease).unwrap();
}

fn owner_startup(c: &mut Criterion, root: &Path) {
    if !c_filter_matches("owner_startup") {
        return;
    }
    let n = *sizes().iter().max().unwrap();
    let profile = profile_with_history(root, "startup", n);
    let mut ledger = Some(open(&profile));
    let mut round = 0;
    let mut g = c.benchmark_group("owner_startup");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(20)
        .measurement_time(Duration::from_millis(500))
        .warm_up_time(Duration::from_millis(100));
    let id = format!("owner_startup/{n}");
    g.bench_function(BenchmarkId::from_parameter(n), |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let mut l = ledger.take().unwrap();
                put_in_flight(&mut l, round);
                round += 1;
                drop(l);
                let t = Instant::now();
                let (l, report) = Ledger::open(&profile, Arc::new(SystemClock)).unwrap();
                let d = t.elapsed();
                assert_eq!(
                    (report.rejected.len(), report.uncertain.len()),
                    (999, 1),
                    "recovery had 10³ sends in flight to settle"
                );
                record(&id, d);
                total += d;
                ledger = Some(l);
            }
            total
        })
    });
    g.finish();
    drop(ledger);
    let _ = std::fs::remove_dir_all(profile.dir());
}

/// Criterion's own filter, applied before building expensive fixtures.
fn c_filter_matches(id: &str) -> bool {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    args.is_empty() || args.iter().any(|f| id.contains(f.as_str()))
}

fn report() {
    let samples = SAMPLES.lock().unwrap();
    let mut p50 = BTreeMap::new();
    println!(
        "\n{:<34} {:>8} {:>10} {:>10} {:>10}",
        "benchmark", "n", "p50", "p90", "p99"
    );
    for (id, v) in samples.iter() {
        let mut v = v.clone();
        v.sort();
        let (a, b, c) = (
            percentile(&v, 0.5),
            percentile(&v, 0.9),
            percentile(&v, 0.99),
        );
        println!("{id:<34} {:>8} {a:>10.3?} {b:>10.3?} {c:>10.3?}", v.len());
        p50.insert(id.clone(), a.as_secs_f64());
    }
    if let (Some(l), Some(f)) = (
        p50.get("durable_transition/ledger"),
        p50.get("durable_transition/fsync_baseline"),
    ) {
        println!(
            "p50 ratio (criterion runs, not paired) transition / write+fsync: {:.3}",
            l / f
        );
    }
    if let (Some(l), Some(f), Some(d)) = (
        p50.get("paired/ledger_transition"),
        p50.get("paired/write_fsync"),
        p50.get("paired/write_fdatasync"),
    ) {
        println!(
            "p50 ratio (paired) transition / write+fsync: {:.3} (target <= 1.3)",
            l / f
        );
        println!(
            "p50 ratio (paired) transition / write+fdatasync: {:.3}",
            l / d
        );
        if let Some(s) = p50.get("paired/sqlite_floor") {
            println!(
                "p50 ratio (paired) one-row SQLite commit / write+fsync: {:.3} (the floor of any SQLite ledger)",
                s / f
            );
            println!(
                "p50 ratio (paired) transition / one-row SQLite commit: {:.3}",
                l / s
            );
        }
    }
    spread(&p50, "transition_at_size/", "criterion runs, not paired");
    spread(&p50, "paired_size/", "paired");
}

fn spread(p50: &BTreeMap<String, f64>, prefix: &str, how: &str) {
    let sized: Vec<(u64, f64)> = p50
        .iter()
        .filter_map(|(k, v)| Some((k.strip_prefix(prefix)?.parse().ok()?, *v)))
        .collect();
    if let (Some(min), Some(max)) = (
        sized.iter().map(|s| s.1).reduce(f64::min),
        sized.iter().map(|s| s.1).reduce(f64::max),
    ) {
        println!(
            "transition p50 spread across sizes ({how}, max/min): {:.3} (target <= 1.2)",
            max / min
        );
    }
}

fn main() {
    let root = bench_root();
    let mut c = Criterion::default().configure_from_args();
    if c_filter_matches("paired") {
        paired_ratio(&root);
    }
    if c_filter_matches("durable_transition") {
        durable_transition(&mut c, &root);
    }
    if c_filter_matches("paired_size") {
        paired_sizes(&root);
    }
    transition_at_size(&mut c, &root);
    owner_startup(&mut c, &root);
    c.final_summary();
    report();
}
