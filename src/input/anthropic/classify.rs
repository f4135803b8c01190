//! The §4 classifier: what a user-role message really is.
//!
//! Every tool result and every harness-injected prompt arrives as a `user` message, so the
//! envelope lies. This module decides, in the table's priority order, what the text of a user
//! message is: real input, harness context, or one of the pieces of CLI machinery that the CLI
//! writes without any flag (slash-command records, local-command output, interrupt markers,
//! bash mode, memory notes, task notifications, caveats, compaction continuations). Tool results
//! (row 2) are split off before this by the adapter.

use serde_json::{Map, Value, json};

use crate::model::transcript::{SyntheticReason, TurnOrigin};

mod ide;
mod notification;
mod tags;

pub(crate) use ide::ide_context;
use notification::task_notification;
use tags::{elem, find_tag, has_tag, leading, tag_text};

/// The flags the envelope carried, in the wire's terms.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Flags {
    /// `isReplay` (row 1).
    pub(crate) replay: bool,
    /// `isSynthetic` on the wire, `isMeta` / `isVisibleInTranscriptOnly` in a saved session (row 3).
    pub(crate) synthetic: bool,
    /// `isCompactSummary` (a saved session's flag; on the wire it shows as `isSynthetic`).
    pub(crate) compact_summary: bool,
    /// The first user message of a sub-agent thread (row 5).
    pub(crate) subagent_first: bool,
    /// The message before this one was a slash-command record: a flagged message right after
    /// it is the command's expansion (its prompt file's body).
    pub(crate) after_command: bool,
}

/// The outcome: why the message exists, its text as a reader should see it, and what was parsed
/// out of machinery markup.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Classified {
    pub(crate) origin: TurnOrigin,
    /// The text to show (machinery rewritten to something readable, envelopes stripped).
    pub(crate) text: String,
    pub(crate) machinery: Map<String, Value>,
}

/// Classifies the text of a user message (all its text blocks joined), given its flags, by §4's
/// rows in their order: a replay (row 1) before anything else, then the synthetic flag (row 3),
/// machinery (row 4), a sub-agent's first message (row 5) and real input (row 6). Row 2, tool
/// results, the adapter splits off first. `parent` is the Agent call id when the message belongs
/// to a sub-agent thread.
pub(crate) fn classify(text: &str, flags: Flags, parent: Option<&str>) -> Classified {
    if flags.replay {
        return replayed(classify(
            text,
            Flags {
                replay: false,
                ..flags
            },
            parent,
        ));
    }
    if flags.synthetic || flags.compact_summary {
        return flagged(text, flags);
    }
    if let Some(c) = machinery(text) {
        return c;
    }
    if flags.subagent_first {
        if let Some(p) = parent {
            return Classified {
                origin: TurnOrigin::SubagentPrompt {
                    parent_tool_call_id: p.to_owned(),
                },
                text: text.to_owned(),
                machinery: Map::new(),
            };
        }
    }
    real_input(text)
}

/// Row 1: a replayed message is a replay whatever it carries (a reminder, a command record, a
/// notification, a prompt): shown once, as a replay, never as the thing itself a second time.
/// What it would have been otherwise is kept beside it (`machinery.replayOf`).
fn replayed(c: Classified) -> Classified {
    let mut machinery = c.machinery;
    if c.origin != TurnOrigin::UserInput {
        if let Ok(was) = serde_json::to_value(&c.origin) {
            machinery.insert("replayOf".into(), was);
        }
    }
    Classified {
        origin: TurnOrigin::Replay,
        text: c.text,
        machinery,
    }
}

