//! A ledger of a million sends (issue 39): what a heavy user's history costs. Not a
//! criterion benchmark: a report of p50/max per figure, printed at the end (figures and
//! the machine in docs/performance.md). Never asserted anywhere.
//!
//! The ledger is built once through the ledger's own transitions with every trigger in
//! force — one transaction per 10,000 sends, each taken row by row along the legal edges —
//! and cached as a whole profile in `target/bench-ledgers/million-v2-N/` (the ledger and
//! its attachment store). The mix, per 1,000 sends: 930 completed, 20 rejected before
//! dispatch, 20 stopped by a person, 15 page errors, 10 abandoned and 5 confirmed after
//! being uncertain; every 20th completed send carries a file (one file per ten such
//! sends). Texts of ~200 bytes, answers of ~600. The history spans 500 days, oldest first;
//! then 40 queued sends, 20 uncertain and one accepted awaiting its answer are open.
//!
//! Figures: owner start (`Ledger::open`, recovery of 40 queued + 1 dispatched put back
//! before each sample), `GET /v1/queue` (`queue_view`), History's first and a deep page
//! (`history_page`, 200 rows), `sendledger status` and `doctor` (the release binary, a
//! process each), the attachment upkeep's pass, retention's passes (365 days on a copy:
//! the oldest ~27 % pruned) and the file's used size after, salvage of a copy with 64
//! pages overwritten (`sendledger salvage`), bytes per send.
//!
//! `cargo bench --bench million` (10⁶ sends; the first run builds the ledger: ~10 min);
//! `SENDLEDGER_BENCH_SENDS=100000 cargo bench --bench million` for a smaller one;
//! `SENDLEDGER_BENCH_SKIP=doctor,salvage,upkeep,check` leaves out the slow figures
//! (`check`: the whole-file check after the owner starts). `SENDLEDGER_BENCH_CLI=PATH`
//! runs another build's `sendledger` for the process figures (two builds compared on one
//! ledger, one after the other).

use rusqlite::{params, Connection};
use sendledger::api::queue::{history_page, queue_view, HISTORY_ROWS};
use sendledger::attachments::Store;
use sendledger::clock::{Clock, SystemClock};
use sendledger::ledger::{Ledger, LedgerRead, PRUNE_BATCH};
use sendledger::owner::attachment_upkeep::{prune_once, sweep_once, KEEP_MS};
use sendledger::profile::{Profile, LEDGER_FILE};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

const DAY: i64 = 24 * 3600 * 1000;
const SPAN_DAYS: i64 = 500;
const BATCH: i64 = 10_000;

fn sends() -> i64 {
    std::env::var("SENDLEDGER_BENCH_SENDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000)
}

fn skipped(what: &str) -> bool {
    std::env::var("SENDLEDGER_BENCH_SKIP").is_ok_and(|s| s.split(',').any(|w| w == what))
}

fn open(profile: &Profile) -> Ledger {
    Ledger::open_for_owner(profile, Arc::new(SystemClock))
        .expect("the bench ledger opens")
        .0
}

/// What one send of the mix ends as, by its number.
fn fate(i: i64) -> &'static str {
    match i % 1000 {
        0..930 => "completed",
        930..950 => "rejected",
        950..970 => "stopped",
        970..985 => "page_error",
        985..995 => "abandoned",
        _ => "confirmed",
    }
}

