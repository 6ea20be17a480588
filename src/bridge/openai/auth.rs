//! Who may use the door: the same Host and Origin checks as every client route, then the
//! per-start client token or a live named API key. The caller rides on the request
//! ([`Caller`]) and becomes the send's actor. Every refusal is an OpenAI error object
//! with `x-should-retry: false` (a retry with the same key cannot succeed).

use super::error::OpenAiError;
use crate::bridge::auth::{check_host, read_bearer, read_origin};
use crate::bridge::pairing::token_hash;
use crate::bridge::BridgeState;
use crate::ledger::KEY_PREFIX;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Who asked: the send's actor (`openai:<client>`), and the identity the door's rows
/// match retries and responses by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Caller {
    /// The per-start `client.token` (the CLI, local scripts).
    ClientToken,
    /// A named API key: its name, and the SHA-256 of its secret (a key made again under a
    /// revoked key's name is another caller).
    Key { name: String, sha256: String },
}

impl Caller {
    /// `client-token` or `key:<name>`, as people read it.
    pub(crate) fn client(&self) -> String {
        match self {
            Caller::ClientToken => "client-token".into(),
            Caller::Key { name, .. } => format!("key:{name}"),
        }
    }

    /// `client-token` or `key:<SHA-256 of the key>`: what the door's rows hold.
    pub(crate) fn identity(&self) -> String {
        match self {
            Caller::ClientToken => "client-token".into(),
            Caller::Key { sha256, .. } => format!("key:{sha256}"),
        }
    }
}

fn refused(
    status: StatusCode,
    kind: &'static str,
    code: &'static str,
    message: &str,
) -> OpenAiError {
    OpenAiError {
        status,
        kind,
        code,
        param: None,
        message: message.into(),
        retry: Some(false),
        op_id: None,
        retry_after: None,
    }
}

fn unauthorized() -> OpenAiError {
    refused(
        StatusCode::UNAUTHORIZED,
        "authentication_error",
        "invalid_api_key",
        "missing, unknown or revoked API key: use a live key from `sendledger keys create NAME` (or the window's Connect panel), or the profile's client.token",
    )
}

/// What the guard reads of a request before it awaits (a `Request` is not `Sync`): the
/// bridge's own Host, Origin and Authorization checks, then the token.
fn presented(req: &Request) -> Result<String, OpenAiError> {
    check_host(req)?;
    if read_origin(req.headers())?.is_some() {
        return Err(refused(
            StatusCode::FORBIDDEN,
            "permission_error",
            "bad_origin",
            "requests from web pages are refused: local clients send no Origin",
        ));
    }
    Ok(read_bearer(req.headers())?
        .ok_or_else(unauthorized)?
        .to_string())
}

async fn caller(st: &BridgeState, token: String) -> Result<Caller, OpenAiError> {
    if token_hash(&token) == st.client_token_hash() {
        return Ok(Caller::ClientToken);
    }
    if st.is_extension_token(&token) {
        return Err(refused(
            StatusCode::FORBIDDEN,
            "permission_error",
            "wrong_scope",
            "the extension's token cannot use the OpenAI door",
        ));
    }
    if !token.starts_with(KEY_PREFIX) {
        return Err(unauthorized());
    }
    let sha256 = crate::ledger::key_sha256(&token);
    let key = st
        .ledger()
        .call(move |l| l.key_use(&token))
        .await
        .map_err(|e| OpenAiError::from(crate::bridge::error::ApiError::from(e)))?;
    key.map(|k| Caller::Key {
        name: k.name,
        sha256,
    })
    .ok_or_else(unauthorized)
}

/// The door's guard: refuses, or runs the route with the [`Caller`] attached (a key's
/// call ended at once if the key is revoked while it is open). Every live key opens the
/// doors, whatever its scope.
pub(crate) async fn guard(st: BridgeState, mut req: Request, next: Next) -> Response {
    let token = match presented(&req) {
        Ok(t) => t,
        Err(e) => return e.into_response(),
    };
    match caller(&st, token).await {
        Ok(Caller::ClientToken) => {
            req.extensions_mut().insert(Caller::ClientToken);
            next.run(req).await
        }
        Ok(Caller::Key { name, sha256 }) => {
            let by = crate::bridge::revocation::OpenedBy {
                name: name.clone(),
                sha256: sha256.clone(),
                door: true,
            };
            req.extensions_mut().insert(Caller::Key { name, sha256 });
            crate::bridge::revocation::until_revoked(&st, by, next.run(req)).await
        }
        Err(e) => e.into_response(),
    }
}
