use super::*;

fn text(st: &mut Stable, s: &str) -> String {
    let mut s = s.to_owned();
    st.rewrite_text(&mut s);
    s
}

/// A key's remembered verdict is the verdict, met once or many times, and the memory of
/// verdicts stops growing at its bound.
#[test]
fn remembered_key_verdicts_are_the_verdicts() {
    for keep_usage in [false, true] {
        let mut st = Stable::new(keep_usage);
        let keys = [
            "timestamp",
            "durationMs",
            "elapsed_s",
            "time",
            "start_time",
            "createdAt",
            "version",
            "session_id",
            "sessionId",
            "pid",
            "input_tokens",
            "costUSD",
            "file_path",
            "command",
            "stdout",
            "",
            "Ünïcode_Time",
            "UUID",
        ];
        for _ in 0..2 {
            for k in keys {
                assert_eq!(st.is_volatile_key(k), st.judge_key(k), "{k} {keep_usage}");
            }
        }
        assert!(st.is_volatile_key("timestamp") && !st.is_volatile_key("command"));
        assert_eq!(st.is_volatile_key("input_tokens"), !keep_usage);
        for n in 0..KEYS_REMEMBERED + 100 {
            let k = format!("k{n}_at");
            assert!(st.is_volatile_key(&k), "{k}");
        }
        assert_eq!(st.volatile_keys.len(), KEYS_REMEMBERED);
    }
}

#[test]
fn ids_are_numbered_per_kind_by_first_appearance() {
    let mut st = Stable::new(false);
    let mut a = "toolu_0123456789".to_owned();
    let mut b = "toolu_abcdefghij".to_owned();
    let mut m = "msg_0123456789".to_owned();
    st.id(IdKind::Call, &mut a);
    st.id(IdKind::Turn, &mut m);
    st.id(IdKind::Call, &mut b);
    assert_eq!(
        (a.as_str(), b.as_str(), m.as_str()),
        ("call-1", "call-2", "t1")
    );
    let mut again = "toolu_0123456789".to_owned();
    st.id(IdKind::Call, &mut again);
    assert_eq!(again, "call-1");
    assert_eq!(
        text(&mut st, "result of toolu_abcdefghij"),
        "result of call-2"
    );
    assert_eq!(
        text(
            &mut st,
            "raw 710ebeea-0a89-4141-926d-dc18e6a4cce1 then 710EBEEA-0A89-4141-926D-DC18E6A4CCE2, client_710ebeea-0a89-4141-926d-dc18e6a4cce1"
        ),
        "raw id-1 then id-2, client_id-1"
    );
}

#[test]
fn text_loses_times_temp_dirs_sockets_and_counters() {
    let mut st = Stable::new(false);
    assert_eq!(
        text(
            &mut st,
            "at 2026-11-30T08:16:28.573Z in /tmp/work-a1/x and /tmp/other."
        ),
        "at <time> in <tmp-1>/x and <tmp-2>."
    );
    assert_eq!(text(&mut st, "cd /tmp/work-a1"), "cd <tmp-1>");
    assert_eq!(
        text(&mut st, "/var/folders/zz/abc123/T/tmp.XYZ/f"),
        "<tmp-3>/f"
    );
    assert_eq!(
        text(&mut st, "listen on /tmp/cc-socks/31697.sock"),
        "listen on <socket>"
    );
    assert_eq!(
        text(
            &mut st,
            "done\n<usage>subagent_tokens: 8652\ntool_uses: 1\nduration_ms: 574</usage>"
        ),
        "done\n<usage>subagent_tokens: <n>\ntool_uses: 1\nduration_ms: <n></usage>"
    );
    assert_eq!(
        text(&mut st, "curl -d max_tokens=1024 timeout_duration=5"),
        "curl -d max_tokens=1024 timeout_duration=5"
    );
    let mut keep = Stable::new(true);
    assert_eq!(
        text(
            &mut keep,
            "<usage>subagent_tokens: 8652 duration_ms: 574</usage>"
        ),
        "<usage>subagent_tokens: 8652 duration_ms: <n></usage>"
    );
}

