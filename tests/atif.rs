//! `--to atif`: one Agent Trajectory Interchange Format document per input (docs/atif.md),
//! its steps, sub-agents and `extra`, from standard input, files and `-o DIR`; and every
//! document of the samples and both corpora valid by Harbor's own models.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

/// `-o DIR`: sub-agent trajectories as files beside the session's.
mod output_dir;

use crate::util::{
    Ext2, claude_stream, corpus, corpus_captures, external2_files, files_under, json_lines, root,
    run, sample, scribe,
};

/// The one document `--to atif` writes for `input` on standard input.
fn document(input: &str) -> Value {
    let out = run(input, &["--to", "atif"]);
    let docs = json_lines(out.as_bytes());
    assert_eq!(docs.len(), 1, "one document a line: {out}");
    docs.into_iter().next().unwrap()
}

/// The documents `--to atif` writes for `files`, one a line.
fn documents_of(files: &[PathBuf]) -> Vec<Value> {
    let out = scribe()
        .args(["--to", "atif"])
        .args(files)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    json_lines(&out.stdout)
}

#[test]
fn a_session_is_one_trajectory_with_a_step_per_turn() {
    let doc = document(&claude_stream("s-1", "Say hi", "Hi."));
    assert_eq!(doc["schema_version"], "ATIF-v1.8");
    assert_eq!(doc["session_id"], "s-1");
    assert_eq!(doc["agent"]["name"], "claude-code");
    assert_eq!(doc["agent"]["model_name"], "m");
    let steps = doc["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{doc}");
    assert_eq!(
        (
            &steps[0]["step_id"],
            &steps[0]["source"],
            &steps[0]["message"]
        ),
        (&json!(1), &json!("user"), &json!("Say hi"))
    );
    assert_eq!(
        (
            &steps[1]["step_id"],
            &steps[1]["source"],
            &steps[1]["message"]
        ),
        (&json!(2), &json!("agent"), &json!("Hi."))
    );
    assert_eq!(doc["final_metrics"]["total_steps"], 2);
}

#[test]
fn each_input_file_is_its_own_document() {
    let docs = documents_of(&[sample("subagent.jsonl"), sample("codex-exec-edges.jsonl")]);
    assert_eq!(docs.len(), 2);
    assert_eq!(docs[0]["agent"]["name"], "claude-code");
    assert_eq!(docs[1]["agent"]["name"], "codex");
}

/// A stream with a call, its result and the harness's details of it, a thinking block, usage
/// and a line nothing understands.
fn call_stream() -> String {
    [
        json!({"type":"system","subtype":"init","session_id":"s-2","model":"m","tools":["Bash"],"cwd":"/w"}),
        json!({"type":"user","message":{"role":"user","content":"List files"},"session_id":"s-2"}),
        json!({"type":"assistant","message":{"id":"m1","role":"assistant","model":"m","content":[
            {"type":"thinking","thinking":"ls will do","signature":"sig"},
            {"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}],
            "usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":100,"cache_creation_input_tokens":7}},"session_id":"s-2"}),
        json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a.txt"}]},
            "tool_use_result":{"stdout":"a.txt","stderr":"","interrupted":false},"session_id":"s-2"}),
        json!({"type":"mystery","payload":1}),
    ]
    .map(|v| format!("{v}\n"))
    .concat()
}

#[test]
fn a_call_and_its_result_are_one_step_and_the_rest_is_in_extra() {
    let doc = document(&call_stream());
    let step = &doc["steps"][1];
    assert_eq!(step["source"], "agent");
    assert_eq!(step["reasoning_content"], "ls will do");
    assert_eq!(step["extra"]["reasoning"], json!([{"signature": "sig"}]));
    let call = &step["tool_calls"][0];
    assert_eq!(
        (&call["tool_call_id"], &call["function_name"]),
        (&json!("toolu_1"), &json!("Bash"))
    );
    assert_eq!(call["arguments"], json!({"command": "ls"}));
    assert_eq!(call["extra"]["kind"]["type"], "shell");
    let result = &step["observation"]["results"][0];
    assert_eq!(result["source_call_id"], "toolu_1");
    assert_eq!(result["content"], "a.txt");
    assert_eq!(result["extra"]["state"], "success");
    assert_eq!(result["extra"]["sidecar"]["interrupted"], false);
    assert_eq!(
        step["metrics"],
        json!({"prompt_tokens": 117, "completion_tokens": 5, "cached_tokens": 100,
               "extra": {"cache_creation_input_tokens": 7}})
    );
    assert_eq!(doc["final_metrics"]["total_prompt_tokens"], 117);
    let debug = &doc["extra"]["debug"];
    assert_eq!(debug.as_array().map(Vec::len), Some(1), "{doc}");
    assert!(debug[0]["raw"].as_str().unwrap().contains("mystery"));
    assert_eq!(doc["agent"]["version"], "unknown");
}

