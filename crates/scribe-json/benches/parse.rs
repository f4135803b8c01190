//! How fast the crate reads real agent log lines, against serde_json alone.
//!
//! For each set of lines (Claude Code stream lines and saved-session rows, the rows again spelt
//! in ASCII as Python's `json.dumps` spells them, Codex and Gemini stream lines, read from the
//! shared corpus at run time) it times nine ways to read every line:
//!
//! - `typed`: [`scribe_json::from_str`] into a `lenient_struct!` (the scanner, serde_json where it
//!   declines), the way the Claude adapter reads its rows;
//! - `typed-serde`: the same struct through `serde_json::from_str` (what `typed` would be without
//!   the scanner);
//! - `value`: [`scribe_json::parse_line`], a `serde_json::Value` (the other adapters' way);
//! - `serde-value`: `serde_json::from_str::<Value>`;
//! - `compact`: [`scribe_json::compact`], the line put into the written form in one walk (how a
//!   call's details that another writer spelt are kept);
//! - `written`: a row's `message` and `toolUseResult` put into the written form where they lie
//!   in the line, in the scanner's one walk (`scribe_json::Compacted`: how a call's details are
//!   kept);
//! - `value-write`: the same through a `Value` written again (what `compact` replaces);
//! - `glued`: [`scribe_json::glued_values`], the check every line of an input gets for JSON
//!   records glued together;
//! - `lead`: how each content block's `content` begins ([`scribe_json::lenient::Lead`]), every
//!   other field stepped over: how a saved session's first pass tells a tool output kept in a
//!   file of its own by its first characters, without decoding the output.
//!
//! Each way reads the whole set `ROUNDS` times (`SCRIBE_JSON_BENCH_ROUNDS`, default 15) and the
//! fastest round gives the MB/s: on a busy machine the fastest round is the one least disturbed.
//! `SCRIBE_JSON_BENCH_ONLY=<way>` runs one way alone and `SCRIBE_JSON_BENCH_SET=<name>` the sets
//! whose name has it (for `valgrind --tool=callgrind`, whose instruction counts do not depend on
//! the machine's load; `none` runs no way, the count of the set-up alone). The corpus is `../../../shared/corpus`
//! from this crate, or `SCRIBE_JSON_CORPUS`; without it the bench says so and does nothing.
//!
//! Run: `cargo bench -p scribe-json --bench parse`.

use std::borrow::Cow;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use scribe_json::lenient::{Bool, Items, Lead, Obj, Object, Present, Same, Str, U64};
use serde_json::Value;

scribe_json::lenient_struct! {
    /// The fields of a line an adapter reads first: its kind, ids, and the message or item in it.
    pub(crate) struct Line<'a> {
        "type" => ty: Option<Cow<'a, str>> as Str<'a>,
        "uuid" => uuid: Option<Cow<'a, str>> as Str<'a>,
        "parentUuid" => parent_uuid: Option<Cow<'a, str>> as Str<'a>,
        "isSidechain" => is_sidechain: Option<bool> as Bool,
        "timestamp" => timestamp: Option<Cow<'a, str>> as Str<'a>,
        "message" => message: Option<Message<'a>> as Object<Message<'a>>,
        "item" => item: Option<Block<'a>> as Object<Block<'a>>,
        "payload" => payload: Option<Block<'a>> as Object<Block<'a>>,
    }
}

scribe_json::lenient_struct! {
    /// A message: its id, role, token counts and content blocks.
    pub(crate) struct Message<'a> {
        "id" => id: Option<Cow<'a, str>> as Str<'a>,
        "role" => role: Option<Cow<'a, str>> as Str<'a>,
        "usage" => usage: Option<Usage> as Object<Usage>,
        "content" => content: Option<Vec<Obj<Block<'a>>>> as Items<Obj<Block<'a>>>,
    }
}

scribe_json::lenient_struct! {
    /// A message's token counts.
    pub(crate) struct Usage {
        "input_tokens" => input_tokens: Option<u64> as U64,
        "output_tokens" => output_tokens: Option<u64> as U64,
    }
}

