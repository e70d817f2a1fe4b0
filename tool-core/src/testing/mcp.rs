//! [`McpClient`]: an MCP client in the test's own process, over an in-memory pipe, through
//! the same server as `toolsmith serve`'s stdio (every frame read and answered as there).
//! No subprocess, no port.

use std::collections::VecDeque;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, WriteHalf};

use crate::mcp::{IntoRuntime, ServeError, ServeOptions, serve_lines};

/// How long the client waits for an answer before it fails the test.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);
/// The most `input_required` rounds one 2026-07-28 call may take.
const MAX_ROUNDS: usize = 10;

/// A protocol version the server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum McpVersion {
    /// 2025-06-18: `initialize`, then calls in the session.
    V2025_06_18,
    /// 2025-11-25: `initialize`, then calls in the session; the user asked through
    /// `elicitation/create` while a call waits.
    V2025_11_25,
    /// 2026-07-28: stateless; `server/discover`, then each request alone with its `_meta`,
    /// the user asked through an `input_required` answer and the call's retry.
    V2026_07_28,
}

impl McpVersion {
    /// Every version, oldest first.
    pub const ALL: &'static [McpVersion] = &[
        McpVersion::V2025_06_18,
        McpVersion::V2025_11_25,
        McpVersion::V2026_07_28,
    ];

    /// Its name on the wire: `2025-06-18`, ...
    pub const fn as_str(self) -> &'static str {
        match self {
            McpVersion::V2025_06_18 => "2025-06-18",
            McpVersion::V2025_11_25 => "2025-11-25",
            McpVersion::V2026_07_28 => "2026-07-28",
        }
    }

    fn stateless(self) -> bool {
        self == McpVersion::V2026_07_28
    }
}

/// The user's answer to one question the server asks (elicitation).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Elicit {
    /// Accepts the form with this content.
    Accept(Value),
    /// Declines it.
    Decline,
    /// Dismisses it without an answer.
    Cancel,
}

impl Elicit {
    /// "Allow once" on an approval question.
    pub fn allow_once() -> Elicit {
        Elicit::Accept(json!({"decision": "allow_once"}))
    }

    /// "Allow for this session" on an approval question.
    pub fn allow_session() -> Elicit {
        Elicit::Accept(json!({"decision": "allow_session"}))
    }

    /// "Deny" on an approval question.
    pub fn deny() -> Elicit {
        Elicit::Accept(json!({"decision": "deny"}))
    }

    fn to_result(&self) -> Value {
        match self {
            Elicit::Accept(content) => json!({"action": "accept", "content": content}),
            Elicit::Decline => json!({"action": "decline"}),
            Elicit::Cancel => json!({"action": "cancel"}),
        }
    }
}

/// One frame on the pipe, as it was written.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Frame {
    /// Sent by the client (else by the server).
    pub sent: bool,
    /// The JSON-RPC message.
    pub message: Value,
}

/// The answer to a `tools/call`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct McpCalled {
    /// The `result` (a `CallToolResult`), or the JSON-RPC `error` object.
    pub result: Value,
    /// Whether the result is an error (`isError`, or a JSON-RPC error).
    pub is_error: bool,
    /// The text of its content blocks, joined.
    pub text: String,
    /// Its `structuredContent`, if any.
    pub structured: Option<Value>,
    /// The questions the server asked the user during the call (each form's message).
    pub asked: Vec<String>,
}

/// Configures an [`McpClient`].
pub struct McpClientBuilder {
    version: McpVersion,
    options: ServeOptions,
    elicit: Option<VecDeque<Elicit>>,
    name: String,
}

impl McpClientBuilder {
    /// The protocol version (default: the newest).
    pub fn version(mut self, version: McpVersion) -> Self {
        self.version = version;
        self
    }

    /// How the server serves (name, instructions, ...).
    pub fn options(mut self, options: ServeOptions) -> Self {
        self.options = options;
        self
    }

    /// Declares that the client can ask its user (elicitation), and answers the questions in
    /// order with `answers`; past them, it cancels.
    pub fn elicit(mut self, answers: impl IntoIterator<Item = Elicit>) -> Self {
        self.elicit = Some(answers.into_iter().collect());
        self
    }

