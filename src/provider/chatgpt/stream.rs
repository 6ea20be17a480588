//! The response stream of a conversation request, and the WebSocket stream items of
//! a turn handed off to the user WebSocket, decoded into a [`TurnObservation`].
//!
//! Formats (fixtures under `tests/fixtures/chatgpt/`):
//! - legacy: each `data:` is a full snapshot `{message, conversation_id, error}`
//!   (`stream_legacy_answered.sse`, `stream_legacy_truncated.sse`,
//!   `stream_legacy_moderation_blocked.sse`);
//! - delta v1: `event: delta_encoding` / `data: "v1"`, then `event: delta` ops on one
//!   root object per `c` (`stream_delta_new_chat.sse`, `stream_delta_batches.sse`,
//!   `stream_delta_tools_follow_up.sse`, see [`super::delta`]);
//! - typed control events `data: {"type": …}` (`input_message`, `message_marker`,
//!   `server_ste_metadata`, `message_stream_complete`, `stream_handoff`,
//!   `title_generation`, `conversation_detail_metadata`, `moderation`, `error`);
//! - SSE comments, empty `data:` lines and `data: [DONE]`;
//! - WebSocket frames whose `encoded_item` slices concatenate into delta v1 text,
//!   deduplicated by `stream_item_id` across frames; a frame is one envelope or a JSON
//!   array of envelopes (`websocket_handoff.jsonl`, `websocket_handoff_arrays.jsonl`).
//!
//! Unknown event types and fields are passed over (counted in
//! [`TurnObservation::warnings`]); nothing here fails or panics on input. JSON nesting
//! deeper than [`json_depth::MAX_DEPTH`] — in one event, or built over several delta
//! ops — is passed over too, and [`StreamDecoder::nests_too_deep`] turns true: the
//! owner stops following such a stream.

use super::delta::{self, Carry};
use super::message::ObservedMessage;
use crate::json_depth;
use crate::provider::sse::{SseEvent, SseFramer};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};

/// Longest error text kept from the stream, in characters.
const MAX_ERROR_CHARS: usize = 300;
/// Most warnings kept (further ones are counted in the last).
const MAX_WARNINGS: usize = 50;
/// Most envelopes read from one WebSocket frame that is a JSON array.
pub const MAX_FRAME_ENVELOPES: usize = 256;

/// What one WebSocket frame held (see [`StreamDecoder::feed_websocket_frame`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrameReading {
    /// New stream items decoded.
    pub items: usize,
    /// Stream items skipped as already seen (same `stream_item_id`).
    pub duplicates: usize,
    /// Envelopes of a known shape without a stream item (turn complete, updates).
    pub other: usize,
    /// Frames or envelopes that could not be read at all.
    pub unreadable: usize,
    /// Envelopes of another topic or conversation (the user's WebSocket carries every
    /// turn of the account): passed over, never read into this turn.
    pub elsewhere: usize,
}

impl FrameReading {
    /// Whether nothing in the frame was unreadable.
    pub fn understood(&self) -> bool {
        self.unreadable == 0
    }
}

/// How the response was encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    /// Nothing decodable seen yet.
    Unknown,
    /// Legacy full snapshots.
    Legacy,
    /// Delta encoding v1.
    DeltaV1,
    /// A `delta_encoding` marker other than `v1`: deltas are not applied.
    Unsupported,
    /// Not a stream: built from a conversation listing.
    Listing,
}

/// How far the stream got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StreamEnd {
    /// Still arriving (a snapshot), nothing terminal seen.
    Open,
    /// `message_stream_complete` (or a WebSocket `conversation-turn-complete`): the
    /// turn's authoritative end.
    TurnComplete,
    /// `data: [DONE]` on the HTTP body without `message_stream_complete` (the legacy
    /// end; on delta v1 an early or handed-off stream).
    Done,
    /// The body ended with neither: cut off.
    Cut,
}

/// A `stream_handoff`: the rest of the turn comes over the user WebSocket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Handoff {
    /// `turn_exchange_id`.
    pub turn_exchange_id: Option<String>,
    /// `options[].topic_id` (`conversation-turn-<turn_exchange_id>`).
    pub topic_ids: Vec<String>,
}

