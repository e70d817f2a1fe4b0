//! MCP sessions and their calls' lives, with rmcp's own client: each session (the stdio
//! connection, each streamable HTTP session) has a tool session of its own, and a session
//! that ends (stdin closed, the HTTP session deleted by its client) cancels the calls it
//! still runs. `serve` with and without `--approve`. Loopback only.
//!
//! As the MCP specification asks, a dropped HTTP *response stream* is not taken as a
//! cancellation (the client may resume it); the client ending its session, or sending
//! `notifications/cancelled`, is.
//!
//! `DELETE /mcp` of a live 2025-11-25 session answers 204 and ends it, of an unknown one
//! 404; under 2026-07-28, which has no sessions, it is not allowed (405).

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::{Value, json};
use toolsmith::mcp::ServeOptions;

use crate::support::http::*;
use crate::support::mcp::*;

/// Waits until the slow tool has seen `n` more cancellations than `before`.
async fn cancelled_since(before: usize, n: usize) -> bool {
    let until = Instant::now() + Duration::from_secs(10);
    while Instant::now() < until {
        if seen().cancelled.load(Ordering::SeqCst) >= before + n {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

/// The count tool's answer.
fn count_of(r: &rmcp::model::CallToolResult) -> u64 {
    r.structured_content.as_ref().expect("structured")["count"]
        .as_u64()
        .expect("count")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_the_stdio_connection_cancels_its_calls() {
    let _turn = CANCELLATIONS.lock().await;
    // The stdio transport in-process: a duplex pipe, one end the server's stdin/stdout.
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = tokio::spawn(toolsmith::mcp::serve(
        test_runtime(),
        ServeOptions::new("stdio"),
        tokio::io::split(server_io),
    ));
    let client = ().serve(client_io).await.expect("initialize");
    let before = seen().cancelled.load(Ordering::SeqCst);
    let peer = client.peer().clone();
    let call = tokio::spawn(async move {
        peer.call_tool(
            CallToolRequestParams::new("slow")
                .with_arguments(args(json!({"ticks": 400, "ms": 50}))),
        )
        .await
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    // The client goes away with the call running: the connection closes.
    client.cancel().await.expect("close");
    assert!(
        cancelled_since(before, 1).await,
        "the running call saw its cancellation once the connection closed"
    );
    tokio::time::timeout(Duration::from_secs(10), server)
        .await
        .expect("the server ends with its session")
        .expect("join")
        .expect("serve");
    let _ = call.await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ending_an_http_session_cancels_its_calls_and_only_its_own() {
    let _turn = CANCELLATIONS.lock().await;
    init_tls();
    let url = start_http(test_runtime(), ServeOptions::new("http")).await;
    let before = seen().cancelled.load(Ordering::SeqCst);
    let leaving =
        ().serve(StreamableHttpClientTransport::from_uri(url.as_str()))
            .await
            .expect("initialize");
    let staying =
        ().serve(StreamableHttpClientTransport::from_uri(url.as_str()))
            .await
            .expect("initialize");

    let peer = leaving.peer().clone();
    let left = tokio::spawn(async move {
        peer.call_tool(
            CallToolRequestParams::new("slow")
                .with_arguments(args(json!({"ticks": 400, "ms": 50}))),
        )
        .await
    });
    let peer = staying.peer().clone();
    let stayed = tokio::spawn(async move {
        peer.call_tool(
            CallToolRequestParams::new("slow").with_arguments(args(json!({"ticks": 20, "ms": 50}))),
        )
        .await
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    // The client ends its session (rmcp's client sends DELETE for it).
    leaving.cancel().await.expect("close");
    assert!(
        cancelled_since(before, 1).await,
        "the leaving session's call was cancelled"
    );
    // The other session's call runs to its end.
    let r = stayed.await.expect("join").expect("call");
    assert_ne!(r.is_error, Some(true), "{r:?}");
    assert_eq!(
        r.structured_content.as_ref().expect("structured")["ticks"],
        20
    );
    assert_eq!(
        seen().cancelled.load(Ordering::SeqCst),
        before + 1,
        "only the leaving session's call was cancelled"
    );
    let _ = left.await;
    staying.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_http_session_has_its_own_tool_session() {
    init_tls();
    let url = start_http(test_runtime(), ServeOptions::new("sessions")).await;
    let a =
        ().serve(StreamableHttpClientTransport::from_uri(url.as_str()))
            .await
            .expect("initialize");
    let b =
        ().serve(StreamableHttpClientTransport::from_uri(url.as_str()))
            .await
            .expect("initialize");
    let count = || CallToolRequestParams::new("count").with_arguments(args(json!({})));
    let mut seen_a = Vec::new();
    let mut seen_b = Vec::new();
    for _ in 0..3 {
        seen_a.push(count_of(&a.call_tool(count()).await.expect("call")));
        seen_b.push(count_of(&b.call_tool(count()).await.expect("call")));
    }
    assert_eq!(seen_a, [1, 2, 3], "session a counts its own calls");
    assert_eq!(seen_b, [1, 2, 3], "session b counts its own calls");
    a.cancel().await.expect("close");
    b.cancel().await.expect("close");
}

/// `toolsmith serve` over stdio with `extra` global options; the answer to a
/// `create_file` call (a tool that needs approval).
async fn create_through_serve(
    dir: &std::path::Path,
    extra: &[&str],
) -> rmcp::model::CallToolResult {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_toolsmith"));
    cmd.args(["--root", dir.to_str().expect("utf-8")])
        .args(extra)
        .arg("serve")
        .current_dir(dir)
        .env_remove("SEARXNG_URL");
    let client = ().serve(TokioChildProcess::new(cmd).expect("spawn")).await.expect("initialize");
    let r = client
        .call_tool(
            CallToolRequestParams::new("create_file")
                .with_arguments(args(json!({"path": "made.txt", "content": "made\n"}))),
        )
        .await
        .expect("call");
    client.cancel().await.expect("close");
    r
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_asks_approve_before_a_destructive_tool_runs() {
    let dir = tempfile::tempdir().expect("dir");
    let denied = create_through_serve(dir.path(), &[]).await;
    assert_eq!(denied.is_error, Some(true), "{denied:?}");
    let text = denied.content[0].as_text().expect("text").text.clone();
    let e: Value = serde_json::from_str(&text).expect("error JSON");
    assert_eq!(e["error_type"], "approval_denied", "{e}");
    assert!(!dir.path().join("made.txt").exists(), "nothing was written");

    let approved = create_through_serve(dir.path(), &["--approve"]).await;
    assert_ne!(approved.is_error, Some(true), "{approved:?}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("made.txt")).expect("made"),
        "made\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_honours_read_only_roots() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("a.txt"), "alpha\n").expect("write");
    // A read-only root: the approved write is still refused by the workspace policy.
    let ro = dir.path().to_str().expect("utf-8").to_owned();
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_toolsmith"));
    cmd.args(["--read-only-root", &ro, "--approve", "serve"])
        .current_dir(dir.path());
    let client = ().serve(TokioChildProcess::new(cmd).expect("spawn")).await.expect("initialize");
    let r = client
        .call_tool(
            CallToolRequestParams::new("update_file")
                .with_arguments(args(json!({"path": "a.txt", "content": "changed\n"}))),
        )
        .await
        .expect("call");
    assert_eq!(r.is_error, Some(true), "{r:?}");
    let text = r.content[0].as_text().expect("text").text.clone();
    assert!(
        text.contains("security_error") && text.contains("read-only"),
        "{text}"
    );
    let read = client
        .call_tool(
            CallToolRequestParams::new("read_file")
                .with_arguments(args(json!({"paths": ["a.txt"]}))),
        )
        .await
        .expect("call");
    assert_ne!(read.is_error, Some(true), "{read:?}");
    client.cancel().await.expect("close");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).expect("a"),
        "alpha\n"
    );
}

/// A `tools/list` POST with `headers`; its status.
fn list_status(addr: &str, headers: &[(&str, &str)]) -> u16 {
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();
    Http::read(send(addr, "POST", "/mcp", headers, &list)).status
}

// rmcp answered `DELETE /mcp` with 202, for a live session and an unknown one alike; the
// Python SDK takes anything but 200 or 204 as "Session termination failed".
#[test]
fn deleting_a_live_session_answers_204_and_ends_it() {
    let dir = tempfile::tempdir().expect("dir");
    let server = ServeProcess::http(dir.path(), &["--no-activity"]);
    let addr = addr_of(&server);
    let session = initialize_2025(&addr, "leaving");
    let headers = mcp_headers("2025-11-25", Some(&session));
    assert_eq!(list_status(&addr, &headers), 200, "the session lives");

    let bye = request(&addr, "DELETE", "/mcp", &headers);
    assert_eq!(bye.status, 204, "{}\n{}", bye.head, bye.body);
    assert_eq!(bye.body, "", "a 204 has no body");
    // The session is gone: a request in it, and a second DELETE, find no session.
    assert_eq!(list_status(&addr, &headers), 404, "the session ended");
    let again = request(&addr, "DELETE", "/mcp", &headers);
    assert_eq!(again.status, 404, "{}", again.body);
}

#[test]
fn deleting_an_unknown_session_answers_404() {
    let dir = tempfile::tempdir().expect("dir");
    let server = ServeProcess::http(dir.path(), &["--no-activity"]);
    let addr = addr_of(&server);
    let live = initialize_2025(&addr, "staying");
    // Under 2025-11-25, and with no version header (2025-03-26, the default).
    for headers in [
        mcp_headers("2025-11-25", Some("no-such-session")),
        vec![("Mcp-Session-Id", "no-such-session")],
    ] {
        let r = request(&addr, "DELETE", "/mcp", &headers);
        assert_eq!(r.status, 404, "{headers:?}: {}\n{}", r.head, r.body);
        assert!(r.body.contains("Session not found"), "{}", r.body);
    }
    // Without an id there is nothing to end: rmcp's 400 says the id is required.
    let r = request(&addr, "DELETE", "/mcp", &mcp_headers("2025-11-25", None));
    assert_eq!(r.status, 400, "{}", r.body);
    let headers = mcp_headers("2025-11-25", Some(&live));
    assert_eq!(list_status(&addr, &headers), 200, "other sessions live on");
}

// MCP 2026-07-28 has no sessions, so `DELETE /mcp` has nothing to end: it answers 405 (only
// POST is allowed), never a 2xx that would pretend a session ended, even with the id of a
// 2025-11-25 session, which lives on.
#[test]
fn under_2026_07_28_delete_is_not_allowed() {
    let dir = tempfile::tempdir().expect("dir");
    let server = ServeProcess::http(dir.path(), &["--no-activity"]);
    let addr = addr_of(&server);
    let live = initialize_2025(&addr, "older");
    for session in [None, Some("no-such-session"), Some(live.as_str())] {
        let r = request(&addr, "DELETE", "/mcp", &mcp_headers("2026-07-28", session));
        assert_eq!(r.status, 405, "{session:?}: {}\n{}", r.head, r.body);
        assert_eq!(r.header("allow"), Some("post"), "{}", r.head);
    }
    let headers = mcp_headers("2025-11-25", Some(&live));
    assert_eq!(list_status(&addr, &headers), 200, "the session lives on");
}
