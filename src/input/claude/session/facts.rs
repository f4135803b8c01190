//! The session facts that conversation rows repeat (ids, cwd, version, model, titles), gathered
//! for the session header: a saved session has no `init` line.

use serde_json::Value;

/// The session facts repeated on every conversation row, gathered for the session header.
#[derive(Debug, Default)]
pub(crate) struct Facts {
    /// The first row's uuid (the snapshot's `id`).
    pub(crate) first_uuid: Option<String>,
    /// `sessionId`: also how an older-layout sub-agent file names its session.
    pub(crate) session_id: Option<String>,
    /// `cwd`, the last one seen.
    pub(crate) cwd: Option<String>,
    /// `version` (the CLI's), the last one seen.
    pub(crate) version: Option<String>,
    /// `gitBranch`, the last one seen.
    pub(crate) git_branch: Option<String>,
    /// `permissionMode` of the user rows, the last one seen.
    pub(crate) permission_mode: Option<String>,
    /// The first real assistant `message.model` (not `<synthetic>`).
    pub(crate) model: Option<String>,
    /// The last `timestamp` (the snapshot's `updatedAt`).
    pub(crate) last_timestamp: Option<String>,
    /// `custom-title`: the title the user set (the last one wins).
    pub(crate) custom_title: Option<String>,
    /// `ai-title`: the title the CLI generated (the last one wins).
    pub(crate) ai_title: Option<String>,
    /// `summary`: the older CLIs' title (the last one wins).
    pub(crate) summary: Option<String>,
}

impl Facts {
    /// The title a reader would recognise: one the user set, else the CLI's, else a summary.
    pub(crate) fn title(&self) -> Option<String> {
        self.custom_title
            .clone()
            .or_else(|| self.ai_title.clone())
            .or_else(|| self.summary.clone())
    }

    /// Notes what one conversation row says about the session.
    pub(crate) fn gather(&mut self, v: &Value) {
        let s = |k: &str| {
            v.get(k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        let f = self;
        if f.first_uuid.is_none() {
            f.first_uuid = s("uuid");
        }
        if f.session_id.is_none() {
            f.session_id = s("sessionId");
        }
        if let Some(c) = s("cwd") {
            f.cwd = Some(c);
        }
        if let Some(x) = s("version") {
            f.version = Some(x);
        }
        if let Some(x) = s("gitBranch") {
            f.git_branch = Some(x);
        }
        if let Some(x) = s("permissionMode") {
            f.permission_mode = Some(x);
        }
        if let Some(x) = s("timestamp") {
            f.last_timestamp = Some(x);
        }
        if f.model.is_none() {
            f.model = v
                .pointer("/message/model")
                .and_then(Value::as_str)
                .filter(|m| !m.is_empty() && !m.starts_with('<'))
                .map(str::to_owned);
        }
    }
}
