//! Google Gemini CLI saved chats → normalized events.
//!
//! Gemini CLI 0.61 records each session in `~/.gemini/tmp/<project>/chats/session-*.jsonl`
//! (`shared/spec/gemini-stream-json.md` §3): an append-only log replayed in order. A header
//! (`sessionId`, `projectHash`, `startTime`, …), `{"$set": {…}}` patches, `{"$rewindTo": id}`
//! and message records, where a later record with the same `id` replaces the earlier one (a model
//! message is written first without, then with its `toolCalls`). So the log is replayed whole and
//! the events are emitted at the end of the input:
//!
//! * Messages keep the order in which their id first appeared, with their last content.
//! * `$set.messages` replaces the CLI's context (session start, an API error's rollback,
//!   compression) and `$rewindTo` truncates it. For a transcript of what happened, messages that
//!   leave the context stay where they were, and a notice marks the place where they left.
//! * `user` messages become user turns; the injected `<session_context>` first message is
//!   synthetic context; a message of `functionResponse` parts only is the tool results already
//!   kept on the model message's `toolCalls`, so it is absorbed.
//! * `gemini` messages become one assistant turn each: the thought summaries as reasoning, the
//!   text, then each tool call with its result: `output` is what the user was shown
//!   (`resultDisplay` when it is text, as the stream's `output`), the model's own copy goes to the
//!   sidecar. A shell call whose output to the model says `Exit Code: N` with N ≠ 0 ends in
//!   `error` (Gemini reports it as a success; the stream does not even carry the code). Model and
//!   token counts go to the turn's metadata.
//! * `info` / `warning` / `error` messages become notices. The project directory comes from
//!   `../.project_root` beside the `chats` directory.

use foldhash::{HashMap, HashSet};
use std::path::Path;

use serde_json::{Map, Value, json};

use crate::input::fields::info;
use crate::input::{Adapter, InputLine, Report, parse_json_line, push_debug};
use crate::model::event::{Event, EventKind};
use crate::model::session::Level;

mod message;
mod replay;

use message::message;

/// One place in the replayed log.
enum Entry {
    /// A message record (its last version) and the line that wrote it.
    Message { line: u64, record: Value },
    /// Messages left the CLI's context here.
    Dropped {
        line: u64,
        text: String,
        ids: Vec<String>,
    },
}

/// Decoder state: the replayed log, held until the input ends.
#[derive(Default)]
pub(crate) struct GeminiSession {
    header: Option<Value>,
    /// `$set` fields other than `messages` (the latest of each).
    set: Map<String, Value>,
    entries: Vec<Entry>,
    /// Message id → its index in `entries`.
    index: HashMap<String, usize>,
    /// Ids of the messages in the CLI's current context, in order.
    live: Vec<String>,
    cwd: Option<String>,
    /// Lines whose content another line carries (the line, what happened): each is accounted
    /// for by an `absorbed` event.
    superseded: Vec<(u64, String)>,
    /// Follow mode (`--follow`): what was emitted so far.
    follow: Option<Box<Follow>>,
    /// Ids written before the last resume (a second header): the resumed CLI rewrites them,
    /// and the rewrite only adds what the first version lacked.
    before_resume: HashSet<String>,
}

/// Follow mode: entries are emitted as they are read, except the last one, which the CLI may
/// still rewrite (a model message is written first without its tool calls, then with them). A
/// rewrite of a message already shown is shown as an update: an `update` notice, then the
/// message as it is now.
#[derive(Default)]
struct Follow {
    began: bool,
    /// Entries emitted (all but the last, which is held).
    emitted: usize,
    called: HashSet<String>,
    /// Messages already shown that were rewritten since: their line, id and new record.
    updates: Vec<(u64, String, Value)>,
}

impl Adapter for GeminiSession {
    /// Holds lines: a saved chat is read whole: later lines replace and rewind earlier ones.
    fn holds_line(&self, _number: u64) -> bool {
        true
    }

    /// An older release's `session-*.json` (spec §3): one `ConversationRecord` document, the
    /// header fields and a `messages` array. Read as the JSONL log would hold it: the header, then
    /// each message as a record. Any other value is decoded as a log line.
    fn document(
        &mut self,
        values: Vec<crate::input::document::DocValue>,
        out: &mut Vec<Event>,
        report: &mut Report<'_>,
    ) {
        for crate::input::document::DocValue { line, mut value } in values {
            let messages = value
                .as_object_mut()
                .filter(|o| is_header_object(o))
                .and_then(|o| o.remove("messages"));
            let messages = match messages {
                Some(Value::Array(m)) => m,
                _ => Vec::new(),
            };
            for v in std::iter::once(value).chain(messages) {
                self.line(&InputLine::of_value(line, &v), out, report);
            }
        }
    }

    fn set_path(&mut self, path: &Path) {
        let root = path
            .parent()
            .and_then(Path::parent)
            .map(|p| p.join(".project_root"));
        if let Some(text) = root.and_then(|r| std::fs::read_to_string(r).ok()) {
            let text = text.trim();
            if !text.is_empty() {
                self.cwd = Some(text.to_owned());
            }
        }
    }

    fn set_live(&mut self) {
        self.follow = Some(Box::default());
    }

