//! `send`, `list`, `show`, `resolve`, `requeue`, `withdraw`.

use super::backend;
use super::output::{emit, CliError};
use crate::api::{Outcome, Request, SendView};
use crate::ledger::LedgerRead;
use crate::ledger::{Decision, EventKind, ListFilter, QueueRequest, Resolution, Send, SendState};
use crate::verdict::{Standing, Verdict};
use std::path::Path;

#[derive(Debug, clap::Args)]
pub struct SendArgs {
    /// The message text (CRLF and CR become LF; nothing else changes). `-` reads it from
    /// standard input, which keeps it out of the process list.
    pub text: String,
    /// Operation id (idempotency key); a UUID is made (and printed) when absent. Retrying
    /// with the same id never queues a second send.
    #[arg(long)]
    pub id: Option<String>,
    /// The chat site it goes to: chatgpt (the default) or claude. A claude.ai address given
    /// to --conversation or --project names claude by itself.
    #[arg(long, value_parser = crate::site::Site::parse)]
    pub site: Option<crate::site::Site>,
    /// The conversation it goes to: its id or its page's URL (chatgpt.com/c/…,
    /// claude.ai/chat/…). Without --conversation,
    /// --project or --new-chat: the profile's default destination (`sendledger
    /// destination show`; a new chat until a person sets one).
    #[arg(long, group = "place")]
    pub conversation: Option<String>,
    /// A new chat inside this ChatGPT Project: its id (g-p-…) or its chatgpt.com URL.
    #[arg(long, group = "place")]
    pub project: Option<String>,
    /// A new chat.
    #[arg(long, group = "place")]
    pub new_chat: bool,
    /// The page's model slug it asks for (e.g. gpt-5-2-thinking): sent only when the
    /// tab's picker shows it.
    #[arg(long)]
    pub model: Option<String>,
    /// The thinking effort it asks for, as the page names it.
    #[arg(long)]
    pub effort: Option<String>,
    /// A file to send with it (repeatable, at most 10, each at most 32 MiB): uploaded to
    /// the owner's store first, then part of the send (the same --id with other files is
    /// refused).
    #[arg(long = "attach", value_name = "FILE")]
    pub attach: Vec<std::path::PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// Only sends in this state (repeatable): queued, claimed, dispatched, accepted,
    /// completed, rejected, uncertain, stopped, confirmed, abandoned.
    #[arg(long = "state")]
    pub states: Vec<String>,
    /// At most this many (newest first).
    #[arg(long, default_value_t = 100)]
    pub limit: u32,
}

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// Operation id.
    pub id: String,
}

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("decision").required(true).args(["confirmed", "abandoned", "resend"])))]
pub struct ResolveArgs {
    /// Operation id of the uncertain send.
    pub id: String,
    /// It was sent.
    #[arg(long)]
    pub confirmed: bool,
    /// It was not sent, or should be treated as not sent.
    #[arg(long)]
    pub abandoned: bool,
    /// Abandon it and queue the same text as a new operation.
    #[arg(long)]
    pub resend: bool,
    /// Who decides.
    #[arg(long)]
    pub by: String,
    /// What the decision rests on (default: a note that none was given).
    #[arg(long)]
    pub evidence: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct RequeueArgs {
    /// Operation id of the stopped, rejected or page_error send.
    pub id: String,
    /// Who decides (default: the OS user).
    #[arg(long)]
    pub by: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct WithdrawArgs {
    /// Operation id of the queued (or claimed, not yet clicked) send.
    pub id: String,
    /// Who takes it back (default: the OS user).
    #[arg(long)]
    pub by: Option<String>,
}

/// What a person can do next with `s`, as the command to run, if anything.
fn next_step(s: &Send) -> Option<String> {
    let id = &s.op_id;
    Some(match s.state {
        SendState::Uncertain => format!(
            "look at the conversation, then: sendledger resolve {id} --confirmed|--abandoned|--resend --by NAME --evidence \"what you saw\""
        ),
        SendState::Queued | SendState::Claimed => {
            format!("to take it back before it is clicked: sendledger withdraw {id}")
        }
        SendState::Stopped | SendState::Rejected | SendState::PageError => {
            format!("to send it after all: sendledger requeue {id}")
        }
        _ => return None,
    })
}

/// What the send's state means, in the one table's words (`crate::verdict`).
fn meaning(s: &Send) -> &'static str {
    let v = Verdict::of_state(
        s.state.as_str(),
        s.answer.is_some(),
        s.answer_not_observed_at.is_some(),
    );
    match v.standing {
        Standing::Pending => "on its way: do not send it again",
        Standing::Answered => "sent once and answered",
        Standing::WentOut => "sent once; its answer was not seen here (read it in the chat)",
        Standing::Uncertain => {
            "it may or may not have been sent: a person decides; do not send it again"
        }
        Standing::PageSaidNo => "sent once; the page answered with an error",
        Standing::Stopped => "not sent: a person stopped it before it was clicked",
        Standing::NeverLeft => "not sent: it never left this computer (safe to send again)",
        Standing::Abandoned => "abandoned by a person",
    }
}

fn one_line(s: &Send, site: crate::site::Site) -> String {
    let preview: String = s
        .text
        .chars()
        .take(48)
        .collect::<String>()
        .replace('\n', "⏎");
    let more = if s.text.chars().count() > 48 {
        "…"
    } else {
        ""
    };
    format!(
        "{:<36}  {:<10}  {:<7}  {preview}{more}",
        s.op_id,
        s.state,
        site.as_str()
    )
}

/// The files the send carries (`file` lines: name, size, MIME type, address, the page's
/// id once granted) and `MISMATCH` with the `attachment_mismatch` sentence.
fn attachment_lines(view: &SendView) -> String {
    let mut out = String::new();
    for a in &view.attachments {
        let page = a
            .file_id
            .as_deref()
            .map(|id| format!(", page file {id}"))
            .unwrap_or_default();
        out.push_str(&format!(
            "file       {:?} ({} bytes, {}, sha256 {}{page})\n",
            a.file.name, a.file.size, a.file.mime, a.file.sha256
        ));
    }
    if let Some(why) = view
        .page_attachments
        .as_ref()
        .and_then(|p| p.mismatch.as_ref())
    {
        out.push_str(&format!("MISMATCH   {why}\n"));
    }
    out
}

/// The files its answer generated (`generated` lines: number, state, name or page file
/// id, size, and why one is unavailable), and how to get a stored one.
fn artifact_lines(view: &SendView) -> String {
    use crate::ledger::ArtifactState;
    let mut out = String::new();
    for a in &view.artifacts {
        let what = match a.state {
            ArtifactState::Stored if a.bytes_deleted => format!(
                "{:?}: its bytes were deleted 30 days after the send ended",
                a.name.as_deref().unwrap_or(&a.file_id)
            ),
            ArtifactState::Stored => format!(
                "{:?} ({} bytes, {}): sendledger artifact {} {}",
                a.name.as_deref().unwrap_or(&a.file_id),
                a.size.unwrap_or(0),
                a.mime.as_deref().unwrap_or("?"),
                view.send.op_id,
                a.n
            ),
            ArtifactState::Wanted => format!(
                "page file {}: waiting for a tab showing the conversation to fetch it",
                a.file_id
            ),
            ArtifactState::Unavailable => format!(
                "page file {} unavailable: {}",
                a.file_id,
                a.words.as_deref().unwrap_or("")
            ),
        };
        out.push_str(&format!("generated  #{} {what}\n", a.n));
    }
    out
}

/// Where the send goes (`goes to`) and what the page's request named after the click
/// (`page sent`, or `MISMATCH` with the `destination_mismatch` sentence).
fn destination_lines(view: &SendView) -> String {
    let mut out = String::new();
    if let Some(d) = &view.destination {
        let by = match d.chosen_by {
            crate::destination::ChosenBy::Send => "",
            crate::destination::ChosenBy::Default => " (the profile's default when it was queued)",
        };
        out.push_str(&format!("goes to    {}{by}\n", d.words()));
    }
    if let Some(p) = &view.page_destination {
        match &p.mismatch {
            Some(why) => out.push_str(&format!("MISMATCH   {why}\n")),
            None => out.push_str(&format!(
                "page sent  to {}{}\n",
                p.conversation_id
                    .as_deref()
                    .map(|c| format!("conversation {c}"))
                    .unwrap_or_else(|| "a new chat".into()),
                p.model
                    .as_deref()
                    .map(|m| format!(", model {m}"))
                    .unwrap_or_default()
            )),
        }
    }
    out
}

/// The send's first lines: its id, state, site, conversation and text.
fn head_lines(view: &SendView) -> String {
    let s = &view.send;
    // A send admitted before destinations were recorded went to chatgpt.com, the only site.
    let site = view
        .destination
        .as_ref()
        .map(|d| d.site)
        .unwrap_or_default();
    format!(
        "operation {}\nstate      {}\nsite       {} ({})\nconversation {}\ntext       {}\n",
        s.op_id,
        s.state,
        site.title(),
        site.host(),
        s.conversation_id.as_deref().unwrap_or("(none named)"),
        s.text.replace('\n', "\n           ")
    )
}

fn describe(view: &SendView) -> String {
    let (s, timeline, waiting) = (&view.send, &view.timeline, view.waiting.as_deref());
    let mut out = head_lines(view);
    out.push_str(&destination_lines(view));
    out.push_str(&attachment_lines(view));
    out.push_str(&format!("means      {}\n", meaning(s)));
    if let Some(why) = waiting {
        out.push_str(&format!("waiting    {why}\n"));
    }
    if let Some(c) = &view.page_check {
        out.push_str(&format!("page check {} (tab {})\n", c.summary(), c.tab_id));
    }
    if s.state == SendState::PageError {
        if let Some(e) = &s.evidence {
            out.push_str(&format!("page said  {e}\n"));
        }
    }
    if let Some(r) = &s.receipt {
        out.push_str(&format!(
            "receipt    conversation {} / user message {} / turn {}\n",
            r.conversation_id, r.user_message_id, r.turn_id
        ));
    }
    if let Some(a) = &s.answer {
        out.push_str(&format!(
            "answer     {} ({} chars)\n{}",
            a.message_id,
            a.text.chars().count(),
            artifact_lines(view)
        ));
    }
    if let Some(rs) = &view.remote_stop {
        out.push_str(&format!(
            "stop       {}\n",
            crate::api::queue::answer_stop_words(rs)
        ));
    }
    if let Some(next) = next_step(s) {
        out.push_str(&format!("next       {next}\n"));
    }
    out.push_str("timeline\n");
    for e in timeline {
        let what = match e.kind {
            EventKind::Note => "note".to_string(),
            EventKind::Transition => format!(
                "{} → {}",
                e.from.map(|f| f.to_string()).unwrap_or_else(|| "·".into()),
                e.to
            ),
        };
        out.push_str(&format!(
            "  {}  {what}  by {}{}\n",
            super::output::when(e.at),
            e.actor,
            e.evidence
                .as_deref()
                .map(|v| format!(": {v}"))
                .unwrap_or_default()
        ));
    }
    out.trim_end().to_string()
}

pub(crate) fn send(profile: Option<&Path>, json: bool, a: SendArgs) -> Result<(), CliError> {
    let text = if a.text == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).map_err(|e| {
            CliError::Usage(format!("cannot read the text from standard input: {e}"))
        })?;
        s
    } else {
        a.text
    };
    // Checked here too, as the owner will: a text over the limit is refused before it is
    // sent (the owner cuts a body that large off mid-write, which reads as unreachable).
    crate::ledger::prepare_text(&text)?;
    // The operation id is made here, before anything is sent, so that a request whose
    // answer is lost can be retried as the same operation instead of a second send.
    let op_id = a.id.unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    let attachments = super::attach::upload_all(profile, &a.attach)?;
    let req = Request::Queue {
        send: QueueRequest {
            op_id: Some(op_id.clone()),
            text,
            site: a.site,
            conversation_id: a.conversation,
            project_id: a.project,
            new_chat: a.new_chat,
            model: a.model,
            effort: a.effort,
            attachments,
        },
        actor: format!("cli:{}", backend::os_user()),
    };
    let outcome = backend::apply(profile, &req).map_err(|e| match e {
        CliError::Unreachable(m) => CliError::Unreachable(format!(
            "{m}. The send may or may not have been recorded as {op_id}: check with `sendledger show {op_id}`, or retry with `--id {op_id}` (the same id never queues twice)"
        )),
        other => other,
    })?;
    let Outcome::Queued { send, created } = &outcome else {
        return Err(CliError::unexpected("a queued send"));
    };
    emit(json, &outcome, || {
        if *created {
            format!("queued {}", send.op_id)
        } else {
            format!(
                "already queued as {} ({}): nothing new written",
                send.op_id, send.state
            )
        }
    });
    Ok(())
}

