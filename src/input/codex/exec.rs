//! OpenAI Codex CLI `codex exec --json` → normalized events (`shared/spec/codex-exec-json.md`).
//!
//! One JSON object per line, `type` the discriminator: `thread.started` (the session),
//! `turn.started`, `item.started|updated|completed` (the content, decoded here and emitted by
//! `codex::items`), `turn.completed` (usage), `turn.failed` and `error`. The stream never
//! carries the user's prompt, and text arrives whole in `item.completed` (no deltas).
//!
//! A failed turn writes the same message twice: an `error` line, then `turn.failed`. The `error`
//! is held back for one line; when `turn.failed` repeats it, only the failure notice is written
//! (the `error` line is absorbed), so a reader sees the error once.

use serde::Deserialize;
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde_json::{Value, json};

use crate::input::codex::items::{self, At, Emitter, Item, Phase};
use crate::input::codex::tools::{self, Change};
use crate::input::fields::{self, opt_string, str_of};
use crate::input::{Adapter, InputLine, Report, parse_json_line, push_debug};
use crate::model::event::{Event, EventKind};
use crate::model::session::{Level, SessionSnapshot};
use crate::model::transcript::Usage;

/// Decoder state: the item emitter and a held-back `error` line (line number, message).
#[derive(Default)]
pub(crate) struct CodexExec {
    items: Emitter,
    held_error: Option<(u64, String)>,
    /// The thread, and the usage its last `turn.completed` reported: after `exec resume`
    /// Codex reports the thread's running total, so a later run's own usage is the difference.
    thread: String,
    last_total: Option<Usage>,
    /// A `turn.started` with no `turn.completed` / `turn.failed` yet.
    in_turn: bool,
    last_line: u64,
}

impl Adapter for CodexExec {
    /// Holds the line of an `error` while it waits to see whether a `turn.failed` repeats it.
    fn holds_line(&self, number: u64) -> bool {
        self.held_error.as_ref().is_some_and(|(l, _)| *l == number)
    }

    fn line(&mut self, line: &InputLine, out: &mut Vec<Event>, report: &mut Report<'_>) {
        let Some(v) = parse_json_line(line, out, report) else {
            self.flush_error(Level::Warning, out);
            return;
        };
        let n = line.number;
        self.last_line = n;
        let ty = str_of(&v, "type");
        match ty {
            "turn.started" => self.in_turn = true,
            "turn.completed" | "turn.failed" => self.in_turn = false,
            _ => {}
        }
        if ty != "turn.failed" {
            // The run went on after it: the error was not fatal (e.g. `Reconnecting... 1/5`).
            self.flush_error(Level::Warning, out);
        }
        let mut push = |kind| out.push(Event::at(n, kind));
        match ty {
            "thread.started" => {
                self.items.new_run();
                let id = str_of(&v, "thread_id").to_owned();
                if id != self.thread {
                    self.thread = id.clone();
                    self.last_total = None;
                }
                push(EventKind::session(SessionSnapshot {
                    id: id.clone(),
                    session_id: id,
                    agent: "codex".into(),
                    source: "codex-exec".into(),
                    updated_at: fields::opt_string(&v, "timestamp"),
                    ..SessionSnapshot::default()
                }));
            }
            "turn.started" => {
                self.items.take_messages();
                push(EventKind::absorbed("turn.started"));
            }
            "item.started" | "item.updated" | "item.completed" => {
                let phase = match ty {
                    "item.started" => Phase::Started,
                    "item.updated" => Phase::Updated,
                    _ => Phase::Completed,
                };
                let raw = v.get("item").cloned().unwrap_or(Value::Null);
                let id = first_item_id(&line.text).unwrap_or_else(|| str_of(&raw, "id").to_owned());
                match stream_item(&raw, phase) {
                    Some(item) => self
                        .items
                        .item(phase, &id, item, &mut At::new(n, None, out)),
                    None => push_debug(
                        out,
                        line,
                        &format!("unknown codex item type {:?}", str_of(&raw, "type")),
                    ),
                }
            }
            "item.plan.delta" => push(EventKind::absorbed(
                "item.plan.delta (the plan item carries the whole text)",
            )),
            "turn.completed" => {
                let turns = self.items.take_messages();
                let reported = v.get("usage").and_then(items::usage);
                let usage = match (reported, self.last_total) {
                    // A resumed run of the same thread reports the thread's total so far.
                    (Some(now), Some(before)) if items::covers(&now, &before) => {
                        Some(items::minus(&now, &before))
                    }
                    (u, _) => u,
                };
                if reported.is_some() {
                    self.last_total = reported;
                }
                push(EventKind::notice(items::turn_end(None, turns, usage, None)));
            }
            "turn.failed" => {
                let turns = self.items.take_messages();
                let message = v
                    .pointer("/error/message")
                    .and_then(Value::as_str)
                    .unwrap_or("turn failed")
                    .to_owned();
                match self.held_error.take() {
                    Some((l, m)) if m == message => out.push(Event::at(
                        l,
                        EventKind::absorbed("error (repeated by the turn.failed that follows)"),
                    )),
                    Some(held) => {
                        self.held_error = Some(held);
                        self.flush_error(Level::Error, out);
                    }
                    None => {}
                }
                out.push(Event::at(
                    n,
                    EventKind::notice(items::turn_end(Some(&message), turns, None, None)),
                ));
            }
            "error" => {
                self.held_error = Some((n, str_of(&v, "message").to_owned()));
            }
            "request_user_input" => push(fields::info(
                "request_user_input",
                Level::Info,
                "the agent asks the user a question".into(),
                v.clone(),
            )),
            other => push_debug(out, line, &format!("unknown codex event type {other:?}")),
        }
    }

