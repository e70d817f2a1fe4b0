//! Answers that hold under every protocol version, with real clients: rmcp's client under
//! 2025-06-18, 2025-11-25 and 2026-07-28 and the Python `mcp` client under 2025-11-25 and
//! 2026-07-28, each over stdio and streamable HTTP, run one scenario (steps as data):
//!
//! - read, change on disk, read again: the change shows;
//! - change on disk, edit without `expected_version`: refused, `modified since read`
//!   (the record of reads is the workspace's, not the connection's);
//! - edit with a stale `expected_version`: refused; with the current one: applied;
//! - 11 searches in a 2-second window: the 11th refused saying when to retry, allowed again
//!   once the window has moved on.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation, ProtocolVersion,
};
use rmcp::service::{Peer, RoleClient, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientLifecycleMode, ClientServiceExt, ServiceExt};
use serde_json::{Value, json};

use crate::support::mcp::{ServeProcess, args, init_tls, python, run_python_as, searxng};

/// The search window the servers are started with, in seconds.
const WINDOW_SECS: u64 = 2;

/// The version `read_file` gives `content`.
fn version_of(content: &str) -> String {
    toolsmith::std_tools::workspace::Version::of(content.as_bytes()).to_string()
}

/// The server's options: edits approved (as the host's user would), a loopback SearXNG and a
/// short search window.
fn server_args(searx: &str) -> Vec<String> {
    let window = WINDOW_SECS.to_string();
    [
        "--approve",
        "--searxng-url",
        searx,
        "--allow-host",
        "127.0.0.1",
    ]
    .into_iter()
    .chain(["--search-window", window.as_str()])
    .map(str::to_owned)
    .collect()
}

fn call(name: &str, arguments: Value) -> Value {
    json!({"op": "call", "name": name, "arguments": arguments})
}

fn write(dir: &Path, content: &str) -> Value {
    json!({"op": "write", "path": dir.join("a.txt"), "content": content})
}

fn search(n: usize) -> Value {
    call(
        "web",
        json!({"action": "search", "query_or_url": format!("query {n}")}),
    )
}

/// The scenario's steps, for a workspace `dir` whose `a.txt` holds "one\n".
fn steps(dir: &Path) -> Value {
    let read = call("read_file", json!({"paths": ["a.txt"]}));
    let replace = json!({"path": "a.txt", "find": "three", "replace": "3"});
    let with = |version: &str| {
        let mut args = replace.clone();
        args["expected_version"] = json!(version);
        call("replace_in_file", args)
    };
    let mut steps = vec![
        read.clone(),
        write(dir, "two\n"),
        read.clone(),
        write(dir, "three\n"),
        call("replace_in_file", replace.clone()),
        with(&version_of("two\n")),
        with(&version_of("three\n")),
        read,
    ];
    steps.extend((1..=11).map(search));
    steps.push(json!({"op": "sleep", "seconds": WINDOW_SECS as f64 + 0.5}));
    steps.push(search(12));
    json!(steps)
}

fn ok(answer: &Value) -> &str {
    assert_eq!(answer["isError"], false, "{answer}");
    answer["text"].as_str().expect("text")
}

fn refused(answer: &Value) -> &str {
    assert_eq!(answer["isError"], true, "{answer}");
    answer["text"].as_str().expect("text")
}

