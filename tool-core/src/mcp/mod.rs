//! A registry served over the Model Context Protocol (feature `mcp`).
//!
//! Every MCP host (Claude Desktop, Claude Code, Cursor, Codex, goose) speaks MCP, so serving
//! a [`Registry`] over it is how existing agents use these tools, and how a
//! deployment outgrows one process: many agents on many machines reach one tool host over
//! MCP's streamable HTTP transport, an existing protocol rather than a home-made one. The
//! server is built on the official Rust SDK, `rmcp`; this module only maps MCP onto the
//! [`Runtime`]:
//!
//! - `tools/list` offers the tools whose modes include [`Mode::Mcp`](crate::Mode::Mcp), each
//!   as the MCP export of [`provider::mcp::tool`](crate::provider::mcp::tool) gives it: the
//!   canonical input schema, the output schema when it is an object, and every annotation
//!   (read-only, destructive, idempotent, open-world) said explicitly. A session
//!   configuration with a tool selection ([`ServeOptions::session`],
//!   [`SessionConfig::tools`](field@crate::SessionConfig::tools)) narrows the list to those tools,
//!   and a call of any other tool is refused with the list of the tools offered.
//! - `tools/call` runs the call through the runtime's whole path (validation, permissions,
//!   the redundancy check, approval, deadline, activity records) and answers with text
//!   content plus `structuredContent` (text alone for a tool whose result is text by nature,
//!   [`ToolSpec::text_output`](field@crate::ToolSpec::text_output), which declares no
//!   `outputSchema` either). A tool error is an `isError: true` result whose text
//!   is the same JSON error the CLI prints, allowed values and suggestion included, so the
//!   model can correct itself; unknown tools are answered the same way, with the tools that
//!   exist and the nearest name.
//! - When the client sends a progress token, the tool's chunk and progress events go out as
//!   `notifications/progress` (the message carries the text; `progress` counts up).
//! - `notifications/cancelled` fires the call's cancellation token: the tool sees it, the
//!   call ends `cancelled` and its activity `failure`. A session that ends (stdin closed, an
//!   HTTP session deleted or expired) cancels whatever it still runs.
//! - Approval: a call that asks (a [rule](crate::Rule) of the runtime's policy, or a
//!   tool's `requires_approval`) asks the client's user where the client can (see *Asking
//!   the user* below); elsewhere the runtime's [`Approver`](crate::Approver) decides
//!   ([`ApproveAll`](crate::ApproveAll) trusts the host; the default,
//!   [`DenyAll`](crate::DenyAll), answers `approval_denied` naming what asked).
//!
//! # Asking the user
//!
//! When the client declared that it can ask its user (the `elicitation` capability, form
//! mode) and [`ServeOptions::ask_clients`] is on (the default), a call that asks is put to
//! the user as a form naming the tool, the call, the rule that asks and, for an edit, what it
//! would change ([`CallPolicy::preview`](crate::policy::CallPolicy::preview)), with the
//! choices *allow once* and *deny*, and *allow for this session* where the protocol has
//! sessions:
//!
//! - **2025-06-18 and 2025-11-25**: the server sends `elicitation/create` while the call
//!   waits (at most [`APPROVAL_TIMEOUT`]; a cancelled call withdraws the question). "Allow
//!   for this session" lasts as long as the MCP session and covers what asked: the calls the
//!   same rule matches, or, where the declaration asked, every call of that tool (and action).
//! - **2026-07-28** has no sessions: the call is answered `input_required` with the form
//!   (under [`APPROVAL_INPUT`]) and a request state, and the client calls again with the
//!   user's answer and that state. The state is sealed with HMAC-SHA256 under the server's
//!   key ([`ServeOptions::approval_key`]: give every replica the same secret, so any can
//!   check a state another made) and bound to the principal, the tool and the call's
//!   arguments, so it approves no other call. It expires after [`APPROVAL_STATE_TTL`] and
//!   answers once: its nonce is recorded when used, in memory or in a directory replicas
//!   share ([`ServeOptions::used_approvals`]). A state that is forged, altered, expired, for
//!   another call or already used is refused with one message, and nothing runs. Until the
//!   user answers, the call's activity record ends `approval_denied` ("waiting for the
//!   user's answer"); the retry is a call of its own.
//!
//! # State across requests
//!
//! MCP 2026-07-28 has no sessions: every request carries its own version and capabilities,
//! and behind a load balancer consecutive requests reach different replicas. So no answer
//! depends on what an MCP connection remembers:
//!
//! - A request is never answered from another request's result: MCP sessions have no turns
//!   ([`SessionConfig::turns`](crate::SessionConfig::turns) is off), so a file read again
//!   after it changed shows the change.
//! - What must span calls lives with the server or travels with the model: the file tools'
//!   versions (`expected_version`) and their record of reads per workspace, the web search
//!   window per server, the agent from the server's configuration.
//! - `tools/list` is made once and is the same, byte for byte and in the same order, on every
//!   request; it and `server/discover` say so with `ttlMs` ([`ServeOptions::list_ttl`]) and
//!   `cacheScope: "public"`.
//!
//! Each connection (the stdio connection; each streamable HTTP session, or each 2026-07-28
//! request) still gets a [`Session`](crate::Session) of its own in mode `mcp`, which ends,
//! cancelling its calls, when the connection does.
//!
//! # Who called
//!
//! Every call's activity record and events name its [`Conversation`](crate::Conversation):
//! a 2026-07-28 client may name it with [`CONVERSATION_META_KEY`] in a request's `_meta`;
//! otherwise it is the MCP session (streamable HTTP under 2025-11-25), the connection
//! (stdio), or, for HTTP requests without a session, the client's name and version (one group
//! per client). Each carries the client's name and version, the session id where there is
//! one, the transport, and the principal and agent of [`ServeOptions::session`].
//!
//! # Transports
//!
//! - [`serve_stdio`]: one session over the process's stdin and stdout (what a host spawning
//!   the server uses), every frame answered once ([`serve_lines`] over any pair of streams);
//!   [`serve`] takes any rmcp transport.
//! - [`serve_http`] / [`HttpServer`]: streamable HTTP on `/mcp`. [`router`] gives the axum
//!   [`Router`](axum::Router) to mount in a host's own server, and [`ServeOptions::guard`]
//!   puts the same checks in front of a host's other routes (the live activity page of
//!   [`crate::http::activity`], say).
//! - [`McpTools`]: the tools as a part of an rmcp `ServerHandler` of your own, beside its
//!   own resources, prompts and tools, on whatever transport it serves
//!   (`examples/rmcp_server.rs`).
//!
//! # Stopping
//!
//! Cancelling [`ServeOptions::shutdown`] stops a server gracefully, on every transport: the
//! HTTP server takes no new connection, and a call that comes in from then on where the
//! server still reads (stdio, an HTTP connection already open) is answered with
//! [`ToolError::server_stopping`](crate::ToolError::server_stopping) (a `cancelled` error with
//! `"retryable": true`); the calls running are cancelled, so their tools end what they started,
//! and answered the same way once they have ended; then, once every call has answered or
//! after [`DRAIN_TIMEOUT`], the stdio session ends, or the HTTP server closes its sessions and
//! streams and returns when its connections have closed. A client never gets a bare `500` or
//! a reset for a call the server ended. When a stdio client closes stdin, the calls it left
//! are cancelled and end before [`serve_stdio`] returns.
//!
//! # Security of the HTTP transport
//!
//! The [`Guard`] of [`crate::http`] stands in front of every route:
//! loopback names only without a token, the token checked in constant time with one, and
//! `Origin` checked as the MCP specification asks ([`ServeOptions::guard`]).
//! [`HttpServer::bind`] refuses a non-loopback address unless a token is set
//! ([`ServeOptions::token`]).
//!
//! # Example
//!
//! ```no_run
//! use tool_core::mcp::{ServeOptions, serve_http};
//! use tool_core::{ApproveAll, Registry, Runtime};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let registry = Registry::from_inventory()?;
//! let runtime = Runtime::builder(registry).approver(ApproveAll).build();
//! serve_http("127.0.0.1:8080".parse()?, runtime, ServeOptions::new("my-tools")).await?;
//! # Ok(())
//! # }
//! ```
//!
//! The router alone, checked without a network:
//!
//! ```
//! use tool_core::mcp::{ServeOptions, router};
//! use tool_core::{Registry, Runtime};
//!
//! let runtime = Runtime::builder(Registry::builder().build()?).build();
//! let app: axum::Router = router(runtime, ServeOptions::new("demo").token("s3cret"))?;
//! # let _ = app;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod ask;
mod drain;
mod frames;
mod handler;
mod http;
mod inflight;
mod lines;
mod principal;
mod tools;
mod who;

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

