//! claude.ai's turn reader and request start (docs/claude-provider.md; interface in
//! docs/bridge-api.md, "Sites"): the completion request (`provider::claude::route`,
//! `request`) and its event stream → the receipt from the page-chosen
//! `turn_message_uuids`, the answer at `message_stop`, the page's `error` event and an
//! exceeded `message_limit` as site-neutral refusals, a cut stream as a note (the
//! conversation read harvests it). The retry route is fenced: never a send's request.

use crate::bridge::error::ApiError;
use crate::bridge::observations::{Answered, Applied, Fact};
use crate::bridge::refused_request::{self, Answered as HttpAnswer};
use crate::bridge::turn::{Progress, Read, TurnReader};
use crate::bridge::BridgeState;
use crate::error_code::ErrorCode;
use crate::ledger::{
    EvidenceKind, LedgerError, LedgerRead, LimitHold, PageError, Receipt, SendState,
};
use crate::provider::claude::{
    self,
    request::CompletionRequest,
    route::{route_of, Route},
    stream::{StreamDecoder, StreamObservation},
    ClaudeOutcome,
};
use crate::site::Site;
use axum::http::StatusCode;

/// The page fact named when a completion's stream was not recognised at all.
pub const STREAM_MARKERS: &str = "claude.traffic.stream_markers";

/// The evidence noted when the page POSTed the retry route after a grant.
pub const RETRY_FENCED: &str = "the page called claude.ai's retry route (retry_completion) after the grant: a retry re-asks an old message and is never this send's request; sendledger never calls it and never sends a message twice — the send keeps its state";

/// One claude.ai turn being followed.
pub struct Turn {
    route: Route,
    request: CompletionRequest,
    decoder: StreamDecoder,
}

impl Turn {
    /// Reads the stream answering the completion `request` sent to `route`.
    pub fn new(route: Route, request: CompletionRequest) -> Self {
        Turn {
            route,
            request,
            decoder: StreamDecoder::new(),
        }
    }

    fn answer(&self, obs: &StreamObservation, op_id: &str, facts: &mut Vec<Fact>) -> bool {
        let ClaudeOutcome::Answered { message_uuid, text } =
            claude::answer_outcome(obs, &self.request)
        else {
            return false;
        };
        if let Some(answered) = &obs.model {
            let requested = self.request.model.clone();
            facts.push(Fact::AnsweredBy(op_id.into(), answered.clone(), requested));
        }
        facts.push(Fact::Answer(
            op_id.into(),
            Answered {
                message_id: message_uuid,
                text,
                model: obs.model.clone(),
                artifacts: Vec::new(),
            },
        ));
        true
    }

    /// At the end of a turn with no answer: what the page said, as a fact.
    fn ending(
        obs: &StreamObservation,
        outcome: &ClaudeOutcome,
        op_id: &str,
        accepted: bool,
    ) -> Option<Fact> {
        let limit = obs.limit.as_ref().and_then(|l| l.refusal());
        let message = match (outcome, &limit) {
            (ClaudeOutcome::Error { message }, _) => message.clone(),
            (ClaudeOutcome::LimitReached, Some(l)) => l.message.clone(),
            (ClaudeOutcome::Cut, _) => return Some(Fact::Note(op_id.into(), CUT.into())),
            (ClaudeOutcome::Unfinished { stop_reason }, _) => {
                let note = format!("the answer stopped unfinished (stop reason {stop_reason}): nothing is completed from it");
                return Some(Fact::Note(op_id.into(), note));
            }
            _ => return None,
        };
        Some(match (accepted, limit) {
            (true, limit) => Fact::Refused(
                op_id.into(),
                PageError {
                    message,
                    limit: limit.map(|l| LimitHold {
                        until_ms: l.resets_at_ms,
                    }),
                },
            ),
            (false, Some(l)) => Fact::LimitSeen(op_id.into(), message, l.resets_at_ms),
            (false, None) => Fact::Note(
                op_id.into(),
                format!("the page answered with an error before its receipt was seen: {message}"),
            ),
        })
    }
}

/// The note when a completion's stream ended before `message_stop`.
pub const CUT: &str = "the answer's stream ended before message_stop: nothing is completed from it; the conversation read is evidence of what the page kept";

impl TurnReader for Turn {
    fn feed(&mut self, bytes: &[u8]) {
        self.decoder.feed(bytes);
    }

    fn nests_too_deep(&self) -> bool {
        self.decoder.nests_too_deep()
    }

