//! Pass 1 over one saved-session file: an index of its rows, not the rows.
//!
//! Ordering a session by its `parentUuid` chain needs the whole file, and a session can be
//! gigabytes. So this pass keeps, per row, only what the ordering and the matching of sub-agents
//! need (keys of its ids, its parent, its byte offset, its role), and per entry outside the chain
//! its place; `emit` reads each row again, by offset, when it writes it. Memory is a few dozen
//! bytes per row, whatever the rows hold.

use foldhash::HashMap;

use super::chain::{Chain, NodeRole, key};
use super::entries::{self, Outside};
use super::facts::Facts;
use super::head::{self, Head};
use crate::input::{InputLine, Report, parse_json_line};

/// What a chain row carries to the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Body {
    /// A row that becomes turns or notices (user, assistant, system, a shown attachment): read
    /// again when written.
    Entry,
    /// A row that only holds its place in the chain (progress, model-context attachments): an
    /// `absorbed` event with this name (an index into `SessionLog::names`).
    Absorbed(u32),
}

/// How a row's uuid is spelt in the output (a branch notice names its leaf).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UuidForm {
    /// Its own `uuid`.
    Own,
    /// A row that repeats an earlier row's uuid with other content: `<uuid>#<line>`.
    Repeated,
    /// No uuid: `line:<n>`.
    Missing,
}

/// The part a row plays in the chain, without its ids (they are in `SessionLog::ids`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RoleKind {
    Assistant,
    ToolResults,
    Message,
    Other,
}

/// No parent (in `Row::parent` once resolved).
const NO_PARENT: u64 = u64::MAX;

/// One row of the `parentUuid` chain: 48 bytes, whatever the row holds.
#[derive(Debug)]
pub(crate) struct Row {
    /// Where the line starts in its source.
    pub(crate) offset: u64,
    /// While the file is read: the key of its parent's uuid (`parentUuid`, or a compact
    /// boundary's `logicalParentUuid`), `NO_PARENT` for none. Once resolved: the parent's index,
    /// or `NO_PARENT` when it is not in the file.
    parent: u64,
    /// An assistant row's `message.id` key.
    message: u64,
    /// The line it was read from (events carry it).
    line: u32,
    /// A hash of its text: a repeated uuid with the same text is an exact copy.
    text_hash: u32,
    /// Its tool call (or result) id keys: `SessionLog::ids[ids..ids + ids_len]`.
    ids: u32,
    /// What it will become: an index into `SessionLog::names` when absorbed, `ENTRY` otherwise.
    body: u32,
    ids_len: u16,
    kind: RoleKind,
    pub(crate) uuid_form: UuidForm,
    /// A compact boundary without a `parentUuid`: when its logical parent is not in the file
    /// either, it continues the row read before it.
    falls_back: bool,
    /// A user row that needs nothing but the message decoder: no permission decision, no
    /// `<persisted-output>` preview (pass 2 decodes it from its text, see `emit`).
    plain_user: bool,
}

/// `Row::body` of a row that becomes turns or notices.
const ENTRY: u32 = u32::MAX;

impl Row {
    /// The line it was read from.
    pub(crate) fn line(&self) -> u64 {
        u64::from(self.line)
    }

    /// See `Row::plain_user`.
    pub(crate) fn plain_user(&self) -> bool {
        self.plain_user
    }

    /// An `assistant` row (pass 2 decodes it from its text, see `emit`).
    pub(crate) fn is_assistant(&self) -> bool {
        matches!(self.kind, RoleKind::Assistant)
    }

    /// What it will become.
    pub(crate) fn body(&self) -> Body {
        match self.body {
            ENTRY => Body::Entry,
            name => Body::Absorbed(name),
        }
    }
}

/// An entry outside the chain, written after the chain row read before it.
#[derive(Debug)]
pub(crate) struct Loose {
    /// Index of the chain row read just before it (`None`: written first).
    pub(crate) after: Option<u32>,
    pub(crate) line: u64,
    pub(crate) offset: u64,
    pub(crate) what: LooseKind,
}

/// What an entry outside the chain becomes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum LooseKind {
    /// An `absorbed` event with this name (an index into `SessionLog::names`).
    Absorbed(u32),
    /// Read again and decoded when written (a notice, or a `debug` record keeping the line).
    Reread,
}

/// What pass 1 notes for matching sub-agents to their Agent calls (few per session).
#[derive(Debug, Default)]
pub(crate) struct AgentLinks {
    /// A result row naming the sub-agent it ran: (line, agent id, the call it answers, named in
    /// `toolUseResult` rather than on the row).
    pub(crate) results: Vec<(u64, String, Option<String>, bool)>,
    /// Agent calls: (key of the prompt they sent, call id).
    pub(crate) calls: Vec<(u64, String)>,
    /// The key of the first user message's text (a sub-agent's prompt).
    pub(crate) first_prompt: Option<u64>,
}