    /// The client's name (`clientInfo.name`).
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Starts the server on an in-memory pipe and opens the session (`initialize`, or
    /// `server/discover` under 2026-07-28).
    ///
    /// # Panics
    ///
    /// When the server does not answer the opening request, with what it said.
    pub async fn start(self, runtime: impl IntoRuntime) -> McpClient {
        let (client_side, server_side) = tokio::io::duplex(1 << 20);
        let (server_in, server_out) = tokio::io::split(server_side);
        let runtime = runtime.into_runtime();
        let options = self.options.clone();
        let server = tokio::spawn(serve_lines(runtime, options, server_in, server_out));
        self.connect(client_side, server).await
    }

    /// Starts an rmcp [`ServerHandler`](rmcp::ServerHandler) of your own (one that serves
    /// toolsmith's tools with [`McpTools`](crate::mcp::McpTools) beside its own, say) on an
    /// in-memory pipe, as rmcp's stdio transport serves it, and opens the session. The
    /// builder's [`options`](Self::options) are not used: the handler is the server.
    ///
    /// # Panics
    ///
    /// When the server does not answer the opening request, with what it said.
    pub async fn start_with<H>(self, handler: H) -> McpClient
    where
        H: rmcp::ServerHandler,
    {
        let (client_side, server_side) = tokio::io::duplex(1 << 20);
        let server = tokio::spawn(async move {
            let running = rmcp::serve_server(handler, tokio::io::split(server_side))
                .await
                .map_err(|e| ServeError::Initialize(e.to_string()))?;
            running
                .waiting()
                .await
                .map(|_| ())
                .map_err(|e| ServeError::Io(std::io::Error::other(e)))
        });
        self.connect(client_side, server).await
    }

    async fn connect(
        self,
        client_side: DuplexStream,
        server: tokio::task::JoinHandle<Result<(), ServeError>>,
    ) -> McpClient {
        let (client_in, client_out) = tokio::io::split(client_side);
        let mut client = McpClient {
            version: self.version,
            writer: client_out,
            lines: BufReader::new(client_in).lines(),
            frames: Vec::new(),
            notifications: Vec::new(),
            elicit: self.elicit,
            name: self.name,
            next_id: 1,
            asked: Vec::new(),
            server,
        };
        client.open().await;
        client
    }
}

/// An MCP client in the test's process, speaking one protocol version to the server over an
/// in-memory pipe: list tools, call them, answer the user's questions from a script, and see
/// every frame and notification.
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// use serde_json::json;
/// use tool_core::Registry;
/// use tool_core::testing::{McpClient, McpVersion};
///
/// for &version in McpVersion::ALL {
///     let mut client = McpClient::builder().version(version)
///         .start(Registry::builder().build().unwrap()).await;
///     assert!(client.list_tools().await.is_empty());
///     let called = client.call("missing", json!({})).await;
///     assert!(called.is_error, "{version:?}");
///     client.close().await;
/// }
/// # });
/// ```
pub struct McpClient {
    version: McpVersion,
    writer: WriteHalf<DuplexStream>,
    lines: Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>,
    frames: Vec<Frame>,
    notifications: Vec<Value>,
    elicit: Option<VecDeque<Elicit>>,
    name: String,
    next_id: u64,
    /// The questions of the call in progress.
    asked: Vec<String>,
    server: tokio::task::JoinHandle<Result<(), ServeError>>,
}

impl std::fmt::Debug for McpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClient")
            .field("version", &self.version)
            .field("frames", &self.frames.len())
            .finish_non_exhaustive()
    }
}

impl McpClient {
    /// A client of the newest version that cannot ask its user.
    pub fn builder() -> McpClientBuilder {
        McpClientBuilder {
            version: McpVersion::V2026_07_28,
            options: ServeOptions::new("toolsmith-test"),
            elicit: None,
            name: "toolsmith-test-client".into(),
        }
    }

    /// The version it speaks.
    pub fn version(&self) -> McpVersion {
        self.version
    }

    /// Every frame so far, both ways, in order.
    pub fn frames(&self) -> &[Frame] {
        &self.frames
    }

    /// The notifications the server sent (progress, list changes, ...), in order.
    pub fn notifications(&self) -> &[Value] {
        &self.notifications
    }

    /// The progress messages the server sent, in order.
    pub fn progress(&self) -> Vec<String> {
        self.notifications
            .iter()
            .filter(|n| n["method"] == "notifications/progress")
            .filter_map(|n| n["params"]["message"].as_str().map(str::to_owned))
            .collect()
    }

    /// `tools/list`: the tools, as the server lists them.
    pub async fn list_tools(&mut self) -> Vec<Value> {
        let answer = self.request("tools/list", json!({})).await;
        answer["result"]["tools"]
            .as_array()
            .cloned()
            .unwrap_or_else(|| panic!("tools/list answered without tools: {answer}"))
    }

