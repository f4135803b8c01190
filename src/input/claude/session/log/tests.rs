//! Pass 1's index: uuids that repeat, fork, come late or share a fingerprint; inline runs.

use std::io::BufReader;

use super::*;
use crate::input::lines::LineReader;

/// A session whose uuids repeat, fork, come after their children, dangle, and sit far back
/// (beyond the uuids kept as text, so that they are read again from the file).
fn session() -> String {
    let row = |ty: &str, uuid: &str, parent: &str, content: &str| {
        let parent = match parent {
            "" => "null".to_owned(),
            p => format!("\"{p}\""),
        };
        format!(
            r#"{{"type":"{ty}","uuid":"{uuid}","parentUuid":{parent},"message":{{"id":"m-{uuid}","content":"{content}"}}}}"#
        )
    };
    let mut lines = vec![
        row("user", "a", "", "first"),
        row("assistant", "b", "a", "answer"),
        row("user", "c", "b", "second"),
        // A fork off `a`.
        row("user", "d", "a", "forked"),
        // An exact copy of `c` (dropped), then a row repeating its uuid with other content.
        row("user", "c", "b", "second"),
        row("user", "c", "d", "changed"),
        // A parent named before its row, and one never there.
        row("user", "e", "z", "early"),
        row("user", "z", "c", "late"),
        row("user", "f", "nowhere", "dangling"),
        row("user", "g", "g", "its own parent"),
    ];
    for i in 0..100 {
        let parent = if i == 0 {
            "z".to_owned()
        } else {
            format!("fill{}", i - 1)
        };
        lines.push(row("user", &format!("fill{i}"), &parent, "filler"));
    }
    // Far back: `a`, `c` (its first row), and `c` repeated in its own spelling.
    lines.push(row("assistant", "h", "a", "late answer"));
    lines.push(row("user", "i", "c", "to c"));
    lines.push(row("user", "j", "c#6", "to the repeated c"));
    lines.push(row("user", "c", "b", "second"));
    lines.join("\n") + "\n"
}

/// A user row of a session, on the main line or a sidechain (`side`), with an `agentId` unless
/// `agent` is empty, and no parent when `parent` is empty.
fn side_row(side: bool, agent: &str, uuid: &str, parent: &str) -> String {
    let parent = match parent {
        "" => "null".to_owned(),
        p => format!("\"{p}\""),
    };
    let agent = match agent {
        "" => String::new(),
        a => format!(r#""agentId":"{a}","#),
    };
    format!(
        r#"{{"type":"user","isSidechain":{side},{agent}"uuid":"{uuid}","parentUuid":{parent},"message":{{"content":"x"}}}}"#
    )
}

/// The lines of a session file made of `side_row`s (side, agent, uuid, parent).
fn side_rows(rows: &[(bool, &str, &str, &str)]) -> String {
    let lines: Vec<String> = rows
        .iter()
        .map(|&(s, a, u, p)| side_row(s, a, u, p))
        .collect();
    lines.join("\n") + "\n"
}

/// Reads `text` as a whole session file into a resolved log (parents read again from it).
fn index_text(text: &str) -> SessionLog {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, text).unwrap();
    index(&path, Uuids::default())
}

/// An inline run of the oldest CLIs is found again by its rows' uuids, not by a name: a row
/// whose parent is in a run joins it; its root row written twice (a resumed session) is the
/// same run, the copy dropped; a row whose parent is nowhere and whose uuid started no run
/// starts one, even when a row of another run has that uuid.
#[test]
fn inline_runs_are_found_by_their_rows_uuids() {
    let mut log = index_text(&side_rows(&[
        (false, "", "t1", ""),
        (true, "", "s1", "t1"),
        (true, "", "s2", "s1"),
        (false, "", "t2", "t1"),
        (true, "", "s1", "t1"),
        (true, "", "s3", "s2"),
        (true, "", "s2", "gone"),
    ]));
    let runs = log.take_sidechains();
    let names: Vec<&str> = runs.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["sidechain-s1", "sidechain-s2"]);
    let lines = |run: &SessionLog| (0..run.rows.len()).map(|i| run.rows[i].line()).collect();
    let lines: Vec<Vec<u64>> = runs.iter().map(|(_, run)| lines(run)).collect();
    assert_eq!(
        lines,
        [vec![2, 3, 6], vec![7]],
        "the copy of s1 (line 5) is dropped"
    );
}

