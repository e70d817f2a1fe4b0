//! `toolsmith serve --http` serves the live activity page beside `/mcp`: it prints the page's
//! address, the page and its records answer behind the same guard as `/mcp` (loopback names
//! only without a token, so a DNS-rebound page reads nothing; the token, as header, cookie or
//! a `?token=` first visit, with one), the calls a client makes through `/mcp` show up in the
//! records, a call whose client goes away mid-call ends `failure` there (under 2025-11-25 and
//! 2026-07-28), and `--no-activity` leaves the page out. Loopback only.

use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};

use crate::support::http::*;
use crate::support::mcp::*;

/// Waits for a line of the server's stderr starting with `prefix`.
fn stderr_line(server: &ServeProcess, prefix: &str) -> Option<String> {
    let until = Instant::now() + Duration::from_secs(5);
    while Instant::now() < until {
        if let Some(line) = server
            .stderr
            .lock()
            .expect("stderr")
            .lines()
            .find(|l| l.starts_with(prefix))
        {
            return Some(line.to_owned());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_http_serves_the_activity_page_with_the_calls() {
    init_tls();
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("a.txt"), "alpha\n").expect("write");
    let server = ServeProcess::http(dir.path(), &[]);
    let addr = addr_of(&server);
    let line = stderr_line(&server, "toolsmith: activity page on ").expect("page address");
    assert_eq!(
        line,
        format!("toolsmith: activity page on http://{addr}/activity")
    );

    let page = get(&addr, "/activity", &[]);
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.head.contains("content-type: text/html"),
        "{}",
        page.head
    );
    assert!(
        page.head.contains("content-security-policy"),
        "{}",
        page.head
    );

    // A client's calls through /mcp show up in the records, newest first.
    let client =
        ().serve(StreamableHttpClientTransport::from_uri(server.url.as_str()))
            .await
            .expect("initialize");
    let ok = client
        .call_tool(
            CallToolRequestParams::new("read_file").with_arguments(
                json!({"paths": ["a.txt"]})
                    .as_object()
                    .cloned()
                    .expect("obj"),
            ),
        )
        .await
        .expect("call");
    assert_ne!(ok.is_error, Some(true), "{ok:?}");
    let bad = client
        .call_tool(
            CallToolRequestParams::new("web").with_arguments(
                json!({"action": "crawl"})
                    .as_object()
                    .cloned()
                    .expect("obj"),
            ),
        )
        .await
        .expect("call");
    assert_eq!(bad.is_error, Some(true));
    client.cancel().await.expect("close");

    let addr2 = addr.clone();
    let records = tokio::task::spawn_blocking(move || get(&addr2, "/activity/records", &[]))
        .await
        .expect("get");
    assert_eq!(records.status, 200, "{}", records.body);
    let records: Value = serde_json::from_str(&records.body).expect("records JSON");
    let list = records["records"].as_array().expect("records");
    let seen: Vec<(&str, &str)> = list
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap_or_default(),
                r["status"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [("web", "failure"), ("read_file", "success")],
        "{records:#}"
    );
}

/// The records the page's `/activity/records` lists, as JSON.
async fn records(addr: &str) -> Vec<Value> {
    let addr = addr.to_owned();
    let page = tokio::task::spawn_blocking(move || get(&addr, "/activity/records", &[]))
        .await
        .expect("get");
    assert_eq!(page.status, 200, "{}", page.body);
    let page: Value = serde_json::from_str(&page.body).expect("records JSON");
    page["records"].as_array().expect("records").clone()
}

/// Waits (10 s at most) for the record of the `bash` call running `command` to satisfy
/// `done`, and returns it.
async fn record_of(addr: &str, command: &str, done: impl Fn(&Value) -> bool) -> Value {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let found = records(addr)
            .await
            .into_iter()
            .find(|r| r["name"] == "bash" && r["input"]["command"] == command);
        match found {
            Some(r) if done(&r) => return r,
            last if Instant::now() > until => panic!("no such record for `{command}`: {last:?}"),
            _ => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

/// A `bash` call of `command` with a timeout of its own well past the test's waits, so that
/// only the client going away can end it early.
fn bash_call(command: &str, meta: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "bash", "arguments": {"command": command, "timeout": 60}, "_meta": meta,
    }})
    .to_string()
}

