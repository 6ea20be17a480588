//! `sendledger inspect`: what the parser sees in a captured file (through the library,
//! until the CLI's main has its `Inspect` subcommand).

#[path = "fixtures/chatgpt/support.rs"]
mod support;

use sendledger::cli::inspect::{detect, render, run, FileKind, InspectArgs};
use support::{fixture, fixture_dir};

#[test]
fn inspect_shows_receipt_candidates_answer_and_outcome_of_a_stream() {
    let out = render(
        "s.sse",
        &fixture("stream_delta_new_chat.sse"),
        Some("Draft a haiku about ledgers.\r\nKeep it short."),
        false,
    )
    .expect("a stream is recognised");
    assert!(out.contains("kind: stream"), "{out}");
    assert!(
        out.contains("user message 5d1c0b7e-2f4a-4c61-9a0e-6b2d8e1f3a47"),
        "{out}"
    );
    assert!(
        out.contains("turn a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d"),
        "{out}"
    );
    assert!(out.contains("matches --text"), "{out}");
    assert!(
        out.contains("-> answered by 7c6b5a49-3827-4165-b0a9-f8e7d6c5b4a3"),
        "{out}"
    );
    assert!(
        !out.contains("haiku") && !out.contains("Ink dries"),
        "human output never prints message text"
    );
}

#[test]
fn inspect_says_each_typed_outcome() {
    for (name, want) in [
        ("stream_delta_handoff.sse", "handed off"),
        ("stream_delta_interrupted.sse", "no answer yet"),
        ("stream_delta_moderated.sse", "blocked"),
        (
            "stream_delta_error.sse",
            "error: hourly message allowance used up",
        ),
    ] {
        let out = render(name, &fixture(name), None, false).unwrap();
        assert!(out.contains(&format!("-> {want}")), "{name}: {out}");
    }
}

#[test]
fn inspect_reads_requests_listings_and_websocket_logs() {
    let kinds = [
        ("request_new_chat_f.json", FileKind::Request),
        ("listing_mapping.json", FileKind::Listing),
        ("listing_paginated.json", FileKind::Listing),
        ("listing_error_404.json", FileKind::ErrorBody),
        ("websocket_handoff.jsonl", FileKind::WebSocketLog),
        ("stream_legacy_answered.sse", FileKind::Stream),
    ];
    for (name, kind) in kinds {
        assert_eq!(detect(&fixture(name)), Some(kind), "{name}");
        assert!(
            render(name, &fixture(name), Some("x"), false).is_some(),
            "{name}"
        );
    }
    let ws = render("w", &fixture("websocket_handoff.jsonl"), None, false).unwrap();
    assert!(
        ws.contains("answered by 3c4d5e6f-7081-4293-a4b5-c6d7e8f90123"),
        "{ws}"
    );
}

#[test]
fn inspect_json_is_one_document_with_the_outcome() {
    let out = render("s", &fixture("stream_delta_new_chat.sse"), None, true).unwrap();
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    assert_eq!(v["kind"], "stream");
    assert_eq!(v["outcomes"][0][1]["outcome"], "answered");
    assert_eq!(
        v["candidates"][0]["turn_id"],
        "a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d"
    );
}

#[test]
fn inspect_exits_2_with_what_to_do_when_the_file_is_not_recognised() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("page.html");
    std::fs::write(&p, "<html><body>not a capture</body></html>").unwrap();
    let code = run(&InspectArgs {
        file: p,
        text: None,
        json: false,
    });
    assert_eq!(
        format!("{code:?}"),
        format!("{:?}", std::process::ExitCode::from(2))
    );
    let missing = run(&InspectArgs {
        file: dir.path().join("absent"),
        text: None,
        json: true,
    });
    assert_eq!(
        format!("{missing:?}"),
        format!("{:?}", std::process::ExitCode::from(2))
    );
    let ok = run(&InspectArgs {
        file: fixture_dir().join("request_variant.json"),
        text: None,
        json: true,
    });
    assert_eq!(
        format!("{ok:?}"),
        format!("{:?}", std::process::ExitCode::SUCCESS)
    );
}
