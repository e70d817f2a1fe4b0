//! The `prompt_manager` tool's `view` and `update` actions through the runtime, as a model calls
//! them (seed 000's test plan), on the memory store and on a real SQLite file (`both!`): each
//! prompt type read and written, the value after an update in the same turn, and updates that
//! survive reopening the SQLite file.

use std::sync::Arc;

use serde_json::{Value, json};
use tool_core::ToolCall;
use tool_std::prompt::{AgentStore, NewAgent, PromptContext, PromptField, SqliteAgentStore};

use crate::support::prompt::*;

both!(
    view_system_prompt_returns_current_value,
    view_conversation_consolidation_returns_reflection_prompt,
    view_memory_management_returns_memory_reflection_prompt,
    view_name_returns_agent_name,
    view_returns_not_set_for_nil_values,
    update_system_prompt_changes_value,
    update_conversation_consolidation_changes_reflection_prompt,
    update_memory_management_changes_memory_reflection_prompt,
    update_name_changes_agent_name,
);

mod behaviour {
    use super::*;

    // View action (seed 000).

    pub(crate) async fn view_system_prompt_returns_current_value(backend: Backend) {
        let fx = Fixture::new(backend).await;
        let out = call(&fx.session(), view("system")).await;
        assert_eq!(
            out.to_json(),
            json!({
                "type": "view_result",
                "prompt_type": "system",
                "value": "Original system prompt",
                "agent_name": "Sage"
            })
        );
        assert_eq!(view_result(&out).agent_name, fx.agent.name);
    }

    pub(crate) async fn view_conversation_consolidation_returns_reflection_prompt(
        backend: Backend,
    ) {
        let fx = Fixture::new(backend).await;
        let json = call(&fx.session(), view("conversation_consolidation"))
            .await
            .to_json();
        assert_eq!(json["type"], "view_result");
        assert_eq!(json["prompt_type"], "conversation_consolidation");
        assert_eq!(json["value"], "Original reflection prompt");
    }

    pub(crate) async fn view_memory_management_returns_memory_reflection_prompt(backend: Backend) {
        let fx = Fixture::new(backend).await;
        let json = call(&fx.session(), view("memory_management"))
            .await
            .to_json();
        assert_eq!(json["type"], "view_result");
        assert_eq!(json["prompt_type"], "memory_management");
        assert_eq!(json["value"], "Original memory prompt");
    }

    pub(crate) async fn view_name_returns_agent_name(backend: Backend) {
        let fx = Fixture::new(backend).await;
        let json = call(&fx.session(), view("name")).await.to_json();
        assert_eq!(json["type"], "view_result");
        assert_eq!(json["prompt_type"], "name");
        assert_eq!(json["value"], "Sage");
    }

    pub(crate) async fn view_returns_not_set_for_nil_values(backend: Backend) {
        let fx = Fixture::new(backend).await;
        // Never set.
        let blank = fx
            .store
            .create(NewAgent::new("default", "Blank"))
            .await
            .unwrap();
        let session = session_with(PromptContext::new(fx.store.clone()).with_agent(&blank));
        for prompt_type in ["system", "conversation_consolidation", "memory_management"] {
            let out = call(&session, view(prompt_type)).await;
            assert_eq!(view_result(&out).value, "(not set)", "{prompt_type}");
        }
        // Set to nothing (the seed's `presence`: blank is not set).
        for value in ["", "  \n"] {
            fx.store
                .update_field(fx.agent.id, PromptField::SystemPrompt, value)
                .await
                .unwrap();
            let out = call(&fx.session(), view("system")).await;
            assert_eq!(view_result(&out).value, "(not set)");
        }
    }

    // Update action (seed 000), re-read from the store and, for SQLite, from the file.

    async fn update_changes(backend: Backend, prompt_type: &str, content: &str) -> Fixture {
        let fx = Fixture::new(backend).await;
        let out = call(&fx.session(), update(prompt_type, content)).await;
        let result = update_result(&out);
        assert_eq!(out.to_json()["type"], "update_result");
        assert_eq!(out.to_json()["prompt_type"], prompt_type);
        assert!(result.success);
        assert_eq!(result.new_value, content);
        fx
    }