/// The statements that take send `?1` (seq) along its edges; `?2` lease, `?3` time.
const EDGES: &[(&str, &str)] = &[
    ("claim", "UPDATE sends SET state = 'claimed', lease_id = ?2, claimed_at = ?3, updated_at = ?3, actor = 'extension' WHERE seq = ?1"),
    ("dispatch", "UPDATE sends SET state = 'dispatched', dispatched_at = ?3 + 1, updated_at = ?3 + 1 WHERE seq = ?1 AND lease_id = ?2"),
    ("receipt", "INSERT INTO receipts(op_id, conversation_id, user_message_id, turn_id, observed_at) SELECT op_id, 'conv-' || (seq % 5000), 'user-' || seq, 'turn-' || seq, ?3 + 2 FROM sends WHERE seq = ?1 AND lease_id = ?2"),
    ("accept", "UPDATE sends SET state = 'accepted', updated_at = ?3 + 2 WHERE seq = ?1 AND lease_id = ?2"),
    ("complete", "UPDATE sends SET state = 'completed', answer_message_id = 'answer-' || seq, answer_text = ?4, answered_at = ?3 + 3, updated_at = ?3 + 3 WHERE seq = ?1 AND lease_id = ?2"),
    ("reject", "UPDATE sends SET state = 'rejected', evidence = 'the tab went away before the click', actor = 'extension', updated_at = ?3 + 1 WHERE seq = ?1 AND lease_id = ?2"),
    ("stop", "UPDATE sends SET state = 'stopped', evidence = 'taken back by a person', actor = 'person', updated_at = ?3 WHERE seq = ?1 AND ?2 IS NOT NULL"),
    ("page_error", "UPDATE sends SET state = 'page_error', evidence = 'the page said: something went wrong', updated_at = ?3 + 3 WHERE seq = ?1 AND lease_id = ?2"),
    ("uncertain", "UPDATE sends SET state = 'uncertain', evidence = 'no receipt within the bound', actor = 'owner', updated_at = ?3 + 2 WHERE seq = ?1 AND lease_id = ?2"),
    ("abandoned", "UPDATE sends SET state = 'abandoned', evidence = 'a person: let it go', actor = 'person', updated_at = ?3 + 4 WHERE seq = ?1 AND lease_id = ?2"),
    ("confirmed", "UPDATE sends SET state = 'confirmed', evidence = 'a person saw it in the chat', actor = 'person', updated_at = ?3 + 4 WHERE seq = ?1 AND lease_id = ?2"),
];

fn path_of(f: &str) -> &'static [&'static str] {
    match f {
        "completed" => &["claim", "dispatch", "receipt", "accept", "complete"],
        "rejected" => &["claim", "reject"],
        "stopped" => &["stop"],
        "page_error" => &["claim", "dispatch", "receipt", "accept", "page_error"],
        "abandoned" => &["claim", "dispatch", "uncertain", "abandoned"],
        _ => &["claim", "dispatch", "uncertain", "confirmed"],
    }
}

fn text(i: i64) -> String {
    format!(
        "message {i}: {}",
        "please summarise the attached notes and list what is left to do; ".repeat(3)
    )
}

/// Builds sends `from..to` in one transaction through the raw connection, every trigger
/// in force.
fn build_batch(
    conn: &Connection,
    lease: (&str, &str),
    from: i64,
    to: i64,
    t0: i64,
    step: i64,
    files: &[String],
) {
    let (lease_id, epoch) = lease;
    let answer = "an answer of ordinary length, a few paragraphs. ".repeat(12);
    conn.execute_batch("BEGIN IMMEDIATE").unwrap();
    let mut queue = conn
        .prepare_cached("INSERT INTO sends(op_id, text, epoch, created_at, state, updated_at, actor) VALUES ('m-' || ?1, ?2, ?3, ?4, 'queued', ?4, 'bench') RETURNING seq")
        .unwrap();
    let mut attach = conn
        .prepare_cached("INSERT INTO send_attachments(op_id, position, sha256, name, mime, size) VALUES ('m-' || ?1, 0, ?2, 'notes.pdf', 'application/pdf', 1024)")
        .unwrap();
    for i in from..to {
        let at = t0 + i * step;
        let seq: i64 = queue
            .query_row(params![i, text(i), epoch, at], |r| r.get(0))
            .unwrap();
        let f = fate(i);
        if f == "completed" && i % 20 == 0 {
            attach
                .execute(params![i, files[(i as usize / 200) % files.len()]])
                .unwrap();
        }
        for edge in path_of(f) {
            let sql = EDGES.iter().find(|(n, _)| n == edge).unwrap().1;
            let mut st = conn.prepare_cached(sql).unwrap();
            let n = if *edge == "complete" {
                st.execute(params![seq, lease_id, at, answer]).unwrap()
            } else {
                st.execute(params![seq, lease_id, at]).unwrap()
            };
            assert_eq!(n, 1, "edge {edge} of send {i}");
        }
    }
    conn.execute_batch("COMMIT").unwrap();
}

