//! Stage 3 of the pipeline: the folded transcript (design §14).
//!
//! These types are what every renderer consumes and what `--to jsonl` writes. Field names follow
//! §14 exactly (camelCase in JSON) so that readers of the design recognise them. Every enum here is
//! matched exhaustively by the renderers: a new variant is a compile error everywhere it matters.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::session::{SessionSnapshot, SystemNotice};
pub(crate) use super::synthetic::SyntheticReason;
pub(crate) use super::tool_call::{CallResult, Caller, NonText, ToolCall, ToolState, output_text};
pub(crate) use super::tool_kind::{ResultFacts, ToolKind};

/// One transcript entry: a user message or one whole assistant message (all its content-block
/// frames merged).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Turn {
    /// The assistant `message.id`, or the user row's `uuid` (or a generated `u<N>`).
    pub(crate) id: String,
    pub(crate) role: Role,
    /// Why this turn exists: tells a renderer whether to draw a bubble, hide it or badge it.
    pub(crate) origin: TurnOrigin,
    /// The tool-call id of the Agent call this turn belongs to (only inside sub-agent transcripts).
    pub(crate) parent_task_id: Option<String>,
    pub(crate) parts: Vec<Part>,
    /// Facts about the message that are not content: model, usage, stop reason, machinery details.
    #[serde(skip_serializing_if = "TurnMeta::is_empty", default)]
    pub(crate) metadata: TurnMeta,
    pub(crate) timestamp: Option<String>,
    /// The time of the turn's last event (its last block, or the last result of a call it made)
    /// when it is later than `timestamp`: with it, the turn's own duration. Set by the fold from
    /// the times the input's lines carry.
    pub(crate) end_timestamp: Option<String>,
}

impl Turn {
    /// A turn with what every turn has: its id, who speaks, why it exists and its parts; the
    /// rest empty until the chained setters below fill it. The one way a turn is built, so that
    /// a new field of `Turn` touches the model only.
    pub(crate) fn new(id: String, role: Role, origin: TurnOrigin, parts: Vec<Part>) -> Turn {
        Turn {
            id,
            role,
            origin,
            parent_task_id: None,
            parts,
            metadata: TurnMeta::default(),
            timestamp: None,
            end_timestamp: None,
        }
    }

    /// A user turn (a person's prompt, a harness message, a sub-agent's prompt): what the
    /// adapters build, each with its origin.
    pub(crate) fn user(id: String, origin: TurnOrigin, parts: Vec<Part>) -> Turn {
        Turn::new(id, Role::User, origin, parts)
    }

    /// The turn inside the sub-agent thread of the call `parent` (`None`: the main thread).
    pub(crate) fn in_thread(mut self, parent: Option<String>) -> Turn {
        self.parent_task_id = parent;
        self
    }

    /// The turn with these facts about it.
    pub(crate) fn with_meta(mut self, metadata: TurnMeta) -> Turn {
        self.metadata = metadata;
        self
    }

    /// The turn at the time its line carries, when it carries one.
    pub(crate) fn at(mut self, timestamp: Option<String>) -> Turn {
        self.timestamp = timestamp;
        self
    }

