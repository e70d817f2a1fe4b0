//! [`McpHandler`]: rmcp's `ServerHandler` over a [`Runtime`], one tool [`Session`] per MCP
//! session.

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    DiscoverResult, Implementation, ListToolsResult, NumberOrString, PaginatedRequestParams,
    ProgressNotificationParam, ProgressToken, ProtocolVersion, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::activity::Conversation;
use crate::call::{Arguments, ToolCall};
use crate::error::{ErrorKind, ToolError};
use crate::events::{Event, EventData, EventObserver};
use crate::provider::McpParts;
use crate::render::ResourcesTracker;
use crate::runtime::{CallOptions, CallOutcome, Runtime, Session, SessionConfig};
use crate::spec::Mode;
use crate::trace::TraceContext;

use super::ask::{Asking, PeerApprover, RoundTripApprover, can_ask};
use super::drain::Drain;
use super::{MAX_PROGRESS_MESSAGE_CHARS, MAX_QUEUED_PROGRESS, ServeOptions};

/// A boxed future: the call's future is boxed so that the one rmcp spawns per request
/// holds a pointer to it.
type BoxFuture<'a, T> = std::pin::Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What every MCP session of one server shares: the runtime (and each principal's), the
/// `tools/list` answers (computed once), the `initialize` answer and how long clients may
/// cache them.
#[derive(Debug)]
pub(crate) struct Shared {
    /// What requests without a principal are served with.
    pub(crate) anyone: Served,
    /// What each principal's requests are served with.
    pub(crate) principals: HashMap<Arc<str>, Served>,
    pub(crate) info: ServerConfig,
    /// `ttlMs` of `tools/list` and `server/discover`.
    pub(crate) list_ttl_ms: u64,
    /// How calls that ask for approval ask the client's user (none: they do not).
    pub(crate) asking: Option<Arc<Asking>>,
    /// The calls running, and whether the server is stopping.
    pub(crate) drain: Arc<Drain>,
}

/// A runtime as MCP serves it: its tools exported once, and its sessions' set-up.
#[derive(Debug)]
pub(crate) struct Served {
    pub(crate) runtime: Runtime,
    pub(crate) tools: Vec<Tool>,
    pub(crate) session: SessionConfig,
}

impl Served {
    /// The tools of `runtime`'s registry offered in mode `mcp` (and selected by the session
    /// configuration's [`tools`](field@crate::SessionConfig::tools), when set), exported once.
    fn new(runtime: Runtime, session: SessionConfig) -> Result<Served, super::ServeError> {
        let mut tools = Vec::new();
        for entry in runtime
            .registry()
            .offered(Mode::Mcp, session.tools.as_ref())
        {
            let mut value = crate::provider::mcp::tool(entry.spec())
                .map_err(|e| super::ServeError::Export(e.to_string()))?;
            for key in ["inputSchema", "outputSchema"] {
                if let Some(schema) = value.get_mut(key) {
                    crate::provider::schema::strip_custom_formats(schema);
                }
            }
            let tool: Tool = serde_json::from_value(value).map_err(|e| {
                super::ServeError::Export(format!(
                    "tool `{}`: the MCP export does not read as an MCP tool: {e}",
                    entry.name()
                ))
            })?;
            tools.push(tool);
        }
        Ok(Served {
            runtime,
            tools,
            session: session.mode(Mode::Mcp).turns(false),
        })
    }
}

