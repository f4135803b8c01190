//! `--stable`: make two runs that did the same things print the same bytes.
//!
//! What varies between runs and is not behaviour goes or becomes a placeholder:
//!
//! ```text
//! what                                   becomes
//! ─────────────────────────────────────  ─────────────────────────────────────────────────────
//! turn / message / row ids               t1, t2, …        (numbered by first appearance,
//! tool-call ids                          call-1, …         each kind on its own; every
//! task ids                               task-1, …         reference to an id, and every
//! session ids, init line ids             s1, init-1, …     mention of it inside text, follows)
//! timestamps, durations, version strings dropped (inside text, timestamps: <time>)
//! thinking signatures                    dropped
//! token counts and cost                  dropped (kept with --stable=keep-usage); a notice
//!                                          that only reports them says <usage>
//! temp dirs (/tmp/x, /var/folders/…/T/x) <tmp-1>, <tmp-2>, … (numbered by first appearance;
//!   and as a project dir name (-tmp-x)     the same placeholder)
//! counters in a sub-agent's <usage>      <n> (tool_uses kept; tokens kept with keep-usage)
//! sockets (…/name.sock)                  <socket>
//! the shell's `Process Group PGID: N`    dropped (the whole line), and `pid`/`pgid` keys
//!   line
//! harness payloads (sidecars, notice     keys naming times, durations, versions, uuids, costs
//!   data, machinery)                     and tokens dropped
//! other UUIDs inside text                id-1, id-2, …    (numbered by first appearance)
//! debug record line numbers              0
//! event line numbers (--to events)       1, 2, 3, … over the events kept
//! ```
//!
//! Each item is walked twice: first to number the ids it introduces (in walk order, which is
//! the order the output shows them), then to rewrite, so that a mention of an id in a text that
//! comes before the id's own field is rewritten too. Nothing here iterates a hash map into the
//! output.

use foldhash::HashMap;

use regex::Captures;
use serde_json::Value;

use super::id_table::IdTable;
use super::visit::{IdKind, Unordered, ValueRole, VisitMut, walk_value};
use crate::model::details::{Details, Rewrite};
use crate::model::transcript::{SubagentUsage, Usage};

mod text;

use text::{
    Found, IdLengths, JSON_NUMBER_FIELD, MAX_ID_IN_TEXT, PGID_LINE, SOCKET, TIMESTAMP, TMP_DIR,
    USAGE_BLOCK, VOLATILE_NUMBER, holds_known_id, rename_ids_in_text, replace, uuids,
};

/// Ids shorter than this are not searched for inside text (generated ids like `u1` would match
/// ordinary words); real ids are uuids or long random strings.
const MIN_ID_IN_TEXT: usize = 8;

/// The `--stable` pass. One per input: numbering starts again for each transcript.
#[derive(Debug, Default)]
pub(crate) struct Stable {
    keep_usage: bool,
    /// The number of each id under the first kind it was seen as, by the id's [`fingerprint`]
    /// (not the id itself: a long stream brings millions of ids). The name is made
    /// from the kind and the number. It is also what text is searched for: text is cut into
    /// id-shaped words and each is looked up here (one hash lookup per candidate, whatever the
    /// number of ids; the first kind's name wins). 12 bytes an id (`id_table`).
    first: IdTable,
    /// The rare id seen under a second kind too: its number as that kind.
    others: HashMap<(IdKind, u64), u32>,
    counters: HashMap<IdKind, u32>,
    /// The lengths of the ids long enough to be looked for in text: only a part of a word of
    /// one of these lengths is looked up (most words of a long tool output are no id's length).
    id_lengths: IdLengths,
    tmp_dirs: HashMap<String, String>,
    /// Events kept so far (`--to events` line numbers).
    events: u64,
    /// What [`Stable::judge_key`] said of each key met so far (at most [`KEYS_REMEMBERED`]):
    /// a harness payload's few key names come back in every call's details, and judging one
    /// (a dozen substring searches) was a fifth of what `--stable` added to a page.
    volatile_keys: HashMap<Box<str>, bool>,
}

/// Keys whose verdict [`Stable`] remembers: past that, a key is judged each time (an input of
/// endless distinct keys keeps its memory bounded).
const KEYS_REMEMBERED: usize = 4096;

impl Stable {
    /// A pass that drops usage unless `keep_usage`.
    pub(crate) fn new(keep_usage: bool) -> Stable {
        Stable {
            keep_usage,
            ..Stable::default()
        }
    }