/// The index of one session (or sub-agent) file.
#[derive(Debug, Default)]
pub(crate) struct SessionLog {
    /// The chain rows, in file order.
    pub(crate) rows: Vec<Row>,
    /// The tool call and result id keys of every row, flat (see `Row::ids`).
    ids: Vec<u64>,
    /// uuid key → row index, while the file is read.
    index: HashMap<u64, u32>,
    /// The session facts gathered from the rows and the title records.
    pub(crate) facts: Facts,
    /// Entries outside the chain, in file order (so their `after` never decreases).
    pub(crate) loose: Vec<Loose>,
    /// Names of absorbed rows and entries, each kept once.
    pub(crate) names: Vec<String>,
    name_index: HashMap<String, u32>,
    /// Sidechain rows found inside this file (the oldest CLIs wrote sub-agents inline), by agent.
    pub(crate) sidechains: Vec<(String, SessionLog)>,
    /// For inline sidechain rows without an `agentId`: row uuid key → the group it joined.
    sidechain_roots: HashMap<u64, usize>,
    /// What matching sub-agents to their calls needs.
    pub(crate) links: AgentLinks,
    /// Which source its rows are read again from (see `source::Sources`).
    pub(crate) source: usize,
    /// The offset of the line being indexed.
    at: u64,
    /// Where the ids of the row being indexed start in `ids`, and how many.
    last_ids: (u32, u16),
    /// The file is a sub-agent's own transcript (`agent-*.jsonl` read on its own): its sidechain
    /// rows are its conversation, not runs to split out.
    pub(crate) standalone: bool,
    /// The `agentId` its rows carry, when `standalone`.
    pub(crate) agent_id: Option<String>,
}

impl SessionLog {
    /// Indexes one line of the file, found at `offset` in the log's source. Errors are reported
    /// here, once; the line is read again for its `debug` record when written.
    pub(crate) fn line(
        &mut self,
        line: &InputLine,
        offset: u64,
        report: &mut Report<'_>,
        nested: bool,
    ) {
        if line.text.trim().is_empty() {
            return;
        }
        self.at = offset;
        if let Some(h) = head::read(&line.text) {
            self.entry(line, &h, nested);
            return;
        }
        // Not a JSON object: decoded as a `Value` for its diagnostic, reported here, and read
        // again for its `debug` record when written.
        let mut bad = Vec::new();
        match parse_json_line(line, &mut bad, report) {
            Some(v) => self.entry(line, &head::of_value(&v), nested),
            None => self.push_loose(line, LooseKind::Reread),
        }
    }

    fn entry(&mut self, line: &InputLine, v: &Head<'_>, nested: bool) {
        let ty = v.ty.as_str().unwrap_or_default();
        match ty {
            "user" | "assistant" | "system" | "attachment" => {
                let sidechain = v.is_sidechain.as_bool() == Some(true);
                // A file whose first conversation row is a sidechain is a sub-agent's own file.
                if sidechain && !nested && self.rows.is_empty() && self.sidechains.is_empty() {
                    self.standalone = true;
                }
                if sidechain && self.standalone && self.agent_id.is_none() {
                    self.agent_id = v.agent_id.as_str().map(str::to_owned);
                }
                if sidechain && !nested && !self.standalone {
                    let group = self.sidechain_group(v);
                    let side = &mut self.sidechains[group].1;
                    side.at = self.at;
                    side.entry(line, v, true);
                    return;
                }
                self.facts.gather(v);
                self.push_row(line, ty, v);
            }
            _ => match entries::classify(ty, |k| v.str(k), v.uuid.is_present(), &mut self.facts) {
                Some(Outside::Absorbed(what)) => {
                    let name = self.name(&what);
                    self.push_loose(line, LooseKind::Absorbed(name));
                }
                Some(Outside::Cost | Outside::Unqueued { .. }) => {
                    self.push_loose(line, LooseKind::Reread)
                }
                None if v.uuid.as_str().is_some() => {
                    // Book-keeping that older CLIs linked into the chain (`progress`): keep the
                    // link, show nothing.
                    self.push_row(line, ty, v)
                }
                None => self.push_loose(line, LooseKind::Reread),
            },
        }
    }

    fn name(&mut self, what: &str) -> u32 {
        if let Some(&i) = self.name_index.get(what) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(what.to_owned());
        self.name_index.insert(what.to_owned(), i);
        i
    }

    fn push_loose(&mut self, line: &InputLine, what: LooseKind) {
        self.loose.push(Loose {
            after: self.rows.len().checked_sub(1).map(|i| i as u32),
            line: line.number,
            offset: self.at,
            what,
        });
    }