pub use ask::{
    APPROVAL_INPUT, APPROVAL_STATE_TTL, APPROVAL_TIMEOUT, MAX_SESSION_GRANTS, MAX_USED_APPROVALS,
    UsedApprovalStore,
};
pub use drain::DRAIN_TIMEOUT;
pub use frames::MAX_FRAME_BYTES;
pub use http::{HttpServer, MCP_PATH, router, serve_http, service};
pub use inflight::MAX_IN_FLIGHT_BYTES;
pub use principal::{Principal, parse_sha256_hex, token_sha256};
pub use tools::{McpTools, McpToolsSession};
pub use who::CONVERSATION_META_KEY;

use crate::http::{BadToken, Guard};
use crate::registry::Registry;
use crate::runtime::{Runtime, SessionConfig};
use handler::{McpHandler, Shared};

/// The most characters of one chunk or progress message a notification carries.
pub const MAX_PROGRESS_MESSAGE_CHARS: usize = 4096;
/// The most progress notifications queued for one call; past that they are dropped (the
/// tool never waits for a slow client).
pub const MAX_QUEUED_PROGRESS: usize = 256;
/// How long clients may keep `tools/list` and `server/discover` answers by default
/// ([`ServeOptions::list_ttl`]): five minutes.
pub const DEFAULT_LIST_TTL: Duration = Duration::from_secs(300);