    /// A pass of the same mode that has numbered nothing yet.
    pub(crate) fn fresh(&self) -> Stable {
        Stable::new(self.keep_usage)
    }

    /// The next event number (events get consecutive numbers instead of input line numbers).
    pub(crate) fn next_event_line(&mut self) -> u64 {
        self.events += 1;
        self.events
    }

    /// Gives `id` a number if it has none yet; its number (`None` for an empty id).
    pub(crate) fn number(&mut self, kind: IdKind, id: &str) -> Option<u32> {
        if id.is_empty() {
            return None;
        }
        let key = fingerprint(id);
        if let Some(n) = self.number_of(kind, key) {
            return Some(n);
        }
        // An id already renamed (e.g. read back from stable output) keeps its name's shape but
        // still gets a number here, so that a golden made by an older scribe stays comparable.
        let counter = self.counters.entry(kind).or_insert(0);
        *counter += 1;
        let n = *counter;
        if id.len() >= MIN_ID_IN_TEXT && id.len() <= MAX_ID_IN_TEXT {
            self.id_lengths.insert(id.len());
        }
        if !self.first.insert_new(key, kind, n) {
            self.others.insert((kind, key), n);
        }
        Some(n)
    }

    /// The number an id (by fingerprint) has as `kind`, if any.
    fn number_of(&self, kind: IdKind, key: u64) -> Option<u32> {
        match self.first.get(key) {
            Some((k, n)) if k == kind => Some(n),
            Some(_) => self.others.get(&(kind, key)).copied(),
            None => None,
        }
    }