/// Everything the stream showed about one turn. Messages are in order of first
/// appearance; the same id seen several times (delta root and `input_message`) is one
/// message with the later sighting's fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnObservation {
    /// The response's encoding.
    pub encoding: Encoding,
    /// The first `conversation_id` seen (any event).
    pub conversation_id: Option<String>,
    /// The turn's `turn_exchange_id` from `server_ste_metadata`, `stream_handoff` or a
    /// WebSocket item (a message's own is in [`ObservedMessage::turn_exchange_id`]).
    pub turn_exchange_id: Option<String>,
    /// The messages seen.
    pub messages: Vec<ObservedMessage>,
    /// How far the stream got.
    pub end: StreamEnd,
    /// Set by `stream_handoff`.
    pub handoff: Option<Handoff>,
    /// Set by a moderation result with `blocked: true`: what blocked it.
    pub blocked: Option<String>,
    /// Set by an `error` event or a non-null `error`/`error_code` in an envelope.
    pub error: Option<String>,
    /// The error's code when the page gave one (`error.code`, an envelope's
    /// `error_code`): at most 64 characters.
    pub error_code: Option<String>,
    /// What was passed over (unknown events, ops that did not apply), without content.
    pub warnings: Vec<String>,
}

impl TurnObservation {
    /// The message with this id.
    pub fn message(&self, id: &str) -> Option<&ObservedMessage> {
        self.messages.iter().find(|m| m.id == id)
    }

