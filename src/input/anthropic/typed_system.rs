//! A `system` task line (`task_started`, `task_progress`, `task_notification`) and a `result`
//! line, decoded into typed, borrowed structs (`scribe_json::lenient`), from a line's text or
//! from a `&Value`, so that both ways share one mapping to events.
//!
//! Exists because these short lines cost more than any other to parse into a `Value` (each key
//! an allocated string hashed into an insertion-ordered map). Every field reads as the `Value`
//! accessor it replaces.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::input::anthropic::row::UsageFields;
use crate::model::event::EventKind;
use crate::model::transcript::{SubagentStatus, SubagentUsage, TaskDetails};
use scribe_json::lenient::{Array, Bool, Checked, F64, Items, Obj, Object, Present, Str, U64};
use scribe_json::{lenient_struct, visit_others};

lenient_struct! {
    /// The fields of a `system` task line that the events and the message decoder read.
    pub(crate) struct TaskLine<'a> {
        "subtype" => subtype: Option<Cow<'a, str>> as Str<'a>,
        "task_id" => task_id: Option<Cow<'a, str>> as Str<'a>,
        "tool_use_id" => tool_use_id: Option<Cow<'a, str>> as Str<'a>,
        "description" => description: Option<Cow<'a, str>> as Str<'a>,
        "subagent_type" => subagent_type: Option<Cow<'a, str>> as Str<'a>,
        "task_type" => task_type: Option<Cow<'a, str>> as Str<'a>,
        /// `task_started`: the prompt the sub-agent was given.
        "prompt" => prompt: Option<Cow<'a, str>> as Str<'a>,
        "timestamp" => timestamp: Option<Cow<'a, str>> as Str<'a>,
        "status" => status: Option<Cow<'a, str>> as Str<'a>,
        "summary" => summary: Option<Cow<'a, str>> as Str<'a>,
        /// `task_started`: the workflow that started the task.
        "workflow_name" => workflow_name: Option<Cow<'a, str>> as Str<'a>,
        /// `task_progress`: the tool the task used last.
        "last_tool_name" => last_tool_name: Option<Cow<'a, str>> as Str<'a>,
        /// `task_notification`: the file the task's output went to.
        "output_file" => output_file: Option<Cow<'a, str>> as Str<'a>,
        "usage" => usage: Option<SubagentUsageFields> as Object<SubagentUsageFields>,
    }
}

lenient_struct! {
    /// The fields of a `system/init` line that the session snapshot reads
    /// (`anthropic::system::snapshot_of`). A run's first line; a log of many short runs
    /// appended to one file (an agent loop resuming one session turn by turn) has one per turn.
    pub(crate) struct InitLine<'a> {
        "uuid" => uuid: Option<Cow<'a, str>> as Str<'a>,
        "session_id" => session_id: Option<Cow<'a, str>> as Str<'a>,
        "claude_code_version" => version: Option<Cow<'a, str>> as Str<'a>,
        "model" => model: Option<Cow<'a, str>> as Str<'a>,
        "cwd" => cwd: Option<Cow<'a, str>> as Str<'a>,
        "permissionMode" => permission_mode: Option<Cow<'a, str>> as Str<'a>,
        "timestamp" => timestamp: Option<Cow<'a, str>> as Str<'a>,
        "tools" => tools: Option<Vec<Name<'a>>> as Items<Name<'a>>,
        "mcp_servers" => mcp_servers: Option<Vec<Obj<Entry<'a>>>> as Items<Obj<Entry<'a>>>,
        "plugins" => plugins: Option<Vec<Obj<Entry<'a>>>> as Items<Obj<Entry<'a>>>,
        "skills" => skills: Option<Vec<Name<'a>>> as Items<Name<'a>>,
        "slash_commands" => slash_commands: Option<Vec<Name<'a>>> as Items<Name<'a>>,
        "agents" => agents: Option<Vec<Name<'a>>> as Items<Name<'a>>,
        "fast_mode_state" => fast_mode_state: Option<Value> as Present,
        "output_style" => output_style: Option<Cow<'a, str>> as Str<'a>,
        "apiKeySource" => api_key_source: Option<Cow<'a, str>> as Str<'a>,
    }
}

lenient_struct! {
    /// An item of an `init` line's list of MCP servers or plugins: the fields the snapshot
    /// keeps of each (`Value::get(k)` and `as_str`, "" when absent or not a string).
    pub(crate) struct Entry<'a> {
        "name" => name: Option<Cow<'a, str>> as Str<'a>,
        "status" => status: Option<Cow<'a, str>> as Str<'a>,
        "path" => path: Option<Cow<'a, str>> as Str<'a>,
    }
}

