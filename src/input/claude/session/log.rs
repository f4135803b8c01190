//! One saved-session file, parsed and held until its end: the chain rows, the session facts the
//! rows repeat, and everything that lives outside the chain.
//!
//! Memory stays proportional to the conversation, not the file: a row's JSON is kept only when it
//! will become a turn or a notice. Book-keeping entries (`api-request-blob` holds whole copies of
//! the messages sent, lines of several megabytes) are reduced to a counted `absorbed` marker as
//! soon as they are read, and model-context attachments (the system prompt snapshot, environment,
//! tool listings) keep only their place in the chain.

use std::collections::HashMap;

use serde_json::Value;

use super::chain::{Node, NodeRole};
use super::entries;
use crate::input::{InputLine, Report, parse_json_line};
use crate::model::event::{Event, EventKind};

/// What a chain row carries to the output.
#[derive(Debug)]
pub(crate) enum Body {
    /// A row that becomes turns or notices (user, assistant, system, a shown attachment).
    Entry(Value),
    /// A row that only holds its place in the chain (progress, model-context attachments).
    Absorbed(String),
}

/// One row of the `parentUuid` chain.
#[derive(Debug)]
pub(crate) struct Row {
    /// The line it was read from (events carry it).
    pub(crate) line: u64,
    /// Its `uuid` (or `line:<n>` for a row without one).
    pub(crate) uuid: String,
    parent_uuid: Option<String>,
    /// A `compact_boundary`'s `logicalParentUuid`: where the chain really continues from.
    logical_parent: Option<String>,
    is_boundary: bool,
    /// What the chain ordering needs to know about it.
    pub(crate) role: NodeRole,
    /// What it will become.
    pub(crate) body: Body,
}

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
}

/// One parsed session (or sub-agent) file.
#[derive(Debug, Default)]
pub(crate) struct SessionLog {
    /// The chain rows, in file order.
    pub(crate) rows: Vec<Row>,
    index: HashMap<String, usize>,
    /// The session facts gathered from the rows and the title records.
    pub(crate) facts: Facts,
    /// Events for entries outside the chain (metadata notices, absorbed book-keeping, debug),
    /// in file order, each with the chain row read just before it: it is written after that row
    /// (a steering message stays where it was typed), or first when no row came before it.
    pub(crate) loose: Vec<(Option<usize>, Event)>,
    /// Sidechain rows found inside this file (the oldest CLIs wrote sub-agents inline), by agent.
    pub(crate) sidechains: Vec<(String, SessionLog)>,
    /// For inline sidechain rows without an `agentId`: row uuid → the group it joined.
    sidechain_roots: HashMap<String, String>,
}

impl SessionLog {
    /// Reads one line of the file.
    pub(crate) fn line(&mut self, line: &InputLine, report: &mut Report<'_>, nested: bool) {
        if line.text.trim().is_empty() {
            return;
        }
        let mut bad = Vec::new();
        let Some(v) = parse_json_line(line, &mut bad, report) else {
            bad.into_iter().for_each(|e| self.push_loose(e));
            return;
        };
        self.entry(line.number, v, nested);
    }

    fn entry(&mut self, n: u64, v: Value, nested: bool) {
        let ty = v
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let loose = |kind: EventKind| Event { line: n, kind };
        match ty.as_str() {
            "user" | "assistant" | "system" | "attachment" => {
                let sidechain = v.get("isSidechain").and_then(Value::as_bool) == Some(true);
                if sidechain && !nested {
                    let agent = self.sidechain_key(&v);
                    let pos = match self.sidechains.iter().position(|(a, _)| *a == agent) {
                        Some(p) => p,
                        None => {
                            self.sidechains.push((agent, SessionLog::default()));
                            self.sidechains.len() - 1
                        }
                    };
                    self.sidechains[pos].1.entry(n, v, true);
                    return;
                }
                self.gather_facts(&v);
                self.push_row(n, &ty, v);
            }
            _ => match entries::outside_chain(&ty, &v, &mut self.facts) {
                Some(kind) => self.push_loose(loose(kind)),
                None if v.get("uuid").and_then(Value::as_str).is_some() => {
                    // Book-keeping that older CLIs linked into the chain (`progress`): keep the
                    // link, show nothing.
                    self.push_row(n, &ty, v)
                }
                None => self.push_loose(loose(EventKind::Debug {
                    reason: format!("unknown session entry type {ty:?}"),
                    raw: v.to_string(),
                })),
            },
        }
    }

    fn push_loose(&mut self, e: Event) {
        self.loose.push((self.rows.len().checked_sub(1), e));
    }

