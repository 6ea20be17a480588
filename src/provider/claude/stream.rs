//! The completion's response stream (`text/event-stream`), decoded into a
//! [`StreamObservation`] (fixtures under `tests/fixtures/claude/stream_*.sse`).
//!
//! Events, each `event: <type>` + `data: {"type": <type>, …}` (the data's `type` is read;
//! the SSE name only when the data has none):
//! - `message_start` `{message: {uuid, id, model, …}}`: the answer begins; `uuid` is the
//!   assistant message's id;
//! - `content_block_start` `{index, content_block: {type: "text" | "thinking" | …}}`,
//!   `content_block_delta` `{index, delta: {type: "text_delta", text} |
//!   {type: "thinking_delta", thinking} | {type: "thinking_summary_delta", summary: {summary}} | …}`,
//!   `content_block_stop` `{index}`;
//! - `message_delta` `{delta: {stop_reason, stop_sequence}}`;
//! - `message_stop`: the answer's end (after it, only `message_limit` is still read);
//! - `message_limit` ([`super::limit`]), `error` `{error: {type, message}}`, `ping`;
//! - other events (`conversation_ready`, `model_fallback`, citation deltas, …) are passed
//!   over and counted in [`StreamObservation::warnings`], never quoting content.
//!
//! Only blocks started as `text` make the answer; thinking is kept apart and never taken
//! for it. A delta for a block never started, or of another kind than its block, is
//! passed over. Nothing here fails or panics on input; JSON nesting deeper than
//! [`json_depth::MAX_DEPTH`] is passed over and [`StreamDecoder::nests_too_deep`] turns
//! true.

use super::limit::{parse_limit, MessageLimit};
use crate::json_depth;
use crate::provider::ids::looks_like_id;
use crate::provider::sse::{SseEvent, SseFramer};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Most content blocks kept from one answer.
pub const MAX_BLOCKS: usize = 256;
/// Largest answer (or thinking) text kept, in bytes; past it the text is marked cut.
pub const MAX_ANSWER_BYTES: usize = 8 * 1024 * 1024;
/// Longest error text kept from the stream, in characters.
pub const MAX_ERROR_CHARS: usize = 300;
/// Most warnings kept.
const MAX_WARNINGS: usize = 50;

/// How far the stream got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StreamEnd {
    /// Still arriving: no `message_stop` yet.
    Open,
    /// `message_stop` was seen: the answer's authoritative end.
    Stopped,
    /// The body ended without `message_stop`: cut off, nothing completed.
    Cut,
}

/// The page's `error` event: its words, as the page gave them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageError {
    /// `error.type` (e.g. `overloaded_error`), at most 64 characters.
    pub kind: Option<String>,
    /// `error.message`, at most [`MAX_ERROR_CHARS`] characters.
    pub message: String,
}

/// Everything the stream showed about one answer.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamObservation {
    /// Whether `message_start` was seen.
    pub started: bool,
    /// `message_start.message.uuid`: the assistant message the stream writes.
    pub assistant_message_uuid: Option<String>,
    /// `message_start.message.model`.
    pub model: Option<String>,
    /// The text blocks' text, in block order, concatenated.
    pub text: String,
    /// The thinking blocks' text (thinking and summaries), kept apart from the answer.
    pub thinking: String,
    /// Whether a text passed [`MAX_ANSWER_BYTES`] and was cut.
    pub text_cut: bool,
    /// `message_delta.delta.stop_reason`, the last one given.
    pub stop_reason: Option<String>,
    /// How far the stream got.
    pub end: StreamEnd,
    /// The first `error` event.
    pub error: Option<PageError>,
    /// The last `message_limit` event.
    pub limit: Option<MessageLimit>,
    /// What was passed over, without content.
    pub warnings: Vec<String>,
}

impl std::fmt::Debug for StreamObservation {
    /// Everything but the texts, shown as their lengths.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamObservation")
            .field("started", &self.started)
            .field("assistant_message_uuid", &self.assistant_message_uuid)
            .field("model", &self.model)
            .field("text_bytes", &self.text.len())
            .field("thinking_bytes", &self.thinking.len())
            .field("text_cut", &self.text_cut)
            .field("stop_reason", &self.stop_reason)
            .field("end", &self.end)
            .field("error", &self.error)
            .field("limit", &self.limit)
            .field("warnings", &self.warnings.len())
            .finish()
    }
}

/// The kind a block was started as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Thinking,
    Other,
}

#[derive(Debug, Clone)]
struct Block {
    kind: Kind,
    text: String,
}

/// Decodes one completion's stream; feed it bytes as they come, in any chunks.
#[derive(Debug, Clone, Default)]
pub struct StreamDecoder {
    framer: SseFramer,
    started: bool,
    assistant_message_uuid: Option<String>,
    model: Option<String>,
    blocks: BTreeMap<u64, Block>,
    text_cut: bool,
    stop_reason: Option<String>,
    stopped: bool,
    error: Option<PageError>,
    limit: Option<MessageLimit>,
    warnings: Vec<String>,
    too_deep: bool,
}

impl StreamDecoder {
    /// An empty decoder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes the next bytes of the response body, split anywhere.
    pub fn feed(&mut self, bytes: &[u8]) {
        for e in self.framer.feed(bytes) {
            self.event(e);
        }
    }

    /// Whether some event nested deeper than [`json_depth::MAX_DEPTH`] and was passed over.
    pub fn nests_too_deep(&self) -> bool {
        self.too_deep
    }

    /// What the stream shows so far, without ending it.
    pub fn snapshot(&self) -> StreamObservation {
        let mut probe = self.clone();
        for e in probe.framer.flush(false) {
            probe.event(e);
        }
        probe.observation(false)
    }