    /// Rewrites what varies between runs inside one text (the table in the module doc). Each
    /// check looks only at a text that holds its piece ([`Found`]); once a check has changed the
    /// text, what it holds is found again.
    fn rewrite_text(&mut self, s: &mut String) {
        if !self.id_lengths.is_empty() {
            if let Some(renamed) = rename_ids_in_text(s, &self.first, &self.id_lengths) {
                *s = renamed;
            }
        }
        let mut found = Found::of(s);
        // A UUID no field introduced (inside a raw line, a path, a tool's output) is random too.
        if found.has(Found::UUID) && self.rename_uuids(s) {
            found = Found::of(s);
        }
        if found.has(Found::SOCKET) {
            replace(s, &SOCKET, |_| "<socket>".to_owned());
            found = Found::of(s);
        }
        let tmp_dirs = &mut self.tmp_dirs;
        if found.has(Found::TMP) {
            replace(s, &TMP_DIR, |c| {
                let next = tmp_dirs.len() + 1;
                tmp_dirs
                    .entry(c[0].to_owned())
                    .or_insert_with(|| format!("<tmp-{next}>"))
                    .clone()
            });
            found = Found::of(s);
        }
        // A temp dir is also written as Claude Code's project directory name (`/tmp/x` as
        // `-tmp-x`, in a task's output file): the same placeholder there.
        if found.has(Found::SLUG) {
            rename_tmp_slugs(s, tmp_dirs);
            found = Found::of(s);
        }
        if found.has(Found::DATE) {
            replace(s, &TIMESTAMP, |_| "<time>".to_owned());
            found = Found::of(s);
        }
        // The shell tool's process group id (Qwen Code, Gemini CLI) changes on every run.
        if found.has(Found::PGID) {
            replace(s, &PGID_LINE, |_| String::new());
            found = Found::of(s);
        }
        let keep_usage = self.keep_usage;
        if !found.has(Found::USAGE) {
            return;
        }
        replace(s, &USAGE_BLOCK, |block| {
            VOLATILE_NUMBER
                .replace_all(&block[0], |c: &Captures<'_>| {
                    if keep_usage && is_usage_key(&c[1]) {
                        c[0].to_owned()
                    } else {
                        format!("{}{}<n>", &c[1], &c[2])
                    }
                })
                .into_owned()
        });
    }

    /// Numbers the UUIDs of `s` as `id-N`; whether there was one.
    fn rename_uuids(&mut self, s: &mut String) -> bool {
        let found = uuids(s);
        if found.is_empty() {
            return false;
        }
        let mut out = String::with_capacity(s.len());
        let mut copied = 0;
        for r in found {
            let n = self
                .number(IdKind::Other, &s[r.clone()])
                .expect("a UUID is not empty");
            out.push_str(&s[copied..r.start]);
            out.push_str(&name(IdKind::Other, n));
            copied = r.end;
        }
        out.push_str(&s[copied..]);
        *s = out;
        true
    }

    /// Whether a payload key holds run-to-run noise ([`Stable::judge_key`]), remembered.
    fn is_volatile_key(&mut self, key: &str) -> bool {
        if let Some(&volatile) = self.volatile_keys.get(key) {
            return volatile;
        }
        let volatile = self.judge_key(key);
        if self.volatile_keys.len() < KEYS_REMEMBERED {
            self.volatile_keys.insert(key.into(), volatile);
        }
        volatile
    }

    /// Whether a payload key holds run-to-run noise: a time, a duration, a version, a process
    /// or session identity, and (unless kept) usage.
    fn judge_key(&self, key: &str) -> bool {
        // The key in lower case without `_` and `-`: on the stack for the usual short ASCII key
        // (a `String` per key of every sidecar was a tenth of a `--stable` run).
        let mut short = [0u8; 64];
        let mut len = 0;
        let owned: String;
        let k: &str = if key.is_ascii() && key.len() <= short.len() {
            for b in key.bytes().filter(|b| *b != b'_' && *b != b'-') {
                short[len] = b.to_ascii_lowercase();
                len += 1;
            }
            std::str::from_utf8(&short[..len]).unwrap_or_default()
        } else {
            owned = key
                .chars()
                .filter(|c| *c != '_' && *c != '-')
                .flat_map(char::to_lowercase)
                .collect();
            &owned
        };
        let timeish = k.contains("timestamp")
            || k.contains("duration")
            || k.contains("elapsed")
            || k == "time"
            || key.ends_with("_time")
            || key.ends_with("Time")
            || key.ends_with("_ms")
            || key.ends_with("Ms")
            || key.ends_with("_at")
            || key.ends_with("At");
        let identity = k.contains("version")
            || k.contains("uuid")
            || k == "sessionid"
            || k == "requestid"
            || k == "runid"
            || k == "pid"
            || k == "pgid"
            || k.ends_with("socketpath");
        let usage = !self.keep_usage && is_usage_key(key);
        timeish || identity || usage
    }

    fn meta_value(&mut self, v: &mut Value) {
        match v {
            Value::Object(o) => {
                // In place: rebuilding the map hashed every key kept into a new table.
                o.retain(|k, _| !self.is_volatile_key(k));
                o.values_mut().for_each(|x| self.meta_value(x));
            }
            Value::Array(a) => a.iter_mut().for_each(|x| self.meta_value(x)),
            Value::String(s) => self.rewrite_text(s),
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}

/// A harness payload's walk: the keys [`Stable::meta_value`] drops go, every string is
/// rewritten as text.
impl Rewrite for Stable {
    fn keeps(&mut self, key: &str) -> bool {
        !self.is_volatile_key(key)
    }

    fn text(&mut self, s: &mut String) {
        self.rewrite_text(s);
    }

    /// Every piece [`Stable::rewrite_text`] changes is written the same in the string as
    /// written (none holds a byte the writer escapes), so a string whose written form holds
    /// none is left as it is: most of a call's details, never decoded.
    fn may_change(&mut self, raw: &str) -> bool {
        Found::of(raw).any()
            || (!self.id_lengths.is_empty() && holds_known_id(raw, &self.first, &self.id_lengths))
    }
}

/// Token counts and money, which `--stable=keep-usage` keeps.
fn is_usage_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    k.contains("token") || k.contains("usage") || k.contains("cost")
}

/// The new name of the `n`th id of a kind.
fn name(kind: IdKind, n: u32) -> String {
    match kind {
        IdKind::Turn => format!("t{n}"),
        IdKind::Call => format!("call-{n}"),
        IdKind::Task => format!("task-{n}"),
        IdKind::Session => format!("s{n}"),
        IdKind::Init => format!("init-{n}"),
        IdKind::Other => format!("id-{n}"),
    }
}

/// An id's 64-bit fingerprint (`model::recent`'s): the maps hold this instead of the id. Two ids
/// of a run share one only by a chance of about n²/2⁶⁵ (10⁻⁸ for a million ids).
fn fingerprint(id: &str) -> u64 {
    crate::model::recent::fingerprint(id)
}

/// The first walk: numbers every id in the order the walk meets it.
pub(crate) struct Numbering<'a>(pub(crate) &'a mut Stable);

impl VisitMut for Numbering<'_> {
    fn id(&mut self, kind: IdKind, id: &mut String) {
        self.0.number(kind, id);
    }
    fn value(&mut self, _role: ValueRole, _v: &mut Value) {}
    fn details(&mut self, _role: ValueRole, _d: &mut Details) {}
}