/// Checks the answers to [`steps`], the file left on disk and what SearXNG was asked.
fn check(answers: &[Value], dir: &Path, searches: &AtomicUsize, who: &str) {
    assert_eq!(answers.len(), 21, "{who}: {answers:#?}");
    let file_version = |answer: &Value| answer["structured"]["files"][0]["version"].clone();
    // Read, change on disk, read again: the change shows.
    assert!(ok(&answers[0]).contains("one"), "{who}");
    assert_eq!(file_version(&answers[0]), version_of("one\n"), "{who}");
    let second = ok(&answers[2]);
    assert!(
        second.contains("two") && !second.contains("one"),
        "{who}: {second}"
    );
    assert_eq!(file_version(&answers[2]), version_of("two\n"), "{who}");
    // Changed on disk since read: an edit without a version is refused by the record.
    let text = refused(&answers[4]);
    assert!(text.contains("modified since read"), "{who}: {text}");
    // A stale version is refused and names the current one; the current one applies.
    let text = refused(&answers[5]);
    assert!(text.contains("modified since read"), "{who}: {text}");
    assert!(text.contains(&version_of("three\n")), "{who}: {text}");
    let text = ok(&answers[6]);
    assert!(
        text.contains(&version_of("3\n")),
        "{who}: the new version: {text}"
    );
    assert!(ok(&answers[7]).contains('3'), "{who}");
    assert_eq!(file_version(&answers[7]), version_of("3\n"), "{who}");
    assert_eq!(
        std::fs::read_to_string(dir.join("a.txt")).expect("a.txt"),
        "3\n",
        "{who}: applied once"
    );
    // Ten searches, the eleventh refused saying when, the next allowed after the window.
    for (n, answer) in answers[8..18].iter().enumerate() {
        assert!(
            ok(answer).contains("example.com"),
            "{who}: search {}",
            n + 1
        );
    }
    let text = refused(&answers[18]);
    assert!(
        text.contains("Search limit reached (10 searches per 2 s on this server).")
            && text.contains("The next search is allowed in "),
        "{who}: {text}"
    );
    assert_eq!(answers[19]["slept"], true);
    ok(&answers[20]);
    assert_eq!(
        searches.load(Ordering::SeqCst),
        11,
        "{who}: refused sent none"
    );
}

/// A workspace with `a.txt` and a SearXNG stand-in.
fn setup() -> (tempfile::TempDir, String, std::sync::Arc<AtomicUsize>) {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("a.txt"), "one\n").expect("write");
    let (url, count) = searxng();
    (dir, url, count)
}

// rmcp's client.

/// Runs `steps` with rmcp's client, answering each as the Python client does.
async fn run_rmcp(client: &Peer<RoleClient>, steps: &Value) -> Vec<Value> {
    let mut answers = Vec::new();
    for step in steps.as_array().expect("steps") {
        let answer = match step["op"].as_str().expect("op") {
            "call" => {
                let name = step["name"].as_str().expect("name").to_owned();
                let params = CallToolRequestParams::new(name)
                    .with_arguments(args(step["arguments"].clone()));
                let r = client.call_tool(params).await.expect("call");
                let text: String = r
                    .content
                    .iter()
                    .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
                    .collect();
                json!({"isError": r.is_error == Some(true), "text": text,
                       "structured": r.structured_content})
            }
            "write" => {
                let path = step["path"].as_str().expect("path");
                std::fs::write(path, step["content"].as_str().expect("content")).expect("write");
                json!({"written": true})
            }
            "sleep" => {
                let seconds = step["seconds"].as_f64().expect("seconds");
                tokio::time::sleep(std::time::Duration::from_secs_f64(seconds)).await;
                json!({"slept": true})
            }
            op => panic!("unknown op {op}"),
        };
        answers.push(answer);
    }
    answers
}

/// Connects rmcp's client speaking `version` over `transport`: `initialize` for the versions
/// that have it, `server/discover` for 2026-07-28. Checks the version agreed.
async fn connect<T, E, A>(
    version: &ProtocolVersion,
    transport: T,
) -> RunningService<RoleClient, ClientConfig>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let config = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("toolsmith-tests", "1"),
    )
    .with_protocol_version(version.clone());
    let client = if *version >= ProtocolVersion::V_2026_07_28 {
        let lifecycle = ClientLifecycleMode::Discover {
            preferred_versions: vec![version.clone()],
        };
        config.serve_with_lifecycle(transport, lifecycle).await
    } else {
        config.serve(transport).await
    }
    .unwrap_or_else(|e| panic!("connect under {version}: {e}"));
    let agreed = client
        .peer_info()
        .expect("peer info")
        .protocol_version
        .clone();
    assert_eq!(agreed, *version, "the version spoken");
    client
}

