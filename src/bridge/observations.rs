//! Observations forwarded by the extension: the raw conversation request, its response
//! stream in chunks, WebSocket frames after a hand-off, and conversation listings.
//! The provider parser turns them into facts; only then does the ledger act:
//! a receipt accepts the send, a final answer completes it, the page's own error ends an
//! accepted send `page_error` (a usage limit also closes the limit gate), a listing
//! yields evidence for a person (a note on the uncertain send, never a decision), and
//! hand-off frames that cannot be read are said so in the send's timeline.
//!
//! [`Tracker`] is the part without the ledger — which stream belongs to which send,
//! chunks in `seq` order, the facts they newly show — public so that the fuzz target
//! (`fuzz/fuzz_targets/observations.rs`) drives exactly what the owner applies.

pub(crate) use super::applied::Applied;
pub use super::applied::{Answered, Fact, MAX_ELSEWHERE_ROUTE_BYTES};
use super::error::ApiError;
pub use super::turn::{LiveText, Progress, Read, TurnReader};
use super::BridgeState;
use crate::error_code::ErrorCode;
use crate::ledger::LedgerRead;
use crate::ledger::{EvidenceKind, LedgerError, LimitHold, PageError, SendState};
use crate::provider::chatgpt::{conversation, refusal, request};
use crate::site::Site;
use axum::http::StatusCode;
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};

/// Streams tracked at once at most (oldest dropped first).
const MAX_TRACKS: usize = 16;
/// Most bytes one followed stream may bring (HTTP chunks and WebSocket frames together):
/// 32 MiB. chatgpt.com's longest captured turn is under 1 MiB.
pub const MAX_STREAM_BYTES: usize = 32 * 1024 * 1024;
/// Most chunks held ahead of a gap in `seq` order: 256.
pub const MAX_EARLY_CHUNKS: usize = 256;

/// Why the owner stopped following a stream: the send keeps its state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unfollowed {
    /// Its JSON nested past [`crate::json_depth::MAX_DEPTH`].
    TooDeep,
    /// It brought more than [`MAX_STREAM_BYTES`].
    TooLarge,
    /// More than [`MAX_EARLY_CHUNKS`] chunks arrived ahead of a missing one.
    TooManyEarly,
}

impl std::fmt::Display for Unfollowed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TooDeep => write!(f, "{}", crate::json_depth::TooDeep),
            Self::TooLarge => write!(
                f,
                "it brought more than {} MiB, the most one stream may bring",
                MAX_STREAM_BYTES / (1024 * 1024)
            ),
            Self::TooManyEarly => write!(
                f,
                "more than {MAX_EARLY_CHUNKS} of its chunks arrived ahead of a missing one"
            ),
        }
    }
}

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
        /// How the server answered it (status, `Retry-After`, an error's body).
        #[serde(flatten)]
        answered: super::refused_request::Answered,
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
    /// The page rendered its error for the turn (`[data-testid="conversation-error"]`):
    /// its own message, for the send granted in this tab.
    PageError {
        message: String,
    },
    /// The page's own request after a granted click to a route that is not a chat
    /// conversation route (Work mode; interfaces: `request_elsewhere`): its method and the
    /// route as a template (`/backend-api/work/<id>/messages`), never a body.
    RequestElsewhere {
        method: String,
        route: String,
    },
}

struct Track {
    op_id: String,
    text: String,
    /// The site's reader of this turn (`super::sites`).
    reader: Box<dyn TurnReader>,
    next_seq: u64,
    early: BTreeMap<u64, String>,
    /// Bytes taken so far (chunks, early ones included, and frames).
    taken: usize,
    progress: Progress,
    order: u64,
}

impl Track {
    /// Counts `input` against the stream's bounds.
    fn within_bounds(&mut self, input: &Input) -> Result<(), Unfollowed> {
        let bytes = match input {
            Input::Chunk(seq, _) if *seq < self.next_seq => 0,
            Input::Chunk(_, chunk) => chunk.len(),
            Input::Websocket(message) => message.len(),
            Input::End => 0,
        };
        self.taken = self.taken.saturating_add(bytes);
        if self.taken > MAX_STREAM_BYTES {
            return Err(Unfollowed::TooLarge);
        }
        match input {
            Input::Chunk(seq, _)
                if *seq > self.next_seq && self.early.len() >= MAX_EARLY_CHUNKS =>
            {
                Err(Unfollowed::TooManyEarly)
            }
            _ => Ok(()),
        }
    }

