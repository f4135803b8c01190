/// `opens_at_start` says what `find_open` finding a tag at 0 says, for every kind of text.
#[test]
fn opens_at_start_agrees_with_find_open() {
    let texts = [
        "<a>x</a>",
        "<a x=1>y</a>",
        "<a x=1 no end",
        "<ab>",
        "<a",
        "x<a>",
        "<b><a>",
        "",
        "<",
        "<a\n>",
        "  <a>",
        "<a\t",
        "<b x> <a>",
    ];
    for t in texts {
        for tag in ["a", "ab", "b"] {
            assert_eq!(
                opens_at_start(t, tag),
                find_open(t, tag, 0).is_some_and(|(s, _)| s == 0),
                "{t:?} {tag}"
            );
        }
    }
}

use super::tags::{find_open, opens_at_start};
use super::*;

fn plain(text: &str) -> Classified {
    classify(text, Flags::default(), None)
}

fn reason(c: &Classified) -> Option<SyntheticReason> {
    match c.origin {
        TurnOrigin::Synthetic { reason } => Some(reason),
        _ => None,
    }
}

/// Row 3 beats row 5: a flagged message that opens a sub-agent thread is harness context,
/// not the sub-agent's prompt; the flag and the thread are independent.
#[test]
fn the_synthetic_flag_beats_a_subagent_first_turn() {
    let flags = Flags {
        synthetic: true,
        subagent_first: true,
        ..Flags::default()
    };
    let c = classify(
        "<system-reminder>ctx</system-reminder>",
        flags,
        Some("toolu_A"),
    );
    assert_eq!(reason(&c), Some(SyntheticReason::SystemReminder));
    // Without the flag the same thread's first turn is the prompt.
    let prompt = Flags {
        subagent_first: true,
        ..Flags::default()
    };
    let c = classify("check it", prompt, Some("toolu_A"));
    assert_eq!(
        c.origin,
        TurnOrigin::SubagentPrompt {
            parent_tool_call_id: "toolu_A".into()
        }
    );
}

/// Row 4 before row 5: machinery in a sub-agent's first turn stays machinery.
#[test]
fn machinery_in_a_subagent_first_turn_stays_machinery() {
    let flags = Flags {
        subagent_first: true,
        ..Flags::default()
    };
    let c = classify("[Request interrupted by user]", flags, Some("toolu_A"));
    assert_eq!(reason(&c), Some(SyntheticReason::Interrupt));
    let c = classify(
        "<local-command-stdout>ok</local-command-stdout>",
        flags,
        Some("toolu_A"),
    );
    assert_eq!(reason(&c), Some(SyntheticReason::LocalCommandOutput));
}

/// The interrupt marker is machinery on a line of its own; a prompt that begins with its
/// words and goes on is the person's (repro t1 u3); later lines after it are their words.
#[test]
fn the_interrupt_marker_only_on_a_line_of_its_own() {
    let quoted = plain("[Request interrupted by user] happens when I press ESC - why?");
    assert_eq!(quoted.origin, TurnOrigin::UserInput);
    assert_eq!(
        quoted.text,
        "[Request interrupted by user] happens when I press ESC - why?"
    );
    let marker = plain("[Request interrupted by user for tool use]");
    assert_eq!(reason(&marker), Some(SyntheticReason::Interrupt));
    assert_eq!(marker.machinery["forToolUse"], true);
    let then = plain("[Request interrupted by user]\nnow do Y instead");
    assert_eq!(then.origin, TurnOrigin::UserInput);
    assert!(then.text.ends_with("now do Y instead"));
    assert_eq!(then.machinery["kind"], "interrupt");
}

/// What the hook system writes for a hook is hook output, whatever the hook event; a prompt
/// that talks about hooks is not.
#[test]
fn hook_feedback_is_hook_output() {
    let flagged = |t: &str| {
        classify(
            t,
            Flags {
                synthetic: true,
                ..Flags::default()
            },
            None,
        )
    };
    for t in [
        "Stop hook feedback: lint failed",
        "SubagentStop hook feedback:\nrun the tests",
        "PreToolUse:Bash hook error: denied",
    ] {
        assert_eq!(
            reason(&flagged(t)),
            Some(SyntheticReason::HookOutput),
            "{t}"
        );
    }
    assert_eq!(
        reason(&flagged("Why does the stop hook feedback: line appear?")),
        Some(SyntheticReason::Other)
    );
}

#[test]
fn slash_command_tags_in_any_order() {
    let a = plain(
        "<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>src/</command-args>",
    );
    let b = plain(
        "<command-name>/review</command-name>\n            <command-message>review</command-message>\n            <command-args>src/</command-args>",
    );
    for c in [&a, &b] {
        assert_eq!(c.origin, TurnOrigin::UserInput, "arguments carry a request");
        assert_eq!(c.text, "/review src/");
        assert_eq!(c.machinery["args"], "src/");
        assert!(
            c.machinery["raw"]
                .as_str()
                .unwrap()
                .contains("<command-args>")
        );
    }
}

/// Real 1.0.98 and 2.0.26 rows (corpus/external): `/orchestrator …` and `/init` are the
/// user's turn, `/clear` a notice.
#[test]
fn slash_commands_that_carry_a_request_are_the_users_turn() {
    let orchestrator = plain(
        "<command-message>orchestrator is running…</command-message>\n<command-name>/orchestrator</command-name>\n<command-args>create TODO app by Next.js</command-args>",
    );
    assert_eq!(orchestrator.origin, TurnOrigin::UserInput);
    assert_eq!(
        orchestrator.text,
        "/orchestrator create TODO app by Next.js"
    );
    let init = plain(
        "<command-message>init is analyzing your codebase…</command-message>\n<command-name>/init</command-name>",
    );
    assert_eq!(init.origin, TurnOrigin::UserInput);
    assert_eq!(init.text, "/init");
    // 1.0.17 writes the name without its slash.
    let old = plain(
        "<command-message>init is analyzing your codebase…</command-message>\n                      <command-name>init</command-name>\n                      <command-args></command-args>",
    );
    assert_eq!(
        (old.origin, old.text.as_str()),
        (TurnOrigin::UserInput, "/init")
    );
    let clear = plain(
        "<command-name>/clear</command-name>\n            <command-message>clear</command-message>\n            <command-args></command-args>",
    );
    assert_eq!(reason(&clear), Some(SyntheticReason::SlashCommand));
    assert_eq!(clear.text, "/clear");
}

