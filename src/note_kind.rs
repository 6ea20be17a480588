//! What a note on a send's timeline says, as data: written once with the note (column
//! `events.note_kind`, migration 0024), read by the expiry, the window's row, the OpenAI
//! doors and the MCP server — none of which matches a note's words. Below the ledger and
//! the MCP server (which never links the ledger); imports nothing of the crate.

use serde::{Deserialize, Serialize};

/// What a note says, written once with it (column `events.note_kind`, migration 0024).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoteKind {
    /// The page's request (or its answer's model) was not the send's destination.
    DestinationMismatch,
    /// The page's request did not carry the send's files.
    AttachmentMismatch,
    /// The page's hand-off frames for the turn could not be read: no receipt can be seen.
    FramesNotUnderstood,
}

impl NoteKind {
    /// The stored form.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::DestinationMismatch => "destination_mismatch",
            Self::AttachmentMismatch => "attachment_mismatch",
            Self::FramesNotUnderstood => "frames_not_understood",
        }
    }

    /// From the stored form; `None` for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "destination_mismatch" => Some(Self::DestinationMismatch),
            "attachment_mismatch" => Some(Self::AttachmentMismatch),
            "frames_not_understood" => Some(Self::FramesNotUnderstood),
            _ => None,
        }
    }

    /// Whether the note says the page did not do what the send asked (either mismatch).
    pub fn is_mismatch(self) -> bool {
        matches!(self, Self::DestinationMismatch | Self::AttachmentMismatch)
    }
}
