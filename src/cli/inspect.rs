//! `sendledger inspect FILE [--text T] [--json]`: what the ChatGPT parser sees in a
//! captured conversation request, response stream, WebSocket log (one frame per line)
//! or conversation listing — the receipt candidates, the answer, the outcome. The tool
//! a user runs when chatgpt.com changes. Human output shows ids and sizes, never
//! message text; `--json` prints everything parsed, text included.

use crate::provider::chatgpt::{
    self, conversation, evidence, request, stream::StreamDecoder, stream::TurnObservation,
    TurnOutcome,
};
use crate::send_text::normalise;
use serde::Serialize;
use serde_json::Value;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `sendledger inspect`.
#[derive(clap::Args, Debug)]
pub struct InspectArgs {
    /// A captured request body, response stream, WebSocket log or conversation listing.
    pub file: PathBuf,
    /// A send's text: user messages are checked against it (line breaks normalised).
    #[arg(long)]
    pub text: Option<String>,
    /// Print machine-readable JSON (includes message text).
    #[arg(long)]
    pub json: bool,
}

/// What the file was recognised as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    /// A conversation request body.
    Request,
    /// A response stream (`text/event-stream`), or a JSON array of legacy `data:` payloads.
    Stream,
    /// WebSocket frames, one JSON frame per line (or a JSON array of frames).
    WebSocketLog,
    /// A conversation listing (either form).
    Listing,
    /// An error answer from chatgpt.com (`{"detail": …}`).
    ErrorBody,
}

/// A user message the parser could take as a send's receipt.
#[derive(Debug, Serialize)]
struct Candidate {
    user_message_id: String,
    conversation_id: Option<String>,
    turn_id: Option<String>,
    text_bytes: usize,
    /// `None` when no `--text` was given.
    text_matches: Option<bool>,
    outcome: String,
    answer_message_id: Option<String>,
}

#[derive(Serialize)]
struct Report {
    file: String,
    kind: FileKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    request: Option<request::ConversationRequest>,
    #[serde(skip_serializing_if = "Option::is_none")]
    observation: Option<TurnObservation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    listing: Option<conversation::ConversationListing>,
    #[serde(skip_serializing_if = "Option::is_none")]
    evidence: Option<evidence::Evidence>,
    candidates: Vec<Candidate>,
    outcomes: Vec<(String, TurnOutcome)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

const NOT_RECOGNISED: &str =
    "is not a chatgpt.com conversation request, response stream, WebSocket log or \
conversation listing. Save one from the browser's developer tools (Network tab: the POST to \
/backend-api/f/conversation — its request payload or its response — or the GET of \
/backend-api/conversation/<id>) and run `sendledger inspect` on that file.";

/// Runs the command: 0 when the file was parsed, 2 when it could not be read or is
/// not recognised (with a sentence saying what to do).
pub fn run(args: &InspectArgs) -> ExitCode {
    let bytes = match std::fs::read(&args.file) {
        Ok(b) => b,
        Err(e) => {
            super::output::say_on_stderr(&format!(
                "sendledger inspect: could not read {}: {e}; check the path.",
                args.file.display()
            ));
            return ExitCode::from(2);
        }
    };
    match render(
        &args.file.display().to_string(),
        &bytes,
        args.text.as_deref(),
        args.json,
    ) {
        Some(out) => {
            super::output::print_line(out.strip_suffix('\n').unwrap_or(&out));
            ExitCode::SUCCESS
        }
        None => {
            super::output::say_on_stderr(&format!(
                "sendledger inspect: {} {NOT_RECOGNISED}",
                args.file.display()
            ));
            ExitCode::from(2)
        }
    }
}

/// The report `run` prints for `bytes` (read from `file`): human text, or pretty JSON
/// when `json`; `None` when the content is not recognised.
pub fn render(file: &str, bytes: &[u8], send_text: Option<&str>, json: bool) -> Option<String> {
    let report = inspect(file, bytes, send_text)?;
    if json {
        let s = serde_json::to_string_pretty(&report)
            .unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
        Some(s + "\n")
    } else {
        Some(human(&report))
    }
}

/// Recognises the file's kind from its content (never its name).
pub fn detect(bytes: &[u8]) -> Option<FileKind> {
    let text = String::from_utf8_lossy(bytes);
    let start = text.trim_start();
    if ["event:", "data:", ":"]
        .iter()
        .any(|p| start.starts_with(p))
    {
        return Some(FileKind::Stream);
    }
    if let Ok(v) = serde_json::from_slice::<Value>(bytes) {
        return match &v {
            Value::Object(o) if o.contains_key("action") && o.contains_key("messages") => {
                Some(FileKind::Request)
            }
            Value::Object(o)
                if o.contains_key("mapping")
                    || (o.contains_key("messages")
                        && (o.contains_key("current_node") || o.contains_key("page_info"))) =>
            {
                Some(FileKind::Listing)
            }
            Value::Object(o) if o.contains_key("detail") => Some(FileKind::ErrorBody),
            Value::Object(_) if is_ws_frame(&v) => Some(FileKind::WebSocketLog),
            Value::Array(items) if !items.is_empty() && items.iter().all(is_ws_frame) => {
                Some(FileKind::WebSocketLog)
            }
            Value::Array(items) if !items.is_empty() && items.iter().all(is_legacy_payload) => {
                Some(FileKind::Stream)
            }
            _ => None,
        };
    }
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let frames = lines
        .iter()
        .all(|l| serde_json::from_str::<Value>(l).is_ok_and(|v| is_ws_frame(&v)));
    (!lines.is_empty() && frames).then_some(FileKind::WebSocketLog)
}

fn is_ws_frame(v: &Value) -> bool {
    v.get("payload").is_some_and(Value::is_object) || v.get("encoded_item").is_some()
}

fn is_legacy_payload(v: &Value) -> bool {
    v.is_object()
        && ["message", "moderation_response", "type"]
            .iter()
            .any(|k| v.get(*k).is_some())
}

fn frames_of(bytes: &[u8]) -> Vec<String> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Array(items)) => items.iter().map(Value::to_string).collect(),
        Ok(v) => vec![v.to_string()],
        Err(_) => String::from_utf8_lossy(bytes)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect(),
    }
}

