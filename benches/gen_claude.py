#!/usr/bin/env python3
"""Generates large regular Claude Code inputs for the benches (their second column).

    gen_claude.py session SIZE_MB DIR   a saved session DIR/<sessionId>.jsonl (CLI 2.1.x shape)
                                        with sub-agent files in DIR/<sessionId>/subagents/
    gen_claude.py stream SIZE_MB FILE   a stream-json log: samples/demo.jsonl repeated with fresh
                                        ids, so every copy folds as turns of its own
    gen_claude.py calls COUNT FILE      a stream-json log of one message with COUNT parallel
                                        tool calls (a line each, as the CLI writes a message's
                                        blocks), then their results, a line each

The saved session is meant to look like a real long one: a prompt, assistant text in Markdown, a
tool call and its result (a few KB of build output) per turn, a hook progress row and a
file-history snapshot per turn; every 50th turn spawns a sub-agent (an Agent call whose
transcript is a file of its own), every 100th result is a screenshot (a 60 KB base64 PNG),
every 500th result is a line over 3 MB, and every 200th turn forks a one-turn rewind.
"""
import base64
import json
import os
import sys

SID = "5e55a0e1-0000-4000-8000-0000000000ee"


def common(sidechain=False, agent=None):
    extra = f',"agentId":"{agent}"' if agent else ""
    return (
        f'"isSidechain":{"true" if sidechain else "false"},"userType":"external",'
        f'"cwd":"/home/u/app","sessionId":"{SID}","version":"2.1.9",'
        f'"gitBranch":"main","timestamp":"2026-01-07T10:00:00.000Z"{extra}'
    )


def assistant(parent, uuid, msg, content, stop, c):
    return (
        f'{{"parentUuid":{parent},{c},"type":"assistant","message":{{"model":"claude-sonnet-4-5",'
        f'"id":"{msg}","type":"message","role":"assistant","content":{json.dumps(content)},'
        f'"stop_reason":{json.dumps(stop)},"usage":{{"input_tokens":10,"output_tokens":5}}}},'
        f'"requestId":"req_{msg}","uuid":"{uuid}"}}'
    )


def user(parent, uuid, content, c, extra=""):
    return (
        f'{{"parentUuid":{parent},{c},"type":"user","message":{{"role":"user",'
        f'"content":{json.dumps(content)}}},"uuid":"{uuid}"{extra}}}'
    )


def session(size, out_dir):
    os.makedirs(os.path.join(out_dir, SID, "subagents"), exist_ok=True)
    c = common()
    small = "".join(f"{j:5d} build output line ok\n" for j in range(150))
    big = ("x" * 79 + "\n") * 40000
    png = base64.b64encode(bytes(range(256)) * 180).decode()
    prose = (
        "Here is what I found:\n\n- the build **passes** on `main`\n- two warnings in "
        "`src/lib.rs`\n\n```rust\nfn main() {\n    println!(\"hello\");\n}\n```\n"
    )
    with open(os.path.join(out_dir, f"{SID}.jsonl"), "w") as f:
        parent, i, written = "null", 0, 0
        while written < size:
            rows = [
                f'{{"type":"file-history-snapshot","messageId":"u{i}","snapshot":{{"messageId":"u{i}",'
                f'"trackedFileBackups":{{}},"timestamp":"2026-01-07T10:00:00.000Z"}},"isSnapshotUpdate":false}}',
                user(parent, f"u{i}", f"Step {i}: build it again.", c),
                assistant(f'"u{i}"', f"a{i}", f"msg_{i}", [{"type": "text", "text": f"Step {i}. {prose}"}], None, c),
            ]
            if i % 50 == 49:
                agent = f"ag{i:06d}"
                call = {"type": "tool_use", "id": f"toolu_{i}", "name": "Agent",
                        "input": {"description": f"Check step {i}", "subagent_type": "general-purpose",
                                  "prompt": f"Check the output of step {i}."}}
                result = [{"type": "text", "text": f"Step {i} checked: fine."}]
                extra = (f',"toolUseResult":{{"status":"completed","agentId":"{agent}",'
                         f'"content":{json.dumps(result)},"totalTokens":500,"totalToolUseCount":1,'
                         f'"totalDurationMs":4000}}')
                sub_agent(out_dir, agent, f"toolu_{i}", i, small)
            elif i % 100 == 99:
                call = {"type": "tool_use", "id": f"toolu_{i}", "name": "Read",
                        "input": {"file_path": f"/home/u/app/shot{i}.png"}}
                result = [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}}]
                extra = ""
            else:
                call = {"type": "tool_use", "id": f"toolu_{i}", "name": "Bash",
                        "input": {"command": "make", "description": "Build"}}
                result = big if i % 500 == 499 else small
                extra = ""
            rows.append(assistant(f'"a{i}"', f"b{i}", f"msg_{i}", [call], "tool_use", c))
            rows.append(
                f'{{"parentUuid":"b{i}",{c},"type":"progress","data":{{"type":"hook_progress",'
                f'"hookEvent":"PreToolUse","hookName":"PreToolUse:Bash","command":"audit.sh"}},'
                f'"parentToolUseID":"toolu_{i}","toolUseID":"toolu_{i}","uuid":"p{i}"}}'
            )
            rows.append(user(f'"p{i}"', f"r{i}",
                             [{"tool_use_id": f"toolu_{i}", "type": "tool_result", "content": result,
                               "is_error": False}], c, extra))
            if i % 200 == 199:
                rows.append(user(f'"r{i}"', f"x{i}", f"Abandoned {i}.", c))
                rows.append(assistant(f'"x{i}"', f"y{i}", f"msg_x{i}",
                                      [{"type": "text", "text": "Left behind."}], "end_turn", c))
            text = "\n".join(rows) + "\n"
            f.write(text)
            written += len(text)
            parent = f'"r{i}"'
            i += 1


