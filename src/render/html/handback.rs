//! A sub-agent's hand-back, as the harness wraps it for the model, read back into facts.
//!
//! Claude Code returns a sub-agent's report to the parent model inside a frame: a
//! `<tools-used-before-summary>` line, a `[Subagent hand-back] … The report follows:` notice,
//! the report indented by two spaces, then `agentId: …` and a `<usage>` block of `key: value`
//! lines. The page shows the report as Markdown, the rest as facts, and the frame's lines as
//! the model read them (folded away, so the facts are not all a reader has of them).
//! Text that does not have this shape is not a hand-back and is shown as it is.

/// What a hand-back says.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Handback {
    /// The sub-agent's report, unindented.
    pub(crate) report: String,
    pub(crate) agent_id: Option<String>,
    /// What the trailer says after the id (`(for resuming to continue this agent's work if
    /// needed)`).
    pub(crate) agent_note: Option<String>,
    /// The tools the sub-agent used, as the harness listed them.
    pub(crate) tools_used: Option<String>,
    /// The `<usage>` lines, as (key, value).
    pub(crate) usage: Vec<(String, String)>,
    /// The frame's lines as written, in order: the tools-used line, the notice before the
    /// report, the `agentId` trailer with its `<usage>` block.
    pub(crate) frame: Vec<String>,
}

const FRAME: &str = "[Subagent hand-back]";
const FOLLOWS: &str = "The report follows:";
const TOOLS_OPEN: &str = "<tools-used-before-summary>";
const TOOLS_CLOSE: &str = "</tools-used-before-summary>";

/// Reads a hand-back; `None` when the text has neither the frame nor the `agentId` trailer.
pub(crate) fn parse(text: &str) -> Option<Handback> {
    let mut hb = Handback::default();
    let mut body = text;
    // The trailer: `agentId: X` then an optional `<usage>…</usage>`, and nothing after.
    let mut trailer = false;
    if let Some(at) = body
        .rfind("agentId: ")
        .filter(|&i| i == 0 || body[..i].ends_with('\n'))
    {
        let rest = &body[at + "agentId: ".len()..];
        let (id_line, after) = rest.split_once('\n').unwrap_or((rest, ""));
        let after = after.trim();
        let usage = match after.strip_prefix("<usage>") {
            Some(u) => u.strip_suffix("</usage>").map(Some),
            None if after.is_empty() => Some(None),
            None => None,
        };
        if let Some(usage) = usage {
            trailer = true;
            let (id, note) = id_line.split_once(" (").unwrap_or((id_line, ""));
            let id = id.trim();
            hb.agent_id = (!id.is_empty()).then(|| id.to_owned());
            hb.agent_note = (!note.trim().is_empty()).then(|| format!("({}", note.trim()));
            for line in usage.unwrap_or_default().lines() {
                if let Some((k, v)) = line.split_once(':') {
                    hb.usage.push((k.trim().to_owned(), v.trim().to_owned()));
                }
            }
            hb.frame.push(body[at..].trim().to_owned());
            body = &body[..at];
        }
    }
    let mut written = Vec::new();
    let mut framed = false;
    let trimmed = body.trim_start();
    if let Some(rest) = trimmed.strip_prefix(TOOLS_OPEN)
        && let Some((tools, after)) = rest.split_once(TOOLS_CLOSE)
    {
        hb.tools_used = Some(tools.trim().to_owned());
        written.push(format!("{TOOLS_OPEN}{tools}{TOOLS_CLOSE}"));
        body = after;
    }
    if let Some(f) = body.find(FRAME)
        && body[..f].trim().is_empty()
        && let Some(p) = body[f..].find(FOLLOWS)
    {
        framed = true;
        written.push(body[f..f + p + FOLLOWS.len()].to_owned());
        let after = &body[f + p + FOLLOWS.len()..];
        body = after.strip_prefix('\n').unwrap_or(after);
    }
    if !trailer && !framed {
        return None;
    }
    written.append(&mut hb.frame);
    hb.frame = written;
    hb.report = if framed {
        body.lines()
            .map(|l| l.strip_prefix("  ").unwrap_or(l))
            .collect::<Vec<_>>()
            .join("\n")
            .trim()
            .to_owned()
    } else {
        body.trim().to_owned()
    };
    Some(hb)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_frame_and_trailer_become_facts() {
        let text = "  <tools-used-before-summary>Bash</tools-used-before-summary>\n  \n[Subagent hand-back] The text below is the final report. The report follows:\n  There are 2 files.\n  - a\nagentId: a54c\n<usage>subagent_tokens: 8652\ntool_uses: 1\nduration_ms: 574</usage>\n";
        let hb = parse(text).unwrap();
        assert_eq!(hb.report, "There are 2 files.\n- a");
        assert_eq!(hb.agent_id.as_deref(), Some("a54c"));
        assert_eq!(hb.tools_used.as_deref(), Some("Bash"));
        assert_eq!(hb.usage[0], ("subagent_tokens".into(), "8652".into()));
        assert_eq!(hb.usage.len(), 3);
        assert_eq!(
            hb.frame,
            [
                "<tools-used-before-summary>Bash</tools-used-before-summary>",
                "[Subagent hand-back] The text below is the final report. The report follows:",
                "agentId: a54c\n<usage>subagent_tokens: 8652\ntool_uses: 1\nduration_ms: 574</usage>",
            ]
        );
    }

    #[test]
    fn plain_text_is_not_a_handback() {
        assert_eq!(parse("All done.\nagentId is a word here"), None);
        assert_eq!(parse("report\nagentId: x\nmore text"), None);
        let hb = parse("report\nagentId: x (use SendMessage to continue)").unwrap();
        assert_eq!(
            (hb.report.as_str(), hb.agent_id.as_deref()),
            ("report", Some("x"))
        );
        assert_eq!(
            hb.agent_note.as_deref(),
            Some("(use SendMessage to continue)")
        );
    }
}
