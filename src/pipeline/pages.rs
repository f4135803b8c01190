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
/// The file whose lock one writer of the index holds at a time.
const LOCK_FILE: &str = ".scribe-index.lock";

/// Writes `bytes` to `dir/name` atomically, through `output_file` (a new temporary file beside
/// it, renamed over it; never through a symbolic link).
pub(crate) fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    crate::output_file::write_whole(dir, &dir.join(name), |w| w.write_all(bytes))
}

/// The index of one output directory: its rows by page name, shared by the sessions followed
/// in this process and by every other scribe writing the same directory (hooks of sessions that
/// end together). Each update takes the directory's lock, reads the rows file afresh, adds its
/// row and writes both files (each written beside itself and renamed), so no writer's row is lost.
pub(crate) struct Index {
    dir: PathBuf,
    /// The rows as this process last wrote them (to skip rewriting an unchanged row).
    rows: BTreeMap<String, IndexRow>,
}

/// The rows file as it was found.
enum Rows {
    /// Read (or absent: a new directory).
    Read(BTreeMap<String, IndexRow>),
    /// There but unreadable (cut short, edited by hand): rebuilt from the pages.
    Damaged(BTreeMap<String, IndexRow>),
}

impl Index {
    /// The index of `dir`.
    pub(crate) fn load(dir: &Path) -> Index {
        Index {
            dir: dir.to_owned(),
            rows: BTreeMap::new(),
        }
    }

    /// The rows earlier runs left in the rows file; when it is damaged, one row per page found in
    /// the directory (its file name and `<title>`), so that no archived page drops out of the
    /// index.
    fn read_rows(&self) -> Rows {
        let Ok(bytes) = std::fs::read(self.dir.join(ROWS_FILE)) else {
            return Rows::Read(BTreeMap::new());
        };
        match serde_json::from_slice(&bytes) {
            Ok(rows) => Rows::Read(rows),
            Err(_) => Rows::Damaged(rows_from_pages(&self.dir)),
        }
    }

    /// Sets one page's row and rewrites `index.html` (and the rows file). Says so on stderr (the
    /// hook's log) when the rows file was damaged and rebuilt from the pages.
    pub(crate) fn update(&mut self, row: IndexRow, refresh: bool) -> Result<()> {
        // While followed, an unchanged row leaves the index alone; the last write always
        // rewrites it (without the reload tag).
        if refresh && self.rows.get(&row.href) == Some(&row) {
            return Ok(());
        }
        let _lock = DirLock::take(&self.dir)?;
        let mut rows = match self.read_rows() {
            Rows::Read(rows) => rows,
            Rows::Damaged(rows) => {
                eprintln!(
                    "scribe: {} was damaged; the index is rebuilt from the {} pages in {} \
                     (each session's details return when it is written again)",
                    ROWS_FILE,
                    rows.len(),
                    crate::sanitize::sanitize(&self.dir.display().to_string()),
                );
                rows
            }
        };
        self.rows.insert(row.href.clone(), row.clone());
        rows.insert(row.href.clone(), row);
        let list: Vec<IndexRow> = rows.values().cloned().collect();
        let mut page = Vec::new();
        write_index(&mut page, &list)?;
        if refresh {
            page = with_refresh(page);
        }
        write_atomically(&self.dir, ROWS_FILE, &serde_json::to_vec(&rows)?)?;
        write_atomically(&self.dir, "index.html", &page)
    }
}

/// An exclusive lock on an output directory's index, held while one writer reads and rewrites
/// it; released when dropped (and by the system if the process dies).
struct DirLock {
    /// The lock file, whose lock is held for as long as it is open.
    _held: std::fs::File,
}

impl DirLock {
    /// Waits for and takes the lock (`DIR/.scribe-index.lock`, created when missing, never
    /// through a symbolic link).
    fn take(dir: &Path) -> Result<DirLock> {
        let path = dir.join(LOCK_FILE);
        let mut options = std::fs::OpenOptions::new();
        options.create(true).truncate(false).write(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.custom_flags(libc::O_NOFOLLOW);
        }
        let file = options
            .open(&path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        lock_exclusive(&file).with_context(|| format!("cannot lock {}", path.display()))?;
        Ok(DirLock { _held: file })
    }
}

/// Waits for an exclusive `flock` on `file` (released when the file is closed).
#[cfg(unix)]
fn lock_exclusive(file: &std::fs::File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    loop {
        // SAFETY: `flock` on a descriptor this `File` owns and keeps open; no memory is passed.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Elsewhere writers are not serialised (the rows file is still written whole and renamed).
#[cfg(not(unix))]
fn lock_exclusive(_file: &std::fs::File) -> std::io::Result<()> {
    Ok(())
}

/// One row per session page in `dir` (every `.html` file but the index), with the page's
/// `<title>` as its title: what a damaged rows file is rebuilt from.
fn rows_from_pages(dir: &Path) -> BTreeMap<String, IndexRow> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return BTreeMap::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            (name.ends_with(".html") && name != "index.html").then_some((e.path(), name))
        })
        .map(|(path, name)| {
            let title = page_title(&path);
            let row = IndexRow {
                href: name.clone(),
                title,
                ..IndexRow::default()
            };
            (name, row)
        })
        .collect()
}

/// The text of a page's `<title>`, its entities decoded (the first 64 KB of the page are read).
fn page_title(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(64 * 1024)
        .read_to_end(&mut head)
        .ok()?;
    let head = String::from_utf8_lossy(&head);
    let start = head.find("<title>")? + "<title>".len();
    let end = start + head[start..].find("</title>")?;
    let title = head[start..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    Some(title.trim_end_matches(" · scribe").to_owned()).filter(|t| !t.is_empty())
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
        let redact = self.transforms.redacts();
        let name = self.name.get_or_insert_with(|| {
            page_name(
                self.session_id.as_deref(),
                &self.input,
                self.options.format,
                redact,
            )
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

/// `<sessionId>.<ext>`, else the input's own stem; only a plain file name. Under `--redact` a
/// name holding a secret becomes a hash of it.
fn page_name(session_id: Option<&str>, input: &Path, to: OutputFormat, redact: bool) -> String {
    let plain = |s: &str| {
        !s.is_empty()
            && s.len() <= 128
            && s != "."
            && s != ".."
            && !s.starts_with('.')
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
    };
    let hidden = |s: &str| {
        (redact && crate::transform::redact::holds_secret(s))
            .then(|| crate::transform::redact::hashed_stem(s))
    };
    let stem = session_id
        .and_then(|s| hidden(s).or_else(|| plain(s).then(|| s.to_owned())))
        .or_else(|| {
            let s = input.file_stem()?.to_string_lossy().into_owned();
            hidden(&s).or_else(|| plain(&s).then_some(s))
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
        self.transforms.watch(event);
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
