//! `DIR/.scribe-index.json`: what an earlier `-o DIR --to html` run wrote there, so that a run
//! over the same inputs with the same options renders only what changed.

use std::io::{self, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::render::html::index::IndexRow;
use crate::transform::redact::Redactor;

/// What a previous run wrote in the directory: the options its pages were made with and, per
/// input, its size and modification time and the row of the page made from it. A changed input
/// (or a missing page) is rendered again, and so is every input when the options differ (a
/// `--redact` run never keeps a page an earlier run wrote without it); the others keep their
/// page.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Manifest {
    /// The manifest's format (a different one is ignored).
    version: u32,
    /// Everything that changes a page's bytes (scribe's version, the render options, the
    /// transforms), as [`Manifest::load`] was given it.
    #[serde(default)]
    options: String,
    entries: Vec<ManifestEntry>,
    /// The entries of this run (what `save` writes).
    #[serde(skip)]
    fresh: Vec<ManifestEntry>,
    /// `--redact`: inputs' names are redacted too (the home directory written `~`), so that the
    /// manifest keeps no home path or secret either.
    #[serde(skip)]
    redactor: Option<Redactor>,
}

/// One input of a run.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct ManifestEntry {
    input: String,
    size: u64,
    mtime_ns: u128,
    row: IndexRow,
}

impl Manifest {
    /// The manifest's file name in the output directory.
    pub(crate) const FILE: &'static str = ".scribe-index.json";
    const VERSION: u32 = 2;

    /// The manifest in `dir` if its pages were made with `options`, or an empty one (missing,
    /// unreadable, another version or other options). `redactor` is `--redact`'s.
    pub(crate) fn load(dir: &Path, options: String, redactor: Option<Redactor>) -> Manifest {
        let mut m = std::fs::read(dir.join(Manifest::FILE))
            .ok()
            .and_then(|b| serde_json::from_slice::<Manifest>(&b).ok())
            .filter(|m| m.version == Manifest::VERSION && m.options == options)
            .unwrap_or_default();
        m.options = options;
        m.redactor = redactor;
        m
    }

    /// How an input is named in the manifest: its path, redacted under `--redact`.
    fn name_of(&self, input: &Path) -> String {
        let mut name = input.to_string_lossy().into_owned();
        if let Some(r) = &self.redactor {
            r.redact(&mut name);
        }
        name
    }

    /// The row of an input that has not changed since the page in `dir` was written from it.
    pub(crate) fn unchanged(&self, dir: &Path, input: &Path) -> Option<IndexRow> {
        let (size, mtime_ns) = stamp(input)?;
        let name = self.name_of(input);
        let e = self.entries.iter().find(|e| e.input == name)?;
        let page_there = dir.join(&e.row.href).is_file();
        (e.size == size && e.mtime_ns == mtime_ns && page_there).then(|| e.row.clone())
    }

    /// Notes an input of this run and its row.
    pub(crate) fn record(&mut self, input: &Path, row: &IndexRow) {
        let Some((size, mtime_ns)) = stamp(input) else {
            return;
        };
        self.fresh.push(ManifestEntry {
            input: self.name_of(input),
            size,
            mtime_ns,
            row: row.clone(),
        });
    }

    /// Writes this run's entries to `out` (the caller writes [`Manifest::FILE`] through
    /// `crate::output_file`, so a planted symbolic link is refused, not followed).
    pub(crate) fn save(mut self, out: &mut dyn Write) -> io::Result<()> {
        self.version = Manifest::VERSION;
        self.entries = std::mem::take(&mut self.fresh);
        serde_json::to_writer(&mut *out, &self).map_err(io::Error::other)
    }
}

/// An input file's size and modification time (nanoseconds since 1970); `None` for stdin or a
/// file that cannot be read.
fn stamp(input: &Path) -> Option<(u64, u128)> {
    let meta = std::fs::metadata(input).ok()?;
    let mtime = meta.modified().ok()?;
    let ns = mtime.duration_since(std::time::UNIX_EPOCH).ok()?.as_nanos();
    meta.is_file().then_some((meta.len(), ns))
}