/// Row 3: a flagged message is harness context; its reason comes from what it begins with or
/// holds, and from the message before it. A slash-command record counts only where the record
/// stands, at the start (then its fields are parsed as row 4 would): a skill body or reminder
/// that quotes `<command-name>` further on is not a command.
fn flagged(text: &str, flags: Flags) -> Classified {
    if !flags.compact_summary {
        if let Some((elems, rest)) = leading(text, COMMAND_TAGS) {
            let (reason, shown, mut machinery) = slash_command(&elems);
            machinery.remove("request");
            let c = Classified {
                origin: TurnOrigin::Synthetic { reason },
                text: join_nonempty(&shown, rest),
                machinery,
            };
            return keep_raw(c, text);
        }
    }
    let reason = if flags.compact_summary || is_compact_continuation(text) {
        SyntheticReason::CompactSummary
    } else {
        synthetic_reason(text, flags.after_command)
    };
    Classified {
        origin: TurnOrigin::Synthetic { reason },
        text: text.to_owned(),
        machinery: Map::new(),
    }
}

/// Whether a classified message is a slash-command record (with or without the request it
/// carries): the flagged message after it is the command's expansion.
pub(crate) fn is_command_record(c: &Classified) -> bool {
    let record = c.machinery.contains_key("command")
        && !c.machinery.contains_key("stdout")
        && !c.machinery.contains_key("kind");
    match &c.origin {
        TurnOrigin::Synthetic {
            reason: SyntheticReason::SlashCommand,
        } => record,
        TurnOrigin::UserInput => record && c.machinery.contains_key("request"),
        TurnOrigin::ToolReturn { .. }
        | TurnOrigin::Synthetic { .. }
        | TurnOrigin::SubagentPrompt { .. }
        | TurnOrigin::Replay
        | TurnOrigin::Notification
        | TurnOrigin::Model => false,
    }
}

/// Row 3: guesses what kind of harness context a flagged message is (a slash-command record
/// at its start aside, which [`flagged`] reads). `after_command`: the message before it was a
/// slash-command record, so a body of no other known kind is that command's expansion.
fn synthetic_reason(text: &str, after_command: bool) -> SyntheticReason {
    let t = text.trim_start();
    if t.starts_with("Base directory for this skill:") {
        SyntheticReason::SkillBody
    } else if t.starts_with("<local-command-caveat>") || t.starts_with(OLD_CAVEAT) {
        SyntheticReason::LocalCommandCaveat
    } else if has_tag(t, "system-reminder") || has_tag(t, "system_reminder") {
        SyntheticReason::SystemReminder
    } else if has_tag(t, "user-prompt-submit-hook")
        || t.contains("hook success:")
        || t.contains("hook additional context")
        || is_hook_feedback(t)
    {
        SyntheticReason::HookOutput
    } else if after_command {
        SyntheticReason::CommandExpansion
    } else {
        SyntheticReason::Other
    }
}

/// What the hook system writes back to the model on a hook's behalf: `<Event> hook feedback:`
/// (a Stop or SubagentStop hook that blocks), `<Event>[:<Tool>] hook error:` /
/// `hook blocking error`, `<Event> hook success:`. The first line is the hook system's, so a
/// person's prompt that talks about hooks further on is not taken for one.
fn is_hook_feedback(t: &str) -> bool {
    let first = t.lines().next().unwrap_or_default();
    let Some((event, after)) = first.split_once(" hook ") else {
        return false;
    };
    let event_like = !event.is_empty()
        && event
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == ':' || c == '_' || c == '-')
        && event.starts_with(|c: char| c.is_ascii_uppercase());
    event_like
        && [
            "feedback:",
            "success:",
            "error:",
            "blocking error",
            "additional context",
        ]
        .iter()
        .any(|w| after.starts_with(w))
}

const OLD_CAVEAT: &str =
    "Caveat: The messages below were generated by the user while running local commands.";
const COMPACT_CONTINUATION: &str =
    "This session is being continued from a previous conversation that ran out of context.";
const NOTIFICATION_PREAMBLE: &str = "[SYSTEM NOTIFICATION - NOT USER INPUT]";

fn is_compact_continuation(text: &str) -> bool {
    text.trim_start().starts_with(COMPACT_CONTINUATION)
}

