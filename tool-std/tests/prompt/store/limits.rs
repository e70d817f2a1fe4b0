//! The agent stores' limits, on the memory store and on a real SQLite file (`both_stores!`):
//! every field's length limit at the boundary, on update and on create, and empty names.

use tool_std::prompt::{
    AgentStore, MAX_MEMORY_REFLECTION_PROMPT_CHARS, MAX_NAME_CHARS, MAX_REFLECTION_PROMPT_CHARS,
    MAX_SYSTEM_PROMPT_CHARS, NewAgent, PromptField, StoreError,
};

use crate::support::prompt::*;

/// Behaviours every store must show, written against the trait only.
mod behaviour {
    use super::*;

    pub(crate) async fn limits_hold_at_the_boundary(store: &dyn AgentStore) {
        let agent = store
            .create(NewAgent::new("default", "Sage"))
            .await
            .unwrap();
        let cases = [
            (PromptField::SystemPrompt, MAX_SYSTEM_PROMPT_CHARS, 50_000),
            (
                PromptField::ReflectionPrompt,
                MAX_REFLECTION_PROMPT_CHARS,
                10_000,
            ),
            (
                PromptField::MemoryReflectionPrompt,
                MAX_MEMORY_REFLECTION_PROMPT_CHARS,
                10_000,
            ),
            (PromptField::Name, MAX_NAME_CHARS, 10_000),
        ];
        for (field, limit, expected) in cases {
            assert_eq!(limit, expected, "{field}");
            // Multi-byte characters: the limit counts characters, not bytes.
            let at_limit = "é".repeat(limit);
            let updated = store
                .update_field(agent.id, field, &at_limit)
                .await
                .unwrap();
            assert_eq!(updated.field(field), Some(at_limit.as_str()), "{field}");

            let err = store
                .update_field(agent.id, field, &"é".repeat(limit + 1))
                .await
                .unwrap_err();
            assert!(err.is_user_error());
            let expected_message = format!(
                "{} is too long: {} characters, the limit is {}",
                field.label(),
                group(limit + 1),
                group(limit)
            );
            assert_eq!(err.to_string(), expected_message);
            let stored = store.get_by_id(agent.id).await.unwrap().unwrap();
            assert_eq!(
                stored.field(field),
                Some(at_limit.as_str()),
                "refused, kept"
            );
        }
        let err = store
            .update_field(agent.id, PromptField::SystemPrompt, &"x".repeat(50_012))
            .await
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "system prompt is too long: 50,012 characters, the limit is 50,000"
        );
    }

    pub(crate) async fn limits_apply_on_create(store: &dyn AgentStore) {
        let ok = NewAgent::new("default", "x".repeat(MAX_NAME_CHARS))
            .with_system_prompt("s".repeat(MAX_SYSTEM_PROMPT_CHARS))
            .with_reflection_prompt("r".repeat(MAX_REFLECTION_PROMPT_CHARS))
            .with_memory_reflection_prompt("m".repeat(MAX_MEMORY_REFLECTION_PROMPT_CHARS));
        store.create(ok).await.unwrap();

        let too_long = [
            NewAgent::new("default", "a").with_system_prompt("s".repeat(50_001)),
            NewAgent::new("default", "b").with_reflection_prompt("r".repeat(10_001)),
            NewAgent::new("default", "c").with_memory_reflection_prompt("m".repeat(10_001)),
            NewAgent::new("default", "n".repeat(10_001)),
        ];
        for agent in too_long {
            let err = store.create(agent).await.unwrap_err();
            assert!(matches!(err, StoreError::TooLong { .. }), "{err:?}");
        }
        assert_eq!(store.list().await.unwrap().len(), 1);
    }

    pub(crate) async fn empty_names_are_refused(store: &dyn AgentStore) {
        let agent = store
            .create(NewAgent::new("default", "Sage"))
            .await
            .unwrap();
        for blank in ["", "   ", "\n\t"] {
            let err = store
                .create(NewAgent::new("default", blank))
                .await
                .unwrap_err();
            assert!(matches!(err, StoreError::EmptyName), "{err:?}");
            let err = store.get_or_create("default", blank).await.unwrap_err();
            assert!(matches!(err, StoreError::EmptyName), "{err:?}");
            let err = store
                .update_field(agent.id, PromptField::Name, blank)
                .await
                .unwrap_err();
            assert!(matches!(err, StoreError::EmptyName), "{err:?}");
            assert!(err.to_string().starts_with("name must not be empty"));
        }
        // Empty prompts are allowed: they are how a prompt is cleared.
        let cleared = store
            .update_field(agent.id, PromptField::SystemPrompt, "")
            .await
            .unwrap();
        assert_eq!(cleared.system_prompt.as_deref(), Some(""));
        assert_eq!(store.list().await.unwrap().len(), 1);
    }
}

both_stores! {
    borrowed: [
        limits_hold_at_the_boundary,
        limits_apply_on_create,
        empty_names_are_refused,
    ],
    shared: [
    ]
}
