//! Test tools, a loopback server and a Server-Sent Events client shared by the activity tests
//! and benchmark.
#![allow(dead_code, unreachable_pub)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpSocket, TcpStream};
use tokio_util::sync::CancellationToken;
use tool_core::http::activity::{Activity, ActivityConfig};
use tool_core::{Registry, Render, Runtime, Tool, ToolContext, ToolError, ToolSpec};

// ---------------------------------------------------------------------------------------------
// Tools.

/// Arguments of `echo`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EchoArgs {
    /// The text to send back.
    pub text: String,
}

/// Output of `echo` and `html`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Text {
    pub text: String,
}
impl Render for Text {}

/// Sends the text back (toolset `demo`).
pub struct Echo;

impl Tool for Echo {
    type Input = EchoArgs;
    type Output = Text;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("echo", "Send the text back.").toolset("demo")
    }
    async fn call(&self, _: &ToolContext, args: EchoArgs) -> Result<Text, ToolError> {
        Ok(Text { text: args.text })
    }
}

/// The markup `html` answers with: it must show as text, never run.
pub const HOSTILE: &str =
    "<script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\"><b>bold?</b>";

/// Answers with markup, in a chunk and in the result (toolset `demo`).
pub struct Html;

impl Tool for Html {
    type Input = tool_core::NoArgs;
    type Output = Text;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("html", "Answer with markup.").toolset("demo")
    }
    async fn call(&self, ctx: &ToolContext, _: tool_core::NoArgs) -> Result<Text, ToolError> {
        ctx.emit_chunk(HOSTILE);
        Ok(Text {
            text: HOSTILE.into(),
        })
    }
}

/// Arguments of `chunks`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ChunksArgs {
    /// How many chunks.
    pub n: usize,
    /// How many bytes each.
    #[serde(default)]
    pub size: usize,
}

/// Output of `chunks`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Count {
    pub count: usize,
}
impl Render for Count {}

/// Emits `n` chunks at once (toolset `load`).
pub struct Chunks;

impl Tool for Chunks {
    type Input = ChunksArgs;
    type Output = Count;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("chunks", "Emit chunks.").toolset("load")
    }
    async fn call(&self, ctx: &ToolContext, args: ChunksArgs) -> Result<Count, ToolError> {
        let pad = "x".repeat(args.size);
        for i in 0..args.n {
            ctx.emit_chunk(format!("{i} {pad}\n"));
        }
        Ok(Count { count: args.n })
    }
}

/// Ends the `stream` tool's call when cancelled.
#[derive(Debug, Default)]
pub struct Gate(pub CancellationToken);

/// Arguments of `stream`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct StreamArgs {
    /// The most lines to print.
    pub lines: usize,
}

/// Prints `line N` every 100 ms, like a shell command, until it has printed `lines` lines or
/// the [`Gate`] service is cancelled (toolset `shell`).
pub struct Stream;

impl Tool for Stream {
    type Input = StreamArgs;
    type Output = Count;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("stream", "Print a line every 100 ms.").toolset("shell")
    }
    async fn call(&self, ctx: &ToolContext, args: StreamArgs) -> Result<Count, ToolError> {
        let gate = ctx
            .service::<Gate>()
            .map(|g| g.0.clone())
            .unwrap_or_default();
        ctx.progress("Running the command");
        let mut printed = 0;
        while printed < args.lines {
            printed += 1;
            ctx.emit_chunk(format!("line {printed}\n"));
            tokio::select! {
                () = gate.cancelled() => break,
                () = tokio::time::sleep(Duration::from_millis(100)) => {}
            }
        }
        Ok(Count { count: printed })
    }
}

/// Lets the `steps` tool take its next step: one permit a step.
#[derive(Debug)]
pub struct Steps(pub tokio::sync::Semaphore);

impl Default for Steps {
    fn default() -> Self {
        Steps(tokio::sync::Semaphore::new(0))
    }
}

impl Steps {
    /// Lets the tool take one more step.
    pub fn advance(&self) {
        self.0.add_permits(1);
    }
}