/// The files every 20th completed send carries: one per ten such sends, in the store.
fn make_files(ledger: &mut Ledger, store: &Store, n: i64, t0: i64) -> Vec<String> {
    let count = (n / 200).max(1);
    let conn = ledger.raw_connection();
    let mut shas = Vec::new();
    for k in 0..count {
        let bytes = format!("file {k} {}", "x".repeat(1100)).into_bytes();
        let (sha, _) = store.put(&bytes[..1024]).unwrap();
        conn.execute(
            "INSERT INTO attachments(sha256, name, mime, size, stored_at) VALUES (?1, 'notes.pdf', 'application/pdf', 1024, ?2)",
            params![sha, t0],
        )
        .unwrap();
        shas.push(sha);
    }
    shas
}

/// Open sends after the history: `uncertain` uncertain ones, then (with `awaiting`) one
/// accepted awaiting its answer, then 40 queued.
fn open_sends(ledger: &mut Ledger, name: &str, uncertain: i64, awaiting: bool) {
    let now = SystemClock.now_ms();
    let lease = ledger.lease(&tab(name)).unwrap();
    let conn = ledger.raw_connection();
    let (l, e) = (lease.lease_id.as_str(), lease.epoch.as_str());
    let mut q = conn
        .prepare("INSERT INTO sends(op_id, text, epoch, created_at, state, updated_at, actor) VALUES (?1, ?2, ?3, ?4, 'queued', ?4, 'bench') RETURNING seq")
        .unwrap();
    for k in 0..uncertain + 41 {
        let op = format!("{name}-{k}");
        let seq: i64 = q
            .query_row(params![op, text(k), e, now + k], |r| r.get(0))
            .unwrap();
        let edges: &[&str] = match k {
            k if k < uncertain => &["claim", "dispatch", "uncertain"],
            k if k == uncertain && awaiting => &["claim", "dispatch", "receipt", "accept"],
            _ => &[],
        };
        for edge in edges {
            let sql = EDGES.iter().find(|(n, _)| n == edge).unwrap().1;
            conn.execute(sql, params![seq, l, now + k]).unwrap();
        }
    }
}

fn tab(id: &str) -> sendledger::ledger::TabBinding {
    sendledger::ledger::TabBinding {
        tab_id: id.into(),
        ..Default::default()
    }
}

fn build(root: &Path, n: i64) -> PathBuf {
    let dir = root.join(format!("million-v2-{n}"));
    if dir.join(LEDGER_FILE).exists() && !dir.join("building").exists() {
        return dir;
    }
    let _ = std::fs::remove_dir_all(&dir);
    let profile = Profile::at(&dir).unwrap();
    std::fs::write(dir.join("building"), b"").unwrap();
    let t = Instant::now();
    let mut ledger = open(&profile);
    let now = SystemClock.now_ms();
    let t0 = now - SPAN_DAYS * DAY;
    let step = SPAN_DAYS * DAY / n;
    let files = make_files(&mut ledger, &Store::new(&dir), n, t0);
    let lease = ledger.lease(&tab("history-tab")).unwrap();
    let mut from = 0;
    while from < n {
        let to = (from + BATCH).min(n);
        build_batch(
            ledger.raw_connection(),
            (&lease.lease_id, &lease.epoch),
            from,
            to,
            t0,
            step,
            &files,
        );
        from = to;
        if from % 100_000 == 0 {
            eprintln!(
                "built {from} of {n} sends, {:.0} s",
                t.elapsed().as_secs_f64()
            );
        }
    }
    open_sends(&mut ledger, "open", 20, false);
    drop(ledger);
    std::fs::remove_file(dir.join("building")).unwrap();
    eprintln!("built {n} sends in {:.0} s", t.elapsed().as_secs_f64());
    dir
}

