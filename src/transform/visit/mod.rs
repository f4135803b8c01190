//! A mutable walk over every model type (`model/*`), so that a pass (`--stable`, `--redact`) is
//! written once as a `VisitMut` and reaches every field of every item and event.
//!
//! The walk names what each field *is* (an id of some kind, content text, a timestamp, a token
//! count, a harness payload, …) and the pass decides what to do with it. Every enum is matched
//! exhaustively: a new variant in the model is a compile error here until the walk covers it.

use serde_json::{Map, Value};

use crate::model::details::Details;
use crate::model::transcript::{SubagentUsage, TaskDetails, Usage};

mod event;
mod item;
mod tool;

pub(crate) use event::walk_event;

/// A list that can be put in one order, whatever order it came in.
pub(crate) trait Unordered {
    /// Sorts it.
    fn sort_set(&mut self);
}

impl<T: Ord> Unordered for Vec<T> {
    fn sort_set(&mut self) {
        self.sort();
    }
}
pub(crate) use item::walk_item;

/// The namespaces ids live in; `--stable` numbers each one separately. `VARIANTS` lists them
/// in order, a kind's place being its discriminant (`IdTable` packs it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::VariantArray)]
pub(crate) enum IdKind {
    /// A turn: an assistant message id or a user row's uuid (`t1`, `t2`, …).
    Turn,
    /// A tool call (`call-1`, …).
    Call,
    /// A sub-agent or background task (`task-1`, …).
    Task,
    /// An agent session (`s1`, …).
    Session,
    /// The id of the line that announced a session (`init-1`, …).
    Init,
    /// Any other reference (elicitations, citation sources): `id-1`, ….
    Other,
}

/// What a `serde_json::Value` holds, which decides how much a pass may touch it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ValueRole {
    /// What the agent did or got: tool input and output, structured output, data parts.
    Content,
    /// What the harness said about it: sidecars, machinery, notice payloads.
    Meta,
}

/// A pass over the model. Every method defaults to doing nothing (values are walked string by
/// string through `text`).
pub(crate) trait VisitMut {
    /// An identifier of the given kind (never empty when called).
    fn id(&mut self, _kind: IdKind, _id: &mut String) {}
    /// Any other string: content, names, paths, messages.
    fn text(&mut self, _s: &mut String) {}
    /// A JSON payload. The default walks every string in it (keys are left alone).
    fn value(&mut self, _role: ValueRole, v: &mut Value) {
        walk_value(self, v);
    }
    /// A JSON payload kept as text ([`Details`]). The default walks it as the `Value` it holds
    /// (through [`VisitMut::value`]) and writes it again; a pass that leaves values alone says
    /// so here, and the text is not read at all.
    fn details(&mut self, role: ValueRole, d: &mut Details) {
        d.edit(|x| self.value(role, x));
    }
    /// A wall-clock time.
    fn timestamp(&mut self, _t: &mut Option<String>) {}
    /// A wall-clock time kept as JSON (a number or a string).
    fn timestamp_value(&mut self, _t: &mut Option<Value>) {}
    /// The version string of the agent that produced the stream.
    fn version(&mut self, _v: &mut Option<String>) {}
    /// An opaque value that differs on every run by design (a thinking block's signature).
    fn opaque(&mut self, _v: &mut Option<String>) {}
    /// An optional duration in milliseconds.
    fn duration(&mut self, _ms: &mut Option<u64>) {}
    /// A duration that is always present.
    fn millis(&mut self, _ms: &mut u64) {}
    /// Seconds elapsed (tool progress).
    fn seconds(&mut self, _s: &mut f64) {}
    /// A list whose order means nothing (a session's tools, MCP servers, skills…: the agent
    /// lists them in an order that varies from run to run).
    fn unordered(&mut self, _list: &mut dyn Unordered) {}
    /// A model response's token counts.
    fn usage(&mut self, _u: &mut Option<Usage>) {}
    /// A sub-agent's totals (tokens, tool uses, duration).
    fn subagent_usage(&mut self, _u: &mut Option<SubagentUsage>) {}
    /// A token count on its own (compaction).
    fn tokens(&mut self, _n: &mut Option<u64>) {}
    /// Money spent.
    fn cost(&mut self, _c: &mut Option<f64>) {}
    /// A text that only reports usage or cost (an `info` notice such as `cost-state`).
    fn usage_text(&mut self, s: &mut String) {
        self.text(s);
    }
    /// An input line kept as it was read (a `debug` record's `raw`).
    fn raw(&mut self, s: &mut String) {
        self.text(s);
    }
    /// A text that only reports how long something took (an `info` notice such as
    /// `turn_duration`).
    fn duration_text(&mut self, s: &mut String) {
        self.text(s);
    }
    /// The input line an event came from.
    fn line(&mut self, _line: &mut u64) {}
}

fn opt_text<V: VisitMut + ?Sized>(v: &mut V, s: &mut Option<String>) {
    if let Some(s) = s {
        v.text(s);
    }
}

fn id<V: VisitMut + ?Sized>(v: &mut V, kind: IdKind, s: &mut String) {
    if !s.is_empty() {
        v.id(kind, s);
    }
}

fn opt_id<V: VisitMut + ?Sized>(v: &mut V, kind: IdKind, s: &mut Option<String>) {
    if let Some(s) = s {
        id(v, kind, s);
    }
}

fn opt_value<V: VisitMut + ?Sized>(v: &mut V, role: ValueRole, x: &mut Option<Value>) {
    if let Some(x) = x {
        v.value(role, x);
    }
}

/// What a task line says beside its description: each a text.
fn task_details<V: VisitMut + ?Sized>(v: &mut V, d: &mut TaskDetails) {
    for field in d.fields_mut() {
        opt_text(v, field);
    }
}

/// Details kept as text, through [`VisitMut::details`].
fn opt_details<V: VisitMut + ?Sized>(v: &mut V, role: ValueRole, x: &mut Option<Details>) {
    if let Some(x) = x {
        v.details(role, x);
    }
}

/// An object kept as a map, walked as the JSON value it is (an empty one is not visited).
fn walk_map<V: VisitMut + ?Sized>(v: &mut V, role: ValueRole, m: &mut Map<String, Value>) {
    if m.is_empty() {
        return;
    }
    let mut x = Value::Object(std::mem::take(m));
    v.value(role, &mut x);
    if let Value::Object(o) = x {
        *m = o;
    }
}

/// Walks every string inside a JSON value (object keys are not visited).
pub(crate) fn walk_value<V: VisitMut + ?Sized>(v: &mut V, x: &mut Value) {
    match x {
        Value::String(s) => v.text(s),
        Value::Array(a) => a.iter_mut().for_each(|x| walk_value(v, x)),
        Value::Object(o) => o.values_mut().for_each(|x| walk_value(v, x)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}
