//! OpenAI Codex CLI saved sessions (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`) →
//! normalized events (`shared/spec/codex-exec-json.md` §4).
//!
//! Each line is `{timestamp, ordinal, type, payload}`. The same conversation is written twice:
//! as raw Responses-API items (`response_item`: what the model saw, including the harness's
//! developer and environment messages) and as UI items (`event_msg/item_completed`: what the user
//! saw). This adapter reads the UI items, which are the exec stream's items in another shape, and
//! emits them through `codex::items` so a rollout folds like its stream; every `response_item` is
//! absorbed. `session_meta` + the first `turn_context` give the session header (with the model),
//! `task_complete` the end-of-turn notice with the usage counted by `token_count`.

use serde_json::{Value, json};

use foldhash::{HashMap, HashSet};

use crate::input::codex::bare::{self, Bare};
use crate::input::codex::held_result::HeldResult;
use crate::input::codex::history::{self, CallKind, Fact, Seen, Source};
use crate::input::codex::items::{self, At, Emitter, Item, Outcome, Phase};
use crate::input::codex::legacy::{HeldPrompt, absorbed};
use crate::input::codex::ui_items::{rollout_item, texts};
use crate::input::codex::unified_exec::Session;
use crate::input::fields::{self, opt_string, str_of};
use crate::input::{Adapter, InputLine, Report, parse_json_line, push_debug};
use crate::model::event::{Event, EventKind};
use crate::model::session::{Level, SessionSnapshot, SystemNotice};
use crate::model::transcript::Usage;

/// Decoder state: the item emitter, the session header being gathered, and the thread's token
/// totals (cumulative in `token_count`) at the last turn start and now.
#[derive(Default)]
pub(crate) struct CodexRollout {
    pub(super) items: Emitter,
    session: Option<SessionSnapshot>,
    session_line: u64,
    shown: Option<SessionSnapshot>,
    total_at_start: Usage,
    total: Usage,
    /// Recent text facts, so that a fact written by two kinds of line shows once.
    pub(super) seen: Seen,
    /// A prompt from a `response_item`, waiting one line for the UI line that repeats it.
    pub(super) held_prompt: Option<HeldPrompt>,
    /// Open calls' kinds (a shell's output carries an exit code).
    pub(super) call_kinds: HashMap<String, CallKind>,
    /// Unified exec sessions whose process still runs: the `exec_command` call that started
    /// each and the output it showed (`codex::unified_exec`).
    pub(super) sessions: HashMap<i64, Session>,
    /// Calls a `response_item` opened whose output line has not come yet.
    pub(super) awaiting_output: HashSet<String>,
    /// Multi-agent calls a UI end line says failed, waiting for their output line, which says
    /// why (`collab spawn failed: …`) and is their result's error text.
    pub(super) failed_collab: HashMap<String, Outcome>,
    /// Results waiting for their call's output line (`codex::held_result`).
    pub(super) held_results: Vec<HeldResult>,
    /// Inside a `task_started` … `task_complete` pair.
    in_task: bool,
    /// A turn opened by a prompt in a rollout that writes no `task_started` (versions before
    /// ~0.50): its result notice is written when the next prompt or the end comes.
    untasked_turn: bool,
    /// Why the current turn was aborted (`turn_aborted`), for its result.
    aborted: Option<String>,
    /// The number of the last line, for the end-of-input notices.
    last_line: u64,
    /// Events decoded while the session header waits (written right after it).
    early: Vec<Event>,
    /// The last line whose events went to `early`.
    early_line: u64,
    /// Follow mode (`--follow`): what waits for a later line is written once the file is quiet.
    live: bool,
}

/// Events held with a session header that waits for its turn context, at most: a real
/// rollout writes the turn context within its first turn, a few dozen events in.
const EARLY_LIMIT: usize = 1024;

