//! Fuzzes the ChatGPT stream decoder: any bytes, fed whole and fed in chunks whose
//! sizes the input chooses (with a snapshot every 64 chunks), must decode without panicking to the same observation;
//! the outcome and receipt functions must accept whatever comes out. With the first
//! byte odd, the rest is also fed as WebSocket frames, one per line.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sendledger::provider::chatgpt::{self, request, stream::StreamDecoder};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mut whole = StreamDecoder::new();
    whole.feed(rest);
    let mut split = StreamDecoder::new();
    let mut at = 0;
    let mut step = usize::from(mode % 17) + 1;
    let mut chunks = 0u32;
    while at < rest.len() {
        let end = (at + step).min(rest.len());
        split.feed(&rest[at..end]);
        chunks += 1;
        if chunks % 64 == 0 {
            let _ = split.snapshot();
        }
        at = end;
        step = step * 7 % 23 + 1;
    }
    if mode & 1 == 1 {
        for line in String::from_utf8_lossy(rest).lines() {
            whole.feed_websocket_item(line);
            split.feed_websocket_item(line);
        }
    }
    let a = whole.finish();
    let b = split.finish();
    assert_eq!(a, b, "a split changed the observation");
    let req = request::ConversationRequest {
        action: request::Action::Next,
        user_message_id: a.messages.first().map(|m| m.id.clone()).unwrap_or_default(),
        text: a
            .messages
            .first()
            .map(|m| m.text.clone())
            .unwrap_or_default(),
        conversation_id: None,
        parent_message_id: None,
        model: None,
    };
    let _ = chatgpt::receipt_for(&req, &a, &req.text);
    for m in &a.messages {
        let _ = chatgpt::answer_outcome(&a, &m.id).to_string();
    }
});
