//! `status`, `doctor` and `salvage`.

use super::backend;
use super::output::{emit, CliError};
use crate::clock::SystemClock;
use crate::ledger::{Ledger, LedgerError, LedgerReader};
use crate::platform;
use crate::profile::Profile;
use serde_json::json;
use std::path::Path;
use std::sync::Arc;

pub(crate) fn status(profile: Option<&Path>, json: bool) -> Result<(), CliError> {
    let profile = backend::profile(profile)?;
    let status = LedgerReader::open(&profile)?.status()?;
    let owner = profile.current_owner();
    let v = json!({ "status": status, "owner": owner, "profile": profile.dir() });
    emit(json, &v, || {
        let counts: Vec<String> = status
            .counts
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|(s, n)| format!("{s} {n}"))
            .collect();
        let mut out = format!(
            "gate       {}\nepoch      {}\nsends      {}\nin flight  {}\nowner      {}\nprofile    {}",
            if status.gate_closed {
                "closed (stopped: `sendledger resume --by WHO` to reopen)"
            } else {
                "open"
            },
            status.lease_epochs.first().unwrap_or(&status.unbound_epoch),
            if counts.is_empty() { "none".into() } else { counts.join(", ") },
            status.in_flight.as_deref().unwrap_or("none"),
            owner.map(|o| o.to_string()).unwrap_or_else(|| "none running".into()),
            profile.dir().display()
        );
        if let Some(why) = &status.waiting_sentence {
            out.push_str(&format!("\nwaiting    {why}"));
        }
        for r in &status.tab_reports {
            out.push_str(&format!("\ntab {}     {}", r.tab_id, r.reason));
        }
        out
    });
    Ok(())
}

pub(crate) fn doctor(profile: Option<&Path>, json: bool) -> Result<(), CliError> {
    let profile = backend::profile(profile)?;
    let mut problems: Vec<String> = Vec::new();
    problems.extend(platform::privacy_problem(profile.dir(), true));
    for entry in std::fs::read_dir(profile.dir())
        .into_iter()
        .flatten()
        .flatten()
    {
        let p = entry.path();
        if p.is_file() {
            problems.extend(platform::privacy_problem(&p, false));
        }
    }
    if ledger_damage(&profile, &mut problems) {
        problems.push(format!(
            "the ledger file {} is damaged: stop the owner (quit the app or `sendledger serve`), then run `sendledger salvage`; it renames the damaged file aside untouched and builds a fresh ledger from every row still readable, with the gate closed",
            profile.ledger_path()?.display()
        ));
    }
    let owner = profile.current_owner();
    let facts = platform::facts();
    let platform: serde_json::Map<String, serde_json::Value> = facts
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone().into()))
        .collect();
    let v = json!({ "healthy": problems.is_empty(), "problems": problems, "owner": owner, "profile": profile.dir(), "platform": platform });
    emit(json, &v, || {
        let mut s = if problems.is_empty() {
            "healthy: integrity check ok, permissions ok".to_string()
        } else {
            format!("problems:\n  {}", problems.join("\n  "))
        };
        s.push_str(&format!(
            "\nowner: {}",
            owner
                .map(|o| o.to_string())
                .unwrap_or_else(|| "none running".into())
        ));
        for (k, v) in &facts {
            s.push_str(&format!("\n{k}: {v}"));
        }
        s
    });
    if problems.is_empty() {
        Ok(())
    } else {
        Err(CliError::Unhealthy(
            "the doctor found problems (listed above); keep a copy of the profile before repairing anything".into(),
        ))
    }
}

/// Adds the ledger's integrity problems to `problems`; returns whether the file itself is
/// damaged (not only a broken reference, which a salvage leaves when a row was lost).
fn ledger_damage(profile: &Profile, problems: &mut Vec<String>) -> bool {
    match LedgerReader::open(profile).and_then(|r| r.integrity_problems()) {
        Ok(found) => {
            let damaged = found.iter().any(|p| !p.starts_with("foreign key broken"));
            problems.extend(found);
            damaged
        }
        Err(e) => {
            let damaged = matches!(e, LedgerError::Corrupt { .. });
            problems.push(e.to_string());
            damaged
        }
    }
}

pub(crate) fn salvage(profile: Option<&Path>, json: bool) -> Result<(), CliError> {
    let profile = backend::profile(profile)?;
    let mut found = Vec::new();
    if !ledger_damage(&profile, &mut found) {
        let path = profile.ledger_path()?;
        if path.exists() && found.is_empty() {
            return Err(CliError::Usage(format!(
                "the ledger {} is healthy (integrity check ok): nothing to salvage",
                path.display()
            )));
        }
    }
    let (_ledger, report) = Ledger::salvage(&profile, Arc::new(SystemClock))?;
    let v = json!({ "salvage": report });
    emit(json, &v, || {
        let mut s = format!(
            "salvaged {} row(s) into a fresh ledger {}\nthe damaged file is kept, untouched, as {}\n",
            report.rows(),
            report.ledger.display(),
            report.damaged.display()
        );
        for t in &report.tables {
            s.push_str(&format!("  {:<15} {} row(s)", t.table, t.rows));
            if t.unreadable > 0 {
                s.push_str(&format!(
                    ", lookups failed on damage for {} rowid(s): rows there, if any, are lost",
                    t.unreadable
                ));
            }
            if let Some(why) = &t.lost {
                s.push_str(&format!(", lost: {why}"));
            }
            s.push('\n');
        }
        if report.broken_references > 0 {
            s.push_str(&format!(
                "{} row(s) refer to a row that was lost (kept as read; `doctor` lists them)\n",
                report.broken_references
            ));
        }
        s.push_str(&format!(
            "{} send(s) in flight are now uncertain, {} queued now rejected; the gate is closed: look at `sendledger list` before `sendledger resume --by WHO`",
            report.uncertain.len(),
            report.rejected.len()
        ));
        s
    });
    Ok(())
}
