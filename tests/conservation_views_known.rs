//! The losses `conservation_views` found in the samples and the corpus and no fix has removed
//! yet, each with why: the test fails when a listed loss is no longer found, so the list only
//! shrinks (external2's are in `conservation_external2_known`).

/// Losses the test found and no fix has removed yet, as (file suffix, view, what the loss line
/// says, why). Each entry must still match a loss of a checked file, so the list only shrinks.
/// An empty suffix matches every file.
pub(crate) const KNOWN_VIEW_LOSSES: &[(&str, &str, &str, &str)] = &[
    (
        "samples/hostile.jsonl",
        "html",
        "lost",
        "terminal controls made inert on purpose",
    ),
    (
        "samples/hostile.jsonl",
        "md --full",
        "lost",
        "terminal controls made inert on purpose",
    ),
    (
        "samples/hostile.jsonl",
        "text --full",
        "lost",
        "terminal controls made inert on purpose",
    ),
    (
        "samples/html-hostile.jsonl",
        "html",
        "assistant text lost",
        "script links made inert on purpose",
    ),
    (
        "samples/html-hostile.jsonl",
        "text --full",
        "assistant text lost",
        "script links made inert on purpose",
    ),
    (
        "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
        "text --full",
        "? Would you like",
        "cursor controls made visible on purpose: an interactive prompt's frames, joined by \
         `\\x1b[1G` (cursor to column 1), are shown with that control as a visible escape \
         between them, which splits their words for this test; every word of every frame is in \
         the view, in order",
    ),
];