impl Adapter for CodexRollout {
    /// Holds a line whose events wait for the session header (written after it), a
    /// `response_item` prompt's line while it waits one line for the UI line that repeats it,
    /// and a call's result while it waits for the output line the model read.
    fn holds_line(&self, number: u64) -> bool {
        self.holds_result_of(number)
            || (!self.early.is_empty() && self.early_line == number)
            || self
                .held_prompt
                .as_ref()
                .is_some_and(|h| h.line() == number)
    }

    fn line(&mut self, line: &InputLine, out: &mut Vec<Event>, report: &mut Report<'_>) {
        if line.text.trim().is_empty() {
            return;
        }
        let mut events = Vec::new();
        let Some(v) = parse_json_line(line, &mut events, report) else {
            self.release_held_results(None, out);
            out.append(&mut events);
            return;
        };
        let (v, bare) = bare::enveloped(v);
        self.release_held_results(Some(&v), out);
        self.line_value(&v, bare, line, &mut events);
        self.pass_or_hold(line.number, events, out);
    }

    fn set_live(&mut self) {
        self.live = true;
    }

    /// Follow mode, the file quiet: the header (a later `turn_context` naming the model gives
    /// a new one), a held prompt (its UI copy, if it comes, is absorbed as seen) and a held
    /// result are written rather than waiting for a line that may be minutes away.
    fn poll(&mut self, out: &mut Vec<Event>, _report: &mut Report<'_>) {
        if self.live {
            self.release_held_results(None, out);
            self.flush_prompt(out);
            self.flush_session(out);
        }
    }

    fn finish(&mut self, out: &mut Vec<Event>, _report: &mut Report<'_>) {
        self.release_held_results(None, out);
        self.flush_prompt(out);
        self.flush_session(out);
        let n = self.last_line;
        self.end_failed_collab(n, out);
        self.end_exited_sessions(n, out);
        // An aborted turn's calls end as the input says; calls the rollout simply stops before
        // keep their last state (running), counted in the one notice that says where it ends.
        if let Some(r) = &self.aborted {
            let why = format!("no result recorded: the turn was aborted ({r})");
            self.items.close_open(&why, n, out);
        }
        let open = self.items.open_count();
        if self.in_task || open > 0 {
            let mut words = "incomplete: the rollout ends".to_owned();
            if self.in_task {
                words.push_str(" inside a turn (no task_complete)");
            }
            if open > 0 {
                let s = if open == 1 { "" } else { "s" };
                words.push_str(&format!(" with {open} tool call{s} still running"));
            }
            out.push(Event::at(
                n,
                fields::info("incomplete", Level::Warning, words, Value::Null),
            ));
        }
        self.end_untasked_turn(n, out);
    }
}

