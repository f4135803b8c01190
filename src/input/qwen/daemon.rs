//! Qwen Code's daemon (`qwen serve`) session events → normalized events.
//!
//! Input is the SSE body of `GET /session/:id/events` (framed by `sse`), or the same envelopes
//! one JSON object per line. Each envelope is `{id?, v, type, data, promptId?, …}`
//! (`shared/spec/qwen-daemon-events.md` §2). This module owns what is about the stream as a whole:
//!
//! * **Ordering by event id** (`qwen::order`): events fold in id order (one that arrives before
//!   its predecessor waits for it); an id already seen is a replayed duplicate, folded once; a
//!   hole no later event fills is a "missed events X–Y" notice. Synthetic frames have no id and
//!   fold where they arrive.
//! * **Resync.** `state_resync_required` becomes a "missed events X–Y" notice for the part of
//!   its range this input does not hold (none when a live and a replay subscription are
//!   concatenated); the events after it are the daemon's bounded replay window and fold
//!   normally; `history_truncated` is a notice only.
//! * **Session state** (available commands, approval mode, title, model) is gathered into one
//!   `SessionSnapshot`, written when something else follows a change.
//! * **The open set of types.** Every type in the published lists maps to something; any other
//!   type becomes a `debug` record that keeps the raw envelope, counted, never an error.
//!
//! The conversation itself (chunks, tool calls, permissions, sub-agents, plans) is `qwen::acp`.

use serde_json::{Map, Value};

use crate::input::fields::{info, names, opt_string, str_of};
use crate::input::qwen::order::{Admit, Held, Reorder};
use crate::input::qwen::rewind::Branches;
use crate::input::qwen::state::{Conversation, Emit};
use crate::input::qwen::wire::{NOTICES, is_known, malformed, malformed_update, summary};
use crate::input::sse::{Frame, SseItem, SseReader};
use crate::input::{Adapter, InputLine, Report};
use crate::model::event::{Event, EventKind};
use crate::model::session::{Level, SessionSnapshot, SystemNotice};
use crate::model::time::iso_millis;

/// Decoder state for one daemon event stream.
#[derive(Debug, Default)]
pub(crate) struct QwenDaemon {
    sse: SseReader,
    /// Events in id order: duplicates, waiting events and holes (`qwen::order`).
    order: Reorder,
    /// Whether an event folded out of order (a pieced-together input) was reported.
    warned_order: bool,
    session: SessionSnapshot,
    /// The snapshot changed since it was written (or was never written: renderers learn the
    /// agent from it).
    session_dirty: bool,
    session_written: bool,
    conversation: Conversation,
    items: Vec<SseItem>,
    /// The input file, read ahead for rewinds (`qwen::rewind`); none for standard input.
    path: Option<std::path::PathBuf>,
    /// Follow mode: the file is still being written and cannot be read ahead.
    live: bool,
    /// Whether the input was read ahead yet, and the rewound branches found in it.
    scanned: bool,
    branches: Option<Branches>,
}

impl Adapter for QwenDaemon {
    /// Holds lines: an SSE frame spans several lines and is decoded when it closes.
    fn holds_line(&self, _number: u64) -> bool {
        true
    }

    fn set_path(&mut self, path: &std::path::Path) {
        self.path = Some(path.to_path_buf());
    }

    fn set_live(&mut self) {
        self.live = true;
    }

    fn line(&mut self, line: &InputLine, out: &mut Vec<Event>, report: &mut Report<'_>) {
        if !self.scanned {
            self.scanned = true;
            let readable = self.path.as_deref().filter(|p| {
                !self.live
                    && line.offset != crate::input::lines::NOT_IN_FILE
                    && std::fs::metadata(p).is_ok_and(|m| m.is_file())
            });
            if let Some(p) = readable {
                self.branches = Branches::scan(p, Box::new(QwenDaemon::default()));
            }
        }
        let from = out.len();
        self.decode_line(line, out, report);
        if let Some(b) = self.branches.as_mut() {
            b.mark(out, from);
        }
    }

    fn finish(&mut self, out: &mut Vec<Event>, report: &mut Report<'_>) {
        let from = out.len();
        self.decode_finish(out, report);
        if let Some(b) = self.branches.as_mut() {
            b.mark(out, from);
        }
    }
}