/// How a server presents itself and, for HTTP, whom it lets in.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServeOptions {
    /// The server's name in `initialize` (`serverInfo.name`).
    pub name: String,
    /// The server's version in `initialize`.
    pub version: String,
    /// Instructions for the client's model, sent in `initialize`.
    pub instructions: Option<String>,
    /// How each session's tool session is set up (its mode is always `mcp`).
    pub session: SessionConfig,
    /// HTTP: the token every request must carry (bearer header or `toolsmith_token` cookie).
    pub token: Option<String>,
    /// HTTP: the principals, each with a token of its own and what it is served with.
    pub principals: Vec<Principal>,
    /// HTTP: browser origins allowed besides the server's own (`https://app.example:443`).
    pub allowed_origins: Vec<String>,
    /// Stops the server when cancelled, gracefully: calls are no longer taken (a new one on a
    /// connection still read is answered with
    /// [`ToolError::server_stopping`](crate::ToolError::server_stopping)); the running ones,
    /// those waiting for the user's approval included, are cancelled (their tools end what
    /// they started) and answered the same way once they have ended; once every call has answered, or after [`DRAIN_TIMEOUT`],
    /// the transport closes (stdio) or the HTTP server stops accepting and closes its
    /// sessions and streams.
    pub shutdown: CancellationToken,
    /// How long a client may treat `tools/list` and `server/discover` answers as fresh (their
    /// `ttlMs`, with `cacheScope: "public"`): the tool list is made once and is the same for
    /// every client while the server runs. Default [`DEFAULT_LIST_TTL`].
    pub list_ttl: Duration,
    /// Whether a call that asks for approval asks the client's user, where the client can
    /// (MCP elicitation; see *Asking the user* in the [module documentation](self)). Default on; off, the
    /// runtime's approver decides alone.
    pub ask_clients: bool,
    /// The secret 2026-07-28 approval states are sealed with: the same on every replica, so
    /// any of them can check a state another made (none: a random key, for one process).
    pub approval_key: Option<Vec<u8>>,
    /// A directory, shared by replicas, where used approval states are recorded so that none
    /// approves twice (none: in memory, for one process).
    pub used_approvals: Option<std::path::PathBuf>,
    /// A store, shared by replicas, where used approval states are recorded; it takes
    /// precedence over [`used_approvals`](Self::used_approvals).
    pub used_approval_store: Option<Arc<dyn UsedApprovalStore>>,
}

impl ServeOptions {
    /// The [`Guard`] these options ask for: [`token`](Self::token) and
    /// [`allowed_origins`](Self::allowed_origins). Put it in front of a host's own routes
    /// with [`Guard::layer`].
    pub fn guard(&self) -> Result<Guard, ServeError> {
        let guard = Guard::new(self.token.as_deref(), &self.allowed_origins)?;
        Ok(guard.principals(
            self.principals
                .iter()
                .map(|p| (p.name.clone(), p.token_sha256)),
        ))
    }

