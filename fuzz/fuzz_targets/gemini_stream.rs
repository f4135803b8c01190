//! The gemini-stream adapter: any bytes, read as `--from gemini-stream`, folded and written as JSONL.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    agent_scribe::fuzzing::run(&["--from", "gemini-stream", "--to", "jsonl"], data);
});
