//! Unified exec sessions in a rollout: an `exec_command` whose process still runs when its
//! output comes back (`Process running with session ID N`) stays open, running, until a later
//! line says how that process ended. Its own `exec_command_end` (exit code, duration, the whole
//! output) ends it when it comes. A `write_stdin` call on session `N` whose output reports
//! `Process exited with code M` is itself a call on that process and ends with that code (an
//! error when it is not 0); the `exec_command` then ends with code `M` when its turn ends
//! without an `exec_command_end` (some versions write none, and when they do it follows the
//! `write_stdin` output). A session nothing reports the end of stays running.

use serde_json::Value;

use crate::input::codex::exec_output;
use crate::input::codex::history::{self, CallKind};
use crate::input::codex::items::Outcome;
use crate::input::codex::rollout::CodexRollout;
use crate::model::event::Event;

/// A unified exec session whose `exec_command` is still open.
pub(crate) struct Session {
    /// The `exec_command` call that started it.
    call: String,
    /// The output that call showed.
    shown: Value,
    /// The exit code a `write_stdin` call reported, and that call's id.
    exited: Option<(i64, String)>,
}

impl CodexRollout {
    /// A `function_call_output` / `custom_tool_call_output` of the call `id`.
    pub(super) fn call_output(&mut self, id: &str, output: &Value, n: u64, out: &mut Vec<Event>) {
        self.awaiting_output.remove(id);
        if let Some(mut failed) = self.failed_collab.remove(id) {
            // A multi-agent call its UI line said failed: this line says why.
            self.call_kinds.remove(id);
            let said = history::call_outcome(output, CallKind::Other).output;
            if let Some(why) = said.as_str().filter(|s| !s.trim().is_empty()) {
                failed.error_text = Some(why.to_owned());
            }
            self.items.result(id, failed, n, out);
            return;
        }
        let kind = self.call_kinds.remove(id).unwrap_or(CallKind::Other);
        let outcome = history::call_outcome(output, kind);
        let header = outcome
            .output
            .as_str()
            .and_then(exec_output::header)
            .unwrap_or_default();
        match (kind, header.running_session, header.exit_code) {
            // Its process's end came first (an `exec_command_end` before this line): that result
            // stands, and this output is a copy of an earlier state.
            (CallKind::Shell, Some(session), None) if !self.items.finished(id) => {
                let shown = outcome.output.clone();
                let call = id.to_owned();
                self.sessions.insert(
                    session,
                    Session {
                        call,
                        shown,
                        exited: None,
                    },
                );
                self.items.still_running(id, outcome, n, out);
                return;
            }
            (CallKind::WriteStdin { session: Some(s) }, _, Some(code)) => {
                if let Some(session) = self.sessions.get_mut(&s) {
                    session.exited = Some((code, id.to_owned()));
                }
            }
            (CallKind::Shell | CallKind::WriteStdin { .. } | CallKind::Other, _, _) => {}
        }
        self.items.result(id, outcome, n, out);
    }

    /// Multi-agent calls that failed and whose output line never came end with what their UI
    /// line said (at a new prompt, or the end of the rollout).
    pub(super) fn end_failed_collab(&mut self, n: u64, out: &mut Vec<Event>) {
        let mut failed: Vec<(String, Outcome)> = self.failed_collab.drain().collect();
        failed.sort_by(|a, b| a.0.cmp(&b.0));
        for (id, outcome) in failed {
            self.items.result(&id, outcome, n, out);
        }
    }

    /// The call `id` ended by a line of its own (`exec_command_end`, whose `outcome` is the
    /// process's output, cut to a window of it): no session waits on it. When its output line
    /// came first (the process then running), what that line showed (`Chunk ID`, the session's
    /// id that `write_stdin` calls name, the first lines of output) stays at the head.
    pub(super) fn end_session_of(&mut self, id: &str, outcome: &mut Outcome) {
        let Some(key) = self
            .sessions
            .iter()
            .find(|(_, s)| s.call == id)
            .map(|(&k, _)| k)
        else {
            return;
        };
        let Some(session) = self.sessions.remove(&key) else {
            return;
        };
        let (Some(shown), Value::String(whole)) = (session.shown.as_str(), &mut outcome.output)
        else {
            return;
        };
        let text = exec_output::joined(shown, whole);
        exec_output::retell_error(&mut outcome.error_text, whole, &text);
        *whole = text;
    }

    /// The turn ends: each session a `write_stdin` call saw exit ends its `exec_command` with
    /// that exit code and the output it showed (in session order, so the output does not
    /// depend on hashing). Sessions still running stay open.
    pub(super) fn end_exited_sessions(&mut self, n: u64, out: &mut Vec<Event>) {
        let mut exited: Vec<i64> = self
            .sessions
            .iter()
            .filter(|(_, s)| s.exited.is_some())
            .map(|(&k, _)| k)
            .collect();
        exited.sort_unstable();
        for key in exited {
            let Some(Session {
                call,
                shown,
                exited: Some((code, reporter)),
            }) = self.sessions.remove(&key)
            else {
                continue;
            };
            let outcome = Outcome {
                is_error: code != 0,
                output: shown,
                error_text: (code != 0).then(|| {
                    format!(
                        "exit code {code} (the process's end, as write_stdin {reporter} reports)"
                    )
                }),
                sidecar: exec_output::details(Some(code), None),
            };
            self.items.result(&call, outcome, n, out);
        }
    }
}