    /// The body has ended: an unterminated last line is taken as complete.
    pub fn finish(mut self) -> StreamObservation {
        for e in self.framer.flush(true) {
            self.event(e);
        }
        self.observation(true)
    }

    fn warn(&mut self, w: &str) {
        if self.warnings.len() < MAX_WARNINGS {
            self.warnings.push(w.to_string());
        }
    }

    fn event(&mut self, e: SseEvent) {
        if json_depth::check_text(e.data.as_bytes()).is_err() {
            self.too_deep = true;
            self.warn("JSON nesting deeper than the depth bound was passed over");
            return;
        }
        let Ok(v) = serde_json::from_str::<Value>(&e.data) else {
            self.warn("an event whose data is not JSON was passed over");
            return;
        };
        let kind = v
            .get("type")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or(e.event)
            .unwrap_or_default();
        if self.stopped && kind != "message_limit" {
            self.warn("an event after message_stop was passed over");
            return;
        }
        self.typed(&kind, &v);
    }

    fn typed(&mut self, kind: &str, v: &Value) {
        match kind {
            "message_start" => self.message_start(v),
            "content_block_start" => self.block_start(v),
            "content_block_delta" => self.block_delta(v),
            "content_block_stop" | "ping" => {}
            "message_delta" => {
                if let Some(r) = v.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(r.chars().take(64).collect());
                }
            }
            "message_stop" => self.stopped = true,
            "message_limit" => match parse_limit(v) {
                Some(l) => self.limit = Some(l),
                None => self.warn("a message_limit event of unknown shape was passed over"),
            },
            "error" => self.page_error(v),
            _ => self.warn("an event of unknown type was passed over"),
        }
    }

    fn message_start(&mut self, v: &Value) {
        if self.started {
            self.warn("a second message_start was passed over");
            return;
        }
        self.started = true;
        let m = v.get("message");
        self.assistant_message_uuid = m
            .and_then(|m| m.get("uuid"))
            .and_then(Value::as_str)
            .filter(|s| looks_like_id(s))
            .map(str::to_string);
        self.model = super::request::model_of(m.and_then(|m| m.get("model")));
    }

    fn block_start(&mut self, v: &Value) {
        let (Some(index), Some(block)) = (
            v.get("index").and_then(Value::as_u64),
            v.get("content_block"),
        ) else {
            return self.warn("a content_block_start without index or block was passed over");
        };
        if self.blocks.contains_key(&index) || self.blocks.len() >= MAX_BLOCKS {
            return self.warn("a content_block_start was passed over (seen, or past the bound)");
        }
        let kind = match block.get("type").and_then(Value::as_str) {
            Some("text") => Kind::Text,
            Some("thinking") => Kind::Thinking,
            _ => Kind::Other,
        };
        let text = String::new();
        self.blocks.insert(index, Block { kind, text });
    }

    fn block_delta(&mut self, v: &Value) {
        let index = v.get("index").and_then(Value::as_u64);
        let delta = v.get("delta");
        let dtype = delta.and_then(|d| d.get("type")).and_then(Value::as_str);
        let piece = match dtype {
            Some("text_delta") => delta.and_then(|d| d.get("text")),
            Some("thinking_delta") => delta.and_then(|d| d.get("thinking")),
            Some("thinking_summary_delta") => delta.and_then(|d| d.pointer("/summary/summary")),
            _ => return self.warn("a content delta of unknown type was passed over"),
        };
        let want = if dtype == Some("text_delta") {
            Kind::Text
        } else {
            Kind::Thinking
        };
        let block = index.and_then(|i| self.blocks.get_mut(&i));
        match (block, piece.and_then(Value::as_str)) {
            (Some(b), Some(p)) if b.kind == want => {
                if b.text.len() + p.len() > MAX_ANSWER_BYTES {
                    self.text_cut = true;
                } else {
                    b.text.push_str(p);
                }
            }
            _ => self.warn("a content delta not matching a started block was passed over"),
        }
    }

    fn page_error(&mut self, v: &Value) {
        if self.error.is_some() {
            return;
        }
        let e = v.get("error");
        let field = |k: &str| e.and_then(|e| e.get(k)).and_then(Value::as_str);
        let message = field("message")
            .or_else(|| v.get("message").and_then(Value::as_str))
            .unwrap_or("the stream reported an error without words");
        self.error = Some(PageError {
            kind: field("type").filter(|t| t.len() <= 64).map(str::to_string),
            message: message.trim().chars().take(MAX_ERROR_CHARS).collect(),
        });
    }

    fn observation(self, ended: bool) -> StreamObservation {
        let join = |k: Kind| -> String {
            self.blocks
                .values()
                .filter(|b| b.kind == k)
                .map(|b| b.text.as_str())
                .collect()
        };
        let end = match (self.stopped, ended) {
            (true, _) => StreamEnd::Stopped,
            (false, true) => StreamEnd::Cut,
            (false, false) => StreamEnd::Open,
        };
        StreamObservation {
            started: self.started,
            text: join(Kind::Text),
            thinking: join(Kind::Thinking),
            assistant_message_uuid: self.assistant_message_uuid,
            model: self.model,
            text_cut: self.text_cut,
            stop_reason: self.stop_reason,
            end,
            error: self.error,
            limit: self.limit,
            warnings: self.warnings,
        }
    }
}

/// Decodes a whole body at once.
pub fn decode(body: &[u8]) -> StreamObservation {
    let mut d = StreamDecoder::new();
    d.feed(body);
    d.finish()
}