def sub_agent(out_dir, agent, tool_use_id, i, output):
    base = os.path.join(out_dir, SID, "subagents", f"agent-{agent}")
    with open(base + ".meta.json", "w") as m:
        json.dump({"agentType": "general-purpose", "description": f"Check step {i}",
                   "toolUseId": tool_use_id}, m)
    c = common(True, agent)
    rows = [
        user("null", f"s{i}a", f"Check the output of step {i}.", c),
        assistant(f'"s{i}a"', f"s{i}b", f"msg_s{i}",
                  [{"type": "tool_use", "id": f"toolu_s{i}", "name": "Bash", "input": {"command": "make -n"}}],
                  "tool_use", c),
        user(f'"s{i}b"', f"s{i}c",
             [{"tool_use_id": f"toolu_s{i}", "type": "tool_result", "content": output, "is_error": False}], c),
        assistant(f'"s{i}c"', f"s{i}d", f"msg_s{i}e", [{"type": "text", "text": f"Step {i} checked: fine."}],
                  "end_turn", c),
    ]
    with open(base + ".jsonl", "w") as f:
        f.write("\n".join(rows) + "\n")


def stream(size, out):
    here = os.path.dirname(os.path.abspath(__file__))
    demo = open(os.path.join(here, "..", "samples", "demo.jsonl")).read()
    with open(out, "w") as f:
        n, written = 0, 0
        while written < size:
            chunk = (demo.replace("msg_d", f"msg_{n}_").replace("msg_s", f"msg_{n}_s")
                     .replace("toolu_", f"toolu_{n}_").replace("a3f9c1", f"t{n}"))
            f.write(chunk)
            written += len(chunk)
            n += 1


def calls(count, out):
    sid = "5e55a0e1-0000-4000-8000-0000000000ca"
    with open(out, "w") as f:
        f.write(f'{{"type":"system","subtype":"init","cwd":"/x","session_id":"{sid}",'
                f'"tools":["Bash"],"model":"m","uuid":"init-000001"}}\n')
        for i in range(count):
            f.write(f'{{"type":"assistant","message":{{"id":"msg_one","role":"assistant",'
                    f'"model":"m","content":[{{"type":"tool_use","id":"toolu_{i:012}",'
                    f'"name":"Bash","input":{{"command":"echo {i}"}}}}]}},"session_id":"{sid}"}}\n')
        for i in range(count):
            f.write(f'{{"type":"user","message":{{"role":"user","content":[{{"type":'
                    f'"tool_result","tool_use_id":"toolu_{i:012}","content":"{i}"}}]}},'
                    f'"session_id":"{sid}"}}\n')


if __name__ == "__main__":
    kind, size, target = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    if kind == "calls":
        calls(int(size), target)
    else:
        {"session": session, "stream": stream}[kind](int(size * (1 << 20)), target)
