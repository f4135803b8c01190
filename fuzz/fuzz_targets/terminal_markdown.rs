//! The terminal view of the model's Markdown: any text, drawn as an answer or as reasoning, with
//! colour or without, 20 to 272 columns wide (the first byte picks which). It must not panic,
//! and what it writes must stay linear in the text: at most
//! `fuzzing::terminal_markdown_bound(text bytes, width)` bytes, whatever the nesting.
#![no_main]

use agent_scribe::fuzzing::{terminal_markdown, terminal_markdown_bound};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&pick, text)) = data.split_first() else {
        return;
    };
    let width = 20 + usize::from(pick & 0x3f) * 4;
    let color = pick & 0x40 != 0;
    let reasoning = pick & 0x80 != 0;
    let text = String::from_utf8_lossy(text);
    let out = terminal_markdown(&text, width, color, reasoning);
    let bound = terminal_markdown_bound(text.len(), width);
    assert!(
        out.len() <= bound,
        "{} bytes of text at {width} columns gave {} bytes (bound {bound})",
        text.len(),
        out.len()
    );
});