    fn read(&mut self, (op_id, text): (&str, &str), p: &mut Progress, ended: bool) -> Read {
        let obs = if ended {
            std::mem::take(&mut self.decoder).finish()
        } else {
            self.decoder.snapshot()
        };
        let mut facts = Vec::new();
        if !p.accepted {
            if let Some(r) = claude::receipt_for(&self.route, &self.request, &obs, text) {
                p.accepted = true;
                facts.push(Fact::Receipt(
                    op_id.into(),
                    Receipt {
                        conversation_id: r.conversation_id,
                        user_message_id: r.user_message_id,
                        turn_id: r.turn_id,
                    },
                ));
            }
        }
        if p.accepted && !p.completed && self.answer(&obs, op_id, &mut facts) {
            p.completed = true;
        }
        let outcome = claude::answer_outcome(&obs, &self.request);
        let unrecognised = !obs.started && obs.error.is_none() && obs.limit.is_none();
        if ended && !p.accepted && unrecognised {
            facts.push(Fact::PageChanged(
                op_id.into(),
                STREAM_MARKERS,
                crate::bridge::observations::STREAM_NOT_RECOGNISED
                    .replace("traffic.stream_markers", STREAM_MARKERS),
            ));
        } else if ended && !p.completed {
            facts.extend(Self::ending(&obs, &outcome, op_id, p.accepted));
        }
        let live = (p.accepted && obs.text.len() != p.live_len).then(|| {
            p.live_len = obs.text.len();
            (op_id.to_string(), obs.text.clone(), obs.model.clone())
        });
        Read {
            facts,
            outcome: words(&outcome).into(),
            live,
            finished: ended,
        }
    }
}

/// The outcome in words, without the answer's text.
fn words(outcome: &ClaudeOutcome) -> &'static str {
    match outcome {
        ClaudeOutcome::Answered { .. } => "answered",
        ClaudeOutcome::NoAnswerYet => "no answer yet",
        ClaudeOutcome::Cut => "cut before message_stop",
        ClaudeOutcome::Unfinished { .. } => "unfinished",
        ClaudeOutcome::LimitReached => "usage limit reached",
        ClaudeOutcome::Error { .. } => "the page's error",
    }
}

/// The parent uuid of a new chat's first message (fixtures `request_new_chat.json`,
/// `request_project.json`).
pub const ROOT_PARENT: &str = "00000000-0000-4000-8000-000000000000";

/// The conversation the request names as a place: `None` when it starts a new chat
/// (`create_conversation_params`, or the first message under the root parent) — the
/// conversation the page just made for it is a new chat's, not an existing one.
fn requested_place(req: &CompletionRequest, conversation: String) -> Option<String> {
    let first = req.new_chat.is_some()
        || req
            .parent_message_uuid
            .as_deref()
            .is_none_or(|p| p == ROOT_PARENT);
    (!first).then_some(conversation)
}

fn refused(msg: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::Malformed, msg)
}

fn not_tracked(reason: impl Into<String>) -> Vec<Applied> {
    vec![Applied::NotTracked {
        reason: reason.into(),
    }]
}

/// A `request` observation from a claude.ai tab: the completion of the granted send is
/// followed; the retry route is noted as fenced; other calls change nothing.
pub(crate) async fn start(
    st: &BridgeState,
    op_id: Option<String>,
    stream_id: String,
    (url, body): (&str, &str),
    answered: &HttpAnswer,
) -> Result<Vec<Applied>, ApiError> {
    let route = match route_of("POST", url) {
        Some(r @ Route::Completion { .. }) => r,
        Some(Route::Retry { .. }) => return retry_seen(st, op_id).await,
        _ => return Ok(not_tracked("not a claude.ai completion request")),
    };
    let Some(op_id) = op_id else {
        return Ok(not_tracked("no granted send in this tab"));
    };
    let req = claude::request::parse_completion(body.as_bytes())
        .map_err(|e| refused(format!("the completion request could not be read: {e}")))?;
    let id = op_id.clone();
    let send = st
        .ledger()
        .call(move |l| l.get(&id)?.ok_or(LedgerError::UnknownSend(id)))
        .await?;
    if crate::send_text::normalise(&req.prompt) != send.text {
        return Ok(not_tracked(format!(
            "the page's request does not carry the text of send {op_id}"
        )));
    }
    let reader = Box::new(Turn::new(route.clone(), req.clone()));
    let again = send
        .receipt
        .as_ref()
        .is_some_and(|r| r.user_message_id == req.human_message_uuid);
    if send.state == SendState::Accepted && again {
        st.observations()
            .start_accepted(stream_id, op_id.clone(), send.text, reader);
        return Ok(vec![Applied::Tracking { op_id }]);
    }
    let now = st.now();
    let refusal = answered.read_with(|status, retry_after, body| {
        claude::refused::read_refused_completion(status, retry_after, None, body, now)
    });
    if let Some(applied) = refused_request::apply_read(st, &send, refusal).await? {
        return Ok(applied);
    }
    if send.dispatched_at.is_none()
        || !matches!(send.state, SendState::Dispatched | SendState::Uncertain)
    {
        return Ok(not_tracked(format!(
            "send {op_id} is {}, not awaiting its receipt",
            send.state
        )));
    }
    let Route::Completion { conversation, .. } = route else {
        unreachable!("matched above")
    };
    let (id, model) = (op_id.clone(), req.model.clone());
    let place = requested_place(&req, conversation);
    st.ledger()
        .call(move |l| l.record_page_destination(&id, place.as_deref(), model.as_deref()))
        .await?;
    st.observations()
        .start_reader(stream_id, op_id.clone(), send.text, reader);
    Ok(vec![Applied::Tracking { op_id }])
}

