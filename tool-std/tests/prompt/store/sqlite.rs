//! What only the SQLite agent store's file can show: the directory, file and schema made on
//! first open, persistence across reopening, a second handle that sees writes at once,
//! concurrent writers on separate connections and in separate processes, and unusable paths
//! reported as errors.

use std::sync::Arc;

use tool_std::prompt::{AgentStore, NewAgent, PromptField, SqliteAgentStore, StoreError};

use crate::support::prompt::*;
use crate::support::this_test;

/// Tests only the SQLite file can show.
mod sqlite_file {
    use super::*;
    use std::path::Path;

    fn raw(path: &Path) -> rusqlite::Connection {
        rusqlite::Connection::open(path).unwrap()
    }

    #[tokio::test]
    async fn first_open_creates_directory_file_and_schema() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested/deeper/agents.db");
        assert!(!path.exists());
        let store = SqliteAgentStore::open(&path).await.unwrap();
        assert!(path.is_file());
        assert_eq!(store.path(), path);
        assert!(store.list().await.unwrap().is_empty());

        let conn = raw(&path);
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .unwrap();
        assert_eq!(version, tool_std::prompt::sqlite::SCHEMA_VERSION);
        let mode: String = conn
            .query_row("PRAGMA journal_mode", [], |row| row.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        let columns: Vec<String> = conn
            .prepare("SELECT name FROM pragma_table_info('agents') ORDER BY cid")
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            columns,
            [
                "id",
                "account",
                "name",
                "system_prompt",
                "reflection_prompt",
                "memory_reflection_prompt",
                "enabled_tools"
            ]
        );
    }

    #[tokio::test]
    async fn reopening_keeps_agents_and_updates() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("agents.db");
        let store = SqliteAgentStore::open(&path).await.unwrap();
        let sage = store
            .create(NewAgent::new("default", "Sage").with_enabled_tools(["web"]))
            .await
            .unwrap();
        let doomed = store
            .create(NewAgent::new("default", "Doomed"))
            .await
            .unwrap();
        store
            .update_field(sage.id, PromptField::SystemPrompt, &"s".repeat(50_000))
            .await
            .unwrap();
        store
            .update_field(sage.id, PromptField::Name, "Sage II")
            .await
            .unwrap();
        drop(store);

        let store = SqliteAgentStore::open(&path).await.unwrap();
        let reopened = store.get_by_id(sage.id).await.unwrap().unwrap();
        assert_eq!(reopened.name, "Sage II");
        assert_eq!(
            reopened.system_prompt.map(|s| s.chars().count()),
            Some(50_000)
        );
        assert_eq!(reopened.enabled_tools, ["web"]);
        // Uniqueness survives reopening too.
        let err = store
            .create(NewAgent::new("default", "Sage II"))
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::NameTaken { .. }));

        // Ids are never reused, even for the highest id after it is deleted.
        raw(&path)
            .execute("DELETE FROM agents WHERE id = ?1", [doomed.id])
            .unwrap();
        let fresh = store
            .create(NewAgent::new("default", "Fresh"))
            .await
            .unwrap();
        assert!(fresh.id > doomed.id);
    }

    #[tokio::test]
    async fn a_second_handle_sees_writes_at_once() {
        let (dir, first) = sqlite_store().await;
        let second = SqliteAgentStore::open(dir.path().join("agents.db"))
            .await
            .unwrap();
        let agent = first.get_or_create("default", "Sage").await.unwrap();
        second
            .update_field(
                agent.id,
                PromptField::SystemPrompt,
                "from the second handle",
            )
            .await
            .unwrap();
        let seen = first.get_by_id(agent.id).await.unwrap().unwrap();
        assert_eq!(
            seen.system_prompt.as_deref(),
            Some("from the second handle")
        );
    }

    /// Two handles (two connections, as two processes would have), two tasks each: every
    /// update lands and none fails with "database is locked".
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_writers_on_two_connections_all_succeed() {
        let (dir, first) = sqlite_store().await;
        let second = SqliteAgentStore::open(dir.path().join("agents.db"))
            .await
            .unwrap();
        let agent = first.get_or_create("default", "Sage").await.unwrap();
        let handles: Vec<Arc<dyn AgentStore>> = vec![Arc::new(first.clone()), Arc::new(second)];
        let mut tasks = Vec::new();
        for (h, store) in handles.iter().enumerate() {
            for t in 0..2 {
                let store = Arc::clone(store);
                tasks.push(tokio::spawn(async move {
                    for i in 0..25 {
                        append_tool(&*store, agent.id, format!("h{h}-t{t}-{i}")).await;
                        store
                            .update_field(agent.id, PromptField::ReflectionPrompt, "x")
                            .await
                            .unwrap();
                    }
                }));
            }
        }
        for task in tasks {
            task.await.unwrap();
        }
        let tools = first
            .get_by_id(agent.id)
            .await
            .unwrap()
            .unwrap()
            .enabled_tools;
        assert_eq!(tools.len(), 100);
        let mut unique = tools.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 100);
    }

    const CHILD_DB: &str = "TOOLSMITH_TEST_PROMPT_STORE_DB";

    /// Run by `two_processes_write_the_same_file_safely` in a child process; does nothing alone.
    #[tokio::test]
    #[ignore = "helper: runs only as the child process of two_processes_write_the_same_file_safely"]
    async fn child_process_writer() {
        let Ok(path) = std::env::var(CHILD_DB) else {
            return;
        };
        let store = SqliteAgentStore::open(&path).await.unwrap();
        let agent = store.get_or_create("default", "Shared").await.unwrap();
        for i in 0..40 {
            append_tool(&store, agent.id, format!("child-{i}")).await;
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn two_processes_write_the_same_file_safely() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("agents.db");
        let store = SqliteAgentStore::open(&path).await.unwrap();
        let agent = store.get_or_create("default", "Shared").await.unwrap();

        let mut child =
            tokio::process::Command::from(this_test(module_path!(), "child_process_writer"))
                .args(["--ignored", "--test-threads=1"])
                .env(CHILD_DB, &path)
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap();
        for i in 0..40 {
            append_tool(&store, agent.id, format!("parent-{i}")).await;
        }
        assert!(child.wait().await.unwrap().success());

        let tools = store
            .get_by_id(agent.id)
            .await
            .unwrap()
            .unwrap()
            .enabled_tools;
        assert_eq!(
            tools.iter().filter(|t| t.starts_with("parent-")).count(),
            40
        );
        assert_eq!(tools.iter().filter(|t| t.starts_with("child-")).count(), 40);
    }

    #[tokio::test]
    async fn unusable_paths_are_errors_not_panics() {
        let dir = tempfile::tempdir().unwrap();
        // The path is a directory.
        let err = SqliteAgentStore::open(dir.path()).await.unwrap_err();
        assert!(matches!(err, StoreError::Backend { .. }), "{err:?}");
        // The parent "directory" is a file.
        let file = dir.path().join("file");
        std::fs::write(&file, "not a directory").unwrap();
        let err = SqliteAgentStore::open(file.join("agents.db"))
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::Io { .. }), "{err:?}");
        assert!(
            err.to_string()
                .starts_with("could not create the directory")
        );
        // The file is not a database.
        let junk = dir.path().join("junk.db");
        std::fs::write(&junk, vec![0xAB; 4096]).unwrap();
        let err = SqliteAgentStore::open(&junk).await.unwrap_err();
        assert!(matches!(err, StoreError::Backend { .. }), "{err:?}");
    }
}
