//! The conversation inside Qwen Code's daemon stream: ACP `session_update` payloads, permissions,
//! user shell commands and turn ends, turned into normalized events.
//!
//! The daemon sends no message ids and no whole blocks: text and thought arrive as small chunks,
//! tool calls as a `tool_call` followed by `tool_call_update`s that merge into it. This module
//! keeps, per thread (the main one, or a sub-agent's named by `_meta.parentToolCallId`), the open
//! assistant message and the text being gathered, and per tool call what the daemon has said so
//! far, so that it can emit what the fold expects: one `assistant-block` per finished part, one
//! evolving tool call (`tool-update` for state changes, `tool-result` at the end).
//!
//! A model response ends with an empty `agent_message_chunk` that carries `_meta.usage`; a prompt
//! ends with `turn_complete`. Message ids are made from the daemon's event id of the message's
//! first frame (`msg-<eventId>`), so a replay of the same frames gives the same ids.
//!
//! This module dispatches each daemon event; the state is `qwen::state`, chunks and messages
//! `qwen::messages`, tool calls, sub-agents and plans `qwen::tools`, permissions
//! `qwen::permissions`; the published type tables are `qwen::wire`.

use serde_json::{Map, Value, json};

use crate::input::fields::{self, info, str_of};
use crate::input::qwen::messages::block_text;
use crate::input::qwen::state::ChunkKind;
use crate::input::qwen::state::{Conversation, Emit};
use crate::model::event::EventKind;
use crate::model::session::{Level, SystemNotice};
use crate::model::transcript::{Part, SyntheticReason, Turn, TurnOrigin};

impl Conversation {
    /// One `session_update` payload; false when its kind is unknown (the caller keeps it as
    /// `debug`).
    pub(crate) fn session_update(&mut self, upd: &Value, e: &mut Emit<'_>) -> bool {
        let kind = str_of(upd, "sessionUpdate");
        match kind {
            "user_message_chunk" => self.chunk(ChunkKind::User, upd, e),
            "agent_message_chunk"
                if upd.pointer("/_meta/promptCancelled") == Some(&json!(true)) =>
            {
                self.prompt_cancelled(&json!({"reason": "promptCancelled"}), e);
            }
            "agent_message_chunk" if self.background_chunk(upd, e) => {}
            "agent_message_chunk" => self.agent_chunk(upd, e),
            "agent_thought_chunk" => self.chunk(ChunkKind::Thought, upd, e),
            "tool_call" | "tool_call_update" => self.tool_call(upd, e),
            "plan" => self.plan(upd, e),
            "shell_output" | "tool_output" => self.shell_output(upd, e),
            "usage_update" => e.push(EventKind::absorbed("session_update/usage_update")),
            _ => return false,
        }
        true
    }

    /// The input ended: whatever is still gathered is written (the user's shell output too).
    pub(crate) fn finish(&mut self, e: &mut Emit<'_>) {
        self.flush_shell_output(e);
        self.close_all(e);
        self.waiting.release_all(e.out);
        if let Some(reason) = self.cancelled.take() {
            self.cancel_open_calls(&reason, e);
        }
        // Calls still open when the input ends: the capture stopped before their result. Each
        // keeps the state it was last in (waiting for approval, running, its sub-agent at
        // work); one notice says where the input ended.
        if let Some(open) = self.open_call_states().said() {
            e.push(info(
                "incomplete",
                Level::Warning,
                format!("incomplete: the input ends while {open}"),
                Value::Null,
            ));
        }
        if self
            .user_shell
            .as_ref()
            .is_some_and(|(o, r)| !o.is_empty() || !r.is_empty())
        {
            self.user_shell_result(&Value::Null, e);
        }
    }

    /// `turn_complete`: the prompt's turn is over.
    pub(crate) fn turn_complete(&mut self, data: &Value, e: &mut Emit<'_>) {
        self.close_all(e);
        let stop = str_of(data, "stopReason");
        let cancelled = stop == "cancelled" || data.get("promptCancelled") == Some(&json!(true));
        if let Some(reason) = self.cancelled.take() {
            self.cancel_open_calls(&reason, e);
        } else if cancelled {
            self.cancel_open_calls("the prompt was cancelled", e);
        }
        e.push(EventKind::notice(SystemNotice::Result {
            subtype: if stop == "end_turn" || stop.is_empty() {
                "success".into()
            } else {
                stop.to_owned()
            },
            is_error: false,
            cost: None,
            run_cost: None,
            turns: None,
            duration_ms: None,
            duration_api_ms: None,
            usage: None,
            text: None,
            stop_reason: (!stop.is_empty()).then(|| stop.to_owned()),
            terminal_reason: None,
            errors: Vec::new(),
            permission_denials: Vec::new(),
            structured_output: None,
            model_usage: None,
            fast_mode_state: None,
        }));
    }

