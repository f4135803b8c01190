//! The session facts that conversation rows repeat (ids, cwd, version, model, titles), gathered
//! for the session header: a saved session has no `init` line.

use super::head::Head;

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
    /// No facts: what a log that gathered none reads (see `SessionLog::facts`).
    pub(crate) const NONE: Facts = Facts {
        first_uuid: None,
        session_id: None,
        cwd: None,
        version: None,
        git_branch: None,
        permission_mode: None,
        model: None,
        last_timestamp: None,
        custom_title: None,
        ai_title: None,
        summary: None,
    };
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
    pub(crate) fn gather(&mut self, h: &Head<'_>) {
        let s = |v: Option<&str>| v.filter(|s| !s.is_empty()).map(str::to_owned);
        let f = self;
        if f.first_uuid.is_none() {
            f.first_uuid = s(h.uuid.as_str());
        }
        if f.session_id.is_none() {
            f.session_id = s(h.session_id.as_str());
        }
        // The last one seen of each: copied only when it changes (rows repeat them).
        for (slot, v) in [
            (&mut f.cwd, &h.cwd),
            (&mut f.version, &h.version),
            (&mut f.git_branch, &h.git_branch),
            (&mut f.permission_mode, &h.permission_mode),
            (&mut f.last_timestamp, &h.timestamp),
        ] {
            match v.as_str().filter(|s| !s.is_empty()) {
                Some(x) if slot.as_deref() != Some(x) => *slot = Some(x.to_owned()),
                Some(_) | None => {}
            }
        }
        if f.model.is_none() {
            f.model = s(h.message.0.model.as_str()).filter(|m| !m.starts_with('<'));
        }
    }
}
