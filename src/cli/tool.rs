//! `tool admit|start|settle|show|archive`: at-most-once side effects.

use super::backend;
use super::output::{emit, CliError};
use crate::api::{Outcome, Request};
use crate::ledger::{Admission, LedgerRead, ToolState};
use std::path::Path;

#[derive(Debug, clap::Subcommand)]
pub enum ToolCommand {
    /// Admit a call id: admitted, already_settled (with outcome), in_flight or uncertain.
    Admit { call_id: String },
    /// Mark it started: the one gate before the side effect.
    Start { call_id: String },
    /// Record its outcome (once).
    Settle {
        call_id: String,
        #[arg(long)]
        outcome: String,
    },
    /// Show its receipt.
    Show { call_id: String },
    /// Archive a settled receipt (frees a place under the 1,000 cap; recorded).
    Archive {
        call_id: String,
        #[arg(long)]
        by: String,
    },
}

pub(crate) fn run(profile: Option<&Path>, json: bool, cmd: ToolCommand) -> Result<(), CliError> {
    let req = match cmd {
        ToolCommand::Show { call_id } => {
            let call = backend::reader(profile)?
                .tool_show(&call_id)?
                .ok_or_else(|| crate::ledger::LedgerError::UnknownToolCall(call_id.clone()))?;
            let shown = Outcome::Tool {
                tool_call: call.clone(),
            };
            emit(json, &shown, || {
                let mut s = format!("{call_id}: {}", tool_state(call.state));
                if let (Some(at), Some(by)) = (call.archived_at, &call.archived_by) {
                    s.push_str(&format!(", archived by {by} at {at}"));
                }
                if let Some(o) = &call.outcome {
                    s.push_str(&format!(", outcome: {o}"));
                }
                if call.state == crate::ledger::ToolState::Uncertain {
                    s.push_str(&format!("\n{}", crate::ledger::LedgerError::ToolUncertain));
                }
                s
            });
            return Ok(());
        }
        ToolCommand::Admit { call_id } => Request::ToolAdmit {
            call_id: call_id.into(),
        },
        ToolCommand::Start { call_id } => Request::ToolStart {
            call_id: call_id.into(),
        },
        ToolCommand::Settle { call_id, outcome } => Request::ToolSettle {
            call_id: call_id.into(),
            outcome,
        },
        ToolCommand::Archive { call_id, by } => Request::ToolArchive {
            call_id: call_id.into(),
            by,
        },
    };
    let outcome = backend::apply(profile, &req)?;
    let text = match &outcome {
        Outcome::Admitted(Admission::Uncertain { message }) => message.clone(),
        Outcome::Admitted(Admission::AlreadySettled { outcome }) => {
            format!("already settled: {outcome}")
        }
        Outcome::Admitted(Admission::Admitted) => "admitted".into(),
        Outcome::Admitted(Admission::InFlight) => "in flight".into(),
        Outcome::Tool { tool_call } => format!(
            "{}: {}",
            tool_call.call_id.as_deref().unwrap_or_default(),
            tool_state(tool_call.state)
        ),
        _ => return Err(CliError::unexpected("a tool call's receipt")),
    };
    emit(json, &outcome, || text);
    Ok(())
}

/// A tool call's state as its JSON names it (`admitted`, `started`, …).
fn tool_state(s: ToolState) -> String {
    format!("{s:?}").to_lowercase()
}