    /// `session_rewound`: the daemon cut the conversation back to a user turn. What was said
    /// stays in the transcript (it happened); a notice marks where the later turns left the
    /// conversation, as the CLI's transcript drops them.
    pub(crate) fn rewound(&mut self, data: &Value, e: &mut Emit<'_>) {
        self.close_all(e);
        let idx = data
            .get("targetTurnIndex")
            .and_then(Value::as_u64)
            .map_or(self.prompts.len(), |i| i as usize);
        let left = self.prompts.len().saturating_sub(idx);
        let target = self.prompts.get(idx).cloned();
        self.prompts.truncate(idx);
        let files = |k: &str| {
            fields::array(data, k)
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut text = match target {
            Some(t) => format!(
                "session rewound to user turn {} (\u{201c}{t}\u{201d}): {left} user turn{} from there on left the conversation",
                idx + 1,
                if left == 1 { "" } else { "s" }
            ),
            None => format!("session rewound to user turn {}", idx.saturating_add(1)),
        };
        for (k, label) in [
            ("filesChanged", "files restored"),
            ("filesFailed", "files not restored"),
        ] {
            let f = files(k);
            if !f.is_empty() {
                text.push_str(&format!("; {label}: {f}"));
            }
        }
        e.push(info("session_rewound", Level::Warning, text, data.clone()));
    }

    /// `prompt_cancelled` (or a chunk flagged `promptCancelled`): in-flight calls end as errors.
    pub(crate) fn prompt_cancelled(&mut self, data: &Value, e: &mut Emit<'_>) {
        self.close_all(e);
        let reason = data
            .get("reason")
            .and_then(Value::as_str)
            .unwrap_or("cancelled");
        // Running calls wait for the daemon's own last update (or the turn's end).
        self.cancelled = Some(reason.to_owned());
        e.push(info(
            "prompt_cancelled",
            Level::Warning,
            format!("prompt cancelled ({reason})"),
            data.clone(),
        ));
    }

    /// `mid_turn_message_injected`: text the user sent while the agent was working.
    pub(crate) fn injected(&mut self, data: &Value, e: &mut Emit<'_>) {
        self.end_message(&None, None, e);
        let mut texts: Vec<String> = fields::array(data, "messages")
            .iter()
            .filter_map(|m| m.as_str().map(str::to_owned).or_else(|| block_text(m)))
            .collect();
        if texts.is_empty() {
            for it in fields::array(data, "items") {
                texts.extend(fields::array(it, "content").iter().filter_map(block_text));
            }
        }
        let mut machinery = Map::new();
        machinery.insert("midTurnInjection".into(), json!(true));
        let turn = Turn::user(
            e.name("inject"),
            TurnOrigin::UserInput,
            vec![Part::text(texts.join("\n"))],
        );
        e.user_turn(turn, machinery);
    }

    /// `user_shell_command`: the user ran a shell command in the session (bash mode).
    pub(crate) fn user_shell_command(&mut self, data: &Value, e: &mut Emit<'_>) {
        self.end_message(&None, None, e);
        let command = str_of(data, "command");
        let mut m = Map::new();
        m.insert("command".into(), json!(command));
        if let Some(cwd) = data.get("cwd") {
            m.insert("cwd".into(), cwd.clone());
        }
        self.user_shell = Some((String::new(), String::new()));
        let origin = TurnOrigin::Synthetic {
            reason: SyntheticReason::BashInput,
        };
        let turn = Turn::user(
            e.name("shell"),
            origin,
            vec![Part::text(format!("$ {command}"))],
        );
        e.user_turn(turn, m);
    }

    /// `user_shell_result`: the user's shell command ended; its output becomes one turn.
    pub(crate) fn user_shell_result(&mut self, data: &Value, e: &mut Emit<'_>) {
        let (stdout, stderr) = self.user_shell.take().unwrap_or_default();
        let mut m = Map::new();
        m.insert("stdout".into(), json!(stdout));
        m.insert("stderr".into(), json!(stderr));
        for k in ["exitCode", "signal", "aborted"] {
            if let Some(v) = data.get(k) {
                m.insert(k.into(), v.clone());
            }
        }
        let mut text = [stdout.as_str(), stderr.as_str()]
            .iter()
            .filter(|s| !s.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join("\n");
        if text.is_empty() {
            text = match data.get("exitCode") {
                Some(c) if !c.is_null() => format!("Shell command exited with code {c}"),
                _ => "Shell command ended".into(),
            };
        }
        let origin = TurnOrigin::Synthetic {
            reason: SyntheticReason::BashOutput,
        };
        e.user_turn(
            Turn::user(e.name("shell-output"), origin, vec![Part::text(text)]),
            m,
        );
    }
}
