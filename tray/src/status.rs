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

/// One line for the menu's counts entry and the tooltip: counts, gate, and why sends wait.
pub fn summary(s: &QueueStatus) -> String {
    let gate = if s.gate_closed {
        "sends stopped"
    } else {
        "sending allowed"
    };
    let mut line = format!(
        "{} pending · {} uncertain · {} stopped · {gate}",
        s.pending, s.uncertain, s.stopped
    );
    if let Some(why) = &s.waiting {
        line.push_str(&format!(" · {why}"));
    }
    line
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
        assert_eq!(
            summary(&s),
            "0 pending · 1 uncertain · 0 stopped · sends stopped"
        );
    }
}