    /// Which sub-agent an inline sidechain row belongs to: its `agentId`, or (the oldest CLIs
    /// wrote none) the root of its own chain, so that each Task call's run stays apart.
    fn sidechain_group(&mut self, v: &Head<'_>) -> usize {
        let name = match v.agent_id.as_str() {
            Some(a) => a.to_owned(),
            None => {
                let joined =
                    (v.parent_uuid.as_str()).and_then(|p| self.sidechain_roots.get(&key(p)));
                match joined {
                    Some(&g) => self.sidechains[g].0.clone(),
                    None => format!("sidechain-{}", v.uuid.as_str().unwrap_or("sidechain")),
                }
            }
        };
        let group = match self.sidechains.iter().position(|(a, _)| *a == name) {
            Some(p) => p,
            None => {
                self.sidechains.push((name, SessionLog::default()));
                self.sidechains.len() - 1
            }
        };
        if v.agent_id.as_str().is_none() {
            if let Some(u) = v.uuid.as_str() {
                self.sidechain_roots.insert(key(u), group);
            }
        }
        group
    }

    fn push_row(&mut self, line: &InputLine, ty: &str, v: &Head<'_>) {
        let (kind, message) = self.role_of(ty, v);
        self.links.note(line.number, ty, v);
        let is_boundary = ty == "system" && v.subtype.as_str() == Some("compact_boundary");
        let parent = match (v.parent_uuid.as_str(), v.logical_parent_uuid.as_str()) {
            (Some(p), _) => key(p),
            (None, Some(l)) if is_boundary => key(l),
            _ => NO_PARENT,
        };
        let body = match ty {
            "user" | "assistant" | "system" => ENTRY,
            "attachment" => {
                match entries::absorbed_attachment(v.attachment.0.ty.as_str().unwrap_or_default()) {
                    Some(what) => self.name(&what),
                    None => ENTRY,
                }
            }
            other => self.name(other),
        };
        let text_hash = text_hash(&line.text);
        let (mut uuid_key, mut form) = match v.uuid.as_str() {
            Some(u) => (key(u), UuidForm::Own),
            None => (key(&format!("line:{}", line.number)), UuidForm::Missing),
        };
        let (ids, ids_len) = self.last_ids;
        if let Some(&first) = self.index.get(&uuid_key) {
            // The CLI sometimes writes a row twice (a resumed session): an exact copy is counted
            // and dropped; a row that differs is kept beside the first (same parent), never lost.
            let first = &self.rows[first as usize];
            let same = match (first.body, body) {
                (ENTRY, ENTRY) => first.text_hash == text_hash,
                (ENTRY, _) | (_, ENTRY) => false,
                _ => true,
            };
            if same {
                self.ids.truncate(ids as usize);
                let name = self.name(&format!("{ty} (repeated uuid)"));
                self.push_loose(line, LooseKind::Absorbed(name));
                return;
            }
            uuid_key = key(&format!(
                "{}#{}",
                v.uuid.as_str().unwrap_or_default(),
                line.number
            ));
            form = UuidForm::Repeated;
        }
        self.index.insert(uuid_key, self.rows.len() as u32);
        self.rows.push(Row {
            offset: self.at,
            parent,
            message,
            line: line.number as u32,
            text_hash,
            ids,
            body,
            ids_len,
            kind,
            uuid_form: form,
            falls_back: is_boundary && v.parent_uuid.as_str().is_none(),
            plain_user: ty == "user"
                && !v.permission_decision.0
                && !v.tool_denial_kind.0
                && !v
                    .blocks()
                    .iter()
                    .any(|b| b.0.ty.as_str() == Some("tool_result") && b.0.preview.0),
        });
    }

    /// What a row means to the chain ordering; its ids are appended to `ids` (`last_ids` says
    /// where).
    fn role_of(&mut self, ty: &str, v: &Head<'_>) -> (RoleKind, u64) {
        let blocks = v.blocks();
        let start = self.ids.len();
        let role = match ty {
            "assistant" => {
                for b in blocks {
                    let b = &b.0;
                    let opens = matches!(
                        b.ty.as_str(),
                        Some("tool_use" | "server_tool_use" | "mcp_tool_use")
                    );
                    if let Some(id) = b.id.as_str().filter(|_| opens) {
                        self.ids.push(key(id));
                    }
                }
                let message = (v.message.0.id.as_str())
                    .or_else(|| v.uuid.as_str())
                    .map_or(0, key);
                (RoleKind::Assistant, message)
            }
            "user" => match &v.message.0.content {
                head::Content::Blocks(bs)
                    if !bs.is_empty()
                        && bs.iter().all(|b| b.0.ty.as_str() == Some("tool_result")) =>
                {
                    for b in bs {
                        if let Some(id) = b.0.tool_use_id.as_str() {
                            self.ids.push(key(id));
                        }
                    }
                    (RoleKind::ToolResults, 0)
                }
                head::Content::Blocks(_) | head::Content::Text(_) | head::Content::Other => {
                    (RoleKind::Message, 0)
                }
            },
            _ => (RoleKind::Other, 0),
        };
        let len = (self.ids.len() - start).min(usize::from(u16::MAX));
        self.ids.truncate(start + len);
        self.last_ids = (start as u32, len as u16);
        role
    }

