//! Files in `--output-dir` that are rewritten while their session grows (`--follow -o DIR`) or
//! refreshed by `scribe hook`: each page is rendered whole from the records kept so far, written
//! to a temporary file beside it and renamed over it (a reader never sees half a page), at most
//! once a second. The index lists every page the directory has had, across runs: its rows are
//! kept in `DIR/.scribe-follow-index.json`.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::driver::Sink;
use crate::model::Header;
use crate::model::event::Event;
use crate::model::transcript::TranscriptItem;
use crate::render::html::index::{IndexRow, Tally, write_index};
use crate::render::{self, OutputFormat, Render, RenderOptions, Summary};
use crate::transform::Transforms;

/// A page is rewritten at most this often while its session grows.
const MIN_INTERVAL: Duration = Duration::from_secs(1);
/// How often a page open in a browser reloads itself while followed (seconds).
const REFRESH_SECS: u32 = 2;
/// The file that keeps the index's rows between runs.
const ROWS_FILE: &str = ".scribe-follow-index.json";

/// Writes `bytes` to `dir/name` atomically, through `output_file` (a new temporary file beside
/// it, renamed over it; never through a symbolic link).
pub(crate) fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    crate::output_file::write_whole(dir, &dir.join(name), |w| w.write_all(bytes))
}

/// The index of one output directory: its rows by page name, shared by the sessions followed.
pub(crate) struct Index {
    dir: PathBuf,
    rows: BTreeMap<String, IndexRow>,
}

impl Index {
    /// The index of `dir`, with the rows earlier runs left there.
    pub(crate) fn load(dir: &Path) -> Index {
        let rows = std::fs::read(dir.join(ROWS_FILE))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        Index {
            dir: dir.to_owned(),
            rows,
        }
    }

    /// Sets one page's row and rewrites `index.html` (and the rows file).
    pub(crate) fn update(&mut self, row: IndexRow, refresh: bool) -> Result<()> {
        // While followed, an unchanged row leaves the index alone; the last write always
        // rewrites it (without the reload tag).
        if refresh && self.rows.get(&row.href) == Some(&row) {
            return Ok(());
        }
        self.rows.insert(row.href.clone(), row);
        let rows: Vec<IndexRow> = self.rows.values().cloned().collect();
        let mut page = Vec::new();
        write_index(&mut page, &rows)?;
        if refresh {
            page = with_refresh(page);
        }
        write_atomically(&self.dir, ROWS_FILE, &serde_json::to_vec(&self.rows)?)?;
        write_atomically(&self.dir, "index.html", &page)
    }
}

/// Adds a `<meta http-equiv="refresh">` to a page's head (follow mode only).
fn with_refresh(page: Vec<u8>) -> Vec<u8> {
    let meta = format!("<meta http-equiv=\"refresh\" content=\"{REFRESH_SECS}\">\n");
    let head = b"<meta charset=\"utf-8\">\n";
    match memchr::memmem::find(&page, head) {
        Some(i) => {
            let at = i + head.len();
            let mut out = Vec::with_capacity(page.len() + meta.len());
            out.extend_from_slice(&page[..at]);
            out.extend_from_slice(meta.as_bytes());
            out.extend_from_slice(&page[at..]);
            out
        }
        None => page,
    }
}

/// What a page is rendered from: everything the driver delivered, after the transforms.
enum Record {
    Live(Box<Event>),
    Item(TranscriptItem),
}

/// One input's file in the output directory, rendered whole each time it is written.
pub(crate) struct Page<'a> {
    dir: PathBuf,
    options: RenderOptions,
    transforms: Transforms,
    /// The input's name in the file system (its stem names the page without a session id).
    input: PathBuf,
    header: Option<Header>,
    records: Vec<Record>,
    session_id: Option<String>,
    /// The page's file name, fixed at its first write.
    name: Option<String>,
    changed: bool,
    last_write: Option<Instant>,
    /// Follow mode: pages reload themselves and writes are spaced.
    live: bool,
    index: Option<&'a Mutex<Index>>,
}