    /// Decodes what arrived; returns (the stream ended, a WebSocket frame was unreadable).
    fn take(&mut self, input: Input) -> (bool, bool) {
        match input {
            Input::Chunk(seq, chunk) => {
                if seq >= self.next_seq {
                    self.early.insert(seq, chunk);
                }
                while let Some(chunk) = self.early.remove(&self.next_seq) {
                    self.reader.feed(chunk.as_bytes());
                    self.next_seq += 1;
                }
                (false, false)
            }
            Input::Websocket(message) => (false, !self.reader.feed_frame(&message)),
            Input::End => (true, false),
        }
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
    /// At `stream_end`: (op id, the turn's outcome in words).
    pub end: Option<(String, String)>,
    /// The answer so far, when it grew: (op id, text, model slug). Not custody: a live
    /// feed for the OpenAI door's streamed answers.
    pub live: Option<(String, String, Option<String>)>,
}

/// The sentence when the page's response stream was not recognised.
pub(crate) const STREAM_NOT_RECOGNISED: &str = "the page's response stream was in a format this version does not recognise (page fact traffic.stream_markers): the message may have gone out, but its receipt and answer cannot be seen; the page gate closed — look in the chat, decide this send, update sendledger, then resume";

/// The note when a handed-off turn's WebSocket frames could not be read.
pub(crate) const FRAMES_NOT_UNDERSTOOD: &str = "hand-off frames not understood: the page's WebSocket frames for this turn could not be read, so its receipt and answer cannot be seen";

fn refused(msg: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::Malformed, msg)
}

impl Tracker {
    /// Starts following `stream_id` as the stream of send `op_id`, whose text is `text`
    /// and whose conversation request the page (chatgpt.com) sent as `req`.
    pub fn start(
        &mut self,
        stream_id: String,
        op_id: String,
        text: String,
        req: request::ConversationRequest,
    ) {
        let reader = Box::new(super::sites::chatgpt::Turn::new(req));
        self.start_reader(stream_id, op_id, text, reader);
    }

