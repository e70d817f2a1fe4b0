//! The agent stores' records, on the memory store and on a real SQLite file (`both_stores!`):
//! create and get by id and by name, names unique per account (renames included), each field
//! updating its own column, unknown ids, get-or-create, listing, and awkward text.

use std::sync::Arc;

use tool_std::prompt::{AgentStore, NewAgent, PromptField, StoreError};

use crate::support::prompt::*;

/// Behaviours every store must show, written against the trait only.
mod behaviour {
    use super::*;

    pub(crate) async fn create_then_get_by_id_and_by_name(store: &dyn AgentStore) {
        let created = store
            .create(
                NewAgent::new("default", "Sage")
                    .with_system_prompt("You are Sage.")
                    .with_reflection_prompt("Summarise.")
                    .with_memory_reflection_prompt("Remember.")
                    .with_enabled_tools(["prompt_manager", "web"]),
            )
            .await
            .unwrap();
        assert_eq!(created.account, "default");
        assert_eq!(created.name, "Sage");
        assert_eq!(created.system_prompt.as_deref(), Some("You are Sage."));
        assert_eq!(created.reflection_prompt.as_deref(), Some("Summarise."));
        assert_eq!(
            created.memory_reflection_prompt.as_deref(),
            Some("Remember.")
        );
        assert_eq!(created.enabled_tools, ["prompt_manager", "web"]);

        assert_eq!(
            store.get_by_id(created.id).await.unwrap(),
            Some(created.clone())
        );
        assert_eq!(
            store.get_by_name("default", "Sage").await.unwrap(),
            Some(created.clone())
        );
        assert_eq!(store.get_by_name("other", "Sage").await.unwrap(), None);
        assert_eq!(store.get_by_id(created.id + 1000).await.unwrap(), None);
    }