impl<'a> Page<'a> {
    /// A page for `input` in `dir`; `index` is updated with its row (HTML).
    pub(crate) fn new(
        dir: &Path,
        input: &Path,
        options: RenderOptions,
        transforms: Transforms,
        index: Option<&'a Mutex<Index>>,
    ) -> Page<'a> {
        let transforms = transforms.ordering_events(options.format == OutputFormat::Events);
        Page {
            dir: dir.to_owned(),
            options,
            transforms,
            input: input.to_owned(),
            header: None,
            records: Vec::new(),
            session_id: None,
            name: None,
            changed: false,
            last_write: None,
            live: false,
            index,
        }
    }

    /// Follow mode: the page reloads itself and its writes are spaced.
    pub(crate) fn following(mut self) -> Page<'a> {
        self.live = true;
        self
    }

    /// Writes the page when it changed and the last write is a second old.
    pub(crate) fn write_due(&mut self) -> Result<()> {
        if self.changed && self.last_write.is_none_or(|t| t.elapsed() >= MIN_INTERVAL) {
            self.write(&Summary::default(), self.live)?;
        }
        Ok(())
    }

    /// Renders the whole page and writes it (with a reload tag when `refresh`).
    pub(crate) fn write(&mut self, summary: &Summary, refresh: bool) -> Result<()> {
        let held = self.transforms.finish_events();
        self.records
            .extend(held.into_iter().map(|e| Record::Live(Box::new(e))));
        let Some(header) = &self.header else {
            return Ok(());
        };
        let html = self.options.format == OutputFormat::Html;
        let mut inner: Box<dyn Render> = render::renderer_for(&self.options);
        let mut tally = Tally::new(inner.as_mut());
        let mut bytes = Vec::new();
        tally.begin(&mut bytes, header)?;
        for r in &self.records {
            match r {
                Record::Live(e) => tally.live(&mut bytes, e)?,
                Record::Item(i) => tally.item(&mut bytes, i)?,
            }
        }
        tally.finish(&mut bytes, summary)?;
        let mut row = tally.row;
        if html && refresh {
            bytes = with_refresh(bytes);
        }
        let name = self.name.get_or_insert_with(|| {
            page_name(self.session_id.as_deref(), &self.input, self.options.format)
        });
        std::fs::create_dir_all(&self.dir)
            .with_context(|| format!("cannot create {}", self.dir.display()))?;
        write_atomically(&self.dir, name, &bytes)?;
        self.changed = false;
        self.last_write = Some(Instant::now());
        if let (true, Some(index)) = (html, self.index) {
            row.href = name.clone();
            let mut index = index.lock().unwrap_or_else(|e| e.into_inner());
            index.update(row, refresh)?;
        }
        Ok(())
    }
}

/// `<sessionId>.<ext>`, else the input's own stem; only a plain file name.
fn page_name(session_id: Option<&str>, input: &Path, to: OutputFormat) -> String {
    let plain = |s: &str| {
        !s.is_empty()
            && s.len() <= 128
            && s != "."
            && s != ".."
            && !s.starts_with('.')
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
    };
    let stem = session_id
        .filter(|s| plain(s))
        .map(str::to_owned)
        .or_else(|| {
            input
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .filter(|s| plain(s))
        })
        .unwrap_or_else(|| "session".to_owned());
    let stem = if stem == "index" && to == OutputFormat::Html {
        "index-session".to_owned()
    } else {
        stem
    };
    format!("{stem}.{}", to.extension())
}

impl Sink for Page<'_> {
    fn begin(&mut self, mut header: Header) -> Result<()> {
        self.transforms.header(&mut header);
        self.header = Some(header);
        self.changed = true;
        Ok(())
    }

    fn live(&mut self, event: &Event) -> Result<()> {
        if self.options.format != OutputFormat::Events {
            return Ok(());
        }
        if self.transforms.is_empty() {
            self.records.push(Record::Live(Box::new(event.clone())));
        } else {
            for shown in self.transforms.event(event) {
                self.records.push(Record::Live(Box::new(shown)));
            }
        }
        self.changed = true;
        Ok(())
    }

    fn item(&mut self, mut item: TranscriptItem) -> Result<()> {
        if let (TranscriptItem::Session(s), None) = (&item, &self.session_id) {
            self.session_id = Some(s.session_id.clone());
        }
        self.transforms.item(&mut item);
        self.records.push(Record::Item(item));
        self.changed = true;
        Ok(())
    }

    fn idle(&mut self) -> Result<()> {
        if self.live {
            self.write_due()?;
        }
        Ok(())
    }
}

/// A page shared between the driver (as its sink) and the follow reader (which writes it when
/// the once-a-second limit held a change back and the input then went quiet).
pub(crate) struct SharedPage<'p, 'a>(pub(crate) &'p RefCell<Page<'a>>);

impl Sink for SharedPage<'_, '_> {
    fn begin(&mut self, header: Header) -> Result<()> {
        self.0.borrow_mut().begin(header)
    }
    fn live(&mut self, event: &Event) -> Result<()> {
        self.0.borrow_mut().live(event)
    }
    fn item(&mut self, item: TranscriptItem) -> Result<()> {
        self.0.borrow_mut().item(item)
    }
    fn idle(&mut self) -> Result<()> {
        self.0.borrow_mut().idle()
    }
}
