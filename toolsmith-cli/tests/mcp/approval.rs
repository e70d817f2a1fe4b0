//! A call that asks for approval asks the client's user (MCP elicitation), through the Python
//! client under 2025-11-25 (`elicitation/create` while the call waits) and 2026-07-28
//! (`input_required` and the retry with the answer), over stdio and HTTP: an accepting user
//! runs the command exactly once, a declining one never, and a client that cannot ask gets
//! `approval_denied` naming what asked and how to allow it.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::mcp::{ServeProcess, python, run_python_as};

/// How many times `bash` ran the command (it appends a line each time).
fn runs(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("ran")).map_or(0, |t| t.lines().count())
}

fn steps() -> Value {
    json!([{"op": "call", "name": "bash", "arguments": {"command": "echo x >> ran"}}])
}

/// Runs the steps with the Python client answering `answer` (none: it cannot ask), over stdio
/// or HTTP; the call's answer.
fn ask(dir: &Path, discover: bool, http: bool, answer: Option<&str>) -> Value {
    let py = python().expect("python");
    let root = dir.to_str().expect("utf-8");
    let exe = env!("CARGO_BIN_EXE_toolsmith");
    let server;
    let mut transport: Vec<&str> = Vec::new();
    if let Some(a) = answer {
        transport.extend(["--elicit", a]);
    }
    if http {
        server = ServeProcess::http(dir, &[]);
        transport.extend(["http", server.url.as_str()]);
    } else {
        transport.extend(["stdio", exe, "--root", root, "serve"]);
    }
    let (_, answers, stderr) = run_python_as(&py, discover, &transport, &steps(), dir);
    assert_eq!(answers.len(), 1, "{stderr}");
    answers[0].clone()
}

fn users_are_asked(discover: bool, http: bool) {
    if python().is_none() {
        return;
    }
    let label = format!("discover={discover} http={http}");
    // Accepted once: the command runs once, after a question naming the tool, the call and
    // what it runs.
    let dir = tempfile::tempdir().expect("dir");
    let answer = ask(dir.path(), discover, http, Some("allow_once"));
    assert_eq!(answer["isError"], false, "{label}: {answer}");
    assert_eq!(runs(dir.path()), 1, "{label}");
    let asked = answer["asked"].as_array().expect("asked");
    assert_eq!(asked.len(), 1, "{label}: {answer}");
    let question = asked[0].as_str().unwrap_or_default();
    for part in [
        "Allow `bash` to run?",
        "echo x >> ran",
        "`bash`'s declaration (requires_approval)",
        "$ echo x >> ran",
    ] {
        assert!(question.contains(part), "{label}: {part}: {question}");
    }

    // Declined: nothing runs, and the model is told the user declined.
    let dir = tempfile::tempdir().expect("dir");
    let answer = ask(dir.path(), discover, http, Some("decline"));
    assert_eq!(answer["isError"], true, "{label}: {answer}");
    let text = answer["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("approval_denied") && text.contains("the user declined the call"),
        "{label}: {text}"
    );
    assert_eq!(runs(dir.path()), 0, "{label}");

    // Denied in the form: nothing runs either.
    let dir = tempfile::tempdir().expect("dir");
    let answer = ask(dir.path(), discover, http, Some("deny"));
    assert!(
        answer["text"]
            .as_str()
            .unwrap_or_default()
            .contains("the user denied the call"),
        "{label}: {answer}"
    );
    assert_eq!(runs(dir.path()), 0, "{label}");

    // A client that cannot ask: denied, naming what asked and how to allow it.
    let dir = tempfile::tempdir().expect("dir");
    let answer = ask(dir.path(), discover, http, None);
    let text = answer["text"].as_str().unwrap_or_default();
    for part in [
        "approval_denied",
        "`bash`'s declaration (requires_approval)",
        "this MCP client cannot ask its user",
        // The command writes a file: no `allow` rule could let it run.
        "no `allow` rule lets a command that writes a file",
        "--approve",
    ] {
        assert!(text.contains(part), "{label}: {part}: {text}");
    }
    assert!(
        answer["asked"].as_array().is_some_and(Vec::is_empty),
        "{label}"
    );
    assert_eq!(runs(dir.path()), 0, "{label}");
}