scribe_json::lenient_struct! {
    /// A content block, a Codex item or payload: its kind, text and a tool call's input.
    pub(crate) struct Block<'a> {
        "type" => ty: Option<Cow<'a, str>> as Str<'a>,
        "id" => id: Option<Cow<'a, str>> as Str<'a>,
        "text" => text: Option<Cow<'a, str>> as Str<'a>,
        "name" => name: Option<Cow<'a, str>> as Str<'a>,
        "input" => input: Option<Value> as Present,
    }
}

scribe_json::lenient_struct! {
    /// A row's free-form parts put into the written form where they lie, as a call's details are
    /// kept (`scribe_json::Compacted`).
    pub(crate) struct Sidecars {
        "message" => message: Option<Written> as Same<Option<Written>>,
        "toolUseResult" => details: Option<Written> as Same<Option<Written>>,
    }
}

/// A value read as [`scribe_json::Compacted`].
#[derive(Debug)]
pub(crate) struct Written(usize);

impl<'de> serde::Deserialize<'de> for Written {
    /// The bytes kept.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Written(match scribe_json::Compacted::deserialize(d)? {
            scribe_json::Compacted::Written(text) => text.len(),
            scribe_json::Compacted::Text(text) => text.len(),
            scribe_json::Compacted::Raw(raw) => raw.get().len(),
        }))
    }
}

scribe_json::lenient_struct! {
    /// A row read for how each content block's `content` begins, and nothing else.
    pub(crate) struct Leads {
        "message" => message: Option<LeadMessage> as Object<LeadMessage>,
    }
}

scribe_json::lenient_struct! {
    /// A message's blocks, for [`Leads`].
    pub(crate) struct LeadMessage {
        "content" => content: Option<Vec<Obj<LeadBlock>>> as Items<Obj<LeadBlock>>,
    }
}

scribe_json::lenient_struct! {
    /// How a block's `content` begins, for [`Leads`].
    pub(crate) struct LeadBlock {
        "content" => content: Lead as Same<Lead>,
    }
}

