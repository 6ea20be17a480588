//! How the tray reads the queue's counts and gate: which icon shows, and the one line of
//! the menu's first entry.

use sendledger::api::queue::QueueStatus;

/// Which tray icon shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrayState {
    /// Nothing needs a person.
    Normal,
    /// At least one send is uncertain (shown even while stopped: it needs a decision).
    NeedsAttention,
    /// Stop closed the gate.
    Stopped,
}

/// Attention first (a decision is waiting), then a closed gate.
pub fn tray_state(s: &QueueStatus) -> TrayState {
    if s.uncertain > 0 {
        TrayState::NeedsAttention
    } else if s.gate_closed {
        TrayState::Stopped
    } else {
        TrayState::Normal
    }
}

/// The longest [`summary`] may be, in characters: a menu entry as wide as a few words.
pub const SUMMARY_MAX_CHARS: usize = 48;

/// A few words for the menu's first entry and the tooltip: what needs a person first, then
/// what holds sends back (in words, never the window's sentence; a held site named), then
/// what is pending, per site when both sites have some and the line still fits —
/// "1 needs you · stopped", "No tab · 3 pending", "Claude limit · 2 ChatGPT · 1 Claude
/// pending", "All sent".
pub fn summary(s: &QueueStatus) -> String {
    let mut parts = Vec::new();
    match s.uncertain {
        0 => {}
        1 => parts.push("1 needs you".to_string()),
        n => parts.push(format!("{n} need you")),
    }
    if s.gate_closed {
        parts.push("stopped".into());
    } else if let Some(words) = s.waiting_words.as_deref().filter(|w| *w != "sending") {
        parts.push(words.to_string());
    }
    if s.pending > 0 {
        let total = format!("{} pending", s.pending);
        let per_site = pending_per_site(s).filter(|p| {
            let line = [parts.join(" · "), p.clone()].join(" · ");
            line.chars().count() <= SUMMARY_MAX_CHARS
        });
        parts.push(per_site.unwrap_or(total));
    }
    let line = if parts.is_empty() {
        "All sent".to_string()
    } else {
        parts.join(" · ")
    };
    let mut chars = line.chars();
    let first = chars.next().map(|c| c.to_uppercase().collect::<String>());
    let line = first.unwrap_or_default() + chars.as_str();
    line.chars().take(SUMMARY_MAX_CHARS).collect()
}

/// "2 ChatGPT · 1 Claude pending" when more than one site has pending sends, else `None`.
fn pending_per_site(s: &QueueStatus) -> Option<String> {
    let sites: Vec<String> = s
        .pending_by_site
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(site, n)| format!("{n} {}", site.title()))
        .collect();
    (sites.len() > 1).then(|| format!("{} pending", sites.join(" · ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_send_waiting_for_a_decision_outranks_a_closed_gate() {
        let mut s = QueueStatus::default();
        assert_eq!(tray_state(&s), TrayState::Normal);
        s.gate_closed = true;
        assert_eq!(tray_state(&s), TrayState::Stopped);
        s.uncertain = 1;
        assert_eq!(tray_state(&s), TrayState::NeedsAttention);
        assert_eq!(summary(&s), "1 needs you · stopped");
    }

    /// The menu entry is a few words, never the window's sentence (issue 25: a 191-character
    /// sentence with CLI commands made the menu as wide as the screen).
    #[test]
    fn the_tray_says_its_status_in_a_few_words_never_the_long_sentence() {
        let long = "no chatgpt.com tab is leased: open chatgpt.com in the browser where the \
            sendledger extension is paired (`sendledger pair` gives a code)";
        let s = QueueStatus {
            pending: 3,
            waiting: Some(long.into()),
            waiting_words: Some("no tab".into()),
            ..QueueStatus::default()
        };
        assert_eq!(summary(&s), "No tab · 3 pending");
        assert_eq!(summary(&QueueStatus::default()), "All sent");
        let worst = QueueStatus {
            uncertain: 1_000_000,
            pending: 1_000_000,
            waiting: Some(long.into()),
            waiting_words: Some("no tab for its chat".into()),
            ..QueueStatus::default()
        };
        let line = summary(&worst);
        assert!(line.chars().count() <= SUMMARY_MAX_CHARS, "{line}");
        assert!(
            !line.contains('`') && !line.contains("sendledger"),
            "{line}"
        );
    }

    #[test]
    fn the_tray_counts_pending_per_site_when_both_have_some() {
        use sendledger::site::Site;
        let mut s = QueueStatus {
            pending: 3,
            pending_by_site: [(Site::Chatgpt, 2), (Site::Claude, 1)].into(),
            ..QueueStatus::default()
        };
        assert_eq!(summary(&s), "2 ChatGPT · 1 Claude pending");
        s.waiting_words = Some("Claude limit".into());
        assert_eq!(summary(&s), "Claude limit · 2 ChatGPT · 1 Claude pending");
        s.pending_by_site = [(Site::Claude, 3)].into();
        assert_eq!(
            summary(&s),
            "Claude limit · 3 pending",
            "one site: as before"
        );
        s.pending_by_site = Default::default();
        assert_eq!(summary(&s), "Claude limit · 3 pending", "an older owner");
    }

    /// The per-site form gives way to the total when the line would not fit.
    #[test]
    fn the_per_site_counts_give_way_to_the_total_when_the_line_is_full() {
        use sendledger::site::Site;
        let s = QueueStatus {
            uncertain: 12,
            pending: 2_000,
            pending_by_site: [(Site::Chatgpt, 1_000), (Site::Claude, 1_000)].into(),
            waiting_words: Some("Claude limit".into()),
            ..QueueStatus::default()
        };
        assert_eq!(summary(&s), "12 need you · Claude limit · 2000 pending");
    }
}
