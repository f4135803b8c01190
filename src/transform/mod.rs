//! Passes over final items, between the fold and the renderer: `--redact` (secrets out) then
//! `--stable` (run-to-run noise out). Both are `visit::VisitMut`s over the model types, so a
//! field added to the model is reached by both once the walk knows it.
//!
//! The pipeline calls `Transforms::item` on every item before `Render::item`, and
//! `Transforms::event` on a copy of every event before `Render::live` (`--to events`). Under
//! `--stable` the events that only exist for a live view (tool input starts, tool progress
//! ticks, absorbed keep-alives) are dropped, since their number varies from run to run, and the
//! remaining events are numbered 1, 2, 3, … instead of carrying input line numbers. Under
//! `--stable` and `--redact` text and reasoning deltas are held (`held_deltas`): a block's text is
//! shown when the block arrives, and the text of a block that never does, whole at the end.

// A match on one of our own enums names every variant: a new variant is a compile error here,
// never silently swallowed by `_`. (Wildcards stay allowed on text, numbers and foreign types.)
#![deny(clippy::wildcard_enum_match_arm)]

use clap::ValueEnum;

use crate::model::Header;
use crate::model::event::{Event, EventKind};
use crate::model::transcript::TranscriptItem;

/// Streamed text held back from the live view, and released when its block never comes.
mod held_deltas;
/// `--stable`'s memory of ids, compact.
mod id_table;
mod order;
pub(crate) mod redact;
pub(crate) mod stable;
pub(crate) mod visit;

use held_deltas::HeldDeltas;
use order::ResultOrder;
use redact::{KeyBlocks, Redactor};
use stable::{Numbering, Stable};

/// What `--stable` keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum StableMode {
    /// Drop token counts and cost along with the other run-to-run noise.
    Default,
    /// Keep token counts and cost (to catch a change in how much a run costs).
    KeepUsage,
}

/// The passes a run asked for. One per input, so that numbering restarts with each transcript.
#[derive(Debug, Default)]
pub(crate) struct Transforms {
    redact: Option<Redactor>,
    /// `--redact`: the private keys whose lines arrive as debug records one by one.
    key_blocks: Option<KeyBlocks>,
    stable: Option<Stable>,
    /// `--stable --to events`: the pass over the events written, with its own numbering, so
    /// that their ids count from what is written and not from the folded items beside them
    /// (which `--to events` never writes).
    event_stable: Option<Stable>,
    /// `--stable --to events`: a turn's tool results held and released in call order.
    order: Option<ResultOrder>,
    /// `--redact` or `--stable`: streamed text held until its block arrives.
    deltas: HeldDeltas,
}

impl Transforms {
    /// The passes a run asks for (none: every call is a no-op; `scribe diff` implies `--stable`).
    pub(crate) fn with(stable: Option<StableMode>, redact: bool, home: Option<&str>) -> Transforms {
        Transforms {
            redact: redact.then(|| Redactor::new(home)),
            key_blocks: redact.then(KeyBlocks::default),
            stable: stable.map(|m| Stable::new(m == StableMode::KeepUsage)),
            event_stable: None,
            order: None,
            deltas: HeldDeltas::default(),
        }
    }

    /// Under `--stable`, the events (`--to events`) are written with a turn's tool results in
    /// call order rather than arrival order (`order`); the other formats order results from
    /// the folded items.
    pub(crate) fn ordering_events(mut self, events: bool) -> Transforms {
        if events
            && self.order.is_none()
            && let Some(s) = &self.stable
        {
            self.order = Some(ResultOrder::default());
            self.event_stable = Some(s.fresh());
        }
        self
    }

    /// Input line `line`'s text for `--include-raw`: redacted as a debug record's raw text is;
    /// `None` under `--stable`, whose output a raw line (ids, times) could never match.
    pub(crate) fn raw_text(&mut self, line: u64, raw: String) -> Option<String> {
        if self.stable.is_some() {
            return None;
        }
        let mut event = Event::at(line, EventKind::debug("", raw, false));
        self.redact_event(&mut event);
        let EventKind::Debug { raw, .. } = event.kind else {
            return None;
        };
        Some(raw)
    }

    /// Every event the driver decodes, in input order, before the fold and whatever the output
    /// format: `--redact` follows private keys split over lines nothing understood.
    pub(crate) fn watch(&mut self, event: &Event) {
        if let Some(k) = &mut self.key_blocks {
            k.watch(event);
        }
    }

