//! The profile's status site by site (issue 36): what `status`, the tray and the window's
//! header say holds sends back names the site it holds (its usage limit, its missing tab)
//! and the sites whose sends go on; the Pending count is also kept per site. Read from the
//! ledger with a manual clock, through the same reads the owner's answers use.

mod support;

use sendledger::api::queue;
use sendledger::ledger::{
    Ledger, LedgerRead, LimitHold, PageError, QueueRequest, SendState, TabBinding,
};
use sendledger::site::Site;
use std::collections::BTreeMap;
use support::*;

/// A send of `site` to a new chat.
fn request_on(site: Site, op: &str) -> QueueRequest {
    QueueRequest {
        site: Some(site),
        ..request(op, &format!("text of {op}"))
    }
}

/// A lease of a tab of `site` showing no conversation.
fn lease_on(ledger: &mut Ledger, site: Site, tab_id: &str) -> String {
    let binding = TabBinding {
        site,
        ..tab(tab_id)
    };
    ledger.lease(&binding).expect("lease").lease_id
}

/// Caps `site`'s account until `until` (ms): a send of it is taken by a tab of it, clicked,
/// accepted, and answered with the usage limit. The tab stays leased.
fn cap(ledger: &mut Ledger, site: Site, until: i64) {
    let op = format!("capped-{site}");
    ledger.queue(&request_on(site, &op), "test").unwrap();
    let lease = lease_on(ledger, site, &format!("tab-capped-{site}"));
    let claimed = ledger.claim_next(&lease).unwrap().expect("claimed");
    assert_eq!(claimed.op_id, op);
    ledger.dispatch(&op, &lease).unwrap();
    ledger.accept(&op, &receipt(&op), "extension").unwrap();
    let limit = PageError {
        message: "You have reached your message limit.".into(),
        limit: Some(LimitHold {
            until_ms: Some(until),
        }),
    };
    ledger.page_error(&op, &limit, "extension").unwrap();
    assert_eq!(state_of(ledger, &op), SendState::PageError);
}

/// What the header and the tray read: (sentence, few words).
fn said(ledger: &Ledger) -> (String, String) {
    let s = queue::queue_status(ledger).unwrap();
    let status = ledger.status().unwrap();
    assert_eq!(
        status.waiting_sentence, s.waiting,
        "`status` and the queue say the same"
    );
    (
        s.waiting.expect("something holds sends back"),
        s.waiting_words.expect("in words too"),
    )
}

#[test]
fn a_claude_limit_does_not_say_chatgpt_sends_wait() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    cap(&mut ledger, Site::Claude, fx.clock_now() + 3_600_000);
    lease_on(&mut ledger, Site::Chatgpt, "tab-g");
    ledger
        .queue(&request_on(Site::Chatgpt, "goes"), "test")
        .unwrap();
    let (sentence, words) = said(&ledger);
    assert_eq!(words, "Claude limit");
    assert!(
        sentence.starts_with("Claude usage limit until "),
        "{sentence}"
    );
    assert!(sentence.ends_with("; ChatGPT sends go on"), "{sentence}");
    assert!(
        sentence.contains("`sendledger resume --by WHO`"),
        "{sentence}"
    );
    let status = ledger.status().unwrap();
    let holds = status.holds.expect("the holds");
    assert_eq!(holds.going, vec![Site::Chatgpt]);
    assert_eq!(holds.held[0].site(), Some(Site::Claude));
}

/// The reverse: ChatGPT capped while a Claude tab takes Claude's sends.
#[test]
fn a_chatgpt_limit_does_not_say_claude_sends_wait() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    cap(&mut ledger, Site::Chatgpt, fx.clock_now() + 3_600_000);
    lease_on(&mut ledger, Site::Claude, "tab-c");
    let (sentence, words) = said(&ledger);
    assert_eq!(words, "ChatGPT limit");
    assert!(
        sentence.starts_with("ChatGPT usage limit until "),
        "{sentence}"
    );
    assert!(sentence.ends_with("; Claude sends go on"), "{sentence}");
}