/// The oldest CLIs' inline runs start at a row whose parent is the main line's Task call:
/// that row waits for no parent in its run (a wait is kept to the end of the file, and a
/// session may hold thousands of runs), and the run's rows still chain to each other.
#[test]
fn an_inline_run_rooted_on_the_main_line_waits_for_nothing() {
    let text = side_rows(&[
        (false, "", "p", ""),
        (false, "", "t", "p"),
        (true, "", "s1", "t"),
        (true, "", "s2", "s1"),
        (true, "", "s3", "s2"),
        (false, "", "r", "t"),
        // A run grouped by its agent, whose first row names a parent read after it: that
        // one waits.
        (true, "a", "a2", "a1"),
        (true, "a", "a1", ""),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, text).unwrap();
    let mut log = SessionLog {
        peek: Peek::file(&path),
        ..SessionLog::default()
    };
    let mut report = Report {
        file: "t",
        problems: &mut crate::input::Unheard,
    };
    let mut lines = LineReader::new(BufReader::new(std::fs::File::open(&path).unwrap()));
    let mut waiting = Vec::new();
    while let Some(line) = lines.next_line().unwrap() {
        log.line(&line, line.offset, &mut report, false);
        if line.number == 3 || line.number == 7 {
            let run = log
                .file
                .as_ref()
                .unwrap()
                .sidechains
                .last()
                .map(|(_, run)| run);
            waiting.push(
                run.and_then(|r| r.uuids.as_ref())
                    .map_or(0, |u| u.waiting()),
            );
        }
    }
    assert_eq!(
        waiting,
        [0, 1],
        "only a parent that may yet come is waited for"
    );
    log.resolve();
    let runs = log.take_sidechains();
    let lens: Vec<usize> = runs.iter().map(|(_, run)| run.rows.len()).collect();
    assert_eq!(lens, [3, 2]);
    let run = &runs[0].1;
    assert_eq!(run.parent(0), None);
    assert_eq!((run.parent(1), run.parent(2)), (Some(0), Some(1)));
    assert_eq!(runs[1].1.parent(0), Some(1), "the parent read later");
}

/// Reads `text` (as the file at `path`) into a log with `uuids` as its table.
fn index(path: &std::path::Path, uuids: Uuids) -> SessionLog {
    let mut log = SessionLog {
        uuids: Some(Box::new(uuids)),
        ..SessionLog::default()
    };
    log.peek = Peek::file(path);
    let mut report = Report {
        file: "t",
        problems: &mut crate::input::Unheard,
    };
    let mut lines = LineReader::new(BufReader::new(std::fs::File::open(path).unwrap()));
    while let Some(line) = lines.next_line().unwrap() {
        log.line(&line, line.offset, &mut report, false);
    }
    log.resolve();
    log
}

/// Each row as (line, parent's line, uuid form).
type Rows = Vec<(u64, Option<u64>, UuidForm)>;

/// The rows (see `Rows`) and the line of each entry outside the chain.
fn shape(log: &SessionLog) -> (Rows, Vec<u64>) {
    let rows = (0..log.rows.len())
        .map(|i| {
            let r = &log.rows[i];
            let parent = log.parent(i).map(|p| log.rows[p].line());
            (r.line(), parent, r.uuid_form())
        })
        .collect();
    (rows, log.loose().iter().map(Loose::line).collect())
}

#[test]
fn uuids_that_share_a_fingerprint_stay_apart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, session()).unwrap();
    let (rows, loose) = shape(&index(&path, Uuids::colliding()));
    let parent_of = |line: u64| rows.iter().find(|r| r.0 == line).map(|r| r.1);
    // Lines: a 1, b 2, c 3, d 4, copy of c 5, c again 6, e 7, z 8, f 9, g 10, fill 11–110,
    // h 111, i 112, j 113, c once more 114.
    assert_eq!(parent_of(2), Some(Some(1)));
    assert_eq!(parent_of(3), Some(Some(2)));
    assert_eq!(parent_of(4), Some(Some(1)));
    assert_eq!(parent_of(5), None, "the exact copy is dropped");
    assert_eq!(loose, vec![5, 114]);
    assert_eq!(parent_of(6), Some(Some(4)));
    assert_eq!(parent_of(7), Some(Some(8)), "a parent read after its child");
    assert_eq!(parent_of(8), Some(Some(3)));
    assert_eq!(parent_of(9), Some(None), "a parent not in the file");
    assert_eq!(parent_of(10), Some(None), "its own parent");
    assert_eq!(parent_of(11), Some(Some(8)));
    assert_eq!(parent_of(111), Some(Some(1)), "read again from the file");
    assert_eq!(parent_of(112), Some(Some(3)));
    assert_eq!(parent_of(113), Some(Some(6)));
    assert_eq!(parent_of(114), None, "a far copy is dropped too");
    let forms: Vec<UuidForm> = rows.iter().map(|r| r.2).collect();
    assert_eq!(
        forms.iter().filter(|f| **f == UuidForm::Repeated).count(),
        1
    );
    // The same as with fingerprints that differ.
    assert_eq!(
        (rows, loose),
        shape(&index(&path, Uuids::default())),
        "colliding fingerprints change nothing"
    );
}
