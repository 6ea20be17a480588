//! *Check this page* (issue 35; docs/bridge-api.md, "Checks of the page"): a person asks a
//! leased tab, from the window or `sendledger page-check`, to run the extension's page
//! contract (`POST /v1/page-check`); the owner hands the ask to the tab with the answer of
//! its next long-poll (`page_check` beside `send` in `POST /v1/ext/next`, so it waits
//! behind no send long-poll), and the tab answers with `POST /v1/ext/page-check`, which is
//! also how a tab that failed a send on a page fact sends its check with the failure
//! (`op_id`). Every check is kept (ledger, `page_checks`); the asker gets it, and the page
//! report when asked for.
//!
//! What a tab sends is checked for structure only: fact ids of the contract's shape, known
//! states, bounded sizes — and no string anywhere that looks like an id or a token (a UUID,
//! 16+ hex digits, 24+ letters and digits mixed): such a check is refused whole, nothing kept.

use super::body::Body;
use super::error::ApiError;
use super::page_fact::PageFact;
use super::BridgeState;
use crate::error_code::ErrorCode;
use crate::ledger::{LedgerRead, PageCheck};
use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::Duration;
use tokio::sync::oneshot;

/// Longest wait for a tab's answer, in ms.
pub const MAX_WAIT_MS: u64 = crate::api::PAGE_CHECK_WAIT_MS;
/// Limit for `POST /v1/ext/page-check`, in bytes (2 MiB: a report's layout snapshot).
pub const PAGE_CHECK_LIMIT: usize = 2 * 1024 * 1024;
/// Most asks waiting for their tab at once.
pub const MAX_PENDING: usize = 16;
/// Most facts in one check.
pub const MAX_RESULTS: usize = 256;
/// Longest string anywhere in a check or a report, in bytes.
pub const MAX_STRING_BYTES: usize = 1024;
/// Most values (strings, numbers, …) in a check with its report.
pub const MAX_VALUES: usize = 200_000;

type Answer = Result<Json<Value>, ApiError>;

pub(super) fn routes() -> Router<BridgeState> {
    Router::new()
        .route(
            "/v1/page-check",
            post(ask).layer(DefaultBodyLimit::max(super::body::DEFAULT_LIMIT)),
        )
        .route("/v1/page-checks", get(kept))
        .route(
            "/v1/ext/page-check",
            post(answer).layer(DefaultBodyLimit::max(PAGE_CHECK_LIMIT)),
        )
}

/// What a tab answered: its check as kept, and the report when one was asked for.
struct Answered {
    check: PageCheck,
    report: Option<Value>,
}

struct Pending {
    tab_id: String,
    open_picker: bool,
    report: bool,
    handed: bool,
    /// The tab's check, or why it was not kept.
    reply: oneshot::Sender<Result<Answered, String>>,
}

/// The asks waiting for their tab (in the owner's memory: an ask does not outlive it).
#[derive(Default)]
pub struct Asks {
    pending: HashMap<String, Pending>,
}

impl Asks {
    /// The ask for `tab_id` not yet handed out, as the tab reads it:
    /// `{request_id, open_picker, report}`; marked handed.
    pub(super) fn hand_out(&mut self, tab_id: &str) -> Option<Value> {
        let (id, p) = self
            .pending
            .iter_mut()
            .find(|(_, p)| !p.handed && p.tab_id == tab_id && !p.reply.is_closed())?;
        p.handed = true;
        Some(json!({ "request_id": id, "open_picker": p.open_picker, "report": p.report }))
    }
}

/// A fact id of the contract's shape (`composer.present`).
fn fact_id_ok(id: &str) -> bool {
    PageFact {
        id: id.to_string(),
        needs: super::page_fact::Needs::Every,
    }
    .check()
    .is_ok()
}

/// Whether a string holds something that looks like an id or a token.
pub fn looks_like_an_id(s: &str) -> bool {
    let uuid = s.as_bytes().windows(36).any(|w| {
        w.iter().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => *b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
    });
    let runs = s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'));
    uuid || runs.clone().any(|r| {
        r.split(['-', '_'])
            .any(|p| p.len() >= 16 && p.bytes().all(|b| b.is_ascii_hexdigit()))
    }) || runs.into_iter().any(|r| {
        r.len() >= 24
            && r.bytes().any(|b| b.is_ascii_digit())
            && r.bytes().any(|b| b.is_ascii_alphabetic())
    })
}

