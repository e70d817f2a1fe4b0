//! Seed 000's two polymorphic tools declared with the macros and driven through the runtime:
//! `PromptManagerTool` as a `#[tool]` impl with `#[action]` methods, `WebTool` as a `#[tool]`
//! function over a `#[derive(Action)]` enum. Their behaviour matrices, response shapes and
//! validation errors (`allowed_actions`, `allowed_prompt_types`, "content is required for
//! update action") are the seed's; the agent, the chat and the network are test doubles.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolsmith::{
    Action, ApproveAll, Choice, Permission, PermissionSet, Registry, Render, Runtime, Session,
    SessionConfig, ToolCall, ToolContext, ToolError, ToolResult, tool,
};

// ---- PromptManagerTool -----------------------------------------------------------------

/// Which prompt: the agent's system prompt, its two reflection prompts, or its name.
#[derive(Action, Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum PromptType {
    System,
    ConversationConsolidation,
    MemoryManagement,
    Name,
}

/// The agent whose prompts the tool manages (the seed's `current_agent`).
#[derive(Default)]
struct Agent {
    fields: Mutex<HashMap<PromptType, String>>,
}

impl Agent {
    fn with(values: &[(PromptType, &str)]) -> Self {
        let agent = Agent::default();
        for (k, v) in values {
            agent.set(*k, v);
        }
        agent
    }
    fn get(&self, k: PromptType) -> Option<String> {
        self.fields.lock().unwrap().get(&k).cloned()
    }
    fn set(&self, k: PromptType, v: &str) {
        self.fields.lock().unwrap().insert(k, v.to_owned());
    }
    fn name(&self) -> String {
        self.get(PromptType::Name).unwrap_or_default()
    }
}

/// The conversation the call happens in (the seed's `chat`).
struct Chat {
    group: bool,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct ViewResult {
    r#type: &'static str,
    prompt_type: PromptType,
    value: String,
    agent_name: String,
}
impl Render for ViewResult {}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct UpdateResult {
    r#type: &'static str,
    prompt_type: PromptType,
    success: bool,
    new_value: String,
    agent_name: String,
}
impl Render for UpdateResult {}

#[derive(Default)]
struct PromptManager;

fn agent(ctx: &ToolContext) -> ToolResult<Arc<Agent>> {
    if !ctx.service::<Chat>().is_some_and(|c| c.group) {
        return Err(ToolError::user(
            "This tool only works in group conversations",
        ));
    }
    ctx.service::<Agent>()
        .ok_or_else(|| ToolError::user("No current agent context"))
}

/// View or update your prompts and name.
#[tool(
    name = "prompt_manager",
    permissions(view_prompts),
    aliases(view_system_prompt, update_system_prompt),
    register = false
)]
impl PromptManager {
    /// View a prompt or the name.
    #[action(read_only)]
    async fn view(&self, ctx: &ToolContext, prompt_type: PromptType) -> ToolResult<ViewResult> {
        let agent = agent(ctx)?;
        let value = agent
            .get(prompt_type)
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| "(not set)".to_owned());
        Ok(ViewResult {
            r#type: "view_result",
            prompt_type,
            value,
            agent_name: agent.name(),
        })
    }

    /// Replace a prompt or the name.
    #[action(permissions(manage_prompts), requires_approval)]
    async fn update(
        &self,
        ctx: &ToolContext,
        prompt_type: PromptType,
        /// New value (required for update action).
        content: String,
    ) -> ToolResult<UpdateResult> {
        let agent = agent(ctx)?;
        agent.set(prompt_type, &content);
        Ok(UpdateResult {
            r#type: "update_result",
            prompt_type,
            success: true,
            new_value: agent.get(prompt_type).unwrap_or_default(),
            agent_name: agent.name(),
        })
    }
}

fn prompt_session(chat: Option<Chat>, agent: Option<Arc<Agent>>) -> Session {
    let registry = Registry::builder().register(PromptManager).build().unwrap();
    let runtime = Runtime::builder(registry).approver(ApproveAll).build();
    let mut config = SessionConfig::default();
    if let Some(chat) = chat {
        config = config.service(Arc::new(chat));
    }
    if let Some(agent) = agent {
        config = config.service(agent);
    }
    runtime.session_with(config)
}

fn seeded_agent() -> Arc<Agent> {
    Arc::new(Agent::with(&[
        (PromptType::System, "Original system prompt"),
        (
            PromptType::ConversationConsolidation,
            "Original reflection prompt",
        ),
        (PromptType::MemoryManagement, "Original memory prompt"),
        (PromptType::Name, "Sage"),
    ]))
}

