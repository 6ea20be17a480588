//! The loopback bridge (tokio + axum): the only part that speaks JSON over HTTP.
//! Clients queue and read sends, stop and resume, resolve, and admit tool calls; the
//! paired extension leases a tab, takes the next send, asks for the dispatch grant and
//! forwards what the page's traffic showed. Routes: docs/bridge-api.md.
//!
//! **API Boundary**: every route goes through [`auth::guard`] first; a refused request
//! never reaches the ledger.

mod applied;
mod artifact_routes;
mod attachment_routes;
pub mod auth;
pub mod body;
mod client_routes;
pub mod connections;
pub(crate) mod conversation_read;
mod downgrade;
mod elsewhere;
pub mod error;
mod events;
mod ext_poll;
mod extension_routes;
pub(crate) mod hand_out;
mod key_scope;
pub mod observations;
mod openai;
pub mod page_check;
pub mod page_fact;
pub mod pairing;
pub mod queue_feed;
mod refused_request;
pub(crate) mod revocation;
pub(crate) mod sites;
pub mod turn;

use crate::clock::{Clock, Millis};
use crate::error_code::ErrorCode;
use crate::ledger::Writer;
use crate::profile::{Profile, ProfileError};
use axum::http::StatusCode;
use axum::Router;
use error::ApiError;
use pairing::{new_token, token_hash, Pairing, PairingCode};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};
use tokio::sync::watch;

/// The paired extension, as stored in `extension.json` (0600).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct PairedExtension {
    token_sha256: String,
    origin: String,
    paired_at: Millis,
}

const EXTENSION_FILE: &str = "extension.json";

struct Inner {
    profile: Profile,
    ledger: Writer,
    client_token_sha256: String,
    extension: Mutex<Option<PairedExtension>>,
    pairing: Mutex<Pairing>,
    clock: Arc<dyn Clock>,
    observations: Mutex<observations::Tracker>,
    asks: Mutex<page_check::Asks>,
    live: openai::answer_feed::LiveFeed,
    /// Turns true when shutdown begins: long-lived answers (long-polls, event streams)
    /// end then, so graceful shutdown does not wait out its grace on them.
    closing: watch::Sender<bool>,
}

/// What every route shares.
#[derive(Clone)]
pub struct BridgeState(Arc<Inner>);

impl BridgeState {
    /// The profile this owner serves.
    pub(crate) fn profile(&self) -> &Profile {
        &self.0.profile
    }

    /// Writes a fresh `client.token` (0600) and loads the paired extension, if any.
    pub fn new(
        profile: Profile,
        ledger: Writer,
        clock: Arc<dyn Clock>,
    ) -> Result<Self, ProfileError> {
        let token = new_token();
        profile.write_private(
            crate::profile::discovery::CLIENT_TOKEN_FILE,
            token.as_bytes(),
        )?;
        let extension = profile
            .file(EXTENSION_FILE)
            .ok()
            .and_then(|p| std::fs::read(p).ok())
            .and_then(|b| serde_json::from_slice(&b).ok());
        Ok(Self(Arc::new(Inner {
            profile,
            ledger,
            client_token_sha256: token_hash(&token),
            extension: Mutex::new(extension),
            pairing: Mutex::new(Pairing::default()),
            clock,
            observations: Mutex::new(observations::Tracker::default()),
            asks: Mutex::new(page_check::Asks::default()),
            live: openai::answer_feed::LiveFeed::default(),
            closing: watch::Sender::new(false),
        })))
    }

    pub(crate) fn ledger(&self) -> &Writer {
        &self.0.ledger
    }
    pub(crate) fn now(&self) -> Millis {
        self.0.clock.now_ms()
    }
    /// Resolves once shutdown has begun.
    pub(crate) fn closing(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut rx = self.0.closing.subscribe();
        async move {
            let _ = rx.wait_for(|closing| *closing).await;
        }
    }
    pub(crate) fn client_token_hash(&self) -> &str {
        &self.0.client_token_sha256
    }
    pub(crate) fn paired_origin(&self) -> Option<String> {
        lock(&self.0.extension).as_ref().map(|e| e.origin.clone())
    }
    pub(crate) fn is_extension_token(&self, token: &str) -> bool {
        lock(&self.0.extension)
            .as_ref()
            .is_some_and(|e| e.token_sha256 == token_hash(token))
    }

    pub(crate) fn live(&self) -> &openai::answer_feed::LiveFeed {
        &self.0.live
    }

