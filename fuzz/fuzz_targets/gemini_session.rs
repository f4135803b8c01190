//! The gemini-session adapter: any bytes, read as `--from gemini-session`, folded and written as JSONL.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    agent_scribe::fuzzing::run(&["--from", "gemini-session", "--to", "jsonl"], data);
});