    pub(crate) async fn names_are_unique_per_account(store: &dyn AgentStore) {
        store
            .create(NewAgent::new("default", "Sage"))
            .await
            .unwrap();
        let err = store
            .create(NewAgent::new("default", "Sage"))
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::NameTaken { .. }), "{err:?}");
        assert!(err.is_user_error());
        assert_eq!(
            err.to_string(),
            "name 'Sage' is already taken in account 'default'; choose another name"
        );
        // The same name in another account, and another case, are different names.
        store.create(NewAgent::new("other", "Sage")).await.unwrap();
        store
            .create(NewAgent::new("default", "sage"))
            .await
            .unwrap();
        assert_eq!(store.list().await.unwrap().len(), 3);
    }

    pub(crate) async fn renaming_respects_uniqueness(store: &dyn AgentStore) {
        let sage = store
            .create(NewAgent::new("default", "Sage"))
            .await
            .unwrap();
        let oracle = store
            .create(NewAgent::new("default", "Oracle"))
            .await
            .unwrap();
        store.create(NewAgent::new("other", "Seer")).await.unwrap();

        let err = store
            .update_field(oracle.id, PromptField::Name, "Sage")
            .await
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "name 'Sage' is already taken in account 'default'; choose another name"
        );
        assert_eq!(
            store.get_by_id(oracle.id).await.unwrap().unwrap().name,
            "Oracle"
        );

        // Renaming to its own name, or to a name only used in another account, is fine.
        store
            .update_field(sage.id, PromptField::Name, "Sage")
            .await
            .unwrap();
        let seer = store
            .update_field(oracle.id, PromptField::Name, "Seer")
            .await
            .unwrap();
        assert_eq!(seer.name, "Seer");
        assert_eq!(store.get_by_name("default", "Oracle").await.unwrap(), None);
        assert_eq!(
            store.get_by_name("default", "Seer").await.unwrap(),
            Some(seer)
        );
    }

    pub(crate) async fn every_field_updates_its_own_column(store: &dyn AgentStore) {
        let agent = store
            .create(NewAgent::new("default", "Sage"))
            .await
            .unwrap();
        for field in PromptField::ALL {
            let value = format!("new {}", field.column());
            let updated = store.update_field(agent.id, field, &value).await.unwrap();
            assert_eq!(updated.field(field), Some(value.as_str()), "{field}");
            assert_eq!(store.get_by_id(agent.id).await.unwrap(), Some(updated));
        }
        let agent = store.get_by_id(agent.id).await.unwrap().unwrap();
        assert_eq!(agent.system_prompt.as_deref(), Some("new system_prompt"));
        assert_eq!(
            agent.reflection_prompt.as_deref(),
            Some("new reflection_prompt")
        );
        assert_eq!(
            agent.memory_reflection_prompt.as_deref(),
            Some("new memory_reflection_prompt")
        );
        assert_eq!(agent.name, "new name");
    }

    pub(crate) async fn unknown_ids_are_not_found(store: &dyn AgentStore) {
        let err = store
            .update_field(7, PromptField::SystemPrompt, "x")
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::NotFound { id: 7 }));
        assert_eq!(err.to_string(), "agent 7 not found");
        let err = store.set_enabled_tools(7, &[]).await.unwrap_err();
        assert!(matches!(err, StoreError::NotFound { id: 7 }));
        let err = store
            .compare_and_set_enabled_tools(7, &[], &[])
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::NotFound { id: 7 }));
        assert_eq!(store.get_by_id(-1).await.unwrap(), None);
        assert_eq!(store.get_by_id(i64::MAX).await.unwrap(), None);
    }

    pub(crate) async fn get_or_create_returns_the_same_agent(store: &dyn AgentStore) {
        let first = store.get_or_create("default", "Sage").await.unwrap();
        assert_eq!(first.system_prompt, None);
        assert!(first.enabled_tools.is_empty());
        let again = store.get_or_create("default", "Sage").await.unwrap();
        assert_eq!(first, again);
        let other = store.get_or_create("other", "Sage").await.unwrap();
        assert_ne!(first.id, other.id);
    }

    pub(crate) async fn list_orders_by_id_and_filters_by_account(store: &dyn AgentStore) {
        let a = store.create(NewAgent::new("one", "a")).await.unwrap();
        let b = store.create(NewAgent::new("two", "b")).await.unwrap();
        let c = store.create(NewAgent::new("one", "c")).await.unwrap();
        let ids: Vec<i64> = store.list().await.unwrap().iter().map(|x| x.id).collect();
        assert_eq!(ids, [a.id, b.id, c.id]);
        assert!(a.id < b.id && b.id < c.id);
        assert_eq!(store.list_account("one").await.unwrap(), [a, c]);
        assert_eq!(store.list_account("two").await.unwrap(), [b]);
        assert!(store.list_account("none").await.unwrap().is_empty());
    }

    pub(crate) async fn awkward_text_round_trips(store: &dyn AgentStore) {
        let awkward = [
            "Robert'); DROP TABLE agents;--",
            "line one\nline two\r\n\ttabbed",
            "nul \0 inside",
            "emoji 🦀 and 語",
            "%s %d {} $1 ?1",
        ];
        for (i, text) in awkward.iter().enumerate() {
            let agent = store
                .create(NewAgent::new(*text, format!("{text} {i}")).with_system_prompt(*text))
                .await
                .unwrap();
            let stored = store.get_by_name(text, &agent.name).await.unwrap().unwrap();
            assert_eq!(stored.system_prompt.as_deref(), Some(*text));
            let renamed = store
                .update_field(agent.id, PromptField::ReflectionPrompt, text)
                .await
                .unwrap();
            assert_eq!(renamed.reflection_prompt.as_deref(), Some(*text));
        }
        assert_eq!(store.list().await.unwrap().len(), awkward.len());
    }

    /// Many tasks race to create the same agent; all of them get the one that won.
    pub(crate) async fn concurrent_get_or_create_agrees(store: Arc<dyn AgentStore>) {
        let tasks: Vec<_> = (0..8)
            .map(|_| {
                let store = Arc::clone(&store);
                tokio::spawn(async move { store.get_or_create("default", "Sage").await.unwrap() })
            })
            .collect();
        let mut ids = Vec::new();
        for task in tasks {
            ids.push(task.await.unwrap().id);
        }
        ids.dedup();
        assert_eq!(ids.len(), 1, "{ids:?}");
        assert_eq!(store.list().await.unwrap().len(), 1);
    }
}

both_stores! {
    borrowed: [
        create_then_get_by_id_and_by_name,
        names_are_unique_per_account,
        renaming_respects_uniqueness,
        every_field_updates_its_own_column,
        unknown_ids_are_not_found,
        get_or_create_returns_the_same_agent,
        list_orders_by_id_and_filters_by_account,
        awkward_text_round_trips,
    ],
    shared: [
        concurrent_get_or_create_agrees,
    ]
}