pub(crate) fn list(profile: Option<&Path>, json: bool, a: ListArgs) -> Result<(), CliError> {
    let states = a
        .states
        .iter()
        .map(|s| s.parse::<SendState>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(CliError::Usage)?;
    let reader = backend::reader(profile)?;
    let sends = reader.list(&ListFilter {
        states,
        limit: Some(a.limit),
        site: None,
    })?;
    // Each send's site (`chatgpt` for one admitted before sites), named on its line.
    let sites = sends
        .iter()
        .map(|s| {
            Ok(reader
                .destination(&s.op_id)?
                .map(|d| d.site)
                .unwrap_or_default())
        })
        .collect::<Result<Vec<_>, crate::ledger::LedgerError>>()?;
    #[derive(serde::Serialize)]
    struct Listed<'a> {
        sends: &'a [Send],
        sites: &'a [crate::site::Site],
    }
    emit(
        json,
        &Listed {
            sends: &sends,
            sites: &sites,
        },
        || {
            if sends.is_empty() {
                "no sends".into()
            } else {
                let lines = sends.iter().zip(&sites);
                lines
                    .map(|(s, site)| one_line(s, *site))
                    .collect::<Vec<_>>()
                    .join("\n")
            }
        },
    );
    Ok(())
}

pub(crate) fn show(profile: Option<&Path>, json: bool, a: ShowArgs) -> Result<(), CliError> {
    let view = match crate::client::BridgeClient::discover_named() {
        Some(owner) => owner.show(&a.id)?,
        None => crate::api::show(&backend::reader(profile)?, &a.id.as_str().into())?,
    };
    emit(json, &view, || describe(&view));
    Ok(())
}

