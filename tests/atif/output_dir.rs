//! `--to atif -o DIR`: each sub-agent trajectory is a whole document in a file of its own
//! beside the session's, which references it by `trajectory_path`; names never collide, follow
//! the inputs' order with `--jobs`, hide a secret under `--redact`, and are never written
//! through a planted symbolic link.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use crate::util::{names_in, sample, scribe};

/// The one document in `path`.
fn document(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    assert_eq!(text.lines().count(), 1, "{}: one line", path.display());
    serde_json::from_str(&text).unwrap()
}

/// Every sub-agent reference in a document's steps.
fn references(doc: &Value) -> Vec<Value> {
    doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["observation"]["results"].as_array())
        .flatten()
        .filter_map(|r| r["subagent_trajectory_ref"].as_array())
        .flatten()
        .cloned()
        .collect()
}

/// `scribe --to atif -o out` over `inputs` with `args` before them.
fn convert(out: &Path, args: &[&str], inputs: &[PathBuf]) -> Output {
    scribe()
        .args(["--to", "atif", "-o"])
        .arg(out)
        .args(args)
        .args(inputs)
        .output()
        .unwrap()
}

/// The sample `sample_name` copied into `dir` as `name`, with `from` replaced by `to` in it
/// (unchanged when `from` is empty).
fn copy_with(dir: &Path, sample_name: &str, name: &str, (from, to): (&str, &str)) -> PathBuf {
    let mut text = std::fs::read_to_string(sample(sample_name)).unwrap();
    if !from.is_empty() {
        text = text.replace(from, to);
    }
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_sub_agent_and_its_own_are_files_beside_the_session_that_reference_them() {
    let dir = tempfile::tempdir().unwrap();
    let input = copy_with(
        dir.path(),
        "claude-stream/fold-subagent.jsonl",
        "run.jsonl",
        ("", ""),
    );
    let out = dir.path().join("out");
    let done = convert(&out, &[], std::slice::from_ref(&input));
    assert!(done.status.success(), "{done:?}");
    assert_eq!(
        names_in(&out),
        [
            "sess-1.atif.json",
            "sess-1.toolu_agent.atif.json",
            "sess-1.toolu_agent.toolu_inner_agent.atif.json"
        ]
    );
    let session = document(&out.join("sess-1.atif.json"));
    assert!(session.get("subagent_trajectories").is_none(), "{session}");
    // Each reference names a whole document beside the file that holds it, by its id.
    let mut file = "sess-1.atif.json".to_owned();
    for (id, path) in [
        ("toolu_agent", "sess-1.toolu_agent.atif.json"),
        (
            "toolu_inner_agent",
            "sess-1.toolu_agent.toolu_inner_agent.atif.json",
        ),
    ] {
        let refs = references(&document(&out.join(&file)));
        assert_eq!(refs.len(), 1, "{file}: {refs:?}");
        assert_eq!(refs[0]["trajectory_id"], id);
        assert_eq!(refs[0]["trajectory_path"], path);
        let sub = document(&out.join(path));
        assert_eq!(sub["schema_version"], "ATIF-v1.8");
        assert_eq!(sub["trajectory_id"], id);
        assert_eq!(sub["steps"][0]["step_id"], 1);
        assert!(sub.get("subagent_trajectories").is_none(), "{sub}");
        file = path.to_owned();
    }
    // Standard output keeps them embedded.
    let embedded = scribe()
        .args(["--to", "atif"])
        .arg(&input)
        .output()
        .unwrap();
    let text = String::from_utf8(embedded.stdout).unwrap();
    assert!(text.contains("\"subagent_trajectories\""), "{text}");
    assert!(!text.contains("trajectory_path"), "{text}");
}

/// Two inputs of session `s-sub` (the same Agent call id in both), the second one's sub-agent
/// saying something else; an input that does not exist before them, and a nested one after.
fn inputs_sharing_a_session(dir: &Path) -> Vec<PathBuf> {
    let said = "Tests live in";
    vec![
        dir.join("missing.jsonl"),
        copy_with(dir, "subagent.jsonl", "a.jsonl", ("", "")),
        copy_with(dir, "subagent.jsonl", "b.jsonl", (said, "Tests hide in")),
        copy_with(
            dir,
            "claude-stream/fold-subagent.jsonl",
            "c.jsonl",
            ("", ""),
        ),
    ]
}

#[test]
fn inputs_of_one_session_keep_their_own_sub_agent_files_whatever_the_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = inputs_sharing_a_session(dir.path());
    let one = dir.path().join("one");
    let done = convert(&one, &["--jobs", "1"], &inputs);
    assert!(!done.status.success(), "the missing input is trouble");
    assert_eq!(
        names_in(&one),
        [
            "s-sub-2.atif.json",
            "s-sub-2.toolu_agent1.atif.json",
            "s-sub.atif.json",
            "s-sub.toolu_agent1.atif.json",
            "sess-1.atif.json",
            "sess-1.toolu_agent.atif.json",
            "sess-1.toolu_agent.toolu_inner_agent.atif.json",
        ]
    );
    for (session, sub, said) in [
        (
            "s-sub.atif.json",
            "s-sub.toolu_agent1.atif.json",
            "Tests live in",
        ),
        (
            "s-sub-2.atif.json",
            "s-sub-2.toolu_agent1.atif.json",
            "Tests hide in",
        ),
    ] {
        assert_eq!(
            references(&document(&one.join(session)))[0]["trajectory_path"],
            sub
        );
        let text = std::fs::read_to_string(one.join(sub)).unwrap();
        assert!(text.contains(said), "{sub}: {text}");
    }
    // Side by side, the same files with the same bytes, however the inputs finish.
    for _ in 0..3 {
        let four = dir.path().join("four");
        let _ = std::fs::remove_dir_all(&four);
        let done = convert(&four, &["--jobs", "4"], &inputs);
        assert!(!done.status.success());
        assert_eq!(names_in(&four), names_in(&one));
        for name in names_in(&one) {
            assert_eq!(
                std::fs::read(four.join(&name)).unwrap(),
                std::fs::read(one.join(&name)).unwrap(),
                "{name}"
            );
        }
    }
}

