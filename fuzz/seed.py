#!/usr/bin/env python3
"""Seeds for the fuzz targets, cut from real logs.

Writes `seeds/adapter/` (for every per-adapter target) and `seeds/pipeline/` (the same pieces,
each behind the byte with which the `pipeline` target picks its output format and passes) from
`../samples/` and, when it sits beside the checkout, `../../shared/corpus/`; other folders may
be named on the command line. It also makes the empty `corpus/<target>/` folders that
`cargo fuzz run TARGET corpus/TARGET seeds/...` writes new inputs to (libFuzzer refuses a folder
that does not exist). Every file is cut at line ends into pieces of at most 16 KB (a
longer line is cut short), so that libFuzzer mutates small inputs fast; the first piece of a file
keeps its head (where detection looks). A piece is named by its SHA-1: copies collapse.

    python3 seed.py [DIR...]
"""

import hashlib
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
    print(f"{n} pieces from {', '.join(dirs)} in {os.path.relpath(os.path.join(HERE, 'seeds'))}/")


if __name__ == "__main__":
    main()
