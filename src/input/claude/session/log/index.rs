//! Building the index as the file is read: each entry sorted into a chain row or a loose entry, its
//! keys, parent, role and flags noted, and queued prompts crossed off when a later row carries
//! them.

use crate::input::InputLine;
use crate::input::claude::session::chain::key;
use crate::input::claude::session::entries::{self, Outside};
use crate::input::claude::session::head::{self, Head};
use crate::input::claude::session::inline;
use crate::input::claude::session::queued;
use crate::input::claude::session::source::Peek;
use crate::input::claude::session::uuids::{NewRow, UuidText};
use std::borrow::Cow;

use super::{
    ABSORBED, FALLS_BACK, FileParts, Loose, LooseKind, NONE, PLAIN_USER, RoleKind, Row, SessionLog,
    UuidForm, split,
};

impl SessionLog {
    pub(super) fn entry(&mut self, line: &InputLine, v: &Head<'_>, nested: bool, peek: &mut Peek) {
        let ty = v.ty.as_str().unwrap_or_default();
        match ty {
            "user" | "assistant" | "system" | "attachment" => {
                let sidechain = v.is_sidechain.as_bool() == Some(true);
                // A file whose first conversation row is a sidechain is a sub-agent's own file.
                if sidechain && !nested && self.rows.is_empty() && !self.has_sidechains() {
                    self.standalone = true;
                }
                if sidechain && self.standalone && self.agent_id.is_none() {
                    self.agent_id = v.agent_id.as_str().map(str::to_owned);
                }
                if sidechain && !nested && !self.standalone {
                    let group = self.sidechain_group(v);
                    let at = self.at;
                    let side = &mut self.file_mut().sidechains[group].1;
                    side.at = at;
                    side.entry(line, v, true, peek);
                    return;
                }
                // An inline sidechain's facts are never read (the session header is the main
                // line's): a run of thousands keeps none of them.
                if !nested {
                    self.facts_mut().gather(v);
                }
                self.push_row(line, ty, v, peek);
                let queued = self.file.as_ref().is_some_and(|f| !f.queued.is_empty());
                if queued && matches!(ty, "user" | "attachment") {
                    self.cross_off_queued(line);
                }
            }
            _ => match entries::classify(ty, |k| v.str(k), v.uuid.is_present(), self.facts_mut()) {
                Some(Outside::Absorbed(what)) => {
                    let name = self.name(&what);
                    self.push_loose(line, LooseKind::Absorbed(name));
                }
                Some(Outside::Cost | Outside::Unqueued { .. }) => {
                    self.push_loose(line, LooseKind::Reread)
                }
                Some(Outside::Enqueued { content }) => {
                    if !entries::is_json_document(content) {
                        let file = self.file_mut();
                        file.queued.enqueued(file.loose.len(), content);
                    }
                    self.push_loose(line, LooseKind::Reread)
                }
                None if v.uuid.as_str().is_some() => {
                    // Book-keeping that older CLIs linked into the chain (`progress`): keep the
                    // link, show nothing.
                    self.push_row(line, ty, v, peek)
                }
                None => self.push_loose(line, LooseKind::Reread),
            },
        }
    }

    /// Enqueued prompts the conversation row just indexed carries (a prompt, not a tool result;
    /// a `queued_command` attachment, not another) are absorbed into it (see `queued`).
    pub(super) fn cross_off_queued(&mut self, line: &InputLine) {
        let Some(last) = self.rows.len().checked_sub(1) else {
            return;
        };
        let row = &self.rows[last];
        let carries = match row.kind() {
            RoleKind::Message => true,
            RoleKind::Other => line.text.contains("\"queued_command\""),
            RoleKind::Assistant | RoleKind::ToolResults => false,
        };
        if row.line() != line.number || !carries {
            return;
        }
        let name = self.name(queued::DELIVERED);
        let file = self.file_mut();
        for l in file.queued.delivered_by(&line.text) {
            file.loose[l].what = name;
        }
    }

    pub(super) fn name(&mut self, what: &str) -> u32 {
        let file = self.file_mut();
        if let Some(&i) = file.name_index.get(what) {
            return i;
        }
        let i = file.names.len() as u32;
        file.names.push(what.to_owned());
        file.name_index.insert(what.to_owned(), i);
        i
    }

    pub(super) fn push_loose(&mut self, line: &InputLine, what: LooseKind) {
        let (offset_lo, offset_hi) = split(self.at);
        let after = self.rows.len().checked_sub(1).map_or(NONE, |i| i as u32);
        self.file_mut().loose.push(Loose {
            after,
            line: line.number as u32,
            offset_lo,
            what: match what {
                LooseKind::Absorbed(name) => name,
                LooseKind::Reread => NONE,
            },
            offset_hi,
        });
    }