async fn call(session: &Session, name: &str, args: Value) -> Value {
    session.clear_current_turn();
    session
        .call(ToolCall::new("c", name, args.to_string()))
        .await
        .to_json()
}

const ALL_TYPES: [&str; 4] = [
    "system",
    "conversation_consolidation",
    "memory_management",
    "name",
];

#[tokio::test]
async fn view_each_prompt_type() {
    let agent = seeded_agent();
    let s = prompt_session(Some(Chat { group: true }), Some(agent));
    let expected = [
        "Original system prompt",
        "Original reflection prompt",
        "Original memory prompt",
        "Sage",
    ];
    for (prompt_type, value) in ALL_TYPES.iter().zip(expected) {
        let out = call(
            &s,
            "prompt_manager",
            json!({"action": "view", "prompt_type": prompt_type}),
        )
        .await;
        assert_eq!(
            out,
            json!({"type": "view_result", "prompt_type": prompt_type, "value": value, "agent_name": "Sage"})
        );
    }
}

#[tokio::test]
async fn view_unset_value_says_not_set() {
    let agent = Arc::new(Agent::with(&[(PromptType::Name, "Sage")]));
    let s = prompt_session(Some(Chat { group: true }), Some(agent));
    let out = call(
        &s,
        "prompt_manager",
        json!({"action": "view", "prompt_type": "system"}),
    )
    .await;
    assert_eq!(out["value"], "(not set)");
}

#[tokio::test]
async fn update_each_prompt_type() {
    let agent = seeded_agent();
    let s = prompt_session(Some(Chat { group: true }), Some(agent.clone()));
    for prompt_type in ALL_TYPES {
        let content = format!("New {prompt_type}");
        let out = call(
            &s,
            "prompt_manager",
            json!({"action": "update", "prompt_type": prompt_type, "content": content}),
        )
        .await;
        assert_eq!(out["type"], "update_result", "{out}");
        assert_eq!(out["success"], true);
        assert_eq!(out["prompt_type"], prompt_type);
        assert_eq!(out["new_value"], content.as_str());
        let stored = agent.get(PromptType::from_name(prompt_type).unwrap());
        assert_eq!(stored.as_deref(), Some(content.as_str()));
    }
    // The name changed last, and every answer names the agent as it is now.
    let out = call(
        &s,
        "prompt_manager",
        json!({"action": "view", "prompt_type": "system"}),
    )
    .await;
    assert_eq!(out["agent_name"], "New name");
}

#[tokio::test]
async fn invalid_action_lists_allowed_values_in_declaration_order() {
    let s = prompt_session(Some(Chat { group: true }), Some(seeded_agent()));
    let out = call(
        &s,
        "prompt_manager",
        json!({"action": "delete", "prompt_type": "system"}),
    )
    .await;
    assert_eq!(out["error_type"], "validation_error");
    assert!(
        out["error"]
            .as_str()
            .unwrap()
            .contains("Invalid action 'delete'"),
        "{out}"
    );
    assert_eq!(out["allowed_actions"], json!(["view", "update"]));
    assert_eq!(out["allowed_prompt_types"], json!(ALL_TYPES));
}

#[tokio::test]
async fn invalid_prompt_type_lists_allowed_values() {
    let s = prompt_session(Some(Chat { group: true }), Some(seeded_agent()));
    let out = call(
        &s,
        "prompt_manager",
        json!({"action": "view", "prompt_type": "invalid"}),
    )
    .await;
    assert!(
        out["error"]
            .as_str()
            .unwrap()
            .contains("Invalid prompt_type 'invalid'"),
        "{out}"
    );
    assert_eq!(out["allowed_actions"], json!(["view", "update"]));
    assert_eq!(out["allowed_prompt_types"], json!(ALL_TYPES));
}

#[tokio::test]
async fn update_without_content_says_content_is_required() {
    let agent = seeded_agent();
    let s = prompt_session(Some(Chat { group: true }), Some(agent.clone()));
    let out = call(
        &s,
        "prompt_manager",
        json!({"action": "update", "prompt_type": "system"}),
    )
    .await;
    assert_eq!(out["error_type"], "validation_error");
    assert!(
        out["error"]
            .as_str()
            .unwrap()
            .contains("content is required for update action"),
        "{out}"
    );
    assert_eq!(
        agent.get(PromptType::System).as_deref(),
        Some("Original system prompt")
    );
}

