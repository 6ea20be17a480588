//! Load over loopback HTTP (issue 5): two clients queue 1,000 sends each at once while
//! two leases take and fail sends: 2,000 rows, none lost or doubled, and never more than
//! one send of the profile in flight.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

const PER_CLIENT: usize = 1_000;

#[test]
fn two_clients_queueing_a_thousand_sends_each_lose_nothing_and_one_send_is_in_flight() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let ext = serve.pair();
    let leases = [ext.lease("tab-a"), ext.lease("tab-b")];
    let queuing_done = Arc::new(AtomicBool::new(false));
    let holding = Arc::new(AtomicUsize::new(0));
    let overlaps = Arc::new(AtomicUsize::new(0));
    let handed = Arc::new(Mutex::new(Vec::<String>::new()));

    let workers: Vec<_> = leases
        .iter()
        .map(|lease| {
            let (ext, lease) = (ext.fresh(), lease.clone());
            let (done, holding, overlaps, handed) = (
                queuing_done.clone(),
                holding.clone(),
                overlaps.clone(),
                handed.clone(),
            );
            std::thread::spawn(move || loop {
                let finished = done.load(Ordering::SeqCst);
                let Some(send) = ext.next(&lease, 200) else {
                    if finished {
                        return;
                    }
                    continue;
                };
                // A claim exists only while no other send is in flight; it ends when
                // the failure commits, which happens after this release.
                if holding.fetch_add(1, Ordering::SeqCst) != 0 {
                    overlaps.fetch_add(1, Ordering::SeqCst);
                }
                let op = send["op_id"].as_str().unwrap().to_string();
                handed.lock().unwrap().push(op.clone());
                holding.fetch_sub(1, Ordering::SeqCst);
                let f = ext.fail(&lease, &op, "before_dispatch", "load test");
                assert_eq!(f.body["send"]["state"], "rejected", "{}", f.body);
            })
        })
        .collect();

    let clients: Vec<_> = ["a", "b"]
        .into_iter()
        .map(|name| {
            let client = serve.client();
            std::thread::spawn(move || {
                for i in 0..PER_CLIENT {
                    let op = format!("{name}-{i:04}");
                    let send = client.queue(&op, &format!("load {op}"));
                    assert_eq!(send["op_id"], op.as_str());
                }
            })
        })
        .collect();
    for c in clients {
        c.join().expect("a client thread finished");
    }
    queuing_done.store(true, Ordering::SeqCst);
    for w in workers {
        w.join().expect("a worker finished");
    }

    assert_eq!(
        overlaps.load(Ordering::SeqCst),
        0,
        "never two sends handed out at once"
    );
    let conn = read_only(&profile);
    let rows: Vec<(String, String)> = conn
        .prepare("SELECT op_id, state FROM sends")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert_eq!(rows.len(), 2 * PER_CLIENT, "every queued send is a row");
    let ids: BTreeSet<_> = rows.iter().map(|(op, _)| op.clone()).collect();
    for name in ["a", "b"] {
        for i in 0..PER_CLIENT {
            assert!(
                ids.contains(&format!("{name}-{i:04}")),
                "{name}-{i:04} lost"
            );
        }
    }
    let handed = handed.lock().unwrap();
    let unique: BTreeSet<_> = handed.iter().collect();
    assert_eq!(unique.len(), handed.len(), "no send handed out twice");
    let in_flight = rows
        .iter()
        .filter(|(_, s)| s == "claimed" || s == "dispatched")
        .count();
    assert!(
        in_flight <= 1,
        "at most one send in flight, found {in_flight}"
    );
    for (op, state) in rows.iter() {
        let expected = if unique.contains(op) {
            "rejected"
        } else {
            "queued"
        };
        assert_eq!(state, expected, "{op}");
    }
    eprintln!(
        "{} sends queued, {} handed out and failed while queuing",
        rows.len(),
        handed.len()
    );
}