/// A scratch copy of the cached profile (the ledger and its store).
fn copy_profile(src: &Path, root: &Path, name: &str) -> Profile {
    let dir = root.join(name);
    let _ = std::fs::remove_dir_all(&dir);
    let status = Command::new("cp")
        .arg("-a")
        .arg(src)
        .arg(&dir)
        .status()
        .unwrap();
    assert!(status.success());
    Profile::at(&dir).unwrap()
}

struct Report(Vec<String>);

impl Report {
    fn times(&mut self, what: &str, mut v: Vec<Duration>, goal: &str) {
        v.sort();
        let p50 = v[v.len() / 2];
        let max = *v.last().unwrap();
        let line = format!(
            "{what:<44} p50 {p50:>10.2?}  max {max:>10.2?}  (n={}, goal {goal})",
            v.len()
        );
        println!("{line}");
        self.0.push(line);
    }
    fn line(&mut self, s: String) {
        println!("{s}");
        self.0.push(s);
    }
}

fn timed<T>(n: usize, mut f: impl FnMut() -> T) -> Vec<Duration> {
    (0..n)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed()
        })
        .collect()
}

/// Puts 40 queued sends and one dispatched back for the next start's recovery (untimed).
fn put_in_flight(ledger: &mut Ledger, round: usize) {
    let lease = ledger.lease(&tab(&format!("flight-{round}"))).unwrap();
    let conn = ledger.raw_connection();
    let now = SystemClock.now_ms();
    for k in 0..41 {
        let seq: i64 = conn
            .query_row("INSERT INTO sends(op_id, text, epoch, created_at, state, updated_at, actor) VALUES (?1, 'in flight', ?2, ?3, 'queued', ?3, 'bench') RETURNING seq", params![format!("flight-{round}-{k}"), lease.epoch, now], |r| r.get(0))
            .unwrap();
        if k == 0 {
            for edge in ["claim", "dispatch"] {
                let sql = EDGES.iter().find(|(n, _)| *n == edge).unwrap().1;
                conn.execute(sql, params![seq, lease.lease_id, now])
                    .unwrap();
            }
        }
    }
}

/// The `sendledger` binary the process figures run: `SENDLEDGER_BENCH_CLI` when set (a
/// copy of another build's, to compare two builds on one ledger in one sitting), else
/// this build's.
fn cli_binary() -> PathBuf {
    std::env::var_os("SENDLEDGER_BENCH_CLI")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_sendledger")))
}

