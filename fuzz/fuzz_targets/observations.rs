//! Fuzzes the observations path as the owner applies it (`bridge::observations::Tracker`,
//! everything but the ledger commits): a tracked stream fed chunks in any `seq` order,
//! WebSocket frames and its end. Inputs are structure-aware: delta v1 ops whose values
//! nest to a chosen depth and land at the innermost point of an earlier one, so depth
//! builds up over several operations, mixed with raw text and frames.
//!
//! Asserts, on a thread with a tokio worker's 2 MiB stack: nothing panics or overflows
//! it; a stream refused as too deep shows no fact afterwards; at most one receipt and one
//! answer per stream.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sendledger::bridge::observations::{Fact, Input, Tracker};
use sendledger::provider::chatgpt::request::{Action, ConversationRequest};

const TEXT: &str = "Draft a haiku about ledgers.";
const USER_MESSAGE: &str = "5d1c0b7e-2f4a-4c61-9a0e-6b2d8e1f3a47";

/// What a value nests: `depth` objects (key `a`) or arrays, around a string leaf.
#[derive(Arbitrary, Debug)]
struct Shape {
    depth: u8,
    arrays: bool,
}

#[derive(Arbitrary, Debug)]
enum OpName {
    Add,
    Append,
    Replace,
    Patch,
}

/// One piece of the stream, rendered to SSE text (or a frame).
#[derive(Arbitrary, Debug)]
enum Piece {
    /// A delta op on root `c`: its value shaped by `shape`, at the innermost point so
    /// far (`at_innermost`) or at the root's `/message/content/parts/0`.
    Delta {
        c: u8,
        op: OpName,
        shape: Shape,
        at_innermost: bool,
    },
    /// A new root: `{"message": …}` with the user's or an assistant's message.
    Root { c: u8, assistant: bool, done: bool },
    /// A typed control event.
    Control(u8),
    /// Raw bytes into the stream (split anywhere).
    Raw(String),
    /// A chunk boundary here, delivered with this `seq` offset (reordering).
    Cut(u8),
    /// A WebSocket frame carrying the text rendered so far as one stream item.
    Frame(u16),
    /// `stream_end`.
    End,
}

fn nest(shape: &Shape, leaf: &str) -> (String, String) {
    let d = usize::from(shape.depth);
    let (open, close, step) = if shape.arrays {
        ("[", "]", "/0")
    } else {
        ("{\"a\":", "}", "/a")
    };
    let value = open.repeat(d) + &format!("\"{leaf}\"") + &close.repeat(d);
    (value, step.repeat(d))
}