#[test]
fn users_are_asked_over_stdio_under_2025_11_25() {
    users_are_asked(false, false);
}

#[test]
fn users_are_asked_over_stdio_under_2026_07_28() {
    users_are_asked(true, false);
}

#[test]
fn users_are_asked_over_http_under_2025_11_25() {
    users_are_asked(false, true);
}

#[test]
fn users_are_asked_over_http_under_2026_07_28() {
    users_are_asked(true, true);
}

#[test]
fn allowing_for_the_session_asks_once_per_session() {
    if python().is_none() {
        return;
    }
    let dir = tempfile::tempdir().expect("dir");
    let py = python().expect("python");
    let root = dir.path().to_str().expect("utf-8");
    let exe = env!("CARGO_BIN_EXE_toolsmith");
    let call = json!({"op": "call", "name": "bash", "arguments": {"command": "echo x >> ran"}});
    let steps = json!([call, call, call]);
    let transport = [
        "--elicit",
        "allow_session",
        "stdio",
        exe,
        "--root",
        root,
        "serve",
    ];
    let (_, answers, _) = run_python_as(&py, false, &transport, &steps, dir.path());
    let asked: Vec<usize> = answers
        .iter()
        .map(|a| a["asked"].as_array().map_or(0, Vec::len))
        .collect();
    assert_eq!(asked, vec![1, 0, 0], "{answers:?}");
    assert_eq!(runs(dir.path()), 3);
}

/// "Allow for this session" grants the call's scope, named in the form, not the whole tool:
/// after it on `git status`, `git status --short` runs unasked and `rm -f x` asks again. Under
/// 2026-07-28 there is no session, and the form offers no such choice.
#[test]
fn allowing_for_the_session_covers_the_scope_the_form_names() {
    if python().is_none() {
        return;
    }
    let dir = tempfile::tempdir().expect("dir");
    let py = python().expect("python");
    let root = dir.path().to_str().expect("utf-8");
    let exe = env!("CARGO_BIN_EXE_toolsmith");
    std::fs::write(dir.path().join("x"), "x").expect("x");
    let bash =
        |command: &str| json!({"op": "call", "name": "bash", "arguments": {"command": command}});
    let steps = json!([
        bash("git status"),
        bash("git status --short"),
        bash("rm -f x")
    ]);
    let transport = [
        "--elicit",
        "allow_session",
        "stdio",
        exe,
        "--root",
        root,
        "serve",
    ];
    let (_, answers, stderr) = run_python_as(&py, false, &transport, &steps, dir.path());
    let asked: Vec<Vec<String>> = answers
        .iter()
        .map(|a| {
            a["asked"]
                .as_array()
                .map(|q| {
                    q.iter()
                        .map(|m| m.as_str().unwrap_or_default().to_owned())
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(
        asked.iter().map(Vec::len).collect::<Vec<_>>(),
        [1, 0, 1],
        "{answers:?}\n{stderr}"
    );
    assert!(
        asked[0][0].contains("Allow `bash(git status *)` for this session"),
        "{}",
        asked[0][0]
    );
    assert!(
        asked[2][0].contains("Allow `bash(rm -f x)` for this session"),
        "{}",
        asked[2][0]
    );
    assert!(
        !dir.path().join("x").exists(),
        "the asked command ran once allowed"
    );

    // 2026-07-28: each call asks, and no question offers the session.
    let steps = json!([bash("git status"), bash("git status --short")]);
    let transport = [
        "--elicit",
        "allow_once",
        "stdio",
        exe,
        "--root",
        root,
        "serve",
    ];
    let (_, answers, stderr) = run_python_as(&py, true, &transport, &steps, dir.path());
    for answer in &answers {
        let asked = answer["asked"].as_array().expect("asked");
        assert_eq!(asked.len(), 1, "{answer}\n{stderr}");
        assert!(
            !asked[0]
                .as_str()
                .unwrap_or_default()
                .contains("for this session"),
            "{answer}"
        );
    }
}
