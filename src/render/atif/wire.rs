//! The ATIF objects scribe writes, field for field as Harbor's published models name them
//! (`harbor/models/trajectories/*.py`): what each field may hold, which are required, and which
//! only an `agent` step may carry. Every object keeps what ATIF has no field for in its `extra`.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::model::details::Details;
use crate::model::transcript::{ResultFacts, SubagentRecord, SubagentStatus, SubagentUsage};

/// The newest version Harbor's `Trajectory.schema_version` accepts, and what scribe writes.
pub(crate) const SCHEMA_VERSION: &str = "ATIF-v1.8";

/// Who a step comes from (`Step.source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Source {
    System,
    User,
    Agent,
}

/// A whole trajectory (`Trajectory`): what a sub-agent becomes. The session's own trajectory is
/// written piece by piece from the same parts (`super::document`), so that its steps need not
/// be held.
#[derive(Serialize)]
pub(super) struct Trajectory<'a> {
    pub(super) schema_version: &'static str,
    /// The session's id, on a trajectory written as a file of its own (embedded, it is the
    /// root's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) session_id: Option<String>,
    pub(super) trajectory_id: String,
    pub(super) agent: Agent<'a>,
    pub(super) steps: Vec<Step<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) final_metrics: Option<FinalMetrics>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) subagent_trajectories: Vec<Trajectory<'a>>,
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub(super) extra: Map<String, Value>,
    /// Under `--output-dir`, the name of the file it is written to, beside the session's.
    #[serde(skip)]
    pub(super) file: Option<String>,
}

/// The agent system that made a trajectory (`Agent`).
#[derive(Serialize, Clone)]
pub(super) struct Agent<'a> {
    pub(super) name: Cow<'a, str>,
    pub(super) version: Cow<'a, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) model_name: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub(super) extra: Map<String, Value>,
}

/// One step (`Step`). `model_name`, `reasoning_content`, `tool_calls` and `metrics` only on an
/// `agent` step (Harbor refuses them elsewhere).
#[derive(Serialize)]
pub(super) struct Step<'a> {
    pub(super) step_id: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) timestamp: Option<&'a str>,
    pub(super) source: Source,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) model_name: Option<&'a str>,
    pub(super) message: Content<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) reasoning_content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) tool_calls: Option<Vec<ToolCall<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) observation: Option<Observation<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) metrics: Option<Metrics>,
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub(super) extra: Map<String, Value>,
}

/// A message or a result's content: a string, or parts when there is an image among them
/// (`str | list[ContentPart]`).
#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum Content<'a> {
    Text(Cow<'a, str>),
    Parts(Vec<ContentPart<'a>>),
}

/// One part of a multimodal content (`ContentPart`): text, or an image by its location.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub(super) enum ContentPart<'a> {
    Text { text: Cow<'a, str> },
    Image { source: ImageSource<'a> },
}

/// Where an image is (`ImageSource`): a URL, a `data:` URL for inline bytes.
#[derive(Serialize)]
pub(super) struct ImageSource<'a> {
    pub(super) media_type: &'a str,
    pub(super) path: &'a str,
}

/// The image types `ImageSource.media_type` accepts.
pub(super) const IMAGE_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

/// A call the agent made (`ToolCall`): `arguments` must be an object.
#[derive(Serialize)]
pub(super) struct ToolCall<'a> {
    pub(super) tool_call_id: &'a str,
    pub(super) function_name: &'a str,
    pub(super) arguments: Cow<'a, Value>,
    pub(super) extra: Map<String, Value>,
}

/// What came back (`Observation`).
#[derive(Serialize)]
pub(super) struct Observation<'a> {
    pub(super) results: Vec<ObservationResult<'a>>,
}

/// One result (`ObservationResult`): of the call `source_call_id` names (a call of the same
/// step), or of a system event when it names none.
#[derive(Serialize)]
pub(super) struct ObservationResult<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) source_call_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) content: Option<Content<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) subagent_trajectory_ref: Vec<SubagentRef<'a>>,
    pub(super) extra: ResultExtra<'a>,
}

/// What a result says that ATIF has no field for: the call's end state, its error and denial,
/// the harness's details (kept as the JSON text they are), what the adapter read from them, when
/// the result came, and the output itself when `content` could not hold it whole.
#[derive(Serialize, Default)]
pub(super) struct ResultExtra<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) state: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) error_text: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) denied: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) sidecar: Option<&'a Details>,
    #[serde(skip_serializing_if = "facts_empty")]
    pub(super) facts: Option<&'a ResultFacts>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) ended_at: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) output: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) subagent: Option<RunReport<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) notice: Option<Value>,
}

fn facts_empty(f: &Option<&ResultFacts>) -> bool {
    f.is_none_or(|f| f.is_empty())
}

/// A link to a sub-agent's trajectory (`SubagentTrajectoryRef`): embedded, found by
/// `trajectory_id` in the root's `subagent_trajectories`; or under `--output-dir` a file of its
/// own, `trajectory_path`, beside the referring file.
#[derive(Serialize)]
pub(super) struct SubagentRef<'a> {
    pub(super) trajectory_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) trajectory_path: Option<String>,
    pub(super) extra: RunReport<'a>,
}

/// What a sub-agent run reported, without its turns (those are its trajectory): the
/// transcript's `SubagentRecord` fields, named as it names them.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RunReport<'a> {
    pub(super) task_id: &'a str,
    pub(super) description: &'a str,
    pub(super) status: SubagentStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) subagent_type: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) summary: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) error: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) usage: Option<SubagentUsage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) result: Option<&'a str>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub(super) progress: &'a [String],
}

impl<'a> RunReport<'a> {
    /// The report of `rec`.
    pub(super) fn of(rec: &'a SubagentRecord) -> RunReport<'a> {
        RunReport {
            task_id: &rec.task_id,
            description: &rec.description,
            status: rec.status,
            subagent_type: rec.subagent_type.as_deref(),
            summary: rec.summary.as_deref(),
            error: rec.error.as_deref(),
            usage: rec.usage,
            result: rec.result.as_deref(),
            progress: &rec.progress,
        }
    }
}

/// A step's token counts (`Metrics`): `prompt_tokens` counts the cached tokens too.
#[derive(Serialize, Default, Clone, Copy)]
pub(super) struct Metrics {
    pub(super) prompt_tokens: u64,
    pub(super) completion_tokens: u64,
    pub(super) cached_tokens: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) extra: Option<MetricsExtra>,
}

/// What a step's usage says beyond ATIF's counts: the tokens written to the prompt cache.
#[derive(Serialize, Default, Clone, Copy)]
pub(super) struct MetricsExtra {
    pub(super) cache_creation_input_tokens: u64,
}

/// A trajectory's totals (`FinalMetrics`).
#[derive(Serialize, Default, Clone, Copy)]
pub(super) struct FinalMetrics {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) total_prompt_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) total_completion_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) total_cached_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) total_cost_usd: Option<f64>,
    pub(super) total_steps: usize,
}

impl FinalMetrics {
    /// Adds a step's metrics to the totals (counts from the input: saturating).
    pub(super) fn add(&mut self, m: &Metrics) {
        let add =
            |total: &mut Option<u64>, n: u64| *total = Some(total.unwrap_or(0).saturating_add(n));
        add(&mut self.total_prompt_tokens, m.prompt_tokens);
        add(&mut self.total_completion_tokens, m.completion_tokens);
        add(&mut self.total_cached_tokens, m.cached_tokens);
    }
}
