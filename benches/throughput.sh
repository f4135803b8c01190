#!/usr/bin/env bash
# Throughput and peak memory of scribe against baselines measured in the same run.
#
#   benches/throughput.sh [--peers] [--runs N] [--baseline BIN] [STREAM_MB] [SESSION_MB]
#                                                               (defaults 100 and 30)
#
# The headline inputs are real content (SHARED=../shared unless set):
#   stream    real Claude Code stream-json captures, one after another, repeated with fresh ids
#             to STREAM_MB (benches/real_stream.py)
#   session   a saved session chaining real sessions of other people to SESSION_MB
#             ($SHARED/tools/make-real-session.py)
# and, as a second column, the same sizes of benches/gen_claude.py's regular inputs (gen-stream,
# gen-session: sub-agents, screenshots, lines over 3 MB). On each it times:
#   cat                 reading the bytes (the I/O floor)
#   jq -c .             parse and re-serialise every line (what any JSON Lines filter must do)
#   parse floor         a serde parse of every line into nothing (examples/parse_floor.rs)
#   scribe --to F       for every output format, and --stable for jsonl and html
# With --baseline BIN, the same scribe commands of another build (`before`) in the same rounds.
# With --peers, on the real session, claude-code-log and claude-code-transcripts (HTML),
# installed from PyPI into a virtualenv under $TMPDIR (removed at the end; PEERS_VENV=DIR uses
# one already made). claude-code-log builds its message tree recursively and stops at Python's
# default recursion limit (1000) on a long chain, so it is run with the limit raised.
# Last, one message of 100 000 parallel tool calls (gen_claude.py calls) in every format.
#
# Each command runs N times (default 3), in N rounds of every command, and the best wall time
# and the best CPU time (user + system) are kept, measured to the microsecond; peak RSS is GNU
# time's %M, the largest of the runs. Read the ratios within one run, not the seconds.
# Prints Markdown tables and the targets (benches/throughput_report.py). Needs jq, python3,
# GNU time.
set -euo pipefail
cd "$(dirname "$0")/.."
peers=false
runs=3
baseline=
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
    --peers) peers=true ;;
    --runs) runs=$2; shift ;;
    --baseline) baseline=$(realpath "$2"); shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
stream_mb=${1:-100}
session_mb=${2:-30}
shared=$(realpath "${SHARED:-../shared}")
load_start=$(cut -d' ' -f1 /proc/loadavg)
cargo build --release --locked --quiet --bin scribe --example parse_floor
bin=target/release/scribe
floor=target/release/examples/parse_floor
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
python3 benches/real_stream.py "$shared" "$work/stream.jsonl" "$stream_mb"
python3 "$shared/tools/make-real-session.py" "$shared/corpus" "$work/session.jsonl" "$session_mb"
python3 benches/gen_claude.py stream "$stream_mb" "$work/gen-stream.jsonl"
mkdir "$work/gen"
python3 benches/gen_claude.py session "$session_mb" "$work/gen"
ln -s "$(ls "$work"/gen/*.jsonl)" "$work/gen-session.jsonl"
python3 benches/gen_claude.py calls 100000 "$work/calls.jsonl"
venv=${PEERS_VENV:-$work/venv}
if $peers && [[ ! -x $venv/bin/claude-code-transcripts ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet claude-code-log claude-code-transcripts
fi

# measure CMD...: runs CMD (output discarded, standard error to $work/stderr) and prints its wall
# time, user and system CPU time (s, to the microsecond, from the rusage of the child: GNU time's
# %e rounds to 10 ms, a tenth of a short run) and peak RSS (KiB: GNU time's %M, as a child of
# this small C program rather than of Python, whose own size the kernel would count as the
# child's peak); fails as CMD does.
measure() {
  python3 - "$work/stderr" "$work/rss" "$@" <<'PY'
import os, subprocess, sys, time
err = open(sys.argv[1], "wb")
cmd = ["/usr/bin/time", "-f", "%M", "-o", sys.argv[2], *sys.argv[3:]]
start = time.perf_counter()
child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
_, status, use = os.wait4(child.pid, 0)
wall = time.perf_counter() - start
rss = open(sys.argv[2]).read().split()[-1]
print(f"{wall:.6f} {use.ru_utime:.6f} {use.ru_stime:.6f} {rss}")
sys.exit(0 if os.waitstatus_to_exitcode(status) == 0 else 1)
PY
}

# time_cmd BUILD NAME INPUT CMD...: one run, output discarded: its wall and CPU time (s) and
# peak RSS (KiB) go to $results, a line a run. BUILD is `after`, `before` (--baseline) or `-`.
results=$work/results
time_cmd() {
  local build=$1 name=$2 input=$3
  shift 3
  measure "$@" > "$work/t" || {
    echo "$build $name failed:" >&2; tail -5 "$work/stderr" >&2; return 1; }
  read -r s user sys kib < "$work/t"
  echo "$build|$name|$input|$s|$(python3 -c "print($user + $sys)")|$kib" >> "$results"
}

scribe_runs() { # scribe_runs BUILD BIN LABEL FILE: every format, and --stable for two
  local build=$1 exe=$2 label=$3 file=$4
  for to in jsonl events html md text; do
    time_cmd "$build" "scribe --to $to" "$label" "$exe" --to "$to" "$file"
  done
  time_cmd "$build" "scribe --to jsonl --stable" "$label" "$exe" --to jsonl --stable "$file"
  time_cmd "$build" "scribe --to html --stable" "$label" "$exe" --to html --stable "$file"
}

suite() { # suite LABEL FILE: every command once
  local label=$1 file=$2
  time_cmd - "cat" "$label" cat "$file"
  time_cmd - "jq -c ." "$label" jq -c . "$file"
  time_cmd - "parse floor (serde, IgnoredAny)" "$label" "$floor" "$file"
  scribe_runs after "$bin" "$label" "$file"
  if [[ -n $baseline ]]; then scribe_runs before "$baseline" "$label" "$file"; fi
}

peers_once() { # claude-code-log and claude-code-transcripts on the real session
  time_cmd - "claude-code-log (html)" session "$venv/bin/python" -c \
    'import sys; sys.setrecursionlimit(1000000); sys.argv[0] = "claude-code-log"; from claude_code_log.cli import main; sys.exit(main())' \
    "$work/session.jsonl" --no-cache -o "$work/ccl.html"
  time_cmd - "claude-code-transcripts json (html)" session \
    "$venv/bin/claude-code-transcripts" json "$work/session.jsonl" -o "$work/cct"
}

# Round by round, every command once a round: a spell of load on a shared machine then slows
# every command of a round alike instead of all the runs of one, and the ratios hold.
for _ in $(seq "$runs"); do
  for input in stream session gen-stream gen-session; do
    suite "$input" "$work/$input.jsonl"
  done
  scribe_runs after "$bin" calls "$work/calls.jsonl"
  if $peers; then peers_once; fi
done

python3 benches/throughput_report.py "$results" "$work" "$(nproc)" "$load_start" \
  "benches/throughput.sh $([[ $peers == true ]] && echo '--peers ')--runs $runs$(
    [[ -n $baseline ]] && echo " --baseline $baseline") $stream_mb $session_mb"