/// The page POSTed the retry route while a send was granted in this tab: evidence on the
/// send, never a receipt, never a second send.
async fn retry_seen(st: &BridgeState, op_id: Option<String>) -> Result<Vec<Applied>, ApiError> {
    let Some(op_id) = op_id else {
        return Ok(not_tracked(
            "the retry route, with no granted send in this tab",
        ));
    };
    let (id, note) = (op_id.clone(), RETRY_FENCED.to_string());
    st.ledger()
        .call(move |l| l.note_evidence(&id, EvidenceKind::Observed, &note))
        .await?;
    Ok(vec![Applied::Noted {
        op_id,
        note: RETRY_FENCED.into(),
    }])
}

/// A claude.ai conversation read (`GET …/chat_conversations/{uuid}?tree=True…`): an
/// accepted send of that conversation whose answer was not seen (a crash, a reload) is
/// completed when the read shows the finished answer the request chose for it (by its
/// receipt's uuids, never by text); a dispatched or uncertain send gets a note of how
/// many human messages with its text the read shows — evidence, never a decision.
pub(crate) async fn listing(
    st: &BridgeState,
    url: &str,
    body: &str,
) -> Result<Vec<Applied>, ApiError> {
    let read = claude::conversation::parse_conversation(body.as_bytes())
        .map_err(|e| refused(format!("the conversation read could not be read: {e}")))?;
    if !matches!(route_of("GET", url), Some(Route::ConversationRead { .. })) {
        return Ok(not_tracked("not a claude.ai conversation read"));
    }
    let mut applied = Vec::new();
    let sends_in = |state| crate::bridge::conversation_read::sends_in(st, Site::Claude, state);
    for send in sends_in(SendState::Accepted).await? {
        applied.extend(harvest(st, &read, send).await?);
    }
    let mut waiting = sends_in(SendState::Uncertain).await?;
    waiting.extend(sends_in(SendState::Dispatched).await?);
    for send in waiting {
        applied.extend(evidence(st, &read, send).await?);
    }
    Ok(applied)
}

async fn harvest(
    st: &BridgeState,
    read: &claude::conversation::ConversationRead,
    send: crate::ledger::Send,
) -> Result<Option<Applied>, ApiError> {
    let Some(r) = send.receipt.as_ref().filter(|_| send.answer.is_none()) else {
        return Ok(None);
    };
    let found = claude::harvest::answer_in(
        read,
        &r.conversation_id,
        &r.user_message_id,
        Some(&r.turn_id),
    );
    let claude::harvest::Harvest::Answered { message_uuid, text } = found else {
        return Ok(None);
    };
    let (id, m) = (send.op_id.clone(), message_uuid.clone());
    st.ledger()
        .call(move |l| {
            l.complete_with_artifacts(&id, (&m, &text), &[], "extension")?;
            let note = format!("answer {m} read from the conversation as the page showed it again (its stream was cut before the answer was seen)");
            l.note_evidence(&id, EvidenceKind::Observed, &note)
        })
        .await?;
    Ok(Some(Applied::Completed {
        op_id: send.op_id,
        message_id: message_uuid,
    }))
}

async fn evidence(
    st: &BridgeState,
    read: &claude::conversation::ConversationRead,
    send: crate::ledger::Send,
) -> Result<Option<Applied>, ApiError> {
    let conversation = send
        .receipt
        .as_ref()
        .map(|r| r.conversation_id.clone())
        .or_else(|| send.conversation_id.clone());
    if conversation.as_deref().is_some_and(|c| c != read.uuid) {
        return Ok(None);
    }
    let matching: Vec<&str> = read
        .messages
        .iter()
        .filter(|m| {
            m.sender == claude::conversation::Sender::Human
                && crate::send_text::normalise(&m.text) == send.text
        })
        .map(|m| m.uuid.as_str())
        .collect();
    if conversation.is_none() && matching.is_empty() {
        return Ok(None);
    }
    let seen = format!("observed claude.ai conversation {}", read.uuid);
    let note = match matching.as_slice() {
        [] => format!("{seen}: no human message with this text"),
        [one] => format!("{seen}: exactly one human message with this text ({one}); the read gives no times, so whether it is this send's is for a person to say"),
        many => format!("{seen}: {} human messages with this text", many.len()),
    };
    let (op_id, n) = (send.op_id.clone(), matching.len());
    st.ledger()
        .call(move |l| l.note_evidence(&op_id, EvidenceKind::Observed, &note))
        .await?;
    Ok(Some(Applied::Evidence {
        op_id: send.op_id,
        matching: n,
        exactly_one: n == 1,
    }))
}
