//! Seed 000's `PromptManagerTool` declared with the macros and driven through the runtime: a
//! `#[tool]` impl with `#[action]` methods. Its behaviour matrix, response shapes and
//! validation errors (`allowed_actions`, `allowed_prompt_types`, "content is required for
//! update action") are the seed's; the agent and the chat are test doubles.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::json;
use toolsmith::{
    Action, ApproveAll, Choice, Permission, PermissionSet, Registry, Render, Runtime, Session,
    SessionConfig, ToolContext, ToolError, ToolResult, tool,
};

use crate::support::macros::call;

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
