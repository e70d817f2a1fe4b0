//! A server's life: killed mid-session and restarted by the next call, shut down when idle
//! and when the host stops.

use std::time::Duration;

use serde_json::json;

use crate::support::code::{C_FILES, Project, config, gone, have_server, lines, wait_gone};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_is_restarted_and_the_next_call_answers() {
    if !have_server("clangd") {
        return;
    }
    let mut p = Project::new(C_FILES).await;
    p.code(json!({"action": "symbols", "path": "util.c"})).await;
    let pids = p.pids();
    assert_eq!(pids.len(), 1, "one server: {pids:?}");
    let old = pids[0];
    assert!(crate::support::run("kill", &["-KILL", &old.to_string()]));
    assert!(
        wait_gone(old, Duration::from_secs(10)).await,
        "clangd {old} still runs"
    );

    let def = p
        .code(json!({"action": "definition", "path": "main.c", "line": 4, "symbol": "add"}))
        .await;
    assert!(
        lines(&def.text)[0].ends_with("int add(int a, int b);")
            || lines(&def.text)[0].starts_with("util.c:3:"),
        "{}",
        def.text
    );
    assert!(
        def.text.contains("had stopped and was restarted"),
        "{}",
        def.text
    );
    let now = p.pids();
    assert_eq!(now.len(), 1, "{now:?}");
    assert_ne!(now[0], old);
    assert!(gone(old));
    let new = now[0];
    p.end().await;
    assert!(
        wait_gone(new, Duration::from_secs(10)).await,
        "shutdown_all left {new}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_server_is_shut_down() {
    if !have_server("clangd") {
        return;
    }
    let mut c = config();
    c.idle_timeout = Duration::from_millis(500);
    let mut p = Project::with(C_FILES, c).await;
    p.code(json!({"action": "symbols", "path": "util.c"})).await;
    let pid = p.pids()[0];
    // The table looks for idle servers every 5 s.
    assert!(
        wait_gone(pid, Duration::from_secs(20)).await,
        "idle clangd {pid} still runs"
    );
    assert!(p.pids().is_empty());
    // The next call starts a new one.
    p.code(json!({"action": "symbols", "path": "util.c"})).await;
    assert_eq!(p.pids().len(), 1);
    p.end().await;
}
