//! A damaged ledger is never written (issue 40): 4 KiB of random bytes written over each
//! page in turn of a ledger of 300 sends, and the real `sendledger serve` started on it.
//! Either the start is refused (exit non-zero, the file named, the file not touched), or
//! the owner starts and a new send is either refused `ledger_damaged` — and so is every
//! write after it — or acknowledged into a file SQLite's own `integrity_check` finds whole
//! (the bytes fell where nothing lives: a free page). Never a 201 from a damaged file.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use rand::{rngs::StdRng, RngCore, SeedableRng};
use sendledger::ledger::{Ledger, QueueRequest};
use sendledger::profile::{Profile, LEDGER_FILE};
use serde_json::json;
use std::path::Path;
use std::sync::Arc;

const SENDS: usize = 300;
const DAMAGE: usize = 4096;

/// A ledger of [`SENDS`] queued sends, made through the ledger's acts; its bytes.
fn healthy_ledger() -> Vec<u8> {
    let (_tmp, dir) = profile_dir();
    let profile = Profile::at(dir.clone()).unwrap();
    let (mut ledger, _) = Ledger::open(&profile, Arc::new(sendledger::clock::SystemClock)).unwrap();
    for i in 0..SENDS {
        let text = format!("message {i}: {}", "words of an ordinary message ".repeat(8));
        let req = QueueRequest {
            op_id: Some(format!("op-{i}")),
            text,
            ..Default::default()
        };
        ledger.queue(&req, "test").unwrap();
    }
    drop(ledger); // checkpoints the WAL into the file
    std::fs::read(dir.join(LEDGER_FILE)).unwrap()
}

/// SQLite's page size from the file header (bytes 16–17, big-endian; 1 means 65,536).
fn page_size(bytes: &[u8]) -> usize {
    match u16::from_be_bytes([bytes[16], bytes[17]]) {
        1 => 65_536,
        n => n as usize,
    }
}

/// `PRAGMA integrity_check`'s first line for the ledger in `dir`.
fn integrity(dir: &Path) -> String {
    read_only(dir)
        .query_row("PRAGMA integrity_check", [], |r| r.get::<_, String>(0))
        .unwrap_or_else(|e| e.to_string())
}