    /// Follow mode, while the file is still being read (before `resolve`): the index of row
    /// `i`'s parent row, when it is in the file so far.
    pub(crate) fn parent_so_far(&self, i: usize) -> Option<usize> {
        let r = &self.rows[i];
        let found = (r.parent != NO_PARENT)
            .then(|| self.index.get(&r.parent))
            .flatten()
            .map(|&p| p as usize);
        let found = match found {
            None if r.falls_back => i.checked_sub(1),
            f => f,
        };
        found.filter(|&p| p != i)
    }

    /// Turns the parents' keys into row indexes, once the whole file is read; the uuid index is
    /// not needed after this.
    pub(crate) fn resolve(&mut self) {
        let index = std::mem::take(&mut self.index);
        for i in 0..self.rows.len() {
            let r = &self.rows[i];
            let found = (r.parent != NO_PARENT)
                .then(|| index.get(&r.parent))
                .flatten()
                .map(|&p| p as usize);
            // A compact boundary whose logical parent is gone continues the row before it.
            let found = match found {
                None if r.falls_back => i.checked_sub(1),
                f => f,
            };
            self.rows[i].parent = found.filter(|&p| p != i).map_or(NO_PARENT, |p| p as u64);
        }
        self.ids.shrink_to_fit();
        self.rows.shrink_to_fit();
        self.loose.shrink_to_fit();
    }
}

impl Chain for SessionLog {
    fn len(&self) -> usize {
        self.rows.len()
    }

    fn parent(&self, i: usize) -> Option<usize> {
        let p = self.rows[i].parent;
        (p != NO_PARENT).then_some(p as usize)
    }

    fn role(&self, i: usize) -> NodeRole<'_> {
        let r = &self.rows[i];
        let ids = &self.ids[r.ids as usize..r.ids as usize + usize::from(r.ids_len)];
        match r.kind {
            RoleKind::Assistant => NodeRole::Assistant {
                message_id: r.message,
                tool_use_ids: ids,
            },
            RoleKind::ToolResults => NodeRole::ToolResults(ids),
            RoleKind::Message => NodeRole::Message,
            RoleKind::Other => NodeRole::Other,
        }
    }
}
impl AgentLinks {
    /// Notes a conversation row's links to sub-agents.
    fn note(&mut self, line: u64, ty: &str, v: &Head<'_>) {
        let blocks = v.blocks();
        if ty == "user" {
            // CLI 2.0 put the sub-agent's id on the main-line result row itself.
            let row_agent =
                (v.agent_id.as_str()).filter(|_| v.is_sidechain.as_bool() != Some(true));
            let in_result = v.tool_use_result.0.agent_id.as_str();
            if let Some(aid) = in_result.or(row_agent) {
                let call = blocks
                    .iter()
                    .filter(|b| b.0.ty.as_str() == Some("tool_result"))
                    .find_map(|b| b.0.tool_use_id.as_str())
                    .map(str::to_owned);
                self.results
                    .push((line, aid.to_owned(), call, in_result.is_some()));
            }
            if self.first_prompt.is_none() {
                self.first_prompt = match &v.message.0.content {
                    head::Content::Text(k) => Some(*k),
                    head::Content::Blocks(bs) => bs.iter().find_map(|b| b.0.text.0),
                    head::Content::Other => None,
                };
            }
        }
        for b in blocks {
            let b = &b.0;
            // An Agent/Task call: a prompt plus a description or agent type (WebFetch also has a
            // `prompt`, and no sub-agent).
            let input = &b.input.0;
            let spawns = input.description.0 || input.subagent_type.0;
            if b.ty.as_str() == Some("tool_use") && spawns {
                if let (Some(p), Some(id)) = (input.prompt.0, b.id.as_str()) {
                    self.calls.push((p, id.to_owned()));
                }
            }
        }
    }
}

/// A hash of a row's text, to tell an exact copy of a row from one that repeats its uuid with
/// other content: a fast fixed-seed hash (the text is the whole line).
fn text_hash(text: &str) -> u32 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x5e55_a0e1).hash_one(text) as u32
}
