//! The two side lanes of the transcript (design §14): the session inventory and system notices.
//!
//! Neither belongs in the scroll of turns. A renderer shows the snapshot as a header and notices as
//! quiet one-line notes, toasts or a footer.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::transcript::{SubagentStatus, SubagentUsage, TaskDetails, Usage};

/// What the agent had available (§14 `SessionSnapshot`); refreshed by every later `init`.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SessionSnapshot {
    /// The id of the message that announced it (`uuid` of the init line).
    pub(crate) id: String,
    pub(crate) session_id: String,
    /// Which agent produced the stream: `claude-code`, `qwen-code`, …
    pub(crate) agent: String,
    /// Which input format scribe read: `claude-stream`, `claude-session`, `qwen-daemon`, …
    pub(crate) source: String,
    pub(crate) version: Option<String>,
    /// The model, the working directory and the permission mode, when the input says them
    /// (absent, not empty, when it does not).
    pub(crate) model: Option<String>,
    pub(crate) cwd: Option<String>,
    pub(crate) permission_mode: Option<String>,
    pub(crate) tools: Vec<String>,
    pub(crate) mcp_servers: Vec<McpServer>,
    pub(crate) plugins: Vec<Plugin>,
    pub(crate) skills: Vec<String>,
    pub(crate) slash_commands: Vec<String>,
    pub(crate) agents: Vec<String>,
    /// The git branch the session ran on (a saved session's rows say; the stream does not).
    pub(crate) git_branch: Option<String>,
    pub(crate) title: Option<String>,
    pub(crate) updated_at: Option<String>,
    /// Whether the CLI's fast mode was on (Claude's `fast_mode_state`, e.g. `off`, `on`).
    pub(crate) fast_mode_state: Option<String>,
    /// The output style the CLI ran with (Claude's `output_style`, e.g. `default`,
    /// `explanatory`): it changes how the model was told to write.
    pub(crate) output_style: Option<String>,
    /// Where the CLI took its API key from (Claude's `apiKeySource`, e.g. `user`, `none`).
    pub(crate) api_key_source: Option<String>,
}

/// What a view shows of one of a snapshot's optional words (its model, working directory,
/// permission mode): nothing when the input did not say it, or said it empty, so that no view
/// prints a label with nothing after it.
pub(crate) fn said(field: &Option<String>) -> Option<&str> {
    field.as_deref().filter(|s| !s.is_empty())
}

/// An MCP server and whether it connected.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct McpServer {
    pub(crate) name: String,
    pub(crate) status: String,
}

/// A plugin the session loaded.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Plugin {
    pub(crate) name: String,
    pub(crate) path: String,
}

/// Where a hook is in its life.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum HookStatus {
    Started,
    Progress,
    Response,
}

/// How loud an `info` notice is: renderers hide `trace` unless asked.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Level {
    Trace,
    Info,
    Warning,
    Error,
}

/// The `source` of the `Info` notices the fold writes for a tool result it gave to no call (a
/// second result for a finished call, a late one, one whose call is not in the input): their
/// `data` is that result's output, which the views show ([`SystemNotice::result_output`]).
pub(crate) const RESULT_SOURCE: &str = "tool_result";

