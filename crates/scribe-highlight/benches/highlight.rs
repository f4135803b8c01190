//! How fast the highlighter reads code: a megabyte or more of each of several languages,
//! highlighted line by line as the HTML page does, the best of a few runs, in MB/s.
//!
//! Run with `cargo bench -p scribe-highlight` (std only: no harness, no dependency). The Rust is
//! this crate's own source; the rest are small real-looking files repeated to size.

use std::hint::black_box;
use std::time::{Duration, Instant};

use scribe_highlight::{Highlighter, language};

/// How many bytes of each language are highlighted a run.
const SIZE: usize = 1 << 20;

/// How many runs each language gets; the fastest counts (the others met a busy machine).
const RUNS: usize = 5;

/// This crate's own Rust.
const RUST: &[&str] = &[
    include_str!("../src/lib.rs"),
    include_str!("../src/lexer.rs"),
    include_str!("../src/lexer/markup.rs"),
    include_str!("../src/language.rs"),
    include_str!("../src/languages/braces.rs"),
];

/// A Python module of the usual kind: imports, a class, decorators, docstrings, f-strings.
const PYTHON: &str = r#"import json
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Session:
    """One agent session read from disk."""

    path: Path
    turns: list[dict] = field(default_factory=list)
    tokens: int = 0

    def load(self) -> "Session":
        # Each line is one JSON event; blank lines are skipped.
        with self.path.open(encoding="utf-8") as f:
            for n, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                try:
                    event = json.loads(line)
                except json.JSONDecodeError as e:
                    raise ValueError(f"{self.path}:{n}: {e}") from None
                self.turns.append(event)
                self.tokens += event.get("usage", {}).get("output_tokens", 0)
        return self

    @property
    def cost(self) -> float:
        return round(self.tokens * 1.5e-5, 4) if self.tokens > 0 else 0.0
"#;

/// A TypeScript component: interfaces, generics, template literals, arrow functions.
const TYPESCRIPT: &str = r#"import { useEffect, useState } from "react";

export interface Props<T> {
  items: readonly T[];
  render: (item: T, index: number) => string;
  onSelect?: (item: T) => void;
}

/* A list that filters itself as the user types. */
export function FilterList<T extends { id: string }>({ items, render, onSelect }: Props<T>) {
  const [query, setQuery] = useState<string>("");
  const [shown, setShown] = useState<T[]>([]);
  useEffect(() => {
    const q = query.trim().toLowerCase();
    setShown(items.filter((it, i) => render(it, i).toLowerCase().includes(q)));
  }, [query, items, render]);
  const label = `${shown.length} of ${items.length} shown`;
  return { label, shown, select: (item: T) => onSelect?.(item) ?? null };
}
"#;

/// A shell script: variables, quotes, substitutions, comments.
const SHELL: &str = r#"#!/usr/bin/env bash
set -euo pipefail

# Build every crate, then run the tests that need the corpus.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
for crate in "$root"/crates/*/; do
  name=$(basename "$crate")
  echo "building $name"
  if ! cargo build --locked -p "$name" 2>"/tmp/$name.log"; then
    echo 'build failed:' >&2
    tail -n 20 "/tmp/$name.log" >&2
    exit 1
  fi
done
SCRIBE_CORPUS=required cargo test --locked -- --test-threads="$(nproc)" | tee test.log
"#;

/// A JSON document: keys, strings, numbers, constants.
const JSON: &str = r#"{
  "type": "assistant",
  "uuid": "5f0c8a52-1c1e-4b0e-9d8f-3a6e2b7c9d10",
  "message": {
    "role": "assistant",
    "content": [
      {"type": "text", "text": "Reading the file first."},
      {"type": "tool_use", "id": "toolu_01", "name": "Read", "input": {"file_path": "/src/main.rs", "limit": 200}}
    ],
    "usage": {"input_tokens": 1532, "output_tokens": 87, "cache_read_input_tokens": 0},
    "stop_reason": null,
    "sidechain": false
  }
}
"#;

/// An HTML page: tags, attributes, entities, comments.
const HTML: &str = r##"<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Session &mdash; scribe</title>
  <!-- the page's own stylesheet, inline -->
  <link rel="stylesheet" href="page.css">
</head>
<body class="dark">
  <nav id="timeline" data-count="42"><a href="#t1">Turn 1</a> &middot; <a href="#t2">Turn 2</a></nav>
  <main>
    <section class="turn" id="t1"><h2>Fix the build</h2>
      <p>The agent read <code>src/main.rs</code> &amp; ran <kbd>cargo test</kbd>.</p>
    </section>
  </main>
</body>
</html>
"##;

/// `text` repeated to at least [`SIZE`] bytes.
fn sized(text: &str) -> String {
    text.repeat(SIZE.div_ceil(text.len()))
}

/// Highlights every line of `code` as `lang` once; returns how many pieces it made.
fn highlight(lang: &str, code: &str) -> usize {
    let mut hl = Highlighter::new(language(lang));
    code.split('\n').map(|line| hl.line(line).len()).sum()
}

/// The fastest of [`RUNS`] runs over `code`.
fn best_time(lang: &str, code: &str) -> Duration {
    (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            black_box(highlight(lang, black_box(code)));
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    let inputs = [
        ("rust", sized(&RUST.concat())),
        ("python", sized(PYTHON)),
        ("typescript", sized(TYPESCRIPT)),
        ("sh", sized(SHELL)),
        ("json", sized(JSON)),
        ("html", sized(HTML)),
    ];
    let mut total_bytes = 0;
    let mut total_time = Duration::ZERO;
    println!("{:<12} {:>8} {:>10}", "language", "MB", "MB/s");
    for (lang, code) in &inputs {
        let time = best_time(lang, code);
        let mb = code.len() as f64 / 1e6;
        println!("{lang:<12} {mb:>8.2} {:>10.1}", mb / time.as_secs_f64());
        total_bytes += code.len();
        total_time += time;
    }
    let mb = total_bytes as f64 / 1e6;
    println!(
        "{:<12} {mb:>8.2} {:>10.1}",
        "all",
        mb / total_time.as_secs_f64()
    );
}
