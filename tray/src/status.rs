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
/// why nothing goes out (in words, never the window's sentence), then what is pending —
/// "1 needs you · stopped", "No tab · 3 pending", "All sent".
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
        parts.push(format!("{} pending", s.pending));
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
}