impl CodexRollout {
    /// The events of one parsed rollout line.
    fn line_value(&mut self, v: &Value, bare: Bare, line: &InputLine, out: &mut Vec<Event>) {
        let n = line.number;
        let p = v.get("payload").cloned().unwrap_or(Value::Null);
        let ts = opt_string(v, "timestamp");
        let ty = str_of(v, "type");
        self.last_line = n;
        let carries_prompt = ty == "event_msg"
            && (str_of(&p, "type") == "user_message"
                || (str_of(&p, "type") == "item_completed"
                    && p.pointer("/item/type").and_then(Value::as_str) == Some("UserMessage")));
        // A held prompt waits only for the UI line that repeats it, which comes right after it:
        // any other line writes it first, so texts stay in line order.
        if !carries_prompt {
            let mut prompt = Vec::new();
            self.flush_prompt(&mut prompt);
            self.pass_on(n, prompt, out);
        }
        // The header waits for the first turn context (which names the model), but never past
        // a line that shows something.
        let quiet = carries_prompt
            || match ty {
                "event_msg" => matches!(
                    str_of(&p, "type"),
                    "task_started" | "token_count" | "thread_settings_applied"
                ),
                "session_meta" | "turn_context" | "response_item" | "world_state"
                | "token_usage_record" => true,
                _ => false,
            };
        if !quiet {
            self.flush_session(out);
        }
        let absorb = |out: &mut Vec<Event>, what: String| {
            out.push(Event::at(n, EventKind::absorbed(what)));
        };
        match ty {
            "session_meta" => self.session_meta(&p, n, out),
            "turn_context" => self.turn_context(&p, n, out),
            "response_item" => self.response_item(&p, ts, line, out),
            "world_state" | "token_usage_record" => absorb(out, ty.to_owned()),
            // Says whether the inter-agent message on the next line starts a turn; the message
            // itself is shown.
            "inter_agent_communication_metadata" => absorb(
                out,
                "inter_agent_communication_metadata (how the next agent message is delivered)"
                    .into(),
            ),
            "rollout_state" => absorb(
                out,
                "record_type state (what a resume needs: the last response id)".into(),
            ),
            // The summary that replaced the history (not the replacement history itself, which
            // repeats the whole conversation).
            "compacted" => out.push(Event::at(
                n,
                EventKind::notice(SystemNotice::Compact {
                    trigger: None,
                    pre_tokens: None,
                    post_tokens: None,
                    metadata: json!({ "message": p.get("message").cloned().unwrap_or(Value::Null) }),
                }),
            )),
            "event_msg" => {
                self.event_msg(&p, ts, line, out);
                if carries_prompt {
                    self.flush_prompt(out);
                }
            }
            other => push_debug(out, line, &format!("unknown rollout line type {other:?}")),
        }
        if bare == Bare::Meta {
            // A rollout without envelopes writes no turn context for the header to wait for.
            self.flush_session(out);
        }
        let given = std::mem::take(out);
        self.pass_on(n, given, out);
    }

    /// Writes the events line `n` gave, or, while the header waits for a turn context to name
    /// the model, holds them with it in line order (harness context, a prompt older versions
    /// write before the turn context, a prompt held from the line before).
    fn pass_on(&mut self, n: u64, mut events: Vec<Event>, out: &mut Vec<Event>) {
        if self.session.is_some() {
            self.early.append(&mut events);
            self.early_line = n;
            if self.early.len() > EARLY_LIMIT {
                // No turn context came: the header goes without the model (a later turn
                // context writes it again with the model), so memory does not grow with a
                // rollout that names none.
                self.flush_session(out);
            }
        } else {
            out.append(&mut events);
        }
    }

    /// `session_meta`: the session header, held until the turn context names the model.
    fn session_meta(&mut self, p: &Value, n: u64, out: &mut Vec<Event>) {
        let id = str_of(p, "id").to_owned();
        let s = SessionSnapshot {
            id: id.clone(),
            session_id: if id.is_empty() {
                str_of(p, "session_id").to_owned()
            } else {
                id
            },
            agent: "codex".into(),
            source: "codex-rollout".into(),
            version: opt_string(p, "cli_version"),
            cwd: opt_string(p, "cwd"),
            git_branch: p
                .pointer("/git/branch")
                .and_then(Value::as_str)
                .map(str::to_owned),
            updated_at: opt_string(p, "timestamp"),
            ..SessionSnapshot::default()
        };
        self.session = Some(s);
        self.session_line = n;
        out.push(absorbed(
            n,
            "session_meta (announced with the turn context)",
        ));
    }

    /// `turn_context`: the model, directory and approval policy complete the header (a new
    /// header when they changed).
    fn turn_context(&mut self, p: &Value, n: u64, out: &mut Vec<Event>) {
        let mut s = self
            .session
            .take()
            .or_else(|| self.shown.clone())
            .unwrap_or_else(|| SessionSnapshot {
                agent: "codex".into(),
                source: "codex-rollout".into(),
                ..SessionSnapshot::default()
            });
        for (field, key) in [
            (&mut s.model, "model"),
            (&mut s.cwd, "cwd"),
            (&mut s.permission_mode, "approval_policy"),
        ] {
            if let Some(v) = opt_string(p, key) {
                *field = Some(v);
            }
        }
        if self.shown.as_ref() == Some(&s) {
            out.push(absorbed(n, "turn_context (unchanged)"));
        } else {
            self.session = Some(s);
            self.session_line = n;
            self.flush_session(out);
        }
    }

