//! Observations forwarded by the extension: the raw conversation request, its response
//! stream in chunks, WebSocket frames after a hand-off, and conversation listings.
//! The provider parser turns them into facts; only then does the ledger act:
//! a receipt accepts the send, a final answer completes it, a listing yields evidence
//! for a person (a note on the uncertain send, never a decision).
//!
//! [`Tracker`] is the part without the ledger — which stream belongs to which send,
//! chunks in `seq` order, the facts they newly show — public so that the fuzz target
//! (`fuzz/fuzz_targets/observations.rs`) drives exactly what the owner applies.

use super::error::ApiError;
use super::BridgeState;
use crate::ledger::{EvidenceKind, LedgerError, Receipt, SendState};
use crate::provider::chatgpt::{self, conversation, evidence, request, stream::StreamDecoder};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// Streams tracked at once at most (oldest dropped first).
const MAX_TRACKS: usize = 16;

/// One observation from the page.
#[derive(Debug, Deserialize)]
pub(crate) struct Observation {
    lease_id: String,
    #[serde(default)]
    op_id: Option<String>,
    #[serde(flatten)]
    kind: Kind,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Kind {
    Request {
        stream_id: String,
        url: String,
        body: String,
    },
    StreamChunk {
        stream_id: String,
        seq: u64,
        chunk: String,
    },
    StreamEnd {
        stream_id: String,
    },
    Websocket {
        stream_id: String,
        message: String,
    },
    Listing {
        url: String,
        body: String,
    },
}

/// What an observation led to.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(tag = "fact", rename_all = "snake_case")]
pub(crate) enum Applied {
    Tracking {
        op_id: String,
    },
    NotTracked {
        reason: String,
    },
    Accepted {
        op_id: String,
        receipt: Receipt,
    },
    Completed {
        op_id: String,
        message_id: String,
    },
    Outcome {
        op_id: String,
        outcome: String,
    },
    Evidence {
        op_id: String,
        matching: usize,
        exactly_one: bool,
    },
}

struct Track {
    op_id: String,
    text: String,
    request: request::ConversationRequest,
    decoder: StreamDecoder,
    next_seq: u64,
    early: BTreeMap<u64, String>,
    accepted: bool,
    completed: bool,
    order: u64,
    /// Length in bytes of the answer text last published to the live feed.
    live_len: usize,
}

/// The answer so far when it grew: (op id, text, model slug).
type LiveText = Option<(String, String, Option<String>)>;

impl Track {
    /// What `obs` newly shows: the receipt, the final answer (each once), the turn's
    /// outcome, and the answer so far for the live feed.
    fn facts_of(
        &mut self,
        obs: &crate::provider::chatgpt::stream::TurnObservation,
    ) -> (Vec<Fact>, chatgpt::TurnOutcome, LiveText) {
        let mut facts = Vec::new();
        if !self.accepted {
            if let Some(r) = chatgpt::receipt_for(&self.request, obs, &self.text) {
                self.accepted = true;
                facts.push(Fact::Receipt(
                    self.op_id.clone(),
                    Receipt {
                        conversation_id: r.conversation_id,
                        user_message_id: r.user_message_id,
                        turn_id: r.turn_id,
                    },
                ));
            }
        }
        let so_far = chatgpt::answer_so_far(obs, &self.request.user_message_id);
        let outcome = chatgpt::answer_outcome(obs, &self.request.user_message_id);
        if self.accepted && !self.completed {
            if let chatgpt::TurnOutcome::Answered { message_id, text } = &outcome {
                self.completed = true;
                let model = so_far.as_ref().and_then(|(_, m)| m.clone());
                facts.push(Fact::Answer(
                    self.op_id.clone(),
                    message_id.clone(),
                    text.clone(),
                    model,
                ));
            }
        }
        let live = so_far
            .filter(|(text, _)| self.accepted && text.len() != self.live_len)
            .map(|(text, model)| {
                self.live_len = text.len();
                (self.op_id.clone(), text, model)
            });
        (facts, outcome, live)
    }
}

/// Streams being followed, by the extension's stream id (at most 16; the oldest is
/// dropped first).
#[derive(Default)]
pub struct Tracker {
    tracks: HashMap<String, Track>,
    counter: u64,
}

/// What feeding a stream showed: new facts, and the outcome when the stream ended
/// (op id, outcome sentence).
#[derive(Debug, Default)]
pub struct Fed {
    /// Facts the ledger is to commit, in order.
    pub facts: Vec<Fact>,
    /// At `stream_end`: (op id, the turn's outcome in a sentence).
    pub end: Option<(String, String)>,
    /// The answer so far, when it grew: (op id, text, model slug). Not custody: a live
    /// feed for the OpenAI door's streamed answers.
    pub live: Option<(String, String, Option<String>)>,
}

/// A fact a stream showed about its send.
#[derive(Debug)]
pub enum Fact {
    /// (op id, receipt): the page accepted the send.
    Receipt(String, Receipt),
    /// (op id, message id, answer text, the page's model slug): the final answer.
    Answer(String, String, String, Option<String>),
}

fn refused(msg: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, "malformed", msg)
}