    /// The visible user messages seen (receipt candidates).
    pub fn user_messages(&self) -> impl Iterator<Item = &ObservedMessage> {
        self.messages.iter().filter(|m| m.role == "user")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Source {
    Http,
    WebSocket,
}

#[derive(Debug, Clone, Default)]
struct Channel {
    framer: SseFramer,
    carry: Carry,
    encoding: Option<Encoding>,
}

#[derive(Debug, Clone)]
struct Root {
    value: Value,
    first_seq: u64,
    last_seq: u64,
}

/// A message sighting: (first seen, last updated, the message).
type Sighting = (u64, u64, ObservedMessage);

/// Decodes one turn's stream; feed it bytes as they come, in any chunks.
#[derive(Debug, Clone)]
pub struct StreamDecoder {
    http: Channel,
    ws: Channel,
    seq: u64,
    roots: BTreeMap<(Source, i64), Root>,
    seen: BTreeMap<String, Sighting>,
    encoding: Encoding,
    conversation_id: Option<String>,
    turn_exchange_id: Option<String>,
    http_done: bool,
    turn_complete: bool,
    handoff: Option<Handoff>,
    blocked: Option<String>,
    error: Option<String>,
    error_code: Option<String>,
    warnings: Vec<String>,
    seen_items: HashSet<String>,
    too_deep: bool,
}

impl Default for StreamDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl StreamDecoder {
    /// An empty decoder.
    pub fn new() -> Self {
        StreamDecoder {
            http: Channel::default(),
            ws: Channel::default(),
            seq: 0,
            roots: BTreeMap::new(),
            seen: BTreeMap::new(),
            encoding: Encoding::Unknown,
            conversation_id: None,
            turn_exchange_id: None,
            http_done: false,
            turn_complete: false,
            handoff: None,
            blocked: None,
            error: None,
            error_code: None,
            warnings: Vec::new(),
            seen_items: HashSet::new(),
            too_deep: false,
        }
    }

    /// Takes the next bytes of the HTTP response body (`text/event-stream`), split
    /// anywhere.
    pub fn feed(&mut self, bytes: &[u8]) {
        let events = self.http.framer.feed(bytes);
        for e in events {
            self.event(Source::Http, e);
        }
    }

    /// Takes one WebSocket text frame (JSON) received after a `stream_handoff`; see
    /// [`StreamDecoder::feed_websocket_frame`].
    pub fn feed_websocket_item(&mut self, raw_json: &str) {
        self.feed_websocket_frame(raw_json);
    }

    /// Takes one WebSocket text frame (JSON) received after a `stream_handoff`: one
    /// envelope `{"type":"message","topic_id":…,"payload":{"type":"conversation-turn-stream",
    /// "payload":{"type":"stream-item","encoded_item":"<delta v1 SSE text>",
    /// "stream_item_id":…,"turn_id":…,"conversation_id":…}}}`, or a JSON array of such
    /// envelopes (several in one frame, or one; at most [`MAX_FRAME_ENVELOPES`] read).
    /// A stream item already seen (same `stream_item_id`, in this frame or an earlier
    /// one) is skipped; other envelopes are passed over, except
    /// `conversation-turn-complete`, which ends the turn. An inner `[DONE]` ends one
    /// slice, not the turn. Returns what the frame held; a frame that is not JSON, or an
    /// envelope with no `type` anywhere, is counted as unreadable.
    pub fn feed_websocket_frame(&mut self, raw_json: &str) -> FrameReading {
        let mut out = FrameReading::default();
        match self.parse_json(raw_json) {
            // Nested deeper than the bound: passed over, and the owner stops following.
            None => {}
            Some(Ok(Value::Array(envelopes))) => {
                if envelopes.len() > MAX_FRAME_ENVELOPES {
                    self.warn(
                        "a WebSocket frame held too many envelopes; the rest were passed over",
                    );
                    out.unreadable += envelopes.len() - MAX_FRAME_ENVELOPES;
                }
                for e in envelopes.iter().take(MAX_FRAME_ENVELOPES) {
                    self.websocket_envelope(e, &mut out);
                }
            }
            Some(Ok(frame)) => self.websocket_envelope(&frame, &mut out),
            Some(Err(_)) => {
                self.warn("a WebSocket frame is not JSON");
                out.unreadable += 1;
            }
        }
        out
    }

    fn websocket_envelope(&mut self, frame: &Value, out: &mut FrameReading) {
        if self.is_elsewhere(frame) {
            out.elsewhere += 1;
            return;
        }
        let mut at = frame;
        let mut kinds = Vec::new();
        for _ in 0..4 {
            if let Some(t) = at.get("type").and_then(Value::as_str) {
                kinds.push(t.to_string());
            }
            if at.get("encoded_item").is_some() {
                break;
            }
            match at.get("payload") {
                Some(p) if p.is_object() => at = p,
                _ => break,
            }
        }
        if kinds.iter().any(|k| k == "conversation-turn-complete") {
            self.turn_complete = true;
            out.other += 1;
            return;
        }
        let Some(encoded) = at.get("encoded_item").and_then(Value::as_str) else {
            if kinds.is_empty() && is_control_reply(frame) {
                // The socket's own answer to the page's `connect`/`subscribe`/`ping`: not
                // a frame of this turn, never "not understood".
                out.other += 1;
            } else if kinds.is_empty() {
                self.warn("a WebSocket envelope of unknown shape was passed over");
                out.unreadable += 1;
            } else {
                self.warn("a WebSocket frame without a stream item was passed over");
                out.other += 1;
            }
            return;
        };
        if let Some(id) = at.get("stream_item_id").and_then(id_string) {
            if !self.seen_items.insert(id) {
                out.duplicates += 1;
                return;
            }
        }
        out.items += 1;
        self.note_conversation(at.get("conversation_id"));
        if self.turn_exchange_id.is_none() {
            self.turn_exchange_id = at
                .get("turn_id")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        let events = self.ws.framer.feed(encoded.as_bytes());
        for e in events {
            self.event(Source::WebSocket, e);
        }
    }

    /// Whether an envelope belongs to another turn: its `topic_id` is not one the
    /// hand-off named, or (wherever it says) its conversation is not this one's.
    /// Each envelope is read by its own topic, so a frame mixing two conversations'
    /// envelopes gives this turn only its own.
    fn is_elsewhere(&self, envelope: &Value) -> bool {
        let topic = envelope.get("topic_id").and_then(Value::as_str);
        if let (Some(topic), Some(h)) = (topic, &self.handoff) {
            if !h.topic_ids.is_empty() && !h.topic_ids.iter().any(|t| t == topic) {
                return true;
            }
        }
        let Some(known) = self.conversation_id.as_deref() else {
            return false;
        };
        let mut at = envelope;
        for _ in 0..4 {
            if at
                .get("conversation_id")
                .and_then(Value::as_str)
                .is_some_and(|said| said != known)
            {
                return true;
            }
            match at.get("payload") {
                Some(p) if p.is_object() => at = p,
                _ => return false,
            }
        }
        false
    }

    /// Whether some input nested deeper than [`json_depth::MAX_DEPTH`] (one event or
    /// frame, or the state a delta op would have built); such input was passed over, so
    /// the observation may miss part of the turn.
    pub fn nests_too_deep(&self) -> bool {
        self.too_deep
    }

    /// One JSON text of the stream, parsed; `None` (and the stream marked too deep)
    /// when it nests deeper than the bound.
    fn parse_json(&mut self, text: &str) -> Option<serde_json::Result<Value>> {
        if json_depth::check_text(text.as_bytes()).is_err() {
            self.too_deep = true;
            self.warn("JSON nesting deeper than the depth bound was passed over");
            return None;
        }
        Some(serde_json::from_str(text))
    }

    /// What the stream shows so far, without ending it: an event whose lines are
    /// complete is counted even if its closing empty line has not come yet.
    pub fn snapshot(&self) -> TurnObservation {
        let mut probe = self.clone();
        probe.flush(false);
        probe.observation(false)
    }

    /// The body has ended: an unterminated last line is taken as complete.
    pub fn finish(mut self) -> TurnObservation {
        self.flush(true);
        self.observation(true)
    }

    fn flush(&mut self, with_partial_line: bool) {
        for e in self.http.framer.flush(with_partial_line) {
            self.event(Source::Http, e);
        }
        for e in self.ws.framer.flush(with_partial_line) {
            self.event(Source::WebSocket, e);
        }
    }

    fn channel(&mut self, src: Source) -> &mut Channel {
        match src {
            Source::Http => &mut self.http,
            Source::WebSocket => &mut self.ws,
        }
    }

    fn warn(&mut self, what: &str) {
        if self.warnings.len() < MAX_WARNINGS {
            self.warnings.push(what.to_string());
        } else if self.warnings.len() == MAX_WARNINGS {
            self.warnings.push("further warnings were dropped".into());
        }
    }

    fn set_encoding(&mut self, src: Source, e: Encoding) {
        self.channel(src).encoding = Some(e);
        if self.encoding == Encoding::Unknown || e == Encoding::Unsupported {
            self.encoding = e;
        }
    }

    fn event(&mut self, src: Source, e: SseEvent) {
        self.seq += 1;
        match e.event.as_deref() {
            Some("delta_encoding") => match serde_json::from_str::<Value>(&e.data) {
                Ok(Value::String(s)) if s == "v1" => self.set_encoding(src, Encoding::DeltaV1),
                _ => {
                    self.warn("an unknown delta encoding: deltas are not applied");
                    self.set_encoding(src, Encoding::Unsupported);
                }
            },
            Some("delta") => match self.parse_json(&e.data) {
                Some(Ok(v)) => self.delta(src, v),
                Some(Err(_)) => self.warn("a delta event is not JSON"),
                None => {}
            },
            None | Some("message") => self.data(src, &e.data),
            Some(_) => self.warn("an unknown SSE event type was passed over"),
        }
    }

    fn data(&mut self, src: Source, data: &str) {
        if data.trim() == "[DONE]" {
            if src == Source::Http {
                self.http_done = true;
            }
            return;
        }
        let v = match self.parse_json(data) {
            Some(Ok(v)) => v,
            Some(Err(_)) => return self.warn("a data line is not JSON"),
            None => return,
        };
        if !v.is_object() {
            return;
        }
        if let Some(t) = v.get("type").and_then(Value::as_str) {
            let t = t.to_string();
            self.control(&t, &v);
        } else if v.get("message").is_some_and(Value::is_object) {
            self.legacy_snapshot(src, v);
        } else if v.get("moderation_response").is_some() {
            self.note_conversation(v.get("conversation_id"));
            self.moderation(&v);
        } else if v.get("v").is_some() && self.channel(src).encoding == Some(Encoding::DeltaV1) {
            self.delta(src, v);
        } else if has_error(&v) {
            self.envelope_error(&v);
        } else {
            self.warn("a data object of unknown shape was passed over");
        }
    }

    fn legacy_snapshot(&mut self, src: Source, v: Value) {
        if self.channel(src).encoding.is_none() {
            self.set_encoding(src, Encoding::Legacy);
        }
        self.note_conversation(v.get("conversation_id"));
        if has_error(&v) {
            self.envelope_error(&v);
        }
        if let Some(m) = v.get("message") {
            self.sighted(m);
        }
    }

    fn delta(&mut self, src: Source, event: Value) {
        if self.channel(src).encoding == Some(Encoding::Unsupported) {
            return;
        }
        if self.channel(src).encoding.is_none() {
            self.warn("a delta came before the delta_encoding marker");
        }
        let Some(op) = self.channel(src).carry.resolve(event) else {
            self.warn("a delta without a usable v/p/o/c was passed over");
            return;
        };
        let seq = self.seq;
        let key = (src, op.c);
        if op.p.is_empty() && op.o == "add" {
            if let Some(old) = self.roots.remove(&key) {
                if let Some(m) = root_message(&old.value) {
                    merge_into(&mut self.seen, (old.first_seq, old.last_seq, m));
                }
            }
            self.roots.insert(
                key,
                Root {
                    value: Value::Null,
                    first_seq: seq,
                    last_seq: seq,
                },
            );
        }
        let Some(root) = self.roots.get_mut(&key) else {
            self.warn("a delta for a root that was never added was passed over");
            return;
        };
        root.last_seq = seq;
        if let Err(e) = delta::apply(&mut root.value, &op.p, &op.o, op.v) {
            self.too_deep |= e == delta::OpError::StateTooDeep;
            self.warn(&format!("a delta op did not apply ({e:?})"));
        }
    }

    fn control(&mut self, t: &str, v: &Value) {
        self.note_conversation(v.get("conversation_id"));
        match t {
            "input_message" => match v.get("input_message") {
                Some(m) if m.is_object() => self.sighted(m),
                _ => self.warn("an input_message without a message"),
            },
            "server_ste_metadata" => {
                let id = v
                    .pointer("/metadata/turn_exchange_id")
                    .and_then(Value::as_str);
                if self.turn_exchange_id.is_none() {
                    self.turn_exchange_id = id.map(str::to_string);
                }
            }
            "stream_handoff" => {
                let turn = v
                    .get("turn_exchange_id")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                if self.turn_exchange_id.is_none() {
                    self.turn_exchange_id.clone_from(&turn);
                }
                let topic_ids = v
                    .get("options")
                    .and_then(Value::as_array)
                    .map(|o| {
                        o.iter()
                            .filter_map(|x| x.get("topic_id")?.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default();
                self.handoff = Some(Handoff {
                    turn_exchange_id: turn,
                    topic_ids,
                });
            }
            "message_stream_complete" => self.turn_complete = true,
            "moderation" | "url_moderation" => self.moderation(v),
            "error" => {
                let msg = v
                    .pointer("/error/message")
                    .or_else(|| v.get("error"))
                    .or_else(|| v.get("message"))
                    .and_then(Value::as_str)
                    .unwrap_or("the stream reported an error without a message");
                self.set_error(msg);
                self.set_code(v.pointer("/error/code"));
            }
            "resume_conversation_token"
            | "message_marker"
            | "title_generation"
            | "conversation_detail_metadata" => {}
            _ => self.warn("an unknown control event type was passed over"),
        }
    }

    fn moderation(&mut self, v: &Value) {
        let r = v.get("moderation_response").unwrap_or(v);
        if r.get("blocked").and_then(Value::as_bool) == Some(true) && self.blocked.is_none() {
            let kind = v
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("moderation_response");
            self.blocked = Some(format!("{kind}: blocked"));
        }
    }

    fn envelope_error(&mut self, v: &Value) {
        let msg = match (v.get("error"), v.get("error_code")) {
            (Some(Value::String(s)), _) => s.clone(),
            (Some(e @ Value::Object(_)), _) => e
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("the stream reported an error")
                .to_string(),
            (_, Some(Value::String(code))) => format!("error code {code}"),
            _ => "the stream reported an error".to_string(),
        };
        self.set_error(&msg);
        self.set_code(v.get("error_code").or_else(|| v.pointer("/error/code")));
    }

    fn set_code(&mut self, code: Option<&Value>) {
        if let (None, Some(Value::String(c))) = (&self.error_code, code) {
            self.error_code = (c.len() <= 64).then(|| c.clone());
        }
    }

    fn set_error(&mut self, msg: &str) {
        if self.error.is_none() {
            self.error = Some(msg.chars().take(MAX_ERROR_CHARS).collect());
        }
    }

    fn note_conversation(&mut self, id: Option<&Value>) {
        let Some(id) = id.and_then(Value::as_str) else {
            return;
        };
        match &self.conversation_id {
            None => self.conversation_id = Some(id.to_string()),
            Some(known) if known != id => {
                self.warn("a second conversation id was seen; the first is kept")
            }
            Some(_) => {}
        }
    }

    fn sighted(&mut self, m: &Value) {
        match ObservedMessage::from_value(m) {
            Some(msg) => merge_into(&mut self.seen, (self.seq, self.seq, msg)),
            None => self.warn("a message without an id or a role was passed over"),
        }
    }

    fn observation(mut self, ended: bool) -> TurnObservation {
        let mut sightings: Vec<Sighting> = std::mem::take(&mut self.seen).into_values().collect();
        for root in std::mem::take(&mut self.roots).into_values() {
            if has_error(&root.value) {
                self.envelope_error(&root.value);
            }
            self.note_conversation(root.value.get("conversation_id"));
            if let Some(m) = root_message(&root.value) {
                sightings.push((root.first_seq, root.last_seq, m));
            }
        }
        sightings.sort_by_key(|(_, last, _)| *last);
        let mut by_id = BTreeMap::new();
        for s in sightings {
            merge_into(&mut by_id, s);
        }
        let mut messages: Vec<Sighting> = by_id.into_values().collect();
        messages.sort_by_key(|(first, _, _)| *first);
        let end = if self.turn_complete {
            StreamEnd::TurnComplete
        } else if self.http_done {
            StreamEnd::Done
        } else if ended {
            StreamEnd::Cut
        } else {
            StreamEnd::Open
        };
        TurnObservation {
            encoding: self.encoding,
            conversation_id: self.conversation_id,
            turn_exchange_id: self.turn_exchange_id,
            messages: messages.into_iter().map(|(_, _, m)| m).collect(),
            end,
            handoff: self.handoff,
            blocked: self.blocked,
            error: self.error,
            error_code: self.error_code,
            warnings: self.warnings,
        }
    }
}

/// The message of a delta root `{message, conversation_id, …}`.
fn root_message(root: &Value) -> Option<ObservedMessage> {
    root.get("message").and_then(ObservedMessage::from_value)
}

/// Adds a sighting to `map`, merging with an earlier one of the same id.
fn merge_into(map: &mut BTreeMap<String, Sighting>, (first, last, msg): Sighting) {
    match map.get_mut(&msg.id) {
        Some((f, l, known)) => {
            *f = (*f).min(first);
            *l = (*l).max(last);
            known.merge_later(msg);
        }
        None => {
            map.insert(msg.id.clone(), (first, last, msg));
        }
    }
}

fn has_error(v: &Value) -> bool {
    let set = |k| v.get(k).is_some_and(|e| !e.is_null() && e != "");
    set("error") || set("error_code")
}

fn id_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Whether a WebSocket envelope without a `type` is the socket's own control reply: it
/// answers a `command` the page sent (`connect`, `subscribe`, `ping`: `{"command": …,
/// "ok": …}`) or names the connection (`connection_id`), and carries no stream item
/// (fixture `websocket_handoff_control_replies.jsonl`).
fn is_control_reply(envelope: &Value) -> bool {
    let command = envelope.get("command").is_some_and(Value::is_string);
    let connection = envelope.get("connection_id").is_some_and(Value::is_string);
    (command || connection) && envelope.get("payload").is_none()
}