/// One way to read a line: its name and what it does with each line (true when it read it).
type Way = (&'static str, fn(&str) -> bool);

/// The ways compared, in the order printed.
const WAYS: [Way; 9] = [
    ("typed", |l| {
        black_box(scribe_json::from_str::<Line<'_>>(l)).is_ok()
    }),
    ("typed-serde", |l| {
        black_box(serde_json::from_str::<Line<'_>>(l)).is_ok()
    }),
    ("value", |l| black_box(scribe_json::parse_line(l)).is_ok()),
    ("serde-value", |l| {
        black_box(serde_json::from_str::<Value>(l)).is_ok()
    }),
    ("compact", |l| black_box(scribe_json::compact(l)).is_some()),
    ("written", |l| {
        let read = scribe_json::from_str::<Sidecars>(l);
        let kept = read.map(|s| {
            [s.message, s.details]
                .iter()
                .flatten()
                .map(|w| w.0)
                .sum::<usize>()
        });
        black_box(kept).is_ok()
    }),
    ("value-write", |l| {
        let Ok(v) = serde_json::from_str::<Value>(l) else {
            return false;
        };
        let mut out = Vec::new();
        black_box(scribe_json::write(&mut out, &v)).is_ok()
    }),
    ("glued", |l| {
        black_box(scribe_json::glued_values(black_box(l)));
        true
    }),
    ("lead", |l| {
        black_box(scribe_json::from_str::<Leads>(l)).is_ok()
    }),
];

/// A named set of lines and where in the corpus its files are.
struct Set {
    name: &'static str,
    /// The corpus' folder of the agent, one folder per case under it.
    agent: &'static str,
    /// The file of each case read, or a folder of it whose `.jsonl` files are read.
    file: &'static str,
    /// The lines spelt in ASCII, every other character a `\u` escape, as Python's `json.dumps`
    /// writes them (the sessions `make-real-session.py` chains are written so).
    ascii: bool,
}

/// The sets read: what each agent writes as it runs, Claude's saved sessions, and those spelt
/// in ASCII.
const SETS: [Set; 6] = [
    Set {
        name: "claude stream",
        agent: "claude-code",
        file: "stream.jsonl",
        ascii: false,
    },
    Set {
        name: "claude session",
        agent: "claude-code",
        file: "session.jsonl",
        ascii: false,
    },
    Set {
        name: "claude session ascii",
        agent: "claude-code",
        file: "session.jsonl",
        ascii: true,
    },
    Set {
        name: "codex stream",
        agent: "codex",
        file: "stream.jsonl",
        ascii: false,
    },
    Set {
        name: "codex rollout",
        agent: "codex",
        file: "sessions",
        ascii: false,
    },
    Set {
        name: "gemini stream",
        agent: "gemini-cli",
        file: "stream.jsonl",
        ascii: false,
    },
];

fn main() {
    let corpus = std::env::var_os("SCRIBE_JSON_CORPUS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
        PathBuf::from,
    );
    if !corpus.is_dir() {
        println!(
            "skipped: no corpus at {} (set SCRIBE_JSON_CORPUS)",
            corpus.display()
        );
        return;
    }
    let rounds = std::env::var("SCRIBE_JSON_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(15);
    let only = std::env::var("SCRIBE_JSON_BENCH_ONLY").ok();
    let sets = std::env::var("SCRIBE_JSON_BENCH_SET").unwrap_or_default();
    println!(
        "{:<16} {:>6} {:>8}  {}",
        "set",
        "lines",
        "MB",
        WAYS.map(|(name, _)| format!("{name:>12}")).join("")
    );
    for set in SETS.iter().filter(|set| set.name.contains(sets.as_str())) {
        let lines = lines_of(&corpus, set);
        if lines.is_empty() {
            println!("{:<16} no files", set.name);
            continue;
        }
        let bytes: usize = lines.iter().map(String::len).sum();
        let mut figures = String::new();
        for (name, read) in WAYS {
            if only.as_deref().is_some_and(|o| o != name) {
                figures.push_str(&format!("{:>12}", "-"));
                continue;
            }
            let best = fastest_round(&lines, read, rounds);
            let mb_s = bytes as f64 / 1e6 / best.as_secs_f64();
            figures.push_str(&format!("{mb_s:>12.1}"));
        }
        println!(
            "{:<16} {:>6} {:>8.2}  {figures}",
            set.name,
            lines.len(),
            bytes as f64 / 1e6
        );
    }
    println!("(MB/s, the fastest of {rounds} rounds)");
}

/// The time of the fastest of `rounds` reads of every line.
fn fastest_round(lines: &[String], read: fn(&str) -> bool, rounds: u32) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..rounds.max(1) {
        let start = Instant::now();
        let mut read_ok = 0usize;
        for line in lines {
            read_ok += usize::from(read(line));
        }
        black_box(read_ok);
        best = best.min(start.elapsed());
    }
    best
}

/// Every non-blank line of the set's files: each `<agent>/<case>/<file>` of the corpus, or the
/// `.jsonl` files under it when it is a folder.
fn lines_of(corpus: &Path, set: &Set) -> Vec<String> {
    let Ok(cases) = std::fs::read_dir(corpus.join(set.agent)) else {
        return Vec::new();
    };
    let mut folders: Vec<PathBuf> = cases.flatten().map(|c| c.path().join(set.file)).collect();
    let mut paths = Vec::new();
    while let Some(path) = folders.pop() {
        if path.is_file() {
            paths.push(path);
        } else if let Ok(entries) = std::fs::read_dir(&path) {
            for entry in entries.flatten().map(|e| e.path()) {
                match entry.is_dir() {
                    true => folders.push(entry),
                    false if entry.extension().is_some_and(|x| x == "jsonl") => paths.push(entry),
                    false => {}
                }
            }
        }
    }
    paths.sort();
    let texts = paths.iter().filter_map(|p| std::fs::read_to_string(p).ok());
    let lines = texts.flat_map(|text| {
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| if set.ascii { ascii(l) } else { l.to_owned() })
            .collect::<Vec<_>>()
    });
    lines.collect()
}

/// `line` with every character past ASCII written as a `\u` escape (two for one past U+FFFF),
/// as `json.dumps` writes it: such characters are only ever inside strings.
fn ascii(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    for c in line.chars() {
        if c.is_ascii() {
            out.push(c);
            continue;
        }
        for unit in c.encode_utf16(&mut [0; 2]) {
            out.push_str(&format!("\\u{unit:04x}"));
        }
    }
    out
}
