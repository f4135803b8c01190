//! `scribe hook --to html -o DIR`: scribe as the agent's own hook. Reads the payload the agent
//! sends when a turn or a session ends, converts the transcript it names (with its sub-agent
//! files) into DIR and refreshes DIR's index.
//!
//! Payloads read:
//! * Claude Code hooks (`Stop`, `SessionEnd`, …): JSON on stdin with `session_id`,
//!   `transcript_path`, `cwd`, `hook_event_name`.
//! * Gemini CLI hooks (`AfterAgent`, `SessionEnd`, …): the same four fields on stdin; Gemini
//!   wants nothing but JSON on stdout, so `{}` is printed.
//! * Codex `notify`: one JSON argument (`{"type": "agent-turn-complete", "thread-id": …}`) with no
//!   path in it: the rollout is the file under `$CODEX_HOME/sessions` (default `~/.codex`) whose
//!   name ends with the thread id.
//!
//! It must never fail or slow the agent's turn: the conversion runs in a child process of its
//! own (`--transcript PATH`) whose standard error goes to `DIR/scribe-hook.log`, and the hook
//! exits 0 whatever happens, writing its own problems to the same log.

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

use anyhow::{Context, Result, anyhow, bail};
use serde_json::Value;

use super::driver::InputDriver;
use super::pages::{Index, Page};
use crate::cli::{Cli, ColorWhen, HookArgs};
use crate::diagnostics::Diagnostics;
use crate::exit;
use crate::input::{self, SourceFormat};
use crate::render::RenderOptions;
use crate::transform::Transforms;

/// The log file in the archive directory.
const LOG: &str = "scribe-hook.log";
/// A payload larger than this is not a hook payload.
const MAX_PAYLOAD: u64 = 1 << 20;

/// Runs `scribe hook`; always exit 0 (see the module comment).
pub(crate) fn run(cli: &Cli, args: &HookArgs) -> u8 {
    let dir = &args.output_dir;
    if let Some(transcript) = &args.transcript {
        // The child: its stderr is the log already.
        match convert(cli, args, transcript) {
            // Said already, with what the input holds.
            Err(e) if e.is::<super::driver::NotALog>() => {}
            Err(e) => crate::diagnostics::say(&one_line(&crate::diagnostics::error_words(&e))),
            Ok(()) => {}
        }
        return exit::SUCCESS;
    }
    let from_stdin = args.payload.is_none();
    if let Err(e) = hook(cli, args) {
        log(
            dir,
            &format!("scribe hook: {}", crate::diagnostics::error_words(&e)),
        );
    }
    if from_stdin {
        // Gemini CLI reads the hook's stdout as JSON; an empty object changes nothing (Claude
        // Code ignores it too).
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(b"{}\n").and_then(|()| out.flush());
    }
    exit::SUCCESS
}

/// Reads the payload, finds the transcript and converts it in a child process.
fn hook(cli: &Cli, args: &HookArgs) -> Result<()> {
    let text = match &args.payload {
        Some(p) => p.clone(),
        None => {
            let mut s = String::new();
            std::io::stdin()
                .take(MAX_PAYLOAD)
                .read_to_string(&mut s)
                .context("cannot read the hook payload on stdin")?;
            s
        }
    };
    let payload: Value = serde_json::from_str(text.trim())
        .map_err(|e| anyhow!("the hook payload is not JSON ({e})"))?;
    let transcript = transcript_of(&payload)?;
    std::fs::create_dir_all(&args.output_dir)
        .with_context(|| format!("cannot create {}", args.output_dir.display()))?;
    let log = open_log(&args.output_dir)?;
    let exe = std::env::current_exe().context("cannot find scribe's own executable")?;
    let mut child = Command::new(exe);
    child
        .args(child_args(cli, args, &transcript))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(log));
    let status = child.status().context("cannot run scribe")?;
    if !status.success() {
        bail!("converting {} failed ({status})", transcript.display());
    }
    Ok(())
}

