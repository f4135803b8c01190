//! Chunks into parts and messages: the daemon sends text and thought as small chunks with no
//! message ids; this gathers a run of chunks of one kind into one part, opens and closes each
//! thread's assistant message (`msg-<eventId>`), and writes user turns. Uses only
//! `qwen::state`.

use serde_json::{Map, Value, json};

use crate::input::fields::{opt_string, str_of};
use crate::input::qwen::state::{ChunkKind, Conversation, Emit, Gathered, parent_of};
use crate::model::event::{EventKind, Thread};
use crate::model::transcript::{Part, Turn, TurnMeta, TurnOrigin, Usage};

impl Conversation {
    /// Emits every gathered run of chunks and closes every open message (a turn ended).
    pub(crate) fn close_all(&mut self, e: &mut Emit<'_>) {
        let mut threads: Vec<Thread> = self.threads.keys().cloned().collect();
        threads.sort();
        for t in threads {
            self.end_message(&t, None, e);
        }
    }

    pub(super) fn chunk(&mut self, kind: ChunkKind, upd: &Value, e: &mut Emit<'_>) {
        let thread = parent_of(upd);
        let content = upd.get("content").unwrap_or(&Value::Null);
        let source = upd
            .pointer("/_meta/source")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let same = self
            .threads
            .get(&thread)
            .and_then(|t| t.gathered.as_ref())
            .is_some_and(|g| g.kind == kind);
        if kind == ChunkKind::User && !same {
            // A user message ends the assistant message before it (its own next chunk, an
            // image after the text, is more of the same message).
            self.end_message(&thread, None, e);
        }
        if !same {
            self.flush(&thread, e);
        }
        let id = match kind {
            ChunkKind::User => e.name("user"),
            ChunkKind::Assistant | ChunkKind::Thought => self.message_id(&thread, e),
        };
        let line = e.line;
        let timestamp = e.timestamp.clone();
        let st = self.threads.entry(thread.clone()).or_default();
        let index = st.parts;
        let g = st.gathered.get_or_insert_with(|| Gathered {
            kind,
            text: String::new(),
            extra: Vec::new(),
            id,
            index,
            line,
            timestamp,
            source,
        });
        match str_of(content, "type") {
            "text" | "" => {
                let text = str_of(content, "text");
                g.text.push_str(text);
                // Display only, for a live view: the gathered part is what the fold keeps.
                let (message_id, index) = (g.id.clone(), g.index);
                match kind {
                    ChunkKind::User => {}
                    ChunkKind::Assistant => e.push(EventKind::TextDelta {
                        thread,
                        message_id,
                        index,
                        text: text.to_owned(),
                    }),
                    ChunkKind::Thought => e.push(EventKind::ReasoningDelta {
                        thread,
                        message_id,
                        index,
                        text: text.to_owned(),
                    }),
                }
            }
            _ => g.extra.push(content_part(content)),
        }
        // A chunk that adds to a part written later (under the first chunk's line) and showed
        // nothing now still says where its line went, so the line is accounted for.
        let first = g.line;
        if line != first && !matches!(e.out.last(), Some(ev) if ev.line == line) {
            e.push(EventKind::absorbed(format!(
                "gathered into the message that line {first} began"
            )));
        }
    }

    /// Emits one finished part of the thread's open message (opened if need be).
    pub(super) fn block(&mut self, thread: &Thread, part: Part, e: &mut Emit<'_>) {
        let message_id = self.message_id(thread, e);
        if let Some(st) = self.threads.get_mut(thread) {
            st.parts += 1;
        }
        e.push(EventKind::AssistantBlock {
            thread: thread.clone(),
            message_id: message_id.clone(),
            part,
            meta: TurnMeta::default(),
            timestamp: e.timestamp.clone(),
        });
        self.early_usage(thread, message_id, e);
    }

    /// A usage that came before its response's content goes to the message now open.
    fn early_usage(&mut self, thread: &Thread, message_id: String, e: &mut Emit<'_>) {
        if let Some(usage) = self
            .threads
            .get_mut(thread)
            .and_then(|t| t.early_usage.take())
        {
            e.push(EventKind::AssistantEnd {
                thread: thread.clone(),
                message_id,
                meta: TurnMeta {
                    usage: Some(usage),
                    ..TurnMeta::default()
                },
            });
        }
    }

    pub(super) fn agent_chunk(&mut self, upd: &Value, e: &mut Emit<'_>) {
        let thread = parent_of(upd);
        let meta = upd.get("_meta").cloned().unwrap_or(Value::Null);
        let text = upd
            .pointer("/content/text")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let usage = meta.get("usage").map(qwen_usage);
        let is_text = matches!(str_of(&upd["content"], "type"), "text" | "");
        if is_text && text.is_empty() {
            // The end of one model response (it carries the usage), or an empty marker.
            let before = e.out.len();
            self.end_message(&thread, usage, e);
            if e.out.len() > before && !e.out[before..].iter().any(|ev| ev.line == e.line) {
                // It ended the message, whose events carry its earlier lines.
                e.push(EventKind::absorbed(
                    "agent_message_chunk ending the message",
                ));
            }
            if e.out.len() == before {
                let what = match usage {
                    None => "empty agent_message_chunk",
                    Some(_) => {
                        // Before any content of its response: kept for the next message.
                        self.threads.entry(thread).or_default().early_usage = usage;
                        "empty agent_message_chunk with usage, before its response's content"
                    }
                };
                e.push(EventKind::absorbed(what));
            }
            return;
        }
        self.chunk(ChunkKind::Assistant, upd, e);
    }