    /// Writes the gathered session header, if one is waiting.
    fn flush_session(&mut self, out: &mut Vec<Event>) {
        if let Some(s) = self.session.take() {
            self.shown = Some(s.clone());
            out.push(Event::at(self.session_line, EventKind::session(s)));
        }
        out.append(&mut self.early);
    }

    /// A new prompt: calls of the turn before it that never got a result end here, and in a
    /// rollout without `task_started` the prompt opens a turn of its own.
    pub(super) fn prompt_starts_turn(&mut self, n: u64, out: &mut Vec<Event>) {
        self.awaiting_output.clear();
        self.end_failed_collab(n, out);
        self.end_exited_sessions(n, out);
        self.items.close_open(
            "no result recorded: the turn ended before the call finished",
            n,
            out,
        );
        if !self.in_task {
            self.end_untasked_turn(n, out);
            self.untasked_turn = true;
            self.total_at_start = self.total;
            self.items.take_messages();
        }
    }

    /// The result notice of a turn that no `task_complete` ends: its messages and the tokens
    /// counted since its prompt; no duration (the rollout does not give one).
    fn end_untasked_turn(&mut self, n: u64, out: &mut Vec<Event>) {
        if !std::mem::take(&mut self.untasked_turn) {
            return;
        }
        let turns = self.items.take_messages();
        let usage = diff(&self.total, &self.total_at_start);
        let error = self.aborted.take().map(|r| format!("turn aborted ({r})"));
        if turns == 0 && usage.is_none() && error.is_none() {
            // Nothing answered, counted or aborted: the input says nothing of how this turn
            // ended (a prompt the next prompt or a task replaced), so no result is made up.
            return;
        }
        let notice = items::turn_end(error.as_deref(), turns, usage, None);
        out.push(Event::at(n, EventKind::notice(notice)));
    }

    /// A text item of `item_completed`, each fact once.
    fn item_text(&mut self, it: &Value, at: &mut At<'_>) {
        let id = str_of(it, "id").to_owned();
        match str_of(it, "type") {
            "UserMessage" => {
                let text = texts(it.get("content"));
                self.text_fact((Source::Item, Fact::Prompt), &id, text, at);
            }
            "AgentMessage" => {
                let text = texts(it.get("content"));
                self.text_fact((Source::Item, Fact::Answer), &id, text, at);
            }
            _ => {
                let mut list: Vec<String> = ["summary_text", "raw_content"]
                    .iter()
                    .map(|k| history::reasoning_texts(&json!({ "summary": it.get(*k) })))
                    .find(|l| !l.is_empty())
                    .unwrap_or_default();
                list.retain(|t| self.seen.fresh(Source::Item, Fact::Reasoning, t));
                if list.is_empty() {
                    at.push(EventKind::absorbed(
                        "reasoning another line carried (or empty)",
                    ));
                } else {
                    let text = list.join("\n\n");
                    self.items
                        .item(Phase::Completed, &id, Item::Reasoning { text }, at);
                }
            }
        }
    }