/// The child's command line: every option the hook was given that changes the conversion, then
/// the transcript. `HookArgs` is taken apart field by field, so an option added to the hook is a
/// compile error here until it is passed on (or said to stay with the parent).
fn child_args(cli: &Cli, args: &HookArgs, transcript: &Path) -> Vec<OsString> {
    let HookArgs {
        to,
        output_dir,
        // The payload is read by the parent only; the child is given the transcript it named.
        payload: _,
        transcript: _,
    } = args;
    let mut out: Vec<OsString> = vec!["hook".into(), "--to".into(), value_name(to).into()];
    out.extend(["-o".into(), output_dir.as_os_str().to_owned()]);
    // The global options `scribe hook --help` offers.
    out.push(format!("--color={}", value_name(&cli.color)).into());
    if let Some(mode) = &cli.stable {
        out.push(format!("--stable={}", value_name(mode)).into());
    }
    if cli.redact {
        out.push("--redact".into());
    }
    out.extend(["--transcript".into(), transcript.as_os_str().to_owned()]);
    out
}

/// A value as the command line spells it.
fn value_name(value: &impl clap::ValueEnum) -> String {
    value
        .to_possible_value()
        .map(|v| v.get_name().to_owned())
        .unwrap_or_default()
}

/// The transcript a payload names.
fn transcript_of(payload: &Value) -> Result<PathBuf> {
    if let Some(p) = payload
        .get("transcript_path")
        .and_then(Value::as_str)
        .filter(|p| !p.is_empty())
    {
        return Ok(expand_home(p));
    }
    if let Some(thread) = payload.get("thread-id").and_then(Value::as_str) {
        if let Some(found) = input::registry::session_by_id(thread) {
            return found;
        }
    }
    bail!("the hook payload names no transcript (no transcript_path, no thread-id)")
}

/// `~/…` as a shell would read it.
fn expand_home(p: &str) -> PathBuf {
    match (p.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => Path::new(&home).join(rest),
        _ => PathBuf::from(p),
    }
}

/// The child's work: one page (and the index) from the transcript.
fn convert(cli: &Cli, args: &HookArgs, transcript: &Path) -> Result<()> {
    let dir = &args.output_dir;
    let options = RenderOptions {
        format: args.to,
        // An archived file is read later, not on this terminal: colour only when asked for.
        color: cli.color == ColorWhen::Always,
        width: 100,
        full: false,
        thinking: false,
        context: false,
        debug: false,
        compact: false,
        results_in_call_order: cli.stable.is_some(),
        archive: true,
    };
    let home = crate::settings::home();
    let transforms = Transforms::with(cli.stable, cli.redact, home.as_deref());
    let index = Mutex::new(Index::load(dir));
    let mut page = Page::new(dir, transcript, options, transforms, Some(&index));
    let name = transcript.display().to_string();
    // A FIFO, a device or a socket named as the transcript would hold the hook (and the agent's
    // turn) for ever: only a regular file is read.
    let meta = std::fs::metadata(transcript).with_context(|| format!("cannot read {name}"))?;
    if !meta.is_file() {
        bail!("{name} is not a regular file; not reading it");
    }
    let file = File::open(transcript).with_context(|| format!("cannot read {name}"))?;
    let mut diag = Diagnostics::new(false);
    let outcome =
        InputDriver::new(&name, transcript, SourceFormat::Auto).run(file, &mut page, &mut diag)?;
    page.write(&outcome.summary, false)
}

/// The log file, opened for appending (created when missing). Never through a symbolic link:
/// one planted in a shared output directory would make every hook run append to its target
/// (a `~/.bashrc`), with a line naming a path the payload chose.
fn open_log(dir: &Path) -> Result<File> {
    let path = dir.join(LOG);
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    #[cfg(not(unix))]
    if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
        bail!(
            "{} is a symbolic link; not writing through it",
            path.display()
        );
    }
    options
        .open(&path)
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Appends one line to the log; if even that fails, there is nowhere left to say it.
fn log(dir: &Path, line: &str) {
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    if let Ok(mut f) = open_log(dir) {
        let _ = writeln!(f, "{}", one_line(line));
    }
}

/// A log entry as one line, whatever the payload put in a path: control sequences and
/// invisible characters made visible, line breaks written `\n`.
fn one_line(text: &str) -> String {
    crate::sanitize::sanitize(text)
        .replace('\n', "\\n")
        .replace('\r', "\\r")
}
