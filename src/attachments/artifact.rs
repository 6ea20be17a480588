//! An answer's generated files ("files out", issue 29): what the page's answer pointed at
//! (an asset pointer part: `sediment://file_<hex>` or `file-service://file-<id>`), and the
//! bounds of recording, fetching and keeping them. Pure values; the ledger records them
//! (`ledger::artifacts`), the store holds their bytes beside the attachments'.

use serde::{Deserialize, Serialize};

/// Most artifacts recorded for one answer; more are named in a note, never fetched.
pub const MAX_PER_ANSWER: usize = 10;
/// How long an artifact stays wanted after its send completed, in ms (15 minutes): then
/// it is unavailable.
pub const WANTED_MS: i64 = 15 * 60 * 1000;
/// Longest words an artifact is unavailable with, in characters.
pub const MAX_WORDS_CHARS: usize = 500;
/// Longest asset pointer kept, in bytes.
pub const MAX_POINTER_BYTES: usize = 160;

/// One generated file the answer pointed at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnswerArtifact {
    /// The page's file id: the pointer without its scheme (`file_<hex>`, `file-<id>`).
    pub file_id: String,
    /// The asset pointer as the page wrote it (`sediment://…`, `file-service://…`).
    pub pointer: String,
    /// `size_bytes`, when the part gives it.
    #[serde(default)]
    pub size_bytes: Option<u64>,
    /// `width` in pixels, when given.
    #[serde(default)]
    pub width: Option<u64>,
    /// `height` in pixels, when given.
    #[serde(default)]
    pub height: Option<u64>,
}

/// The file id an asset pointer names (`file-service://<id>` or `sediment://<id>`): 1 to
/// 128 characters, none of them a control character, `/` or `\`.
pub fn file_id_of(pointer: &str) -> Option<&str> {
    let id = pointer
        .strip_prefix("sediment://")
        .or_else(|| pointer.strip_prefix("file-service://"))?;
    let ok = !id.is_empty()
        && id.len() <= super::page::MAX_FILE_ID_BYTES
        && !id.chars().any(|c| c.is_control() || c == '/' || c == '\\');
    ok.then_some(id)
}

/// Checks the words an artifact is unavailable with: 1 to [`MAX_WORDS_CHARS`] characters.
pub fn check_words(words: &str) -> Result<(), String> {
    let n = words.trim().chars().count();
    if n == 0 || words.chars().count() > MAX_WORDS_CHARS {
        return Err(format!(
            "say why the file could not be fetched in 1 to {MAX_WORDS_CHARS} characters (these are {})",
            words.chars().count()
        ));
    }
    Ok(())
}

/// The name an artifact is saved under when the page gave none: its file id, with an
/// extension for its MIME type when one is known (`file_ab12.png`).
pub fn default_name(file_id: &str, mime: &str) -> String {
    let ext = match mime {
        "image/png" => ".png",
        "image/jpeg" => ".jpg",
        "image/webp" => ".webp",
        "image/gif" => ".gif",
        "application/pdf" => ".pdf",
        _ => "",
    };
    format!("{file_id}{ext}")
}