// MCP 2026-07-28 has no sessions: a client that closes its connection while its call runs has
// left for good, and the call ends `failure` at once (not when its command would have ended).
// Under 2025-11-25 a client may come back to a dropped stream (the server numbers its events
// for a resume), so the call runs on while the session lives; the session's end (`DELETE`, as
// a client does on its way out) ends it `failure`, once rmcp's drain of a closing session (up
// to 5 s) is over. Either way nothing stays `in_progress`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_whose_client_disconnects_ends_failure_in_the_records() {
    let dir = tempfile::tempdir().expect("dir");
    let server = ServeProcess::http(dir.path(), &["--approve"]);
    let addr = addr_of(&server);

    // 2026-07-28: every request says who it is; closing the connection ends the call.
    let meta = meta_2026("gone");
    let mut headers = mcp_headers("2026-07-28", None);
    headers.extend([("Mcp-Method", "tools/call"), ("Mcp-Name", "bash")]);
    let connection = send(
        &addr,
        "POST",
        "/mcp",
        &headers,
        &bash_call("sleep 41", meta),
    );
    let running = record_of(&addr, "sleep 41", |r| r["status"] == "in_progress").await;
    let closed = Instant::now();
    drop(connection);
    let ended = record_of(&addr, "sleep 41", |r| r["status"] != "in_progress").await;
    assert_eq!(ended["id"], running["id"]);
    assert_eq!(ended["status"], "failure", "{ended:#}");
    assert!(
        ended["error"]
            .as_str()
            .is_some_and(|e| e.contains("cancelled")),
        "{ended:#}"
    );
    assert!(
        closed.elapsed() < Duration::from_secs(30),
        "ended by the disconnect"
    );

    // 2025-11-25: a session, a call whose stream is dropped, then the session's end.
    let session = initialize_2025(&addr, "gone");
    let headers = mcp_headers("2025-11-25", Some(&session));
    let connection = send(
        &addr,
        "POST",
        "/mcp",
        &headers,
        &bash_call("sleep 42", Value::Null),
    );
    let running = record_of(&addr, "sleep 42", |r| r["status"] == "in_progress").await;
    drop(connection);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let still = record_of(&addr, "sleep 42", |_| true).await;
    assert_eq!(
        still["status"], "in_progress",
        "the session may resume the stream: {still:#}"
    );
    let bye = request(&addr, "DELETE", "/mcp", &headers);
    assert_eq!(bye.status, 204, "{}", bye.body);
    let ended = record_of(&addr, "sleep 42", |r| r["status"] != "in_progress").await;
    assert_eq!(ended["id"], running["id"]);
    assert_eq!(ended["status"], "failure", "{ended:#}");
    assert!(
        ended["error"]
            .as_str()
            .is_some_and(|e| e.contains("cancelled")),
        "{ended:#}"
    );
}

#[test]
fn without_a_token_every_route_answers_loopback_names_only() {
    let dir = tempfile::tempdir().expect("dir");
    let server = ServeProcess::http(dir.path(), &[]);
    let addr = addr_of(&server);
    let port = addr.rsplit_once(':').expect("port").1;
    for host in [
        addr.clone(),
        format!("localhost:{port}"),
        "127.0.0.1".to_owned(),
    ] {
        let r = get(&addr, "/activity/records", &[("Host", &host)]);
        assert_eq!(r.status, 200, "Host {host}: {}", r.body);
    }
    // A page on a rebound name (evil.example resolving to 127.0.0.1) reads nothing: not the
    // records, not the event stream, not the page, not /mcp.
    for path in [
        "/activity",
        "/activity/records",
        "/activity/events",
        "/activity/assets/app.js",
        "/mcp",
    ] {
        for host in [
            format!("evil.example:{port}"),
            "localhost.evil.example".to_owned(),
        ] {
            let r = get(&addr, path, &[("Host", &host)]);
            assert_eq!(r.status, 403, "{path} with Host {host}: {}", r.body);
            assert!(r.body.contains("loopback name"), "{}", r.body);
        }
    }
}

#[test]
fn with_a_token_the_page_takes_it_once_then_as_a_cookie() {
    let dir = tempfile::tempdir().expect("dir");
    let server = ServeProcess::http(dir.path(), &["--token", "page-token"]);
    let addr = addr_of(&server);
    let line = stderr_line(&server, "toolsmith: activity page on ").expect("page address");
    assert!(line.contains("?token=TOKEN"), "{line}");
    assert!(
        !line.contains("page-token"),
        "the token is never printed: {line}"
    );

    assert_eq!(get(&addr, "/activity", &[]).status, 401);
    assert_eq!(get(&addr, "/activity/records", &[]).status, 401);
    assert_eq!(get(&addr, "/activity?token=wrong", &[]).status, 401);
    let first = get(&addr, "/activity?token=page-token", &[]);
    assert_eq!(first.status, 303, "{}", first.head);
    assert!(
        first
            .head
            .contains("set-cookie: toolsmith_token=page-token"),
        "{}",
        first.head
    );
    assert!(first.head.contains("httponly"), "{}", first.head);
    let cookie = [("Cookie", "toolsmith_token=page-token")];
    assert_eq!(get(&addr, "/activity", &cookie).status, 200);
    assert_eq!(get(&addr, "/activity/records", &cookie).status, 200);
    let bearer = [("Authorization", "Bearer page-token")];
    assert_eq!(get(&addr, "/activity/records", &bearer).status, 200);
    // With a token the server may face other names; the token is the check.
    let other = [
        ("Authorization", "Bearer page-token"),
        ("Host", "tools.example:8080"),
    ];
    assert_eq!(get(&addr, "/activity/records", &other).status, 200);
}

#[test]
fn no_activity_leaves_the_page_out() {
    let dir = tempfile::tempdir().expect("dir");
    let server = ServeProcess::http(dir.path(), &["--no-activity"]);
    let addr = addr_of(&server);
    assert_eq!(get(&addr, "/activity", &[]).status, 404);
    assert_eq!(get(&addr, "/activity/records", &[]).status, 404);
    std::thread::sleep(Duration::from_millis(200));
    let stderr = server.stderr.lock().expect("stderr").clone();
    assert!(!stderr.contains("activity page"), "{stderr}");
}