#[test]
fn harness_payloads_lose_volatile_keys_only() {
    let mut st = Stable::new(false);
    let mut v = serde_json::json!({
        "stdout": "hi", "totalDurationMs": 5, "end_time": 1, "createdAt": "x",
        "uuid": "u", "session_id": "s", "claude_code_version": "2", "totalTokens": 3,
        "usage": {"input_tokens": 1}, "status": "completed", "format": "png", "items": 2
    });
    st.value(ValueRole::Meta, &mut v);
    assert_eq!(
        v,
        serde_json::json!({"stdout": "hi", "status": "completed", "format": "png", "items": 2})
    );
    let mut content = serde_json::json!({"timeout_ms": 5});
    st.value(ValueRole::Content, &mut content);
    assert_eq!(content, serde_json::json!({"timeout_ms": 5}));
}

#[test]
fn a_debug_records_raw_line_loses_durations_and_times() {
    let mut st = Stable::new(false);
    let mut raw =
        r#"{"type":"x","durationMs":574,"timestamp":"2026-01-10T10:00:02.000Z","n":3}"#.to_owned();
    st.raw(&mut raw);
    assert_eq!(raw, r#"{"type":"x","n":3}"#);
    let mut cut = r#"{"type":"x","durationMs":574,"n":3,"elapsed_ms": 12.5"#.to_owned();
    st.raw(&mut cut);
    assert_eq!(cut, r#"{"type":"x","durationMs":0,"n":3,"elapsed_ms": 0"#);
}

#[test]
fn a_notice_that_only_reports_cost_says_usage() {
    use crate::model::session::{Level, SystemNotice};
    use crate::model::transcript::TranscriptItem;
    let notice = |source: &str| {
        TranscriptItem::Notice(Box::new(SystemNotice::Info {
            source: source.to_owned(),
            level: Level::Info,
            text: "session cost so far: $0.1456".to_owned(),
            data: Value::Null,
        }))
    };
    let text = |item: &TranscriptItem| {
        let TranscriptItem::Notice(n) = item else {
            unreachable!("the item is a notice")
        };
        let SystemNotice::Info { text, .. } = n.as_ref() else {
            unreachable!("the notice is an info notice")
        };
        text.clone()
    };
    let mut item = notice("cost-state");
    crate::transform::visit::walk_item(&mut Stable::new(false), &mut item);
    assert_eq!(text(&item), "<usage>");
    let mut kept = notice("cost-state");
    crate::transform::visit::walk_item(&mut Stable::new(true), &mut kept);
    assert_eq!(text(&kept), "session cost so far: $0.1456");
    let mut other = notice("local-command");
    crate::transform::visit::walk_item(&mut Stable::new(false), &mut other);
    assert_eq!(text(&other), "session cost so far: $0.1456");
}

/// A string whose written form the pass says it may leave is left as it is, and one holding
/// only known ids is said to change exactly when it does: escapes before, after and between
/// ids, a backslash of the text itself before one, control characters as `\u` escapes.
#[test]
fn strings_said_unchanged_as_written_are_unchanged() {
    let mut st = Stable::new(false);
    let mut id = "toolu_01ABCDEFGHIJ".to_owned();
    st.id(IdKind::Call, &mut id);
    let texts = [
        "plain words only",
        "toolu_01ABCDEFGHIJ",
        "a\ntoolu_01ABCDEFGHIJ\tb",
        "\u{1}toolu_01ABCDEFGHIJ",
        "\\ntoolu_01ABCDEFGHIJ",
        "\\toolu_01ABCDEFGHIJ",
        "\"toolu_01ABCDEFGHIJ\"",
        "ntoolu_01ABCDEFGHIJ",
        "x_toolu_01ABCDEFGHIJ-y\r\n",
        "\\\\\ntoolu_01ABCDEFGHIJ",
        "at /tmp/x and 2025-01-02T03:04:05Z",
    ];
    for t in texts {
        let written = serde_json::to_string(t).unwrap();
        let raw = &written[1..written.len() - 1];
        let may = st.may_change(raw);
        let changed = text(&mut st, t) != t;
        assert!(may || !changed, "{t:?}");
        if !Found::of(raw).any() {
            assert_eq!(may, changed, "{t:?}");
        }
    }
}
