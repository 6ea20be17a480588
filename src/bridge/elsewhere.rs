//! `request_elsewhere` (issue 35, Work mode seen in the page's own traffic): after a
//! granted click the page's own request went to a route that is not a chat conversation
//! route (`provider::chatgpt::traffic`). The dispatched send is marked at once: a
//! `destination_mismatch` naming the route, and `uncertain` for a person (it went out, not
//! into a chat conversation; never resent; the queue moves on).

use super::applied::{Applied, MAX_ELSEWHERE_ROUTE_BYTES};
use super::error::ApiError;
use super::BridgeState;
use crate::error_code::ErrorCode;
use crate::ledger::{LedgerError, LedgerRead};
use crate::provider::chatgpt::traffic;
use axum::http::StatusCode;

/// Longest method accepted, in bytes.
const MAX_METHOD_BYTES: usize = 16;

fn refused(msg: String) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::Malformed, msg)
}

/// Checks the bounds, makes the route a template, and marks the send granted in this tab.
pub(super) async fn apply(
    st: &BridgeState,
    lease_id: &str,
    op_id: Option<String>,
    (method, route): (&str, &str),
) -> Result<Vec<Applied>, ApiError> {
    let method_ok = !method.is_empty()
        && method.len() <= MAX_METHOD_BYTES
        && method.chars().all(|c| c.is_ascii_uppercase());
    if !method_ok {
        return Err(refused(format!(
            "request_elsewhere.method must be an HTTP method in capitals, at most {MAX_METHOD_BYTES} bytes"
        )));
    }
    if route.is_empty() || route.len() > MAX_ELSEWHERE_ROUTE_BYTES {
        return Err(refused(format!(
            "request_elsewhere.route must be 1 to {MAX_ELSEWHERE_ROUTE_BYTES} bytes"
        )));
    }
    if traffic::is_chat_conversation_route(route) {
        return Err(refused(
            "request_elsewhere.route is a chat conversation route: send it as a `request` observation".into(),
        ));
    }
    let route = traffic::route_template(route);
    let Some(op_id) = op_id else {
        return Ok(vec![Applied::NotTracked {
            reason: "a request elsewhere with no granted send".into(),
        }]);
    };
    let (id, lease, m, r) = (
        op_id.clone(),
        lease_id.to_string(),
        method.to_string(),
        route.clone(),
    );
    let recorded = st
        .ledger()
        .call(move |l| -> Result<_, LedgerError> {
            let send = l.get(&id)?.ok_or(LedgerError::UnknownSend(id.clone()))?;
            let here = l.get_lease(&lease)?.binding.tab_id;
            let same_tab = match send.lease_id.as_deref() {
                Some(granted) => l.get_lease(granted)?.binding.tab_id == here,
                None => false,
            };
            if !same_tab {
                return Ok(None);
            }
            l.record_page_elsewhere(&id, &m, &r)
        })
        .await?;
    tracing::info!(op = %op_id, %route, marked = recorded.is_some(), "the page's own request after the click went to a route that is not a chat conversation route");
    Ok(vec![match recorded {
        Some(_) => Applied::Elsewhere { op_id, route },
        None => Applied::NotTracked {
            reason: format!(
                "send {op_id} is not dispatched from this tab, or its page request was seen"
            ),
        },
    }])
}