    /// Options for a server called `name`, with this crate's version.
    pub fn new(name: impl Into<String>) -> Self {
        ServeOptions {
            name: name.into(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            instructions: None,
            session: SessionConfig::default(),
            token: None,
            principals: Vec::new(),
            allowed_origins: Vec::new(),
            shutdown: CancellationToken::new(),
            list_ttl: DEFAULT_LIST_TTL,
            ask_clients: true,
            approval_key: None,
            used_approvals: None,
            used_approval_store: None,
        }
    }

    /// Sets the version the server reports.
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = version.into();
        self
    }

    /// Sets the instructions sent in `initialize`.
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }

    /// Sets up each session's tool session (permissions, session services).
    pub fn session(mut self, config: SessionConfig) -> Self {
        self.session = config;
        self
    }

    /// Requires a token on every HTTP request.
    pub fn token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// Sets whether calls that ask for approval ask the client's user ([`ask_clients`](Self::ask_clients)).
    pub fn ask_clients(mut self, yes: bool) -> Self {
        self.ask_clients = yes;
        self
    }

    /// Sets the secret approval states are sealed with ([`approval_key`](Self::approval_key)).
    pub fn approval_key(mut self, secret: impl Into<Vec<u8>>) -> Self {
        self.approval_key = Some(secret.into());
        self
    }

    /// Records used approval states in `dir` ([`used_approvals`](Self::used_approvals)).
    pub fn used_approvals(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.used_approvals = Some(dir.into());
        self
    }

    /// Records used approval states in `store`, which replicas share
    /// ([`used_approval_store`](Self::used_approval_store)).
    pub fn used_approval_store(mut self, store: Arc<dyn UsedApprovalStore>) -> Self {
        self.used_approval_store = Some(store);
        self
    }

    /// Adds a principal (HTTP): its token lets a request in, served with its runtime. A
    /// server with principals needs no [`token`](Self::token) of its own.
    pub fn principal(mut self, principal: Principal) -> Self {
        self.principals.push(principal);
        self
    }

    /// Allows a browser origin besides the server's own.
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins.push(origin.into());
        self
    }

    /// Stops the server gracefully when `token` is cancelled (see [`ServeOptions::shutdown`]).
    pub fn shutdown(mut self, token: CancellationToken) -> Self {
        self.shutdown = token;
        self
    }

    /// Sets how long clients may keep the tool list ([`list_ttl`](Self::list_ttl)); zero says
    /// "ask every time".
    pub fn list_ttl(mut self, ttl: Duration) -> Self {
        self.list_ttl = ttl;
        self
    }
}

/// What can be served: a [`Runtime`] (its approver, services and limits), or a registry with
/// a default runtime (which denies calls that need approval).
pub trait IntoRuntime {
    /// The runtime to serve.
    fn into_runtime(self) -> Runtime;
}

impl IntoRuntime for Runtime {
    fn into_runtime(self) -> Runtime {
        self
    }
}

impl IntoRuntime for Registry {
    fn into_runtime(self) -> Runtime {
        Runtime::builder(self).build()
    }
}

impl IntoRuntime for Arc<Registry> {
    fn into_runtime(self) -> Runtime {
        Runtime::builder(self).build()
    }
}

/// Why a server could not start or stopped.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServeError {
    /// A tool's definition cannot be said in MCP.
    Export(String),
    /// A non-loopback address without a token.
    TokenRequired(std::net::SocketAddr),
    /// The token is empty or not a valid header value.
    BadToken,
    /// The MCP session could not start (the client's `initialize` failed).
    Initialize(String),
    /// Binding, accepting or the transport failed.
    Io(std::io::Error),
}

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServeError::Export(e) => write!(f, "cannot offer the tools over MCP: {e}"),
            ServeError::TokenRequired(addr) => write!(
                f,
                "{addr} is not a loopback address: serving beyond this machine needs a token \
                 (--token or TOOLSMITH_TOKEN), or bind 127.0.0.1 / [::1]"
            ),
            ServeError::BadToken => f.write_str(
                "the token must be non-empty visible ASCII (it travels in an HTTP header)",
            ),
            ServeError::Initialize(e) => write!(f, "the MCP session did not start: {e}"),
            ServeError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ServeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ServeError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<BadToken> for ServeError {
    fn from(_: BadToken) -> Self {
        ServeError::BadToken
    }
}