    /// `tools/call` of `name` with `arguments`, answering the user's questions from the
    /// script (under 2026-07-28, by calling again with the answers, as a client does).
    pub async fn call(&mut self, name: &str, arguments: Value) -> McpCalled {
        self.asked.clear();
        let mut params = json!({"name": name, "arguments": arguments});
        let mut answer = self.request("tools/call", params.clone()).await;
        for _ in 0..MAX_ROUNDS {
            let result = &answer["result"];
            if result["resultType"] != "input_required" {
                break;
            }
            let mut responses = serde_json::Map::new();
            if let Some(questions) = result["inputRequests"].as_object() {
                for (key, question) in questions {
                    responses.insert(key.clone(), self.answer_question(&question["params"]));
                }
            }
            params["inputResponses"] = Value::Object(responses);
            params["requestState"] = result["requestState"].clone();
            answer = self.request("tools/call", params.clone()).await;
        }
        let asked = std::mem::take(&mut self.asked);
        match answer.get("result") {
            Some(result) => McpCalled {
                is_error: result["isError"] == true,
                text: result["content"]
                    .as_array()
                    .map(|blocks| {
                        let texts: Vec<&str> =
                            blocks.iter().filter_map(|b| b["text"].as_str()).collect();
                        texts.join("\n")
                    })
                    .unwrap_or_default(),
                structured: result.get("structuredContent").cloned(),
                result: result.clone(),
                asked,
            },
            None => McpCalled {
                is_error: true,
                text: answer["error"]["message"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                structured: None,
                result: answer["error"].clone(),
                asked,
            },
        }
    }

    /// Sends the request `method` with `params` (with this version's `_meta`) and returns
    /// the whole answer (`result` or `error`), answering the server's own requests and keeping
    /// its notifications meanwhile.
    ///
    /// # Panics
    ///
    /// When no answer comes within [`ANSWER_TIMEOUT`], or the server closes the pipe.
    pub async fn request(&mut self, method: &str, mut params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        if self.version.stateless() {
            params["_meta"] = self.meta();
        }
        if method == "tools/call" {
            params["_meta"]["progressToken"] = json!(format!("progress-{id}"));
        }
        let frame = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(frame).await;
        loop {
            let message = self.next_message(method).await;
            if message.get("method").is_some() {
                self.serve_request_or_notification(message).await;
                continue;
            }
            if message["id"] == id {
                return message;
            }
        }
    }

    /// Closes the pipe and waits for the server to end its session.
    pub async fn close(self) {
        let McpClient {
            mut writer,
            lines,
            server,
            ..
        } = self;
        let _ = writer.shutdown().await;
        drop(writer);
        drop(lines);
        let _ = tokio::time::timeout(ANSWER_TIMEOUT, server).await;
    }

    /// The 2026-07-28 `_meta` every request carries.
    fn meta(&self) -> Value {
        json!({
            "io.modelcontextprotocol/protocolVersion": self.version.as_str(),
            "io.modelcontextprotocol/clientCapabilities": self.capabilities(),
            "io.modelcontextprotocol/clientInfo": {"name": self.name, "version": "1"},
        })
    }

    fn capabilities(&self) -> Value {
        match self.elicit {
            Some(_) => json!({"elicitation": {"form": {}}}),
            None => json!({}),
        }
    }

    async fn open(&mut self) {
        if self.version.stateless() {
            let answer = self.request("server/discover", json!({})).await;
            assert!(answer.get("result").is_some(), "server/discover: {answer}");
            return;
        }
        let params = json!({
            "protocolVersion": self.version.as_str(),
            "capabilities": self.capabilities(),
            "clientInfo": {"name": self.name, "version": "1"},
        });
        let answer = self.request("initialize", params).await;
        assert!(answer.get("result").is_some(), "initialize: {answer}");
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
    }

    async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.frames.push(Frame {
            sent: true,
            message,
        });
        self.writer
            .write_all(line.as_bytes())
            .await
            .expect("the in-memory pipe to the server is open");
        let _ = self.writer.flush().await;
    }

    async fn next_message(&mut self, waiting_for: &str) -> Value {
        let line = tokio::time::timeout(ANSWER_TIMEOUT, self.lines.next_line())
            .await
            .unwrap_or_else(|_| panic!("no answer to `{waiting_for}` within {ANSWER_TIMEOUT:?}"))
            .expect("the in-memory pipe reads")
            .unwrap_or_else(|| {
                panic!("the server closed the pipe before answering `{waiting_for}`")
            });
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("the server wrote a frame that is not JSON ({e}): {line}"));
        self.frames.push(Frame {
            sent: false,
            message: message.clone(),
        });
        message
    }

    /// Answers a request of the server (`elicitation/create` from the script, `ping`) or
    /// keeps a notification.
    async fn serve_request_or_notification(&mut self, message: Value) {
        let Some(id) = message.get("id").cloned() else {
            self.notifications.push(message);
            return;
        };
        let result = match message["method"].as_str() {
            Some("elicitation/create") => self.answer_question(&message["params"]),
            Some("roots/list") => json!({"roots": []}),
            _ => json!({}),
        };
        self.send(json!({"jsonrpc": "2.0", "id": id, "result": result}))
            .await;
    }

    /// The script's answer to a form (the message kept as asked).
    fn answer_question(&mut self, params: &Value) -> Value {
        self.asked
            .push(params["message"].as_str().unwrap_or_default().to_owned());
        let answer = self
            .elicit
            .as_mut()
            .and_then(VecDeque::pop_front)
            .unwrap_or(Elicit::Cancel);
        answer.to_result()
    }
}