#[test]
fn a_missing_claude_tab_is_named_while_chatgpt_sends_go_on() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    lease_on(&mut ledger, Site::Chatgpt, "tab-g");
    ledger
        .queue(&request_on(Site::Claude, "waits"), "test")
        .unwrap();
    let (sentence, words) = said(&ledger);
    assert_eq!(words, "no Claude tab");
    assert!(
        sentence.starts_with("no claude.ai tab for the Claude sends waiting: open claude.ai"),
        "{sentence}"
    );
    assert!(sentence.ends_with("; ChatGPT sends go on"), "{sentence}");
}

/// A missing tab of a site none of whose sends wait says nothing: ChatGPT alone goes on.
#[test]
fn a_site_without_a_tab_or_a_waiting_send_is_not_said() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    lease_on(&mut ledger, Site::Chatgpt, "tab-g");
    ledger
        .queue(&request_on(Site::Chatgpt, "goes"), "test")
        .unwrap();
    assert_eq!(queue::queue_status(&ledger).unwrap().waiting, None);
    assert!(ledger.status().unwrap().holds.is_none());
}

/// With ChatGPT the only site in play, the words are the ones said before sites.
#[test]
fn with_chatgpt_alone_in_play_the_words_are_those_said_before_sites() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    cap(&mut ledger, Site::Chatgpt, fx.clock_now() + 60_000);
    let (sentence, words) = said(&ledger);
    assert_eq!(words, "usage limit");
    assert!(
        sentence.starts_with("ChatGPT usage limit: sending resumes at "),
        "{sentence}"
    );
    let fx = Fixture::new();
    let ledger = fx.open();
    let (sentence, words) = said(&ledger);
    assert_eq!(words, "no tab", "the first run: {sentence}");
}

/// Both capped: each named, none going on.
#[test]
fn both_sites_capped_are_both_named() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    cap(&mut ledger, Site::Chatgpt, fx.clock_now() + 60_000);
    cap(&mut ledger, Site::Claude, fx.clock_now() + 120_000);
    let (sentence, words) = said(&ledger);
    assert_eq!(words, "ChatGPT limit, Claude limit");
    assert!(!sentence.contains("go on"), "{sentence}");
}

#[test]
fn the_queue_status_counts_pending_per_site() {
    let fx = Fixture::new();
    let mut ledger = fx.open();
    for (site, op) in [
        (Site::Chatgpt, "g1"),
        (Site::Claude, "c1"),
        (Site::Chatgpt, "g2"),
    ] {
        ledger.queue(&request_on(site, op), "test").unwrap();
    }
    let want = BTreeMap::from([(Site::Chatgpt, 2), (Site::Claude, 1)]);
    let s = queue::queue_status(&ledger).unwrap();
    assert_eq!((s.pending, &s.pending_by_site), (3, &want));
    assert_eq!(queue::queue_view(&ledger).unwrap().status, s);
    assert_eq!(ledger.status().unwrap().pending_by_site, want);
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(
        json["pending_by_site"],
        serde_json::json!({ "chatgpt": 2, "claude": 1 })
    );
    let mut old = json.clone();
    old.as_object_mut().unwrap().remove("pending_by_site");
    let read: queue::QueueStatus = serde_json::from_value(old).expect("an older owner's answer");
    assert!(read.pending_by_site.is_empty());
}

/// The per-site count reads the Pending section through its indexes, as the section does.
#[test]
fn the_pending_count_per_site_is_read_through_the_sections_indexes() {
    let fx = Fixture::new();
    let ledger = fx.open();
    let sql = sendledger::ledger::pending_by_site_sql();
    let conn = ledger.raw_connection();
    let plan = query_plan(conn, &sql, "1");
    for step in &plan {
        assert!(
            !step.starts_with("SCAN s") || step.contains("INDEX"),
            "{sql} scans the sends table: {plan:#?}"
        );
    }
    for index in ["sends_by_state", "sends_awaiting_answer"] {
        assert!(plan.iter().any(|s| s.contains(index)), "{index}: {plan:#?}");
    }
}