    /// Starts following `stream_id` for send `op_id` (text `text`), read by a site's
    /// `reader` (the oldest track is dropped past [`MAX_TRACKS`]).
    pub fn start_reader(
        &mut self,
        stream_id: String,
        op_id: String,
        text: String,
        reader: Box<dyn TurnReader>,
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
                reader,
                next_seq: 0,
                early: BTreeMap::new(),
                taken: 0,
                progress: Progress::default(),
                order: self.counter,
            },
        );
    }

    /// Starts following `stream_id` for send `op_id` already accepted by its receipt: a
    /// stream sent again from its start after a restart, read for the answer only.
    pub fn start_accepted(
        &mut self,
        stream_id: String,
        op_id: String,
        text: String,
        reader: Box<dyn TurnReader>,
    ) {
        self.start_reader(stream_id.clone(), op_id, text, reader);
        if let Some(t) = self.tracks.get_mut(&stream_id) {
            t.progress.accepted = true;
        }
    }

    /// Whether `stream_id` is followed.
    pub fn follows(&self, stream_id: &str) -> bool {
        self.tracks.contains_key(stream_id)
    }

    /// Feeds what arrived and returns the facts it newly shows. Input past a stream's
    /// bounds (depth, [`MAX_STREAM_BYTES`], [`MAX_EARLY_CHUNKS`]) ends the track with no
    /// facts at all: `Err((op id, why))`.
    pub fn feed(&mut self, stream_id: &str, input: Input) -> Result<Fed, (String, Unfollowed)> {
        let Some(t) = self.tracks.get_mut(stream_id) else {
            return Ok(Fed::default());
        };
        let bounded = t.within_bounds(&input);
        let (ended, not_understood) = match bounded {
            Ok(()) => t.take(input),
            Err(_) => (false, false),
        };
        let why = match bounded {
            Err(why) => Some(why),
            Ok(()) if t.reader.nests_too_deep() => Some(Unfollowed::TooDeep),
            Ok(()) => None,
        };
        if let Some(why) = why {
            let op_id = t.op_id.clone();
            self.tracks.remove(stream_id);
            return Err((op_id, why));
        }
        let read = t.reader.read((&t.op_id, &t.text), &mut t.progress, ended);
        let mut facts = read.facts;
        if not_understood {
            facts.push(Fact::NotUnderstood(t.op_id.clone()));
        }
        let end = ended.then(|| (t.op_id.clone(), read.outcome));
        if read.finished {
            self.tracks.remove(stream_id);
        }
        Ok(Fed {
            facts,
            end,
            live: read.live,
        })
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

/// The lease must exist (ended is fine: an answer outlives its tab's lease); a read,
/// nothing is written. A tab that asks (forwarding its page's traffic, asking for its
/// conversation's generated files) is alive, so its silence bound starts again.
pub(super) async fn hear(st: &BridgeState, lease_id: &str) -> Result<(), ApiError> {
    let lease_id = lease_id.to_string();
    st.ledger()
        .call(move |l| {
            l.hear_lease(&lease_id);
            l.lease_known(&lease_id)
        })
        .await?;
    Ok(())
}

/// Hears from `lease_id` and reads the site of its tab, which picks the parser of the
/// page's traffic: one call to the ledger's thread, no write (an observation's first step).
async fn hear_site(st: &BridgeState, lease_id: &str) -> Result<Site, ApiError> {
    let id = lease_id.to_string();
    Ok(st.ledger().call(move |l| l.hear_lease_site(&id)).await?)
}

pub(crate) async fn apply(st: &BridgeState, o: Observation) -> Result<Vec<Applied>, ApiError> {
    let site = hear_site(st, &o.lease_id).await?;
    let (stream_id, input) = match o.kind {
        Kind::Request {
            stream_id,
            url,
            body,
            answered,
        } if site == Site::Claude => {
            let page = (url.as_str(), body.as_str());
            return super::sites::claude::start(st, o.op_id, stream_id, page, &answered).await;
        }
        Kind::Listing { url, body } if site == Site::Claude => {
            return super::sites::claude::listing(st, &url, &body).await
        }
        Kind::Request {
            stream_id,
            url,
            body,
            answered,
        } => return start(st, o.op_id, stream_id, (&url, &body), &answered).await,
        Kind::Listing { url, body } => return listing(st, &url, &body).await,
        Kind::PageError { message } => {
            return page_error_shown(st, &o.lease_id, o.op_id, &message).await
        }
        Kind::RequestElsewhere { method, route } => {
            return super::elsewhere::apply(st, &o.lease_id, o.op_id, (&method, &route)).await
        }
        Kind::StreamChunk {
            stream_id,
            seq,
            chunk,
        } => (stream_id, Input::Chunk(seq, chunk)),
        Kind::Websocket { stream_id, message } => (stream_id, Input::Websocket(message)),
        Kind::StreamEnd { stream_id } => (stream_id, Input::End),
    };
    if !st.observations().follows(&stream_id) {
        return Ok(vec![Applied::UnknownStream { stream_id }]);
    }
    let fed = st.observations().feed(&stream_id, input);
    let Fed { facts, end, live } = fed.map_err(|(op_id, why)| {
        refused(format!(
            "the page's stream of send {op_id} is not read: {why}; the owner no longer follows \
             that stream, and the send keeps its state (see docs/bridge-api.md)"
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
            Fact::Answer(op_id, answered) => complete(st, op_id, answered).await?,
            other => apply_fact(st, other).await?,
        });
    }
    if let Some((op_id, outcome)) = end {
        applied.push(Applied::Outcome { op_id, outcome });
    }
    Ok(applied)
}

/// The final answer completes its send, with the files it generated, in one transaction.
async fn complete(st: &BridgeState, op_id: String, a: Answered) -> Result<Applied, ApiError> {
    let (id, message_id) = (op_id.clone(), a.message_id.clone());
    st.ledger()
        .call(move |l| {
            if let Some(model) = &a.model {
                l.door_note_model(&id, model)?;
                super::downgrade::note_model(l, &id, model)?;
            }
            l.complete_with_artifacts(&id, (&a.message_id, &a.text), &a.artifacts, "extension")
        })
        .await?;
    Ok(Applied::Completed { op_id, message_id })
}

/// The facts beyond custody's receipt and answer: the page's error, a note.
async fn apply_fact(st: &BridgeState, fact: Fact) -> Result<Applied, ApiError> {
    Ok(match fact {
        Fact::PageError(op_id, message, code) => {
            record_page_error(st, op_id, &message, code.as_deref()).await?
        }
        Fact::Refused(op_id, error) => {
            let (id, limit) = (op_id.clone(), error.limit);
            st.ledger()
                .call(move |l| l.page_error(&id, &error, "extension"))
                .await?;
            Applied::PageError {
                op_id,
                usage_limit: limit.is_some(),
                resets_at_ms: limit.and_then(|l| l.until_ms),
            }
        }
        Fact::LimitSeen(op_id, words, until) => {
            let (id, note) = (
                op_id.clone(),
                format!("the page showed its usage limit before the receipt was seen: {words}"),
            );
            st.ledger()
                .call(move |l| l.usage_limit_seen(&id, &note, until))
                .await?;
            Applied::PageError {
                op_id,
                usage_limit: true,
                resets_at_ms: until,
            }
        }
        Fact::Note(op_id, note) => {
            let (id, n) = (op_id.clone(), note.clone());
            st.ledger()
                .call(move |l| l.note_evidence(&id, EvidenceKind::Observed, &n))
                .await?;
            Applied::Noted { op_id, note }
        }
        Fact::NotUnderstood(op_id) => {
            let id = op_id.clone();
            let says = (
                EvidenceKind::Observed,
                Some(crate::ledger::NoteKind::FramesNotUnderstood),
            );
            st.ledger()
                .call(move |l| l.note_evidence_saying(&id, says, FRAMES_NOT_UNDERSTOOD))
                .await?;
            Applied::Noted {
                op_id,
                note: FRAMES_NOT_UNDERSTOOD.into(),
            }
        }
        Fact::AnsweredBy(op_id, answered, requested) => {
            super::downgrade::apply(st, op_id, answered, requested).await?
        }
        Fact::PageChanged(op_id, fact, sentence) => {
            let (id, s) = (op_id.clone(), sentence.clone());
            st.ledger()
                .call(move |l| l.page_changed_in_traffic(&id, &s, fact))
                .await?;
            Applied::PageChanged {
                op_id,
                fact_id: fact.into(),
            }
        }
        Fact::Receipt(op_id, _) | Fact::Answer(op_id, ..) => Applied::NotTracked {
            reason: format!("send {op_id}: a receipt or an answer is applied by the stream"),
        },
    })
}

/// accepted → page_error with the page's message; a usage limit closes the limit gate
/// until the time the page named (read in the machine's local time zone).
async fn record_page_error(
    st: &BridgeState,
    op_id: String,
    message: &str,
    code: Option<&str>,
) -> Result<Applied, ApiError> {
    // The owner's clock (a test's fixed clock too), read in the machine's local zone.
    let now = chrono::DateTime::from_timestamp_millis(st.now())
        .unwrap_or_default()
        .with_timezone(&chrono::Local);
    let refusal = refusal::read_coded_refusal(message, code, &now);
    let error = PageError {
        message: refusal.message.clone(),
        limit: refusal.usage_limit.then_some(LimitHold {
            until_ms: refusal.resets_at_ms,
        }),
    };
    let id = op_id.clone();
    st.ledger()
        .call(move |l| l.page_error(&id, &error, "extension"))
        .await?;
    Ok(Applied::PageError {
        op_id,
        usage_limit: refusal.usage_limit,
        resets_at_ms: refusal.resets_at_ms,
    })
}

/// The page rendered its error after a send was granted in this tab: the send, when it
/// was dispatched from the same tab, ends `page_error` (accepted) or gets a note
/// (no receipt seen yet: whether it went out is still the receipt's to say).
async fn page_error_shown(
    st: &BridgeState,
    lease_id: &str,
    op_id: Option<String>,
    message: &str,
) -> Result<Vec<Applied>, ApiError> {
    let message: String = message
        .trim()
        .chars()
        .take(refusal::MAX_MESSAGE_CHARS)
        .collect();
    let Some(op_id) = op_id.filter(|_| !message.is_empty()) else {
        return Ok(vec![Applied::NotTracked {
            reason: "a page error with no granted send or no message".into(),
        }]);
    };
    let (id, lease) = (op_id.clone(), lease_id.to_string());
    let send = st
        .ledger()
        .call(move |l| -> Result<_, LedgerError> {
            let send = l.get(&id)?.ok_or(LedgerError::UnknownSend(id))?;
            let here = l.get_lease(&lease)?.binding.tab_id;
            let same_tab = match send.lease_id.as_deref() {
                Some(granted) => l.get_lease(granted)?.binding.tab_id == here,
                None => false,
            };
            Ok(same_tab.then_some(send))
        })
        .await?;
    let Some(send) = send.filter(|s| s.dispatched_at.is_some()) else {
        return Ok(vec![Applied::NotTracked {
            reason: format!("send {op_id} was not dispatched from this tab"),
        }]);
    };
    let fact = match send.state {
        SendState::Accepted => Fact::PageError(op_id, message, None),
        SendState::Dispatched | SendState::Uncertain => Fact::Note(
            op_id,
            format!("the page showed an error before its receipt was seen: {message}"),
        ),
        state => {
            return Ok(vec![Applied::NotTracked {
                reason: format!("send {op_id} is {state}: the page's error changes nothing"),
            }])
        }
    };
    Ok(vec![apply_fact(st, fact).await?])
}

async fn start(
    st: &BridgeState,
    op_id: Option<String>,
    stream_id: String,
    (url, body): (&str, &str),
    answered: &super::refused_request::Answered,
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
    if crate::send_text::normalise(&req.text) != send.text {
        return Ok(vec![Applied::NotTracked {
            reason: format!("the page's request does not carry the text of send {op_id}"),
        }]);
    }
    if let Some(applied) = follow_again(st, &send, stream_id.clone(), &req) {
        return Ok(applied);
    }
    if let Some(applied) = super::refused_request::apply(st, &send, answered).await? {
        return Ok(applied);
    }
    if send.dispatched_at.is_none()
        || !matches!(send.state, SendState::Dispatched | SendState::Uncertain)
    {
        return Ok(vec![Applied::NotTracked {
            reason: format!("send {op_id} is {}, not awaiting its receipt", send.state),
        }]);
    }
    let (id, conversation, model, files) = (
        op_id.clone(),
        req.conversation_id.clone(),
        req.model.clone(),
        req.attachments.clone(),
    );
    st.ledger()
        .call(move |l| {
            l.record_page_destination(&id, conversation.as_deref(), model.as_deref())?;
            l.record_page_attachments(&id, &files)
        })
        .await?;
    st.observations()
        .start(stream_id, op_id.clone(), send.text, req);
    Ok(vec![Applied::Tracking { op_id }])
}

/// A stream sent again from its request for an `accepted` send whose answer was not
/// seen (the owner restarted while it streamed): followed from its start for the answer
/// only, when the request is the one the receipt names (its user message id). The receipt
/// is not applied again, nothing else is recorded, and the request's destination was
/// recorded the first time. `None`: not such a stream.
fn follow_again(
    st: &BridgeState,
    send: &crate::ledger::Send,
    stream_id: String,
    req: &request::ConversationRequest,
) -> Option<Vec<Applied>> {
    let receipt = send.receipt.as_ref()?;
    if send.state != SendState::Accepted || receipt.user_message_id != req.user_message_id {
        return None;
    }
    let reader = Box::new(super::sites::chatgpt::Turn::new(req.clone()));
    st.observations()
        .start_accepted(stream_id, send.op_id.clone(), send.text.clone(), reader);
    Some(vec![Applied::Tracking {
        op_id: send.op_id.clone(),
    }])
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
    super::conversation_read::apply(st, listing, listed).await
}
