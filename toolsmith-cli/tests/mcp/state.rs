//! State across requests, through `toolsmith serve`: no answer comes from another request's
//! result (a file read again after it changed on disk shows the change), and the web search
//! limit is a rolling window per server, not a count per connection that never resets. Under
//! 2025-11-25 and 2026-07-28 over stdio, and with the Python `mcp` client over stdio and HTTP.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::mcp::{ServeProcess, python, run_python, searxng};
use crate::support::stdio::{StdioServe, Version, text_of};

fn read_change_read(version: Version) {
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("a.txt");
    std::fs::write(&file, "before\n").expect("write");
    let root = dir.path().to_str().expect("utf-8");
    let mut server = StdioServe::start(dir.path(), &["--root", root]);
    server.send(version.prelude());
    let read = |id: i64| {
        let params = json!({"name": "read_file", "arguments": {"paths": ["a.txt"]}});
        version.request(&json!(id), "tools/call", params)
    };
    let first = text_of(&server.ask(read(1)));
    assert!(first.contains("before"), "{first}");
    // The user edits the file in their editor.
    std::fs::write(&file, "after, and longer\n").expect("write");
    let second = text_of(&server.ask(read(2)));
    assert!(second.contains("after, and longer"), "{second}");
    assert!(!second.contains("before"), "{second}");
}

#[test]
fn a_file_read_again_after_it_changed_shows_the_change_under_2025_11_25() {
    read_change_read(Version::V2025);
}

#[test]
fn a_file_read_again_after_it_changed_shows_the_change_under_2026_07_28() {
    read_change_read(Version::V2026);
}

fn searches_in_a_window(version: Version) {
    let dir = tempfile::tempdir().expect("dir");
    let (url, count) = searxng();
    let root = dir.path().to_str().expect("utf-8");
    let args = [
        "--root",
        root,
        "--searxng-url",
        &url,
        "--allow-host",
        "127.0.0.1",
        "--search-window",
        "2",
    ];
    let mut server = StdioServe::start(dir.path(), &args);
    server.send(version.prelude());
    let search = |id: i64| {
        let args = json!({"action": "search", "query_or_url": format!("query {id}")});
        let params = json!({"name": "web", "arguments": args});
        version.request(&json!(id), "tools/call", params)
    };
    let started = Instant::now();
    for id in 1..=10 {
        let answer = server.ask(search(id));
        assert_ne!(answer["result"]["isError"], json!(true), "{id}: {answer}");
    }
    let refused = server.ask(search(11));
    assert_eq!(refused["result"]["isError"], json!(true), "{refused}");
    let text = text_of(&refused);
    assert!(
        text.contains("Search limit reached (10 searches per 2 s on this server). The next search is allowed in "),
        "{text}"
    );
    assert_eq!(
        count.load(Ordering::SeqCst),
        10,
        "the refused search sent nothing"
    );
    // Retried when the refusal says (whole seconds, rounded up): allowed then.
    let secs: u64 = text
        .split("allowed in ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a number of seconds in {text}"));
    assert!((1..=2).contains(&secs), "{text}");
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "the searches took a minute"
    );
    std::thread::sleep(Duration::from_secs(secs));
    let again = server.ask(search(12));
    assert_ne!(again["result"]["isError"], json!(true), "{again}");
    assert_eq!(count.load(Ordering::SeqCst), 11);
}

#[test]
fn the_eleventh_search_in_the_window_is_refused_until_it_moves_on_under_2025_11_25() {
    searches_in_a_window(Version::V2025);
}

#[test]
fn the_eleventh_search_in_the_window_is_refused_until_it_moves_on_under_2026_07_28() {
    searches_in_a_window(Version::V2026);
}

/// The Python client's steps: read, change on disk, read again.
fn python_steps(dir: &std::path::Path) -> Value {
    let read = json!({"op": "call", "name": "read_file", "arguments": {"paths": ["a.txt"]}});
    let path = dir.join("a.txt");
    let write = json!({"op": "write", "path": path, "content": "after, and longer\n"});
    json!([read, write, read])
}

fn check_python(answers: &[Value], stderr: &str) {
    assert_eq!(answers.len(), 3, "{stderr}");
    let (first, second) = (answers[0]["text"].as_str(), answers[2]["text"].as_str());
    assert!(first.unwrap_or_default().contains("before"), "{answers:?}");
    let second = second.unwrap_or_default();
    assert!(second.contains("after, and longer"), "{second}");
}

#[test]
fn python_client_over_stdio_reads_a_changed_file_anew() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("a.txt"), "before\n").expect("write");
    let root = dir.path().to_str().expect("utf-8");
    let bin = env!("CARGO_BIN_EXE_toolsmith");
    let transport = ["stdio", bin, "--root", root, "serve"];
    let (answers, stderr) = run_python(&py, &transport, &python_steps(dir.path()), dir.path());
    check_python(&answers, &stderr);
}

#[test]
fn python_client_over_http_reads_a_changed_file_anew() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("a.txt"), "before\n").expect("write");
    let server = ServeProcess::http(dir.path(), &[]);
    let transport = ["http", server.url.as_str()];
    let (answers, stderr) = run_python(&py, &transport, &python_steps(dir.path()), dir.path());
    check_python(&answers, &stderr);
}
