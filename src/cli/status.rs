//! `status`, `doctor` and `salvage`.

use super::backend;
use super::output::{emit, CliError};
use crate::clock::SystemClock;
use crate::ledger::LedgerRead;
use crate::ledger::{Ledger, LedgerError, LedgerReader};
use crate::platform;
use crate::profile::Profile;
use std::path::Path;
use std::sync::Arc;

pub(crate) fn status(profile: Option<&Path>, json: bool) -> Result<(), CliError> {
    let profile = backend::profile(profile)?;
    let status = LedgerReader::open(&profile)?.status()?;
    let owner = profile.current_owner();
    let default = crate::profile::Config::load(&profile)
        .map(|c| c.default_destination(crate::site::Site::Chatgpt));
    let default_words = match &default {
        Ok(d) => d.words(),
        Err(why) => why.clone(),
    };
    #[derive(serde::Serialize)]
    struct StatusAnswer<'a> {
        status: &'a crate::ledger::Status,
        owner: &'a Option<crate::profile::OwnerInfo>,
        profile: &'a Path,
        default_destination: Option<&'a crate::destination::Destination>,
    }
    let answer = StatusAnswer {
        status: &status,
        owner: &owner,
        profile: profile.dir(),
        default_destination: default.as_ref().ok(),
    };
    emit(json, &answer, || {
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
            owner
                .as_ref()
                .map(|o| o.to_string())
                .unwrap_or_else(|| "none running".into()),
            profile.dir().display()
        );
        out.push_str(&pending_line(&status));
        out.push_str(&format!("\ndefault destination  {default_words}"));
        if owner.is_none() && counts.iter().any(|c| c.starts_with("queued")) {
            // Nothing goes out without an owner, whatever the tabs show; its start rejects
            // what it finds queued (recovery: docs/custody.md).
            out.push_str("\nwaiting    no owner is running: start the app (or `sendledger serve`); an owner that starts rejects the sends it finds queued, and they can be queued again");
        } else if let Some(why) = &status.waiting_sentence {
            out.push_str(&format!("\nwaiting    {why}"));
        }
        for r in &status.tab_reports {
            out.push_str(&format!("\ntab {}     {}", r.tab_id, r.reason));
        }
        for c in &status.page_checks {
            out.push_str(&format!("\ntab {}     page: {}", c.tab_id, c.summary()));
        }
        out
    });
    Ok(())
}

/// `status`'s `pending` line, each site's count ("\npending    chatgpt 2, claude 1"); empty
/// when nothing is pending.
fn pending_line(status: &crate::ledger::Status) -> String {
    if status.pending_by_site.is_empty() {
        return String::new();
    }
    let sites: Vec<String> = status
        .pending_by_site
        .iter()
        .map(|(site, n)| format!("{site} {n}"))
        .collect();
    format!("\npending    {}", sites.join(", "))
}

/// `doctor`'s arguments.
#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// Check a large ledger whole too (it reads every page: about a minute per GB here).
    /// Without it, a ledger over 32 MiB is only opened and read, and a note says so.
    #[arg(long)]
    pub full: bool,
}