/// A banner, toast or footer fact (§14 `SystemNotice`, widened with the kinds the current CLI
/// sends). The long tail of rare system messages is `Info`, which keeps the whole payload.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub(crate) enum SystemNotice {
    RateLimit {
        /// When the notice was sent (the line's `timestamp`, when it has one).
        at: Option<String>,
        status: String,
        resets_at: Option<Value>,
        rate_limit_type: Option<String>,
        info: Value,
    },
    ApiRetry {
        attempt: u64,
        max: u64,
        delay_ms: u64,
        error_status: Option<u64>,
        error: Option<String>,
    },
    Compact {
        trigger: Option<String>,
        pre_tokens: Option<u64>,
        post_tokens: Option<u64>,
        metadata: Value,
    },
    Hook {
        /// The harness's id of this run of the hook (`hook_id`): two hooks of one name and
        /// event can run at once, and this tells their starts and ends apart. Used to pair
        /// them and written nowhere (the end's line stands for the whole run).
        #[serde(skip)]
        hook_id: Option<String>,
        hook_name: String,
        event: String,
        status: HookStatus,
        output: Option<String>,
        exit_code: Option<i64>,
        outcome: Option<String>,
    },
    SessionState {
        state: String,
    },
    Status {
        status: Option<String>,
        detail: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    FilesPersisted {
        files: Vec<String>,
        failed: Vec<Value>,
        /// When the CLI finished saving them (Claude's `processed_at`), as the line says it.
        processed_at: Option<String>,
    },
    Elicitation {
        server: String,
        id: String,
    },
    PermissionDenied {
        tool_name: String,
        tool_call_id: String,
        message: String,
    },
    /// A background task's life, when no tool call owns it (background shells, remote tasks).
    Task {
        task_id: String,
        status: Option<SubagentStatus>,
        description: Option<String>,
        summary: Option<String>,
        usage: Option<SubagentUsage>,
        /// The task's final report, when its notification carried one (`<result>`).
        result: Option<String>,
        /// What the task line says beside (`taskType`, `outputFile`, …).
        #[serde(flatten)]
        details: TaskDetails,
    },
    /// Events were lost between two points of the stream (a daemon's ring buffer overflowed).
    MissedEvents {
        from: Option<u64>,
        to: Option<u64>,
        reason: String,
    },
    /// A sub-agent run whose Agent call never appeared in the input; kept whole.
    Subagent {
        tool_call_id: String,
        record: super::transcript::SubagentRecord,
    },
    /// Conversation rows that the saved session kept off the main line (rewinds, forks).
    Branch {
        leaf_id: String,
        turns: Vec<super::transcript::Turn>,
    },
    Result {
        subtype: String,
        is_error: bool,
        /// The running total the agent reported (Claude's `total_cost_usd`): the cost of the
        /// process so far, or of the whole session after a `--resume` on newer CLIs.
        cost: Option<f64>,
        /// This result's own part of `cost` (since the previous result), when it is known and
        /// may differ from `cost` (`input::anthropic::cost` says how it is found).
        run_cost: Option<f64>,
        turns: Option<u64>,
        duration_ms: Option<u64>,
        duration_api_ms: Option<u64>,
        usage: Option<Usage>,
        text: Option<String>,
        stop_reason: Option<String>,
        terminal_reason: Option<String>,
        #[serde(skip_serializing_if = "Vec::is_empty", default)]
        errors: Vec<String>,
        #[serde(skip_serializing_if = "Vec::is_empty", default)]
        permission_denials: Vec<Value>,
        structured_output: Option<Value>,
        /// Usage and cost per model (Claude's `modelUsage`: model name → its counts), kept whole:
        /// the only place a run that used several models says what each cost.
        model_usage: Option<Box<Value>>,
        /// Whether fast mode was on when the run ended (Claude's `fast_mode_state`).
        fast_mode_state: Option<String>,
    },
    /// Everything else the harness reports (local command output, notifications, refusals,
    /// memory recall, …): `source` names the wire kind, `data` keeps the payload.
    Info {
        source: String,
        level: Level,
        text: String,
        #[serde(skip_serializing_if = "Value::is_null", default)]
        data: Value,
    },
}

impl SystemNotice {
    /// The tool output a notice carries for a reader: the output of a result the fold gave to no
    /// call ([`RESULT_SOURCE`]), which the views show under the notice's words.
    pub(crate) fn result_output(&self) -> Option<&Value> {
        let SystemNotice::Info { source, data, .. } = self else {
            return None;
        };
        (source == RESULT_SOURCE && !data.is_null()).then_some(data)
    }
}