/// An item of a list of names (an `init` line's tools, skills, commands, agents): a string, or
/// an object's `name` string, as `fields::names` reads a `Value`'s; `None` for anything else.
/// Read borrowed from the line, so that the names are not each built as a `Value` first.
#[derive(Debug, Default)]
pub(crate) struct Name<'a>(pub(crate) Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for Name<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NameVisitor(PhantomData))
    }
}

/// The visitor behind [`Name`]: a string is the name, an object is read as an [`Entry`] for its
/// `name`, anything else is read and dropped.
struct NameVisitor<'a>(PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for NameVisitor<'a> {
    type Value = Name<'a>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Name<'a>, E> {
        Ok(Name(Some(Cow::Borrowed(s))))
    }

    fn visit_str<E>(self, s: &str) -> Result<Name<'a>, E> {
        Ok(Name(Some(Cow::Owned(s.to_owned()))))
    }

    fn visit_string<E>(self, s: String) -> Result<Name<'a>, E> {
        Ok(Name(Some(Cow::Owned(s))))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Name<'a>, A::Error> {
        Entry::deserialize(MapAccessDeserializer::new(map)).map(|e| Name(e.name))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Name<'a>, A::Error> {
        while seq.next_element::<Checked>()?.is_some() {}
        Ok(Name(None))
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Name<'a>, D::Error> {
        d.deserialize_any(self)
    }

    visit_others!(Name(None); scalars);
}

/// The names of a list of [`Name`]s, owned (none when the field is absent or not a list).
pub(crate) fn names_of(list: &Option<Vec<Name<'_>>>) -> Vec<String> {
    list.iter()
        .flatten()
        .filter_map(|n| n.0.as_deref().map(str::to_owned))
        .collect()
}

lenient_struct! {
    /// A task's token and tool counts (`SubagentUsage::from_json`, typed).
    pub(crate) struct SubagentUsageFields {
        "total_tokens" => total_tokens: Option<u64> as U64,
        "tool_uses" => tool_uses: Option<u64> as U64,
        "duration_ms" => duration_ms: Option<u64> as U64,
    }
}

/// An optional string field, owned.
pub(crate) fn owned(s: &Option<Cow<'_, str>>) -> Option<String> {
    s.as_deref().map(str::to_owned)
}

/// A string field, owned, "" when missing.
pub(crate) fn text(s: &Option<Cow<'_, str>>) -> String {
    s.as_deref().unwrap_or_default().to_owned()
}

impl TaskLine<'_> {
    /// The line's event; `None` when its subtype is not one of the three task kinds.
    pub(crate) fn event(&self) -> Option<EventKind> {
        let usage = self.usage.as_ref().map(|u| SubagentUsage {
            total_tokens: u.total_tokens.unwrap_or(0),
            tool_uses: u.tool_uses.unwrap_or(0),
            duration_ms: u.duration_ms.unwrap_or(0),
        });
        Some(match self.subtype.as_deref()? {
            "task_started" => EventKind::SubtaskStarted {
                task_id: text(&self.task_id),
                tool_call_id: owned(&self.tool_use_id),
                description: text(&self.description),
                subagent_type: owned(&self.subagent_type),
                details: TaskDetails {
                    task_type: owned(&self.task_type),
                    workflow_name: owned(&self.workflow_name),
                    ..TaskDetails::default()
                },
            },
            "task_progress" => EventKind::SubtaskProgress {
                task_id: text(&self.task_id),
                tool_call_id: owned(&self.tool_use_id),
                description: text(&self.description),
                usage,
                details: TaskDetails {
                    last_tool_name: owned(&self.last_tool_name),
                    progress_summary: owned(&self.summary),
                    ..TaskDetails::default()
                },
            },
            "task_notification" => EventKind::SubtaskFinished {
                task_id: text(&self.task_id),
                tool_call_id: owned(&self.tool_use_id),
                status: SubagentStatus::from_word(self.status.as_deref().unwrap_or_default())
                    .unwrap_or(SubagentStatus::Completed),
                summary: owned(&self.summary),
                usage,
                result: None,
                details: TaskDetails {
                    output_file: owned(&self.output_file),
                    ..TaskDetails::default()
                },
            },
            _ => return None,
        })
    }
}

