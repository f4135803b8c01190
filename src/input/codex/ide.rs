//! What Codex's IDE extension puts before the words a person typed: a `# Context from my IDE
//! setup:` block (open tabs, the active file, a selection), then `## My request for Codex:` and
//! the request. The block is context, split off so that the prompt — and the session's title —
//! is what was typed.

use crate::model::transcript::{Part, SyntheticReason, Turn, TurnOrigin};

/// The heading the extension opens its context block with.
const CONTEXT_HEADING: &str = "# Context from my IDE setup:";

/// The heading the typed request follows.
const REQUEST_HEADING: &str = "## My request for Codex:";

/// The context block and the request, when `text` is the extension's shape; `None` otherwise
/// (a prompt typed in the terminal, or a block with no request heading).
pub(super) fn split(text: &str) -> Option<(&str, &str)> {
    let body = text.trim_start();
    if !body.starts_with(CONTEXT_HEADING) {
        return None;
    }
    let at = body.find(&format!("\n{REQUEST_HEADING}"))?;
    let context = body[..at].trim_end();
    let request = body[at + 1 + REQUEST_HEADING.len()..].trim();
    Some((context, request))
}

/// The turns of a prompt `id` with `text`: the IDE extension's context block as a context turn
/// of its own (`<id>-ide-context`), then the words typed; just the prompt for any other text.
pub(super) fn user_turns(id: String, text: String) -> Vec<Turn> {
    let typed =
        |text: String| Turn::user(id.clone(), TurnOrigin::UserInput, vec![Part::text(text)]);
    match split(&text) {
        Some((context, request)) => {
            let origin = TurnOrigin::Synthetic {
                reason: SyntheticReason::IdeContext,
            };
            let context = vec![Part::text(context.to_owned())];
            vec![
                Turn::user(format!("{id}-ide-context"), origin, context),
                typed(request.to_owned()),
            ]
        }
        None => vec![typed(text)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_is_what_follows_its_heading() {
        let text = "# Context from my IDE setup:\n\n## Open tabs:\n- env.ts: src/env.ts\n\n## My request for Codex:\nFix the login form\n";
        let (context, request) = split(text).unwrap();
        assert_eq!(
            context,
            "# Context from my IDE setup:\n\n## Open tabs:\n- env.ts: src/env.ts"
        );
        assert_eq!(request, "Fix the login form");
        assert_eq!(split("Fix the login form"), None);
        assert_eq!(split("# Context from my IDE setup:\n- a.ts"), None);
    }
}