    /// `--redact` over one event (a debug record's line inside a private key: whole).
    fn redact_event(&mut self, event: &mut Event) {
        if let (Some(k), EventKind::Debug { raw, .. }) = (&self.key_blocks, &mut event.kind) {
            k.redact_line(event.line, raw);
        }
        if let Some(r) = &mut self.redact {
            visit::walk_event(r, event);
        }
    }

    /// True under `--redact` (names of files written are redacted too).
    pub(crate) fn redacts(&self) -> bool {
        self.redact.is_some()
    }

    /// True when no pass is active.
    pub(crate) fn is_empty(&self) -> bool {
        self.redact.is_none() && self.stable.is_none()
    }

    /// Rewrites the header: `--stable` blanks the input's name (two runs live in two files).
    pub(crate) fn header(&mut self, header: &mut Header) {
        if self.stable.is_some() {
            header.file = String::new();
        } else if let Some(r) = &self.redact {
            r.redact(&mut header.file);
        }
    }

    /// Rewrites one final item in place.
    pub(crate) fn item(&mut self, item: &mut TranscriptItem) {
        if let (Some(k), TranscriptItem::Debug(d)) = (&self.key_blocks, &mut *item) {
            k.redact_line(d.line, &mut d.raw);
        }
        if let Some(r) = &mut self.redact {
            visit::walk_item(r, item);
        }
        if let Some(s) = &mut self.stable {
            visit::walk_item(&mut Numbering(s), item);
            visit::walk_item(s, item);
        }
    }

    /// Rewrites one event for the live view: the events to show now (none when `--stable` or
    /// `--redact` drops or holds it, or while `--stable` holds a tool result back for call
    /// order).
    pub(crate) fn event(&mut self, event: &Event) -> Vec<Event> {
        // A secret can straddle two deltas, where no pattern sees it whole, and `--stable`
        // output cannot vary with their chunking: the text is shown when its whole block
        // arrives, or at the end when it never does (`held_deltas`).
        if (self.redact.is_some() || self.stable.is_some()) && self.deltas.hold(event) {
            return Vec::new();
        }
        if event.kind.is_fold_hint() || (self.stable.is_some() && is_live_only(&event.kind)) {
            return Vec::new();
        }
        self.show(event.clone())
    }

    /// An event about to be shown: redacted, put in call order, stabilized.
    fn show(&mut self, mut event: Event) -> Vec<Event> {
        self.redact_event(&mut event);
        let ready = match &mut self.order {
            Some(order) => order.push(event),
            None => vec![event],
        };
        ready.into_iter().map(|e| self.stabilize(e)).collect()
    }

    /// The events still held back at the end of the input (`--stable --to events`), then the
    /// streamed text whose block never came (`--redact`, `--stable`).
    pub(crate) fn finish_events(&mut self) -> Vec<Event> {
        let held = self.order.as_mut().map(ResultOrder::release);
        let mut out: Vec<Event> = held
            .unwrap_or_default()
            .into_iter()
            .map(|e| self.stabilize(e))
            .collect();
        for mut delta in self.deltas.release() {
            self.redact_event(&mut delta);
            out.push(self.stabilize(delta));
        }
        out
    }

    /// The `--stable` rewrite of an event about to be shown (ids numbered in the order shown,
    /// lines numbered 1, 2, 3, …).
    fn stabilize(&mut self, mut event: Event) -> Event {
        if let Some(s) = self.event_stable.as_mut().or(self.stable.as_mut()) {
            visit::walk_event(&mut Numbering(s), &mut event);
            visit::walk_event(s, &mut event);
            event.line = s.next_event_line();
        }
        event
    }
}

/// Events that only feed a live view or count absorbed lines; their number varies between runs.
fn is_live_only(kind: &EventKind) -> bool {
    match kind {
        EventKind::TextDelta { .. }
        | EventKind::ReasoningDelta { .. }
        | EventKind::ToolInputStarted { .. }
        | EventKind::ToolProgress { .. }
        | EventKind::Absorbed { .. } => true,
        EventKind::SessionInit { .. }
        | EventKind::UserTurn { .. }
        | EventKind::AssistantBlock { .. }
        | EventKind::AssistantEnd { .. }
        | EventKind::ToolResult { .. }
        | EventKind::ToolUpdate { .. }
        | EventKind::ToolDenied { .. }
        | EventKind::ToolUnanswered { .. }
        | EventKind::SubtaskStarted { .. }
        | EventKind::SubtaskProgress { .. }
        | EventKind::SubtaskUpdated { .. }
        | EventKind::SubtaskFinished { .. }
        | EventKind::Notice { .. }
        | EventKind::ConversationReset
        | EventKind::BranchStarted { .. }
        | EventKind::BranchEnded
        | EventKind::Debug { .. } => false,
    }
}
