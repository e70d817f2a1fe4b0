//! toolsmith's tools inside an rmcp server of the author's own: [`McpTools`] and
//! [`McpToolsSession`].

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use super::handler::{McpHandler, Shared};
use super::{IntoRuntime, ServeError, ServeOptions};
use crate::runtime::Session;

/// A runtime's tools, ready to be served by an rmcp [`ServerHandler`] of your own beside its
/// own resources, prompts and tools: what [`serve`](super::serve) does for a whole server,
/// as a part. Make one per server ([`McpTools::new`]) and one [`McpToolsSession`] per MCP
/// connection ([`McpTools::session`]), which your handler's `list_tools`, `call_tool` and
/// `get_tool` delegate to for the tools it owns ([`McpToolsSession::owns`]).
///
/// A call through it takes the same path as through [`serve`](super::serve): validation
/// with the model-correctable error as an `isError` result, the output schema and
/// `structuredContent`, progress notifications when the client sends a progress token,
/// cancellation by `notifications/cancelled` (and by the end of the connection, when the
/// session is dropped), approval through the client's user (MCP elicitation under
/// 2025-06-18 and 2025-11-25, `input_required` under 2026-07-28; see *Asking the user* in the
/// [module documentation](super)), the activity record grouped by client, and the stop of
/// [`ServeOptions::shutdown`]. What `serve` adds around it is the transport: the stdio frame
/// checks of [`serve_lines`](super::serve_lines) and the HTTP guard of
/// [`router`](super::router) are yours to choose.
///
/// ```no_run
/// use rmcp::handler::server::router::tool::ToolRouter;
/// use rmcp::handler::server::tool::ToolCallContext;
/// use rmcp::model::*;
/// use rmcp::service::RequestContext;
/// use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
/// use tool_core::mcp::{McpTools, McpToolsSession, ServeOptions};
/// use tool_core::{Registry, Runtime};
///
/// struct MyServer {
///     own: ToolRouter<MyServer>,
///     toolsmith: McpToolsSession,
/// }
///
/// impl ServerHandler for MyServer {
///     fn get_info(&self) -> ServerConfig {
///         ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
///     }
///     async fn list_tools(
///         &self,
///         _request: Option<PaginatedRequestParams>,
///         context: RequestContext<RoleServer>,
///     ) -> Result<ListToolsResult, ErrorData> {
///         let mut tools = self.own.list_all();
///         tools.extend(self.toolsmith.tools(&context));
///         Ok(ListToolsResult::with_all_items(tools))
///     }
///     async fn call_tool(
///         &self,
///         request: CallToolRequestParams,
///         context: RequestContext<RoleServer>,
///     ) -> Result<CallToolResponse, ErrorData> {
///         if self.toolsmith.owns(&request.name) {
///             return self.toolsmith.call_tool(request, context).await;
///         }
///         self.own.call(ToolCallContext::new(self, request, context)).await
///     }
///     fn get_tool(&self, name: &str) -> Option<Tool> {
///         self.own.get(name).cloned().or_else(|| self.toolsmith.get_tool(name))
///     }
/// }
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let runtime = Runtime::builder(Registry::from_inventory()?).build();
/// let tools = McpTools::new(runtime, ServeOptions::new("my-server"))?;
/// let server = MyServer { own: ToolRouter::new(), toolsmith: tools.session() };
/// server.serve(rmcp::transport::stdio()).await?.waiting().await?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct McpTools {
    shared: Arc<Shared>,
}

impl McpTools {
    /// The tools of `runtime` offered in mode `mcp` (narrowed by
    /// [`ServeOptions::session`]'s selection, per principal with
    /// [`ServeOptions::principals`]), exported once. The options' name, version and
    /// instructions are the server's own business here (your `get_info` says them); the
    /// rest holds as for [`serve`](super::serve).
    pub fn new(runtime: impl IntoRuntime, options: ServeOptions) -> Result<McpTools, ServeError> {
        let shared = Shared::new(runtime.into_runtime(), &options)?;
        Ok(McpTools {
            shared: Arc::new(shared),
        })
    }

    /// The state of one MCP connection (the stdio connection, an HTTP session): make one in
    /// the handler each connection gets. Dropping it cancels the calls it still runs.
    pub fn session(&self) -> McpToolsSession {
        McpToolsSession {
            handler: McpHandler::new(self.shared.clone()),
        }
    }

    /// The `tools/list` entries of requests without a principal: the MCP export of each tool
    /// ([`provider::mcp::tool`](crate::provider::mcp::tool)), Rust-type formats removed.
    pub fn tools(&self) -> &[Tool] {
        &self.shared.anyone.tools
    }

    /// The capabilities the tools need (`tools`), to merge into your handler's.
    pub fn capabilities(&self) -> ServerCapabilities {
        ServerCapabilities::builder().enable_tools().build()
    }
}

/// One MCP connection's share of [`McpTools`]: its tool [`Session`] (and one per principal),
/// the approvals its user gave "for this session", and who the connection is, for the
/// activity record. Not `Clone`: each connection makes its own with [`McpTools::session`].
#[derive(Debug)]
pub struct McpToolsSession {
    handler: McpHandler,
}

impl McpToolsSession {
    /// Whether `name` is one of the toolsmith tools (of any principal): a call of it belongs
    /// to [`call_tool`](Self::call_tool).
    pub fn owns(&self, name: &str) -> bool {
        self.handler.find_tool(name).is_some()
    }

    /// The `tools/list` entries for the request `context` belongs to (a principal's own
    /// tools under HTTP with principals), to list beside your own.
    pub fn tools(&self, context: &RequestContext<RoleServer>) -> Vec<Tool> {
        self.handler.tools_for(context).to_vec()
    }

    /// The whole `tools/list` answer, as [`serve`](super::serve) gives it (with `ttlMs` and
    /// `cacheScope`), for a handler whose only tools are these.
    pub async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        ServerHandler::list_tools(&self.handler, request, context).await
    }

    /// Runs a `tools/call` of one of the toolsmith tools through the runtime's whole path; a
    /// tool error, an unknown tool and a refused call are `isError` results the model can
    /// act on, and a call waiting for the user under 2026-07-28 is answered
    /// `input_required`.
    pub fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CallToolResponse, ErrorData>> + Send + '_ {
        ServerHandler::call_tool(&self.handler, request, context)
    }

    /// The `tools/list` entry of a toolsmith tool, for your handler's `get_tool`.
    pub fn get_tool(&self, name: &str) -> Option<Tool> {
        self.handler.get_tool(name)
    }

    /// The tool session of requests without a principal (its turn state, its file
    /// tracking).
    pub fn session(&self) -> &Session {
        self.handler.session()
    }
}
