//! Pass 1 over one saved-session file: an index of its rows, not the rows.
//!
//! Ordering a session by its `parentUuid` chain needs the whole file, and a session can be
//! gigabytes. So this pass keeps, per row, only what the ordering and the matching of sub-agents
//! need (keys of its ids, its parent, its byte offset, its role), and per entry outside the chain
//! its place; `emit` reads each row again, by offset, when it writes it. Memory is a few dozen
//! bytes per row, whatever the rows hold.

/// Building the index as the file is read.
mod index;

use foldhash::HashMap;

use super::chain::{Chain, NodeRole};
use super::chunked::Chunked;
use super::facts::Facts;
use super::head::{self, Head};
use super::inline::{self, InlineAgents};
use super::queued::Pending;
use super::source::Peek;
use super::unanswered::Answered;
use super::uuids::Uuids;
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

/// No parent, no name (in `Row::parent`, `Loose::after`, `Loose::what`).
const NONE: u32 = u32::MAX;

/// One row of the `parentUuid` chain: 20 bytes, whatever the row holds (a session of a million
/// rows is indexed in 20 MB).
#[derive(Debug)]
pub(crate) struct Row {
    /// Where the line starts in its source: the low 32 bits (the high 16 in `offset_hi`).
    offset_lo: u32,
    /// The index of its parent row (`parentUuid`, or a compact boundary's `logicalParentUuid`),
    /// `NONE` when it is not in the file (or, while the file is read, not in it yet: it waits in
    /// the uuid table's `pending`).
    parent: u32,
    /// The line it was read from (events carry it).
    line: u32,
    /// Where its keys start in `SessionLog::ids`; they end where the next row's start. An
    /// assistant row's are its `message.id` and then its tool call ids, a tool result row's its
    /// call ids, an absorbed row's its name (an index into `SessionLog::names`).
    slot: u32,
    offset_hi: u16,
    /// Its `RoleKind` (bits 0–1), `UuidForm` (bits 2–3) and the flags `ABSORBED`, `FALLS_BACK`,
    /// `PLAIN_USER`.
    bits: u8,
}

/// `Row::bits`: an absorbed row (its key is its name).
const ABSORBED: u8 = 1 << 4;
/// `Row::bits`: a compact boundary without a `parentUuid`: when its logical parent is not in the
/// file either, it continues the row read before it.
const FALLS_BACK: u8 = 1 << 5;
/// `Row::bits`: a user row that needs nothing but the message decoder: no permission decision,
/// no `<persisted-output>` preview (pass 2 decodes it from its text, see `emit`).
const PLAIN_USER: u8 = 1 << 6;

const KINDS: [RoleKind; 4] = [
    RoleKind::Assistant,
    RoleKind::ToolResults,
    RoleKind::Message,
    RoleKind::Other,
];
const FORMS: [UuidForm; 3] = [UuidForm::Own, UuidForm::Repeated, UuidForm::Missing];

/// An offset in two parts (files up to 256 TiB).
fn split(offset: u64) -> (u32, u16) {
    (offset as u32, (offset >> 32) as u16)
}

fn join(lo: u32, hi: u16) -> u64 {
    (u64::from(hi) << 32) | u64::from(lo)
}

impl Row {
    /// Where the line starts in its source.
    pub(crate) fn offset(&self) -> u64 {
        join(self.offset_lo, self.offset_hi)
    }

    /// The line it was read from.
    pub(crate) fn line(&self) -> u64 {
        u64::from(self.line)
    }

    /// A user row that needs nothing but the message decoder (see `PLAIN_USER`).
    pub(crate) fn plain_user(&self) -> bool {
        self.bits & PLAIN_USER != 0
    }

    fn kind(&self) -> RoleKind {
        KINDS[usize::from(self.bits & 3)]
    }

    /// How its uuid is spelt in the output.
    pub(crate) fn uuid_form(&self) -> UuidForm {
        FORMS[usize::from((self.bits >> 2) & 3).min(2)]
    }

    /// An `assistant` row (pass 2 decodes it from its text, see `emit`).
    pub(crate) fn is_assistant(&self) -> bool {
        matches!(self.kind(), RoleKind::Assistant)
    }
}