#[test]
fn a_session_named_like_another_ones_sub_agent_file_takes_no_name_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("other.jsonl");
    let id = "s-sub.toolu_agent1";
    std::fs::write(&other, crate::util::claude_stream(id, "Q", "A")).unwrap();
    let out = dir.path().join("out");
    let done = convert(&out, &[], &[sample("subagent.jsonl"), other]);
    assert!(done.status.success(), "{done:?}");
    assert_eq!(
        names_in(&out),
        [
            "s-sub.atif.json",
            "s-sub.toolu_agent1.atif.json",
            "s-sub_toolu_agent1.atif.json"
        ]
    );
    let doc = document(&out.join("s-sub_toolu_agent1.atif.json"));
    assert_eq!(doc["session_id"], id);
}

#[test]
fn a_secret_in_the_session_id_names_no_file_under_redact() {
    let dir = tempfile::tempdir().unwrap();
    let secret = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXy";
    let input = copy_with(dir.path(), "subagent.jsonl", "in.jsonl", ("s-sub", secret));
    let out = dir.path().join("out");
    let done = convert(&out, &["--redact"], &[input]);
    assert!(done.status.success(), "{done:?}");
    let names = names_in(&out);
    assert_eq!(names.len(), 2, "{names:?}");
    let stem = names[0].trim_end_matches(".atif.json");
    assert!(stem.starts_with("session-"), "{names:?}");
    assert_eq!(names[1], format!("{stem}.toolu_agent1.atif.json"));
    let session = document(&out.join(&names[0]));
    assert_eq!(references(&session)[0]["trajectory_path"], names[1]);
    for name in &names {
        assert!(!name.contains("R4nd0m"), "{name}");
        let body = std::fs::read_to_string(out.join(name)).unwrap();
        assert!(!body.contains("R4nd0m"), "{name}: {body}");
    }
}