    fn finish(&mut self, out: &mut Vec<Event>, _report: &mut Report<'_>) {
        self.flush_error(Level::Error, out);
        if self.in_turn {
            out.push(Event::at(
                self.last_line,
                fields::info(
                    "incomplete",
                    Level::Warning,
                    "incomplete: the stream ends inside a turn (no turn.completed)".into(),
                    Value::Null,
                ),
            ));
        }
    }
}

impl CodexExec {
    /// A held `error` that no `turn.failed` repeated: a notice of its own, a warning when the
    /// run went on after it, an error when the input ended on it.
    fn flush_error(&mut self, level: Level, out: &mut Vec<Event>) {
        if let Some((line, message)) = self.held_error.take() {
            out.push(Event::at(
                line,
                fields::info(
                    "error",
                    level,
                    items::error_text(&message),
                    json!({ "message": message }),
                ),
            ));
        }
    }
}

/// A stream item (snake_case, fields flattened beside `id`/`type`) → the shared item; `None`
/// for an item type no published version has.
fn stream_item(it: &Value, phase: Phase) -> Option<Item> {
    let done = phase == Phase::Completed;
    let text = || str_of(it, "text").to_owned();
    Some(match str_of(it, "type") {
        "agent_message" | "plan" => Item::Agent { text: text() },
        "reasoning" => Item::Reasoning { text: text() },
        "error" => Item::Error {
            message: str_of(it, "message").to_owned(),
        },
        "command_execution" => {
            let raw = str_of(it, "command");
            let exit_code = it.get("exit_code").and_then(Value::as_i64);
            let status = str_of(it, "status");
            let sidecar = json!({
                "command": raw,
                "exitCode": exit_code,
                "status": status,
            });
            Item::Tool(Box::new(tools::shell_item(
                tools::shell_command(raw),
                status,
                str_of(it, "aggregated_output"),
                exit_code,
                sidecar,
            )))
        }
        "file_change" => {
            let changes: Vec<Change> = fields::array(it, "changes")
                .iter()
                .map(|c| Change {
                    path: str_of(c, "path").to_owned(),
                    kind: str_of(c, "kind").to_owned(),
                    detail: None,
                })
                .collect();
            Item::Tool(Box::new(tools::patch_item(
                &changes,
                str_of(it, "status"),
                None,
            )))
        }
        "mcp_tool_call" => Item::Tool(Box::new(tools::mcp_item_of(
            it,
            str_of(it, "status"),
            "structured_content",
        ))),
        "web_search" => Item::Tool(Box::new(tools::web_search_item(
            str_of(it, "query"),
            it.get("action").cloned(),
            // `Value` kept the last `id`: the search call's own.
            opt_string(it, "id"),
            done,
        ))),
        "todo_list" => Item::Tool(Box::new(tools::todo_item(fields::array(it, "items")))),
        "collab_tool_call" => {
            let status = str_of(it, "status");
            let input = json!({
                "prompt": it.get("prompt").cloned().unwrap_or(Value::Null),
                "receiver_thread_ids": it.get("receiver_thread_ids").cloned().unwrap_or(Value::Null),
            });
            Item::Tool(Box::new(items::ToolItem {
                name: str_of(it, "tool").to_owned(),
                kind: tools::collab_kind(
                    str_of(it, "tool"),
                    it.get("prompt").and_then(Value::as_str),
                    &fields::array(it, "receiver_thread_ids")
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>(),
                ),
                input,
                outcome: (!matches!(status, "in_progress" | "")).then(|| items::Outcome {
                    is_error: status != "completed",
                    output: it.get("agents_states").cloned().unwrap_or(Value::Null),
                    error_text: (status != "completed").then(|| status.to_owned()),
                    sidecar: None,
                }),
                ..items::ToolItem::default()
            }))
        }
        _ => return None,
    })
}