/// Walks every value: bounded strings, no id or token in any string or key.
fn scan(v: &Value, at: &str, count: &mut usize) -> Result<(), String> {
    *count += 1;
    if *count > MAX_VALUES {
        return Err(format!("more than {MAX_VALUES} values"));
    }
    let bad_string = |s: &str, at: &str| {
        if s.len() > MAX_STRING_BYTES {
            Some(format!(
                "a string longer than {MAX_STRING_BYTES} bytes at {at}"
            ))
        } else if looks_like_an_id(s) {
            Some(format!(
                "something that looks like an id or a token at {at}"
            ))
        } else {
            None
        }
    };
    match v {
        Value::String(s) => bad_string(s, at).map_or(Ok(()), Err),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .try_for_each(|(i, x)| scan(x, &format!("{at}[{i}]"), count)),
        Value::Object(map) => map.iter().try_for_each(|(k, x)| {
            let here = format!("{at}.{}", k.chars().take(40).collect::<String>());
            bad_string(k, &here).map_or(Ok(()), Err)?;
            scan(x, &here, count)
        }),
        _ => Ok(()),
    }
}

/// A tab's check, read: every result's id, state and `needs`; the counts and failing ids.
fn read_check(tab_id: &str, op_id: Option<&str>, check: &Value) -> Result<PageCheck, String> {
    let results = check
        .get("results")
        .and_then(Value::as_array)
        .ok_or("check.results must be an array")?;
    if results.len() > MAX_RESULTS {
        return Err(format!("check.results has more than {MAX_RESULTS} facts"));
    }
    let (mut holds, mut fails, mut unseen, mut failing) = (0, 0, 0, Vec::new());
    for (i, r) in results.iter().enumerate() {
        let id = r.get("id").and_then(Value::as_str).unwrap_or_default();
        if !fact_id_ok(id) {
            return Err(format!("check.results[{i}].id must be '<area>.<fact>' in lowercase letters and '_', at most 64 bytes"));
        }
        match r.get("state").and_then(Value::as_str) {
            Some("holds") => holds += 1,
            Some("fails") => {
                fails += 1;
                failing.push(id.to_string());
            }
            Some("unseen") => unseen += 1,
            _ => {
                return Err(format!(
                    "check.results[{i}].state must be holds, fails or unseen"
                ))
            }
        }
    }
    Ok(PageCheck {
        tab_id: tab_id.to_string(),
        op_id: op_id.map(str::to_string),
        checked_at: 0,
        holds,
        fails,
        unseen,
        failing,
        results: Value::Array(results.clone()),
    })
}

fn refused(why: String) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        ErrorCode::Invalid,
        format!("the page check was not kept: {why} (a check carries structure only: docs/bridge-api.md)"),
    )
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnswerBody {
    lease_id: String,
    #[serde(default)]
    op_id: Option<String>,
    #[serde(default)]
    request_id: Option<String>,
    check: Value,
    #[serde(default)]
    report: Option<Value>,
}

/// A tab's check: kept for its tab (and its send, with `op_id`), handed to the asker.
async fn answer(State(st): State<BridgeState>, Body(b): Body<AnswerBody>) -> Answer {
    let request_id = b.request_id.clone();
    let kept = keep(&st, b).await;
    // A refused answer is said to the person waiting for it, not left to their bound.
    if let (Err(e), Some(id)) = (&kept, request_id) {
        if let Some(p) = st.asks().pending.remove(&id) {
            let _ = p.reply.send(Err(e.message.clone()));
        }
    }
    kept
}