#[cfg(unix)]
#[test]
fn a_symlink_planted_at_a_sub_agent_file_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "keep me").unwrap();
    let planted = out.join("s-sub.toolu_agent1.atif.json");
    std::os::unix::fs::symlink(&victim, &planted).unwrap();
    let done = convert(&out, &[], &[sample("subagent.jsonl")]);
    assert!(!done.status.success(), "{done:?}");
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(stderr.contains("symbolic link"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    assert!(planted.symlink_metadata().unwrap().file_type().is_symlink());
    // Nothing else was written: no session file naming a sub-agent file that is not there.
    assert_eq!(names_in(&out), ["s-sub.toolu_agent1.atif.json"]);
}

#[test]
#[ignore = "needs python with harbor's trajectory models"]
fn every_output_dir_file_is_valid_by_harbors_models_and_every_path_resolves() {
    super::harbor_python();
    let dir = tempfile::tempdir().unwrap();
    let inputs: Vec<PathBuf> = super::validation_inputs()
        .into_iter()
        .filter_map(|(p, must)| must.then_some(p))
        .collect();
    let out = dir.path().join("out");
    let done = convert(&out, &["--jobs", "2"], &inputs);
    assert!(done.status.success(), "{done:?}");
    let files: Vec<PathBuf> = names_in(&out).iter().map(|n| out.join(n)).collect();
    let beside = files
        .iter()
        .filter(|f| document(f).get("trajectory_id").is_some())
        .count();
    assert!(beside >= 5, "only {beside} sub-agent files");
    let text = super::validate(&files);
    eprintln!("{text}{beside} of the files are sub-agents'");
    let n = files.len();
    assert!(
        text.starts_with(&format!(
            "atif: {n} documents valid by Harbor's models: {n} "
        )),
        "{text}"
    );
}

/// A Claude stream of sub-agents each started by the one before, `depth` deep, their Agent
/// call ids long ones.
fn chain_of_sub_agents(depth: usize) -> String {
    let id = |i: usize| format!("toolu_01ABCDEFGHIJKLMNOPQRSTU{i}");
    let parent = |i: usize| match i {
        0 => Value::Null,
        _ => Value::String(id(i - 1)),
    };
    let mut lines = vec![
        json!({"type":"system","subtype":"init","session_id":"s","model":"m","tools":["Task"],"cwd":"/w"}),
        json!({"type":"user","message":{"role":"user","content":"go"},"parent_tool_use_id":null,"session_id":"s"}),
    ];
    for i in 0..depth {
        lines.push(json!({"type":"assistant","message":{"id":format!("m{i}"),"role":"assistant","model":"m","content":[
            {"type":"text","text":format!("level {i}")},
            {"type":"tool_use","id":id(i),"name":"Task","input":{"description":"d","prompt":"p"}}]},
            "parent_tool_use_id":parent(i),"session_id":"s"}));
    }
    for i in (0..depth).rev() {
        lines.push(json!({"type":"user","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":id(i),"content":format!("done {i}")}]},
            "parent_tool_use_id":parent(i),"session_id":"s"}));
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn deep_sub_agents_have_names_a_file_system_takes_and_every_path_resolves() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("deep.jsonl");
    std::fs::write(&input, chain_of_sub_agents(9)).unwrap();
    let out = dir.path().join("out");
    let done = convert(&out, &[], &[input]);
    assert!(done.status.success(), "{done:?}");
    let names = names_in(&out);
    // The innermost call ran no turns: eight sub-agents and the session.
    assert_eq!(names.len(), 9, "{names:?}");
    assert!(names.iter().all(|n| n.len() <= 255), "{names:?}");
    // From the session's file down the chain, each reference names the next file.
    let mut file = "s.atif.json".to_owned();
    for i in 0..8 {
        let refs = references(&document(&out.join(&file)));
        assert_eq!(refs.len(), 1, "{file}");
        assert_eq!(
            refs[0]["trajectory_id"],
            format!("toolu_01ABCDEFGHIJKLMNOPQRSTU{i}")
        );
        file = refs[0]["trajectory_path"].as_str().unwrap().to_owned();
        assert!(names.contains(&file), "{file} is not in {names:?}");
    }
    assert!(
        names.iter().any(|n| n.starts_with("s._")),
        "past 200 bytes a name is a digest: {names:?}"
    );
}
