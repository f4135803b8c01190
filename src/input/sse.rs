//! Server-sent events framing (the WHATWG `text/event-stream` format), fed one line at a time.
//!
//! Qwen Code's daemon streams its session events this way: `retry:`, `id:`, `event:` and one or
//! several `data:` lines (joined with `\n`), `:` comment lines (keep-alives), and a blank line that
//! ends a frame. The line reader has already split on LF and dropped a CR before it; a bare CR
//! inside a line (also a line end in SSE) is split here. People also save the same envelopes one
//! JSON object per line, so a line that starts with `{` outside a frame is passed on whole.
//!
//! The reader keeps no more than the frame being assembled. A frame still open when the input
//! ends is handed back by `finish`, marked as cut off.

/// One dispatched frame.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Frame {
    /// The `id:` field, when the frame had one.
    pub(crate) id: Option<String>,
    /// The `event:` field, when the frame had one.
    pub(crate) event: Option<String>,
    /// Every `data:` line's value, joined with `\n`.
    pub(crate) data: String,
    /// The frame had at least one `data:` line (an empty `data` is still data).
    pub(crate) has_data: bool,
    /// The `retry:` field, when valid.
    pub(crate) retry: Option<u64>,
    /// The line of the frame's first field.
    pub(crate) line: u64,
    /// The line of its last field.
    pub(crate) last: u64,
    /// The input ended before the blank line that closes the frame.
    pub(crate) cut_off: bool,
}

/// What one input line amounts to.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SseItem {
    /// A blank line closed a frame that had fields.
    Frame(Frame),
    /// A whole JSON object on one line, outside any frame (a saved envelope log).
    Json { line: u64, text: String },
    /// A line outside any frame that is neither a known SSE field nor a JSON object: garbage,
    /// which must not open a frame (that would swallow the JSON lines after it).
    Garbage { line: u64, text: String },
    /// A comment (`: heartbeat`), a field that only joined a frame, a field the format ignores,
    /// or a blank line with no frame open: understood, nothing to hand on. The text says which.
    Consumed { line: u64, what: &'static str },
}

/// Assembles frames from lines.
#[derive(Debug, Default)]
pub(crate) struct SseReader {
    open: Option<Frame>,
}

impl SseReader {
    /// Feeds one line (without its line end); appends what it completed.
    pub(crate) fn line(&mut self, number: u64, text: &str, out: &mut Vec<SseItem>) {
        if text.contains('\r') {
            // SSE also ends lines at a bare CR.
            for piece in text.split('\r') {
                self.one(number, piece, out);
            }
        } else {
            self.one(number, text, out);
        }
    }

    /// The input ended: the frame still open, if it had any field.
    pub(crate) fn finish(&mut self) -> Option<Frame> {
        let mut f = self.open.take()?;
        f.cut_off = true;
        Some(f)
    }

    fn one(&mut self, number: u64, text: &str, out: &mut Vec<SseItem>) {
        if text.is_empty() {
            match self.open.take() {
                Some(f) => out.push(SseItem::Frame(f)),
                None => out.push(SseItem::Consumed {
                    line: number,
                    what: "blank line",
                }),
            }
            return;
        }
        if text.starts_with(':') {
            out.push(SseItem::Consumed {
                line: number,
                what: "comment",
            });
            return;
        }
        if self.open.is_none() && text.trim_start().starts_with('{') {
            out.push(SseItem::Json {
                line: number,
                text: text.to_owned(),
            });
            return;
        }
        let (field, value) = match text.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (text, ""),
        };
        if self.open.is_none() && !matches!(field, "data" | "event" | "id" | "retry") {
            out.push(SseItem::Garbage {
                line: number,
                text: text.to_owned(),
            });
            return;
        }
        let frame = self.open.get_or_insert_with(|| Frame {
            line: number,
            ..Frame::default()
        });
        frame.last = number;
        let what = match field {
            "data" => {
                if frame.has_data {
                    frame.data.push('\n');
                }
                frame.data.push_str(value);
                frame.has_data = true;
                "data field"
            }
            "event" => {
                frame.event = Some(value.to_owned());
                "event field"
            }
            "id" => {
                if !value.contains('\0') {
                    frame.id = Some(value.to_owned());
                }
                "id field"
            }
            "retry" => {
                if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
                    frame.retry = value.parse().ok();
                }
                "retry field"
            }
            _ => "unknown field (ignored, as SSE says)",
        };
        out.push(SseItem::Consumed { line: number, what });
    }
}

/// True when the first non-blank line of an input is an SSE field or comment.
pub(crate) fn looks_like_sse(first_line: &str) -> bool {
    let t = first_line.trim_start_matches('\u{feff}');
    t.starts_with(':')
        || ["retry:", "id:", "event:", "data:"]
            .iter()
            .any(|p| t.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(text: &str) -> (Vec<SseItem>, Option<Frame>) {
        let mut r = SseReader::default();
        let mut out = Vec::new();
        for (i, l) in text.split('\n').enumerate() {
            r.line(i as u64 + 1, l, &mut out);
        }
        out.retain(|i| !matches!(i, SseItem::Consumed { .. }));
        (out, r.finish())
    }

    fn frames(items: &[SseItem]) -> Vec<&Frame> {
        items
            .iter()
            .filter_map(|i| match i {
                SseItem::Frame(f) => Some(f),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn sse_lines_are_recognised() {
        assert!(looks_like_sse("retry: 3000"));
        assert!(looks_like_sse(": heartbeat"));
        assert!(!looks_like_sse("{\"type\":\"system\"}"));
    }

    #[test]
    fn fields_and_multi_line_data() {
        let (items, rest) = feed("retry: 3000\n\nid: 7\nevent: x\ndata: {\"a\":\ndata:1}\n\n");
        let f = frames(&items);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].retry, Some(3000));
        assert!(!f[0].has_data);
        assert_eq!(f[1].id.as_deref(), Some("7"));
        assert_eq!(f[1].event.as_deref(), Some("x"));
        assert_eq!(f[1].data, "{\"a\":\n1}");
        assert_eq!(f[1].line, 3);
        assert!(rest.is_none());
    }

    #[test]
    fn comments_are_not_frames_and_bare_cr_ends_a_line() {
        let (items, _) = feed(": heartbeat\n\ndata: a\rdata: b\r\r");
        let f = frames(&items);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].data, "a\nb");
    }

    #[test]
    fn a_cut_off_frame_is_handed_back() {
        let (items, rest) = feed("data: 1\n\ndata: {\"half\"");
        assert_eq!(frames(&items).len(), 1);
        let rest = rest.expect("open frame");
        assert!(rest.cut_off);
        assert_eq!(rest.data, "{\"half\"");
    }

    #[test]
    fn json_lines_outside_frames_pass_whole() {
        let (items, _) = feed("{\"id\":1}\n{\"id\":2}\n");
        assert_eq!(
            items[1],
            SseItem::Json {
                line: 2,
                text: "{\"id\":2}".into()
            }
        );
    }

    #[test]
    fn garbage_outside_a_frame_opens_none() {
        let (items, rest) = feed("{\"id\":1}\nnot sse at all\n{\"id\":2}\n");
        assert!(matches!(items[1], SseItem::Garbage { line: 2, .. }));
        assert!(matches!(items[2], SseItem::Json { line: 3, .. }));
        assert!(rest.is_none());
    }

    #[test]
    fn empty_data_is_still_data() {
        let (items, _) = feed("data\n\n");
        let f = frames(&items);
        assert!(f[0].has_data);
        assert_eq!(f[0].data, "");
    }
}