#[tokio::test]
async fn context_restrictions() {
    let s = prompt_session(None, Some(seeded_agent()));
    let out = call(
        &s,
        "prompt_manager",
        json!({"action": "view", "prompt_type": "system"}),
    )
    .await;
    assert!(
        out["error"]
            .as_str()
            .unwrap()
            .contains("group conversations"),
        "{out}"
    );

    let s = prompt_session(Some(Chat { group: true }), None);
    let out = call(
        &s,
        "prompt_manager",
        json!({"action": "view", "prompt_type": "system"}),
    )
    .await;
    assert!(
        out["error"].as_str().unwrap().contains("No current agent"),
        "{out}"
    );
}

#[tokio::test]
async fn old_names_resolve_to_the_new_tool() {
    let s = prompt_session(Some(Chat { group: true }), Some(seeded_agent()));
    let out = call(
        &s,
        "view_system_prompt",
        json!({"action": "view", "prompt_type": "name"}),
    )
    .await;
    assert_eq!(out["value"], "Sage");
}

#[tokio::test]
async fn per_action_permissions_and_approval_reach_the_runtime() {
    let registry = Registry::builder().register(PromptManager).build().unwrap();
    let spec = registry.get("prompt_manager").unwrap().spec().clone();
    let set = spec.actions.as_ref().unwrap();
    assert_eq!(set.field, "action");
    let view = set.get("view").unwrap();
    assert!(view.read_only && !view.requires_approval);
    assert_eq!(view.required, ["prompt_type"]);
    let update = set.get("update").unwrap();
    assert!(update.requires_approval && !update.read_only);
    assert_eq!(update.required, ["prompt_type", "content"]);
    assert!(update.permissions.contains(Permission::ManagePrompts));

    // A role that may view but not manage prompts.
    let runtime = Runtime::builder(registry).approver(ApproveAll).build();
    let config = SessionConfig::default()
        .permissions(PermissionSet::EMPTY.with(Permission::ViewPrompts))
        .service(Arc::new(Chat { group: true }))
        .service(seeded_agent());
    let s = runtime.session_with(config);
    let out = call(
        &s,
        "prompt_manager",
        json!({"action": "view", "prompt_type": "name"}),
    )
    .await;
    assert_eq!(out["value"], "Sage");
    let out = call(
        &s,
        "prompt_manager",
        json!({"action": "update", "prompt_type": "name", "content": "X"}),
    )
    .await;
    assert_eq!(out["error_type"], "permission_error", "{out}");
    assert_eq!(out["missing_permissions"], json!(["manage_prompts"]));

    // The default approver denies: `update` needs approval, `view` does not.
    let registry = Registry::builder().register(PromptManager).build().unwrap();
    let runtime = Runtime::builder(registry).build();
    let config = SessionConfig::default()
        .service(Arc::new(Chat { group: true }))
        .service(seeded_agent());
    let s = runtime.session_with(config);
    let out = call(
        &s,
        "prompt_manager",
        json!({"action": "view", "prompt_type": "name"}),
    )
    .await;
    assert_eq!(out["type"], "view_result");
    let out = call(
        &s,
        "prompt_manager",
        json!({"action": "update", "prompt_type": "name", "content": "X"}),
    )
    .await;
    assert_eq!(out["error_type"], "approval_denied", "{out}");
}

// ---- WebTool -------------------------------------------------------------------------

const MAX_SEARCHES_PER_SESSION: u64 = 10;
const RESULT_LIMIT: usize = 10;

/// What the web tool can do.
#[derive(Action, Debug, PartialEq)]
enum WebAction {
    /// Search the web.
    Search {
        /// Search query for 'search' action, or URL for 'fetch' action.
        query_or_url: String,
    },
    /// Fetch a page.
    Fetch { query_or_url: String },
}

/// A search engine and a web server, as the test wants them.
struct Network {
    results: usize,
    pages: HashMap<&'static str, Result<&'static str, &'static str>>,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WebResult {
    SearchResults {
        query: String,
        results: Vec<Value>,
        total_results: usize,
    },
    FetchedPage {
        url: String,
        content: String,
    },
    Redirect {
        original_url: String,
        redirect_url: String,
    },
}
impl Render for WebResult {}

fn web_error(message: &str, query_or_url: &str) -> ToolError {
    ToolError::user(message.to_owned()).with_field("query_or_url", query_or_url)
}