impl Shared {
    pub(crate) fn new(
        runtime: Runtime,
        options: &ServeOptions,
    ) -> Result<Shared, super::ServeError> {
        let anyone = Served::new(runtime, options.session.clone())?;
        let mut principals = HashMap::new();
        for p in &options.principals {
            let session = p.session.clone().unwrap_or_else(|| options.session.clone());
            let served = Served::new(p.runtime.clone(), session.principal(p.name.clone()))?;
            principals.insert(p.name.clone(), served);
        }
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                options.name.clone(),
                options.version.clone(),
            ));
        if let Some(instructions) = &options.instructions {
            info = info.with_instructions(instructions.clone());
        }
        let asking = if options.ask_clients {
            let asking = Asking::new(
                options.approval_key.as_deref(),
                options.used_approvals.clone(),
                options.used_approval_store.clone(),
            )?;
            Some(Arc::new(asking))
        } else {
            None
        };
        Ok(Shared {
            drain: Drain::new(options.shutdown.clone()),
            anyone,
            principals,
            asking,
            info,
            list_ttl_ms: u64::try_from(options.list_ttl.as_millis()).unwrap_or(u64::MAX),
        })
    }

    /// What requests of `principal` (none: the server's token, stdio) are served with.
    fn served(&self, principal: Option<&Arc<str>>) -> &Served {
        principal
            .and_then(|p| self.principals.get(p))
            .unwrap_or(&self.anyone)
    }

    /// Whether the tool list depends on who asks (principals see their own).
    fn lists_differ(&self) -> bool {
        !self.principals.is_empty()
    }
}

/// The principal the HTTP guard found for the request, if any.
fn principal_of(context: &RequestContext<RoleServer>) -> Option<Arc<str>> {
    let parts = context.extensions.get::<axum::http::request::Parts>()?;
    parts
        .extensions
        .get::<crate::http::Authenticated>()
        .map(|a| a.0.clone())
}

/// One MCP session: its own tool session (turn state, file tracking), and one per principal
/// that used it, cancelled when the MCP session ends.
pub(crate) struct McpHandler {
    shared: Arc<Shared>,
    session: Session,
    /// Each principal's tool session, made on its first request.
    principal_sessions: std::sync::Mutex<HashMap<Arc<str>, Session>>,
    /// What the user allowed for this session.
    granted: Arc<std::sync::Mutex<std::collections::HashSet<String>>>,
    /// Names each call's conversation.
    who: super::who::Who,
}

impl std::fmt::Debug for McpHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHandler")
            .field("tools", &self.shared.anyone.tools.len())
            .finish_non_exhaustive()
    }
}

impl McpHandler {
    pub(crate) fn new(shared: Arc<Shared>) -> McpHandler {
        let anyone = &shared.anyone;
        let session = anyone.runtime.session_with(anyone.session.clone());
        let who = super::who::Who::new(session.conversation().clone());
        McpHandler {
            shared,
            session,
            principal_sessions: std::sync::Mutex::default(),
            granted: Arc::default(),
            who,
        }
    }

    /// Runs a call to its outcome; when the server begins to stop meanwhile, the call is
    /// cancelled (its tool ends what it started) and, once it has ended, answered with
    /// [`ToolError::server_stopping`].
    async fn run_until_stopped(
        mut outcome: BoxFuture<'_, CallOutcome>,
        drain: &Drain,
        cancel: &CancellationToken,
    ) -> CallOutcome {
        tokio::select! {
            biased;
            done = &mut outcome => done,
            () = drain.stopping() => {
                cancel.cancel();
                let mut done = outcome.await;
                if done.result.as_ref().is_err_and(|e| e.kind() == ErrorKind::Cancelled) {
                    done.result = Err(ToolError::server_stopping());
                }
                done
            }
        }
    }

    /// The tool session of this MCP session (for requests without a principal).
    pub(crate) fn session(&self) -> &Session {
        &self.session
    }

    /// The `tools/list` entry of `name`, among every principal's tools.
    pub(crate) fn find_tool(&self, name: &str) -> Option<&Tool> {
        let all = std::iter::once(&self.shared.anyone).chain(self.shared.principals.values());
        all.flat_map(|s| s.tools.iter()).find(|t| t.name == name)
    }

    /// The `tools/list` entries for a request with `context` (its principal's).
    pub(crate) fn tools_for(&self, context: &RequestContext<RoleServer>) -> &[Tool] {
        &self.shared.served(principal_of(context).as_ref()).tools
    }

