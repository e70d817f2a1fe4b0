//! Servers are confined like bash's commands, and calls that cannot be answered say why.

use serde_json::json;

use crate::support::code::{C_FILES, Project, config, have_server};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_writes_inside_the_roots_and_nowhere_else() {
    if !have_server("clangd") {
        return;
    }
    // The "server" is a shell that tries both writes, then becomes clangd.
    let probe = tempfile::tempdir().unwrap();
    let outside = probe.path().canonicalize().unwrap().join("pwned.txt");
    let mut c = config();
    let script = format!(
        "echo pwned > '{}'; echo ok > inside.txt; exec clangd",
        outside.display()
    );
    c.servers
        .insert("c".into(), vec!["sh".into(), "-c".into(), script]);
    let mut p = Project::with(C_FILES, c).await;
    let symbols = p.code(json!({"action": "symbols", "path": "util.c"})).await;
    assert!(
        symbols.text.contains("util.c:3: function add"),
        "{}",
        symbols.text
    );
    assert!(
        p.root.join("inside.txt").exists(),
        "the write inside the root failed"
    );
    assert!(!outside.exists(), "the server wrote outside the roots");
    assert!(!p.outside.join("pwned.txt").exists());
    p.end().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_that_cannot_be_answered_say_why() {
    let mut c = config();
    c.servers
        .insert("c".into(), vec!["no-such-language-server".into()]);
    c.servers.insert(
        "python".into(),
        vec!["sh".into(), "-c".into(), "echo dying >&2; exit 3".into()],
    );
    let files = [
        ("a.c", "int x;\n"),
        ("a.py", "x = 1\n"),
        ("notes.txt", "x\n"),
    ];
    let mut p = Project::with(&files, c).await;
    let cases = [
        (
            json!({"action": "symbols", "path": "notes.txt"}),
            "of no language the code tool knows",
        ),
        (
            json!({"action": "symbols", "path": "a.c"}),
            "`no-such-language-server` is not installed",
        ),
        (
            json!({"action": "symbols", "path": "a.py"}),
            "could not be started: it stopped while starting",
        ),
        (
            json!({"action": "symbols", "path": "../outside.c"}),
            "outside",
        ),
        (
            json!({"action": "definition", "path": "a.c", "line": 7, "symbol": "x"}),
            "which has 2 lines",
        ),
        (
            json!({"action": "definition", "path": "a.c", "line": 1}),
            "give symbol",
        ),
        (
            json!({"action": "references", "path": "a.c", "line": 1, "symbol": "x", "max_results": 0}),
            "max_results",
        ),
    ];
    for (args, expected) in cases {
        let called = p.call("code", args.clone()).await;
        assert!(called.is_error, "{args}: {}", called.text);
        assert!(called.text.contains(expected), "{args}: {}", called.text);
    }
    // The dying server's last words reach the model.
    let called = p
        .call("code", json!({"action": "symbols", "path": "a.py"}))
        .await;
    assert!(called.text.contains("dying"), "{}", called.text);
    assert!(p.pids().is_empty());
    p.end().await;
}