    /// Which sub-agent an inline sidechain row belongs to: its `agentId`, or (the oldest CLIs
    /// wrote none) the root of its own chain, so that each Task call's run stays apart.
    pub(super) fn sidechain_group(&mut self, v: &Head<'_>) -> usize {
        let FileParts {
            run_lookup: lookup,
            sidechains,
            ..
        } = self.file_mut();
        let own = v.uuid.as_str().map(key);
        let joined = match v.agent_id.as_str() {
            Some(a) => (lookup.group.get(a))
                .map(|&g| g as usize)
                .ok_or_else(|| Some(a.to_owned())),
            None => {
                let root = v.parent_uuid.as_str().map(key);
                let parents_run = root.and_then(|p| lookup.roots.get(&p));
                // Else, for a root row written twice, the run its uuid started (and named).
                let started = |g: &&u32| {
                    let name = &sidechains[**g as usize].0;
                    name.strip_prefix("sidechain-") == v.uuid.as_str()
                };
                let own_run = || own.and_then(|u| lookup.roots.get(&u)).filter(started);
                match parents_run.or_else(own_run) {
                    Some(&g) => Ok(g as usize),
                    None => Err(None),
                }
            }
        };
        let group = joined.unwrap_or_else(|agent| {
            let open = |sidechains: &mut Vec<(String, Box<SessionLog>)>, name| {
                sidechains.push((name, Box::default()));
                (sidechains.len() - 1) as u32
            };
            let g = match (agent, v.uuid.as_str()) {
                (Some(a), _) => *lookup
                    .group
                    .entry(a.clone())
                    .or_insert_with(|| open(sidechains, a)),
                // A run of the oldest CLIs starts at a row whose parent is no sidechain row: the
                // main line's Task call (or nothing). It is found again by its rows' uuids
                // (`roots`), not by a name.
                (None, Some(u)) => {
                    let g = open(sidechains, format!("sidechain-{u}"));
                    sidechains[g as usize].1.rooted_outside = true;
                    g
                }
                (None, None) => {
                    let name = "sidechain-sidechain";
                    match lookup.group.get(name) {
                        Some(&g) => g,
                        None => {
                            let g = open(sidechains, name.to_owned());
                            lookup.group.insert(name.to_owned(), g);
                            sidechains[g as usize].1.rooted_outside = true;
                            g
                        }
                    }
                }
            };
            g as usize
        });
        if v.agent_id.as_str().is_none() {
            if let Some(own) = own {
                lookup.roots.insert(own, group as u32);
            }
        }
        if let Some(last) = lookup.last.replace(group).filter(|&l| l != group) {
            // Another run's row: the last group's recent uuids are let go (they are only a
            // cache; a later row of it reads its parent's uuid again), so that thousands of
            // runs do not each keep theirs.
            sidechains[last].1.forget_recent();
        }
        group
    }