    /// The conversation of a call made with `context`: for a principal's request, its
    /// principal and agent (and under 2026-07-28 HTTP, one group per client and principal).
    fn conversation(
        &self,
        context: &RequestContext<RoleServer>,
        principal: Option<&Arc<str>>,
    ) -> Arc<Conversation> {
        let conversation = self.who.of(context);
        let Some(name) = principal.filter(|p| self.shared.principals.contains_key(*p)) else {
            return conversation;
        };
        let served = self.shared.served(Some(name));
        let mut c = (*conversation).clone();
        if c.key.starts_with("client:") && c.principal.is_none() {
            c.key = format!("{}@{name}", c.key);
        }
        c.principal = Some(name.to_string());
        c.agent = served.session.agent.as_deref().map(str::to_owned);
        Arc::new(c)
    }

    /// The tool session a request of `principal` is served in.
    fn session_for(&self, principal: Option<&Arc<str>>) -> Session {
        let Some(name) = principal.filter(|p| self.shared.principals.contains_key(*p)) else {
            return self.session.clone();
        };
        let mut sessions = self
            .principal_sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        sessions
            .entry(name.clone())
            .or_insert_with(|| {
                let served = self.shared.served(Some(name));
                served.runtime.session_with(served.session.clone())
            })
            .clone()
    }
}

impl Drop for McpHandler {
    /// The MCP session is over (the client closed stdin, deleted its HTTP session, or the
    /// server stopped): whatever it still runs is cancelled.
    fn drop(&mut self) {
        self.session.cancel();
        let sessions = self
            .principal_sessions
            .get_mut()
            .unwrap_or_else(|e| e.into_inner());
        for session in sessions.values() {
            session.cancel();
        }
    }
}

/// The progress messages of one call on their way to the client: bounded, dropping the
/// newest when full (the tool never waits for a slow client).
#[derive(Default)]
struct ProgressQueue {
    messages: std::sync::Mutex<std::collections::VecDeque<String>>,
    ready: tokio::sync::Notify,
}

impl ProgressQueue {
    fn push(&self, message: String) {
        let mut messages = self.messages.lock().unwrap_or_else(|e| e.into_inner());
        if messages.len() < MAX_QUEUED_PROGRESS {
            messages.push_back(message);
            drop(messages);
            self.ready.notify_one();
        }
    }

    fn pop(&self) -> Option<String> {
        self.messages
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop_front()
    }
}

/// The call's observer: its chunk and progress events are queued for the client.
impl EventObserver for ProgressQueue {
    fn observe(&self, event: &Event) {
        let text = match &event.data {
            EventData::Chunk { text } => text,
            EventData::Progress { message } => message,
            _ => return,
        };
        self.push(bounded_message(text));
    }
}

impl McpHandler {
    /// Runs a call whose client asked for progress: its chunk and progress events are
    /// forwarded as progress notifications (through a bounded queue that drops rather than
    /// blocks the tool), the last of them before the result.
    async fn call_reporting_progress(
        session: Session,
        call: ToolCall,
        mut options: CallOptions,
        token: ProgressToken,
        peer: Peer<RoleServer>,
    ) -> CallOutcome {
        let queue = Arc::new(ProgressQueue::default());
        options.observer = Some(queue.clone());
        let fut = session.call_with(call, options);
        tokio::pin!(fut);
        let mut sent = 0u64;
        // The call first: one that is done when first polled never waits on the queue.
        let outcome = loop {
            tokio::select! {
                biased;
                outcome = &mut fut => break outcome,
                () = queue.ready.notified() => {
                    while let Some(message) = queue.pop() {
                        notify_progress(&peer, &token, &mut sent, message).await;
                    }
                }
            }
        };
        // What the tool emitted just before it finished still precedes the result.
        while let Some(message) = queue.pop() {
            notify_progress(&peer, &token, &mut sent, message).await;
        }
        outcome
    }
}

