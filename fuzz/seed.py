#!/usr/bin/env python3
"""Seeds for the fuzz targets, cut from real logs.

Writes `seeds/adapter/` (for every per-adapter target), `seeds/pipeline/` (the same pieces,
each behind the byte with which the `pipeline` target picks its output format and passes) and
`seeds/markdown/` (for `terminal_markdown`: the Markdown the model wrote in those files, every
`text` string with a line break, and a few nested shapes, each behind the byte that picks the
width, colour and answer or reasoning) from
`../samples/` and, when it sits beside the checkout, `../../shared/corpus/`; other folders may
be named on the command line. It also makes the empty `corpus/<target>/` folders that
`cargo fuzz run TARGET corpus/TARGET seeds/...` writes new inputs to (libFuzzer refuses a folder
that does not exist). Every file is cut at line ends into pieces of at most 16 KB (a
longer line is cut short), so that libFuzzer mutates small inputs fast; the first piece of a file
keeps its head (where detection looks). A piece is named by its SHA-1: copies collapse.

    python3 seed.py [DIR...]
"""

import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PIECE = 16 * 1024
# The pipeline target's first byte: output format = byte % 5, 0x80 = --stable --redact,
# 0x40 = --full. Twenty picks cover every combination.
PICKS = [o | s | f for o in range(5) for s in (0, 0x80) for f in (0, 0x40)]


def pieces(data):
    """The file's bytes cut at line ends into pieces of at most PIECE bytes."""
    piece = b""
    for line in data.splitlines(keepends=True):
        line = line[:PIECE]
        if len(piece) + len(line) > PIECE:
            yield piece
            piece = b""
        piece += line
    if piece:
        yield piece


# The terminal_markdown target's first byte: width = 20 + 4 * (byte & 0x3f), 0x40 = colour,
# 0x80 = reasoning. These picks give 20, 80 and 272 columns, each way.
MARKDOWN_PICKS = [w | c | r for w in (0, 15, 63) for c in (0, 0x40) for r in (0, 0x80)]
# Shapes the model's text rarely has but a hostile one may: deep nesting, wide tables.
MARKDOWN_SHAPES = [
    "> " * 12 + "deep quote\n" + "> " * 12 + "continued\n",
    "- a\n  - b\n    - c\n      1. d\n         > e\n",
    "| a | b | c |\n|---|:-:|--:|\n| 1 | 2 | 3 |\n| long cell text here | x |\n",
    "|" + "c|" * 40 + "\n|" + "-|" * 40 + "\nx\ny\n",
    "# Title\n\nSome *emphasis*, **bold**, ~~strike~~ and `code`.\n\n---\n\n"
    "```rust\nfn main() {}\n```\n\n[link](https://example.com) and <https://example.org>\n",
]


def model_texts(data):
    """The `text` strings with a line break in a file's JSON lines (what the model wrote)."""
    found = []

    def walk(v):
        if isinstance(v, dict):
            for k, x in v.items():
                if k == "text" and isinstance(x, str) and "\n" in x:
                    found.append(x)
                else:
                    walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    for line in data.splitlines():
        try:
            walk(json.loads(line))
        except ValueError:
            pass
    return found


def inputs(dirs):
    """Every regular file under the folders, in a stable order."""
    for top in dirs:
        for root, subdirs, files in os.walk(top):
            subdirs.sort()
            for name in sorted(files):
                if name.endswith((".jsonl", ".sse", ".json", ".txt")):
                    yield os.path.join(root, name)


def write(folder, data):
    path = os.path.join(folder, hashlib.sha1(data).hexdigest())
    if not os.path.exists(path):
        with open(path, "wb") as out:
            out.write(data)


def main():
    dirs = sys.argv[1:] or [
        d
        for d in (
            os.path.normpath(os.path.join(HERE, "..", "samples")),
            os.path.normpath(os.path.join(HERE, "..", "..", "shared", "corpus")),
        )
        if os.path.isdir(d)
    ]
    adapter = os.path.join(HERE, "seeds", "adapter")
    pipeline = os.path.join(HERE, "seeds", "pipeline")
    os.makedirs(adapter, exist_ok=True)
    os.makedirs(pipeline, exist_ok=True)
    markdown = os.path.join(HERE, "seeds", "markdown")
    os.makedirs(markdown, exist_ok=True)
    texts = [t.encode() for t in MARKDOWN_SHAPES]
    for target in os.listdir(os.path.join(HERE, "fuzz_targets")):
        os.makedirs(os.path.join(HERE, "corpus", target.removesuffix(".rs")), exist_ok=True)
    n = 0
    for path in inputs(dirs):
        with open(path, "rb") as f:
            data = f.read()
        for piece in pieces(data):
            write(adapter, piece)
            write(pipeline, bytes([PICKS[n % len(PICKS)]]) + piece)
            n += 1
        texts.extend(t.encode()[:PIECE] for t in model_texts(data))
    for i, text in enumerate(texts):
        write(markdown, bytes([MARKDOWN_PICKS[i % len(MARKDOWN_PICKS)]]) + text)
    print(f"{len(texts)} Markdown texts, {n} pieces from {', '.join(dirs)} in {os.path.relpath(os.path.join(HERE, 'seeds'))}/")


if __name__ == "__main__":
    main()
