//! Every request is checked before it reaches a route: Host (loopback names and the
//! bridge's port only: no DNS rebinding), Origin (none for local clients; for extension
//! routes the paired extension's `chrome-extension://` origin, or none — a service
//! worker's GET carries none; web pages never), and the bearer token of the route's
//! scope. Tokens are compared by SHA-256.

use super::error::ApiError;
use super::pairing::token_hash;
use super::BridgeState;
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Which token a route needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// CLI and companions: `client.token`.
    Client,
    /// The paired extension.
    Extension,
    /// Pairing itself: no token, an extension origin.
    Pairing,
    /// The OpenAI-compatible door (`/v1/models`, `/v1/chat/completions`): the client
    /// token or a named API key; refusals are OpenAI error objects.
    Door,
}

/// The scope of a path.
pub fn scope_of(path: &str) -> Scope {
    if path == "/v1/pair" {
        Scope::Pairing
    } else if path.starts_with("/v1/ext/") {
        Scope::Extension
    } else if path == "/v1/models"
        || path.starts_with("/v1/models/")
        || path == "/v1/chat/completions"
    {
        Scope::Door
    } else {
        Scope::Client
    }
}

fn host_ok(host: &str, port: u16) -> bool {
    ["127.0.0.1", "localhost", "[::1]"]
        .iter()
        .any(|name| host.eq_ignore_ascii_case(&format!("{name}:{port}")))
}

/// Whether `origin` is a browser extension's origin.
pub fn is_extension_origin(origin: &str) -> bool {
    origin
        .strip_prefix("chrome-extension://")
        .is_some_and(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_lowercase()))
}

pub(crate) async fn guard(State(st): State<BridgeState>, req: Request, next: Next) -> Response {
    if scope_of(req.uri().path()) == Scope::Door {
        return super::openai::auth::guard(st, req, next).await;
    }
    match check(&st, &req) {
        Ok(()) => next.run(req).await,
        Err(e) => e.into_response(),
    }
}

/// The Host check every request passes first (no DNS rebinding).
pub(crate) fn check_host(st: &BridgeState, req: &Request) -> Result<(), ApiError> {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if host_ok(host, st.port()) {
        return Ok(());
    }
    Err(ApiError::new(
        StatusCode::MISDIRECTED_REQUEST,
        "bad_host",
        format!("the Host header must name 127.0.0.1:{} (or localhost): requests through other names are refused", st.port()),
    ))
}

/// The bearer token of `Authorization: Bearer <token>` (scheme case-insensitive).
pub(crate) fn bearer(req: &Request) -> Option<&str> {
    req.headers()
        .get(header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim())
}

/// A client route's token: `Some(Ok)` for the client token, `Some(Err)` for a token of
/// another scope (the extension's, a named key), `None` for an unknown one.
fn client_token(st: &BridgeState, token: &str) -> Option<Result<(), ApiError>> {
    let wrong = |why: &str| {
        Some(Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "wrong_scope",
            why.to_string(),
        )))
    };
    if token_hash(token) == st.client_token_hash() {
        Some(Ok(()))
    } else if st.is_extension_token(token) {
        wrong("the extension's token cannot use client routes")
    } else if token.starts_with(crate::ledger::KEY_PREFIX) {
        wrong("a named API key opens only the OpenAI-compatible door (/v1/models, /v1/chat/completions): use client.token for this route")
    } else {
        None
    }
}

fn check(st: &BridgeState, req: &Request) -> Result<(), ApiError> {
    check_host(st, req)?;
    let headers = req.headers();
    let origin = headers.get(header::ORIGIN).and_then(|h| h.to_str().ok());
    let bearer = bearer(req);
    let bad_origin =
        |why: &str| ApiError::new(StatusCode::FORBIDDEN, "bad_origin", why.to_string());
    let unauthorized = || {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "missing or wrong bearer token: clients use the token in the profile's client.token; the extension must be paired",
        )
    };
    match scope_of(req.uri().path()) {
        Scope::Pairing => match origin {
            Some(o) if is_extension_origin(o) => Ok(()),
            _ => Err(bad_origin("pairing is only for the browser extension")),
        },
        Scope::Client => {
            if origin.is_some() {
                return Err(bad_origin(
                    "requests from web pages are refused: local clients send no Origin",
                ));
            }
            client_token(st, bearer.ok_or_else(unauthorized)?).ok_or_else(unauthorized)?
        }
        Scope::Door => Ok(()), // checked by `openai::auth::guard`
        Scope::Extension => {
            let token = bearer.ok_or_else(unauthorized)?;
            if token_hash(token) == st.client_token_hash() {
                return Err(ApiError::new(
                    StatusCode::FORBIDDEN,
                    "wrong_scope",
                    "the client token cannot use extension routes",
                ));
            }
            let paired = st.paired_origin().ok_or_else(unauthorized)?;
            // Chromium's service worker sends no Origin on a GET; a web page always sends
            // one (and cannot add the bearer token without a preflight the bridge never
            // answers). So: the paired extension's origin, or none with its token.
            if origin.is_some_and(|o| o != paired) {
                return Err(bad_origin(
                    "only the paired extension may use extension routes",
                ));
            }
            if st.is_extension_token(token) {
                Ok(())
            } else {
                Err(unauthorized())
            }
        }
    }
}
