//! `status` and `doctor`.

use super::backend;
use super::output::{emit, CliError};
use crate::ledger::LedgerReader;
use serde_json::json;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

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
    let mode = |p: &Path| {
        std::fs::metadata(p)
            .map(|m| m.permissions().mode() & 0o777)
            .ok()
    };
    if let Some(m) = mode(profile.dir()) {
        if m & 0o077 != 0 {
            problems.push(format!(
                "profile directory is mode {m:o}, not 700: run `chmod 700 {}`",
                profile.dir().display()
            ));
        }
    }
    for entry in std::fs::read_dir(profile.dir())
        .into_iter()
        .flatten()
        .flatten()
    {
        let p = entry.path();
        if let Some(m) = mode(&p) {
            if p.is_file() && m & 0o077 != 0 {
                problems.push(format!(
                    "{} is mode {m:o}, not 600: run `chmod 600 {}`",
                    p.display(),
                    p.display()
                ));
            }
        }
    }
    match LedgerReader::open(&profile) {
        Ok(r) => problems.extend(r.integrity_problems()?),
        Err(e) => problems.push(e.to_string()),
    }
    let owner = profile.current_owner();
    let v = json!({ "healthy": problems.is_empty(), "problems": problems, "owner": owner, "profile": profile.dir() });
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
