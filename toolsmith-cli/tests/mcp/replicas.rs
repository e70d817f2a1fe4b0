//! Two `toolsmith serve --http` replicas on one workspace behind a round-robin proxy (each
//! connection to the next replica), spoken to as MCP 2026-07-28 has it, without sessions:
//!
//! - a read through one replica and an edit through the other with a stale `expected_version`
//!   is refused; with the current version it is applied, once;
//! - 8 clients × 100 mixed calls (writes carrying the version of their last write, reads,
//!   greps, a shared file) through the proxy are all answered right, by both replicas.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};

use crate::support::http::{Http, addr_of, mcp_headers, message, send};
use crate::support::mcp::{ServeProcess, meta_2026};

const CLIENTS: usize = 8;
const CALLS: usize = 100;

/// A loopback TCP proxy handing each connection to the next backend in turn; how many
/// connections each backend got.
pub(crate) struct Proxy {
    pub(crate) addr: String,
    pub(crate) served: Arc<[AtomicUsize; 2]>,
}

impl Proxy {
    pub(crate) fn start(backends: [String; 2]) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("addr").to_string();
        let served = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
        let counts = served.clone();
        std::thread::spawn(move || {
            for (n, client) in listener.incoming().enumerate() {
                let Ok(client) = client else { continue };
                let which = n % 2;
                counts[which].fetch_add(1, Ordering::SeqCst);
                let Ok(backend) = TcpStream::connect(&backends[which]) else {
                    continue;
                };
                pipe(&client, &backend);
                pipe(&backend, &client);
            }
        });
        Proxy { addr, served }
    }
}

/// Copies `from` to `to` on a thread of its own, then closes `to`'s writing half.
fn pipe(from: &TcpStream, to: &TcpStream) {
    let (mut from, mut to) = (
        from.try_clone().expect("clone"),
        to.try_clone().expect("clone"),
    );
    std::thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        loop {
            match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if to.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
            }
        }
        let _ = to.shutdown(Shutdown::Write);
    });
}

/// A `tools/call` as a 2026-07-28 client sends it (its own `_meta`, no session), through
/// `addr`; the JSON-RPC result.
pub(crate) fn call(addr: &str, tool: &str, arguments: Value) -> Value {
    let mut headers = mcp_headers("2026-07-28", None);
    headers.extend([("Mcp-Method", "tools/call"), ("Mcp-Name", tool)]);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": tool, "arguments": arguments, "_meta": meta_2026("replica-test"),
    }});
    let answer = Http::read(send(addr, "POST", "/mcp", &headers, &body.to_string()));
    assert_eq!(answer.status, 200, "{tool}: {}", answer.body);
    let message: Value = serde_json::from_str(message(&answer.body)).expect("JSON");
    message["result"].clone()
}

pub(crate) fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().expect("text")
}

pub(crate) fn ok(result: &Value) -> &Value {
    assert_ne!(result["isError"], true, "{result}");
    &result["structuredContent"]
}

fn version_of(content: &str) -> String {
    toolsmith::std_tools::workspace::Version::of(content.as_bytes()).to_string()
}

/// Two replicas on `dir`, edits approved, and the proxy in front of them.
fn replicas(dir: &Path) -> (ServeProcess, ServeProcess, Proxy) {
    let a = ServeProcess::http(dir, &["--approve"]);
    let b = ServeProcess::http(dir, &["--approve"]);
    let proxy = Proxy::start([addr_of(&a), addr_of(&b)]);
    (a, b, proxy)
}