    /// The turn's text parts, joined by newlines. Exists because the fold (to recognise a
    /// notification's text) and the text and Markdown renderers (to quote a user turn) all need
    /// the same plain text of a turn.
    pub(crate) fn text(&self) -> String {
        self.parts
            .iter()
            .filter_map(|p| match p {
                Part::Text { text, .. } => Some(text.as_str()),
                Part::Reasoning { .. }
                | Part::ToolCall { .. }
                | Part::File { .. }
                | Part::SourceUrl { .. }
                | Part::SourceDocument { .. }
                | Part::Compaction { .. }
                | Part::Data { .. } => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Who speaks in a turn.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Role {
    User,
    Assistant,
}

/// Why a turn exists (§14 `TurnOrigin`, widened with `notification` from §4 row 4).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub(crate) enum TurnOrigin {
    /// Typed by a person (or sent by the SDK caller as the prompt).
    UserInput,
    /// The user envelope that carried a tool result (only kept when it carried more than results).
    ToolReturn { tool_call_id: String },
    /// Written by the harness for the model's benefit; hidden by default. Written as §14's
    /// closed `reason` with scribe's finer `detail` beside it (see `SyntheticReason`).
    Synthetic {
        #[serde(flatten)]
        reason: SyntheticReason,
    },
    /// The Agent tool's prompt, replayed as the sub-agent's first user turn.
    SubagentPrompt { parent_tool_call_id: String },
    /// Playback of a message that was already sent (`isReplay`).
    Replay,
    /// A background-task notification, rewritten to readable text; shown.
    Notification,
    /// Model output (every assistant turn).
    Model,
}

impl TurnOrigin {
    /// True for origins a reader normally does not want to see (`--context` shows them).
    pub(crate) fn is_hidden_context(&self) -> bool {
        match self {
            TurnOrigin::Synthetic { reason } => !reason.is_person_action(),
            TurnOrigin::UserInput
            | TurnOrigin::ToolReturn { .. }
            | TurnOrigin::SubagentPrompt { .. }
            | TurnOrigin::Replay
            | TurnOrigin::Notification
            | TurnOrigin::Model => false,
        }
    }
}

/// Non-content facts about a turn. Every field is optional; an empty one is not written.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TurnMeta {
    pub(crate) model: Option<String>,
    pub(crate) stop_reason: Option<String>,
    /// Counted once per message, however many frames repeated it.
    pub(crate) usage: Option<Usage>,
    /// An API error the CLI turned into a synthetic assistant message (`model: "<synthetic>"`).
    pub(crate) error: Option<String>,
    /// The message was cut off by an interrupt.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub(crate) aborted: bool,
    /// Parsed details of CLI machinery (slash command, bash mode, task notification, …).
    #[serde(skip_serializing_if = "Map::is_empty", default)]
    pub(crate) machinery: Map<String, Value>,
    /// The queueing hint of a user message (`now`, `next`, `later`; Claude's `priority`), kept
    /// because §7 lists losing it as a mistake.
    pub(crate) priority: Option<String>,
    /// The files a resumed session's replayed message carried (Claude's `file_attachments`),
    /// kept whole: their shape is not documented.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub(crate) file_attachments: Vec<Value>,
}

impl TurnMeta {
    /// Nothing to say: the field is left out of the output.
    pub(crate) fn is_empty(&self) -> bool {
        self == &TurnMeta::default()
    }
}

/// Token counts of one model response.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Usage {
    pub(crate) input_tokens: u64,
    pub(crate) output_tokens: u64,
    #[serde(skip_serializing_if = "is_zero", default)]
    pub(crate) cache_read_input_tokens: u64,
    #[serde(skip_serializing_if = "is_zero", default)]
    pub(crate) cache_creation_input_tokens: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    /// Reads an Anthropic-style usage object; missing or null counts are zero.
    pub(crate) fn from_json(v: &Value) -> Option<Usage> {
        let o = v.as_object()?;
        let n = |k: &str| o.get(k).and_then(Value::as_u64).unwrap_or(0);
        Some(Usage {
            input_tokens: n("input_tokens"),
            output_tokens: n("output_tokens"),
            cache_read_input_tokens: n("cache_read_input_tokens"),
            cache_creation_input_tokens: n("cache_creation_input_tokens"),
        })
    }

    /// Adds another message's usage to a running total.
    /// Counts come from the input, so the sum saturates rather than overflow.
    pub(crate) fn add(&mut self, other: &Usage) {
        let add = |a: &mut u64, b: u64| *a = a.saturating_add(b);
        add(&mut self.input_tokens, other.input_tokens);
        add(&mut self.output_tokens, other.output_tokens);
        add(
            &mut self.cache_read_input_tokens,
            other.cache_read_input_tokens,
        );
        add(
            &mut self.cache_creation_input_tokens,
            other.cache_creation_input_tokens,
        );
    }
}

/// One piece of a turn (§14 `Part`: the AI SDK shape, widened).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(
    tag = "type",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub(crate) enum Part {
    Text {
        text: String,
        #[serde(skip_serializing_if = "Vec::is_empty", default)]
        citations: Vec<Citation>,
    },
    Reasoning {
        text: String,
        #[serde(skip_serializing_if = "std::ops::Not::not", default)]
        redacted: bool,
        signature: Option<String>,
    },
    ToolCall {
        call: Box<ToolCall>,
    },
    File {
        media_type: String,
        /// A `data:` URL for inline content, or the source URL / file id reference.
        url: String,
        filename: Option<String>,
    },
    /// A web page the model drew on (a web-search hit).
    SourceUrl {
        url: String,
        title: Option<String>,
        source_id: String,
    },
    /// A document given to the model as a source (a `search_result` block): §14's fields, and
    /// the document's text, which §14 has no field for but which is content and is kept.
    SourceDocument {
        media_type: String,
        title: String,
        source_id: String,
        text: Option<String>,
    },
    /// The API's summary of the turns before it (a `compaction` block): §14 has no part for it,
    /// and a text part would put the summary in the model's mouth. `None` when compaction failed.
    Compaction {
        summary: Option<String>,
    },
    /// Escape hatch for content with no better home (kept whole, never dropped).
    Data {
        name: String,
        data: Value,
        /// A few words saying what it is, when the adapter knows (the tool a tool reference
        /// names): shown beside the name where the data itself is not.
        summary: Option<String>,
    },
}

impl Part {
    /// A text part with no citations: what a prompt or a harness message is.
    pub(crate) fn text(text: String) -> Part {
        Part::Text {
            text,
            citations: Vec::new(),
        }
    }