fn cli(profile: &Profile, args: &[&str]) -> Duration {
    let t = Instant::now();
    let out = Command::new(cli_binary())
        .arg("--profile")
        .arg(profile.dir())
        .args(args)
        .output()
        .unwrap();
    let d = t.elapsed();
    if !out.status.success() {
        eprintln!(
            "sendledger {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    d
}

fn reads(r: &mut Report, profile: &Profile) {
    let mut ledger = open(profile);
    let mut samples = Vec::new();
    for round in 0..10 {
        put_in_flight(&mut ledger, round);
        drop(ledger);
        let t = Instant::now();
        ledger = open(profile);
        samples.push(t.elapsed());
    }
    r.times(
        "owner start (open_for_owner + recovery of 41)",
        samples,
        "≤ 300 ms",
    );
    if !skipped("check") {
        let t = Instant::now();
        let ok: String = ledger
            .raw_connection()
            .query_row("PRAGMA quick_check", [], |row| row.get(0))
            .unwrap();
        r.line(format!(
            "  (the whole-file check the owner runs after it starts: {:.1?}, {ok})",
            t.elapsed()
        ));
    }
    open_sends(&mut ledger, "live", 0, true);
    let view = queue_view(&ledger).unwrap();
    r.line(format!(
        "  (queue: {} pending, {} uncertain, {} stopped, {} history rows)",
        view.pending.len(),
        view.uncertain.len(),
        view.stopped.len(),
        view.history.len()
    ));
    r.times(
        "GET /v1/queue (queue_view)",
        timed(30, || queue_view(&ledger).unwrap()),
        "≤ 20 ms p50",
    );
    if !skipped("stages") {
        stages(r, &ledger);
    }
    r.times(
        "History, first page (200 rows)",
        timed(30, || {
            history_page(&ledger, None, HISTORY_ROWS as u32).unwrap()
        }),
        "≤ 20 ms",
    );
    let deep: String = ledger
        .raw_connection()
        .query_row(
            "SELECT op_id FROM sends WHERE state = 'completed' ORDER BY seq LIMIT 1 OFFSET 1000",
            [],
            |row| row.get(0),
        )
        .unwrap();
    r.times(
        "History, a deep page (200 rows, ~oldest)",
        timed(30, || {
            history_page(&ledger, Some(deep.clone()), HISTORY_ROWS as u32).unwrap()
        }),
        "≤ 20 ms",
    );
    drop(ledger);
    r.times(
        "sendledger status (a process)",
        (0..5).map(|_| cli(profile, &["status"])).collect(),
        "≤ 500 ms",
    );
    r.times(
        "status, in process (LedgerReader::status)",
        timed(10, || {
            sendledger::ledger::LedgerReader::open(profile)
                .unwrap()
                .status()
                .unwrap()
        }),
        "≤ 500 ms",
    );
}

/// Where the queue view's time goes: each of its reads alone, over the sends the view
/// shows (the shelves, then each per-row read for all of them), as a total per read.
fn stages(r: &mut Report, ledger: &Ledger) {
    use sendledger::ledger::{Send, Shelf};
    let shelves = [
        Shelf::Pending,
        Shelf::Uncertain,
        Shelf::StoppedPage {
            before: None,
            limit: 201,
        },
        Shelf::Settled {
            before: None,
            limit: 201,
        },
    ];
    let t = Instant::now();
    let sends: Vec<Send> = shelves
        .iter()
        .flat_map(|s| ledger.shelf(s).unwrap())
        .collect();
    let mut line = format!(
        "  (queue view's reads over its {} sends: shelves {:.2?}",
        sends.len(),
        t.elapsed()
    );
    let mut stage = |name: &str, f: &dyn Fn(&Send)| {
        let t = Instant::now();
        for s in &sends {
            f(s);
        }
        line.push_str(&format!(", {name} {:.2?}", t.elapsed()));
    };
    stage("timeline", &|s| drop(ledger.timeline(&s.op_id).unwrap()));
    stage("queued_again", &|s| {
        drop(ledger.queued_again_as(&s.op_id).unwrap())
    });
    stage("waiting", &|s| drop(ledger.waiting_sentence(s).unwrap()));
    stage("destination", &|s| {
        drop(ledger.destination(&s.op_id).unwrap())
    });
    stage("title", &|s| {
        let c = s.receipt.as_ref().map(|r| r.conversation_id.as_str());
        drop(ledger.conversation_title(c.unwrap_or("none")).unwrap())
    });
    stage("page_files", &|s| {
        drop(ledger.page_attachments(&s.op_id).unwrap())
    });
    stage("page_place", &|s| {
        drop(ledger.page_destination(&s.op_id).unwrap())
    });
    stage("artifacts", &|s| drop(ledger.artifacts(&s.op_id).unwrap()));
    stage("remote_stop", &|s| {
        drop(ledger.remote_stop(&s.op_id).unwrap())
    });
    r.line(line + ")");
}

fn upkeep(r: &mut Report, src: &Path, root: &Path) {
    let profile = copy_profile(src, root, "million-upkeep");
    let store = Store::new(profile.dir());
    let mut ledger = open(&profile);
    let (mut sweeps, mut files) = (Vec::new(), 0);
    loop {
        let t = Instant::now();
        let gone = sweep_once(&mut ledger, &store, KEEP_MS).unwrap();
        sweeps.push(t.elapsed());
        files += gone.len();
        if gone.len() < sendledger::owner::attachment_upkeep::SWEEP_BATCH {
            break;
        }
    }
    r.times(
        &format!("attachment upkeep pass ({files} files in all)"),
        sweeps,
        "bounded",
    );
    let t = Instant::now();
    let again = sweep_once(&mut ledger, &store, KEEP_MS).unwrap();
    r.line(format!(
        "attachment upkeep pass, nothing left to do: {:.2?} ({} files)",
        t.elapsed(),
        again.len()
    ));
    let before = used_bytes(ledger.raw_connection());
    let t = Instant::now();
    r.times(
        "retention pass, off (the default)",
        timed(20, || ledger.prune_retention(PRUNE_BATCH).unwrap()),
        "bounded",
    );
    ledger.set_retention(Some(365), "bench").unwrap();
    let mut passes = Vec::new();
    let mut pruned = 0;
    let all = Instant::now();
    loop {
        let t = Instant::now();
        let p = prune_once(&mut ledger, &store).unwrap();
        passes.push(t.elapsed());
        pruned += p.sends;
        if !p.more {
            break;
        }
    }
    let total = all.elapsed();
    let _ = t;
    r.times(
        &format!("retention pass ({PRUNE_BATCH} sends each)"),
        passes,
        "bounded",
    );
    r.line(format!(
        "retention 365 days: {pruned} sends pruned in {total:.1?}"
    ));
    r.times(
        "retention pass, nothing old left",
        timed(20, || ledger.prune_retention(PRUNE_BATCH).unwrap()),
        "bounded",
    );
    let after = used_bytes(ledger.raw_connection());
    r.line(format!(
        "used bytes before / after: {} / {} MB (the file keeps its size; freed pages are reused)",
        before / 1_000_000,
        after / 1_000_000
    ));
    drop(ledger);
    let _ = std::fs::remove_dir_all(profile.dir());
}

fn used_bytes(conn: &Connection) -> i64 {
    let q = |p: &str| -> i64 {
        conn.query_row(&format!("PRAGMA {p}"), [], |r| r.get(0))
            .unwrap()
    };
    (q("page_count") - q("freelist_count")) * q("page_size")
}

fn salvage(r: &mut Report, src: &Path, root: &Path) {
    let profile = copy_profile(src, root, "million-salvage");
    let path = profile.dir().join(LEDGER_FILE);
    let len = std::fs::metadata(&path).unwrap().len();
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    use std::os::unix::fs::FileExt;
    for k in 1..=64u64 {
        let page = (len / 4096) * k / 65;
        file.write_all_at(&[0xA5; 4096], page * 4096).unwrap();
    }
    drop(file);
    let d = cli(&profile, &["doctor"]);
    r.line(format!("sendledger doctor, damaged file: {d:.2?}"));
    let d = cli(&profile, &["doctor", "--full"]);
    r.line(format!("sendledger doctor --full, damaged file: {d:.2?}"));
    let d = cli(&profile, &["salvage"]);
    r.line(format!("sendledger salvage of the damaged file: {d:.1?}"));
    let _ = std::fs::remove_dir_all(profile.dir());
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-ledgers");
    std::fs::create_dir_all(&root).unwrap();
    let n = sends();
    let cached = build(&root, n);
    let mut r = Report(Vec::new());
    let size = std::fs::metadata(cached.join(LEDGER_FILE)).unwrap().len();
    r.line(format!(
        "{n} sends (+61 open): ledger file {} MB, {} bytes per send",
        size / 1_000_000,
        size as i64 / n
    ));
    let profile = copy_profile(&cached, &root, "million-reads");
    reads(&mut r, &profile);
    if !skipped("doctor") {
        r.times(
            "sendledger doctor (a process)",
            (0..3).map(|_| cli(&profile, &["doctor"])).collect(),
            "≤ 500 ms",
        );
        r.times(
            "sendledger doctor --full (a process)",
            vec![cli(&profile, &["doctor", "--full"])],
            "—",
        );
    }
    let _ = std::fs::remove_dir_all(profile.dir());
    if !skipped("upkeep") {
        upkeep(&mut r, &cached, &root);
    }
    if !skipped("salvage") {
        salvage(&mut r, &cached, &root);
    }
    println!("\n--- summary ---\n{}", r.0.join("\n"));
}
