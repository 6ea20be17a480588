//! What holds sends back across the profile, site by site (issue 36): for `status`, the
//! tray and the window's header. Stop and the page gate hold every site; otherwise each
//! site has its own hold (its usage-limit gate; no tab of it leased while its sends wait),
//! and the sites with a leased tab and no hold go on. A capped Claude account is said as
//! Claude's, with the ChatGPT sends that go on, never as if nothing goes out.
//!
//! Words: while ChatGPT is the only site in play (held or going on), they are the ones
//! said before sites ("usage limit", "no tab"); otherwise each hold names its site
//! ("Claude limit", "no Claude tab") and the sentence ends with the sites that go on.

use super::local_time::local_time;
use super::waiting::{self, Waiting};
use crate::clock::Millis;
use crate::site::{self, Site};
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// What holds sends back, site by site: at least one hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holds {
    /// Each hold, in site order: one of Stop or the page changed (every site), else each
    /// held site's usage limit or missing tab.
    pub held: Vec<Waiting>,
    /// The sites whose sends go on meanwhile (a tab of it leased, no hold of its own).
    pub going: Vec<Site>,
}

impl Holds {
    /// The first hold (what `Status::waiting` carries).
    pub fn first(&self) -> &Waiting {
        &self.held[0]
    }

    /// Whether each hold names its site: more than one site is in play, or the one in play
    /// is not ChatGPT (the only site before sites were added, and said as then).
    fn named(&self) -> bool {
        let mut in_play: BTreeSet<Site> = self.going.iter().copied().collect();
        in_play.extend(self.held.iter().filter_map(Waiting::site));
        in_play.len() > 1 || in_play.iter().any(|s| *s != Site::default())
    }

    /// A few words for a narrow place (the tray): "usage limit", "Claude limit",
    /// "no Claude tab", "ChatGPT limit, no Claude tab".
    pub fn words(&self) -> String {
        if !self.named() {
            return self.first().words().to_string();
        }
        let words: Vec<String> = self.held.iter().map(named_words).collect();
        words.join(", ")
    }

    /// The sentence a person reads, local times relative to `now` (ms): each hold, then
    /// the sites that go on — "Claude usage limit until 14:05 (or now: `sendledger resume
    /// --by WHO`); ChatGPT sends go on".
    pub fn sentence(&self, now: Millis) -> String {
        if !self.named() {
            return self.first().sentence(now);
        }
        let mut parts: Vec<String> = self.held.iter().map(|w| named_sentence(w, now)).collect();
        if !self.going.is_empty() {
            let going: Vec<&str> = self.going.iter().map(|s| s.title()).collect();
            parts.push(format!("{} sends go on", going.join(" and ")));
        }
        parts.join("; ")
    }
}

/// A hold's few words with its site named.
fn named_words(w: &Waiting) -> String {
    match w {
        Waiting::UsageLimit { site, .. } => format!("{} limit", site.title()),
        Waiting::NoTab { site } => format!("no {} tab", site.title()),
        Waiting::TabCannotTakeSends { site, .. } => format!("{} tab can't send", site.title()),
        other => other.words().to_string(),
    }
}

/// A hold's sentence with its site named, short: the site's own hold and what to do.
fn named_sentence(w: &Waiting, now: Millis) -> String {
    const RESUME: &str = "(or now: `sendledger resume --by WHO`)";
    match w {
        Waiting::UsageLimit {
            site,
            until_ms: Some(t),
            ..
        } => format!(
            "{} usage limit until {} {RESUME}",
            site.title(),
            local_time(*t, now)
        ),
        Waiting::UsageLimit {
            site,
            message: Some(said),
            ..
        } => format!(
            "{} said no (\"{said}\"): its sends wait until a person resumes {RESUME}",
            site.title()
        ),
        Waiting::UsageLimit { site, .. } => format!(
            "{} usage limit, no reset time named: its sends wait until a person resumes {RESUME}",
            site.title()
        ),
        Waiting::NoTab { site } => format!(
            "no {host} tab for the {} sends waiting: open {host} in the browser where the extension is paired",
            site.title(),
            host = site.host()
        ),
        Waiting::TabCannotTakeSends {
            site,
            tab_id,
            reason,
        } => format!(
            "no {} tab can take the {} sends waiting: tab {tab_id}: {reason}",
            site.host(),
            site.title()
        ),
        other => other.sentence(now),
    }
}

/// The sites with a send queued (read through `sends_by_state`: the cost follows the
/// queue, not the history).
fn queued_sites(conn: &Connection) -> rusqlite::Result<BTreeSet<Site>> {
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT site FROM sends INDEXED BY sends_by_state WHERE state = 'queued'",
    )?;
    let sites = stmt.query_map([], |r| r.get(0))?;
    sites.collect()
}

/// What holds sends back across the profile at `now`, if anything: Stop or the page gate;
/// else each site's limit gate while it holds, and no tab of a site whose sends are queued.
/// With no tab leased at all and nothing else to say: no ChatGPT tab (the first run).
pub(crate) fn for_profile(conn: &Connection, now: Millis) -> rusqlite::Result<Option<Holds>> {
    if let Some(w) = waiting::held_everywhere(conn)? {
        return Ok(Some(Holds {
            held: vec![w],
            going: Vec::new(),
        }));
    }
    let queued = queued_sites(conn)?;
    let (mut held, mut going) = (Vec::new(), Vec::new());
    for site in site::ALL {
        let gate = super::limit_gate::get_for(conn, site)?;
        if gate.holds_at(now) {
            held.push(waiting::usage_limit(gate));
        } else if waiting::any_lease(conn, Some(site))? {
            going.push(site);
        } else if queued.contains(&site) {
            held.push(waiting::no_tab(conn, site)?);
        }
    }
    if held.is_empty() && going.is_empty() {
        held.push(waiting::no_tab(conn, Site::default())?);
    }
    Ok((!held.is_empty()).then_some(Holds { held, going }))
}