pub(crate) fn doctor(profile: Option<&Path>, json: bool, a: DoctorArgs) -> Result<(), CliError> {
    let profile = backend::profile(profile)?;
    let mut problems = privacy_problems(profile.dir());
    let mut notes: Vec<String> = Vec::new();
    let whole = a.full || !too_large_to_check(&profile, &mut notes);
    if whole && ledger_damage(&profile, &mut problems, &mut notes) {
        problems.push(format!(
            "the ledger file {} is damaged: stop the owner (quit the app or `sendledger serve`), then run `sendledger salvage`; it renames the damaged file aside untouched and builds a fresh ledger from every row still readable, with the gate closed",
            profile.ledger_path()?.display()
        ));
    }
    let owner = profile.current_owner();
    if let Some(d) = crate::ledger::displacement_of(&profile) {
        problems.push(displaced_problem(&d));
    }
    let facts = platform::facts();
    #[derive(serde::Serialize)]
    struct DoctorAnswer<'a> {
        healthy: bool,
        /// Whether the ledger was checked whole (`--full`, or a file of 32 MiB or less).
        checked_whole: bool,
        problems: &'a [String],
        notes: &'a [String],
        owner: &'a Option<crate::profile::OwnerInfo>,
        profile: &'a Path,
        platform: std::collections::BTreeMap<&'static str, &'a str>,
    }
    let answer = DoctorAnswer {
        healthy: problems.is_empty(),
        checked_whole: whole,
        problems: &problems,
        notes: &notes,
        owner: &owner,
        profile: profile.dir(),
        platform: facts.iter().map(|(k, v)| (*k, v.as_str())).collect(),
    };
    emit(json, &answer, || {
        let mut s = if problems.is_empty() && whole {
            "healthy: integrity check ok, permissions ok".to_string()
        } else if problems.is_empty() {
            "healthy: permissions ok, the ledger opens and reads (not checked whole: see the note)"
                .to_string()
        } else {
            format!("problems:\n  {}", problems.join("\n  "))
        };
        if !notes.is_empty() {
            s.push_str(&format!("\nnotes:\n  {}", notes.join("\n  ")));
        }
        s.push_str(&format!(
            "\nowner: {}",
            owner
                .as_ref()
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

/// The profile folder's and its files' privacy problems (the platform's rule: 0700/0600 on
/// Unix, the folder's ACL on Windows), one sentence each.
fn privacy_problems(dir: &Path) -> Vec<String> {
    let mut problems: Vec<String> = platform::privacy_problem(dir, true).into_iter().collect();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        if p.is_file() {
            problems.extend(platform::privacy_problem(&p, false));
        }
    }
    problems
}

/// What `doctor` says about an owner that found its ledger or lock file moved under it.
fn displaced_problem(d: &crate::ledger::Displacement) -> String {
    use crate::clock::Clock;
    let now = SystemClock.now_ms();
    let mut s = format!(
        "the owner (pid {}) found its {} {} at {}: since then it acknowledges nothing (every send, grant and Stop is refused with a sentence)",
        d.pid,
        d.file,
        d.how,
        crate::ledger::local_time(d.at, now)
    );
    if let Some(r) = &d.rescued {
        s.push_str(&format!("; it saved a copy of its open ledger as {r}"));
    }
    s.push_str("; quit that owner and start it again: the start closes the gate when the ledger moved, or says what it found and what to run when there is no ledger");
    s
}

/// Whether the ledger is larger than the check `doctor` makes by default (issue 39: a
/// whole-file check of a 10⁶-send ledger takes tens of seconds); then it is opened and
/// its newest rows read instead, and a note says what was not done and how to do it.
fn too_large_to_check(profile: &Profile, notes: &mut Vec<String>) -> bool {
    let Ok(path) = profile.ledger_path() else {
        return false;
    };
    let size = std::fs::metadata(&path).map_or(0, |m| m.len());
    if size <= crate::ledger::whole_check_limit() {
        return false;
    }
    let read = LedgerReader::open(profile).and_then(|r| r.glance().map(|_| ()));
    if read.is_err() {
        return false; // the whole check says what is wrong
    }
    notes.push(format!(
        "the ledger {} ({} MB) was opened and read but not checked whole: that reads every page (about a minute per GB here); `sendledger doctor --full` does it, and the owner does it after each start (writes wait until it passes)",
        path.display(),
        size / 1_000_000
    ));
    true
}

/// Adds the ledger's integrity problems to `problems`; returns whether the file itself is
/// damaged (not only a broken reference, which a salvage leaves when a row was lost).
/// After a salvage, rows that refer to a lost row are expected: they go to `notes`, naming
/// the lost rows' keys, instead of `problems`. A first page nobody can read is said once,
/// with what can still be done (salvage cannot help).
fn ledger_damage(profile: &Profile, problems: &mut Vec<String>, notes: &mut Vec<String>) -> bool {
    let reader = match LedgerReader::open(profile) {
        Ok(r) => r,
        Err(e) => return unreadable(profile, e, problems),
    };
    let found = match reader.integrity_problems() {
        Ok(found) => found,
        Err(e) => return unreadable(profile, e, problems),
    };
    let damaged = found.iter().any(|p| !p.starts_with("foreign key broken"));
    let salvaged = profile
        .signs_of_a_ledger()
        .into_iter()
        .rfind(|n| n.starts_with("ledger.damaged-") && n.ends_with(".sqlite3"));
    match (damaged, salvaged, reader.broken_references()) {
        (false, Some(aside), Ok(lost)) if !lost.is_empty() => {
            notes.push(lost_in_salvage(aside.as_str(), &lost));
        }
        _ => problems.extend(found),
    }
    damaged
}

/// What `doctor` says when the ledger cannot even be opened; whether salvage can help.
fn unreadable(profile: &Profile, e: LedgerError, problems: &mut Vec<String>) -> bool {
    let path = profile.ledger_path().ok();
    if let (LedgerError::Corrupt { .. }, Some(path)) = (&e, &path) {
        if crate::ledger::first_page_unreadable(path) {
            problems.push(crate::ledger::unreadable_first_page(path).to_string());
            return false;
        }
    }
    let damaged = matches!(e, LedgerError::Corrupt { .. });
    problems.push(e.to_string());
    damaged
}

/// The note on the traces a salvage of `aside` left: which rows were lost, and that the
/// rows referring to them are expected.
fn lost_in_salvage(aside: &str, lost: &[crate::ledger::BrokenReference]) -> String {
    let mut by_parent: Vec<(String, Vec<String>, u64)> = Vec::new();
    for b in lost {
        match by_parent.iter_mut().find(|(p, _, _)| *p == b.parent) {
            Some((_, keys, rows)) => {
                if !keys.contains(&b.key) {
                    keys.push(b.key.clone());
                }
                *rows += b.rows;
            }
            None => by_parent.push((b.parent.clone(), vec![b.key.clone()], b.rows)),
        }
    }
    let lost: Vec<String> = by_parent
        .iter()
        .map(|(parent, keys, rows)| {
            format!(
                "{parent} row(s) {} (still named by {rows} row(s) of the history)",
                keys.join(", ")
            )
        })
        .collect();
    format!(
        "salvaged from {aside}: lost on its damaged pages: {}; the rows that still name them are the history as read, kept on purpose — expected after a salvage, nothing to repair",
        lost.join("; ")
    )
}

pub(crate) fn salvage(profile: Option<&Path>, json: bool) -> Result<(), CliError> {
    let profile = backend::profile(profile)?;
    let (mut found, mut notes) = (Vec::new(), Vec::new());
    if !ledger_damage(&profile, &mut found, &mut notes) {
        let path = profile.ledger_path()?;
        if path.exists() && found.is_empty() {
            return Err(CliError::Usage(format!(
                "the ledger {} is healthy (integrity check ok): nothing to salvage",
                path.display()
            )));
        }
    }
    crate::ledger::on_salvage_progress(|table, rowid, max| match max {
        Some(m) => eprintln!("salvage: {table}: rowid {rowid} of {m} read"),
        None => eprintln!("salvage: {table}: rowid {rowid} read (its largest rowid is unreadable)"),
    });
    let (_ledger, report) = Ledger::salvage(&profile, Arc::new(SystemClock))?;
    #[derive(serde::Serialize)]
    struct SalvageAnswer<'a> {
        salvage: &'a crate::ledger::SalvageReport,
    }
    emit(json, &SalvageAnswer { salvage: &report }, || {
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
