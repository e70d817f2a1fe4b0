//! `toolsmith serve` and the library server driven by rmcp's own client: the CLI over stdio
//! and HTTP (starts, lists, calls, refuses a missing or wrong token, refuses a non-loopback
//! bind without one, checks `Origin`), `call -` and `--args-file`, and the load test (1,000
//! calls over one stdio session, 1,000 over HTTP from 8 clients: all answered, none lost,
//! none duplicated). Loopback only.

use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::{Value, json};
use toolsmith::mcp::ServeOptions;

use crate::support::mcp::*;

/// A raw HTTP/1.1 POST of an `initialize` to `url` with extra headers; the status code.
fn post_initialize(url: &str, headers: &[(&str, &str)]) -> u16 {
    let rest = url.strip_prefix("http://").expect("http url");
    let (host, path) = rest.split_once('/').expect("path");
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}})
    .to_string();
    let mut req = format!(
        "POST /{path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(&body);
    let mut s = TcpStream::connect(host).expect("connect");
    s.write_all(req.as_bytes()).expect("write");
    let mut buf = [0u8; 64];
    let n = s.read(&mut buf).expect("read");
    let line = String::from_utf8_lossy(&buf[..n]);
    line.split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .expect("status code")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_stdio_starts_lists_and_calls() {
    let dir = tempfile::tempdir().expect("dir");
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_toolsmith"));
    cmd.args([
        "--root",
        dir.path().to_str().expect("utf-8"),
        "--agent",
        "ada",
        "serve",
    ])
    .current_dir(dir.path())
    .env_remove("SEARXNG_URL");
    let client = ().serve(TokioChildProcess::new(cmd).expect("spawn")).await.expect("initialize");
    let tools = client.list_all_tools().await.expect("list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert!(
        names.contains(&"web") && names.contains(&"prompt_manager"),
        "{names:?}"
    );
    let r = client
        .call_tool(
            CallToolRequestParams::new("prompt_manager").with_arguments(args(
                json!({"action": "update", "prompt_type": "name", "content": "Ada"}),
            )),
        )
        .await
        .expect("call");
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let r = client
        .call_tool(
            CallToolRequestParams::new("web").with_arguments(args(json!({"action": "crawl"}))),
        )
        .await
        .expect("call");
    assert_eq!(r.is_error, Some(true));
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_http_requires_the_token_and_checks_origin() {
    init_tls();
    let dir = tempfile::tempdir().expect("dir");
    let server = ServeProcess::http(dir.path(), &["--token", "right-token"]);
    assert!(
        server.url.starts_with("http://127.0.0.1:") && server.url.ends_with("/mcp"),
        "{}",
        server.url
    );
    let url = server.url.clone();
    let codes = tokio::task::spawn_blocking(move || {
        [
            post_initialize(&url, &[]),
            post_initialize(&url, &[("Authorization", "Bearer wrong-token")]),
            post_initialize(&url, &[("Authorization", "Bearer right-toke")]),
            post_initialize(&url, &[("Authorization", "Basic right-token")]),
            post_initialize(&url, &[("Cookie", "toolsmith_token=wrong")]),
            post_initialize(&url, &[("Authorization", "Bearer right-token")]),
            post_initialize(&url, &[("Cookie", "a=b; toolsmith_token=right-token")]),
            post_initialize(
                &url,
                &[
                    ("Authorization", "Bearer right-token"),
                    ("Origin", "http://evil.example"),
                ],
            ),
        ]
    })
    .await
    .expect("requests");
    assert_eq!(codes, [401, 401, 401, 401, 401, 200, 200, 403]);

    // A real client with the token lists and calls.
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(server.url.as_str())
            .auth_header("right-token"),
    );
    let client = ().serve(transport).await.expect("initialize");
    assert!(!client.list_all_tools().await.expect("list").is_empty());
    let r = client
        .call_tool(
            CallToolRequestParams::new("web").with_arguments(args(json!({"action": "crawl"}))),
        )
        .await
        .expect("call");
    assert_eq!(r.is_error, Some(true));
    // Without it, the client cannot even start.
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(server.url.as_str()).auth_header("nope"),
    );
    assert!(().serve(transport).await.is_err());
}