/// Sends the next progress notification (`sent` counts them). Boxed: the notification's
/// future is large, and only calls that report progress send one.
fn notify_progress<'a>(
    peer: &'a Peer<RoleServer>,
    token: &ProgressToken,
    sent: &mut u64,
    message: String,
) -> BoxFuture<'a, ()> {
    *sent += 1;
    let param = ProgressNotificationParam::new(token.clone(), *sent as f64).with_message(message);
    Box::pin(async move {
        // A client gone away is the call's cancellation to notice, not ours.
        let _ = peer.notify_progress(param).await;
    })
}

impl ServerHandler for McpHandler {
    fn get_info(&self) -> ServerConfig {
        self.shared.info.clone()
    }

    /// The server's information, cacheable like `tools/list`: neither changes while the
    /// server runs.
    async fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        let versions = self.supported_protocol_versions().into_owned();
        Ok(DiscoverResult::from_server_info(versions, self.get_info())
            .with_ttl_ms(self.shared.list_ttl_ms)
            .with_cache_scope(CacheScope::Public))
    }

    /// Every tool, in the registry's order, the same on every request: the list is made once
    /// when the server starts and does not depend on who asks, so clients (and caches between
    /// them and the server) may keep it for the configured time and share it.
    ///
    /// With principals, each sees its own tools: the list is then cacheable by the client
    /// only (`cacheScope: "private"`).
    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let served = self.shared.served(principal_of(&context).as_ref());
        let scope = if self.shared.lists_differ() {
            CacheScope::Private
        } else {
            CacheScope::Public
        };
        Ok(ListToolsResult::with_all_items(served.tools.clone())
            .with_ttl_ms(self.shared.list_ttl_ms)
            .with_cache_scope(scope))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.find_tool(name).cloned()
    }

    fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CallToolResponse, ErrorData>> + Send + '_ {
        // What the call needs is taken out of the request and its context here, so that
        // neither is kept in the call's future (the server spawns it, copying it whole).
        let principal = principal_of(&context);
        let (state, responses) = (request.request_state, request.input_responses);
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let (call_id, tool) = (request_id(&context.id), request.name.into_owned());
        let call = ToolCall::new(call_id.clone(), tool.clone(), arguments);
        // Chunk and progress events become progress notifications when the client asked
        // for them with a progress token.
        let progress = context.meta.get_progress_token();
        let session = self.session_for(principal.as_ref());
        // Cancelled by the client, or by the server when it stops.
        let cancel = context.ct.child_token();
        let drain = self.shared.drain.clone();
        let mut options = CallOptions::new()
            .cancel(cancel.clone())
            .conversation(self.conversation(&context, principal.as_ref()));
        // A call that asks for approval asks the client's user, where the client can:
        // through a round trip (2026-07-28), whose state is checked against the used ones when
        // the call runs, or by asking the peer.
        let mut asks_back = None;
        if let Some(asking) = &self.shared.asking
            && can_ask(context.client_capabilities().as_ref())
        {
            let version = context.protocol_version();
            if version
                .as_ref()
                .is_some_and(|v| *v >= ProtocolVersion::V_2026_07_28)
            {
                asks_back = Some((asking.clone(), state, responses));
            } else {
                options.approver = Some(Arc::new(PeerApprover {
                    peer: context.peer.clone(),
                    version: version.unwrap_or(ProtocolVersion::V_2025_06_18),
                    // The call's token: the client's cancellation or the server's stop.
                    cancel: cancel.clone(),
                    granted: self.granted.clone(),
                }));
            }
        }
        // The client's trace (`_meta.traceparent`, SEP-414): the call's span joins it.
        options.trace_context = trace_context(&context.meta);
        let peer = context.peer;
        async move {
            let mut round_trip = None;
            if let Some((asking, state, responses)) = asks_back {
                let approver = Arc::new(
                    RoundTripApprover::new(
                        asking,
                        principal.as_deref(),
                        (&tool, arguments_of(&call)),
                        state,
                        responses,
                    )
                    .await,
                );
                // A retry with the user's answer goes on with the record of the call that
                // asked: the asking round is one record.
                options.continues = approver.continues();
                options.approver = Some(approver.clone());
                round_trip = Some(approver);
            }
            // The call's future is boxed: tokio moves this future whole several times, so it
            // should hold a pointer to the call, not the call.
            let outcome: BoxFuture<'_, CallOutcome> = match progress {
                None => Box::pin(async move { session.call_with(call, options).await }),
                Some(token) => Box::pin(Self::call_reporting_progress(
                    session, call, options, token, peer,
                )),
            };
            let outcome = match drain.enter() {
                None => {
                    drop(outcome);
                    CallOutcome::rejected(call_id, tool, ToolError::server_stopping())
                }
                Some(_running) => Self::run_until_stopped(outcome, &drain, &cancel).await,
            };
            // The user has not answered yet: the call is answered with the question.
            if let Some(question) = round_trip.and_then(|a| a.take_pending()) {
                return Ok(CallToolResponse::InputRequired(question));
            }

            // Each call gets a tracker of its own: an MCP host keeps (or compacts) its
            // context itself, so a resource is never answered with "already shown".
            let mut tracker = ResourcesTracker::new();
            let parts = McpParts::of(&outcome, &mut tracker);
            let mut content = vec![ContentBlock::text(parts.text)];
            content.extend(
                parts
                    .images
                    .iter()
                    .map(|i| ContentBlock::image(i.base64(), i.media_type())),
            );
            let mut result = if parts.is_error {
                CallToolResult::error(content)
            } else {
                CallToolResult::success(content)
            };
            result.structured_content = parts.structured;
            Ok(CallToolResponse::from(result))
        }
    }
}