/// Parses `bytes` and says what the parser sees; `None` when not recognised.
fn inspect(file: &str, bytes: &[u8], send_text: Option<&str>) -> Option<Report> {
    let kind = detect(bytes)?;
    let mut report = Report {
        file: file.to_string(),
        kind,
        request: None,
        observation: None,
        listing: None,
        evidence: None,
        candidates: Vec::new(),
        outcomes: Vec::new(),
        error: None,
    };
    let matches = |t: &str| send_text.map(|s| normalise(s) == normalise(t));
    match kind {
        FileKind::Request => inspect_request(&mut report, bytes, &matches),
        FileKind::Stream | FileKind::WebSocketLog => inspect_stream(&mut report, bytes, &matches),
        FileKind::Listing => inspect_listing(&mut report, bytes, send_text, &matches),
        FileKind::ErrorBody => {
            report.error = conversation::parse_listing(bytes)
                .err()
                .map(|e| e.to_string());
        }
    }
    Some(report)
}

type Matches<'a> = dyn Fn(&str) -> Option<bool> + 'a;

fn inspect_request(report: &mut Report, bytes: &[u8], matches: &Matches) {
    match request::parse_request(bytes) {
        Ok(r) => {
            report.candidates.push(Candidate {
                user_message_id: r.user_message_id.clone(),
                conversation_id: r.conversation_id.clone(),
                turn_id: None,
                text_bytes: r.text.len(),
                text_matches: matches(&r.text),
                outcome: "a request: the receipt comes from its response stream".into(),
                answer_message_id: None,
            });
            report.request = Some(r);
        }
        Err(e) => report.error = Some(e.to_string()),
    }
}

fn inspect_stream(report: &mut Report, bytes: &[u8], matches: &Matches) {
    let mut d = StreamDecoder::new();
    if report.kind == FileKind::WebSocketLog {
        for f in frames_of(bytes) {
            d.feed_websocket_item(&f);
        }
    } else if bytes.trim_ascii_start().starts_with(b"[") {
        for item in serde_json::from_slice::<Vec<Value>>(bytes).unwrap_or_default() {
            d.feed(format!("data: {item}\n\n").as_bytes());
        }
    } else {
        d.feed(bytes);
    }
    let obs = d.finish();
    report.candidates = stream_candidates(&obs, matches);
    report.outcomes = outcomes(&obs);
    report.observation = Some(obs);
}