pub(crate) fn resolve(profile: Option<&Path>, json: bool, a: ResolveArgs) -> Result<(), CliError> {
    let decision = if a.confirmed {
        Decision::Confirmed
    } else if a.abandoned {
        Decision::Abandoned
    } else {
        Decision::Resend
    };
    let evidence = a
        .evidence
        .unwrap_or_else(|| "no evidence given: decided from the command line".into());
    let req = Request::Resolve {
        op_id: a.id.into(),
        resolution: Resolution {
            decision,
            by: a.by,
            evidence,
        },
    };
    let outcome = backend::apply(profile, &req)?;
    let Outcome::Resolved { resolved: r } = &outcome else {
        return Err(CliError::unexpected("a decision"));
    };
    emit(json, &outcome, || {
        let mut s = format!("{} is now {}", r.send.op_id, r.send.state);
        if let Some(again) = &r.resent_as {
            s.push_str(&format!("; resent as {}", again.op_id));
        }
        s
    });
    Ok(())
}

pub(crate) fn requeue(profile: Option<&Path>, json: bool, a: RequeueArgs) -> Result<(), CliError> {
    let req = Request::Requeue {
        op_id: a.id.into(),
        by: a.by.unwrap_or_else(backend::os_user),
    };
    let outcome = backend::apply(profile, &req)?;
    let Outcome::Requeued { send } = &outcome else {
        return Err(CliError::unexpected("the send queued again"));
    };
    emit(json, &outcome, || format!("queued again as {}", send.op_id));
    Ok(())
}

pub(crate) fn withdraw(
    profile: Option<&Path>,
    json: bool,
    a: WithdrawArgs,
) -> Result<(), CliError> {
    let req = Request::Withdraw {
        op_id: a.id.into(),
        by: a.by.unwrap_or_else(backend::os_user),
    };
    let outcome = backend::apply(profile, &req)?;
    let Outcome::Withdrawn { send: s } = &outcome else {
        return Err(CliError::unexpected("the withdrawn send"));
    };
    emit(json, &outcome, || {
        format!(
            "{} is {}: {}",
            s.op_id,
            s.state,
            s.evidence.as_deref().unwrap_or("nothing was sent")
        )
    });
    Ok(())
}