/// Output of `steps`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Indexed {
    pub files: Vec<String>,
}
impl Render for Indexed {
    fn status(&self) -> Option<String> {
        Some(format!("Indexed {} files", self.files.len()))
    }
    fn render(&self, _: &mut tool_core::ResourcesTracker) -> Option<String> {
        Some(format!("indexed: {}", self.files.join(", ")))
    }
}

/// Works in two steps the [`Steps`] service lets it take, changing its activity's data as it
/// goes: `phase` and a `scratch` field first, then `phase` again and `files`, `scratch`
/// deleted and the display message cleared (toolset `demo`).
pub struct StepsTool;

impl Tool for StepsTool {
    type Input = tool_core::NoArgs;
    type Output = Indexed;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("steps", "Index in two steps.").toolset("demo")
    }
    async fn call(&self, ctx: &ToolContext, _: tool_core::NoArgs) -> Result<Indexed, ToolError> {
        let steps = ctx.require_service::<Steps>()?;
        let field = |k: &str, v: Value| {
            let mut m = serde_json::Map::new();
            m.insert(k.to_owned(), v);
            m
        };
        ctx.progress("Scanning the tree");
        ctx.update_data(field("phase", Value::from("scanning")));
        ctx.update_data(field("scratch", Value::from("/tmp/steps.partial")));
        let step = steps
            .0
            .acquire()
            .await
            .map_err(|_| ToolError::system("the steps were closed"))?;
        step.forget();
        ctx.update_data(field("phase", Value::from("indexing")));
        ctx.update_data(field("files", Value::from(3)));
        ctx.delete_data(["scratch"]);
        ctx.clear_display_message();
        let step = steps
            .0
            .acquire()
            .await
            .map_err(|_| ToolError::system("the steps were closed"))?;
        step.forget();
        Ok(Indexed {
            files: vec!["a.rs".into(), "b.rs".into(), "c.rs".into()],
        })
    }
}

/// A tool the page hides unless asked (`user_facing = false`).
pub struct Internal;

impl Tool for Internal {
    type Input = tool_core::NoArgs;
    type Output = Count;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("internal", "Bookkeeping.").user_facing(false)
    }
    async fn call(&self, _: &ToolContext, _: tool_core::NoArgs) -> Result<Count, ToolError> {
        Ok(Count { count: 0 })
    }
}

/// A runtime with every test tool and a [`Gate`].
pub fn runtime() -> (Runtime, Arc<Gate>) {
    let (rt, gate, _) = runtime_with_steps();
    (rt, gate)
}

/// A runtime with every test tool, a [`Gate`] and the [`Steps`] of the `steps` tool.
pub fn runtime_with_steps() -> (Runtime, Arc<Gate>, Arc<Steps>) {
    let registry = Registry::builder()
        .register(Echo)
        .register(Html)
        .register(Chunks)
        .register(Stream)
        .register(Internal)
        .register(StepsTool)
        .build()
        .expect("the test tools register");
    let gate = Arc::new(Gate::default());
    let steps = Arc::new(Steps::default());
    let rt = Runtime::builder(registry)
        .service(gate.clone())
        .service(steps.clone())
        .dedupe(false)
        .build();
    (rt, gate, steps)
}

// ---------------------------------------------------------------------------------------------
// Server.

/// Serves the activity routes of `runtime` on 127.0.0.1.
pub async fn serve(runtime: &Runtime, config: ActivityConfig) -> (SocketAddr, Activity) {
    let activity = Activity::with_config(runtime, config).expect("activity routes");
    let app: axum::Router = activity.router();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let addr = listener.local_addr().expect("local addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (addr, activity)
}

/// A plain GET: status, headers (lower-case names) and body.
pub async fn get(addr: SocketAddr, path: &str) -> (u16, Vec<(String, String)>, String) {
    let mut s = TcpStream::connect(addr).await.expect("connect");
    s.write_all(format!("GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").as_bytes())
        .await
        .expect("send");
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).await.expect("read");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    (status, headers, body.to_owned())
}