fn inspect_listing(report: &mut Report, bytes: &[u8], send_text: Option<&str>, matches: &Matches) {
    match conversation::parse_listing(bytes) {
        Ok(l) => {
            let obs = l.observation();
            for u in &l.user_messages {
                let outcome = chatgpt::answer_outcome(&obs, &u.id);
                report.candidates.push(Candidate {
                    user_message_id: u.id.clone(),
                    conversation_id: l.conversation_id.clone(),
                    turn_id: obs.message(&u.id).and_then(|m| m.turn_exchange_id.clone()),
                    text_bytes: u.text.len(),
                    text_matches: matches(&u.text),
                    outcome: outcome.to_string(),
                    answer_message_id: answer_id(&outcome),
                });
                report.outcomes.push((u.id.clone(), outcome));
            }
            report.evidence = send_text.map(|t| evidence::for_uncertain_send(&l, t, i64::MIN));
            report.listing = Some(l);
        }
        Err(e) => report.error = Some(e.to_string()),
    }
}

fn stream_candidates(obs: &TurnObservation, matches: &Matches) -> Vec<Candidate> {
    obs.user_messages()
        .filter(|m| m.is_visible_user_message())
        .map(|m| {
            let outcome = chatgpt::answer_outcome(obs, &m.id);
            Candidate {
                user_message_id: m.id.clone(),
                conversation_id: obs.conversation_id.clone(),
                turn_id: m.turn_exchange_id.clone(),
                text_bytes: m.text.len(),
                text_matches: matches(&m.text),
                outcome: outcome.to_string(),
                answer_message_id: answer_id(&outcome),
            }
        })
        .collect()
}

/// Outcomes per visible user message; for a stream that shows no user message (an early
/// delta stream, a WebSocket log), per parent of the assistant messages instead.
fn outcomes(obs: &TurnObservation) -> Vec<(String, TurnOutcome)> {
    let mut users: Vec<String> = obs
        .user_messages()
        .filter(|m| m.is_visible_user_message())
        .map(|m| m.id.clone())
        .collect();
    if users.is_empty() {
        for m in obs.messages.iter().filter(|m| m.role == "assistant") {
            if let Some(p) = &m.parent_id {
                if obs.message(p).is_none() && !users.contains(p) {
                    users.push(p.clone());
                }
            }
        }
    }
    users
        .into_iter()
        .map(|u| {
            let o = chatgpt::answer_outcome(obs, &u);
            (u, o)
        })
        .collect()
}

fn answer_id(o: &TurnOutcome) -> Option<String> {
    match o {
        TurnOutcome::Answered { message_id, .. } => Some(message_id.clone()),
        _ => None,
    }
}

fn opt(s: &Option<String>) -> &str {
    s.as_deref().unwrap_or("-")
}

fn human(r: &Report) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(out, "file: {}", r.file);
    let _ = writeln!(
        out,
        "kind: {}",
        serde_json::to_value(r.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    );
    if let Some(e) = &r.error {
        let _ = writeln!(out, "not usable: {e}");
    }
    human_request(&mut out, r);
    if let Some(o) = &r.observation {
        human_observation(&mut out, o);
    }
    if let Some(l) = &r.listing {
        let _ = writeln!(out, "conversation: {}", opt(&l.conversation_id));
        let _ = writeln!(out, "current node: {}", opt(&l.current_node));
        let _ = writeln!(out, "messages: {}", l.messages.len());
    }
    human_candidates(&mut out, r);
    if let Some(e) = &r.evidence {
        let _ = writeln!(
            out,
            "evidence for --text (any time): {} matching user message(s){}; {} undated",
            e.matches.len(),
            if e.exactly_one { ", exactly one" } else { "" },
            e.undated_matches.len()
        );
    }
    out
}