lenient_struct! {
    /// The fields of a `result` line that its notice reads.
    pub(crate) struct ResultLine<'a> {
        "subtype" => subtype: Option<Cow<'a, str>> as Str<'a>,
        "is_error" => is_error: Option<bool> as Bool,
        "total_cost_usd" => total_cost_usd: Option<f64> as F64,
        "num_turns" => num_turns: Option<u64> as U64,
        "duration_ms" => duration_ms: Option<u64> as U64,
        "duration_api_ms" => duration_api_ms: Option<u64> as U64,
        "usage" => usage: Option<UsageFields> as Object<UsageFields>,
        "result" => result: Option<Cow<'a, str>> as Str<'a>,
        "stop_reason" => stop_reason: Option<Cow<'a, str>> as Str<'a>,
        "terminal_reason" => terminal_reason: Option<Cow<'a, str>> as Str<'a>,
        "errors" => errors: Option<Vec<Value>> as Array,
        "permission_denials" => permission_denials: Option<Vec<Value>> as Array,
        "structured_output" => structured_output: Option<Value> as Present,
        "modelUsage" => model_usage: Option<Value> as Present,
        /// The run's own part, per model (`input::anthropic::cost`).
        "model_usage_since_last_result" => since_last_result: Option<Value> as Present,
        "fast_mode_state" => fast_mode_state: Option<Value> as Present,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::anthropic::system::{session_snapshot, snapshot_of};
    use crate::input::fields::string;

    /// An init line read from its text gives the snapshot its `Value` gives, whatever shape its
    /// fields have (lists of names or of objects, a field of the wrong type, a repeated key).
    #[test]
    fn an_init_line_reads_from_text_as_from_a_value() {
        let lines = [
            r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"s","tools":["Bash",{"name":"Read"},3],"mcp_servers":[{"name":"m","status":"connected"},"x"],"model":"m1","permissionMode":"default","slash_commands":["a"],"skills":[],"plugins":[{"name":"p","path":"/p"}],"agents":["general"],"claude_code_version":"2.1.0","uuid":"u","fast_mode_state":{"on":true}}"#,
            r#"{"type":"system","subtype":"init","model":1,"tools":"Bash","cwd":null,"fast_mode_state":"off","uuid":"a","uuid":"b\u00e9"}"#,
            r#"{"type":"system","subtype":"init"}"#,
            r#"{"tools":[{"name":"A","name":"B"},{"name":7},{"title":"x"},["C"],null,true,"D\n\u00e9"],"skills":{"name":"s"},"agents":null,"mcp_servers":[{"name":"m","name":{"x":1},"status":"ok"},[1],{"status":"s"}],"plugins":"p","slash_commands":[{"name":"\u0041"},"b"]}"#,
        ];
        for line in lines {
            let value: Value = serde_json::from_str(line).unwrap();
            let text = scribe_json::from_str::<InitLine<'_>>(line).unwrap();
            let ours = snapshot_of(&text, "claude-stream");
            assert_eq!(ours, session_snapshot(&value, "claude-stream"), "{line}");
            // Each list as the `Value` accessors read it.
            let names = |k: &str| crate::input::fields::names(value.get(k));
            assert_eq!(ours.tools, names("tools"), "{line}");
            assert_eq!(ours.skills, names("skills"), "{line}");
            assert_eq!(ours.slash_commands, names("slash_commands"), "{line}");
            assert_eq!(ours.agents, names("agents"), "{line}");
            let pairs = |k: &str, second: &str| -> Vec<(String, String)> {
                crate::input::fields::array(&value, k)
                    .iter()
                    .map(|m| (string(m, "name"), string(m, second)))
                    .collect()
            };
            let servers = ours.mcp_servers.iter();
            let servers: Vec<_> = servers
                .map(|m| (m.name.clone(), m.status.clone()))
                .collect();
            assert_eq!(servers, pairs("mcp_servers", "status"), "{line}");
            let plugins = ours.plugins.iter();
            let plugins: Vec<_> = plugins.map(|p| (p.name.clone(), p.path.clone())).collect();
            assert_eq!(plugins, pairs("plugins", "path"), "{line}");
        }
        let odd = scribe_json::from_str::<InitLine<'_>>(lines[3]).unwrap();
        let odd = snapshot_of(&odd, "claude-stream");
        assert_eq!(odd.tools, ["B", "D\n\u{e9}"]);
        assert_eq!(odd.slash_commands, ["A", "b"]);
        assert_eq!(odd.mcp_servers.len(), 3);
        let value: Value = serde_json::from_str(lines[0]).unwrap();
        let s = session_snapshot(&value, "claude-stream");
        assert_eq!(s.tools, ["Bash", "Read"]);
        assert_eq!(s.mcp_servers.len(), 2);
        assert_eq!(s.fast_mode_state.as_deref(), Some(r#"{"on":true}"#));
    }
}