    pub(crate) async fn update_system_prompt_changes_value(backend: Backend) {
        let fx = update_changes(backend, "system", "New system prompt").await;
        assert_eq!(
            fx.reload().await.system_prompt.as_deref(),
            Some("New system prompt")
        );
        assert_eq!(
            fx.reload_from_disk().await.system_prompt.as_deref(),
            Some("New system prompt")
        );
        // The other fields are untouched.
        let agent = fx.reload_from_disk().await;
        assert_eq!(agent.name, "Sage");
        assert_eq!(
            agent.reflection_prompt.as_deref(),
            Some("Original reflection prompt")
        );
    }

    pub(crate) async fn update_conversation_consolidation_changes_reflection_prompt(
        backend: Backend,
    ) {
        let fx = update_changes(backend, "conversation_consolidation", "New reflection").await;
        assert_eq!(
            fx.reload().await.reflection_prompt.as_deref(),
            Some("New reflection")
        );
        assert_eq!(
            fx.reload_from_disk().await.reflection_prompt.as_deref(),
            Some("New reflection")
        );
    }

    pub(crate) async fn update_memory_management_changes_memory_reflection_prompt(
        backend: Backend,
    ) {
        let fx = update_changes(backend, "memory_management", "New memory prompt").await;
        assert_eq!(
            fx.reload().await.memory_reflection_prompt.as_deref(),
            Some("New memory prompt")
        );
        assert_eq!(
            fx.reload_from_disk()
                .await
                .memory_reflection_prompt
                .as_deref(),
            Some("New memory prompt")
        );
    }

    pub(crate) async fn update_name_changes_agent_name(backend: Backend) {
        let fx = update_changes(backend, "name", "New Agent Name").await;
        assert_eq!(fx.reload().await.name, "New Agent Name");
        assert_eq!(fx.reload_from_disk().await.name, "New Agent Name");
        // The answer and later views speak of the new name.
        let out = call(&fx.session(), view("system")).await;
        assert_eq!(view_result(&out).agent_name, "New Agent Name");
    }
}

#[tokio::test]
async fn sqlite_updates_survive_reopening_the_file() {
    let fx = Fixture::new(Backend::Sqlite).await;
    let path = fx.path.clone().unwrap();
    let session = fx.session();
    for (prompt_type, content) in [
        ("system", "S"),
        ("conversation_consolidation", "C"),
        ("memory_management", "M"),
        ("name", "N"),
    ] {
        assert!(
            call(&session, update(prompt_type, content))
                .await
                .is_success()
        );
    }
    drop(session);
    let reopened: Arc<dyn AgentStore> = Arc::new(SqliteAgentStore::open(&path).await.unwrap());
    let agent = reopened.get_by_id(fx.agent.id).await.unwrap().unwrap();
    assert_eq!(
        (
            agent.system_prompt.as_deref(),
            agent.reflection_prompt.as_deref(),
            agent.memory_reflection_prompt.as_deref(),
            agent.name.as_str(),
        ),
        (Some("S"), Some("C"), Some("M"), "N")
    );
    // And the tool reads them back through the reopened store.
    let session = session_with(PromptContext::new(reopened).with_agent(&agent));
    for (prompt_type, value) in [
        ("system", "S"),
        ("conversation_consolidation", "C"),
        ("memory_management", "M"),
        ("name", "N"),
    ] {
        assert_eq!(
            view_result(&call(&session, view(prompt_type)).await).value,
            value
        );
    }
}

// Regression: in one turn, view system, update system, view system answered the second view
// from the redundancy cache, as a duplicate of the first, with the value from before the
// update.
#[tokio::test]
async fn view_after_update_in_the_same_turn_shows_the_new_value() {
    for backend in [Backend::Memory, Backend::Sqlite] {
        let fx = Fixture::new(backend).await;
        let session = fx.turn_session();
        let turn = |id: &str, arguments: Value| ToolCall::new(id, "prompt_manager", arguments);

        let before = session.call(turn("c1", view("system"))).await;
        assert_eq!(view_result(&before).value, "Original system prompt");
        let updated = session.call(turn("c2", update("system", "NEW"))).await;
        assert_eq!(update_result(&updated).new_value, "NEW");
        let after = session.call(turn("c3", view("system"))).await;
        assert_eq!(after.duplicate_of, None, "{}", after.to_json());
        assert_eq!(view_result(&after).value, "NEW");
        // With no write since, the same view is answered from the last one.
        let again = session.call(turn("c4", view("system"))).await;
        assert_eq!(again.duplicate_of.as_deref(), Some("c3"));
        assert_eq!(view_result(&again).value, "NEW");
    }
}
