//! A turn becomes one ATIF step: who it comes from, its message, the agent's reasoning, its
//! calls with their results in the same step (Harbor checks that a result's `source_call_id` is
//! a call of its own step), its token counts, and in `extra` everything else the turn says.
//! A call's sub-agent becomes a trajectory of its own, referenced from the call's result.

use std::borrow::Cow;

use foldhash::HashSet;
use serde_json::{Map, Value, json};

use super::content::{message_part, output_content};
use super::wire::{
    Agent, Content, FinalMetrics, Metrics, MetricsExtra, Observation, ObservationResult,
    ResultExtra, RunReport, SCHEMA_VERSION, Source, Step, SubagentRef, ToolCall as AtifCall,
    Trajectory,
};
use crate::model::time::parse_ms;
use crate::model::transcript::{Part, Role, SubagentRecord, ToolCall, Turn, TurnOrigin, Usage};
use crate::render::OutputFormat;

/// What making steps needs from the trajectory they go into: the agent (a sub-agent's
/// trajectory names the same system), the sub-agent trajectory ids taken so far (unique
/// within one `subagent_trajectories` array), and under `--output-dir` the start of the names
/// of its sub-agents' files (`<stem>`, then `<stem>.<id>` for theirs).
pub(super) struct Steps<'t, 'a> {
    pub(super) agent: &'t Agent<'a>,
    pub(super) taken: &'t mut HashSet<String>,
    pub(super) files: Option<Files<'t>>,
}

/// Under `--output-dir`, how the files of a trajectory's sub-agents are named: the session's
/// file's stem, and this trajectory's own name without its extension (the stem itself for the
/// session's).
#[derive(Clone, Copy)]
pub(super) struct Files<'t> {
    pub(super) stem: &'t str,
    pub(super) prefix: &'t str,
}

impl Files<'_> {
    /// Longest name of a sub-agent's file before its extension: file systems take 255 bytes.
    const LONGEST: usize = 200;

    /// The name, without its extension, of the file of the sub-agent `id`: this trajectory's
    /// name, a `.` and the id. Deep down, where that grows too long, the session's stem, `._`
    /// and a digest of the name (no id begins with `_` in a name: [`file_part`]).
    fn child(&self, id: &str) -> String {
        let name = format!("{}.{}", self.prefix, file_part(id));
        if name.len() <= Files::LONGEST {
            return name;
        }
        use sha2::Digest;
        let digest = sha2::Sha256::digest(name.as_bytes());
        let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
        format!("{}._{hex}", self.stem)
    }
}

/// A step and the sub-agent trajectories its calls ran.
pub(super) struct Made<'a> {
    pub(super) step: Step<'a>,
    pub(super) subagents: Vec<Trajectory<'a>>,
}

/// Who a turn comes from: the model's turns are the agent's; harness context a person did not
/// write (reminders, hook output, skill bodies, notifications) is the system's; the rest (a
/// typed prompt, a person's slash or bash command, a sub-agent's prompt) is the user's.
fn source(turn: &Turn) -> Source {
    match turn.role {
        Role::Assistant => Source::Agent,
        Role::User => match &turn.origin {
            TurnOrigin::Synthetic { reason } if !reason.is_person_action() => Source::System,
            TurnOrigin::Notification => Source::System,
            TurnOrigin::Synthetic { .. }
            | TurnOrigin::UserInput
            | TurnOrigin::ToolReturn { .. }
            | TurnOrigin::SubagentPrompt { .. }
            | TurnOrigin::Replay
            | TurnOrigin::Model => Source::User,
        },
    }
}

/// A value as JSON (the model's own shapes always serialize).
pub(super) fn value<T: serde::Serialize + ?Sized>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// A step's counts from a turn's usage: ATIF's `prompt_tokens` includes the cached ones.
fn metrics(u: &Usage) -> Metrics {
    Metrics {
        prompt_tokens: crate::render::totals::all_input(u),
        completion_tokens: u.output_tokens,
        cached_tokens: u.cache_read_input_tokens,
        extra: (u.cache_creation_input_tokens > 0).then_some(MetricsExtra {
            cache_creation_input_tokens: u.cache_creation_input_tokens,
        }),
    }
}