#[test]
fn serve_refuses_a_non_loopback_bind_without_a_token() {
    // The refusal comes before any socket opens, so no non-loopback address is ever bound.
    for addr in ["0.0.0.0:0", "[::]:0", "192.0.2.1:8080"] {
        let out = Command::new(env!("CARGO_BIN_EXE_toolsmith"))
            .args(["serve", "--http", addr])
            .env_remove("TOOLSMITH_TOKEN")
            .stdin(Stdio::null())
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(2), "{addr}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("needs a token"), "{err}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .args(["serve", "--http", "127.0.0.1:0", "--token", ""])
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let out = Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .args(["serve", "--http", "not-an-address"])
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
}

// The flag and the variable are held to the file's rule off loopback: a short token is refused
// before any socket opens (on loopback it is allowed, for a machine's own use).
#[test]
fn a_short_token_is_refused_off_loopback_by_flag_and_by_variable() {
    for (args, env) in [
        (vec!["serve", "--http", "0.0.0.0:0", "--token", "abc"], None),
        (vec!["serve", "--http", "[::]:0"], Some("abc")),
        (
            vec!["serve", "--http", "0.0.0.0:0"],
            Some("with spaces but long enough 123456789"),
        ),
    ] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_toolsmith"));
        command
            .args(&args)
            .env_remove("TOOLSMITH_TOKEN")
            .stdin(Stdio::null());
        if let Some(token) = env {
            command.env("TOOLSMITH_TOKEN", token);
        }
        let out = command.output().expect("run");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("at least 32 characters without spaces"),
            "{err}"
        );
    }
}

#[test]
fn serve_http_takes_the_token_from_the_environment() {
    let dir = tempfile::tempdir().expect("dir");
    let server = ServeProcess::http_with_env(dir.path(), &[], &[("TOOLSMITH_TOKEN", "env-token")]);
    let codes = [
        post_initialize(&server.url, &[]),
        post_initialize(&server.url, &[("Authorization", "Bearer env-token")]),
    ];
    assert_eq!(codes, [401, 200]);
}

/// A host that stops reading the server's stderr (closes its end of the pipe) must not take
/// the server down: the `serving MCP on ...` notices are written to a pipe with no reader
/// here, from the first byte on, and the server still answers over stdio.
#[test]
fn serve_keeps_serving_when_its_stderr_is_closed() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().expect("dir");
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .args(["--root", dir.path().to_str().expect("utf-8"), "serve"])
        .current_dir(dir.path())
        .env_remove("SEARXNG_URL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(writer)
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ];
    for m in &messages {
        writeln!(stdin, "{m}").expect("write");
    }
    let mut answers = Vec::new();
    for _ in 0..2 {
        let mut line = String::new();
        stdout.read_line(&mut line).expect("read");
        answers.push(line);
    }
    drop(stdin);
    let status = child.wait().expect("wait");
    let list: Value = serde_json::from_str(&answers[1]).expect("tools/list answer");
    assert!(
        list["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{answers:?}"
    );
    assert!(status.success(), "{status:?}");
}

