//! Renamed agents are found under their former names (`get_by_former_name`, `get_or_create`), so
//! a host that names its agent in configuration keeps finding it after the model renamed it: on
//! the memory store and on a real SQLite file (`both_stores!`), plus the upgrade of a version 1
//! SQLite file, which had no record of renames.

use std::sync::Arc;

use tool_std::prompt::{AgentStore, MAX_FORMER_NAMES, NewAgent, PromptField, SqliteAgentStore};

use crate::support::prompt::*;

/// Behaviours every store must show, written against the trait only.
mod behaviour {
    use super::*;

    pub(crate) async fn the_former_name_finds_the_renamed_agent(store: &dyn AgentStore) {
        let sage = store.get_or_create("default", "Sage").await.unwrap();
        store
            .update_field(sage.id, PromptField::SystemPrompt, "You are Sage.")
            .await
            .unwrap();
        let owl = store
            .update_field(sage.id, PromptField::Name, "Owl")
            .await
            .unwrap();
        assert_eq!(store.get_by_name("default", "Sage").await.unwrap(), None);
        assert_eq!(
            store.get_by_former_name("default", "Sage").await.unwrap(),
            Some(owl.clone())
        );
        // What the command line's `--agent Sage` does on its next start.
        let found = store.get_or_create("default", "Sage").await.unwrap();
        assert_eq!(found, owl);
        assert_eq!(found.system_prompt.as_deref(), Some("You are Sage."));
        assert_eq!(store.list().await.unwrap().len(), 1, "no new empty agent");
        // The former name belongs to its account only, and a current name is not a former one.
        assert_eq!(
            store.get_by_former_name("other", "Sage").await.unwrap(),
            None
        );
        assert_eq!(
            store.get_by_former_name("default", "Owl").await.unwrap(),
            None
        );
        let other = store.get_or_create("other", "Sage").await.unwrap();
        assert_ne!(other.id, sage.id);
    }

    pub(crate) async fn a_chain_of_renames_leads_to_the_agent(store: &dyn AgentStore) {
        let agent = store.get_or_create("default", "one").await.unwrap();
        for name in ["two", "three", "four"] {
            store
                .update_field(agent.id, PromptField::Name, name)
                .await
                .unwrap();
        }
        for name in ["one", "two", "three", "four"] {
            let found = store.get_or_create("default", name).await.unwrap();
            assert_eq!(
                (found.id, found.name.as_str()),
                (agent.id, "four"),
                "{name}"
            );
        }
        // Renamed back, the name is current again and no longer a former one.
        store
            .update_field(agent.id, PromptField::Name, "one")
            .await
            .unwrap();
        assert_eq!(
            store.get_by_former_name("default", "one").await.unwrap(),
            None
        );
        assert_eq!(
            store
                .get_by_former_name("default", "four")
                .await
                .unwrap()
                .map(|a| a.id),
            Some(agent.id)
        );
        assert_eq!(store.list().await.unwrap().len(), 1);
    }

    pub(crate) async fn a_new_agent_takes_a_former_name_over(store: &dyn AgentStore) {
        let sage = store.get_or_create("default", "Sage").await.unwrap();
        store
            .update_field(sage.id, PromptField::Name, "Owl")
            .await
            .unwrap();
        let new = store
            .create(NewAgent::new("default", "Sage"))
            .await
            .unwrap();
        assert_ne!(new.id, sage.id);
        assert_eq!(
            store.get_by_former_name("default", "Sage").await.unwrap(),
            None
        );
        assert_eq!(store.get_or_create("default", "Sage").await.unwrap(), new);

        // Another agent renamed onto a former name takes it over the same way.
        let hawk = store
            .create(NewAgent::new("default", "Hawk"))
            .await
            .unwrap();
        store
            .update_field(hawk.id, PromptField::Name, "Kestrel")
            .await
            .unwrap();
        let lark = store
            .create(NewAgent::new("default", "Lark"))
            .await
            .unwrap();
        store
            .update_field(lark.id, PromptField::Name, "Hawk")
            .await
            .unwrap();
        assert_eq!(
            store.get_or_create("default", "Hawk").await.unwrap().id,
            lark.id
        );
        assert_eq!(
            store.get_by_former_name("default", "Hawk").await.unwrap(),
            None
        );
    }

    pub(crate) async fn former_names_are_bounded(store: &dyn AgentStore) {
        let agent = store.get_or_create("default", "name 0").await.unwrap();
        let renames = MAX_FORMER_NAMES + 4;
        for i in 1..=renames {
            store
                .update_field(agent.id, PromptField::Name, &format!("name {i}"))
                .await
                .unwrap();
        }
        let mut remembered = Vec::new();
        for i in 0..renames {
            if store
                .get_by_former_name("default", &format!("name {i}"))
                .await
                .unwrap()
                .is_some()
            {
                remembered.push(i);
            }
        }
        // The most recent former names only.
        let expected: Vec<usize> = (renames - MAX_FORMER_NAMES..renames).collect();
        assert_eq!(remembered, expected);
        // A forgotten name makes a new agent again.
        let new = store.get_or_create("default", "name 0").await.unwrap();
        assert_ne!(new.id, agent.id);
    }
}

both_stores! {
    borrowed: [
        the_former_name_finds_the_renamed_agent,
        a_chain_of_renames_leads_to_the_agent,
        a_new_agent_takes_a_former_name_over,
        former_names_are_bounded,
    ],
    shared: []
}

/// A file written by the first schema (no `former_names` table) is upgraded when opened, keeps
/// its agents, and remembers renames from then on.
#[tokio::test]
async fn a_version_one_file_is_upgraded_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agents.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "CREATE TABLE agents (
                 id INTEGER PRIMARY KEY AUTOINCREMENT, account TEXT NOT NULL,
                 name TEXT NOT NULL, system_prompt TEXT, reflection_prompt TEXT,
                 memory_reflection_prompt TEXT, enabled_tools TEXT NOT NULL DEFAULT '[]',
                 UNIQUE (account, name));
             INSERT INTO agents (account, name, system_prompt) VALUES ('default', 'Sage', 'Hi');
             PRAGMA user_version = 1;",
        )
        .unwrap();
    }
    let store: Arc<dyn AgentStore> = Arc::new(SqliteAgentStore::open(&path).await.unwrap());
    let sage = store.get_by_name("default", "Sage").await.unwrap().unwrap();
    assert_eq!(sage.system_prompt.as_deref(), Some("Hi"));
    store
        .update_field(sage.id, PromptField::Name, "Owl")
        .await
        .unwrap();
    drop(store);

    let store = SqliteAgentStore::open(&path).await.unwrap();
    assert_eq!(
        store.get_or_create("default", "Sage").await.unwrap().name,
        "Owl"
    );
    let version: i64 = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .unwrap();
    assert_eq!(version, tool_std::prompt::sqlite::SCHEMA_VERSION);
}
