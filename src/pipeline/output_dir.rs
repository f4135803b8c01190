//! `--output-dir`: a file per input, named after the session it holds, moved into place whole;
//! for HTML, `index.html` over the pages and `.scribe-index.json` to keep unchanged pages.

use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use tempfile::NamedTempFile;

use super::manifest::Manifest;
use super::names::Names;
use super::{Rendered, Run};
use crate::cli::OutputFormat;
use crate::render::html::index::{IndexRow, Tally, write_index};
use crate::settings::Settings;
use crate::transform::redact::Redactor;

/// Where each input's file goes, the names taken so far, and (for HTML) the rows of
/// `index.html`.
pub(super) struct OutputDir {
    pub(super) dir: PathBuf,
    /// The files' names, shared with the threads that render inputs side by side.
    pub(super) names: Arc<Names>,
    /// Inputs given to [`OutputDir::write`] so far (one at a time: each its turn to be named).
    count: usize,
    index: Vec<IndexRow>,
    /// HTML: the inputs a previous run rendered here (size, mtime, row), so that an unchanged
    /// input keeps its page.
    manifest: Option<Manifest>,
}

impl OutputDir {
    /// The output directory `dir`; `beside`: the renderer writes files beside each input's.
    pub(super) fn new(dir: &Path, settings: &Settings, beside: bool) -> OutputDir {
        let html = settings.to == OutputFormat::Html;
        let names = Names::new(dir, settings, beside);
        // `index.html` is the HTML index's own name: no session page may take it.
        if html {
            names.reserve(dir.join("index.html"));
        }
        OutputDir {
            dir: dir.to_owned(),
            names: Arc::new(names),
            count: 0,
            index: Vec::new(),
            manifest: html.then(|| {
                let redactor = settings
                    .redact
                    .then(|| Redactor::new(settings.home.as_deref()));
                Manifest::load(dir, settings.output_fingerprint(), redactor)
            }),
        }
    }

    /// Renders one input into a temporary file in the directory (so memory stays flat, as on
    /// standard output), then names it after the session it holds and moves it there.
    pub(super) fn write(
        &mut self,
        run: &mut Run<'_>,
        path: &Path,
        input: impl Read + Send,
    ) -> Result<Rendered> {
        if self.keep_unchanged(path) {
            return Ok(Rendered::default());
        }
        // Removed when dropped: an error below leaves nothing behind.
        let mut buf = self.temp_file()?;
        let name = self.names.ticket(self.count, path);
        self.count += 1;
        run.name.clone_from(&name);
        let page = render_page(run, path, input, &mut buf);
        run.name = None;
        if let Some(name) = name {
            name.settle();
        }
        let (mut rendered, row) = page?;
        self.place(crate::output_file::finished(buf)?, &mut rendered, row, path)?;
        Ok(rendered)
    }

    /// Moves an input rendered ahead of its turn (side by side) into the directory: as
    /// [`OutputDir::write`], from what was rendered into `spool`.
    pub(super) fn place_spooled(
        &mut self,
        mut spool: impl Read,
        rendered: &mut Rendered,
        row: Option<IndexRow>,
        path: &Path,
    ) -> Result<()> {
        let mut buf = self.temp_file()?;
        io::copy(&mut spool, &mut buf)?;
        self.place(crate::output_file::finished(buf)?, rendered, row, path)
    }

    /// A new temporary file in the directory (made first if need be).
    fn temp_file(&self) -> Result<BufWriter<NamedTempFile>> {
        std::fs::create_dir_all(&self.dir)
            .with_context(|| format!("cannot create {}", self.dir.display()))?;
        crate::output_file::temp_in(&self.dir)
    }

    /// True when `.scribe-index.json` says the input has not changed since its page was made
    /// (checked before a run side by side, which then renders only the others).
    pub(super) fn is_unchanged(&self, path: &Path) -> bool {
        self.manifest
            .as_ref()
            .is_some_and(|m| m.unchanged(&self.dir, path).is_some())
    }

    /// The page of an input unchanged since the last run over this directory is kept: its row
    /// (from `.scribe-index.json`) goes into the index and the name it had stays taken. True
    /// when the input needs no rendering.
    pub(super) fn keep_unchanged(&mut self, path: &Path) -> bool {
        let dir = &self.dir;
        let Some(m) = self.manifest.as_mut() else {
            return false;
        };
        let Some(row) = m.unchanged(dir, path) else {
            return false;
        };
        self.names.reserve(dir.join(&row.href));
        m.record(path, &row);
        self.index.push(row);
        true
    }

    /// Names a rendered input's file (in the order inputs are placed, which is the order of the
    /// inputs, so names never depend on which input finished first), unless it was named while
    /// it rendered, and renames it there, after the files beside it; for HTML, adds its row to
    /// the index (and the manifest).
    fn place(
        &mut self,
        temp: tempfile::TempPath,
        rendered: &mut Rendered,
        row: Option<IndexRow>,
        path: &Path,
    ) -> Result<()> {
        let target = match rendered.named.take() {
            Some(named) => {
                for (file, target) in named.beside {
                    crate::output_file::install_path(file, &target)?;
                }
                named.target
            }
            None => self.names.take(rendered.session_id.as_deref(), path),
        };
        crate::output_file::install_path(temp, &target)?;
        if let Some(mut row) = row {
            row.href = target
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if let Some(m) = self.manifest.as_mut() {
                m.record(path, &row);
            }
            self.index.push(row);
        }
        Ok(())
    }

    /// Writes `index.html` (HTML only, when a page was written).
    pub(super) fn finish(self) -> Result<()> {
        if self.index.is_empty() {
            return Ok(());
        }
        let target = self.dir.join("index.html");
        crate::output_file::write_whole(&self.dir, &target, |f| write_index(f, &self.index))?;
        match self.manifest {
            Some(m) => {
                let file = self.dir.join(Manifest::FILE);
                crate::output_file::write_whole(&self.dir, &file, |f| m.save(f))
            }
            None => Ok(()),
        }
    }
}

/// Renders one input into `out` (on two threads if the run may use them); for HTML, through a [`Tally`] that also makes the page's row
/// for `index.html` (its `href` is set when the file is named).
pub(super) fn render_page(
    run: &mut Run<'_>,
    path: &Path,
    input: impl Read + Send,
    out: &mut BufWriter<impl Write>,
) -> Result<(Rendered, Option<IndexRow>)> {
    if run.settings.to != OutputFormat::Html {
        return Ok((run.convert_input(path, input, out)?, None));
    }
    let mut tally = Tally::new(&mut *run.renderer);
    let mut page = Run {
        settings: run.settings,
        renderer: &mut tally,
        diag: &mut *run.diag,
        stats: &mut *run.stats,
        decode_thread: run.decode_thread,
        name: run.name.clone(),
    };
    let rendered = page.convert_input(path, input, out)?;
    Ok((rendered, Some(tally.row)))
}
