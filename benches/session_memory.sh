#!/usr/bin/env bash
# Peak memory of scribe on a large generated Claude Code saved session (issue 14: flat memory).
#
#   benches/session_memory.sh [SIZE_MB] [FORMAT...]     (default 1024 MB, jsonl html md text)
#
# Generates a saved session in the shape CLI 2.1.x writes (prompt, assistant text and tool_use rows
# of one message, a hook progress row, a tool result of a few KB, a file-history-snapshot outside
# the chain; every 500th result is a 3 MB line, every 200th turn forks a one-turn rewind), then
# reports wall time and peak RSS (GNU time) per output format, from the file and from stdin.
set -euo pipefail
cd "$(dirname "$0")/.."
size_mb=${1:-1024}
shift || true
formats=${*:-jsonl html md text}
cargo build --release --quiet
bin=target/release/scribe
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
input=$work/session.jsonl
python3 - "$size_mb" "$input" <<'PY'
import json, sys
size = int(sys.argv[1]) << 20
common = ('"isSidechain":false,"userType":"external","cwd":"/home/u/app",'
          '"sessionId":"5e55a0e1-0000-4000-8000-0000000000ee","version":"2.1.9",'
          '"gitBranch":"main","timestamp":"2026-01-07T10:00:00.000Z"')
small = json.dumps("".join(f"{j:5d} build output line ok\n" for j in range(150)))
big = json.dumps(("x" * 79 + "\n") * 40000)
with open(sys.argv[2], "w") as f:
    parent, i, written = "null", 0, 0
    while written < size:
        out = big if i % 500 == 499 else small
        rows = [
            f'{{"type":"file-history-snapshot","messageId":"u{i}","snapshot":{{"messageId":"u{i}","trackedFileBackups":{{}},"timestamp":"2026-01-07T10:00:00.000Z"}},"isSnapshotUpdate":false}}',
            f'{{"parentUuid":{parent},{common},"type":"user","message":{{"role":"user","content":"Step {i}: build it again."}},"uuid":"u{i}"}}',
            f'{{"parentUuid":"u{i}",{common},"type":"assistant","message":{{"model":"claude-sonnet-4-5","id":"msg_{i}","type":"message","role":"assistant","content":[{{"type":"text","text":"Building, step {i}."}}],"stop_reason":null,"usage":{{"input_tokens":10,"output_tokens":5}}}},"requestId":"req_{i}","uuid":"a{i}"}}',
            f'{{"parentUuid":"a{i}",{common},"type":"assistant","message":{{"model":"claude-sonnet-4-5","id":"msg_{i}","type":"message","role":"assistant","content":[{{"type":"tool_use","id":"toolu_{i}","name":"Bash","input":{{"command":"make","description":"Build"}}}}],"stop_reason":"tool_use","usage":{{"input_tokens":10,"output_tokens":5}}}},"requestId":"req_{i}","uuid":"b{i}"}}',
            f'{{"parentUuid":"b{i}",{common},"type":"progress","data":{{"type":"hook_progress","hookEvent":"PreToolUse","hookName":"PreToolUse:Bash","command":"audit.sh"}},"parentToolUseID":"toolu_{i}","toolUseID":"toolu_{i}","uuid":"p{i}"}}',
            f'{{"parentUuid":"p{i}",{common},"type":"user","message":{{"role":"user","content":[{{"tool_use_id":"toolu_{i}","type":"tool_result","content":{out},"is_error":false}}]}},"uuid":"r{i}"}}',
        ]
        if i % 200 == 199:
            # A rewind: a prompt and answer off the previous result, abandoned.
            rows.append(f'{{"parentUuid":"r{i}",{common},"type":"user","message":{{"role":"user","content":"Abandoned {i}."}},"uuid":"x{i}"}}')
            rows.append(f'{{"parentUuid":"x{i}",{common},"type":"assistant","message":{{"model":"claude-sonnet-4-5","id":"msg_x{i}","type":"message","role":"assistant","content":[{{"type":"text","text":"Left behind."}}],"stop_reason":"end_turn","usage":{{"input_tokens":10,"output_tokens":5}}}},"requestId":"req_x{i}","uuid":"y{i}"}}')
        text = "\n".join(rows) + "\n"
        f.write(text)
        written += len(text)
        parent = f'"r{i}"'
        i += 1
PY
bytes=$(stat -c %s "$input")
lines=$(wc -l < "$input")
echo "input: $((bytes >> 20)) MiB, $lines lines"
for to in $formats; do
  /usr/bin/time -f "--to $to (file):  %e s  peak RSS %M KiB" "$bin" --to "$to" "$input" > /dev/null
done
/usr/bin/time -f "--to jsonl (stdin): %e s  peak RSS %M KiB" "$bin" --to jsonl < "$input" > /dev/null
