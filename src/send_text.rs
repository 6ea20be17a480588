//! The one normalisation a send's text goes through, shared by the ledger (what is
//! stored) and the provider (what the page's request is compared with).
//!
//! Line breaks become LF — a browser cannot type a CR into the page: Chromium turns
//! CRLF and lone CR into LF — and nothing else changes: no trimming, no Unicode
//! folding, no whitespace collapsing.

/// Largest accepted text, in bytes of UTF-8 after normalisation (64 KiB).
pub const MAX_TEXT_BYTES: usize = 64 * 1024;

/// `text` with CRLF and lone CR turned into LF; every other character kept as is.
pub fn normalise(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

#[cfg(test)]
mod tests {
    use super::normalise;

    #[test]
    fn normalisation_only_turns_line_breaks_into_lf() {
        assert_eq!(normalise("a\r\nb\rc\nd"), "a\nb\nc\nd");
        assert_eq!(
            normalise("  é\u{301} 🙂\t"),
            "  é\u{301} 🙂\t",
            "no trimming, no folding"
        );
        assert_eq!(normalise("\r\r\n"), "\n\n");
    }
}