impl QwenDaemon {
    /// Decodes one input line (SSE framing, then each envelope).
    fn decode_line(&mut self, line: &InputLine, out: &mut Vec<Event>, report: &mut Report<'_>) {
        let mut items = std::mem::take(&mut self.items);
        self.sse.line(line.number, &line.text, &mut items);
        for item in items.drain(..) {
            match item {
                SseItem::Frame(f) => self.frame(f, out, report),
                SseItem::Json { line, text } => {
                    let bad = "invalid JSON envelope";
                    if let Some(env) = json_object(line, &text, bad, out, report) {
                        let raw = text;
                        self.envelope(Held { line, env, raw }, out, report);
                    }
                }
                SseItem::Garbage { line: n, text } => {
                    let what = "neither an SSE field nor a JSON object";
                    report.error(n, what);
                    out.push(Event::at(n, EventKind::debug(what, text, false)));
                }
                SseItem::Consumed { line, what } => {
                    if what == "comment" {
                        out.push(Event::at(
                            line,
                            EventKind::absorbed("SSE comment (keep-alive)"),
                        ));
                    }
                }
            }
        }
        self.items = items;
    }

    /// The end of the input: a cut-off frame, holes never filled, the conversation's end.
    fn decode_finish(&mut self, out: &mut Vec<Event>, report: &mut Report<'_>) {
        if let Some(f) = self.sse.finish() {
            report.warning(
                f.line,
                "SSE frame cut off at the end of the input (no blank line after it)",
            );
            self.frame(f, out, report);
        }
        // Events still waiting for a predecessor that never came: the hole is missed. Each
        // round releases at least the first waiting event, so the loop ends.
        while self.order.has_waiting() {
            self.skip_hole(out);
        }
        let mut e = Emit::unplaced(out);
        self.flush_session(&mut e);
        self.conversation.finish(&mut e);
    }
}

impl QwenDaemon {
    fn frame(&mut self, f: Frame, out: &mut Vec<Event>, report: &mut Report<'_>) {
        report.span(f.line, f.last);
        if !f.has_data {
            out.push(Event::at(
                f.line,
                EventKind::absorbed(match f.retry {
                    Some(_) => "SSE retry",
                    None => "SSE frame without data",
                }),
            ));
            return;
        }
        let bad = if f.cut_off {
            "SSE frame cut off at the end of the input: its data is not a whole JSON object"
        } else {
            "SSE frame data is not a JSON object"
        };
        let Some(mut env) = json_object(f.line, &f.data, bad, out, report) else {
            return;
        };
        // The JSON repeats the frame's id; take the `id:` line when it does not.
        if let (None, Some(id)) = (env.get("id"), f.id.as_deref()) {
            if let Ok(n) = id.parse::<u64>() {
                env.insert("id".into(), Value::from(n));
            }
        }
        let held = Held {
            line: f.line,
            env,
            raw: f.data,
        };
        self.envelope(held, out, report)
    }

    /// One envelope as read (its line, its object, its text): folded in id order.
    fn envelope(&mut self, held: Held, out: &mut Vec<Event>, report: &mut Report<'_>) {
        let debug = |out: &mut Vec<Event>, reason: String| {
            out.push(Event::at(
                held.line,
                EventKind::debug(reason, held.raw.clone(), false),
            ))
        };
        let env = &held.env;
        if let Some(v) = env.get("v").filter(|v| v.as_u64() != Some(1)) {
            return debug(out, format!("unsupported envelope version {v}"));
        }
        if env.get("type").and_then(Value::as_str).is_none() {
            return debug(out, "malformed envelope (no type)".into());
        }
        let Some(id) = env.get("id").and_then(Value::as_u64) else {
            // A frame without an id may move the order on (a resync names where it resumes).
            self.fold(held.line, held.env, &held.raw, out);
            return self.drain(out);
        };
        match self.order.admit(id, held) {
            Admit::Duplicate(h) => out.push(Event::at(
                h.line,
                EventKind::absorbed(format!("duplicate event {id} (replayed)")),
            )),
            Admit::Waiting => {
                if self.order.overflowing() {
                    self.skip_hole(out);
                }
            }
            Admit::Late(h) => {
                if !self.warned_order {
                    // One subscription delivers ids in order; this input was pieced together.
                    self.warned_order = true;
                    report.warning(
                        h.line,
                        &format!("event {id} arrives after later events: folded where it arrives"),
                    );
                }
                self.fold(h.line, h.env, &h.raw, out);
            }
            Admit::Ready(h) => {
                self.fold(h.line, h.env, &h.raw, out);
                self.drain(out);
            }
        }
    }

    /// Folds the waiting events whose turn has come.
    fn drain(&mut self, out: &mut Vec<Event>) {
        while let Some(h) = self.order.ready() {
            self.fold(h.line, h.env, &h.raw, out);
        }
    }

    /// Gives up on the first hole in the event ids: a missed-range notice (after what arrived
    /// before the gap), then the events waiting behind it.
    fn skip_hole(&mut self, out: &mut Vec<Event>) {
        if let Some((from, to)) = self.order.skip_hole() {
            let mut e = Emit::unplaced(out);
            self.conversation.close_all(&mut e);
            e.push(EventKind::notice(SystemNotice::MissedEvents {
                from: Some(from),
                to: Some(to),
                reason: "gap in event ids".to_owned(),
            }));
        }
        self.drain(out);
    }

