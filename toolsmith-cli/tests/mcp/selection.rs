//! Serving what the agent needs, through the Python `mcp` client under 2025-11-25 and
//! 2026-07-28, over stdio and streamable HTTP: `serve --toolset file --exclude-tools
//! delete_file` lists exactly the file tools but `delete_file` and refuses a call of `bash`
//! naming the tools it offers; an agent whose enabled tools are `["read_file"]` is offered and
//! allowed only that.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::cli::{json as stdout_json, toolsmith_in};
use crate::support::mcp::{ServeProcess, python, run_python_as};

/// The standard tools of toolset `file`, from the canonical listing.
fn file_tools(dir: &Path) -> Vec<String> {
    let out = toolsmith_in(dir, &["list", "--toolset", "file"]);
    let list = stdout_json(&out);
    list.as_array()
        .expect("array")
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_owned())
        .collect()
}

/// Runs the steps against `toolsmith [global] serve [serve_args]`, over stdio or HTTP; the
/// answers (after the protocol line, which is checked).
fn run(dir: &Path, global: &[&str], serve_args: &[&str], discover: bool, http: bool) -> Vec<Value> {
    let py = python().expect("checked by the caller");
    let read = json!({"op": "call", "name": "read_file", "arguments": {"paths": ["a.txt"]}});
    let bash = json!({"op": "call", "name": "bash", "arguments": {"command": "echo hi"}});
    let grep = json!({"op": "call", "name": "grep", "arguments": {"pattern": "hello"}});
    let steps = json!([{"op": "list"}, bash, read, grep]);
    let bin = env!("CARGO_BIN_EXE_toolsmith");
    let root = dir.to_str().expect("utf-8");
    let server;
    let mut transport: Vec<String> = Vec::new();
    if http {
        let mut extra: Vec<&str> = serve_args.to_vec();
        // Global options go after the subcommand too (clap's `global = true`).
        extra.extend(global);
        server = Some(ServeProcess::http(dir, &extra));
        transport.extend(["http".to_owned(), server.as_ref().unwrap().url.clone()]);
    } else {
        server = None;
        transport.extend(["stdio", bin, "--root", root].map(str::to_owned));
        transport.extend(global.iter().map(|s| (*s).to_owned()));
        transport.push("serve".to_owned());
        transport.extend(serve_args.iter().map(|s| (*s).to_owned()));
    }
    let transport: Vec<&str> = transport.iter().map(String::as_str).collect();
    let (protocol, answers, stderr) = run_python_as(&py, discover, &transport, &steps, dir);
    let expected = if discover { "2026-07-28" } else { "2025-11-25" };
    assert_eq!(protocol, expected, "{stderr}");
    assert_eq!(answers.len(), 4, "{stderr}");
    drop(server);
    answers
}

fn names(list: &Value) -> Vec<String> {
    list["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_owned())
        .collect()
}

/// The refusal of a call outside the selection: an `isError` result whose text is the
/// permission error naming the tools offered.
fn assert_refused(answer: &Value, tool: &str, offered: &[String]) {
    assert_eq!(answer["isError"], true, "{answer}");
    let err: Value = serde_json::from_str(answer["text"].as_str().expect("text")).expect("json");
    assert_eq!(err["error_type"], "permission_error", "{err}");
    assert_eq!(err["available_tools"], json!(offered), "{err}");
    let message = err["error"].as_str().expect("error");
    assert!(
        message.contains(&format!("tool `{tool}` is not among the tools offered")),
        "{message}"
    );
    assert!(message.contains(&offered.join(", ")), "{message}");
}

fn toolset_file_without_delete(discover: bool, http: bool) {
    if python().is_none() {
        return;
    }
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("a.txt"), "hello\n").expect("write");
    let mut offered = file_tools(dir.path());
    assert!(offered.contains(&"delete_file".to_owned()));
    offered.retain(|n| n != "delete_file");
    let answers = run(
        dir.path(),
        &[],
        &["--toolset", "file", "--exclude-tools", "delete_file"],
        discover,
        http,
    );
    assert_eq!(names(&answers[0]), offered);
    assert_refused(&answers[1], "bash", &offered);
    assert_eq!(answers[2]["isError"], false, "{}", answers[2]);
    assert!(
        answers[2]["text"].as_str().unwrap().contains("hello"),
        "{}",
        answers[2]
    );
    assert_refused(&answers[3], "grep", &offered);
}

#[test]
fn toolset_file_without_delete_file_over_stdio_under_2025_11_25() {
    toolset_file_without_delete(false, false);
}

#[test]
fn toolset_file_without_delete_file_over_stdio_under_2026_07_28() {
    toolset_file_without_delete(true, false);
}

#[test]
fn toolset_file_without_delete_file_over_http_under_2025_11_25() {
    toolset_file_without_delete(false, true);
}

#[test]
fn toolset_file_without_delete_file_over_http_under_2026_07_28() {
    toolset_file_without_delete(true, true);
}

fn agent_with_read_file_only(discover: bool, http: bool) {
    if python().is_none() {
        return;
    }
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("a.txt"), "hello\n").expect("write");
    let out = toolsmith_in(
        dir.path(),
        &["--agent", "Reader", "agents", "--set-tools", "read_file"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answers = run(dir.path(), &["--agent", "Reader"], &[], discover, http);
    let only = vec!["read_file".to_owned()];
    assert_eq!(names(&answers[0]), only);
    assert_refused(&answers[1], "bash", &only);
    assert_eq!(answers[2]["isError"], false, "{}", answers[2]);
    assert_refused(&answers[3], "grep", &only);
}

#[test]
fn an_agent_enabling_read_file_over_stdio_under_2025_11_25() {
    agent_with_read_file_only(false, false);
}

#[test]
fn an_agent_enabling_read_file_over_stdio_under_2026_07_28() {
    agent_with_read_file_only(true, false);
}

#[test]
fn an_agent_enabling_read_file_over_http_under_2025_11_25() {
    agent_with_read_file_only(false, true);
}

#[test]
fn an_agent_enabling_read_file_over_http_under_2026_07_28() {
    agent_with_read_file_only(true, true);
}