    /// Which sub-agent an inline sidechain row belongs to: its `agentId`, or (the oldest CLIs
    /// wrote none) the root of its own chain, so that each Task call's run stays apart.
    fn sidechain_key(&mut self, v: &Value) -> String {
        if let Some(a) = v.get("agentId").and_then(Value::as_str) {
            return a.to_owned();
        }
        let parent = v.get("parentUuid").and_then(Value::as_str);
        let key = parent
            .and_then(|p| self.sidechain_roots.get(p).cloned())
            .unwrap_or_else(|| {
                let uuid = v.get("uuid").and_then(Value::as_str).unwrap_or("sidechain");
                format!("sidechain-{uuid}")
            });
        if let Some(u) = v.get("uuid").and_then(Value::as_str) {
            self.sidechain_roots.insert(u.to_owned(), key.clone());
        }
        key
    }

    fn push_row(&mut self, n: u64, ty: &str, v: Value) {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        let uuid = s("uuid").unwrap_or_else(|| format!("line:{n}"));
        let role = role_of(ty, &v);
        let is_boundary =
            ty == "system" && v.get("subtype").and_then(Value::as_str) == Some("compact_boundary");
        let parent_uuid = s("parentUuid");
        let logical_parent = s("logicalParentUuid");
        let body = match ty {
            "user" | "assistant" | "system" => Body::Entry(v),
            "attachment" => match entries::absorbed_attachment(&v) {
                Some(what) => Body::Absorbed(what),
                None => Body::Entry(v),
            },
            other => Body::Absorbed(other.to_owned()),
        };
        let mut uuid = uuid;
        if let Some(&first) = self.index.get(&uuid) {
            // The CLI sometimes writes a row twice (a resumed session): an exact copy is counted
            // and dropped; a row that differs is kept beside the first (same parent), never lost.
            let same = match (&self.rows[first].body, &body) {
                (Body::Entry(a), Body::Entry(b)) => a == b,
                (Body::Absorbed(_), Body::Absorbed(_)) => true,
                _ => false,
            };
            if same {
                self.push_loose(Event {
                    line: n,
                    kind: EventKind::Absorbed {
                        what: format!("{ty} (repeated uuid)"),
                    },
                });
                return;
            }
            uuid = format!("{uuid}#{n}");
        }
        self.index.insert(uuid.clone(), self.rows.len());
        self.rows.push(Row {
            line: n,
            uuid,
            parent_uuid,
            logical_parent,
            is_boundary,
            role,
            body,
        });
    }

    fn gather_facts(&mut self, v: &Value) {
        let s = |k: &str| {
            v.get(k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        let f = &mut self.facts;
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

    /// The rows as the chain module sees them.
    pub(crate) fn nodes(&self) -> Vec<Node> {
        (0..self.rows.len())
            .map(|i| Node {
                parent: self.parent_of(i),
                role: self.rows[i].role.clone(),
            })
            .collect()
    }

    /// The index of row `i`'s parent row, when it is in the file.
    pub(crate) fn parent_of(&self, i: usize) -> Option<usize> {
        let r = &self.rows[i];
        let parent = match (&r.parent_uuid, &r.logical_parent) {
            (Some(p), _) => self.index.get(p).copied(),
            (None, Some(l)) if r.is_boundary => {
                self.index.get(l).copied().or_else(|| i.checked_sub(1))
            }
            (None, None) if r.is_boundary => i.checked_sub(1),
            (None, _) => None,
        };
        parent.filter(|&p| p != i)
    }
}

/// What a row means to the chain ordering.
fn role_of(ty: &str, v: &Value) -> NodeRole {
    let content = v.pointer("/message/content");
    let blocks = content.and_then(Value::as_array);
    match ty {
        "assistant" => NodeRole::Assistant {
            message_id: v
                .pointer("/message/id")
                .and_then(Value::as_str)
                .or_else(|| v.get("uuid").and_then(Value::as_str))
                .unwrap_or_default()
                .to_owned(),
            tool_use_ids: blocks
                .map(|bs| {
                    bs.iter()
                        .filter(|b| {
                            matches!(
                                b.get("type").and_then(Value::as_str),
                                Some("tool_use" | "server_tool_use" | "mcp_tool_use")
                            )
                        })
                        .filter_map(|b| b.get("id").and_then(Value::as_str))
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
        },
        "user" => match blocks {
            Some(bs)
                if !bs.is_empty()
                    && bs
                        .iter()
                        .all(|b| b.get("type").and_then(Value::as_str) == Some("tool_result")) =>
            {
                NodeRole::ToolResults(
                    bs.iter()
                        .filter_map(|b| b.get("tool_use_id").and_then(Value::as_str))
                        .map(str::to_owned)
                        .collect(),
                )
            }
            _ => NodeRole::Message,
        },
        _ => NodeRole::Other,
    }
}