async fn keep(st: &BridgeState, b: AnswerBody) -> Answer {
    let mut count = 0;
    scan(&b.check, "check", &mut count).map_err(refused)?;
    if let Some(r) = &b.report {
        scan(r, "report", &mut count).map_err(refused)?;
    }
    let (lease_id, op_id, results) = (b.lease_id.clone(), b.op_id.clone(), b.check.clone());
    let check = st
        .ledger()
        .call(move |l| {
            l.hear_lease(&lease_id);
            let tab_id = l.get_lease(&lease_id)?.binding.tab_id;
            let check = read_check(&tab_id, op_id.as_deref(), &results)
                .map_err(crate::ledger::LedgerError::Invalid)?;
            l.record_page_check(&check)?;
            Ok(check)
        })
        .await
        .map_err(|e| match e {
            crate::ledger::LedgerError::Invalid(why) => refused(why),
            e => e.into(),
        })?;
    st.ledger().poke();
    tracing::info!(tab = %check.tab_id, op = ?check.op_id, holds = check.holds, fails = check.fails, failing = ?check.failing, "a tab checked its page");
    let waiting = b.request_id.and_then(|id| st.asks().pending.remove(&id));
    let answered = waiting.is_some();
    if let Some(p) = waiting {
        let _ = p.reply.send(Ok(Answered {
            check: check.clone(),
            report: b.report,
        }));
    }
    Ok(Json(json!({ "kept": true, "answered": answered })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AskBody {
    /// The tab to ask (the browser's tab id); absent: the tab leased last.
    #[serde(default)]
    tab_id: Option<String>,
    /// Whether the tab may open and close the model picker.
    #[serde(default)]
    open_picker: bool,
    /// Whether the tab also makes the page report.
    #[serde(default)]
    report: bool,
    /// How long to wait for the tab, in ms (at most [`MAX_WAIT_MS`], the default).
    #[serde(default)]
    wait_ms: Option<u64>,
}

/// The leased tab to ask: the one named, or the one leased last.
async fn tab_to_ask(st: &BridgeState, named: Option<String>) -> Result<String, ApiError> {
    let tabs = st.ledger().call(|l| l.leased_tabs()).await?;
    let why = match &named {
        // A browser's tab id is a number: anything else is not repeated back.
        Some(t) if t.len() <= 20 && t.bytes().all(|b| b.is_ascii_digit()) => format!("tab {t} is not leased: `sendledger status` lists the leased tabs; name one of them, or open chatgpt.com in that tab again"),
        Some(_) => "the named tab is not leased (a tab id is the browser's number): `sendledger status` lists the leased tabs".to_string(),
        None => "no leased chatgpt.com tab to check: open chatgpt.com with the extension paired, then ask again".to_string(),
    };
    let chosen = match named {
        Some(t) => tabs.into_iter().find(|x| *x == t),
        None => tabs.into_iter().next(),
    };
    chosen.ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, ErrorCode::NoTab, why))
}

/// A person's *Check this page*: the tab runs every probe and answers; bounded wait.
async fn ask(State(st): State<BridgeState>, Body(b): Body<AskBody>) -> Answer {
    let tab_id = tab_to_ask(&st, b.tab_id).await?;
    let wait = Duration::from_millis(b.wait_ms.unwrap_or(MAX_WAIT_MS).min(MAX_WAIT_MS));
    let (reply, answered) = oneshot::channel();
    let request_id = uuid::Uuid::new_v4().to_string();
    {
        let mut asks = st.asks();
        asks.pending.retain(|_, p| !p.reply.is_closed());
        if asks.pending.len() >= MAX_PENDING {
            return Err(ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                ErrorCode::TooMany,
                format!("{MAX_PENDING} checks of the page are already waiting for their tab: wait for them, then ask again"),
            ));
        }
        let p = Pending {
            tab_id: tab_id.clone(),
            open_picker: b.open_picker,
            report: b.report,
            handed: false,
            reply,
        };
        asks.pending.insert(request_id.clone(), p);
    }
    st.ledger().poke(); // wakes the tab's long-poll, which hands the ask out
    let got = tokio::time::timeout(wait, answered).await;
    if let Ok(Ok(Err(why))) = got {
        return Err(ApiError::new(
            StatusCode::BAD_GATEWAY,
            ErrorCode::Invalid,
            format!("tab {tab_id} answered, but its check was not kept ({why}): nothing was changed; update the extension"),
        ));
    }
    let Ok(Ok(Ok(a))) = got else {
        let handed = st
            .asks()
            .pending
            .remove(&request_id)
            .is_some_and(|p| p.handed);
        let why = if handed {
            "took the ask but did not answer"
        } else {
            "did not take the ask (it may be busy with a send, or its extension predates Check this page)"
        };
        return Err(ApiError::new(
            StatusCode::GATEWAY_TIMEOUT,
            ErrorCode::TabSilent,
            format!("tab {tab_id} {why} within {} s: nothing was changed; reload that tab and ask again", wait.as_millis() / 1000),
        ));
    };
    Ok(Json(
        json!({ "tab_id": tab_id, "check": a.check, "summary": a.check.summary(), "report": a.report }),
    ))
}

/// The last check of each tab, newest first, with its summary.
async fn kept(State(st): State<BridgeState>) -> Answer {
    let checks = st.ledger().call(|l| l.page_checks()).await?;
    let listed: Vec<Value> = checks
        .into_iter()
        .map(|c| json!({ "summary": c.summary(), "check": c }))
        .collect();
    Ok(Json(json!({ "page_checks": listed })))
}

#[cfg(test)]
mod tests {
    use super::looks_like_an_id;

    #[test]
    fn what_a_report_carries_is_not_taken_for_an_id_and_ids_and_tokens_are() {
        for fine in [
            "conversation-turn-3",
            "prompt-textarea",
            "/backend-api/f/conversation",
            "/c/<id>",
            "string:delta_encoding",
            "paragen_cot_summary_display_override",
            "gpt-5-2-thinking",
            ", 4 4",
            "a send button this extension does not recognise",
        ] {
            assert!(!looks_like_an_id(fine), "{fine} is no id");
        }
        for id in [
            "6790f2c1-1234-8abc-9def-0123456789ab",
            "/c/6790f2c1-1234-8abc-9def-0123456789ab",
            "file-00000000abcdef0123456789",
            "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9abc123",
            "fake-access-0123456789abcdef01234567",
            "sk-sl-Ab3dEf5hIj7kLm9nOp1rSt3v",
        ] {
            assert!(looks_like_an_id(id), "{id} is an id or a token");
        }
    }
}
