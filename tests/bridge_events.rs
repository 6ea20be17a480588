//! The change feed and the expiry bounds end to end (issue 5): `GET /v1/events` streams
//! each transition once it is committed and resumes after `?after=ID` / `Last-Event-ID`;
//! a claim with no grant asked within `--claim-ms` is rejected, a dispatch with no
//! receipt within `--receipt-ms` becomes uncertain, each with an audit event.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;

/// Whether the ledger file holds event `id` (an event is streamed only once committed).
fn committed(profile: &std::path::Path, id: i64) -> bool {
    read_only(profile)
        .query_row("SELECT count(*) FROM events WHERE id = ?1", [id], |r| {
            r.get::<_, i64>(0)
        })
        .expect("events readable")
        == 1
}

#[test]
fn the_event_stream_carries_each_transition_once_committed_and_resumes_after_an_id() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let mut live = client.events(None);
    client.queue("op-1", "watched");
    let queued = live.next_event();
    assert_eq!(queued.event, "transition");
    assert_eq!(queued.data["op_id"], "op-1");
    assert_eq!(queued.data["to"], "queued");
    let queued_id: i64 = queued.id.parse().expect("the SSE id is the event id");
    assert_eq!(queued.data["id"], queued_id);
    assert!(committed(&profile, queued_id), "streamed after its commit");

    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    ext.next(&lease, 5_000).expect("claimed");
    let claimed = live.next_event();
    assert_eq!(
        (
            &claimed.data["op_id"],
            &claimed.data["to"],
            &claimed.data["actor"]
        ),
        (&"op-1".into(), &"claimed".into(), &"extension".into())
    );
    let claimed_id: i64 = claimed.id.parse().unwrap();
    assert!(claimed_id > queued_id, "ids grow");
    assert!(committed(&profile, claimed_id));
    assert_eq!(ext.dispatch(&lease, "op-1").status, 200);
    let dispatched = live.next_event();
    assert_eq!(dispatched.data["to"], "dispatched");

    // Resume after the first event: the backlog starts right after it, in order.
    let mut resumed = client.events(Some(queued_id));
    let again = resumed.next_event();
    assert_eq!(again.id, claimed.id, "resumes right after ?after=ID");
    assert_eq!(resumed.next_event().id, dispatched.id);
    let mut by_header = client.events_resuming(None, Some(claimed_id));
    assert_eq!(
        by_header.next_event().id,
        dispatched.id,
        "Last-Event-ID resumes too"
    );
    let mut all = client.events(Some(0));
    assert_eq!(
        all.next_event().id,
        queued.id,
        "after=0 replays from the start"
    );

    // Live events after the backlog, with nothing repeated.
    client.queue("op-2", "after the backlog");
    let next = resumed.next_event();
    assert_eq!(
        (&next.data["op_id"], &next.data["to"]),
        (&"op-2".into(), &"queued".into()),
        "the backlog hands over to live events with nothing repeated or lost"
    );
    assert_eq!(live.next_event().id, next.id, "every stream sees it");
}

#[test]
fn a_claim_with_no_grant_asked_in_time_is_rejected_by_the_owner_with_an_audit_event() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &["--claim-ms", "300"]);
    let client = serve.client();
    let mut feed = client.events(None);
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    client.queue("op-1", "claimed and forgotten");
    assert_eq!(ext.next(&lease, 5_000).expect("claimed")["op_id"], "op-1");
    let expired = feed.wait_for("op-1", "rejected");
    assert_eq!(expired["from"], "claimed");
    assert_eq!(expired["actor"], "owner", "the owner's expiry sweep did it");
    assert!(
        expired["evidence"]
            .as_str()
            .unwrap()
            .contains("claim expired"),
        "{expired}"
    );
    let late = ext.dispatch(&lease, "op-1");
    assert_eq!(
        late.code(),
        "not_granted",
        "no grant after the expiry: {}",
        late.body
    );
    client.queue("op-2", "the queue moved on");
    assert_eq!(
        ext.next(&lease, 5_000).expect("the queue is free")["op_id"],
        "op-2",
        "the queue never stalls behind a claim nobody works on"
    );
}

#[test]
fn a_dispatch_with_no_receipt_in_time_becomes_uncertain_with_an_audit_event() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &["--receipt-ms", "300"]);
    let client = serve.client();
    let mut feed = client.events(None);
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    client.queue("op-1", "clicked, never seen");
    ext.next(&lease, 5_000).expect("claimed");
    assert_eq!(ext.dispatch(&lease, "op-1").status, 200);
    let expired = feed.wait_for("op-1", "uncertain");
    assert_eq!(expired["from"], "dispatched");
    assert_eq!(expired["actor"], "owner");
    assert!(
        expired["evidence"].as_str().unwrap().contains("no receipt"),
        "{expired}"
    );
    client.queue("op-2", "next in line");
    assert_eq!(
        ext.next(&lease, 5_000).expect("the queue is free")["op_id"],
        "op-2",
        "an uncertain send no longer holds the queue, and is not handed out again"
    );
}

#[test]
fn resuming_after_a_backlog_of_more_than_ten_thousand_events_loses_none() {
    let (_tmp, profile) = profile_dir();
    {
        // 6,000 queued sends written in one transaction; the owner's recovery then
        // rejects them all: 12,000 events before anyone listens.
        let p = sendledger::profile::Profile::at(&profile).expect("the profile");
        let clock = std::sync::Arc::new(sendledger::clock::SystemClock);
        let (ledger, _) = sendledger::ledger::Ledger::open(&p, clock).expect("a new ledger");
        ledger
            .raw_connection()
            .execute(
                "INSERT INTO sends(op_id, text, epoch, created_at, state, updated_at, actor) \
                 WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6000) \
                 SELECT 'bulk-' || i, 'backlog', ?1, 0, 'queued', 0, 'test' FROM n",
                [sendledger::ledger::unbound_epoch(0)],
            )
            .expect("the backlog is written");
    }
    let serve = Serve::start(&profile, &[]);
    let ids: Vec<i64> = read_only(&profile)
        .prepare("SELECT id FROM events ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert!(ids.len() >= 12_000, "the backlog is there: {}", ids.len());
    let client = serve.client();
    let mut all = client.events(Some(0));
    for (i, id) in ids.iter().enumerate() {
        let got: i64 = all.next_event().id.parse().unwrap();
        assert_eq!(got, *id, "event {i} of the backlog, in order, none skipped");
    }
    client.queue("after-backlog", "live again");
    let live = all.next_event();
    assert_eq!(
        live.data["op_id"], "after-backlog",
        "then live events follow"
    );
}
