//! The seeds' rows a user meets on the command line: a preview is a read (no approval), a
//! regex replacement keeps the text after a group reference, the `web` description states the
//! search limit the server enforces, `read_file`'s `limit: 0` is refused with what to send,
//! and the search tools' file size limit is set by flag and by `toolsmith.toml`.

use std::path::Path;

use serde_json::Value;

use crate::support::cli::{code, json, toolsmith_in};

/// Checks a call was refused as a validation error whose message holds `words`.
fn refused_saying(status: i32, out: &Value, words: &str) {
    assert_eq!(status, 1, "{out:#}");
    assert_eq!(out["error_type"], "validation_error", "{out:#}");
    let message = out["error"].as_str().unwrap_or_default();
    assert!(message.contains(words), "{out:#}");
}

fn call(dir: &Path, extra: &[&str], tool: &str, args: &str) -> (i32, Value) {
    let root = dir.to_str().expect("utf-8");
    let mut argv = vec!["--root", root];
    argv.extend_from_slice(extra);
    argv.extend(["call", tool, args]);
    let out = toolsmith_in(dir, &argv);
    (code(&out), json(&out))
}

// Seed 003: a preview writes nothing, so it needs no approval (an approving host asked twice for
// one edit); the edit itself still does.
#[test]
fn a_preview_runs_without_approval_and_the_edit_still_asks() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("a.txt"), "alpha beta\n").expect("write");
    let edit = r#"{"path": "a.txt", "find": "beta", "replace": "gamma", "preview_only": true}"#;
    let (status, preview) = call(dir.path(), &[], "replace_in_file", edit);
    assert_eq!(status, 0, "{preview:#}");
    assert!(
        preview["diff"]
            .as_str()
            .unwrap_or_default()
            .contains("+alpha gamma"),
        "{preview:#}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).expect("read"),
        "alpha beta\n"
    );
    let edit = r#"{"path": "a.txt", "find": "beta", "replace": "gamma"}"#;
    let (status, denied) = call(dir.path(), &[], "replace_in_file", edit);
    assert_eq!(status, 1);
    assert_eq!(denied["error_type"], "approval_denied", "{denied:#}");
}

// Seed 003: `$1TA` is group 1 followed by `TA` (it was read as a group named `1TA` and the text
// dropped); a group `find` does not have is refused, naming those it has.
#[test]
fn a_group_reference_keeps_the_text_after_it() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("a.txt"), "alpha beta\n").expect("write");
    let edit = r#"{"path": "a.txt", "find": "b(e)ta", "replace": "B$1TA", "is_regex": true}"#;
    let (status, out) = call(dir.path(), &["--approve"], "replace_in_file", edit);
    assert_eq!(status, 0, "{out:#}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).expect("read"),
        "alpha BeTA\n"
    );
    let edit = r#"{"path": "a.txt", "find": "B(e)TA", "replace": "$2", "is_regex": true}"#;
    let (status, refused) = call(dir.path(), &["--approve"], "replace_in_file", edit);
    assert_eq!(status, 1);
    assert_eq!(refused["error_type"], "validation_error", "{refused:#}");
    let message = refused["error"].as_str().unwrap_or_default();
    assert!(
        message.contains("`$2`") && message.contains("$1"),
        "{message}"
    );
}

// Seed 000: the description a model reads states the limit the server enforces.
#[test]
fn the_web_description_states_the_configured_search_limit() {
    let dir = tempfile::tempdir().expect("dir");
    let description = |extra: &[&str]| -> String {
        let mut argv = extra.to_vec();
        argv.extend(["schema", "web"]);
        let out = toolsmith_in(dir.path(), &argv);
        assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
        json(&out)[0]["description"]
            .as_str()
            .expect("a description")
            .to_owned()
    };
    assert!(
        description(&[]).ends_with("Limited to 10 searches a minute on this server."),
        "{}",
        description(&[])
    );
    assert!(
        description(&["--search-limit", "5"])
            .ends_with("Limited to 5 searches a minute on this server.")
    );
    assert!(
        description(&["--search-limit", "3", "--search-window", "30"])
            .ends_with("Limited to 3 searches per 30 s on this server.")
    );
    std::fs::write(
        dir.path().join("toolsmith.toml"),
        "[web]\nsearch_limit = 7\n",
    )
    .expect("toml");
    assert!(description(&[]).ends_with("Limited to 7 searches a minute on this server."));
}