#[test]
fn call_reads_arguments_from_stdin_and_from_a_file() {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path().to_str().expect("utf-8");
    // A megabyte of content: too much for argv on some systems, fine on stdin or in a file.
    let content = "x".repeat(1 << 20);
    let arguments =
        json!({"action": "update", "prompt_type": "system", "content": content}).to_string();
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .args([
            "--root",
            root,
            "--agent",
            "ada",
            "call",
            "prompt_manager",
            "-",
        ])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(arguments.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    // The whole megabyte arrived: the tool itself refuses it, counting every character.
    assert_eq!(out.status.code(), Some(1), "{v}");
    assert!(
        v["error"]
            .as_str()
            .is_some_and(|e| e.contains("1,048,576 characters")),
        "{v}"
    );

    let file = dir.path().join("args.json");
    std::fs::write(
        &file,
        json!({"action": "view", "prompt_type": "system"}).to_string(),
    )
    .expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .args([
            "--root",
            root,
            "--agent",
            "ada",
            "call",
            "prompt_manager",
            "--args-file",
        ])
        .arg(&file)
        .current_dir(dir.path())
        .output()
        .expect("run");
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(v["type"], "view_result", "{v}");

    // Both at once, or a missing file: usage errors.
    let out = Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .args(["call", "prompt_manager", "{}", "--args-file"])
        .arg(&file)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let out = Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .args([
            "call",
            "prompt_manager",
            "--args-file",
            "/nonexistent/args.json",
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
}

const LOAD: u64 = 1000;

/// Every answer of `n` calls numbered 0..n came back once.
fn check_answers(answers: &[u64]) {
    assert_eq!(answers.len() as u64, LOAD, "all answered");
    let unique: HashSet<u64> = answers.iter().copied().collect();
    assert_eq!(unique.len() as u64, LOAD, "none duplicated");
    assert!((0..LOAD).all(|i| unique.contains(&i)), "none lost");
}

fn echo_n(r: &rmcp::model::CallToolResult) -> u64 {
    assert_eq!(r.is_error, Some(false), "{r:?}");
    r.structured_content
        .as_ref()
        .and_then(|s| s["n"].as_u64())
        .expect("n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_1000_calls_over_one_stdio_session() {
    // The example server, whose `convert` answers each call; the value carries the number.
    let server = example("mcp_server");
    let cmd = tokio::process::Command::new(server);
    let client = ().serve(TokioChildProcess::new(cmd).expect("spawn")).await.expect("initialize");
    let client = std::sync::Arc::new(client);
    let mut set = tokio::task::JoinSet::new();
    for i in 0..LOAD {
        let c = client.clone();
        set.spawn(async move {
            let r = c
                .call_tool(
                    CallToolRequestParams::new("convert").with_arguments(args(
                        json!({"value": i, "from": "kelvin", "to": "kelvin"}),
                    )),
                )
                .await
                .expect("answered");
            assert_eq!(r.is_error, Some(false), "{r:?}");
            r.structured_content
                .as_ref()
                .and_then(|s| s["value"].as_f64())
                .expect("value") as u64
        });
    }
    let answers: Vec<u64> = set.join_all().await;
    check_answers(&answers);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_1000_calls_over_http_from_8_clients() {
    init_tls();
    let url = start_http(test_runtime(), ServeOptions::new("load")).await;
    let mut set = tokio::task::JoinSet::new();
    for client in 0..8u64 {
        let url = url.clone();
        set.spawn(async move {
            let c =
                ().serve(StreamableHttpClientTransport::from_uri(url.as_str()))
                    .await
                    .expect("initialize");
            let mut got = Vec::new();
            // 125 calls each, 25 in flight at a time.
            for chunk in (0..125u64).collect::<Vec<_>>().chunks(25) {
                let calls = chunk.iter().map(|k| {
                    let n = client * 125 + k;
                    c.call_tool(
                        CallToolRequestParams::new("echo")
                            .with_arguments(args(json!({"n": n, "colour": "red"}))),
                    )
                });
                for r in futures_join_all(calls).await {
                    got.push(echo_n(&r.expect("answered")));
                }
            }
            c.cancel().await.expect("close");
            got
        });
    }
    let answers: Vec<u64> = set.join_all().await.into_iter().flatten().collect();
    check_answers(&answers);
}

/// Awaits every future, in order (no extra dependency for `join_all`).
async fn futures_join_all<F: std::future::Future>(
    futs: impl IntoIterator<Item = F>,
) -> Vec<F::Output> {
    let mut out = Vec::new();
    let handles: Vec<_> = futs.into_iter().map(Box::pin).collect();
    // Poll them concurrently through a JoinSet-free select: a local set of pinned futures.
    let mut pending: Vec<_> = handles.into_iter().map(Some).collect();
    let mut results: Vec<Option<F::Output>> = (0..pending.len()).map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut all = true;
        for (i, slot) in pending.iter_mut().enumerate() {
            if let Some(f) = slot {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => {
                        results[i] = Some(v);
                        *slot = None;
                    }
                    std::task::Poll::Pending => all = false,
                }
            }
        }
        if all {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
    out.extend(results.into_iter().flatten());
    out
}