    /// Folds one envelope, in its turn. A notice or debug record it gives while a run of chunks
    /// that began before it is still being gathered waits for that run (`qwen::waiting`).
    fn fold(&mut self, line: u64, env: Map<String, Value>, raw: &str, out: &mut Vec<Event>) {
        let before = self.conversation.open_runs();
        let from = out.len();
        self.fold_envelope(line, env, raw, out);
        if before.is_empty() {
            return;
        }
        let still: Vec<_> = self
            .conversation
            .open_runs()
            .into_iter()
            .filter(|r| before.contains(r))
            .collect();
        if still.is_empty() {
            return;
        }
        let (records, rest): (Vec<Event>, Vec<Event>) = out
            .drain(from..)
            .partition(|ev| matches!(ev.kind, EventKind::Notice { .. } | EventKind::Debug { .. }));
        out.extend(rest);
        // They wait until those runs are emitted, so that the message that began first is
        // written first.
        self.conversation.waiting.hold(still, records);
    }

    fn fold_envelope(
        &mut self,
        line: u64,
        env: Map<String, Value>,
        raw: &str,
        out: &mut Vec<Event>,
    ) {
        // `malformed`: a known type whose payload is not its shape.
        let debug = |out: &mut Vec<Event>, reason: String, malformed: bool| {
            out.push(Event::at(
                line,
                EventKind::debug(reason, raw.to_owned(), malformed),
            ))
        };
        let ty = env.get("type").and_then(Value::as_str).unwrap_or_default();
        let event_id = env.get("id").and_then(Value::as_u64);
        let data = env.get("data").cloned().unwrap_or(Value::Null);
        if !is_known(ty) {
            return debug(out, format!("unknown daemon event type {ty:?}"), false);
        }
        if let Some(why) = malformed(ty, &data).or_else(|| malformed_update(ty, &data)) {
            return debug(out, why, true);
        }
        if self.session.session_id.is_empty() {
            if let Some(s) = data.get("sessionId").and_then(Value::as_str) {
                self.session.session_id = s.to_owned();
                self.session_dirty = true;
            }
        }
        let timestamp = env
            .get("_meta")
            .and_then(|m| m.get("serverTimestamp"))
            .and_then(Value::as_u64)
            .map(iso_millis);
        let mut e = Emit {
            line,
            event_id,
            timestamp,
            out,
        };
        let before = self.session.clone();
        let is_state = self.session_state(ty, &data);
        if self.session != before {
            self.session_dirty = true;
        }
        if is_state {
            e.push(EventKind::absorbed(format!("{ty} (session state)")));
            return;
        }
        self.flush_session(&mut e);
        self.dispatch(ty, &data, &mut e, raw);
    }

    fn dispatch(&mut self, ty: &str, data: &Value, e: &mut Emit<'_>, raw: &str) {
        let c = &mut self.conversation;
        match ty {
            "session_update" => {
                let upd = data.get("update").unwrap_or(&Value::Null);
                if !c.session_update(upd, e) {
                    let kind = str_of(upd, "sessionUpdate");
                    e.push(EventKind::debug(
                        if kind.is_empty() {
                            "malformed session_update (no sessionUpdate)".into()
                        } else {
                            format!("unknown session_update kind {kind:?}")
                        },
                        raw.to_owned(),
                        kind.is_empty(),
                    ));
                }
            }
            "permission_request" => c.permission_request(data, e),
            "permission_resolved" | "permission_already_resolved" => c.permission_resolved(data, e),
            "turn_complete" => c.turn_complete(data, e),
            // The daemon's own turn (telling the model a background run ended) is over; its
            // `turn_complete` carries the result.
            "background_notification_turn_complete" => {
                c.close_all(e);
                e.push(EventKind::absorbed("background_notification_turn_complete"));
            }
            "prompt_cancelled" => c.prompt_cancelled(data, e),
            "session_rewound" => c.rewound(data, e),
            "mid_turn_message_injected" => c.injected(data, e),
            "user_shell_command" => c.user_shell_command(data, e),
            "user_shell_result" => c.user_shell_result(data, e),
            "state_resync_required" => {
                let last = data.get("lastDeliveredId").and_then(Value::as_u64);
                let earliest = data.get("earliestAvailableId").and_then(Value::as_u64);
                let missed = self.order.resync(last, earliest);
                if missed.is_empty() {
                    e.push(EventKind::absorbed(
                        "state_resync_required for events this input holds",
                    ));
                } else {
                    // What arrived before the gap is written before the notice.
                    c.close_all(e);
                }
                for (from, to) in missed {
                    e.push(EventKind::notice(SystemNotice::MissedEvents {
                        from: Some(from),
                        to: (to != u64::MAX).then_some(to),
                        reason: str_of(data, "reason").to_owned(),
                    }));
                }
            }
            "replay_complete" => {
                e.push(EventKind::absorbed(format!(
                    "replay_complete ({} events replayed)",
                    data.get("replayedCount").unwrap_or(&Value::Null)
                )));
            }
            "model_switched" => {
                let model = str_of(data, "modelId").to_owned();
                if !model.is_empty() {
                    self.session.model = Some(model.clone());
                }
                self.session_dirty = true; // written before the next event
                e.push(info(
                    ty,
                    Level::Info,
                    if model.is_empty() {
                        "Model switched".to_owned()
                    } else {
                        format!("Model switched: {model}")
                    },
                    data.clone(),
                ));
            }
            "session_snapshot" => e.push(info(
                ty,
                Level::Error,
                "session recording degraded".into(),
                data.clone(),
            )),
            "session_closed" => {
                let level = if data.get("persistenceUnconfirmed") == Some(&Value::Bool(true)) {
                    Level::Error
                } else {
                    Level::Info
                };
                e.push(info(
                    ty,
                    level,
                    summary("session closed", data, &["reason", "closedBy", "cause"]),
                    data.clone(),
                ));
            }
            _ => match NOTICES.iter().find(|(t, ..)| *t == ty) {
                Some((_, level, label, fields)) => {
                    e.push(info(ty, *level, summary(label, data, fields), data.clone()))
                }
                None => e.push(EventKind::debug(
                    format!("daemon event type {ty:?} has no mapping"),
                    raw.to_owned(),
                    false,
                )),
            },
        }
    }