/// True for a line only `codex exec --json` writes (what tells it apart at the first line).
pub(crate) fn is_codex_exec_line(o: &serde_json::Map<String, Value>) -> bool {
    match o.get("type").and_then(Value::as_str) {
        Some("thread.started") => o.contains_key("thread_id"),
        Some("turn.started" | "turn.completed" | "turn.failed") => true,
        Some("item.started" | "item.updated" | "item.completed") => {
            o.get("item").is_some_and(Value::is_object)
        }
        _ => false,
    }
}

/// The *first* `id` of a stream line's `item`. A `web_search` item is written with two `id`
/// keys (the item's `item_N`, then the search call's own id); `serde_json::Value` keeps the
/// last, but the item id is the one that pairs `item.started` with `item.completed`.
fn first_item_id(line: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct Outer {
        item: FirstId,
    }
    struct FirstId(Option<String>);
    struct FirstIdVisitor;
    impl<'de> Visitor<'de> for FirstIdVisitor {
        type Value = FirstId;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an item object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FirstId, A::Error> {
            let mut first = None;
            while let Some(key) = map.next_key::<String>()? {
                if key == "id" && first.is_none() {
                    first = map.next_value::<Value>()?.as_str().map(str::to_owned);
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(FirstId(first))
        }
    }
    impl<'de> Deserialize<'de> for FirstId {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<FirstId, D::Error> {
            d.deserialize_map(FirstIdVisitor)
        }
    }
    serde_json::from_str::<Outer>(line).ok()?.item.0
}

#[cfg(test)]
mod tests {
    //! Property tests for both Codex adapters: any arrangement of the Codex samples' lines
    //! (shuffled, repeated, a field replaced by a value of the wrong kind) decodes and folds
    //! without a panic, and no tool call the adapter announced is lost by the fold.

    use std::collections::BTreeSet;

    use proptest::prelude::*;

    use super::*;
    use crate::fold::Folder;
    use crate::input::codex::rollout::CodexRollout;
    use crate::input::lines::LineReader;
    use crate::model::transcript::Part;
    use crate::robustness_tests::{damage_first, file_lines, output_call_ids};

    fn lines(name: &str) -> Vec<String> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
        file_lines(&[dir.join(name)])
    }

    /// The tool-call ids the adapter announced, and the ids of the calls in the folded output.
    fn run(adapter: &mut dyn Adapter, input: &[u8]) -> (BTreeSet<String>, BTreeSet<String>) {
        let mut reader = LineReader::new(input);
        let mut folder = Folder::new();
        let (mut events, mut items) = (Vec::new(), Vec::new());
        let mut ids_in = BTreeSet::new();
        let mut report = Report {
            file: "-",
            problems: &mut crate::input::Unheard,
        };
        while let Some(line) = reader.next_line().unwrap() {
            adapter.line(&line, &mut events, &mut report);
            for e in events.drain(..) {
                if let EventKind::AssistantBlock {
                    part: Part::ToolCall { call },
                    ..
                } = &e.kind
                {
                    ids_in.insert(call.tool_call_id.clone());
                }
                folder.push(e, &mut items);
            }
        }
        adapter.finish(&mut events, &mut report);
        for e in events.drain(..) {
            folder.push(e, &mut items);
        }
        folder.finish(&mut items);
        (ids_in, output_call_ids(&items))
    }

    #[test]
    fn first_id_of_a_duplicate_key_item() {
        let line = r#"{"type":"item.started","item":{"id":"item_0","type":"web_search","id":"ws_1","query":"q"}}"#;
        assert_eq!(first_item_id(line).as_deref(), Some("item_0"));
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(
            v["item"]["id"], "ws_1",
            "Value keeps the last duplicate key"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        #[test]
        fn shuffled_and_damaged_codex_lines_never_panic(
            rollout in any::<bool>(),
            picks in prop::collection::vec(any::<prop::sample::Index>(), 1..40),
            mutation in prop::option::of((0usize..40, prop_oneof![
                Just(Value::Null), Just(Value::Bool(true)), Just(json!(7)),
                Just(json!("x")), Just(json!([])), Just(json!({})),
            ])),
        ) {
            let all = lines(if rollout { "codex-rollout-edges.jsonl" } else { "codex-exec-edges.jsonl" });
            let mut chosen: Vec<String> = picks.iter().map(|i| i.get(&all).clone()).collect();
            damage_first(&mut chosen, mutation);
            let input = chosen.join("\n").into_bytes();
            let mut adapter: Box<dyn Adapter> = if rollout {
                Box::new(CodexRollout::default())
            } else {
                Box::new(CodexExec::default())
            };
            let (ids_in, ids_out) = run(adapter.as_mut(), &input);
            prop_assert!(ids_in.is_subset(&ids_out), "lost {:?}", ids_in.difference(&ids_out).collect::<Vec<_>>());
        }
    }
}