#[test]
fn an_image_in_a_prompt_is_an_image_part() {
    let prompt = json!({"type":"user","session_id":"s-3","message":{"role":"user","content":[
        {"type":"text","text":"What is this?"},
        {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}});
    let doc = document(&format!("{prompt}\n"));
    assert_eq!(
        doc["steps"][0]["message"],
        json!([{"type": "text", "text": "What is this?"},
               {"type": "image", "source": {"media_type": "image/png", "path": "data:image/png;base64,iVBORw0KGgo="}}])
    );
}

#[test]
fn a_sub_agent_is_an_embedded_trajectory_its_call_references() {
    let doc = &documents_of(&[sample("subagent.jsonl")])[0];
    let result = &doc["steps"][0]["observation"]["results"][0];
    assert_eq!(result["source_call_id"], "toolu_agent1");
    let reference = &result["subagent_trajectory_ref"][0];
    let sub = &doc["subagent_trajectories"][0];
    assert_eq!(reference["trajectory_id"], sub["trajectory_id"]);
    assert_eq!(reference["extra"]["status"], "completed");
    assert_eq!(sub["schema_version"], "ATIF-v1.8");
    assert_eq!(sub["steps"][0]["step_id"], 1);
    assert_eq!(sub["agent"]["extra"]["subagent_type"], "Explore");
}

#[test]
fn output_dir_holds_one_document_per_session() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = dir.path().join("in");
    std::fs::create_dir(&inputs).unwrap();
    for (id, name) in [("s-a", "a.jsonl"), ("s-b", "b.jsonl")] {
        std::fs::write(inputs.join(name), claude_stream(id, "Q", "A")).unwrap();
    }
    let out = dir.path().join("out");
    scribe()
        .args(["--to", "atif", "-o"])
        .arg(&out)
        .arg(inputs.join("a.jsonl"))
        .arg(inputs.join("b.jsonl"))
        .assert()
        .success();
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["s-a.atif.json", "s-b.atif.json"]);
    let doc: Value =
        serde_json::from_slice(&std::fs::read(out.join("s-b.atif.json")).unwrap()).unwrap();
    assert_eq!(doc["session_id"], "s-b");
}

/// The Python that `tests/atif/validate.py` runs with: `SCRIBE_ATIF_PYTHON`, a Python with
/// pydantic and Harbor's trajectory models importable (`.ci/run` makes one). Missing, the test
/// fails: it must not pass without having validated anything.
fn harbor_python() -> PathBuf {
    let python = std::env::var_os("SCRIBE_ATIF_PYTHON").unwrap_or_else(|| {
        panic!(
            "SCRIBE_ATIF_PYTHON is not set: it names a Python with pydantic and Harbor's \
             trajectory models (.ci/run prepares one; see docs/development.md)"
        )
    });
    let probe = Command::new(&python)
        .args([
            "-c",
            "import harbor.models.trajectories, harbor.utils.trajectory_validator",
        ])
        .output()
        .unwrap_or_else(|e| panic!("SCRIBE_ATIF_PYTHON={python:?} does not run: {e}"));
    assert!(
        probe.status.success(),
        "SCRIBE_ATIF_PYTHON={python:?} cannot import Harbor's trajectory models: {}",
        String::from_utf8_lossy(&probe.stderr)
    );
    PathBuf::from(python)
}

/// Every input the validation covers: the samples, the corpus's captures and external logs,
/// and every log of external2; with whether the input must be a log (the corpus's external
/// fixtures include JSON that is not one).
fn validation_inputs() -> Vec<(PathBuf, bool)> {
    let samples = files_under(&root().join("samples"), &|p| {
        p.extension().is_some_and(|e| e == "jsonl" || e == "sse")
    });
    let dir = corpus();
    let external = files_under(&dir.join("external"), &|p| {
        p.extension()
            .is_some_and(|e| e == "jsonl" || e == "json" || e == "ndjson")
    });
    let ext2 = external2_files()
        .into_iter()
        .filter(|(_, kind)| *kind != Ext2::NotALog)
        .map(|(p, _)| p);
    let must: Vec<PathBuf> = samples
        .into_iter()
        .chain(corpus_captures(&dir))
        .chain(ext2)
        .collect();
    must.into_iter()
        .map(|p| (p, true))
        .chain(external.into_iter().map(|p| (p, false)))
        .collect()
}

/// Writes the document of each input into `dir`, one file each; returns how many, and the
/// largest document with the size of its input.
fn write_documents(dir: &Path) -> (usize, (u64, u64, PathBuf)) {
    let mut written = 0;
    let mut largest = (0, 0, PathBuf::new());
    for (n, (input, must)) in validation_inputs().into_iter().enumerate() {
        let out = scribe()
            .args(["--to", "atif"])
            .arg(&input)
            .output()
            .unwrap();
        if !out.status.success() || out.stdout.is_empty() {
            assert!(!must, "{}: --to atif failed: {out:?}", input.display());
            continue;
        }
        let size = out.stdout.len() as u64;
        if size > largest.0 {
            largest = (
                size,
                std::fs::metadata(&input).unwrap().len(),
                input.clone(),
            );
        }
        std::fs::write(dir.join(format!("{n:04}.json")), &out.stdout).unwrap();
        written += 1;
    }
    (written, largest)
}

/// Runs `tests/atif/validate.py` over `files` with Harbor's models; asserts it passed and
/// returns its report.
fn validate(files: &[PathBuf]) -> String {
    let out = Command::new(harbor_python())
        .arg(root().join("tests/atif/validate.py"))
        .args(files)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{report}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    report
}

#[test]
#[ignore = "needs python with harbor's trajectory models"]
fn every_document_is_valid_by_harbors_models() {
    harbor_python();
    let dir = tempfile::tempdir().unwrap();
    let (written, (size, input_size, largest)) = write_documents(dir.path());
    assert!(written >= 250, "only {written} documents written");
    let mut files: Vec<PathBuf> = files_under(dir.path(), &|_| true);
    files.sort();
    let report = validate(&files);
    eprintln!(
        "{report}largest document: {size} bytes from {input_size} bytes of {}",
        largest.display()
    );
    assert!(
        report.starts_with(&format!("atif: {written} documents valid")),
        "{report}"
    );
}