async fn rmcp_over_stdio(version: ProtocolVersion) {
    let (dir, searx, count) = setup();
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_toolsmith"));
    cmd.arg("--root")
        .arg(dir.path())
        .args(server_args(&searx))
        .arg("serve")
        .current_dir(dir.path())
        .env_remove("SEARXNG_URL");
    let transport = TokioChildProcess::new(cmd).expect("spawn");
    let client = connect(&version, transport).await;
    let answers = run_rmcp(client.peer(), &steps(dir.path())).await;
    check(
        &answers,
        dir.path(),
        &count,
        &format!("rmcp stdio {version}"),
    );
    client.cancel().await.expect("close");
}

async fn rmcp_over_http(version: ProtocolVersion) {
    init_tls();
    let (dir, searx, count) = setup();
    let extra = server_args(&searx);
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    let server = ServeProcess::http(dir.path(), &extra);
    let transport = StreamableHttpClientTransport::from_uri(server.url.as_str());
    let client = connect(&version, transport).await;
    let answers = run_rmcp(client.peer(), &steps(dir.path())).await;
    check(
        &answers,
        dir.path(),
        &count,
        &format!("rmcp http {version}"),
    );
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_client_over_stdio_under_2025_06_18() {
    rmcp_over_stdio(ProtocolVersion::V_2025_06_18).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_client_over_stdio_under_2025_11_25() {
    rmcp_over_stdio(ProtocolVersion::V_2025_11_25).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_client_over_stdio_under_2026_07_28() {
    rmcp_over_stdio(ProtocolVersion::V_2026_07_28).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_client_over_http_under_2025_06_18() {
    rmcp_over_http(ProtocolVersion::V_2025_06_18).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_client_over_http_under_2025_11_25() {
    rmcp_over_http(ProtocolVersion::V_2025_11_25).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_client_over_http_under_2026_07_28() {
    rmcp_over_http(ProtocolVersion::V_2026_07_28).await;
}

// The Python `mcp` client.

fn python_over(discover: bool, http: bool) {
    let Some(py) = python() else { return };
    let (dir, searx, count) = setup();
    let mut server = None;
    let bin = env!("CARGO_BIN_EXE_toolsmith");
    let root = dir.path().to_str().expect("utf-8");
    let mut transport: Vec<String> = Vec::new();
    if http {
        let extra = server_args(&searx);
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        let s = ServeProcess::http(dir.path(), &extra);
        transport.extend(["http".to_owned(), s.url.clone()]);
        server = Some(s);
    } else {
        transport.extend(["stdio", bin, "--root", root].map(str::to_owned));
        transport.extend(server_args(&searx));
        transport.push("serve".to_owned());
    }
    let transport: Vec<&str> = transport.iter().map(String::as_str).collect();
    let (protocol, answers, stderr) =
        run_python_as(&py, discover, &transport, &steps(dir.path()), dir.path());
    let expected = if discover { "2026-07-28" } else { "2025-11-25" };
    assert_eq!(protocol, expected, "{stderr}");
    let who = format!("python {} {protocol}", if http { "http" } else { "stdio" });
    check(&answers, dir.path(), &count, &who);
    drop(server);
}

#[test]
fn python_client_over_stdio_under_2025_11_25() {
    python_over(false, false);
}

#[test]
fn python_client_over_stdio_under_2026_07_28() {
    python_over(true, false);
}

#[test]
fn python_client_over_http_under_2025_11_25() {
    python_over(false, true);
}

#[test]
fn python_client_over_http_under_2026_07_28() {
    python_over(true, true);
}