impl VisitMut for Stable {
    /// Two runs list a session's tools, servers and skills in different orders: one order.
    fn unordered(&mut self, list: &mut dyn Unordered) {
        list.sort_set();
    }

    fn id(&mut self, kind: IdKind, id: &mut String) {
        if let Some(n) = self.number(kind, id) {
            *id = name(kind, n);
        }
    }

    fn text(&mut self, s: &mut String) {
        self.rewrite_text(s);
    }

    fn value(&mut self, role: ValueRole, v: &mut Value) {
        match role {
            ValueRole::Content => walk_value(self, v),
            ValueRole::Meta => self.meta_value(v),
        }
    }

    /// A harness payload kept as text: rewritten where it lies, as [`Stable::meta_value`]
    /// would rewrite its tree (the tree is built only if the scanner declines the text).
    fn details(&mut self, role: ValueRole, d: &mut Details) {
        match role {
            ValueRole::Meta => match d.rewritten(self) {
                Some(new) => *d = new,
                None => d.edit(|v| self.meta_value(v)),
            },
            ValueRole::Content => d.edit(|v| walk_value(self, v)),
        }
    }

    fn timestamp(&mut self, t: &mut Option<String>) {
        *t = None;
    }

    fn timestamp_value(&mut self, t: &mut Option<Value>) {
        *t = None;
    }

    fn version(&mut self, v: &mut Option<String>) {
        *v = None;
    }

    fn opaque(&mut self, v: &mut Option<String>) {
        *v = None;
    }

    fn duration(&mut self, ms: &mut Option<u64>) {
        *ms = None;
    }

    fn millis(&mut self, ms: &mut u64) {
        *ms = 0;
    }

    fn seconds(&mut self, s: &mut f64) {
        *s = 0.0;
    }

    fn usage(&mut self, u: &mut Option<Usage>) {
        if !self.keep_usage {
            *u = None;
        }
    }

    fn subagent_usage(&mut self, u: &mut Option<SubagentUsage>) {
        match u {
            Some(u) if self.keep_usage => u.duration_ms = 0,
            _ => *u = None,
        }
    }

    fn tokens(&mut self, n: &mut Option<u64>) {
        if !self.keep_usage {
            *n = None;
        }
    }

    fn cost(&mut self, c: &mut Option<f64>) {
        if !self.keep_usage {
            *c = None;
        }
    }

    /// A debug record's raw line: as JSON, it loses the keys a harness payload loses (times,
    /// durations, versions, uuids, pids); cut or broken, its volatile numbers become 0.
    fn raw(&mut self, s: &mut String) {
        match serde_json::from_str::<Value>(s) {
            Ok(mut v @ (Value::Object(_) | Value::Array(_))) => {
                self.meta_value(&mut v);
                *s = v.to_string();
            }
            Ok(_) | Err(_) => {
                self.rewrite_text(s);
                let mut volatile = |key: &str| self.is_volatile_key(key);
                if JSON_NUMBER_FIELD.is_match(s) {
                    let renamed = JSON_NUMBER_FIELD.replace_all(s, |c: &Captures<'_>| {
                        if volatile(&c[1]) {
                            format!("\"{}\"{}0", &c[1], &c[2])
                        } else {
                            c[0].to_owned()
                        }
                    });
                    *s = renamed.into_owned();
                }
            }
        }
    }

    fn usage_text(&mut self, s: &mut String) {
        if self.keep_usage {
            self.rewrite_text(s);
        } else {
            *s = "<usage>".to_owned();
        }
    }

    /// Durations are run-to-run noise, always dropped (the notice stays, counted).
    fn duration_text(&mut self, s: &mut String) {
        *s = "<duration>".to_owned();
    }

    /// Input line numbers shift when keep-alives or retries come and go.
    fn line(&mut self, line: &mut u64) {
        *line = 0;
    }
}

/// Each temp dir seen so far, written as a project directory name (its `/` and `.` as `-`),
/// becomes its placeholder: the longest first, so that one name never eats into a longer one.
fn rename_tmp_slugs(s: &mut String, tmp_dirs: &HashMap<String, String>) {
    let mut slugs: Vec<(String, &String)> = tmp_dirs
        .iter()
        .map(|(dir, name)| (dir.replace(['/', '.'], "-"), name))
        .collect();
    slugs.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
    for (slug, name) in slugs {
        if s.contains(&slug) {
            *s = s.replace(&slug, name);
        }
    }
}

#[cfg(test)]
mod tests;