/// Row 4: CLI machinery written without any flag. A message *is* machinery when it begins with
/// the machinery's markup (a prompt that mentions or quotes a tag further on is a prompt). Text
/// after the markup is a person's words: the message is then their input, shown with the
/// command above it.
fn machinery(text: &str) -> Option<Classified> {
    let t = text.trim();
    let (reason, shown, m, rest) = if let Some((elems, rest)) = leading(t, COMMAND_TAGS) {
        let (reason, shown, m) = slash_command(&elems);
        (reason, shown, m, rest)
    } else if let Some((elems, rest)) =
        leading(t, &["local-command-stdout", "local-command-stderr"])
    {
        let stdout = elem(&elems, "local-command-stdout");
        let stderr = elem(&elems, "local-command-stderr");
        let mut m = Map::new();
        m.insert("stdout".into(), json!(stdout));
        if !stderr.is_empty() {
            m.insert("stderr".into(), json!(stderr));
        }
        // Terminal colours stay in the text (the renderers draw or drop them).
        let shown = join_nonempty(&stdout, &stderr);
        (SyntheticReason::LocalCommandOutput, shown, m, rest)
    } else if let Some((marker, rest)) = interrupt_marker(t) {
        let mut m = Map::new();
        m.insert(
            "forToolUse".into(),
            json!(marker == "[Request interrupted by user for tool use]"),
        );
        (SyntheticReason::Interrupt, marker.to_owned(), m, rest)
    } else if let Some((elems, rest)) = leading(t, &["bash-input"]) {
        let command = elem(&elems, "bash-input");
        let mut m = Map::new();
        m.insert("command".into(), json!(command));
        (SyntheticReason::BashInput, format!("! {command}"), m, rest)
    } else if let Some((elems, rest)) =
        leading(t, &["bash-stdout", "bash-stderr", "bash-exit-code"])
    {
        let stdout = elem(&elems, "bash-stdout");
        let stderr = elem(&elems, "bash-stderr");
        let mut m = Map::new();
        m.insert("stdout".into(), json!(stdout));
        m.insert("stderr".into(), json!(stderr));
        if let Some((_, code)) = elems.iter().find(|(tag, _)| *tag == "bash-exit-code") {
            match code.trim().parse::<i64>() {
                Ok(n) => m.insert("exitCode".into(), json!(n)),
                Err(_) => m.insert("exitCode".into(), json!(code)),
            };
        }
        let shown = strip_terminal_escapes(&join_nonempty(&stdout, &stderr));
        (SyntheticReason::BashOutput, shown, m, rest)
    } else if let Some((elems, rest)) = leading(t, &["user-memory-input"]) {
        let note = elem(&elems, "user-memory-input");
        let mut m = Map::new();
        m.insert("note".into(), json!(note));
        (SyntheticReason::MemoryInput, format!("# {note}"), m, rest)
    } else if t.starts_with("<task-notification") || t.starts_with(NOTIFICATION_PREAMBLE) {
        return Some(keep_raw(task_notification(t), text));
    } else if t.starts_with("<local-command-caveat>") || t.starts_with(OLD_CAVEAT) {
        let inner = tag_text(t, "local-command-caveat").unwrap_or_else(|| t.to_owned());
        (SyntheticReason::LocalCommandCaveat, inner, Map::new(), "")
    } else if is_compact_continuation(t) {
        (
            SyntheticReason::CompactSummary,
            t.to_owned(),
            Map::new(),
            "",
        )
    } else {
        return None;
    };
    let origin = if reason == SyntheticReason::SlashCommand && m.contains_key("request") {
        TurnOrigin::UserInput
    } else {
        TurnOrigin::Synthetic { reason }
    };
    let c = if rest.is_empty() {
        Classified {
            origin,
            text: shown,
            machinery: m,
        }
    } else {
        // A real question after the block: the person's input, the block above it.
        let mut m = m;
        m.insert("kind".into(), json!(reason.name()));
        Classified {
            origin: TurnOrigin::UserInput,
            text: join_nonempty(&shown, rest),
            machinery: m,
        }
    };
    Some(keep_raw(c, text))
}