/// The first answer to a new send that is not `ledger_checking` (the owner checks a large
/// file whole right after its start, writes held meanwhile).
fn queue_once_checked(client: &Http, op_id: &str) -> Answer {
    loop {
        let a = client.post(
            "/v1/sends",
            &json!({ "op_id": op_id, "text": "after the damage" }),
        );
        if a.code() != "ledger_checking" {
            return a;
        }
        assert_eq!(a.status, 503, "{}", a.body);
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// What became of the ledger damaged at `page`, with the owner's environment `env`; `Err`
/// when the rule was broken.
fn try_page(
    healthy: &[u8],
    page: usize,
    size: usize,
    env: &[(&str, &str)],
) -> Result<&'static str, String> {
    let (_tmp, dir) = profile_dir();
    let mut bytes = healthy.to_vec();
    let at = page * size;
    let end = (at + DAMAGE).min(bytes.len());
    StdRng::seed_from_u64(page as u64).fill_bytes(&mut bytes[at..end]);
    std::fs::write(dir.join(LEDGER_FILE), &bytes).unwrap();
    let mut serve = match Serve::try_start_limited(&dir, &["--port", "0"], None, env) {
        Err(failed) => {
            let named = failed.stderr.contains(LEDGER_FILE) && failed.stderr.contains("damaged");
            // Checked after the start, the owner's own start (recovery) may have written.
            let deferred = !env.is_empty();
            let untouched = deferred || std::fs::read(dir.join(LEDGER_FILE)).unwrap() == bytes;
            if failed.status.success() || !named || !untouched {
                return Err(format!(
                    "page {page}: a refused start must fail naming the file, untouched ({}, untouched {untouched}): {}",
                    failed.status, failed.stderr
                ));
            }
            return Ok("refused at start");
        }
        Ok(serve) => serve,
    };
    let client = serve.client();
    let first = queue_once_checked(&client, "after");
    if first.status == 201 {
        serve.terminate();
        serve.wait_exit();
        let found = integrity(&dir);
        return match found.as_str() {
            "ok" => Ok("harmless: acknowledged into a whole file"),
            _ => Err(format!("page {page}: 201 from a damaged file ({found})")),
        };
    }
    let again = queue_once_checked(&client, "again");
    if (first.status, first.code()) != (503, "ledger_damaged") || again.code() != "ledger_damaged" {
        return Err(format!(
            "page {page}: expected 503 ledger_damaged twice, got {} {} then {} {}",
            first.status, first.body, again.status, again.body
        ));
    }
    Ok("the gate closed at the first write")
}

/// Every page in turn, with the owner's environment `env`: how many ended which way.
fn every_page(env: &[(&str, &str)]) -> (usize, std::collections::BTreeMap<&'static str, usize>) {
    let healthy = healthy_ledger();
    let size = page_size(&healthy);
    let pages = healthy.len() / size;
    assert!(pages > 20, "a ledger of a few hundred sends: {pages} pages");
    let mut seen = std::collections::BTreeMap::<&str, usize>::new();
    let mut broken = Vec::new();
    for page in 0..pages {
        match try_page(&healthy, page, size, env) {
            Ok(what) => *seen.entry(what).or_default() += 1,
            Err(e) => broken.push(e),
        }
    }
    assert!(
        broken.is_empty(),
        "{} of {pages} pages broke the rule:\n{}",
        broken.len(),
        broken.join("\n")
    );
    eprintln!("{pages} pages of {size} bytes, {env:?}: {seen:?}");
    (pages, seen)
}

#[test]
fn a_damaged_ledger_is_refused_at_start_or_closes_the_gate_before_any_write_is_acknowledged() {
    let (pages, seen) = every_page(&[]);
    assert!(
        seen.get("refused at start").is_some_and(|n| *n > pages / 2),
        "{seen:?}"
    );
}

/// The same with the whole-file check made right after the start, as for a ledger too large
/// to check before listening (the bound set to 0 bytes through the test-only setting):
/// writes wait for the check (`ledger_checking`), and a damaged file closes the gate.
#[test]
fn a_large_ledger_checked_after_the_start_acknowledges_no_write_before_it_passes() {
    let (_, seen) = every_page(&[("SENDLEDGER_INLINE_CHECK_BYTES", "0")]);
    assert!(
        seen.get("the gate closed at the first write")
            .is_some_and(|n| *n > 0),
        "{seen:?}"
    );
}

/// Damage SQLite meets while the owner runs closes the gate for good: the page holding an
/// early send is overwritten under a running ledger, a read of that send finds it
/// ("malformed"), and from then on every write is refused `ledger_damaged` — also one that
/// would touch only healthy pages (a new send goes to the last page), which SQLite alone
/// would have committed into the damaged file.
#[test]
fn damage_found_while_the_owner_runs_closes_the_gate_for_every_later_write() {
    use sendledger::error_code::ErrorCode;
    use sendledger::ledger::LedgerRead;
    let (_tmp, dir) = profile_dir();
    std::fs::write(dir.join(LEDGER_FILE), healthy_ledger()).unwrap();
    let profile = Profile::at(dir.clone()).unwrap();
    let (mut ledger, _) = Ledger::open(&profile, Arc::new(sendledger::clock::SystemClock)).unwrap();
    // Every page in the file itself (recovery's rewrite of the queued sends included).
    ledger
        .raw_connection()
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .unwrap();
    let bytes = std::fs::read(dir.join(LEDGER_FILE)).unwrap();
    let size = page_size(&bytes);
    let row = bytes
        .windows(16)
        .position(|w| w == b"message 5: words")
        .expect("op-5's row in the file");
    let page = row / size;
    let mut damage = vec![0u8; size];
    StdRng::seed_from_u64(5).fill_bytes(&mut damage);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.join(LEDGER_FILE))
        .unwrap();
    std::io::Seek::seek(&mut f, std::io::SeekFrom::Start((page * size) as u64)).unwrap();
    std::io::Write::write_all(&mut f, &damage).unwrap();
    f.sync_all().unwrap();
    // The owner's page cache forgets what it read; the next read of that page is from disk.
    ledger
        .raw_connection()
        .execute_batch("PRAGMA shrink_memory")
        .unwrap();
    let read = ledger.get("op-5").expect_err("op-5's page is damaged");
    assert_eq!(read.code(), ErrorCode::LedgerDamaged, "{read}");
    assert!(
        read.to_string().contains("sendledger salvage"),
        "says what to do: {read}"
    );
    let req = QueueRequest {
        op_id: Some("after".into()),
        text: "after the damage".into(),
        ..Default::default()
    };
    let write = ledger
        .queue(&req, "test")
        .expect_err("never acknowledged from a damaged file");
    assert_eq!(write.code(), ErrorCode::LedgerDamaged, "{write}");
    let stop = ledger.stop("alice").expect_err("nothing more is written");
    assert_eq!(stop.code(), ErrorCode::LedgerDamaged, "{stop}");
    drop(ledger);
    let after: i64 = read_only(&dir)
        .query_row(
            "SELECT count(*) FROM sends WHERE op_id = 'after'",
            [],
            |r| r.get(0),
        )
        .unwrap_or(0);
    assert_eq!(after, 0, "the new send was not written");
}
