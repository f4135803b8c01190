//! Integration tests: one binary, driving the real `scribe` executable.

// Shared helpers: a hermetic `scribe()` command, paths to samples and the corpus.
mod util;

// The input driver: detection, honest errors, whole JSON documents.
mod input_driver;
// Every option taking a value: one value per use, never the files, unknown values exit 2.
mod options;
// Two runs of one behaviour print the same bytes under --stable (real pairs and built ones).
mod rerun_pairs;
// The turns, calls, errors, tokens and cost are the same in every view (and the corpus).
mod views_agree;
// scribe ls, scribe last, and a bare scribe on a terminal.
mod list;
// docs/archive.md's DuckDB queries on an archive of the samples (ignored: needs duckdb).
mod archive;
// What an input is: a stray line of another agent, JSON that is not a log, inputs mostly not
// understood.
mod detect;
// Flags, stdin, several files, exit codes, --strict, broken pipe, live flushing.
mod cli;
// The spine over the real Claude Code corpus (ignored: needs ../shared/corpus).
mod corpus;
// One test per §4 classification rule and per §14 fold step, over samples/claude-stream.
mod spine;
// Claude Code's <task-notification> message: the end of its call's task, once.
mod claude_tasks;
// §4's rows in order, IDE context, a sub-agent's record and a Skill ack, on small streams.
mod claude_classify;
// Design fields and rules no test held before: a flagged tool result, a document's title, a
// server tool's error, a sub-agent record's label and its freeze, a Qwen image's type.
mod design_shapes;
// Saved Claude Code sessions over samples/claude-session: chain order, branches, sub-agents, -o.
mod session;
// Saved sessions in the real corpus: clean conversion and equivalence with their stream.jsonl.
mod session_corpus;
// Chains that are not one clean line: hook progress rows, no parents, dangling parents.
mod session_chains;
// Session files on their own or with what is beside them: agent files, tool-results, stdin.
mod session_files;
// The peak memory of a saved session, at two sizes: flat.
mod session_memory;
// Sub-agent work and queued prompts that a 2.1 session records only inline.
mod session_inline;
// Qwen Code: daemon SSE events and stream-json, the corpus captures and upstream vectors.
mod qwen;
// Qwen Code saved chats: their own format, read fully.
mod qwen_session;
// The end of a Qwen daemon stream: open calls keep their state, one notice says so.
mod qwen_input_end;
// Malformed Qwen daemon payloads: debug records keeping the line, drawn on no page.
mod qwen_malformed;
// Codex, Gemini and Qwen raw files: every call id, text, prompt and output kept (issue 11).
mod conservation_agents;
// Sub-agent calls recorded inline and queued prompts, over the corpus and external2.
mod conservation_inline;
// OpenAI Codex CLI: codex exec --json streams and saved rollouts, corpus and samples/codex-*.
mod codex;
// Codex rollouts: exit codes, wall times, unified exec sessions and image generation.
mod codex_exec;
// Codex MCP calls: the output line the model read is the call's output.
mod codex_mcp_output;
// Codex rollouts without envelopes, and the lines of multi-agent runs.
mod codex_rollouts;
// Gemini CLI: stream-json and saved chats, the corpus captures and samples/gemini-*.
mod gemini;
// --to html: goldens, hostile markup, CSP hashes, streaming, flat memory.
mod html;
// The -o DIR archive index and the page header's figures.
mod html_archive;
// --to html pages in headless Chromium (ignored: needs chromium, node and the corpus).
mod html_browser;
// --to text: goldens, corpus, hostile content, colour, the live view.
mod render_text;
// Reading long output: each call once with its result, previews of long content, --full.
mod reading;
// Hooks in the text view: one line each, at its end; "no end" only when none came.
mod hooks;
// The session snapshot on Claude streams: made without `init`, naming the permission mode.
mod session_header;
// --to md: goldens and the <details> structure under a CommonMark parser.
/// Tool output lines in the views: hand-back trailers, colours, progress frames.
mod output_lines;
mod render_md;
// Every capture in every output format; renderers free of source-specific code.
mod formats;
// --to atif: trajectories, their sub-agents and extra; valid by Harbor's own models.
mod atif;
// --stable: a second capture of the same run prints the same bytes in every format (issue 7).
mod stable;
// scribe diff: exit codes, one change shows as one change, an insertion as one insertion.
mod diff;
// --redact: every secret pattern, positive and negative, in every format.
mod redact;
// --to jsonl / --to events goldens for every sample (a refactor must keep their bytes).
/// The README's CI section, run as written.
mod ci_recipe;
/// Completions, licences, install notes, description, man page, Ctrl-C.
mod finishing;
mod goldens_jsonl;
/// Mutated logs: no panic, every line accounted for.
mod mutations;
/// Hostile input of small size: no quadratic path.
mod speed;
/// `--stats`: every input line accounted for.
mod stats;
// --follow: growing files (stream, saved session with a sub-agent, Codex rollout) shown within a
// second per record, rewinds marked late, Ctrl-C, directories, -o pages.
mod follow;
// --follow over files rewritten while followed, a relative --follow-all directory, and 600
// sessions within 256 open descriptors.
mod follow_sessions;
// `scribe hook`: payloads of each agent, bad payloads, concurrent hooks, a damaged index, FIFOs.
mod hook;
// Hostile input (issue 13): hyperlinks, invisible characters, stderr, inert Markdown, -o files,
// depth.
mod security;
// Issue 15: every id, text, tool output and typed prompt of every raw Claude log is found again.
mod conservation;
// Issue 15: every assistant text, tool call and tool output visible in md, text and HTML.
mod conservation_views;
// The losses the views test still finds, each with why.
mod conservation_views_known;
// The losses the conservation tests still find in ../shared/external2, each with why.
mod conservation_external2_known;
// Issue 15: Claude Code content of every CLI version (commands, denials, tasks, results).
mod claude_content;
// Issue 15: a result's own cost beside the session's running total (resumed runs).
mod claude_cost;
// docs/conformance.md: every row's named tests exist; ✔ rows name one, n/a rows say why.
mod conformance_doc;
// The design's conformance repro inputs (tests/repro/), each run and checked.
mod conformance_repro;
// Claude wire fields and blocks the design names, kept and typed; --include-raw.
mod conformance_fields;
mod conformance_rows;
// Claude system-line fields that reached no output: init's output style and key source, files' time.
mod conformance_unread;
// No quadratic path: a 4x larger input takes well under 16x the time (issue 14 point 2).
mod linear;
// Lines holding several JSON records glued together, read as lines of their own.
mod glued_lines;
// --jobs N with -o DIR: the same files, names, index and stderr as one input at a time.
mod jobs;
// Kinds outside the design's closed unions: data parts, notices naming a system subtype,
// result subtypes as they came, in every view.
mod escape_hatches;
// A replayed second result of a call: kept beside the call's own when it differs, once when not.
mod replayed_results;
// The default text view says where it leaves a tool's words out.
mod default_view_cuts;
// The text view's `·`-joined lines wrap between their items.
mod text_items;