/// A timestamp ATIF takes (ISO 8601), or `None` with the text kept in `extra`.
pub(super) fn timestamp<'a>(t: Option<&'a str>, extra: &mut Map<String, Value>) -> Option<&'a str> {
    let t = t?;
    if parse_ms(t).is_some() {
        return Some(t);
    }
    extra.insert("timestamp".into(), Value::String(t.to_owned()));
    None
}

/// The parts of a turn sorted by where ATIF puts them.
#[derive(Default)]
struct Sorted<'a> {
    has_image: bool,
    reasoning: Vec<&'a str>,
    /// What a reasoning part says beyond its text: its signature, or that it was redacted.
    reasoning_extra: Vec<Value>,
    calls: Vec<&'a ToolCall>,
    /// Parts ATIF has no place for, kept whole.
    others: Vec<&'a Part>,
    citations: Vec<Value>,
    /// The names of the images in the message, which an image part has no field for.
    file_names: Vec<Value>,
}

fn sort_parts(turn: &Turn) -> Sorted<'_> {
    let mut s = Sorted::default();
    for part in &turn.parts {
        match part {
            Part::Text { citations, .. } => {
                s.citations.extend(citations.iter().map(value));
            }
            Part::Reasoning {
                text,
                redacted,
                signature,
            } => {
                if *redacted {
                    s.reasoning_extra
                        .push(json!({"redacted": true, "text": text}));
                } else {
                    s.reasoning.push(text);
                    if let Some(sig) = signature {
                        s.reasoning_extra.push(json!({ "signature": sig }));
                    }
                }
            }
            Part::ToolCall { call } => s.calls.push(call),
            Part::File { filename, .. } if message_part(part).is_some() => {
                s.has_image = true;
                if let Some(name) = filename {
                    s.file_names.push(Value::String(name.clone()));
                }
            }
            Part::File { .. }
            | Part::SourceUrl { .. }
            | Part::SourceDocument { .. }
            | Part::Compaction { .. }
            | Part::Data { .. } => s.others.push(part),
        }
    }
    s
}

/// The message of a turn: its text, or its text and images as parts when it has images.
fn message(turn: &Turn, has_image: bool) -> Content<'_> {
    if !has_image {
        return Content::Text(Cow::Owned(turn.text()));
    }
    Content::Parts(turn.parts.iter().filter_map(message_part).collect())
}

/// What a turn says beyond its step's fields.
fn turn_extra(turn: &Turn, agent: bool, sorted: &Sorted<'_>) -> Map<String, Value> {
    let mut extra = Map::new();
    extra.insert("id".into(), Value::String(turn.id.clone()));
    extra.insert("origin".into(), value(&turn.origin));
    if let Some(p) = &turn.parent_task_id {
        extra.insert("parent_task_id".into(), Value::String(p.clone()));
    }
    if let Some(t) = &turn.end_timestamp {
        extra.insert("end_timestamp".into(), Value::String(t.clone()));
    }
    let mut meta = turn.metadata.clone();
    if agent {
        // Written as the step's `model_name` and `metrics`.
        meta.model = None;
        meta.usage = None;
    }
    if !meta.is_empty() {
        extra.insert("metadata".into(), value(&meta));
    }
    let mut put = |key: &str, list: Vec<Value>| {
        if !list.is_empty() {
            extra.insert(key.into(), Value::Array(list));
        }
    };
    put("parts", sorted.others.iter().map(|p| value(*p)).collect());
    put("citations", sorted.citations.clone());
    put("reasoning", sorted.reasoning_extra.clone());
    put("image_names", sorted.file_names.clone());
    if !agent {
        // Only an agent step may carry these fields: kept here instead.
        put(
            "tool_calls",
            sorted.calls.iter().map(|c| value(*c)).collect(),
        );
        if !sorted.reasoning.is_empty() {
            extra.insert(
                "reasoning_content".into(),
                sorted.reasoning.join("\n").into(),
            );
        }
    }
    extra
}

