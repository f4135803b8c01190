#!/usr/bin/env python3
"""Writes a large Claude Code stream-json log made of real captures, for the benches.

    real_stream.py SHARED_DIR OUT SIZE_MB   (SHARED_DIR: ../shared, beside the repository)

The captures are the stdout of `claude -p ... --output-format stream-json` that the real CLI
wrote: every scenario of SHARED_DIR/corpus/claude-code (CLI 2.1.x: text, thinking, Bash, files,
sub-agents, skills, MCP, hooks, partial messages, retries, errors, tasks, denials, images),
the stream-json logs of other people's repositories in SHARED_DIR/corpus/external, and the raw
CLI stream-json captures listed in SHARED_DIR/external2 (1.0.x to 2.1.x). They are written one
after another, every run as its own lines, and again until the file is SIZE_MB: each copy's
ids (tool calls, messages, requests, uuids) get a suffix of their own, so every copy folds as
runs of its own, as a long log of many real runs would. Each line's other bytes are the
capture's own.
"""
import glob
import os
import re
import sys

PATTERNS = [
    "corpus/claude-code/*/stream*.jsonl",
    "corpus/external/charlieyou/claude-agent-sdk-gleam/test/fixtures/assembled_stream_2.1.4.jsonl",
    "corpus/external/charlieyou/claude-agent-sdk-gleam/test/fixtures/golden/basic_query.ndjson",
    "corpus/external/anthropics/claude-code-action/test/fixtures/sample-turns.as-jsonl.jsonl",
    "external2/files/namastexlabs/automagik/manual_test_output.jsonl",
    "external2/files/sjarmak/CodeContextBench/archive/*/*/*/agent/claude-code.txt",
    "external2/files/adam-jackson-cf/raidar/orchestrator/*/runs/*/agent/claude-code.txt",
]
IDS = re.compile(
    r"(toolu_[A-Za-z0-9]+|msg_[A-Za-z0-9]+|req_[A-Za-z0-9]+|"
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"
)


def captures(shared):
    """The captures' text, in a fixed order; fails when none is found."""
    paths = [p for pat in PATTERNS for p in sorted(glob.glob(os.path.join(shared, pat)))]
    if not paths:
        sys.exit(f"real_stream.py: no stream-json capture under {shared}")
    texts = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            text = f.read()
        texts.append(text if text.endswith("\n") else text + "\n")
    return texts


def main():
    shared, out, mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
    whole = "".join(captures(shared))
    target, n = int(mb * (1 << 20)), 0
    with open(out, "w", encoding="utf-8") as f:
        while f.tell() < target:
            f.write(IDS.sub(lambda m: f"{m.group(0)}x{n}", whole))
            n += 1


if __name__ == "__main__":
    main()