/// An entry outside the chain, written after the chain row read before it (20 bytes).
#[derive(Debug)]
pub(crate) struct Loose {
    /// Index of the chain row read just before it (`NONE`: written first).
    after: u32,
    line: u32,
    offset_lo: u32,
    /// `LooseKind::Absorbed`'s name, `NONE` for `LooseKind::Reread`.
    what: u32,
    offset_hi: u16,
}

impl Loose {
    /// Index of the chain row read just before it (`None`: written first).
    pub(crate) fn after(&self) -> Option<u32> {
        (self.after != NONE).then_some(self.after)
    }

    pub(crate) fn line(&self) -> u64 {
        u64::from(self.line)
    }

    pub(crate) fn offset(&self) -> u64 {
        join(self.offset_lo, self.offset_hi)
    }

    pub(crate) fn what(&self) -> LooseKind {
        match self.what {
            NONE => LooseKind::Reread,
            name => LooseKind::Absorbed(name),
        }
    }
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

/// Where pass 1 finds the run an inline sidechain row joins (see `FileParts::run_lookup`).
#[derive(Debug, Default)]
pub(crate) struct RunLookup {
    /// Where each agent's group is in `sidechains` (a session may hold thousands).
    group: HashMap<String, u32>,
    /// For inline sidechain rows without an `agentId`: the key of the row's uuid (`chain::key`,
    /// no text: a session may hold hundreds of thousands) → the group it joined.
    roots: HashMap<u64, u32>,
    /// The group the last inline sidechain row joined (see `index::sidechain_group`).
    last: Option<usize>,
}

/// The parts of a log that the rows of a file gather and an inline run's rows (a handful each,
/// user and assistant messages) nearly never do: entries outside the chain, names, the runs and
/// sub-agent messages the file holds inline, queued prompts, glued lines, the session's facts.
#[derive(Debug, Default)]
struct FileParts {
    /// The session facts gathered from the rows and the title records (see `facts`).
    facts: Facts,
    /// Entries outside the chain, in file order (so their `after` never decreases).
    loose: Vec<Loose>,
    /// Names of absorbed rows and entries, each kept once.
    names: Vec<String>,
    name_index: HashMap<String, u32>,
    /// Sidechain rows found inside this file (the oldest CLIs wrote sub-agents inline), by agent.
    sidechains: Vec<(String, Box<SessionLog>)>,
    /// Which run an inline sidechain row joins, while the file is read.
    run_lookup: RunLookup,
    /// Keys of the calls a permission decision answers: the only calls whose tool's name pass 2
    /// must keep (a denial names the tool, the result row does not).
    denied: Vec<u64>,
    /// The line number and offset of the line indexed last (see `glued`).
    last_part: Option<(u64, u64)>,
    /// Where the records of lines that hold several glued together start, in file order: a line
    /// number given twice is such a line (`input::glued` hands on each record as a line of its
    /// own); pass 2 cuts these records from the rest of their line (`Sources::note_glued`).
    glued: Vec<u64>,
    /// Sub-agent messages the session carries inline (`agent_progress` rows).
    inline_agents: InlineAgents,
    /// Enqueued prompts no later row has carried yet (see `queued`).
    queued: Pending,
}

/// The index of one session (or sub-agent) file.
#[derive(Debug, Default)]
pub(crate) struct SessionLog {
    /// The chain rows, in file order.
    pub(crate) rows: Chunked<Row>,
    /// The keys of the rows, flat (see `Row::slot`); let go once the chain is ordered
    /// (`forget_keys`).
    ids: Vec<u64>,
    /// The chain is ordered and `ids` let go: an absorbed row's `slot` is its name.
    keys_forgotten: bool,
    /// Which row has which uuid, while the file is read (boxed: a session may have thousands of
    /// sub-agent logs, and theirs are let go when their file is read).
    uuids: Option<Box<Uuids>>,
    /// Where pass 1 reads a uuid again (see `uuids`); set by whoever reads the file.
    pub(crate) peek: Peek,
    /// What a file's log gathers and an inline run's rarely does (see `FileParts`): boxed and
    /// made when the first comes, since a session may hold thousands of runs.
    file: Option<Box<FileParts>>,
    /// What matching sub-agents to their calls needs.
    pub(crate) links: AgentLinks,
    /// Which source its rows are read again from (see `source::Sources`).
    pub(crate) source: usize,
    /// The offset of the line being indexed.
    at: u64,
    /// The file is a sub-agent's own transcript (`agent-*.jsonl` read on its own): its sidechain
    /// rows are its conversation, not runs to split out.
    pub(crate) standalone: bool,
    /// The `agentId` its rows carry, when `standalone`.
    pub(crate) agent_id: Option<String>,
    /// Its rows were copied out of the session's own lines (an inline sub-agent): their line
    /// numbers are the input's, though they are read again from a spool.
    pub(crate) inline: bool,
    /// An inline run without an `agentId`, grouped by its root row: that row's parent is on the
    /// main line, never in this log, so its row does not wait for it (see `index::push_row`).
    rooted_outside: bool,
    /// The calls its rows answer (see `unanswered`).
    pub(crate) answered: Answered,
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
        self.note_part(line.number, offset);
        if line.text.trim().is_empty() {
            return;
        }
        self.at = offset;
        let mut peek = std::mem::take(&mut self.peek);
        if let Some(h) = head::read(&line.text) {
            if !nested && h.ty.as_str() == Some("progress") && inline::mentions(&line.text) {
                self.file_mut().inline_agents.take(line, report);
            }
            self.entry(line, &h, nested, &mut peek);
        } else {
            // Not a JSON object (`head::read` refuses what a `Value` parse refuses): the `Value`
            // parse says why, reported here; the line is read again for its `debug` record when
            // written.
            parse_json_line(line, &mut Vec::new(), report);
            self.push_loose(line, LooseKind::Reread);
        }
        self.peek = peek;
    }

