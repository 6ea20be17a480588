//! `sendledger page-check [--tab ID] [--open-picker] [--report FILE]`: asks a leased
//! chatgpt.com tab, through the live owner (`POST /v1/page-check`), to run every check of
//! the extension's page contract — nothing typed, nothing sent; the model picker opened and
//! closed only with `--open-picker` — and prints each fact as holds / fails / not seen yet
//! with what the page showed (structure only). `--report FILE` also saves the sanitized page
//! report (docs/extension.md, "The page report"); an existing file is never overwritten.

use super::backend;
use super::output::{emit, CliError};
use crate::client::BridgeClient;
use crate::ledger::LedgerError;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
pub struct PageCheckArgs {
    /// The browser's tab id to check (as `sendledger status` lists tabs); default: the tab
    /// leased last.
    #[arg(long = "tab")]
    pub tab: Option<String>,
    /// Let the tab open and close the model picker to check it too.
    #[arg(long = "open-picker")]
    pub open_picker: bool,
    /// Also save the page report to FILE (never overwritten).
    #[arg(long = "report")]
    pub report: Option<PathBuf>,
}

const WORDS: [(&str, &str); 3] = [
    ("holds", "holds"),
    ("fails", "FAILS"),
    ("unseen", "not seen yet"),
];

/// One line per fact: `composer.present  holds  {"found":1}`.
fn lines(answer: &Value) -> String {
    let mut out = format!(
        "tab {}: {}",
        answer["tab_id"].as_str().unwrap_or("?"),
        answer["summary"].as_str().unwrap_or("")
    );
    let results = answer["check"]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if results.is_empty() {
        out.push_str("\nthe extension in that tab lists no page facts to check");
    }
    for r in results {
        let state = r["state"].as_str().unwrap_or("?");
        let said = WORDS
            .iter()
            .find(|(s, _)| *s == state)
            .map_or(state, |(_, w)| *w);
        out.push_str(&format!(
            "\n{:<32} {:<13} {}",
            r["id"].as_str().unwrap_or("?"),
            said,
            r.get("shows").map(Value::to_string).unwrap_or_default()
        ));
    }
    out
}

fn save_report(path: &Path, report: &Value) -> Result<usize, CliError> {
    let bytes = serde_json::to_vec_pretty(report).unwrap_or_default();
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .and_then(|mut f| f.write_all(&bytes).and_then(|()| f.sync_all()));
    written.map_err(|e| {
        CliError::Usage(format!(
            "{} could not be written ({e}); it is never overwritten: give another FILE",
            path.display()
        ))
    })?;
    Ok(bytes.len())
}

pub(crate) fn run(profile: Option<&Path>, json: bool, a: PageCheckArgs) -> Result<(), CliError> {
    let profile = backend::profile(profile)?;
    let Some(client) = BridgeClient::discover(&profile)? else {
        return Err(LedgerError::NoOwner.into());
    };
    let mut answer = client.page_check(a.tab.as_deref(), a.open_picker, a.report.is_some())?;
    let report = answer
        .get_mut("report")
        .map(Value::take)
        .unwrap_or(Value::Null);
    let saved = match (&a.report, report.is_null()) {
        (Some(path), false) => Some((path.display().to_string(), save_report(path, &report)?)),
        _ => None,
    };
    emit(json, &answer, || {
        let mut out = lines(&answer);
        if let Some((path, size)) = &saved {
            out.push_str(&format!("\npage report saved to {path} ({size} bytes): attach it to an issue at the project's tracker"));
        }
        out
    });
    Ok(())
}