impl From<std::io::Error> for ServeError {
    fn from(e: std::io::Error) -> Self {
        ServeError::Io(e)
    }
}

/// Serves one MCP session over `transport` (anything rmcp takes as a server transport:
/// `(reader, writer)` pairs, `rmcp::transport::stdio()`, a duplex stream) until the client
/// goes away. Returns once the session has ended and its calls are cancelled.
pub async fn serve<T, E, A>(
    runtime: impl IntoRuntime,
    options: ServeOptions,
    transport: T,
) -> Result<(), ServeError>
where
    T: rmcp::transport::IntoTransport<rmcp::RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let shared = Arc::new(Shared::new(runtime.into_runtime(), &options)?);
    let drain = shared.drain.clone();
    let handler = McpHandler::new(shared);
    let session = handler.session().clone();
    let running = tokio::select! {
        started = rmcp::serve_server(handler, transport) => started,
        // Stopped before the client began a session: nothing runs.
        () = options.shutdown.cancelled() => {
            session.cancel();
            return Ok(());
        }
    };
    let running = match running {
        Ok(running) => running,
        // The client left before a session began: after `server/discover` (all a 2026-07-28
        // client may need), or without a word. Nothing ran, so nothing failed.
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => {
            session.cancel();
            return Ok(());
        }
        Err(e) => return Err(ServeError::Initialize(e.to_string())),
    };
    // Until the client goes, or the server stops: its calls answered first (see
    // [`ServeOptions::shutdown`]).
    let stop = running.cancellation_token();
    let waiting = running.waiting();
    tokio::pin!(waiting);
    let ended = tokio::select! {
        ended = &mut waiting => ended,
        _ = drain.drained(DRAIN_TIMEOUT) => {
            stop.cancel();
            waiting.await
        }
    };
    // The client has gone (or the server stopped): what still runs is cancelled, and ends
    // (its records closed, its programs' groups ended) before this returns.
    // A stopping server has waited for its calls already: what is still running now gets a
    // second more, so that the stop keeps its bound.
    let stopping = options.shutdown.is_cancelled();
    session.cancel();
    drain
        .idle(if stopping {
            Duration::from_secs(1)
        } else {
            DRAIN_TIMEOUT
        })
        .await;
    ended
        .map(|_| ())
        .map_err(|e| ServeError::Io(std::io::Error::other(e)))
}

/// Serves one MCP session over the process's stdin and stdout until stdin closes. Nothing
/// else may write to stdout meanwhile (it is the protocol's channel); log to stderr.
pub async fn serve_stdio(
    runtime: impl IntoRuntime,
    options: ServeOptions,
) -> Result<(), ServeError> {
    serve_lines(runtime, options, tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serves one MCP session over newline-delimited JSON-RPC (what the stdio transport carries)
/// on `input` and `output`, until `input` ends.
///
/// Each frame is parsed once, straight into rmcp's message type, and every frame is answered
/// exactly once: one that rmcp's types refuse (not JSON, invalid UTF-8, a lone surrogate,
/// nesting past 128 levels, a line over [`MAX_FRAME_BYTES`], a bad envelope, `tools/call`
/// arguments that are not an object) is answered with its own `id` wherever that can be read
/// and the JSON-RPC code that fits (`-32700`, `-32600`, `-32602`), where rmcp's own transport
/// would drop it or answer without the `id`. A frame may begin with a UTF-8 byte order mark.
///
/// The requests being served at once hold at most [`MAX_IN_FLIGHT_BYTES`] (each counted as
/// its frame plus 16 KiB); past that, the next request is read once an answer has gone out,
/// so a client cannot grow the server's memory by sending faster than the tools answer.
pub async fn serve_lines<R, W>(
    runtime: impl IntoRuntime,
    options: ServeOptions,
    input: R,
    output: W,
) -> Result<(), ServeError>
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
    W: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let transport = lines::LineTransport::new(input, output, inflight::InFlight::new());
    serve(runtime, options, transport).await
}