    /// A tool call, boxed as the part keeps it.
    pub(crate) fn tool_call(call: ToolCall) -> Part {
        Part::ToolCall {
            call: Box::new(call),
        }
    }
}

/// Where a text part got what it says (§14 `Citation`): the page or document and the words
/// quoted. The API's other citation fields (`type`, indexes, `encrypted_index`, …) are kept
/// beside them, so nothing the input said is lost.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct Citation {
    pub(crate) url: Option<String>,
    pub(crate) title: Option<String>,
    pub(crate) quote: Option<String>,
    /// The rest of the API's citation object.
    #[serde(flatten)]
    pub(crate) detail: Map<String, Value>,
}

/// The skill a `Skill` call loaded, and the body the harness injected for it.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SkillInfo {
    pub(crate) skill_name: String,
    pub(crate) body: Option<String>,
}

/// What Claude Code's task lines say of a task beside its description and status: how it runs
/// (`task_type`), the workflow that started it, its latest tool and progress summary, and the
/// file its output went to. Written flat into the record, event or notice that carries it.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TaskDetails {
    /// `task_started.task_type` (`local_agent`, `local_bash`, …).
    pub(crate) task_type: Option<String>,
    /// `task_started.workflow_name`.
    pub(crate) workflow_name: Option<String>,
    /// `task_progress.last_tool_name`: the tool the task used last.
    pub(crate) last_tool_name: Option<String>,
    /// `task_progress.summary`: the task's progress in a sentence.
    pub(crate) progress_summary: Option<String>,
    /// `task_notification.output_file`: where the task's output was written.
    pub(crate) output_file: Option<String>,
}

impl TaskDetails {
    /// Every field, in order, so that updating and walking them cannot miss one.
    pub(crate) fn fields_mut(&mut self) -> [&mut Option<String>; 5] {
        let TaskDetails {
            task_type,
            workflow_name,
            last_tool_name,
            progress_summary,
            output_file,
        } = self;
        [
            task_type,
            workflow_name,
            last_tool_name,
            progress_summary,
            output_file,
        ]
    }

