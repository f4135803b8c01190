use super::*;
use crate::model::transcript::{Part, Role, Turn, TurnMeta, TurnOrigin};
use crate::render::OutputFormat;

/// A renderer of a live input (these tests feed it events).
fn renderer() -> TextRenderer {
    let mut r = TextRenderer::new(&RenderOptions {
        format: OutputFormat::Text,
        color: false,
        full: false,
        thinking: false,
        context: false,
        debug: false,
        width: 80,
        archive: false,
        results_in_call_order: false,
        compact: false,
    });
    r.input_is_live(true);
    r
}

fn text(t: &str) -> Part {
    Part::Text {
        text: t.into(),
        citations: Vec::new(),
    }
}

fn delta(id: &str, t: &str) -> Event {
    Event {
        line: 0,
        kind: EventKind::TextDelta {
            thread: None,
            message_id: id.into(),
            index: 0,
            text: t.into(),
        },
    }
}

fn block(id: &str, part: Part) -> Event {
    Event {
        line: 0,
        kind: EventKind::AssistantBlock {
            thread: None,
            message_id: id.into(),
            part,
            meta: TurnMeta::default(),
            timestamp: None,
        },
    }
}

fn turn(id: &str, parts: Vec<Part>) -> TranscriptItem {
    TranscriptItem::Turn(Box::new(Turn {
        id: id.into(),
        role: Role::Assistant,
        origin: TurnOrigin::Model,
        parent_task_id: None,
        parts,
        metadata: TurnMeta::default(),
        timestamp: None,
        end_timestamp: None,
    }))
}

fn run(events: &[Event], items: &[TranscriptItem]) -> String {
    let mut r = renderer();
    let mut out = Vec::new();
    for e in events {
        r.live(&mut out, e).unwrap();
    }
    for i in items {
        r.item(&mut out, i).unwrap();
    }
    String::from_utf8(out).unwrap()
}

#[test]
fn deltas_block_and_item_print_each_paragraph_once() {
    let whole = "Hello there.\n\nWorld.";
    let out = run(
        &[
            delta("m1", "Hello the"),
            delta("m1", "re.\n\nWor"),
            delta("m1", "ld."),
            block("m1", text(whole)),
        ],
        &[turn("m1", vec![text(whole)])],
    );
    assert_eq!(out, "⏺ Hello there.\n\n  World.\n");
    // Without any live event, the item prints the same bytes.
    assert_eq!(run(&[], &[turn("m1", vec![text(whole)])]), out);
}

#[test]
fn the_same_text_in_two_messages_is_printed_twice() {
    let out = run(
        &[block("m1", text("Done."))],
        &[
            turn("m1", vec![text("Done.")]),
            turn("m2", vec![text("Done.")]),
        ],
    );
    assert_eq!(out.matches("Done.").count(), 2, "{out}");
}

#[test]
fn a_block_that_contradicts_its_deltas_is_printed_whole() {
    let out = run(
        &[delta("m1", "Draft.\n\n"), block("m1", text("Final."))],
        &[turn("m1", vec![text("Final.")])],
    );
    assert_eq!(out, "⏺ Draft.\n\n⏺ Final.\n");
}