/// Search the web or fetch a page. action: search (query) or fetch (URL).
#[tool(
    name = "web",
    permissions(network),
    open_world,
    aliases(web_search, web_fetch),
    register = false
)]
async fn web(ctx: &ToolContext, args: WebAction) -> ToolResult<WebResult> {
    let net = ctx.require_service::<Network>()?;
    match args {
        WebAction::Search { query_or_url } => {
            if ctx.session().increment("web.searches") > MAX_SEARCHES_PER_SESSION {
                return Err(web_error(
                    "Search limit reached (10 searches per response)",
                    &query_or_url,
                ));
            }
            let results = (0..net.results.min(RESULT_LIMIT))
                .map(|i| json!({"url": format!("https://example{i}.com"), "title": format!("Result {i}")}))
                .collect();
            Ok(WebResult::SearchResults {
                query: query_or_url,
                results,
                total_results: net.results * 100,
            })
        }
        WebAction::Fetch { query_or_url } => {
            if !(query_or_url.starts_with("http://") || query_or_url.starts_with("https://")) {
                return Err(web_error(
                    "Invalid URL: must be http or https",
                    &query_or_url,
                ));
            }
            match net.pages.get(query_or_url.as_str()) {
                Some(Ok(body)) => Ok(WebResult::FetchedPage {
                    url: query_or_url.clone(),
                    content: (*body).to_owned(),
                }),
                Some(Err(location)) => Ok(WebResult::Redirect {
                    original_url: query_or_url.clone(),
                    redirect_url: (*location).to_owned(),
                }),
                None => Err(web_error("HTTP 404: Not Found", &query_or_url)),
            }
        }
    }
}

fn web_session(results: usize) -> Session {
    let registry = Registry::builder().register(WebTool).build().unwrap();
    let mut pages = HashMap::new();
    pages.insert("https://example.com", Ok("Hello World"));
    pages.insert("http://example.com", Err("https://example.com/new"));
    let net = Network { results, pages };
    Runtime::builder(registry)
        .service(Arc::new(net))
        .build()
        .session()
}

#[tokio::test]
async fn web_search_and_fetch() {
    let s = web_session(2);
    let out = call(
        &s,
        "web",
        json!({"action": "search", "query_or_url": "ruby on rails"}),
    )
    .await;
    assert_eq!(out["type"], "search_results");
    assert_eq!(out["query"], "ruby on rails");
    assert_eq!(out["results"].as_array().unwrap().len(), 2);

    let out = call(
        &s,
        "web",
        json!({"action": "fetch", "query_or_url": "https://example.com"}),
    )
    .await;
    assert_eq!(
        out,
        json!({"type": "fetched_page", "url": "https://example.com", "content": "Hello World"})
    );

    let out = call(
        &s,
        "web",
        json!({"action": "fetch", "query_or_url": "http://example.com"}),
    )
    .await;
    assert_eq!(
        out,
        json!({"type": "redirect", "original_url": "http://example.com", "redirect_url": "https://example.com/new"})
    );

    let out = call(
        &s,
        "web",
        json!({"action": "fetch", "query_or_url": "ftp://example.com"}),
    )
    .await;
    assert_eq!(out["type"], "error");
    assert!(out["error"].as_str().unwrap().contains("Invalid URL"));
    assert_eq!(out["query_or_url"], "ftp://example.com");
}

#[tokio::test]
async fn web_search_limits_results_and_searches() {
    let s = web_session(15);
    let out = call(
        &s,
        "web",
        json!({"action": "search", "query_or_url": "test"}),
    )
    .await;
    assert_eq!(out["results"].as_array().unwrap().len(), 10);

    let s = web_session(2);
    for i in 0..MAX_SEARCHES_PER_SESSION {
        let args = json!({"action": "search", "query_or_url": format!("query {i}")});
        let out = s
            .call(ToolCall::new("c", "web", args.to_string()))
            .await
            .to_json();
        assert_eq!(out["type"], "search_results", "{out}");
    }
    let args = json!({"action": "search", "query_or_url": "one too many"});
    let out = s
        .call(ToolCall::new("c", "web", args.to_string()))
        .await
        .to_json();
    assert_eq!(out["type"], "error");
    assert!(
        out["error"]
            .as_str()
            .unwrap()
            .contains("Search limit reached")
    );
}

#[tokio::test]
async fn web_invalid_action_lists_allowed_actions() {
    let s = web_session(2);
    let out = call(
        &s,
        "web",
        json!({"action": "crawl", "query_or_url": "test"}),
    )
    .await;
    assert_eq!(out["type"], "error");
    assert!(
        out["error"]
            .as_str()
            .unwrap()
            .contains("Invalid action 'crawl'"),
        "{out}"
    );
    assert_eq!(out["allowed_actions"], json!(["search", "fetch"]));

    let out = call(&s, "web", json!({"action": "search"})).await;
    assert!(
        out["error"]
            .as_str()
            .unwrap()
            .contains("query_or_url is required for search action"),
        "{out}"
    );
}

#[tokio::test]
async fn web_old_names_resolve() {
    let s = web_session(1);
    let out = call(
        &s,
        "web_search",
        json!({"action": "search", "query_or_url": "x"}),
    )
    .await;
    assert_eq!(out["type"], "search_results");
}