    /// Takes what a later line says, keeping what it does not say.
    pub(crate) fn update(&mut self, mut later: TaskDetails) {
        for (now, new) in self.fields_mut().into_iter().zip(later.fields_mut()) {
            if new.is_some() {
                *now = new.take();
            }
        }
    }

    /// The details as (what, value) pairs in words, for a view that lists them.
    pub(crate) fn facts(&self) -> Vec<(&'static str, &str)> {
        [
            ("task type", &self.task_type),
            ("workflow", &self.workflow_name),
            ("last tool", &self.last_tool_name),
            ("progress", &self.progress_summary),
            ("output file", &self.output_file),
        ]
        .into_iter()
        .filter_map(|(k, v)| Some((k, v.as_deref()?)))
        .collect()
    }
}

/// A sub-agent run owned by an Agent/Task call (§14 `SubagentRecord`).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SubagentRecord {
    pub(crate) task_id: String,
    pub(crate) description: String,
    pub(crate) subagent_type: Option<String>,
    pub(crate) progress: Vec<String>,
    pub(crate) status: SubagentStatus,
    pub(crate) summary: Option<String>,
    /// The error a status patch gave the run (Claude's `task_updated` `patch.error`), kept
    /// beside the summary its completion gives.
    #[serde(default)]
    pub(crate) error: Option<String>,
    pub(crate) usage: Option<SubagentUsage>,
    /// The run's final report as its completion notification gave it (Claude Code's
    /// `<task-notification>` `<result>`), when the input carries one.
    pub(crate) result: Option<String>,
    /// What the task lines say beside (`taskType`, `workflowName`, `lastToolName`,
    /// `progressSummary`, `outputFile`).
    #[serde(flatten)]
    pub(crate) details: TaskDetails,
    pub(crate) transcript: Vec<Turn>,
}

impl SubagentRecord {
    /// A record for a sub-agent whose turns arrived before (or without) a `task_started`.
    pub(crate) fn unnamed() -> SubagentRecord {
        SubagentRecord {
            task_id: String::new(),
            description: String::new(),
            subagent_type: None,
            progress: Vec::new(),
            status: SubagentStatus::Running,
            summary: None,
            error: None,
            usage: None,
            result: None,
            details: TaskDetails::default(),
            transcript: Vec::new(),
        }
    }
}

/// Where a sub-agent run stands.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, strum::IntoStaticStr)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub(crate) enum SubagentStatus {
    Running,
    Completed,
    Failed,
    Stopped,
}

impl SubagentStatus {
    /// The word every view says it in, the one its JSON holds.
    pub(crate) fn word(self) -> &'static str {
        self.into()
    }

    /// Maps the CLI's status words (`completed`, `failed`, `stopped`, `killed`, …).
    pub(crate) fn from_word(s: &str) -> Option<SubagentStatus> {
        Some(match s {
            "running" | "pending" | "paused" => SubagentStatus::Running,
            "completed" | "success" => SubagentStatus::Completed,
            "failed" | "error" => SubagentStatus::Failed,
            "stopped" | "killed" | "cancelled" => SubagentStatus::Stopped,
            _ => return None,
        })
    }
}

/// Totals a sub-agent reported.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SubagentUsage {
    pub(crate) total_tokens: u64,
    pub(crate) tool_uses: u64,
    pub(crate) duration_ms: u64,
}

/// An input line nothing understood: kept whole and counted, never dropped silently.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DebugRecord {
    pub(crate) reason: String,
    pub(crate) line: u64,
    pub(crate) raw: String,
    /// A known kind whose payload is malformed (see `EventKind::Debug`): the views say which
    /// line and why, and never draw its raw text, even with `--debug`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) malformed: bool,
}

/// What the fold hands to a renderer: only final things.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TranscriptItem {
    Session(Box<SessionSnapshot>),
    Turn(Box<Turn>),
    Notice(Box<SystemNotice>),
    Debug(Box<DebugRecord>),
}
