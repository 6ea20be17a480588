//! Every request is checked before it reaches a route: Host (loopback names and the
//! bridge's port only: no DNS rebinding), Origin (none for local clients; for extension
//! routes the paired extension's `chrome-extension://` origin, or none — a service
//! worker's GET carries none; web pages never), and the bearer token of the route's
//! scope. Tokens are compared by SHA-256. Host, Origin and Authorization may each appear
//! once, in readable ASCII; an absolute-form request target must name the bridge too.

use super::error::ApiError;
use super::pairing::token_hash;
use super::BridgeState;
use crate::error_code::ErrorCode;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderName, StatusCode};
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
    /// The OpenAI-compatible doors (`/v1/models`, `/v1/chat/completions`,
    /// `/v1/responses`): the client token or a named API key; refusals are OpenAI error
    /// objects.
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
        || path == "/v1/responses"
        || path.starts_with("/v1/responses/")
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

/// Why a header that must appear at most once could not be read.
enum Unreadable {
    Repeated,
    NotAscii,
}

/// The one value of header `name`: `None` when absent; refused when it appears twice
/// or holds anything but visible ASCII (an unreadable Origin is never "no Origin").
fn single<'a>(headers: &'a HeaderMap, name: &HeaderName) -> Result<Option<&'a str>, Unreadable> {
    let mut values = headers.get_all(name).iter();
    let Some(first) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(Unreadable::Repeated);
    }
    first.to_str().map(Some).map_err(|_| Unreadable::NotAscii)
}

/// The Host header and an absolute-form request target must both name the bridge.
pub(crate) fn check_host(port: u16, req: &Request) -> Result<(), ApiError> {
    let refuse =
        |why: String| ApiError::new(StatusCode::MISDIRECTED_REQUEST, ErrorCode::BadHost, why);
    let host = match single(req.headers(), &header::HOST) {
        Ok(h) => h.unwrap_or(""),
        Err(Unreadable::Repeated) => {
            return Err(refuse(
                "the request has more than one Host header: send exactly one".into(),
            ))
        }
        Err(Unreadable::NotAscii) => {
            return Err(refuse(
                "the Host header is not readable ASCII: send exactly one, naming 127.0.0.1".into(),
            ))
        }
    };
    if !host_ok(host, port) {
        return Err(refuse(format!("the Host header must name 127.0.0.1:{port} (or localhost): requests through other names are refused")));
    }
    match req.uri().authority() {
        Some(a) if !host_ok(a.as_str(), port) => Err(refuse(format!(
            "the request target names another host: use a path (`/v1/...`) or http://127.0.0.1:{port}/..."
        ))),
        _ => Ok(()),
    }
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

fn bad_origin(why: &str) -> ApiError {
    ApiError::new(StatusCode::FORBIDDEN, ErrorCode::BadOrigin, why.to_string())
}

fn unauthorized() -> ApiError {
    ApiError::new(
        StatusCode::UNAUTHORIZED,
        ErrorCode::Unauthorized,
        "missing or wrong bearer token: clients use the token in the profile's client.token; the extension must be paired",
    )
}

pub(crate) fn read_origin(headers: &HeaderMap) -> Result<Option<&str>, ApiError> {
    single(headers, &header::ORIGIN).map_err(|e| match e {
        Unreadable::Repeated => {
            bad_origin("the request has more than one Origin header: it is refused")
        }
        Unreadable::NotAscii => {
            bad_origin("the Origin header is not readable ASCII: it is refused")
        }
    })
}

/// The bearer token, if the request carries one (scheme case-insensitive).
pub(crate) fn read_bearer(headers: &HeaderMap) -> Result<Option<&str>, ApiError> {
    let value = single(headers, &header::AUTHORIZATION).map_err(|e| {
        let why = match e {
            Unreadable::Repeated => {
                "the request has more than one Authorization header: send exactly one"
            }
            Unreadable::NotAscii => {
                "the Authorization header is not readable ASCII: send `Bearer <token>`"
            }
        };
        ApiError::new(StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized, why)
    })?;
    Ok(value
        .and_then(|h| h.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim()))
}

fn check(st: &BridgeState, req: &Request) -> Result<(), ApiError> {
    check_host(st.port(), req)?;
    let origin = read_origin(req.headers())?;
    let bearer = read_bearer(req.headers())?;
    match scope_of(req.uri().path()) {
        Scope::Pairing => match origin {
            Some(o) if is_extension_origin(o) => Ok(()),
            _ => Err(bad_origin("pairing is only for the browser extension")),
        },
        Scope::Client => client_scope(st, origin, bearer, req.uri().path()),
        Scope::Door => Ok(()), // checked by `openai::auth::guard`
        Scope::Extension => extension_scope(st, origin, bearer),
    }
}

fn client_scope(
    st: &BridgeState,
    origin: Option<&str>,
    bearer: Option<&str>,
    path: &str,
) -> Result<(), ApiError> {
    if origin.is_some() {
        return Err(bad_origin(
            "requests from web pages are refused: local clients send no Origin",
        ));
    }
    let token = bearer.ok_or_else(unauthorized)?;
    if token_hash(token) == st.client_token_hash() {
        Ok(())
    } else if st.is_extension_token(token) {
        Err(ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::WrongScope,
            "the extension's token cannot use client routes",
        ))
    } else if token.starts_with(crate::ledger::KEY_PREFIX) {
        let shown: String = path.chars().take(80).collect();
        Err(ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::WrongScope,
            format!("the key is fine, but this route ({shown}) is not one a named API key opens: a key opens the OpenAI-compatible doors only (/v1/models, /v1/chat/completions, /v1/responses); for this route use the profile's client.token (a person's routes: resume, decisions, keys)"),
        ))
    } else {
        Err(unauthorized())
    }
}

fn extension_scope(
    st: &BridgeState,
    origin: Option<&str>,
    bearer: Option<&str>,
) -> Result<(), ApiError> {
    let token = bearer.ok_or_else(unauthorized)?;
    if token_hash(token) == st.client_token_hash() {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::WrongScope,
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