/// The CLI's interrupt marker (`[Request interrupted by user]`, `… for tool use]`, any other
/// `[Request interrupted by user…]`) when it stands on a line of its own at the start: the
/// marker and what follows it on later lines. A prompt that begins with the marker's words and
/// goes on on the same line ("[Request interrupted by user] happens when I press ESC - why?")
/// quotes it: that is the person's prompt, not an interrupt.
fn interrupt_marker(t: &str) -> Option<(&str, &str)> {
    if !t.starts_with("[Request interrupted by user") {
        return None;
    }
    let end = t.find(']')? + 1;
    let (marker, rest) = t.split_at(end);
    if marker.contains('\n') {
        return None;
    }
    let same_line = rest.split('\n').next().unwrap_or_default();
    same_line.trim().is_empty().then_some((marker, rest.trim()))
}

/// The tags of a slash-command record (any order, any whitespace between them).
const COMMAND_TAGS: &[&str] = &[
    "command-name",
    "command-message",
    "command-args",
    "command-contents",
    "skill-format",
];

/// A slash-command record. A command that carries the user's request (arguments, an expanded
/// body, or a command whose message is not just its name, as prompt commands such as `/init`
/// write "init is analyzing your codebase…") is the user's turn; one that only changes the CLI
/// (`/clear`, `/model`) is a notice. 1.0.x writes the name without its slash.
fn slash_command(elems: &[(&str, String)]) -> (SyntheticReason, String, Map<String, Value>) {
    let get = |tag: &str| {
        elems
            .iter()
            .find(|(t, _)| *t == tag)
            .map(|(_, inner)| inner.clone())
    };
    let name = get("command-name").unwrap_or_default();
    let message = get("command-message");
    let args = get("command-args").unwrap_or_default();
    let contents = get("command-contents");
    let bare = match name.trim_start_matches('/') {
        "" => message.clone().unwrap_or_default(),
        n => n.to_owned(),
    };
    let shown_name = format!("/{bare}");
    // A legacy record that has only `<command-contents>` (no name, no message): its text is the
    // command as typed, and is what the reader sees (not a bare "/").
    let legacy = bare
        .is_empty()
        .then(|| contents.as_deref().map(str::trim))
        .flatten()
        .filter(|c| !c.is_empty());
    let shown = if let Some(c) = legacy {
        c.to_owned()
    } else if args.is_empty() {
        shown_name.clone()
    } else {
        format!("{shown_name} {args}")
    };
    let carries_request = !args.is_empty()
        || contents.is_some()
        || message
            .as_deref()
            .is_some_and(|msg| !msg.is_empty() && msg != bare && !name.is_empty());
    let command = match legacy {
        Some(c) => c.split_whitespace().next().unwrap_or(c).to_owned(),
        None => shown_name,
    };
    let mut m = Map::new();
    m.insert("command".into(), json!(command));
    if let Some(msg) = message {
        m.insert("message".into(), json!(msg));
    }
    if !args.is_empty() {
        m.insert("args".into(), json!(args));
    }
    if let Some(c) = contents {
        m.insert("contents".into(), json!(c));
    }
    if let Some(sf) = get("skill-format") {
        m.insert("skillFormat".into(), json!(sf));
    }
    if carries_request {
        m.insert("request".into(), json!(true));
    }
    (SyntheticReason::SlashCommand, shown, m)
}

