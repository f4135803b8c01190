//! The codex-exec adapter: any bytes, read as `--from codex-exec`, folded and written as JSONL.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    agent_scribe::fuzzing::run(&["--from", "codex-exec", "--to", "jsonl"], data);
});
