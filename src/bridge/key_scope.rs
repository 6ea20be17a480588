//! Which client routes a named key's scope opens (migration 0020; docs/bridge-api.md,
//! "Keys and scopes"). The OpenAI-compatible doors are open to every live key; this table
//! is about the native API (and MCP, its client). `all` opens what `client.token` opens;
//! `send` opens the routes listed here — queue a send, upload its files, read sends, the
//! queue, status and a send's answer files — and nothing else, so a route added later is
//! closed to it until it is named here; `openai` (keys made before scopes) opens none.

use crate::ledger::KeyScope;

/// Whether a key of `scope` may call `method path` (a client route).
pub(crate) fn opens(scope: KeyScope, method: &str, path: &str) -> bool {
    match scope {
        KeyScope::All => true,
        KeyScope::Openai => false,
        KeyScope::Send => send_opens(method, path),
    }
}

fn send_opens(method: &str, path: &str) -> bool {
    let segs: Vec<&str> = path.strip_prefix("/v1/").unwrap_or("").split('/').collect();
    match (method, segs.as_slice()) {
        ("POST", ["sends"] | ["attachments"] | ["queue", "rows"]) => true,
        ("GET" | "HEAD", rest) => matches!(
            rest,
            ["sends"]
                | ["sends", _]
                | ["sends", _, "wait"]
                | ["sends", _, "artifacts"]
                | ["sends", _, "artifacts", _]
                | ["queue"]
                | ["queue", "history"]
                | ["queue", "stopped"]
                | ["queue", "feed"]
                | ["events"]
                | ["status"]
                | ["tools", _]
        ),
        _ => false,
    }
}

/// The sentence of a key refused a route its scope does not open: what happened, which
/// scope, and what to do.
pub(crate) fn refusal(scope: KeyScope, name: &str, method: &str, path: &str) -> String {
    let shown: String = path.chars().take(80).collect();
    match scope {
        KeyScope::Openai => format!(
            "key {name} was made before keys had scopes and opens only the OpenAI-compatible doors (/v1/models, /v1/chat/completions, /v1/responses), not {method} {shown}: make a key with `sendledger keys create NAME --scope send` (or --scope all) for the native API and MCP"
        ),
        KeyScope::Send | KeyScope::All => format!(
            "key {name} has scope send: it queues sends and reads them, and {method} {shown} is not one of those (Stop, Resume, decisions, withdrawals, settings, keys and pairing are a person's): do it on the machine that runs the owner, or use a key made with --scope all"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_send_scoped_key_opens_sends_and_reads_and_nothing_a_person_decides() {
        for (m, p) in [
            ("POST", "/v1/sends"),
            ("GET", "/v1/sends/op-1/wait"),
            ("GET", "/v1/sends/op-1"),
            ("GET", "/v1/status"),
            ("POST", "/v1/attachments"),
        ] {
            assert!(opens(KeyScope::Send, m, p), "{m} {p}");
        }
        for (m, p) in [
            ("POST", "/v1/stop"),
            ("POST", "/v1/resume"),
            ("POST", "/v1/sends/op-1/resolve"),
            ("POST", "/v1/sends/op-1/requeue"),
            ("POST", "/v1/sends/op-1/withdraw"),
            ("POST", "/v1/sends/op-1/notified"),
            ("POST", "/v1/keys"),
            ("GET", "/v1/keys"),
            ("POST", "/v1/keys/k/revoke"),
            ("POST", "/v1/pairing-code"),
            ("POST", "/v1/tools/c/start"),
            ("GET", "/v1/sends/op-1/wait/extra"),
        ] {
            assert!(!opens(KeyScope::Send, m, p), "{m} {p}");
            assert!(opens(KeyScope::All, m, p), "{m} {p}");
            assert!(!opens(KeyScope::Openai, m, p), "{m} {p}");
        }
    }
}
