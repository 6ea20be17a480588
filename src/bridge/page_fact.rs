//! The page fact a tab names when it fails a send before dispatch because the page did not
//! hold it (issue 35; the extension's page contract, `extension/contract/`): its id and
//! which sends it is needed by. Sent as `page_fact` in `POST /v1/ext/fail`.

use serde::Deserialize;

/// Longest fact id, in bytes.
pub const MAX_FACT_ID_BYTES: usize = 64;

/// Which sends need a page fact (the contract's `needs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Needs {
    /// Every send: the page as a whole is not understood.
    Every,
    /// Sends to a place (a conversation, a Project, a new chat).
    Destination,
    /// Sends naming a model.
    Model,
    /// Sends naming an effort.
    Effort,
    /// Sends with files.
    Files,
}

/// `{"id": "composer.present", "needs": "every"}`: the fact that did not hold.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageFact {
    /// `<area>.<fact>`: lowercase ASCII letters and `_`, dot-separated, starting with a
    /// letter (`send_button.present`), at most 64 bytes.
    pub id: String,
    /// Which sends need it.
    pub needs: Needs,
}

impl PageFact {
    /// Whether the id has the contract's shape (`composer.present`); the answer names the
    /// rule when it has not.
    pub fn check(&self) -> Result<(), String> {
        let parts: Vec<&str> = self.id.split('.').collect();
        let shaped = parts.len() >= 2
            && parts[0].starts_with(|c: char| c.is_ascii_lowercase())
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
        if self.id.len() > MAX_FACT_ID_BYTES || !shaped {
            return Err(format!(
                "page_fact.id must be '<area>.<fact>' in lowercase letters and '_', at most {MAX_FACT_ID_BYTES} bytes"
            ));
        }
        Ok(())
    }
}