/// The W3C trace context a request's `_meta` carries, if it has a valid `traceparent`.
fn trace_context(meta: &rmcp::model::MetaObject) -> Option<TraceContext> {
    let mut context = TraceContext::parse(meta.get_traceparent()?).ok()?;
    if let Some(state) = meta.get_tracestate() {
        context = context.with_tracestate(state);
    }
    if let Some(baggage) = meta.get_baggage() {
        context = context.with_baggage(baggage);
    }
    Some(context)
}

/// A request's id as the call's id: the number in decimal (as `Display` writes it, without
/// the formatting machinery), or the string as sent.
fn request_id(id: &NumberOrString) -> String {
    match id {
        NumberOrString::String(s) => String::from(&**s),
        NumberOrString::Number(n) => {
            let mut buf = [0u8; 20];
            let digits = crate::call::decimal_digits(n.unsigned_abs(), &mut buf);
            let mut text = String::with_capacity(digits.len() + 1);
            if *n < 0 {
                text.push('-');
            }
            text.extend(digits.iter().map(|&d| char::from(d)));
            text
        }
    }
}

/// A chunk or progress message as a notification carries it: at most
/// [`MAX_PROGRESS_MESSAGE_CHARS`] characters, saying when it was cut.
fn bounded_message(text: &str) -> String {
    match text.char_indices().nth(MAX_PROGRESS_MESSAGE_CHARS) {
        None => text.to_owned(),
        Some((at, _)) => format!(
            "{}… ({} more bytes; the call's result has the full output)",
            &text[..at],
            text.len() - at
        ),
    }
}

/// A call's arguments as JSON, borrowed (an MCP call's always are JSON; no copy on the path).
fn arguments_of(call: &ToolCall) -> &Value {
    match &call.arguments {
        Arguments::Value(v) => v,
        Arguments::Text(_) => &Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_id_is_written_as_display_writes_it() {
        for n in [0, 7, -1, 10, -99, 12_345, i64::MAX, i64::MIN] {
            let id = NumberOrString::Number(n);
            assert_eq!(request_id(&id), id.to_string());
        }
        let id = NumberOrString::String(Arc::from("req-7"));
        assert_eq!(request_id(&id), "req-7");
    }
}