    /// Notes where a line was read from, for `glued`: a line whose number the line before had
    /// too is a record of a line that holds several, and so is the line before.
    fn note_part(&mut self, number: u64, offset: u64) {
        let file = self.file_mut();
        if let Some((last, last_offset)) = file.last_part.filter(|&(n, _)| n == number) {
            if file.glued.last() != Some(&last_offset) {
                file.glued.push(last_offset);
            }
            file.glued.push(offset);
            file.last_part = Some((last, offset));
        } else {
            file.last_part = Some((number, offset));
        }
    }

    /// The parts only a file's rows gather, made at the first (see `FileParts`).
    fn file_mut(&mut self) -> &mut FileParts {
        self.file.get_or_insert_with(Box::default)
    }

    /// The session facts gathered from the rows and the title records.
    pub(crate) fn facts(&self) -> &Facts {
        self.file.as_ref().map_or(&Facts::NONE, |f| &f.facts)
    }

    /// The facts, to gather into.
    fn facts_mut(&mut self) -> &mut Facts {
        &mut self.file_mut().facts
    }

    /// The entries outside the chain, in file order.
    pub(crate) fn loose(&self) -> &[Loose] {
        self.file.as_ref().map_or(&[], |f| &f.loose)
    }

    /// The names of absorbed rows and entries (`Body::Absorbed`, `LooseKind::Absorbed`).
    pub(crate) fn names(&self) -> &[String] {
        self.file.as_ref().map_or(&[], |f| &f.names)
    }

    /// The keys of the calls a permission decision answers.
    pub(crate) fn denied(&self) -> &[u64] {
        self.file.as_ref().map_or(&[], |f| &f.denied)
    }

    /// Whether an inline sidechain run was found in this file yet.
    fn has_sidechains(&self) -> bool {
        self.file.as_ref().is_some_and(|f| !f.sidechains.is_empty())
    }

    /// Takes the inline sidechain runs found in this file, by agent.
    pub(crate) fn take_sidechains(&mut self) -> Vec<(String, Box<SessionLog>)> {
        self.file
            .as_mut()
            .map(|f| std::mem::take(&mut f.sidechains))
            .unwrap_or_default()
    }

    /// Takes where the glued records of this file start (see `FileParts::glued`).
    pub(crate) fn take_glued(&mut self) -> Vec<u64> {
        self.file
            .as_mut()
            .map(|f| std::mem::take(&mut f.glued))
            .unwrap_or_default()
    }