    pub(super) fn push_row(&mut self, line: &InputLine, ty: &str, v: &Head<'_>, peek: &mut Peek) {
        self.answered.note(v);
        let start = self.ids.len();
        let kind = self.role_of(ty, v);
        self.links.note(line.number, ty, v);
        let is_boundary = ty == "system" && v.subtype.as_str() == Some("compact_boundary");
        let parent_key = match (v.parent_uuid.as_str(), v.logical_parent_uuid.as_str()) {
            (Some(p), _) => Some(p),
            (None, Some(l)) if is_boundary => Some(l),
            _ => None,
        };
        let absorbed = match ty {
            "user" | "assistant" | "system" => None,
            "attachment" => {
                entries::absorbed_attachment(v.attachment.0.ty.as_str().unwrap_or_default())
                    .map(|what| self.name(&what))
            }
            "progress" if inline::mentions(&line.text) => Some(self.name(inline::ABSORBED_AS)),
            other => Some(self.name(other)),
        };
        if let Some(name) = absorbed {
            self.ids.push(u64::from(name));
        }
        let (mut key, mut form) = match v.uuid.as_str() {
            Some(u) => (Cow::Borrowed(u), UuidForm::Own),
            None => (
                Cow::Owned(format!("line:{}", line.number)),
                UuidForm::Missing,
            ),
        };
        let i = self.rows.len() as u32;
        let uuids = self.uuids.get_or_insert_with(Box::default);
        if let Some(first) = uuids.find(&self.rows, &key, peek) {
            // The CLI sometimes writes a row twice (a resumed session): an exact copy is counted
            // and dropped; a row that differs is kept beside the first (same parent), never lost.
            let first_absorbed = self.rows[first as usize].bits & ABSORBED != 0;
            let same = match (first_absorbed, absorbed) {
                (false, None) => uuids.same_line(&self.rows, first, &line.text, peek),
                (false, Some(_)) | (true, None) => false,
                (true, Some(_)) => true,
            };
            if same {
                self.ids.truncate(start);
                let name = self.name(&format!("{ty} (repeated uuid)"));
                self.push_loose(line, LooseKind::Absorbed(name));
                return;
            }
            key = Cow::Owned(format!(
                "{}#{}",
                v.uuid.as_str().unwrap_or_default(),
                line.number
            ));
            form = UuidForm::Repeated;
        }
        // The root row of a run grouped by its root names a parent on the main line: no row of
        // this log can be it, so it waits for none (a wait is kept to the end of the file, and
        // a session may hold thousands of runs).
        let parent_elsewhere = self.rooted_outside && i == 0;
        let parent = match parent_key {
            Some(p) => uuids.find(&self.rows, p, peek).unwrap_or_else(|| {
                if !parent_elsewhere {
                    uuids.wait(i, p);
                }
                NONE
            }),
            None => NONE,
        };
        let decided = ty == "user" && (v.permission_decision.0 || v.tool_denial_kind.0);
        if decided {
            let results = v
                .blocks()
                .iter()
                .filter(|b| b.0.ty.as_str() == Some("tool_result"));
            let denied = &mut self.file.get_or_insert_with(Box::default).denied;
            denied.extend(
                results
                    .filter_map(|b| b.0.tool_use_id.as_str())
                    .map(crate::input::claude::session::chain::key),
            );
        }
        let plain_user = ty == "user"
            && !decided
            && !v
                .blocks()
                .iter()
                .any(|b| b.0.ty.as_str() == Some("tool_result") && b.0.preview.0);
        let mut bits = (kind as u8) | ((form as u8) << 2);
        for (flag, set) in [
            (ABSORBED, absorbed.is_some()),
            (FALLS_BACK, is_boundary && v.parent_uuid.as_str().is_none()),
            (PLAIN_USER, plain_user),
        ] {
            if set {
                bits |= flag;
            }
        }
        let (offset_lo, offset_hi) = split(self.at);
        self.rows.push(Row {
            offset_lo,
            parent,
            line: line.number as u32,
            slot: start as u32,
            offset_hi,
            bits,
        });
        let uuid = uuid_text(line, v.uuid.as_str(), self.at != 0);
        let new = NewRow {
            r: i,
            key: &key,
            uuid,
        };
        let children = uuids.insert(&self.rows, new, form == UuidForm::Repeated, peek);
        for c in children {
            let child = &mut self.rows[c as usize];
            if c == i {
                // Its own parent: none (and no falling back either).
                child.bits &= !FALLS_BACK;
            } else {
                child.parent = i;
            }
        }
    }

    /// What a row means to the chain ordering; its keys are appended to `ids`: an assistant
    /// row's `message.id` key (or its uuid's, or 0), then its tool call ids (at most 65 535); a
    /// tool result row's call ids.
    pub(super) fn role_of(&mut self, ty: &str, v: &Head<'_>) -> RoleKind {
        let blocks = v.blocks();
        let start = self.ids.len();
        let role = match ty {
            "assistant" => {
                let message = (v.message.0.id.as_str())
                    .or_else(|| v.uuid.as_str())
                    .map_or(0, key);
                self.ids.push(message);
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
                RoleKind::Assistant
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
                    RoleKind::ToolResults
                }
                head::Content::Blocks(_) | head::Content::Text(_) | head::Content::Other => {
                    RoleKind::Message
                }
            },
            _ => RoleKind::Other,
        };
        let first = start + usize::from(matches!(role, RoleKind::Assistant));
        let len = (self.ids.len() - first).min(usize::from(u16::MAX));
        self.ids.truncate(first + len);
        role
    }
}

/// How a row's uuid `u` can be found again: by its place in its line, or, in the file's first
/// line (`not_first` false), a line that was not valid UTF-8 or a uuid with escapes, as its text.
fn uuid_text<'a>(line: &InputLine, u: Option<&'a str>, not_first: bool) -> UuidText<'a> {
    match u {
        None => UuidText::Empty,
        Some(u) => match uuid_position(line, u) {
            Some(at) if not_first && !line.lossy => UuidText::At(u, at),
            Some(_) | None => UuidText::Spelled(u),
        },
    }
}

/// Where `u` (a field of the head decoded from `line`, borrowed from it when it had no escapes)
/// starts in the line's text; `None` when it is not borrowed from it.
pub(super) fn uuid_position(line: &InputLine, u: &str) -> Option<u32> {
    let base = line.text.as_ptr() as usize;
    let at = (u.as_ptr() as usize).checked_sub(base)?;
    (at + u.len() < line.text.len())
        .then(|| u32::try_from(at).ok())
        .flatten()
}