// Seed 004: `limit: 0` read 2,000 lines with nothing saying what 0 meant.
#[test]
fn read_file_refuses_a_limit_of_0_saying_what_to_send() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").expect("write");
    let (status, out) = call(
        dir.path(),
        &[],
        "read_file",
        r#"{"paths": ["a.txt"], "limit": 0}"#,
    );
    refused_saying(status, &out, "limit is 0");
}

// Seed 003: the search tools' file size limit, by flag and in `toolsmith.toml`.
#[test]
fn the_search_file_size_limit_is_set_by_flag_and_by_file() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(
        dir.path().join("big.txt"),
        format!("needle {}\n", "x".repeat(200)),
    )
    .expect("write");
    let found = |extra: &[&str]| -> u64 {
        let (status, out) = call(dir.path(), extra, "grep", r#"{"pattern": "needle"}"#);
        assert_eq!(status, 0, "{out:#}");
        out["total_matches"]
            .as_u64()
            .or_else(|| out["matches"].as_array().map(|m| m.len() as u64))
            .unwrap_or_else(|| panic!("a count in {out:#}"))
    };
    assert_eq!(found(&[]), 1);
    assert_eq!(found(&["--search-max-file-bytes", "100"]), 0);
    std::fs::write(
        dir.path().join("toolsmith.toml"),
        "[search]\nmax_file_bytes = 100\n",
    )
    .expect("toml");
    assert_eq!(found(&[]), 0);
    let out = toolsmith_in(dir.path(), &["--search-max-file-bytes", "0", "list"]);
    assert_eq!(code(&out), 2, "0 bytes is refused");
    std::fs::write(
        dir.path().join("toolsmith.toml"),
        "[search]\nmax_file_bytes = 0\n",
    )
    .expect("toml");
    let out = toolsmith_in(dir.path(), &["list"]);
    assert_eq!(code(&out), 2);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("max_file_bytes is at least 1"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

// Seed 004: grep streams what it finds as output chunks while it runs (they reach an MCP client
// as progress notifications) before its answer, bounded; the answer is complete as before.
#[test]
fn grep_streams_its_matches_before_its_answer() {
    use crate::support::stdio::{StdioServe, Version};
    use serde_json::json;
    let dir = tempfile::tempdir().expect("dir");
    for d in 0..20 {
        let sub = dir.path().join(format!("d{d:02}"));
        std::fs::create_dir(&sub).expect("dir");
        for f in 0..100 {
            let text = if f % 10 == 0 {
                "hay\nneedle\n"
            } else {
                "hay\n"
            };
            std::fs::write(sub.join(format!("f{f:03}.txt")), text).expect("write");
        }
    }
    let root = dir.path().to_str().expect("utf-8");
    let mut server = StdioServe::start(dir.path(), &["--root", root]);
    let v = Version::V2026;
    let mut request = v.request(
        &json!(1),
        "tools/call",
        json!({"name": "grep", "arguments": {"pattern": "needle", "output_mode": "count"}}),
    );
    request["params"]["_meta"]["progressToken"] = json!("grep-1");
    let answer = server.ask(request);
    assert_ne!(answer["result"]["isError"], true, "{answer}");
    let answer_at = server
        .lines
        .iter()
        .position(|l| l.contains("\"id\":1") && l.contains("\"result\""))
        .expect("the answer");
    let streamed: Vec<&String> = server.lines[..answer_at]
        .iter()
        .filter(|l| l.contains("notifications/progress") && l.contains("(1 match)"))
        .collect();
    assert!(
        streamed.len() >= 10,
        "the matches streamed before the answer: {:?}",
        &server.lines[..answer_at.min(5)]
    );
    assert!(streamed[0].contains(".txt (1 match)"), "{}", streamed[0]);
    // The answer lists the matching files itself, in order.
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.starts_with("d00/f000.txt:1\nd00/f010.txt:1\n"),
        "{text}"
    );
}

// Seed 004: `file_paths`, the name models are trained on, is read as `paths`; a value under
// both names is refused.
#[test]
fn read_file_takes_file_paths_as_paths() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").expect("write");
    let (status, out) = call(dir.path(), &[], "read_file", r#"{"file_paths": ["a.txt"]}"#);
    assert_eq!(status, 0, "{out:#}");
    assert_eq!(out["files"][0]["content"], "one\ntwo\n");
    let (status, out) = call(
        dir.path(),
        &[],
        "read_file",
        r#"{"file_paths": ["a.txt"], "paths": ["a.txt"]}"#,
    );
    refused_saying(status, &out, "given twice");
    // Never in the schema: it costs no token.
    let out = toolsmith_in(dir.path(), &["schema", "read_file"]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("file_paths"));
}
