//! What the MCP tests share: test tools registered by hand, an in-process HTTP server, the
//! real clients (the Python `mcp` package, the MCP Inspector) and how to find them, the built
//! examples, a 2026-07-28 request's `_meta`, and a SearXNG stand-in on loopback.
//!
//! The facade's tests and the command's (toolsmith-cli's, which include this file by path and
//! add the `toolsmith serve` process) both use it; [`repo`] is each test binary's own.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use toolsmith::mcp::{HttpServer, ServeOptions};
use toolsmith::{Action, Registry, Render, Runtime, ToolContext, ToolResult, tool};

use crate::support::repo;

/// What the slow test tool saw: how many calls were stopped with their token fired.
#[derive(Default)]
pub struct Seen {
    pub cancelled: AtomicUsize,
}

static SEEN: std::sync::OnceLock<Arc<Seen>> = std::sync::OnceLock::new();

pub fn seen() -> Arc<Seen> {
    SEEN.get_or_init(Default::default).clone()
}

/// The tests that cancel the slow tool count its cancellations in [`seen`], shared by the
/// binary: they take turns.
pub static CANCELLATIONS: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Ticks {
    pub ticks: u32,
}
impl Render for Ticks {}

struct Guard(tokio_util::sync::CancellationToken, bool);
impl Drop for Guard {
    fn drop(&mut self) {
        if !self.1 && self.0.is_cancelled() {
            seen().cancelled.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// Tick a number of times, streaming a chunk and a progress message per tick.
#[tool(name = "slow", read_only, register = false)]
async fn slow(
    ctx: &ToolContext,
    /// How many ticks (at most 500).
    ticks: u32,
    /// Milliseconds per tick (at most 1000).
    ms: u64,
) -> ToolResult<Ticks> {
    let mut guard = Guard(ctx.cancellation().clone(), false);
    for i in 0..ticks.min(500) {
        ctx.emit_chunk(format!("chunk {i}\n"));
        ctx.progress(format!("tick {i}"));
        tokio::time::sleep(Duration::from_millis(ms.min(1000))).await;
    }
    guard.1 = true;
    Ok(Ticks { ticks })
}

/// A colour.
#[derive(Action, Clone, Copy)]
pub enum Colour {
    /// Red.
    Red,
    /// Green.
    Green,
    /// Blue.
    Blue,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Echoed {
    pub n: u64,
    pub colour: String,
}
impl Render for Echoed {}

/// Echo a number and a colour.
#[tool(name = "echo", read_only, idempotent, register = false)]
async fn echo(
    /// Any number.
    n: u64,
    /// A colour.
    colour: Colour,
) -> ToolResult<Echoed> {
    let colour = match colour {
        Colour::Red => "red",
        Colour::Green => "green",
        Colour::Blue => "blue",
    };
    Ok(Echoed {
        n,
        colour: colour.to_owned(),
    })
}

/// Forget something (needs approval).
#[tool(name = "forget", destructive, requires_approval, register = false)]
async fn forget(
    /// What to forget.
    what: String,
) -> ToolResult<Echoed> {
    Ok(Echoed {
        n: what.len() as u64,
        colour: String::new(),
    })
}

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Count {
    pub count: u64,
}
impl Render for Count {}

/// Count this session's calls (the count lives in the tool session's state).
#[tool(name = "count", register = false)]
async fn count(ctx: &ToolContext) -> ToolResult<Count> {
    Ok(Count {
        count: ctx.session().increment("count"),
    })
}

/// A runtime with the hand-registered test tools, no redundancy check (the load test sends
/// many identical calls and every one must run).
pub fn test_runtime() -> Runtime {
    let registry = test_tools().build().expect("registry");
    Runtime::builder(registry)
        .dedupe(false)
        .max_concurrent(256)
        .build()
}

/// The hand-registered test tools: `slow`, `echo`, `forget` (needs approval) and `count`.
pub fn test_tools() -> toolsmith::RegistryBuilder {
    Registry::builder()
        .register(SlowTool)
        .register(EchoTool)
        .register(ForgetTool)
        .register(CountTool)
}

/// A tool call's arguments for rmcp's client.
pub fn args(v: Value) -> rmcp::model::JsonObject {
    v.as_object().expect("object").clone()
}

/// Starts an in-process HTTP server on an ephemeral loopback port; returns its endpoint.
pub async fn start_http(runtime: Runtime, options: ServeOptions) -> String {
    let server = HttpServer::bind("127.0.0.1:0".parse().expect("addr"), runtime, options)
        .await
        .expect("bind");
    let url = server.endpoint().expect("endpoint");
    tokio::spawn(server.run());
    url
}

/// The Python of the venv `.ci/run` makes (`target/mcp-venv`, or `TOOLSMITH_MCP_VENV`), if it
/// has the `mcp` package; else prints why the test skips.
pub fn python() -> Option<PathBuf> {
    let venv = std::env::var_os("TOOLSMITH_MCP_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target").join("mcp-venv"));
    let py = venv.join("bin").join("python");
    let ok = Command::new(&py)
        .args(["-c", "import mcp"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!(
            "SKIPPED: no Python `mcp` client at {} (`.ci/run` installs it: python3 -m venv \
             target/mcp-venv && target/mcp-venv/bin/pip install mcp==2.3.0)",
            py.display()
        );
        return None;
    }
    Some(py)
}

/// The MCP Inspector CLI `.ci/run` installs under `target/mcp-inspector`, if there.
pub fn inspector() -> Option<PathBuf> {
    let bin = repo().join("target/mcp-inspector/node_modules/.bin/mcp-inspector");
    let node = Command::new("node")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !node || !bin.exists() {
        eprintln!(
            "SKIPPED: no MCP Inspector at {} (`.ci/run` installs it: npm install --prefix \
             target/mcp-inspector @modelcontextprotocol/inspector)",
            bin.display()
        );
        return None;
    }
    Some(bin)
}

/// An example's binary (of the facade, `toolsmith`): next to the test binary's directory,
/// built if missing.
pub fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    let debug = exe.parent().and_then(Path::parent).expect("target dir");
    let path = debug.join("examples").join(name);
    if !path.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let status = Command::new(cargo)
            .args(["build", "--quiet", "--all-features", "-p", "toolsmith"])
            .args(["--example", name])
            .current_dir(repo())
            .status()
            .expect("cargo build --example");
        assert!(status.success(), "building example {name} failed");
    }
    path
}

/// Runs the Python client over `transport` args with `steps` (opening with `initialize`); the
/// answers, one per step.
pub fn run_python(
    py: &Path,
    transport: &[&str],
    steps: &Value,
    dir: &Path,
) -> (Vec<Value>, String) {
    let (_, answers, stderr) = run_python_as(py, false, transport, steps, dir);
    (answers, stderr)
}

/// [`run_python`], opening with `server/discover` (protocol 2026-07-28) when `discover`; also
/// the protocol version the client then spoke.
pub fn run_python_as(
    py: &Path,
    discover: bool,
    transport: &[&str],
    steps: &Value,
    dir: &Path,
) -> (String, Vec<Value>, String) {
    let mut child = Command::new(py)
        .arg(repo().join("tests/mcp/client.py"))
        .args(discover.then_some("--discover"))
        .args(transport)
        .current_dir(dir)
        .env_remove("SEARXNG_URL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn python");
    {
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all(steps.to_string().as_bytes())
            .expect("write steps");
    }
    let out: Output = child.wait_with_output().expect("python");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "the Python client failed: {}\nstdout: {}",
        stderr,
        String::from_utf8_lossy(&out.stdout)
    );
    let mut answers: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("answer line is JSON"))
        .collect();
    assert!(!answers.is_empty(), "no protocol line: {stderr}");
    let protocol = answers.remove(0)["protocol"]
        .as_str()
        .expect("the protocol line first")
        .to_owned();
    (protocol, answers, stderr)
}

/// The `_meta` every 2026-07-28 request carries in place of a session.
pub fn meta_2026(client: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": client, "version": "1"},
    })
}

/// rmcp's HTTP client is reqwest built without a default TLS provider (as the workspace
/// builds it); loopback needs no TLS, but reqwest wants a provider installed to build.
pub fn init_tls() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// A SearXNG instance on loopback answering every search with one result; how many it got.
pub fn searxng() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/", listener.local_addr().expect("addr"));
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = Vec::new();
            let mut buf = [0u8; 4096];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => request.extend_from_slice(&buf[..n]),
                }
            }
            seen.fetch_add(1, Ordering::SeqCst);
            let body = json!({"number_of_results": 1, "results": [
                {"url": "https://example.com/", "title": "Example", "content": "An example."}
            ]})
            .to_string();
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body.as_bytes());
        }
    });
    (url, count)
}