/// Renders pieces into forwarded inputs, keeping the innermost path of each root.
fn render(pieces: &[Piece]) -> Vec<Input> {
    let mut inputs = Vec::new();
    let mut text = String::from("event: delta_encoding\ndata: \"v1\"\n\n");
    let mut innermost: [String; 4] = Default::default();
    let mut seq = 0u64;
    for p in pieces {
        match p {
            Piece::Delta { c, op, shape, at_innermost } => {
                let c = usize::from(c % 4);
                let (value, step) = nest(shape, "x");
                let path = if *at_innermost {
                    innermost[c].clone()
                } else {
                    "/message/content/parts/0".to_string()
                };
                let (o, v) = match op {
                    OpName::Add => ("add", value),
                    OpName::Append => ("append", value),
                    OpName::Replace => ("replace", value),
                    OpName::Patch => ("patch", format!("[{{\"p\":\"\",\"o\":\"append\",\"v\":{value}}}]")),
                };
                text.push_str(&format!("event: delta\ndata: {{\"c\":{c},\"p\":\"{path}\",\"o\":\"{o}\",\"v\":{v}}}\n\n"));
                if *at_innermost && !shape.arrays {
                    innermost[c].push_str(&step);
                }
            }
            Piece::Root { c, assistant, done } => {
                let c = usize::from(c % 4);
                let (id, role) = if *assistant { ("m-answer", "assistant") } else { (USER_MESSAGE, "user") };
                let status = if *done { "finished_successfully" } else { "in_progress" };
                text.push_str(&format!(
                    "event: delta\ndata: {{\"c\":{c},\"p\":\"\",\"o\":\"add\",\"v\":{{\"conversation_id\":\"c-1\",\"message\":{{\"id\":\"{id}\",\"author\":{{\"role\":\"{role}\"}},\"recipient\":\"all\",\"status\":\"{status}\",\"end_turn\":{done},\"content\":{{\"content_type\":\"text\",\"parts\":[\"{TEXT}\"]}},\"metadata\":{{\"turn_exchange_id\":\"t-1\"}}}}}}}}\n\n"
                ));
                innermost[c] = String::new();
            }
            Piece::Control(k) => text.push_str(match k % 4 {
                0 => "data: {\"type\":\"message_stream_complete\",\"conversation_id\":\"c-1\"}\n\n",
                1 => "data: {\"type\":\"stream_handoff\",\"turn_exchange_id\":\"t-1\",\"options\":[]}\n\n",
                2 => "data: [DONE]\n\n",
                _ => "data: {\"type\":\"server_ste_metadata\",\"metadata\":{\"turn_exchange_id\":\"t-1\"}}\n\n",
            }),
            Piece::Raw(s) => text.push_str(s),
            Piece::Cut(offset) => {
                let at = seq + u64::from(offset % 3);
                inputs.push(Input::Chunk(at, std::mem::take(&mut text)));
                seq += 1;
            }
            Piece::Frame(id) => {
                let frame = serde_json::json!({"type": "message", "payload": {"type": "conversation-turn-stream",
                    "payload": {"type": "stream-item", "encoded_item": text, "stream_item_id": id.to_string()}}});
                inputs.push(Input::Websocket(frame.to_string()));
            }
            Piece::End => inputs.push(Input::End),
        }
    }
    inputs.push(Input::Chunk(seq, text));
    inputs.push(Input::End);
    inputs
}

/// A tokio worker's stack (the owner applies observations on one), in bytes.
const WORKER_STACK: usize = 2 * 1024 * 1024;

fuzz_target!(|pieces: Vec<Piece>| {
    // On a thread with a worker's stack, not libFuzzer's 8 MiB main thread: an overflow
    // the owner would suffer must happen here too.
    let run = std::thread::Builder::new()
        .stack_size(WORKER_STACK)
        .spawn(move || apply(&pieces))
        .expect("a thread");
    if let Err(panic) = run.join() {
        std::panic::resume_unwind(panic);
    }
});

fn apply(pieces: &[Piece]) {
    let mut tracker = Tracker::default();
    let request = ConversationRequest {
        action: Action::Next,
        user_message_id: USER_MESSAGE.into(),
        text: TEXT.into(),
        conversation_id: None,
        parent_message_id: None,
        model: None,
    };
    tracker.start("s1".into(), "op-1".into(), TEXT.into(), request);
    let (mut receipts, mut answers, mut refused) = (0, 0, false);
    for input in render(pieces) {
        match tracker.feed("s1", input) {
            Ok(fed) => {
                assert!(!refused || fed.facts.is_empty(), "a refused stream showed a fact");
                for fact in fed.facts {
                    match fact {
                        Fact::Receipt(..) => receipts += 1,
                        Fact::Answer(..) => answers += 1,
                        // The page's own error, or a note for a person: no custody step.
                        Fact::PageError(..) | Fact::Note(..) | Fact::AnsweredBy(..) | Fact::PageChanged(..) => {}
                        Fact::Refused(..) | Fact::LimitSeen(..) => {}
                    }
                }
            }
            Err((op, _why)) => {
                assert_eq!(op, "op-1");
                assert!(!refused, "a stream is refused once, then no longer followed");
                refused = true;
            }
        }
    }
    assert!(receipts <= 1 && answers <= 1, "{receipts} receipts, {answers} answers");
}
