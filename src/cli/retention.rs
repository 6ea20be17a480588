//! `sendledger retention [--days N|off]`: how long settled sends are kept (issue 39). Off
//! until set: nothing is pruned. With N, the owner's upkeep prunes settled sends (completed,
//! confirmed, abandoned, page error, rejected, stopped) whose last change is older than N
//! days, with their attachments and artifacts when no kept send uses them; never an open
//! one. Set through the live owner, or in the ledger when none runs (a person's act).

use super::backend;
use super::output::{emit, CliError};
use crate::api::{Outcome, Request};
use crate::ledger::{LedgerRead, Retention, MAX_RETENTION_DAYS};
use std::path::Path;

/// The arguments.
#[derive(Debug, clap::Args)]
pub struct RetentionArgs {
    /// Keep settled sends this many days (1 to 36500), or `off` to keep them all; without
    /// it, prints the setting in force.
    #[arg(long, value_parser = parse_days)]
    pub days: Option<Days>,
    /// Who sets it (default: the OS user).
    #[arg(long)]
    pub by: Option<String>,
}

/// `--days`: a number of days or `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Days {
    /// Keep every send.
    Off,
    /// Keep settled sends this many days.
    Keep(u32),
}

fn parse_days(s: &str) -> Result<Days, String> {
    if s.eq_ignore_ascii_case("off") {
        return Ok(Days::Off);
    }
    match s.parse::<u32>() {
        Ok(n) if (1..=MAX_RETENTION_DAYS).contains(&n) => Ok(Days::Keep(n)),
        _ => Err(format!(
            "`{s}` is not a number of days from 1 to {MAX_RETENTION_DAYS}, nor `off`"
        )),
    }
}

pub(crate) fn run(profile: Option<&Path>, json: bool, a: RetentionArgs) -> Result<(), CliError> {
    let retention = match a.days {
        Some(d) => {
            let req = Request::SetRetention {
                days: match d {
                    Days::Off => None,
                    Days::Keep(n) => Some(n),
                },
                by: a.by.unwrap_or_else(backend::os_user),
            };
            match backend::apply(profile, &req)? {
                Outcome::RetentionSet { retention } => retention,
                _ => return Err(CliError::unexpected("the owner's answer to retention")),
            }
        }
        None => backend::reader(profile)?.retention()?,
    };
    emit(json, &serde_json::json!({ "retention": retention }), || {
        words(&retention)
    });
    Ok(())
}

fn words(r: &Retention) -> String {
    match r.days {
        None => "retention  off: every send is kept (`sendledger retention --days N` to prune settled sends older than N days)".into(),
        Some(n) => format!(
            "retention  {n} day(s): the owner's upkeep prunes settled sends whose last change is older than that, with files no kept send uses; open sends are never pruned"
        ),
    }
}
