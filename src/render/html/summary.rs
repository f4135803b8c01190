//! A tool call's input in one short line (the card's summary).
//!
//! Kept inside the HTML renderer for now; the terminal and Markdown renderers have their own, and
//! the lead will unify them.

use serde_json::Value;

/// At most this many characters are shown.
const MAX: usize = 100;

/// The one-line summary of a call's input: the command, path, pattern, URL, … it acts on.
pub(crate) fn input_summary(tool: &str, input: &Value) -> String {
    let s = |k: &str| input.get(k).and_then(Value::as_str);
    let line = match tool {
        "Bash" | "BashOutput" => s("command").map(str::to_owned),
        "Read" | "Write" | "Edit" | "MultiEdit" | "NotebookEdit" | "NotebookRead" => {
            s("file_path").or(s("notebook_path")).map(str::to_owned)
        }
        "Glob" | "Grep" => s("pattern").map(|p| match s("path") {
            Some(path) => format!("{p}  in {path}"),
            None => p.to_owned(),
        }),
        "WebFetch" => s("url").map(str::to_owned),
        "WebSearch" => s("query").map(str::to_owned),
        "Agent" | "Task" => s("description").map(str::to_owned),
        "Skill" => s("skill").or(s("command")).map(str::to_owned),
        "TodoWrite" => input
            .get("todos")
            .and_then(Value::as_array)
            .map(|t| format!("{} item{}", t.len(), if t.len() == 1 { "" } else { "s" })),
        _ => None,
    };
    let line = line.or_else(|| first_string(input)).unwrap_or_default();
    one_line(&line)
}

/// The first string value of an object, for tools nobody taught us about.
fn first_string(input: &Value) -> Option<String> {
    input
        .as_object()?
        .values()
        .find_map(Value::as_str)
        .map(str::to_owned)
}

/// The first non-blank line, cut to `MAX` characters with an ellipsis.
fn one_line(s: &str) -> String {
    let first = s
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let more_lines = s.trim().lines().nth(1).is_some();
    let mut out: String = first.chars().take(MAX).collect();
    if first.chars().count() > MAX || more_lines {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn known_tools() {
        assert_eq!(
            input_summary("Bash", &json!({"command": "ls -la"})),
            "ls -la"
        );
        assert_eq!(
            input_summary("Grep", &json!({"pattern": "fn main", "path": "src"})),
            "fn main  in src"
        );
        assert_eq!(
            input_summary("TodoWrite", &json!({"todos": [{}, {}]})),
            "2 items"
        );
        assert_eq!(
            input_summary("mcp__echo__echo", &json!({"n": 1, "text": "hi"})),
            "hi"
        );
    }

    #[test]
    fn long_and_multiline_inputs_are_cut() {
        assert_eq!(input_summary("Bash", &json!({"command": "a\nb"})), "a…");
        let long = "x".repeat(300);
        assert_eq!(
            input_summary("Bash", &json!({ "command": long }))
                .chars()
                .count(),
            MAX + 1
        );
    }
}
