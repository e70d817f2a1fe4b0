//! The `prompt_manager` tool (seed 000): view or update the current agent's prompts and name.
//!
//! One polymorphic tool replaces `view_system_prompt` and `update_system_prompt`:
//!
//! ```text
//! prompt_manager(action, prompt_type, content?)
//!   action:      view | update
//!   prompt_type: system | conversation_consolidation | memory_management | name
//!   content:     the new value, required for update
//! ```
//!
//! | action | prompt_type | result |
//! |---|---|---|
//! | `view` | `system` | `system_prompt` |
//! | `view` | `conversation_consolidation` | `reflection_prompt` |
//! | `view` | `memory_management` | `memory_reflection_prompt` |
//! | `view` | `name` | `name` |
//! | `update` | any of the above | sets that field to `content` |
//!
//! A new prompt type is a new [`PromptType`] variant and its [`PromptType::field`] arm; a new
//! action is a new `#[action]` method. The schema keeps its shape either way.
//!
//! Answers carry a `type` the model can branch on: [`ViewResult`] (`view_result`, with
//! `"(not set)"` for a prompt that is empty or was never set), [`UpdateResult`]
//! (`update_result`). Errors are `type: "error"` values: a bad `action` or `prompt_type`, or an
//! `update` without `content`, is a `validation_error` carrying `allowed_actions` and
//! `allowed_prompt_types` in declaration order; a value the store refuses (a name taken in the
//! account, a prompt over its length limit) is a `user_error` with the store's message;
//! seed 000's context errors ("No current agent context", "This tool only works in group
//! conversations") are `user_error`s too.
//!
//! `view` needs the `view_prompts` permission and is read-only; `update` also needs
//! `manage_prompts`. Neither needs approval, as in the seed; a host that wants a person to
//! approve updates says `RuntimeBuilder::require_approval("prompt_manager", Some("update"))`.
//!
//! The store and the current agent come from the host's [`PromptContext`] service.
//!
//! ```
//! use std::sync::Arc;
//! use tool_core::{Registry, Runtime, ToolCall};
//! use tool_std::prompt::{AgentStore, MemoryAgentStore, PromptContext, PromptManager};
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build()?.block_on(async {
//! let store = Arc::new(MemoryAgentStore::new());
//! let sage = store.get_or_create("default", "Sage").await?;
//! let registry = Registry::builder().register(PromptManager).build()?;
//! let runtime = Runtime::builder(registry)
//!     .service(Arc::new(PromptContext::new(store).with_agent(&sage)))
//!     .build();
//! let session = runtime.session();
//!
//! let out = session
//!     .call(ToolCall::new("1", "prompt_manager", r#"{"action": "view", "prompt_type": "system"}"#))
//!     .await;
//! assert_eq!(
//!     out.to_json(),
//!     serde_json::json!({
//!         "type": "view_result",
//!         "prompt_type": "system",
//!         "value": "(not set)",
//!         "agent_name": "Sage"
//!     })
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tool_core::{Actions, Choice, Problem, Render, Tool, ToolContext, ToolError, ToolResult};
use tool_macros::{Action, tool};

use super::context::PromptContext;
use super::store::{Agent, PromptField, StoreError};

/// What `view` shows for a prompt that is empty or was never set.
pub const NOT_SET: &str = "(not set)";

/// The tool's description, as seed 000 words it.
pub const DESCRIPTION: &str = "View or update your prompts and name. prompt_type: system, \
     conversation_consolidation, memory_management, or name. action: view or update.";

/// Which of the agent's prompts (or its name) to view or update.
#[derive(Action, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PromptType {
    /// The system prompt (`system_prompt`).
    System,
    /// The prompt used to consolidate a conversation (`reflection_prompt`).
    ConversationConsolidation,
    /// The prompt used to manage memories (`memory_reflection_prompt`).
    MemoryManagement,
    /// The agent's name (`name`), unique within its account.
    Name,
}

impl PromptType {
    /// The agent field this prompt type reads and writes.
    pub const fn field(self) -> PromptField {
        match self {
            PromptType::System => PromptField::SystemPrompt,
            PromptType::ConversationConsolidation => PromptField::ReflectionPrompt,
            PromptType::MemoryManagement => PromptField::MemoryReflectionPrompt,
            PromptType::Name => PromptField::Name,
        }
    }
}

/// The answer to `view`: `{"type": "view_result", "prompt_type", "value", "agent_name"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename = "view_result")]
#[non_exhaustive]
pub struct ViewResult {
    /// The prompt type that was viewed.
    pub prompt_type: PromptType,
    /// Its value, or `"(not set)"` when it is empty or was never set.
    pub value: String,
    /// The current agent's name.
    pub agent_name: String,
}

impl Render for ViewResult {
    fn status(&self) -> Option<String> {
        Some(format!(
            "Viewed the {} of {}",
            self.prompt_type.field(),
            self.agent_name
        ))
    }
}

/// The answer to `update`:
/// `{"type": "update_result", "prompt_type", "success": true, "new_value", "agent_name"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename = "update_result")]
#[non_exhaustive]
pub struct UpdateResult {
    /// The prompt type that was updated.
    pub prompt_type: PromptType,
    /// Always `true`: a failed update is an error instead.
    pub success: bool,
    /// The value now stored.
    pub new_value: String,
    /// The agent's name after the update (the new one when the name was updated).
    pub agent_name: String,
}

impl Render for UpdateResult {
    fn status(&self) -> Option<String> {
        Some(format!(
            "Updated the {} of {}",
            self.prompt_type.field(),
            self.agent_name
        ))
    }
}

/// The `prompt_manager` tool. It keeps no state: the store and the current agent come from
/// the host's [`PromptContext`] service. See the [module documentation](self).
#[derive(Debug, Clone, Copy, Default)]
pub struct PromptManager;

#[tool(
    name = "prompt_manager",
    description = "View or update your prompts and name. prompt_type: system, conversation_consolidation, memory_management, or name. action: view or update.",
    category = "prompt",
    permissions(view_prompts),
    toolsets(prompt),
    aliases(
        view_system_prompt,
        update_system_prompt,
        ViewSystemPromptTool,
        UpdateSystemPromptTool,
        PromptManagerTool
    ),
    destructive,
    idempotent
)]
impl PromptManager {
    /// Show the current value.
    #[action(read_only)]
    async fn view(
        &self,
        ctx: &ToolContext,
        /// One of: system, conversation_consolidation, memory_management, name.
        prompt_type: PromptType,
    ) -> ToolResult<ViewResult> {
        let agent = current_agent(ctx).await?;
        Ok(ViewResult {
            prompt_type,
            value: shown(agent.field(prompt_type.field())),
            agent_name: agent.name,
        })
    }