impl Tracker {
    /// Starts following `stream_id` as the stream of send `op_id`, whose text is `text`
    /// and whose conversation request the page sent as `req`.
    pub fn start(
        &mut self,
        stream_id: String,
        op_id: String,
        text: String,
        req: request::ConversationRequest,
    ) {
        if self.tracks.len() >= MAX_TRACKS {
            if let Some(oldest) = self
                .tracks
                .iter()
                .min_by_key(|(_, t)| t.order)
                .map(|(k, _)| k.clone())
            {
                self.tracks.remove(&oldest);
            }
        }
        self.counter += 1;
        self.tracks.insert(
            stream_id,
            Track {
                op_id,
                text,
                request: req,
                decoder: StreamDecoder::new(),
                next_seq: 0,
                early: BTreeMap::new(),
                accepted: false,
                completed: false,
                order: self.counter,
                live_len: 0,
            },
        );
    }

    /// Feeds what arrived and returns the facts it newly shows. Input nesting past the
    /// depth bound ends the track with no facts at all: `Err(op id)`.
    pub fn feed(&mut self, stream_id: &str, input: Input) -> Result<Fed, String> {
        let Some(t) = self.tracks.get_mut(stream_id) else {
            return Ok(Fed::default());
        };
        let mut ended = false;
        match input {
            Input::Chunk(seq, chunk) => {
                if seq >= t.next_seq {
                    t.early.insert(seq, chunk);
                }
                while let Some(chunk) = t.early.remove(&t.next_seq) {
                    t.decoder.feed(chunk.as_bytes());
                    t.next_seq += 1;
                }
            }
            Input::Websocket(message) => t.decoder.feed_websocket_item(&message),
            Input::End => ended = true,
        }
        if t.decoder.nests_too_deep() {
            let op_id = t.op_id.clone();
            self.tracks.remove(stream_id);
            return Err(op_id);
        }
        // At the end of the HTTP stream the decoder is finished (an unterminated last line
        // counts, a cut stream says so) — unless the turn was handed off and its answer
        // is still to come over the WebSocket: then it stays followed.
        let snapshot = t.decoder.snapshot();
        let handed_off = snapshot.handoff.is_some() && !t.completed;
        let finishing = ended && !handed_off;
        let obs = if finishing {
            std::mem::take(&mut t.decoder).finish()
        } else {
            snapshot
        };
        let (facts, outcome, live) = t.facts_of(&obs);
        let end = ended.then(|| (t.op_id.clone(), outcome.to_string()));
        if finishing {
            self.tracks.remove(stream_id);
        }
        Ok(Fed { facts, end, live })
    }
}

/// One forwarded piece of a tracked stream.
#[derive(Debug, Clone)]
pub enum Input {
    /// (seq, text): a piece of the HTTP response body, decoded in `seq` order.
    Chunk(u64, String),
    /// One WebSocket text frame after a hand-off.
    Websocket(String),
    /// The HTTP response body ended.
    End,
}