#[test]
fn a_prompt_that_mentions_machinery_is_a_prompt() {
    for text in [
        "why does the log show <bash-input>ls</bash-input> twice?",
        "explain what <command-name>/clear</command-name> does in the session file",
        "is <local-command-stdout> escaped?",
        "the <task-notification> tag: where is it written?",
    ] {
        let c = plain(text);
        assert_eq!(c.origin, TurnOrigin::UserInput, "{text}");
        assert_eq!(c.text, text);
    }
}

#[test]
fn a_question_after_a_command_block_is_kept() {
    let c = plain(
        "<command-name>/clear</command-name><command-args></command-args>\nnow, what was the bug?",
    );
    assert_eq!(c.origin, TurnOrigin::UserInput);
    assert_eq!(c.text, "/clear\nnow, what was the bug?");
    assert_eq!(c.machinery["kind"], "slash-command");
    let b = plain("<bash-stdout>ok</bash-stdout><bash-stderr></bash-stderr> and this?");
    assert_eq!(b.origin, TurnOrigin::UserInput);
    assert!(b.text.ends_with("and this?"));
}

#[test]
fn classified_text_keeps_its_raw_form() {
    for raw in [
        "<local-command-stdout>Set model to opus</local-command-stdout>",
        "<bash-input>git status</bash-input>",
        "<task-notification><task-id>b1</task-id><summary>done</summary></task-notification>",
        "fix it<system-reminder>be careful</system-reminder>",
    ] {
        let c = plain(raw);
        assert_eq!(c.machinery["raw"], raw, "{raw}");
    }
    assert!(!plain("just words").machinery.contains_key("raw"));
}

#[test]
fn interrupt_markers() {
    let c = plain("[Request interrupted by user for tool use]");
    assert_eq!(reason(&c), Some(SyntheticReason::Interrupt));
    assert_eq!(c.machinery["forToolUse"], true);
    assert_eq!(
        reason(&plain("[Request interrupted by user]")),
        Some(SyntheticReason::Interrupt)
    );
}

#[test]
fn bash_output_with_exit_code() {
    let c = plain(
        "<bash-stdout>hi</bash-stdout><bash-stderr>oops</bash-stderr><bash-exit-code>130</bash-exit-code>",
    );
    assert_eq!(reason(&c), Some(SyntheticReason::BashOutput));
    assert_eq!(c.machinery["exitCode"], 130);
    assert_eq!(c.text, "hi\noops");
}

#[test]
fn task_notification_is_rewritten() {
    let c = plain(
        "<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n<summary>Background command \"sleep\" completed</summary>\n</task-notification>",
    );
    assert_eq!(c.origin, TurnOrigin::Notification);
    assert_eq!(c.text, "Background command \"sleep\" completed");
    assert_eq!(c.machinery["taskId"], "b1");
}

#[test]
fn reminders_are_stripped_from_real_text() {
    let c = plain("fix it<system-reminder>be careful</system-reminder>");
    assert_eq!(c.origin, TurnOrigin::UserInput);
    assert_eq!(c.text, "fix it");
    assert_eq!(c.machinery["systemReminders"][0], "be careful");
    let only = plain("<system-reminder>x</system-reminder>");
    assert_eq!(reason(&only), Some(SyntheticReason::SystemReminder));
}

#[test]
fn local_command_rows_read_like_the_old_user_messages() {
    let cmd = local_command(
        "<command-name>/context</command-name>\n<command-message>context</command-message>\n<command-args></command-args>",
    );
    assert_eq!(reason(&cmd), Some(SyntheticReason::SlashCommand));
    assert_eq!(cmd.text, "/context");
    let out = local_command(
        "<local-command-stdout>\u{1b}[1mContext Usage\u{1b}[22m\n\u{1b}[38;2;136;136;136m⛁ \u{1b}[39m 12k/200k tokens</local-command-stdout>",
    );
    assert_eq!(reason(&out), Some(SyntheticReason::LocalCommandOutput));
    // The colours stay in the text, for the renderers (`render::sgr`).
    assert_eq!(
        out.text,
        "\u{1b}[1mContext Usage\u{1b}[22m\n\u{1b}[38;2;136;136;136m⛁ \u{1b}[39m 12k/200k tokens"
    );
    assert!(out.machinery["raw"].as_str().unwrap().contains('\u{1b}'));
    let wire = local_command("Total cost: $1.23\nTotal duration: 5m 12s");
    assert_eq!(reason(&wire), Some(SyntheticReason::LocalCommandOutput));
    assert_eq!(wire.text, "Total cost: $1.23\nTotal duration: 5m 12s");
}

#[test]
fn terminal_escapes_are_stripped() {
    assert_eq!(
        strip_terminal_escapes(
            "a\u{1b}[31mred\u{1b}[0m \u{1b}]8;;http://x\u{1b}\\link\u{1b}]8;;\u{7}z"
        ),
        "ared linkz"
    );
}

#[test]
fn a_tag_name_prefix_is_not_a_tag() {
    assert_eq!(plain("<statusbar> is fine").origin, TurnOrigin::UserInput);
}