impl<'a> Steps<'_, 'a> {
    /// The step of `turn`, numbered `step_id`.
    pub(super) fn turn(&mut self, turn: &'a Turn, step_id: usize) -> Made<'a> {
        let source = source(turn);
        let agent = source == Source::Agent;
        let sorted = sort_parts(turn);
        let mut extra = turn_extra(turn, agent, &sorted);
        let timestamp = timestamp(turn.timestamp.as_deref(), &mut extra);
        let mut subagents = Vec::new();
        let (tool_calls, observation) = if agent && !sorted.calls.is_empty() {
            let calls = sorted.calls.iter().map(|c| tool_call(c)).collect();
            let results: Vec<_> = sorted
                .calls
                .iter()
                .filter_map(|c| self.result(c, &mut subagents))
                .collect();
            (
                Some(calls),
                (!results.is_empty()).then_some(Observation { results }),
            )
        } else {
            (None, None)
        };
        let step = Step {
            step_id,
            timestamp,
            source,
            model_name: turn.metadata.model.as_deref().filter(|_| agent),
            message: message(turn, sorted.has_image),
            reasoning_content: (agent && !sorted.reasoning.is_empty())
                .then(|| sorted.reasoning.join("\n")),
            tool_calls,
            observation,
            metrics: turn.metadata.usage.as_ref().filter(|_| agent).map(metrics),
            extra,
        };
        Made { step, subagents }
    }

    /// A call's result: its output as content, its sub-agent's trajectory by reference, and the
    /// rest in `extra`. `None` for a call that has no result yet and ran no sub-agent.
    fn result(
        &mut self,
        call: &'a ToolCall,
        subagents: &mut Vec<Trajectory<'a>>,
    ) -> Option<ObservationResult<'a>> {
        let ended = call.state.is_terminal() || call.output.is_some();
        if !ended && call.subagent.is_none() && call.denied.is_none() {
            return None;
        }
        let (content, whole) = match &call.output {
            Some(o) => output_content(o),
            None => (
                call.error_text.as_deref().map(|e| Content::Text(e.into())),
                true,
            ),
        };
        let error_text = call.error_text.as_deref().filter(|e| {
            call.output.is_some() && call.output.as_ref().and_then(Value::as_str) != Some(*e)
        });
        let mut r = ObservationResult {
            source_call_id: Some(&call.tool_call_id),
            content,
            subagent_trajectory_ref: Vec::new(),
            extra: ResultExtra {
                state: Some(value(&call.state)),
                error_text,
                denied: call.denied.as_deref(),
                sidecar: call.sidecar.as_ref(),
                facts: Some(&call.facts),
                ended_at: call.ended_at.as_deref(),
                output: call.output.as_ref().filter(|_| !whole),
                ..ResultExtra::default()
            },
        };
        if let Some(rec) = &call.subagent {
            self.link(rec, &call.tool_call_id, &mut r, subagents);
        }
        Some(r)
    }

    /// Links a sub-agent run to the result `r`: its trajectory when it has turns (referenced
    /// by a `trajectory_id` unique among its siblings), and what the run reported, in the
    /// reference's `extra` (or the result's, when there is no trajectory to reference).
    pub(super) fn link(
        &mut self,
        rec: &'a SubagentRecord,
        call_id: &str,
        r: &mut ObservationResult<'a>,
        subagents: &mut Vec<Trajectory<'a>>,
    ) {
        let facts = RunReport::of(rec);
        if rec.transcript.is_empty() {
            r.extra.subagent = Some(facts);
            return;
        }
        let id = self.unique_id(call_id, &rec.task_id);
        let prefix = self.files.map(|f| f.child(&id));
        let files = prefix.as_deref().zip(self.files).map(|(prefix, f)| Files {
            stem: f.stem,
            prefix,
        });
        let mut trajectory = subagent_trajectory(id.clone(), rec, self.agent, files);
        trajectory.file = prefix.map(|p| format!("{p}.{}", OutputFormat::Atif.extension()));
        r.subagent_trajectory_ref.push(SubagentRef {
            trajectory_id: id,
            trajectory_path: trajectory.file.clone(),
            extra: facts,
        });
        subagents.push(trajectory);
    }

    /// A trajectory id no sibling has: the Agent call's id (else the run's task id), with a
    /// counter after it when that is taken (as a file name too, when each is a file).
    fn unique_id(&mut self, call_id: &str, task_id: &str) -> String {
        let base = [call_id, task_id]
            .into_iter()
            .find(|s| !s.is_empty())
            .unwrap_or("subagent");
        let mut id = base.to_owned();
        let mut n = 1;
        loop {
            let key = match self.files {
                Some(_) => file_part(&id),
                None => id.clone(),
            };
            if self.taken.insert(key) {
                return id;
            }
            n += 1;
            id = format!("{base}-{n}");
        }
    }
}