    /// Updates the session snapshot from a state event; false when the event is not one.
    fn session_state(&mut self, ty: &str, data: &Value) -> bool {
        let s = &mut self.session;
        match ty {
            "approval_mode_changed" => {
                if let Some(m) = opt_string(data, "next") {
                    s.permission_mode = Some(m);
                }
            }
            "session_metadata_updated" => {
                if let Some(t) = data.get("displayName").and_then(Value::as_str) {
                    s.title = Some(t.to_owned());
                }
            }
            "session_snapshot" => {
                if let Some(m) = opt_string(data, "currentModelId") {
                    s.model = Some(m);
                }
                if let Some(m) = opt_string(data, "currentApprovalMode") {
                    s.permission_mode = Some(m);
                }
                if data.get("recordingDegraded") == Some(&Value::Bool(true)) {
                    // Worth a notice, so not only state.
                    return false;
                }
            }
            "session_update" => {
                let upd = data.get("update").unwrap_or(&Value::Null);
                match str_of(upd, "sessionUpdate") {
                    "available_commands_update" => {
                        s.slash_commands = names(upd.get("availableCommands"));
                        if let Some(sk) = upd.pointer("/_meta/availableSkills") {
                            s.skills = names(Some(sk));
                        }
                    }
                    "session_info_update" => {
                        if let Some(t) = upd.get("title").and_then(Value::as_str) {
                            s.title = Some(t.to_owned());
                        }
                    }
                    "current_mode_update" => {
                        if let Some(m) = upd
                            .get("currentModeId")
                            .or_else(|| upd.get("modeId"))
                            .and_then(Value::as_str)
                        {
                            s.permission_mode = Some(m.to_owned());
                        }
                    }
                    _ => return false,
                }
            }
            _ => return false,
        }
        true
    }

    /// Writes the session snapshot if it changed since it was last written.
    fn flush_session(&mut self, e: &mut Emit<'_>) {
        if self.session_written && !self.session_dirty {
            return;
        }
        self.session_dirty = false;
        self.session_written = true;
        let mut s = self.session.clone();
        s.id = e.name("session");
        s.updated_at = e.timestamp.clone();
        s.agent = "qwen-code".into();
        s.source = "qwen-daemon".into();
        e.push(EventKind::session(s));
    }
}

/// The JSON object an envelope's text holds; else `None`, with the input error `bad` reported
/// and the text kept as a `debug` record.
fn json_object(
    line: u64,
    text: &str,
    bad: &str,
    out: &mut Vec<Event>,
    report: &mut Report<'_>,
) -> Option<Map<String, Value>> {
    match scribe_json::parse_line(text) {
        Ok(Value::Object(o)) => Some(o),
        Ok(_) | Err(_) => {
            report.error(line, bad);
            out.push(Event::at(line, EventKind::debug(bad, text, false)));
            None
        }
    }
}

/// True when a JSON object is a daemon envelope (`{v, type, data}`), as saved one per line.
pub(crate) fn is_envelope(o: &Map<String, Value>) -> bool {
    o.get("v").is_some_and(Value::is_u64)
        && o.get("type").is_some_and(Value::is_string)
        && o.get("data").is_some_and(Value::is_object)
}

#[cfg(test)]
mod tests;