    /// Takes the sub-agent messages this file carries inline.
    pub(crate) fn take_inline_agents(&mut self) -> InlineAgents {
        self.file
            .as_mut()
            .map(|f| std::mem::take(&mut f.inline_agents))
            .unwrap_or_default()
    }

    /// Follow mode, while the file is still being read (before `resolve`): the index of row
    /// `i`'s parent row, when it is in the file so far.
    pub(crate) fn parent_so_far(&self, i: usize) -> Option<usize> {
        let r = &self.rows[i];
        let found = match r.parent {
            NONE if r.bits & FALLS_BACK != 0 => i.checked_sub(1),
            NONE => None,
            p => Some(p as usize),
        };
        found.filter(|&p| p != i)
    }

    /// Lets go of the uuids of the last rows read (a cache: see `Uuids::forget_recent`).
    pub(crate) fn forget_recent(&mut self) {
        if let Some(u) = self.uuids.as_mut() {
            u.forget_recent();
        }
    }

    /// Ends pass 1, once the whole file is read: a compact boundary whose logical parent never
    /// came continues the row before it; the uuid table and the inline runs' lookups are let
    /// go. Called again, it changes nothing.
    pub(crate) fn resolve(&mut self) {
        self.uuids = None;
        // Which inline run each sidechain row joined matters only while rows come.
        if let Some(f) = self.file.as_mut() {
            f.run_lookup = RunLookup::default();
        }
        self.peek = Peek::Nothing;
        self.answered.seal();
        for i in 0..self.rows.len() {
            let parent = self.parent_so_far(i).map_or(NONE, |p| p as u32);
            self.rows[i].parent = parent;
        }
    }
}

impl SessionLog {
    /// Row `i`'s keys (see `Row::slot`).
    fn keys(&self, i: usize) -> &[u64] {
        let start = self.rows[i].slot as usize;
        let end = match i + 1 < self.rows.len() {
            true => self.rows[i + 1].slot as usize,
            false => self.ids.len(),
        };
        &self.ids[start..end]
    }

    /// The name of absorbed row `i` (an index into `names`).
    fn absorbed_name(&self, i: usize) -> u32 {
        match self.keys_forgotten {
            true => self.rows[i].slot,
            false => self.keys(i).first().map_or(0, |&n| n as u32),
        }
    }

    /// What row `i` will become.
    pub(crate) fn body(&self, i: usize) -> Body {
        match self.rows[i].bits & ABSORBED {
            0 => Body::Entry,
            _ => Body::Absorbed(self.absorbed_name(i)),
        }
    }

    /// Once the chain is ordered, the rows' keys (message and call ids) are read no more but for
    /// an absorbed row's name: that name moves into the row's `slot` and the keys are let go, so
    /// that writing a session holds no key of its rows. The log can no longer be ordered
    /// (`Chain::role` sees every row as `Other`).
    pub(crate) fn forget_keys(&mut self) {
        if self.keys_forgotten {
            return;
        }
        for i in 0..self.rows.len() {
            if self.rows[i].bits & ABSORBED != 0 {
                // Row `i + 1`'s slot, which ends row `i`'s keys, is still a slot here.
                self.rows[i].slot = self.absorbed_name(i);
            }
        }
        self.ids = Vec::new();
        self.keys_forgotten = true;
    }
}

impl Chain for SessionLog {
    fn len(&self) -> usize {
        self.rows.len()
    }

    fn parent(&self, i: usize) -> Option<usize> {
        let p = self.rows[i].parent;
        (p != NONE).then_some(p as usize)
    }

    fn role(&self, i: usize) -> NodeRole<'_> {
        let r = &self.rows[i];
        if self.keys_forgotten {
            return NodeRole::Other;
        }
        let keys = self.keys(i);
        match r.kind() {
            RoleKind::Assistant => NodeRole::Assistant {
                message_id: keys.first().copied().unwrap_or(0),
                tool_use_ids: keys.get(1..).unwrap_or_default(),
            },
            RoleKind::ToolResults => NodeRole::ToolResults(keys),
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

#[cfg(test)]
mod tests;
