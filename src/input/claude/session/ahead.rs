//! Pass 1 on two cores. Reading each row's few fields (`head::read`) is nearly all of pass 1,
//! and pass 1 writes nothing, so the renderer's thread waits through it. With a spare core
//! (`Adapter::set_spare_core`), lines are held in a batch of about a megabyte; the batch's rows
//! are read on two threads, half each, then indexed here in file order, as one line at a time
//! would index them.
//!
//! A line that is not a JSON object is reported when it is indexed, and the driver counts such
//! lines in a row to give up on garbage: it counts per line handed over. So from the first such
//! line on, the rest of its batch and every later line are indexed one per line handed over
//! (each a batch's length late), and the lines still held when the input ends are given back
//! one at a time (`next_held`).

use std::collections::VecDeque;
use std::sync::mpsc::sync_channel;

use super::head::{self, Head};
use super::log::SessionLog;
use crate::input::{InputLine, Report};

/// The bytes a batch holds before it is read.
const BATCH_BYTES: usize = 512 << 10;
/// The lines a batch holds before it is read (a batch of short lines).
const BATCH_LINES: usize = 2048;
/// A batch this small is read on this thread: a thread costs more than it saves.
const ALONE_BYTES: usize = 64 << 10;

/// The lines held and how they are read.
#[derive(Default)]
pub(super) struct ReadAhead {
    /// The batch: its first `len` slots, each with its offset in the log's source (slots are
    /// reused batch after batch, their text's capacity with them).
    lines: Vec<(InputLine, u64)>,
    len: usize,
    bytes: usize,
    /// From the first line that is not a JSON object on: the lines read and not yet indexed,
    /// in order, one indexed per line handed over.
    late: Option<VecDeque<(InputLine, u64)>>,
}

impl ReadAhead {
    /// Takes the line just read (at `offset` in the log's source) and indexes what is due.
    pub(super) fn line(
        &mut self,
        log: &mut SessionLog,
        line: &InputLine,
        offset: u64,
        report: &mut Report<'_>,
    ) {
        if let Some(late) = self.late.as_mut() {
            late.push_back((line.clone(), offset));
            if let Some((line, offset)) = late.pop_front() {
                log.line(&line, offset, report, false);
            }
            return;
        }
        if self.len == self.lines.len() {
            self.lines.push(Default::default());
        }
        let (slot, at) = &mut self.lines[self.len];
        slot.text.clone_from(&line.text);
        slot.number = line.number;
        slot.offset = line.offset;
        slot.lossy = line.lossy;
        slot.unterminated = line.unterminated;
        *at = offset;
        self.len += 1;
        self.bytes += line.text.len();
        if self.bytes >= BATCH_BYTES || self.len >= BATCH_LINES {
            self.index(log, report);
        }
    }

    /// The input ended: indexes the batch, or the next line left late; false when none is.
    pub(super) fn next_held(&mut self, log: &mut SessionLog, report: &mut Report<'_>) -> bool {
        if self.len > 0 {
            self.index(log, report);
            return true;
        }
        match self.late.as_mut().and_then(VecDeque::pop_front) {
            Some((line, offset)) => {
                log.line(&line, offset, report, false);
                true
            }
            None => false,
        }
    }

    /// Reads the batch's rows, on two threads when it is large enough, and indexes them in
    /// order up to and including the first line that is not a JSON object; the lines after it
    /// wait in `late`.
    fn index(&mut self, log: &mut SessionLog, report: &mut Report<'_>) {
        let held = &self.lines[..self.len];
        let mut first_bad = None;
        read_each(held, self.bytes, |from, heads| {
            for (i, head) in heads.iter().enumerate() {
                let (line, offset) = &held[from + i];
                if line.text.trim().is_empty() {
                    continue;
                }
                log.indexed((line, *offset), head.as_ref(), report, false);
                if head.is_none() {
                    first_bad = Some(from + i);
                    return false;
                }
            }
            true
        });
        if let Some(i) = first_bad {
            self.late = Some(
                self.lines[i + 1..self.len]
                    .iter_mut()
                    .map(std::mem::take)
                    .collect(),
            );
        }
        self.len = 0;
        self.bytes = 0;
        // A slot that held a long line gives its memory back: a batch holds about a megabyte.
        for (line, _) in &mut self.lines {
            if line.text.capacity() > BATCH_BYTES {
                line.text = String::new();
            }
        }
    }
}

/// Reads each held line's row (`None` for a blank line, or one that is not a JSON object) and
/// hands the rows to `index` in order, a part at a time with the place of its first line, until
/// it returns false. The second half (by bytes) is read on another thread when the batch is
/// large enough and a thread can be had; its rows go back to it to be freed, since each thread
/// frees only what it allocated (a block freed on another thread stays with the allocator).
fn read_each<'a>(
    held: &'a [(InputLine, u64)],
    bytes: usize,
    mut index: impl FnMut(usize, &[Option<Head<'a>>]) -> bool,
) {
    let half = match bytes < ALONE_BYTES {
        true => held.len(),
        false => {
            let mut seen = 0;
            held.iter()
                .position(|(line, _)| {
                    seen += line.text.len();
                    seen >= bytes / 2
                })
                .map_or(held.len(), |i| i + 1)
        }
    };
    let (front, back) = held.split_at(half);
    if back.is_empty() {
        index(0, &read(front));
        return;
    }
    std::thread::scope(|scope| {
        let (to_main, read_back) = sync_channel(1);
        let (give_back, returned) = sync_channel::<Vec<Option<Head<'a>>>>(1);
        let other = std::thread::Builder::new()
            .name("scribe-pass-1".to_owned())
            .spawn_scoped(scope, move || {
                if to_main.send(read(back)).is_ok() {
                    drop(returned.recv());
                }
            });
        if index(0, &read(front)) {
            match other.as_ref().ok().and_then(|_| read_back.recv().ok()) {
                Some(rows) => {
                    index(half, &rows);
                    // Nothing to do if the thread is gone: the rows are freed here then.
                    let _ = give_back.send(rows);
                }
                // No thread to be had (or it failed): the other half is read here.
                None => {
                    index(half, &read(back));
                }
            }
        }
        drop(give_back);
        drop(read_back);
        if let Ok(handle) = other {
            if let Err(panic) = handle.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
}

/// Reads each line of `part`, in order (a blank line is not read).
fn read(part: &[(InputLine, u64)]) -> Vec<Option<Head<'_>>> {
    part.iter()
        .map(|(line, _)| match line.text.trim().is_empty() {
            true => None,
            false => head::read(&line.text),
        })
        .collect()
}
