#!/usr/bin/env python3
"""Scaling: hostile shapes must not take quadratic time.

Each case times scribe on an input and on one eight times larger, in the same run, and prints the
ratio of the best CPU times (user + system, from getrusage) of three runs: a linear path gives
about 8, a quadratic one about 64. Exits 1 when a ratio reaches 24. Read the ratios, never the
seconds: the machine may be slow or busy.

    benches/scaling.py [BIN]        (default: target/release/scribe, built first)

Cases:
    calls   one message of N parallel tool calls, then one message with their N results,
            `--to jsonl` (N = 10 000 and 80 000)
    diff    `scribe diff` of two runs whose one Bash output has N lines, all different
            (N = 40 000 and 320 000)
"""
import json
import os
import resource
import subprocess
import sys
import tempfile

INIT = {"type": "system", "subtype": "init", "session_id": "s", "model": "m", "tools": ["Bash"], "cwd": "/w"}


def line(value):
    """One compact JSON line."""
    return json.dumps(value, separators=(",", ":")) + "\n"


def many_calls(path, n):
    """One message with `n` tool calls, then one user message with their `n` results."""
    calls = [{"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": f"echo {i}"}} for i in range(n)]
    results = [{"type": "tool_result", "tool_use_id": f"t{i}", "content": f"{i}"} for i in range(n)]
    with open(path, "w") as f:
        f.write(line(INIT))
        f.write(line({"type": "assistant", "message": {"id": "m1", "role": "assistant", "content": calls}, "session_id": "s"}))
        f.write(line({"type": "user", "message": {"role": "user", "content": results}, "session_id": "s"}))


def run_with_output(path, n, tag):
    """A run of one Bash call whose output is `n` lines, each saying `tag`."""
    call = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "make"}}
    output = "\n".join(f"{tag} line {i}" for i in range(n))
    result = {"type": "tool_result", "tool_use_id": "t1", "content": output}
    with open(path, "w") as f:
        f.write(line(INIT))
        f.write(line({"type": "assistant", "message": {"id": "m1", "role": "assistant", "content": [call]}, "session_id": "s"}))
        f.write(line({"type": "user", "message": {"role": "user", "content": [result]}, "session_id": "s"}))


def best_cpu(args):
    """The best CPU seconds (user + system) of three runs of `args`, output discarded."""
    best = None
    for _ in range(3):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = cpu if best is None else min(best, cpu)
    return best


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    if len(sys.argv) > 1:
        binary = os.path.abspath(sys.argv[1])
    else:
        subprocess.run(["cargo", "build", "--release", "--locked", "--quiet", "--bin", "scribe"], cwd=root, check=True)
        binary = os.path.join(root, "target", "release", "scribe")
    failed = False
    print("| case  |    small |  8× larger | ratio |")
    print("|-------|----------|------------|-------|")
    with tempfile.TemporaryDirectory() as work:
        cases = []
        for n in (10_000, 80_000):
            path = os.path.join(work, f"calls-{n}.jsonl")
            many_calls(path, n)
            cases.append(("calls", [binary, "--to", "jsonl", path]))
        for n in (40_000, 320_000):
            old, new = os.path.join(work, f"old-{n}.jsonl"), os.path.join(work, f"new-{n}.jsonl")
            run_with_output(old, n, "old")
            run_with_output(new, n, "new")
            cases.append(("diff", [binary, "diff", old, new]))
        for (name, small), (_, large) in zip(cases[0::2], cases[1::2]):
            s, l = best_cpu(small), best_cpu(large)
            ratio = l / max(s, 1e-3)
            print(f"| {name:5} | {s:6.3f} s | {l:8.3f} s | {ratio:4.1f}× |")
            failed |= ratio >= 24
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
