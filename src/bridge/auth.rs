//! Every request is checked before it reaches a route: Host (loopback names only, with any
//! port — an SSH tunnel's is another — : no DNS rebinding), Origin (none for local clients; for extension
//! routes the paired extension's `chrome-extension://` origin, or none — a service
//! worker's GET carries none; web pages never), and the bearer token of the route's
//! scope: on client routes `client.token`, or a live named key whose scope opens the route
//! (`key_scope.rs`), its call ended if the key is revoked while it is open (`revocation.rs`). Tokens are compared by SHA-256. Host, Origin and Authorization may each appear
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

/// Whether `host` (a Host header or a request target's authority) names this machine's
/// loopback: `127.0.0.1`, `localhost` or `[::1]`, with any port or none. Any port,
/// because an SSH tunnel (`ssh -L 9000:127.0.0.1:PORT`) presents the port the client
/// dialled on its own machine; never another name, because a name is what a DNS
/// rebinding attack changes (`evil.example:PORT` resolving to 127.0.0.1).
fn host_ok(host: &str) -> bool {
    let (name, port) = match host.find(']') {
        Some(end) => host.split_at(end + 1),
        None => host.rfind(':').map_or((host, ""), |i| host.split_at(i)),
    };
    let port_ok = port.is_empty()
        || port.strip_prefix(':').is_some_and(|p| {
            p.len() <= 5
                && p.parse::<u16>().is_ok_and(|n| n > 0)
                && p.bytes().all(|b| b.is_ascii_digit())
        });
    port_ok
        && ["127.0.0.1", "localhost", "[::1]"]
            .iter()
            .any(|n| name.eq_ignore_ascii_case(n))
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
pub(crate) fn check_host(req: &Request) -> Result<(), ApiError> {
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
    if !host_ok(host) {
        return Err(refuse("the Host header must name 127.0.0.1, localhost or [::1] (with any port: a tunnel's is fine): requests through other names are refused, since a web page reaches the owner only under another name".into()));
    }
    match req.uri().authority() {
        Some(a) if !host_ok(a.as_str()) => Err(refuse(
            "the request target names another host: use a path (`/v1/...`) or http://127.0.0.1:PORT/...".into(),
        )),
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
        Ok(Let::In) => next.run(req).await,
        Ok(Let::Key(secret)) => {
            let mut req = req;
            let method = req.method().as_str().to_string();
            let path = req.uri().path().to_string();
            match key_opens(&st, secret, &method, &path).await {
                Ok(by) => {
                    req.extensions_mut().insert(KeyName(by.name.clone()));
                    super::revocation::until_revoked(&st, by, next.run(req)).await
                }
                Err(e) => e.into_response(),
            }
        }
        Err(e) => e.into_response(),
    }
}

/// The name of the key a client route was let in by (absent: the profile's own client
/// token): who a send it queues is recorded as (`key:<name>`).
#[derive(Debug, Clone)]
pub(crate) struct KeyName(pub String);

/// What the synchronous checks decided: in, or a named key whose scope is read next.
enum Let {
    In,
    Key(String),
}

/// The live key `secret` (its use recorded), if its scope opens `method path`: the key
/// the call is let in by. Refused: unknown or revoked (401), or a route its scope does
/// not open (403 `wrong_scope`, the sentence naming the scope).
async fn key_opens(
    st: &BridgeState,
    secret: String,
    method: &str,
    path: &str,
) -> Result<super::revocation::OpenedBy, ApiError> {
    let sha256 = crate::ledger::key_sha256(&secret);
    let key = st
        .ledger()
        .call(move |l| l.key_use(&secret))
        .await?
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::UNAUTHORIZED,
                ErrorCode::Unauthorized,
                "the API key is unknown or revoked: ask the person at the owner's machine for a live key (`sendledger keys create NAME --scope send`)",
            )
        })?;
    if !super::key_scope::opens(key.scope, method, path) {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::WrongScope,
            super::key_scope::refusal(key.scope, &key.name, method, path),
        ));
    }
    Ok(super::revocation::OpenedBy {
        name: key.name,
        sha256,
        door: false,
    })
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

fn check(st: &BridgeState, req: &Request) -> Result<Let, ApiError> {
    check_host(req)?;
    let origin = read_origin(req.headers())?;
    let bearer = read_bearer(req.headers())?;
    match scope_of(req.uri().path()) {
        Scope::Pairing => match origin {
            Some(o) if is_extension_origin(o) => Ok(Let::In),
            _ => Err(bad_origin("pairing is only for the browser extension")),
        },
        Scope::Client => client_scope(st, origin, bearer),
        Scope::Door => Ok(Let::In), // checked by `openai::auth::guard`
        Scope::Extension => extension_scope(st, origin, bearer).map(|()| Let::In),
    }
}

fn client_scope(
    st: &BridgeState,
    origin: Option<&str>,
    bearer: Option<&str>,
) -> Result<Let, ApiError> {
    if origin.is_some() {
        return Err(bad_origin(
            "requests from web pages are refused: local clients send no Origin",
        ));
    }
    let token = bearer.ok_or_else(unauthorized)?;
    if token_hash(token) == st.client_token_hash() {
        Ok(Let::In)
    } else if st.is_extension_token(token) {
        Err(ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::WrongScope,
            "the extension's token cannot use client routes",
        ))
    } else if token.starts_with(crate::ledger::KEY_PREFIX) {
        Ok(Let::Key(token.to_string()))
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

#[cfg(test)]
mod tests {
    use super::host_ok;

    #[test]
    fn the_host_check_takes_a_loopback_name_with_any_port_and_nothing_else() {
        for h in [
            "127.0.0.1:8787",
            "127.0.0.1:9000",
            "localhost:1",
            "LOCALHOST:65535",
            "[::1]:40000",
            "[::1]",
            "localhost",
        ] {
            assert!(host_ok(h), "{h}");
        }
        for h in [
            "evil.example:8787",
            "127.0.0.1.evil.example:8787",
            "localhost.:8787",
            "localhost:0",
            "localhost:65536",
            "localhost:+80",
            "localhost:",
            "127.0.0.2:8787",
            "[::2]:8787",
            "[::1]x:80",
            "",
            "user@localhost:80",
        ] {
            assert!(!host_ok(h), "{h}");
        }
    }
}