pub(crate) async fn apply(st: &BridgeState, o: Observation) -> Result<Vec<Applied>, ApiError> {
    let lease_id = o.lease_id.clone();
    st.ledger().call(move |l| l.get_lease(&lease_id)).await?;
    let (stream_id, input) = match o.kind {
        Kind::Request {
            stream_id,
            url,
            body,
        } => return start(st, o.op_id, stream_id, &url, &body).await,
        Kind::Listing { url, body } => return listing(st, &url, &body).await,
        Kind::StreamChunk {
            stream_id,
            seq,
            chunk,
        } => (stream_id, Input::Chunk(seq, chunk)),
        Kind::Websocket { stream_id, message } => (stream_id, Input::Websocket(message)),
        Kind::StreamEnd { stream_id } => (stream_id, Input::End),
    };
    let fed = st.observations().feed(&stream_id, input);
    let Fed { facts, end, live } = fed.map_err(|op_id| {
        refused(format!(
            "the page's stream of send {op_id} is not read: {}; the owner no longer follows \
             that stream, and the send keeps its state (see docs/bridge-api.md)",
            crate::json_depth::TooDeep
        ))
    })?;
    if let Some((op_id, text, model)) = live {
        st.live().publish_text(&op_id, text, model);
    }
    let mut applied = Vec::new();
    for fact in facts {
        applied.push(match fact {
            Fact::Receipt(op_id, receipt) => {
                let (id, r) = (op_id.clone(), receipt.clone());
                st.ledger()
                    .call(move |l| l.accept(&id, &r, "extension"))
                    .await?;
                Applied::Accepted { op_id, receipt }
            }
            Fact::Answer(op_id, message_id, text, model) => {
                let (id, m) = (op_id.clone(), message_id.clone());
                st.ledger()
                    .call(move |l| {
                        if let Some(model) = model {
                            l.door_note_model(&id, &model)?;
                        }
                        l.complete(&id, &m, &text, "extension")
                    })
                    .await?;
                Applied::Completed { op_id, message_id }
            }
        });
    }
    if let Some((op_id, outcome)) = end {
        st.live().publish_end(&op_id, &outcome);
        applied.push(Applied::Outcome { op_id, outcome });
    }
    Ok(applied)
}

async fn start(
    st: &BridgeState,
    op_id: Option<String>,
    stream_id: String,
    url: &str,
    body: &str,
) -> Result<Vec<Applied>, ApiError> {
    if !url.contains("/backend-api/") || !url.contains("conversation") {
        return Ok(vec![Applied::NotTracked {
            reason: "not a conversation request".into(),
        }]);
    }
    let Some(op_id) = op_id else {
        return Ok(vec![Applied::NotTracked {
            reason: "no granted send in this tab".into(),
        }]);
    };
    let req = request::parse_request(body.as_bytes())
        .map_err(|e| refused(format!("the conversation request could not be read: {e}")))?;
    let id = op_id.clone();
    let send = st
        .ledger()
        .call(move |l| l.get(&id)?.ok_or(LedgerError::UnknownSend(id)))
        .await?;
    if send.dispatched_at.is_none()
        || !matches!(send.state, SendState::Dispatched | SendState::Uncertain)
    {
        return Ok(vec![Applied::NotTracked {
            reason: format!("send {op_id} is {}, not awaiting its receipt", send.state),
        }]);
    }
    if crate::send_text::normalise(&req.text) != send.text {
        return Ok(vec![Applied::NotTracked {
            reason: format!("the page's request does not carry the text of send {op_id}"),
        }]);
    }
    st.observations()
        .start(stream_id, op_id.clone(), send.text, req);
    Ok(vec![Applied::Tracking { op_id }])
}

async fn listing(st: &BridgeState, url: &str, body: &str) -> Result<Vec<Applied>, ApiError> {
    let listing = conversation::parse_listing(body.as_bytes())
        .map_err(|e| refused(format!("the conversation listing could not be read: {e}")))?;
    // The conversation it lists: from the body, else the URL's last path segment.
    let listed = listing.conversation_id.clone().or_else(|| {
        let path = url.split(['?', '#']).next().unwrap_or_default();
        path.rsplit('/')
            .next()
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    });
    let uncertain = st
        .ledger()
        .call(|l| {
            l.list(&crate::ledger::ListFilter {
                states: vec![SendState::Uncertain],
                limit: Some(100),
            })
        })
        .await?;
    let mut applied = Vec::new();
    for send in uncertain {
        let conversation = send
            .receipt
            .as_ref()
            .map(|r| r.conversation_id.clone())
            .or_else(|| send.conversation_id.clone());
        if conversation.is_some() && conversation != listed {
            continue;
        }
        let ev = evidence::for_uncertain_send(
            &listing,
            &send.text,
            send.dispatched_at.unwrap_or(send.created_at),
        );
        let note = match (ev.matches.len(), ev.exactly_one) {
            (0, _) => "observed the conversation: no user message with this text after the dispatch".to_string(),
            (_, true) => format!(
                "observed the conversation: exactly one user message with this text after the dispatch ({})",
                ev.matches[0].id
            ),
            (n, false) => format!("observed the conversation: {n} user messages with this text after the dispatch"),
        };
        let (op_id, n) = (send.op_id.clone(), ev.matches.len());
        st.ledger()
            .call(move |l| l.note_evidence(&op_id, EvidenceKind::Observed, &note))
            .await?;
        applied.push(Applied::Evidence {
            op_id: send.op_id,
            matching: n,
            exactly_one: ev.exactly_one,
        });
    }
    Ok(applied)
}
