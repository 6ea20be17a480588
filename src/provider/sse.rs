//! Server-sent-events framing, byte by byte, so a chunk may end anywhere (inside a
//! line, a UTF-8 sequence or a CRLF). Lines end with LF (a CR before it is dropped);
//! `event:` names the next event, `data:` lines accumulate, an empty line dispatches,
//! `:` starts a comment. An event whose data is empty is dropped (the empty `data: `
//! line of `tests/fixtures/chatgpt/stream_delta_early.sse`).

/// Longest line kept, in bytes; a longer one is dropped whole, however it is chunked.
pub const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, if any.
    pub event: Option<String>,
    /// The `data:` lines joined with LF.
    pub data: String,
}

/// The framing state between chunks.
#[derive(Debug, Clone, Default)]
pub struct SseFramer {
    buf: Vec<u8>,
    skipping_long_line: bool,
    event: Option<String>,
    data: Option<String>,
    /// Lines dropped for being longer than [`MAX_LINE_BYTES`].
    pub dropped_lines: usize,
}

impl SseFramer {
    /// Takes more bytes; returns the events they complete.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut out = Vec::new();
        let mut rest = bytes;
        while let Some(nl) = rest.iter().position(|&b| b == b'\n') {
            let (head, tail) = rest.split_at(nl);
            rest = &tail[1..];
            if self.skipping_long_line {
                self.skipping_long_line = false;
                self.buf.clear();
                continue;
            }
            if self.buf.len() + head.len() > MAX_LINE_BYTES {
                self.dropped_lines += 1;
                self.buf.clear();
                continue;
            }
            self.buf.extend_from_slice(head);
            let line = std::mem::take(&mut self.buf);
            self.line(&line, &mut out);
        }
        if !self.skipping_long_line {
            if self.buf.len() + rest.len() > MAX_LINE_BYTES {
                self.dropped_lines += 1;
                self.skipping_long_line = true;
                self.buf.clear();
            } else {
                self.buf.extend_from_slice(rest);
            }
        }
        out
    }

    /// The event pending at the end of the input: the unterminated last line is taken
    /// as a line (when `with_partial_line`), then a pending event is dispatched.
    pub fn flush(&mut self, with_partial_line: bool) -> Vec<SseEvent> {
        let mut out = Vec::new();
        if with_partial_line && !self.skipping_long_line && !self.buf.is_empty() {
            let line = std::mem::take(&mut self.buf);
            self.line(&line, &mut out);
        }
        self.dispatch(&mut out);
        out
    }

    fn line(&mut self, raw: &[u8], out: &mut Vec<SseEvent>) {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.is_empty() {
            self.dispatch(out);
            return;
        }
        if raw[0] == b':' {
            return;
        }
        let text = String::from_utf8_lossy(raw);
        let (field, value) = match text.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (&*text, ""),
        };
        match field {
            "event" => self.event = Some(value.to_string()),
            "data" => match &mut self.data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => self.data = Some(value.to_string()),
            },
            _ => {}
        }
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        let event = self.event.take();
        match self.data.take() {
            Some(data) if !data.trim().is_empty() => out.push(SseEvent { event, data }),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(bytes: &[u8], split: usize) -> Vec<SseEvent> {
        let mut f = SseFramer::default();
        let mut out = f.feed(&bytes[..split]);
        out.extend(f.feed(&bytes[split..]));
        out.extend(f.flush(true));
        out
    }

    #[test]
    fn sse_comments_empty_data_and_crlf_are_framed_alike_at_every_split() {
        let text = b": ping\r\nevent: delta\r\ndata: {\"v\":1}\r\n\r\ndata: \n\ndata: [DONE]";
        let want = vec![
            SseEvent {
                event: Some("delta".into()),
                data: "{\"v\":1}".into(),
            },
            SseEvent {
                event: None,
                data: "[DONE]".into(),
            },
        ];
        for split in 0..=text.len() {
            assert_eq!(all(text, split), want, "split at {split}");
        }
    }

    #[test]
    fn sse_line_longer_than_the_limit_is_dropped_however_chunked() {
        let mut long = b"data: ".to_vec();
        long.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES));
        long.extend_from_slice(b"\n\ndata: ok\n\n");
        for split in [3, MAX_LINE_BYTES / 2, long.len() - 3] {
            let got = all(&long, split);
            assert_eq!(
                got,
                vec![SseEvent {
                    event: None,
                    data: "ok".into()
                }],
                "split {split}"
            );
        }
    }
}