    fn event_msg(&mut self, p: &Value, ts: Option<String>, line: &InputLine, out: &mut Vec<Event>) {
        let n = line.number;
        let push = |out: &mut Vec<Event>, kind| out.push(Event::at(n, kind));
        match str_of(p, "type") {
            "item_completed" | "item_started" | "item_updated" => {
                let phase = match str_of(p, "type") {
                    "item_started" => Phase::Started,
                    "item_updated" => Phase::Updated,
                    _ => Phase::Completed,
                };
                let it = p.get("item").unwrap_or(&Value::Null);
                let id = str_of(it, "id").to_owned();
                if phase == Phase::Completed
                    && matches!(
                        str_of(it, "type"),
                        "UserMessage" | "AgentMessage" | "Reasoning"
                    )
                {
                    self.item_text(it, &mut At::new(n, ts, out));
                    return;
                }
                match rollout_item(it, phase) {
                    Some(item) => self.items.item(phase, &id, item, &mut At::new(n, ts, out)),
                    None => push_debug(
                        out,
                        line,
                        &format!("unknown rollout item type {:?}", str_of(it, "type")),
                    ),
                }
            }
            "task_started" | "turn_started" => {
                self.end_untasked_turn(n, out);
                self.in_task = true;
                self.aborted = None;
                self.items.take_messages();
                self.total_at_start = self.total;
                push(out, EventKind::absorbed("event_msg/task_started"));
            }
            "token_count" => {
                if let Some(u) = p.pointer("/info/total_token_usage").and_then(items::usage) {
                    if !items::covers(&u, &self.total) {
                        // Some versions restart the total at a resume: count from zero again.
                        self.total_at_start = Usage::default();
                    }
                    self.total = u;
                }
                push(
                    out,
                    EventKind::absorbed("event_msg/token_count (totalled at task_complete)"),
                );
            }
            "task_complete" | "turn_complete" => {
                self.in_task = false;
                self.awaiting_output.clear();
                self.end_exited_sessions(n, out);
                let turns = self.items.take_messages();
                let usage = diff(&self.total, &self.total_at_start);
                let duration = p.get("duration_ms").and_then(Value::as_u64);
                let error = p.pointer("/error/message").and_then(Value::as_str);
                let notice = items::turn_end(error, turns, usage, duration);
                push(out, EventKind::notice(notice));
            }
            "thread_settings_applied" => push(
                out,
                EventKind::absorbed("event_msg/thread_settings_applied"),
            ),
            kind @ ("error" | "stream_error" | "warning" | "turn_aborted") => {
                if kind == "turn_aborted" {
                    let reason = str_of(p, "reason");
                    self.aborted =
                        Some(if reason.is_empty() { "aborted" } else { reason }.to_owned());
                    self.end_exited_sessions(n, out);
                    self.items.close_open(
                        &format!(
                            "no result recorded: the turn was aborted ({})",
                            self.aborted.as_deref().unwrap_or_default()
                        ),
                        n,
                        out,
                    );
                }
                // `stream_error` is a retry the run survives; `error` ends the turn.
                let level = if matches!(kind, "warning" | "stream_error") {
                    Level::Warning
                } else {
                    Level::Error
                };
                let msg = ["message", "reason"]
                    .iter()
                    .find_map(|k| p.get(*k).and_then(Value::as_str))
                    .unwrap_or(kind);
                push(
                    out,
                    fields::info(kind, level, items::error_text(msg), p.clone()),
                );
            }
            other => {
                if !self.legacy_event(other, p, &mut At::new(n, ts, out)) {
                    push_debug(out, line, &format!("unknown event_msg type {other:?}"));
                }
            }
        }
    }
}

/// The usage of one turn: the thread total now minus the total when the turn started; `None`
/// when no `token_count` moved (a turn that failed before the model answered).
fn diff(now: &Usage, start: &Usage) -> Option<Usage> {
    let u = items::minus(now, start);
    (u != Usage::default()).then_some(u)
}

/// True for a rollout line (what tells it apart at the first line): `{timestamp, type,
/// payload}` with one of the rollout line types.
pub(crate) fn is_rollout_line(o: &serde_json::Map<String, Value>) -> bool {
    o.get("payload").is_some_and(Value::is_object)
        && matches!(
            o.get("type").and_then(Value::as_str),
            Some(
                "session_meta"
                    | "turn_context"
                    | "response_item"
                    | "event_msg"
                    | "world_state"
                    | "token_usage_record"
                    | "compacted"
            )
        )
}
