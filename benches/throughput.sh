#!/usr/bin/env bash
# Throughput and memory of scribe against a baseline measured in the same run: `jq -c .` over the
# same bytes (parse + re-serialise every line, which is the least any JSONL filter must do).
#
#   benches/throughput.sh [SIZE_MB]     (default 200)
#
# Builds a synthetic Claude Code stream by repeating samples/demo.jsonl with fresh ids (so every
# message folds as its own turn), then runs each command 3 times and reports the best wall time,
# the ratio scribe/jq, and scribe's peak RSS. Needs jq and GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."
size_mb=${1:-200}
cargo build --release --quiet
bin=target/release/scribe
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
input=$work/input.jsonl
python3 - "$size_mb" "$input" <<'PY'
import sys
size = int(sys.argv[1]) * 1024 * 1024
demo = open("samples/demo.jsonl").read()
with open(sys.argv[2], "w") as out:
    n = 0
    written = 0
    while written < size:
        chunk = demo.replace("msg_d", f"msg_{n}_").replace("toolu_", f"toolu_{n}_").replace("a3f9c1", f"t{n}")
        out.write(chunk)
        written += len(chunk)
        n += 1
PY
bytes=$(stat -c %s "$input")
best() { # best of 3 wall-clock seconds for a command writing to /dev/null
  local b=999999
  for _ in 1 2 3; do
    local s e
    s=$(date +%s.%N); "$@" > /dev/null; e=$(date +%s.%N)
    b=$(python3 -c "print(min($b, $e - $s))")
  done
  echo "$b"
}
jq_s=$(best jq -c . "$input")
scribe_s=$(best "$bin" --to jsonl "$input")
events_s=$(best "$bin" --to events "$input")
text_s=$(best "$bin" --to text "$input")
html_s=$(best "$bin" --to html "$input")
rss_kb=$( { /usr/bin/time -f %M "$bin" --to jsonl "$input" > /dev/null; } 2>&1 )
python3 - "$bytes" "$jq_s" "$scribe_s" "$events_s" "$text_s" "$html_s" "$rss_kb" <<'PY'
import sys
b, jq, sc, ev, tx, ht, rss = int(sys.argv[1]), *map(float, sys.argv[2:7]), int(sys.argv[7])
mb = b / 1e6
print(f"input: {mb:.0f} MB")
print(f"jq -c .           {jq:6.2f} s  {mb/jq:7.0f} MB/s  (baseline)")
print(f"scribe --to jsonl {sc:6.2f} s  {mb/sc:7.0f} MB/s  {jq/sc:5.2f}x jq's speed")
print(f"scribe --to events{ev:6.2f} s  {mb/ev:7.0f} MB/s  {jq/ev:5.2f}x jq's speed")
print(f"scribe --to text  {tx:6.2f} s  {mb/tx:7.0f} MB/s  {jq/tx:5.2f}x jq's speed")
print(f"scribe --to html  {ht:6.2f} s  {mb/ht:7.0f} MB/s  {jq/ht:5.2f}x jq's speed")
print(f"scribe peak RSS   {rss/1024:6.1f} MB  (flat: independent of input size)")
PY
