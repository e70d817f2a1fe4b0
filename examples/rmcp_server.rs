//! An rmcp server of your own that also serves toolsmith's tools: one resource, one prompt and
//! one rmcp `#[tool]` of its own, plus tool-std's read-only file and search tools and
//! `create_file`, over stdio.
//!
//! ```text
//! cargo run --example rmcp_server --features std,mcp -- [DIR]   # DIR: the workspace (default .)
//! ```
//!
//! The server's `ServerHandler` keeps its own `ToolRouter` and prompt for what it owns and
//! hands the toolsmith tools to [`McpToolsSession`]: their calls are validated (a bad call is
//! an `isError` result the model can act on), their results carry `structuredContent`, and
//! `create_file`, which asks for approval, asks the client's user (elicitation under
//! 2025-11-25, `input_required` under 2026-07-28) and is denied where the client cannot ask.
//! Every call is recorded in the activity store, grouped by client.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, GetPromptRequestParams, GetPromptResponse,
    GetPromptResult, ListPromptsResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, Prompt, PromptArgument, PromptMessage, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, Role, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt, tool, tool_router};
use toolsmith::mcp::{McpTools, McpToolsSession, ServeOptions};
use toolsmith::std_tools::workspace::Workspace;
use toolsmith::{Registry, Runtime, SessionConfig, ToolSelection};

/// The server's own resource.
const NOTES_URI: &str = "notes://readme";
const NOTES: &str = "This server reads the workspace; it writes only what you allow.";

/// The rmcp tool's arguments.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ShoutArgs {
    /// The text to shout.
    text: String,
}

/// The server: its own rmcp tools, and toolsmith's for this connection.
struct NotesServer {
    own: ToolRouter<NotesServer>,
    toolsmith: McpToolsSession,
}

#[tool_router(router = own)]
impl NotesServer {
    /// Shout a text back (the server's own rmcp tool).
    #[tool(name = "shout", description = "Say a text back in capitals.")]
    async fn shout(&self, Parameters(args): Parameters<ShoutArgs>) -> String {
        args.text.to_uppercase()
    }
}

impl ServerHandler for NotesServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_prompts()
            .build();
        ServerConfig::new(capabilities).with_instructions("Notes and the workspace's files.")
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut tools = self.own.list_all();
        tools.extend(self.toolsmith.tools(&context));
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if self.toolsmith.owns(&request.name) {
            return self.toolsmith.call_tool(request, context).await;
        }
        self.own
            .call(ToolCallContext::new(self, request, context))
            .await
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.own
            .get(name)
            .cloned()
            .or_else(|| self.toolsmith.get_tool(name))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let notes = Resource::new(NOTES_URI, "readme").with_description("What this server does.");
        Ok(ListResourcesResult::with_all_items(vec![notes]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != NOTES_URI {
            return Err(ErrorData::resource_not_found(
                format!("no resource {}", request.uri),
                None,
            ));
        }
        let contents = ResourceContents::text(NOTES, NOTES_URI);
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let topic = PromptArgument::new("topic")
            .with_description("What to summarize")
            .with_required(true);
        let prompt = Prompt::new(
            "summarize",
            Some("Summarize the workspace's files on a topic."),
            Some(vec![topic]),
        );
        Ok(ListPromptsResult::with_all_items(vec![prompt]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != "summarize" {
            return Err(ErrorData::invalid_params(
                format!("no prompt {}; the prompt is `summarize`", request.name),
                None,
            ));
        }
        let topic = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("topic"))
            .and_then(|t| t.as_str())
            .unwrap_or("everything");
        let text = format!("Use grep and read_file to summarize what the files say about {topic}.");
        let message = PromptMessage::new_text(Role::User, text);
        Ok(GetPromptResult::new(vec![message]).into())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = std::env::args().nth(1).unwrap_or_else(|| ".".to_owned());
    let registry = Registry::from_inventory()?;
    // tool-std's tools that only read, and `create_file` (which asks for approval).
    let selected = ToolSelection::all()
        .tools([
            "read_file",
            "list_directory",
            "glob",
            "grep",
            "search",
            "create_file",
        ])
        .resolve(&registry)?;
    let runtime = Runtime::builder(registry)
        .service(std::sync::Arc::new(Workspace::single(&root)?))
        .build();
    let options = ServeOptions::new("notes").session(SessionConfig::default().tools(selected));
    let tools = McpTools::new(runtime, options)?;
    // One connection (stdio): one session of the tools.
    let server = NotesServer {
        own: NotesServer::own(),
        toolsmith: tools.session(),
    };
    server
        .serve(rmcp::transport::stdio())
        .await?
        .waiting()
        .await?;
    Ok(())
}
