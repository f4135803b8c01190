//! The two side lanes of the transcript (design §14): the session inventory and system notices.
//!
//! Neither belongs in the scroll of turns. A renderer shows the snapshot as a header and notices as
//! quiet one-line notes, toasts or a footer.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::transcript::{SubagentStatus, SubagentUsage, TaskDetails, Usage};

/// What the agent had available (§14 `SessionSnapshot`); refreshed by every later `init`.
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) version: Option<String>,
    pub(crate) model: String,
    pub(crate) cwd: String,
    pub(crate) permission_mode: String,
    pub(crate) tools: Vec<String>,
    pub(crate) mcp_servers: Vec<McpServer>,
    pub(crate) plugins: Vec<Plugin>,
    pub(crate) skills: Vec<String>,
    pub(crate) slash_commands: Vec<String>,
    pub(crate) agents: Vec<String>,
    /// The git branch the session ran on (a saved session's rows say; the stream does not).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) git_branch: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) updated_at: Option<String>,
    /// Whether the CLI's fast mode was on (Claude's `fast_mode_state`, e.g. `off`, `on`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) fast_mode_state: Option<String>,
    /// The output style the CLI ran with (Claude's `output_style`, e.g. `default`,
    /// `explanatory`): it changes how the model was told to write.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) output_style: Option<String>,
    /// Where the CLI took its API key from (Claude's `apiKeySource`, e.g. `user`, `none`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) api_key_source: Option<String>,
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

/// A banner, toast or footer fact (§14 `SystemNotice`, widened with the kinds the current CLI
/// sends). The long tail of rare system messages is `Info`, which keeps the whole payload.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub(crate) enum SystemNotice {
    #[serde(rename_all = "camelCase")]
    RateLimit {
        /// When the notice was sent (the line's `timestamp`, when it has one).
        #[serde(skip_serializing_if = "Option::is_none")]
        at: Option<String>,
        status: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        resets_at: Option<Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        rate_limit_type: Option<String>,
        info: Value,
    },
    #[serde(rename_all = "camelCase")]
    ApiRetry {
        attempt: u64,
        max: u64,
        delay_ms: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        error_status: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    Compact {
        #[serde(skip_serializing_if = "Option::is_none")]
        trigger: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        pre_tokens: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        post_tokens: Option<u64>,
        metadata: Value,
    },
    #[serde(rename_all = "camelCase")]
    Hook {
        hook_name: String,
        event: String,
        status: HookStatus,
        #[serde(skip_serializing_if = "Option::is_none")]
        output: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        exit_code: Option<i64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        outcome: Option<String>,
    },
    SessionState {
        state: String,
    },
    Status {
        #[serde(skip_serializing_if = "Option::is_none")]
        status: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    FilesPersisted {
        files: Vec<String>,
        failed: Vec<Value>,
        /// When the CLI finished saving them (Claude's `processed_at`), as the line says it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        processed_at: Option<String>,
    },
    Elicitation {
        server: String,
        id: String,
    },
    #[serde(rename_all = "camelCase")]
    PermissionDenied {
        tool_name: String,
        tool_call_id: String,
        message: String,
    },
    /// A background task's life, when no tool call owns it (background shells, remote tasks).
    #[serde(rename_all = "camelCase")]
    Task {
        task_id: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        status: Option<SubagentStatus>,
        #[serde(skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        summary: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        usage: Option<SubagentUsage>,
        /// The task's final report, when its notification carried one (`<result>`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<String>,
        /// What the task line says beside (`taskType`, `outputFile`, …).
        #[serde(flatten)]
        details: TaskDetails,
    },
    /// Events were lost between two points of the stream (a daemon's ring buffer overflowed).
    #[serde(rename_all = "camelCase")]
    MissedEvents {
        #[serde(skip_serializing_if = "Option::is_none")]
        from: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        to: Option<u64>,
        reason: String,
    },
    /// A sub-agent run whose Agent call never appeared in the input; kept whole.
    #[serde(rename_all = "camelCase")]
    Subagent {
        tool_call_id: String,
        record: super::transcript::SubagentRecord,
    },
    /// Conversation rows that the saved session kept off the main line (rewinds, forks).
    #[serde(rename_all = "camelCase")]
    Branch {
        leaf_id: String,
        turns: Vec<super::transcript::Turn>,
    },
    #[serde(rename_all = "camelCase")]
    Result {
        subtype: String,
        is_error: bool,
        /// The running total the agent reported (Claude's `total_cost_usd`): the cost of the
        /// process so far, or of the whole session after a `--resume` on newer CLIs.
        #[serde(skip_serializing_if = "Option::is_none")]
        cost: Option<f64>,
        /// This result's own part of `cost` (since the previous result), when it is known and
        /// may differ from `cost` (`input::anthropic::cost` says how it is found).
        #[serde(skip_serializing_if = "Option::is_none", default)]
        run_cost: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        turns: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        duration_ms: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        duration_api_ms: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        usage: Option<Usage>,
        #[serde(skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        stop_reason: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        terminal_reason: Option<String>,
        #[serde(skip_serializing_if = "Vec::is_empty", default)]
        errors: Vec<String>,
        #[serde(skip_serializing_if = "Vec::is_empty", default)]
        permission_denials: Vec<Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        structured_output: Option<Value>,
        /// Usage and cost per model (Claude's `modelUsage`: model name → its counts), kept whole:
        /// the only place a run that used several models says what each cost.
        #[serde(skip_serializing_if = "Option::is_none")]
        model_usage: Option<Box<Value>>,
        /// Whether fast mode was on when the run ended (Claude's `fast_mode_state`).
        #[serde(skip_serializing_if = "Option::is_none")]
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