    /// Replace the value with `content`.
    #[action(permissions(manage_prompts))]
    async fn update(
        &self,
        ctx: &ToolContext,
        /// One of: system, conversation_consolidation, memory_management, name.
        prompt_type: PromptType,
        /// New value.
        content: String,
    ) -> ToolResult<UpdateResult> {
        // The runtime refuses a missing `content`; the seed refuses a blank one as well.
        if content.trim().is_empty() {
            return Err(validation_error(
                Problem::new("/content", "content is required for update action")
                    .expected("non-blank text for action `update`"),
            ));
        }
        let context = ctx.require_service::<PromptContext>()?;
        let agent = context.current_agent().await?;
        let field = prompt_type.field();
        let updated = context
            .store()
            .update_field(agent.id, field, &content)
            .await
            .map_err(|e| store_error(e, prompt_type))?;
        Ok(UpdateResult {
            prompt_type,
            success: true,
            new_value: updated.field(field).unwrap_or_default().to_owned(),
            agent_name: updated.name,
        })
    }
}

/// The current agent, after the context's preconditions.
async fn current_agent(ctx: &ToolContext) -> Result<Agent, ToolError> {
    ctx.require_service::<PromptContext>()?
        .current_agent()
        .await
}

/// A value as `view` shows it: `"(not set)"` for `None` or blank.
fn shown(value: Option<&str>) -> String {
    match value {
        Some(v) if !v.trim().is_empty() => v.to_owned(),
        _ => NOT_SET.to_owned(),
    }
}

/// The action names, in declaration order: `["view", "update"]`.
pub fn allowed_actions() -> Vec<String> {
    <<PromptManager as Tool>::Input as Actions>::action_set()
        .names()
        .map(str::to_owned)
        .collect()
}

/// A `validation_error` raised by the tool itself for one problem, shaped like the runtime's:
/// the problem's message, both allowed lists (also as `allowed_values`), an example call.
fn validation_error(problem: Problem) -> ToolError {
    let example = r#"prompt_manager(action="update", prompt_type="system", content="...")"#;
    let actions = allowed_actions();
    let prompt_types = PromptType::VALUES.to_vec();
    ToolError::validation(problem.message.clone())
        .with_field("allowed_actions", actions.clone())
        .with_field("allowed_prompt_types", prompt_types.clone())
        .with_field(
            "allowed_values",
            serde_json::json!({"action": actions, "prompt_type": prompt_types}),
        )
        .with_field("example", example)
        .with_suggestion(format!("Example: {example}"))
        .with_problems(vec![problem])
}

/// A store failure as the model sees it: a `user_error` with the store's message when a
/// different value would succeed (name taken, too long, empty name), else a `system_error`.
fn store_error(e: StoreError, prompt_type: PromptType) -> ToolError {
    let err = if e.is_user_error() {
        ToolError::user(format!("Failed to update: {e}"))
    } else {
        ToolError::system(format!("Failed to update: {e}"))
    };
    err.with_field("prompt_type", Value::from(prompt_type.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_types_map_to_fields_in_seed_order() {
        let fields: Vec<PromptField> = [
            PromptType::System,
            PromptType::ConversationConsolidation,
            PromptType::MemoryManagement,
            PromptType::Name,
        ]
        .into_iter()
        .map(PromptType::field)
        .collect();
        assert_eq!(fields, PromptField::ALL);
        assert_eq!(
            PromptType::VALUES,
            [
                "system",
                "conversation_consolidation",
                "memory_management",
                "name"
            ]
        );
    }

    #[test]
    fn blank_values_are_not_set() {
        assert_eq!(shown(None), NOT_SET);
        assert_eq!(shown(Some("")), NOT_SET);
        assert_eq!(shown(Some(" \n")), NOT_SET);
        assert_eq!(shown(Some("x")), "x");
    }

    #[test]
    fn description_is_the_seeds() {
        assert_eq!(PromptManager.spec().description, DESCRIPTION);
        assert_eq!(allowed_actions(), ["view", "update"]);
    }
}
