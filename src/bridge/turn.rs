//! The seam between the custody core's stream following and a site's parser: a
//! [`TurnReader`] per followed turn, made by the site's module (`super::sites`), read by
//! the tracker (`super::observations`) as site-neutral [`Fact`]s. The tracker keeps the
//! order of chunks, the bounds and the [`Progress`]; the reader says what the bytes show.

use super::applied::Fact;

/// The answer so far when it grew: (op id, text, model name).
pub type LiveText = Option<(String, String, Option<String>)>;

/// What the tracker knows of a followed turn, whatever its site: the receipt and the
/// answer were each applied once at most.
#[derive(Debug, Default, Clone, Copy)]
pub struct Progress {
    /// The receipt was seen (or the turn was followed again after it).
    pub accepted: bool,
    /// The final answer was seen.
    pub completed: bool,
    /// Length in bytes of the answer text last published to the live feed.
    pub live_len: usize,
}

/// What reading the stream so far showed.
#[derive(Debug, Default)]
pub struct Read {
    /// New facts, in order (a receipt and an answer once each).
    pub facts: Vec<Fact>,
    /// The turn's outcome in words (read at the end of the stream).
    pub outcome: String,
    /// The answer so far, when it grew.
    pub live: LiveText,
    /// Whether the turn is done: the track is dropped.
    pub finished: bool,
}

/// One site's reading of one followed turn.
pub trait TurnReader: Send {
    /// Takes the next bytes of the response body, in order.
    fn feed(&mut self, bytes: &[u8]);
    /// Takes one WebSocket frame after a hand-off; `false`: not understood (a site
    /// without hand-offs understands none).
    fn feed_frame(&mut self, _frame: &str) -> bool {
        false
    }
    /// Whether the input nested past the bound ([`crate::json_depth::MAX_DEPTH`]).
    fn nests_too_deep(&self) -> bool;
    /// What the turn of send (op id, text) shows now; `ended`: the body ended. Sets
    /// `progress` for the receipt and the answer it reports.
    fn read(&mut self, send: (&str, &str), progress: &mut Progress, ended: bool) -> Read;
}