/// A trajectory id as a part of a file name: a safe file name with no `.` (so that the parts
/// of `<stem>.<id>.<id>` never run into each other).
fn file_part(id: &str) -> String {
    crate::output_file::safe_stem(id)
        .map(|s| s.replace('.', "_"))
        .unwrap_or_else(|| "subagent".to_owned())
}

/// A call as ATIF's `ToolCall`: its arguments when they are an object (else `{}` and the input
/// in `extra`), and in `extra` what the call does, who ran it, where it stands and when it began.
fn tool_call(call: &ToolCall) -> AtifCall<'_> {
    let mut extra = Map::new();
    let arguments = if call.input.is_object() {
        Cow::Borrowed(&call.input)
    } else {
        extra.insert("input".into(), call.input.clone());
        Cow::Owned(Value::Object(Map::new()))
    };
    extra.insert("kind".into(), value(&call.kind));
    extra.insert("caller".into(), value(&call.caller));
    extra.insert("state".into(), value(&call.state));
    let optional = [
        ("called_by", call.called_by.clone()),
        ("mcp_server", call.mcp_server.as_ref().map(value)),
        ("skill", call.skill.as_ref().map(value)),
        ("started_at", call.started_at.as_ref().map(value)),
    ];
    for (key, v) in optional.into_iter().filter_map(|(k, v)| Some((k, v?))) {
        extra.insert(key.into(), v);
    }
    AtifCall {
        tool_call_id: &call.tool_call_id,
        function_name: &call.name,
        arguments,
        extra,
    }
}

/// A sub-agent run as a trajectory of its own: its turns as steps from 1, its own sub-agents
/// (embedded in it, or each a file named from `files` on), its totals.
fn subagent_trajectory<'a>(
    id: String,
    rec: &'a SubagentRecord,
    parent: &Agent<'a>,
    files: Option<Files<'_>>,
) -> Trajectory<'a> {
    let mut taken = HashSet::default();
    let mut steps = Steps {
        agent: parent,
        taken: &mut taken,
        files,
    };
    let mut out = Vec::new();
    let mut nested = Vec::new();
    let mut totals = FinalMetrics::default();
    for (i, turn) in rec.transcript.iter().enumerate() {
        let made = steps.turn(turn, i + 1);
        if let Some(m) = &made.step.metrics {
            totals.add(m);
        }
        out.push(made.step);
        nested.extend(made.subagents);
    }
    totals.total_steps = out.len();
    let model = out.iter().find_map(|s| s.model_name).map(Cow::Borrowed);
    let mut agent_extra = Map::new();
    if let Some(t) = &rec.subagent_type {
        agent_extra.insert("subagent_type".into(), Value::String(t.clone()));
    }
    Trajectory {
        schema_version: SCHEMA_VERSION,
        session_id: None,
        trajectory_id: id,
        agent: Agent {
            name: parent.name.clone(),
            version: parent.version.clone(),
            model_name: model.or_else(|| parent.model_name.clone()),
            extra: agent_extra,
        },
        steps: out,
        final_metrics: Some(totals),
        subagent_trajectories: nested,
        extra: Map::new(),
        file: None,
    }
}