    /// The checks of the page waiting for their tab (page_check.rs).
    pub(crate) fn asks(&self) -> std::sync::MutexGuard<'_, page_check::Asks> {
        lock(&self.0.asks)
    }

    pub(crate) fn observations(&self) -> std::sync::MutexGuard<'_, observations::Tracker> {
        lock(&self.0.observations)
    }

    /// Issues a one-time pairing code.
    pub fn new_pairing_code(&self) -> PairingCode {
        let now = self.now();
        lock(&self.0.pairing).issue(now)
    }

    /// Exchanges a pairing code for a new extension token; replaces any earlier pairing.
    pub(crate) fn pair(&self, code: &str, origin: &str) -> Result<String, ApiError> {
        let now = self.now();
        lock(&self.0.pairing).redeem(code, now).map_err(|r| match r {
            pairing::PairingRefusal::WrongCode => ApiError::new(
                StatusCode::UNAUTHORIZED,
                ErrorCode::WrongCode,
                "wrong or expired pairing code: run `sendledger pair` (or the tray's Pair extension…) for a new one",
            ),
            pairing::PairingRefusal::Locked { until } => ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                ErrorCode::RateLimited,
                format!("too many wrong pairing codes: wait {} s and try again", ((until - now) / 1000).max(1)),
            ),
        })?;
        let token = new_token();
        let paired = PairedExtension {
            token_sha256: token_hash(&token),
            origin: origin.to_string(),
            paired_at: now,
        };
        self.0
            .profile
            .write_private(
                EXTENSION_FILE,
                &serde_json::to_vec(&paired).expect("serialises"),
            )
            .map_err(|e| {
                ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    ErrorCode::Storage,
                    e.to_string(),
                )
            })?;
        *lock(&self.0.extension) = Some(paired);
        Ok(token)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The bridge's router, every route behind the guard.
pub fn router(state: BridgeState) -> Router {
    Router::new()
        .merge(client_routes::routes())
        .merge(attachment_routes::routes())
        .merge(artifact_routes::routes())
        .merge(page_check::routes())
        .merge(openai::routes())
        .merge(
            extension_routes::routes()
                .layer(axum::extract::DefaultBodyLimit::max(body::DEFAULT_LIMIT)),
        )
        .fallback(|| async {
            ApiError::new(
                StatusCode::NOT_FOUND,
                ErrorCode::UnknownRoute,
                "no such route: see docs/bridge-api.md",
            )
        })
        .method_not_allowed_fallback(|| async {
            ApiError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                ErrorCode::UnknownRoute,
                "this route does not take that method: see docs/bridge-api.md",
            )
        })
        .layer(axum::middleware::map_response(json_errors))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            auth::guard,
        ))
        .layer(axum::middleware::from_fn(log_refusals))
        .with_state(state)
}

/// Logs every refusal at `info`: method, route path (ids only; never the query or the
/// body) and code. Answers pass unchanged.
async fn log_refusals(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let res = next.run(req).await;
    let status = res.status();
    if status.is_client_error() || status.is_server_error() {
        let code = res
            .extensions()
            .get::<error::RefusalCode>()
            .map_or("unknown", |c| c.0.as_str());
        tracing::info!(%method, route = %path, status = status.as_u16(), code, "refusal");
    }
    res
}

/// Extractor rejections (a query string or path that does not parse) answer plain
/// text; the contract says every error is `{code, message}`. Their text is replaced by a
/// sentence, which keeps the rejection's own reason (`missing field `lease_id``) when it
/// is short: never more than [`REASON_KEPT`] characters of what the caller sent.
async fn json_errors(res: axum::response::Response) -> axum::response::Response {
    use axum::response::IntoResponse;
    let status = res.status();
    let is_json = res
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if is_json || !(status.is_client_error() || status.is_server_error()) {
        return res;
    }
    let (code, message) = match status {
        StatusCode::BAD_REQUEST | StatusCode::UNPROCESSABLE_ENTITY => {
            let text = axum::body::to_bytes(res.into_body(), 4 * REASON_KEPT)
                .await
                .unwrap_or_default();
            let reason = String::from_utf8_lossy(&text);
            let reason = reason.rsplit(": ").next().unwrap_or_default().trim();
            let why = if reason.is_empty() || reason.chars().count() > REASON_KEPT {
                String::new()
            } else {
                format!(" ({reason})")
            };
            (
                ErrorCode::Malformed,
                format!("the query string or path could not be read{why}: check it against docs/bridge-api.md"),
            )
        }
        StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED => (
            ErrorCode::UnknownRoute,
            "no such route: see docs/bridge-api.md".into(),
        ),
        _ => (
            ErrorCode::Internal,
            "the owner could not answer this request".into(),
        ),
    };
    ApiError::new(status, code, message).into_response()
}

/// How many characters of an extractor's own reason a refusal keeps (longer: dropped).
const REASON_KEPT: usize = 240;

/// Serves until `stop` turns true, then finishes in-flight requests; at most `cap`
/// connections at once (see [`connections`]).
pub(crate) async fn serve(
    listener: tokio::net::TcpListener,
    state: BridgeState,
    cap: usize,
    mut stop: watch::Receiver<bool>,
) {
    let app = router(state.clone());
    let shutdown = async move {
        while !*stop.borrow() {
            if stop.changed().await.is_err() {
                break;
            }
        }
        state.0.closing.send_replace(true);
    };
    connections::serve(listener, app, cap, shutdown).await;
}