/// A local command's output as it is written to a `system` row (`system/local_command` in 2.1.x
/// saved sessions, `system/local_command_output` on the wire): the same turn the user message
/// of older CLIs gives, markup and terminal escapes taken out, the raw text kept. Output with no
/// markup (the wire's `content`) is the command's output.
pub(crate) fn local_command(content: &str) -> Classified {
    let c = classify(content, Flags::default(), None);
    match c.origin {
        TurnOrigin::UserInput if !c.machinery.contains_key("command") => keep_raw(
            Classified {
                origin: TurnOrigin::Synthetic {
                    reason: SyntheticReason::LocalCommandOutput,
                },
                text: content.trim().to_owned(),
                machinery: Map::new(),
            },
            content,
        ),
        _ => c,
    }
}

/// Text without terminal control sequences (CSI such as colours, OSC such as titles and links,
/// and other escapes): `!` shell commands colour their output for the terminal; the transcript
/// keeps the words (the raw text stays in `machinery.raw`). A local command's output (`/context`)
/// keeps its colours instead, for the renderers (`render::sgr`).
pub(crate) fn strip_terminal_escapes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                // CSI: parameters and intermediates up to a final byte in @..~.
                Some('[') => {
                    for n in chars.by_ref() {
                        if ('@'..='~').contains(&n) {
                            break;
                        }
                    }
                }
                // OSC (and DCS, SOS, PM, APC): up to BEL or ESC \.
                Some(']' | 'P' | 'X' | '^' | '_') => {
                    while let Some(n) = chars.next() {
                        if n == '\u{7}' {
                            break;
                        }
                        if n == '\u{1b}' {
                            chars.next_if_eq(&'\\');
                            break;
                        }
                    }
                }
                // A two-character escape.
                Some(_) | None => {}
            },
            '\u{9b}' => {
                for n in chars.by_ref() {
                    if ('@'..='~').contains(&n) {
                        break;
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// The raw text beside the classification, when the shown text is not it: no rule loses words.
fn keep_raw(mut c: Classified, raw: &str) -> Classified {
    if c.text != raw.trim() {
        c.machinery.insert("raw".into(), json!(raw));
    }
    c
}

/// Row 6: real input, with `<system-reminder>` and `<user-prompt-submit-hook>` envelopes taken
/// out (and kept in the machinery, not dropped). A message that was nothing but envelopes is
/// harness context.
fn real_input(text: &str) -> Classified {
    let mut kept = text.to_owned();
    let mut removed: Vec<(&str, String)> = Vec::new();
    for tag in [
        "system-reminder",
        "system_reminder",
        "user-prompt-submit-hook",
    ] {
        while let Some((start, end, inner)) = find_tag(&kept, tag) {
            removed.push((tag, inner));
            kept.replace_range(start..end, "");
        }
    }
    if removed.is_empty() {
        return Classified {
            origin: TurnOrigin::UserInput,
            text: text.to_owned(),
            machinery: Map::new(),
        };
    }
    let (hooks, reminders): (Vec<_>, Vec<_>) = removed
        .into_iter()
        .partition(|(t, _)| *t == "user-prompt-submit-hook");
    let only_hooks = reminders.is_empty();
    let mut m = Map::new();
    for (key, list) in [("systemReminders", reminders), ("promptHooks", hooks)] {
        if !list.is_empty() {
            m.insert(key.into(), list.into_iter().map(|(_, s)| s).collect());
        }
    }
    let kept = kept.trim().to_owned();
    if kept.is_empty() {
        let reason = if only_hooks {
            SyntheticReason::HookOutput
        } else {
            SyntheticReason::SystemReminder
        };
        return Classified {
            origin: TurnOrigin::Synthetic { reason },
            text: text.trim().to_owned(),
            machinery: m,
        };
    }
    keep_raw(
        Classified {
            origin: TurnOrigin::UserInput,
            text: kept,
            machinery: m,
        },
        text,
    )
}

fn join_nonempty(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (false, false) => format!("{a}\n{b}"),
        (false, true) => a.to_owned(),
        (true, _) => b.to_owned(),
    }
}

#[cfg(test)]
mod tests;
