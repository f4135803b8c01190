#!/usr/bin/env bash
# Throughput and peak memory of scribe against baselines measured in the same run (issue 14).
#
#   benches/throughput.sh [--peers] [--runs N] [STREAM_MB] [SESSION_MB]   (defaults 100 and 30)
#
# Generates (benches/gen_claude.py) a Claude Code stream-json log and a saved session with
# sub-agents, screenshots and lines over 3 MB, then times on each input:
#   cat                 reading the bytes (the I/O floor)
#   jq -c .             parse and re-serialise every line (what any JSON Lines filter must do)
#   parse floor         a serde parse of every line into nothing (examples/parse_floor.rs)
#   scribe --to F       for every output format, and --stable for jsonl and html
# and with --peers, on the saved session, claude-code-log and claude-code-transcripts (HTML),
# installed from PyPI into a virtualenv under $TMPDIR (removed at the end; PEERS_VENV=DIR uses
# one already made). claude-code-log builds its message tree recursively and stops at Python's
# default recursion limit (1000) on a long chain, so it is run with the limit raised.
#
# Each command runs N times (default 3; peers once), in N rounds of every command, and the best
# wall time and the best CPU time (user + system) are kept, measured to the microsecond; peak
# RSS is GNU time's %M. "x jq" is
# jq's time over the command's (above 1: faster than jq), from CPU time (which a machine shared
# with other work disturbs less) and from wall time (what a user waits; a command may use a
# second core). Read the ratios within one run, not the seconds.
# Prints a Markdown table (the README's performance section is one). Needs jq, python3, GNU time.
set -euo pipefail
cd "$(dirname "$0")/.."
peers=false
runs=3
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
    --peers) peers=true ;;
    --runs) runs=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
stream_mb=${1:-100}
session_mb=${2:-30}
cargo build --release --locked --quiet --bin scribe --example parse_floor
bin=target/release/scribe
floor=target/release/examples/parse_floor
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
python3 benches/gen_claude.py stream "$stream_mb" "$work/stream.jsonl"
mkdir "$work/session"
python3 benches/gen_claude.py session "$session_mb" "$work/session"
session=$(ls "$work"/session/*.jsonl)
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

# time_cmd NAME INPUT CMD...: one run, output discarded: its wall and CPU time (s) and peak RSS
# (KiB) go to $results, a line a run.
results=$work/results
time_cmd() {
  local name=$1 input=$2
  shift 2
  measure "$@" > "$work/t" || {
    echo "$name failed:" >&2; tail -5 "$work/stderr" >&2; return 1; }
  read -r s user sys kib < "$work/t"
  echo "$name|$input|$s|$(python3 -c "print($user + $sys)")|$kib" >> "$results"
}

suite() { # suite LABEL FILE: every command once
  local label=$1 file=$2
  time_cmd "cat" "$label" cat "$file"
  time_cmd "jq -c ." "$label" jq -c . "$file"
  time_cmd "parse floor (serde, IgnoredAny)" "$label" "$floor" "$file"
  for to in jsonl events html md text; do
    time_cmd "scribe --to $to" "$label" "$bin" --to "$to" "$file"
  done
  time_cmd "scribe --to jsonl --stable" "$label" "$bin" --to jsonl --stable "$file"
  time_cmd "scribe --to html --stable" "$label" "$bin" --to html --stable "$file"
}
# Round by round, every command once a round: a spell of load on a shared machine then slows
# every command of a round alike instead of all the runs of one, and the ratios hold.
for _ in $(seq "$runs"); do
  suite stream "$work/stream.jsonl"
  suite session "$session"
done
if $peers; then
  time_cmd "claude-code-log (html)" session "$venv/bin/python" -c \
    'import sys; sys.setrecursionlimit(1000000); sys.argv[0] = "claude-code-log"; from claude_code_log.cli import main; sys.exit(main())' \
    "$session" --no-cache -o "$work/ccl.html"
  time_cmd "claude-code-transcripts json (html)" session \
    "$venv/bin/claude-code-transcripts" json "$session" -o "$work/cct"
fi

python3 - "$results" "$work/stream.jsonl" "$session" "$(nproc)" <<'PY'
import os, platform, sys, datetime
# Each command's best wall time and best CPU time over its runs, and its largest peak.
best = {}
for l in open(sys.argv[1]):
    name, inp, s, cpu, kib = l.rstrip("\n").split("|")
    b = best.setdefault((name, inp), [float(s), float(cpu), int(kib)])
    b[0], b[1], b[2] = min(b[0], float(s)), min(b[1], float(cpu)), max(b[2], int(kib))
rows = [[name, inp, s, cpu, kib] for (name, inp), (s, cpu, kib) in best.items()]
size = {"stream": os.path.getsize(sys.argv[2]), "session": os.path.getsize(sys.argv[3])}
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
load = open("/proc/loadavg").read().split()[0]
print(f"{datetime.date.today()}, {cpu}, {sys.argv[4]} cores, load average {load} at the end")
print(f"stream: {size['stream']/1e6:.0f} MB; saved session: {size['session']/1e6:.0f} MB\n")
jq = {r[1]: float(r[3]) for r in rows if r[0] == "jq -c ."}
jq_wall = {r[1]: float(r[2]) for r in rows if r[0] == "jq -c ."}
html = {r[1]: float(r[3]) for r in rows if r[0] == "scribe --to html"}
html_wall = {r[1]: float(r[2]) for r in rows if r[0] == "scribe --to html"}
print("| input | command | wall s | CPU s | MB/s (CPU) | peak RSS MB | x jq (CPU) | x jq (wall) "
      "| ÷ scribe html (CPU) | ÷ scribe html (wall) |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for name, inp, s, cpu, kib in rows:
    cpu = max(float(cpu), 0.005)
    s = max(float(s), 0.005)
    print(f"| {inp} | {name} | {s:.3f} | {cpu:.3f} | {size[inp]/1e6/cpu:.0f} "
          f"| {int(kib)/1024:.1f} | {jq[inp]/cpu:.2f} | {jq_wall[inp]/s:.2f} "
          f"| {cpu/html[inp]:.2f} | {s/html_wall[inp]:.2f} |")
PY
