//! The claude-stream adapter: any bytes, read as `--from claude-stream`, folded and written as JSONL.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    agent_scribe::fuzzing::run(&["--from", "claude-stream", "--to", "jsonl"], data);
});
