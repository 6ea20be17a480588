//! The `message_limit` event: where the account stands against its usage limit, and
//! when a limit that is reached resets (fixtures: `tests/fixtures/claude/stream_limit_exceeded.sse`,
//! `stream_answer.sse` for a limit within bounds).
//!
//! Shape: `{"type":"message_limit","message_limit":{"type":"within_limit" |
//! "approaching_limit" | "exceeded_limit", "resetsAt": <Unix seconds> | null,
//! "windows": {"5h": {"status", "resets_at": <Unix seconds>, "utilization": 0.41}, "7d": …},
//! …}}`. The page sends one with every answer, so `within_limit` is ordinary. A reset
//! time is a number of seconds between 2000 and 2200, or an RFC 3339 string; anything
//! else is no time at all — the queue then holds until a person resumes, never until a
//! guessed time.

use crate::provider::chatgpt::refusal::Refusal;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Most windows read from one event.
pub const MAX_WINDOWS: usize = 8;
/// Longest window name or state kept, in characters.
const MAX_NAME_CHARS: usize = 32;
/// 2000-01-01 and 2200-01-01 in Unix seconds: a reset time outside is not read.
const EARLIEST_S: i64 = 946_684_800;
const LATEST_S: i64 = 7_258_118_400;

/// Where a limit (or one window of it) stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitState {
    /// `within_limit`.
    Within,
    /// `approaching_limit` (or any state naming "approaching"): still sending.
    Approaching,
    /// `exceeded_limit` (or any state naming "exceeded"): sending stops.
    Exceeded,
    /// Another state, kept as given (at most 32 characters); not taken for a limit.
    Other(String),
}

impl LimitState {
    fn of(s: &str) -> Self {
        match s {
            "within_limit" => LimitState::Within,
            s if s.contains("exceeded") => LimitState::Exceeded,
            s if s.contains("approaching") => LimitState::Approaching,
            s => LimitState::Other(s.chars().take(MAX_NAME_CHARS).collect()),
        }
    }
}

/// One window of the limit (`5h`, `7d`, …).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimitWindow {
    /// The window's key, as given.
    pub name: String,
    /// `status`, when given.
    pub state: Option<LimitState>,
    /// `resets_at`, in ms since the Unix epoch, when readable.
    pub resets_at_ms: Option<i64>,
    /// `utilization` (0 to 1) in thousandths, when a number in that range.
    pub utilization_permille: Option<u32>,
}

/// What one `message_limit` event said.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageLimit {
    /// `message_limit.type`.
    pub state: LimitState,
    /// `message_limit.resetsAt`, in ms since the Unix epoch, when readable.
    pub resets_at_ms: Option<i64>,
    /// `message_limit.windows`, in key order, at most [`MAX_WINDOWS`].
    pub windows: Vec<LimitWindow>,
}

impl MessageLimit {
    /// Whether sending stops: the limit's state, or one of its windows, is exceeded.
    pub fn exceeded(&self) -> bool {
        self.state == LimitState::Exceeded
            || self
                .windows
                .iter()
                .any(|w| w.state == Some(LimitState::Exceeded))
    }

    /// When sending may resume, for an exceeded limit: `resetsAt` when given, else the
    /// latest reset of the exceeded windows — `None` if any of them names no readable
    /// time (never a guess).
    pub fn resume_at_ms(&self) -> Option<i64> {
        if !self.exceeded() {
            return None;
        }
        if self.resets_at_ms.is_some() {
            return self.resets_at_ms;
        }
        let exceeded: Vec<Option<i64>> = self
            .windows
            .iter()
            .filter(|w| w.state == Some(LimitState::Exceeded))
            .map(|w| w.resets_at_ms)
            .collect();
        if exceeded.is_empty() || exceeded.iter().any(Option::is_none) {
            return None;
        }
        exceeded.into_iter().flatten().max()
    }

    /// The limit as the page's refusal of sending, the shape the usage-limit gate reads
    /// (shared with the ChatGPT provider); `None` unless exceeded.
    pub fn refusal(&self) -> Option<Refusal> {
        self.exceeded().then(|| Refusal {
            message: "claude.ai reports the account's usage limit is reached (message_limit: exceeded_limit)".into(),
            usage_limit: true,
            resets_at_ms: self.resume_at_ms(),
        })
    }
}

/// Reads the event's JSON (`{"type":"message_limit","message_limit":{…}}`); `None` when
/// it holds no `message_limit` object with a `type` string.
pub fn parse_limit(event: &Value) -> Option<MessageLimit> {
    let l = event.get("message_limit")?.as_object()?;
    let state = LimitState::of(l.get("type")?.as_str()?);
    let windows = l
        .get("windows")
        .and_then(Value::as_object)
        .map(|w| {
            w.iter()
                .take(MAX_WINDOWS)
                .map(|(name, v)| window(name, v))
                .collect()
        })
        .unwrap_or_default();
    Some(MessageLimit {
        state,
        resets_at_ms: l.get("resetsAt").and_then(time_ms),
        windows,
    })
}

fn window(name: &str, v: &Value) -> LimitWindow {
    LimitWindow {
        name: name.chars().take(MAX_NAME_CHARS).collect(),
        state: v.get("status").and_then(Value::as_str).map(LimitState::of),
        resets_at_ms: v.get("resets_at").and_then(time_ms),
        utilization_permille: v
            .get("utilization")
            .and_then(Value::as_f64)
            .filter(|u| (0.0..=1.0).contains(u))
            .map(|u| (u * 1000.0).round() as u32),
    }
}

/// A reset time: Unix seconds (integer or float) between 2000 and 2200, or an RFC 3339
/// string; in ms.
fn time_ms(v: &Value) -> Option<i64> {
    let secs = match v {
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.is_finite() && f.abs() < 1e12)
                .map(|f| f as i64)
        })?,
        Value::String(s) if s.len() <= 64 => {
            chrono::DateTime::parse_from_rfc3339(s).ok()?.timestamp()
        }
        _ => return None,
    };
    (EARLIEST_S..=LATEST_S).contains(&secs).then(|| secs * 1000)
}
