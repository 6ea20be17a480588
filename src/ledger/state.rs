//! A send's states and the legal edges between them (DESIGN.md, "A send's states").
//! The same edges are enforced by the `sends_legal_edges_only` trigger (migration 0001;
//! 0007 adds `page_error` and its edge from `accepted`; 0014 its edge from `dispatched`,
//! for a conversation request the server refused).

use serde::{Deserialize, Serialize};

/// Where a send is in its lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SendState {
    /// Durably recorded; not yet handed to the extension.
    Queued,
    /// Handed to one lease; no grant asked yet, so nothing was clicked.
    Claimed,
    /// The dispatch grant was committed: the extension may have clicked.
    Dispatched,
    /// The page's own traffic showed the native receipt.
    Accepted,
    /// The final answer of the send's turn was observed.
    Completed,
    /// Never left the host (failed before dispatch, expired claim, or queued at a restart).
    Rejected,
    /// It may or may not have been sent; a person decides.
    Uncertain,
    /// Stopped by a person before dispatch.
    Stopped,
    /// A person confirmed it was sent.
    Confirmed,
    /// A person abandoned it.
    Abandoned,
    /// The page answered the send's turn with an error (usage limit, "Something went
    /// wrong", a blocked message): it was received, the page said no — or the server
    /// refused the page's conversation request itself (429, 403, 431…): the message was
    /// not taken. Terminal; the page's own message is the evidence.
    #[serde(rename = "page_error")]
    PageError,
}

impl SendState {
    /// Every state, in lifecycle order.
    pub const ALL: [SendState; 11] = [
        Self::Queued,
        Self::Claimed,
        Self::Dispatched,
        Self::Accepted,
        Self::Completed,
        Self::Rejected,
        Self::Uncertain,
        Self::Stopped,
        Self::Confirmed,
        Self::Abandoned,
        Self::PageError,
    ];

    /// The legal edges (from, to); any other change of state is refused.
    pub const EDGES: [(SendState, SendState); 15] = [
        (Self::Queued, Self::Claimed),
        (Self::Queued, Self::Rejected),
        (Self::Queued, Self::Stopped),
        (Self::Claimed, Self::Dispatched),
        (Self::Claimed, Self::Rejected),
        (Self::Claimed, Self::Uncertain),
        (Self::Claimed, Self::Stopped),
        (Self::Dispatched, Self::Accepted),
        (Self::Dispatched, Self::Uncertain),
        (Self::Dispatched, Self::PageError),
        (Self::Accepted, Self::Completed),
        (Self::Accepted, Self::PageError),
        (Self::Uncertain, Self::Accepted),
        (Self::Uncertain, Self::Confirmed),
        (Self::Uncertain, Self::Abandoned),
    ];

    /// The lowercase name stored in the ledger.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::Claimed => "claimed",
            Self::Dispatched => "dispatched",
            Self::Accepted => "accepted",
            Self::Completed => "completed",
            Self::Rejected => "rejected",
            Self::Uncertain => "uncertain",
            Self::Stopped => "stopped",
            Self::Confirmed => "confirmed",
            Self::Abandoned => "abandoned",
            Self::PageError => "page_error",
        }
    }

    /// Whether `self → to` is a legal edge.
    pub fn can_become(self, to: SendState) -> bool {
        Self::EDGES.contains(&(self, to))
    }

    /// States no transition leaves.
    pub fn is_final(self) -> bool {
        !Self::EDGES.iter().any(|(from, _)| *from == self)
    }
}

impl std::fmt::Display for SendState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for SendState {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|st| st.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<_> = Self::ALL.iter().map(|s| s.as_str()).collect();
                format!("unknown state {s:?}: use one of {}", names.join(", "))
            })
    }
}