fn human_request(out: &mut String, r: &Report) {
    use std::fmt::Write;
    if let Some(q) = &r.request {
        let _ = writeln!(out, "action: {}", q.action);
        let _ = writeln!(
            out,
            "user message: {} ({} bytes of text)",
            q.user_message_id,
            q.text.len()
        );
        let _ = writeln!(
            out,
            "conversation: {}",
            q.conversation_id.as_deref().unwrap_or("- (a new chat)")
        );
        let _ = writeln!(out, "parent: {}", opt(&q.parent_message_id));
        let _ = writeln!(out, "model: {}", opt(&q.model));
    }
}

fn human_observation(out: &mut String, o: &TurnObservation) {
    use std::fmt::Write;
    let _ = writeln!(out, "encoding: {:?}", o.encoding);
    let _ = writeln!(out, "conversation: {}", opt(&o.conversation_id));
    let _ = writeln!(out, "turn_exchange_id: {}", opt(&o.turn_exchange_id));
    let _ = writeln!(out, "end: {:?}", o.end);
    if let Some(h) = &o.handoff {
        let _ = writeln!(
            out,
            "handed off: turn {} topics {:?}",
            opt(&h.turn_exchange_id),
            h.topic_ids
        );
    }
    if let Some(b) = &o.blocked {
        let _ = writeln!(out, "blocked: {b}");
    }
    if let Some(e) = &o.error {
        let _ = writeln!(out, "error: {e}");
    }
    let _ = writeln!(out, "messages ({}):", o.messages.len());
    for m in &o.messages {
        let _ = writeln!(
            out,
            "  {} {}{} parent={} recipient={} channel={} status={} end_turn={} hidden={} type={} {}B{}",
            m.id,
            m.role,
            m.author_name.as_deref().map(|n| format!("({n})")).unwrap_or_default(),
            opt(&m.parent_id),
            opt(&m.recipient),
            opt(&m.channel),
            opt(&m.status),
            m.end_turn.map_or("-".to_string(), |b| b.to_string()),
            m.hidden,
            opt(&m.content_type),
            m.text.len(),
            if m.is_finished_answer() { " [finished answer]" } else { "" },
        );
    }
    for w in &o.warnings {
        let _ = writeln!(out, "passed over: {w}");
    }
}

fn human_candidates(out: &mut String, r: &Report) {
    use std::fmt::Write;
    let _ = writeln!(out, "receipt candidates ({}):", r.candidates.len());
    for c in &r.candidates {
        let matches = match c.text_matches {
            None => "not compared (no --text)",
            Some(true) => "matches --text",
            Some(false) => "differs from --text",
        };
        let _ = writeln!(
            out,
            "  user message {} conversation {} turn {} ({} bytes, {matches}) -> {}{}",
            c.user_message_id,
            opt(&c.conversation_id),
            opt(&c.turn_id),
            c.text_bytes,
            c.outcome,
            c.answer_message_id
                .as_deref()
                .map(|a| format!(" by {a}"))
                .unwrap_or_default(),
        );
    }
    if r.kind != FileKind::Listing {
        for (user, o) in r
            .outcomes
            .iter()
            .filter(|(u, _)| !r.candidates.iter().any(|c| &c.user_message_id == u))
        {
            let _ = writeln!(
                out,
                "  (user message {user}, not in this capture) -> {o}{}",
                answer_id(o).map(|a| format!(" by {a}")).unwrap_or_default()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inspect_recognises_each_kind_by_content() {
        assert_eq!(
            detect(b"event: delta_encoding\ndata: \"v1\"\n\n"),
            Some(FileKind::Stream)
        );
        assert_eq!(
            detect(br#"{"action":"next","messages":[]}"#),
            Some(FileKind::Request)
        );
        assert_eq!(
            detect(br#"{"mapping":{},"current_node":null}"#),
            Some(FileKind::Listing)
        );
        assert_eq!(
            detect(br#"{"detail":"Not found"}"#),
            Some(FileKind::ErrorBody)
        );
        assert_eq!(
            detect(b"{\"payload\":{\"type\":\"x\"}}\n{\"payload\":{}}\n"),
            Some(FileKind::WebSocketLog)
        );
        assert_eq!(detect(b"<html></html>"), None);
        assert_eq!(detect(b"{\"hello\":1}"), None);
    }
}