#[test]
fn an_edit_through_the_other_replica_is_checked_against_the_version_read() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("a.txt"), "one\n").expect("write");
    let (a, b, proxy) = replicas(dir.path());
    let (a, b) = (addr_of(&a), addr_of(&b));

    // Read through one replica; the file changes on disk; edit through the other.
    let read = ok(&call(&a, "read_file", json!({"paths": ["a.txt"]}))).clone();
    let v1 = read["files"][0]["version"]
        .as_str()
        .expect("version")
        .to_owned();
    assert_eq!(v1, version_of("one\n"));
    std::fs::write(dir.path().join("a.txt"), "two\n").expect("write");
    let edit = |version: &str| json!({"path": "a.txt", "find": "two", "replace": "2", "expected_version": version});
    let refused = call(&b, "replace_in_file", edit(&v1));
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(
        text(&refused).contains("modified since read")
            && text(&refused).contains(&version_of("two\n")),
        "{refused}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).expect("a"),
        "two\n"
    );

    // With the current version it applies, once: the same edit again is stale.
    let v2 = version_of("two\n");
    let applied = ok(&call(&b, "replace_in_file", edit(&v2))).clone();
    assert_eq!(applied["version"], version_of("2\n"), "{applied}");
    let again = call(&a, "replace_in_file", edit(&v2));
    assert_eq!(again["isError"], true, "{again}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).expect("a"),
        "2\n"
    );

    // The same through the proxy, whichever replica each request reaches.
    let read = ok(&call(&proxy.addr, "read_file", json!({"paths": ["a.txt"]}))).clone();
    let v3 = read["files"][0]["version"]
        .as_str()
        .expect("version")
        .to_owned();
    let edit = json!({"path": "a.txt", "content": "three\n", "expected_version": v3});
    ok(&call(&proxy.addr, "update_file", edit.clone()));
    let stale = call(&proxy.addr, "update_file", edit);
    assert_eq!(stale["isError"], true, "{stale}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).expect("a"),
        "three\n"
    );
}

/// One client's 100 calls on its own file (and a shared one), each checked.
fn client(addr: &str, n: usize) {
    let path = format!("c{n}.txt");
    let first = format!("client {n} call 0\n");
    let made = ok(&call(
        addr,
        "create_file",
        json!({"path": path, "content": first}),
    ))
    .clone();
    let mut content = first;
    let mut version = made["version"].as_str().expect("version").to_owned();
    assert_eq!(version, version_of(&content));
    for i in 1..CALLS {
        match i % 4 {
            0 => {
                let next = format!("client {n} call {i}\n");
                let args = json!({"path": path, "content": next, "expected_version": version});
                let written = ok(&call(addr, "update_file", args)).clone();
                content = next;
                version = written["version"].as_str().expect("version").to_owned();
                assert_eq!(version, version_of(&content), "client {n} call {i}");
            }
            1 => {
                let read = ok(&call(addr, "read_file", json!({"paths": [path]}))).clone();
                let file = &read["files"][0];
                assert_eq!(file["version"], version, "client {n} call {i}");
                assert_eq!(file["content"], content, "client {n} call {i}");
            }
            2 => {
                let pattern = format!("client {n} call");
                let found = call(addr, "grep", json!({"pattern": pattern, "path": path}));
                ok(&found);
                assert!(
                    text(&found).contains(content.trim_end()),
                    "client {n} call {i}: {found}"
                );
            }
            _ => {
                let read = ok(&call(addr, "read_file", json!({"paths": ["shared.txt"]}))).clone();
                assert_eq!(
                    read["files"][0]["content"], "shared\n",
                    "client {n} call {i}"
                );
            }
        }
    }
}

#[test]
fn eight_clients_times_a_hundred_calls_through_two_replicas_are_all_answered_right() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("shared.txt"), "shared\n").expect("write");
    let (_a, _b, proxy) = replicas(dir.path());
    let clients: Vec<_> = (0..CLIENTS)
        .map(|n| {
            let addr = proxy.addr.clone();
            std::thread::spawn(move || client(&addr, n))
        })
        .collect();
    for (n, c) in clients.into_iter().enumerate() {
        c.join().unwrap_or_else(|_| panic!("client {n} failed"));
    }
    let served = [0, 1].map(|i| proxy.served[i].load(Ordering::SeqCst));
    assert_eq!(served[0] + served[1], CLIENTS * CALLS);
    assert!(
        served.iter().all(|&s| s >= CLIENTS * CALLS / 3),
        "both replicas served: {served:?}"
    );
    for n in 0..CLIENTS {
        let last = (CALLS - 1) / 4 * 4;
        assert_eq!(
            std::fs::read_to_string(dir.path().join(format!("c{n}.txt"))).expect("file"),
            format!("client {n} call {last}\n")
        );
    }
}