    fn line(&mut self, line: &InputLine, out: &mut Vec<Event>, report: &mut Report<'_>) {
        self.read_line(line, out, report);
        if self.follow.is_some() {
            self.emit_settled(out, false);
        }
    }

    fn finish(&mut self, out: &mut Vec<Event>, _report: &mut Report<'_>) {
        if self.follow.is_some() {
            self.emit_settled(out, true);
            return;
        }
        let Some(first) = self.first_line() else {
            return;
        };
        out.push(Event::at(first, EventKind::session(self.snapshot())));
        for (line, what) in std::mem::take(&mut self.superseded) {
            out.push(Event::at(line, EventKind::absorbed(what)));
        }
        let mut called: HashSet<String> = HashSet::default();
        for e in std::mem::take(&mut self.entries) {
            entry(e, &mut called, out);
        }
    }
}

/// Emits one replayed entry.
fn entry(e: Entry, called: &mut HashSet<String>, out: &mut Vec<Event>) {
    match e {
        Entry::Message { line, record } => message(line, &record, called, out),
        Entry::Dropped { line, text, ids } => out.push(Event::at(
            line,
            info("history", Level::Info, text, json!({ "messageIds": ids })),
        )),
    }
}

impl GeminiSession {
    /// Follow mode: emits the updates to messages already shown, then every entry but the last
    /// (all of them at the end of the input).
    fn emit_settled(&mut self, out: &mut Vec<Event>, all: bool) {
        let first = self.first_line();
        let snapshot = first.map(|_| self.snapshot());
        let Some(f) = self.follow.as_mut() else {
            return;
        };
        if !f.began {
            let (Some(first), Some(snapshot)) = (first, snapshot) else {
                return;
            };
            if self.entries.is_empty() && !all {
                return;
            }
            out.push(Event::at(first, EventKind::session(snapshot)));
            f.began = true;
        }
        for (line, id, record) in std::mem::take(&mut f.updates) {
            out.push(Event::at(
                line,
                info(
                    "update",
                    Level::Info,
                    format!("message {id}, shown above, was rewritten; as it is now:"),
                    json!({ "messageId": id }),
                ),
            ));
            message(line, &record, &mut f.called, out);
        }
        let end = if all {
            self.entries.len()
        } else {
            self.entries.len().saturating_sub(1)
        };
        while f.emitted < end {
            let e = match &self.entries[f.emitted] {
                Entry::Message { line, record } => Entry::Message {
                    line: *line,
                    record: record.clone(),
                },
                Entry::Dropped { line, text, ids } => Entry::Dropped {
                    line: *line,
                    text: text.clone(),
                    ids: ids.clone(),
                },
            };
            entry(e, &mut f.called, out);
            f.emitted += 1;
        }
    }

    /// Reads one line of the log into the replay.
    fn read_line(&mut self, line: &InputLine, out: &mut Vec<Event>, report: &mut Report<'_>) {
        let Some(v) = parse_json_line(line, out, report) else {
            return;
        };
        let n = line.number;
        let absorbed = |what: &str| Event::at(n, EventKind::absorbed(what));
        if let Some(set) = v.get("$set").and_then(Value::as_object) {
            for (k, val) in set {
                if k == "messages" {
                    self.replace(n, val.as_array().map(Vec::as_slice).unwrap_or_default());
                } else {
                    self.set.insert(k.clone(), val.clone());
                }
            }
            out.push(absorbed("$set"));
        } else if let Some(target) = v.get("$rewindTo") {
            self.rewind(n, target.as_str().unwrap_or_default());
            out.push(absorbed("$rewindTo"));
        } else if v.get("id").is_some_and(Value::is_string) && v.get("type").is_some() {
            self.upsert(n, v);
        } else if is_header(&v) {
            let what = if self.header.is_some() {
                "session header (resumed)"
            } else {
                "session header"
            };
            out.push(absorbed(what));
            if self.header.is_some() {
                // `--resume`: the history is written again as new lines with the same ids,
                // and the context is rebuilt from them (nothing left it).
                self.before_resume = self.index.keys().cloned().collect();
                self.live.clear();
            }
            self.header.get_or_insert(v);
        } else {
            push_debug(out, line, "unknown saved-chat record");
        }
    }
}

/// True for a saved chat's header record (what tells the format at the first line).
pub(crate) fn is_header(v: &Value) -> bool {
    v.as_object().is_some_and(is_header_object)
}

/// True for a saved chat's message record: `id`, `timestamp`, `content` and a `type` of the
/// chat's own (`user`, `gemini`, `info`, `error`, `warning`), with no `message` (Claude's and
/// Qwen's rows nest theirs under `message`). A chat's `user` records would otherwise pass for
/// Claude stream-json lines.
pub(crate) fn is_message_record(o: &Map<String, Value>) -> bool {
    let own_type = o
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| matches!(t, "user" | "gemini" | "info" | "error" | "warning"));
    own_type
        && ["id", "timestamp", "content"]
            .iter()
            .all(|k| o.contains_key(*k))
        && !o.contains_key("message")
}

/// [`is_header`] on an object already parsed.
pub(crate) fn is_header_object(o: &Map<String, Value>) -> bool {
    o.contains_key("sessionId")
        && o.contains_key("projectHash")
        && o.contains_key("startTime")
        && !o.contains_key("type")
}
