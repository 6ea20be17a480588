//! The Responses API door (docs/openai.md, "The Responses door"): `POST /v1/responses`
//! (answered when the send settles, streamed with the Responses event stream, or — with
//! `background: true` — at once, to be followed by id) and `GET /v1/responses/{id}`.
//! The same custody as the chat door: the same attach rule and Idempotency-Key
//! (`custody`), the same no-retry errors, the same hold. A response id is `resp_<op id>`:
//! following a long turn by id needs no connection to stay open and survives a restart
//! of the client or the owner. `previous_response_id` sends into the ChatGPT
//! conversation that response's send went to (the page's own receipt), only there.

mod images;
mod object;
mod request;
mod stream;

use super::auth::Caller;
use super::completion::{answered, settled_failure, too_large};
use super::custody::{self, Admitted};
use super::door_reply::{door_headers, mismatch_header, mismatch_of, model_of};
use super::error::OpenAiError;
use super::outcome::{self, Outcome};
use crate::bridge::BridgeState;
use crate::ledger::LedgerRead;
use crate::ledger::{LedgerError, Send};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use object::{object, op_id_of, with_mismatch, Stand};
use request::ResponsesRequest;

/// `POST /v1/responses`.
pub(crate) async fn create(
    State(st): State<BridgeState>,
    Extension(caller): Extension<Caller>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let body = match body {
        Ok(b) => b,
        Err(r) => return too_large(r).into_response(),
    };
    let req = match admit(&st, &caller, &body, &headers).await {
        Ok(r) => r,
        Err(e) => return e.into_response(),
    };
    let (req, admitted) = req;
    tracing::info!(op_id = %admitted.op_id, attached = admitted.attached, stream = req.stream, background = req.background, client = %caller.client(), "responses door request");
    if req.stream {
        if let Some(mut refused) = settled_failure(&st, &admitted).await {
            door_headers(refused.headers_mut(), &req.ignored, &admitted);
            return refused;
        }
        return stream::answer(st, &req.ignored, admitted, req.background);
    }
    let mut res = if req.background {
        current(&st, &admitted.op_id, true).await
    } else {
        match answered(&st, &admitted.op_id).await {
            Ok((send, text, model)) => {
                let mismatch = mismatch_of(&st, &send.op_id).await;
                let mut body = object(&send, Stand::Completed(&text), &model, false);
                images::insert(&mut body, &images::settled(&st, &send, true).await, true);
                let mut res = Json(with_mismatch(body, mismatch.as_deref())).into_response();
                mismatch_header(res.headers_mut(), mismatch.as_deref());
                res
            }
            Err(e) => e.into_response(),
        }
    };
    door_headers(res.headers_mut(), &req.ignored, &admitted);
    res
}

async fn admit(
    st: &BridgeState,
    caller: &Caller,
    body: &[u8],
    headers: &HeaderMap,
) -> Result<(ResponsesRequest, Admitted), OpenAiError> {
    let mut req = request::parse(body, headers)?;
    if let Some(prev) = req.previous.clone() {
        let conversation = previous_conversation(st, caller, &prev).await?;
        if req
            .ask
            .conversation_id
            .as_ref()
            .is_some_and(|c| *c != conversation)
        {
            return Err(OpenAiError::invalid(
                "conflicting_conversation",
                Some("previous_response_id"),
                "previous_response_id and the conversation named (metadata.conversation_id or the x-sendledger-conversation header) are different conversations: give one",
            ));
        }
        req.ask.conversation_id = Some(conversation);
    }
    let admitted = custody::admit(st, caller, &req.ask, headers).await?;
    Ok((req, admitted))
}

/// `GET /v1/responses/{id}`: the response as it stands now.
pub(crate) async fn retrieve(
    State(st): State<BridgeState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Response {
    match door_send(&st, &caller, &id).await {
        Ok(send) => current(&st, &send.op_id, false).await,
        Err(e) => e.into_response(),
    }
}

/// The response object of `op_id` as committed now (200), or the ledger's refusal.
async fn current(st: &BridgeState, op_id: &str, background: bool) -> Response {
    let id = op_id.to_string();
    let send = match st
        .ledger()
        .call(move |l| l.get(&id)?.ok_or(LedgerError::UnknownSend(id)))
        .await
    {
        Ok(s) => s,
        Err(e) => {
            return OpenAiError::from(crate::bridge::error::ApiError::from(e)).into_response()
        }
    };
    let model = model_of(st, op_id, None).await;
    let body = match outcome::of(&send) {
        Outcome::Pending => object(&send, Stand::Pending(send.state), &model, background),
        Outcome::Answered { text } => {
            let mut body = object(&send, Stand::Completed(&text), &model, background);
            images::insert(&mut body, &images::settled(st, &send, false).await, true);
            body
        }
        Outcome::Failed(e) => object(&send, Stand::Failed(&e), &model, background),
    };
    let mismatch = mismatch_of(st, op_id).await;
    Json(with_mismatch(body, mismatch.as_deref())).into_response()
}

fn not_found(id: &str) -> OpenAiError {
    OpenAiError {
        status: StatusCode::NOT_FOUND,
        kind: "invalid_request_error",
        code: "response_not_found",
        param: None,
        message: format!(
            "no response {:?} from this door for this key: response ids are resp_<operation id>, as POST /v1/responses answered",
            id.chars().take(200).collect::<String>()
        ),
        retry: Some(false),
        op_id: None,
        retry_after: None,
    }
}

/// The send behind response `id`, if a door queued it for this caller (the client token
/// sees every door's response; a named key only its own).
async fn door_send(st: &BridgeState, caller: &Caller, id: &str) -> Result<Send, OpenAiError> {
    let op = op_id_of(id).ok_or_else(|| not_found(id))?.to_string();
    let client = caller.identity();
    let everyone = *caller == Caller::ClientToken;
    let found = st
        .ledger()
        .call(move |l| {
            let door = l.door_request(&op)?;
            match door {
                Some(d) if everyone || d.client == client => l.get(&op),
                _ => Ok(None),
            }
        })
        .await
        .map_err(|e| OpenAiError::from(crate::bridge::error::ApiError::from(e)))?;
    found.ok_or_else(|| not_found(id))
}

/// The ChatGPT conversation response `prev`'s send went to, from the page's own receipt
/// (or the conversation it was sent to by name). Errors: 404 unknown; 400
/// `previous_response_pending` while the page has not yet told.
async fn previous_conversation(
    st: &BridgeState,
    caller: &Caller,
    prev: &str,
) -> Result<String, OpenAiError> {
    let send = door_send(st, caller, prev).await?;
    let known = send
        .receipt
        .as_ref()
        .map(|r| r.conversation_id.clone())
        .or(send.conversation_id.clone());
    known.ok_or_else(|| {
        let mut e = OpenAiError::invalid(
            "previous_response_pending",
            Some("previous_response_id"),
            format!(
                "the conversation of response {prev} is not known yet (its send {} is {}; the page has not confirmed it): wait until that response is in progress or completed, then send again",
                send.op_id,
                send.state.as_str()
            ),
        );
        e.op_id = Some(send.op_id.clone());
        e
    })
}