/// GET returning JSON.
pub async fn get_json(addr: SocketAddr, path: &str) -> (u16, Value) {
    let (status, _, body) = get(addr, path).await;
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

// ---------------------------------------------------------------------------------------------
// SSE client.

/// One Server-Sent Events message.
#[derive(Debug, Clone)]
pub struct Msg {
    /// `event:`, `message` when absent.
    pub event: String,
    /// `id:`.
    pub id: Option<String>,
    /// `data:` lines joined.
    pub data: String,
}

impl Msg {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap_or(Value::Null)
    }
}

/// A raw SSE client over one HTTP/1.0 connection (the body runs until the server closes).
pub struct SseClient {
    reader: BufReader<TcpStream>,
}

impl SseClient {
    /// Connects, sends the request and reads the response head; panics unless it is 200.
    pub async fn connect(addr: SocketAddr, last_event_id: Option<&str>) -> SseClient {
        Self::connect_with(addr, last_event_id, None).await
    }

    /// As [`connect`](Self::connect), with a small receive buffer when given (a slow reader).
    pub async fn connect_with(
        addr: SocketAddr,
        last_event_id: Option<&str>,
        recv_buffer: Option<u32>,
    ) -> SseClient {
        let socket = TcpSocket::new_v4().expect("socket");
        if let Some(n) = recv_buffer {
            socket.set_recv_buffer_size(n).expect("SO_RCVBUF");
        }
        let mut s = socket.connect(addr).await.expect("connect");
        let mut req = format!(
            "GET /activity/events HTTP/1.0\r\nHost: {addr}\r\nAccept: text/event-stream\r\n"
        );
        if let Some(id) = last_event_id {
            req.push_str(&format!("Last-Event-ID: {id}\r\n"));
        }
        req.push_str("\r\n");
        s.write_all(req.as_bytes()).await.expect("send");
        let mut reader = BufReader::new(s);
        let mut status = String::new();
        reader.read_line(&mut status).await.expect("status line");
        assert!(status.contains(" 200 "), "event stream refused: {status}");
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).await.expect("header");
            if line.trim().is_empty() {
                break;
            }
        }
        SseClient { reader }
    }

    /// The next message; `None` at the end of the stream.
    pub async fn next(&mut self) -> Option<Msg> {
        let (mut event, mut id, mut data) = (None, None, Vec::new());
        loop {
            let mut line = String::new();
            if self.reader.read_line(&mut line).await.ok()? == 0 {
                return None;
            }
            let line = line.trim_end_matches(['\r', '\n']);
            if line.is_empty() {
                if data.is_empty() && event.is_none() {
                    continue; // a keep-alive comment's end, or a retry-only message
                }
                return Some(Msg {
                    event: event.unwrap_or_else(|| "message".into()),
                    id,
                    data: data.join("\n"),
                });
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = line.split_once(':').unwrap_or((line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "event" => event = Some(value.to_owned()),
                "id" => id = Some(value.to_owned()),
                "data" => data.push(value.to_owned()),
                _ => {}
            }
        }
    }

    /// The next message within 10 s, or a panic saying what was awaited.
    pub async fn expect(&mut self, what: &str) -> Msg {
        match tokio::time::timeout(Duration::from_secs(10), self.next()).await {
            Ok(Some(m)) => m,
            Ok(None) => panic!("the stream ended while waiting for {what}"),
            Err(_) => panic!("no message within 10 s while waiting for {what}"),
        }
    }

    /// The next `n` plain events (skipping nothing else: a hello or reset fails).
    pub async fn events(&mut self, n: usize) -> Vec<Value> {
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let m = self.expect("an event").await;
            assert_eq!(m.event, "message", "unexpected {m:?}");
            let v = m.json();
            assert_eq!(
                v["event_id"].as_str(),
                m.id.as_deref(),
                "the SSE id is the event's id"
            );
            out.push(v);
        }
        out
    }
}