    /// The open message of a thread, opened now if there is none.
    pub(super) fn message_id(&mut self, thread: &Thread, e: &Emit<'_>) -> String {
        let st = self.threads.entry(thread.clone()).or_default();
        if st.message.is_none() {
            st.parts = 0;
            st.closed_by_result = None;
        }
        st.message.get_or_insert_with(|| e.name("msg")).clone()
    }

    /// Emits the thread's gathered chunks as one part (or one user turn).
    pub(super) fn flush(&mut self, thread: &Thread, e: &mut Emit<'_>) {
        let Some(g) = self.threads.get_mut(thread).and_then(|t| t.gathered.take()) else {
            return;
        };
        let line = e.line;
        e.line = g.line;
        let key = (thread.clone(), g.id.clone(), g.index);
        match g.kind {
            ChunkKind::User => {
                let mut m = Map::new();
                if let Some(s) = &g.source {
                    m.insert("source".into(), json!(s));
                }
                let origin = match thread {
                    Some(p) => TurnOrigin::SubagentPrompt {
                        parent_tool_call_id: p.clone(),
                    },
                    None => TurnOrigin::UserInput,
                };
                if thread.is_none() {
                    // Remembered for `session_rewound`, which names a user turn by index.
                    self.prompts.push(g.text.chars().take(60).collect());
                }
                let mut parts = Vec::new();
                if !g.text.is_empty() || g.extra.is_empty() {
                    parts.push(Part::text(g.text));
                }
                parts.extend(g.extra);
                let meta = TurnMeta {
                    machinery: m,
                    ..TurnMeta::default()
                };
                let turn = Turn::user(g.id, origin, parts)
                    .in_thread(thread.clone())
                    .with_meta(meta)
                    .at(g.timestamp);
                e.push(EventKind::user_turn(turn));
            }
            ChunkKind::Assistant | ChunkKind::Thought => {
                let mut parts = Vec::new();
                if !g.text.is_empty() {
                    parts.push(if g.kind == ChunkKind::Thought {
                        Part::Reasoning {
                            text: g.text,
                            redacted: false,
                            signature: None,
                        }
                    } else {
                        Part::text(g.text)
                    });
                }
                parts.extend(g.extra);
                if let Some(st) = self.threads.get_mut(thread) {
                    st.parts += parts.len() as u64;
                }
                let any = !parts.is_empty();
                for part in parts {
                    e.push(EventKind::AssistantBlock {
                        thread: thread.clone(),
                        message_id: g.id.clone(),
                        part,
                        meta: TurnMeta::default(),
                        timestamp: g.timestamp.clone(),
                    });
                }
                if any {
                    self.early_usage(thread, g.id.clone(), e);
                }
            }
        }
        e.line = line;
        self.waiting.emitted(&key, e.out);
    }

    /// Ends the thread's open message: gathered chunks out, usage attached.
    pub(super) fn end_message(&mut self, thread: &Thread, usage: Option<Usage>, e: &mut Emit<'_>) {
        self.flush(thread, e);
        let Some(st) = self.threads.get_mut(thread) else {
            return;
        };
        // A response whose tool ran before its end marker: the usage still belongs to it.
        let Some(message_id) = st.message.take().or_else(|| {
            usage
                .is_some()
                .then(|| st.closed_by_result.take())
                .flatten()
        }) else {
            return;
        };
        if usage.is_some() {
            e.push(EventKind::AssistantEnd {
                thread: thread.clone(),
                message_id,
                meta: TurnMeta {
                    usage,
                    ..TurnMeta::default()
                },
            });
        }
    }
}

/// Qwen's usage (`inputTokens`, `outputTokens`, `cachedReadTokens`) in Anthropic's shape.
pub(super) fn qwen_usage(u: &Value) -> Usage {
    let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        input_tokens: n("inputTokens"),
        output_tokens: n("outputTokens"),
        cache_read_input_tokens: n("cachedReadTokens"),
        cache_creation_input_tokens: 0,
    }
}

pub(super) fn block_text(b: &Value) -> Option<String> {
    (str_of(b, "type") == "text").then(|| str_of(b, "text").to_owned())
}

/// A non-text ACP content block → a part.
fn content_part(c: &Value) -> Part {
    match str_of(c, "type") {
        "image" => {
            let mt = c
                .get("mimeType")
                .and_then(Value::as_str)
                .unwrap_or("image/png");
            Part::File {
                media_type: mt.to_owned(),
                url: match c.get("data").and_then(Value::as_str) {
                    Some(d) => format!("data:{mt};base64,{d}"),
                    None => str_of(c, "uri").to_owned(),
                },
                filename: None,
            }
        }
        "resource_link" => Part::File {
            media_type: str_of(c, "mimeType").to_owned(),
            url: str_of(c, "uri").to_owned(),
            filename: opt_string(c, "name"),
        },
        other => Part::Data {
            name: if other.is_empty() {
                "content".into()
            } else {
                other.to_owned()
            },
            data: c.clone(),
            summary: None,
        },
    }
}
